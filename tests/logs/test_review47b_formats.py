"""Stop 47's second review, of the rules merged since the first (45df9d0..96faba8): excerpts
written from real tools' format strings (each builder names its source) where a new rule
answers wrong, held as strict xfails with the right answer, and controls for rules that held.

What the review found:

- ``parsers.LineParser._redrawn_step`` takes a row's step as the bar redrawn after the row
  before plus the gap between the last two redraws: it assumes one logging interval between
  every two rows. The Trainer's ``logging_first_step=True`` (transformers
  ``trainer_callback.py`` ``DefaultFlowCallback.on_step_end``: ``if state.global_step == 1 and
  args.logging_first_step: control.should_log = True``) logs step 1 as well, so the rows are
  1, 7, 14, 21...: the row of step 7 is read as 2 (1 + 1) and that of step 14 as 13
  (7 + 6); from the fourth row on the steps are right. A NaN from step 7 is claimed at 2,
  from step 14 at 13 (45df9d0, before the rule, numbered rows: 2 and 3). Fixed for the
  third row on (a gap from step 1 is one short of the interval: the Trainer logs at its
  multiples); the second row, with no interval shown yet, is still counted (a strict xfail).

- ``hf.py`` / the assembler's ``UNDER_WAY_KEY``: a Trainer row past epoch 1 has its first
  cumulative ``amp/skipped_steps`` taken as a baseline, even where the Trainer's banner
  (``***** Running training *****``) shows the run's start in the excerpt. A short epoch (16
  steps) under ``logging_steps=50`` puts the first row at epoch 3.12: 40 of the first 50 steps
  skipped, the scale at 0.125 (denpex's own row says ``amp/fault/AMP003``), is AMP004 at 1
  only; the parent of 0c01f2f said AMP003 at 1 and AMP004 at 41.

Rules tried that held (no xfail; controls below where cheap):
``metric_reader._colon_count`` on python logging's ``%(lineno)d: `` where two logging calls
alternate (a training row at line 240, an evaluation row at 230 every tenth row: the count
rises 230 -> 240 after each evaluation, yet the NaN stays at row 30; the parent said 269);
``nonfinite_sentences._NONE_BEFORE`` on a Keras callback's ``\\tEpoch 0: Terminating training
due to nan loss.`` (``0:`` is no zero count) and on ``warnings.warn(f"Skipping batch
{batch_idx} due to NaN loss")`` at batch 0 (the skip sentence matches before the cause, so
the guard is not asked); ``_redrawn_step`` with the Trainer's evaluation rows written behind
the same fast bar every second row (NaN at 21, 35, 63 as it should; healthy quiet);
``metric_reader``'s ``Epoch N Summary:`` / ``Metrics:`` / ``Stats:`` after a tqdm bar that
names no loss (the summary's NaN still read, AMP006 at the epoch).
Not tried to the end: ``_NONE_BEFORE``'s ``\\b0\\s+[a-z]`` hides a cause sentence after an
epoch or rank of 0 (written by hand, ``Epoch 0 iteration 20: stopping due to NaN loss`` after
20 healthy loop rows is silent on main, AMP006 at 20 on 45df9d0), but no tool was found
that prints a count of 0 and a blank before its own ``due to NaN loss``; the 24 new message
rows were read for words a healthy line shares (none found in the time: detectron2's ``Box
tensor contains infinite or NaN!`` is raised on ground-truth boxes too, a data fault said as
AMP006, not tried).
"""

from __future__ import annotations

import logging
from pathlib import Path

from excerpts import faults
from test_newuser_findings import _WIDTH, _bar, _row


