"""AMP003: consecutive skipped steps drive the dynamic scale toward its floor."""

from __future__ import annotations

from denpex_callbacks.core.detectors.base import Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState


class ScaleCollapseDetector(Detector):
    """Fires when overflow persists: a streak of skipped steps longer than a healthy backoff.

    Before the first clean step, the start-up back-off is allowed a longer streak. A streak at
    a scale that has never changed is a stuck scale (AMP005), not a collapse.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> d, run = ScaleCollapseDetector(), RunState()
        >>> scale, fired = 1024.0, []
        >>> for step in range(12):
        ...     skip = step >= 3
        ...     after = scale / 2 if skip else scale
        ...     obs = Observation(step, scale_before=scale, scale_after=after)
        ...     scale = obs.scale_after
        ...     run.update(obs)
        ...     if d.observe(obs, run):
        ...         fired.append(step)
        >>> fired
        [8]
    """

    code = "AMP003"
    _state = ("firing",)

    def reset(self) -> None:
        self.firing = False

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        if run.skip_streak == 0:
            self.firing = False
            return None
        if self.firing:
            return None
        if run.last_scale is not None and not run.scale_ever_changed:
            return None  # constant scale: AMP005's case
        limit = (
            self.t.startup_skip_allowance if run.in_startup else self.t.collapse_skip_streak
        )
        if run.skip_streak < limit:
            return None
        self.firing = True
        start = run.skip_streak_start
        phase = "before any clean step" if run.in_startup else "after training was stable"
        return Finding(
            self.code,
            start,
            f"{run.skip_streak} consecutive skipped steps from step {start} ({phase}); "
            f"loss scale {run.skip_streak_start_scale} -> {obs.scale}",
            evidence={
                "consecutive_skipped": run.skip_streak,
                "scale_at_start": run.skip_streak_start_scale,
                "scale_now": obs.scale,
                "skipped_total": run.skipped_total,
                "history": run.history(),
            },
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )
