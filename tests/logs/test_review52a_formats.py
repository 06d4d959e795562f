"""An adversarial review of the rules merged on 7 December (review52a, issue #27): an
area under the ROC curve's NaN read as a set of one class (h52-sample31), an open bar's last
state read as its epoch's length (h52-epochbars' ``closing_bars``), tried on excerpts a
user's healthy and faulty runs print.

Breaks found and mended here:

- A NaN AUC was excused wherever training went well or a finite loss stood beside it
  (``lexicon.undefined_area``); but a run evaluates the same set each time, so an AUC that
  was finite on the same line before and is NaN later is the predictions', an fp16
  evaluation's overflow (``defined_areas``). Main was silent on it; the parent said AMP013.

Each builder names the tool's source whose format strings it follows.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults, nan_from, tqdm_bar


def lightning_auc(bad: int | None = None, epochs: int = 8, batches: int = 250,
                  one_class: bool = False, val_loss: bool = False) -> list[str]:
    """Lightning's ``TQDMProgressBar`` (Lightning-AI/pytorch-lightning
    ``src/lightning/pytorch/callbacks/progress/tqdm_progress.py``: the main bar described
    ``f"Epoch {trainer.current_epoch}"``, its postfix ``get_metrics``: ``v_num`` and each
    ``self.log(..., prog_bar=True)`` value, ``f"{v:.3g}"``), each epoch's last state kept: a
    module that logs ``train_loss`` and a torchmetrics ``BinaryAUROC`` as ``val_auc`` (and
    ``val_loss`` where asked). ``bad``: the first epoch (from 0) whose evaluation overflowed
    in fp16 (its scores, so its AUC, NaN; training's loss still finite and falling);
    ``one_class``: a validation set of one class, its AUC NaN from the first evaluation."""
    out: list[str] = []
    for epoch in range(epochs):
        train = 0.71 - epoch * 0.045
        broken = one_class or (bad is not None and epoch >= bad)
        auc = math.nan if broken else 0.81 + epoch / 90
        shown = f", val_loss={nan_from(bad, epoch, 0.62 - epoch / 60):.3g}" if val_loss else ""
        out.append(tqdm_bar(f"Epoch {epoch}", batches, batches,
                            f", v_num=7, train_loss={train:.3g}{shown}, val_auc={auc:.3g}",
                            rate=6.12))
    return out


def hf_trainer_auc(bad: int | None = None, steps: int = 1000, every: int = 50,
                   per_epoch: int = 250, one_class: bool = False) -> list[str]:
    """transformers' ``Trainer`` printing its logs (``src/transformers/trainer.py`` ``log``:
    the ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}`` dict every
    ``logging_steps=50``, ``eval_strategy="epoch"``: ``{'eval_loss': ..., 'eval_auc': ...,
    'eval_runtime': ..., 'eval_samples_per_second': ..., 'eval_steps_per_second': ...,
    'epoch': ...}``, ``compute_metrics`` returning ``{"auc": roc_auc_score(...)}`` with
    ``except ValueError: float("nan")``, which catches a set of one class and NaN scores
    alike: ``fp16_full_eval`` keeps the logits in float16 and ``np.exp`` of them overflows).
    ``bad``: the first step whose evaluation's scores were NaN (its loss, computed in the
    model, still finite); ``one_class``: the AUC NaN from the first evaluation."""
    out: list[str] = []
    for step in range(every, steps + 1, every):
        out.append(f"{{'loss': {0.7 - step / 2200:.4f}, 'grad_norm': {1.31 - step / 4000:.4f}, "
                   f"'learning_rate': {3e-5 * (1 - step / steps):.4e}, "
                   f"'epoch': {step / per_epoch:.2f}}}")
        if step % per_epoch == 0:
            broken = one_class or (bad is not None and step >= bad)
            auc = "nan" if broken else f"{0.79 + step / 9000}"
            out.append(f"{{'eval_loss': {0.61 - step / 5000:.4f}, 'eval_auc': {auc}, "
                       "'eval_runtime': 12.31, 'eval_samples_per_second': 81.27, "
                       f"'eval_steps_per_second': 5.08, 'epoch': {step / per_epoch:.1f}}}")
    return out


def test_lightning_auc_that_went_nan_counts(tmp_path: Path) -> None:
    """A ``val_auc`` finite for four epochs, then NaN, training's loss falling: the set held
    both classes; its scores went NaN (main was silent; the parent's AMP013 at epoch 4's
    bar, 5 x 250)."""
    assert faults(tmp_path, lightning_auc(4)) == [("AMP013", 1250)]


def test_lightning_auc_nan_from_the_first_evaluation_is_silent(tmp_path: Path) -> None:
    """Control: a set of one class, the AUC NaN from epoch 0 (h52-sample31's rule holds)."""
    assert faults(tmp_path, lightning_auc(one_class=True, epochs=6, batches=120)) == []


def test_lightning_auc_beside_a_finite_val_loss_that_went_nan_counts(tmp_path: Path) -> None:
    """The same with the evaluation's loss on the bar (NaN with it): AMP013 as before."""
    assert faults(tmp_path, lightning_auc(4, val_loss=True)) == [("AMP013", 1250)]


def test_hf_trainer_auc_that_went_nan_beside_a_finite_loss_counts(tmp_path: Path) -> None:
    """The Trainer's ``eval_auc`` finite at the first two evaluations, NaN from the third,
    its ``eval_loss`` finite: no set of one class (the same set gave an AUC twice). Rows
    counted (the dicts print no step): the 15th training row is the evaluation's."""
    assert faults(tmp_path, hf_trainer_auc(750)) == [("AMP013", 15)]


def test_hf_trainer_auc_nan_from_the_first_evaluation_is_silent(tmp_path: Path) -> None:
    """Control: ``eval_auc`` NaN at every evaluation beside a finite ``eval_loss`` (a set of
    one class), other settings (logging every 25 steps, 400 an epoch)."""
    assert faults(tmp_path, hf_trainer_auc(one_class=True, steps=1200, every=25,
                                           per_epoch=400)) == []
