"""Where a row's step came from (its basis), decided where the step is made, and said with
each diagnosis that rests on it.

A step that a line printed is a fact; a step made from an epoch and a batch, from a sample
count, or from counting rows is an inference a user should not read as a printed counter.
The readers and the assembler name the basis as they decide a row's step; the doctor looks it
up once per finding (:meth:`BasisTrail.at`), never per line afterwards.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field, replace

from denpex_callbacks.core.diagnosis import STEP_BASIS, STEP_NOTE, Diagnosis
from denpex_callbacks.logs.denpex_lines import BY_THE_RUN

# The counter the line printed (or a step line just above its record).
PRINTED = "printed"
# An epoch times the length of an epoch the excerpt showed, plus the batch within it (a
# counter that starts over each epoch, counted across epochs).
EPOCH_LENGTH = "epoch_length"
# The run's samples: the epochs before times the samples an epoch holds, plus the count within
# the epoch (the PyTorch MNIST example's ``Train Epoch: 3 [19200/60000 (32%)]``: no batch size
# printed, so no batch step is knowable).
SAMPLES = "samples"
# The row's epoch: one row an epoch, the steps it stands for unknown.
EPOCH = "epoch"
# The row's place in the log times the logging interval the log printed (HF Trainer's
# ``logging_steps``).
INTERVAL = "interval"
# The row's place in the log: the log prints no step.
ROWS = "rows"
# No row numbered the finding: the log's lines counted (overflow lines alone), or no step.
NONE = "none"

# What the doctor says after a step that is not a printed counter (text and JSON).
_WORDS = {
    EPOCH_LENGTH: "counted across epochs: the epochs before it times the batches an epoch "
                  "showed, plus the batch",
    SAMPLES: "in samples, not steps: the epochs before it times the samples an epoch holds, "
             "plus the count; the log prints no batch size",
    EPOCH: "the row's epoch: one row an epoch, the log prints no step",
    INTERVAL: "counted from rows times the logging interval the log printed; the rows print "
              "no step",
    ROWS: "counted from rows; the log prints no step",
    NONE: "counted from the log's lines; the log prints no step",
}


def words(basis: str | None) -> str | None:
    """What to say after a step of ``basis``; None for a printed counter (nothing to say).

    Example:
        >>> words(ROWS), words(PRINTED)
        ('counted from rows; the log prints no step', None)
    """
    return _WORDS.get(basis) if basis is not None else None


def across(step: int | None, count: int) -> str:
    """The basis of ``step`` made from a printed ``count``: the count itself is printed, any
    other step was counted across epochs (or passes) from it.

    Example:
        >>> across(412, 12), across(12, 12)
        ('epoch_length', 'printed')
    """
    return PRINTED if step == count else EPOCH_LENGTH


@dataclass
class BasisTrail:
    """The basis of the rows' steps, kept where it changes (cheap: one comparison a row).

    A log numbers its rows one way almost always; a trail of changes answers the basis of a
    finding's step once per finding. Steps that go back (a run begun again) are looked up in
    the stretch of the log where the basis last changed at or below them.

    Example:
        >>> trail = BasisTrail()
        >>> for step, basis in [(1, PRINTED), (2, PRINTED), (3, ROWS), (4, ROWS)]:
        ...     trail.note(step, basis)
        >>> trail.at(2), trail.at(4), trail.at(None), sorted(trail.bases())
        ('printed', 'rows', 'none', ['printed', 'rows'])
    """

    _steps: list[int] = field(default_factory=list)
    _bases: list[str] = field(default_factory=list)

    def note(self, step: int, basis: str) -> None:
        """A row of ``step`` was numbered on ``basis``."""
        if self._bases and self._bases[-1] == basis:
            return  # (the common case: the basis did not change)
        if self._steps and step <= self._steps[-1]:
            # a step back (a run begun again): the new basis holds from there on
            while self._steps and self._steps[-1] >= step:
                self._steps.pop()
                self._bases.pop()
            if self._bases and self._bases[-1] == basis:
                return
        self._steps.append(step)
        self._bases.append(basis)

    def at(self, step: int | None) -> str:
        """The basis of ``step`` (``NONE`` where no row numbered it)."""
        if step is None or not self._bases:
            return NONE
        index = bisect_right(self._steps, step) - 1
        # (a step before the first row's: a message above the rows, numbered by the first)
        return self._bases[max(index, 0)]

    def bases(self) -> set[str]:
        """Every basis the rows' steps had."""
        return set(self._bases)


def based(diagnosis: Diagnosis, trail: BasisTrail) -> Diagnosis:
    """``diagnosis`` with the basis of its step as evidence (``step_basis``) and, where the
    step is no printed counter, the words that say so (``step_note``). A diagnosis read back
    from denpex's own line has the step that line printed.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> trail = BasisTrail()
        >>> trail.note(6, ROWS)
        >>> d = based(Diagnosis.from_finding(Finding("AMP006", 6, "loss is nan")), trail)
        >>> d.evidence["step_basis"], d.where()
        ('rows', 'step 6 (counted from rows; the log prints no step), rank 0')
    """
    basis = PRINTED if diagnosis.summary.startswith(BY_THE_RUN) else trail.at(diagnosis.step)
    evidence = {**diagnosis.evidence, STEP_BASIS: basis}
    if (said := words(basis)) is not None and diagnosis.step is not None:
        evidence[STEP_NOTE] = said
    return replace(diagnosis, evidence=evidence)
