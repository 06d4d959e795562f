"""Stop 47's review of the rules merged on 2026-12-07 (cdac682..45df9d0): excerpts written
from real tools' format strings (each builder names its source) where a new rule answers
wrong. Each test holds the right answer and failed on 45df9d0 (strict xfails then); the fixes
landed in the same stop: ``COLON_COUNT`` takes a count only once it rose from the row before
(``MetricReader._colon_count``), after an ``srun --label`` task before a logging prefix; a
cause sentence denied or counted zero is no finding; ``EvaluationEcho`` takes only a cause
sentence (``Exiting due to NaN loss``) for the evaluation's echo.

What the review found:

- ``step_layouts.COLON_COUNT`` reads any count opening the message after `` - `` or ``]``
  as the step. Python's ``logging`` puts such counts there itself: a format with
  ``%(process)d: `` or ``%(lineno)d: `` before the message (CPython
  ``Lib/logging/__init__.py`` ``LogRecord``), as public training scripts write it. The pid
  (or the line number) becomes the step and the rows counted on from it: a NaN from row 30 is
  claimed at 48242 (the pid plus 29) or at 241. The parent said 30, the right row.
- The same rule under Slurm's ``srun --label`` (SchedMD/slurm
  ``src/common/write_labelled_message.c`` ``_write_label``: ``"%0*d: "``, the task id before
  every line): the task id of any task but 0 is read as the step. A loop's rows from task 7
  put a NaN of row 30 at 36 (the parent: 30); Sonnet's ``INFO:tensorflow:1033: Training
  loss nan.`` from task 7 is claimed at 40 instead of iteration 1033, from task 0 of 16
  (``00: ``) at 33 (the parent said 34: the new rule's own layout is missed behind the
  label; an unpadded ``0: `` works).
- ``nonfinite_sentences._CAUSE`` takes "due to NaN loss" as a finding even where it names
  a counter in a healthy run's summary (``  - Skipped due to NaN loss: 0``): AMP006 on a
  run that never saw a NaN. The parent was silent. Written by hand (no source found, so no
  test), ``No batches were skipped due to NaN loss``, ``Skipped 0 batches due to NaN loss``
  and ``Batches skipped due to inf loss = 0`` alarm the same way: neither the negation nor
  the zero count is read.

Rules tried that held (no test): ``trailing_steps`` on a record whose step row comes first
(``step N | loss X`` then ``  rec_loss: Y``): where the excerpt opens inside a record and the
NaN shows first in the term row, main claims it one interval late (1100 for 1000; the parent
1001), but no tool was found that prints that layout; ``EvaluationEcho`` with
pytorch-accelerated's epoch summaries between the evaluation's NaN and the training step's
stop message (the training NaN is kept; written by hand, ``Epoch 11: ... val_loss=nan`` with
``Warning: NaN loss detected, skipping batch`` on the next line loses the training AMP006
the parent gave, but no tool was found that prints a step-less training NaN that close after
its evaluation); ``_held_out`` on ``teacher_test_loss`` beside a
training ``loss`` (an evaluation NaN, AMP013, the training loss untouched); COLON_COUNT on
``logging.basicConfig``'s default ``LEVEL:name:`` with no count and on a count of 0 (Slurm's
``srun --label`` task 0); ``hf.bar_count`` and ``reader._long_pieces`` on a 10 MB line of
200,000 bar redraws and on 6.5 MB of 50,000 cleared Trainer rows in one line (linear: 1 s
and 6 s, about the parent's times); ``_LOGGED_STEP`` on a ``step=`` of 100,000 digits.
Not tried to the end: ``lexicon.unnamed_loss_term`` makes AMP006 of a NaN in any score a
Lightning 2.x bar shows without a loss (``explained_variance``, ``std``, ``wer``); no tool
source was found that logs such a score with ``prog_bar=True`` and no loss.
"""

from __future__ import annotations

import logging
from pathlib import Path

from excerpts import faults
from test_untried10_formats import _shakespeare

_PID = 48213  # the process id a python logging format prints (any number above the rows)


