"""Fingerprint metrics: ``amp/fault/<id>`` is 0 until that diagnosis and 1 from its step on.

One key per id that can end or ruin a run (those the catalog rates ``error``, and AMP004,
which becomes one when the scale reaches 0): six keys, the ids that page by default. They are
present from the first logged step so that a dashboard rule can alert on the value turning 1
and on its absence (a series that only appears with the fault cannot tell "healthy" from "not
logging"). Warnings get no key: their own signals are already metrics (``amp/skip_rate`` for
AMP008, ``amp/loss_scale`` for AMP005, the loss for AMP007), and HF prints every logged key
in its console line, so each key has a cost. Only a warning or an error sets a key; the value
stays 1 for the rest of the run (also across a resume: it is read from the engine's
checkpointed history), so a rule sampled at any later step still sees it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from denpex_callbacks.core.severity import Severity

FAULT_PREFIX = "amp/fault/"
FINGERPRINT_IDS = ("AMP001", "AMP002", "AMP003", "AMP004", "AMP006", "AMP012")


def fingerprint_metrics(worst: Mapping[str, int], disabled: Iterable[str] = ()) -> dict[str, float]:
    """``amp/fault/<id>`` for each fingerprinted id: 1.0 once reported as a warning or error.

    Args:
        worst: Id -> highest severity rank reported so far (the Monitor's ``worst``).
        disabled: Ids switched off (no key for them).

    Example:
        >>> m = fingerprint_metrics({"AMP006": 2, "AMP004": 0}, disabled=["AMP012"])
        >>> m["amp/fault/AMP006"], m["amp/fault/AMP004"], "amp/fault/AMP012" in m, len(m)
        (1.0, 0.0, False, 5)
    """
    off = set(disabled)
    return {
        FAULT_PREFIX + code: 1.0 if worst.get(code, -1) >= Severity.WARNING.rank else 0.0
        for code in FINGERPRINT_IDS
        if code not in off
    }
