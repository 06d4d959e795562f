"""AMP008: many steps skipped by overflow, without a collapse."""

from __future__ import annotations

import math
from collections import deque
from itertools import islice, repeat
from typing import Any

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import SPAN_UNKNOWN, Observation
from denpex_callbacks.core.run_state import RunState


class SkipRateDetector(Detector):
    """Fires when the share of skipped steps in a sliding window passes the threshold.

    The rate is judged against what the scaler's own growth interval implies (one skip per
    growth interval is its sawtooth, by design). Start-up back-off is not counted. The window
    holds the step numbers of its skips so the diagnosis can say where the high rate began.

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

    def sawtooth_rate(self) -> float | None:
        """Share of skipped steps a healthy dynamic scaler shows by design (None: unknown).

        At equilibrium the scale grows once every ``growth_interval`` clean steps and backs off
        once per overflow; with growth factor g and backoff b it takes ln(g)/ln(1/b) backoffs
        to undo one growth, so k = ln(g)/ln(1/b) skips per growth_interval + k steps. A
        hysteresis h (DeepSpeed's ``DynamicLossScaler``, Megatron's ``DynamicGradScaler``)
        first spends h - 1 overflows at the grown scale, skipped with the scale kept, and is
        refilled only by the next growth (or by each clean step, with DeepSpeed's
        ``consecutive_hysteresis``: none comes between the overflows of a tooth), so a tooth
        skips k + h - 1 steps.

        Example:
            >>> from denpex_callbacks.core.run_setup import RunSetup
            >>> d = SkipRateDetector()
            >>> d.configure(RunSetup(scaler="dynamic", growth_interval=10))
            >>> round(d.sawtooth_rate(), 3)
            0.091
            >>> d.configure(RunSetup(scaler="dynamic", growth_interval=16, hysteresis=2))
            >>> round(d.sawtooth_rate(), 3)  # 2 skips per 16 clean steps
            0.111
        """
        interval = self.setup.growth_interval
        if self.setup.scaler != "dynamic" or not interval or interval <= 0:
            return None
        growth, backoff = self.setup.growth_factor or 2.0, self.setup.backoff_factor or 0.5
        if growth <= 1.0 or not 0.0 < backoff < 1.0:
            return None
        per_growth = math.log(growth) / math.log(1.0 / backoff)
        per_growth += max(self.setup.hysteresis or 1, 1) - 1
        return per_growth / (interval + per_growth)

    def limit(self) -> float:
        """The skip rate that fires: the threshold, or the sawtooth's own rate times
        ``skip_rate_sawtooth_factor`` when that is higher (small growth intervals)."""
        sawtooth = self.sawtooth_rate()
        if sawtooth is None:
            return self.t.skip_rate_threshold
        return max(self.t.skip_rate_threshold, sawtooth * self.t.skip_rate_sawtooth_factor)

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        skipped = obs.was_skipped
        if obs.extra.get(SPAN_UNKNOWN):
            # A row without a step counter stands for an unknown number of applied steps
            # (one row per 500 in HF's default): counted as one, a sawtooth would look like
            # a skip every few steps. Left out alone, the skips beside it (overflow lines,
            # the halvings its scale shows) would fill the window by themselves: the share
            # of the steps around such a row is not known, so the count starts over after it.
            self.window.clear()
            self.skips_in_window = 0
            return None
        if skipped is None or run.in_startup:
            return None
        if len(self.window) == self.window.maxlen and self.window[0][1]:
            self.skips_in_window -= 1
        self.window.append((obs.step, skipped))
        self.skips_in_window += skipped
        if len(self.window) < self.t.skip_rate_window:
            return None
        rate = self.skips_in_window / len(self.window)
        limit = self.limit()
        if rate < limit / 2:
            self.firing = False
        if self.firing or rate < limit:
            return None
        if run.skip_streak >= self.t.collapse_skip_streak:
            return None  # a collapse in progress is AMP003, not a high skip rate
        if obs.scale is not None and obs.scale < self.t.underflow_scale:
            return None  # the scale did collapse: AMP003 / AMP004 tell that story
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
                "skip_rate_limit": round(limit, 4),
                "scale": obs.scale,
                "skipped_total": run.skipped_total,
            },
        )

    def advance(self, steps: int, run: RunState, skipped: int = 0, *, printed: int = 0,
                scale: float | None = None) -> None:
        """Unseen steps enter the window (at most a window's worth): the applied ones clean,
        the ``skipped`` ones last (where they lay in the gap is not known; last keeps them
        in the window longest, as a skip at the gap's end would be). Skips during the
        start-up back-off are not counted, as in :meth:`observe`."""
        if run.in_startup:
            return
        kept = min(steps, self.t.skip_rate_window)
        skips = min(skipped, kept)
        last = run.last_step or 0
        self._clean(last - kept + 1, last - skips + 1)
        for step in range(last - skips + 1, last + 1):
            if len(self.window) == self.window.maxlen and self.window[0][1]:
                self.skips_in_window -= 1
            self.window.append((step, True))
            self.skips_in_window += 1
        if self.skips_in_window / max(len(self.window), 1) < self.t.skip_rate_threshold / 2:
            self.firing = False

    def _clean(self, first: int, stop: int) -> None:
        """Steps ``first`` to ``stop - 1`` enter the window applied (clean), in one extend: the
        skips among the oldest entries they push out leave the count with them."""
        window = self.window
        if self.skips_in_window and window.maxlen is not None:
            leaving = min(len(window) + (stop - first) - window.maxlen, len(window))
            if leaving > 0:
                self.skips_in_window -= sum(was for _step, was in islice(window, leaving))
        window.extend(zip(range(first, stop), repeat(False)))

    def quiet_horizon(self, run: RunState) -> int:
        # A clean step never raises the rate (the window grows, or its oldest entry leaves):
        # quiet steps cannot fire unless the rate after the first of them is already high.
        skips = self.skips_in_window
        if self.firing or skips == 0:
            return UNBOUNDED
        held = len(self.window)
        upper = skips / (held + 1 if held < (self.window.maxlen or 0) else held)
        return UNBOUNDED if upper < self.limit() else 0

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        kept = min(steps, self.window.maxlen or steps)
        self._clean(last.step - kept + 1, last.step + 1)
        # The rate only fell: had it dropped below half the limit (window full) on any of
        # these steps, it is below it now.
        if len(self.window) >= self.t.skip_rate_window and (
            self.skips_in_window / len(self.window) < self.limit() / 2
        ):
            self.firing = False
