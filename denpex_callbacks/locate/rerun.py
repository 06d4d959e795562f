"""Re-run the failing step once, with the same inputs, parameters and RNG state.

Is it the node or is it me? A step whose loss went non-finite (AMP006), or the first overflowing
step of a loss-scale collapse (AMP003), is computed again right after it is diagnosed, with the
non-finite locator's hooks armed, and compared with what the step showed
(:mod:`denpex_callbacks.core.rerun_verdict` says what each outcome means).

What healthy steps pay (``MonitorConfig.rerun``, on by default) and the memory it keeps:
see :mod:`denpex_callbacks.locate.capture`.

The re-run itself:

- calls the model on the captured inputs (or the adapter's re-run closure: a plain loop's
  ``step(..., rerun=...)``, a LightningModule's ``training_step``) under the captured autocast
  state and RNG state, grad enabled;
- for an overflow in the gradients (AMP003 with a finite loss) also runs backward on
  ``loss * scale`` with the scale the step used, through ``torch.autograd.grad`` into throwaway
  gradients: ``.grad`` is never written, so accumulation hooks (DDP's all-reduce, ZeRO's
  partitioning) do not fire and no rank waits for another; a non-finite loss needs the forward
  only. Where no loss is available, the verdict covers the forward and says so;
- never steps the optimizer, never touches the scaler, the data loader or any logger; restores
  the RNG state it found, the model's buffers (BatchNorm statistics) and the train/eval mode.
  State a forward keeps in plain Python attributes (a call counter, a cache) is not undone.
It needs the memory of one training step while it runs, freed when it returns.

Not re-runnable, and said so: the update of the failing step was applied (no scaler skipped it)
or the parameters changed since; the inputs were modified in place, were not captured, or are
no longer kept; the forward would enter a collective alone (SyncBatchNorm, FSDP, ZeRO-3) or an
adapter says it cannot re-run without side effects
(:mod:`denpex_callbacks.locate.rerun_checks` holds these checks).
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import torch

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.rerun_verdict import (
    FORWARD,
    FORWARD_BACKWARD,
    FailingStep,
    RerunOutcome,
    RerunVerdict,
    judge,
    not_rerunnable,
    this_host,
)
from denpex_callbacks.locate.capture import StepCapture, StepCaptures, cuda_rng_state
from denpex_callbacks.locate.locator import NonFiniteLocator
from denpex_callbacks.locate.origin_report import OriginReport
from denpex_callbacks.locate.rerun_checks import (
    NotRerunnable,
    check_same_inputs,
    collective_in_forward,
    why_not_rerunnable,
)
from denpex_callbacks.locate.step_inputs import unwrapped

__all__ = ["FailingStepRerun"]

LOGGER = logging.getLogger("denpex_callbacks")
# The generators' states a re-run found: the CPU's, and (device, state) of a CUDA device's.
RngStates = tuple[torch.Tensor, tuple[int, torch.Tensor] | None]


def loss_of(output: Any) -> torch.Tensor | None:
    """The loss in a model's output: a scalar tensor itself, ``output["loss"]`` or
    ``output.loss`` (HF ModelOutput); None when the output carries no loss.

    Example:
        >>> loss_of({"loss": torch.tensor(0.5), "logits": torch.zeros(2)}).item()
        0.5
        >>> loss_of(torch.zeros(4, 2)) is None
        True
    """
    if isinstance(output, torch.Tensor):
        return output if output.numel() == 1 and output.is_floating_point() else None
    loss = output.get("loss") if isinstance(output, Mapping) else getattr(output, "loss", None)
    if isinstance(loss, torch.Tensor) and loss.numel() == 1 and loss.is_floating_point():
        return loss
    return None


class FailingStepRerun:
    """Keeps what re-running a step needs, and re-runs a failing one with the locator armed.

    Adapters call ``step_finished(step)`` when a step's optimizer update is done,
    ``rerun(diagnosis)`` for an AMP006/AMP003 diagnosis, then ``release()`` once the monitor
    has judged steps; :class:`~denpex_callbacks.locate.on_fault.LocateOnFault` does this for
    them. Captures come from a forward pre-hook on ``model``, or from ``capture()`` where the
    framework calls something other than the model's forward (Lightning's ``training_step``).

    Args:
        monitor: The rank's Monitor (its run state says which steps were skipped).
        model: The module whose forward is captured and re-run (its wrapper's inner module is
            used under DistributedDataParallel).
        hook: Install the forward pre-hook (False: the adapter calls ``capture()``).
        no_backward: Why a backward cannot be re-run in this framework ("" : it can).
        blocker: Returns why this framework cannot re-run a step now (None: it can).
        updates: Counts the optimizer updates applied so far, where they leave the
            parameters' version counters alone (see :class:`StepCaptures`).
        call_for: With ``hook=False``: builds a captured step's re-run from its args (see
            :class:`StepCaptures`).

    Example:
        >>> from denpex_callbacks import Monitor, MonitorConfig, Observation
        >>> torch.manual_seed(0)  # doctest: +ELLIPSIS
        <torch._C.Generator object at ...>
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5),
        ...                             torch.nn.Linear(4, 1))
        >>> monitor = Monitor(MonitorConfig(report_dir=None))
        >>> rerun = FailingStepRerun(monitor, model)
        >>> x = torch.ones(2, 4)
        >>> x[0, 0] = float("nan")  # a bad sample
        >>> loss = model(x).mean()
        >>> rerun.step_finished(0)
        >>> found = monitor.observe(Observation(0, loss=loss.item(), skipped=True))
        >>> verdict, report = rerun.rerun(found[0])
        >>> verdict.verdict, verdict.reason
        ('reproduced', "the model's output is non-finite again")
        >>> report.inputs_nonfinite
        True
        >>> rerun.close()
    """

    def __init__(
        self,
        monitor: Monitor,
        model: torch.nn.Module,
        *,
        hook: bool = True,
        no_backward: str = "",
        blocker: Callable[[], str | None] | None = None,
        updates: Callable[[], int] | None = None,
        call_for: Callable[[tuple[Any, ...]], Callable[[], Any]] | None = None,
    ) -> None:
        self.monitor = monitor
        self.wrapper, self.model = unwrapped(model)
        self.no_backward = no_backward
        self.blocker = blocker
        self.failed = False
        self.reruns = 0
        self.captures = StepCaptures(monitor, self.model, hook=hook, on_error=self._fail,
                                     updates=updates, call_for=call_for)

    def capture(
        self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, *,
        call: Callable[[], Any] | None = None, returns_loss: bool = False,
    ) -> None:
        """Capture a step's inputs and RNG state now (see :meth:`StepCaptures.capture`)."""
        self.captures.capture(args, kwargs, call=call, returns_loss=returns_loss)

    def step_finished(self, step: int, *, call: Callable[[], Any] | None = None) -> None:
        """The forwards since the last call belong to step ``step`` (``call``: a closure
        re-computing its loss)."""
        self.captures.step_finished(step, call=call)

    def release(self) -> None:
        """Let go of the captures of the steps the monitor has judged."""
        self.captures.release()

    @property
    def held_steps(self) -> list[int]:
        """Steps whose captures are kept now."""
        return self.captures.held_steps

    # -- re-running (on a fault only) -----------------------------------------------------------

    def rerun(self, diagnosis: Diagnosis) -> tuple[RerunVerdict, OriginReport | None]:
        """Re-run the step ``diagnosis`` failed at, once, and judge it.

        Returns:
            The verdict and, when the step was re-run, what the locator saw in it.
        """
        failing = self._failing(diagnosis)
        rank, host = self.monitor.rank, this_host()
        capture = self.captures.held.get(failing.step) if failing.step is not None else None
        why = self._why_not(failing, capture)
        if why is not None or capture is None:
            return not_rerunnable(failing, why or "", rank=rank, host=host), None
        self.reruns += 1
        try:
            outcome, report = self._run(capture, failing)
        except NotRerunnable as why_not:
            return not_rerunnable(failing, str(why_not), rank=rank, host=host), None
        except _RerunRaised as raised:
            return not_rerunnable(failing, f"the re-run raised {raised}", rank=rank,
                                  host=host), None
        detail = {"forwards_in_step": capture.forwards, "module": _first_module(report)}
        return judge(failing, outcome, rank=rank, host=host, detail=detail), report

    def _failing(self, diagnosis: Diagnosis) -> FailingStep:
        evidence = diagnosis.evidence
        step = diagnosis.step
        recorded = next((r for r in self.monitor.run.recent if r[0] == step), None)
        loss = evidence.get("loss") if diagnosis.code == "AMP006" else None
        if loss is None and recorded is not None:
            loss = recorded[3]
        scale = evidence.get("scale_at_start") if diagnosis.code == "AMP003" else None
        if scale is None and self.monitor.run.skip_streak_start == step:
            scale = self.monitor.run.skip_streak_start_scale
        return FailingStep(diagnosis.code, step, _number(loss), _number(scale),
                           self.monitor.world_size)

    def _why_not(self, failing: FailingStep, capture: StepCapture | None) -> str | None:
        if self.failed:
            return "the re-run machinery failed earlier in this run"
        why = why_not_rerunnable(failing.step, capture, self.captures, self.monitor.run)
        if why is not None:
            return why
        blocked = self.blocker() if self.blocker is not None else None
        return blocked or collective_in_forward(self.model, self.monitor.world_size)

    def _run(self, capture: StepCapture, failing: FailingStep) -> tuple[RerunOutcome, OriginReport]:
        model = self.model
        locator = NonFiniteLocator(model, on_error=self._fail)
        with self._restored(model, capture) as found_rng:
            locator.arm()
            try:
                with contextlib.ExitStack() as stack:
                    for device, dtype in capture.autocast:
                        stack.enter_context(torch.autocast(device, dtype=dtype))
                    stack.enter_context(torch.enable_grad())
                    self.captures.rerun_inputs = None
                    if capture.call is not None:
                        output = capture.call()
                    else:
                        output = model(*capture.args, **capture.kwargs)
                if capture.call is not None and self.captures.hooked:
                    check_same_inputs(self.captures, capture)
                loss = output if capture.call_returns_loss else loss_of(output)
                if not isinstance(loss, torch.Tensor):
                    loss = None
                loss_value = float(loss.detach().float()) if loss is not None else None
                grads, why = None, ""
                if not failing.loss_nonfinite and (loss_value is None
                                                   or math.isfinite(loss_value)):
                    why = self._why_forward_only(loss)
                    if not why and loss is not None:
                        self._backward(loss, failing.scale)
                        grads = True  # filled from the report below
                self._check_rng(capture, failing, found_rng)
            except NotRerunnable:
                locator.disarm()
                raise
            except Exception as exc:
                locator.disarm()
                raise _RerunRaised(f"{type(exc).__name__}: {exc}") from exc
            report = locator.finish(loss if loss is not None else output, failing.step)
        outputs_finite = None if loss is not None else (
            report.loss_absmax is None or math.isfinite(report.loss_absmax))
        return RerunOutcome(
            loss=loss_value,
            outputs_finite=outputs_finite,
            grads_finite=report.grads_finite if grads else None,
            covers=FORWARD_BACKWARD if grads else FORWARD,
            why_forward_only=why,
            partial=(f"only the last of the {capture.forwards} micro-batches accumulated in "
                     "this step was kept and re-run") if capture.forwards > 1 else "",
        ), report

    def _check_rng(self, capture: StepCapture, failing: FailingStep, found: RngStates) -> None:
        """A step whose RNG state was not kept (the steps drew no random numbers when it was
        captured) is re-run with whatever state the generators hold: faithful only if the
        re-run draws none either (``found``: the states before it, from ``_restored``)."""
        if capture.cpu_rng is not None:
            return
        cpu_rng, cuda_rng = found
        if torch.equal(cpu_rng, torch.get_rng_state()) and (cuda_rng is None or torch.equal(
                cuda_rng[1], torch.cuda.get_rng_state(cuda_rng[0]))):
            return
        self.captures.rng_drawn()  # the model draws now: keep the RNG state again
        raise NotRerunnable(
            f"step {failing.step}'s computation draws random numbers (dropout) and its RNG "
            "state was not kept (denpex keeps it while the steps draw some; this model began "
            "to after its last check): a re-run would draw other numbers. It is kept from now on")

    def _why_forward_only(self, loss: torch.Tensor | None) -> str:
        if self.no_backward:
            return self.no_backward
        if loss is None:
            return "the re-run computation returns no loss to differentiate"
        if not loss.requires_grad:
            return "the re-run loss does not require grad"
        return ""

    def _backward(self, loss: torch.Tensor, scale: float | None) -> None:
        params = [p for p in self.model.parameters() if p.requires_grad]
        scaled = loss * scale if scale is not None else loss
        # Throwaway gradients: .grad is not written and accumulation hooks do not run.
        grads = torch.autograd.grad(scaled, params, allow_unused=True)
        del grads

    @contextlib.contextmanager
    def _restored(self, model: torch.nn.Module, capture: StepCapture) -> Iterator[RngStates]:
        """Run with the capture's RNG state and train mode; put back RNG, buffers, modes.
        Yields the generators' states it found (with a capture that kept none, the current
        CUDA device's too: compared after the re-run)."""
        cpu_rng = torch.get_rng_state()
        cuda_rng = None
        if capture.cuda_rng is not None:
            cuda_rng = (capture.cuda_rng[0], torch.cuda.get_rng_state(capture.cuda_rng[0]))
        elif capture.cpu_rng is None:
            cuda_rng = cuda_rng_state()
        buffers = [(b, b._version, b.clone()) for b in model.buffers()]
        modes = [(m, m.training) for m in model.modules()]
        wrapper = self.wrapper
        self.captures.rerunning = True
        try:
            if wrapper is not None:  # a closure calling DDP reaches the module it wraps
                wrapper.forward = model.__call__
            if capture.cpu_rng is not None:
                torch.set_rng_state(capture.cpu_rng.get_state())
            if capture.cuda_rng is not None:
                torch.cuda.set_rng_state(capture.cuda_rng[1], capture.cuda_rng[0])
            if model.training != capture.training:
                model.train(capture.training)
            yield cpu_rng, cuda_rng
        finally:
            self.captures.rerunning = False
            if wrapper is not None:
                wrapper.__dict__.pop("forward", None)
            torch.set_rng_state(cpu_rng)
            if cuda_rng is not None:
                torch.cuda.set_rng_state(cuda_rng[1], cuda_rng[0])
            with torch.no_grad():
                for buffer, version, saved in buffers:
                    if buffer._version != version:
                        buffer.copy_(saved)
            for module, training in modes:
                module.training = training

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Remove the hook and drop every capture. Safe to call twice."""
        self.captures.close()

    def _fail(self, exc: BaseException) -> None:
        if self.failed:
            return
        self.failed = True
        self.close()
        self.monitor.logger.error(
            "denpex: internal error in the failing-step re-run; re-running is off for the "
            "rest of this run (training and monitoring continue). Please report this "
            "traceback.", exc_info=exc,
        )


class _RerunRaised(Exception):
    """The re-run's computation raised (user code, out of memory): not an internal error."""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):  # NaN/inf survive a report round trip as strings
        with contextlib.suppress(ValueError):
            return float(value)
    return None


def _first_module(report: OriginReport) -> str | None:
    if report.forward is not None:
        return report.forward.name
    return report.backward.name if report.backward is not None else None
