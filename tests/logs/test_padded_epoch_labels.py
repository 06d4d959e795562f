"""A tqdm bar whose label right-aligns its epoch of how many (``desc=f"Epoch {epoch:>3}/
{epochs}"``: ``Epoch   5/6``) numbers its batches across the epochs as ``Epoch 5/6`` does: a
paste from the middle of the run counts the epochs before the label's, not from the paste's
first bar (metric_reader's ``_BAR_LABEL_EPOCH``). Bars made up in labels the samples did not
show (another prefix, lower case, two-digit epochs); healthy bars stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults, tqdm_bar


def bars(label: str, first: int, epochs: int, batches: int, bad: int | None,
         every: int = 25) -> list[str]:
    """One line an epoch from ``first``: its bar's refreshes every ``every`` batches (``\\r``
    segments), ``label.format(e=...)`` the bar's label; the loss NaN from the run's batch
    ``bad`` (from 1) on."""
    out = []
    for e in range(first, epochs + 1):
        segs = []
        for b in range(every, batches + 1, every):
            run = (e - 1) * batches + b
            loss = "nan" if bad is not None and run >= bad else f"{1.2 - run / 1e5:.4f}"
            segs.append(tqdm_bar(label.format(e=e, n=epochs), b, batches, f", loss={loss}"))
        out.append("\r".join(segs))
    return out


@pytest.mark.parametrize(("label", "first", "epochs", "bad", "right"), [
    pytest.param("Train Epoch {e:>3}/{n}", 4, 12, 6 * 200 + 30, 1250, id="three_wide"),
    pytest.param("epoch {e:>4}/{n}", 3, 8, 5 * 200 + 130, 1150, id="lower_case_four_wide"),
    pytest.param("[fp16] Epoch {e:>2}/{n}", 9, 30, 11 * 200 + 60, 2275, id="two_digits"),
])
def test_a_right_aligned_epoch_numbers_a_paste_from_the_middle(
        tmp_path: Path, label: str, first: int, epochs: int, bad: int, right: int) -> None:
    """The NaN's first refresh is counted from the run's first epoch (200 batches each)."""
    assert faults(tmp_path, bars(label, first, epochs, 200, bad)) == [("AMP006", right)]


@pytest.mark.parametrize(("label", "first"), [
    pytest.param("Train Epoch {e:>3}/{n}", 1, id="from_the_start"),
    pytest.param("Train Epoch {e:>3}/{n}", 5, id="from_the_middle"),
])
def test_healthy_right_aligned_bars_stay_silent(tmp_path: Path, label: str, first: int) -> None:
    """Healthy bars under such labels raise nothing."""
    assert faults(tmp_path, bars(label, first, 12, 200, None)) == []
