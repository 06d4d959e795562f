"""An epoch's row that names its losses by the splits alone (denpex_callbacks/logs/
epoch_split_rows.py): variants the sample (tests/logs/test_sample39_formats.py) did not
show, and the rows that must stay unread or silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import alarms, faults, nan_from


def split_rows(bad: int | None = None, epochs: int = 30, *, train: str = "Train",
               held: str = "Val", part: str = " | ", rate: bool = True, pad: int = 3,
               head: str = "Epoch") -> list[str]:
    """One row an epoch, ``f"{head} {epoch:>{pad}}/{epochs}{part}{train}: {loss:.4f}
    [/ {acc:>5.1f}%]{part}{held}: {loss:.4f} [/ {acc:>5.1f}%]{part}LR: {lr:.6f}"``, the
    layout of 2Ahmedsquared2/Multi-Modal_Recognition ``train_audio.py`` with its names,
    parting and padding varied; ``bad`` the first NaN epoch (from 1)."""
    out = ["Training: 2240 samples, Validation: 480 samples"]
    for epoch in range(1, epochs + 1):
        tl = nan_from(bad, epoch, 2.1 * 0.91 ** epoch + 0.05)
        vl = nan_from(bad, epoch, 2.0 * 0.92 ** epoch + 0.17)
        acc = f" / {min(40 + epoch, 97):>5.1f}%" if rate else ""
        out.append(f"{head} {epoch:>{pad}}/{epochs}{part}{train}: {tl:.4f}{acc}{part}{held}: "
                   f"{vl:.4f}{acc}{part}LR: {0.01 * 0.95 ** epoch:.6f}")
    return out


@pytest.mark.parametrize(("build", "right"), [
    pytest.param(lambda: split_rows(12), [("AMP006", 12), ("AMP013", 12)], id="bars"),
])
def test_nan_rows(tmp_path: Path, build: object, right: list[tuple[str, int]]) -> None:
    """A NaN loss on such a row: both splits' NaN at the row's epoch. (Other names and
    partings, ``Training``/``Valid``, commas, were right at the parent already where the
    NaN rows alone were handed over: the healthy tests below hold them.)"""
    assert callable(build)
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("lines", [
    pytest.param(split_rows(epochs=45, part=", ", held="Eval", rate=False), id="commas"),
    pytest.param(split_rows(epochs=12, pad=2)[4:], id="from_the_middle"),
])
def test_healthy_rows_are_read_and_silent(tmp_path: Path, lines: list[str]) -> None:
    """A healthy run's rows: read (no "nothing to diagnose") and silent."""
    assert faults(tmp_path, lines) == []


def test_sizes_and_rows_without_a_held_out_split_stay_silent(tmp_path: Path) -> None:
    """Split sizes (whole numbers) and a row with no held-out split are no such rows."""
    sizes = [f"Epoch {e}/9 | Train: {100 + e} | Test: {20 + e}" for e in range(1, 10)]
    lone = [f"Epoch {e}/9 | Train: {0.5 / e:.4f} | LR: 0.001000" for e in range(1, 10)]
    assert alarms(tmp_path, sizes) == []
    assert alarms(tmp_path, lone) == []
