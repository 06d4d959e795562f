"""denpex's own diagnosis lines, as the live callbacks log them.

A run watched by a denpex callback prints ``denpex: AMP006 non-finite-loss [error] Loss is NaN
or inf (step 61, rank 0)``; a log that holds them is read back as what they say, so
``denpex diagnose`` on a watched run's output agrees with what the run reported.
"""

from __future__ import annotations

import re

from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.logs.events import FLAG, LogEvent

FAMILY = "denpex"
BY_THE_RUN = "reported by denpex during the run"  # how a diagnosis read back here begins
KEYWORDS = (b"denpex: ",)

_HEADLINE = re.compile(
    r"denpex: (?:amended |escalated )?((?:AMP|SYS)\d{3}) [\w-]+ \[(?:info|warning|error)\] (.*?) "
    r"\((?:step (\d+), )?rank (\d+)"
)


def parse(text: str) -> list[LogEvent]:
    """The diagnosis a denpex headline line reports (info lines are left out).

    Example:
        >>> [(e.code, e.step, e.rank) for e in parse(
        ...     "denpex: AMP003 loss-scale-collapse [error] Loss scale collapsing under "
        ...     "persistent overflow (step 61, rank 0)")]
        [('AMP003', 61, 0)]
    """
    if "denpex: " not in text:  # literal checks first: most lines are another family's
        return []
    found = _HEADLINE.search(text)
    if found is None or "[info]" in text or found.group(1) not in CATALOG:
        return []
    code, title, step, rank = found.groups()
    return [LogEvent(FLAG, FAMILY, step=int(step) if step else None, rank=int(rank), code=code,
                     summary=f"{BY_THE_RUN}: {title}")]
