"""Diffusion fine-tuning, audio generation and JAX trainers: excerpts written from each tool's
own format strings (each names its source), a fault beside healthy controls.

- a tqdm bar that knows no total (Lightning's TQDMProgressBar over an iterable without a
  length: stable-audio-tools' WebDataset loaders, Stability-AI/stable-audio-tools
  ``train.py`` and ``stable_audio_tools/training/diffusion.py``, ``self.log_dict(log_dict,
  prog_bar=True, on_step=True)`` with ``train/loss``, ``train/std_data``, ``train/lr`` and a
  ``train/{loss_name}`` per loss): tqdm's ``format_meter`` prints ``{n}{unit} [{elapsed},
  {rate}{postfix}]``, no bar and no total;
- Flax's imagenet example (google/flax ``examples/imagenet/train.py``): with
  ``half_precision`` on a GPU the step runs under ``flax/training/dynamic_scale.py``'s
  ``DynamicScale`` (65536 at first, halved on non-finite gradients, doubled after 2000
  finite ones) and ``metrics['scale'] = dynamic_scale.scale``; every ``log_every_steps`` the
  metrics are averaged (``x.mean()``) and written with ``writer.write_scalars(step + 1,
  summary)``, which CLU's ``LoggingWriter`` (google/CommonLoopUtils
  ``clu/metric_writers/logging_writer.py``) logs as ``[%d]%s %s`` of ``{k}={v}`` sorted
  (``{v:.6g}`` for a Python float, ``{v}`` for numpy's: ``train_scale=2621.43994140625``);
- optax's ``apply_if_finite`` (google-deepmind/optax ``optax/transforms/_conditionality.py``
  ``ApplyIfFiniteState``: ``notfinite_count``, ``last_finite``, ``total_notfinite``) whose
  ``total_notfinite`` a JAX loop logs beside its loss through the same writer;
- big_vision (google-research/big_vision ``big_vision/train.py``): its run stops with
  ``{k} became nan or inf somewhere within steps [a, b]`` after a logging step whose
  ``training_loss`` or ``l2_grads`` is not finite (rows in ``logs/messages.py``);
- controls that the doctor already read right (they pass on the parent too): huggingface
  diffusers' example scripts (``examples/text_to_image/train_text_to_image.py``,
  ``examples/dreambooth/train_dreambooth.py``: ``tqdm(..., desc="Steps")`` and
  ``progress_bar.set_postfix(**logs)``, tqdm sorting the keys and formatting numbers with
  ``format_num``), SimpleTuner's bar (bghira/SimpleTuner
  ``simpletuner/helpers/training/trainer.py``: ``desc=f"Epoch {first_epoch}/{epochs}
  Steps"``, ``step_loss``, ``lr``, Prodigy's ``prodigy_d``, ``v_loss``/``a_loss`` of audio-video
  models) and audiocraft's EnCodec solver (facebookresearch/audiocraft
  ``audiocraft/solvers/compression.py``: ``d_loss``, ``g_loss`` and their terms, no total,
  through flashy's ``LogProgressBar``, default format ``.3f``).

Left as they are (no test): transformers' Flax examples (``run_mlm_flax.py``) put the
evaluation's ``Step... ({step} | Loss: {loss}, Acc: {acc})`` in the epoch bar's description,
the same shape as the training line ``Step... ({step} | Loss: ..., Learning Rate: ...)``: an
evaluation NaN there is read as the training loss's (AMP006, not AMP013). audiocraft's flashy
bar prints each metric's running mean over the epoch, ``grad_scale`` too: a collapse that
begins mid-epoch pulls the mean down by no power of two (65536, 49193, 39354) and is
reported where the next epoch's mean is 0.000 (AMP004 at that row). A run's own stop that
names no step (scenic's ``TrainingDivergedError``, audiocraft's ``Model probably diverged.``)
is placed at the last step the log showed; SimpleTuner's ``Non-finite training loss detected
(loss=nan, ...)`` is left to the generic reader, which places it at the step after (the bar
shows each step).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
from excerpts import faults

NAN = math.nan


def _format_num(value: float) -> str:
    """tqdm's ``format_num``: three significant digits, or ``str`` where that is shorter."""
    short = f"{value:.3g}".replace("+0", "+").replace("-0", "-")
    return short if len(short) < len(str(value)) else str(value)


