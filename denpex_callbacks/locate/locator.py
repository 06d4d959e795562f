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
  (:class:`~denpex_callbacks.locate.origin_report.OriginReport`) amends the diagnosis that
  armed it.

Only this rank's data is read (:func:`~denpex_callbacks.locate.tensor_absmax.local_tensor`):
DTensors as their local shard, so no rank enters a collective alone. Every watched model is
hooked (:func:`~denpex_callbacks.locate.watched.watched_models`), named without wrapper
attributes; compiled code runs eagerly for the armed step, so that the hooks on a compiled
model's submodules run (:func:`~denpex_callbacks.locate.watched.eager`).

Which module to name: the first whose output was non-finite, unless it has no weights of its
own, got finite inputs and returned an infinity (Dropout, an activation, a residual add in a
block's own code): those only pushed values that were already near the fp16 limit past it, so
the origin is the module that produced them (:meth:`NonFiniteLocator._producer`).

Cost of the armed step: one reduction (``aminmax``) per tensor seen, a few scalar ops per
module call, one Python hook per module and per parameter, and at most ``max_values``
recorded scalars. Tensor hooks do not change values or graphs. Torch only, no framework.
"""

from __future__ import annotations

import contextlib
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
    local_tensor,
)
from denpex_callbacks.locate.watched import eager, module_names, runs_compiled, watched_models

__all__ = ["NonFiniteLocator"]

LOGGER = logging.getLogger("denpex_callbacks")
MAX_VALUES = 200_000  # scalars recorded in one armed step (about 800 KB of device memory)
# A weightless module that turns values within this factor of its dtype's largest finite value
# into an infinity only passed them on (Dropout with p up to 15/16, a residual add).
NEAR_LIMIT = 16.0


@dataclass
class _Call:
    module: int
    inputs: int | None
    outputs: int | None
    params: int | None
    dtype: str | None
    sources: list[int]  # the calls that produced its floating-point inputs (innermost)
    external: bool  # some of its floating-point inputs came from no watched module


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
    """Hooks every module of the watched models for one step and reports where NaN/inf
    first appeared.

    Args:
        models: What the monitor watches: a module, a ``ModuleDict``, a list, tuple or dict
            of modules (see :func:`~denpex_callbacks.locate.watched.watched_models`); every
            submodule of each is hooked.
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
        models: Any,
        *,
        max_values: int = MAX_VALUES,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.models = watched_models(models)
        self.max_values = max_values
        self.on_error = on_error
        self.failed = False
        self.compiled = False  # some of the models run under torch.compile (eager while armed)
        self._modules: list[tuple[str, torch.nn.Module]] = []
        self._own_params: list[list[torch.nn.Parameter]] = []
        self._params: list[tuple[int, str]] = []  # (owner module, parameter name)
        self._handles: list[Any] = []
        self._eager = contextlib.ExitStack()
        self._recording = False
        self._reset()

    def _reset(self) -> None:
        self._values = DeviceValues()
        self._calls: list[_Call] = []
        self._grads: list[_Grad] = []
        self._slots: list[_Slot] = []
        self._slot_of: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}
        # Which call produced a tensor (the innermost: a module returning its child's output
        # as its own is called after the child)
        self._made_by: dict[int, tuple[weakref.ref[torch.Tensor], int]] = {}
        self._truncated = False

    # -- state ---------------------------------------------------------------------------------

    @property
    def armed(self) -> bool:
        """True while hooks are registered."""
        return bool(self._handles)

    @property
    def saw_forward(self) -> bool:
        """Whether a forward of the watched models ran since :meth:`arm` (one armed while a
        step's forward had already run, as on a device a step is judged a hook late, looks
        at the next step instead)."""
        return bool(self._calls)

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
        self._modules = [named for model in self.models
                         for named in module_names(model.module, model.name)]
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
            self.compiled = any(model.compiled_wrapper or runs_compiled(model.module)
                                for model in self.models)
            self._eager.enter_context(eager())  # compiled code too: the hooks above see inside
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
        self._made_by.clear()
        self._eager.close()

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
                params = [local for p in self._own_params[index]
                          if (local := local_tensor(p)) is not None
                          and local.is_floating_point() and local.numel()]
                call = _Call(
                    index,
                    self._put(inputs),
                    self._put(outputs),
                    self._put(params),
                    str(outputs[0].dtype) if outputs else None,
                    *self._makers(inputs),
                )
            self._calls.append(call)
            call_index = len(self._calls) - 1
            for tensor in outputs:
                known = self._made_by.get(id(tensor))
                if known is None or known[0]() is not tensor:
                    self._made_by[id(tensor)] = (weakref.ref(tensor), call_index)
            if torch.is_grad_enabled():
                for tensor in inputs:
                    self._watch_gradient(tensor, call_index, consumer=True)
                for tensor in outputs:
                    self._watch_gradient(tensor, call_index, consumer=False)
        except Exception as exc:
            self._fail(exc)

    def _makers(self, inputs: list[torch.Tensor]) -> tuple[list[int], bool]:
        """The calls that made ``inputs``, and whether some came from none of them."""
        found, external = [], False
        for tensor in inputs:
            known = self._made_by.get(id(tensor))
            if known is not None and known[0]() is tensor:
                if known[1] not in found:
                    found.append(known[1])
            else:
                external = True
        return found, external

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
        roots = [m for m in modules if self._modules[m][0] in self._roots]
        if not slot.consumers and roots:
            modules = roots  # a model's own output: its gradient comes from the loss
        name, module = self._modules[modules[0]]
        role = "input" if slot.consumers else "output"
        return GradientOrigin(name, type(module).__name__, role, absmax)

    @property
    def _roots(self) -> set[str]:
        return {model.name for model in self.models}

    def _producer(self, bad: int, calls: list[ModuleCall]) -> int | None:
        """The call whose own computation made the values that call ``bad`` pushed past its
        dtype's range, when ``bad`` only passed them on (None: ``bad`` itself is the origin).

        ``bad`` passes values on when it returned an infinity from finite inputs without
        weights of its own (Dropout scales by 1/(1-p), an activation, a block's residual add)
        and the values it consumed were already within :data:`NEAR_LIMIT` of the largest
        finite value: the origin is the largest of them, the outputs of the calls that made
        its inputs and of its own submodules in this call, followed past further weightless
        calls to one with weights. (An infinity made from small values, log(0) or 1/0, is
        ``bad``'s own invalid operation.)
        """
        first = calls[bad]
        if first.param_absmax is not None or not first.input_finite or (
                first.output_absmax is None or not math.isinf(first.output_absmax)):
            return None
        near = _largest(first.output_dtype) / NEAR_LIMIT
        at, seen = bad, {bad}
        while True:
            candidates = [c for c in (*self._calls[at].sources, *_inside(at, calls))
                          if c not in seen and calls[c].output_absmax is not None
                          and calls[c].output_finite]
            if not candidates:
                return at if at != bad else None
            at = max(candidates, key=lambda c: calls[c].output_absmax or 0.0)
            if (calls[at].output_absmax or 0.0) < near:
                return None
            seen.add(at)
            if calls[at].param_absmax is not None:
                return at

    def _report(self, values: list[float], loss: float | None, step: int | None) -> OriginReport:
        calls = [self._module_call(c, values) for c in self._calls]
        bad = next((i for i, c in enumerate(calls) if not c.output_finite), None)
        producer = self._producer(bad, calls) if bad is not None else None
        finite = [c for c in calls if c.output_absmax is not None and c.output_finite]
        peak = max(finite, key=lambda c: c.output_absmax or 0.0, default=None)
        bad_grad = next(
            (g for g in self._grads if not math.isfinite(values[g.value])), None
        )
        return OriginReport(
            step=step,
            modules_watched=len(self._modules),
            calls_seen=len(calls),
            modules_seen=len({c.module for c in self._calls}),
            gradients_seen=len(self._grads),
            forward=calls[bad] if bad is not None else None,
            origin=calls[producer] if producer is not None else None,
            backward=self._gradient_origin(bad_grad, values) if bad_grad else None,
            inputs_absmax=combine_absmax(
                c.input_absmax for c, raw in zip(calls, self._calls, strict=True)
                if raw.external and _outermost(c.name, calls)),
            loss_absmax=loss,
            peak=peak,
            truncated=self._truncated,
            compiled=self.compiled,
        )


def _largest(dtype: str | None) -> float:
    """The largest finite value of a dtype named like ``"torch.float16"``."""
    kind = getattr(torch, (dtype or "").removeprefix("torch."), None)
    return float(torch.finfo(kind).max) if isinstance(kind, torch.dtype) and (
        kind.is_floating_point) else float(torch.finfo(torch.float32).max)


def _inside(at: int, calls: list[ModuleCall]) -> list[int]:
    """The calls of ``calls[at]``'s submodules during that call: in the order outputs are
    produced, they come just before it."""
    prefix = f"{calls[at].name}." if calls[at].name else ""
    found = []
    for i in range(at - 1, -1, -1):
        if not calls[i].name.startswith(prefix) or calls[i].name == calls[at].name:
            break
        found.append(i)
    return found


def _outermost(name: str, calls: list[ModuleCall]) -> bool:
    """No module above ``name`` was called: its inputs come from outside the watched modules
    (usually the model itself; a LightningModule's training_step calls submodules directly)."""
    called = {c.name for c in calls}
    parts = name.split(".") if name else []
    return not any(".".join(parts[:i]) in called for i in range(len(parts)))
