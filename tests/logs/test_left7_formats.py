"""Misreadings left from earlier rounds, each fixed by a rule for its kind of layout.

1. Lightning 1.x's main bar during a validation run (Lightning-AI/pytorch-lightning 1.6-1.9
   ``callbacks/progress/tqdm_progress.py`` ``on_validation_batch_end``: the main bar set to
   ``train_batch_idx + _val_processed``). Before: a main bar line drawn within the epoch's
   first run, before 1.x was proven, was read as its count (275 where training stood at 250),
   and ``terminate_on_nan``'s stop after it at 276. Now: a main bar risen by exactly the
   batches validated so far proves 1.x, and within the run the step is where training stood
   (251).
2. (see below)
3. (see below)
4. tqdm's ``format_num`` (tqdm/tqdm ``tqdm/std.py``: ``f'{n:.3g}'`` where that is shorter) on
   a step logged as a float from 100000 on (``step=1.24e+5``). Before: read as 124000, the
   step only to 3 digits. Now: the bar's own count where it rounds to the same value
   (123660); where it does not (accumulation), the shown value as before.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults
from test_lightning_bars_formats import _v1
from test_untried8_formats import _matcha

# --- 1. Lightning 1.x: the main bar counts validation batches ---------------------------------


def _v1_until(count: int, *, train: int = 500, val: int = 50, every: int = 25) -> list[str]:
    """A 1.x fit's first epoch (test_lightning_bars_formats' ``_v1``: two validation runs, a
    line every ``every`` batches of either bar) up to the main bar's line at ``count``."""
    total = train + 2 * val
    lines = _v1(train=train, val=val, runs=2, epochs=1, every=every)
    return lines[:next(i for i, line in enumerate(lines) if f"| {count}/{total} " in line) + 1]


def _stopped(lines: list[str]) -> list[str]:
    """Lightning 0.8-1.3 ``trainer/training_tricks.py`` (``terminate_on_nan``): ``raise
    ValueError('The loss returned in `training_step` is nan or inf.')`` after ``lines``."""
    return [*lines, "ValueError: The loss returned in `training_step` is nan or inf."]


def test_lightning_v1_bar_within_a_validation_run(tmp_path: Path) -> None:
    """Training stood at 250 through the first run (main bar 250 to 300): the stop is 251
    whether the excerpt ends within the run or just after it (before: 276 both)."""
    assert faults(tmp_path, _stopped(_v1_until(275))) == [("AMP006", 251)]
    assert faults(tmp_path, _stopped(_v1_until(300))) == [("AMP006", 251)]
    # more validation batches, drawn every 20: still where training stood
    assert faults(tmp_path, _stopped(_v1_until(260, train=400, val=100, every=20))) == [
        ("AMP006", 201)]


def test_lightning_v1_bar_after_a_validation_run(tmp_path: Path) -> None:
    """A count after the run is training's count less the run's batches (passed before)."""
    assert faults(tmp_path, _stopped(_v1_until(325))) == [("AMP006", 276)]
    assert faults(tmp_path, _stopped(_v1_until(575))) == [("AMP006", 501)]


def test_lightning_v1_nan_after_a_validation_run(tmp_path: Path) -> None:
    """A NaN shown on the bar after the first run: at training's batch (passed before)."""
    lines = _v1(train=500, val=50, runs=2, epochs=2, every=25, nan_from=276)
    assert faults(tmp_path, lines) == [("AMP006", 300)]


def test_lightning_v1_controls(tmp_path: Path) -> None:
    """Healthy 1.x fits with two and four validation runs an epoch (not the default one)."""
    assert faults(tmp_path, _v1(train=500, val=50, runs=2, epochs=2, every=25)) == []
    assert faults(tmp_path, _v1(train=400, val=30, runs=4, epochs=2, every=10)) == []


# --- 4. tqdm's three significant digits on a logged step ------------------------------------


def test_short_step_beside_the_bar_count(tmp_path: Path) -> None:
    """Matcha-TTS's ``step`` (test_untried8_formats' ``_matcha``) with no accumulation, the
    bar's count the global step: ``step=1.24e+5`` at 123660 (before: 124000)."""
    lines = _matcha(123660, accumulate=1, batches=1100, first_epoch=112, epochs=2)
    assert faults(tmp_path, lines) == [("AMP006", 123660)]


def test_short_step_under_accumulation_stays_the_shown_value(tmp_path: Path) -> None:
    """Under ``accumulate_grad_batches=4`` the bar counts 4 times the step: the shown value
    (to 3 digits) stays the step (passed before), and a healthy run is silent."""
    lines = _matcha(123000, accumulate=4, batches=1000, first_epoch=491, epochs=2)
    assert faults(tmp_path, lines) == [("AMP006", 123000)]
    assert faults(tmp_path, _matcha(accumulate=1, batches=1100, first_epoch=112)) == []