# -- stable-audio-tools: Lightning's bar over an iterable without a length ----------------------

def _open_bar(counts: list[tuple[int, int]], nan_from: int | None = None) -> list[str]:
    """One bar line per (epoch, batch), every batch printed; the loss is NaN from the run's
    step ``nan_from`` on (the batches of the epochs before plus the batch)."""
    rng = random.Random(3)
    lines = ["GPU available: True (cuda), used: True",
             "  | Name      | Type                       | Params",
             "0 | diffusion | ConditionedDiffusionModelWrapper | 1.2 B"]
    for run_step, (epoch, batch) in enumerate(counts, start=1):  # a line a batch
        loss = NAN if nan_from is not None and run_step >= nan_from else rng.uniform(0.1, 0.9)
        postfix = {"v_num": "a1b2", "train/loss": loss, "train/std_data": 0.912,
                   "train/lr": 4e-5, "train/mse": loss}
        cells = ", ".join(f"{k}={v if isinstance(v, str) else _format_num(v)}"
                          for k, v in postfix.items())
        minutes, seconds = divmod(batch // 2, 60)
        lines.append(f"Epoch {epoch}: {batch}it [{minutes:02d}:{seconds:02d},  2.00it/s, {cells}]")
    return lines


def _one_epoch(last: int) -> list[tuple[int, int]]:
    return [(0, batch) for batch in range(1, last + 1)]


def test_a_bar_without_a_total_counts_its_batches(tmp_path: Path) -> None:
    """Before: ``1777it [14:37`` was read as a key ``it`` (a step name) worth 14, the elapsed
    minutes: the NaN at step 1777 was reported at step 14."""
    assert faults(tmp_path, _open_bar(_one_epoch(2500), nan_from=1777)) == [("AMP006", 1777)]
    # epochs of 1200 batches (the bar starts over with each): epoch 1's batch 300 is step 1500
    counts = [(epoch, batch) for epoch in range(3) for batch in range(1, 1201)]
    assert faults(tmp_path, _open_bar(counts, nan_from=1500)) == [("AMP006", 1500)]


def test_a_bar_without_a_total_controls(tmp_path: Path) -> None:
    """Healthy runs, one epoch and several, and a bar in seconds per batch (pass on the
    parent too)."""
    assert faults(tmp_path, _open_bar(_one_epoch(2500))) == []
    counts = [(epoch, batch) for epoch in range(3) for batch in range(1, 1201)]
    assert faults(tmp_path, _open_bar(counts)) == []
    slow = [line.replace(" 2.00it/s", " 3.21s/it") for line in _open_bar(_one_epoch(800))]
    assert faults(tmp_path, slow) == []


# -- Flax imagenet: DynamicScale's scale averaged over each logging window ---------------------

_CLU = "I1206 10:01:00.000000 140 logging_writer.py:48] "


def _clu_line(step: int, scalars: dict[str, float | np.floating]) -> str:
    # LoggingWriter.write_scalars: sorted keys; a Python float ".6g", numpy's scalars "{v}"
    cells = [f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}"
             for k, v in sorted(scalars.items())]
    return _CLU + f"[{step}] " + ", ".join(cells)


