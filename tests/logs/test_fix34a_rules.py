"""The rules fix34a added for sample34's batch rows, on the same scripts' logs with other
settings than sample34's (``tests/logs/test_sample34_formats.py`` holds the builders, each
from its script's format strings: ACOTSAE/DGD-UNet-GAN ``train_gan.py``, 512938445/
pytorch_Comment_Pointnet-Pointnet- ``train_segmentation.py``, 014-Jayal/LUGAI-Adversarial-
Defense ``train_baseline.py``):

- a GAN's ``D: ... | G: ...`` pair read as its losses, the rows counted in passes;
- an epoch's summary right below the row or bar that reached its total takes that step;
- PointNet's ``train loss`` rows below a ``test`` row of the same prefix stay training's, and
  ``[e: i/N]`` is epoch e's batch i (from 0, as its batch 0 says);
- a ``--- Epoch E/N ---`` heading numbers the bar below it in an excerpt opening there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults
from test_sample34_formats import dehaze_gan, lugai, pointnet_seg


@pytest.mark.parametrize(("build", "right"), [
    # 200 batches an epoch, a row every 40: the NaN from the run's batch 517 (epoch 3's
    # batch 118, 0-based 117) is the row of batch 120, the run's 520; the epoch's row, 600.
    pytest.param(lambda: dehaze_gan(517, epochs=5, batches=200, every=40),
                 [("AMP006", 520), ("AMP013", 600)], id="gan_every_40"),
    # resumed at epoch 2 (the log opens there: its epochs before it were 2 of 200 batches)
    pytest.param(lambda: dehaze_gan(630, epochs=6, batches=200, start_epoch=2, every=50),
                 [("AMP006", 650), ("AMP013", 800)], id="gan_resumed"),
    # PointNet, 75 batches an epoch (2400 samples, 32 a batch): NaN from epoch 2's batch 5,
    # the run's 155; the test row at batch 10, 160
    pytest.param(lambda: pointnet_seg(155, epochs=3, samples=2400, batch=32),
                 [("AMP006", 155), ("AMP013", 160)], id="pointnet_75"),
    # LUGAI with 300 batches an epoch drawn every 60, pasted from ``--- Epoch 3/6 ---``:
    # NaN from epoch 4's batch 11 (the run's 910), the bar's 60: 960; its test loss, 1200
    pytest.param(lambda: _from_heading(lugai(3 * 300 + 10, epochs=6, batches=300, refresh=60),
                                       "--- Epoch 3/6 ---"),
                 [("AMP006", 960), ("AMP013", 1200)], id="lugai_from_epoch_3"),
])
def test_steps(tmp_path: Path, build: Callable[[], list[str]],
               right: list[tuple[str, int]]) -> None:
    """The ids and steps on the same layouts with other lengths and intervals."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    pytest.param(lambda: dehaze_gan(epochs=4, batches=120, every=30, amp=False), id="gan"),
    pytest.param(lambda: pointnet_seg(epochs=2, samples=1600, batch=16)[60:], id="pointnet"),
    pytest.param(lambda: _from_heading(lugai(epochs=6, batches=300, refresh=60),
                                       "--- Epoch 4/6 ---"), id="lugai"),
])
def test_healthy_controls(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy runs of those layouts, other settings, from the start and the middle: silent."""
    assert faults(tmp_path, build()) == []


def _from_heading(lines: list[str], heading: str) -> list[str]:
    """``lines`` pasted from ``heading`` on."""
    return lines[lines.index(heading):]
