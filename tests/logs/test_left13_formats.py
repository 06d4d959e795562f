"""Strict xfails of the doctor that are not about the step, fixed by rules of layout (issue
#27, branch h51-left13), each beside one more excerpt of another tool's format that the same
rule must read, and healthy controls in non-default settings.

- region_losses: an inpainting trainer's ``hole: ...; valid: ...`` pair (the L1 loss inside
  the mask and outside it) is two terms of the loss, not a held-out split's ``valid``
  (ProPainter's ``[Iter N]`` log line, test_sample23_formats.py; STTN's tqdm bar here).
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults

NAN = float("nan")


def sttn_bar(bad: int | None = None, iterations: int = 5000, every: int = 100,
             hole_weight: float = 1.0, valid_weight: float = 1.0) -> list[str]:
    """researchmm/STTN ``core/trainer.py`` ``_train_epoch``: ``pbar.update(1)`` then
    ``pbar.set_description((f"d: {dis_loss.item():.3f}; g: {gan_loss.item():.3f};"
    f"hole: {hole_loss.item():.3f}; valid: {valid_loss.item():.3f}"))`` on ``tqdm(range(
    iterations), initial=..., dynamic_ncols=True, smoothing=0.01)``: the bar's states (tqdm's
    ``{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining},
    {rate_fmt}]``), one every ``every`` iterations as a log file's carriage returns split
    them; the losses (the weights' products) NaN from iteration ``bad``."""
    out = []
    for it in range(every, iterations + 1, every):
        sick = bad is not None and it >= bad
        hole = NAN if sick else (0.41 - it / 100000) * hole_weight
        valid = NAN if sick else (0.052 - it / 1000000) * valid_weight
        dis = NAN if sick else 0.69
        gan = NAN if sick else 0.12
        done = it * 100 // iterations
        bar = "█" * (done // 10) + " " * (10 - done // 10)
        left = (iterations - it) // 2
        out.append(f"d: {dis:.3f}; g: {gan:.3f};hole: {hole:.3f}; valid: {valid:.3f}: "
                   f"{done:3d}%|{bar}| {it}/{iterations} [{it // 120:02d}:{it // 2 % 60:02d}<"
                   f"{left // 60:02d}:{left % 60:02d},  2.00it/s]")
    return out


def test_sttn_bar_hole_and_valid_losses(tmp_path: Path) -> None:
    """The NaN at the first bar state that shows it (1300): the training loss's (AMP006),
    not an evaluation's."""
    assert faults(tmp_path, sttn_bar(1250)) == [("AMP006", 1300)]


def test_sttn_bar_healthy(tmp_path: Path) -> None:
    """A healthy run, its weights and length not the defaults: silence, read without error."""
    assert faults(tmp_path, sttn_bar(iterations=8000, every=200, hole_weight=6.0,
                                     valid_weight=0.5)) == []


def test_a_valid_loss_without_a_hole_stays_evaluation(tmp_path: Path) -> None:
    """A control of the region rule: ``valid:`` beside a loss but no ``hole`` is the held-out
    split's still (AMP013, the training loss finite)."""
    lines = [f"[Iter {it}] loss: {1.0 - it / 10000:.4f}; valid: "
             f"{'nan' if it >= 600 else f'{1.1 - it / 10000:.4f}'}" for it in range(100, 1001, 100)]
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP013"]
