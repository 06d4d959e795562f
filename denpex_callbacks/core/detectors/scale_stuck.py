"""AMP005: the scale never changes although it should."""

from __future__ import annotations

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector, printed_steps
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import SPAN_UNKNOWN, Observation
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity


class ScaleStuckDetector(Detector):
    """Fires when the scale does not move where a dynamic scaler would move it.

    Two patterns: every step skipped at a scale that has never changed (a static scale that
    overflows, or update() not applied) and no growth for many growth intervals of clean
    steps (growth disabled). It also sees clean steps with a GradScaler growth tracker that
    never advances: update() is not called, which it reports as AMP002 (protocol misuse).

    A scale that never moved and never overflowed, from a scaler whose growth interval is not
    known (a log that prints only the scale: Megatron's ``--loss-scale 65536``), is what a
    static scale looks like when it works: a choice, not a fault, so "no growth" is said at
    info there. With a known growth interval (a live run reads it from its scaler), or once
    the scale has moved or a step overflowed (the scaler is dynamic), it stays a warning.

    Example:
        >>> from denpex_callbacks.core.run_state import RunState
        >>> d, run = ScaleStuckDetector(), RunState()
        >>> hits = []
        >>> for step in range(6):
        ...     obs = Observation(step, scale_before=128.0, scale_after=128.0, skipped=True)
        ...     run.update(obs)
        ...     if (f := d.observe(obs, run)):
        ...         hits.append((step, f.step))
        >>> hits
        [(3, 0)]
    """

    code = "AMP005"
    _state = ("firing", "frozen_tracker_steps", "last_tracker", "clean_at_scale", "clean_start",
              "scale_seen")

    def reset(self) -> None:
        self.firing = False
        self.frozen_tracker_steps = 0
        self.last_tracker: int | None = None
        self.clean_at_scale = 0
        self.clean_start: int | None = None
        # The last scale observed: a log row may print only the scale after its step (an HF
        # row's amp/loss_scale, a row after a gap), so a growth shows only as a new value.
        self.scale_seen: float | None = None

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        skipped = obs.was_skipped
        new_value = self._new_value(obs.scale)  # (always: it keeps the last scale seen)
        moved = new_value or (
            obs.scale_before is not None
            and obs.scale_after is not None
            and obs.scale_after != obs.scale_before
        )
        if moved:
            self.firing = False
            self.clean_at_scale = 0
            self.clean_start = None
        finding = self._every_step_skipped(obs, run) or self._tracker_frozen(obs, skipped, moved)
        finding = finding or self._no_growth(obs, run, skipped, moved)
        if finding is None or self.firing:
            return None
        self.firing = True
        return finding

    def _new_value(self, scale: float | None) -> bool:
        """True when ``scale`` differs from the last scale observed: the scale moved in
        between (in a gap, or on a row that prints no scale before its step), so it is not
        stuck whatever the steps between showed."""
        if scale is None:
            return False
        seen, self.scale_seen = self.scale_seen, scale
        return seen is not None and scale != seen

    def _every_step_skipped(self, obs: Observation, run: RunState) -> Finding | None:
        if run.backoff_streak < self.t.stuck_skip_streak:
            return None  # skips that spent hysteresis kept the scale by design: not static
        if (run.last_scale is None or run.scale_ever_changed or obs.scale is None
                or run.skip_streak_start_scale is None):
            return None  # constant only if seen where the streak began and now (logs may not)
        return Finding(
            self.code,
            run.skip_streak_start,
            f"{run.skip_streak} consecutive steps skipped at a constant loss scale "
            f"{run.last_scale}: the scale is static or update() is not applied",
            evidence={
                "pattern": "every-step-skipped",
                "consecutive_skipped": run.skip_streak,
                "scale": run.last_scale,
                "scaler": self.setup.scaler,
            },
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )

    def _tracker_frozen(
        self, obs: Observation, skipped: bool | None, moved: bool
    ) -> Finding | None:
        tracker = obs.growth_tracker
        # A growth resets the tracker to 0 (every step with growth_interval=1), and at a scale
        # of 0.0 a skip resets it without a visible backoff: neither is a frozen tracker.
        if (tracker is None or skipped is not False or moved or obs.scale == 0.0
                or self.setup.scaler == "static"):
            self.frozen_tracker_steps = 0
            self.last_tracker = tracker
            return None
        if tracker == self.last_tracker:
            self.frozen_tracker_steps += 1
        else:
            self.frozen_tracker_steps = 0
        self.last_tracker = tracker
        if self.frozen_tracker_steps < self.t.tracker_frozen_steps:
            return None
        start = obs.step - self.frozen_tracker_steps
        return Finding(
            "AMP002",  # the scale is stuck because the protocol is broken: report the cause
            start,
            f"the GradScaler growth tracker stayed at {tracker} for "
            f"{self.frozen_tracker_steps} clean steps: scaler.update() is not being called",
            evidence={
                "pattern": "update-not-called",
                "growth_tracker": tracker,
                "clean_steps": self.frozen_tracker_steps,
                "scale": obs.scale,
            },
        )

    def _no_growth(self, obs: Observation, run: RunState, skipped: bool | None,
                   moved: bool) -> Finding | None:
        if skipped is not False or moved or obs.scale is None:
            if skipped:
                self.clean_at_scale = 0
                self.clean_start = None
            return None
        if self.setup.scaler == "static":
            return None
        if self.clean_at_scale == 0:
            self.clean_start = obs.step
        self.clean_at_scale += 1
        interval = self.setup.growth_interval
        # Rows without a step counter may each stand for N steps: at its ceiling a healthy
        # scaler grows and overflows back between two rows, so the rows show the scale
        # constant for as many growth intervals as they like. Counted in rows, a stuck scale
        # needs as many as the steps of an unknown interval (a per-step log still gets there).
        limit = (self.t.stuck_clean_steps if obs.extra and obs.extra.get(SPAN_UNKNOWN)
                 else self._clean_limit())
        if self.clean_at_scale < limit:
            return None
        if interval is None and not run.scale_ever_changed and run.skipped_total == 0:
            return Finding(
                self.code,
                self.clean_start,
                f"loss scale constant at {obs.scale} for {self.clean_at_scale} clean steps with "
                "no overflow: a static loss scale that has worked so far (a dynamic one would "
                "have grown)",
                evidence={
                    "pattern": "constant-scale-no-overflow",
                    "clean_steps": self.clean_at_scale,
                    "scale": obs.scale,
                    "growth_interval": None,
                },
                severity=Severity.INFO,
            )
        return Finding(
            self.code,
            self.clean_start,
            f"loss scale stayed at {obs.scale} for {self.clean_at_scale} consecutive clean steps "
            f"(growth interval {interval or 'unknown'}): growth is disabled or update() is "
            "not called",
            evidence={
                "pattern": "no-growth",
                "clean_steps": self.clean_at_scale,
                "scale": obs.scale,
                "growth_interval": interval,
                "growth_factor": self.setup.growth_factor,
            },
        )

    def _clean_limit(self) -> int:
        """Clean steps at one scale after which the scale counts as stuck."""
        interval = self.setup.growth_interval
        limit = (
            int(self.t.stuck_clean_factor * interval) if interval else self.t.stuck_clean_steps
        )
        return max(limit, 1)

    def quiet_horizon(self, run: RunState) -> int:
        # Quiet steps are clean at an unchanged scale with a moving tracker: only the
        # no-growth count can fire, on the step that reaches the limit (said once: firing).
        if self.firing or self.setup.scaler == "static":
            return UNBOUNDED
        return max(0, self._clean_limit() - 1 - self.clean_at_scale)

    def advance(self, steps: int, run: RunState, skipped: int = 0, *, printed: int = 0,
                scale: float | None = None) -> None:
        """Steps a log printed at ``scale`` and the doctor counted instead of reading (a quiet
        run) are clean steps at that scale, counted as observing them one by one would count
        them: a stuck scale in a per-step log whose lines all share one shape is found as in
        the log read line by line. Other unseen steps count for nothing (their scale is not
        known), as before.

        Example (growth interval 10: 30 clean steps at one scale are stuck):
            >>> from denpex_callbacks.core.run_setup import RunSetup
            >>> d, run = ScaleStuckDetector(), RunState()
            >>> d.configure(RunSetup(scaler="dynamic", growth_interval=10))
            >>> obs = Observation(1, scale_before=8.0, scale_after=8.0, skipped=False)
            >>> run.update(obs)
            >>> d.observe(obs, run), d.printed_horizon(run, 8.0)  # 28 more may be counted
            (None, 28)
            >>> run.advance(28)
            >>> d.advance(28, run, printed=28, scale=8.0)  # steps 2..29, printed at 8.0
            >>> obs = Observation(30, scale_before=8.0, scale_after=8.0, skipped=False)
            >>> run.update(obs)
            >>> found = d.observe(obs, run)  # the 30th, read one by one
            >>> found.step, found.evidence["clean_steps"]
            (1, 30)
        """
        if printed <= 0 or scale is None or skipped:
            return
        if self._new_value(scale):  # the run's first line moved the scale: not a clean one
            self.firing = False
            self.clean_at_scale = 0
            self.clean_start = None
            printed -= 1
        if printed <= 0:
            return
        # What observe leaves after clean steps with no growth tracker (a log prints none).
        self.frozen_tracker_steps = 0
        self.last_tracker = None
        if self.setup.scaler == "static":
            return
        if self.clean_at_scale == 0:
            self.clean_start = printed_steps(run, steps, printed)[0]
        self.clean_at_scale += printed

    def printed_horizon(self, run: RunState, scale: float | None) -> int:
        # Printed quiet steps at a scale are counted as quiet steps are: the same limit
        # ahead; without a scale they count for nothing.
        return UNBOUNDED if scale is None else self.quiet_horizon(run)

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        self.frozen_tracker_steps = 0
        self.last_tracker = last.growth_tracker
        self.scale_seen = last.scale if last.scale is not None else self.scale_seen
        if self.setup.scaler == "static":
            return
        if self.clean_at_scale == 0:
            self.clean_start = last.step - steps + 1
        self.clean_at_scale += steps
