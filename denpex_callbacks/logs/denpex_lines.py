"""denpex's own diagnosis lines, as the live callbacks log them.

A run watched by a denpex callback prints ``denpex: AMP006 non-finite-loss [error] step 61,
rank 0: loss is nan ...`` (with ``log_format="full"``: a block whose headline is ``denpex:
AMP006 non-finite-loss [error] Loss is NaN or inf (step 61, rank 0)``). A log that holds them
is read back as what they say, so ``denpex diagnose`` on a watched run's output agrees with
what the run reported.
"""

from __future__ import annotations

import re
from dataclasses import replace

from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.logs.events import FLAG, RUN_SAID, SETUP, SUMMARY, LogEvent

FAMILY = "denpex"
BY_THE_RUN = "reported by denpex during the run"  # how a diagnosis read back here begins
KEYWORDS = (b"denpex: ",)

# The one-line form: "denpex: AMP006 non-finite-loss [error] step 61, rank 0: <summary> ...".
_LINE = re.compile(
    r"denpex: ((?:AMP|SYS)\d{3}) [\w-]+ \[(warning|error)\] (?:step (\d+), )?rank (\d+)"
    r"(?:, line \d+)?(?:, [^:]*?)?(?:, amended)?: (.*?)(?: Fix: | Fix now: | Details: |$)"
)
# What the one-line form printed as the first fix, to its end: "Fix: X." on a diagnosis,
# "Fix now: X (before: Y)." on an amendment (core/log_line.py), then the report's path.
_FIX = re.compile(r"Fix(?: now)?: (.*?)(?: \(before: .*\))?\.(?: Details: \S.*)?$")
# The header a watched run prints first: "denpex: hf rank 0/2: precision fp16-mixed (requested
# fp16), dynamic loss scale (init 65536, growth interval 2000); scale and loss detectors on".
_HEADER = re.compile(
    r"denpex: (\w+) rank (\d+)/(\d+): precision ([\w-]+) \(requested [^)]*\), "
    r"(?:(dynamic|static) loss scale|no loss scaler)"
)
# The closing line (core/sinks.py LogSink.summary): "denpex: run summary (rank 0): fix ...".
_CLOSING = "denpex: run summary (rank "
# The multi-line form's headline (log_format="full", and denpex before 0.2).
_HEADLINE = re.compile(
    r"denpex: (?:amended |escalated )?((?:AMP|SYS)\d{3}) [\w-]+ \[(?:info|warning|error)\] (.*?) "
    r"\((?:step (\d+), )?rank (\d+)"
)


def parse(text: str) -> list[LogEvent]:
    """The diagnosis a denpex line reports, in either form (info lines are left out).

    Example:
        >>> [(e.code, e.step, e.rank) for e in parse(
        ...     "denpex: AMP003 loss-scale-collapse [error] step 61, rank 1: consequence of "
        ...     "AMP006, fix that first: loss scale 32768 -> 512. Details: r/rank1.jsonl")]
        [('AMP003', 61, 1)]
        >>> [(e.code, e.step, e.rank) for e in parse(
        ...     "denpex: AMP003 loss-scale-collapse [error] Loss scale collapsing under "
        ...     "persistent overflow (step 61, rank 0)")]
        [('AMP003', 61, 0)]
    """
    if "denpex: " not in text:  # literal checks first: most lines are another family's
        return []
    header = _HEADER.search(text)
    if header is not None:
        return [_watched(header)]
    if _CLOSING in text:
        # The closing line names the diagnosis to fix first, printed on its own line before:
        # read as nothing ("fix AMP006 first (Loss is NaN or inf, from step 20)" is no NaN loss
        # of step 20 to judge again).
        return [LogEvent(SUMMARY, FAMILY)]
    line = _LINE.search(text)
    if line is not None and line.group(1) in CATALOG:
        code, severity, step, rank, said = line.groups()
        return [LogEvent(FLAG, FAMILY, step=int(step) if step else None, rank=int(rank),
                         code=code, summary=f"{BY_THE_RUN}: {said.rstrip(' .')}",
                         evidence={RUN_SAID: _run_said(text, line, severity)})]
    found = _HEADLINE.search(text)
    if found is None or "[info]" in text or found.group(1) not in CATALOG:
        return []
    code, title, step, rank = found.groups()
    severity = "error" if "[error]" in text[:found.start(2)] else "warning"
    # (the block's fix is on a line of its own: the catalog's fix stands in for it)
    return [LogEvent(FLAG, FAMILY, step=int(step) if step else None, rank=int(rank), code=code,
                     summary=f"{BY_THE_RUN}: {title}",
                     evidence={RUN_SAID: {"severity": severity,
                                          "amended": text[found.start():].startswith(
                                              "denpex: amended ")}})]


def _run_said(text: str, line: re.Match[str], severity: str) -> dict[str, object]:
    """What the run said of its diagnosis beside the summary: its severity, the first fix
    it printed (None: none, as on a consequence's line or an amendment that kept the fix)
    and whether the line amends or escalates a diagnosis printed before (the run's later
    word on it: its fix, its severity).

    Example:
        >>> text = ("denpex: AMP006 non-finite-loss [warning] step 20, rank 0, amended: "
        ...         "located at step 20: bad input. Fix now: Drop the bad samples: "
        ...         "assert torch.isfinite(x).all() (before: Check the batch). Details: r.jsonl")
        >>> said = _run_said(text, _LINE.search(text), "warning")
        >>> said["fix"], said["amended"]
        ('Drop the bad samples: assert torch.isfinite(x).all()', True)
    """
    head = text[line.start():line.start(5)]
    fix = _FIX.search(text, line.end(5))
    return {"severity": severity, "fix": fix.group(1) if fix is not None else None,
            "amended": head.endswith(", amended: "),
            "escalated": head.endswith(", escalated: ")}


def _watched(header: re.Match[str]) -> LogEvent:
    """The run was watched by denpex: what it saw at start (a healthy run prints only this).

    Example:
        >>> e = parse("denpex: hf rank 1/2: precision fp16-mixed (requested fp16), dynamic loss "
        ...           "scale (init 65536, growth interval 2000); scale and loss detectors on")[0]
        >>> e.kind, e.rank, e.setup
        ('setup', 1, {'active_precision': 'fp16-mixed', 'scaler': 'dynamic'})
    """
    _, rank, _, precision, scaler = header.groups()
    return LogEvent(SETUP, FAMILY, rank=int(rank),
                    setup={"active_precision": precision, "scaler": scaler})


def as_said(finding: Finding) -> tuple[Finding, bool]:
    """``finding`` as the run said it, where a denpex line flagged it: the severity and the
    first fix the line printed (a watched run may have located the fault: its fix is not the
    catalog's default), and whether it amends the diagnosis printed before it (an
    escalated line is flagged again: the ledger raises the held diagnosis's severity, as
    the run's did).

    Example:
        >>> said, amends = as_said(Finding("AMP006", 20, "loss is nan", evidence={
        ...     RUN_SAID: {"severity": "warning", "fix": "Drop the bad samples",
        ...                "amended": False}}))
        >>> said.severity.value, said.fix, said.evidence, amends
        ('warning', 'Drop the bad samples', {}, False)
    """
    said = finding.evidence.get(RUN_SAID)
    if not isinstance(said, dict):
        return finding, False
    evidence = {k: v for k, v in finding.evidence.items() if k != RUN_SAID}
    return replace(finding, evidence=evidence, severity=Severity(said["severity"]),
                   fix=said.get("fix") or finding.fix), bool(said.get("amended"))
