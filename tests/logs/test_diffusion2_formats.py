"""Diffusion and video-generation fine-tuning in their newest releases: excerpts written from
each tool's own format strings (each names its source), a fault beside healthy controls.

- OneTrainer (Nerogar/OneTrainer ``modules/trainer/GenericTrainer.py``, ``train``, 2025-2026):
  the step bar is ``tqdm(data_loader, desc="step", total=..., initial=epoch_step)`` with
  ``step_tqdm.set_postfix({'loss': ..., 'smooth loss': ...})`` after each optimizer step; the
  newest release checks ``math.isnan(accumulated_loss_cpu)`` first and raises
  ``RuntimeError("Training loss became NaN. ...")``, so the bar never shows the NaN (a row in
  ``logs/messages.py``). tqdm over an iterable counts a batch once it is done: while batch
  ``global_step`` runs, the bar shows ``global_step``, and the NaN step is the last count;
- kohya-ss/sd-scripts (``train_network.py``, 2025-2026; kohya-ss/musubi-tuner's
  ``src/musubi_tuner/training/trainer_base.py`` prints the same bar): ``tqdm(desc="steps")``
  with ``set_postfix(**{**max_mean_logs, **logs})`` (``Keys Scaled`` and ``Average key norm``
  under ``--scale_weight_norms``, tqdm sorting the keyword keys), and the validation bars of
  ``--validate_every_n_steps`` / each epoch: ``tqdm(desc="validation steps")`` and
  ``desc="epoch validation steps"`` with ``set_postfix({"val_avg_loss": ..., "timestep":
  ...})`` (an ordered dict: printed in its order), four timesteps per validation batch;
- ostris/ai-toolkit (``jobs/process/BaseSDTrainProcess.py``, ``run``): ``ToolkitProgressBar(
  desc=self.job.name, initial=self.step_num)`` and ``set_postfix_str(f"lr: {lr:.1e}" + "
  {key}: {value:.3e}" ...)``; its guard in ``extensions_built_in/sd_trainer/SDTrainer.py``
  (``train_single_accumulation``) prints ``loss is nan`` and trains on a zero loss;
- LeRobot's newest loop (huggingface/lerobot ``src/lerobot/scripts/lerobot_train.py``,
  ``src/lerobot/utils/logging_utils.py``): the tracker's row with its new meters and the
  policy's own losses, and the held-out evaluation's ``step {step}: eval_loss={:.4f}``.

Right on the parent, no test: hpcaitech/Open-Sora 2.0 (``scripts/diffusion/train.py``:
``tqdm(desc=f"Epoch {epoch}")`` with ``set_postfix({"loss", "global_grad_norm", "step",
"global_step", "lr"})``, with gradient accumulation and ``log_every``), kohya-ss/musubi-tuner
(the sd-scripts bar), SimpleTuner's newest ``Non-finite training loss detected (loss=nan,
...)`` (its bar is updated before the postfix: the step after the last count is right).

Left as they are (no test): ai-toolkit's ``loss is nan`` is printed while the bar shows the
step's own ``step_num`` (the bar is updated after ``set_postfix_str``), but a bare ``loss is
nan`` line is read as a loop's step-less NaN, placed at the step after the last count read
(one past ai-toolkit's ``step_num``); a row for so generic a text would move every loop's
``loss is nan`` (most print it before their own step line). musubi-tuner's cache writer
(``dataset/cache_io.py``: ``{key} tensor has NaN: {item}, replace NaN with 0``) runs before
training and names no step: no fault to place. sd-scripts' ``NaN found in latents, replacing
with zeros`` (``sdxl_train.py``, ``sd3_train.py``, ``flux_train.py``... when latents are not
cached: the fp16 VAE overflowed) and ``NaN found in noisy_model_input`` / ``in context`` are
silent: the loss stays finite (the tensor is zeroed), and the catalog has no id for a repaired
non-finite activation (AMP006 says the loss is NaN); a catalog entry is the lead's call.
lucidrains/DALLE2-pytorch (``train_decoder.py``, last release 2023): its training dicts
(``{'Epoch': 1, ..., 'Step': 300, ..., 'Unet 0 Training Loss': nan}`` through
``ConsoleTracker.log``'s ``print``) are read right, but its validation prints ``Epoch
{epoch}/{epochs} Val Step {i} -  Sample {n} - {rate:.2f} samples/sec`` over ``Loss:
{tensor}`` (``Loss: tensor([nan], device='cuda:0')``): the ``Val Step`` line holds no
prefilter keyword (the budget of 40 is spent), so the reader sees the ``Loss:`` lines alone
and a validation NaN is reported as the training loss's (AMP006 at the epoch's end) beside
the AMP013 of the ``Unet 0 Validation Loss`` dict. modelscope/DiffSynth-Studio (Wan, FLUX,
Qwen-Image training: ``diffsynth/diffusion/runner.py``) prints a bare ``tqdm(dataloader)``
and no loss: nothing to read.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from excerpts import faults, lerobot_number

NAN = math.nan


def _format_num(value: float | int) -> str:
    """tqdm's ``format_num``: three significant digits, or ``str`` where that is shorter."""
    if isinstance(value, int):
        return str(value)
    short = f"{value:.3g}".replace("e+0", "e+").replace("e-0", "e-")
    return short if len(short) < len(str(value)) else str(value)


