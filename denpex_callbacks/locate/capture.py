"""What re-running a step needs, kept on every healthy step: references and RNG state.

Per training forward of each watched model, a forward pre-hook (or the adapter, through
:meth:`StepCaptures.capture`) keeps a :class:`ModelForward`: a reference to the inputs (no
copy), a clone of the RNG state (the CPU generator's, and the current CUDA device's when CUDA
is in use: dropout draws from them; host-side, no sync), the autocast state, and the input
tensors' version counters (an in-place write bumps them). A forward hook keeps whether the
model's output was finite, as the sum of its values (a 0-d tensor on the device, summed in a
dtype its finite values cannot overflow: finite exactly when every value was), over the
step's forwards (micro-batches), read only after a fault. The step's :class:`StepCapture` also
holds a mark of the optimizer steps applied so far
(:mod:`denpex_callbacks.locate.applied_steps`): a re-run compares it to prove the parameters
unchanged.

torch.compile: a compiled model's hooks go on its wrapper, outside the graph. A hook that runs
inside a compiled region (a module compiled in place, or the module inside a wrapper the
monitor was not given) keeps nothing and only notes that it ran there: the RNG and version
reads of a capture would be graph breaks, and reading a counter there would recompile.

Memory: a step's capture is released as soon as the monitor judged the step (a step taken as
quiet never finishes here: the next forward replaces its capture), except the first step of a
run of skipped steps (a collapse may be under way: AMP003 re-runs that step). At most
:data:`MAX_HELD` captures are kept past their step: at most one batch beyond the one the
training loop holds anyway.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch

from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.locate.applied_steps import StepCounter
from denpex_callbacks.locate.step_inputs import input_versions
from denpex_callbacks.locate.tensor_absmax import float_tensors
from denpex_callbacks.locate.watched import WatchedModel

__all__ = ["MAX_HELD", "OUTPUT_TENSORS", "ModelForward", "RngState", "StepCapture",
           "StepCaptures", "cuda_rng_state"]

MAX_HELD = 2  # captures kept past their forward: the current step's and one more
OUTPUT_TENSORS = 4  # floating-point tensors of a model's output whose finiteness is kept


def cuda_rng_state() -> tuple[int, torch.Tensor] | None:
    """(device, state) of the current CUDA device's generator (None before CUDA is
    initialised, and without CUDA). Host-side: no sync."""
    if not torch.cuda.is_initialized():
        return None
    device = torch.cuda.current_device()
    return device, torch.cuda.get_rng_state(device)


class RngState(NamedTuple):
    """The generators' state before a forward (a tuple: it is made on every forward).

    Attributes:
        cpu: A clone of the CPU default generator (``cpu.get_state()`` is
            ``torch.get_rng_state()`` then).
        cuda: (device, state) of the current CUDA device's generator, when CUDA is in use.
    """

    cpu: torch.Generator
    cuda: tuple[int, torch.Tensor] | None

    @classmethod
    def now(cls) -> RngState:
        """The state now."""
        return cls(torch.default_generator.clone_state(), cuda_rng_state())

    def restore(self) -> None:
        """Put the generators back to this state."""
        torch.set_rng_state(self.cpu.get_state())
        if self.cuda is not None:
            torch.cuda.set_rng_state(self.cuda[1], self.cuda[0])


@dataclass
class ModelForward:
    """One watched model's last training forward in a step (references, not copies).

    Attributes:
        args: Positional inputs of the forward (or of the adapter's re-run call).
        kwargs: Keyword inputs.
        rng: The RNG state before the forward.
        autocast: The (device type, dtype) pairs autocast was enabled for (empty where the
            adapter's re-run call enters the framework's own autocast).
        order: When it ran among all watched forwards (the earliest one's RNG state is where
            a re-run of the whole step begins).
        inputs: The input tensors and their version counters (None until the step ends, for
            a capture the adapter took before the forward).
        forwards: Training forwards of this model in the step (more than one: accumulation).
        output_sum: The sum of every output value over the step's forwards, a 0-d tensor on the
            device, accumulated in a dtype the finite values cannot overflow (float32 for
            fp16 outputs, float64 otherwise): finite exactly when every value was (None:
            not known).
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    rng: RngState
    autocast: list[tuple[str, torch.dtype]]
    order: int
    inputs: list[tuple[torch.Tensor, int]] | None = None
    forwards: int = 1
    output_sum: torch.Tensor | None = None


@dataclass
class StepCapture:
    """What re-running one step needs.

    Attributes:
        applied_mark: The optimizer-step mark at its first forward.
        models: Each watched model's last forward in the step, by model name.
        step: The optimizer step, once it finished.
        call: Re-runs the step's computation (None: each model on its inputs).
        call_returns_loss: ``call`` returns the loss that was backpropagated.
        targets: The targets the step's loss was computed from (handed over by the loop).
        loss_fn: Computes the loss from the model's output (and ``targets``).
    """

    applied_mark: int
    models: dict[str, ModelForward] = field(default_factory=dict)
    step: int | None = None
    call: Callable[[], Any] | None = None
    call_returns_loss: bool = False
    targets: Any = None
    loss_fn: Callable[..., Any] | None = None

    @property
    def forwards(self) -> int:
        """The most forwards one model ran in the step (more than one: accumulation)."""
        return max((f.forwards for f in self.models.values()), default=0)

    @property
    def first(self) -> ModelForward | None:
        """The step's earliest kept forward: a re-run of the whole step starts from its RNG
        state and autocast."""
        return min(self.models.values(), key=lambda f: f.order, default=None)

    def output_finite(self) -> bool | None:
        """Whether every watched model's output was finite in the step (None: not known for
        all of them). Reads the device sums: a sync, after a fault only."""
        sums = [f.output_sum for f in self.models.values()]
        if not sums or any(total is None for total in sums):
            return None
        return all(math.isfinite(float(total)) for total in sums if total is not None)


class StepCaptures:
    """Keeps each training step's capture until the monitor has judged the step.

    Args:
        monitor: The rank's Monitor (its run state says which steps were judged, skipped).
        models: The watched models.
        counter: Marks the optimizer steps applied (see
            :mod:`~denpex_callbacks.locate.applied_steps`).
        hook: Capture each training forward with a forward pre-hook (False: the adapter
            calls :meth:`capture`).
        on_error: Called with an exception raised while capturing (capturing then stops).
        call_for: With ``hook=False``, how a step captured by :meth:`capture` is re-run:
            called with the captured args when the step finishes. The call enters the
            framework's own autocast: such captures keep none.

    Example:
        >>> from denpex_callbacks import Monitor, MonitorConfig, Observation
        >>> from denpex_callbacks.locate.applied_steps import AppliedSteps
        >>> from denpex_callbacks.locate.watched import watched_models
        >>> model = torch.nn.Linear(4, 1)
        >>> monitor = Monitor(MonitorConfig(report_dir=None))
        >>> captures = StepCaptures(monitor, watched_models(model), AppliedSteps([model]))
        >>> _ = model(torch.ones(2, 4))
        >>> captures.step_finished(0)
        >>> captures.held_steps, captures.held[0].output_finite()
        ([0], True)
        >>> _ = monitor.observe(Observation(0, loss=1.0, skipped=False))
        >>> captures.release()
        >>> captures.held_steps
        []
        >>> captures.close()
    """

    def __init__(
        self, monitor: Monitor, models: list[WatchedModel], counter: StepCounter, *,
        hook: bool = True, on_error: Callable[[BaseException], None] | None = None,
        call_for: Callable[[tuple[Any, ...]], Callable[[], Any]] | None = None,
    ) -> None:
        self.monitor = monitor
        self.models = models
        self.counter = counter
        self.on_error = on_error
        self.failed = False
        self.rerunning = False  # while set, forwards are recorded in rerun_inputs instead
        self.rerun_inputs: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {}
        self.compiled_forwards = False  # a hook ran inside a compiled region (kept nothing)
        self.released_upto: int | None = None  # steps at or before this were let go
        self.held: dict[int, StepCapture] = {}
        self._open: StepCapture | None = None  # the step in progress
        self._order = itertools.count()
        self._call_for = call_for
        self._early = not hook  # captured by the adapter before the forward
        self._handles: list[Any] = []
        if hook:
            for model in models:
                self._handles += [
                    model.hooked.register_forward_pre_hook(
                        functools.partial(self._on_forward, model.name), with_kwargs=True),
                    model.hooked.register_forward_hook(
                        functools.partial(self._on_output, model.name)),
                ]

    @property
    def hooked(self) -> bool:
        """The forward hooks are in place (captures come from the models' forwards)."""
        return bool(self._handles)

    @property
    def held_steps(self) -> list[int]:
        """Steps whose captures are kept now."""
        return list(self.held)

    # -- capturing (every training forward) ------------------------------------------------------

    def _on_forward(self, name: str, module: torch.nn.Module, args: Any, kwargs: Any) -> None:
        if torch.compiler.is_compiling():  # inside a graph: keep nothing (see the module text)
            self.compiled_forwards = True
            return
        if self.rerunning:  # what a re-run closure feeds the model last, to compare with the
            self.rerun_inputs[name] = (tuple(args), dict(kwargs))  # capture's last forward
            return
        if self.failed or not module.training or not torch.is_grad_enabled():
            return
        try:
            self._keep(name, tuple(args), dict(kwargs), _autocast_now())
        except Exception as exc:
            self._fail(exc)

    def _on_output(self, name: str, module: torch.nn.Module, args: Any, output: Any) -> None:
        if torch.compiler.is_compiling() or self.rerunning or self.failed:
            return
        forward = self._open.models.get(name) if self._open is not None else None
        if forward is None or not module.training or not torch.is_grad_enabled():
            return
        try:
            # One reduction per output tensor, no sync (on detached tensors: no autograd
            # record, without the cost of entering no_grad on every forward).
            for tensor in float_tensors(_without_loss(output), [])[:OUTPUT_TENSORS]:
                total = tensor.detach().sum(dtype=_sum_dtype(tensor))
                kept = forward.output_sum
                forward.output_sum = total if kept is None else kept + total.to(kept.device)
        except Exception as exc:
            self._fail(exc)

    def _keep(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
              autocast: list[tuple[str, torch.dtype]]) -> None:
        """Keep this forward as model ``name``'s in the step in progress."""
        # Every adapter ends each optimizer step with step_finished, which closes the capture:
        # forwards until then are the step's, whatever was judged meanwhile (on a device an
        # earlier step is judged while this one runs).
        capture = self._open
        if capture is None:
            capture = self._open = StepCapture(self.counter.mark())
        previous = capture.models.get(name)
        capture.models[name] = ModelForward(
            args, kwargs, RngState.now(), autocast, next(self._order),
            inputs=None if self._early else input_versions(args, kwargs),
            forwards=previous.forwards + 1 if previous is not None else 1,
            output_sum=previous.output_sum if previous is not None else None,
        )

    def capture(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
        """Capture a step's inputs and RNG state now, before its forward, for the adapter's
        re-run call (``call_for``). Whatever changes the inputs in place before the step ends
        is part of the step: their version counters are read when it ends.

        Args:
            args: Positional inputs (references are kept, not copies).
            kwargs: Keyword inputs.
        """
        if self.rerunning or self.failed or not self.models:
            return
        try:
            self._keep(self.models[0].name, tuple(args), dict(kwargs or {}), [])
        except Exception as exc:
            self._fail(exc)

    def step_finished(self, step: int, *, call: Callable[[], Any] | None = None,
                      targets: Any = None, loss_fn: Callable[..., Any] | None = None) -> None:
        """The forwards since the last call belong to optimizer step ``step``.

        Args:
            step: The step, as the adapter numbers observations.
            call: Re-runs this step's computation and returns its loss (a plain loop's
                ``rerun=`` closure); it replaces the model call.
            targets: What the step's loss compared the model's output with.
            loss_fn: Computes the step's loss from the model's output (and the targets).
        """
        capture, self._open = self._open, None
        if capture is None or self.failed:
            return
        capture.step = step
        for forward in capture.models.values():
            if forward.inputs is None:  # taken before the forward: the step's own writes count
                forward.inputs = input_versions(forward.args, forward.kwargs)
        if call is not None:
            capture.call, capture.call_returns_loss = call, True
        elif self._call_for is not None and (first := capture.first) is not None:
            capture.call = self._call_for(first.args)
        capture.targets, capture.loss_fn = targets, loss_fn
        held = self.held
        held.pop(step, None)
        held[step] = capture
        if len(held) > MAX_HELD:
            pinned = self._pinned()
            for old in [s for s in held if s not in (step, pinned)][: len(held) - MAX_HELD]:
                del held[old]

    def _pinned(self) -> int | None:
        run = self.monitor.run
        return run.skip_streak_start if run.skip_streak else None

    def release(self) -> None:
        """Let go of the captures of steps the monitor has judged, except the first step of
        the current run of skipped steps (its re-run may still be asked for by AMP003)."""
        judged = self.monitor.run.last_step
        if judged is None:
            return
        self.released_upto = judged
        pinned = self._pinned()
        for step in [s for s in self.held if s <= judged and s != pinned]:
            del self.held[step]

    def close(self) -> None:
        """Remove the hooks and drop every capture. Safe to call twice."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._open = None
        self.held.clear()

    def _fail(self, exc: BaseException) -> None:
        self.failed = True
        self.close()
        if self.on_error is not None:
            self.on_error(exc)


_AUTOCAST_DEVICES = ("cuda", "cpu")


def _autocast_now() -> list[tuple[str, torch.dtype]]:
    """The (device type, dtype) pairs autocast is enabled for now."""
    # (Asked of both device types as they are: autocast's state is per type whether or not
    # the type is available, and torch.cuda.is_available() reads the environment each call.)
    return [(device, torch.get_autocast_dtype(device)) for device in _AUTOCAST_DEVICES
            if torch.is_autocast_enabled(device)]


def _sum_dtype(tensor: torch.Tensor) -> torch.dtype:
    """A dtype the sum of ``tensor``'s finite values cannot overflow (MPS has no float64)."""
    return torch.float32 if tensor.dtype == torch.float16 or tensor.is_mps else torch.float64


def _without_loss(output: Any) -> Any:
    """A model's output without its loss (HF's ModelOutput and dicts carry one)."""
    if isinstance(output, torch.Tensor):
        return output
    # A dict (HF's ModelOutput is one) is tried first: it never reaches the slower abstract
    # Mapping check, on every forward of a watched model.
    if isinstance(output, (dict, Mapping)):
        return [value for key, value in output.items() if key != "loss"]
    return output
