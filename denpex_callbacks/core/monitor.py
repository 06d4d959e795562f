"""The engine: observations -> findings -> diagnoses (de-duplicated, with causes and a primary).

What happens to a diagnosis afterwards lives elsewhere: the log line, run report and metrics
in :mod:`denpex_callbacks.core.sinks`, the user's policy in :mod:`denpex_callbacks.core.policy`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.alerts.fingerprint import fingerprint_metrics
from denpex_callbacks.core.catalog import CONSEQUENCES, entry
from denpex_callbacks.core.causes import explain
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.detectors import Detector, default_detectors
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.lints import lint_setup
from denpex_callbacks.core.metrics_sink import informative_metrics
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.ordering import before, primary
from denpex_callbacks.core.policy import Policy
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
MAX_DIAGNOSES = 200  # kept in memory; the report on disk has them all
# Conditions of the run's setup rather than events: they explain a consequence at any distance
# (a missing scaler still causes the NaN 50,000 steps later). Events cause only within the
# configured window (Thresholds.cause_window_steps).
SETUP_CAUSES = frozenset({"AMP001", "AMP002", "AMP011", "AMP012"})


class Monitor:
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
        self.detectors = detectors if detectors is not None else default_detectors(
            self.config.thresholds, frozenset(self.config.disable)
        )
        self.run = RunState()
        self.setup = RunSetup(framework=framework, rank=rank, world_size=world_size)
        self.diagnoses: list[Diagnosis] = []
        self.reported: dict[str, int] = {}  # id -> times reported
        self.worst: dict[str, int] = {}  # id -> highest severity rank reported
        self.disabled = False
        self.started = False
        self.last_observation: Observation | None = None
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
        for detector in self.detectors:
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

    def _observe(self, obs: Observation) -> list[Diagnosis]:
        if not self.started:
            self._start(None)
        self.last_observation = obs
        self.run.update(obs)
        findings = [
            f if f.rank is not None or obs.rank == self.rank else replace(f, rank=obs.rank)
            for d in self.detectors
            if (f := d.observe(obs, self.run)) is not None and f.code not in self.config.disable
        ]
        if self._report is not None:
            self._report.step(obs)
        if not findings:
            return []
        return self._emit_all(findings, obs.step)

    def advance(self, steps: int, skipped: int = 0) -> None:
        """``steps`` optimizer steps not observed one by one (a log whose step counter moved
        on), ``skipped`` of them known to be skipped (the rest applied): the run state and
        the detectors move on without invented observations."""
        if self.disabled or steps <= 0:
            return

        def move_on() -> None:
            if not self.started:
                self._start(None)
            self.run.advance(steps, skipped)
            for detector in self.detectors:
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

    def amend(
        self,
        code: str,
        *,
        step: int | None = None,
        evidence: dict[str, Any] | None = None,
        summary: str | None = None,
        root_cause: str | None = None,
        fix: str | None = None,
    ) -> Diagnosis | None:
        """Complete a diagnosis already reported with evidence found later.

        The latest diagnosis ``code`` (with that first ``step`` when given) is replaced in
        memory, written to the run report as an amendment record (readers merge it into the
        original) and logged once. No policy acts again and sinks are not called: the
        condition is not new.

        Args:
            code: Id of the diagnosis to amend.
            step: Its first step, to pick one occurrence (default: the latest).
            evidence: Merged into its evidence.
            summary: Replaces its one-line summary (None keeps it).
            root_cause: Replaces its root cause (None keeps it).
            fix: Replaces its fix (None keeps it).

        Returns:
            The amended diagnosis, or None when no such diagnosis is held.

        Example:
            >>> m = Monitor(MonitorConfig(report_dir=None))
            >>> _ = m.observe(Observation(3, loss=float("nan")))
            >>> d = m.amend("AMP006", evidence={"origin": "input-data"},
            ...             root_cause="non-finite values in the input batch")
            >>> m.diagnoses[0].root_cause, m.diagnoses[0].evidence["origin"]
            ('non-finite values in the input batch', 'input-data')
        """
        amended: Diagnosis | None = self.guard(
            lambda: self._amend(code, step, evidence, summary, root_cause, fix)
        )
        return amended

    def _amend(
        self,
        code: str,
        step: int | None,
        evidence: dict[str, Any] | None,
        summary: str | None,
        root_cause: str | None,
        fix: str | None,
    ) -> Diagnosis | None:
        held = [
            i for i, d in enumerate(self.diagnoses)
            if d.code == code and (step is None or d.step == step)
        ]
        if not held:
            return None
        index = held[-1]
        old = self.diagnoses[index]
        amended = replace(
            old,
            evidence={**old.evidence, **(evidence or {})},
            summary=summary or old.summary,
            root_cause=root_cause or old.root_cause,
            fix=fix or old.fix,
        )
        self.diagnoses[index] = amended
        if self._primary is old:
            self._primary = amended
        if self._report is not None:
            self._report.amended(amended)
        self.log.amended(old, amended)
        return amended

    # -- reporting -----------------------------------------------------------------------------

    def _emit_all(self, findings: list[Finding], reported_step: int | None) -> list[Diagnosis]:
        out = [d for f in findings if (d := self._emit(f, reported_step)) is not None]
        self.policy.apply(out)
        return out

    def _emit(self, finding: Finding, reported_step: int | None) -> Diagnosis | None:
        finding = explain(finding, self.run, self.setup)
        severity = finding.severity or entry(finding.code).severity
        held = self._escalated(finding, severity)
        if held is not None:
            return self._escalate(held, finding, reported_step)
        if not self._admit(finding, severity):
            return None
        diagnosis = Diagnosis.from_finding(
            finding,
            rank=self.rank if finding.rank is None else finding.rank,
            reported_step=reported_step,
            framework=self.framework,
        )
        if severity.rank >= Severity.WARNING.rank:
            diagnosis = diagnosis.with_cause(self._cause_of(diagnosis))
            if before(diagnosis, self._primary):  # the doctor's order too
                self._primary = diagnosis
        self._total += 1
        if len(self.diagnoses) < MAX_DIAGNOSES:
            self.diagnoses.append(diagnosis)
        if self._report is not None:
            self._report(diagnosis)
        self.log(diagnosis)
        for sink in self.sinks:
            sink(diagnosis)
        return diagnosis

    def _admit(self, finding: Finding, severity: Severity) -> bool:
        """Rate-limit one id per episode: at most ``max_repeats`` reports again, unless it
        worsens; a condition quiet for ``repeat_rearm_steps`` begins a new count."""
        code = finding.code
        times = self.reported.get(code, 0)
        last = self._last_reported.get(code)
        if last is not None and finding.step is not None and (
            finding.step - last >= self.config.thresholds.repeat_rearm_steps
        ):
            times = 0
            self.worst.pop(code, None)
        worse = severity.rank > self.worst.get(code, -1)
        if times > self.config.max_repeats and not worse:
            return False
        self.reported[code] = times + 1
        self.worst[code] = max(severity.rank, self.worst.get(code, -1))
        if finding.step is not None:
            self._last_reported[code] = finding.step
        return True

    def _escalated(self, finding: Finding, severity: Severity) -> int | None:
        """Index of the held diagnosis this finding makes worse (same id, same first step)."""
        if finding.step is None:
            return None
        for index in range(len(self.diagnoses) - 1, -1, -1):
            held = self.diagnoses[index]
            if (held.code, held.step) == (finding.code, finding.step):
                return index if severity.rank > held.severity.rank else None
        return None

    def _escalate(
        self, index: int, finding: Finding, reported_step: int | None
    ) -> Diagnosis:
        """The condition got worse (a one-off turned persistent): replace the held diagnosis,
        keeping what was located since, so that the policy can act on it."""
        old = self.diagnoses[index]
        new = Diagnosis.from_finding(finding, rank=old.rank, reported_step=reported_step,
                                     framework=self.framework)
        if "origin" in old.evidence:
            located = old.summary.partition("; located at ")[2]
            new = replace(new, root_cause=old.root_cause, fix=old.fix,
                          summary=new.summary + (f"; located at {located}" if located else ""))
        new = replace(new, evidence={**old.evidence, **new.evidence, "escalated_step":
                                     reported_step}, caused_by=old.caused_by,
                      reported_step=old.reported_step)
        self.diagnoses[index] = new
        self.worst[new.code] = max(new.severity.rank, self.worst.get(new.code, -1))
        if self._primary is old:
            self._primary = new
        if self._report is not None:
            self._report.amended(new)  # readers see the one diagnosis at its worse severity
        # One "escalated" line; the sinks see it once more (an alert sink pages at its level
        # once per episode), then the policy acts on it.
        self.log.escalated(new)
        for sink in self.sinks:
            sink(new)
        return new

    def _cause_of(self, diagnosis: Diagnosis) -> str | None:
        for earlier in self.diagnoses:
            if earlier.code == diagnosis.code and earlier.severity.rank >= Severity.WARNING.rank:
                return earlier.caused_by  # a recurrence keeps the first occurrence's cause
        for earlier in self.diagnoses:
            if earlier.severity.rank < Severity.WARNING.rank or earlier.code == diagnosis.code:
                continue
            if diagnosis.code in CONSEQUENCES.get(earlier.code, ()) and self._within_window(
                earlier, diagnosis
            ):
                return earlier.caused_by or earlier.code
        return None

    def _within_window(self, cause: Diagnosis, consequence: Diagnosis) -> bool:
        """An event explains a consequence that begins within the window after it began."""
        if cause.code in SETUP_CAUSES or cause.step is None or consequence.step is None:
            return True
        return consequence.step - cause.step <= self.config.thresholds.cause_window_steps

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
            "detectors": {d.code: d.state_dict() for d in self.detectors},
            "reported": dict(self.reported),
            "worst": dict(self.worst),
            "last_reported": dict(self._last_reported),
            "diagnoses": [d.to_dict() for d in self.diagnoses],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict` (unknown detectors are ignored)."""
        self.run.load_state_dict(state.get("run", {}))
        saved = state.get("detectors", {})
        for detector in self.detectors:
            if detector.code in saved:
                detector.load_state_dict(saved[detector.code])
        self.reported = dict(state.get("reported", {}))
        self.worst = dict(state.get("worst", {}))
        self._last_reported = dict(state.get("last_reported", {}))
        self.diagnoses = [Diagnosis.from_dict(d) for d in state.get("diagnoses", [])]
        self._primary = primary(self.diagnoses)
        self._total = len(self.diagnoses)
        self._resumed = True
