"""Misreadings left from earlier rounds, each fixed by a rule for its kind of layout.

1. Lightning 1.x's main bar during a validation run (Lightning-AI/pytorch-lightning 1.6-1.9
   ``callbacks/progress/tqdm_progress.py`` ``on_validation_batch_end``: the main bar set to
   ``train_batch_idx + _val_processed``). Before: a main bar line drawn within the epoch's
   first run, before 1.x was proven, was read as its count (275 where training stood at 250),
   and ``terminate_on_nan``'s stop after it at 276. Now: a main bar risen by exactly the
   batches validated so far proves 1.x, and within the run the step is where training stood
   (251).
2. KerasTuner's search (keras-team/keras-tuner ``keras_tuner/engine/tuner_utils.py``
   ``Display``: ``Search: Running Trial #N``, the hyperparameter table, Keras' bars, then
   ``Trial N Complete [00h 01m 02s]``, ``{objective}: {score}``, ``Best ... So Far: ...``),
   one trial of four trained on NaN to its end. Before: AMP006 (error) at 761 and AMP013 at
   800, the trial's bars counted on from the trial before. Now: both at info (an abandoned
   run: ``Trial N Complete [`` is a search's word that it ended the attempt, as Optuna's
   ``Trial N failed``), at the trial's own steps 161 and 200 (a new trial builds a new
   model: its bars count from 1). A NaN in the last trial stays a fault.
3. Loss terms named with a suffix on a Lightning bar (the bar: Lightning-AI/pytorch-lightning
   ``callbacks/progress/tqdm_progress.py``, the postfix what the module logs with
   ``prog_bar=True``: a VAE LightningModule's ``self.log("train/kl_weighted",
   loss_dict["kl_weighted"], prog_bar=True)`` beside ``train/loss``, found in the search
   index, which names no repository for it). ``l1_dim``, ``loss_bbox_0``, ``ce_aux`` were
   already terms (the lexicon's loss nouns with another word: components), and a term's NaN
   counts as the loss's on the bar. Before: ``kl_weighted`` named nothing (``kl`` is no loss
   noun), its NaN beside the running ``loss=`` went unsaid. Now: a measure seldom trained on
   alone (``kl``, ``kld``, ``mae``) with ``weighted`` beside it is a term (lexicon
   ``_weighted_term``): AMP006 at its step; ``kl``, ``kl_weight`` and ``val/kl_weighted``
   stay what they were. In a plain print a term's NaN beside a finite per-step total stays
   silent: a term of that total would have made it NaN.
4. tqdm's ``format_num`` (tqdm/tqdm ``tqdm/std.py``: ``f'{n:.3g}'`` where that is shorter) on
   a step logged as a float from 100000 on (``step=1.24e+5``). Before: read as 124000, the
   step only to 3 digits. Now: the bar's own count where it rounds to the same value
   (123660); where it does not (accumulation), the shown value as before.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults
from test_lightning_bars_formats import _bar, _v1
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


def test_lightning_v1_bar_after_a_validation_run_control(tmp_path: Path) -> None:
    """Control: a count after the run is training's count less the run's batches (passed
    before; the new proof must not move it)."""
    assert faults(tmp_path, _stopped(_v1_until(325))) == [("AMP006", 276)]
    assert faults(tmp_path, _stopped(_v1_until(575))) == [("AMP006", 501)]


def test_lightning_v1_nan_after_a_validation_run_control(tmp_path: Path) -> None:
    """Control: a NaN shown on the bar after the first run, at training's batch (passed
    before)."""
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


def test_short_step_under_accumulation_control(tmp_path: Path) -> None:
    """Control: under ``accumulate_grad_batches=4`` the bar counts 4 times the step: the shown value
    (to 3 digits) stays the step (passed before), and a healthy run is silent."""
    lines = _matcha(123000, accumulate=4, batches=1000, first_epoch=491, epochs=2)
    assert faults(tmp_path, lines) == [("AMP006", 123000)]
    assert faults(tmp_path, _matcha(accumulate=1, batches=1100, first_epoch=112)) == []


# --- 2. KerasTuner: a trial that trained on NaN among healthy ones ----------------------------


def _progbar(current: int, target: int, metrics: list[tuple[str, str]]) -> str:
    """Keras 2's ``Progbar.update`` to a file (keras ``utils/generic_utils.py``): ``'%' +
    str(numdigits) + 'd/%d ['``, 30 characters of ``=`` and ``>`` over ``.``, ``- ETA: 1s``
    (``- 3s 2ms/step`` at the end), then ``- %s: %.4f`` for each metric."""
    width = 30
    filled = width * current // target
    bar = ("=" * (filled - 1) + (">" if current < target else "=")) if filled else ""
    info = " - ETA: 1s" if current < target else " - 3s 2ms/step"
    info += "".join(f" - {key}: {value}" for key, value in metrics)
    return f"{current:{len(str(target))}d}/{target} [{bar.ljust(width, '.')}]{info}"


def _trial(number: int, *, nan: bool = False, objective: str = "val_loss", epochs: int = 3,
           batches: int = 200, every: int = 40) -> list[str]:
    """One trial of a KerasTuner search as ``Display`` prints it (``on_trial_begin``: a blank,
    ``Search: Running Trial #{n}``, the ``{:18}|{:18}|{}`` table; ``on_trial_end``: ``Trial
    {n} Complete [{h:02d}h {m:02d}m {s:02d}s]``, ``{objective}: {score}``, a blank, ``Best
    {objective} So Far: {best}``, ``Total elapsed time: ...``) around its ``fit``; ``nan``:
    the loss NaN from the trial's batch 150 on, to its end (no TerminateOnNaN)."""
    lines = ["", f"Search: Running Trial #{number}", "",
             f"{'Value':18}|{'Best Value So Far':18}|Hyperparameter",
             f"{32 * number:<18}|{'?' if number == 1 else 32:<18}|units",
             f"{10.0 ** -number:<18.5g}|{'?' if number == 1 else 0.1:<18}|learning_rate", ""]
    scores = []
    for epoch in range(1, epochs + 1):
        lines.append(f"Epoch {epoch}/{epochs}")
        for batch in [*range(1, batches, every), batches]:
            step = (epoch - 1) * batches + batch
            loss = "nan" if nan and step >= 150 else f"{0.9 - step / 2000:.4f}"
            metrics = [("loss", loss), ("accuracy", f"{0.7 + step / 10000:.4f}")]
            if batch == batches:
                val, acc = (float("nan"), 0.1) if nan else (0.6 - epoch / 100, 0.8 + epoch / 100)
                scores.append(val if objective == "val_loss" else acc)
                metrics += [("val_loss", f"{val:.4f}"), ("val_accuracy", f"{acc:.4f}")]
            lines.append(_progbar(batch, batches, metrics))
    score = min(scores) if objective == "val_loss" else max(scores)
    return [*lines, f"Trial {number} Complete [00h 01m {number:02d}s]", f"{objective}: {score}",
            "", f"Best {objective} So Far: 0.57", f"Total elapsed time: 00h 0{number}m 10s"]


