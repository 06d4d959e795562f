"""Untried tools, group eight (speech, audio and music toolkits): excerpts written from each
tool's own format strings (each builder names its source), a fault beside healthy controls
with non-default settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
vocos' Lightning bar (gemelo-ai/vocos ``vocos/experiment.py``: ``discriminator/total`` and
``generator/total_loss`` logged with ``prog_bar=True``; a NaN generator loss at its batch);
NeMo's Megatron bar, both the percentage bar and the ``{desc} {n_fmt}/{total_fmt}{postfix}``
one of ``MegatronProgressBar`` (NVIDIA/NeMo ``nemo/collections/nlp/parts/nlp_overrides.py``,
``reduced_train_loss`` and ``global_step`` logged with ``prog_bar=True``) behind NeMo's
``[NeMo I ... module:line]`` records; fairseq's wav2vec 2.0 pretraining through
``hydra_train`` (facebookresearch/fairseq ``fairseq/logging/progress_bar.py``
``JsonProgressBar`` under Hydra's ``[%(asctime)s][%(name)s][%(levelname)s] - %(message)s``,
its ``prob_perplexity``, ``code_perplexity``, ``loss_0``... keys; a NaN loss, and the
trainer's ``NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: ...``
cascade, AMP003 then AMP004).

Not tried: pyannote.audio (its tasks log ``loss/train`` with ``prog_bar=False`` and return
None for a NaN batch: the console shows no loss), asteroid (Lightning's own ``loss=`` bar,
covered), bark and openai/whisper (no training loop of their own; whisper fine-tuning runs
through HF's Seq2SeqTrainer, covered).

Missed before:

- Matcha-TTS logs the global step itself to the bar (shivammehta25/Matcha-TTS
  ``matcha/models/baselightningmodule.py``: ``self.log("step", float(self.global_step),
  prog_bar=True)``, shown ``step=120.0``) beside ``loss/train_step``; the doctor numbered a
  NaN by the bar's batch count, four times the step under ``accumulate_grad_batches=4``. Now
  a ``step=`` of the postfix in a logged value's padded float form is the step, as
  ``global_step=`` was (lightning._LOGGED_STEP).
- DiffSinger's own trainer (MoonInTheRiver/DiffSinger ``utils/pl_utils.py``, ``tasks/
  base_task.py``) shows the loss terms alone on its bar, named after what they measure
  (``mel=nan, pdur=..., step=700``: no key says loss) and the global step as a whole number;
  the doctor read nothing on the bar: a NaN was told only at the epoch's summary (``Epoch 2
  ended. Steps: 900. {... 'total_loss': nan}``), an excerpt without one was "nothing to
  diagnose". Now, on a bar whose postfix names no loss, a non-finite term that is no rate,
  accuracy, perplexity or evaluation value is the loss's (lexicon.unnamed_loss_term), and a
  whole ``step=`` above the epoch's batch total is the run's step.

- openvpi/DiffSinger's ``DsTQDMProgressBar`` (``utils/training_utils.py``) shows the global
  step as ``steps=``, under ``accumulate_grad_batches`` below the epoch's batch total, where a
  loop's count within its epoch could be too: the NaN was numbered by the bar's count (4x).
  Now a whole ``step=``/``steps=`` that never goes back as a new epoch begins is the step
  (lightning.Bars._counts_run); one that does is the epoch's count, and the bar's count
  stands from there on.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults


def _tqdm_num(number: float) -> str:
    """tqdm's ``format_num`` (tqdm/std.py): ``'{0:.3g}'`` where that is shorter."""
    short = f"{number:.3g}".replace("+0", "+").replace("-0", "-")
    return short if len(short) < len(str(number)) else str(number)


def _lightning_num(number: float) -> str:
    """Lightning 2.x's ``Tqdm.format_num`` (lightning/pytorch/callbacks/progress/
    tqdm_progress.py): tqdm's, a float padded to five characters (``120.0``, ``nan.0``)."""
    text = _tqdm_num(number)
    if "e" not in text:
        if "." not in text and len(text) < 5:
            text += "."
        text += "0" * (5 - len(text))
    return text


