"""Fingerprint metrics: ``amp/fault/<id>`` is 0 until that diagnosis and 1 from its step on.

One key per AMP catalog id the run watches (12 at most; ids in ``disable`` are left out),
present from the first logged step so that a dashboard rule can alert on the value turning 1
and on its absence after a fix (a series that only appears with the fault cannot say "still
healthy"). Ids rather than severities: a rule names the failure it guards against, and one
id may be a warning or an error (AMP004). Only warnings and errors set it; info is not a fault.
The value stays 1 for the rest of the run (and across a resume: it is read from the engine's
checkpointed history), so a rule sampled at any later log step still sees it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.core.severity import Severity

FAULT_PREFIX = "amp/fault/"
# Live runs watch the AMP ids; SYS ids (OOM, collective timeout) are recognised in logs only.
WATCHED_IDS = tuple(code for code in CATALOG if code.startswith("AMP"))


def fingerprint_metrics(worst: Mapping[str, int], disabled: Iterable[str] = ()) -> dict[str, float]:
    """``amp/fault/<id>`` for each watched id: 1.0 once reported as a warning or error.

    Args:
        worst: Id -> highest severity rank reported so far (the Monitor's ``worst``).
        disabled: Ids switched off (no key for them).

    Example:
        >>> m = fingerprint_metrics({"AMP006": 2, "AMP010": 0}, disabled=["AMP008"])
        >>> m["amp/fault/AMP006"], m["amp/fault/AMP010"], "amp/fault/AMP008" in m, len(m)
        (1.0, 0.0, False, 11)
    """
    off = set(disabled)
    return {
        FAULT_PREFIX + code: 1.0 if worst.get(code, -1) >= Severity.WARNING.rank else 0.0
        for code in WATCHED_IDS
        if code not in off
    }
