"""Controls beside the fixes of this morning's strict xfails of the doctor (each rule narrow
enough that healthy runs, with settings other than the defaults, stay silent).

- A message behind a bracketed date and time that opens with ``val`` (loguru's ``"[{time}]
  {message}"`` before distribuuuu's `` = VAL:`` ProgressMeter prefix) is evaluation's
  (``metric_reader._EVAL_CONTEXT``); the training lines behind the same prefix stay training's.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults
from test_sample19_formats import distribuuuu


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
