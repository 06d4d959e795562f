"""False alarms, round ten: healthy runs under unusual but legitimate settings, each excerpt
written from the tool's own format strings (each builder names its source), beside the fault
twin its rule must still catch.

- Two Megatron-LM runs in one log, the second relaunched in bf16 (NVIDIA/Megatron-LM
  ``megatron/core/optimizer/optimizer.py``: ``MixedPrecisionOptimizer.get_loss_scale``
  returns ``self._scale_one``, 1.0, where there is no grad scaler; ``training_log`` prints it
  as ``loss scale: 1.0``) or at a static ``--loss-scale 128``, its iteration counter back at
  10 (or at 2010, resumed from a checkpoint in bf16). Before: AMP003 (an error: "loss scale
  fell from 262144 to 1 (18 halvings) in 1 steps") at the second run's first row: the
  trajectory's window kept the first run's scales, numbered from the start again beside the
  second run's. Now a run begun again in the log (the assembler's ``RESTARTED``) starts a
  trajectory of its own (``ScaleCollapseDetector._trend``); a collapse within one run, or
  within the second run, is still AMP003 (the second run's now at its first skip, 1000, where
  the parent put it at 1050).
- OpenAI's guided-diffusion resumed from its checkpoint (openai/guided-diffusion
  ``guided_diffusion/train_util.py``: ``loading model from checkpoint: {path}...``, the step
  going on as ``self.step + self.resume_step``; ``fp16_util.py``: ``lg_loss_scale`` starts at
  20.0 again, not being in the checkpoint). Before: AMP003 at 8010 (the scale's logarithm
  back from 28 to 20: "8 halvings in 1 steps"). Now that line begins a run (the message
  table, ``run_start``); twenty ``Found NaN`` steps in a row, in the resumed run or alone, are
  still AMP003. Pasted without that line, the fall is read as overflow still: nothing in the
  tables tells a reset from a collapse.
- Controls (quiet on the parent 20e3164 too): the logging interval changed mid-run, a
  converged regression's loss in scientific notation (1e-7) on a loop and on Keras' bar
  (``.4e`` below 1e-3), Lightning's bar through tqdm's ``format_num`` (``1.83e-6``,
  ``1.44e+4``, ``-1.3e+4``), a curriculum's one jump that settles, a label-smoothed loss that
  plateaus at 4.1, a gradient norm far above its clip on every row (HF and Megatron),
  multi-task rows whose one task prints 0.0 where it had no batch, Keras' ``improved from inf``
  of a checkpoint's first save, NaN learning rate and momentum before the scheduler starts,
  COCO's ``-1.0000`` for an absent object size, and an evaluation-only block.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, megatron_line

# --- Megatron-LM: megatron/training/training.py ``training_log`` (excerpts.megatron_line) --


def _megatron_fp16(first: int = 10, last: int = 4000) -> list[str]:
    """An fp16 run's lines every 10 iterations: the dynamic scale doubles every 2000
    iterations from 65536 (``DynamicGradScaler``'s growth, no overflow), to 262144."""
    return [megatron_line(it, loss=3.0 - it / 2000, scale=65536.0 * 2 ** (it // 2000))
            for it in range(first, last + 10, 10)]


def _megatron_static(scale: float, first: int = 10, last: int = 4000) -> list[str]:
    """A run's lines at a scale that never moves: ``loss scale: 1.0`` in bf16 (no grad
    scaler: ``get_loss_scale`` returns ``_scale_one``), or ``--loss-scale 128``
    (``ConstantGradScaler``)."""
    return [megatron_line(it, loss=3.0 - it / 2000, scale=scale)
            for it in range(first, last + 10, 10)]


def _megatron_collapsing(at: int, first: int = 10, last: int = 4000) -> list[str]:
    """An fp16 run whose every iteration from ``at`` overflows for 180 iterations (each line
    ``number of skipped iterations: 1``, the loss stuck, the scale halved on each)."""
    out, scale = [], 65536.0
    for it in range(first, last + 10, 10):
        skipped = int(at <= it < at + 180)
        if skipped:
            scale /= 2
        out.append(megatron_line(it, loss=3.0 if skipped else 3.0 - it / 2000, scale=scale,
                                 skipped=skipped))
    return out


@pytest.mark.parametrize("second", [
    _megatron_static(1.0),  # relaunched in bf16
    _megatron_static(128.0),  # relaunched at a static --loss-scale 128
    _megatron_static(1.0, first=2010),  # resumed from iteration 2000's checkpoint in bf16
])
def test_megatron_second_run_at_a_lower_static_scale_is_quiet(tmp_path: Path,
                                                              second: list[str]) -> None:
    """Before: AMP003 at the second run's first row (10, 10 and 2010)."""
    assert faults(tmp_path, _megatron_fp16() + second) == []


def test_megatron_collapse_within_a_run_fault_twins(tmp_path: Path) -> None:
    """The twins: a run whose scale collapses under persistent overflow is still AMP003 at
    its first skip, alone or as the log's second run (the scale then under 1: AMP004), and
    a collapse from the first run's 262144 to 1 without a restart is still AMP003."""
    expected = [("AMP003", 1000), ("AMP008", 1000), ("AMP004", 1160)]
    assert faults(tmp_path, _megatron_collapsing(1000)) == expected
    assert faults(tmp_path, _megatron_fp16() + _megatron_collapsing(1000)) == expected
    falls = [megatron_line(it, loss=2.0, scale=max(262144.0 / 2 ** ((it - 4000) // 10), 1.0),
                           skipped=1) for it in range(4010, 4200, 10)]
    assert faults(tmp_path, _megatron_fp16() + falls) == [("AMP003", 4010), ("AMP008", 4010)]


# --- OpenAI's guided-diffusion: guided_diffusion/train_util.py, fp16_util.py, logger.py ------


def _table(values: dict[str, float]) -> list[str]:
    """The OpenAI logger's ``HumanOutputFormat.writekvs`` (openai/guided-diffusion
    ``guided_diffusion/logger.py``): every value with ``__float__`` (the step too) as
    ``"%-8.3g"``, the keys sorted, between dashes."""
    shown = {key: f"{value:<8.3g}" for key, value in values.items()}
    width, value_width = max(map(len, shown)), max(map(len, shown.values()))
    dashes = "-" * (width + value_width + 7)
    return [dashes, *(f"| {key}{' ' * (width - len(key))} | {value}"
                      f"{' ' * (value_width - len(value))} |" for key, value in sorted(
                          shown.items(), key=lambda item: item[0].lower())), dashes]


def _guided_diffusion(steps: range, nan_at: range | tuple[int, ...] = (),
                      resumed: bool = False) -> list[str]:
    """``TrainLoop.run_loop`` at ``--use_fp16 True --log_interval 10`` over ``steps``: the
    logger's start (``Logging to {dir}``), ``loading model from checkpoint: {path}...`` where
    ``resumed`` (``_load_and_sync_parameters``; the step printed is ``self.step +
    self.resume_step``), and ``dumpkvs`` every 10 steps of the means ``logkv_mean`` took.
    ``MixedPrecisionTrainer._optimize_fp16`` logs ``lg_loss_scale`` (20.0 at first: it is not
    in the checkpoint), then on non-finite gradients (the steps ``nan_at``) lowers it by 1
    and prints ``Found NaN, decreased lg_loss_scale to {lg}``, else raises it by 1e-3."""
    lines = ["Logging to /tmp/openai-2026-01-01-10-00-00-000000",
             "creating model and diffusion..."]
    if resumed:
        lines.append(f"loading model from checkpoint: /ckpt/model{steps.start:06d}.pt...")
    lines += ["creating data loader...", "training..."]
    lg, sums = 20.0, {}

    def mean(key: str, value: float) -> None:
        total, count = sums.get(key, (0.0, 0))
        sums[key] = (total + value, count + 1)

    for step in steps:
        loss = 0.05 * math.exp(-step / 20000) + 0.02
        mean("loss", loss)
        mean("mse", loss)
        mean("lg_loss_scale", lg)
        if step in nan_at:
            lg -= 1
            lines.append(f"Found NaN, decreased lg_loss_scale to {lg}")
        else:
            mean("grad_norm", 0.123)
            mean("param_norm", 345.6)
            lg += 1e-3
        if (step - steps.start) % 10 == 0:
            values = {key: total / count for key, (total, count) in sums.items()}
            lines += _table(values | {"step": step, "samples": (step + 1) * 64})
            sums = {}
    return lines


def test_guided_diffusion_resumed_is_quiet(tmp_path: Path) -> None:
    """A run to step 8000 (``lg_loss_scale`` grown to 28), then resumed from its checkpoint
    (the scale back at 20, the step going on). Before: AMP003 at 8010 ("loss scale fell from
    2.68435e+08 to 1.04858e+06 (8 halvings) in 1 steps")."""
    lines = _guided_diffusion(range(0, 8001)) + _guided_diffusion(range(8000, 12001),
                                                                  resumed=True)
    assert faults(tmp_path, lines) == []


def test_guided_diffusion_collapse_fault_twins(tmp_path: Path) -> None:
    """The twins: twenty non-finite steps in a row (the scale down to 2**1), in the resumed
    run or in a run alone, are still AMP003, at the first ``Found NaN``'s step: the line comes
    before its step's table, whose ``lg_loss_scale`` is still the one the line lowered
    (h48-left9; before, 9001 and 5001: the step after the table); two isolated ones are
    quiet."""
    first = _guided_diffusion(range(0, 8001))
    resumed = _guided_diffusion(range(8000, 12001), nan_at=range(9000, 9020), resumed=True)
    assert faults(tmp_path, first + resumed) == [("AMP003", 9000)]
    assert faults(tmp_path, _guided_diffusion(range(0, 8001), nan_at=range(5000, 5020))) == [
        ("AMP003", 5000)]
    assert faults(tmp_path, _guided_diffusion(range(0, 8001), nan_at=(3000, 6000))) == []


# --- Controls: healthy runs under unusual settings (quiet on the parent too) -----------------


def _loop(every: Callable[[int], str], steps: list[int]) -> list[str]:
    """A plain loop's ``print(f"epoch 1 step {step} loss {loss...} lr 0.001")``, the loss
    printed by ``every``."""
    return [f"epoch 1 step {s} loss {every(s)} lr 0.001" for s in steps]


def _interval_changed() -> list[str]:
    """The loop printing every 10 steps, then every 100 from step 1000 (``--log-every``
    raised on a resume)."""
    return _loop(lambda s: f"{3 * math.exp(-s / 800) + 0.2:.4f}",
                 [*range(10, 1000, 10), *range(1000, 5000, 100)])


def _converged_regression() -> list[str]:
    """The loop's ``{loss:.4e}`` of a regression converged to 1e-7, noise 30% of it."""
    return _loop(lambda s: f"{1.2e-7 * (1 + 0.3 * math.sin(s)):.4e}", list(range(10, 3000, 10)))


def _keras_tiny() -> list[str]:
    """Keras 2's ``Progbar.update`` (keras-team/keras ``keras/utils/generic_utils.py``:
    ``if abs(avg) > 1e-3: info += f" {avg:.4f}" else: info += f" {avg:.4e}"``) of a
    regression whose MSE falls below 1e-3."""
    out = []
    for epoch in range(1, 21):
        mse = 1e-3 * math.exp(-epoch / 2)
        out += [f"Epoch {epoch}/20",
                f"313/313 [==============================] - 1s 2ms/step - loss: {mse:.4e} - "
                f"mae: {math.sqrt(mse):.4f} - val_loss: {mse * 1.2:.4e} - val_mae: "
                f"{math.sqrt(mse * 1.2):.4f}"]
    return out


def _format_num(number: float) -> str:
    """tqdm's ``format_num`` (tqdm/tqdm ``tqdm/std.py``), which ``set_postfix`` applies to a
    number: ``'{0:.3g}'`` with ``e+0``/``e-0`` shortened, unless ``str`` is shorter."""
    short = f"{number:.3g}".replace("e+0", "e+").replace("e-0", "e-")
    return short if len(short) < len(str(number)) else str(number)


def _lightning_bar(losses: list[float]) -> list[str]:
    """Lightning's TQDMProgressBar (Lightning-AI/pytorch-lightning ``src/lightning/pytorch/
    callbacks/progress/tqdm_progress.py``: ``set_postfix`` of the ``prog_bar`` metrics, each
    through ``format_num``) refreshed every 50 of 500 batches."""
    return [f"Epoch {i // 10}: {(i % 10 + 1) * 10:3d}%|███       | {(i % 10 + 1) * 50}/500 "
            f"[00:10<00:20, 9.50it/s, v_num=3, train_loss={_format_num(loss)}]"
            for i, loss in enumerate(losses)]


def _curriculum() -> list[str]:
    """HF Trainer's ``log()`` dicts (huggingface/transformers ``src/transformers/trainer.py``)
    of a two-stage curriculum: the loss falls to 0.02 on the easy set, jumps to 3.8 once
    when the hard set comes in, and settles at 0.8."""
    return [str({"loss": round(2.0 * math.exp(-i / 5) + 0.02 if i < 50
                               else 3.0 * math.exp(-(i - 50) / 5) + 0.8, 4),
                 "grad_norm": 1.2, "learning_rate": 5e-05, "epoch": round(i * 0.05, 2)})
            for i in range(1, 100)]


def _fairseq_label_smoothed() -> list[str]:
    """fairseq's ``train_inner`` line (facebookresearch/fairseq ``fairseq/logging/
    progress_bar.py`` ``SimpleProgressBar.log``) under ``--criterion
    label_smoothed_cross_entropy --label-smoothing 0.1``: the loss plateaus at 4.1 (the
    smoothing's floor), ``nll_loss`` at 2.0."""
    return [f"2026-01-01 10:00:00 | INFO | train_inner | epoch 001:  {u:5d} / 30000 loss="
            f"{4.1 + 0.01 * ((u // 100) % 3):.3f}, nll_loss=2.0, ppl=4, wps=5000, ups=1, "
            f"wpb=4000, bsz=32, num_updates={u}, lr=0.0005, gnorm=0.5, loss_scale=64, "
            f"train_wall=20, wall={u}" for u in range(100, 20100, 100)]


def _hf_clipped() -> list[str]:
    """HF Trainer's dicts at ``max_grad_norm=1.0``: ``grad_norm`` is the norm before
    clipping (``_clip_grad_norm`` returns it), 120 to 180 on every row."""
    return [str({"loss": round(2.5 * math.exp(-i / 20) + 0.4, 4),
                 "grad_norm": round(150 + 30 * math.sin(i), 2), "learning_rate": 5e-05,
                 "epoch": round(i * 0.05, 2)}) for i in range(1, 60)]


def _megatron_clipped() -> list[str]:
    """Megatron's line at ``--clip-grad 1.0``: ``grad norm`` is the norm before clipping
    (``clip_grad_norm_fp32`` returns ``total_norm``), about 12000 on every row."""
    return [megatron_line(it, loss=3.0 - it / 20000,
                          grad_norm=f"{12345.678 + 100 * math.sin(it):.3f}")
            for it in range(100, 5000, 100)]


def _mmengine_multitask() -> list[str]:
    """mmengine's ``LogProcessor`` line (open-mmlab/mmengine ``mmengine/runner/
    log_processor.py``) of a two-task model whose depth head had no batch in one interval
    in ten (its loss ``0.0000`` there)."""
    return [f"01/01 10:00:00 - mmengine - INFO - Iter(train) [{it:4d}/4000]  lr: 1.0000e-04  "
            f"eta: 0:10:00  time: 0.3000  data_time: 0.0100  memory: 3000  loss: "
            f"{2 * math.exp(-it / 1000) + 0.3:.4f}  loss_det: {math.exp(-it / 1000) + 0.2:.4f}"
            f"  loss_depth: {0.0 if it % 500 == 0 else math.exp(-it / 1000) + 0.1:.4f}"
            for it in range(50, 4050, 50)]


def _keras_checkpoint_from_inf() -> list[str]:
    """Keras' ``ModelCheckpoint`` (keras-team/keras ``keras/callbacks/model_checkpoint.py``:
    ``f"\\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to
    {current:.5f}, saving model to {filepath}"``, ``self.best`` starting at ``np.inf``) beside
    Keras 2's bar."""
    out = []
    for epoch in range(1, 11):
        val = 0.6 - epoch * 0.03
        best = "inf" if epoch == 1 else f"{val + 0.03:.5f}"
        out += [f"Epoch {epoch}/10",
                f"Epoch {epoch}: val_loss improved from {best} to {val:.5f}, saving model to "
                "model.keras",
                f"1875/1875 [==============================] - 5s 3ms/step - loss: "
                f"{0.5 - epoch * 0.03:.4f} - accuracy: {0.8 + epoch * 0.01:.4f} - val_loss: "
                f"{val:.4f} - val_accuracy: 0.8000"]
    return out


def _nan_schedule_columns() -> list[str]:
    """A loop's ``print(f"step {step} loss {loss:.4f} lr {lr} momentum {mom}")`` whose
    scheduler leaves learning rate and momentum NaN until it starts at step 40."""
    return [f"step {s} loss {3 * math.exp(-s / 500) + 0.2:.4f} lr "
            f"{'nan' if s <= 30 else '1.0e-04'} momentum {'nan' if s <= 30 else '0.9'}"
            for s in range(10, 1000, 10)]


def _mmdet_coco_absent_size() -> list[str]:
    """mmengine's ``Epoch(train)`` lines and one ``Epoch(val)`` line of mmdet's
    ``CocoMetric`` (open-mmlab/mmdetection ``mmdet/evaluation/metrics/coco_metric.py``:
    pycocotools' ``stats``, -1 for an object size the set does not hold)."""
    out = [f"01/01 10:00:00 - mmengine - INFO - Epoch(train)  [{e}][ 50/500]  base_lr: "
           f"2.0000e-02 lr: 2.0000e-02  eta: 1:00:00  time: 0.5  data_time: 0.01  memory: "
           f"4000  grad_norm: 5.1  loss: {2.0 * math.exp(-e / 5) + 0.5:.4f}  loss_cls: 0.3  "
           f"loss_bbox: 0.2" for e in range(1, 13)]
    out.insert(6, "01/01 10:00:00 - mmengine - INFO - Epoch(val) [6][500/500]    "
               "coco/bbox_mAP: 0.3210  coco/bbox_mAP_50: 0.5210  coco/bbox_mAP_75: 0.3310  "
               "coco/bbox_mAP_s: -1.0000  coco/bbox_mAP_m: 0.3110  coco/bbox_mAP_l: 0.4010  "
               "data_time: 0.0100  time: 0.1000")
    return out


def _hf_eval_only_block() -> list[str]:
    """HF's ``log_metrics("eval", ...)`` (``src/transformers/trainer_pt_utils.py``) of a
    ``--do_eval`` run without training."""
    return ["***** eval metrics *****", "  eval_accuracy           =      0.9",
            "  eval_loss               =   0.4123", "  eval_runtime            = 0:00:12.30",
            "  eval_samples            =       1000"]


def _lightning_tiny() -> list[str]:
    """The bar of a loss falling from 1e-3 to 4e-9."""
    return _lightning_bar([1e-3 * math.exp(-i / 8) * (1 + 0.2 * math.sin(i)) for i in range(100)])


def _lightning_summed() -> list[str]:
    """The bar of a loss summed over tokens, 24000 falling to 9000 (``1.44e+4``)."""
    return _lightning_bar([15000 * math.exp(-i / 50) + 9000 + 300 * math.sin(i)
                           for i in range(100)])


def _lightning_negative_summed() -> list[str]:
    """The bar of a summed negative log-likelihood bound, -900 falling to -15900."""
    return _lightning_bar([-(15000 * (1 - math.exp(-i / 30)) + 900 + 300 * math.sin(i))
                           for i in range(100)])


@pytest.mark.parametrize("build", [
    _interval_changed, _converged_regression, _keras_tiny, _lightning_tiny, _lightning_summed,
    _lightning_negative_summed, _curriculum, _fairseq_label_smoothed, _hf_clipped,
    _megatron_clipped, _mmengine_multitask, _keras_checkpoint_from_inf, _nan_schedule_columns,
    _mmdet_coco_absent_size, _hf_eval_only_block,
], ids=lambda build: build.__name__.lstrip("_"))
def test_round_ten_controls_are_quiet(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Controls: each healthy run is quiet (on the parent too)."""
    assert faults(tmp_path, build()) == []
