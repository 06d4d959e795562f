"""Each diagnosis says where its step came from (issue #27: "judge by rows, with the
confidence said"): ``step_basis`` in its evidence, decided where the row's step was made
(denpex_callbacks/logs/step_basis.py), and, where the step is no printed counter, the words
after the step in the text (``step 6 (counted from rows; the log prints no step)``) and in
the JSON (``step_note``). Six layouts: a printed counter (nanoGPT), a Keras epoch bar, an
epoch-only summary (PyG), rows counted (HF Trainer rows in a file), the PyTorch MNIST
example (the run's samples), DeepSpeed under the HF Trainer (its counter) and the Trainer's
logging interval. Before (0d43ce6): no basis anywhere; the MNIST example's rows were counted
(a 6-line excerpt read ``AMP006 ... (step 10, ...)``, 15 steps reconstructed).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.render import render_json, render_text

# The bases as the JSON names them (denpex_callbacks/logs/step_basis.py), spelt out: a
# contract of the output, checked on the parent too (which names none).
PRINTED, EPOCH_LENGTH, SAMPLES, EPOCH = "printed", "epoch_length", "samples", "epoch"
INTERVAL, ROWS = "interval", "rows"
NAN = math.nan


def _value(bad: int | None, at: int, value: float) -> float:
    return NAN if bad is not None and at >= bad else value


def nanogpt(bad: int | None = None, iters: int = 400, every: int = 10) -> list[str]:
    """karpathy/nanoGPT ``train.py``: every ``log_interval`` iterations (10 here, 1 by
    default) ``print(f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu
    {running_mfu*100:.2f}%")``; ``bad`` is the first NaN iteration."""
    return [f"iter {i}: loss {_value(bad, i, 4.2 - i / 200):.4f}, time {812.5:.2f}ms, "
            f"mfu {31.25:.2f}%" for i in range(0, iters + 1, every)]


def keras_bars(bad: int | None = None, epochs: int = 8, batches: int = 40) -> list[str]:
    """keras 2 ``utils/generic_utils.py`` ``Progbar`` under ``callbacks.ProgbarLogger``, as a
    file keeps it (each epoch's last state): ``'Epoch %d/%d'``, then ``'%d/%d [%s] - %ds
    %dms/step - loss: %.4f'``; ``bad`` is the first NaN epoch (from 1)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        out += [f"Epoch {e}/{epochs}", f"{batches}/{batches} [==============================]"
                f" - 3s 71ms/step - loss: {_value(bad, e, 1.9 - e / 10):.4f}"]
    return out


def pyg_teacher(bad: int | None = None, epochs: int = 200, every: int = 20) -> list[str]:
    """pyg-team/pytorch_geometric ``examples/glnn.py``: ``'Training Teacher GNN:'``, then
    every 20 epochs ``print(f'Epoch: {epoch:03d}, Loss: {loss:.4f}, Train: {train_acc:.4f},
    ' f'Val: {val_acc:.4f}, Test: {test_acc:.4f}')``: one row an epoch, no batch printed;
    ``bad`` is the first NaN epoch."""
    out = ["Training Teacher GNN:"]
    for e in range(every, epochs + 1, every):
        loss = _value(bad, e, 1.8 - e / 150)
        acc = 0.1 if loss != loss else 0.6 + e / 1000
        out.append(f"Epoch: {e:03d}, Loss: {loss:.4f}, Train: {acc:.4f}, Val: {acc - 0.05:.4f}, "
                   f"Test: {acc - 0.06:.4f}")
    return out


def hf_rows(bad: int | None = None, rows: int = 30) -> list[str]:
    """huggingface/transformers ``trainer.py`` ``Trainer.log``: a dict a logging step,
    ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}``, the step
    printed nowhere (no arguments in the excerpt); ``bad`` is the first NaN row (from 1)."""
    return [f"{{'loss': {'nan' if bad is not None and k >= bad else f'{1.1 - k / 100:.4f}'}, "
            f"'grad_norm': {0.8 + k / 100:.4f}, 'learning_rate': {3e-05 * (1 - k / rows):.6g}, "
            f"'epoch': {3 * k / rows:.2f}}}" for k in range(1, rows + 1)]


def mnist(bad: int | None = None, epochs: int = 3, batch: int = 128, every: int = 20,
          n_train: int = 60000) -> list[str]:
    """pytorch/examples ``mnist/main.py`` ``train``: every ``log_interval`` batches
    ``'Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'.format(epoch, batch_idx *
    len(data), len(train_loader.dataset), 100. * batch_idx / len(train_loader),
    loss.item())`` over ``range(1, args.epochs + 1)`` (here a batch of 128, every 20; the
    defaults are 64 and 10); ``bad`` is the run's first NaN batch (``(epoch - 1) * batches
    + batch_idx``)."""
    batches = -(-n_train // batch)
    out: list[str] = []
    for e in range(1, epochs + 1):
        for b in range(0, batches, every):
            g = (e - 1) * batches + b
            out.append(f"Train Epoch: {e} [{b * batch}/{n_train} ({100.0 * b / batches:.0f}%)]"
                       f"\tLoss: {_value(bad, g, 2.3 / (1 + g / 200)):.6f}")
    return out


def deepspeed_hf(bad: int | None = None, steps: int = 120, every: int = 10) -> list[str]:
    """The HF Trainer under DeepSpeed: every ``steps_per_print`` the engine's
    ``_report_progress`` (deepspeedai/DeepSpeed ``deepspeed/runtime/engine.py``:
    ``f"step={self.global_steps}, skipped={self.skipped_steps}, lr={lr}, mom={mom}"``,
    through ``log_dist`` with its ``[Rank 0]``), then the Trainer's ``log`` dict of the same
    step (huggingface/transformers ``trainer.py``; ``logging_steps`` equal to it here);
    ``bad`` is the first NaN step."""
    stamp = "[2026-12-07 10:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] "
    out: list[str] = []
    for s in range(every, steps + 1, every):
        out.append(f"{stamp}step={s}, skipped=0, lr=[2e-05], mom=[(0.9, 0.999)]")
        loss = "nan" if bad is not None and s >= bad else f"{0.9 - s / 1000:.4f}"
        out.append(f"{{'loss': {loss}, 'learning_rate': 2e-05, 'epoch': {s / 400:.2f}}}")
    return out


def hf_interval(bad: int | None = None, rows: int = 30, interval: int = 25) -> list[str]:
    """The HF Trainer's arguments as ``examples/pytorch`` scripts log them
    (huggingface/transformers ``examples/pytorch/text-classification/run_glue.py``:
    ``logger.info(f"Training/evaluation parameters {training_args}")``, one field a line),
    ``logging_steps`` among them, then its ``log`` dicts (no step printed)."""
    head = ["12/07/2026 10:00:00 - INFO - __main__ - Training/evaluation parameters "
            "TrainingArguments(", f"logging_steps={interval},",
            "logging_strategy=IntervalStrategy.STEPS,", "output_dir=out,", ")"]
    return head + hf_rows(bad, rows)


def _basis(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, str]]:
    return [(d.code, d.step, d.evidence["step_basis"])
            for d in diagnose_lines(tmp_path, lines).faults]


def test_a_printed_counter_says_nothing_more(tmp_path: Path) -> None:
    """nanoGPT's ``iter 250: loss nan``: the counter the line printed, no words after it."""
    result = diagnose_lines(tmp_path, nanogpt(243))
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 250)]
    (diagnosis,) = result.faults
    assert diagnosis.evidence["step_basis"] == PRINTED and "step_note" not in diagnosis.evidence
    assert diagnosis.where().startswith("step 250, rank 0")
    assert result.step_bases == [PRINTED]
    assert faults(tmp_path, nanogpt(iters=600, every=25)) == []


