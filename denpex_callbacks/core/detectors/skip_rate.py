"""AMP008: many steps skipped by overflow, without a collapse."""

from __future__ import annotations

from collections import deque
from typing import Any

from denpex_callbacks.core.detectors.base import Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState


class SkipRateDetector(Detector):
    """Fires when the share of skipped steps in a sliding window passes the threshold.

    Start-up back-off is not counted. The window holds the step numbers of its skips so the
    diagnosis can say where the high rate began.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> from denpex_callbacks.core.thresholds import Thresholds
        >>> d = SkipRateDetector(Thresholds(skip_rate_window=10, skip_rate_threshold=0.3))
        >>> run, hits = RunState(), []
        >>> for step in range(30):
        ...     obs = Observation(step, skipped=step % 3 == 1)
        ...     run.update(obs)
        ...     if (f := d.observe(obs, run)):
        ...         hits.append(step)
        >>> hits
        [9]
    """

    code = "AMP008"
    _state = ("window", "firing")

    def reset(self) -> None:
        self.window: deque[tuple[int, bool]] = deque(maxlen=self.t.skip_rate_window)
        self.firing = False
        self.skips_in_window = 0  # kept in step with the window: O(1) per step

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.skips_in_window = sum(1 for _step, was in self.window if was)

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        skipped = obs.was_skipped
        if skipped is None or run.in_startup:
            return None
        if len(self.window) == self.window.maxlen and self.window[0][1]:
            self.skips_in_window -= 1
        self.window.append((obs.step, skipped))
        self.skips_in_window += skipped
        if len(self.window) < self.t.skip_rate_window:
            return None
        rate = self.skips_in_window / len(self.window)
        if rate < self.t.skip_rate_threshold / 2:
            self.firing = False
        if self.firing or rate < self.t.skip_rate_threshold:
            return None
        if run.skip_streak >= self.t.collapse_skip_streak:
            return None  # a collapse in progress is AMP003, not a high skip rate
        self.firing = True
        skips = [step for step, was in self.window if was]
        return Finding(
            self.code,
            skips[0],
            f"{len(skips)} of the last {len(self.window)} steps were skipped by overflow "
            f"({rate:.0%})"
            + (f", the scale staying near {obs.scale:g}" if obs.scale is not None else ""),
            evidence={
                "skipped_in_window": len(skips),
                "window": len(self.window),
                "skip_rate": round(rate, 4),
                "scale": obs.scale,
                "skipped_total": run.skipped_total,
            },
        )

    def advance(self, steps: int, run: RunState) -> None:
        """Unseen applied steps enter the window as clean ones (at most a window's worth)."""
        kept = min(steps, self.t.skip_rate_window)
        last = run.last_step or 0
        for step in range(last - kept + 1, last + 1):
            if len(self.window) == self.window.maxlen and self.window[0][1]:
                self.skips_in_window -= 1
            self.window.append((step, False))
        if self.skips_in_window / max(len(self.window), 1) < self.t.skip_rate_threshold / 2:
            self.firing = False
