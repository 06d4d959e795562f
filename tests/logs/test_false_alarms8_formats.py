"""False alarms, round eight: healthy runs that hold alarming numbers (a loss near 0 with one
hard batch beside a sawtooth overflow, a loss of exactly 0 by construction), written as the
tools print them (each builder names its source).

- a converged fine-tune under HF's Trainer with DeepSpeed fp16: the Trainer's ``log()`` dict
  (huggingface/transformers ``src/transformers/trainer.py`` ``_maybe_log_save_evaluate``:
  ``logs["loss"] = round(tr_loss_scalar / (self.state.global_step -
  self._globalstep_last_logged), 4)``, printed as ``str(logs)``) at ``logging_steps=1``, beside
  DeepSpeed's overflow line (microsoft/DeepSpeed ``deepspeed/runtime/fp16/loss_scaler.py``
  ``DynamicLossScaler.update_scale``: ``[deepspeed] OVERFLOW! Rank {rank} Skipping step.
  Attempted loss scale: {cur}, reducing to {next}``, through ``logger.info``);
- pytorch-metric-learning's triplet training loop (KevinMusgrave/pytorch-metric-learning
  ``examples/notebooks/TripletMarginLossMNIST.ipynb``: ``print("Epoch {} Iteration {}: Loss =
  {}, Number of mined triplets = {}".format(epoch, batch_idx, loss, mining_func.num_triplets))``
  every 20 batches; the 0-dim loss tensor formats as its ``item()``, torch ``_tensor.py``
  ``__format__``), whose loss is 0 wherever the miner found no triplet (``TripletMarginLoss``'s
  ``AvgNonZeroReducer`` averages no term);
- fairseq's fp16 sawtooth at a short scale window, as its default gives on a large job
  (facebookresearch/fairseq ``fairseq/optim/fp16_optimizer.py``: ``scale_window = int(2**14 /
  data_parallel_size / update_freq[0])``, 16 on 128 GPUs at ``--update-freq 8``), its scaler
  (``fairseq/optim/dynamic_loss_scaler.py``: a growth once ``(_iter - _last_overflow_iter) %
  scale_window == 0``, a halving on an overflow once the share since the last rescale reaches
  ``tolerance``), the trainer's ``NOTE: gradient overflow detected, ignoring gradient, setting
  loss scale to: {scale}`` (``fairseq/trainer.py``; ``num_updates`` not advanced) and the
  ``train_inner`` row of ``fairseq/logging/progress_bar.py`` (``SimpleProgressBar.log``:
  ``"{}:  {:5d} / {:d} {}"``) every ``--log-interval`` updates, under the CLI's
  ``%(asctime)s | %(levelname)s | %(name)s | %(message)s``.

- DeepSpeed's fp16 sawtooth at ``"loss_scale_window": 16, "hysteresis": 1`` (non-default):
  its scaler (microsoft/DeepSpeed ``deepspeed/runtime/fp16/loss_scaler.py``
  ``DynamicLossScaler.update_scale``: a growth once ``(cur_iter - last_overflow_iter) %
  scale_window == 0``), its overflow line (above), the engine's ``[Rank 0] step={}, skipped={},
  lr={}, mom={}`` every ``steps_per_print`` (``deepspeed/runtime/engine.py``
  ``_report_progress`` through ``log_dist``) and the configuration dump of
  ``DeepSpeedConfig.print`` (``deepspeed/runtime/config.py``: ``"  {} {} {}".format(arg,
  dots, value)``) holding ``float16_config`` (``deepspeed/runtime/precision_config.py``
  ``DeepSpeedFP16Config``: ``... loss_scale_window=16 ...``) or, before 0.19,
  ``dynamic_loss_scale_args`` (``{'init_scale': ..., 'scale_window': 16, ...}``).

Before the fixes the doctor called the first "the loss is exploding" (AMP003: 0.41 is 2050x the
recent median 0.0002, beside the one overflow of the sawtooth), the second AMP007 (20 rows of
exactly 0) and the third AMP008 at ``--log-interval 10`` (a skip in 17 steps, 6%, over the 5%
it allows where the growth interval is unknown; rows printed every 10 updates never showed it
one step at a time, so it was not learnt; at the default interval of 100 it was quiet), and
the fourth AMP008 too (the same 6%: the window its dump states was not read).

Probed and already right (no test added, the suite covers them): WGAN critic and
generator losses below 0, a hinge discriminator at 0, nanoGPT's ``mfu -100.00%``, HF's
``'learning_rate': 0.0`` and ``'grad_norm': inf``/``nan`` on one row, ``aux_loss``/``loss_aux``
at 0, Megatron at ``loss scale: 1.0`` (bf16) and at non-default scaler settings (initial 2**32,
window 100, static 128), fairseq ``ppl`` in the tens of thousands, ELBO/NLL below 0 and
crossing 0, detectron2's ``loss_box_reg: 0``, YOLOv5's single-class ``cls_loss`` 0, mmengine's
``grad_norm: inf`` once, COCO's ``-1.000``, DPO/PPO negative rewards and KL, nnU-Net's
negative losses beside ``Pseudo dice [0.8, nan]``, ``tok/s inf`` on the first step.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from excerpts import faults

_DEEPSPEED = ("[2026-12-07 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
              "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {cur}, reducing to {next}")


def _hf_deepspeed(steps: int = 400, overflow: int = 150, hard: dict[int, float] | None = None,
                  ) -> list[str]:
    """HF Trainer rows at ``logging_steps=1`` of a fine-tune that fits its set (2.3 decaying to
    the 4-place floor 0.0002), DeepSpeed's overflow line before the row of step ``overflow``
    (one tooth of the sawtooth at 131072); ``hard``: step -> that row's loss."""
    draw, hard = random.Random(5), hard or {}
    lines = []
    for step in range(1, steps + 1):
        if step == overflow:
            lines.append(_DEEPSPEED.format(cur=131072, next=65536))
        loss = hard.get(step, 2.3 * math.exp(-step / 15) + 0.0002 + 0.0001 * draw.random())
        norm = 3.2 if step in hard else 0.05
        lines.append(f"{{'loss': {round(loss, 4)}, 'grad_norm': {norm}, 'learning_rate': 1e-05, "
                     f"'epoch': {step / 100:.2f}}}")
    return lines


def test_hf_deepspeed_hard_batch_beside_a_sawtooth_overflow_is_quiet(tmp_path: Path) -> None:
    """A fitted fine-tune's one hard batch (0.41 among 0.0002s) beside the sawtooth's overflow:
    the loss is back within the run's own range (2.3 at the start), no explosion. Before the
    fix: AMP003 "the loss jumped to 0.41, 2050x its recent median 0.0002 ... exploding"."""
    assert faults(tmp_path, _hf_deepspeed(hard={151: 0.41})) == []
    assert faults(tmp_path, _hf_deepspeed(hard={149: 0.41})) == []


def test_hf_deepspeed_sawtooth_control(tmp_path: Path) -> None:
    """Control: the same run without the hard batch. Passes on the parent too."""
    assert faults(tmp_path, _hf_deepspeed()) == []


def test_hf_deepspeed_explosion_beside_an_overflow_fault_twin(tmp_path: Path) -> None:
    """Fault twin: the loss jumps to 3e4, above anything the run showed, beside the overflow:
    still AMP003 at that row (the overflow line is a skipped step of its own, so the row of
    step 151 is the log's step 152). Passes on the parent too."""
    assert faults(tmp_path, _hf_deepspeed(hard={151: 31234.5})) == [("AMP003", 152)]


def _pml(zero: set[tuple[int, int]], mined_when_zero: int = 0, epochs: int = 3) -> list[str]:
    """The triplet notebook's prints (``batch_size = 256`` on MNIST: 235 batches an epoch, a
    print every 20), each epoch closed by the tester's bars and the accuracy; (epoch, batch) in
    ``zero``: the loss is 0.0, beside ``mined_when_zero`` triplets."""
    draw = random.Random(7)
    lines = []
    for epoch in range(1, epochs + 1):
        for batch in range(0, 235, 20):
            if (epoch, batch) in zero:
                loss, mined = 0.0, mined_when_zero
            else:
                loss = 0.1 * math.exp(-epoch / 3) * (0.8 + 0.4 * draw.random())
                mined = 1 + int(90000 * math.exp(-2 * epoch) * draw.random())
            lines.append(f"Epoch {epoch} Iteration {batch}: Loss = {loss}, "
                         f"Number of mined triplets = {mined}")
        lines += ["100%|##########| 1875/1875 [00:15<00:00, 119.05it/s]",
                  "100%|##########| 313/313 [00:03<00:00, 78.37it/s] ", "Computing accuracy",
                  f"Test set accuracy (Precision@1) = {0.9789 + epoch / 1000}"]
    return lines


def _from(epoch: int, batch: int) -> set[tuple[int, int]]:
    """Every print from (epoch, batch) to the end of epoch 3."""
    return {(e, b) for e in range(epoch, 4) for b in range(0, 235, 20) if (e, b) >= (epoch, batch)}


def test_triplet_loss_of_no_mined_triplet_is_quiet(tmp_path: Path) -> None:
    """Epochs 2 and 3 mine no semihard triplet (the embedding separates the classes): every
    print there is ``Loss = 0.0, Number of mined triplets = 0``, a loss over no term. Before
    the fix: AMP007 (24 rows of exactly 0)."""
    assert faults(tmp_path, _pml(_from(2, 0))) == []


def test_triplet_loss_mined_throughout_control(tmp_path: Path) -> None:
    """Control: triplets mined in every batch (no zero). Passes on the parent too."""
    assert faults(tmp_path, _pml(set())) == []


def test_triplet_loss_zero_beside_mined_triplets_fault_twin(tmp_path: Path) -> None:
    """Fault twin: from epoch 1's iteration 100 on the loss is 0.0 while 512 triplets were
    mined each batch (a loss that underflowed): still AMP007 where the zeros begin. Passes on
    the parent too."""
    assert faults(tmp_path, _pml(_from(1, 100), mined_when_zero=512)) == [("AMP007", 100)]


def _fairseq(interval: int = 10, tolerance: float = 0.0, every: int | None = None,
             updates: int = 600) -> list[str]:
    """A fairseq fp16 run (``--fp16-init-scale 128``, scale window 16): a batch overflows at a
    scale of 1024 or more, and with ``every`` also each ``every``-th batch from update 300 on
    (a layer that overflows whatever the scale)."""
    scale, it, last_overflow, last_rescale, overflows, num, batch = 128.0, 0, -1, -1, 0, 0, 0
    stamp = "2026-12-07 10:00:00 | INFO | "
    lines = []
    while num < updates:
        batch += 1
        if scale >= 1024 or (every is not None and num >= 300 and batch % every == 0):
            last_overflow, overflows = it, overflows + 1
            if overflows / float(it - last_rescale) >= tolerance:
                scale, last_rescale, overflows = scale / 2, it, 0
            it += 1
            lines.append(f"{stamp}fairseq.trainer | NOTE: gradient overflow detected, ignoring "
                         f"gradient, setting loss scale to: {scale}")
            continue
        if (it - last_overflow) % 16 == 0:
            scale, last_rescale = scale * 2, it
        it, num = it + 1, num + 1
        if num % interval == 0:
            lines.append(f"{stamp}train_inner | epoch 001:  {batch:5d} / 5000 loss="
                         f"{9 - num / 1000:.3f}, nll_loss={8.6 - num / 1000:.3f}, ppl="
                         f"{2 ** (8.6 - num / 1000):.2f}, wps=120000, ups=3.2, wpb=40000, "
                         f"bsz=128, num_updates={num}, lr=0.0005, gnorm=1.2, loss_scale="
                         f"{scale:g}, train_wall=30, gb_free=10, wall={num}")
    return lines


def test_fairseq_short_scale_window_sawtooth_is_quiet(tmp_path: Path) -> None:
    """The sawtooth of a 16-update scale window, rows every 10 updates: each regrowth a row
    shows after a back-off bounds the window from above (scale_steps.GrowthBounds), and a
    skip in 17 steps is that window's own rate. Before the fix: AMP008 "12 of the last 200
    steps were skipped by overflow (6%), the scale staying near 512"."""
    assert faults(tmp_path, _fairseq()) == []


def test_fairseq_short_scale_window_default_interval_control(tmp_path: Path) -> None:
    """Control: the same run at the default ``--log-interval 100``. Passes on the parent
    too."""
    assert faults(tmp_path, _fairseq(interval=100)) == []


def test_fairseq_overflows_held_by_tolerance_fault_twin(tmp_path: Path) -> None:
    """Fault twin: from update 300 a batch in five overflows whatever the scale and
    ``--fp16-scale-tolerance 0.25`` keeps the scale at 512: a fifth of the steps wasted, twice
    what the learnt window allows: still AMP008. (The detector names the first skip of its
    200-step window, here a sawtooth skip before update 300; the parent named 41, the healthy
    sawtooth's, for the same reason.) Passes on the parent too."""
    assert [code for code, _step in faults(tmp_path, _fairseq(tolerance=0.25, every=5))] == [
        "AMP008"]


def test_fairseq_overflows_that_collapse_the_scale_fault_twin(tmp_path: Path) -> None:
    """Fault twin: the same overflows at the default tolerance halve the scale each time,
    faster than the window regrows it: still AMP003 (the collapse) and AMP004 (below 1).
    Passes on the parent too."""
    codes = [code for code, _step in faults(tmp_path, _fairseq(every=5))]
    assert "AMP003" in codes and "AMP004" in codes


def _deepspeed(dump: str | None, window: int = 16, floor_from: int | None = None,
               steps: int = 800) -> list[str]:
    """A DeepSpeed fp16 run at ``initial_scale_power 10``, ``hysteresis 1``: a step overflows
    at a scale of 2048 or more, and with ``floor_from`` every fourth step from there on at
    ``min_loss_scale 1024`` (``raise_error_at_min_scale`` off: the scale stays at its floor);
    ``dump``: ``"new"`` (0.19's ``float16_config``), ``"old"`` (``dynamic_loss_scale_args``)."""
    stamp = "[2026-12-07 10:00:00,000] [INFO] "
    lines = []
    if dump == "new":
        lines.append(f"{stamp}[config.py:1001:print]   float16_config ............... "
                     f"enabled=True auto_cast=False loss_scale=0.0 initial_scale_power=10 "
                     f"loss_scale_window={window} hysteresis=1 consecutive_hysteresis=False "
                     f"min_loss_scale={1024 if floor_from else 1} "
                     f"fp16_master_weights_and_grads=False")
    elif dump == "old":
        lines.append(f"{stamp}[config.py:1001:print]   dynamic_loss_scale_args ...... "
                     f"{{'init_scale': 1024, 'scale_window': {window}, 'delayed_shift': 1, "
                     f"'consecutive_hysteresis': False, 'min_scale': 1}}")
    scale, floor, last_overflow, skipped = 1024, 1024 if floor_from else 1, -1, 0
    for it in range(steps):
        if scale >= 2048 or (floor_from is not None and it >= floor_from and it % 4 == 0):
            after = max(scale // 2, floor)
            lines.append(f"{stamp}[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank "
                         f"0 Skipping step. Attempted loss scale: {scale}, reducing to {after}")
            scale, last_overflow, skipped = after, it, skipped + 1
        elif (it - last_overflow) % window == 0:
            scale *= 2
        if (it + 1) % 10 == 0:
            lines.append(f"{stamp}[logging.py:128:log_dist] [Rank 0] step={it + 1}, skipped="
                         f"{skipped}, lr=[0.0001], mom=[(0.9, 0.999)]")
    return lines


def test_deepspeed_short_scale_window_stated_in_its_dump_is_quiet(tmp_path: Path) -> None:
    """The sawtooth of a 16-step window (a skip in 17 steps, 6%), the window stated in the
    configuration dump of either release: judged against it, a healthy rate. Before the fix:
    AMP008 "12 of the last 200 steps were skipped by overflow (6%), the scale staying near
    1024"."""
    assert faults(tmp_path, _deepspeed("new")) == []
    assert faults(tmp_path, _deepspeed("old")) == []


def test_deepspeed_default_window_control(tmp_path: Path) -> None:
    """Control: the default window of 1000 stated in the dump, a skip per growth. Passes on
    the parent too."""
    assert faults(tmp_path, _deepspeed("new", window=1000)) == []


def test_deepspeed_overflows_at_the_floor_fault_twin(tmp_path: Path) -> None:
    """Fault twin: from step 400 every fourth step overflows at the floor (``min_loss_scale``
    1024, a quarter of the steps wasted, with the window of 16 stated): still
    AMP008 (at the first skip of its 200-step window, a sawtooth skip before step 400).
    Passes on the parent too."""
    assert [code for code, _step in faults(tmp_path, _deepspeed("new", floor_from=400))] == [
        "AMP008"]
