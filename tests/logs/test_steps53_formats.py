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

A step alone on its line, its total apart from the slash (``iteration 1300 / 3000:``), over
a record of several loss lines, numbers them (as ``Iteration 1300/3000`` did already); and a
term printed as 0 between the other losses all along (a discriminator in its warm-up) is no
drop to 0 when the losses between its zeros turn NaN (the parent said AMP007 beside):

- 007d83QQ/FewShot-TraditionalChinese-Handwriting ``training.py`` (also in
  tests/logs/test_sample29_formats.py, whose strict xfails these fixed): AMP006 37, AMP007 36
  -> AMP006 1300. Kept: the generator's loss itself falling to an exact 0 beside the zero
  term is still AMP007 (a guard).

A row that ends with the bare split word after its last value (``... - Loss: nan val``) is
the evaluation's (AMP013), and ``New best! loss:0.55`` (the extreme word ending its own
exclamation) is the best so far's value, no row of its own:

- 01joja/D7047E ``training.py`` (tests/logs/test_sample29_formats.py's builder): 60 batches an
  epoch, 6 validation batches, NaN from batch 25 of epoch 2: AMP006 85, AMP013 120 (the
  parent: AMP006 92, no AMP013: the first epoch's validation rows and best line counted as
  training rows).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults, nan_from
from test_sample29_formats import pneumonia as d7047e


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


def fewshot_records(bad: int | None = None, zero_from: int | None = None, iters: int = 2000,
                    report: int = 50) -> list[str]:
    """007d83QQ/FewShot-TraditionalChinese-Handwriting ``training.py``: every
    ``report_interval`` iterations ``'iteration {} / {}:'``, ``'time: {:.6f} seconds per
    iteration'``, ``'generator loss: {:.6f}, adversarial loss: {:.6f}, ...'``,
    ``'discriminator loss: {:.6f}, adversarial loss: {:.6f}, classification loss: {:.6f}'``
    and ``'template_D loss: {:.6f}\\n'`` (0 through ``template_D.warmup_iter``); ``bad``:
    the first NaN iteration, ``zero_from``: the first where both losses print exactly 0."""
    out = ["image number: 30112", ""]
    for i in range(report, iters + 1, report):
        g = nan_from(bad, i, 7.3 / (1 + i / 600))
        d = nan_from(bad, i, 2.9 / (1 + i / 700))
        if zero_from is not None and i >= zero_from:
            g = d = 0.0
        out += [f"iteration {i} / {iters}:", "time: 0.287311 seconds per iteration",
                f"generator loss: {g:.6f}, adversarial loss: {g * 0.1:.6f}, classification "
                f"loss: {g * 0.5:.6f}, structure loss: {g * 0.01:.6f}, l2_style loss: "
                f"{g * 0.002:.6f}, Sup-Con: {g * 0.3:.6f}, reconstruction loss: "
                f"{g * 0.02:.6f}, template_D loss: {0.0:.6f}",
                f"discriminator loss: {d:.6f}, adversarial loss: {d * 0.4:.6f}, "
                f"classification loss: {d * 0.6:.6f}", f"template_D loss: {0.0:.6f}", ""]
    return out


def test_step_alone_over_record(tmp_path: Path) -> None:
    """The NaN from iteration 730 (a report every 50): the report of 750, no AMP007 (the
    parent counted the loss lines and said AMP007 beside)."""
    assert faults(tmp_path, fewshot_records(730)) == [("AMP006", 750)]


def test_zero_term_beside_real_collapse(tmp_path: Path) -> None:
    """The losses themselves falling to an exact 0 (finite) beside the zero term: still AMP007
    at the first record of zeros (a guard on the zero-term rule's reach)."""
    assert [code for code, _ in faults(tmp_path, fewshot_records(zero_from=900))] == ["AMP007"]


@pytest.mark.xfail(strict=True, reason="not fixed here: the run of zeros is dated from the "
                   "zero term's line under the last finite record (852: the record of 850's "
                   "third loss line, numbered as a row after its step), not from the first "
                   "record whose losses are 0 (900)")
def test_zero_collapse_step(tmp_path: Path) -> None:
    """The collapse's step: the first record of zeros."""
    assert faults(tmp_path, fewshot_records(zero_from=900)) == [("AMP007", 900)]


def test_zero_term_healthy_silent(tmp_path: Path) -> None:
    """A healthy run with other settings: silent (a control)."""
    assert faults(tmp_path, fewshot_records(iters=4000, report=200)) == []


def test_trailing_split_word(tmp_path: Path) -> None:
    """The training's NaN at its batch (the validation rows and the best-so-far lines push no
    count), the validation's NaN AMP013 at the epoch's last batch."""
    built = d7047e(60 + 25, epochs=4, batches=60, val_batches=6)
    assert faults(tmp_path, built) == [("AMP006", 85), ("AMP013", 120)]


def test_trailing_split_word_healthy_silent(tmp_path: Path) -> None:
    """A healthy run with other settings: silent (a control)."""
    assert faults(tmp_path, d7047e(epochs=7, batches=35, val_batches=3)) == []


def test_exclamation_without_extreme_still_read(tmp_path: Path) -> None:
    """Only the extreme word's exclamation drops a value: ``Done! loss: nan`` is still a
    loss (a guard)."""
    lines = [f"step {i}: loss {0.5 / i:.4f}" for i in range(1, 30)] + ["Done! loss: nan"]
    assert faults(tmp_path, lines) == [("AMP006", 30)]
