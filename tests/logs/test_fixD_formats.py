"""Controls beside the fixes of this morning's strict xfails of the doctor (each rule narrow
enough that healthy runs, with settings other than the defaults, stay silent).

- A message behind a bracketed date and time that opens with ``val`` (loguru's ``"[{time}]
  {message}"`` before distribuuuu's `` = VAL:`` ProgressMeter prefix) is evaluation's
  (``metric_reader._EVAL_CONTEXT``); the training lines behind the same prefix stay training's.
- An HF Trainer row without a step, the first after the last run's summary, whose epoch is
  back at the epoch of the log's first row begins its run's count again
  (``assembler._rows_begun_again``); a resumed run, whose epochs go on from its checkpoint's,
  is numbered on; healthy runs stay silent.
- A count alone in brackets that ends a loss line right after a value (the PyTorch
  quickstart's loop without its total: ``loss: nan [25600]``) is the loop's count as printed
  (``step_layouts.TRAILING_COUNT``); a bracket after a word numbers nothing.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults
from test_sample19_formats import distribuuuu, mnist_quickstart


def test_distribuuuu_healthy_other_settings(tmp_path: Path) -> None:
    """A healthy distribuuuu run (other batches, print interval, evaluation length and top-k):
    its `` = VAL:`` lines' finite losses say nothing."""
    assert faults(tmp_path, distribuuuu(epochs=5, batches=626, every=25, val=13, topk=3)) == []


def test_distribuuuu_training_nan_behind_the_time_stays_training(tmp_path: Path) -> None:
    """The training NaN behind the same bracketed time is still training's, the validation
    after it evaluation's (other settings: 626 batches, printed every 50)."""
    assert faults(tmp_path, distribuuuu(626 + 120, batches=626, every=50, val=13)) == [
        ("AMP006", 626 + 150), ("AMP013", 626 + 625)]


def test_a_time_before_a_word_that_is_not_val_is_training(tmp_path: Path) -> None:
    """Only ``val`` as the message's first word names evaluation: ``value``/``valley`` behind the
    same time prefix are training lines (their NaN is training's)."""
    lines = [f"[2021-03-01 00:14:{s:02d}]  = Valley: step {s} | loss {2.0 - s / 100:.4f}"
             for s in range(1, 30)]
    lines.append("[2021-03-01 00:14:30]  = Valley: step 30 | loss nan")
    assert faults(tmp_path, lines) == [("AMP006", 30)]


_SUMMARY = ("{'train_runtime': 88.1, 'train_samples_per_second': 7.5, "
            "'train_steps_per_second': 0.94, 'train_loss': 1.7, 'epoch': 2.0}")


def _hf_rows(epochs: list[float], nan_from: int | None = None) -> list[str]:
    """HF Trainer rows (no step printed) at ``epochs``, the loss NaN from row ``nan_from``
    (from 1) on."""
    return [f"{{'loss': {'nan' if nan_from and k >= nan_from else f'{1.9 - k / 90:.4f}'}, "
            f"'grad_norm': {0.8 + k / 200:.4f}, 'learning_rate': {2e-05 - k * 1e-07:.4g}, "
            f"'epoch': {e:.2f}}}" for k, e in enumerate(epochs, 1)]


def test_hf_resumed_rows_after_a_summary_are_numbered_on(tmp_path: Path) -> None:
    """A run resumed after the first's summary prints its epochs on from its checkpoint's
    (2.1, 2.2, ...): its rows are numbered on, its NaN at its 7th row is the log's 27th."""
    first = _hf_rows([k / 10 for k in range(1, 21)])
    resumed = _hf_rows([2 + k / 10 for k in range(1, 16)], nan_from=7)
    assert faults(tmp_path, [*first, _SUMMARY, *resumed]) == [("AMP006", 27)]


def test_hf_two_healthy_runs_stay_silent(tmp_path: Path) -> None:
    """Two healthy runs (other rows, epochs and rates), the summary between: silent; and a
    second run NaN at its last (12th) row says 12, its rows counted again (32 on the parent)."""
    lines = [*_hf_rows([k / 10 for k in range(1, 21)]), _SUMMARY,
             *_hf_rows([k / 10 for k in range(1, 13)])]
    assert faults(tmp_path, lines) == []
    assert diagnose_lines(tmp_path, [*lines[:21], *_hf_rows([k / 10 for k in range(1, 13)], 12)
                                     ]).faults[0].step == 12


def test_quickstart_count_healthy_other_settings(tmp_path: Path) -> None:
    """The quickstart loop's count without its total, other batch sizes and lengths: silent."""
    assert faults(tmp_path, mnist_quickstart(epochs=4, batches=1875, size=32)) == []


def test_quickstart_count_in_the_first_epoch(tmp_path: Path) -> None:
    """The count as printed in the first epoch too (batch 700 of 64-sample batches)."""
    assert faults(tmp_path, mnist_quickstart(700, epochs=2, size=64))[:1] == [("AMP006", 44800)]


def test_a_bracket_after_a_word_numbers_nothing(tmp_path: Path) -> None:
    """``loss: nan shape [64]``: the bracket follows a word, not the value: the rows count."""
    lines = [f"loss: {2.0 - k / 50:.4f} shape [64]" for k in range(1, 12)]
    assert faults(tmp_path, [*lines, "loss: nan shape [64]"]) == [("AMP006", 12)]
