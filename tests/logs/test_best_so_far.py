"""The best value so far and a bound printed beside a healthy run's metrics: a tracker starts
at inf (``lowest loss: inf``, ``Best validation loss so far: inf``, ``current best eval loss
inf``) and a setting may be inf (``max grad norm: inf``). None is a value the run measured:
a healthy run that prints them stays silent (each was a false alarm), and a real NaN beside
them is still found.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

TRACKERS = ("lowest loss: inf", "Best validation loss so far: inf",
            "current best eval loss inf", "max grad norm: inf")


def _log(tracker: str, nan_from: int | None = None) -> list[str]:
    lines = [tracker]
    for step in range(10, 3000, 10):
        bad = nan_from is not None and step >= nan_from
        lines.append(f"step {step} loss {'nan' if bad else f'{2.3 - step / 1e4:.4f}'}")
        if step % 500 == 0:
            lines += [f"epoch {step // 500} val_loss {1.9 - step / 1e5:.4f}", tracker]
    return lines


@pytest.mark.parametrize("tracker", TRACKERS)
def test_a_tracker_at_inf_is_no_fault(tmp_path: Path, tracker: str) -> None:
    """Before: AMP006 at steps 1, 501, 1001 (``lowest loss: inf``) or AMP013 (the two that
    name an evaluation's loss); ``max grad norm: inf`` was silent before too (a control)."""
    assert faults(tmp_path, _log(tracker)) == []


def test_a_nan_beside_a_tracker_is_still_found(tmp_path: Path) -> None:
    """The run's own NaN loss beside the trackers: found at its step, alone (before, the
    trackers' false alarms came with it)."""
    for tracker in TRACKERS:
        assert faults(tmp_path, _log(tracker, 1500)) == [("AMP006", 1500)], tracker
