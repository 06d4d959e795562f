"""Keras ``fit`` called again on a fresh model, in the same log (h51-steps53, issue #27).

A script that fits one new model a setting or a fold calls the same ``fit`` again: each
starts at ``Epoch 1/N`` again, under the one before that ran to its ``Epoch N/N``. A fresh
model's loss starts high again, as a script run again: its steps count from its own start
(the model's ``optimizer.iterations``, which TensorBoard numbers them by). The same model
fitted again (a round of new data, folds of one global model) goes on from its loss, and its
steps from the fit before (the doctor's reading kept).

Each excerpt as repository ``file``; the doctor's answer on the parent (e887267) -> now:

- emcdona1/field_classification ``model_training.py`` (``train_blank_model``, a fold's fresh
  model, ``fit(..., verbose=2)``: one line an epoch, no bar drawn): the third fold's NaN from
  its epoch 7 of 20 at 40 batches: AMP006 1880, AMP013 1880 -> 280, 280 (the fit's own);
  pasted from the second fold's epoch 11, 680, 680 -> 280, 280.
- 1712catfish/keras-classification ``train.py`` (one global ``MODEL`` fitted fold after fold):
  the second fold's NaN from its epoch 4: (10 + 4) * 25 = 350 on the parent and now (a guard:
  the same model's steps count on).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults, nan_from


def field_folds(bad_fold: int | None = None, bad: int | None = None, folds: int = 5,
                epochs: int = 20, batches: int = 40) -> list[str]:
    """emcdona1/field_classification ``model_training.py`` ``ModelTrainer.train_blank_model``:
    ``print('Training model for fold %i of %i' % (curr_fold + 1, n_folds))``, then a blank
    model's ``model.fit(..., epochs=self.epochs, validation_data=..., verbose=2)``: tf.keras'
    ``ProgbarLogger`` at verbose 2 (``Epoch 3/20``, then once the epoch ends ``40/40 - 3s -
    loss: 0.4120 - accuracy: 0.81 - val_loss: ... - val_accuracy: ...``); ``bad`` is the
    first NaN epoch (from 1) of the fold ``bad_fold`` (0-based)."""
    out: list[str] = []
    for k in range(folds):
        out.append(f"Training model for fold {k + 1} of {folds}")
        for e in range(1, epochs + 1):
            at = bad if k == bad_fold else None
            loss = nan_from(at, e, 0.69 / (1 + e / 8) + k / 500)
            val = nan_from(at, e, 0.71 / (1 + e / 10) + k / 500)
            acc = 0.5 if loss != loss else 0.5 + e / (2 * epochs + 2)
            out += [f"Epoch {e}/{epochs}",
                    f"{batches}/{batches} - {4 if e == 1 else 3}s - loss: {loss:.4f} - "
                    f"accuracy: {acc:.4f} - val_loss: {val:.4f} - val_accuracy: {acc:.4f}"]
    return out


def global_model_folds(bad_fold: int | None = None, bad: int | None = None, folds: int = 4,
                       epochs: int = 10, batches: int = 25) -> list[str]:
    """1712catfish/keras-classification ``train.py`` ``train``: for each fold ``print(f"=====
    ===== Fold {d['index']} ==========")``, then ``MODEL.fit(**args_global_dict(d))`` of the
    one global ``MODEL`` (never rebuilt: its loss goes on down fold after fold), Keras 2's bar
    ``25/25 [==============================] - 2s 80ms/step - loss: ... - val_loss: ...``;
    ``bad`` is the first NaN epoch (from 1) of the fold ``bad_fold`` (0-based)."""
    out: list[str] = []
    for k in range(folds):
        out.append(f"========== Fold {k} ==========")
        for e in range(1, epochs + 1):
            n = k * epochs + e
            at = bad if k == bad_fold else None
            loss = nan_from(at, e, 1.2 / (1 + n / 6))
            val = nan_from(at, e, 1.3 / (1 + n / 7))
            out += [f"Epoch {e}/{epochs}",
                    f"{batches}/{batches} [==============================] - 2s 80ms/step - "
                    f"loss: {loss:.4f} - val_loss: {val:.4f}"]
    return out


@pytest.mark.parametrize(("build", "right"), [
    # the third fold's (of five) NaN from its epoch 7: the fit's own 7 * 40
    pytest.param(lambda: field_folds(2, 7), [("AMP006", 280), ("AMP013", 280)], id="fresh"),
    # pasted from the second fold's epoch 11 (its header: 10 epochs before in that fit)
    pytest.param(lambda: field_folds(2, 7)[41 + 1 + 2 * 10:],
                 [("AMP006", 280), ("AMP013", 280)], id="fresh_from_the_middle"),
])
def test_fresh_model_fits(tmp_path: Path, build: object, right: list[tuple[str, int]]) -> None:
    """A fit of a fresh model after one run to its end: its own steps (the parent counted on
    from the fits before)."""
    assert callable(build)
    assert faults(tmp_path, build()) == right


def test_same_model_fits_count_on(tmp_path: Path) -> None:
    """The one global model fitted fold after fold: its steps go on from the fits before
    (a guard: the parent read it so too)."""
    assert faults(tmp_path, global_model_folds(1, 4)) == [("AMP006", 350), ("AMP013", 350)]


@pytest.mark.parametrize("build", [
    lambda: field_folds(folds=3, epochs=12, batches=64),
    lambda: field_folds(folds=4, epochs=30)[200:],
    lambda: global_model_folds(folds=6, epochs=5, batches=40),
], ids=["field_folds", "field_folds_from_the_middle", "global_model_folds"])
def test_healthy_fits_silent(tmp_path: Path, build: object) -> None:
    """Healthy runs with settings other than the defaults: silent (controls)."""
    assert callable(build)
    assert faults(tmp_path, build()) == []
