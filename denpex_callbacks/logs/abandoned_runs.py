"""Runs the log stopped on a non-finite loss and then began afresh: searches, not faults.

A learning-rate range test raises the learning rate until the loss diverges, on purpose:
keras_lr_finder (surmenok, ``keras_lr_finder/lr_finder.py``) stops ``model.fit`` on the first
NaN loss (``math.isnan(loss) or loss > best_loss * 4``), PyTorch-Ignite's ``FastaiLRFinder``
runs the user's trainer (its handlers print the losses) until the loss is ``diverge_th``
times the best, and a hyper-parameter search (Optuna's ``Trial 5 failed with value nan.``)
ends a trial whose objective went NaN. The log then shows a run that ended on a non-finite
loss, and a new run whose step counter started over from the beginning and trained with
finite losses to the end of the log: the setting found (or chosen) trains.

A run counts as abandoned only where it stopped on its NaN: at most ``STOPPED_ROWS``
non-finite losses (a range test stops at its first), or a search's own message said it ended
the attempt (:func:`ended_by_search`: Optuna's ``Trial 1 failed ...``, a range test's
``Stopping early, the loss has diverged``). A run that trained on NaN to its end before the
next began (a fold of a k-fold loop, a seed of a shell loop over seeds) is a run the user
has, NaN: its fault stays.

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
import re
from dataclasses import dataclass

# A new run "begins afresh" where its first step lies within this share of the last run's
# span from that run's first step: a fresh start (step 0 or 1, the first row printed), not a
# resume from a checkpoint taken late in the run that failed.
FRESH_SHARE = 0.25
# Finite losses the new run must show after the restart: training went on, not one row.
TRAINED_AFTER = 5
# Non-finite losses a run may show and still have stopped on its NaN: a range test stops at
# the first loss past its threshold (keras_lr_finder at the first NaN, ignite's FastaiLRFinder
# at the first past ``diverge_th``). Two are a run that went on (a k-fold fold's two NaN
# epochs before EarlyStopping ended it: its model is kept).
STOPPED_ROWS = 1
# A search's or a range test's own word that it ended the attempt (Optuna's
# ``optuna/study/_tell.py`` and ``_optimize.py``: ``Trial {} failed with value {}.``,
# ``Trial {} failed because of the following error: ...``; PyTorch-Ignite's ``FastaiLRFinder``
# and torch-lr-finder's ``range_test``: ``Stopping early, the loss has diverged``; KerasTuner's
# ``Display.on_trial_end``, keras-team/keras-tuner ``keras_tuner/engine/tuner_utils.py``:
# ``Trial {n} Complete [{h:02d}h {m:02d}m {s:02d}s]``, printed whatever the trial's score, which
# the search ranks: a trial that trained on NaN to its end is one it dropped).
_ENDED = re.compile(r"\bTrial \d+ failed\b|\bTrial \d+ Complete \[\d+h \d\dm \d\ds\]"
                    r"|\bStopping early, the loss has diverged")


def ended_by_search(text: str) -> bool:
    """Whether a line is a search's or a range test's message that it ended an attempt.

    Example:
        >>> ended_by_search("[W 2026-01-01 10:02:05,123] Trial 1 failed with value nan.")
        True
        >>> ended_by_search("Trial 3 Complete [00h 01m 02s]")
        True
        >>> ended_by_search("Epoch 3 failed to improve: loss nan")
        False
    """
    return ("Trial " in text or "diverged" in text) and _ENDED.search(text) is not None


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
    ended: bool = False  # a search said it ended the current run (``ended_by_search``)
    # The line the run after the last abandoned one began at: a finding on a line before it
    # is about a run the log replaced.
    kept_from: int | None = None

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

    def search_ended(self) -> None:
        """A search's message said it ended the current run (see :func:`ended_by_search`)."""
        self.ended = True

    def restart(self, step: int | None, line: int | None = None, *,
                fresh: bool = False) -> None:
        """A new run began in the log at ``step``, on ``line`` (the assembler's
        ``RESTARTED``); ``fresh``: the log says it began from the start (a new Keras ``fit``:
        its ``Epoch 1/N``), where its first row may be its first epoch's end, past the last
        run's steps."""
        if (self.nonfinite and not self.finite_after and (fresh or self._fresh(step))
                and (self.nonfinite <= STOPPED_ROWS or self.ended)):
            self.abandoned += self.nonfinite  # the run ended on them and was begun again
            self.kept_from = line
            if self.first_nonfinite is not None:
                self.failed_at = max(self.failed_at or 0, self.first_nonfinite)
        self.first = self.last = self.first_nonfinite = None
        self.nonfinite = self.finite_after = 0
        self.ended = False

    def replaced(self, line: int | None) -> bool:
        """Whether a finding on ``line`` lies in a run the log replaced (before the run after
        the last abandoned one began)."""
        return line is not None and self.kept_from is not None and line < self.kept_from

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
