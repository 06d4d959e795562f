"""False alarms, round two: healthy runs that print what looks like a fault other than a
non-finite evaluation metric, written from the tools' own format strings, each beside its
fault twin (the same print where it is a real failure), which must still be found.

- MosaicML Composer's automatic microbatching: an out-of-memory it caught and retries with a
  smaller microbatch (mosaicml/composer ``composer/trainer/trainer.py``,
  ``_adjust_device_train_microbatch_size``: ``warnings.warn(RuntimeWarning('CUDA out of memory
  detected. Train microbatch size will be decreased from {a} -> {b}.'))``, later releases
  ``'CUDA out of memory or excessive memory allocation retries detected. ...'``; older
  ``_adjust_grad_accum``: ``'CUDA out of memory detected. Gradient Accumulation, the number of
  train microbatches, increased from {a} -> {b}, and the batch will be retrained ...'``),
  around its ConsoleLogger's rows (``composer/loggers/console_logger.py``: ``[batch={b}/{n}]:``
  then ``\\n\\t Train {name}: {value:.4f}``). Before: SYS001 (an error: "the device ran out of
  memory") on a run that went on. Its fatal twin (``The train loop failed with an internal
  microbatch of size 1``) is still SYS001.

Read right (quiet) before any fix, not kept as tests (the suite covers them or they add
nothing): detectron2's ``loss_mask: 0`` and mmdet's ``loss_mask: 0.0000``, ``moe_aux_loss``
/ ``kl_loss`` / ORPO's ``nll_loss`` 0.0 in transformers' dicts, DPO's ``rewards/*`` 0.0 at the
start, DCGAN's ``D(G(z)): 0.0000``, CycleGAN's ``D_A: 0.000``, stable-baselines3's
``value_loss 0`` before the first update, a loss decaying to ``0.0000`` (four places) and
pytorch/examples' word_language_model ``loss  0.00`` (``{:5.2f}``) after the model fits,
fairseq's start-up ``NOTE: gradient overflow detected, ignoring gradient, setting loss scale
to: X`` (also with ``--fp16-scale-tolerance`` 0.05-0.3, where the note repeats one scale:
fairseq/optim/dynamic_loss_scaler.py), apex's sawtooth and O0/O1/O2 option blocks, apex's
scale held at its ``max_loss_scale`` 2**24, a GradScaler with ``growth_interval=100``,
Megatron's start-up skipped iterations (log interval 1 and 100), its ``loss scale: 1.0`` in a
bf16 run and a static ``--loss-scale 4096``, DeepSpeed's flat ``skipped=5`` and static
``loss_scale 128``, mmcv's ``Check overflow, downscale loss scale to`` from 2**32, ESPnet's
``The grad norm is nan. Skipping updating the model.``, numpy's ``overflow encountered in
exp``, the tokenizer's "overflowing tokens" note, torch's ``lr_scheduler.step()`` before
``optimizer.step()`` warning, Lightning's precision lines (16-bit, bf16, the CPU bf16
fallback), its TF32 hint, ``Using auto half precision backend``, accelerate's ``Mixed
precision type: fp16`` and ``--mixed_precision ... 'no'`` defaults, torch's GradScaler and
autocast deprecation notes, SDPA's kernel-fallback warnings, flash-attn's fp32 and cast-back
notes, bitsandbytes' ``Linear4bit`` / ``MatMul8bitLt`` casting and no-GPU notes, xformers'
``Triton is not available``, the inductor's and torch 2.9's TF32 notes, HF's resume
``Will skip the first ... batches``.

Kept as real (the doctor is right): torch's ``In CPU autocast, but the target dtype is not
supported. Disabling autocast.``, ``User provided device_type of 'cuda', but CUDA is not
available. Disabling`` and ``GradScaler is enabled, but CUDA is not available`` (AMP010), a
``grad_scale 0.5`` held from the start (AMP004: the catalog reports any scale below 1, and
``core/causes.py`` names an initial scale below 1 as the cause), fairseq's recovered
``OOM: Ran out of memory with exception`` (SYS001: the batch is skipped, as the message table's
fairseq row ``ran out of memory, skipping batch`` says).

torch 1.10-2.2 prints ``User provided device_type of 'cuda', but CUDA is not available.
Disabling`` whatever ``enabled`` says (``torch/autocast_mode.py``, ``torch/amp/
autocast_mode.py``: ``if torch.cuda.amp.common.amp_definitely_not_available() and self.device
== 'cuda': warnings.warn(...)``; only 2.3's ``CUDA is not available or torch_xla is imported.
Disabling autocast.`` sits under ``if enabled:``), so a CPU run that wraps its forward in
``autocast(enabled=False)`` (YOLOv5 on CPU: ``with torch.cuda.amp.autocast(amp):`` with ``amp``
False from ``check_amp``; ultralytics/yolov5 ``utils/torch_utils.py`` filters the warning for
that reason) got AMP010 although nobody asked for fp16. The row now counts only where other
lines show fp16 asked for (the message table's ``fp16_shown``, held by the assembler to the
end of the log): an fp16 setup, a loss scale, an overflow, another AMP010 message.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.assembler import FLAG_LINES, Assembler
from denpex_callbacks.logs.parsers import parse_line

_WARNED_AT = "/usr/lib/python3/site-packages/composer/trainer/trainer.py:1240: RuntimeWarning: "


def _loss(batch: int) -> float:
    return 2.5 * math.exp(-batch / 800) + 4.0


def _composer(warning: str | None, *, batches: int = 600, fatal: str | None = None) -> list[str]:
    """Composer's ConsoleLogger every 10 batches, ``warning`` (the OOM it caught) printed by
    ``warnings.warn`` before the first row; ``fatal`` ends the run with its traceback."""
    out: list[str] = []
    if warning is not None:
        out += [_WARNED_AT + warning, "  warnings.warn("]
    for batch in [1, *range(10, batches + 1, 10)]:
        out += [f"[batch={batch}/{batches}]:",
                f"\t Train time/batch: {batch - 1}",
                f"\t Train time/sample: {(batch - 1) * 64}",
                "\t Train trainer/device_train_microbatch_size: 8",
                f"\t Train loss/train/total: {_loss(batch):.4f}",
                f"\t Train metrics/train/LanguageCrossEntropy: {_loss(batch):.4f}",
                "\t Train lr-DecoupledAdamW/group0: 0.0006"]
    if fatal is not None:
        out += ["Traceback (most recent call last):",
                '  File "/usr/lib/python3/site-packages/composer/trainer/trainer.py", line 2400,'
                " in _train_batch",
                "    _adjust_device_train_microbatch_size(self.state)",
                f"RuntimeError: {fatal}"]
    return out


_RETRIED = (
    "CUDA out of memory detected. Train microbatch size will be decreased from 16 -> 8.",
    "CUDA out of memory or excessive memory allocation retries detected. Train microbatch "
    "size will be decreased from 16 -> 8.",
    "CUDA out of memory detected. Gradient Accumulation, the number of train microbatches, "
    "increased from 1 -> 2, and the batch will be retrained with a micro-batchsize of 32",
)


def test_composer_retried_oom_is_quiet(tmp_path: Path) -> None:
    """Composer's automatic microbatching retried the batch and trained on. Before: SYS001
    on each wording."""
    for warning in _RETRIED:
        assert faults(tmp_path, _composer(warning)) == [], warning


def test_composer_oom_fault_twins(tmp_path: Path) -> None:
    """The microbatch of 1 that still does not fit ends the run: SYS001 at the last row's
    batch, as does torch's own OOM traceback. (On the parent the first assertion fails too:
    there SYS001 is reported once, on the retried warning before the first row, step None.)"""
    fatal = ("CUDA out of memory or excessive memory allocation retries detected. The train "
             "loop failed with an internal microbatch of size 1.The GPU does not have enough "
             "memory to process even 1 sample during train.")
    assert faults(tmp_path, _composer(_RETRIED[0], fatal=fatal)) == [("SYS001", 600)]
    torch_oom = ("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                 "of 79.15 GiB of which 1.20 GiB is free.")
    assert faults(tmp_path, _composer(None, fatal=torch_oom)) == [("SYS001", 600)]


def _hf_dicts(steps: int = 500) -> list[str]:
    return [str({"loss": round(2.5 * math.exp(-step / 800) + 0.3, 4), "grad_norm": 1.23,
                 "learning_rate": 5e-05, "epoch": round(step / 500, 2)})
            for step in range(10, steps + 1, 10)]


_WARNING_AT = "/usr/lib/python3/site-packages/torch/{0}: UserWarning: "
# Warnings of healthy runs that name a dtype, fp16 or a skip, and that the suite had nowhere.
_NOTES = {
    # torch aten/src/ATen/native/transformers/sdp_utils_cpp.h (check_tensor_dtype, debug):
    # SDPA's fused kernels refused float32; the math kernel ran the attention.
    "sdpa_dtype_fallback": [
        _WARNING_AT.format("nn/functional.py:5476") + "Expected query, key and value to all "
        "be of dtype: {Half, BFloat16}. Got Query dtype: float, Key dtype: float, and Value "
        "dtype: float instead. (Triggered internally at ../aten/src/ATen/native/transformers/"
        "sdp_utils_cpp.h:98.)",
        "  attn_output = torch.nn.functional.scaled_dot_product_attention("],
    # huggingface/transformers src/transformers/modeling_utils.py
    # (_check_and_enable_flash_attn_2): a float32 load that autocast (or FSDP's mixed
    # precision) runs in half precision.
    "flash_attn_fp32_load": [
        "Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but the "
        "current dype in Qwen2ForCausalLM is torch.float32. You should run training or "
        "inference using Automatic Mixed-Precision via the `with torch.autocast(device_type="
        "'torch_device'):` decorator, or load the model with the `torch_dtype` argument. "
        "Example: `model = AutoModel.from_pretrained(\"openai/whisper-tiny\", attn_implementation"
        "=\"flash_attention_2\", torch_dtype=torch.float16)`"],
    # torch/optim/lr_scheduler.py (LRScheduler.step): printed under a GradScaler whose first
    # step was skipped by the start-up overflow (optimizer.step() never ran).
    "lr_scheduler_first_skip": [
        _WARNING_AT.format("optim/lr_scheduler.py:224") + "Detected call of "
        "`lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you "
        "should call them in the opposite order: `optimizer.step()` before "
        "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
        "value of the learning rate schedule. See more details at https://pytorch.org/docs/"
        "stable/optim.html#how-to-adjust-learning-rate",
        "  warnings.warn("],
}


def test_healthy_precision_and_skip_notes_are_quiet(tmp_path: Path) -> None:
    """Each note before a healthy run of transformers' dicts (controls: quiet on the parent
    too)."""
    for name, note in _NOTES.items():
        assert faults(tmp_path, note + _hf_dicts()) == [], name


class _FairseqScaler:
    """fairseq's DynamicLossScaler (facebookresearch/fairseq
    ``fairseq/optim/dynamic_loss_scaler.py``), its decisions only."""

    def __init__(self, tolerance: float, window: int = 128) -> None:
        self.scale, self.window, self.tolerance = 128.0, window, tolerance
        self.iter = 0
        self.last_overflow = self.last_rescale = -1
        self.overflows = 0

    def update(self) -> None:
        if (self.iter - self.last_overflow) % self.window == 0:
            self.scale *= 2.0
            self.last_rescale = self.iter
        self.iter += 1

    def overflow(self) -> str:
        since = self.iter - self.last_rescale or 1000
        self.last_overflow = self.iter
        self.overflows += 1
        if self.overflows / since >= self.tolerance:
            self.scale /= 2.0
            self.last_rescale, self.overflows = self.iter, 0
        self.iter += 1
        return f"setting loss scale to: {self.scale}"


def _fairseq(tolerance: float, *, overflowing: int | None = None) -> list[str]:
    """fairseq's trainer under ``--fp16-scale-tolerance``: an overflow every 50 updates and
    above 2**12, each its ``NOTE`` (fairseq/trainer.py ``train_step``), ``train_inner`` every
    100 updates; from update ``overflowing`` on, every step overflows."""
    scaler, out, updates, tried = _FairseqScaler(tolerance), [], 0, 0
    while updates < 3000:
        tried += 1
        if scaler.scale > 4096 or tried % 50 == 0 or (
                overflowing is not None and updates >= overflowing):
            out.append("2026-12-06 10:00:00 | INFO | fairseq.trainer | NOTE: gradient overflow "
                       f"detected, ignoring gradient, {scaler.overflow()}")
            if len(out) > 20000:
                break
            continue
        scaler.update()
        updates += 1
        if updates % 100 == 0:
            out.append(f"2026-12-06 10:00:00 | INFO | train_inner | epoch 001:    {updates} / "
                       "5000 loss=5.5, nll_loss=4.1, ppl=17.15, wps=30000, ups=3, wpb=10000, "
                       f"bsz=300, num_updates={updates}, lr=0.0005, gnorm=1.2, "
                       f"loss_scale={scaler.scale:g}, train_wall=30, gb_free=10, wall=100")
    return out


def test_fairseq_scale_tolerance_is_quiet(tmp_path: Path) -> None:
    """With a tolerance (0.05-0.3 in fairseq's and its users' recipes) an overflow soon after a
    rescale keeps the scale, so ``setting loss scale to:`` repeats one value (controls: quiet
    on the parent too; test_healthy_sawtooth.py holds tolerance 0)."""
    for tolerance in (0.05, 0.2, 0.3):
        assert faults(tmp_path, _fairseq(tolerance)) == [], tolerance


def test_fairseq_scale_tolerance_fault_twin(tmp_path: Path) -> None:
    """Every step overflowing from update 2000 still collapses the scale through the
    tolerance: AMP003 where it began (a control: found on the parent too)."""
    for tolerance in (0.05, 0.3):
        assert faults(tmp_path, _fairseq(tolerance, overflowing=2000))[0] == ("AMP003", 2001)


_AUTOCAST_1_10 = ("/usr/lib/python3/site-packages/torch/amp/autocast_mode.py:250: UserWarning: "
                  "User provided device_type of 'cuda', but CUDA is not available. Disabling")


def _cpu_loop(*, scale: bool) -> list[str]:
    """A plain loop on a machine without CUDA, its forward under ``torch.cuda.amp.autocast``
    (``enabled=False`` when ``scale`` is off), printing ``step N | loss X`` and, where a
    GradScaler runs, its ``scale``."""
    tail = " | scale 65536.0" if scale else ""
    return [_AUTOCAST_1_10, *[f"step {i} | loss {_loss(i):.4f}{tail}" for i in range(1, 300)]]


def test_autocast_warning_of_an_fp32_run_is_quiet(tmp_path: Path) -> None:
    """torch 1.10-2.2's warning alone, in a run that never asked for fp16 (was AMP010)."""
    assert faults(tmp_path, _cpu_loop(scale=False)) == []


def test_autocast_warning_fault_twin(tmp_path: Path) -> None:
    """The same warning where the loop's loss scale shows fp16 asked for: AMP010 at the step it
    was printed at (before the first step: none)."""
    assert faults(tmp_path, _cpu_loop(scale=True)) == [("AMP010", None)]


def test_held_autocast_warnings_are_bounded() -> None:
    """A log that prints the warning every step holds at most ``FLAG_LINES`` of them for the
    end of the log (bounded memory on long runs), as a raised flag lists at most as many."""
    flags: list[object] = []
    assembler = Assembler(lambda obs: None, flags.append, lambda *gap: None)
    [event] = parse_line(_AUTOCAST_1_10)
    for line in range(1, 1001):
        assembler.feed(event, line, _AUTOCAST_1_10)
    assert len(assembler._held) == FLAG_LINES
    assembler.finish()
    assert flags == []  # nothing showed fp16 asked for
