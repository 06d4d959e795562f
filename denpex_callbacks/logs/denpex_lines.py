"""denpex's own diagnosis lines, as the live callbacks log them.

A run watched by a denpex callback prints ``denpex: AMP006 non-finite-loss [error] step 61,
rank 0: loss is nan ...`` (with ``log_format="full"``: a block whose headline is ``denpex:
AMP006 non-finite-loss [error] Loss is NaN or inf (step 61, rank 0)``). A log that holds them
is read back as what they say, so ``denpex diagnose`` on a watched run's output agrees with
what the run reported.
"""

from __future__ import annotations

import re

from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.logs.events import FLAG, SETUP, LogEvent

FAMILY = "denpex"
BY_THE_RUN = "reported by denpex during the run"  # how a diagnosis read back here begins
KEYWORDS = (b"denpex: ",)

# The one-line form: "denpex: AMP006 non-finite-loss [error] step 61, rank 0: <summary> ...".
_LINE = re.compile(
    r"denpex: ((?:AMP|SYS)\d{3}) [\w-]+ \[(?:warning|error)\] (?:step (\d+), )?rank (\d+)"
    r"(?:, line \d+)?(?:, [^:]*?)?(?:, amended)?: (.*?)(?: Fix: | Fix now: | Details: |$)"
)
# The header a watched run prints first: "denpex: hf rank 0/2: precision fp16-mixed (requested
# fp16), dynamic loss scale (init 65536, growth interval 2000); scale and loss detectors on".
_HEADER = re.compile(
    r"denpex: (\w+) rank (\d+)/(\d+): precision ([\w-]+) \(requested [^)]*\), "
    r"(?:(dynamic|static) loss scale|no loss scaler)"
)
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
    line = _LINE.search(text)
    if line is not None and line.group(1) in CATALOG:
        code, step, rank, said = line.groups()
        return [LogEvent(FLAG, FAMILY, step=int(step) if step else None, rank=int(rank),
                         code=code, summary=f"{BY_THE_RUN}: {said}")]
    found = _HEADLINE.search(text)
    if found is None or "[info]" in text or found.group(1) not in CATALOG:
        return []
    code, title, step, rank = found.groups()
    return [LogEvent(FLAG, FAMILY, step=int(step) if step else None, rank=int(rank), code=code,
                     summary=f"{BY_THE_RUN}: {title}")]


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