def test_keras_tuner_nan_trial_among_healthy_ones_is_abandoned(tmp_path: Path) -> None:
    """Trial 2 of 4 went NaN at its batch 150 (shown at 161): said at info, at its own step
    (before: AMP006 error at 761, AMP013 at 800)."""
    lines = [*_trial(1), *_trial(2, nan=True), *_trial(3), *_trial(4)]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == []
    assert [(d.code, d.step) for d in result.diagnoses
            if d.evidence.get("abandoned_run")] == [("AMP006", 161), ("AMP013", 200)]


def test_keras_tuner_nan_in_the_last_trial_stays_a_fault(tmp_path: Path) -> None:
    """No trial after it trained: the fault stays, at the trial's own steps (before: 1361
    and 1400, counted on from the trials before)."""
    lines = [*_trial(1), *_trial(2), *_trial(3, nan=True)]
    assert faults(tmp_path, lines) == [("AMP006", 161), ("AMP013", 200)]


def test_keras_tuner_controls(tmp_path: Path) -> None:
    """A healthy search on ``val_accuracy`` (not the default objective), longer epochs; and
    two fits with no search between them, the first NaN to its end: its fault stays."""
    search = [line for n in (1, 2, 3) for line in _trial(n, objective="val_accuracy",
                                                       epochs=4, batches=300, every=50)]
    assert faults(tmp_path, search) == []
    fits = [line for line in [*_trial(1, nan=True), *_trial(2)]
            if not line.startswith(("Trial ", "Best ", "Total ", "Search:"))]
    assert faults(tmp_path, fits) == [("AMP006", 161), ("AMP013", 200)]


# --- 3. loss terms named with a suffix --------------------------------------------------------


def _vae_bar(term: str, nan_from: int | None = None, *, total_nan: bool = False,
             batches: int = 400, every: int = 20, epochs: int = 2) -> list[str]:
    """Lightning 1.x's bar (``loss=`` its running mean, ``v_num``), the module's ``train/loss``
    and ``train/{term}`` logged with ``prog_bar=True``; the term NaN from step ``nan_from``
    on (the total too where ``total_nan``)."""
    lines = []
    for epoch in range(epochs):
        for done in range(every, batches + 1, every):
            step = epoch * batches + done
            bad = nan_from is not None and step >= nan_from
            total = "nan" if bad and total_nan else f"{1.2 - step / 1e4:.3f}"
            value = "nan" if bad else f"{0.05 + step / 1e5:.3f}"
            lines.append(_bar(f"Epoch {epoch}", done, batches,
                              f"loss={1.21 - step / 1e4:.3f}, v_num=3, train/loss={total}, "
                              f"train/{term}={value}"))
    return lines


def test_weighted_kl_term_nan_beside_a_finite_total(tmp_path: Path) -> None:
    """``train/kl_weighted=nan`` beside a finite running ``loss=``: the loss's NaN at 520
    (before: silent); the other suffixes were terms already."""
    assert faults(tmp_path, _vae_bar("kl_weighted", 520)) == [("AMP006", 520)]
    for term in ("l1_dim", "loss_bbox_0", "ce_aux", "weighted_kld"):
        assert faults(tmp_path, _vae_bar(term, 520)) == [("AMP006", 520)], term


def test_weighted_kl_term_with_a_nan_total_control(tmp_path: Path) -> None:
    """Control: the total NaN with its term, one AMP006 at the step (passed before)."""
    assert faults(tmp_path, _vae_bar("kl_weighted", 520, total_nan=True)) == [("AMP006", 520)]


def test_weighted_kl_controls(tmp_path: Path) -> None:
    """Healthy bars with each term, over 3 epochs of 300 batches; the KL weight itself, an
    evaluation's weighted KL and a plain ``kl`` NaN stay no loss."""
    for term in ("kl_weighted", "l1_dim", "loss_bbox_0", "ce_aux"):
        assert faults(tmp_path, _vae_bar(term, batches=300, epochs=3)) == [], term
    for term in ("kl_weight", "kl"):
        assert faults(tmp_path, _vae_bar(term, 520)) == [], term
    # an evaluation's NaN on the bar: AMP013, not the training loss's AMP006
    evaluated = [line.replace("train/kl_weighted", "val/kl_weighted")
                 for line in _vae_bar("kl_weighted", 520)]
    assert faults(tmp_path, evaluated) == [("AMP013", 520)]
