"""A training phase's summary keyed by its split, right below the phase's bar at its total.

A loop that runs its phases in turn (``for phase in ['train', 'val']``, a tqdm bar each,
then ``f'{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}'``: 31pineapplebun/
ai-food-explorer ``train_efficientnet.py``, the layout of PyTorch's transfer-learning
tutorial) prints its training summary with no step and no epoch, keyed by the split alone.
Right below the bar that reached its total, it is that epoch's last batch, as an epoch's
summary is (``metric_reader._PASS_SUMMARY_REACH``); the evaluation after it goes there too
(sample35's food run: 4263 for 4262 on the parent). Variants the sample did not show: other
names (``Training loss``, ``train_loss``), other separators, other lengths and epochs; the
healthy run's silence.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, nan_from, tqdm_bar


def phases(bad: int | None = None, epochs: int = 4, batches: int = 300, val: int = 40,
           key: str = "Training loss", sep: str = " = ", refresh: int = 50) -> list[str]:
    """Each epoch: ``Epoch e/N``, the training bar (its refreshes ``\\r`` segments), the
    training summary ``{key}{sep}{loss:.4f}, accuracy{sep}{acc:.2%}``, the validation bar
    and ``Validation loss{sep}...``; ``bad`` is the first NaN batch of the run (from 0)."""
    out = []
    for e in range(epochs):
        out.append(f"Epoch {e + 1}/{epochs}")
        total = 0.0
        segments = [tqdm_bar("Training", 0, batches)]
        for b in range(1, batches + 1):
            loss = nan_from(bad, e * batches + b - 1, 2.1 * 0.999 ** (e * batches + b))
            total += loss
            if b % refresh == 0 or b == batches:
                segments.append(tqdm_bar("Training", b, batches, f", loss={loss:.3g}"))
        out.append("\r".join(segments))
        broken = total != total
        acc = 0.1 if broken else 0.4 + e / 20
        out.append(f"{key}{sep}{total / batches:.4f}, accuracy{sep}{acc:.2%}")
        out.append(tqdm_bar("Validation", val, val, rate=21.0))
        out.append(f"Validation loss{sep}{float('nan') if broken else 1.2 - e / 10:.4f}, "
                   f"accuracy{sep}{acc:.2%}")
    return out


@pytest.mark.parametrize(("build", "right"), [
    # NaN from batch 420 (epoch 2's 121st of 300, drawn every 50): the bar's 150, the run's
    # 450; the validation after the epoch's last batch, 600 (the parent: 601).
    pytest.param(lambda: phases(420), [("AMP006", 450), ("AMP013", 600)], id="training_loss"),
    # ``train_loss: nan, accuracy: 10.00%``, 250 batches drawn every 25: NaN from 777, epoch
    # 4's 28th: 800 (the bar's 50, after three epochs of 250), the validation 1000.
    pytest.param(lambda: phases(777, epochs=5, batches=250, key="train_loss", sep=": ",
                                refresh=25), [("AMP006", 800), ("AMP013", 1000)],
                 id="train_loss_colon"),
])
def test_the_summary_is_the_epochs_last_batch(tmp_path: Path, build: Callable[[], list[str]],
                                              right: list[tuple[str, int]]) -> None:
    """The evaluation's NaN after the training summary that the bar at its total numbers."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    pytest.param(lambda: phases(), id="healthy"),
    pytest.param(lambda: phases(epochs=6, batches=97, key="train_loss", sep=": ",
                                refresh=10)[4:], id="healthy_from_the_middle"),
])
def test_healthy_phases_stay_silent(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """The healthy runs: read and silent."""
    assert faults(tmp_path, build()) == []
