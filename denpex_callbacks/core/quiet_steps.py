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

from denpex_callbacks.core.detectors import Detector
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState

__all__ = ["QuietSteps"]


class QuietSteps:
    """The quiet steps taken since the detectors last looked, and how many more may come.

    Example:
        >>> from denpex_callbacks.core.detectors import default_detectors
        >>> run, detectors, quiet = RunState(), default_detectors(), QuietSteps()
        >>> for step in range(12):
        ...     obs = Observation(step, scale_before=8.0, scale_after=8.0, loss=1.0)
        ...     run.update(obs)
        ...     _ = [d.observe(obs, run) for d in detectors]
        >>> quiet.rearm(detectors, run, tracker=None)
        >>> quiet.take(Observation(12, scale_before=8.0, scale_after=8.0, loss=0.9), run)
        True
        >>> quiet.take(Observation(13, scale_before=8.0, scale_after=4.0, loss=0.9), run)
        False
        >>> quiet.pending, run.last_step
        (1, 12)
        >>> quiet.flush(detectors, run)
        >>> quiet.pending, detectors[0].finite_run
        (0, 13)
    """

    __slots__ = ("last", "left", "pending", "tracker")

    def __init__(self) -> None:
        self.pending = 0  # quiet steps the detectors have not seen yet
        self.last: Observation | None = None  # the last of them
        self.left = 0  # quiet steps that may still be taken before the detectors look
        self.tracker: int | None = None  # the growth tracker of the last step seen

    def take(self, obs: Observation, run: RunState) -> bool:
        """Take ``obs`` as a quiet step (True), or leave it to be judged (False).

        Quiet: the next step, applied (``skipped`` False, or not given and the scale did not
        fall), at the run's scale before and after, a finite non-zero loss, a growth tracker
        that moved (or none), no extra fields; and within the horizon.
        """
        if self.left <= 0:
            return False
        loss, scale = obs.loss, obs.scale_after
        if (
            loss is None or loss == 0.0 or loss - loss != 0.0  # inf - inf and NaN are NaN
            or scale is None or scale != run.last_scale or obs.extra
            or obs.step != run.last_step + 1  # type: ignore[operator]
        ):
            return False
        before, skipped = obs.scale_before, obs.skipped
        if skipped is None:
            if before != scale:  # unknown without both scales; a fall is a skip
                return False
        elif skipped or (before is not None and before != scale):
            return False
        tracker = obs.growth_tracker
        if tracker is not None and tracker == self.tracker:
            return False  # a frozen tracker is AMP002's to count
        self.tracker = tracker
        self.left -= 1
        self.pending += 1
        self.last = obs
        run.quiet_step(obs.step, loss, obs.grad_norm)
        return True

    def flush(self, detectors: Sequence[Detector], run: RunState) -> None:
        """Let the detectors take the pending quiet steps (they fire on none of them)."""
        steps, last = self.pending, self.last
        if not steps or last is None:
            return
        self.pending, self.last = 0, None
        for detector in detectors:
            detector.absorb_quiet(steps, run, last)

    def rearm(self, detectors: Sequence[Detector], run: RunState, *,
              tracker: int | None) -> None:
        """After a step was judged one by one: how many quiet steps may follow it."""
        self.tracker = tracker
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
