"""Marks a hand-written loop prints around its counter and its loss: a number sign before the
step (``Step #1500``, ``Iteration #1500,``), a field separator after a bracketed step
(``[1500] - loss: x``, ``[1500] | loss x``, ``[1500], loss = x``), and an aside naming the
statistic after the loss's key (``loss(avg)``, ``loss (ema):``), each beside the values a
loop prints (``nan``, ``tensor(nan, device='cuda:0')``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

STEPS = range(10, 3000, 10)


def _lines(layout: str, nan_from: int | None = None, *, nan: str = "nan") -> list[str]:
    return [layout.format(s=s, v=nan if nan_from is not None and s >= nan_from
                          else f"{2.3 - s / 1e4:.4f}") for s in STEPS]


@pytest.mark.parametrize("layout", [
    "Step #{s} loss: {v} lr: 0.0001",
    "Iteration #{s}, loss: {v}",
    "Update #{s} | loss {v} | lr 0.0001",
    "[{s}] - loss: {v} - lr: 0.0001",
    "[{s}] | loss {v} | lr 0.0001",
    "[{s}], loss = {v}, lr = 0.0001",
])
def test_marks_around_the_step(tmp_path: Path, layout: str) -> None:
    """Before: step 150 (the rows counted): no number was read after a ``#``, and a
    bracketed step counted only before a blank and a word."""
    assert faults(tmp_path, _lines(layout, 1500)) == [("AMP006", 1500)]


@pytest.mark.parametrize("layout", [
    "step {s} loss(avg) {v}",
    "step {s}\tloss(avg) {v}\tlr 0.0001",
    "step {s} loss (ema): {v}",
    "step {s} | loss(mean) = {v}",
])
def test_aside_after_the_loss_key(tmp_path: Path, layout: str) -> None:
    """Before: "nothing to diagnose": ``loss(avg)`` was no key the lexicon knows."""
    assert faults(tmp_path, _lines(layout, 1500, nan="tensor(nan, device='cuda:0')")) == [
        ("AMP006", 1500)]


def test_healthy_marks_are_quiet(tmp_path: Path) -> None:
    """Controls (silent before too, or "nothing to diagnose" where ``loss(avg)`` was no key):
    every layout above on a healthy run; a ``#`` glued to a name stays part of it (``top#1
    0.71``), and Windows' ``1.#INF`` is still one value."""
    for layout in ("Step #{s} loss: {v} lr: 0.0001", "[{s}] | loss {v} | lr 0.0001",
                   "step {s} loss(avg) {v}", "step {s} loss (ema): {v}"):
        assert faults(tmp_path, _lines(layout)) == [], layout
    assert faults(tmp_path, _lines("step {s} | top#1 0.71 | loss {v}")) == []
    assert faults(tmp_path, _lines("step {s} loss {v}", 1500, nan="1.#INF")) == [
        ("AMP006", 1500)]
