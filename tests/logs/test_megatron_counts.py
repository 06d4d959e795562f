"""Megatron-LM's iteration line without a loss beside a NaN gradient norm, read with the
line's own counts (megatron/training/training.py ``training_log``: a loss is printed only
where its average over the interval's advanced iterations is above 0, and ``number of nan
iterations`` counts the iterations whose reduced loss was NaN/inf).

Before, a line that counted every iteration skipped and none NaN still gave AMP006 ("the
iteration line has no loss"): its losses were finite, no iteration advanced. An applied NaN
loss is left out too (its average is not above 0) with nothing skipped nor counted NaN
(``test_what_fails``' excerpt): that one stays AMP006.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, megatron_line


def _run(nan_in_skipped: int) -> list[str]:
    """Two intervals skipped whole at the start (the scale backing off from 2**32), then
    healthy iterations; ``nan_in_skipped``: how many of the skipped ones the line counts as
    NaN."""
    lines, scale = [], 2.0 ** 32
    for iteration in range(10, 400, 10):
        skipped = 10 if iteration <= 20 else 0
        scale = scale / 2 ** 10 if skipped else scale
        lines.append(megatron_line(iteration, skipped=skipped,
                                   nan=nan_in_skipped if skipped else 0, scale=scale,
                                   grad_norm="nan" if skipped else "1.234",
                                   loss=None if skipped else 9.0 - iteration / 100))
    return lines


def test_no_loss_beside_nan_iterations_is_a_nan_loss(tmp_path: Path) -> None:
    """The line counts its iterations NaN: the loss was, from the first of them (control:
    right before too)."""
    assert ("AMP006", 1) in faults(tmp_path, _run(10))


def test_no_loss_beside_no_nan_iteration_is_no_nan_loss(tmp_path: Path) -> None:
    """The line counts no NaN iteration: a start-up back-off, no NaN loss."""
    assert [code for code, _step in faults(tmp_path, _run(0))] == []
