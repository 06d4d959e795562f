"""The one pipeline under every framework adapter.

An adapter finds what only it can find (the step number, the loss where its reader does not see
it, the learning rate) and hands each optimizer step to :meth:`StepPipeline.step` with the
reading of the run's scale reader; the rest is the pipeline's, in the order DESIGN.md gives:
snapshot (device boundary) -> Observation -> engine and sinks -> locate, re-run -> policy, with
the one guard and lifecycle of :mod:`~denpex_callbacks.integrations.lifecycle` (the
cleanups an adapter registers with :meth:`StepPipeline.on_close` run when it closes or fails)
and the rules every adapter shares (the report folder, what a rank prints, the stop
decision: :mod:`~denpex_callbacks.core`'s ``report``, ``sinks``, ``policy``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.alerts.sink import AlertSink, attach_alerts
from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.framework_exits import ends_the_run, read_exit
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.policy import StopDecision, StopVote
from denpex_callbacks.core.report import resolve_report_dir
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.sinks import printed_on_rank
from denpex_callbacks.integrations.lifecycle import LIVE_PIPELINES, Guard
from denpex_callbacks.integrations.run_rules import rank_and_world
from denpex_callbacks.locate.on_fault import LocateOnFault
from denpex_callbacks.readers.scale_reading import ScaleReading
from denpex_callbacks.readers.step_queue import StepQueue, observation_of, quiet_taken

__all__ = ["StepPipeline"]


class StepPipeline:
    """One rank's path from a framework's optimizer steps to diagnoses, reports and the policy.

    Args:
        config: The merged configuration (``report_dir`` as the user gave it).
        framework: ``torch``, ``hf``, ``lightning`` or ``deepspeed``.
        logger: The framework's logger for diagnosis lines.
        output_dir: The framework's output folder (see :func:`resolve_report_dir`).
        run_name: The framework's name of the run, for alerts (HF ``args.run_name``).

    Example:
        >>> import torch
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> p = StepPipeline(MonitorConfig(report_dir=None), framework="torch",
        ...                  logger=logging.getLogger("x"))
        >>> p.start(lambda: RunSetup(framework="torch", scaler="dynamic"))
        >>> for step in range(4):
        ...     loss = torch.tensor(float("nan") if step == 2 else 1.0)
        ...     _ = p.step(step, ScaleReading(scale_before=8.0, scale_after=8.0, loss=loss))
        >>> p.close()
        []
        >>> [(d.code, d.step) for d in p.monitor.diagnoses]
        [('AMP006', 2)]
    """

    def __init__(
        self,
        config: MonitorConfig,
        *,
        framework: str,
        logger: logging.Logger,
        output_dir: str | None = None,
        run_name: str | None = None,
    ) -> None:
        rank, world_size = rank_and_world()
        if config.report_dir is not None:
            config = replace(config, report_dir=resolve_report_dir(config.report_dir, output_dir))
        self.monitor = Monitor(config, rank=rank, world_size=world_size, framework=framework,
                               logger=logger, log_filter=printed_on_rank(rank))
        self.logger = logger
        self.locate = LocateOnFault(self.monitor)
        self.queue = StepQueue()
        self._cleanups: list[Callable[[], Any]] = []
        self._step_sinks: list[Callable[[Observation], Any]] = []
        # The policy needs to know a step's verdict before training goes on: under "stop" and
        # "raise" each step is judged at once (on a device: a wait for its copy per step);
        # under "warn" (the default) a step is judged once its copy has landed.
        self._wait = config.on_fault != "warn"
        self._closed = False
        self._stop = StopDecision(config.on_fault == "stop", rank, world_size, logger)
        self.alerts: AlertSink | None = None
        self._guard = Guard(self)  # (it holds no state: one serves every call)
        with self.guard():
            self.alerts = attach_alerts(self.monitor, run_name=run_name)
        LIVE_PIPELINES.add(self)

    @property
    def active(self) -> bool:
        """Monitoring is on (no internal error so far, not closed)."""
        return not self.monitor.disabled and not self._closed

    def guard(self) -> Guard:
        """A context manager for adapter code: an internal error inside is logged once, turns
        monitoring off and is swallowed (:meth:`fail`); AmpDiagnosisError passes through.

        Example:
            >>> p = StepPipeline(MonitorConfig(report_dir=None), framework="torch",
            ...                  logger=logging.getLogger("doctest.guard"))
            >>> with p.guard():
            ...     raise KeyError("a bug in an adapter")
            >>> p.active
            False
        """
        return self._guard

    def add_step_sink(self, sink: Callable[[Observation], Any]) -> None:
        """Give ``sink`` each step's Observation once it is judged (metrics for a framework's
        logger: :class:`~denpex_callbacks.core.metrics_sink.MetricsSink` and its kin)."""
        self._step_sinks.append(sink)

    def on_close(self, cleanup: Callable[[], Any]) -> None:
        """Run ``cleanup`` (remove a hook, a wrapper) when the pipeline closes or fails."""
        self._cleanups.append(cleanup)

    def fail(self) -> None:
        """From an ``except`` block: log the exception (once), switch monitoring off, remove
        the hooks and wrappers, and close the report with its summary."""
        if not self.monitor.disabled:
            self.monitor.switch_off()
        self._shut()

    def start(self, read_setup: Callable[[], RunSetup | None]) -> None:
        """Read the run's setup (guarded) and start the engine: header line, start-up lints."""
        setup = None
        with self.guard():
            setup = read_setup()
        if self.active:
            self._act(self.monitor.start(setup))

    def step(
        self,
        step: int,
        reading: ScaleReading,
        *,
        loss: Any = None,
        lr: float | None = None,
        grad_norm: Any = None,
        rerun: Callable[[], Any] | None = None,
        targets: Any = None,
        loss_fn: Callable[..., Any] | None = None,
    ) -> list[Diagnosis]:
        """One optimizer step: snapshot it, then judge every step whose values have landed.

        Args:
            step: The step's number, as the framework numbers it.
            reading: What the run's scale reader read of it.
            loss: The step's loss where the reading has none (a tensor, not synchronised).
            lr: The learning rate of the step.
            grad_norm: The gradient norm, where the framework computed one.
            rerun: Re-computes the step's loss from its inputs (a plain loop's closure).
            targets: What the step's loss compared the output with (a plain loop's), checked
                for NaN/inf after a fault.
            loss_fn: How the loss is computed from the model's output, for a re-run.

        Returns:
            The diagnoses that became known (on a device, usually an earlier step's).

        Raises:
            AmpDiagnosisError: Under ``on_fault="raise"``, after the report is closed.
        """
        if not self.active:
            return []
        with self.guard():
            values = reading.values()
            if loss is not None and "loss" not in values:
                values["loss"] = loss
            values["lr"], values["grad_norm"], values["time"] = lr, grad_norm, time.time()
            # The step's capture is labelled, and a step the locator armed for ends (its one
            # sync happens only then).
            self.locate.step_finished(values.get("loss"), step, rerun=rerun, targets=targets,
                                      loss_fn=loss_fn)
            self.queue.push(step, values)
            return self._judge_ready(wait=self._wait)
        return []

    def drain(self, *, wait: bool = False) -> list[Diagnosis]:
        """Judge the steps whose values have landed (``wait``: all of them)."""
        if not self.active or not len(self.queue):
            return []
        with self.guard():
            return self._judge_ready(wait=wait)
        return []

    def flag(self, finding: Finding, step: int, *, once: bool = True) -> list[Diagnosis]:
        """Report what the adapter saw itself (protocol misuse, the framework's own exit, an
        evaluation): ``once`` per id and severity (one protocol break is enough: the calls
        after it fail for the same reason; a warning does not hide a later error), else as
        the engine admits a condition, once per episode (each evaluation's own finding)."""
        if not self.active:
            return []
        severity = (finding.severity or entry(finding.code).severity).rank
        if once and self.monitor.worst.get(finding.code, -1) >= severity:
            return []
        with self.guard():
            return self._act(self.monitor.flag(finding, reported_step=step))
        return []

    def _judge_ready(self, *, wait: bool) -> list[Diagnosis]:
        monitor = self.monitor
        found: list[Diagnosis] = []
        # A step sink is given every step's Observation; without one, a quiet step goes to
        # the engine's quiet path as plain numbers (no Observation is built for it).
        quiet = None if self._step_sinks else monitor.take_quiet
        for step, values in self.queue.ready(wait=wait):
            if quiet is not None and quiet_taken(quiet, step, values):
                self.locate.maybe_arm(())  # (judged healthy: its captured inputs go)
                continue
            obs = observation_of(step, values, rank=monitor.rank, world_size=monitor.world_size)
            new = monitor.observe(obs)
            # AMP006/AMP003: re-run the failing step (or hook the next one); a step judged
            # healthy lets its captured inputs go. Then the policy, on what was located.
            self.locate.maybe_arm(new)
            for sink in self._step_sinks:
                sink(obs)
            found += new
        return self._act(found)

    def _act(self, found: list[Diagnosis]) -> list[Diagnosis]:
        """The user's policy on new diagnoses; under ``"raise"`` the report is closed first."""
        if found:
            try:
                self.monitor.act(found)
            except AmpDiagnosisError:
                self._shut()
                raise
        return found

    def framework_ended(self, step: int, reading: ScaleReading, error: BaseException) -> None:
        """The framework ends the run with its own error at ``step`` (DeepSpeed's exit at the
        minimum loss scale): judge that step, amend or report the diagnosis the error
        confirms with the framework's words, and close the report, before the error goes on
        (unchanged, under the ``"raise"`` policy too)."""
        message = str(error)
        if not self.active or not ends_the_run(message):
            return
        with contextlib.suppress(AmpDiagnosisError), self.guard():
            self.step(step, reading)
            self.drain(wait=True)
            new = read_exit(self.monitor, step, message)
            if new is not None:
                self.flag(new, step)
        self.close(wait=False)

    def decide_stop(self, vote: StopVote | None, step: int | None = None) -> bool:
        """Whether to stop after this step (:class:`~denpex_callbacks.core.policy.StopDecision`):
        under ``on_fault="stop"`` with several ranks every rank calls it at every optimizer
        step, with monitoring off too (it then votes False)."""
        return self._stop.decide(self.monitor.stop_requested, vote, step)

    @property
    def stop_decided(self) -> bool:
        """:meth:`decide_stop` has decided to stop (it stays decided)."""
        return self._stop.decided

    def close(self, *, wait: bool = True) -> list[Diagnosis]:
        """Judge the steps in flight (``wait``), remove the hooks, write the report summary.

        Safe to call twice. Returns the diagnoses the last steps produced.

        Raises:
            AmpDiagnosisError: A fault in the last steps under ``"raise"`` (the report is
                closed first).
        """
        found = self.drain(wait=True) if wait else []
        self._shut()
        return found

    def _shut(self) -> None:
        """Remove hooks and wrappers, close the locator, the report and the alerts (once)."""
        if self._closed:
            return
        self._closed = True
        LIVE_PIPELINES.discard(self)
        for cleanup in self._cleanups:
            try:
                cleanup()
            except Exception:  # a cleanup that fails must not keep the others from running
                self.logger.debug("denpex: cleanup failed", exc_info=True)
        self._cleanups.clear()
        self.locate.close()
        self.monitor.close()
        if self.alerts is not None:
            self.alerts.close()
