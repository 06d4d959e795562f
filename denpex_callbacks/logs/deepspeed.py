"""DeepSpeed's loss-scale lines, from the ``[deepscale]`` releases to 0.19.

Families matched (wording varies by release and optimizer):
- ``[deepspeed] OVERFLOW! Rank {r} Skipping step. Attempted loss scale: {s}, reducing to {n}``
  (ZeRO 1/2/3, DynamicLossScaler; ``[deepscale]`` prefix up to 0.5; the rank part is
  absent in some releases), ``... but hysteresis is {h}. Reducing hysteresis to {h-1}``.
- ``[deepspeed] fp16 dynamic loss scale overflow! [Rank {r}] Skipping step. Attempted loss
  scale: {s}, reducing to {n}`` (FP16 fused/unfused optimizers and ZeRO 1/2 of 0.3-0.14).
- ``[deepspeed] OVERFLOW! Skipping step. Gradients are non-finite, weights were not updated.``
  (static LossScaler, 0.19).
- ``Grad overflow on iteration[:] {i}`` with ``Reducing dynamic loss scale from {a} to {b}``
  or ``Using static loss scale of[:] {s}``; ``Increasing dynamic loss scale from {a} to {b}``.
  The fused optimizer's ``logger.info(f"\\nGrad overflow on iteration {i}")`` puts the
  logging prefix and the message on two lines; the first releases (0.3, ``print``) follow it
  with ``Using dynamic loss scale of {s}`` (the scale before it is halved).
- ``Overflow detected. Skipping step. Attempted loss scale: {s}, reducing to {n}`` (fused and
  unfused FP16 optimizers' ``log_dist``, ranks=[0], 0.10-0.14).
- ``step={step}, skipped={n}, lr={lr}, mom={mom}`` (engine progress, ``[Rank 0]`` prefix up to
  0.14); ``Current loss scale already at minimum - cannot decrease scale anymore.``;
  the engine's configuration dump (``float16_config ...``, ``dynamic_loss_scale_args ....``),
  printed once per ``deepspeed.initialize``: a run starts there;
  ``Creating fp16 [unfused ]optimizer with {static|dynamic} loss scale[: {s}]``.
"""

from __future__ import annotations

import re

from denpex_callbacks.core.observation import SCALE_BELOW
from denpex_callbacks.logs.events import (
    FLAG,
    GROWTH,
    OVERFLOW,
    OWN_COUNT,
    PROGRESS,
    RUN_START,
    SCALE_KEPT,
    SETUP,
    SOLE_COUNT,
    LogEvent,
    to_float,
    to_int,
)

FAMILY = "deepspeed"
KEYWORDS = (b"verflow", b"VERFLOW", b"loss scale", b"skipped=")


_NUM = r"([-+]?\d[\d.]*(?:[eE][-+]?\d+)?|inf|nan)"
_OVERFLOW = re.compile(
    r"(?:\[deep(?:speed|scale)\]\s+(?:fp16 dynamic loss scale overflow!|OVERFLOW!)"
    r"|Overflow detected\.)"
    r"(?:\s+Rank\s+(\d+))?\s+Skipping step\."
    r"(?:\s+Attempted loss scale:\s*" + _NUM
    + r"(?:,\s*reducing to\s*" + _NUM
    + r"|,\s*but hysteresis is\s*(\d+)\.\s*Reducing hysteresis to\s*(\d+))?)?"
)
_GRAD_OVERFLOW = re.compile(r"Grad overflow on iteration:?\s*(\d+)")
_REDUCING = re.compile(r"Reducing dynamic loss scale from\s*" + _NUM + r"\s*to\s*" + _NUM)
_INCREASING = re.compile(r"Increasing dynamic loss scale from\s*" + _NUM + r"\s*to\s*" + _NUM)
_DYNAMIC_OF = re.compile(r"Using dynamic loss scale of:?\s*" + _NUM)
_STATIC = re.compile(r"Using static loss scale of:?\s*" + _NUM)
_CREATING = re.compile(r"Creating fp16 (?:unfused )?optimizer with (static|dynamic) loss scale"
                       r"(?::\s*" + _NUM + ")?")
