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
from denpex_callbacks.core.run_setup import BF16_MIXED, BF16_PURE, FP32, UNKNOWN, RunSetup

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
            "halves the scale step after step and skips every update.",
            "Normalise the targets (standardise them, (y - y.mean()) / y.std(), and undo it on "
            "the predictions) or the loss (a mean instead of a sum, or divided by a constant) "
            "so that it starts near 1; then the default loss scale works. Lowering the "
            "learning rate does not help: the loss is that large from the start.",
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


# How torch names a dtype in its messages (ScalarType names, C++ type names, legacy tensor
# type names), in the words of torch's Python dtypes.
_DTYPE_WORDS = {"half": "float16", "c10::half": "float16", "at::half": "float16",
                "float": "float32", "double": "float64", "bfloat16": "bfloat16",
                "c10::bfloat16": "bfloat16", "at::bfloat16": "bfloat16", "float16": "float16",
                "float32": "float32", "float64": "float64"}


def dtype_word(name: str) -> str:
    """A dtype as torch's messages name it, as ``torch.<dtype>`` names it.

    Example:
        >>> dtype_word("c10::Half"), dtype_word("torch.cuda.FloatTensor"), dtype_word("Long")
        ('float16', 'float32', 'Long')
    """
    key = name.strip().lower()
    if key.startswith("torch.") and key.endswith("tensor"):  # torch.cuda.HalfTensor
        key = key.rsplit(".", 1)[-1][: -len("tensor")]
    elif key.startswith("torch."):  # torch.float16, as the RNN dtype check names it
        key = key[len("torch."):]
    return _DTYPE_WORDS.get(key, name.strip())


def dtype_error_text(kind: str, setup: RunSetup, *, kernel: str | None = None,
                     dtypes: tuple[str, ...] = (), value: str | None = None) -> tuple[str, str]:
    """Root cause and fix of one of torch's float16 dtype errors (AMP014), by its kind.

    ``kind`` is ``fp16-no-kernel`` (an op without a float16 kernel), ``fp16-dtype-mismatch``
    (float16 and float32 tensors in one op) or ``fp16-constant-overflow`` (a constant beyond
    float16's range); ``kernel``, ``dtypes`` and ``value`` are what the message named.

    Example:
        >>> root, fix = dtype_error_text("fp16-constant-overflow", RunSetup(), value="-1e+09")
        >>> "-1e+09" in root, "torch.finfo(scores.dtype).min" in fix
        (True, True)
    """
    bf16 = bf16_switch(setup.framework)
    cpu_bf16 = ("torch.autocast('cpu', dtype=torch.bfloat16) with float32 parameters"
                + (f" ({bf16})" if setup.framework in BF16 else ""))
    autocast = ("keep the model in float32 and wrap the forward in torch.autocast('cuda', "
                "dtype=torch.float16) with a torch.amp.GradScaler('cuda')")
    if kind == "fp16-no-kernel":
        name = f'"{kernel}"' if kernel else "an op's"
        cpu = kernel is not None and "cpu" in kernel.lower()
        where = (" (a CPU kernel: the run computes in float16 on the CPU)" if cpu else "")
        return (
            f"an op ran in float16 where it has no float16 kernel: torch's {name} kernel is "
            f"not implemented for 'Half'{where}. Almost always fp16 on the CPU: model.half() "
            "on a CPU run, or torch.autocast('cpu', dtype=torch.float16) in a torch whose CPU "
            "kernels lack float16; on a GPU, an op that has no float16 kernel there.",
            f"Run fp16 on the GPU ({autocast}), or on the CPU use bfloat16: {cpu_bf16}. Do not "
            "call model.half() for training; an op that has no float16 kernel anywhere runs "
            "in float32 (its inputs .float(), under torch.autocast(device_type, "
            "enabled=False)).",
        )
    if kind == "fp16-dtype-mismatch":
        named = [dtype_word(d) for d in dtypes]
        met = f" ({named[0]} against {named[1]})" if len(named) == 2 else ""
        unnamed = ("" if named else " The message does not name the dtypes (older torch): "
                   "float16 against float32 is the mixed-precision case; float64 (a NumPy "
                   "array) against float32 is not fp16's.")
        return (
            f"float16 and float32 tensors met in one op outside autocast{met}: typically the "
            "model was cast with .half() while its inputs stay float32 (or a float32 model "
            "was fed a .half() batch), or a custom op or loss runs outside autocast on tensors "
            "of both dtypes. Autocast casts each op's inputs to one dtype; a cast by hand "
            f"does not.{unnamed}",
            f"Remove the hand casts (.half() on the model and the batch): {autocast} (on the "
            f"CPU: {cpu_bf16}). Or cast consistently: x.to(next(model.parameters()).dtype) "
            "before the op that failed, and compute a custom loss on .float() tensors.",
        )
    said = f" ({value})" if value else ""
    return (
        f"a constant beyond float16's range (+-65504) was written into a float16 "
        f"tensor{said}: classically masked_fill(mask, -1e9) or -1e4 * ... on fp16 attention "
        "scores, or fill_/full with a large sentinel, once the tensor is float16 (autocast "
        "or .half()).",
        "Use a dtype-aware constant: scores.masked_fill(mask, torch.finfo(scores.dtype).min) "
        "(-65504 in float16) instead of -1e9, or compute the masking in float32 "
        "(scores.float()) and cast back.",
    )


