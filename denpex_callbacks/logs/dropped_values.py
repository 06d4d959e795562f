"""A logger's warning that it dropped a non-finite value, beside the row that shows it.

neptune-client drops a NaN/inf appended to a float series and warns once per wording (``A
value you're trying to log (`inf`) will be skipped``), naming no field and no step: AMP009, a
non-finite value hidden by the logger. Under HF's ``NeptuneCallback`` a healthy fp16 run logs
``'grad_norm': inf`` on the steps GradScaler skips at start-up (its scale backing off), and
Neptune drops that value: the console shows it, and the doctor reads those rows as skipped
steps (AMP003/AMP004 where the skips go on). Such a warning says nothing the rows do not, so
it is no finding where the row printed just before it or just after it (HF's callbacks log to
Neptune before the progress callback prints the row) shows the value dropped as its gradient
norm beside a finite loss. Any other warning is flagged where it was printed, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from denpex_callbacks.logs.events import DROPPED, FLAG, METRICS, LogEvent

# one event to feed: (event, line, text)
Fed = tuple[LogEvent, int, str]


def explains(dropped: float, row: LogEvent) -> bool:
    """Whether ``row`` shows ``dropped`` as a skipped step's gradient norm: the same
    non-finite value beside a finite loss (an overflow the scaler skipped, not a fault).

    Example:
        >>> row = LogEvent(METRICS, "hf", loss=2.4, grad_norm=math.inf)
        >>> explains(math.inf, row), explains(math.nan, row)
        (True, False)
        >>> explains(math.inf, LogEvent(METRICS, "hf", loss=math.nan, grad_norm=math.inf))
        False
    """
    norm, loss = row.grad_norm, row.loss
    if norm is None or loss is None or not math.isfinite(loss) or math.isfinite(norm):
        return False
    return math.isnan(norm) if math.isnan(dropped) else norm == dropped


@dataclass
class DroppedValues:
    """Holds a logger's dropped-value warning until the row after it is read.

    Example:
        >>> values = DroppedValues()
        >>> warning = LogEvent(FLAG, "messages", code="AMP009", evidence={DROPPED: math.inf})
        >>> values.offer(warning, 2, "[neptune] ...")
        True
        >>> values.row(LogEvent(METRICS, "hf", loss=2.4, grad_norm=math.inf))
        []
        >>> healthy = LogEvent(METRICS, "hf", loss=2.3, grad_norm=1.1)
        >>> values.row(healthy), values.offer(warning, 9, "[neptune] ...")
        ([], True)
        >>> [line for _event, line, _text in values.row(healthy)]
        [9]
    """

    held: dict[int, Fed] = field(default_factory=dict)  # per rank: the warning held
    last: dict[int, LogEvent] = field(default_factory=dict)  # per rank: the last row read

    def offer(self, event: LogEvent, line: int, text: str) -> bool:
        """Whether ``event`` is taken here (held, or explained by the row before it): not
        to be fed now. An event of another kind is not taken."""
        dropped = event.evidence.get(DROPPED) if event.kind == FLAG else None
        if not isinstance(dropped, float):
            return False
        rank = event.rank or 0
        before = self.last.get(rank)
        if before is None or not explains(dropped, before):
            self.held.setdefault(rank, (event, line, text))
        return True

    def row(self, event: LogEvent) -> list[Fed]:
        """A metrics row read: the warning held for its rank, to feed before it (none where
        the row explains it)."""
        if event.kind != METRICS:
            return []
        rank = event.rank or 0
        self.last[rank] = event
        held = self.held.pop(rank, None)
        if held is None or explains(held[0].evidence[DROPPED], event):
            return []
        return [held]

    def release(self) -> list[Fed]:
        """The warnings still held (no row came after them), to feed now."""
        if not self.held:  # (the common case: asked at each run of quiet lines)
            return []
        held, self.held = list(self.held.values()), {}
        return held