_STEP = re.compile(r"step=(\d+),\s*skipped=(\d+)(?:,\s*lr=(\[[^\]]*\]|[^,]+))?")
_MINIMUM = "Current loss scale already at minimum"
_KEPT = "weights were not updated"
# The engine's configuration dump at INFO (0.19: ``float16_config ... enabled=True ...
# loss_scale=0.0 initial_scale_power=8 ... hysteresis=2 ... min_loss_scale=1``; older
# releases print ``fp16_enabled ... True`` and ``dynamic_loss_scale_args ... {...}``).
_FP16_CONFIG = re.compile(r"float16_config\s+\.*\s*enabled=(True|False)(.*)")
_BF16_CONFIG = re.compile(r"bfloat16_config\s+\.*\s*enabled=True")
_ARGS_FIELD = re.compile(r"dynamic_loss_scale_args\s+\.+\s")
_CONFIG_FIELD = re.compile(r"(loss_scale|initial_scale_power|loss_scale_window|hysteresis"
                           r"|min_loss_scale)=([\d.]+)")
# ...and the older dump's dict (``'scale_window': 1000``): the growth interval either way
# (deepspeed/runtime/precision_config.py ``loss_scale_window``, passed to DynamicLossScaler).
_ARGS_WINDOW = re.compile(r"'scale_window':\s*(\d+)")
# ...and its hysteresis, ``'delayed_shift': 2`` (the DynamicLossScaler argument that
# ``hysteresis`` is passed as): a tooth of the sawtooth skips that many more steps.
_ARGS_SHIFT = re.compile(r"'delayed_shift':\s*(\d+)")


def parse(text: str) -> list[LogEvent]:
    """Events on one DeepSpeed line.

    Example:
        >>> [e.scale_after for e in parse(
        ...     "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1024, "
        ...     "reducing to 512")]
        [512.0]
        >>> parse("[Rank 0] step=10, skipped=2, lr=[0.001], mom=[(0.9, 0.999)]")[0].skipped_total
        2
    """
    out: list[LogEvent] = []
    if "_config " in text:
        return _config(text)
    if "dynamic_loss_scale_args" in text and _ARGS_FIELD.search(text):
        # DeepSpeedConfig.print's field (releases before 0.19), once per deepspeed.initialize
        return [LogEvent(SETUP, FAMILY, setup=_args_setup(text))]
    if "verflow" in text or "VERFLOW" in text:
        found = _OVERFLOW.search(text)
        if found:
            rank, before, after, hyst, hyst_next = found.groups()
            scale_before = to_float(before)
            hysteresis = to_int(hyst_next)
            scale_after = to_float(after) if after else (scale_before if hyst else None)
            # LossScalerBase.update_scale's wording: only a scaler that never moves its scale
            # prints it (DynamicLossScaler says the scale it attempted and the new one)
            evidence: dict[str, object] | None = {SCALE_KEPT: True} if _KEPT in text else None
            # the scale the line leaves: the next one, or the attempted one hysteresis kept
            printed = after if after is not None else before if hyst else None
            if scale_after == 0.0 and printed is not None and "." not in printed:
                # ``{int(next_scale)}``, ``{int(self.cur_scale)}``: a scale below 1 (a
                # min_loss_scale below its default 1) prints 0 in either branch of
                # DynamicLossScaler.update_scale, the one that halves and the one that only
                # spends hysteresis; read as the most that prints so
                evidence = {SCALE_BELOW: 1.0}
                scale_after = 0.5
                scale_before = 0.5 if scale_before == 0.0 else scale_before
            out.append(LogEvent(OVERFLOW, FAMILY, rank=to_int(rank), scale_before=scale_before,
                                scale_after=scale_after, hysteresis=hysteresis,
                                evidence=evidence))
            return out
        found = _GRAD_OVERFLOW.search(text)
        if found:
            out.append(LogEvent(OVERFLOW, FAMILY, step=int(found.group(1)),
                                evidence={OWN_COUNT: True}))
            return out
    if "loss scale" in text:
        if found := _REDUCING.search(text):
            out.append(LogEvent(OVERFLOW, FAMILY, scale_before=to_float(found.group(1)),
                                scale_after=to_float(found.group(2))))
        elif found := _INCREASING.search(text):
            out.append(LogEvent(GROWTH, FAMILY, scale_before=to_float(found.group(1)),
                                scale_after=to_float(found.group(2))))
        elif found := _DYNAMIC_OF.search(text):
            scale = to_float(found.group(1))
            out.append(LogEvent(OVERFLOW, FAMILY, scale_before=scale,
                                scale_after=max(scale / 2, 1.0) if scale is not None else None))
        elif found := _STATIC.search(text):
            scale = to_float(found.group(1))
            out.append(LogEvent(OVERFLOW, FAMILY, scale_before=scale, scale_after=scale))
            out.append(LogEvent(SETUP, FAMILY, setup={"scaler": "static", "init_scale": scale}))
        elif found := _CREATING.search(text):
            setup: dict[str, object] = {"scaler": found.group(1),
                                        "active_precision": "fp16-mixed"}
            if found.group(2):
                setup["init_scale"] = to_float(found.group(2))
            out.append(LogEvent(SETUP, FAMILY, setup=setup))
        elif _MINIMUM in text:
            out.append(LogEvent(
                FLAG, FAMILY, code="AMP003",
                summary="DeepSpeed stopped the run: the loss scale is at its floor "
                        "(min_loss_scale) and the gradients still overflow"))
    if "skipped=" in text and (found := _STEP.search(text)):
        lr = found.group(3)
        # The brackets off first: float() then reads "[0.0001]" at once (the value is the
        # same: to_float takes the first number either way) instead of raising, per line.
        out.append(LogEvent(PROGRESS, FAMILY, step=int(found.group(1)),
                            skipped_total=int(found.group(2)),
                            lr=to_float(lr.strip("[]")) if lr else None,
                            evidence={SOLE_COUNT: True}))
    return out


