"""AMP006: the loss itself is NaN or inf."""

from __future__ import annotations

import math

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity


class NonFiniteLossDetector(Detector):
    """Fires on the first non-finite loss of an episode; re-arms after a run of finite losses.

    How bad it is depends on whether the fault persists:

    - a non-finite loss on a step the loss scaler skipped is absorbed (nothing was applied):
      a **warning**, and a one-off stays a warning (a bad batch, a transient spike);
    - it becomes an **error**, reported again with the episode's first step, when the loss is
      non-finite ``nonfinite_persist_losses`` times within the episode (the episode lasts until
      ``nonfinite_clear_steps`` finite losses in a row), or on the first step whose update was
      applied anyway (no scaler, or the step was not skipped: the weights take the NaN);
    - with no way to tell whether the step was skipped it is an error at once.

    The policy (``on_fault``) acts on errors only by default, so one absorbed NaN never ends
    a run.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> d, run = NonFiniteLossDetector(), RunState()
        >>> [d.observe(Observation(step=i, loss=x), run) is not None
        ...  for i, x in enumerate([1.0, float("nan"), float("nan")])]
        [False, True, False]
        >>> from denpex_callbacks.core.thresholds import Thresholds
        >>> d, nan = NonFiniteLossDetector(Thresholds(nonfinite_persist_losses=2)), float("nan")
        >>> absorbed = Observation(5, loss=nan, scale_before=8.0, scale_after=4.0)
        >>> d.observe(absorbed, run).severity.value
        'warning'
        >>> again = Observation(6, loss=nan, scale_before=4.0, scale_after=2.0)
        >>> (f := d.observe(again, run)).severity.value, f.step
        ('error', 5)
    """

    code = "AMP006"
    _state = ("firing", "finite_run", "last_finite_loss", "nonfinite_count", "episode_start",
              "episode_losses", "escalated")

    def reset(self) -> None:
        self.firing = False
        self.finite_run = 0
        self.last_finite_loss: float | None = None
        self.nonfinite_count = 0
        self.episode_start: int | None = None
        self.episode_losses = 0  # non-finite losses in the current episode
        self.escalated = False

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
        # The scaler skipped it (nothing was applied) and one-offs may be tolerated.
        absorbed = obs.was_skipped is True and self.t.nonfinite_persist_losses > 1
        if self.firing:
            self.episode_losses += 1
            repeats = self.episode_losses < self.t.nonfinite_persist_losses
            if self.escalated or (absorbed and repeats):
                return None
            self.escalated = True
            return self._finding(obs, Severity.ERROR, persistent=True)
        self.firing, self.escalated = True, not absorbed
        self.episode_start, self.episode_losses = obs.step, 1
        return self._finding(obs, Severity.WARNING if absorbed else Severity.ERROR,
                             persistent=False)

    def quiet_horizon(self, run: RunState) -> int:
        return UNBOUNDED  # a quiet step's loss is finite

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        self.finite_run += steps
        self.last_finite_loss = last.loss
        if self.firing and self.finite_run >= self.t.nonfinite_clear_steps:
            self.firing = False

    def _finding(self, obs: Observation, severity: Severity, *, persistent: bool) -> Finding:
        start = self.episode_start if self.episode_start is not None else obs.step
        # An excerpt may show no finite loss before the first NaN: then none is quoted.
        before = ("no finite loss seen before it" if self.last_finite_loss is None
                  else f"last finite loss: {self.last_finite_loss}")
        if persistent:
            summary = (f"loss is {obs.loss} again at step {obs.step}: {self.episode_losses} "
                       f"non-finite losses since step {start} ({before}); the fault persists")
        elif severity is Severity.WARNING:
            summary = (f"loss is {obs.loss} at step {obs.step} ({before}); the loss scaler "
                       "skipped the step")
        else:
            summary = f"loss is {obs.loss} at step {obs.step} ({before})"
        return Finding(
            self.code,
            start,
            summary,
            evidence={
                "loss": obs.loss,
                "last_finite_loss": self.last_finite_loss,
                "scale": obs.scale,
                "grad_norm": obs.grad_norm,
                "lr": obs.lr,
                "time": obs.time,
                "skipped": obs.was_skipped,
                "nonfinite_in_episode": self.episode_losses,
                "persistent": severity is Severity.ERROR,
            },
            severity=severity,
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )
