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
  ``AvgNonZeroReducer`` averages no term).

Before the fixes the doctor called the first "the loss is exploding" (AMP003: 0.41 is 2050x the
recent median 0.0002, beside the one overflow of the sawtooth) and the second AMP007 (20 rows of
exactly 0). Probed and already right (no test added, the suite covers them): WGAN critic and
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