def trainer_first_step_stdout(every: int = 7, total: int = 100, nan_from: int | None = None,
                              rate: float = 618.66) -> list[str]:
    """A Trainer run's stdout under ``logging_first_step=True``: rows at step 1 and every
    ``every`` steps (transformers ``src/transformers/trainer_callback.py``
    ``DefaultFlowCallback.on_step_end``), each written by ``tqdm.write`` behind a fast bar
    (tqdm ``tqdm/std.py`` ``external_write_mode``: the bar cleared, the row, the bar redrawn
    at the row's step at the start of the next line; see ``test_newuser_findings``), NaN from
    step ``nan_from`` on."""
    steps = [1, *range(every, total + 1, every)]
    drawn = [0, *steps[:-1]]  # the bar redrawn after the row before (0: none yet)
    return [_bar(count, total, rate) + "\r" + " " * _WIDTH + "\r"
            + _first_step_row(step, total, nan_from)
            for count, step in zip(drawn, steps, strict=True)]


def _first_step_row(step: int, total: int, nan_from: int | None) -> str:
    """The row of ``step`` (``test_newuser_findings._row``), NaN from ``nan_from`` on."""
    nan = nan_from is not None and step >= nan_from
    return _row("nan" if nan else f"{1.3 - step / 200:.4g}",
                "nan" if nan else f"{2.3 + step / 100:.4g}", 1e-3 * (1 - step / total),
                step / total)


def test_trainer_logging_first_step_second_row(tmp_path: Path) -> None:
    """Main said AMP006 at 2 (the bar after row 1 says 1, nothing yet gave the interval);
    right: 7, the second row's step. Fixed by reading the log again numbered by the interval
    the bars redrawn after the first rows show (``logging_interval.redrawn_interval``)."""
    assert faults(tmp_path, trainer_first_step_stdout(nan_from=7)) == [("AMP006", 7)]


def test_trainer_logging_first_step_third_row(tmp_path: Path) -> None:
    """Main: AMP006 at 13 (the bar after row 7, plus 6); right: 14. Fixed in the same stop:
    a gap from step 1 is one short of the interval (the Trainer logs at its multiples)."""
    assert faults(tmp_path, trainer_first_step_stdout(nan_from=14)) == [("AMP006", 14)]


def test_trainer_logging_first_step_controls(tmp_path: Path) -> None:
    """Controls: healthy under ``logging_first_step`` (quiet), and a NaN from the fourth row
    on, where the gaps are the interval again (AMP006 at 21, 63)."""
    assert faults(tmp_path, trainer_first_step_stdout()) == []
    assert faults(tmp_path, trainer_first_step_stdout(nan_from=21)) == [("AMP006", 21)]
    assert faults(tmp_path, trainer_first_step_stdout(nan_from=60)) == [("AMP006", 63)]


def _logged(fmt: str, message: str, lineno: int) -> str:
    """One line as CPython's ``logging.Formatter(fmt)`` writes ``message`` (CPython
    ``Lib/logging/__init__.py``: ``%(lineno)d`` the line of the logging call), the time
    fixed so the excerpt does not move."""
    record = logging.LogRecord("train", logging.INFO, "train.py", lineno, message, None, None)
    record.created = 1767261600.0
    record.msecs = 0.0
    return logging.Formatter(fmt, datefmt="%d-%b-%y %H:%M:%S").format(record)


def _two_calls(nan_from: int | None = None, rows: int = 40) -> list[str]:
    """A loop's ``logger.info(f"train loss: {loss:.4f}")`` at line 240 and, every tenth row,
    its evaluation's ``logger.info(f"val loss: ...")`` at line 230, under
    ``%(asctime)s - %(lineno)d: %(message)s`` (a count before the colon that rises after each
    evaluation row)."""
    fmt = "%(asctime)s - %(lineno)d: %(message)s"
    lines = []
    for i in range(1, rows + 1):
        loss = "nan" if nan_from is not None and i >= nan_from else f"{3 - i / 50:.4f}"
        lines.append(_logged(fmt, f"train loss: {loss}", 240))
        if i % 10 == 0:
            lines.append(_logged(fmt, f"val loss: {2.5 - i / 100:.4f}", 230))
    return lines


