"""Find the module where the first non-finite value is born, in one armed step.

Nothing is hooked until a fault is diagnosed. Then
:class:`~denpex_callbacks.locate.on_fault.LocateOnFault` (the calls an adapter makes) arms a
:class:`NonFiniteLocator` for a re-run of the failing step, or for the next step:

- a forward hook on every module records the largest |value| of its floating-point inputs,
  outputs and own parameters;
- a gradient hook on every module output (and input) that requires grad, and on every
  parameter, records the largest |gradient| in backward;
- every number stays on the device as a 0-d tensor until the step ends, then all of them
  come back in one transfer per device (one sync), the hooks are removed, and the result
  (:class:`~denpex_callbacks.locate.origin.OriginReport`) amends the diagnosis that armed it.

Cost of the armed step: one reduction (``aminmax``) per tensor seen, a few scalar ops per
module call, one Python hook per module and per parameter, and at most ``max_values``
recorded scalars. Tensor hooks do not change values or graphs. Torch only, no framework.
"""

from __future__ import annotations

import functools
import logging
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from denpex_callbacks.locate.origin_report import GradientOrigin, ModuleCall, OriginReport
from denpex_callbacks.locate.tensor_absmax import (
    DeviceValues,
    absmax,
    combine_absmax,
    float_tensors,
)

__all__ = ["NonFiniteLocator"]

LOGGER = logging.getLogger("denpex_callbacks")
MAX_VALUES = 200_000  # scalars recorded in one armed step (about 800 KB of device memory)


@dataclass
class _Call:
    module: int
    inputs: int | None
    outputs: int | None
    params: int | None
    dtype: str | None


@dataclass
class _Slot:
    """An activation whose gradient is watched: which calls produced and consumed it."""

    producers: list[int] = field(default_factory=list)
    consumers: list[int] = field(default_factory=list)


@dataclass
class _Grad:
    param: int | None  # index into the parameter table, or
    slot: int | None  # index into the activation slots
    value: int


