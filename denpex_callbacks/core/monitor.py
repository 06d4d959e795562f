"""The engine: observations -> findings -> diagnoses (de-duplicated, with causes and a primary).

The engine feeds the detectors (quiet steps through :mod:`denpex_callbacks.core.quiet_steps`);
how a finding becomes a diagnosis (rate limit, escalation, cause, primary) is
:mod:`denpex_callbacks.core.admission`'s. What happens to a diagnosis afterwards lives
elsewhere: the log line, run report and metrics in :mod:`denpex_callbacks.core.sinks`, the
user's policy in :mod:`denpex_callbacks.core.policy`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.admission import DiagnosisAdmission
from denpex_callbacks.core.alerts.fingerprint import fingerprint_metrics
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.detectors import Detector, default_detectors
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.lints import lint_setup
from denpex_callbacks.core.metrics_sink import informative_metrics
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.ordering import primary
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


class Monitor(DiagnosisAdmission):
    """One rank's diagnosis engine. Framework-free: adapters feed it Observations.

    It reports each condition once when it begins (again only when it clears and returns,
    at most ``max_repeats`` times, or when it worsens) and marks later conditions that follow
    from an earlier one, within ``thresholds.cause_window_steps``, as its consequences. Each
    new diagnosis goes to the sinks (log line, run report, the ``sinks`` given) and then to
    the policy. An internal error is logged once and switches monitoring off; it never
    reaches training.

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
        >>> m = Monitor(MonitorConfig(report_dir=None))
        >>> _ = m.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
        >>> found = [d.code for i in range(5)
        ...          for d in m.observe(Observation(i, loss=float("nan") if i == 3 else 1.0))]
        >>> found
        ['AMP006']
        >>> m.diagnoses[0].step
        3
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
        self.diagnoses: list[Diagnosis] = []
        self.reported: dict[str, int] = {}  # id -> times reported
        self.worst: dict[str, int] = {}  # id -> highest severity rank reported
        self.disabled = False
        self.started = False
        self._last_observation: Observation | None = None
        self._report: ReportSink | None = None
        self._resumed = False  # history loaded from a checkpoint: append to the report
        self._primary: Diagnosis | None = None
        self._last_reported: dict[str, int] = {}  # id -> first step of its latest report
        self._total = 0
        self._closed = False

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self, setup: RunSetup | None = None) -> list[Diagnosis]:
        """Begin the run: header record, detector configuration, start-up lints.

        Returns the diagnoses the lints produced (already logged and recorded).
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
        if self.config.report_dir and self._report is None:
            writer = ReportWriter(
                self.config.report_dir,
                self.rank,
                record_every=self.config.record_every,
                max_step_records=self.config.max_step_records,
                append=self._resumed,
            )
            writer.header(self.setup.to_dict(), package_versions(self.framework))
            self._report = ReportSink(writer)
            self._quiet.sample_every = self.config.record_every  # sampled steps: recorded
            self.log.report = writer.location
        self.logger.info("denpex: %s", self.header_line())
        disabled = set(self.config.disable)
        # A resumed run already reported its start-up findings before the checkpoint.
        done = set(self.reported) if self._resumed else set()
        findings = [
            f for f in lint_setup(self.setup, self.config.thresholds)
            if f.code not in disabled and f.code not in done
        ]
        return self._emit_all(findings, self.run.last_step or 0)

    def header_line(self) -> str:
        """One line saying what is watched and which detectors are active."""
        return header_line(self.setup, self.rank, self.world_size)

    def close(self) -> None:
        """Write the summary record and close the report. Safe to call twice."""
        self.guard(self._close)

    def _close(self) -> None:
        self._quiet.flush(self._detectors)
        if self._primary is not None and not self._closed:
            others = sorted({d.code for d in self.faults()} - {self._primary.code})
            self.log.summary(self.rank, self._primary, others)
        self._closed = True
        if self._report is not None:
            self._report.close(self.summary())
            self._report = None

    # -- per step ------------------------------------------------------------------------------

    def observe(self, obs: Observation) -> list[Diagnosis]:
        """Judge one optimizer step. Returns the diagnoses it produced (usually none).

        Raises:
            AmpDiagnosisError: Only under the ``"raise"`` policy.
        """
        if self.disabled:
            return []
        try:  # guard() inlined: this runs on every step
            return self._observe(obs)
        except AmpDiagnosisError:
            raise
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
        if not self.started:
            self._start(None)
        self._last_observation = obs
        run, quiet = self.run, self._quiet
        taken = quiet.take(obs)  # nothing can fire: the detectors look later, all at once
        quiet.fresh = False  # (the last observation is obs itself)
        if taken:
            if self._report is not None and obs.step % self.config.record_every == 0:
                self._report.step(obs)  # (a quiet step is a record only on the sampled ones)
            return []
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
        if self._report is not None:
            self._report.step(obs)
        if not findings:
            return []
        return self._emit_all(findings, obs.step)

    @property
    def detectors(self) -> list[Detector]:
        """The detectors, up to date (quiet steps they have not taken yet are given first)."""
        self._quiet.flush(self._detectors)
        return self._detectors

    def advance(self, steps: int, skipped: int = 0) -> None:
        """``steps`` optimizer steps not observed one by one (a log whose step counter moved
        on), ``skipped`` of them known to be skipped (the rest applied): the run state and
        the detectors move on without invented observations."""
        if self.disabled or steps <= 0:
            return

        def move_on() -> None:
            if not self.started:
                self._start(None)
            self._quiet.flush(self._detectors)
            self._quiet.stop()  # the next step is judged one by one, and re-arms
            self.run.advance(steps, skipped)
            for detector in self._detectors:
                detector.advance(steps, self.run, skipped)

        self.guard(move_on)

    def flag(self, finding: Finding, reported_step: int | None = None) -> list[Diagnosis]:
        """Report a finding an adapter or parser saw itself (protocol misuse, an error line).

        Raises:
            AmpDiagnosisError: Only under the ``"raise"`` policy.
        """
        if self.disabled or finding.code in self.config.disable:
            return []
        step = reported_step if reported_step is not None else finding.step

        def emit() -> list[Diagnosis]:
            if not self.started:
                self._start(None)
            return self._emit_all([finding], step)

        return self.guard(emit) or []

    def act(self, diagnoses: list[Diagnosis]) -> None:
        """Apply the user's policy to new diagnoses (after they were located and re-run).

        Raises:
            AmpDiagnosisError: Under the ``"raise"`` policy.
        """
        self.policy.apply(diagnoses)

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
        return self._primary

    def faults(self, min_severity: Severity = Severity.WARNING) -> list[Diagnosis]:
        """Diagnoses at or above ``min_severity``."""
        return [d for d in self.diagnoses if d.severity.rank >= min_severity.rank]

    def metrics(self) -> dict[str, float]:
        """Numbers for the framework's logger: scale, skipped steps, skip rate, diagnoses, and
        the fingerprints ``amp/fault/<id>`` (:mod:`denpex_callbacks.core.alerts.fingerprint`)."""
        return {**informative_metrics(self.run, len(self.faults())),
                **fingerprint_metrics(self.worst, self.config.disable)}

    def summary(self) -> dict[str, Any]:
        """Closing numbers for the report."""
        return {
            "steps": self.run.steps_seen,
            "skipped_steps": self.run.skipped_total,
            "last_scale": self.run.last_scale,
            "diagnoses": self._total,
            "primary": self._primary.code if self._primary else None,
            "disabled": self.disabled,
        }

    def state_dict(self) -> dict[str, Any]:
        """Detector and run history, for checkpoint resume."""
        return {
            "version": 1,
            "run": self.run.state_dict(),
            "detectors": {d.code: d.state_dict() for d in self.detectors},  # (flushed)
            "reported": dict(self.reported),
            "worst": dict(self.worst),
            "last_reported": dict(self._last_reported),
            "diagnoses": [d.to_dict() for d in self.diagnoses],
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
        self.reported = dict(state.get("reported", {}))
        self.worst = dict(state.get("worst", {}))
        self._last_reported = dict(state.get("last_reported", {}))
        self.diagnoses = [Diagnosis.from_dict(d) for d in state.get("diagnoses", [])]
        self._primary = primary(self.diagnoses)
        self._total = len(self.diagnoses)
        self._resumed = True