def _logged(fmt: str, message: str, *, lineno: int = 212) -> str:
    """One line as CPython's ``logging.Formatter(fmt)`` writes ``message`` (CPython
    ``Lib/logging/__init__.py``: ``%(process)d`` is ``os.getpid()``, ``%(lineno)d`` the line
    of the logging call), the time fixed so the excerpt does not move."""
    record = logging.LogRecord("train", logging.INFO, "train.py", lineno, message, None, None)
    record.process = _PID
    record.created = 1767261600.0
    record.msecs = 0.0
    return logging.Formatter(fmt, datefmt="%d-%b-%y %H:%M:%S").format(record)


def _loss_rows(fmt: str, nan_from: int | None = None, rows: int = 40) -> list[str]:
    """A loop's ``logger.info(f"train loss: {loss:.4f}")`` (no step printed: the row counts),
    under ``fmt``, NaN from row ``nan_from`` on."""
    losses = ["nan" if nan_from and i >= nan_from else f"{3 - i / 50:.4f}"
              for i in range(1, rows + 1)]
    return [_logged(fmt, f"train loss: {loss}") for loss in losses]


# The formats as public training scripts configure them (found with the code index:
# ``logging.basicConfig(format="%(asctime)s [%(levelname)s] - %(process)d: %(message)s")``
# beside ``TF_CPP_MIN_LOG_LEVEL`` in a LaBSE fine-tuning script, and
# ``format='%(asctime)s [%(levelname)s] %(lineno)d: %(message)s'``).
_PROCESS = "%(asctime)s [%(levelname)s] - %(process)d: %(message)s"
_LINENO = "%(asctime)s [%(levelname)s] %(lineno)d: %(message)s"


def test_logging_process_id_is_no_step(tmp_path: Path) -> None:
    """Main: AMP006 at 48242 (the pid, rows counted on from it); parent: 30 (right)."""
    assert faults(tmp_path, _loss_rows(_PROCESS, 30)) == [("AMP006", 30)]


def test_logging_line_number_is_no_step(tmp_path: Path) -> None:
    """Main: AMP006 at 241 (the logging call's line, 212, plus 29); parent: 30 (right)."""
    assert faults(tmp_path, _loss_rows(_LINENO, 30)) == [("AMP006", 30)]


def test_logging_counts_healthy_are_quiet(tmp_path: Path) -> None:
    """Controls: the same formats on healthy runs of 60 rows, the line number 7 (quiet on
    main and on the parent)."""
    assert faults(tmp_path, _loss_rows(_PROCESS, rows=60)) == []
    assert faults(tmp_path, [_logged(_LINENO, f"train loss: {3 - i / 50:.4f}", lineno=7)
                             for i in range(1, 61)]) == []


def _skip_summary(skipped_loss: int, processed: int) -> list[str]:
    """The ``NaN/Skip Statistics Summary`` a head-training script logs at the end of every run
    (code index file 43516366296, repository not named by the index: ``logger.info(f"  -
    Skipped due to NaN loss: {total_batches_skipped_loss}")`` beside the logits' and the
    gradients' counts), under ``logging``'s ``%(asctime)s - %(levelname)s - %(message)s``."""
    fmt = "%(asctime)s - %(levelname)s - %(message)s"
    rate = skipped_loss / max(processed, 1) * 100
    return [_logged(fmt, message) for message in (
        "=" * 60, "NaN/Skip Statistics Summary", "=" * 60,
        f"Total batches processed: {processed}",
        f"Total batches skipped: {skipped_loss} ({rate:.1f}%)",
        f"  - Skipped due to NaN loss: {skipped_loss}",
        "  - Skipped due to NaN logits: 0", "  - Skipped due to NaN gradients: 0")]


def _epochs(epochs: int = 12) -> list[str]:
    """The script's epoch rows before the summary (a plain ``Epoch N | train_loss X | val_acc
    Y`` line each epoch), healthy."""
    fmt = "%(asctime)s - %(levelname)s - %(message)s"
    return [_logged(fmt, f"Epoch {e} | train_loss {2.4 - e / 20:.4f} | val_acc "
                         f"{0.5 + e / 40:.4f}") for e in range(1, epochs + 1)]


