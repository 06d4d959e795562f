"""Runs the log stopped on a non-finite loss and then began afresh: searches, not faults.

A learning-rate range test raises the learning rate until the loss diverges, on purpose:
keras_lr_finder (surmenok, ``keras_lr_finder/lr_finder.py``) stops ``model.fit`` on the first
NaN loss (``math.isnan(loss) or loss > best_loss * 4``), PyTorch-Ignite's ``FastaiLRFinder``
runs the user's trainer (its handlers print the losses) until the loss is ``diverge_th``
times the best, and a hyper-parameter search (Optuna's ``Trial 5 failed with value nan.``)
ends a trial whose objective went NaN. The log then shows a run that ended on a non-finite
loss, and a new run whose step counter started over from the beginning and trained with
finite losses to the end of the log: the setting found (or chosen) trains.

Such a NaN is about an attempt the log itself replaced, not about the run the user has: where
every non-finite loss of the log is in such an abandoned run, AMP006 is said at info (the
doctor's ``_abandoned``), with what it may be: a range test or a trial that diverged by
design, or a run restarted after its fault (which may meet it again: the finding stays in the
report, as no fault). A run resumed from a checkpoint after a NaN (the step counter back to
the checkpoint, late in the run that failed, not to its beginning), a run that went on after
its NaN, a new run with a NaN of its own, or a NaN that an error line reported (a ``flag``)
keep the fault.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# A new run "begins afresh" where its first step lies within this share of the last run's
# span from that run's first step: a fresh start (step 0 or 1, the first row printed), not a
# resume from a checkpoint taken late in the run that failed.
FRESH_SHARE = 0.25
# Finite losses the new run must show after the restart: training went on, not one row.
TRAINED_AFTER = 5


@dataclass
class AbandonedRuns:
    """Non-finite losses of the log, and those of them in runs abandoned by design."""

    first: int | None = None  # the current run's first step...
    last: int | None = None  # ...and its last
    nonfinite: int = 0  # the current run's non-finite losses
    finite_after: int = 0  # the current run's finite losses after its last non-finite one
    total: int = 0  # every non-finite loss of the log
    abandoned: int = 0  # ...of them in runs that ended on them and that began afresh after
    first_nonfinite: int | None = None  # the current run's first non-finite loss's step
    # The furthest step an abandoned run went non-finite at: the run after must train past it
    # (a job requeued after its NaN that has not reached that point yet has not shown the
    # setting trains).
    failed_at: int | None = None

    def loss(self, step: int | None, loss: float) -> None:
        """One training loss of the current run, at ``step``."""
        if step is not None:
            self.first = step if self.first is None else self.first
            self.last = step
        if math.isfinite(loss):
            self.finite_after += 1
        else:
            self.nonfinite += 1
            self.total += 1
            self.finite_after = 0
            if self.first_nonfinite is None:
                self.first_nonfinite = step

    def quiet(self, rows: int, last_step: int) -> None:
        """``rows`` repeated quiet rows (finite losses), the last at ``last_step``."""
        self.finite_after += rows
        self.last = last_step

    def restart(self, step: int | None, *, fresh: bool = False) -> None:
        """A new run began in the log at ``step`` (the assembler's ``RESTARTED``); ``fresh``:
        the log says it began from the start (a new Keras ``fit``: its ``Epoch 1/N``), where
        its first row may be its first epoch's end, past the last run's steps."""
        if self.nonfinite and not self.finite_after and (fresh or self._fresh(step)):
            self.abandoned += self.nonfinite  # the run ended on them and was begun again
            if self.first_nonfinite is not None:
                self.failed_at = max(self.failed_at or 0, self.first_nonfinite)
        self.first = self.last = self.first_nonfinite = None
        self.nonfinite = self.finite_after = 0

    def only_abandoned(self) -> bool:
        """Whether every non-finite loss of the log was in an abandoned run, and the run
        after the last of them trained on with finite losses."""
        return (self.total > 0 and self.abandoned == self.total
                and self.finite_after >= TRAINED_AFTER
                and (self.failed_at is None or (self.last or 0) > self.failed_at))

    def _fresh(self, step: int | None) -> bool:
        first, last = self.first, self.last
        if step is None or first is None or last is None:
            return False
        return step - first <= (last - first) * FRESH_SHARE
