"""Layouts a training script writes for itself, copied everywhere: the step is the one the
log prints, where the count of an epoch's batches names what it counts after it, or where a
run's own JSON record nests its metrics under their split.

- pytorch/examples ``word_language_model/main.py`` (and the PyTorch transformer tutorial
  after it): ``'| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | loss
  {:5.2f} | ppl {:8.2f}'`` every ``log_interval`` batches (``batch % log_interval == 0 and
  batch > 0``), epochs from 1, then ``'| end of epoch {:3d} | time: {:5.2f}s | valid loss
  {:5.2f} | valid ppl {:8.2f}'`` between rules of 89 dashes;
- pytorch/examples ``super_resolution/main.py``: ``"===> Epoch[{}]({}/{}): Loss: {:.4f}"`` a
  batch (iterations from 1, epochs from 1), then ``"===> Epoch {} Complete: Avg. Loss:
  {:.4f}"`` and ``"===> Avg. PSNR: {:.4f} dB"``;
- the PyTorch CIFAR-10 tutorial (``beginner_source/blitz/cifar10_tutorial.py``): ``print(f'[{epoch
  + 1}, {i + 1:5d}] loss: {running_loss / 2000:.3f}')`` every 2000 batches, then ``Finished
  Training``;
- Python's self-documenting f-string, ``print(f"{step=} {loss.item()=} {scaler.get_scale()=}")``:
  the expression is the key;
- a loop's own progress, ``N/T`` with no key, behind the logging prefixes of logging,
  absl, Hydra, torchrun and accelerate's examples (``400/2000 | loss=nan``), and its counter
  under a loop's own names (``num_updates``, ``opt_step``, ``n_iter``, ``batch``);
- a JSON-lines record ``json.dumps({"iter": i, "train": {"loss": ..., "lr": ...}})``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.render import render_text

_BATCHES = 2983
_RULE = "-" * 89


def _word_language_model(nan_from: tuple[int, int] | None = None, epochs: int = 2,
                         interval: int = 200) -> list[str]:
    lines = []
    for epoch in range(1, epochs + 1):
        for batch in range(interval, _BATCHES, interval):
            bad = nan_from is not None and (epoch, batch) >= nan_from
            loss = math.nan if bad else 7.6 - epoch * 0.8 - batch / 5000
            lines.append(f"| epoch {epoch:3d} | {batch:5d}/{_BATCHES:5d} batches | lr 20.00 | "
                         f"ms/batch 45.47 | loss {loss:5.2f} | ppl {math.exp(loss):8.2f}")
        valid = math.nan if nan_from is not None and epoch >= nan_from[0] else 5.5 - epoch / 10
        lines += [_RULE, f"| end of epoch {epoch:3d} | time: 140.59s | valid loss {valid:5.2f} "
                  f"| valid ppl {math.exp(valid):8.2f}", _RULE]
    return lines


def test_word_language_model_counts_the_epochs_batches(tmp_path: Path) -> None:
    """Before: the batch count before ``batches`` was not read (the step was the row's
    number, 22). The epoch's closing NaN validation loss is evaluation's, after the epoch's
    last row (batch 2800)."""
    assert faults(tmp_path, _word_language_model((2, 1000))) == [
        ("AMP006", _BATCHES + 1000), ("AMP013", _BATCHES + 2800)]


def _super_resolution(nan_from: tuple[int, int] | None = None, batches: int = 100,
                      epochs: int = 2) -> list[str]:
    lines = []
    for epoch in range(1, epochs + 1):
        losses = []
        for iteration in range(1, batches + 1):
            bad = nan_from is not None and (epoch, iteration) >= nan_from
            losses.append(math.nan if bad else 0.1 - iteration / 1e4)
            lines.append(f"===> Epoch[{epoch}]({iteration}/{batches}): Loss: {losses[-1]:.4f}")
        lines += [f"===> Epoch {epoch} Complete: Avg. Loss: {sum(losses) / batches:.4f}",
                  "===> Avg. PSNR: 24.1234 dB"]
    return lines


def test_super_resolution_batch_in_parentheses(tmp_path: Path) -> None:
    """Before: the parenthesised batch was not read, and the epoch's closing average was
    counted as a row (step 131)."""
    assert faults(tmp_path, _super_resolution((2, 30))) == [("AMP006", 130)]


def _nested_records(nan_from: int | None = None, key: str = "iter") -> list[str]:
    return [json.dumps({key: step, "train": {
        "loss": math.nan if nan_from is not None and step >= nan_from else 2.5 - step / 1e4,
        "lr": 1e-4}}) for step in range(10, 610, 10)]


def test_nested_record_keeps_its_counter(tmp_path: Path) -> None:
    """Before: the metrics' dict was read as HF Trainer's row, without the outer record's
    counter (step 40, the row's number)."""
    assert faults(tmp_path, _nested_records(400)) == [("AMP006", 400)]
    assert faults(tmp_path, _nested_records(400, key="global_step")) == [("AMP006", 400)]


def _cifar10(nan_from: tuple[int, int] | None = None, batches: int = 10000,
             every: int = 2000) -> list[str]:
    """The tutorial's loop with ``batch_size=5`` (10000 batches an epoch)."""
    lines = []
    for epoch in range(2):
        for i in range(every - 1, batches, every):
            bad = nan_from is not None and (epoch + 1, i + 1) >= nan_from
            running = math.nan if bad else 2.2 - i / 1e5 - epoch / 10
            lines.append(f"[{epoch + 1}, {i + 1:5d}] loss: {running:.3f}")
    return [*lines, "Finished Training"]


def test_cifar10_tutorial_epoch_and_batch(tmp_path: Path) -> None:
    """Before: the bracketed epoch and batch were not read (step 8, the row's number). The
    epoch's length is not printed: it is the last count plus the interval, exact where the
    interval divides it."""
    assert faults(tmp_path, _cifar10((2, 6000))) == [("AMP006", 16000)]


def _debug_prints(nan_from: int | None = None, collapse_from: int | None = None) -> list[str]:
    lines, scale = [], 65536.0
    for step in range(1, 400):
        if collapse_from is not None and step >= collapse_from:
            scale /= 2  # every step skipped: halved each time
        elif step % 100 == 0:
            scale *= 2  # growth_interval=100 (a non-default setting)
        loss = math.nan if nan_from is not None and step >= nan_from else 2.0 - step / 1e4
        lines.append(f"{step=} {loss=:.4f} scaler.get_scale()={scale}".replace(
            "loss=", "loss.item()="))
    return lines


def test_self_documenting_fstring_keys(tmp_path: Path) -> None:
    """Before: ``loss.item()=nan`` and ``scaler.get_scale()=0.5`` named no key ("nothing to
    diagnose")."""
    assert faults(tmp_path, _debug_prints(nan_from=300)) == [("AMP006", 300)]
    assert faults(tmp_path, _debug_prints(collapse_from=300)) == [
        ("AMP003", 300), ("AMP004", 318)]  # 2**18 halved 19 times: below 1


def test_controls(tmp_path: Path) -> None:
    """Healthy runs, with other print intervals and lengths (on the parent the debug prints
    were not read at all: "nothing to diagnose")."""
    assert faults(tmp_path, _word_language_model()) == []
    assert faults(tmp_path, _word_language_model(interval=50, epochs=3)) == []
    assert faults(tmp_path, _nested_records()) == []
    assert faults(tmp_path, _super_resolution(batches=37, epochs=3)) == []
    assert faults(tmp_path, _debug_prints()) == []
    assert faults(tmp_path, _cifar10()) == []
    assert faults(tmp_path, _cifar10(batches=12500, every=500)) == []


_PREFIXES = ("05/01/2024 12:00:00 - INFO - __main__ - ",  # accelerate's examples
             "I0501 12:00:00.123456 140000 train.py:123] ",  # absl
             "[2024-05-01 12:00:00,123][__main__][INFO] - ",  # Hydra's job logging
             "[rank0]: ", "INFO:root:", "")
_COUNTS = ("{n}/{t} | loss={v}", "[{n}/{t}]  Loss {v}  lr: 1.0e-04", "({n}/{t}) - train_loss: {v}",
           "loss: {v}  {n}/{t}  grad_norm: 1.23", "train: {n}/{t}, loss {v}")


def _progress(prefix: str, layout: str, nan_from: int | None = None, every: int = 10,
              total: int = 2000) -> list[str]:
    return [prefix + layout.format(n=n, t=total, v="nan" if nan_from is not None and n >= nan_from
                                   else f"{3.0 - n / 1e4:.4f}")
            for n in range(every, total // 2, every)]


def test_unkeyed_progress_count_is_the_step(tmp_path: Path) -> None:
    """Before: a count of the run's total with no key was not read behind a logging prefix
    or after another value (the step was the row's number, 40)."""
    for prefix in _PREFIXES:
        for layout in _COUNTS:
            assert faults(tmp_path, _progress(prefix, layout, 400)) == [("AMP006", 400)], (
                prefix + layout)


def test_loop_counter_names(tmp_path: Path) -> None:
    """Before: ``num_updates`` was claimed by the fairseq reader, which reads ``loss=`` only
    (silence); ``opt_step``, ``n_iter`` and ``batch`` named no counter (the row's number)."""
    for line in ("num_updates={n}  Loss={v}  tokens/s=12345", "opt_step: {n} - loss: {v}",
                 "n_iter {n} loss_G 1.2 loss_D {v}", "Batch: {n} | loss: {v}"):
        lines = [line.format(n=n, v="NaN" if n >= 400 else f"{2.0 - n / 1e4:.4f}")
                 for n in range(10, 800, 10)]
        assert faults(tmp_path, lines) == [("AMP006", 400)], line


def test_counts_that_are_not_the_step(tmp_path: Path) -> None:
    """A key's own fraction (``mem 12/80``) and a date are no step; an epoch's batch is the
    epoch's (these passed on the parent too: controls for the rule)."""
    mem = [f"step {n} loss {'nan' if n >= 400 else 2.0} mem 12/80 GB" for n in range(10, 800, 10)]
    assert faults(tmp_path, mem) == [("AMP006", 400)]
    dated = [f"05/01/2024 loss {'nan' if n >= 40 else 2.0}" for n in range(1, 80)]
    assert faults(tmp_path, dated) == [("AMP006", 40)]
    epochs = [f"epoch {e} batch {b} loss {'nan' if (e, b) >= (2, 50) else 2.0}"
              for e in range(4) for b in range(0, 100, 10)]
    assert faults(tmp_path, epochs) == [("AMP006", 250)]


def test_progress_controls(tmp_path: Path) -> None:
    """Healthy runs with every prefix and layout above, printed every 5 (silent on the
    parent too)."""
    for prefix in _PREFIXES:
        for layout in _COUNTS:
            assert faults(tmp_path, _progress(prefix, layout, every=5)) == [], prefix + layout


def test_a_log_whose_rows_print_no_step_says_so(tmp_path: Path) -> None:
    """HF Trainer's dict rows in a file print no step: the verdict says that its steps are
    the rows' places in the log (before: "step 25" read as an optimizer step)."""
    rows = [f"{{'loss': {'nan' if row >= 25 else 2.0}, 'learning_rate': 5e-05, "
            f"'epoch': {row / 100:.2f}}}" for row in range(1, 41)]
    result = diagnose_lines(tmp_path, rows)
    assert result.steps_are_rows and [(d.code, d.step) for d in result.faults] == [("AMP006", 25)]
    assert "steps are counted by the log's rows" in render_text([result])
    printed = diagnose_lines(tmp_path, [f"step {n} loss {'nan' if n >= 25 else 2.0}"
                                        for n in range(1, 41)])
    assert not printed.steps_are_rows
    assert "counted by the log's rows" not in render_text([printed])
