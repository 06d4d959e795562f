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
- a JSON-lines record ``json.dumps({"iter": i, "train": {"loss": ..., "lr": ...}})``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults

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