def _args_setup(text: str) -> dict[str, object]:
    """The setup of the older dump's ``dynamic_loss_scale_args`` dict: a run starts, and
    where it states a window, a dynamic scaler with that growth interval and hysteresis.

    Example:
        >>> _args_setup("dynamic_loss_scale_args ...... {'init_scale': 1024, "
        ...             "'scale_window': 16, 'delayed_shift': 2, 'min_scale': 1}")
        {'run_start': True, 'scaler': 'dynamic', 'growth_interval': 16, 'hysteresis': 2}
    """
    setup: dict[str, object] = {RUN_START: True}
    window = _ARGS_WINDOW.search(text)
    if window is None:
        return setup
    setup.update(scaler="dynamic", growth_interval=int(window.group(1)))
    if (shift := _ARGS_SHIFT.search(text)) is not None:
        setup["hysteresis"] = int(shift.group(1))
    return setup


def _config(text: str) -> list[LogEvent]:
    # The dump is printed once per deepspeed.initialize: a run starts (RUN_START).
    if _BF16_CONFIG.search(text):
        return [LogEvent(SETUP, FAMILY, setup={"active_precision": "bf16-mixed", "scaler": None,
                                               RUN_START: True})]
    found = _FP16_CONFIG.search(text)
    if found is None or found.group(1) != "True":
        return []
    fields = dict(_CONFIG_FIELD.findall(found.group(2)))
    static = to_float(fields.get("loss_scale")) or 0.0
    setup: dict[str, object] = {"active_precision": "fp16-mixed",
                                "scaler": "static" if static else "dynamic", RUN_START: True}
    if static:
        setup["init_scale"] = static
    elif "initial_scale_power" in fields:
        setup["init_scale"] = 2.0 ** float(fields["initial_scale_power"])
    if "loss_scale_window" in fields and not static:
        # a short window is a healthy sawtooth that skips more: the skip rate is judged by it
        setup["growth_interval"] = to_int(fields["loss_scale_window"])
    if "min_loss_scale" in fields:
        setup["min_scale"] = to_float(fields["min_loss_scale"])
    if "hysteresis" in fields:
        setup["hysteresis"] = to_int(fields["hysteresis"])
    return [LogEvent(SETUP, FAMILY, setup=setup)]