def _bar(desc: str, count: int, total: int, postfix: str) -> str:
    return (f"{desc}: {count * 100 // total:3d}%|#2        | {count}/{total} "
            f"[01:00<07:20,  2.00it/s, {postfix}]")


# -- OneTrainer: modules/trainer/GenericTrainer.py (the newest release raises on a NaN) ------

def _onetrainer(nan_at: int | None, steps: int = 600, accumulation: int = 1) -> list[str]:
    """The bar over the data loader: ``set_postfix`` after each optimizer step (every
    ``accumulation`` batches) draws the count of batches done; the iteration redraws the count
    plus one with the same postfix. At ``nan_at`` the run raises before any postfix."""
    rng = random.Random(3)
    segments = ["step:   0%|          | 0/1000 [00:00<?, ?it/s]"]
    loss = smooth = 0.0
    for batch in range(steps):
        if batch == nan_at:
            break
        if (batch + 1) % accumulation == 0:
            loss = rng.uniform(0.02, 0.3)
            smooth = smooth * 0.99 + loss * 0.01 if smooth else loss
        postfix = f"loss={_format_num(loss)}, smooth loss={_format_num(smooth)}"
        segments.append(_bar("step", batch, 1000, postfix))
        segments.append(_bar("step", batch + 1, 1000, postfix))
    lines = ["epoch:   0%|          | 0/10 [00:00<?, ?it/s]", "\r".join(segments)]
    if nan_at is not None:
        message = ("Training loss became NaN. This may be due to invalid parameters, precision "
                   "issues, or a bug in the loss computation.")
        lines += ["Traceback (most recent call last):",
                  '  File "/workspace/OneTrainer/scripts/train.py", line 53, in main',
                  "    trainer.train()",
                  '  File "/workspace/OneTrainer/modules/trainer/GenericTrainer.py", line 801, '
                  "in train",
                  f'    raise RuntimeError("{message}")',
                  f"RuntimeError: {message}"]
    return lines


def test_onetrainer_raised_nan_is_the_last_count(tmp_path: Path) -> None:
    """Before: the raise's text was read as a step-less loop line ``loss ... NaN`` and placed
    at the step after the bar's last count (438): the bar already counts the failing batch's
    ``global_step`` (437), so the row in ``messages.py`` places it there."""
    assert faults(tmp_path, _onetrainer(437)) == [("AMP006", 437)]


def test_onetrainer_controls(tmp_path: Path) -> None:
    """Healthy runs, one optimizer step a batch and gradient accumulation over 4 (pass on the
    parent too)."""
    assert faults(tmp_path, _onetrainer(None)) == []
    assert faults(tmp_path, _onetrainer(None, accumulation=4)) == []


# -- kohya-ss/sd-scripts: train_network.py (validation bars, --scale_weight_norms) -----------

def _sd_scripts(*, nan_from: int | None = None, val_nan_from: int | None = None,
                norms: bool = False, every: int = 100) -> list[str]:
    """The training bar (``avr_loss``, a moving average: NaN from ``nan_from`` on) and, every
    ``every`` steps, a validation bar over 2 batches x 4 timesteps."""
    rng = random.Random(1)
    lines, segments = ["", "epoch 1/10", ""], []
    for step in range(1, 600):
        avr = NAN if nan_from is not None and step >= nan_from else 0.1 + rng.uniform(-.01, .01)
        postfix = f"avr_loss={_format_num(avr)}"
        if norms:
            postfix = f"Average key norm={_format_num(0.0123)}, Keys Scaled=0, {postfix}"
        segments.append(_bar("steps", step, 1000, postfix))
        if step % every == 0:
            lines.append("\r".join(segments))
            segments = []
            val = NAN if val_nan_from is not None and step >= val_nan_from else 0.112
            lines.append("\r".join(
                _bar("validation steps", i, 8,
                     f"val_avg_loss={_format_num(val)}, timestep={timestep}")
                for i, timestep in enumerate([200, 400, 600, 800] * 2, 1)))
    lines.append("\r".join(segments))
    return lines


def test_sd_scripts_validation_bar_nan_is_evaluation(tmp_path: Path) -> None:
    """``val_avg_loss=nan`` on the validation bar after step 300 is an evaluation's NaN, the
    training bar staying finite (right on the parent too: kept because no test held the
    validation bars)."""
    assert faults(tmp_path, _sd_scripts(val_nan_from=300)) == [("AMP013", 300)]


def test_sd_scripts_controls(tmp_path: Path) -> None:
    """Healthy runs: validation every 100 and every 50 steps, and ``--scale_weight_norms``'s
    ``Keys Scaled=0`` and ``Average key norm`` beside ``avr_loss`` (pass on the parent too);
    a training NaN under ``--scale_weight_norms`` is read at its count."""
    assert faults(tmp_path, _sd_scripts()) == []
    assert faults(tmp_path, _sd_scripts(every=50)) == []
    assert faults(tmp_path, _sd_scripts(norms=True)) == []
    assert faults(tmp_path, _sd_scripts(nan_from=350, norms=True)) == [("AMP006", 350)]


