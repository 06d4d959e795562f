"""Where DeepSpeed keeps its loss scale, across versions and optimizer kinds.

DeepSpeed's scale values are Python numbers (its optimizers sync on overflow themselves), so
reading them adds no host-device sync. ``engine.loss_scale()`` is the CONFIGURED value
(0 = dynamic), never the live one, and is not used here.

Layouts handled:
- ZeRO 1/2/3: ``optimizer.loss_scaler`` (DynamicLossScaler or static LossScaler).
- FP16_Optimizer / FP16_UnfusedOptimizer: ``optimizer.loss_scale_config`` from 0.18.6,
  ``optimizer.cur_scale`` (and ``dynamic_loss_scale``) up to 0.18.5.
- BF16_Optimizer: no scale, only ``overflow``.
- ``torch_autocast`` mode: ``engine.torch_autocast_z0_gradscaler``, a torch GradScaler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from denpex_callbacks.setup import RunSetup


@dataclass(frozen=True)
class DeepSpeedScaleState:
    """The scale state of a DeepSpeed optimizer at one moment.

    Attributes:
        scale: Live loss scale, None when the optimizer has none (bf16, fp32).
        overflow: Whether the last step overflowed (None: not exposed).
        dynamic: True for dynamic, False for static scaling, None when no scaler.
        hysteresis: Remaining overflows tolerated before a backoff (ZeRO's DynamicLossScaler).
        min_scale: Floor of the dynamic scale.
        scale_window: Clean steps between growths.
        layout: Which attribute layout was found (for the report header).
    """

    scale: float | None
    overflow: bool | None
    dynamic: bool | None
    hysteresis: int | None = None
    min_scale: float | None = None
    scale_window: int | None = None
    layout: str = "none"


def unwrap_optimizer(obj: Any) -> Any:
    """The DeepSpeed optimizer behind an engine, an accelerate wrapper or the optimizer itself."""
    for _ in range(4):
        if hasattr(obj, "loss_scaler") or hasattr(obj, "loss_scale_config"):
            return obj
        if hasattr(obj, "cur_scale") and hasattr(obj, "overflow"):
            return obj
        inner = getattr(obj, "optimizer", None)
        if inner is None or inner is obj:
            return obj
        obj = inner
    return obj


def _float(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def read_scale_state(obj: Any) -> DeepSpeedScaleState:
    """Read the live scale state from an engine, a wrapper or a DeepSpeed optimizer.

    Example:
        >>> class Scaler:  # the attribute layout of ZeRO's DynamicLossScaler
        ...     cur_scale, dynamic, cur_hysteresis = 512.0, True, 2
        ...     min_scale, scale_window = 1.0, 1000
        >>> class ZeroOptimizer:
        ...     loss_scaler, overflow = Scaler(), False
        >>> read_scale_state(ZeroOptimizer()).scale
        512.0
    """
    opt = unwrap_optimizer(obj)
    overflow = getattr(opt, "overflow", None)
    overflow = bool(overflow) if isinstance(overflow, bool) else None
    scaler = getattr(opt, "loss_scaler", None)
    if scaler is not None and hasattr(scaler, "cur_scale"):
        dynamic = bool(getattr(scaler, "dynamic", False))
        return DeepSpeedScaleState(
            scale=_float(scaler.cur_scale),
            overflow=overflow,
            dynamic=dynamic,
            hysteresis=_int(getattr(scaler, "cur_hysteresis", None)) if dynamic else None,
            min_scale=_float(getattr(scaler, "min_scale", None)) if dynamic else None,
            scale_window=_int(getattr(scaler, "scale_window", None)) if dynamic else None,
            layout="loss_scaler",
        )
    config = getattr(opt, "loss_scale_config", None)
    if config is not None and hasattr(config, "cur_scale"):
        if not getattr(config, "use_grad_scaling", True):
            return DeepSpeedScaleState(None, overflow, None, layout="loss_scale_config/no-scaling")
        dynamic = bool(getattr(config, "dynamic_loss_scale", False))
        return DeepSpeedScaleState(
            scale=_float(config.cur_scale),
            overflow=overflow,
            dynamic=dynamic,
            min_scale=_float(getattr(config, "min_loss_scale", None)) if dynamic else None,
            scale_window=_int(getattr(config, "scale_window", None)) if dynamic else None,
            layout="loss_scale_config",
        )
    if "cur_scale" in getattr(type(opt), "__dict__", {}) or "cur_scale" in vars(opt):
        dynamic = bool(getattr(opt, "dynamic_loss_scale", False))
        return DeepSpeedScaleState(
            scale=_float(getattr(opt, "cur_scale", None)),
            overflow=overflow,
            dynamic=dynamic,
            min_scale=_float(getattr(opt, "min_loss_scale", None)) if dynamic else None,
            scale_window=_int(getattr(opt, "scale_window", None)) if dynamic else None,
            layout="cur_scale",
        )
    return DeepSpeedScaleState(None, overflow, None, layout="none")


def deepspeed_setup(obj: Any, setup: RunSetup) -> RunSetup:
    """Fill the scaler fields of ``setup`` from a DeepSpeed optimizer."""
    state = read_scale_state(obj)
    if state.scale is None:
        setup.scaler = None
        return setup
    setup.scaler = "dynamic" if state.dynamic else "static"
    setup.init_scale = state.scale
    setup.min_scale = state.min_scale
    setup.hysteresis = state.hysteresis
    setup.growth_interval = state.scale_window
    setup.extra["deepspeed_scale_layout"] = state.layout
    return setup
