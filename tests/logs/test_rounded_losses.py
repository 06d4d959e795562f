"""A loss that decayed below the print's last digit (``loss 0.0000`` after ``loss 0.0003``) is
unknown, not 0 (no AMP007); its row is still a step's: the summary counts it, and a log
whose rows print no step numbers the rows after it right.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines


def _decay(step: int) -> str:
    return f"{2.3 * math.exp(-step / 200):.4f}"


def test_rows_of_a_rounded_loss_are_steps(tmp_path: Path) -> None:
    """Before: "2140 step(s) reconstructed" for a log that runs to step 5990 (each
    ``0.0000`` row was taken for a step line over metrics that never came)."""
    result = diagnose_lines(tmp_path, [f"step {s} loss {_decay(s)}" for s in range(10, 6000, 10)])
    assert result.faults == []
    assert result.timeline.steps == 5990


def test_rows_without_a_step_after_a_rounded_loss(tmp_path: Path) -> None:
    """Before: the NaN at row 400 was reported at step 215 (the ``0.0000`` rows were no
    rows). A loop printing ``loss: x`` each step, no step number."""
    lines = [f"loss: {'nan' if row >= 400 else _decay(row * 10)}" for row in range(1, 600)]
    assert [(d.code, d.step) for d in diagnose_lines(tmp_path, lines).faults] == [
        ("AMP006", 400)]
