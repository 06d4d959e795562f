"""An adversarial review of the doctor's newest step rules (#27, h51-review51b): the merges of
h51-steps51 (``epoch_brackets``, ``bar_epochs``, ``eval_passes``) and h51-left13
(``region_losses``, ``split_rows``), each problem held by a strict xfail with the right answer,
beside healthy controls.

Problems found:

- ``epoch_brackets`` (``[E/N] Step i/M``) with the epoch printed from 0: a DDP LoRA
  fine-tuning script in the code index (its repository not named there) prints
  ``f"[{epoch}/{num_epochs}] Step {step}/{total_steps} — lr={lr:.2e} loss={loss:.4f}"`` inside
  ``for epoch in range(num_epochs)`` over ``enumerate(..., start=1)``, ``total_steps`` the
  run's (``len(train_loader) * num_epochs``), then ``f"Epoch {epoch} eval loss: ..."``. The
  excerpt shows ``[0/3]``, yet epoch 1 is read as the first (``(E - 1) * M + i``): a NaN at
  epoch 1's step 300 of 1000 reads 300 (the parent read 3300); it is 1300, and the eval's NaN
  after that epoch 2000 (read 1000; the parent 4000). Fixed in h51-brackets: an epoch 0 says
  the base, the count gone back at the end of its share says M is the run's
  (``epoch_brackets.epoch_share``).
- ``bar_epochs``: Lightning's own bar (Lightning-AI/pytorch-lightning
  ``src/lightning/pytorch/callbacks/progress/tqdm_progress.py``: ``desc=f"Epoch
  {trainer.current_epoch}"``, postfix ``v_num`` and the logged metrics) beside a LightningModule
  that prints its epoch of how many from 0 (a ``ClassificationLightningModule`` in the code
  index, ``on_train_epoch_end``: ``print(f"Epoch {self.current_epoch}/{self.trainer.max_epochs}:
  " f"train_loss={train_loss:.3f}, " f"train_acc={train_acc*100:.3f}, ")``), pasted from epoch
  2: the label is repeated, so the bars are read from 1 and a NaN at epoch 3's batch 30 of 50
  reads 130; it is 180 (the parent's). A narrowing that would hold it: a bar whose postfix
  carries Lightning's ``v_num`` is Lightning's, from 0, whatever a later line repeats.

Rules tried that held (the doctor right, or as the parent, on these shapes):

- ``epoch_brackets``: a rank prefix as real launchers' loggers write it (``f"[{rank}/
  {world_size}] %(name)s - %(message)s"``, the lambdal distributed guide's format; ``[Rank
  {rank}/{world_size}] step {step}/{total}``) is not read as an epoch (a word stands between,
  or in the bracket); a padded ``[{epoch:3d}/{N}] step`` is not taken (as the parent).
- ``eval_passes``: ``Epoch E finished`` after every epoch of a loop whose rows go on rising:
  silent; a summary counted from 1 over rows counted from 0 never marks an epoch ended.
- ``region_losses``: STTN/E2FGVI's ``hole: ...; valid: nan`` is the training's (AMP006 at the
  iteration; the parent said AMP013); ``hole_iou: 0.41, valid: nan`` keeps ``valid`` the
  split's.
- ``split_rows``: a pandas ``to_markdown`` table of splits whose train row has no accuracy
  (``nan``) is silent; its test row's NaN loss is the evaluation's (AMP013), as on the parent.
- Speed: 3 MB shaped for each rule (bracketed fractions that miss the key, 40 ``epoch`` words a
  line, ``End of Epoch`` every 100 rows, 40 ``hole:`` keys a line, piped tables of splits,
  Lightning bars with repeated ``Epoch E/N``) read within 1.0-2.0 times the parent's time on a
  shared 2-core machine, with and without re2 (no regex backtracks on them).
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults

_BAR = "██████████"


def ddp_bracket_lines(epochs: tuple[int, ...], *, batches: int, num_epochs: int,
                      nan_at: int | None) -> list[str]:
    """A DDP LoRA fine-tuning script's rank-0 prints (a script in the code index, its
    repository not named there): ``print(f"[{epoch}/{num_epochs}] Step {step}/{total_steps} —
    lr={lr:.2e} loss={loss:.4f}")`` every 100 steps, ``epoch`` from ``range(num_epochs)``,
    ``step`` from ``enumerate(..., start=1)``, ``total_steps = len(train_loader) * num_epochs``;
    after each epoch ``print(f"Epoch {epoch} eval loss: {total_eval_loss/count:.4f}")``. NaN
    from the run's step ``nan_at`` on (the eval's after an epoch that reached it)."""
    lines = []
    for epoch in epochs:
        for step in range(100, batches + 1, 100):
            done = epoch * batches + step
            bad = nan_at is not None and done >= nan_at
            loss = "nan" if bad else f"{2.0 - done / 10000:.4f}"
            lines.append(f"[{epoch}/{num_epochs}] Step {step}/{batches * num_epochs} — "
                         f"lr=1.90e-05 loss={loss}")
        bad = nan_at is not None and (epoch + 1) * batches >= nan_at
        lines.append(f"Epoch {epoch} eval loss: {'nan' if bad else '1.2345'}")
    return lines


def lightning_module_lines(epochs: tuple[int, ...], *, batches: int, max_epochs: int,
                           nan_at: tuple[int, int] | None) -> list[str]:
    """Lightning 2.x's TQDM bar (Lightning-AI/pytorch-lightning ``src/lightning/pytorch/
    callbacks/progress/tqdm_progress.py``: ``desc=f"Epoch {trainer.current_epoch}"``, the
    postfix ``v_num`` then the metrics logged with ``prog_bar=True``), a state every 10
    batches, and a LightningModule's ``on_train_epoch_end`` print (a
    ``ClassificationLightningModule`` in the code index: ``print(f"Epoch
    {self.current_epoch}/{self.trainer.max_epochs}: " f"train_loss={train_loss:.3f}, "
    f"train_acc={train_acc*100:.3f}, ")``), both from 0. NaN from (epoch, batch) ``nan_at``."""
    lines = []
    for epoch in epochs:
        for done in range(10, batches + 1, 10):
            bad = nan_at is not None and (epoch, done) >= nan_at
            filled = 10 * done // batches
            lines.append(f"Epoch {epoch}: {100 * done // batches:3d}%|{_BAR[:filled]}"
                         f"{' ' * (10 - filled)}| {done}/{batches} [00:03<00:02,  9.80it/s, "
                         f"v_num=3, train_loss={'nan' if bad else '0.812'}, train_acc=51.2]")
        bad = nan_at is not None and epoch >= nan_at[0]
        lines.append(f"Epoch {epoch}/{max_epochs}: train_loss={'nan' if bad else '0.812'}, "
                     f"train_acc=51.200, ")
    return lines


def test_bracket_epochs_from_zero_read_from_zero(tmp_path: Path) -> None:
    lines = ddp_bracket_lines((0, 1, 2), batches=1000, num_epochs=3, nan_at=1300)
    assert faults(tmp_path, lines) == [("AMP006", 1300), ("AMP013", 2000)]


def test_bracket_epochs_from_zero_healthy_control(tmp_path: Path) -> None:
    lines = ddp_bracket_lines((0, 1, 2, 3), batches=700, num_epochs=4, nan_at=None)
    assert faults(tmp_path, lines) == []


def test_lightning_bar_beside_module_epoch_print(tmp_path: Path) -> None:
    """bar_epochs took the LightningModule's 'Epoch 2/6' (current_epoch, from 0) for a loop's
    count from 1 and shifted Lightning's own bars back an epoch (130); a bar whose postfix
    carries the logger's ``v_num`` is Lightning's, from 0."""
    lines = lightning_module_lines((2, 3, 4), batches=50, max_epochs=6, nan_at=(3, 30))
    assert faults(tmp_path, lines) == [("AMP006", 180)]


def test_lightning_bar_beside_module_epoch_print_healthy_control(tmp_path: Path) -> None:
    lines = lightning_module_lines((1, 2, 3), batches=40, max_epochs=9, nan_at=None)
    assert faults(tmp_path, lines) == []
