"""Findings (what a detector saw) and Diagnoses (a finding explained: cause, fix, references)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.numbers import format_evidence, format_value, round_numbers
from denpex_callbacks.core.severity import Severity

# Evidence of a diagnosis read from a log: where its step came from (``printed``, ``rows`` ...:
# denpex_callbacks.logs.step_basis) and, where it is no printed counter, the words that say so;
# the location shows the words after the step.
STEP_BASIS = "step_basis"
STEP_NOTE = "step_note"


@dataclass(frozen=True)
class Finding:
    """What a detector (or a lint, or a log parser) saw, before it is explained.

    Attributes:
        code: Catalog id, e.g. ``"AMP003"``.
        step: Step at which the condition began.
        summary: One line saying what was observed, with the numbers.
        evidence: The numbers that triggered it.
        severity: Overrides the catalog's default severity.
        root_cause: Overrides the catalog's root cause (e.g. when the culprit module is known).
        fix: Overrides the catalog's fix.
        lines: Log line numbers the finding rests on.
        quotes: Log lines (or messages) quoted as evidence.
        rank: Rank the finding was seen on, when it differs from the Monitor's own (a log
            holding several ranks); None: the Monitor's rank.
    """

    code: str
    step: int | None
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)
    severity: Severity | None = None
    root_cause: str | None = None
    fix: str | None = None
    lines: tuple[int, ...] = ()
    quotes: tuple[str, ...] = ()
    rank: int | None = None


@dataclass(frozen=True)
class Diagnosis:
    """A condition seen in a run, explained: id, where it began, evidence, cause and fix.

    ``located`` is the locator's clause (where the first non-finite value appeared, ``"located
    at step 62: fc1 (Linear) overflowed fp16 ..."``), once a later step or a re-run found it:
    the summary ends with it, and an escalation of the diagnosis keeps it.

    Example:
        >>> d = Diagnosis.from_finding(Finding("AMP004", 840, "loss scale reached 0.0"))
        >>> d.slug, d.severity.value
        ('loss-scale-underflow', 'warning')
        >>> print(d.render_text().splitlines()[0])
        AMP004 loss-scale-underflow [warning] Loss scale below 1 or at 0 (step 840, rank 0)
    """

    code: str
    slug: str
    title: str
    severity: Severity
    step: int | None
    summary: str
    root_cause: str
    fix: str
    rank: int = 0
    reported_step: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    confirm: tuple[str, ...] = ()
    prevent: str = ""
    references: tuple[str, ...] = ()
    lines: tuple[int, ...] = ()
    quotes: tuple[str, ...] = ()
    caused_by: str | None = None
    source: str | None = None
    located: str | None = None

    @classmethod
    def from_finding(
        cls,
        finding: Finding,
        *,
        rank: int = 0,
        reported_step: int | None = None,
        framework: str | None = None,
        source: str | None = None,
    ) -> Diagnosis:
        """Explain a finding with its catalog entry."""
        info = entry(finding.code)
        return cls(
            code=info.code,
            slug=info.slug,
            title=info.title,
            severity=finding.severity or info.severity,
            step=finding.step,
            summary=finding.summary,
            root_cause=finding.root_cause or info.root_cause,
            fix=finding.fix or info.fix_for(framework),
            rank=rank,
            reported_step=finding.step if reported_step is None else reported_step,
            evidence=dict(finding.evidence),
            confirm=info.confirm,
            prevent=info.prevent,
            references=info.references,
            lines=finding.lines,
            quotes=finding.quotes,
            source=source,
        )

    def with_cause(self, caused_by: str | None) -> Diagnosis:
        """Copy marked as a consequence of another diagnosis id."""
        return replace(self, caused_by=caused_by)

    @property
    def is_primary(self) -> bool:
        """True when no earlier diagnosis explains this one."""
        return self.caused_by is None

    def where(self) -> str:
        """Human-readable location: step, rank and log lines."""
        parts = []
        within = self.evidence.get("step_within")
        if isinstance(within, (list, tuple)) and len(within) == 2:
            parts.append(f"a step within {within[0]}-{within[1]}")  # the log cannot say which
        elif self.step is not None:
            note = self.evidence.get(STEP_NOTE)
            parts.append(f"step {self.step} ({note})" if note else f"step {self.step}")
        parts.append(f"rank {self.rank}")
        if self.lines:
            shown = ", ".join(str(n) for n in self.lines[:5])
            more = "..." if len(self.lines) > 5 else ""
            parts.append(f"line {shown}{more}")
        if self.source:
            parts.append(self.source)
        return ", ".join(parts)

    def render_text(self, *, brief: bool = False) -> str:
        """Multi-line block for people: headline, evidence, cause, fix.

        ``brief`` leaves out the evidence, quotes and checklist (for an amendment, whose
        evidence was shown with the first report).
        """
        out = [f"{self.code} {self.slug} [{self.severity.value}] {self.title} ({self.where()})"]
        if self.caused_by:
            out.append(f"  consequence of {self.caused_by}: fix that first")
        out.append(f"  observed:   {round_numbers(self.summary)}")
        if brief:
            out += [f"  root cause: {self.root_cause}", f"  fix:        {self.fix}"]
            return "\n".join(out)
        shown = {k: v for k, v in self.evidence.items() if k not in _TEXT_HIDDEN}
        if shown:
            out.append(f"  evidence:   {format_evidence(shown)}")
        if isinstance(self.evidence.get("history"), list):
            out.append(f"  history:    {_trail(self.evidence['history'])}")
        for quote in self.quotes[:5]:
            out.append(f"    > {quote}")
        out.append(f"  root cause: {self.root_cause}")
        out.append(f"  fix:        {self.fix}")
        if self.confirm:
            out.append(f"  confirm:    {self.confirm[0]}")
        return "\n".join(out)

    def render_markdown(self) -> str:
        """A section to paste into an issue."""
        out = [f"### {self.code} `{self.slug}`: {self.title}", ""]
        out.append(f"- **severity**: {self.severity.value}")
        out.append(f"- **where**: {self.where()}")
        if self.caused_by:
            out.append(f"- **consequence of**: {self.caused_by}")
        out.append(f"- **observed**: {round_numbers(self.summary)}")
        shown = {k: v for k, v in self.evidence.items() if k not in _TEXT_HIDDEN}
        if shown:
            out.append(f"- **evidence**: `{format_evidence(shown)}`")
        if isinstance(self.evidence.get("history"), list):
            out.append(f"- **history**: {_trail(self.evidence['history'])}")
        out.append(f"- **root cause**: {self.root_cause}")
        out.append(f"- **fix**: {self.fix}")
        if self.quotes:
            out += ["", "```", *self.quotes[:10], "```"]
        if self.references:
            out += ["", "References: " + ", ".join(self.references)]
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (NaN/inf written as strings)."""
        return {
            "id": self.code,
            "slug": self.slug,
            "title": self.title,
            "severity": self.severity.value,
            "step": self.step,
            "reported_step": self.reported_step,
            "rank": self.rank,
            "line": self.lines[0] if self.lines else None,
            "lines": list(self.lines),
            "summary": self.summary,
            "evidence": _jsonable(self.evidence),
            "quotes": list(self.quotes),
            "root_cause": self.root_cause,
            "fix": self.fix,
            "confirm": list(self.confirm),
            "prevent": self.prevent,
            "references": list(self.references),
            "caused_by": self.caused_by,
            "source": self.source,
            "located": self.located,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagnosis:
        """Inverse of :meth:`to_dict`."""
        return cls(
            code=data["id"],
            slug=data["slug"],
            title=data["title"],
            severity=Severity(data["severity"]),
            step=data.get("step"),
            summary=data.get("summary", ""),
            root_cause=data.get("root_cause", ""),
            fix=data.get("fix", ""),
            rank=data.get("rank", 0),
            reported_step=data.get("reported_step"),
            evidence=dict(data.get("evidence") or {}),
            confirm=tuple(data.get("confirm") or ()),
            prevent=data.get("prevent", ""),
            references=tuple(data.get("references") or ()),
            lines=tuple(data.get("lines") or ()),
            quotes=tuple(data.get("quotes") or ()),
            caused_by=data.get("caused_by"),
            source=data.get("source"),
            located=data.get("located"),  # (None in reports written before it existed)
        )


class AmpDiagnosisError(RuntimeError):
    """Raised under the ``"raise"`` policy; carries the diagnosis that triggered it.

    Example:
        >>> err = AmpDiagnosisError(Diagnosis.from_finding(Finding("AMP006", 7, "loss nan")))
        >>> err.diagnosis.code
        'AMP006'
    """

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__(diagnosis.render_text())
        self.diagnosis = diagnosis


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


# Evidence kept in JSON but left out of the text block: noise for a person reading it.
_TEXT_HIDDEN = frozenset({"history", "time", "origin", "rerun_detail", "step_within",
                          STEP_BASIS, STEP_NOTE})


def _trail(history: list[Any]) -> str:
    """The last steps as 'step: scale' pairs, skipped steps marked, for the text block."""
    parts = []
    for item in history[-8:]:
        if not isinstance(item, dict):
            continue
        scale = item.get("scale")
        mark = " skipped" if item.get("skipped") else ""
        shown = "?" if scale is None else format_value(scale)
        parts.append(f"{item.get('step')}: {shown}{mark}")
    return "; ".join(parts)

