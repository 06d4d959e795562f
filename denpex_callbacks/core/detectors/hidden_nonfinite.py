"""AMP009: a non-finite loss happened while the framework's logging filter hides it."""

from __future__ import annotations

import math

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity


class HiddenNonFiniteDetector(Detector):
    """Warns once when a NaN/inf loss occurs in a run whose logs filter NaN/inf out.

    The filter being on is only info at start (it is HF's default); it matters the moment a
    non-finite loss happens, because the user's logs will not show it.
    """

    code = "AMP009"
    _state = ("fired",)

    def reset(self) -> None:
        self.fired = False

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        if self.fired or not self.setup.nan_inf_filter or obs.loss is None:
            return None
        if math.isfinite(obs.loss):
            return None
        self.fired = True
        return Finding(
            self.code,
            obs.step,
            f"loss is {obs.loss} at step {obs.step}, but logging_nan_inf_filter=True keeps it "
            "out of the logged loss",
            evidence={"loss": obs.loss, "logging_nan_inf_filter": True},
            severity=Severity.WARNING,
        )

    def quiet_horizon(self, run: RunState) -> int:
        return UNBOUNDED  # a finite loss is nothing to it

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        return None