def _flax_imagenet(*, collapse_from: int | None = None, nan_from: int | None = None,
                   overflows: tuple[int, ...] = (), every: int = 100) -> list[str]:
    """The imagenet loop with ``half_precision``: DynamicScale's defaults, the metrics of
    each ``log_every_steps`` window averaged; from ``collapse_from`` every step's gradients
    are non-finite (the scale halves each step), at ``overflows`` one step's are."""
    lines = ["I1206 10:00:00.000000 140 train.py:377] Initial compilation, this might take "
             "some minutes...",
             "I1206 10:00:30.000000 140 train.py:383] Initial compilation completed."]
    scale, finite, window = np.float32(65536.0), 0, []
    for step in range(6000):
        if (collapse_from is not None and step + 1 >= collapse_from) or step + 1 in overflows:
            scale, finite = np.float32(scale * 0.5), 0
        else:
            finite += 1
            if finite == 2000:
                scale, finite = np.float32(scale * 2.0), 0
        window.append(scale)
        if (step + 1) % every:
            continue
        bad = nan_from is not None and step + 1 >= nan_from
        lines.append(_clu_line(step + 1, {
            "train_accuracy": np.float32(0.001 + step / 1e5),
            "train_learning_rate": np.float32(0.1 * min(1.0, step / 1000)),
            "train_loss": np.float32(NAN if bad else 6.9 - step / 2000),
            "train_scale": np.float32(np.mean(window)),
            "steps_per_second": 12.345678}))
        window = []
        if (step + 1) % 2500 == 0:
            lines.append(_CLU + f"[{step + 1}] eval_accuracy=0.1234, eval_loss=5.1234")
    return lines


def test_flax_dynamic_scale_mean_collapses(tmp_path: Path) -> None:
    """Before: the window mean of a doubling scale (``66191.359375`` where it doubled at step
    2000) is no power of two, so the bare ``train_scale`` was taken for some other scale and
    left unread: the collapse from step 2302 was silent. The mean first falls by no power of
    two (``2621.44`` over a window that held 131072 and then 99 halvings); the window after
    falls by exactly a halving a step, so the streak is proven from its first step, 2401; the
    scale is below 1 from that row (2500) and at 0.0 a row later."""
    assert faults(tmp_path, _flax_imagenet(collapse_from=2302)) == [
        ("AMP003", 2401), ("AMP004", 2600), ("AMP004", 2500)]


def test_flax_dynamic_scale_controls(tmp_path: Path) -> None:
    """A healthy fp16 run (the scale's mean doubles every 2000 steps), one with a few
    overflows whose window means are no powers of two, and a NaN loss (found at its row on
    the parent too)."""
    assert faults(tmp_path, _flax_imagenet()) == []
    assert faults(tmp_path, _flax_imagenet(overflows=(1234, 3456, 3457))) == []
    assert faults(tmp_path, _flax_imagenet(overflows=(250,), every=50)) == []
    assert faults(tmp_path, _flax_imagenet(nan_from=2301)) == [("AMP006", 2400)]


# -- optax apply_if_finite: its total_notfinite on each logged row ------------------------------

def _optax(*, cascade_from: int | None = None, single: tuple[int, ...] = (),
           every: int = 100) -> list[str]:
    """A JAX loop under ``optax.apply_if_finite(opt, max_consecutive_errors)``, logging its
    state's ``total_notfinite`` (and ``notfinite_count``) with the loss through CLU."""
    lines, total, consecutive = [], 0, 0
    for step in range(1, 6001):
        if (cascade_from is not None and step >= cascade_from) or step in single:
            total, consecutive = total + 1, consecutive + 1
        else:
            consecutive = 0
        if step % every == 0:
            lines.append(_clu_line(step, {"learning_rate": 0.001, "loss": 3.0 - step / 1e4,
                                          "notfinite_count": consecutive,
                                          "total_notfinite": total}))
    return lines


def test_optax_total_notfinite_counts_skipped_updates(tmp_path: Path) -> None:
    """Before: ``total_notfinite`` named nothing the doctor knew: non-finite gradients on
    every step from 3001 (apply_if_finite dropping each update) were silent; a row's own
    cumulative count (``skipped_steps=`` too) was only compared across the whole excerpt
    (reported at its last row), never placed on the steps since the row before."""
    assert faults(tmp_path, _optax(cascade_from=3001)) == [("AMP003", 3001)]


