"""Fingerprint metrics: ``amp/fault/<id>`` = 1 from the step that diagnosis fired on.

One key per id that can end or ruin a run (those the catalog rates ``error``, and AMP004,
which becomes one when the scale reaches 0): the ids that page by default. A key appears only
once its diagnosis fired (as a warning or an error), and stays 1 for the rest of the run (also
across a resume: it is read from the engine's checkpointed diagnoses), so a dashboard rule
sampled at any later step still sees it. A healthy run logs none of them: HF prints every
logged key in its console line and Lightning gives each one a column, so each key has a cost.
The sign that a run is logging at all ("healthy" rather than "not logging") is
``amp/diagnoses``, present on every row (0 on a healthy run): a rule alerts on it turning
positive, on a fault key appearing, or on ``amp/diagnoses`` going missing. Warnings get no key
of their own: their signals are already metrics (``amp/loss_scale`` for AMP005, the loss for
AMP007) and ``amp/diagnoses`` counts them.
"""

from __future__ import annotations

from collections.abc import Iterable

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.severity import Severity

FAULT_PREFIX = "amp/fault/"
FINGERPRINT_IDS = ("AMP001", "AMP002", "AMP003", "AMP004", "AMP006", "AMP012")


def fingerprint_metrics(faults: Iterable[Diagnosis]) -> dict[str, float]:
    """``amp/fault/<id>`` = 1.0 for each fingerprinted id among ``faults`` (warnings or worse;
    a disabled id is never diagnosed, so it never has a key).

    Args:
        faults: The faults so far (``Monitor.faults()``).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> nan = Diagnosis.from_finding(Finding("AMP006", 7, "loss is nan"))
        >>> zero = Diagnosis.from_finding(Finding("AMP007", 9, "loss is 0"))
        >>> fingerprint_metrics([nan, zero]), fingerprint_metrics([])
        ({'amp/fault/AMP006': 1.0}, {})
    """
    fired = {d.code for d in faults if d.severity.rank >= Severity.WARNING.rank}
    return {FAULT_PREFIX + code: 1.0 for code in FINGERPRINT_IDS if code in fired}
