"""Quiet steps: the engine's fast path, with the same findings at the same steps.

Most steps of a healthy run tell the detectors nothing new: the update was applied, the scale
did not change, the loss is finite and not zero, the growth tracker moved on. On such a
*quiet* step every detector only counts (clean steps at this scale, finite losses in a row) or
slides a window, and none of them can fire, except where a count reaches its limit
(AMP005's clean steps without growth) or a window's rate is already high (AMP008).

:class:`QuietSteps` takes a quiet step in a few comparisons: the :class:`RunState` is updated at
once (it is what adapters, causes and metrics read), the detectors only later, all the quiet
steps together, through :meth:`Detector.absorb_quiet`, when a step that is not quiet arrives,
before anything else reads them, and never past the *horizon*: the fewest quiet steps after
which any detector could fire (:meth:`Detector.quiet_horizon`), so the step that reaches a
limit is judged one by one. No finding moves to another step; a detector that does not say
how to absorb quiet steps (horizon 0) has every step judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from denpex_callbacks.core.detectors.base import Detector
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState

__all__ = ["QuietSteps"]

NEVER = 1 << 62  # a sampling period no step number reaches


class QuietSteps:
    """The quiet steps taken since the detectors last looked, and how many more may come.

    Example:
        >>> from denpex_callbacks.core.detectors import default_detectors
        >>> run, detectors = RunState(), default_detectors()
        >>> quiet = QuietSteps(run)
        >>> for step in range(12):
        ...     obs = Observation(step, scale_before=8.0, scale_after=8.0, loss=1.0)
        ...     run.update(obs)
        ...     _ = [d.observe(obs, run) for d in detectors]
        >>> quiet.rearm(detectors, tracker=None)
        >>> quiet.take(Observation(12, scale_before=8.0, scale_after=8.0, loss=0.9))
        True
        >>> quiet.take_values(13, 0.9, 8.0, 4.0, None, None)  # the same, from plain numbers
        False
        >>> quiet.pending, run.last_step
        (1, 12)
        >>> quiet.flush(detectors)
        >>> quiet.pending, detectors[0].finite_run
        (0, 13)
    """

    __slots__ = ("fresh", "last", "left", "pending", "rank", "run", "sample_every", "tracker",
                 "world_size")

    def __init__(self, run: RunState, rank: int = 0, world_size: int = 1) -> None:
        self.run = run  # the run state quiet steps are folded into
        self.rank, self.world_size = rank, world_size  # of the observations it stands for
        # A step the report samples (step % sample_every == 0) is judged in full, to be
        # recorded; with no report, none is.
        self.sample_every = NEVER
        self.fresh = False  # the last step taken was a quiet one (no Observation made yet)
        self.pending = 0  # quiet steps the detectors have not seen yet
        # The last of them: (step, loss, scale_before, scale_after, skipped, tracker,
        # grad_norm); an Observation is built from it only when one is asked for.
        self.last: tuple[Any, ...] | Observation | None = None
        self.left = 0  # quiet steps that may still be taken before the detectors look
        self.tracker: int | None = None  # the growth tracker of the last step seen

    def take(self, obs: Observation) -> bool:
        """Take ``obs`` as a quiet step (True), or leave it to be judged (False).

        Quiet: the next step, applied (``skipped`` False, or not given and the scale did not
        fall), at the run's scale before and after, a finite non-zero loss, a growth tracker
        that moved (or none), no extra fields; and within the horizon. A step the report
        samples may be taken: the caller records it (:meth:`Monitor.observe` does).
        """
        return not obs.extra and self.take_values(
            obs.step, obs.loss, obs.scale_before, obs.scale_after, obs.skipped,
            obs.growth_tracker, obs.grad_norm, sampled=True, source=obs)

    def take_values(
        self, step: int, loss: float | None, scale_before: float | None,
        scale_after: float | None, skipped: bool | None, tracker: int | None,
        grad_norm: float | None = None, sampled: bool = False, source: Observation | None = None,
    ) -> bool:
        """:meth:`take` on an optimizer step's plain numbers, without an Observation: the
        adapters' hot path (an Observation is built only for a step that is judged, or when
        something asks for the last one). Folds the step into :attr:`run`: what
        :meth:`RunState.update` does with a clean step at the run's unchanged scale (no
        reset, no streak, no episode; after :meth:`RunState.quiet_ready`), written here inline
        (a frame costs a microsecond on the hot path, from cold caches).

        Also False on a step the report samples (``step % sample_every == 0``): it is
        recorded from its Observation. ``sampled``: the caller has the Observation and records
        it itself (:meth:`Monitor.observe`); ``source``: that Observation (kept as the last
        one instead of its numbers).

        Example (the run state a quiet step leaves is the one a full update leaves):
            >>> from denpex_callbacks.core.run_state import EARLY_STEPS
            >>> def warmed():
            ...     run = RunState()
            ...     for step in range(EARLY_STEPS):
            ...         run.update(Observation(step, scale_before=8.0, scale_after=8.0, loss=1.0))
            ...     return run
            >>> quiet, full = QuietSteps(warmed()), warmed()
            >>> quiet.left = 1
            >>> quiet.take_values(EARLY_STEPS, 0.5, 8.0, 8.0, False, None)
            True
            >>> full.update(Observation(EARLY_STEPS, scale_before=8.0, scale_after=8.0, loss=0.5))
            >>> quiet.run == full
            True
        """
        if self.left <= 0:
            return False
        run = self.run
        if (
            loss is None or loss == 0.0 or loss - loss != 0.0  # inf - inf and NaN are NaN
            or scale_after is None or scale_after != run.last_scale
            or step != run.last_step + 1  # type: ignore[operator]
            or (step % self.sample_every == 0 and not sampled)
        ):
            return False
        if skipped is None:
            # Unknown without both scales; a fall is a skip. (At 0 or inf a skip would leave
            # the scale as it was, but there RunState.quiet_ready() gave no horizon: left = 0.)
            if scale_before != scale_after:
                return False
        elif skipped or (scale_before is not None and scale_before != scale_after):
            return False
        if tracker is not None and tracker == self.tracker:
            return False  # a frozen tracker is AMP002's to count
        self.tracker = tracker
        self.left -= 1
        self.pending += 1
        self.fresh = True
        self.last = source if source is not None else (
            step, loss, scale_before, scale_after, skipped, tracker, grad_norm)
        run.steps_seen += 1
        run.clean_steps_seen += 1
        run.last_step = step
        run.recent.append((step, run.last_scale, False, loss))
        run.trail.append((step, loss, grad_norm, None))
        return True

    def last_observation(self) -> Observation | None:
        """The last quiet step taken, as an Observation (None: none taken yet)."""
        last = self.last
        if last is None or isinstance(last, Observation):
            return last
        step, loss, before, after, skipped, tracker, grad_norm = last
        return Observation(step, self.rank, self.world_size, scale_before=before, scale_after=after,
                           skipped=skipped, loss=loss, grad_norm=grad_norm,
                           growth_tracker=tracker)

    def flush(self, detectors: Sequence[Detector]) -> None:
        """Let the detectors take the pending quiet steps (they fire on none of them)."""
        if not self.pending:
            return
        steps, last = self.pending, self.last_observation()
        if last is None:
            return
        self.pending = 0  # (``last`` stays: it may still be asked for)
        for detector in detectors:
            detector.absorb_quiet(steps, self.run, last)

    def rearm(self, detectors: Sequence[Detector], *, tracker: int | None) -> None:
        """After a step was judged one by one: how many quiet steps may follow it."""
        self.tracker = tracker
        run = self.run
        self.left = _horizon(detectors, run) if run.quiet_ready() else 0

    def stop(self) -> None:
        """Take no quiet step until the next :meth:`rearm` (history replaced, a log gap)."""
        self.left = 0


def _horizon(detectors: Sequence[Detector], run: RunState) -> int:
    """The fewest quiet steps after which any detector could fire (0 without detectors).

    The first detector that answers 0 ends the search: on an eventful stretch (a high skip
    rate) that is most steps, and asking the others would be work for nothing.
    """
    fewest: int | None = None
    for detector in detectors:
        horizon = detector.quiet_horizon(run)
        if horizon <= 0:
            return 0
        if fewest is None or horizon < fewest:
            fewest = horizon
    return fewest or 0
