"""Reading torch.amp.GradScaler state (also behind accelerate and Lightning) without a sync.

``get_scale()`` calls ``.item()``: a host-device sync on CUDA. These helpers return the
device tensors instead; callers snapshot them with :class:`DeferredValues`.
"""

from __future__ import annotations

from typing import Any

import torch

from denpex_callbacks.core.run_setup import RunSetup

_SCALER_TYPES: dict[type, bool] = {}  # type -> has the GradScaler methods (asked every step)
try:  # the protocol stages, compared by identity (an Enum's .name is a slow descriptor)
    from torch.amp.grad_scaler import OptState

    _STAGES: tuple[tuple[Any, str], ...] = tuple((stage, stage.name) for stage in OptState)
    UNSCALED: Any = OptState.UNSCALED
    STEPPED: Any = OptState.STEPPED
except ImportError:  # pragma: no cover - a torch without it: read the names
    _STAGES = ()
    UNSCALED, STEPPED = object(), object()


def is_grad_scaler(obj: Any) -> bool:
    """Duck-typed: torch's GradScaler and its subclasses (ShardedGradScaler, old cuda.amp).

    Example:
        >>> is_grad_scaler(torch.amp.GradScaler("cpu")), is_grad_scaler(None)
        (True, False)
    """
    kind = type(obj)
    known = _SCALER_TYPES.get(kind)
    if known is None:
        known = _SCALER_TYPES[kind] = all(
            callable(getattr(kind, name, None))
            for name in ("get_growth_interval", "unscale_", "is_enabled")
        )
    return known


def scaler_enabled(scaler: Any) -> bool:
    """True for an enabled GradScaler; False for None or ``enabled=False``."""
    return scaler is not None and is_grad_scaler(scaler) and bool(scaler.is_enabled())


def scale_tensor(scaler: Any) -> torch.Tensor | None:
    """The live scale as a device tensor (None before the first ``scale()`` call)."""
    scale = getattr(scaler, "_scale", None)
    return scale if isinstance(scale, torch.Tensor) else None


def growth_tracker_tensor(scaler: Any) -> torch.Tensor | None:
    """Consecutive clean steps counted by the scaler, as a device tensor."""
    tracker = getattr(scaler, "_growth_tracker", None)
    return tracker if isinstance(tracker, torch.Tensor) else None


def found_inf_tensor(scaler: Any, optimizer: Any) -> torch.Tensor | None:
    """Sum of found_inf for ``optimizer`` between ``unscale_()`` and ``update()``, else None.

    ``update()`` replaces the per-optimizer state, so take this before the step ends.
    """
    states = getattr(scaler, "_per_optimizer_states", None)
    if not states or optimizer is None:
        return None
    state = states.get(id(optimizer)) if isinstance(states, dict) else None
    if not state:
        return None
    per_device = state.get("found_inf_per_device") or {}
    tensors = [t for t in per_device.values() if isinstance(t, torch.Tensor)]
    if not tensors:
        return None
    if len(tensors) == 1:
        return tensors[0]
    device = tensors[0].device
    return torch.stack([t.to(device, non_blocking=True).reshape(()) for t in tensors]).sum()


NO_VIEWS: tuple[Any, Any, Any] = (None, None, None)  # what an adapter holds before the first


def host_views(scaler: Any) -> tuple[torch.Tensor | None, Any, Any]:
    """(the scale tensor, views of it and of the growth tracker) of a GradScaler on the CPU,
    for the adapters' hot path: ``view[()]`` reads the number as a Python float (int) by
    indexing a ``memoryview``, without a call into torch (``item()``) or NumPy (``float()``
    on an array), whose code is cold in the middle of a training step. GradScaler writes both
    tensors in place, so the views stay right while ``scaler._scale`` is the tensor kept
    first. The memory is shared through NumPy (each view keeps its tensor alive); without
    NumPy the views are None (read with ``item()`` then).

    Example:
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
        >>> _ = scaler.scale(torch.tensor(1.0))
        >>> scale, scale_view, tracker_view = host_views(scaler)
        >>> scaler.update(64.0)
        >>> scale is scaler._scale, scale_view[()], tracker_view[()]
        (True, 64.0, 0)
    """
    scale, tracker = scaler._scale, scaler._growth_tracker
    try:
        views = memoryview(scale.numpy()), memoryview(tracker.numpy())
        views[0][()], views[1][()]  # (a format memoryview cannot index raises here, not later)
    except (RuntimeError, TypeError, AttributeError, ValueError, NotImplementedError):
        return scale, None, None  # no NumPy, or not plain CPU tensors
    return scale, *views


def optimizer_stage(scaler: Any, optimizer: Any) -> str | None:
    """The scaler's protocol stage for ``optimizer``: ``READY``, ``UNSCALED`` or ``STEPPED``."""
    states = getattr(scaler, "_per_optimizer_states", None)
    if not isinstance(states, dict) or id(optimizer) not in states:
        return None
    stage = states[id(optimizer)].get("stage")
    for known, name in _STAGES:
        if stage is known:
            return name
    return getattr(stage, "name", None)


def scaler_setup(scaler: Any, setup: RunSetup) -> RunSetup:
    """Fill the scaler fields of ``setup`` from a GradScaler's Python-side config (no sync)."""
    if not scaler_enabled(scaler):
        setup.scaler = None
        return setup
    setup.scaler = "dynamic"
    setup.init_scale = float(getattr(scaler, "_init_scale", 0.0)) or None
    setup.growth_interval = int(scaler.get_growth_interval())
    setup.growth_factor = float(scaler.get_growth_factor())
    setup.backoff_factor = float(scaler.get_backoff_factor())
    return setup


def optimizer_has_fp16_params(optimizer: Any) -> bool:
    """True when any parameter the optimizer updates is float16 (pure fp16 training)."""
    for group in getattr(optimizer, "param_groups", ()):
        for param in group.get("params", ()):
            if isinstance(param, torch.Tensor) and param.dtype == torch.float16:
                return True
    return False


def first_lr(optimizer: Any) -> float | None:
    """Learning rate of the first parameter group (a Python number, no sync)."""
    groups = getattr(optimizer, "param_groups", None)
    if not groups:
        return None
    lr = groups[0].get("lr")
    if isinstance(lr, torch.Tensor):
        return None  # a tensor LR would need a sync to read
    return float(lr) if lr is not None else None