def test_optax_total_notfinite_controls(tmp_path: Path) -> None:
    """Healthy runs: no skipped update, a few isolated ones, and a start-up back-off (jmp's
    DynamicLossScale from 2**15: the first 12 updates dropped) (pass on the parent too)."""
    assert faults(tmp_path, _optax()) == []
    assert faults(tmp_path, _optax(single=(1234, 4321, 4322), every=50)) == []
    assert faults(tmp_path, _optax(single=(*range(1, 13), 2500), every=10)) == []


# -- big_vision: one measurement a line, and the run's own stop --------------------------------
# BigVisionMetricWriter.measure (big_vision/utils.py): logging.info(f"\u001b[35m[{self.step}]
# \u001b[0m {name} = {value}"); train.py then raises f"{k} became nan or inf somewhere within
# steps [{step - get_steps('log_training')}, {step}]" for k in training_loss, l2_grads,
# l2_updates, l2_params (2024-12 on; "The loss became ..." before).

def _big_vision(last: int, every: int, nan_key: str | None = None) -> list[str]:
    lines = []
    for step in range(every, last + 1, every):
        for name in ("global_schedule", "training_loss", "l2_grads", "l2_params", "l2_updates"):
            value = {"global_schedule": 0.001, "training_loss": 3.0 - step / 1e4,
                     "l2_grads": 1.23, "l2_params": 123.4, "l2_updates": 0.01}[name]
            if name == nan_key and step == last:
                value = NAN
            lines.append(f"I0601 10:00:00.000000 139 utils.py:1277] \x1b[35m[{step}]\x1b[0m "
                         f"{name} = {float(value)}")
    if nan_key is not None:
        lines += ["Traceback (most recent call last):",
                  '  File "/big_vision/big_vision/train.py", line 460, in main',
                  f"RuntimeError: {nan_key} became nan or inf somewhere within steps "
                  f"[{last - every}, {last}]"]
    return lines


def test_big_vision_stops_on_a_non_finite_gradient_norm(tmp_path: Path) -> None:
    """Before: ``l2_grads = nan`` (one measurement a line, a key the doctor does not read as a
    loss) and the run's own ``RuntimeError: l2_grads became nan or inf ...`` were silent; the
    message's range ends at the step measured."""
    assert faults(tmp_path, _big_vision(1400, 100, "l2_grads")) == [("AMP006", 1400)]


def test_big_vision_controls(tmp_path: Path) -> None:
    """A healthy run logging every 50 steps (passes on the parent too), and a NaN training
    loss, read from its measurement line on the parent too."""
    assert faults(tmp_path, _big_vision(2000, 50)) == []
    assert faults(tmp_path, _big_vision(1400, 100, "training_loss")) == [("AMP006", 1400)]


# -- t5x: the train-eval task's collection, and TerminateOnNanAction -----------------------------
# t5x/trainer.py: the train metrics through MetricsManager("train"), each train-eval task's
# through MetricsManager(f"training_eval/{task}") (CLU's create_default_writer(collection=...)),
# TerminateOnNanAction.run's logging.warning("Requested `stop_training` in training loop
# (Details below).\n NaN encountered in metric for task : %s", task).

def _t5x(last: int, *, every: int = 100, eval_every: int = 1000, train_nan: int | None = None,
         eval_nan: int | None = None) -> list[str]:
    task = "wmt_t2t_ende_v003"
    lines = []
    for step in range(every, last + 1, every):
        loss = NAN if train_nan is not None and step >= train_nan else 3.0 - step / 1e4
        lines.append(_CLU + f"[{step}] collection=train accuracy=0.512, cross_ent_loss="
                            f"{loss:.6g}, learning_rate=0.001, loss={loss:.6g}, "
                            "timing/seconds=12.3, z_loss=0.0001")
        if step % eval_every == 0:
            bad = eval_nan is not None and step >= eval_nan
            lines.append(_CLU + f"[{step}] collection=training_eval/{task} accuracy=0.4, "
                                f"loss={NAN if bad else 2.9:.6g}")
            if bad:
                lines += ["W0601 10:00:00.000000 139 trainer.py:1278] Requested `stop_training` "
                          "in training loop (Details below).",
                          f" NaN encountered in metric for task : {task}"]
                break
    return lines


def test_t5x_train_eval_is_evaluation(tmp_path: Path) -> None:
    """Before: ``collection=training_eval/...`` named no evaluation the doctor knew: the train
    eval's NaN was a training NaN, and its bracket, a second loss at the step the train row
    had printed, turned the brackets off for the rest of the log (AMP006 at step 1012); a
    training NaN at 2500 after train-eval rows was reported at step 1017."""
    assert faults(tmp_path, _t5x(3000, eval_nan=2000)) == [("AMP013", 2000)]
    assert faults(tmp_path, _t5x(3000, train_nan=2500)) == [("AMP006", 2500)]


def test_t5x_controls(tmp_path: Path) -> None:
    """Healthy runs, train-eval every 1000 and every 250 steps (pass on the parent too)."""
    assert faults(tmp_path, _t5x(5000)) == []
    assert faults(tmp_path, _t5x(5000, every=50, eval_every=250)) == []


# -- scenic: a NaN summary raises before it is written ------------------------------------------
# classification_trainer.py: log_train_summary at step % log_summary_steps == 1, its metrics
# normalised by train_utils.normalize_metrics_summary (which raises TrainingDivergedError on a
# train NaN, logs "WARNING: Split eval ..." on an eval one) before writer.write_scalars.

def _scenic(last: int, *, every: int = 100, train_nan: bool = False,
            eval_nan_at: int | None = None) -> list[str]:
    lines = ["I0601 10:00:00.000000 139 train_utils.py:387] device_count: 8"]
    for step in range(1, last + 1, every):
        lines.append(_clu_line(step, {"train_accuracy": 0.001 + step / 1e5,
                                      "train_loss": 6.9 - step / 2000}))
        lines.append(_clu_line(step, {"l2_grads": np.float32(1.23),
                                      "learning_rate": np.float32(0.001)}))
        if step % 500 == 1:
            bad = eval_nan_at is not None and step >= eval_nan_at
            if bad:
                lines.append("E0601 10:00:00.000000 139 train_utils.py:772] WARNING: Split eval "
                             "NaN detected in eval_loss (Unnormalized values: (np.float32(nan), "
                             "np.float32(10000.0)))")
            lines.append(_clu_line(step, {"valid_accuracy": 0.3, "valid_loss": NAN if bad else
                                          5.1}))
    if train_nan:
        lines += ["Traceback (most recent call last):",
                  '  File "/scenic/scenic/train_lib/train_utils.py", line 770, in '
                  "normalize_metrics_summary",
                  "    raise TrainingDivergedError(msg)",
                  "scenic.train_lib.train_utils.TrainingDivergedError: NaN detected in train_loss "
                  "(Unnormalized values: (np.float32(nan), np.float32(1024.0)))"]
    return lines


def test_scenic_divergence_is_read(tmp_path: Path) -> None:
    """Before: the NaN summary never reaches the writer, and ``TrainingDivergedError: NaN
    detected in train_loss (...)`` was silent. The NaN came within the 100 steps after the
    last summary written (1201, finite): the step is the first of them, 1202, as for any
    message the failing step says without numbering it (the row is that step's: ``in_step``
    in messages.py). An evaluation's ``NaN detected in eval_loss`` was silent too until its
    row was written."""
    assert faults(tmp_path, _scenic(1201, train_nan=True)) == [("AMP006", 1202)]


def test_scenic_controls(tmp_path: Path) -> None:
    """A healthy run logging every 50 steps (passes on the parent too), and an evaluation's
    NaN, found on its row on the parent too."""
    assert faults(tmp_path, _scenic(3001, every=50)) == []
    assert faults(tmp_path, _scenic(3001, eval_nan_at=1001)) == [("AMP013", 1001)]


