"""How a finding becomes a diagnosis: rate limit, escalation, cause, primary, amendments.

:class:`DiagnosisAdmission` is the part of :class:`~denpex_callbacks.core.monitor.Monitor` that
keeps the rank's diagnoses: each condition is reported once when it begins (again only when it
clears and returns, at most ``max_repeats`` times, or when it worsens: then the held diagnosis
is escalated), a later condition that follows from an earlier one within
``thresholds.cause_window_steps`` is marked as its consequence, the diagnosis to fix first is
kept as the primary, and evidence found later (the locator, a re-run) amends a diagnosis.
Each new or escalated diagnosis goes to the sinks, then the policy acts on the new ones.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.catalog import CONSEQUENCES, entry
from denpex_callbacks.core.causes import explain
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.ordering import before
from denpex_callbacks.core.policy import Policy
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.sinks import LogSink, ReportSink, Sink

__all__ = ["MAX_DIAGNOSES", "SETUP_CAUSES", "DiagnosisAdmission"]

MAX_DIAGNOSES = 200  # kept in memory; the report on disk has them all
# Conditions of the run's setup rather than events: they explain a consequence at any distance
# (a missing scaler still causes the NaN 50,000 steps later). Events cause only within the
# configured window (Thresholds.cause_window_steps).
SETUP_CAUSES = frozenset({"AMP001", "AMP002", "AMP011", "AMP012"})


class DiagnosisAdmission:
    """The diagnoses of one rank, and how findings join them (a base of the Monitor).

    The attributes below are the Monitor's: it sets them up; this class only keeps them.
    """

    config: MonitorConfig
    rank: int
    framework: str
    run: RunState
    setup: RunSetup
    policy: Policy
    log: LogSink
    sinks: list[Sink]
    logger: logging.Logger
    diagnoses: list[Diagnosis]
    reported: dict[str, int]  # id -> times reported
    worst: dict[str, int]  # id -> highest severity rank reported
    _report: ReportSink | None
    _primary: Diagnosis | None
    _last_reported: dict[str, int]  # id -> first step of its latest report
    _total: int

    def guard(self, action: Any) -> Any:  # the Monitor's
        raise NotImplementedError

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
            >>> from denpex_callbacks.core.monitor import Monitor
            >>> from denpex_callbacks.core.observation import Observation
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

    def _emit_all(self, findings: list[Finding], reported_step: int | None) -> list[Diagnosis]:
        return [d for f in findings if (d := self._emit(f, reported_step)) is not None]

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
