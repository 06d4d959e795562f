"""An overflow that may come from another rank: one rule for every adapter and the doctor.

Under DDP, FSDP or DeepSpeed a step's gradients are all-reduced over the ranks, so one rank's
NaN batch puts NaN into every rank's gradients: every rank's scaler skips the step and every
rank's loss scale falls (AMP003), though only one rank's loss went non-finite. A rank whose
own values are finite (its loss, its re-run of its own batch, what the locator's hooks saw in
an armed step: all before the all-reduce) cannot tell where the overflow came from, and must
not ask the other ranks: nothing one rank does alone may enter a collective (the others would
wait for it). So it says that the overflow may come from another rank and sends the user to
the ranks' verdicts (:func:`may_come_from`, :func:`other_rank_fix`); the log doctor, reading
every rank's report, links each such rank's collapse to the rank that began it
(:func:`linked_across_ranks`). Framework-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.ordering import counts_as_fault

__all__ = ["OTHER_RANK", "linked_across_ranks", "may_be_another_ranks", "may_come_from",
           "other_rank_fix", "other_ranks_bad_batches"]

OTHER_RANK = "other-rank"  # the armed step's origin verdict: this rank's own values finite
_REPRODUCED = "reproduced"  # (rerun_verdict.REPRODUCED; that module imports this one)
_INPUT_DATA = "input-data"  # the locator's verdict: the rank's own batch held the NaN
# The armed step's origin verdicts that locate nothing on this rank (causes.OriginEvidence).
_NOT_LOCATED = ("not-reproduced", "not-observed", OTHER_RANK)


def may_come_from(world_size: int) -> str:
    """The clause a rank's finite own values end with on a run of ``world_size`` ranks.

    Example:
        >>> may_come_from(2)
        "the step's gradients are all-reduced over 2 ranks: the overflow may come from another rank (see their verdicts)"
    """  # noqa: E501 (a doctest's output is one line)
    return (f"the step's gradients are all-reduced over {world_size} ranks: the overflow may "
            "come from another rank (see their verdicts)")


def other_rank_fix(world_size: int) -> str:
    """The fix of a collapse whose rank computed finite values of its own: the rank that
    began it (not this rank's learning rate or precision, which may be healthy).

    Example:
        >>> "denpex diagnose" in other_rank_fix(4)
        True
    """
    others = "the other rank" if world_size == 2 else f"the other {world_size - 1} ranks"
    return (f"Look at {others} first: run denpex diagnose on the report folder (it names "
            "the initiating rank, whose loss went non-finite first, and lists its fault "
            "first) and fix that rank's fault (its own diagnosis and re-run verdict say what "
            "and where: a bad batch, a diverging module). Only if no rank's loss went "
            "non-finite and no rank's re-run reproduced the overflow is it "
            "every rank's own: then the catalog's fix applies (denpex explain AMP003).")


def may_be_another_ranks(diagnosis: Diagnosis) -> bool:
    """Whether ``diagnosis``'s rank found its own values finite on a run of several ranks
    (its re-run's verdict, or the armed step's origin): the overflow may be another rank's.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> may_be_another_ranks(Diagnosis.from_finding(Finding(
        ...     "AMP003", 12, "skips", evidence={"origin": {"verdict": OTHER_RANK}})))
        True
    """
    if _own_overflow(diagnosis):  # (the locator found it here: a forward-only re-run's
        return False              # finite loss does not make it another rank's)
    detail = diagnosis.evidence.get("rerun_detail")
    origin = diagnosis.evidence.get("origin")
    return bool(isinstance(detail, dict) and detail.get("reduced_over")) or (
        isinstance(origin, dict) and origin.get("verdict") == OTHER_RANK)


def _own_overflow(diagnosis: Diagnosis) -> bool:
    """Whether this rank's own values overflowed: its re-run reproduced the fault, or the
    locator's armed step found a non-finite value of this rank's (a module's backward, an
    activation, its inputs), all seen before the all-reduce."""
    if diagnosis.evidence.get("rerun") == _REPRODUCED:
        return True
    origin = diagnosis.evidence.get("origin")
    return isinstance(origin, dict) and origin.get("verdict") not in (None, *_NOT_LOCATED)


def linked_across_ranks(diagnoses: Sequence[Diagnosis]) -> list[Diagnosis]:
    """Several ranks' diagnoses with each rank's collapse linked to another rank's root fault.

    A rank's AMP003 is a consequence (``caused_by``) of another rank's root fault that began
    at the same or an earlier step and puts non-finite values into the all-reduced gradients:
    a non-finite loss (AMP006), or a collapse whose re-run reproduced the overflow on that
    rank or whose locator found it there (a module's gradients overflowing in that rank's
    backward, its loss finite). Not when this rank's own re-run or locator found it (then the
    overflow is its own too), nor when the fault began later. Collapses that every rank shows
    with no such root stay roots (an overflow of every rank's own: a learning rate too high).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> nan = Diagnosis.from_finding(Finding("AMP006", 12, "loss nan"), rank=1)
        >>> skips = Diagnosis.from_finding(Finding("AMP003", 12, "6 skipped"), rank=0)
        >>> [(d.code, d.rank, d.caused_by) for d in linked_across_ranks([skips, nan])]
        [('AMP003', 0, 'AMP006'), ('AMP006', 1, None)]
    """
    roots = [d for d in diagnoses if _spreads(d)]
    if not roots:
        return list(diagnoses)
    return [_linked(d, roots) for d in diagnoses]


def _spreads(diagnosis: Diagnosis) -> bool:
    """A root fault that makes its rank's gradients non-finite (so every rank's, reduced)."""
    if diagnosis.caused_by is not None or diagnosis.step is None or not counts_as_fault(
            diagnosis):
        return False
    return diagnosis.code == "AMP006" or (diagnosis.code == "AMP003" and _own_overflow(diagnosis))


def _linked(diagnosis: Diagnosis, roots: Iterable[Diagnosis]) -> Diagnosis:
    if (diagnosis.code != "AMP003" or diagnosis.caused_by is not None or diagnosis.step is None
            or _own_overflow(diagnosis)):
        return diagnosis
    step = diagnosis.step
    earlier = [r for r in roots if r.rank != diagnosis.rank and (r.step or 0) <= step]
    if not earlier:
        return diagnosis
    root = min(earlier, key=lambda r: (r.step or 0, r.rank))
    return replace(diagnosis, caused_by=root.code,
                   evidence={**diagnosis.evidence, "caused_on_rank": root.rank})


def other_ranks_bad_batches(kept: Sequence[Diagnosis],
                            diagnoses: Iterable[Diagnosis]) -> list[Diagnosis]:
    """``kept`` (one diagnosis per id, merged over ranks) with each other rank's own bad batch
    beside it: a NaN loss (AMP006) that the locator placed in that rank's input data, at a
    step no kept NaN loss has, on a rank none has. Two ranks whose shards hold bad samples at
    different steps are two roots to fix; a NaN loss that came from weights another rank's
    NaN poisoned (located in the weights) stays merged, as does one at the same step. Such a
    rank's live monitor may have linked its NaN loss to its own earlier collapse (the other
    rank's, all-reduced): its input held the NaN, which no loss scale causes, so it is a root.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> def nan(step, rank):
        ...     return Diagnosis.from_finding(Finding("AMP006", step, "loss nan", evidence={
        ...         "origin": {"verdict": "input-data"}}), rank=rank)
        >>> [(d.step, d.rank) for d in other_ranks_bad_batches([nan(8, 0)],
        ...                                                     [nan(8, 0), nan(16, 1)])]
        [(8, 0), (16, 1)]
    """
    merged = list(kept)
    for diagnosis in diagnoses:
        if not _own_bad_batch(diagnosis) or any(d is diagnosis for d in merged):
            continue
        if all(d.rank != diagnosis.rank and d.step != diagnosis.step
               for d in merged if d.code == diagnosis.code):
            merged.append(replace(diagnosis, caused_by=None))
    return merged


def _own_bad_batch(diagnosis: Diagnosis) -> bool:
    origin = diagnosis.evidence.get("origin")
    return (diagnosis.code == "AMP006" and diagnosis.step is not None and isinstance(origin, dict)
            and origin.get("verdict") == _INPUT_DATA)
