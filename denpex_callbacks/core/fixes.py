"""Fix texts that follow the cause and the run: framework, device, what is already configured.

The catalog holds each id's generic text. What to change in *this* run depends on facts the
adapter reads at start and puts in ``RunSetup.extra``:

- ``device``: where the run computes (``"cpu"``, ``"cuda"``, ...): autocast and GradScaler
  are phrased for it (no ``autocast('cuda')`` on a CPU run).
- ``gradient_clipping``: the configured max gradient norm (None or 0: off): a fix never
  asks for clipping that is already on.
- ``warmup_steps``: configured warm-up steps (None or 0: none).
"""

from __future__ import annotations

from typing import Any

from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.run_setup import RunSetup

# How each framework says "train in bf16".
BF16 = {
    "hf": "TrainingArguments(bf16=True)",
    "lightning": "Trainer(precision=\"bf16-mixed\")",
    "deepspeed": "\"bf16\": {\"enabled\": true} instead of \"fp16\"",
}
BF16_DEFAULT = "torch.autocast(device_type, dtype=torch.bfloat16) without a GradScaler"

_CLIP = {
    "torch": "clip gradients (scaler.unscale_(opt); "
             "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0) before scaler.step(opt))",
    "hf": "clip gradients (TrainingArguments(max_grad_norm=1.0))",
    "lightning": "clip gradients (Trainer(gradient_clip_val=1.0))",
    "deepspeed": "clip gradients (\"gradient_clipping\": 1.0 in the ds_config)",
}
_WARMUP = {
    "torch": "add warm-up (torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, "
             "total_iters=500))",
    "hf": "add warm-up (TrainingArguments(warmup_steps=500) or warmup_ratio=0.05)",
    "lightning": "add warm-up (a LinearLR scheduler returned by configure_optimizers)",
    "deepspeed": "add warm-up (\"scheduler\": {\"type\": \"WarmupLR\", \"params\": "
                 "{\"warmup_num_steps\": 500}})",
}


def _framework(setup: RunSetup) -> str:
    return setup.framework if setup.framework in _CLIP else "torch"


def bf16_switch(framework: str | None) -> str:
    """How ``framework`` says "train in bf16".

    Example:
        >>> bf16_switch("hf")
        'TrainingArguments(bf16=True)'
    """
    return BF16.get(framework or "", BF16_DEFAULT)


def keep_fp32(name: str, framework: str | None) -> str:
    """How to keep one module in fp32 in ``framework`` (DeepSpeed's fp16 has fp16 weights,
    so autocast cannot do it there). HF's ``_keep_in_fp32_modules`` matches module names and
    keeps their weights in fp32 only when the model is loaded in float16; under
    ``fp16=True`` autocast runs the module in fp16 whatever its weights' dtype.

    Example:
        >>> keep_fp32("ffn.wo", "hf").startswith("Keep ffn.wo in fp32: under fp16=True")
        True
    """
    if framework == "hf":
        last = name.rsplit(".", 1)[-1]
        return (f"Keep {name} in fp32: under fp16=True autocast runs it in fp16 whatever its "
                "weights' dtype, so run its forward under torch.autocast(device_type, "
                f"enabled=False) on float32 inputs (\"{last}\" in the model's "
                "_keep_in_fp32_modules, as T5 lists \"wo\", keeps its weights in fp32 only "
                "when the model is loaded in float16)")
    if framework == "deepspeed":
        return (f"DeepSpeed's fp16 mode holds the weights themselves in fp16, so autocast "
                f"cannot keep {name} in fp32: rescale it (normalise its input, scale its "
                "weights down)")
    return (f"Keep {name} in fp32 (run its forward under torch.autocast(device_type, "
            "enabled=False) on float32 inputs)")


def clipping_configured(setup: RunSetup) -> float | None:
    """The configured max gradient norm, None when clipping is off or unknown."""
    value = setup.extra.get("gradient_clipping")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def warmup_configured(setup: RunSetup) -> int | None:
    """Configured warm-up steps, None when there is none or nothing says."""
    value = setup.extra.get("warmup_steps")
    return int(value) if isinstance(value, (int, float)) and value > 0 else None


def for_device(text: str, setup: RunSetup) -> str:
    """``text`` with its CUDA autocast/GradScaler calls phrased for the run's device.

    Example:
        >>> s = RunSetup(extra={"device": "cpu"})
        >>> for_device("with torch.autocast('cuda', dtype=torch.float16)", s)
        "with torch.autocast('cpu', dtype=torch.float16)"
    """
    device = setup.extra.get("device")
    kind = device.split(":")[0] if isinstance(device, str) else ""  # "cuda:0" -> "cuda"
    if kind in ("", "cuda", "unknown"):
        return text
    return text.replace("'cuda'", f"'{kind}'")


