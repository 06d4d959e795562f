"""Image-quality scores printed alone are the evaluation's (denpex_callbacks/logs/
quality_scores.py): their NaN is AMP013, at the epoch's end, beside the training loss's
AMP006; finite, infinite (a perfect match) or beside a training loss, no evaluation fault.
Variants the sample (test_sample37_formats.py, RAFT's ``===> Avg. PSNR: nan dB``) did not
show: other names and separators, other lengths, a score glued to a qualifier."""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults


def sr_example(score_line: str, bad_epoch: int | None = None, epochs: int = 6,
               batches: int = 25) -> list[str]:
    """pytorch/examples ``super_resolution/main.py`` (copied by many super-resolution
    scripts): ``"===> Epoch[{}]({}/{}): Loss: {:.4f}"`` each batch (epochs and batches from
    1), ``"===> Epoch {} Complete: Avg. Loss: {:.4f}"``, then ``test``'s score line,
    ``score_line`` formatted with ``v`` (``"===> Avg. PSNR: {v} dB"`` there; ``s`` an SSIM,
    ``e`` the epoch, ``n`` the epochs); ``bad_epoch``:
    the first epoch NaN from its 8th batch on (its score NaN too)."""
    out: list[str] = []
    for epoch in range(1, epochs + 1):
        total = 0.0
        for it in range(1, batches + 1):
            broken = bad_epoch is not None and (epoch, it) >= (bad_epoch, 8)
            loss = float("nan") if broken else 0.031 - epoch / 1000 + (it % 4) / 1000
            total += loss
            out.append(f"===> Epoch[{epoch}]({it}/{batches}): Loss: {loss:.4f}")
        out.append(f"===> Epoch {epoch} Complete: Avg. Loss: {total / batches:.4f}")
        value = "nan" if total != total else f"{24.2 + epoch / 7:.4f}"
        out.append(score_line.format(v=value, s="nan" if total != total else "0.8311",
                                     e=epoch, n=epochs))
    return out


@pytest.mark.parametrize("score_line", [
    "===> Avg. PSNR: {v} dB",
    "PSNR/SSIM: {v}/{s}",
    "psnr_y={v} ssim={s}",
    "mean LPIPS {s} | MS-SSIM {s}",
    "Epoch [{e}/{n}] Avg. PSNR: {v} dB",
    "epoch {e}/{n} | PSNR {v} | SSIM {s}",
])
def test_nan_score_alone_is_the_evaluations(tmp_path: Path, score_line: str) -> None:
    """NaN from batch 8 of epoch 3 (25 a epoch): the training loss's 58, the score's at the
    epoch's end, 75."""
    assert faults(tmp_path, sr_example(score_line, 3)) == [("AMP006", 58), ("AMP013", 75)]


def test_other_lengths(tmp_path: Path) -> None:
    """Epoch 5 of 40 batches: 168, 200."""
    assert faults(tmp_path, sr_example("Avg PSNR = {v} dB", 5, epochs=7, batches=40)) == [
        ("AMP006", 168), ("AMP013", 200)]


@pytest.mark.parametrize("score_line", [
    "===> Avg. PSNR: {v} dB",
    "Average PSNR: {v}, SSIM: {s}",
    "===> Avg. PSNR: inf dB",  # the images matched: a perfect score
    "Epoch PSNR: {v} | train psnr_y: {v}",
    "Epoch [{e}/{n}] Avg. PSNR: {v} dB",
])
def test_healthy_runs_stay_silent(tmp_path: Path, score_line: str) -> None:
    """Controls: finite scores, a PSNR's +inf, and other settings (9 epochs of 12 batches)."""
    assert faults(tmp_path, sr_example(score_line, epochs=9, batches=12)) == []


def test_a_training_row_with_a_score_stays_training(tmp_path: Path) -> None:
    """A score on a row with the loss and a counter is the training row's: its NaN is the
    training loss's (AMP006), no evaluation finding."""
    lines = [f"Iter {i:5d} | loss {'nan' if i >= 400 else f'{0.05 - i / 1e5:.4f}'} | PSNR "
             f"{'nan' if i >= 400 else f'{27 + i / 500:.2f}'}" for i in range(20, 1000, 20)]
    assert faults(tmp_path, lines) == [("AMP006", 400)]