# Operations whose gradient is undefined (NaN) at finite inputs: a zero under sqrt, a norm or a
# fractional power, a log or a division at zero, acos/asin at +-1, cdist or std of equal points.
# (Backward nodes as torch names them: ``PowBackward1`` is Pow's; LogSoftmax's is well defined.)
_SINGULAR_GRADIENTS = frozenset({
    "Sqrt", "Rsqrt", "Pow", "Norm", "LinalgVectorNorm", "Log", "Log2", "Log10", "Log1p", "Xlogy",
    "Div", "Reciprocal", "Acos", "Asin", "Atanh", "Acosh", "Atan2", "Cdist", "Std", "Var",
    "StdMean", "VarMean"})
_UNSCALED = (BF16_MIXED, BF16_PURE, FP32)


def backward_nan_text(op: str, setup: RunSetup) -> tuple[str, str]:
    """Root cause and fix of the NaN torch's anomaly mode found in ``op``'s backward
    (``Function '{op}' returned nan values in its 0th output``).

    Example:
        >>> root, fix = backward_nan_text("SqrtBackward0", RunSetup())
        >>> "undefined" in root, "torch.sqrt(x + 1e-12)" in fix
        (True, True)
        >>> root, _ = backward_nan_text("MmBackward0", RunSetup(active_precision="bf16-mixed"))
        >>> "loss scaler" in root
        False
    """
    name = op.split("Backward")[0]
    singular = name in _SINGULAR_GRADIENTS
    scaled = setup.active_precision not in _UNSCALED
    why = (f"{name}'s gradient is undefined at some finite inputs (a zero under sqrt, a norm or "
           "a fractional power; log or division at zero; acos/asin at +-1; equal points under "
           "cdist or std), so a finite forward gives a NaN gradient" if singular else
           f"an inf in the gradient flowing into {name}'s backward (anomaly mode looks for "
           "NaN only, so an inf passes the nodes before it), or a NaN or inf among the forward "
           "values it saved")
    overflow = (" Under fp16 with a dynamic loss scaler there is a second reading: a scaled "
                "gradient overflowed fp16 (inf), and inf * 0 or inf - inf made the NaN; the "
                "scaler would have skipped that step (it does so in a run's first steps by "
                "design), but anomaly mode stops the run before it can." if scaled else "")
    root = (f"torch's anomaly mode stopped the run at the first NaN a backward produced, in "
            f"{op}: {why}.{overflow}")
    guard = ("add an epsilon where the gradient is undefined: torch.sqrt(x + 1e-12), "
             "x.norm() as (x.pow(2).sum() + 1e-12).sqrt(), torch.log(x.clamp_min(1e-12)), "
             "acos(x.clamp(-1 + 1e-7, 1 - 1e-7))" if singular else
             "follow the traceback of the forward call anomaly mode printed to the operation, "
             "and check its inputs on this step for NaN/inf and values past 65504")
    fp16 = (" With fp16 and a GradScaler, first re-run the step with autocast off: finite "
            "there, it was an overflow the scaler absorbs, and anomaly mode belongs off for "
            "fp16 training (torch.autograd.set_detect_anomaly(False))." if scaled else "")
    return root, f"{guard[0].upper()}{guard[1:]}.{fp16}"


def switched_off_text(why: str, setup: RunSetup) -> tuple[str, str]:
    """Root cause and fix where the run's own guard switched fp16 off after ``why`` (what its
    message named, with its article: ``a NaN``, ``an overflow``, ``an instability``).

    Example:
        >>> root, fix = switched_off_text("an overflow", RunSetup())
        >>> "guard" in root, "bf16" in fix
        (True, True)
    """
    return (
        f"the run's own guard switched fp16 off after {why}: the fault is the fp16 trouble it "
        "reacted to, which the fallback to fp32 hides (the run goes on slower and with "
        "more memory, and the trouble comes back on the next fp16 run). Not a "
        "configuration that never enabled fp16.",
        "Find the first NaN or overflow before the switch (the lines above it: a diagnosis "
        "of its own where the log shows it) and fix that (lower the learning rate or clip "
        "gradients if the loss rose; keep the overflowing module in fp32), then run with fp16 "
        f"on again; or train in bf16 ({bf16_switch(setup.framework)}).",
    )


