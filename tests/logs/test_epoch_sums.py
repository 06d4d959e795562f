"""Two layouts of the epoch-sum scripts of tests/logs/test_sample34_formats.py, read by
rules of their layout (#27):

- an epoch's sums under the splits' names alone, right below a bar an epoch drawn with no
  postfix (8DM20-group6/ProstateSegmentation ``train_vae.py``: ``Train: 410.0000 |
  Validation: 142.0000``): the training split's value is the training loss, the held-out
  split's the evaluation's, both at the run's batches the bar counted
  (denpex_callbacks/logs/epoch_sums.py);
- an evaluation row that prints no count, right below an ``Epoch e/N, current lr=...``
  heading, in a log that prints no training row (AIKU-friends/pose-generation
  ``train_vae.py``, the training loss sent to wandb): its epoch is its step
  (``MetricReader._epoch_above``; reader.py hands the heading over with ``current`` before
  its ``lr``).

The builders are test_sample34_formats' (each names its repository and file, from the
script's own format strings); here with settings other than those there. A split's sizes
(``Train: 3000 | Test: 500``), counts, are no loss even right below such a bar.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, tqdm_bar
from test_sample34_formats import aiku_pose, prostate_vae

from denpex_callbacks.logs.events import METRICS
from denpex_callbacks.logs.metric_reader import MetricReader


def test_epoch_sums_numbered_by_the_bar_above(tmp_path: Path) -> None:
    """25 batches an epoch, NaN from batch 7 of epoch 9 (the run's 207): the epoch's sums
    line after its bar, 9 * 25 = 225, both the training and the validation sum."""
    assert faults(tmp_path, prostate_vae(8 * 25 + 7, epochs=30, batches=25)) == [
        ("AMP006", 225), ("AMP013", 225)]


def test_epoch_sums_from_the_middle(tmp_path: Path) -> None:
    """Pasted from epoch 41 of 60 (7 batches a bar), NaN in epoch 50: 350."""
    lines = prostate_vae(49 * 7 + 3, epochs=60, batches=7)[80:]
    assert faults(tmp_path, lines) == [("AMP006", 350), ("AMP013", 350)]


def test_healthy_epoch_sums_read_and_silent(tmp_path: Path) -> None:
    """A short healthy run (5 epochs of 31 batches): read (no error), no diagnosis."""
    assert faults(tmp_path, prostate_vae(epochs=5, batches=31)) == []


def test_split_sizes_are_no_loss() -> None:
    """A split's sizes below an epoch's bar are counts: no training loss read from them."""
    from denpex_callbacks.logs.epoch_sums import split_sums  # (the rule's own module)

    reader = MetricReader()
    bar = tqdm_bar("Epoch: 1/5", 12, 12, rate=3.87).replace("it/s", "batch/s")
    assert reader.read(bar, 1) == []
    events = reader.read("Train: 3000 | Test: 500", 2)
    assert not [event for event in events if event.kind == METRICS]
    assert split_sums("Train: 3 | Test: 2") is None


def test_validation_rows_under_epoch_headings(tmp_path: Path) -> None:
    """A learning rate printed in e-notation, 50 epochs, the weights NaN from epoch 7."""
    assert faults(tmp_path, aiku_pose(7, epochs=50, lr=1e-05, pck=0.05)) == [("AMP013", 7)]


def test_validation_rows_from_the_middle(tmp_path: Path) -> None:
    """Pasted from epoch 31 (its heading the first line), NaN from epoch 38."""
    assert faults(tmp_path, aiku_pose(38, epochs=45, lr=0.002)[61:]) == [("AMP013", 38)]


def test_healthy_validation_rows_read_and_silent(tmp_path: Path) -> None:
    """A healthy run of 8 epochs at another learning rate: read, no diagnosis."""
    assert faults(tmp_path, aiku_pose(epochs=8, lr=5e-4, pck=0.3)) == []
