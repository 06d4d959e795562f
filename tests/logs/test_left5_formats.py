"""Misses left by earlier rounds (batch B), re-created from each tool's own format strings
(each test names its source) and fixed by a general rule, each beside healthy controls.

- countdowns: a LoRA-GA initialisation loop (``common/lora_modules/lora_ga.py`` of a LoRA
  fine-tuning framework; the code index names no repository for it) prints
  ``f'--->LoRA-GA gradient computing step: {idx+1}, loss: {loss.item()}, remaining steps:
  {iters - (idx+1)} '``. With the countdown first, or alone, ``steps`` / ``iters`` after
  ``remaining`` were read as the step: the steps ran backwards and the line was read newest
  first. A counter's key after ``remaining`` is now a countdown, no step
  (``metric_pairs._claim``): the step is the counter that runs up, or the rows.
- Keras 1.x/2.x ``fit`` on arrays (keras/utils/generic_utils.py ``Progbar``, ``Train on 60000
  samples``): the bar counts samples, ``3200/60000 [>....] - ETA: 52s - loss: nan``; it was
  read as batch 3200. A bar drawn ``[...]`` whose first count is a whole batch under a tenth
  of its total and whose counts are all multiples of it counts samples: its steps are the
  batches (``metric_reader.MetricReader._bar_step``).
- ultralytics/yolov5 ``train.py``: ``pbar.set_description(('%11s' * 2 + '%11.4g' * 5) %
  (f'{epoch}/{epochs - 1}', mem, *mloss, targets.shape[0], imgs.shape[-1]))`` under tqdm's
  ``'{l_bar}{bar:10}{r_bar}'``, hard-wrapped by a paste at 60 columns into three lines: every
  break fell in a column's padding or after tqdm's ``<``, no token cut, so the paste was not
  joined ("nothing to diagnose"). A break with a blank at both sides, or after ``<``, now cuts
  a token (``hard_wraps._cut_token``).
- Julia's ConsoleLogger (julia ``base/logging/ConsoleLogger.jl`` ``handle_message``): ``@info
  "epoch" train_loss=l val_loss=v`` each epoch (FluxTraining's and MLJ's loops log through
  it) prints ``┌ Info: epoch`` / ``│   train_loss = NaN`` / ``└   val_loss = NaN``; the key
  lines were read as a run's closing summary (HF's ``  train_loss = ...`` block): AMP006 with
  no step. Such a record's key lines now go to the generic reader (``parsers._LOGGED_RECORD``),
  which numbers each epoch's record by its rows and says so.
- deepjavalibrary/djl (``api/src/main/java/ai/djl/training/listener/
  LoggingTrainingListener.java``, ``training/util/ProgressBar.java``): the training bar
  ``Training:    40% |████   | Accuracy: 0.87, SoftmaxCrossEntropyLoss: 0.41, speed: ...
  items/sec`` (one row a percent, rewritten after ``\\r``), then ``Epoch {} finished.``,
  ``Train: {}`` and ``Validate: {}`` (a NaN validation value is left out there). The
  ``Train:`` summary was counted as one more row each epoch (the step two rows late by the
  third epoch); a ``Train: `` line right below such a bar is now its epoch's summary, no row
  (``metric_reader._epoch_summary``). Without the bar its summaries are the rows (a control).
- deeplearning4j (``ScoreIterationListener``: ``"Score at iteration {} is {}"``;
  ``EvaluativeListener`` printing ``Evaluation.stats()``'s ``=====Evaluation Metrics=====``
  block between): already read right (the score is the training loss, the block's stats no
  training value); kept for the interleaved block, which the suite's DL4J test lacks.

Left as they are: a NaN statistic of DL4J's ``Evaluation.stats()`` block (``Accuracy: NaN``,
an empty evaluation set) says nothing (no fault: no fp16 fault makes an accuracy NaN).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

# -- countdowns ------------------------------------------------------------------------------

def _lora_ga(nan_from: int | None = None, *, layout: str = "up-first",
             iters: int = 64) -> list[str]:
    """The LoRA-GA loop's line each batch (``print_rank_0(f'--->LoRA-GA gradient computing
    step: {idx+1}, loss: {loss.item()}, remaining steps: {iters - (idx+1)} ')``); ``layout``
    reorders it as a copy of the loop may: the countdown first, or alone."""
    lines = []
    for step in range(1, iters + 1):
        loss = "nan" if nan_from is not None and step >= nan_from else f"{2.3 - step / 1e3}"
        left = iters - step
        lines.append({
            "up-first": f"--->LoRA-GA gradient computing step: {step}, loss: {loss}, "
                        f"remaining steps: {left} ",
            "down-first": f"--->LoRA-GA remaining steps: {left}, step: {step}, loss: {loss}",
            "down-only": f"--->LoRA-GA gradient computing, remaining steps: {left}, "
                         f"loss: {loss}",
            "iters": f"loss={loss} lr=0.0001 ETA 0:01:00 remaining iters {left}",
        }[layout])
    return lines


def test_countdown_is_no_step(tmp_path: Path) -> None:
    """Before: the countdown was the step (the line read newest first): AMP006 at 25 (=64-39)
    for the countdown alone, and for ``remaining iters``; the countdown before the step
    counter won over it (the first key of a role wins): step 25."""
    assert faults(tmp_path, _lora_ga(40, layout="down-first")) == [("AMP006", 40)]
    # no counter runs up: the rows count (the 40th line)
    assert faults(tmp_path, _lora_ga(40, layout="down-only")) == [("AMP006", 40)]
    assert faults(tmp_path, _lora_ga(40, layout="iters")) == [("AMP006", 40)]
    result = diagnose_lines(tmp_path, _lora_ga(40, layout="down-only"))
    assert result.steps_are_rows


def test_countdown_controls(tmp_path: Path) -> None:
    """The loop's own order (the step first: right on the parent too) and healthy runs in
    every order (pass on the parent too)."""
    assert faults(tmp_path, _lora_ga(40)) == [("AMP006", 40)]
    for layout in ("up-first", "down-first", "down-only", "iters"):
        assert faults(tmp_path, _lora_ga(layout=layout)) == []


# -- Keras 1.x/2.x: a bar of samples ---------------------------------------------------------

def _keras_samples(nan_from: int | None = None, *, batch: int = 128, every: int = 20,
                   samples: int = 60000, epochs: int = 2) -> list[str]:
    """``model.fit(x, y, batch_size=batch)`` on arrays: ``Train on N samples, validate on M
    samples``, ``Epoch e/E``, then Progbar's count of samples (every ``every``-th batch
    drawn, the first always), the last with the epoch's validation; ``nan_from``: the first
    bad batch of the run (counted from 1)."""
    per_epoch = -(-samples // batch)
    lines = [f"Train on {samples} samples, validate on 10000 samples"]
    for epoch in range(epochs):
        lines.append(f"Epoch {epoch + 1}/{epochs}")
        bad = False
        for index in range(1, per_epoch, every):
            bad = nan_from is not None and epoch * per_epoch + index >= nan_from
            loss = "nan" if bad else f"{0.5123 - index / 1e5:.4f}"
            lines.append(f"{index * batch:5d}/{samples} [>.............................] - "
                         f"ETA: 52s - loss: {loss} - acc: 0.8987")
        lines.append(f"{samples}/{samples} [==============================] - 10s 170us/step "
                     f"- loss: {'nan' if bad else '0.3012'} - acc: 0.9012 - val_loss: "
                     f"{'nan' if bad else '0.2123'} - val_acc: 0.9512")
    return lines


def test_keras_sample_bar_counts_batches(tmp_path: Path) -> None:
    """Before: the sample count was the step (AMP006 at 30848 = 241 * 128, and at 60000 +
    38528 in the second epoch)."""
    # (the epoch's validation after its last batch, 469: 60000 samples in batches of 128)
    assert faults(tmp_path, _keras_samples(241)) == [("AMP006", 241), ("AMP013", 469)]
    assert faults(tmp_path, _keras_samples(469 + 301)) == [("AMP006", 770), ("AMP013", 938)]


def test_keras_sample_bar_controls(tmp_path: Path) -> None:
    """Healthy runs at other batch sizes, and a bar of batches (Keras 2's ``fit`` on a
    generator: ``1/1875 [...]``, the first count 1) whose steps stay its counts (pass on the
    parent too)."""
    for batch in (32, 100, 256):
        assert faults(tmp_path, _keras_samples(batch=batch)) == []
    batches = ["Epoch 1/1"] + [
        f"{i}/1875 [>.............................] - ETA: 52s - loss: "
        f"{'nan' if i >= 601 else '0.5123'}" for i in (1, *range(41, 1875, 40))]
    assert faults(tmp_path, batches) == [("AMP006", 601)]


# -- YOLOv5: a row hard-wrapped at 60 columns ------------------------------------------------

def _yolov5(nan_epoch: int | None = None, *, epochs: int = 6, width: int = 60) -> list[str]:
    """train.py's header (``('\\n' + '%11s' * 7) % ('Epoch', 'GPU_mem', 'box_loss',
    'obj_loss', 'cls_loss', 'Instances', 'Size')``), each epoch's final bar row and val.py's
    rows, hard-wrapped at ``width`` (0: as printed)."""
    rows = ["", ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "obj_loss", "cls_loss",
                                "Instances", "Size")]
    for epoch in range(epochs):
        box = math.nan if nan_epoch is not None and epoch >= nan_epoch else 0.05 - epoch / 1e3
        rows.append(("%11s" * 2 + "%11.4g" * 5) % (f"{epoch}/299", "3.51G", box, 0.02131,
                                                   0.01811, 178, 640)
                    + ": 100%|██████████| 3665/3665 [09:43<00:00,  6.28it/s]")
        rows.append(("%22s" + "%11s" * 6) % ("Class", "Images", "Instances", "P", "R", "mAP50",
                                             "mAP50-95")
                    + ": 100%|██████████| 79/79 [00:20<00:00,  3.89it/s]")
        rows.append(("%22s" + "%11i" * 2 + "%11.3g" * 4) % ("all", 5000, 36335, 0.661, 0.518,
                                                           0.566, 0.362))
    if not width:
        return rows
    return [row[at:at + width] for row in rows for at in range(0, max(len(row), 1), width)]


def test_yolov5_row_wrapped_at_60(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" (at 60 columns no break cut a token: the paste was not
    joined). Joined, the row reads as printed: the end of epoch 3's 3665 batches."""
    assert faults(tmp_path, _yolov5(3)) == [("AMP006", 4 * 3665)]
    assert faults(tmp_path, _yolov5(3, width=0)) == [("AMP006", 4 * 3665)]