def overflow_remedies(setup: RunSetup) -> str:
    """"lower the LR, add warm-up, clip" for this run, leaving out what is configured."""
    framework = _framework(setup)
    parts = ["lower the learning rate (by 10x to start)"]
    warmup = warmup_configured(setup)
    parts.append(f"lengthen the warm-up (now {warmup} steps)" if warmup
                 else _WARMUP[framework])
    clip = clipping_configured(setup)
    parts.append(f"gradient clipping is already on (max norm {clip:g}): lower the learning "
                 "rate rather than the norm" if clip else _CLIP[framework])
    return "; ".join(parts)


def generic_fix(code: str, setup: RunSetup) -> str:
    """The catalog's fix for ``code``, phrased for the run (framework, device, configuration).

    Example:
        >>> s = RunSetup(framework="deepspeed", extra={"gradient_clipping": 1.0})
        >>> '"gradient_clipping": 1.0' in generic_fix("AMP003", s)
        False
    """
    info = entry(code)
    if code == "AMP003":
        return (f"Find the overflow source (see the evidence and the first non-finite module if "
                f"located): {overflow_remedies(setup)}; or train in bf16 "
                f"({bf16_switch(setup.framework)}). Raising the scale's floor only hides it.")
    return for_device(info.fix_for(setup.framework), setup)


def text_for(
    kind: str,
    code: str,
    setup: RunSetup,
    *,
    reasons: list[str],
    module: str | None = None,
    fault_step: int | None = None,
) -> tuple[str | None, str | None]:
    """Root cause and fix for a cause class in this run (None: keep the catalog's)."""
    why = "; ".join(reasons)
    before = f" taken before step {fault_step}" if fault_step is not None else ""
    framework = setup.framework
    texts: dict[str, tuple[str | None, str | None]] = {
        "divergence": (
            f"the optimizer diverged: {why}. The updates are too large for this model (a "
            "learning rate too high, no warm-up or no gradient clipping); the fp16 overflow is "
            "its symptom, not its cause.",
            f"{overflow_remedies(setup)[0].upper()}{overflow_remedies(setup)[1:]}; then restart "
            f"from a checkpoint{before}. Keeping a module in fp32 or switching to bf16 would "
            "only move or delay the overflow.",
        ),
        "bad-data": (
            f"bad input data, not AMP: {why}.",
            "Find and drop or repair the bad samples: assert torch.isfinite(batch).all() (and "
            f"the targets) in the data pipeline{_at(fault_step)}; mixed precision is not the "
            "cause.",
        ),
        "loss-computation": (
            f"the loss computation produced the non-finite value: {why} (log or division of "
            "0, a reduction in fp16, a NaN target).",
            "Compute the loss in float32 outside autocast (loss_fn(logits.float(), target)), "
            "guard log/div with an epsilon or a clamp, and check the targets for NaN/inf.",
        ),
        "loss-magnitude": (
            f"the loss's magnitude: {why}. An fp16 gradient holds at most 65504; the scaler "
            "halves the scale step after step and never gets to apply one.",
            "Normalise the targets (standardise them, (y - y.mean()) / y.std(), and undo it on "
            "the predictions) or the loss (a mean instead of a sum, or divided by a constant) "
            "so that it starts near 1; then the default loss scale works. Lowering the "
            "learning rate does not help: no update was applied.",
        ),
        "activation-overflow": (
            f"genuine fp16 activation overflow: {why}, at a learning rate that does not "
            "diverge. Typical of models pretrained in bf16 or fp32 (T5's DenseReluDense.wo).",
            f"{keep_fp32(module or 'the overflowing module', framework)}, or train in bf16 "
            f"({bf16_switch(framework)}).",
        ),
        "gradient-underflow": (
            f"gradient underflow: {why}, far too low for fp16: small gradients flush to zero "
            "and the updates vanish.",
            "Use dynamic loss scaling: \"loss_scale\": 0 with \"initial_scale_power\": 16"
            if framework == "deepspeed" else
            for_device("Use a dynamic torch.amp.GradScaler('cuda') with its default "
                       "init_scale (2**16) and growth", setup),
        ),
    }
    if kind in texts:
        return texts[kind]
    return None, generic_fix(code, setup)


def _at(step: int | None) -> str:
    return f" (the batch of step {step} holds them)" if step is not None else ""


def describe(setup: RunSetup) -> dict[str, Any]:
    """The run facts the fix texts used, for the diagnosis's evidence."""
    return {k: setup.extra[k] for k in ("device", "gradient_clipping", "warmup_steps")
            if setup.extra.get(k) is not None}