class NonFiniteLocator:
    """Hooks every module of a model for one step and reports where NaN/inf first appeared.

    Args:
        model: The ``torch.nn.Module`` to watch (all its submodules are hooked).
        max_values: Cap on the scalars recorded while armed (later calls are not recorded).
        on_error: Called once with the exception if a hook fails; the locator then stops
            recording (the hooks become no-ops until ``finish``/``disarm`` removes them).

    Example:
        >>> import torch
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
        ...                             torch.nn.Linear(8, 1))
        >>> with torch.no_grad():  # 4 * 8 * 3e4 > 65504: the last layer overflows fp16
        ...     _ = model[0].weight.fill_(1.0), model[2].weight.fill_(3e4)
        >>> locator = NonFiniteLocator(model)
        >>> locator.arm()
        >>> with torch.autocast("cpu", dtype=torch.float16):
        ...     loss = model(torch.ones(2, 4)).float().mean()
        >>> loss.backward()
        >>> report = locator.finish(loss, step=3)
        >>> report.forward.name, report.forward.type, report.forward.exceeded_fp16
        ('2', 'Linear', True)
        >>> locator.hooks, locator.host_reads
        (0, 1)
    """

    def __init__(
        self,
        model: torch.nn.Module,
        *,
        max_values: int = MAX_VALUES,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.model = model
        self.max_values = max_values
        self.on_error = on_error
        self.failed = False
        self._modules: list[tuple[str, torch.nn.Module]] = []
        self._own_params: list[list[torch.nn.Parameter]] = []
        self._params: list[tuple[int, str]] = []  # (owner module, parameter name)
        self._handles: list[Any] = []
        self._recording = False
        self._reset()

    def _reset(self) -> None:
        self._values = DeviceValues()
        self._calls: list[_Call] = []
        self._grads: list[_Grad] = []
        self._slots: list[_Slot] = []
        self._slot_of: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}
        self._truncated = False

    # -- state ---------------------------------------------------------------------------------

    @property
    def armed(self) -> bool:
        """True while hooks are registered."""
        return bool(self._handles)

    @property
    def hooks(self) -> int:
        """Hooks this locator holds now (module, parameter and activation hooks)."""
        return len(self._handles)

    @property
    def host_reads(self) -> int:
        """Device-to-host transfers made so far (one per device per finished step)."""
        return self._values.host_reads

    # -- arm / finish --------------------------------------------------------------------------

    def arm(self) -> None:
        """Register the forward and parameter-gradient hooks. Idempotent."""
        if self.armed or self.failed:
            return
        self._reset()
        self._modules = list(self.model.named_modules())
        self._own_params = []
        self._params = []
        seen: set[int] = set()
        try:
            for index, (_name, module) in enumerate(self._modules):
                own = list(module.named_parameters(recurse=False))
                self._own_params.append([param for _pname, param in own])
                self._handles.append(module.register_forward_hook(
                    functools.partial(self._on_forward, index), with_kwargs=True
                ))
                for pname, param in own:
                    if id(param) in seen or not param.requires_grad:
                        continue  # a tied weight is watched once
                    seen.add(id(param))
                    self._params.append((index, pname))
                    self._handles.append(param.register_hook(
                        functools.partial(self._on_param_grad, len(self._params) - 1)
                    ))
        except Exception as exc:  # an exotic module refusing hooks: locate nothing
            self._fail(exc)
            self.disarm()
            return
        self._recording = True

    def disarm(self) -> None:
        """Remove every hook without reading anything. Safe to call twice."""
        self._recording = False
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._slot_of.clear()

    def finish(self, loss: Any = None, step: int | None = None) -> OriginReport:
        """End the armed step: read every value back at once, remove the hooks, report.

        Args:
            loss: The step's loss (tensor or number), to tell a non-finite loss from a
                non-finite gradient.
            step: The armed step's number, for the report.
        """
        self._recording = False
        loss_index: int | None = None
        loss_value: float | None = None
        try:
            loss_tensors = float_tensors(loss, [])
            if loss_tensors:
                loss_index = self._values.put(absmax(loss_tensors))
            elif isinstance(loss, (int, float)):
                loss_value = abs(float(loss))
            values = self._values.read() if len(self._values) else []
        finally:
            self.disarm()
        if loss_index is not None:
            loss_value = values[loss_index]
        return self._report(values, loss_value, step)

    # -- hooks (each guarded: a failure stops recording, never the step) ------------------------

    def _fail(self, exc: BaseException) -> None:
        self._recording = False
        if not self.failed:
            self.failed = True
            if self.on_error is not None:
                self.on_error(exc)

    def _put(self, tensors: list[torch.Tensor]) -> int | None:
        return self._values.put(absmax(tensors)) if tensors else None

    def _room(self, needed: int) -> bool:
        if len(self._values) + needed > self.max_values:
            self._truncated = True
            return False
        return True

    def _on_forward(
        self, index: int, module: torch.nn.Module, args: Any, kwargs: Any, output: Any
    ) -> None:
        if not self._recording or not self._room(3):
            return
        try:
            with torch.no_grad():
                inputs = float_tensors((args, kwargs), [])
                outputs = float_tensors(output, [])
                params = [p for p in self._own_params[index]
                          if p.is_floating_point() and p.numel()]
                call = _Call(
                    index,
                    self._put(inputs),
                    self._put(outputs),
                    self._put(params),
                    str(outputs[0].dtype) if outputs else None,
                )
            self._calls.append(call)
            if torch.is_grad_enabled():
                call_index = len(self._calls) - 1
                for tensor in inputs:
                    self._watch_gradient(tensor, call_index, consumer=True)
                for tensor in outputs:
                    self._watch_gradient(tensor, call_index, consumer=False)
        except Exception as exc:
            self._fail(exc)

    def _watch_gradient(self, tensor: torch.Tensor, call: int, *, consumer: bool) -> None:
        if not tensor.requires_grad or isinstance(tensor, torch.nn.Parameter):
            return  # parameters have their own hooks
        known = self._slot_of.get(id(tensor))
        if known is not None and known[0]() is tensor:
            slot = known[1]
        else:  # one hook per activation, shared by the call producing and those consuming it
            slot = len(self._slots)
            self._slots.append(_Slot())
            self._slot_of[id(tensor)] = (weakref.ref(tensor), slot)
            self._handles.append(tensor.register_hook(functools.partial(self._on_grad, slot)))
        record = self._slots[slot]
        (record.consumers if consumer else record.producers).append(call)

    def _on_grad(self, slot: int, grad: torch.Tensor) -> None:
        self._record_grad(None, slot, grad)

    def _on_param_grad(self, param: int, grad: torch.Tensor) -> None:
        self._record_grad(param, None, grad)

    def _record_grad(self, param: int | None, slot: int | None, grad: torch.Tensor) -> None:
        if not self._recording or grad is None or not self._room(1):
            return
        try:
            with torch.no_grad():
                value = self._put(float_tensors(grad, []))
            if value is not None:
                self._grads.append(_Grad(param, slot, value))
        except Exception as exc:
            self._fail(exc)

    # -- the report ----------------------------------------------------------------------------

    def _module_call(self, call: _Call, values: list[float]) -> ModuleCall:
        name, module = self._modules[call.module]

        def value(at: int | None) -> float | None:
            return None if at is None else values[at]

        return ModuleCall(
            name=name,
            type=type(module).__name__,
            input_absmax=value(call.inputs),
            output_absmax=value(call.outputs),
            param_absmax=value(call.params),
            output_dtype=call.dtype,
        )

    def _gradient_origin(self, grad: _Grad, values: list[float]) -> GradientOrigin:
        absmax = values[grad.value]
        if grad.param is not None:
            owner, pname = self._params[grad.param]
            name, module = self._modules[owner]
            return GradientOrigin(name, type(module).__name__, "weight", absmax, pname)
        assert grad.slot is not None
        slot = self._slots[grad.slot]
        calls = slot.consumers or slot.producers
        modules = [self._calls[c].module for c in calls]
        if not slot.consumers and 0 in modules:
            modules = [0]  # the model's own output: its gradient comes from the loss
        name, module = self._modules[modules[0]]
        role = "input" if slot.consumers else "output"
        return GradientOrigin(name, type(module).__name__, role, absmax)

    def _report(self, values: list[float], loss: float | None, step: int | None) -> OriginReport:
        calls = [self._module_call(c, values) for c in self._calls]
        first_bad = next((c for c in calls if not c.output_finite), None)
        finite = [c for c in calls if c.output_absmax is not None and c.output_finite]
        peak = max(finite, key=lambda c: c.output_absmax or 0.0, default=None)
        entry = _entry(calls)
        bad_grad = next(
            (g for g in self._grads if not math.isfinite(values[g.value])), None
        )
        return OriginReport(
            step=step,
            modules_watched=len(self._modules),
            calls_seen=len(calls),
            gradients_seen=len(self._grads),
            forward=first_bad,
            backward=self._gradient_origin(bad_grad, values) if bad_grad else None,
            inputs_absmax=combine_absmax(c.input_absmax for c in calls if c.name == entry),
            loss_absmax=loss,
            peak=peak,
            truncated=self._truncated,
        )


def _entry(calls: list[ModuleCall]) -> str | None:
    """Name of the outermost module called first: its inputs are the model's inputs.

    Usually the model itself; a LightningModule's training_step calls submodules directly.
    """
    called = {c.name for c in calls}

    def outermost(name: str) -> bool:
        parts = name.split(".") if name else []
        return not any(".".join(parts[:i]) in called for i in range(len(parts)))

    return next((c.name for c in calls if outermost(c.name)), None)
