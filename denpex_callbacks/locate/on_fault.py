"""What an adapter calls to locate a fault and to re-run the step it happened in.

After a non-finite loss (AMP006) or the first overflow of a collapse (AMP003), the failing
step is re-run once with the same inputs, parameters and RNG state
(:mod:`denpex_callbacks.locate.rerun`), with a
:class:`~denpex_callbacks.locate.locator.NonFiniteLocator` armed: the diagnosis is amended with
the verdict (reproduced, not reproduced, not re-runnable) and with where the first non-finite
value appeared in the failing batch itself. When the step cannot be re-run, the locator is armed
for the next step instead, and the diagnosis says why the re-run was not possible.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from denpex_callbacks.core.causes import (
    BAD_DATA,
    DIVERGENCE,
    TRANSIENT,
    UNDETERMINED,
    Cause,
    gather,
    judge,
    updates_before,
)
from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.rerun_verdict import (
    NOT_REPRODUCED,
    NOT_RERUNNABLE,
    REPRODUCED,
    RerunVerdict,
)
from denpex_callbacks.locate.locator import NonFiniteLocator
from denpex_callbacks.locate.origin_explanation import (
    OriginExplanation,
    explain_origin,
    origin_facts,
)
from denpex_callbacks.locate.origin_report import OriginReport
from denpex_callbacks.locate.rerun import FailingStepRerun
from denpex_callbacks.locate.watched import watched_models

__all__ = ["TRIGGERS", "LocateOnFault", "amended_text"]

LOGGER = logging.getLogger("denpex_callbacks")
TRIGGERS = frozenset({"AMP006", "AMP003"})  # non-finite loss, overflow-driven skip streak
_VERDICTS_KEPT = 8  # recent steps' verdicts, for a second trigger on the same step


def amended_text(explanation: OriginExplanation, cause: Cause) -> tuple[str | None, str | None]:
    """Root cause and fix of an amended diagnosis: the run's evidence outweighs a module name.

    Divergence (and a one-off that did not recur: the failing batch) is told by the run, not
    by the module where the first inf appeared; otherwise the located origin's own words,
    which name the module and its numbers, with the cause's text where it has none.
    """
    if cause.kind == DIVERGENCE or (
        cause.kind == BAD_DATA and explanation.verdict != "input-data"
    ):
        return cause.root_cause, cause.fix
    return (explanation.root_cause or cause.root_cause, explanation.fix or cause.fix)


class LocateOnFault:
    """What an adapter needs to locate the origin of a non-finite loss or overflow streak.

    Once, when the models exist: ``watch(models, optimizers=[...])``. Then three calls per
    step, in this order, at the end of each optimizer step::

        locate.step_finished(loss, step)      # labels the step's capture; ends an armed step
        found = monitor.observe(...)          # (the adapter's own monitoring)
        locate.maybe_arm(found)               # AMP006 / AMP003: re-run the failing step, or
                                              # arm the locator for the next step

    plus ``close()`` at the end of training. Locating is off when ``MonitorConfig.locate`` is
    False, re-running when ``MonitorConfig.rerun`` is. A failure inside is logged once and
    switches locating off; training and monitoring go on.

    Args:
        monitor: The Monitor whose diagnoses are amended.
        model: The models to hook and re-run, as for ``watch`` (may be given later).

    Example:
        >>> import torch
        >>> from denpex_callbacks import Monitor, MonitorConfig, Observation
        >>> model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1))
        >>> monitor = Monitor(MonitorConfig(report_dir=None))
        >>> locate = LocateOnFault(monitor, model)
        >>> for step in range(3):
        ...     x = torch.ones(2, 4) * (float("nan") if step == 1 else 1.0)
        ...     loss = model(x).mean()
        ...     _ = locate.step_finished(loss, step)
        ...     found = monitor.observe(Observation(step, loss=loss.item(), skipped=step == 1))
        ...     _ = locate.maybe_arm(found)
        >>> d = monitor.diagnoses[0]
        >>> d.evidence["rerun"], d.evidence["origin"]["located_step"]
        ('reproduced', 1)
        >>> d.root_cause.split(":")[0]
        'non-finite values in the input batch'
        >>> locate.close()
    """

    def __init__(self, monitor: Monitor, model: Any = None) -> None:
        self.monitor = monitor
        self.models: Any = None  # what watch() was given: a module, or several
        self.failed = False
        self.last_report: OriginReport | None = None
        self.last_explanation: OriginExplanation | None = None
        self.last_verdict: RerunVerdict | None = None
        self.rerun: FailingStepRerun | None = None
        # Armed for the next step, until its step_finished reads it (None: not armed; a step
        # may then be taken as quiet, see StepPipeline.take_quiet).
        self.locator: NonFiniteLocator | None = None
        self._target: Diagnosis | None = None
        # A step is re-run once: AMP003 on the step AMP006 already re-ran reuses the verdict.
        self._verdicts: dict[int | None, tuple[RerunVerdict, OriginReport | None]] = {}
        # Recent (id, step) handled: an escalation of the same diagnosis is not handled again.
        self._located: deque[tuple[str, int | None]] = deque(maxlen=16)
        if model is not None:
            self.watch(model)

    @property
    def armed(self) -> bool:
        """True between ``maybe_arm`` arming and the next ``step_finished``."""
        return self.locator is not None and self.locator.armed

    @property
    def enabled(self) -> bool:
        """Locating is on: configured, monitoring alive, no internal failure so far."""
        return self.monitor.config.locate and not self.monitor.disabled and not self.failed

    def watch(self, models: Any, optimizers: Any = (), **options: Any) -> None:
        """Watch ``models`` from now on: capture each training step so that a failing one can
        be re-run, and hook them all when the locator is armed.

        Nothing happens when models are already watched. Re-running is off with
        ``MonitorConfig.rerun=False`` (the locator still arms for the next step).

        Args:
            models: A module, a ``ModuleDict``, or a list, tuple or dict of modules (DDP,
                Fabric and torch.compile wrappers are seen through).
            optimizers: The optimizers that step them (wrappers are unwrapped); others are
                found holding their parameters. Their applied steps prove a re-run's
                parameters unchanged.
            **options: For :class:`~denpex_callbacks.locate.rerun.FailingStepRerun`: an
                adapter's ``hook``, ``no_backward``, ``blocker``, ``updates``, ``call_for``,
                and a plain loop's ``loss_fn``.
        """
        if self.models is None:
            self.models = models
        if self.rerun is not None or not self.enabled or not self.monitor.config.rerun:
            return
        if watched_models(models):
            try:
                self.rerun = FailingStepRerun(self.monitor, models, optimizers=optimizers,
                                              **options)
            except Exception as exc:
                self._on_error(exc)

    def capture_inputs(self, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None
                       ) -> None:
        """For an adapter whose framework calls something other than the model's forward
        (Lightning's ``training_step``; ``watch(..., hook=False, call_for=...)``): capture
        this step's inputs now, before it draws random numbers."""
        rerun = self.rerun
        if rerun is not None and self.enabled:
            rerun.capture(args, kwargs)

    def maybe_arm(self, diagnoses: Iterable[Diagnosis], model: Any = None) -> bool:
        """After AMP006 or AMP003 in ``diagnoses``: re-run the failing step and amend the
        diagnosis; when it cannot be re-run, arm the hooks for the next step instead.

        Returns:
            True when the locator was armed for the next step by this call.
        """
        if model is not None and self.models is None:
            self.models = model
        if not diagnoses:  # the common case, every healthy step: let the captures go
            rerun = self.rerun
            if rerun is not None and not rerun.failed:
                rerun.release()
            return False
        triggers = [d for d in diagnoses
                    if d.code in TRIGGERS and (d.code, d.step) not in self._located]
        self._located.extend((d.code, d.step) for d in triggers)
        rerun = self.rerun
        handled = False
        if rerun is not None and triggers and self.enabled:
            for trigger in triggers:
                handled |= self._rerun_and_amend(rerun, trigger)
        if rerun is not None and not rerun.failed:
            rerun.release()
        target = triggers[0] if triggers else None
        if handled or target is None or self.locator is not None or not self.enabled:
            return False
        if not watched_models(self.models):
            return False
        try:
            locator = NonFiniteLocator(self.models, on_error=self._on_error)
            locator.arm()
        except Exception as exc:
            self._on_error(exc)
            return False
        if not locator.armed:
            return False
        self.locator, self._target = locator, target
        self.monitor.hold_quiet()  # the armed step ends in step_finished: no quiet way past it
        return True

    def _rerun_and_amend(self, rerun: FailingStepRerun, target: Diagnosis) -> bool:
        """Re-run ``target``'s step (once per step) and amend it. True when it was re-run, or
        when the fault was placed without re-running the loss (the model's output was finite
        in the step: the loss computation or the targets)."""
        verdicts = self._verdicts
        try:
            if target.step not in verdicts:
                verdicts[target.step] = rerun.rerun(target)
                for old in list(verdicts)[:-_VERDICTS_KEPT]:
                    del verdicts[old]
            verdict, report = verdicts[target.step]
            explanation = None
            if report is not None and (verdict.verdict != NOT_RERUNNABLE
                                       or verdict.placed is not None):
                explanation = self._explain(report, target)
        except Exception as exc:
            self._on_error(exc)
            return False
        self.last_verdict = verdict
        current = self._current(target)
        summary = f"{current.summary}; {verdict.summary_clause()}"
        evidence = verdict.evidence()
        root_cause, fix = verdict.root_cause(), verdict.fix()
        located = None
        if verdict.verdict == NOT_REPRODUCED:
            evidence.update(cause=TRANSIENT, cause_evidence=[verdict.reason])
        if explanation is not None and report is not None:
            self.last_report, self.last_explanation = report, explanation
            evidence["origin"] = {"verdict": explanation.verdict, **explanation.evidence}
            if verdict.verdict == REPRODUCED or verdict.placed is not None:
                located = explanation.summary
                summary += f"; {located}"
                cause = self._cause(target, report, explanation)
                root_cause, fix = amended_text(explanation, cause)
                if cause.kind != UNDETERMINED:
                    evidence.update(cause.evidence())
        self.monitor.amend(target.code, step=target.step, evidence=evidence, summary=summary,
                           root_cause=root_cause, fix=fix, located=located)
        return verdict.verdict != NOT_RERUNNABLE or verdict.placed is not None

    def _current(self, target: Diagnosis) -> Diagnosis:
        return next(
            (d for d in reversed(self.monitor.diagnoses)
             if (d.code, d.step) == (target.code, target.step)), target,
        )

    def step_finished(
        self, loss: Any = None, step: int | None = None, *, rerun: Callable[[], Any] | None = None,
        targets: Any = None, loss_fn: Callable[..., Any] | None = None,
    ) -> Diagnosis | None:
        """End optimizer step ``step``: label its capture for a re-run, and end the armed step
        (if any): read its values, disarm, amend the diagnosis.

        Args:
            loss: The step's loss (tensor or number).
            step: The step's number, as the adapter counts steps.
            rerun: Re-computes this step's loss (a plain loop's closure), for a re-run.
            targets: What the step's loss compared the model's output with (kept by
                reference until the step is judged; checked for NaN/inf after a fault).
            loss_fn: Computes the step's loss from the model's output (``loss_fn(output,
                targets)``, or ``loss_fn(output)`` without targets), for a re-run that has
                no ``rerun`` closure; default: the one given to ``watch``.

        Returns:
            The amended diagnosis, or None when nothing was armed.
        """
        capture = self.rerun
        if capture is not None and step is not None and self.enabled:
            capture.step_finished(step, call=rerun, targets=targets, loss_fn=loss_fn)
        locator, target = self.locator, self._target
        if locator is None or target is None:  # (every healthy step)
            return None
        if not locator.saw_forward and not locator.failed:
            return None  # armed after this step's forward ran: the next step is the one seen
        self.locator = self._target = None
        try:
            report = locator.finish(loss, step)
            if locator.failed:
                return None
            explanation = self._explain(report, target)
        except Exception as exc:
            locator.disarm()
            self._on_error(exc)
            return None
        self.last_report, self.last_explanation = report, explanation
        current = self._current(target)
        cause = self._cause(target, report, explanation)
        root_cause, fix = amended_text(explanation, cause)
        return self.monitor.amend(
            target.code,
            step=target.step,
            evidence={"origin": {"verdict": explanation.verdict, **explanation.evidence},
                      **(cause.evidence() if cause.kind != UNDETERMINED else {})},
            summary=f"{current.summary}; {explanation.summary}",
            root_cause=root_cause,
            fix=fix,
            located=explanation.summary,
        )

    def _explain(self, report: OriginReport, target: Diagnosis) -> OriginExplanation:
        """The located origin in this run's words: its framework, its setup, the step of the
        diagnosis it amends."""
        return explain_origin(report, self.monitor.framework, setup=self.monitor.setup,
                              first_step=target.step, code=target.code,
                              updates_before=updates_before(self.monitor.run, report.step))

    def _cause(
        self, target: Diagnosis, report: OriginReport, explanation: OriginExplanation
    ) -> Cause:
        """The root cause the run's evidence supports, the located origin among it."""
        return judge(gather(target.code, target.step, self.monitor.run, self.monitor.setup,
                            origin=origin_facts(report, explanation)))

    def close(self) -> None:
        """Remove any hooks (an armed step that never finished, the capture hook)."""
        if self.locator is not None:
            self.locator.disarm()
        self.locator = self._target = None
        if self.rerun is not None:
            self.rerun.close()

    def _on_error(self, exc: BaseException) -> None:
        if self.failed:
            return
        self.failed = True
        if self.rerun is not None:
            self.rerun.close()
        self.monitor.logger.error(
            "denpex: internal error in the non-finite locator; locating is off for the rest "
            "of this run (training and monitoring continue). Please report this traceback.",
            exc_info=exc,
        )
