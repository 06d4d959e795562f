"""AMP007: the loss is exactly 0.0 for many consecutive steps."""

from __future__ import annotations

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState


class LossZeroDetector(Detector):
    """Fires after ``zero_loss_steps`` consecutive losses of exactly 0.0.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> from denpex_callbacks.core.thresholds import Thresholds
        >>> d, run = LossZeroDetector(Thresholds(zero_loss_steps=3)), RunState()
        >>> [s for s in range(6) if d.observe(Observation(s, loss=0.0 if s else 1.0), run)]
        [3]
    """

    code = "AMP007"
    _state = ("zero_run", "zero_start", "firing")

    def reset(self) -> None:
        self.zero_run = 0
        self.zero_start: int | None = None
        self.firing = False

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        if obs.loss is None:
            return None
        if obs.loss != 0.0:
            self.zero_run = 0
            self.zero_start = None
            self.firing = False
            return None
        if self.zero_run == 0:
            self.zero_start = obs.step
        self.zero_run += 1
        if self.firing or self.zero_run < self.t.zero_loss_steps:
            return None
        self.firing = True
        return Finding(
            self.code,
            self.zero_start,
            f"loss has been exactly 0.0 for {self.zero_run} consecutive steps "
            f"since step {self.zero_start}",
            evidence={
                "zero_steps": self.zero_run,
                "scale": obs.scale,
                "skipped_total": run.skipped_total,
                "skip_streak": run.skip_streak,
            },
        )

    def quiet_horizon(self, run: RunState) -> int:
        return UNBOUNDED  # a quiet step's loss is not 0

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        self.zero_run = 0
        self.zero_start = None
        self.firing = False
