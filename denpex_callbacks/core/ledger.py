"""One rank's diagnoses, and how findings join them: rate limit, escalation, cause, primary,
amendments.

Each condition is reported once when it begins (again only when it clears and returns, at most
``max_repeats`` times, or when it worsens: then the held diagnosis is escalated in place), a
later condition that follows from an earlier one within ``thresholds.cause_window_steps`` is
marked as its consequence, the diagnosis to fix first is kept as the primary, and evidence found
later (the locator, a re-run) amends a diagnosis. Each new or escalated diagnosis goes to the
log line, the run report and the sinks; what the policy does with it is the Monitor's
(:meth:`~denpex_callbacks.core.monitor.Monitor.act`), after the locator has amended it.

An amendment never outlives the evidence against it: a located "one-off" (the armed step or the
re-run was finite) is withdrawn when the fault recurs in its episode (:meth:`DiagnosisLedger.
recurred`), and an escalation does not keep it.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.catalog import CONSEQUENCES, entry
from denpex_callbacks.core.causes import UNDETERMINED, explain, gather, judge
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.fixes import generic_fix
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.ordering import before, counts_as_fault, primary
from denpex_callbacks.core.rerun_verdict import NOT_REPRODUCED
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.sinks import LogSink, ReportSink, Sink

__all__ = ["MAX_DIAGNOSES", "SETUP_CAUSES", "DiagnosisLedger", "is_one_off"]

MAX_DIAGNOSES = 200  # kept in memory; the report on disk has them all
# Conditions of the run's setup rather than events: they explain a consequence at any distance
# (a missing scaler still causes the NaN 50,000 steps later). Events cause only within the
# configured window (Thresholds.cause_window_steps).
SETUP_CAUSES = frozenset({"AMP001", "AMP002", "AMP011", "AMP012"})
# The locator's verdicts that call a fault a one-off: the armed step (or the re-run) was finite.
_ONE_OFF_VERDICTS = frozenset({"not-reproduced"})
_CAUSE_KEYS = ("cause", "cause_evidence")  # a judged cause in a diagnosis's evidence
_RECURRING = frozenset({"AMP006", "AMP003"})  # the located faults a later step can show again


def is_one_off(diagnosis: Diagnosis) -> bool:
    """Whether later evidence on ``diagnosis`` says its fault did not recur (the armed step
    was finite everywhere, or the re-run of the failing step was finite).

    Example:
        >>> d = Diagnosis.from_finding(Finding("AMP006", 4, "loss nan",
        ...                                    evidence={"rerun": "not-reproduced"}))
        >>> is_one_off(d)
        True
    """
    origin = diagnosis.evidence.get("origin")
    verdict = origin.get("verdict") if isinstance(origin, dict) else None
    return verdict in _ONE_OFF_VERDICTS or diagnosis.evidence.get("rerun") == NOT_REPRODUCED


class DiagnosisLedger:
    """The diagnoses of one rank and the bookkeeping that admits findings among them.

    Args:
        config: Rate limits (``max_repeats``) and thresholds (windows).
        rank: The rank diagnoses are attributed to by default.
        framework: Phrases the catalog's fixes.
        log: The log line sink.
        sinks: Extra callables receiving each new or escalated diagnosis.

    Attributes:
        diagnoses: The diagnoses held in memory (the first :data:`MAX_DIAGNOSES`).
        reported: Id -> times reported in its current episode count.
        worst: Id -> highest severity rank reported.
        report: The run report, once the Monitor opened one (None: no report).

    Example:
        >>> import logging
        >>> ledger = DiagnosisLedger(MonitorConfig(report_dir=None), rank=0, framework="torch",
        ...                          log=LogSink(logging.getLogger("x")), sinks=[])
        >>> run = RunState()
        >>> run.update(Observation(3, loss=float("nan")))
        >>> [d.code for d in ledger.admit([Finding("AMP006", 3, "loss is nan")], 3, run,
        ...                               RunSetup())]
        ['AMP006']
        >>> ledger.primary.code, ledger.total
        ('AMP006', 1)
    """

    def __init__(self, config: MonitorConfig, *, rank: int, framework: str, log: LogSink,
                 sinks: list[Sink]) -> None:
        self.config = config
        self.rank = rank
        self.framework = framework
        self.log = log
        self.sinks = sinks
        self.report: ReportSink | None = None
        self.diagnoses: list[Diagnosis] = []
        self.reported: dict[str, int] = {}
        self.worst: dict[str, int] = {}
        self.primary: Diagnosis | None = None  # the fault to fix first (ordering.order)
        self.total = 0  # diagnoses made, including those past MAX_DIAGNOSES
        self._last_reported: dict[str, int] = {}  # id -> first step of its latest report
        # Indexes of diagnoses amended as a one-off and not withdrawn: what recurred() checks
        # (none, on nearly every run: a skipped step costs no walk over the diagnoses).
        self._one_offs: list[int] = []

    # -- findings become diagnoses -------------------------------------------------------------

    def admit(self, findings: list[Finding], reported_step: int | None, run: RunState,
              setup: RunSetup) -> list[Diagnosis]:
        """Explain, rate-limit and record ``findings``; returns the new and the escalated
        diagnoses (each already logged, written to the report and given to the sinks)."""
        return [d for f in findings if (d := self._admit(f, reported_step, run, setup))
                is not None]

    def _admit(self, finding: Finding, reported_step: int | None, run: RunState,
               setup: RunSetup) -> Diagnosis | None:
        finding = explain(finding, run, setup)
        severity = finding.severity or entry(finding.code).severity
        held = self._escalated(finding, severity)
        if held is not None:
            return self._escalate(held, finding, reported_step, run, setup)
        if not self._count(finding, severity):
            return None
        diagnosis = Diagnosis.from_finding(
            finding,
            rank=self.rank if finding.rank is None else finding.rank,
            reported_step=reported_step,
            framework=self.framework,
        )
        if severity.rank >= Severity.WARNING.rank:
            diagnosis = diagnosis.with_cause(self._cause_of(diagnosis))
            if counts_as_fault(diagnosis) and before(diagnosis, self.primary):
                self.primary = diagnosis  # (the doctor's order too)
        self.total += 1
        if len(self.diagnoses) < MAX_DIAGNOSES:
            self.diagnoses.append(diagnosis)
        if self.report is not None:
            self.report(diagnosis)
        self.log(diagnosis)
        for sink in self.sinks:
            sink(diagnosis)
        return diagnosis

    def _count(self, finding: Finding, severity: Severity) -> bool:
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

    def _escalate(self, index: int, finding: Finding, reported_step: int | None,
                  run: RunState, setup: RunSetup) -> Diagnosis:
        """The condition got worse (a one-off turned persistent): replace the held diagnosis,
        keeping what was located since (unless it called the fault a one-off: the
        escalation is the evidence against it), so that the policy can act on it."""
        old = self.diagnoses[index]
        new = Diagnosis.from_finding(finding, rank=old.rank, reported_step=reported_step,
                                     framework=self.framework)
        evidence = {**old.evidence, **new.evidence, "escalated_step": reported_step}
        if is_one_off(old):  # what the one-off verdict said the cause was goes with it
            evidence = {k: v for k, v in evidence.items() if k not in _CAUSE_KEYS
                        or k in new.evidence}
            evidence["recurred_step"] = reported_step
        elif "origin" in old.evidence or old.located:
            new = replace(new, root_cause=old.root_cause, fix=old.fix, located=old.located,
                          summary=new.summary + (f"; {old.located}" if old.located else ""))
        new = replace(new, evidence=evidence, caused_by=old.caused_by,
                      reported_step=old.reported_step)
        self._replace(index, new)
        self._note_one_off(index)
        self.worst[new.code] = max(new.severity.rank, self.worst.get(new.code, -1))
        if self.report is not None:
            self.report.amended(new)  # readers see the one diagnosis at its worse severity
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
            if not counts_as_fault(earlier):
                continue  # a misplaced monitor call causes nothing in training
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

    # -- later evidence ------------------------------------------------------------------------

    def current(self, diagnosis: Diagnosis) -> Diagnosis:
        """The held version of ``diagnosis`` (same id, step and rank), as amended since."""
        for held in reversed(self.diagnoses):
            if (held.code, held.step, held.rank) == (diagnosis.code, diagnosis.step,
                                                     diagnosis.rank):
                return held
        return diagnosis

    def amend(
        self,
        code: str,
        step: int | None,
        *,
        evidence: dict[str, Any] | None = None,
        summary: str | None = None,
        root_cause: str | None = None,
        fix: str | None = None,
        located: str | None = None,
    ) -> Diagnosis | None:
        """Complete the latest diagnosis ``code`` (with that first ``step`` when given); see
        :meth:`~denpex_callbacks.core.monitor.Monitor.amend`."""
        held = [
            i for i, d in enumerate(self.diagnoses)
            if d.code == code and (step is None or d.step == step)
        ]
        if not held:
            return None
        index = held[-1]
        old = self.diagnoses[index]
        if summary is None and located:
            summary = f"{old.summary}; {located}"
        amended = replace(
            old,
            evidence={**old.evidence, **(evidence or {})},
            summary=summary or old.summary,
            root_cause=root_cause or old.root_cause,
            fix=fix or old.fix,
            located=located or old.located,
        )
        self._record_amendment(index, old, amended)
        return amended

    def recurred(self, obs: Observation, run: RunState, setup: RunSetup) -> list[Diagnosis]:
        """Withdraw a located "one-off" that ``obs`` (a step judged in full) contradicts: a
        non-finite loss after an AMP006 called one, or a skipped step after an AMP003 called
        one, while its episode lasts (a skip streak or a non-finite loss within
        ``nonfinite_clear_steps`` of the located step). Returns the amended diagnoses.

        The diagnosis keeps what was found; its summary loses the one-off clause and says
        where the fault recurred, and its root cause and fix are judged again from the run.
        """
        if not self._one_offs:
            return []
        loss = obs.loss
        nonfinite = loss is not None and not math.isfinite(loss)
        if not (nonfinite or obs.was_skipped is True):
            return []
        out = []
        window = self.config.thresholds.nonfinite_clear_steps
        for index in list(self._one_offs):
            held = self.diagnoses[index]
            since = _located_step(held)
            if since is None or obs.step - since > window:
                self._one_offs.remove(index)  # its episode ended without a recurrence: it stands
                continue
            if obs.step <= since:
                continue
            if held.code == "AMP006" and not nonfinite:
                continue
            what = f"loss {loss}" if nonfinite else "the step was skipped again"
            summary = held.summary
            if held.located:
                summary = summary.removesuffix(f"; {held.located}")
            summary += (f"; the fault recurred at step {obs.step} ({what}): it was not a "
                        "one-off")
            cause = judge(gather(held.code, held.step, run, setup, persistent=True))
            root_cause, fix = (cause.root_cause, cause.fix) if cause.kind != UNDETERMINED else (
                entry(held.code).root_cause, generic_fix(held.code, setup))
            evidence = {k: v for k, v in held.evidence.items() if k not in _CAUSE_KEYS}
            evidence["recurred_step"] = obs.step
            if cause.kind != UNDETERMINED:
                evidence.update(cause.evidence())
            amended = replace(held, summary=summary, located=None, evidence=evidence,
                              root_cause=root_cause or held.root_cause, fix=fix or held.fix)
            self._record_amendment(index, held, amended)
            out.append(amended)
        return out

    def _record_amendment(self, index: int, old: Diagnosis, amended: Diagnosis) -> None:
        self._replace(index, amended)
        self._note_one_off(index)
        if self.report is not None:
            self.report.amended(amended)
        self.log.amended(old, amended)

    def _replace(self, index: int, new: Diagnosis) -> None:
        old = self.diagnoses[index]
        self.diagnoses[index] = new
        if self.primary is old:
            self.primary = new

    def _note_one_off(self, index: int) -> None:
        """Keep :attr:`_one_offs` in step with the diagnosis at ``index``."""
        held = self.diagnoses[index]
        standing = (held.code in _RECURRING and held.step is not None and is_one_off(held)
                    and "recurred_step" not in held.evidence)
        if standing and index not in self._one_offs:
            self._one_offs.append(index)
        elif not standing and index in self._one_offs:
            self._one_offs.remove(index)

    # -- checkpoints ---------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The history a resumed run continues from (the Monitor's checkpoint keys)."""
        return {
            "reported": dict(self.reported),
            "worst": dict(self.worst),
            "last_reported": dict(self._last_reported),
            "diagnoses": [d.to_dict() for d in self.diagnoses],
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict` (or the Monitor's checkpoint holding its keys)."""
        self.reported = dict(state.get("reported", {}))
        self.worst = dict(state.get("worst", {}))
        self._last_reported = dict(state.get("last_reported", {}))
        self.diagnoses = [Diagnosis.from_dict(d) for d in state.get("diagnoses", [])]
        self.primary = primary(self.diagnoses)
        self.total = len(self.diagnoses)
        self._one_offs = []
        for index in range(len(self.diagnoses)):
            self._note_one_off(index)


def _located_step(diagnosis: Diagnosis) -> int | None:
    """The step the one-off verdict looked at: the armed step, or the re-run one."""
    origin = diagnosis.evidence.get("origin")
    if isinstance(origin, dict) and isinstance(origin.get("located_step"), int):
        return int(origin["located_step"])
    detail = diagnosis.evidence.get("rerun_detail")
    if isinstance(detail, dict) and isinstance(detail.get("step"), int):
        return int(detail["step"])
    return diagnosis.reported_step if diagnosis.reported_step is not None else diagnosis.step