def test_a_keras_epoch_bar_counts_across_epochs(tmp_path: Path) -> None:
    """Keras' bar counts the epoch's batches: epoch 5's end is the epochs before times the
    bar's total plus its count (5 * 40 = 200), said so."""
    assert _basis(tmp_path, keras_bars(5)) == [("AMP006", 200, EPOCH_LENGTH)]
    (diagnosis,) = diagnose_lines(tmp_path, keras_bars(5)).faults
    assert "(counted across epochs" in diagnosis.where()
    assert faults(tmp_path, keras_bars(epochs=12, batches=75)) == []


def test_an_epoch_only_summary_is_the_epoch(tmp_path: Path) -> None:
    """PyG's ``Epoch: 120, Loss: nan``: one row an epoch, the step is the epoch."""
    assert _basis(tmp_path, pyg_teacher(110)) == [("AMP006", 120, EPOCH)]
    assert faults(tmp_path, pyg_teacher(epochs=300, every=10)) == []


def test_rows_counted_say_so(tmp_path: Path) -> None:
    """HF Trainer rows with no arguments above: the rows' places, said in words."""
    result = diagnose_lines(tmp_path, hf_rows(12))
    assert _basis(tmp_path, hf_rows(12)) == [("AMP006", 12, ROWS)]
    (diagnosis,) = result.faults
    assert diagnosis.where().startswith(
        "step 12 (counted from rows; the log prints no step), rank 0")
    assert faults(tmp_path, hf_rows(rows=45)) == []