# -- controls: diffusers, SimpleTuner, audiocraft's EnCodec (right on the parent) --------------

def _steps_bar(desc: str, total: int, steps: range, postfix: dict[str, float | None],
               seed: int = 1) -> str:
    """A tqdm bar redrawn after each step behind carriage returns, as a redirected stderr
    holds it; ``None`` in ``postfix`` is the step's (noisy) diffusion loss."""
    rng = random.Random(seed)
    segments = []
    for step in steps:
        loss = rng.expovariate(10.0)
        cells = {k: (loss if v is None else v) for k, v in postfix.items()}
        text = ", ".join(f"{k}={_format_num(cells[k])}" for k in sorted(cells))
        segments.append(f"{desc}: {step * 100 // total:3d}%|\u2588\u258d        | {step}/{total} "
                        f"[01:00<07:20,  2.00it/s, {text}]")
    return "\r".join(segments)


_ACCELERATE = "12/01/2023 10:00:00 - INFO - __main__ - "


def test_diffusion_trainers_healthy_runs_are_quiet(tmp_path: Path) -> None:
    """diffusers' text_to_image (resumed at step 500, lr warming up from 0), dreambooth,
    SimpleTuner with Prodigy and an audio-video model, and audiocraft's EnCodec solver: noisy
    diffusion losses, a warm-up from 0 and validation lines between the bars (pass on the
    parent too)."""
    text_to_image = [_ACCELERATE + "***** Running training *****",
                     _ACCELERATE + "  Gradient Accumulation steps = 4",
                     "Resuming from checkpoint checkpoint-500",
                     _steps_bar("Steps", 15000, range(500, 1300), {"lr": 1e-05, "step_loss": None}),
                     _ACCELERATE + "Running validation... ",
                     " Generating 4 images with prompt: a photo of sks dog."]
    dreambooth = [_steps_bar("Steps", 800, range(0, 800), {"loss": None, "lr": 0.0})]
    prodigy = [_steps_bar("Epoch 1/10 Steps", 2500, range(1, 1500),
                          {"step_loss": None, "lr": 1.0, "prodigy_d": 1e-06,
                           "prodigy_effective_lr": 1e-06})]
    audio_video = [_steps_bar("Epoch 3/10 Steps", 2500, range(1, 1500),
                              {"step_loss": None, "lr": 1e-4, "v_loss": None, "a_loss": 0.31},
                              seed=2)]
    for lines in (text_to_image, dreambooth, prodigy, audio_video):
        assert faults(tmp_path, lines) == []
    assert faults(tmp_path, _encodec()) == []


def _encodec() -> list[str]:
    rng = random.Random(5)
    prefix = "[\x1b[36m12-01 10:00:00\x1b[0m][audiocraft.solvers.compression][INFO] - "
    lines = []
    for epoch in range(1, 4):
        for index in range(200, 2001, 200):
            d_loss, g_loss = rng.uniform(1.5, 2.5), rng.uniform(3.0, 5.0)
            metrics = {"bandwidth": 6.0, "d_loss": d_loss, "d_msstftd": d_loss,
                       "adv_msstftd": 2.5, "feat_msstftd": 0.2, "l1": 0.0412, "msspec": 0.812,
                       "g_loss": g_loss, "ratio_adv_msstftd": 0.31, "ratio_l1": 0.1,
                       "ratio2": 0.998, "mel": 1.234, "sisnr": -3.2, "adv": 2.5, "feat": 0.2}
            lines.append(prefix + f"Train | Epoch {epoch} | {index}/2000 | 2.31 it/sec | "
                         + " | ".join(f"{k} {v:.3f}" for k, v in metrics.items()))
        lines.append(prefix + f"Valid | Epoch {epoch} | 40/40 | 9.1 it/sec | bandwidth 6.000 | "
                              "l1 0.041 | msspec 0.811 | mel 1.200 | sisnr -3.100")
    return lines