def test_logging_line_numbers_of_two_calls_are_no_step(tmp_path: Path) -> None:
    """Control (the parent said 269: the line number plus the rows): the NaN row is 30."""
    assert faults(tmp_path, _two_calls(30)) == [("AMP006", 30)]
    assert faults(tmp_path, _two_calls()) == []


def _keras_epoch(epoch: int, loss: str, acc: str, steps: int = 100) -> list[str]:
    """Keras 2's ``fit(verbose=1)`` epoch (keras ``utils/generic_utils.py`` ``Progbar``: ``Epoch
    N/M`` then the last bar, `` - name: value`` per metric, ``%.4f``)."""
    return [f"Epoch {epoch}/20",
            f"{steps}/{steps} [==============================] - 3s 25ms/step - loss: {loss} "
            f"- accuracy: {acc} - val_loss: {loss} - val_accuracy: {acc}"]


def test_epoch_zero_cause_sentence_is_a_finding(tmp_path: Path) -> None:
    """Control: a callback's ``print(f'\\tEpoch {epoch}: Terminating training due to nan
    loss.')`` (code index file 45471595511, a Keras ``Callback.on_epoch_end``; Keras counts
    epochs from 0 there) after the first epoch's NaN: AMP006 at 100, AMP013 beside it."""
    lines = [*_keras_epoch(1, "nan", "0.1000"), "\tEpoch 0: Terminating training due to nan loss."]
    assert faults(tmp_path, lines) == [("AMP006", 100), ("AMP013", 100)]


# The Trainer's banner (transformers ``src/transformers/trainer.py`` ``_inner_training_loop``:
# ``logger.info("***** Running training *****")``, then ``f"  Num examples = {n:,}"``...):
# 512 examples at 32 a batch, 16 steps an epoch, 20 epochs.
_BANNER = ["***** Running training *****", "  Num examples = 512", "  Num Epochs = 20",
           "  Instantaneous batch size per device = 32", "  Total optimization steps = 320"]


def _watched_rows(skipped: list[int], scale: float, every: int = 50) -> list[str]:
    """Trainer rows (``Trainer.log``: its dict printed whole, ``'epoch'`` rounded to 2 places)
    with denpex's own keys (``denpex_callbacks/core/monitor.py``: ``informative_metrics`` and
    ``fingerprint_metrics``, the cumulative ``amp/skipped_steps`` among them), logged every
    ``every`` steps: at 16 steps an epoch the first row is past epoch 3."""
    return [str({"loss": round(2.5 - i / 20, 4), "grad_norm": 1.1, "learning_rate": 5e-05,
                 "epoch": round(i * every / 16, 2), "amp/loss_scale": scale,
                 "amp/skipped_steps": float(total), "amp/diagnoses": 2.0,
                 "amp/fault/AMP003": 1.0, "amp/fault/AMP004": 1.0})
            for i, total in enumerate(skipped, 1)]


def test_first_skip_count_after_the_banner_counts(tmp_path: Path) -> None:
    """40 of the first 50 steps skipped, the scale at 0.125 (denpex's own row says AMP003):
    main said AMP004 at 1 only (the 40 skips dropped as a baseline, the row past epoch 1);
    the parent of 0c01f2f said AMP003 at 1 and AMP004 at 41, as it should. Fixed: the banner
    (no ``Continuing training from`` after it) says the run starts in the excerpt
    (``events.FROM_START``), so its first count counts from 0."""
    lines = [*_BANNER, *_watched_rows([40, 45, 50, 55, 60, 64], 0.125)]
    assert faults(tmp_path, lines) == [("AMP003", 1), ("AMP004", 41)]


def test_first_skip_count_after_the_banner_healthy_control(tmp_path: Path) -> None:
    """Control: a healthy run's 5 skips of its first steps, the scale at 32768: quiet."""
    assert faults(tmp_path, [*_BANNER, *_watched_rows([5, 5, 5, 6, 6, 6], 32768.0)]) == []
