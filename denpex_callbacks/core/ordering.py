"""Which diagnosis matters most: one order for the live Monitor and the log doctor.

Root causes before their consequences, errors before warnings, early before late; on a tie
the one found first. The live Monitor's primary (the run summary's "fix this first") is the
first fault in this order, and ``denpex diagnose`` lists its diagnoses in it, so a run
watched live and its log read afterwards name the same primary. A warning about the monitor's
own use (a misplaced call in a correct loop) is no fault of training: never the primary.
"""

from __future__ import annotations

from collections.abc import Iterable

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.severity import Severity


def counts_as_fault(diagnosis: Diagnosis) -> bool:
    """Whether ``diagnosis`` is about training, not a misplaced call of the monitor itself
    (evidence ``monitor_misuse``: the loop is correct): only those are primaries, causes of
    consequences, fault metrics and policy triggers.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> counts_as_fault(Diagnosis.from_finding(Finding(
        ...     "AMP002", 3, "monitor.step() before update()", evidence={"monitor_misuse": True})))
        False
    """
    return not diagnosis.evidence.get("monitor_misuse")


def importance(diagnosis: Diagnosis) -> tuple[bool, bool, int, int]:
    """The sort key: smaller is more important (a misplaced monitor call comes last).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> importance(Diagnosis.from_finding(Finding("AMP006", 9, "")))
        (False, False, -2, 9)
    """
    return (not counts_as_fault(diagnosis), diagnosis.caused_by is not None,
            -diagnosis.severity.rank, diagnosis.step if diagnosis.step is not None else 0)


def order(diagnoses: Iterable[Diagnosis]) -> list[Diagnosis]:
    """Most important first (a stable sort: ties keep the order they were found in).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> ds = [Diagnosis.from_finding(Finding(c, s, "")) for c, s in
        ...       [("AMP008", 1), ("AMP006", 9), ("AMP003", 4)]]
        >>> [d.code for d in order(ds)]
        ['AMP003', 'AMP006', 'AMP008']
    """
    return sorted(diagnoses, key=importance)


def before(diagnosis: Diagnosis, other: Diagnosis | None) -> bool:
    """Whether ``diagnosis``, found after ``other``, comes before it in :func:`order`."""
    return other is None or importance(diagnosis) < importance(other)


def primary(diagnoses: Iterable[Diagnosis]) -> Diagnosis | None:
    """The first warning or error in :func:`order` that :func:`counts_as_fault`: the one to
    fix first.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> ds = [Diagnosis.from_finding(Finding(c, s, "")) for c, s in
        ...       [("AMP008", 1), ("AMP006", 9)]]
        >>> primary(ds).code
        'AMP006'
    """
    faults = [d for d in diagnoses
              if d.severity.rank >= Severity.WARNING.rank and counts_as_fault(d)]
    return order(faults)[0] if faults else None