# -- ostris/ai-toolkit: jobs/process/BaseSDTrainProcess.py (set_postfix_str) -----------------

def _ai_toolkit(nan_from: int | None = None, *, prodigy: bool = False) -> list[str]:
    """``{job name}: NN%|...| n/N [..., lr: 1.0e-04 loss: 1.234e-01]``: the postfix drawn at
    the step's own count, then the update to the next count."""
    rng = random.Random(1)
    segments = []
    for step in range(1200):
        loss = NAN if nan_from is not None and step >= nan_from else rng.expovariate(3.0)
        lr = 1e-6 if prodigy else 1e-4  # Prodigy: the bar shows d * lr, 1e-06 * 1.0 at first
        postfix = f"lr: {lr:.1e} loss: {loss:.3e}"
        segments.append(_bar("my_first_flux_lora_v1", step, 2000, postfix))
        segments.append(_bar("my_first_flux_lora_v1", step + 1, 2000, postfix))
    return ["Generating baseline samples before training", "\r".join(segments)]


def test_ai_toolkit_bar_nan_is_read(tmp_path: Path) -> None:
    """``loss: nan`` in ai-toolkit's ``set_postfix_str`` (``key: value`` cells, no ``=``) is
    found (right on the parent too: kept because no test held the layout)."""
    assert faults(tmp_path, _ai_toolkit(700)) == [("AMP006", 700)]


def test_ai_toolkit_controls(tmp_path: Path) -> None:
    """Healthy runs, AdamW and Prodigy (``lr: 1.0e-06``, its ``d * lr``) (pass on the parent
    too)."""
    assert faults(tmp_path, _ai_toolkit()) == []
    assert faults(tmp_path, _ai_toolkit(prodigy=True)) == []


# -- LeRobot (newest): src/lerobot/scripts/lerobot_train.py, src/lerobot/utils/logging_utils.py

def _lerobot(*, nan_from: int | None = None, eval_nan_from: int | None = None,
             steps: int = 6000, every: int = 200, eval_every: int = 1000) -> list[str]:
    """``logging.info(train_tracker)`` every ``log_freq`` steps: the newest tracker adds
    ``prep_s``, ``step_s``, ``smp/s``, ``mem_gb`` and the policy's own losses (ACT's
    ``l1_loss``, ``kld_loss``: ``update_metrics``, ``:.3f``) after the meters; with
    ``eval_steps`` and an eval loader, ``logging.info(f"step {step}: eval_loss={eval_loss:.4f}")``.
    The prefix is ``init_logging``'s ``"%(levelname)s %(asctime)s %(lerobot_location)15s
    %(message)s"`` (the path's last 15 characters)."""
    lines = ["INFO 2026-08-01 10:00:00 ot_train.py:443 Creating dataset",
             "INFO 2026-08-01 10:00:02 ot_train.py:722 Start offline training on a fixed "
             "dataset, with effective batch size: 8"]
    for step in range(every, steps + 1, every):
        bad = nan_from is not None and step >= nan_from
        loss, grdn = (NAN, NAN) if bad else (5 / (1 + step / 500), 40 / (1 + step / 1000))
        samples = step * 8
        lines.append(f"INFO 2026-08-01 10:00:00 ot_train.py:771 step:{lerobot_number(step)} "
                     f"smpl:{lerobot_number(samples)} ep:{lerobot_number(samples / 400)} "
                     f"epch:{samples / 20000:.2f} loss:{loss:.3f} grdn:{grdn:.3f} "
                     f"lr:{1e-5:0.1e} data_s:0.003 prep_s:0.001 updt_s:0.112 step_s:0.120 "
                     f"smp/s:67 mem_gb:12.34 l1_loss:{loss:.3f} kld_loss:0.021")
        if step % eval_every == 0:
            value = NAN if eval_nan_from is not None and step >= eval_nan_from else 0.3
            lines += [f"INFO 2026-08-01 10:00:00 ot_train.py:802 step {step}: "
                      f"eval_loss={value:.4f}",
                      f"INFO 2026-08-01 10:00:00 ot_train.py:810 Checkpoint policy after step "
                      f"{step}"]
    return lines


def test_lerobot_eval_loss_line_is_evaluation(tmp_path: Path) -> None:
    """The newest ``step {step}: eval_loss=nan`` is an evaluation's NaN at its step, and the
    tracker's row with the new meters still gives the training NaN its step (right on the
    parent too: kept because no test held the newest tracker row or the eval line)."""
    assert faults(tmp_path, _lerobot(eval_nan_from=3000)) == [("AMP013", 3000)]
    assert faults(tmp_path, _lerobot(nan_from=2600)) == [("AMP006", 2600)]


def test_lerobot_newest_controls(tmp_path: Path) -> None:
    """Healthy runs, evaluation every 1000 and every 200 steps (pass on the parent too)."""
    assert faults(tmp_path, _lerobot()) == []
    assert faults(tmp_path, _lerobot(eval_every=200)) == []
