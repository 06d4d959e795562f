"""The engine: observations -> findings -> diagnoses (de-duplicated, with causes and a primary).

The engine feeds the detectors (quiet steps through :mod:`denpex_callbacks.core.quiet_steps`);
how a finding becomes a diagnosis (rate limit, escalation, cause, primary) is its
:class:`~denpex_callbacks.core.ledger.DiagnosisLedger`'s. What happens to a diagnosis
afterwards lives elsewhere: the log line, run report and metrics in
:mod:`denpex_callbacks.core.sinks`; the user's policy (:mod:`denpex_callbacks.core.policy`)
acts only when the caller says so, through :meth:`Monitor.act`, after the locator has
amended what it found: read, engine, sinks, locate and re-run, then the policy.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.detectors import default_detectors
from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.ledger import DiagnosisLedger
from denpex_callbacks.core.lints import lint_setup
from denpex_callbacks.core.metrics_sink import fingerprint_metrics, informative_metrics
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.ordering import counts_as_fault
from denpex_callbacks.core.policy import Policy
from denpex_callbacks.core.quiet_steps import QuietSteps
from denpex_callbacks.core.report import ReportWriter
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.sinks import (
    LogFilter,
    LogSink,
    ReportSink,
    Sink,
    header_line,
)
from denpex_callbacks.core.versions import package_versions

LOGGER_NAME = "denpex_callbacks"
LOGGER = logging.getLogger(LOGGER_NAME)


class Monitor:
    """One rank's diagnosis engine. Framework-free: adapters feed it Observations.

    It reports each condition once when it begins (again only when it clears and returns,
    at most ``max_repeats`` times, or when it worsens) and marks later conditions that follow
    from an earlier one, within ``thresholds.cause_window_steps``, as its consequences. Each
    new diagnosis goes to the sinks (log line, run report, the ``sinks`` given); the caller
    amends it with what it locates, then has the policy act on it (:meth:`act`). An internal
    error is logged once and switches monitoring off; it never reaches training.

    Args:
        config: Reporting and policy options.
        rank: Global rank of this process.
        world_size: Number of ranks.
        framework: Name used to phrase fixes (``torch``, ``hf``, ``lightning``, ``deepspeed``).
        logger: Where diagnoses are logged (default: the ``denpex_callbacks`` logger).
        sinks: Extra callables receiving each new diagnosis.
        detectors: Replace the default detector set.
        log_filter: Says which diagnoses this process prints (all by default); the others
            are still recorded, reported and acted on. Multi-rank adapters use it to print a
            condition every rank sees alike (the shared loss scale) on rank 0 only.

    Example:
        >>> m = Monitor(MonitorConfig(report_dir=None, on_fault="stop"))
        >>> _ = m.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
        >>> found = [d.code for i in range(5)
        ...          for d in m.observe(Observation(i, loss=float("nan") if i == 3 else 1.0))]
        >>> found, m.diagnoses[0].step, m.stop_requested
        (['AMP006'], 3, False)
        >>> m.act(m.diagnoses)  # (after locating): the policy acts
        >>> m.stop_requested
        True
    """

    def __init__(
        self,
        config: MonitorConfig | None = None,
        *,
        rank: int = 0,
        world_size: int = 1,
        framework: str = "torch",
        logger: logging.Logger | None = None,
        sinks: Iterable[Sink] = (),
        detectors: list[Detector] | None = None,
        log_filter: LogFilter | None = None,
    ) -> None:
        self.config = config or MonitorConfig()
        self.rank = rank
        self.world_size = world_size
        self.framework = framework
        self.logger = logger or LOGGER
        self.log = LogSink(self.logger, log_filter, self.config.log_format)
        self.sinks = list(sinks)
        self.policy = Policy(self.config.on_fault, self.config.fault_level)
        self.ledger = DiagnosisLedger(self.config, rank=rank, framework=framework, log=self.log,
                                      sinks=self.sinks)
        self._detectors = detectors if detectors is not None else default_detectors(
            self.config.thresholds, frozenset(self.config.disable)
        )
        self.run = RunState()
        # The fast path of quiet steps (same findings, same steps)
        self._quiet = QuietSteps(self.run, rank, world_size)
        # The hot path, bound once: see QuietSteps.take_values (False when monitoring is off
        # or not started: no quiet step is allowed then).
        self.take_quiet = self._quiet.take_values
        self.setup = RunSetup(framework=framework, rank=rank, world_size=world_size)
        self.disabled = False
        self.started = False
        self._last_observation: Observation | None = None
        self._resumed = False  # history loaded from a checkpoint: append to the report
        self._closed = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self, setup: RunSetup | None = None) -> list[Diagnosis]:
        """Begin the run: header record, detector configuration, start-up lints.

        Returns the diagnoses the lints produced (already logged and recorded; the policy
        acts on them only through :meth:`act`).
        """
        return self.guard(lambda: self._start(setup)) or []

    def _start(self, setup: RunSetup | None) -> list[Diagnosis]:
        if setup is not None:
            setup.rank, setup.world_size = self.rank, self.world_size
            self.setup = setup
        self.started = True
        self._quiet.stop()
        for detector in self._detectors:
            detector.configure(self.setup)
        if self.config.report_dir and self.ledger.report is None:
            writer = ReportWriter(
                self.config.report_dir,
                self.rank,
                record_every=self.config.record_every,
                max_step_records=self.config.max_step_records,
                append=self._resumed,
            )
            writer.header(self.setup.to_dict(), package_versions(self.framework))
            self.ledger.report = ReportSink(writer)
            self._quiet.sample_every = self.config.record_every  # sampled steps: recorded
            self.log.report = writer.location
        self.logger.info("denpex: %s", self.header_line())
        disabled = set(self.config.disable)
        # A resumed run already reported its start-up findings before the checkpoint.
        done = set(self.ledger.reported) if self._resumed else set()
        findings = [
            f for f in lint_setup(self.setup, self.config.thresholds)
            if f.code not in disabled and f.code not in done
        ]
        return self.ledger.admit(findings, self.run.last_step or 0, self.run, self.setup)

    def header_line(self) -> str:
        """One line saying what is watched and which detectors are active."""
        return header_line(self.setup, self.rank, self.world_size)

    def close(self) -> None:
        """Write the summary record and close the report. Safe to call twice.

        After an internal error too: the summary then says ``disabled: true`` (the pending
        quiet steps are left to the detectors no more; the run's counts include them).
        """
        try:
            self._close()
        except AmpDiagnosisError:
            raise
        except Exception:  # a monitor bug must never break the run it watches
            if not self.disabled:
                self.switch_off()

    def _close(self) -> None:
        if not self.disabled:
            self._quiet.flush(self._detectors)
        primary = self.ledger.primary
        if primary is not None and not self._closed:
            others = sorted({d.code for d in self.faults()} - {primary.code})
            self.log.summary(self.rank, primary, others)
        self._closed = True
        report, self.ledger.report = self.ledger.report, None
        if report is not None:
            report.close(self.summary())

    # -- per step ------------------------------------------------------------------------------

    def observe(self, obs: Observation) -> list[Diagnosis]:
        """Judge one optimizer step. Returns the diagnoses it produced, new or escalated
        (usually none), without acting on them: see :meth:`act`."""
        if self.disabled:
            return []
        try:  # guard() inlined: this runs on every step
            return self._observe(obs)
        except Exception:
            self.switch_off()
            return []

    def hold_quiet(self) -> None:
        """Take no quiet step (:attr:`take_quiet` says False) until the next step judged in
        full: an adapter's steps still in flight, or a step the locator is armed for."""
        self._quiet.stop()

    @property
    def last_observation(self) -> Observation | None:
        """The last step observed (one :meth:`take_quiet` took is made an Observation now)."""
        quiet = self._quiet
        if quiet.fresh:
            quiet.fresh = False
            self._last_observation = quiet.last_observation()
        return self._last_observation

    def _observe(self, obs: Observation) -> list[Diagnosis]:
        linted = [] if self.started else self._start(None)
        self._last_observation = obs
        run, quiet = self.run, self._quiet
        taken = quiet.take(obs)  # nothing can fire: the detectors look later, all at once
        quiet.fresh = False  # (the last observation is obs itself)
        report = self.ledger.report
        if taken:
            if report is not None and obs.step % self.config.record_every == 0:
                report.step(obs)  # (a quiet step is a record only on the sampled ones)
            return linted
        quiet.flush(self._detectors)
        quiet.stop()
        run.update(obs)
        findings = [
            f if f.rank is not None or obs.rank == self.rank else replace(f, rank=obs.rank)
            for d in self._detectors
            if (f := d.observe(obs, run)) is not None and f.code not in self.config.disable
        ]
        if obs.scale_after is not None:
            # A quiet step needs a scale to stay at; a log whose lines print none (the loss
            # alone) would pay the detectors' horizons on every step for none.
            quiet.rearm(self._detectors, tracker=obs.growth_tracker)
        if report is not None:
            report.step(obs)
        new = self.ledger.admit(findings, obs.step, run, self.setup) if findings else []
        self.ledger.recurred(obs, run, self.setup)  # (a step judged in full only: a quiet
        return linted + new  # one is finite and applied, and contradicts no one-off)

    @property
    def detectors(self) -> list[Detector]:
        """The detectors, up to date (quiet steps they have not taken yet are given first)."""
        self._quiet.flush(self._detectors)
        return self._detectors

    def advance(self, steps: int, skipped: int = 0, *, printed: int = 0,
                scale: float | None = None) -> None:
        """``steps`` optimizer steps not observed one by one (a log whose step counter moved
        on), ``skipped`` of them known to be skipped (the rest applied): the run state and
        the detectors move on without invented observations. ``printed``: of the applied
        steps, how many a log printed at ``scale`` (a run of quiet lines, counted rather
        than read: see :meth:`Detector.advance`)."""
        if self.disabled or steps <= 0:
            return

        def move_on() -> None:
            if not self.started:
                self._start(None)
            self._quiet.flush(self._detectors)
            self._quiet.stop()  # the next step is judged one by one, and re-arms
            self.run.advance(steps, skipped)
            for detector in self._detectors:
                detector.advance(steps, self.run, skipped, printed=printed, scale=scale)

        self.guard(move_on)

    def printed_horizon(self, scale: float | None) -> int:
        """How many printed quiet steps at ``scale`` (:meth:`advance`'s ``printed``) may be
        counted at once before a detector could fire (:meth:`Detector.printed_horizon`): the
        log doctor reads the step after them one by one. :data:`UNBOUNDED` when none could."""
        if self.disabled:
            return UNBOUNDED
        return min((d.printed_horizon(self.run, scale) for d in self.detectors),
                   default=UNBOUNDED)

    def flag(self, finding: Finding, reported_step: int | None = None) -> list[Diagnosis]:
        """Report a finding an adapter or parser saw itself (protocol misuse, an error line).

        Returns the diagnoses it produced, without acting on them: see :meth:`act`.
        """
        if self.disabled or finding.code in self.config.disable:
            return []
        step = reported_step if reported_step is not None else finding.step

        def emit() -> list[Diagnosis]:
            linted = [] if self.started else self._start(None)
            return linted + self.ledger.admit([finding], step, self.run, self.setup)

        return self.guard(emit) or []

    def amend(
        self,
        code: str,
        *,
        step: int | None = None,
        evidence: dict[str, Any] | None = None,
        summary: str | None = None,
        root_cause: str | None = None,
        fix: str | None = None,
        located: str | None = None,
    ) -> Diagnosis | None:
        """Complete a diagnosis already reported with evidence found later.

        The latest diagnosis ``code`` (with that first ``step`` when given) is replaced in
        memory, written to the run report as an amendment record (readers merge it into the
        original) and logged once. Sinks are not called (the condition is not new); the
        policy acts on the amended diagnosis when :meth:`act` is called with it.

        Args:
            code: Id of the diagnosis to amend.
            step: Its first step, to pick one occurrence (default: the latest).
            evidence: Merged into its evidence.
            summary: Replaces its one-line summary (None keeps it, or appends ``located``).
            root_cause: Replaces its root cause (None keeps it).
            fix: Replaces its fix (None keeps it).
            located: The locator's clause saying where the fault was found (``"located at
                step 62: ..."``): kept as :attr:`Diagnosis.located`, and by an escalation.

        Returns:
            The amended diagnosis, or None when no such diagnosis is held.

        Example:
            >>> m = Monitor(MonitorConfig(report_dir=None))
            >>> _ = m.observe(Observation(3, loss=float("nan")))
            >>> d = m.amend("AMP006", evidence={"origin": {"verdict": "input-data"}},
            ...             root_cause="non-finite values in the input batch",
            ...             located="located at step 4: the model's inputs were non-finite")
            >>> m.diagnoses[0].root_cause, m.diagnoses[0].located.split(":")[0]
            ('non-finite values in the input batch', 'located at step 4')
            >>> m.diagnoses[0].summary.endswith("; located at step 4: the model's inputs "
            ...                                 "were non-finite")
            True
        """
        amended: Diagnosis | None = self.guard(lambda: self.ledger.amend(
            code, step, evidence=evidence, summary=summary, root_cause=root_cause, fix=fix,
            located=located))
        return amended

    def act(self, diagnoses: Iterable[Diagnosis]) -> None:
        """Apply the user's policy to ``diagnoses`` (those :meth:`observe`, :meth:`flag` or
        :meth:`start` returned), as they are now: amended with what was located since.

        Under ``"stop"`` it sets :attr:`stop_requested`; under ``"warn"`` it does nothing. A
        misplaced monitor call (evidence ``monitor_misuse``) is never acted on.

        Raises:
            AmpDiagnosisError: Under ``"raise"``, for the first fault at or above
                ``fault_severity``, carrying that diagnosis as amended.

        Example:
            >>> m = Monitor(MonitorConfig(report_dir=None, on_fault="raise"))
            >>> found = m.observe(Observation(3, loss=float("nan")))
            >>> _ = m.amend("AMP006", located="located at step 4: fc1 overflowed fp16")
            >>> try:
            ...     m.act(found)
            ... except AmpDiagnosisError as error:
            ...     print(error.diagnosis.located)
            located at step 4: fc1 overflowed fp16
        """
        if self.policy.on_fault == "warn":
            return
        try:
            current = [self.ledger.current(d) for d in diagnoses]
        except Exception:  # a monitor bug must never break the run it watches
            self.switch_off()
            return
        self.policy.apply(current)

    @property
    def stop_requested(self) -> bool:
        """True once the ``"stop"`` (or ``"raise"``) policy acted on a fault."""
        return self.policy.stop_requested

    @property
    def log_filter(self) -> LogFilter | None:
        """Which diagnoses this process prints (None: all)."""
        return self.log.log_filter

    def guard(self, action: Callable[[], Any]) -> Any:
        """Run ``action`` (adapter hook code) so that only the user's policy reaches training.

        An exception other than AmpDiagnosisError is logged once and switches monitoring off;
        None is returned then, and whenever monitoring is already off.
        """
        if self.disabled:
            return None
        try:
            return action()
        except AmpDiagnosisError:
            raise
        except Exception:  # a monitor bug must never break the run it watches
            self.switch_off()
            return None

    def switch_off(self) -> None:
        """Log the exception being handled (once) and turn monitoring off for the run.

        For per-step callers that catch exceptions themselves instead of wrapping their code
        in a closure for :meth:`guard` (a closure per step costs time on the hot path).
        """
        self.disabled = True
        self._quiet.stop()  # no quiet step either
        self.logger.exception(
            "denpex: internal error; monitoring is off for the rest of this run "
            "(training continues). Please report this traceback."
        )

    # -- queries -------------------------------------------------------------------------------

    @property
    def diagnoses(self) -> list[Diagnosis]:
        """The diagnoses so far, as amended (the first 200 in memory; the report has all)."""
        return self.ledger.diagnoses

    @property
    def worst(self) -> dict[str, int]:
        """Id -> the highest severity rank reported (:attr:`Severity.rank`)."""
        return self.ledger.worst

    @property
    def report_path(self) -> str | None:
        """Where this rank's run report is written (None: no report, or not started yet).

        A new run into a folder that holds an earlier run's report writes ``run-<n>/`` beside
        it, so this is the path to quote, not ``report_dir/rank<k>.jsonl``.
        """
        return self.log.report

    @property
    def primary(self) -> Diagnosis | None:
        """The warning/error to fix first: the first fault in :func:`~denpex_callbacks.core.
        ordering.order` (root causes, then errors, then the earliest)."""
        return self.ledger.primary

    def faults(self, min_severity: Severity = Severity.WARNING) -> list[Diagnosis]:
        """Diagnoses at or above ``min_severity`` that are faults of training (a misplaced
        monitor call is not one: :func:`~denpex_callbacks.core.ordering.counts_as_fault`)."""
        return [d for d in self.diagnoses
                if d.severity.rank >= min_severity.rank and counts_as_fault(d)]

    def metrics(self) -> dict[str, float]:
        """Numbers for the framework's logger: ``amp/loss_scale`` (when there is a scale),
        ``amp/skipped_steps``, ``amp/diagnoses`` (faults so far), and ``amp/fault/<id>`` = 1
        for each fingerprinted id once it fired (:func:`denpex_callbacks.core.metrics_sink.
        fingerprint_metrics`): three keys on a healthy run."""
        faults = self.faults()
        return {**informative_metrics(self.run, len(faults)),
                **fingerprint_metrics(faults)}

    def summary(self) -> dict[str, Any]:
        """Closing numbers for the report."""
        primary = self.ledger.primary
        return {
            "steps": self.run.steps_seen,
            "skipped_steps": self.run.skipped_total,
            "last_scale": self.run.last_scale,
            "diagnoses": self.ledger.total,
            "primary": primary.code if primary else None,
            "disabled": self.disabled,
        }

    def state_dict(self) -> dict[str, Any]:
        """Detector and run history, for checkpoint resume."""
        return {
            "version": 1,
            "run": self.run.state_dict(),
            "detectors": {d.code: d.state_dict() for d in self.detectors},  # (flushed)
            **self.ledger.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict` (unknown detectors are ignored)."""
        self._quiet.flush(self._detectors)
        self._quiet.stop()
        self.run.load_state_dict(state.get("run", {}))
        saved = state.get("detectors", {})
        for detector in self._detectors:
            if detector.code in saved:
                detector.load_state_dict(saved[detector.code])
        self.ledger.load_state_dict(state)
        self._resumed = True
