"""Where DeepSpeed keeps its loss scale, across versions and optimizer kinds.

DeepSpeed's own scale values are Python numbers (its optimizers sync on overflow themselves),
so reading them adds no host-device sync. ``engine.loss_scale()`` is the CONFIGURED value
(0 = dynamic), never the live one, and is not used here.

Layouts handled, in the order they are looked for:
- ``override_loss_scale()`` in force (``custom_loss_scaler``): ``external_loss_scale``.
- ``torch_autocast`` mode with fp16: a torch GradScaler, ``engine.torch_autocast_z0_gradscaler``
  (ZeRO 0) or ``optimizer.torch_autocast_gradscaler`` (ZeRO). Its scale is a device tensor:
  read it through :mod:`denpex_callbacks.readers.grad_scaler` to avoid a sync. DeepSpeed does
  not count its skips (``engine.skipped_steps`` stays 0, ``was_step_applied()`` stays True).
- ZeRO 1/2/3: ``optimizer.loss_scaler`` (DynamicLossScaler with hysteresis, or LossScaler).
- FP16_Optimizer / FP16_UnfusedOptimizer: ``optimizer.loss_scale_config`` from 0.18.6;
  ``optimizer.cur_scale`` with ``dynamic_loss_scale``, ``min_loss_scale``, ``scale_window``
  as attributes of the optimizer up to 0.18.5. No hysteresis.
- BF16_Optimizer (and fp32): no scale, only ``overflow``.

Recorded layouts of 0.17.6, 0.18.4, 0.18.5, 0.18.6 and 0.19.8 are checked in
``tests/deepspeed/test_reader_layouts.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.readers.grad_scaler import GradScalerReader, scaler_enabled, scaler_setup
from denpex_callbacks.readers.instance_wraps import InstanceWraps
from denpex_callbacks.readers.scale_reading import ScaleReading

_UNWRAP_DEPTH = 4  # accelerate wrapper -> engine -> DeepSpeed optimizer -> torch optimizer
# The layouts whose live scale is a holder's ``cur_scale``: the holder is the optimizer's
# attribute of the layout's name (``cur_scale``: the optimizer itself), as _state_of finds it.
_HOLDER_LAYOUTS = ("loss_scaler", "loss_scale_config", "cur_scale")
_ZERO_HYSTERESIS = "cur_hysteresis"  # ZeRO's DynamicLossScaler's remaining hysteresis


@dataclass(frozen=True)
class DeepSpeedScaleState:
    """The scale state of a DeepSpeed optimizer at one moment.

    Attributes:
        scale: Live loss scale as a Python number; None when there is no scaler (bf16,
            fp32) or when it lives in a torch GradScaler (see ``grad_scaler``).
        overflow: Whether the last step overflowed (None: not exposed, e.g. torch_autocast).
        dynamic: True for dynamic, False for static scaling, None when no scaler.
        hysteresis: Remaining overflows tolerated before a backoff (ZeRO's DynamicLossScaler).
        min_scale: Floor of the dynamic scale.
        scale_window: Clean steps between growths.
        layout: Which attribute layout was found (for the report header).
        grad_scaler: The torch GradScaler holding the scale in ``torch_autocast`` mode.
    """

    scale: float | None
    overflow: bool | None
    dynamic: bool | None
    hysteresis: int | None = None
    min_scale: float | None = None
    scale_window: int | None = None
    layout: str = "none"
    grad_scaler: Any = None


def _has_scale_state(obj: Any) -> bool:
    return (
        hasattr(obj, "loss_scaler")
        or hasattr(obj, "loss_scale_config")
        or (hasattr(obj, "cur_scale") and hasattr(obj, "overflow"))
    )


def unwrap_optimizer(obj: Any) -> Any:
    """The DeepSpeed optimizer behind an engine, an accelerate wrapper or the optimizer itself.

    Example:
        >>> class Inner:
        ...     loss_scaler, overflow = None, False
        >>> class Wrapper:
        ...     optimizer = Inner()
        >>> type(unwrap_optimizer(Wrapper())).__name__
        'Inner'
    """
    for _ in range(_UNWRAP_DEPTH):
        if _has_scale_state(obj):
            return obj
        inner = getattr(obj, "optimizer", None)
        if inner is None or inner is obj:
            return obj
        obj = inner
    return obj


def autocast_grad_scaler(obj: Any) -> Any:
    """The enabled torch GradScaler of ``torch_autocast`` mode behind ``obj``, else None.

    ``obj`` may be the engine (ZeRO 0 keeps it there), a ZeRO optimizer or a wrapper of either.
    """
    for _ in range(_UNWRAP_DEPTH):
        for name in ("torch_autocast_z0_gradscaler", "torch_autocast_gradscaler"):
            scaler = getattr(obj, name, None)
            if scaler_enabled(scaler):
                return scaler
        inner = getattr(obj, "engine", None) or getattr(obj, "optimizer", None)
        if inner is None or inner is obj:
            return None
        obj = inner
    return None


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


def _own_attribute(obj: Any, name: str) -> bool:
    """True when ``name`` is a plain attribute of ``obj`` (not a property that may raise)."""
    return name in getattr(obj, "__dict__", {})


def read_scale_state(obj: Any) -> DeepSpeedScaleState:
    """Read the live scale state from an engine, a wrapper or a DeepSpeed optimizer.

    Pass the engine where you have it: in ``torch_autocast`` mode under ZeRO 0 the scaler is
    an attribute of the engine, not of the optimizer.

    Example:
        >>> class Scaler:  # the attribute layout of ZeRO's DynamicLossScaler
        ...     cur_scale, dynamic, cur_hysteresis = 512.0, True, 2
        ...     min_scale, scale_window = 1.0, 1000
        >>> class ZeroOptimizer:
        ...     loss_scaler, overflow = Scaler(), False
        >>> read_scale_state(ZeroOptimizer()).scale
        512.0
    """
    return _state_of(unwrap_optimizer(obj), autocast_grad_scaler(obj))


def _state_of(opt: Any, grad_scaler: Any) -> DeepSpeedScaleState:
    """The state read from the unwrapped optimizer (and the autocast GradScaler, if any)."""
    raw_overflow = getattr(opt, "overflow", None)
    overflow = raw_overflow if isinstance(raw_overflow, bool) else None
    if getattr(opt, "custom_loss_scaler", False):
        return DeepSpeedScaleState(
            _float(getattr(opt, "external_loss_scale", None)), overflow, False,
            layout="external_loss_scale",
        )
    if grad_scaler is not None:
        return DeepSpeedScaleState(
            None, overflow, True, layout="torch_autocast", grad_scaler=grad_scaler,
            scale_window=_int(grad_scaler.get_growth_interval()),
        )
    scaler = getattr(opt, "loss_scaler", None)
    if scaler is not None and hasattr(scaler, "cur_scale"):
        if str(getattr(opt, "dtype", "torch.float16")) != "torch.float16":
            # ZeRO with bf16/fp32 parameters keeps a LossScaler(1.0) that scales nothing.
            return DeepSpeedScaleState(None, overflow, None, layout="loss_scaler/no-scaling")
        return _from_holder(scaler, overflow, "loss_scaler", getattr(scaler, "dynamic", False),
                            min_name="min_scale", hysteresis_name=_ZERO_HYSTERESIS)
    config = getattr(opt, "loss_scale_config", None)
    if config is not None and hasattr(config, "cur_scale"):
        if not getattr(config, "use_grad_scaling", True):
            return DeepSpeedScaleState(None, overflow, None, layout="loss_scale_config/no-scaling")
        return _from_holder(config, overflow, "loss_scale_config",
                            getattr(config, "dynamic_loss_scale", False))
    if _own_attribute(opt, "cur_scale"):
        # Up to 0.18.5 FP16_Optimizer also served bf16 (ZeRO 1, fp32 accumulation) with a
        # cur_scale of 1.0 that scales nothing; its loss_scale property answers None then.
        if not getattr(opt, "use_grad_scaling", True) or getattr(opt, "loss_scale", 0) is None:
            return DeepSpeedScaleState(None, overflow, None, layout="cur_scale/no-scaling")
        return _from_holder(opt, overflow, "cur_scale", getattr(opt, "dynamic_loss_scale", False))
    return DeepSpeedScaleState(None, overflow, None, layout="none")


def _from_holder(
    holder: Any,
    overflow: bool | None,
    layout: str,
    dynamic: Any,
    *,
    min_name: str = "min_loss_scale",
    hysteresis_name: str | None = None,
) -> DeepSpeedScaleState:
    """The state from the object holding ``cur_scale`` (a scaler, a config, the optimizer)."""
    is_dynamic = bool(dynamic)

    def dynamic_only(name: str | None) -> Any:
        return getattr(holder, name, None) if is_dynamic and name else None

    return DeepSpeedScaleState(
        scale=_float(holder.cur_scale),
        overflow=overflow,
        dynamic=is_dynamic,
        hysteresis=_int(dynamic_only(hysteresis_name)),
        min_scale=_float(dynamic_only(min_name)),
        scale_window=_int(dynamic_only("scale_window")),
        layout=layout,
    )


def scales_fp16(engine: Any) -> bool:
    """Whether a DeepSpeed engine runs fp16, which always steps through a loss scaler (even
    one this reader does not find in an unknown layout).

    Example:
        >>> scales_fp16(object())
        False
    """
    enabled = getattr(engine, "fp16_enabled", None)
    return bool(enabled()) if callable(enabled) else False


def at_accumulation_boundary(engine: Any) -> bool:
    """Whether the coming ``engine.step()`` call ends a gradient accumulation, the only call
    that steps the optimizer (and may change the scale). Asked before the call, as
    ``step()`` asks it (its micro-step counter moves at the call's end; 0.16.8-0.19.8); under
    ``managed_gradient_accumulation: false`` (where DeepSpeed answers True only inside
    ``step()``) and where the engine cannot say, every call may be one.

    Example:
        >>> class Engine:
        ...     micro_steps = 0
        ...     def is_gradient_accumulation_boundary(self):
        ...         return (self.micro_steps + 1) % 4 == 0
        >>> at_accumulation_boundary(Engine()), at_accumulation_boundary(object())
        (False, True)
    """
    try:
        managed = getattr(engine, "managed_gradient_accumulation", None)
        if callable(managed) and not managed():
            return True
        return bool(engine.is_gradient_accumulation_boundary())
    except Exception:  # (no such method, or it failed: the step is told by global_steps)
        return True


def deepspeed_setup(obj: Any, setup: RunSetup) -> RunSetup:
    """Fill the scaler fields of ``setup`` from a DeepSpeed engine or optimizer.

    Example:
        >>> class Config:  # FP16_Optimizer's layout from DeepSpeed 0.18.6 on
        ...     use_grad_scaling, dynamic_loss_scale, cur_scale = True, False, 128.0
        >>> class FP16Optimizer:
        ...     loss_scale_config, overflow = Config(), False
        >>> deepspeed_setup(FP16Optimizer(), RunSetup(framework="deepspeed")).scaler
        'static'
    """
    state = read_scale_state(obj)
    setup.extra["deepspeed_scale_layout"] = state.layout
    if state.grad_scaler is not None:
        return scaler_setup(state.grad_scaler, setup)
    if state.scale is None:
        setup.scaler = None
        return setup
    setup.scaler = "dynamic" if state.dynamic else "static"
    setup.init_scale = state.scale
    setup.min_scale = state.min_scale
    setup.hysteresis = state.hysteresis
    setup.growth_interval = state.scale_window
    return setup


class DeepSpeedReader:
    """Reads the loss scale of one DeepSpeed engine (or its optimizer, or accelerate's wrapper)
    around each optimizer step: Python numbers, so no sync (DeepSpeed's optimizers sync on
    overflow themselves). The objects behind it are found once: they do not change once
    ``deepspeed.initialize`` returned.

    In ``torch_autocast`` mode the scale lives in a torch GradScaler (:attr:`grad_scaler`):
    read that one with :class:`~denpex_callbacks.readers.grad_scaler.GradScalerReader`.

    Example:
        >>> class Scaler:
        ...     cur_scale, dynamic, cur_hysteresis = 512.0, True, 2
        ...     min_scale, scale_window = 1.0, 1000
        >>> class ZeroOptimizer:
        ...     loss_scaler, overflow = Scaler(), False
        >>> optimizer = ZeroOptimizer()
        >>> reader = DeepSpeedReader(optimizer)
        >>> reader.step_begins()
        >>> optimizer.loss_scaler.cur_scale, optimizer.overflow = 256.0, True
        >>> [reading] = reader.take()
        >>> reading.scale_before, reading.scale_after, reading.overflow
        (512.0, 256.0, True)
    """

    def __init__(self, source: Any) -> None:
        self._source = source
        # Found once, read each step: the wrappers are not unwrapped again.
        optimizer, grad_scaler = unwrap_optimizer(source), autocast_grad_scaler(source)
        self._read: Callable[[], DeepSpeedScaleState] = lambda: _state_of(optimizer, grad_scaler)
        self.grad_scaler = grad_scaler
        self._wraps = InstanceWraps()  # the optimizer's step, the engine's backward
        # The layout is the optimizer's type's, found once too: each step then reads the
        # holder's cur_scale (and hysteresis) and the optimizer's overflow, nothing else.
        # The holder itself is looked up each step (ZeRO's load_state_dict replaces its
        # loss_scaler), and override_loss_scale() can switch to the external scale later.
        state = self._read()
        self._optimizer = optimizer
        self._layout = state.layout
        self._hysteresis_name = (_ZERO_HYSTERESIS if state.layout == "loss_scaler"
                                 and state.dynamic else None)
        self._befores: list[float | None] = []  # the scale before each step not taken yet

    @classmethod
    def attached(
        cls, source: Any, *, on_exit: Callable[[BaseException], Any],
        on_error: Callable[[], Any], on_close: Callable[[Callable[[], Any]], Any],
    ) -> tuple[DeepSpeedReader, GradScalerReader | None]:
        """The run's reader of ``source``, its exit watched (``on_exit``, see
        :meth:`watch_exit`) and its :meth:`unwatch` handed to ``on_close``; with the reader of
        the GradScaler that ``torch_autocast`` mode keeps, attached, if it keeps one (every
        adapter under DeepSpeed builds its readers here: the pipeline's ``fail`` and
        ``on_close``)."""
        reader = cls(source)
        reader.watch_exit(on_exit)
        on_close(reader.unwatch)
        return reader, GradScalerReader.attached(reader.grad_scaler, on_error=on_error,
                                                 on_close=on_close)

    def watch_exit(self, ended: Callable[[BaseException], Any]) -> None:
        """Call ``ended(error)`` when DeepSpeed's optimizer step raises (its dynamic loss
        scaler ends the run at the minimum scale from inside it), before the error goes on.
        The optimizer's ``step`` is watched as an instance attribute; :meth:`unwatch` gives it
        back."""
        optimizer = unwrap_optimizer(self._source)
        original = getattr(optimizer, "step", None)
        if not callable(original) or self._wraps.watching(optimizer, "step"):
            return

        def step(*args: Any, **kwargs: Any) -> Any:
            try:
                return original(*args, **kwargs)
            except Exception as error:
                ended(error)
                raise  # DeepSpeed's own error, unchanged

        self._wraps.wrap(optimizer, "step", step)

    def watch_backward(self, engine: Any, backpropagated: Callable[[Any], Any]) -> None:
        """Call ``backpropagated(loss)`` with each loss given to ``engine.backward`` (after it
        ran: DeepSpeed scales a copy), the loss that is backpropagated whatever computed it.
        The engine's ``backward`` (or a wrapper someone put on the instance before) is watched
        as an instance attribute until :meth:`unwatch`."""
        original = getattr(engine, "backward", None)
        if not callable(original) or self._wraps.watching(engine, "backward"):
            return

        @functools.wraps(original)
        def backward(loss: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(loss, *args, **kwargs)
            backpropagated(loss)
            return result

        self._wraps.wrap(engine, "backward", backward)

    def unwatch(self) -> None:
        """Give the optimizer its ``step`` and the engine its ``backward`` back, as they were
        (:class:`~denpex_callbacks.readers.instance_wraps.InstanceWraps`)."""
        self._wraps.restore()

    def state(self) -> DeepSpeedScaleState:
        """The scale state now."""
        return self._read()

    def _holder_now(self) -> Any:
        """The object holding ``cur_scale`` in the layout found at construction (None: no
        such layout, or overridden now)."""
        layout, optimizer = self._layout, self._optimizer
        if layout not in _HOLDER_LAYOUTS or getattr(optimizer, "custom_loss_scaler", False):
            return None
        holder = optimizer if layout == "cur_scale" else getattr(optimizer, layout, None)
        return holder if hasattr(holder, "cur_scale") else None

    def _scale_now(self) -> float | None:
        """The scale the coming step's backward uses."""
        holder = self._holder_now()
        return self._read().scale if holder is None else _float(holder.cur_scale)

    def _reading(self, scale_before: float | None) -> ScaleReading:
        """The step's reading, once DeepSpeed's optimizer stepped (or skipped)."""
        holder = self._holder_now()
        if holder is None:
            state = self._read()
            return ScaleReading(scale_before=scale_before, scale_after=state.scale,
                                overflow=state.overflow, hysteresis=state.hysteresis)
        overflow = getattr(self._optimizer, "overflow", None)
        name = self._hysteresis_name
        return ScaleReading(
            scale_before=scale_before, scale_after=_float(holder.cur_scale),
            overflow=overflow if isinstance(overflow, bool) else None,
            hysteresis=_int(getattr(holder, name, None)) if name else None)

    sees_loss = False  # (the loss given to engine.backward: see watch_backward)

    def step_begins(self) -> None:
        """Read the scale the coming step's backward uses."""
        self._befores.append(self._scale_now())

    def take(self) -> list[ScaleReading]:
        """The readings of the steps begun since the last take (several in a batch of manual
        optimization): each one's scale after is the next one's before; the last one's is
        read now."""
        befores, self._befores = self._befores, []
        return [self._reading(before) if index == len(befores) - 1 else
                ScaleReading(scale_before=before, scale_after=befores[index + 1])
                for index, before in enumerate(befores)]

    def refused(self) -> ScaleReading:
        """The step under way, as DeepSpeed refused it (its exit at the minimum scale):
        skipped at the scale it began with."""
        before = self._befores[-1] if self._befores else None
        return ScaleReading(scale_before=before, scale_after=before, skipped=True)

    def grad_norm(self) -> Any:
        """The engine's gradient norm of the last step (a number or a device tensor; None
        where the source is no engine). ``engine._global_grad_norm`` is set by every
        optimizer step (checked on 0.16.8-0.19.8); ``get_global_grad_norm()`` returns it too, but
        not on every release."""
        return getattr(self._source, "_global_grad_norm", None)