def test_zero_nan_skip_count_is_no_fault(tmp_path: Path) -> None:
    """Main: AMP006 at 13 (the summary line, counted after the 12 epoch rows); parent: no
    fault (right)."""
    assert faults(tmp_path, _epochs() + _skip_summary(0, 1200)) == []


def _srun_labelled(lines: list[str], task: int, tasks: int) -> list[str]:
    """``lines`` as ``srun --label`` writes a task's output (SchedMD/slurm
    ``src/common/write_labelled_message.c`` ``_write_label``: ``snprintf(buf, 16, "%0*d: ",
    label_width, taskid)``, the width that of the largest task id)."""
    width = len(str(tasks - 1))
    return [f"{task:0{width}d}: {line}" for line in lines]


def test_srun_task_label_is_no_step(tmp_path: Path) -> None:
    """Main: AMP006 at 36 (task 7, rows counted on from it); parent: 30 (right)."""
    lines = [line.split("- 48213: ", 1)[1] for line in _loss_rows(_PROCESS, 30)]
    assert faults(tmp_path, _srun_labelled(lines, 7, 8)) == [("AMP006", 30)]


def test_srun_labelled_sonnet_iteration(tmp_path: Path) -> None:
    """Main: AMP006 at 40 and AMP013 at 46; parent: 34 and 40 (both wrong: the iteration
    printed is 1033, its validation NaN at 1039, as without the label)."""
    lines = _srun_labelled(_shakespeare(1033, start=1000, iterations=1060), 7, 8)
    assert faults(tmp_path, lines) == [("AMP006", 1033), ("AMP013", 1039)]


def test_srun_padded_task_zero_sonnet_iteration(tmp_path: Path) -> None:
    """Task 0 of 16 (``00: ``). Main: AMP006 at 33, AMP013 at 39 (the label's 0, rows
    counted on); parent: 34 and 40 (the rows); right: 1033 and 1039, as behind the unpadded
    ``0: `` (see the control)."""
    lines = _srun_labelled(_shakespeare(1033, start=1000, iterations=1060), 0, 16)
    assert faults(tmp_path, lines) == [("AMP006", 1033), ("AMP013", 1039)]


def test_srun_labelled_controls(tmp_path: Path) -> None:
    """Controls: task 0 of 8 (``0: ``) keeps Sonnet's iteration (the parent said 34); a
    healthy run from task 7 is quiet."""
    lines = _srun_labelled(_shakespeare(1033, start=1000, iterations=1060), 0, 8)
    assert faults(tmp_path, lines) == [("AMP006", 1033), ("AMP013", 1039)]
    lines = _srun_labelled(_shakespeare(None, start=1000, iterations=1060), 7, 8)
    assert faults(tmp_path, lines) == []


def test_denied_or_zero_causes_are_no_fault(tmp_path: Path) -> None:
    """A loop's own summary prints (``print(f"Skipped {n} batches due to NaN loss")`` and
    its kin) of a healthy run: AMP006 on 45df9d0; one that skipped batches still says so."""
    for summary in ("No batches were skipped due to NaN loss",
                    "Skipped 0 batches due to NaN loss", "Batches skipped due to inf loss = 0"):
        assert faults(tmp_path, [*_epochs(), summary]) == [], summary
    assert faults(tmp_path, [*_epochs(), "Stopping training due to NaN loss"]) == [
        ("AMP006", 13)]


def test_training_nan_sentence_after_an_evaluation_nan_is_kept(tmp_path: Path) -> None:
    """A loop's ``print(f"Epoch {e}: train_loss={x} val_loss={v}")`` whose evaluation went
    NaN, then its training step's ``Warning: NaN loss detected, skipping batch``: a finding of
    the training loop's own, not the evaluation's echo (45df9d0 dropped it)."""
    lines = [f"Epoch {e}: train_loss={2.0 - e / 20:.4f} val_loss={2.1 - e / 20:.4f}"
             for e in range(1, 11)]
    lines += ["Epoch 11: train_loss=1.4000 val_loss=nan",
              "Warning: NaN loss detected, skipping batch"]
    assert ("AMP006", 12) in faults(tmp_path, lines)