def _bar(desc: str, done: int, total: int, postfix: str, unit: str = "it") -> str:
    """tqdm's default ``{l_bar}{bar}{r_bar}``: ``{desc}: {percentage:3.0f}%|{bar}|
    {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]``."""
    percent = 100 * done // total
    fill = "#" * (percent // 10)
    return (f"{desc}: {percent:3d}%|{fill:10s}| {done}/{total} [01:23<01:40,  5.44{unit}/s, "
            f"{postfix}]")


def _matcha(nan_from: int | None = None, epochs: int = 6, batches: int = 100,
            accumulate: int = 4, first_epoch: int = 0) -> list[str]:
    """Matcha-TTS under lightning-hydra-template: its ``[%(asctime)s][%(name)s][%(levelname)s]
    - %(message)s`` records, then Lightning 2.x's bar every 10 batches with what
    ``training_step`` logs with ``prog_bar=True`` (matcha/models/baselightningmodule.py:
    ``step`` = the global step as a float, ``loss/train`` on step and epoch); the global step
    is the batches over ``accumulate`` (``trainer.accumulate_grad_batches``); an excerpt from
    epoch ``first_epoch`` on; NaN from global step ``nan_from`` on."""
    lines = ["[2024-02-01 10:00:00,100][matcha.utils.utils][INFO] - Enforcing tags! <cfg.extras"
             ".enforce_tags=False>",
             "[2024-02-01 10:00:01,200][__main__][INFO] - Instantiating model <matcha.models."
             "matcha_tts.MatchaTTS>",
             "[2024-02-01 10:00:02,300][__main__][INFO] - Starting training!"]
    for epoch in range(first_epoch, first_epoch + epochs):
        for done in range(10, batches + 1, 10):
            step = (epoch * batches + done) // accumulate
            loss = float("nan") if nan_from is not None and step >= nan_from else 3.2 / (
                1 + step / 500)
            postfix = (f"v_num=2, step={_lightning_num(float(step))}, "
                       f"loss/train_step={_lightning_num(loss)}")
            if epoch:
                postfix += f", loss/train_epoch={_lightning_num(3.3 / (1 + epoch))}"
            lines.append(_bar(f"Epoch {epoch}", done, batches, postfix))
    return lines


def test_matcha_logged_step_under_accumulation(tmp_path: Path) -> None:
    """Before: AMP006 at 480, the bar's batch count (epoch 4, batch 80), under
    ``accumulate_grad_batches=4``; now at global step 120, the ``step=120.0`` the bar shows."""
    assert faults(tmp_path, _matcha(120)) == [("AMP006", 120)]
    assert faults(tmp_path, _matcha(75, accumulate=2, batches=60)) == [("AMP006", 75)]
    # from 10000 on tqdm writes some steps ``'{:.3g}'`` (``step=1.2e+4``), each one from
    # 100000 on: still the step (to 3 digits), not the count 48000
    assert faults(tmp_path, _matcha(12000, first_epoch=476)) == [("AMP006", 12000)]


def test_matcha_controls(tmp_path: Path) -> None:
    """Healthy: accumulation over 4 and 2 batches, a short epoch, an excerpt of a long run
    (passes on the parent)."""
    assert faults(tmp_path, _matcha()) == []
    assert faults(tmp_path, _matcha(accumulate=2, batches=60, epochs=9)) == []
    assert faults(tmp_path, _matcha(first_epoch=476, epochs=8)) == []


def _diffsinger(nan_from: int | None = None, epochs: int = 4, batches: int = 300,
                summary: bool = True, check_every: int = 500) -> list[str]:
    """MoonInTheRiver/DiffSinger's own trainer (utils/pl_utils.py): the main bar (``desc=
    f'Epoch {epoch + 1}'``, ``unit='batch'``) set every batch (here every 20) to
    ``set_postfix(**training_tqdm_dict)``, which tqdm sorts: the task's loss terms
    (tasks/base_task.py ``training_step``: ``progress_bar_log = log_outputs``; DiffSinger's
    ``mel``, ``pdur``, ``wdur``, ``sdur``, ``f0``, ``uv``, ``batch_size``, ``lr``) and
    ``'step': '{}'.format(self.global_step)``; the ``Validating`` bar and ``valid results:``
    every ``check_every`` steps (``val_check_interval``); ``on_epoch_end``'s summary of the
    epoch's meters (a NaN term left out of its meter, ``total_loss`` not). NaN ``mel`` from
    global step ``nan_from`` on."""
    lines: list[str] = ["| Hparams chains:  ['configs/config_base.yaml', 'usr/configs/"
                        "popcs_ds_beta6.yaml']", "| model Trainable Parameters: 26.744M"]
    step, bad = 0, False
    for epoch in range(epochs):
        for done in range(20, batches + 1, 20):
            step = epoch * batches + done
            bad = nan_from is not None and step >= nan_from
            terms = {"batch_size": 48, "f0": 0.0712 + step / 1e6, "lr": 0.0004 * 0.98 ** (
                step // 100), "mel": float("nan") if bad else 0.35 - step / 10000,
                "pdur": 0.0456, "sdur": 0.0234, "step": str(step), "uv": 0.0234, "wdur": 0.123}
            postfix = ", ".join(f"{key}={_tqdm_num(value) if isinstance(value, float) else value}"
                                for key, value in sorted(terms.items()))
            lines.append(_bar(f"Epoch {epoch + 1}", done, batches, postfix, unit="batch"))
            if step % check_every == 0:
                lines += [_bar("Validating", n, 4, "", unit="batch")[:-3] + "]"
                          for n in (2, 4)]
                total = "nan" if bad else f"{0.52 - step / 20000:.4f}"
                lines += ["", "==============", f" valid results: {{'total_loss': {total}, "
                          f"'mel': {total}, 'pdur': 0.0512, 'f0': 0.0801}}", "==============", ""]
        if summary:
            meters = {"mel": round(0.36 - step / 10000, 4), "pdur": 0.0456, "wdur": 0.123,
                      "sdur": 0.0234, "f0": 0.0712, "uv": 0.0234, "batch_size": 47.9,
                      "total_loss": float("nan") if bad else round(0.61 - step / 10000, 4)}
            lines += ["", "==============", f" Epoch {epoch} ended. Steps: {step}. {meters}",
                      "==============", ""]
    return lines


def test_diffsinger_loss_terms_on_bar(tmp_path: Path) -> None:
    """Before: AMP006 at 900, the next epoch summary's step (the bar's ``mel=nan`` was read
    as nothing); an excerpt of bars alone was "nothing to diagnose". Now the NaN term on the
    bar, at its ``step=700``; the validation after it NaN too (AMP013)."""
    assert faults(tmp_path, _diffsinger(700)) == [("AMP006", 700), ("AMP013", 1000)]
    assert faults(tmp_path, _diffsinger(700, summary=False)) == [
        ("AMP006", 700), ("AMP013", 1000)]
    assert faults(tmp_path, _diffsinger(1460, batches=400, check_every=700)) == [
        ("AMP006", 1460)]


def test_diffsinger_controls(tmp_path: Path) -> None:
    """Healthy: validation every 500 and 700 steps, 300 and 400 batches an epoch (passes on
    the parent)."""
    assert faults(tmp_path, _diffsinger()) == []
    assert faults(tmp_path, _diffsinger(batches=400, check_every=700, epochs=6)) == []


def test_unnamed_rates_on_a_bar_stay_silent(tmp_path: Path) -> None:
    """A bar that names no loss and shows a rate a batch left undefined (torchmetrics' AUROC
    of a one-class batch, an F1 with no positive; a word error rate over an empty reference, a
    class mean of absent classes, an explained variance of constant returns), an fp16 step's
    infinite grad norm (``gn``)
    and a first interval's infinite speed beside a loop's own loss lines: no NaN loss (a
    control; the WER, mIoU and explained variance were AMP006 before they were listed)."""
    lines: list[str] = []
    for step in range(20, 801, 20):
        rates = "nan.0" if step % 60 == 0 else _lightning_num(0.5 + step / 4000)
        norm = "inf" if step % 100 == 0 else _lightning_num(0.8 + step / 1000)
        postfix = (f"v_num=5, train_auroc={rates}, train_f1={rates}, train_acc=0.750, "
                   f"train_wer={rates}, train_miou={rates}, explained_variance={rates}, "
                   f"gn={norm}, tok/s={'inf' if step == 20 else '1.2e+4'}")
        epoch = (step - 1) // 200
        lines += [_bar(f"Epoch {epoch}", step - epoch * 200, 200, postfix),
                  f"step {step} loss {1.2 - step / 2000:.4f} lr 0.0003"]
    assert faults(tmp_path, lines) == []


def _openvpi(nan_from: int | None = None, accumulate: int = 4, batches: int = 400,
             epochs: int = 5) -> list[str]:
    """openvpi/DiffSinger under Lightning 2.x: ``training_step`` logs the loss terms,
    ``batch_size`` and ``lr`` with ``prog_bar=True`` (basics/base_task.py; the acoustic
    task's ``aux_mel_loss`` and ``mel_loss``, training/acoustic_task.py), and its
    ``DsTQDMProgressBar`` (utils/training_utils.py ``get_metrics``) drops ``v_num``, adds
    ``steps = str(trainer.global_step)`` and writes a float in [0.001, 10) with
    ``np.format_float_positional(v, precision=5)``, a NaN as ``nan``; the global step is the
    batches over ``accumulate_grad_batches``. NaN from global step ``nan_from`` on."""
    lines: list[str] = []
    for epoch in range(epochs):
        for done in range(20, batches + 1, 20):
            step = (epoch * batches + done) // accumulate
            bad = nan_from is not None and step >= nan_from
            aux, mel = ("nan", "nan") if bad else (f"{0.04 - step / 1e6:.5f}".rstrip("0"),
                                                   f"{0.05 - step / 1e6:.5f}".rstrip("0"))
            lines.append(_bar(f"Epoch {epoch}", done, batches,
                              f"aux_mel_loss={aux}, mel_loss={mel}, batch_size=12, "
                              f"lr=0.0004, steps={step}"))
    return lines


def test_openvpi_steps_under_accumulation(tmp_path: Path) -> None:
    """Before: AMP006 at 1200 (the bar's count: epoch 2, batch 400 of 400); now at 300, the
    ``steps=`` the bar shows, which never went back as an epoch began. (Without accumulation,
    ``accumulate=1``, the count is the step: right before too.)"""
    assert faults(tmp_path, _openvpi(300)) == [("AMP006", 300)]
    assert faults(tmp_path, _openvpi(130, accumulate=2, batches=300)) == [("AMP006", 130)]
    assert faults(tmp_path, _openvpi(1300, accumulate=1)) == [("AMP006", 1300)]


def test_epoch_count_in_postfix_is_not_the_step(tmp_path: Path) -> None:
    """A loop's own bar (``tqdm(loader, desc=f"Epoch {epoch}")``, ``set_postfix(loss=...,
    step=i + 1)``) whose ``step=`` counts the epoch's batches: it goes back as epoch 1 begins,
    and the bar's count numbers the steps (a control: passes on the parent)."""
    lines = []
    for epoch in range(4):
        for done in range(25, 501, 25):
            step = epoch * 500 + done
            loss = "nan" if step >= 1650 else _tqdm_num(2.0 - step / 2000)
            lines.append(_bar(f"Epoch {epoch}", done, 500, f"loss={loss}, step={done}"))
    assert faults(tmp_path, lines) == [("AMP006", 1650)]


def test_openvpi_controls(tmp_path: Path) -> None:
    """Healthy: accumulation over 4 batches and none (passes on the parent)."""
    assert faults(tmp_path, _openvpi()) == []
    assert faults(tmp_path, _openvpi(accumulate=1, batches=300)) == []


def _reset_bars(nan_from: int | None = None, epochs: int = 4, batches: int = 20) -> list[str]:
    """Lightning 2.x's training bar in a file, each epoch begun by the bar's reset drawn under
    the last epoch's label (lightning ``TQDMProgressBar.on_train_epoch_start``: ``reset(total)``
    redraws ``Epoch 0: 0%| 0/20`` with the last postfix, then ``set_description``)."""
    lines: list[str] = []
    postfix = "v_num=3"
    for epoch in range(epochs):
        if epoch:
            lines.append(_bar(f"Epoch {epoch - 1}", 0, batches, postfix))
        for done in range(4, batches + 1, 4):
            step = epoch * batches + done
            loss = math.nan if nan_from is not None and step >= nan_from else 2.0 - step / 100
            postfix = f"v_num=3, train_loss={_lightning_num(loss)}"
            lines.append(_bar(f"Epoch {epoch}", done, batches, postfix))
    return lines


def test_a_bar_reset_as_an_epoch_begins_is_no_step(tmp_path: Path) -> None:
    """A new user's Lightning run: the reset bar of each new epoch (``0/20`` under the last
    epoch's label) was read as a step 0 in the middle of the run (the timeline went back to 0
    and counted 110 steps for 80)."""
    result = diagnose_lines(tmp_path, _reset_bars())
    steps = [p[0] for p in result.timeline.points]
    assert steps == sorted(steps) and 0 not in steps and result.faults == []
    assert faults(tmp_path, _reset_bars(44)) == [("AMP006", 44)]