# How each loop skips the update of a step whose loss is non-finite, where no loss scaler does
# (GradScaler's step() skips it; nothing does in bf16 or fp32). Lightning's
# on_before_optimizer_step and HF's callback hook before optimizer.step() (transformers 4.45+)
# get the optimizer; an optimizer leaves the parameters whose grad is None as they are.
# Each guard decides after backward, from the gradients every rank holds alike once they are
# synchronised (DDP's all-reduce, FSDP's and accelerate's global norm): a rank that skipped
# backward alone, on its own loss, would leave the others waiting in the collective.
_GUARD_UPDATE = {
    "torch": "after loss.backward(), norm = torch.nn.utils.clip_grad_norm_(model.parameters(), "
             "max_norm) (float('inf') to measure without clipping; FSDP: model.clip_grad_norm_"
             "); if torch.isfinite(norm): optimizer.step() (optimizer.zero_grad() either way)",
    "accelerate": "after accelerator.backward(loss), norm = accelerator.clip_grad_norm_(model."
                  "parameters(), max_norm) (float('inf') to measure without clipping); if "
                  "torch.isfinite(norm): optimizer.step() (optimizer.zero_grad() either way)",
    "fabric": "after fabric.backward(loss), norm = fabric.clip_gradients(model, optimizer, "
              "max_norm=max_norm) (float('inf') to measure without clipping); if "
              "torch.isfinite(norm): optimizer.step() (optimizer.zero_grad() either way)",
    "lightning": "an on_before_optimizer_step(self, optimizer) in your LightningModule that calls "
                 "optimizer.zero_grad(set_to_none=True) when a gradient is non-finite (the "
                 "optimizer then leaves the weights as they are; the gradients are synchronised "
                 "by then, so every rank skips alike)",
    "deepspeed": "decide on every rank alike before engine.backward(loss): bad = (~torch.isfinite("
                 "loss)).float(); torch.distributed.all_reduce(bad); skip backward and step "
                 "where bad > 0 (under ZeRO both are collectives: a rank that skips alone "
                 "hangs the others)",
    "hf": "a TrainerCallback whose on_pre_optimizer_step(args, state, control, model, "
          "optimizer, **kwargs) calls optimizer.zero_grad(set_to_none=True) when a gradient "
          "is non-finite (the optimizer then leaves the weights as they are; the gradients are "
          "synchronised by then, so every rank skips alike)",
}


def guard_update(setup: RunSetup) -> str:
    """The line that skips a non-finite step's update in this run's loop (no loss scaler).

    Example:
        >>> guard_update(RunSetup(framework="lightning")).startswith("an on_before_optimizer")
        True
        >>> guard_update(RunSetup(framework="torch", extra={"loop": "accelerate"}))[:48]
        'after accelerator.backward(loss), norm = acceler'
    """
    loop = setup.extra.get("loop") if setup.framework == "torch" else setup.framework
    return _GUARD_UPDATE.get(str(loop), _GUARD_UPDATE["torch"])


def poisoned_weights_fix(setup: RunSetup | None, step: int | None) -> str:
    """What to do when an update wrote NaN/inf into the weights (the locator found them
    non-finite), after the first non-finite loss at ``step``.

    With a loss scaler, an update that bypassed it is the suspect. Without one (bf16, fp32)
    nothing skips a non-finite step: the batch of ``step`` was applied, so a restart from a
    checkpoint before it meets that batch again unless it is skipped, and every update needs
    a guard.

    Example:
        >>> no_scaler = RunSetup(framework="lightning", active_precision="bf16-mixed")
        >>> print(poisoned_weights_fix(no_scaler, 20)[:79])
        Restore a checkpoint from before step 20 and skip the batch of step 20 when you
        >>> poisoned_weights_fix(RunSetup(scaler="dynamic"), 20).startswith("Restore the last")
        True
    """
    if setup is None or setup.has_scaler or setup.active_precision == UNKNOWN:  # not read
        return ("Restore the last good checkpoint; make sure every update goes through "
                "scaler.step() (it skips non-finite steps) and find the first step whose loss "
                "or gradients went non-finite.")
    where = f"step {step}" if step is not None else "the first non-finite loss"
    batch = f"the batch of step {step}" if step is not None else "its batch"
    return (f"Restore a checkpoint from before {where} and skip {batch} when you resume (its "
            "non-finite update was applied: no loss scaler skips one in this run). Guard every "
            f"update: {guard_update(setup)}; and check that batch's samples for NaN/inf.")


def _at(step: int | None) -> str:
    return f" (the batch of step {step} holds them)" if step is not None else ""


def describe(setup: RunSetup) -> dict[str, Any]:
    """The run facts the fix texts used, for the diagnosis's evidence."""
    return {k: setup.extra[k] for k in ("device", "gradient_clipping", "warmup_steps")
            if setup.extra.get(k) is not None}
