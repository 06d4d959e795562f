"""Re-run the failing step once, with the same inputs, parameters and RNG state.

Is it the node or is it me? A step whose loss went non-finite (AMP006), or the first overflowing
step of a loss-scale collapse (AMP003), is computed again right after it is diagnosed, with the
non-finite locator's hooks armed, and compared with what the step showed
(:mod:`denpex_callbacks.core.rerun_verdict` says what each outcome means).

What healthy steps pay (``MonitorConfig.rerun``, on by default) and the memory it keeps:
see :mod:`denpex_callbacks.locate.capture`.

The re-run itself:

- calls the adapter's re-run closure (a plain loop's ``step(..., rerun=...)``, a
  LightningModule's ``training_step``), or else each watched model on its captured inputs and
  then, where the loop handed them over, its loss function on the output and the targets
  (``loss_fn(output, targets)``, outside autocast); under the captured autocast and RNG state,
  grad enabled, compiled code run eagerly;
- for an overflow in the gradients (AMP003 with a finite loss) also runs backward on
  ``loss * scale`` with the scale the step used, through ``torch.autograd.grad`` into throwaway
  gradients: ``.grad`` is never written, so accumulation hooks (DDP's all-reduce, ZeRO's
  partitioning) do not fire and no rank waits for another; a non-finite loss needs the forward
  only. Where no loss is available, the verdict covers the forward and says so;
- never steps the optimizer, never touches the scaler, the data loader or any logger; restores
  the RNG state it found, the models' buffers (BatchNorm statistics) and their train/eval mode.
  State a forward keeps in plain Python attributes (a call counter, a cache) is not undone.
  A framework's step function can read the trainer's state (Lightning's ``global_step``):
  its adapter's closure restores what it can and names, in its ``unrestored`` attribute after
  the call, what it could not; a finite re-run then proves nothing (never "not reproduced").
It needs the memory of one training step while it runs, freed when it returns.

Not re-runnable, and said so: an optimizer step was applied since the failing step's forward
(:mod:`denpex_callbacks.locate.applied_steps`); the inputs were modified in place, were not
captured, or are no longer kept; the parameters are sharded (FSDP1, FSDP2, DTensor, ZeRO-3: the
forward gathers them from every rank) or the forward holds SyncBatchNorm under several ranks;
an adapter says it cannot re-run without side effects
(:mod:`denpex_callbacks.locate.rerun_checks` holds these checks).
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
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
from denpex_callbacks.locate.applied_steps import AppliedSteps, CountedUpdates, StepCounter
from denpex_callbacks.locate.capture import ModelForward, RngState, StepCapture, StepCaptures
from denpex_callbacks.locate.locator import NonFiniteLocator
from denpex_callbacks.locate.origin_report import OriginReport
from denpex_callbacks.locate.rerun_checks import (
    NotRerunnable,
    check_same_inputs,
    collective_in_forward,
    why_not_rerunnable,
)
from denpex_callbacks.locate.tensor_absmax import all_finite, float_tensors
from denpex_callbacks.locate.watched import WatchedModel, eager, runs_compiled, watched_models

__all__ = ["FailingStepRerun", "loss_of"]

LOGGER = logging.getLogger("denpex_callbacks")


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
    them. Captures come from forward hooks on the models, or from ``capture()`` where the
    framework calls something other than the model's forward (Lightning's ``training_step``).

    Args:
        monitor: The rank's Monitor (its run state says which steps were skipped).
        models: The models to capture and re-run: a module, a ``ModuleDict``, or a list, tuple
            or dict of modules (DDP, Fabric and torch.compile wrappers are seen through).
        optimizers: Optimizers whose steps change the parameters, beyond those found holding
            them (see :class:`~denpex_callbacks.locate.applied_steps.AppliedSteps`).
        hook: Install the forward hooks (False: the adapter calls ``capture()``).
        no_backward: Why a backward cannot be re-run in this framework ("" : it can).
        blocker: Returns why this framework cannot re-run a step now (None: it can).
        updates: Counts the optimizer updates applied so far, where the framework steps its
            optimizers itself (DeepSpeed); replaces the optimizer step hook.
        call_for: With ``hook=False``: builds a captured step's re-run from its args (see
            :class:`~denpex_callbacks.locate.capture.StepCaptures`).
        loss_fn: Computes a step's loss from the model's output: ``loss_fn(output, targets)``
            with the targets the step handed over, else ``loss_fn(output)``.

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
        models: Any,
        *,
        optimizers: Any = (),
        hook: bool = True,
        no_backward: str = "",
        blocker: Callable[[], str | None] | None = None,
        updates: Callable[[], int] | None = None,
        call_for: Callable[[tuple[Any, ...]], Callable[[], Any]] | None = None,
        loss_fn: Callable[..., Any] | None = None,
    ) -> None:
        self.monitor = monitor
        self.models: list[WatchedModel] = watched_models(models)
        self.no_backward = no_backward
        self.blocker = blocker
        self.loss_fn = loss_fn
        self.failed = False
        self.reruns = 0
        optimizers = [optimizers] if hasattr(optimizers, "param_groups") else list(optimizers)
        self.counter: StepCounter = CountedUpdates(updates) if updates is not None else (
            AppliedSteps([m.module for m in self.models], optimizers))
        # Sharded parameters are never re-run: no capture is kept for them.
        self.refusal = next((why for m in self.models
                             if (why := collective_in_forward(m.module, 1)) is not None), None)
        self.captures = StepCaptures(monitor, self.models, self.counter,
                                     hook=hook and self.refusal is None, on_error=self._fail,
                                     call_for=call_for)

    def capture(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None) -> None:
        """Capture a step's inputs and RNG state now (see :meth:`StepCaptures.capture`)."""
        if self.refusal is None:
            self.captures.capture(args, kwargs)

    def step_finished(self, step: int, *, call: Callable[[], Any] | None = None,
                      targets: Any = None, loss_fn: Callable[..., Any] | None = None) -> None:
        """The forwards since the last call belong to step ``step`` (``call``: a closure
        re-computing its loss; ``targets`` and ``loss_fn``: what its loss was computed from)."""
        self.captures.step_finished(step, call=call, targets=targets,
                                    loss_fn=loss_fn or self.loss_fn)

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
        rank, host = self.monitor.rank, this_host()
        capture = self.captures.held.get(diagnosis.step) if diagnosis.step is not None else None
        failing = self._failing(diagnosis, capture)
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
        detail = {"forwards_in_step": capture.forwards, "module": _first_module(report),
                  "output_finite": failing.output_finite}
        verdict = judge(failing, outcome, rank=rank, host=host, detail=detail)
        if verdict.placed is not None and report.loss_absmax is None:
            # The model's output was finite in the step as in the re-run: the step's own loss
            # stands for the loss the re-run could not compute.
            loss = failing.loss if failing.loss is not None else math.nan
            report = replace(report, loss_absmax=abs(loss))
        return verdict, replace(report, targets_finite=_targets_finite(capture),
                                targets_given=capture.targets is not None)

    def _failing(self, diagnosis: Diagnosis, capture: StepCapture | None) -> FailingStep:
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
                           self.monitor.world_size,
                           capture.output_finite() if capture is not None else None)

    def _why_not(self, failing: FailingStep, capture: StepCapture | None) -> str | None:
        if self.failed:
            return "the re-run machinery failed earlier in this run"
        if self.refusal is not None:
            return self.refusal
        why = why_not_rerunnable(failing.step, capture, self.captures)
        if why is not None:
            return why
        blocked = self.blocker() if self.blocker is not None else None
        return blocked or next((why for m in self.models if (
            why := collective_in_forward(m.module, self.monitor.world_size)) is not None), None)

    def _run(self, capture: StepCapture, failing: FailingStep
             ) -> tuple[RerunOutcome, OriginReport]:
        failures: list[BaseException] = []  # the locator's own: raised to LocateOnFault
        locator = NonFiniteLocator(self.models, on_error=failures.append)
        with self._restored() as found_rng:
            locator.arm()
            try:
                with eager(), torch.enable_grad():
                    loss, outputs = self._compute(capture)
                if capture.call is not None and self.captures.hooked:
                    check_same_inputs(self.captures, capture)
                loss_value = float(loss.detach().float()) if loss is not None else None
                flag = all_finite(float_tensors(outputs, []))
                outputs_finite = bool(flag) if flag is not None else None
                grads, why = None, ""
                if not failing.loss_nonfinite and (loss_value is None
                                                   or math.isfinite(loss_value)):
                    why = self._why_forward_only(loss)
                    if not why and loss is not None:
                        self._backward(loss, failing.scale)
                        grads = True  # filled from the report below
                self._check_rng(found_rng)
            except NotRerunnable:
                locator.disarm()
                raise
            except Exception as exc:
                locator.disarm()
                raise _RerunRaised(f"{type(exc).__name__}: {exc}") from exc
            report = locator.finish(loss, failing.step)
            if loss is not None:  # the re-run's own loss: its dtype is the step's
                report = replace(report, loss_dtype=str(loss.dtype))
        if failures:
            raise failures[0]
        partial = [f"only the last of the {capture.forwards} micro-batches accumulated in "
                   "this step was kept and re-run"] if capture.forwards > 1 else []
        partial.append(str(getattr(capture.call, "unrestored", "") or ""))
        return RerunOutcome(
            loss=loss_value,
            outputs_finite=outputs_finite,
            grads_finite=report.grads_finite if grads else None,
            covers=FORWARD_BACKWARD if grads else FORWARD,
            why_forward_only=why,
            partial="; ".join(p for p in partial if p),
        ), report

    def _compute(self, capture: StepCapture) -> tuple[torch.Tensor | None, list[Any]]:
        """The step's loss (None: none to re-run) and the outputs of the models' calls."""
        first = capture.first
        if capture.call is not None:
            if first is not None:
                first.rng.restore()
            with _autocast(first):
                output = capture.call()
            loss = output if capture.call_returns_loss else loss_of(output)
            return (loss if isinstance(loss, torch.Tensor) else None), [output]
        outputs = []
        called = [m for m in self.models if m.name in capture.models]
        for model in sorted(called, key=lambda m: capture.models[m.name].order):
            forward = capture.models[model.name]
            forward.rng.restore()
            with _autocast(forward):
                outputs.append(model.module(*forward.args, **forward.kwargs))
        loss = loss_of(outputs[0]) if len(outputs) == 1 else None
        if loss is None and capture.loss_fn is not None and len(outputs) == 1:
            loss = capture.loss_fn(outputs[0], capture.targets) if (
                capture.targets is not None) else capture.loss_fn(outputs[0])
        return (loss if isinstance(loss, torch.Tensor) else None), outputs

    def _compiled(self) -> bool:
        return any(m.compiled_wrapper or runs_compiled(m.module) for m in self.models)

    def _check_rng(self, found: RngState) -> None:
        """A compiled model's kernels draw random numbers (dropout) their own way: an eager
        re-run that draws some would not draw the same ones."""
        if not self._compiled() or torch.equal(found.cpu.get_state(), torch.get_rng_state()):
            return
        raise NotRerunnable(
            "the model runs compiled and draws random numbers (dropout): torch.compile's "
            "kernels draw them their own way, so an eager re-run would not compute what the "
            "step computed")

    def _why_forward_only(self, loss: torch.Tensor | None) -> str:
        if self.no_backward:
            return self.no_backward
        if loss is None:
            return "the re-run computation returns no loss to differentiate"
        if not loss.requires_grad:
            return "the re-run loss does not require grad"
        return ""

    def _backward(self, loss: torch.Tensor, scale: float | None) -> None:
        params = [p for m in self.models for p in m.module.parameters() if p.requires_grad]
        scaled = loss * scale if scale is not None else loss
        # Throwaway gradients: .grad is not written and accumulation hooks do not run.
        grads = torch.autograd.grad(scaled, params, allow_unused=True)
        del grads

    @contextlib.contextmanager
    def _restored(self) -> Iterator[RngState]:
        """Put back the RNG state, the models' buffers and modes as the re-run found them;
        a closure calling DDP reaches the module it wraps. Yields the RNG state found."""
        found = RngState.now()
        modules = [m.module for m in self.models]
        buffers = [(b, b._version, b.clone()) for m in modules for b in m.buffers()]
        modes = [(sub, sub.training) for m in modules for sub in m.modules()]
        self.captures.rerunning = True
        try:
            for model in self.models:
                if model.ddp is not None:
                    model.ddp.forward = model.module.__call__
            yield found
        finally:
            self.captures.rerunning = False
            self.captures.rerun_inputs = {}
            for model in self.models:
                if model.ddp is not None:
                    model.ddp.__dict__.pop("forward", None)
            found.restore()
            with torch.no_grad():
                for buffer, version, saved in buffers:
                    if buffer._version != version:
                        buffer.copy_(saved)
            for module, training in modes:
                module.training = training

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Remove the hooks and drop every capture. Safe to call twice."""
        self.captures.close()
        self.counter.close()

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


@contextlib.contextmanager
def _autocast(forward: ModelForward | None) -> Iterator[None]:
    """Autocast as it was around ``forward``."""
    with contextlib.ExitStack() as stack:
        for device, dtype in forward.autocast if forward is not None else ():
            stack.enter_context(torch.autocast(device, dtype=dtype))
        yield


def _targets_finite(capture: StepCapture) -> bool | None:
    """Whether the targets handed over and every floating-point tensor among the step's
    inputs are finite (None: none to check). A sync: after a fault only."""
    inputs = [part for f in capture.models.values() for part in (f.args, f.kwargs)]
    flag = all_finite(float_tensors([capture.targets, *inputs], []))
    return bool(flag) if flag is not None else None


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
