"""The fingerprints a watched run wrote into its own metrics: ``amp/fault/<id>`` = 1.

denpex's metrics (``Monitor.metrics``, :mod:`denpex_callbacks.core.metrics_sink`) hold
``amp/fault/<id>`` = 1 from the step a diagnosis fired on, for the rest of the run; the
adapters log them through the run's own logger (a Lightning CSVLogger gives each a column,
HF's Trainer a key of its ``log_history`` record, TensorBoard a tag). A run file that holds one
holds the diagnosis the run made, read back as a flag (as denpex's console lines are: see
:mod:`denpex_callbacks.logs.denpex_lines`). A logger writes only at its logging steps, so the
first record holding the key is the earliest step the file knows: the diagnosis fired at
that step or in the logging interval before it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.core.metrics_sink import FAULT_PREFIX
from denpex_callbacks.logs.denpex_lines import BY_THE_RUN
from denpex_callbacks.logs.events import FLAG, LogEvent

# The key as a logger keeps it: HF's W&B and TensorBoard exports put ``train/`` before it.
_KEY = re.compile(rf"^(?:train/)?{re.escape(FAULT_PREFIX)}((?:AMP|SYS)\d{{3}})$")


@dataclass
class FaultColumns:
    """Reads the fault keys of one run file's records, in the file's order.

    Example:
        >>> faults = FaultColumns("csv")
        >>> faults.record({"amp/diagnoses": "0.0", "train_loss": "0.9"}, 7)
        []
        >>> [(e.code, e.step) for e in faults.record({"amp/fault/AMP006": "1.0"}, 23)]
        [('AMP006', 23)]
        >>> faults.record({"amp/fault/AMP006": "1.0"}, 31)  # still 1: the same diagnosis
        []
    """

    family: str
    seen: set[str] = field(default_factory=set)

    def record(self, values: Mapping[str, Any], step: int | None) -> list[LogEvent]:
        """A flag for each id whose key is 1 in ``values`` for the first time."""
        out: list[LogEvent] = []
        for key, value in values.items():
            found = _KEY.match(key) if "fault/" in key else None
            if found is None or found.group(1) in self.seen or found.group(1) not in CATALOG:
                continue
            if _number(value) != 1.0:
                continue  # (an empty cell: a row logged before it fired)
            code = found.group(1)
            self.seen.add(code)
            where = f"step {step}" if step is not None else "this record"
            out.append(LogEvent(
                FLAG, self.family, step=step, code=code,
                summary=f"{BY_THE_RUN}: its metrics hold {key} = 1 from {where} (the first "
                        "record with it: it fired at that step or in the logging interval "
                        "before it)"))
        return out


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None