def test_the_mnist_example_counts_samples(tmp_path: Path) -> None:
    """The PyTorch MNIST example's ``Train Epoch: 2 [7680/60000 (13%)]``: the run's samples
    (one epoch's 60000 before, then the count), said with the unit; from the start and from
    the middle (epoch 2's batch 50 printed at 60: 60000 + 60 * 128 = 67680). Before: the
    rows counted (28, 27)."""
    lines = mnist(469 + 50)
    assert _basis(tmp_path, lines) == [("AMP006", 67680, SAMPLES)]
    assert _basis(tmp_path, lines[25:]) == [("AMP006", 67680, SAMPLES)]
    assert faults(tmp_path, mnist(epochs=4, batch=32, every=50)) == []


def test_deepspeed_under_the_trainer_prints_its_step(tmp_path: Path) -> None:
    """DeepSpeed's ``step=70, skipped=0`` above the Trainer's dict numbers the dict: a
    printed counter."""
    assert _basis(tmp_path, deepspeed_hf(65)) == [("AMP006", 70, PRINTED)]
    assert faults(tmp_path, deepspeed_hf(steps=300, every=20)) == []


def test_the_trainer_logging_interval_numbers_its_rows(tmp_path: Path) -> None:
    """``logging_steps=25`` in the arguments above the dicts: the 12th row is step 300,
    counted from the rows times the interval."""
    assert _basis(tmp_path, hf_interval(12)) == [("AMP006", 300, INTERVAL)]
    assert faults(tmp_path, hf_interval(rows=40, interval=50)) == []


def test_the_outputs_say_the_basis_in_words(tmp_path: Path) -> None:
    """The text's location and the JSON's evidence say a step in samples, and the verdict
    says the rows read and that their steps count samples; a printed counter's JSON carries
    its basis alone."""
    result = diagnose_lines(tmp_path, mnist(469 + 50))
    text = render_text([result])
    assert "step 67680 (in samples, not steps" in text
    assert "72 row(s) read (their steps count samples, not optimizer steps" in text
    document = json.loads(render_json([result], 1))
    evidence = document["diagnoses"][0]["evidence"]
    assert evidence["step_basis"] == SAMPLES and evidence["step_note"].startswith(
        "in samples, not steps")
    assert document["inputs"][0]["step_bases"] == [SAMPLES]
    printed = json.loads(render_json([diagnose_lines(tmp_path, nanogpt(243))], 1))
    assert printed["diagnoses"][0]["evidence"]["step_basis"] == PRINTED
    assert "step_note" not in printed["diagnoses"][0]["evidence"]


