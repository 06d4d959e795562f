"""What re-running a step needs, kept on every healthy step: references and RNG state.

Per training forward, a forward pre-hook (or the adapter, through :meth:`StepCaptures.capture`)
keeps a capture: a reference to the inputs (no copy), the torch RNG state (CPU, as a clone of
the default generator, and the current CUDA device's when CUDA is in use: dropout draws from
them), the autocast state, and the version counters of the input tensors and of a few
parameters (every in-place write bumps them, so a changed one proves an update or an edit
happened since: once an applied update has shown which parameters the optimizer writes, the
first and the last of those stand for all of them, at a cost that does not grow with the
model; an adapter whose optimizer writes around the counters, DeepSpeed's ZeRO, gives a count
of applied updates instead). No device work, no sync.

The RNG state is kept only while the steps draw random numbers. A model without dropout (most
current language models train with none) leaves the generators untouched from one forward to
the next: after :data:`RNG_CHECKS_TO_SETTLE` checks in a row have seen that (a check clones the
generators at one forward and compares at the next), captures stop cloning them, and a check
every :data:`RNG_CHECK_EVERY` forwards watches for a change. A check that sees a draw, or a
re-run that draws (see :meth:`StepCaptures.rng_drawn`), puts the clones back at once. A re-run
of a step whose state was not kept and which draws is refused, never judged.

The hot path: this runs in every training step, where each call into torch and each Python
frame costs a microsecond or more (the step has pushed denpex's code and data out of the
caches). So a capture is a plain tuple, made a :class:`StepCapture` only when its step finishes
on the full path (:meth:`StepCaptures.step_finished`). A step the pipeline takes as quiet never
finishes here: the next forward replaces its capture.

Memory: a step's capture is released as soon as the monitor judged the step (a quiet one's at
the next forward), except the first step of a run of skipped steps (a collapse may be under
way: AMP003 re-runs that step); where device values are read one step late, the previous
step's is kept until then. At most :data:`MAX_HELD` captures are kept past their step: at most
one batch beyond the one the training loop holds anyway.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import torch

from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.locate.step_inputs import input_versions

__all__ = ["MAX_HELD", "RNG_CHECKS_TO_SETTLE", "RNG_CHECK_EVERY", "TRACKED_PARAMS", "StepCapture",
           "StepCaptures", "cuda_rng_state"]

MAX_HELD = 2  # captures kept past their forward: the current step's and one more
# Parameters whose version counters are summed once an applied update has shown which ones the
# optimizer writes: an update writes every one of those, so a few prove it as well as all of
# them do, at a cost that does not grow with the model (hundreds of tensors in a transformer).
TRACKED_PARAMS = 2
RNG_CHECK_EVERY = 64  # forwards between two checks that the steps still draw no random numbers
RNG_CHECKS_TO_SETTLE = 3  # checks in a row that saw no draw before the RNG is no longer cloned
_version = attrgetter("_version")  # summed by map(): no Python frame per parameter
_autocast_enabled = torch.is_autocast_enabled
_grad_enabled = torch.is_grad_enabled
_autocast_dtype = torch.get_autocast_dtype
# Whether autocast is on for any device: one call without arguments (torch's own RNN code
# asks it), where each per-device question goes through torch's argument parser, cold code
# inside a step. Outside autocast (a Trainer's forward pre-hook: accelerate enters autocast
# inside the wrapped forward) it is the only question asked.
_any_autocast = getattr(torch._C, "_is_any_autocast_enabled", lambda: True)


@dataclass(slots=True)
class StepCapture:
    """What re-running one step needs (references, not copies).

    Attributes:
        args: Positional inputs of the step's forward (or of ``call``).
        kwargs: Keyword inputs.
        cpu_rng: A clone of the CPU default generator before the forward (its
            ``get_state()`` is ``torch.get_rng_state()`` then; cloning allocates no tensor,
            which costs less on every step than the state tensor a re-run rarely needs).
            None: not kept, the recent steps drew no random numbers (see the module's text).
        cuda_rng: (device, state) of the current CUDA device's generator, when CUDA is in use
            (and the RNG state is kept).
        autocast: The (device type, dtype) pairs autocast was enabled for.
        training: The model's train mode.
        param_version: Sum of the version counters of ``params`` (or the count of applied
            updates, where the adapter gives one).
        params: The trainable parameters whose versions were summed (all of them, or once an
            update has shown which ones the optimizer writes, a few of those: see
            :meth:`StepCaptures.tracked_params`).
        inputs: The input tensors and their version counters.
        forwards: Training forwards seen in the step (more than one: accumulation).
        call: Re-runs the step's computation (None: the model on ``args``/``kwargs``).
        call_returns_loss: ``call`` returns the loss that was backpropagated.
        step: The optimizer step, once it finished.
        early: Captured before the forward (by the adapter): input versions read at step end.
    """

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    cpu_rng: torch.Generator | None
    cuda_rng: tuple[int, torch.Tensor] | None
    autocast: list[tuple[str, torch.dtype]]
    training: bool
    param_version: int
    params: list[torch.Tensor]
    inputs: list[tuple[torch.Tensor, int]]
    forwards: int = 1
    call: Callable[[], Any] | None = None
    call_returns_loss: bool = False
    step: int | None = None
    early: bool = False


def cuda_rng_state() -> tuple[int, torch.Tensor] | None:
    """(device, state) of the current CUDA device's generator (None before CUDA is
    initialised, and without CUDA). Host-side: no sync."""
    if not torch.cuda.is_initialized():
        return None
    device = torch.cuda.current_device()
    return device, torch.cuda.get_rng_state(device)


# A capture in progress is a tuple (see StepCaptures._on_forward): args, kwargs, cpu_rng,
# cuda_rng, autocast, training, param_version, params, inputs, forwards, judged; and from
# StepCaptures.capture also call, returns_loss, early.
_FORWARDS, _JUDGED, _OPTIONAL = 9, 10, 11


class _Training:
    training = True  # what StepCaptures.capture passes as the module: the adapter says so


_TRAINING = _Training()


class StepCaptures:
    """The captures of the steps not judged yet (and of a skip streak's first step).

    Args:
        monitor: The rank's Monitor (its run state says which steps were judged, skipped).
        model: The module that computes (already unwrapped).
        hook: Capture each training forward with a forward pre-hook (False: the adapter
            calls :meth:`capture`).
        on_error: Called with an exception raised while capturing (capturing then stops).
        call_for: With ``hook=False``, how a step captured by :attr:`capture_inputs` is re-run:
            called with the captured args, only when the step is finished on the full path
            (so a quiet step costs no closure). The call enters the framework's own autocast:
            such captures read none.
        updates: Counts the optimizer updates applied so far, for an optimizer whose writes
            leave the parameters' version counters alone (DeepSpeed's ZeRO writes flat
            buffers the parameters were re-pointed at): it then proves an update instead of
            the counters (None: the counters).

    Example:
        >>> from denpex_callbacks import Monitor, MonitorConfig, Observation
        >>> model = torch.nn.Linear(4, 1)
        >>> monitor = Monitor(MonitorConfig(report_dir=None))
        >>> captures = StepCaptures(monitor, model)
        >>> _ = model(torch.ones(2, 4))
        >>> captures.step_finished(0)
        >>> captures.held_steps
        [0]
        >>> _ = monitor.observe(Observation(0, loss=1.0, skipped=False))
        >>> captures.release()
        >>> captures.held_steps
        []
        >>> captures.close()
    """

    def __init__(self, monitor: Monitor, model: torch.nn.Module, *, hook: bool = True,
                 on_error: Callable[[BaseException], None] | None = None,
                 updates: Callable[[], int] | None = None,
                 call_for: Callable[[tuple[Any, ...]], Callable[[], Any]] | None = None) -> None:
        self.monitor = monitor
        self._run = monitor.run  # (the same object for the monitor's life: restored in place)
        self.model = model
        self.on_error = on_error
        self.failed = False
        self.rerunning = False  # while set, forwards are recorded in rerun_inputs instead
        self.rerun_inputs: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        self.released_upto: int | None = None  # steps at or before this were let go
        self.last_finished: int | None = None
        self.held: dict[int, StepCapture] = {}
        self._open: tuple[Any, ...] | None = None  # the step in progress (see _on_forward)
        self._updates = updates
        self._params = [p for p in model.parameters() if p.requires_grad] if (
            updates is None) else []
        self._tracked = self._params  # whose versions are summed (see tracked_params)
        self._all_versions: list[int] | None = None  # until the set is narrowed
        self._narrowed = updates is not None
        self._cuda = torch.cuda.is_available()  # asked once: it costs a microsecond a call
        self._clone_cpu_rng = torch.default_generator.clone_state  # torch.get_rng_state's source
        # Whether the RNG state is cloned at each forward, and its checks (see the module's
        # text): forwards until the next check begins, the state a check began with (compared
        # at the next forward), checks in a row that saw no draw.
        self.rng_kept = True
        self._rng_check_in = 1
        self._rng_probe: tuple[torch.Generator, tuple[int, torch.Tensor] | None] | None = None
        self._rng_still = 0
        # Where autocast may be on (each question is a call into torch, every step). None
        # where the adapter's re-run call enters the framework's own autocast (Lightning's
        # train_step_context), which its capture, taken before that context, would not see.
        self._autocast_devices: tuple[str, ...] = () if call_for is not None else (
            ("cuda", "cpu") if self._cuda else ("cpu",))
        self._hook = model.register_forward_pre_hook(self._on_forward, with_kwargs=True) if (
            hook) else None
        self._early = not hook  # captured by the adapter before the forward
        self._call_for = call_for
        self.capture_inputs: Callable[[tuple[Any, ...], dict[str, Any]], None] = (
            functools.partial(self._on_forward, _TRAINING))
        """``capture_inputs(args, kwargs)``: the adapter's own capture, from its hook before
        the step's forward, every step (a partial of the forward pre-hook: no frame of its
        own). ``args`` must be a tuple and ``kwargs`` a dict the capture may keep; ``call_for``
        re-runs it."""

    @property
    def hooked(self) -> bool:
        """The forward pre-hook is in place (captures come from the model's forward)."""
        return self._hook is not None

    @property
    def held_steps(self) -> list[int]:
        """Steps whose captures are kept now."""
        return list(self.held)

    @property
    def tracked_params(self) -> list[torch.Tensor]:
        """The parameters whose version counters a capture sums: every trainable one until
        an applied update has changed some, then the first and the last of those the update
        wrote (:data:`TRACKED_PARAMS`)."""
        return self._tracked

    def param_version(self, params: list[torch.Tensor] | None = None) -> int:
        """Sum of the version counters of ``params`` (default: :attr:`tracked_params`) now
        (the count of applied updates, where the adapter gave one)."""
        if self._updates is not None:
            return self._updates()
        return sum(map(_version, self._tracked if params is None else params))

    def _versions_now(self) -> int:
        """:meth:`param_version` until the tracked set is narrowed, at the first applied
        update (after it, the capture sums the tracked versions itself)."""
        seen = self._all_versions
        now = list(map(_version, self._params))
        if seen is not None:
            written = [p for p, then, version in zip(self._params, seen, now, strict=True)
                       if version != then]
            if written:  # the first and the last (an embedding, a head: in every forward)
                self._tracked = [written[0], written[-1]] if len(written) > 1 else written
                self._all_versions, self._narrowed = None, True
                return sum(map(_version, self._tracked))
        self._all_versions = now
        return sum(now)

    # -- capturing (every training forward) ------------------------------------------------------

    def _on_forward(self, module: Any, args: Any, kwargs: Any) -> None:
        # Every training forward, so written flat (inside a training step each call into
        # torch and each Python frame costs a microsecond or more): the step's capture as a
        # plain tuple, made a StepCapture only when its step is judged in full (most steps
        # never need one); the hook's own args and kwargs, built by torch for this call only.
        if self.rerunning:  # what a re-run closure feeds the model, to compare with the capture
            if self.rerun_inputs is None:
                self.rerun_inputs = (tuple(args), dict(kwargs))
            return
        if self.failed or not module.training or not _grad_enabled():
            return
        try:
            previous = self._open
            tracked = self._tracked
            autocast = []
            if self._autocast_devices and _any_autocast():
                for device in self._autocast_devices:  # (a loop: a comprehension is a frame)
                    if _autocast_enabled(device):
                        autocast.append((device, _autocast_dtype(device)))
            # The run's judged steps so far: a forward after the step of the previous one was
            # judged (and taken as quiet, without step_finished) begins a new step.
            judged = self._run.steps_seen
            # The RNG state: cloned while the steps draw random numbers, and at each check.
            if self._rng_probe is not None:  # a check began at the last forward: compare
                self._rng_checked()
            check_in = self._rng_check_in - 1
            self._rng_check_in = check_in
            if self.rng_kept or check_in <= 0:
                cpu_rng = self._clone_cpu_rng()
                cuda_rng = cuda_rng_state() if self._cuda else None
                if check_in <= 0:
                    self._rng_probe = (cpu_rng, cuda_rng)
            else:
                cpu_rng = cuda_rng = None
            updates = self._updates
            if updates is not None:
                version = updates()
            elif not self._narrowed:
                version = self._versions_now()
            elif len(tracked) == 2:  # (the narrowed set: two attribute reads, not the cold
                version = tracked[0]._version + tracked[1]._version  # code of sum and map)
            else:
                version = sum(map(_version, tracked))
            self._open = (
                args,
                kwargs,
                cpu_rng,
                cuda_rng,
                autocast,
                True,  # (module.training)
                version,
                tracked,
                # (an adapter's capture before the forward reads them when its step ends)
                None if self._early else input_versions(args, kwargs),
                previous[_FORWARDS] + 1 if previous is not None and previous[_JUDGED] == judged
                else 1,
                judged,
            )
        except Exception as exc:
            self._fail(exc)

    def _rng_checked(self) -> None:
        """End the check begun at the last forward: did anything draw random numbers since?"""
        probe, self._rng_probe = self._rng_probe, None
        assert probe is not None
        cpu_rng, cuda_rng = probe
        drew = not torch.equal(cpu_rng.get_state(), torch.default_generator.get_state()) or (
            cuda_rng is not None
            and not torch.equal(cuda_rng[1], torch.cuda.get_rng_state(cuda_rng[0])))
        if drew:
            self.rng_drawn()
            return
        self._rng_still += 1
        self.rng_kept = self._rng_still < RNG_CHECKS_TO_SETTLE
        # Checks follow one another until settled, then come every RNG_CHECK_EVERY forwards.
        self._rng_check_in = 1 if self.rng_kept else RNG_CHECK_EVERY

    def rng_drawn(self) -> None:
        """Random numbers were drawn (a check saw the generators move, or a re-run of a step
        whose RNG state was not kept drew some): clone the RNG state at every forward again,
        and check again in :data:`RNG_CHECK_EVERY` forwards."""
        self.rng_kept = True
        self._rng_still = 0
        self._rng_probe = None
        self._rng_check_in = RNG_CHECK_EVERY

    def capture(
        self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
        call: Callable[[], Any] | None = None, returns_loss: bool = False,
    ) -> None:
        """Capture a step's inputs and RNG state now, before its forward (whatever changes
        the inputs in place before the step ends is part of the step: their version counters
        are read when it ends).

        Args:
            args: Positional inputs (references are kept, not copies).
            kwargs: Keyword inputs.
            call: Re-runs the step's computation (default: the model on the inputs).
            returns_loss: ``call`` returns the loss that was backpropagated.
        """
        if self.rerunning or self.failed:
            return
        previous = self._open
        self._on_forward(_TRAINING, args if args.__class__ is tuple else tuple(args),
                         dict(kwargs) if kwargs else {})
        if self._open is not None and self._open is not previous:  # taken now: add the
            # adapter's own way to re-run it, and that it came before the forward
            self._open = (*self._open[:_OPTIONAL], call, returns_loss, True)

    def step_finished(self, step: int, *, call: Callable[[], Any] | None = None) -> None:
        """The forwards since the last call belong to optimizer step ``step``.

        Args:
            step: The step, as the adapter numbers observations.
            call: Re-runs this step's computation and returns its loss (a plain loop's
                ``rerun=`` closure); it replaces the model call.
        """
        raw, self._open = self._open, None
        if raw is None or self.failed or raw[_JUDGED] != self._run.steps_seen:
            return  # (none, or an earlier step's, taken as quiet: it was never finished)
        (args, kwargs, cpu_rng, cuda_rng, autocast, training, param_version, params, inputs,
         forwards, _judged, own_call, returns_loss, early) = (*raw, None, False, self._early)[:14]
        if own_call is None and self._call_for is not None:
            own_call = self._call_for(args)
        capture = StepCapture(
            args=tuple(args), kwargs=dict(kwargs), cpu_rng=cpu_rng, cuda_rng=cuda_rng,
            autocast=autocast, training=training, param_version=param_version, params=params,
            inputs=inputs, forwards=forwards, call=own_call, call_returns_loss=returns_loss,
            step=step, early=early,
        )
        self.last_finished = step
        if capture.early:  # what the step's own hooks did to the batch before its forward counts
            capture.inputs = input_versions(capture.args, capture.kwargs) if (
                inputs is None) else [(t, t._version) for t, _v in inputs]
        if call is not None:
            capture.call, capture.call_returns_loss = call, True
        held = self.held
        held.pop(step, None)
        held[step] = capture
        if len(held) > MAX_HELD:  # (rarely: a release keeps them fewer)
            pinned = self._pinned()
            for old in [s for s in held if s != step and s != pinned][: len(held) - MAX_HELD]:
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
        held = self.held
        if not held:
            return
        pinned = self._pinned()
        for step in [s for s in held if s <= judged and s != pinned]:
            del held[step]

    def close(self) -> None:
        """Remove the hook and drop every capture. Safe to call twice."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
        self._open = None
        self.held.clear()

    def _fail(self, exc: BaseException) -> None:
        self.failed = True
        self.close()
        if self.on_error is not None:
            self.on_error(exc)
