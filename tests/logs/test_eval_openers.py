"""Evaluation lines that say so only by how they open: ``val: loss nan acc 0.1``, ``[val]
loss ...``, ``Val | loss ...`` (a loop's own label for its validation pass), and a progress
word with an ellipsis (``Evaluating... loss=nan``), between a loop's training lines: the
evaluation's NaN (AMP013), not the training loss's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines


def _log(evaluation: str, nan_from: int | None = 1500) -> list[str]:
    lines = []
    for step in range(10, 3010, 10):
        lines.append(f"step {step} loss {2.3 - step / 1e4:.4f}")
        if step % 500 == 0:
            bad = nan_from is not None and step >= nan_from
            lines.append(evaluation.format(v="nan" if bad else "1.9000"))
    return lines


@pytest.mark.parametrize("evaluation", [
    "val: loss {v} acc 0.1", "[val] loss {v} acc 0.5", "Val | loss {v} | acc 0.5",
    "Evaluating... loss={v}",
])
def test_evaluation_told_by_how_its_line_opens(tmp_path: Path, evaluation: str) -> None:
    """Before: AMP006 at steps 1501, 2001 and 2501 (each evaluation line read as a training
    step's NaN loss)."""
    found = [(d.code, d.step) for d in diagnose_lines(tmp_path, _log(evaluation)).diagnoses]
    assert found == [("AMP013", 1500)]


def test_training_lines_that_name_val_stay_training(tmp_path: Path) -> None:
    """Controls (as before): ``val`` inside a training line (a split's score after the loss),
    an ellipsis after ``eval`` inside a message, and healthy evaluations."""
    for line in ("step {s} loss {v} | val 1.9", "INFO train.py: step {s} loss {v} (eval... next)"):
        lines = [line.format(s=s, v="nan" if s >= 1500 else f"{2.3 - s / 1e4:.4f}")
                 for s in range(10, 3000, 10)]
        assert [(d.code, d.step) for d in diagnose_lines(tmp_path, lines).faults] == [
            ("AMP006", 1500)]
    assert diagnose_lines(tmp_path, _log("val: loss {v} acc 0.1", None)).faults == []