def test_the_verdict_counts_rows_where_the_steps_count_samples_or_epochs(
        tmp_path: Path) -> None:
    """Six MNIST rows of epoch 3 (``Train Epoch: 3 [19200/60000 (32%)]``, the example's own
    batch of 64 every 10) span 3202 samples from the run's start: the parent's verdict said
    "3202 step(s) reconstructed"; now "6 row(s) read". The same for an epoch-only log (PyG's
    ten rows, every 20 epochs: "200 step(s)"), from the start and the middle; a printed
    counter's verdict, and a log whose rows are counted, keep their step counts."""
    epoch3 = [line for line in mnist(epochs=3, batch=64, every=10)
              if line.startswith("Train Epoch: 3")]
    first = next(i for i, line in enumerate(epoch3) if "[19200/60000 (32%)]" in line)
    text = render_text([diagnose_lines(tmp_path, epoch3[first:first + 6])])
    assert ("6 row(s) read (their steps count samples, not optimizer steps: the log prints no "
            "batch size), 0 skipped by overflow") in text
    assert "step(s) reconstructed" not in text
    for lines, rows in ((pyg_teacher(epochs=300, every=30), 10),
                        (pyg_teacher(epochs=300, every=30)[4:], 7)):
        text = render_text([diagnose_lines(tmp_path, lines)])
        assert f"{rows} row(s) read (their steps count epochs, not optimizer steps" in text
    assert "step(s) reconstructed" in render_text([diagnose_lines(tmp_path, nanogpt(243))])
    counted = render_text([diagnose_lines(tmp_path, hf_rows(rows=24))])
    assert "24 step(s) reconstructed" in counted and "counted by the log's rows" in counted


def test_the_trail_keeps_changes_only() -> None:
    """The basis is kept where it changes; a step back (a run begun again) rewrites the
    trail from there."""
    from denpex_callbacks.logs.step_basis import BasisTrail  # (none on the parent)

    trail = BasisTrail()
    for step in range(1, 1001):
        trail.note(step, PRINTED)
    trail.note(1001, ROWS)
    assert trail._steps == [1, 1001]
    trail.note(5, SAMPLES)
    assert (trail.at(4), trail.at(5), trail.at(2000)) == (PRINTED, SAMPLES, SAMPLES)


def lightning_bar(bad: int | None = None, epochs: int = 4, batches: int = 100,
                  every: int = 10) -> list[str]:
    """Lightning's ``TQDMProgressBar`` as a file keeps its refreshes
    (lightning/pytorch/callbacks/progress/tqdm_progress.py: ``desc`` ``f"Epoch {epoch}"``,
    tqdm's ``{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]``,
    the postfix ``v_num`` and the logged ``train_loss``), epochs from 0; ``bad`` is the
    run's first NaN step (``epoch * batches + n``)."""
    out: list[str] = []
    for e in range(epochs):
        for n in range(every, batches + 1, every):
            g = e * batches + n
            loss = "nan" if bad is not None and g >= bad else f"{2 - g / 500:.3f}"
            out.append(f"Epoch {e}: {n * 100 // batches}%|████      | {n}/{batches} "
                       f"[00:0{e}<00:10, 9.12it/s, v_num=3, train_loss={loss}]")
    return out


def test_a_lightning_bar_counts_across_epochs(tmp_path: Path) -> None:
    """Lightning's bar counts the epoch's batches (``Epoch 2: 50%| 50/100``): epoch 2's
    batch 50 is step 250, counted across epochs (the family parser names the basis)."""
    assert _basis(tmp_path, lightning_bar(245)) == [("AMP006", 250, EPOCH_LENGTH)]
    assert faults(tmp_path, lightning_bar(epochs=6, batches=60, every=20)) == []
