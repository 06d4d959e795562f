"""torch.amp.GradScaler (also behind accelerate, Lightning, Fabric and DeepSpeed's torch_autocast):
one reader per scaler, the only code that touches the scaler's private state.

``get_scale()`` calls ``.item()``, a host-device sync on CUDA, and the scaler keeps no record of
a step once ``update()`` has run (it drops found_inf and changes the scale in place). So
:class:`GradScalerReader` watches the scaler's own calls (instance attributes over its four
methods; the class is untouched and :meth:`GradScalerReader.detach` removes them): ``scale()``
adds the loss being backpropagated to the step's sum, ``update()`` takes the step's reading just
before and after it runs (the scale the step used, found_inf over every optimizer, the scale and
growth tracker after). Everything stays a device tensor; the pipeline copies it off the device
without a sync. Wherever the adapter's hooks run, the reading is taken at the right moment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import torch

from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.readers.instance_wraps import InstanceWraps
from denpex_callbacks.readers.scale_reading import LossSum, ScaleReading

__all__ = [
    "GradScalerReader",
    "ScalerObserver",
    "first_lr",
    "is_grad_scaler",
    "optimizer_has_fp16_params",
    "scaler_device",
    "scaler_enabled",
    "scaler_setup",
]

SCALER_METHODS = ("scale", "unscale_", "step", "update")
_SCALER_TYPES: dict[type, bool] = {}  # type -> has the GradScaler methods


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


def scaler_device(scaler: Any) -> str | None:
    """Where an enabled GradScaler keeps its scale (``"cuda"``, ``"cpu"``...), else None.

    Example:
        >>> scaler_device(torch.amp.GradScaler("cpu")), scaler_device(None)
        ('cpu', None)
    """
    device = getattr(scaler, "_device", None) if scaler_enabled(scaler) else None
    return device if isinstance(device, str) else None


def scaler_setup(scaler: Any, setup: RunSetup) -> RunSetup:
    """Fill the scaler fields of ``setup`` from a GradScaler's Python-side config (no sync).

    Example:
        >>> setup = scaler_setup(torch.amp.GradScaler("cpu", growth_interval=100), RunSetup())
        >>> setup.scaler, setup.init_scale, setup.growth_interval
        ('dynamic', 65536.0, 100)
    """
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
    """Learning rate of the first parameter group (a Python number, no sync; None for a
    tensor learning rate, which would need one)."""
    groups = getattr(optimizer, "param_groups", None)
    if not groups:
        return None
    lr = groups[0].get("lr")
    if isinstance(lr, torch.Tensor):
        return None
    return float(lr) if lr is not None else None


class ScalerObserver(Protocol):
    """What a protocol check hears of the scaler's calls (the plain loop's; see
    :mod:`denpex_callbacks.integrations.torch_protocol`): only the calls torch's own checks
    refused (torch checks the order itself). ``optimizer`` is None for ``scale`` and
    ``update``."""

    def call_failed(self, name: str, optimizer: Any) -> None:
        """torch's own check raised in ``name``; the scaler's state is as it was before it."""


class GradScalerReader:
    """Reads one enabled GradScaler's steps by watching its calls.

    Args:
        scaler: An enabled ``torch.amp.GradScaler`` (or subclass).
        observer: Told of each call (protocol checks), or None.

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
        >>> reader = GradScalerReader(scaler)
        >>> reader.attach()
        >>> scaler.scale(model(torch.ones(1, 2)).sum() * float("inf")).backward()
        >>> _ = scaler.step(opt); scaler.update()
        >>> [reading] = reader.take()
        >>> float(reading.scale_before), float(reading.found_inf), float(reading.scale_after)
        (8.0, 1.0, 4.0)
        >>> reader.detach()
    """

    def __init__(self, scaler: Any, observer: ScalerObserver | None = None, *,
                 on_error: Callable[[], Any] | None = None) -> None:
        self.scaler = scaler
        self.observer = observer
        # Called from an ``except`` block when the reader's own work inside a watched call
        # fails (the pipeline's fail: logged once, monitoring off); the scaler's call goes on.
        self.on_error = on_error
        self._losses = LossSum()
        self._done: list[ScaleReading] = []
        self._wraps = InstanceWraps()  # the four methods' wrappers
        self.stepped = False  # scaler.step() ran since the last update()
        self.scaled = False  # scaler.scale() ran since the last update()
        self.in_step = False  # inside scaler.step() (its optimizer.step() is the scaler's)
        self.failed = False
        # (scale tensor, its version, our snapshot of it) as the last update() left them
        self._after: tuple[torch.Tensor, int, torch.Tensor] | None = None
        # Called as scaler.step() begins: the last moment the parameters are those of the
        # steps before it, so the pipeline judges what has landed (and may re-run it) there.
        self.before_step: Callable[[], Any] | None = None

    @classmethod
    def attached(cls, scaler: Any, *, on_error: Callable[[], Any],
                 on_close: Callable[[Callable[[], Any]], Any],
                 late: bool = False) -> GradScalerReader | None:
        """The run's reader of ``scaler``, attached (None: no enabled GradScaler); its
        :meth:`detach` is handed to ``on_close``, to run when the run's monitoring ends (every
        adapter builds its reader here: the pipeline's ``fail`` and ``on_close``).

        ``late``: a step of the scaler ran before it was watched (a plain loop hands its scaler
        to its first ``monitor.step()``, after that iteration's ``update()``): the first
        :meth:`take` returns that step too, read as the scaler has it now (its scale and
        growth tracker after it; nothing else is known of it)."""
        if not scaler_enabled(scaler):
            return None
        reader = cls(scaler, on_error=on_error)
        reader.attach()
        on_close(reader.detach)
        if late:
            reader._done.append(reader._now())
        return reader

    # -- the scaler's protocol state (for the plain loop's checks) -----------------------------

    def stage(self, optimizer: Any) -> str | None:
        """The scaler's protocol stage for ``optimizer``: ``READY``, ``UNSCALED``, ``STEPPED``."""
        states = getattr(self.scaler, "_per_optimizer_states", None)
        if not isinstance(states, dict) or id(optimizer) not in states:
            return None
        stage = states[id(optimizer)].get("stage")
        return getattr(stage, "name", None)

    def inf_checks_recorded(self) -> bool:
        """Whether any optimizer has recorded found_inf since the last ``update()``."""
        states = getattr(self.scaler, "_per_optimizer_states", None) or {}
        return any(state.get("found_inf_per_device") for state in states.values())

    def optimizers_seen(self) -> int:
        """Optimizers the scaler has a state for since the last ``update()``."""
        return len(getattr(self.scaler, "_per_optimizer_states", None) or {})

    # -- attaching ----------------------------------------------------------------------------

    def attach(self) -> None:
        """Watch the scaler's calls (instance attributes over its methods; a wrapper someone
        put on the instance before is watched through)."""
        if self._wraps.watching(self.scaler, SCALER_METHODS[0]):
            return
        for name in SCALER_METHODS:
            original = getattr(self.scaler, name)
            wrapper = getattr(self, f"_watch_{name}")(original)
            wrapper.__wrapped__ = original
            self._wraps.wrap(self.scaler, name, wrapper)

    def detach(self) -> None:
        """Give the scaler its methods back as they were (its own, or a wrapper put on the
        instance before :meth:`attach`)."""
        self._wraps.restore()

    def _now(self) -> ScaleReading:
        """The scale and growth tracker now (a step whose ``update()`` was not watched)."""
        scaler = self.scaler
        scale, tracker = getattr(scaler, "_scale", None), getattr(scaler, "_growth_tracker", None)
        return ScaleReading(
            scale_after=scale.detach().clone() if isinstance(scale, torch.Tensor) else None,
            growth_tracker=tracker.detach().clone() if isinstance(tracker, torch.Tensor) else None)

    sees_loss = True  # (scale() adds each micro-batch's loss to the step's reading)

    def step_begins(self) -> None:
        """Nothing to read: ``update()`` takes each step's reading itself."""

    def take(self) -> list[ScaleReading]:
        """The readings of the ``update()`` calls since the last take, oldest first."""
        done, self._done = self._done, []
        return done

    # -- the watched calls ----------------------------------------------------------------------

    def _safely(self, work: Callable[..., Any], *args: Any) -> Any:
        """Run the reader's own part of a watched call; a failure there never reaches the
        scaler's caller (it switches monitoring off)."""
        if self.failed:
            return None
        try:
            return work(*args)
        except AmpDiagnosisError:
            raise  # the user's "raise" policy on a protocol diagnosis
        except Exception:
            self.failed = True
            if self.on_error is not None:
                self.on_error()
            return None

    def _call(self, name: str, original: Callable[..., Any], optimizer: Any,
              *args: Any, **kwargs: Any) -> Any:
        try:
            return original(*args, **kwargs)
        except Exception:
            observer = self.observer
            if observer is not None:
                self._safely(observer.call_failed, name, optimizer)
            raise

    def _watch_scale(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def scale(outputs: Any) -> Any:
            self.scaled = True
            self._safely(self._losses.add, outputs)
            return self._call("scale", original, None, outputs)

        return scale

    def _watch_unscale_(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def unscale_(optimizer: Any) -> Any:
            return self._call("unscale_", original, optimizer, optimizer)

        return unscale_

    def _watch_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def step(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            if self.before_step is not None:
                self._safely(self.before_step)
            self.in_step = True
            try:
                result = self._call("step", original, optimizer, optimizer, *args, **kwargs)
            finally:
                self.in_step = False
            self.stepped = True
            return result

        return step

    def _watch_update(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def update(*args: Any, **kwargs: Any) -> Any:
            # An update() after no step() (a user setting the scale by hand, update(s)) is no
            # optimizer step: the next step's reading starts from the scale it leaves.
            before = self._safely(self._before_update) if self.stepped else None
            result = self._call("update", original, None, *args, **kwargs)
            if before is not None:
                self._safely(self._after_update, *before)
            self.stepped = self.scaled = False
            return result

        return update

    def _before_update(self) -> tuple[torch.Tensor, torch.Tensor | None] | None:
        """The scale the step used (``update()`` changes it in place) and its found_inf;
        None before the first ``scale()`` (torch's update() raises then)."""
        scale = getattr(self.scaler, "_scale", None)
        if not isinstance(scale, torch.Tensor):
            return None
        after = self._after
        if after is not None and after[0] is scale and after[1] == scale._version:
            before = after[2]  # unchanged since the last update(): its snapshot is this one
        else:
            before = scale.clone()  # (it never requires grad: no detach)
        return before, self._found_inf()

    def _after_update(self, before: torch.Tensor, found_inf: torch.Tensor | None) -> None:
        scaler = self.scaler
        scale = scaler._scale
        after = scale.clone()  # (neither requires grad: no detach)
        # Anything that changes the scale in place (update(new_scale), load_state_dict) bumps
        # its version counter; a new scale tensor is another object.
        self._after = (scale, scale._version, after)
        self._done.append(ScaleReading(
            scale_before=before, scale_after=after, found_inf=found_inf,
            growth_tracker=scaler._growth_tracker.clone(), loss=self._losses.take(mean=False)))

    def _found_inf(self) -> torch.Tensor | None:
        """found_inf summed over every optimizer and device (a new tensor where there are
        several: ``update()`` adds them into the first in place), or None when none recorded."""
        states = getattr(self.scaler, "_per_optimizer_states", None) or {}
        tensors = [t for state in states.values()
                   for t in (state.get("found_inf_per_device") or {}).values()
                   if isinstance(t, torch.Tensor)]
        if not tensors:
            return None
        if len(tensors) == 1:
            return tensors[0]
        device = tensors[0].device
        return torch.stack([t.to(device, non_blocking=True).reshape(()) for t in tensors]).sum()
