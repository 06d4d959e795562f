"""AMP004: the dynamic scale fell below 1 (warning) or to exactly 0.0 (error)."""

from __future__ import annotations

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import SCALE_BELOW, Observation
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity


class ScaleUnderflowDetector(Detector):
    """Fires when the scale crosses below ``underflow_scale``, and again when it reaches 0.

    A static scale below ``underflow_scale`` is reported once: small fp16 gradients flush to
    zero under it for the whole run.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> d, run = ScaleUnderflowDetector(), RunState()
        >>> [f.severity.value for s, x in enumerate([2.0, 0.5, 0.25, 0.0])
        ...  if (f := d.observe(Observation(s, scale_after=x), run))]
        ['warning', 'error']
    """

    code = "AMP004"
    _state = ("level",)

    def reset(self) -> None:
        self.level = 0  # 0 healthy, 1 below the threshold, 2 at zero

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        scale = obs.scale
        if scale is None:
            return None
        if self.setup.scaler == "static" and (self.level or scale >= self.t.underflow_scale):
            return None  # a static scale below 1 is said once: it never moves
        if scale >= self.t.underflow_scale:
            self.level = 0
            return None
        level = 2 if scale == 0.0 else 1
        if level <= self.level:
            return None
        self.level = level
        below = obs.extra.get(SCALE_BELOW)
        what = (
            "exactly 0.0: every gradient is zero"
            if level == 2
            else f"below {below:g} (printed as 0 at that precision)"
            if below is not None
            else f"{scale} (< {self.t.underflow_scale})"
        )
        return Finding(
            self.code,
            obs.step,
            f"loss scale fell to {what} at step {obs.step}",
            evidence={
                "scale": scale,
                "initial_scale": run.initial_scale,
                "skipped_total": run.skipped_total,
                "history": run.history(),
            },
            severity=Severity.ERROR if level == 2 else Severity.WARNING,
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )

    def quiet_horizon(self, run: RunState) -> int:
        scale = run.last_scale
        return UNBOUNDED if scale is not None and scale >= self.t.underflow_scale else 0

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        if self.setup.scaler != "static":
            self.level = 0