def test_yolov5_wrapped_controls(tmp_path: Path) -> None:
    """Healthy runs wrapped at 60 and 80 columns, and as printed (pass on the parent
    too)."""
    for width in (0, 60, 80):
        assert faults(tmp_path, _yolov5(width=width)) == []


# -- Julia's ConsoleLogger: ``@info "epoch" train_loss=... val_loss=...`` ---------------------

def _julia(nan_epoch: int | None = None, *, message: str = "epoch", located: bool = False,
           epochs: int = 10) -> list[str]:
    """One record an epoch: ``┌ Info: {message}``, a ``│   key = value`` line a key, the
    last behind ``└`` (or ``└ @ Main ~/train.jl:42`` below, where the logger shows where the
    call is: a Warn record, or a custom ``meta_formatter``)."""
    lines = []
    for epoch in range(1, epochs + 1):
        bad = nan_epoch is not None and epoch >= nan_epoch
        train, val = ("NaN", "NaN") if bad else (f"{0.9 / epoch}", f"{1.0 / epoch}")
        lines += [f"┌ Info: {message.format(epoch=epoch)}", f"│   train_loss = {train}"]
        lines += ([f"│   val_loss = {val}", "└ @ Main ~/train.jl:42"] if located
                  else [f"└   val_loss = {val}"])
    return lines


def test_julia_record_is_a_row(tmp_path: Path) -> None:
    """Before: the ``train_loss = NaN`` lines were read as a run's closing summary: AMP006
    with no step ("a summary is no step")."""
    assert faults(tmp_path, _julia(6)) == [("AMP006", 6), ("AMP013", 6)]
    assert faults(tmp_path, _julia(6, message="Epoch {epoch}", located=True)) == [
        ("AMP006", 6), ("AMP013", 6)]
    result = diagnose_lines(tmp_path, _julia(6))
    assert result.steps_are_rows


def test_julia_record_controls(tmp_path: Path) -> None:
    """Healthy records, both layouts (pass on the parent too), and HF's closing block, still
    a summary (no step)."""
    assert faults(tmp_path, _julia()) == []
    assert faults(tmp_path, _julia(message="Epoch {epoch}", located=True)) == []
    closing = ["***** train metrics *****", "  epoch                    =        3.0",
               "  train_loss               =        nan", "  train_runtime            = 0:01:02"]
    assert faults(tmp_path, closing) == [("AMP006", None)]


# -- DJL: LoggingTrainingListener ------------------------------------------------------------

def _djl(nan_at: int | None = None, *, epochs: int = 4, bar: bool = True) -> list[str]:
    """``LoggingTrainingListener``: the training bar (a ``\\r`` row a percent, the line ended
    at 100%), the validation bar, then ``onEpoch``'s lines behind log4j2's ``[%-5level] -
    %msg%n``; ``nan_at``: the first bad row (epoch * 100 + percent); ``bar=False``:
    ``DJL_DISABLE_PROGRESS_BAR=true``."""
    lines = ["[INFO ] - Training on: 1 GPUs.",
             "[INFO ] - Load PyTorch Engine Version 2.1.1 in 0.042 ms."]
    for epoch in range(epochs):
        rows, bad = [], False
        for percent in range(1, 101):
            bad = bad or (nan_at is not None and epoch * 100 + percent >= nan_at)
            loss = "NaN" if bad else f"{1.2 - epoch * 0.2 - percent / 1000:.2f}"
            filled = percent * 40 // 100 + 1
            rows.append(f"\rTraining:    {percent:3d}% |{'█' * filled}{' ' * (40 - filled)}| "
                        f"Accuracy: 0.{50 + epoch * 10}, SoftmaxCrossEntropyLoss: {loss}, "
                        f"speed: 1234.56 items/sec")
        if bar:
            lines += ["".join(rows), f"\rValidating:  100% |{'█' * 40}|"]
        # a NaN validation value is left out of ``Validate:`` (``continue`` on NaN)
        validated = "" if bad else f", SoftmaxCrossEntropyLoss: {1.0 - epoch * 0.2:.2f}"
        lines += [f"[INFO ] - Epoch {epoch + 1} finished.",
                  f"[INFO ] - Train: Accuracy: 0.{50 + epoch * 10}, SoftmaxCrossEntropyLoss: "
                  f"{'NaN' if bad else f'{1.1 - epoch * 0.2:.2f}'}",
                  f"[INFO ] - Validate: Accuracy: 0.{55 + epoch * 10}{validated}"]
    return lines


def test_djl_summary_is_no_row(tmp_path: Path) -> None:
    """Before: each epoch's ``Train:`` summary was one more row: AMP006 at 242 for the bar's
    240th row."""
    assert faults(tmp_path, _djl(240)) == [("AMP006", 240)]


def test_djl_controls(tmp_path: Path) -> None:
    """Healthy runs with and without the bar, and without it a NaN in the third epoch's
    summary: the summaries are the rows (all pass on the parent too)."""
    assert faults(tmp_path, _djl()) == []
    assert faults(tmp_path, _djl(bar=False)) == []
    assert faults(tmp_path, _djl(240, bar=False)) == [("AMP006", 3)]


# -- Deeplearning4j: ScoreIterationListener beside Evaluation.stats() ------------------------

def _dl4j(nan_from: int | None = None, *, stats_nan: bool = False) -> list[str]:
    """``ScoreIterationListener(10)`` (``log.info("Score at iteration {} is {}", ...)``
    behind logback's default pattern) and ``EvaluativeListener``'s ``Evaluation.stats()``
    (deeplearning4j-nn ``org/deeplearning4j/eval/Evaluation.java``) every 250 iterations."""
    lines = []
    for iteration in range(0, 500, 10):
        score = "NaN" if nan_from is not None and iteration >= nan_from else (
            f"{2.3 - iteration / 1000:.16f}")
        lines.append(f"10:00:01.123 [main] INFO  o.d.o.l.ScoreIterationListener - Score at "
                     f"iteration {iteration} is {score}")
        if iteration % 250 == 240:
            shown = "NaN" if stats_nan else "0.9743"
            lines += ["10:00:05.000 [main] INFO  o.d.o.l.EvaluativeListener - Reporting "
                      "evaluation results:", "", "",
                      "========================Evaluation Metrics========================",
                      " # of classes:    10", f" Accuracy:        {shown}",
                      f" Precision:       {shown}", " Recall:          0.9740",
                      " F1 Score:        0.9740",
                      "Precision, recall & F1: macro-averaged (equally weighted avg. of 10 "
                      "classes)", "", "",
                      "=========================Confusion Matrix=========================",
                      "    0    1", "-----------", " 970   10 | 0 = 0", "   5 1125 | 1 = 1", "",
                      "Confusion matrix format: Actual (rowClass) predicted as (columnClass) N "
                      "times",
                      "=================================================================="]
    return lines


def test_dl4j_score_beside_evaluation_blocks(tmp_path: Path) -> None:
    """Already right on the parent (a control of the interleaved blocks): the score is the
    training loss at its iteration; a NaN statistic of the block is no training score."""
    assert faults(tmp_path, _dl4j(300)) == [("AMP006", 300)]
    path = tmp_path / "dl4j.log"
    for lines in (_dl4j(), _dl4j(stats_nan=True)):  # no finite score is read: nothing
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = diagnose(str(path))
        assert result.faults == []
        assert result.error is not None and "nothing to diagnose" in result.error
