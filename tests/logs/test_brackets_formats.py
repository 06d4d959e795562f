"""Epochs counted from 0 beside a step of how many (#27, h51-brackets): an epoch 0 printed
says the base, and a count that goes back after ending within its share of M says M was the
run's total (``epoch_brackets.epoch_share``). The DDP LoRA script's ``[E/N] Step i/M`` is held
in tests/logs/test_review51b_formats.py; here the same rule on ``Epoch E/N, Step i/M``. And an
epoch's length said once in the log's head (``Number of batches per epoch: 57``), read there
(``declared_lengths``): the line holds no prefilter keyword and the budget of 40 is full.
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults
from tests.logs.test_review51b_formats import ddp_bracket_lines


def notebook_epoch_lines(epochs: tuple[int, ...], *, batches: int, num_epochs: int,
                         nan_at: int | None) -> list[str]:
    """A notebook-style training cell in the code index (its repository not named there):
    ``for epoch in range(NUM_EPOCHS):`` over ``for i, data in enumerate(trainloader, 0):``,
    ``if i % 100 == 0: print(f'Epoch {epoch}/{NUM_EPOCHS}, Step {i+1}/{len(trainloader)},'
    f'Loss: {loss.item():.4f}')`` (no blank after the comma: the two f-strings join). The
    epoch from 0, the step within it from 1, M the epoch's own. NaN from the run's step
    ``nan_at`` on (``epoch * batches + i + 1``)."""
    lines = []
    for epoch in epochs:
        for i in range(0, batches, 100):
            done = epoch * batches + i + 1
            bad = nan_at is not None and done >= nan_at
            loss = "nan" if bad else f"{0.7 - done / 100000:.4f}"
            lines.append(f"Epoch {epoch}/{num_epochs}, Step {i + 1}/{batches},Loss: {loss}")
    return lines


def test_notebook_epochs_from_zero(tmp_path: Path) -> None:
    """The parent read epoch 1 as the first (``(E - 1) * M + i``): 301; it is 1001."""
    lines = notebook_epoch_lines((0, 1, 2), batches=700, num_epochs=10, nan_at=1001)
    assert faults(tmp_path, lines) == [("AMP006", 1001)]


def test_notebook_epochs_from_zero_healthy_control(tmp_path: Path) -> None:
    lines = notebook_epoch_lines((0, 1, 2, 3), batches=450, num_epochs=7, nan_at=None)
    assert faults(tmp_path, lines) == []


def test_ddp_brackets_run_total_in_third_epoch(tmp_path: Path) -> None:
    """The DDP LoRA script's ``[E/N] Step i/M`` (its builder in test_review51b_formats), four
    epochs of 500 from 0, M the run's 2000: a NaN at epoch 2's step 200 is 1200 and the eval
    after that epoch 1500 (the parent read 2200 and 2500: M taken for an epoch's length, from
    epoch 1)."""
    lines = ddp_bracket_lines((0, 1, 2, 3), batches=500, num_epochs=4, nan_at=1200)
    assert faults(tmp_path, lines) == [("AMP006", 1200), ("AMP013", 1500)]


def test_ddp_brackets_healthy_control(tmp_path: Path) -> None:
    lines = ddp_bracket_lines((0, 1, 2, 3, 4), batches=300, num_epochs=5, nan_at=None)
    assert faults(tmp_path, lines) == []


def declared_world_model_lines(*, batches: int, epochs: int, every: int,
                               nan_at: int | None) -> list[str]:
    """Ctdunn/td3-hybrid ``train_world_model.py``'s set-up print ``f"Number of batches per
    epoch: {len(dataloader)}"`` and its rows ``f"Epoch {epoch}, Batch {num_batches}, Loss:
    {loss:.4f}, ..."`` every ``every`` batches (epochs from 0, batches from 1), with settings
    other than sample28's. NaN from the run's step ``nan_at`` (``epoch * batches + batch``)."""
    lines = ["Using device: cuda", f"Number of batches per epoch: {batches}", ""]
    for epoch in range(epochs):
        for batch in range(every, batches + 1, every):
            done = epoch * batches + batch
            bad = nan_at is not None and done >= nan_at
            loss = "nan" if bad else f"{2.1 - done / 5000:.4f}"
            lines.append(f"Epoch {epoch}, Batch {batch}, Loss: {loss}, State Loss: 1.4, "
                         f"Reward Loss: 0.4, KL Loss: {loss}")
        lines.append(f"\nEpoch {epoch} complete, Average Loss: {'nan' if bad else '2.0'}")
    return lines


def test_declared_epoch_length(tmp_path: Path) -> None:
    """133 batches an epoch, a row every 25: the rows alone tell 125 (4 * 125 + 50 = 550);
    the head's declaration 133 (582)."""
    lines = declared_world_model_lines(batches=133, epochs=6, every=25, nan_at=4 * 133 + 50)
    assert faults(tmp_path, lines)[0] == ("AMP006", 4 * 133 + 50)


def test_declared_epoch_length_healthy_control(tmp_path: Path) -> None:
    lines = declared_world_model_lines(batches=91, epochs=7, every=15, nan_at=None)
    assert faults(tmp_path, lines) == []
