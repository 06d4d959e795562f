"""AMP006: the loss itself is NaN or inf."""

from __future__ import annotations

import math

from denpex_callbacks.core.detectors.base import Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState


class NonFiniteLossDetector(Detector):
    """Fires on the first non-finite loss; re-arms after a run of finite losses.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> d, run = NonFiniteLossDetector(), RunState()
        >>> [d.observe(Observation(step=i, loss=x), run) is not None
        ...  for i, x in enumerate([1.0, float("nan"), float("nan")])]
        [False, True, False]
    """

    code = "AMP006"
    _state = ("firing", "finite_run", "last_finite_loss", "nonfinite_count")

    def reset(self) -> None:
        self.firing = False
        self.finite_run = 0
        self.last_finite_loss: float | None = None
        self.nonfinite_count = 0

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        if obs.loss is None:
            return None
        if math.isfinite(obs.loss):
            self.finite_run += 1
            self.last_finite_loss = obs.loss
            if self.firing and self.finite_run >= self.t.nonfinite_clear_steps:
                self.firing = False
            return None
        self.finite_run = 0
        self.nonfinite_count += 1
        if self.firing:
            return None
        self.firing = True
        return Finding(
            self.code,
            obs.step,
            f"loss is {obs.loss} at step {obs.step} (last finite loss: {self.last_finite_loss})",
            evidence={
                "loss": obs.loss,
                "last_finite_loss": self.last_finite_loss,
                "scale": obs.scale,
                "grad_norm": obs.grad_norm,
                "lr": obs.lr,
                "time": obs.time,
            },
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )
