"""AMP003: overflow persists and drives the dynamic scale toward its floor."""

from __future__ import annotations

import math
from collections import deque
from typing import Any

from denpex_callbacks.core.detectors.base import UNBOUNDED, Detector, printed_steps
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import RESTARTED, SPAN_UNKNOWN, Observation
from denpex_callbacks.core.run_state import RunState

# Below this many applied updates a run has not been "stable" yet, whatever its streak.
STABLE_AFTER_UPDATES = 50
# The scale a healthy start-up back-off is measured from: torch's default initial scale. A
# higher initial scale (2**24, DeepSpeed's 2**32) backs off its excess first, by design.
HEALTHY_START = 2.0**16
STARTUP_MIN_HALVINGS = 3  # a back-off from a low initial scale (2**10) may still take these


class ScaleCollapseDetector(Detector):
    """Fires when overflow persists, seen in either of two ways.

    - A streak of consecutive skipped steps longer than a healthy backoff. Before the first
      clean step of the run, or of a resume or restart, the start-up back-off is allowed more:
      down to ``startup_halvings`` halvings below 2**16 (16; from a higher initial scale, 2**24
      or DeepSpeed's 2**32, its excess first), at least three halvings from any initial scale,
      or ``startup_skip_allowance`` skips where the scale is not known. A streak at a scale
      that has never changed is a stuck scale (AMP005).
    - The scale's trajectory: it fell ``collapse_net_halvings`` times net within
      ``collapse_trend_window`` steps although clean steps came between the skips (several
      optimizers sharing one scaler, a GAN's generator and discriminator, break every streak;
      a log that prints the scale on a row every N steps shows the fall, not the skips).

    One collapse, one report: once either pattern fired, the episode lasts until the scale
    recovers (16 times the scale it fired at); a clean step between two streaks of the same
    episode does not make the second one a new collapse.

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
    _state = ("firing", "trend_floor", "window")

    def reset(self) -> None:
        self.firing = False
        self.trend_floor: float | None = None  # scale the trend fired at, until it recovers
        self.window: deque[tuple[int, float]] = deque(maxlen=self.t.collapse_trend_window)
        self._peaks: deque[tuple[int, float]] = deque()  # decreasing: the window's maximum

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.window = deque(((int(step), float(scale)) for step, scale in self.window),
                            maxlen=self.window.maxlen)
        self._peaks = deque()
        for item in self.window:
            self._push_peak(item)

    def observe(self, obs: Observation, run: RunState) -> Finding | None:
        reported = self.trend_floor  # a collapse reported before this step (None: none)
        trend = self._trend(obs, run)
        if run.skip_streak == 0:
            self.firing = False
            return trend
        if self.firing:
            return None
        if reported is not None and self.trend_floor is not None and trend is None:
            return None  # that collapse goes on: the scale never recovered since
        streak = self._streak(obs, run)
        if streak is not None:
            return streak  # on the same step, the streak names the skip it began with
        if trend is not None:
            # One collapse, one report: the streak the trajectory just reported on is not
            # reported again when it reaches collapse_skip_streak a few steps later.
            self.firing = True
        return trend

    def _streak(self, obs: Observation, run: RunState) -> Finding | None:
        if run.last_scale is not None and not run.scale_ever_changed:
            return None  # constant scale: AMP005's case
        halvings = _startup_halvings(obs, run) if run.in_startup else None
        if run.in_startup:
            if not self._beyond_startup(halvings, run):
                return None
        elif run.backoff_streak < self.t.collapse_skip_streak:
            return None  # (skips that only spent hysteresis are the scaler's tolerance)
        self.firing = True
        self.trend_floor = obs.scale  # one collapse: the trajectory waits for a recovery
        start, scale = run.skip_streak_start, run.skip_streak_start_scale
        if not run.in_startup and run.episode_start is not None and start is not None and (
            run.episode_start < start
        ):  # the overflow began with the first skip of its episode (a loss spike), earlier
            start, scale = run.episode_start, run.episode_scale
        began = "" if start == run.skip_streak_start else f" (the first skip at step {start})"
        phase = _phase(run)
        if halvings is not None:
            phase += f": {halvings:.0f} halvings, more than a start-up back-off takes"
        return Finding(
            self.code,
            start,
            f"{run.skip_streak} consecutive skipped steps from step {run.skip_streak_start}"
            f"{began} ({phase}); "
            + (f"loss scale {scale} -> {obs.scale}" if scale is not None
               else f"loss scale now {obs.scale}"),
            evidence={
                "pattern": "startup-back-off" if run.in_startup else "skip-streak",
                "consecutive_skipped": run.skip_streak,
                "scale_at_start": scale,
                "scale_now": obs.scale,
                **({"halvings": round(halvings, 1)} if halvings is not None else {}),
                **_run_evidence(run),
            },
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )

    @property
    def collapse_open(self) -> bool:
        """A collapse was reported and the scale has not recovered since (one episode: a
        later report of the same collapse, such as DeepSpeed's exit at its minimum scale,
        is not a new one)."""
        return self.trend_floor is not None

    def _beyond_startup(self, halvings: float | None, run: RunState) -> bool:
        """Whether a start-up back-off went further than a healthy one does."""
        if halvings is None:  # no scale to measure: count the skips
            return run.skip_streak >= self.t.startup_skip_allowance
        start = run.skip_streak_start_scale or HEALTHY_START
        # Down to HEALTHY_START / 2**startup_halvings (16), and a few halvings below any start.
        allowed = self.t.startup_halvings + math.log2(start / HEALTHY_START)
        return halvings > max(allowed, STARTUP_MIN_HALVINGS)

    def quiet_horizon(self, run: RunState) -> int:
        return UNBOUNDED  # both patterns fire on a skipped step only

    def advance(self, steps: int, run: RunState, skipped: int = 0, *, printed: int = 0,
                scale: float | None = None) -> None:
        """Steps a log printed at ``scale`` and the doctor counted instead of reading (a quiet
        run: applied steps) enter the trajectory's window as observing them would have
        pushed them, older entries out: the trend is measured over the same steps whether
        the log was read line by line or not. Other unseen steps enter nothing, as before."""
        if printed <= 0 or scale is None or skipped or not math.isfinite(scale):
            return
        keep = min(printed, self.window.maxlen or printed)
        self._applied(printed_steps(run, steps, printed)[-keep:], scale)

    def absorb_quiet(self, steps: int, run: RunState, last: Observation) -> None:
        scale = last.scale
        assert scale is not None  # a quiet step has its scale
        # Only the last window's worth of steps stays in the window (and so in its peaks).
        self._applied(range(last.step - min(steps, self.window.maxlen or steps) + 1,
                            last.step + 1), scale)

    def _applied(self, steps: range, scale: float) -> None:
        """Applied steps at ``scale``, taken together: the skip streak is over, they enter
        the trajectory's window, and the scale may have recovered from a collapse."""
        self.firing = False
        for step in steps:
            self._push_window((step, scale))
        self._note_recovery(scale)

    def _note_recovery(self, scale: float) -> None:
        if self.trend_floor is not None and scale >= self.trend_floor * 16:
            self.trend_floor = None  # recovered: the trend may fire again

    # -- the trajectory ------------------------------------------------------------------------

    def _push_window(self, item: tuple[int, float]) -> None:
        # The window spans collapse_trend_window steps, not items: rows without a scale
        # (not pushed) must not stretch it over a longer stretch of the run.
        oldest = item[0] - self.t.collapse_trend_window
        while self.window and (len(self.window) == self.window.maxlen
                               or self.window[0][0] < oldest):
            if self._peaks and self._peaks[0] == self.window[0]:
                self._peaks.popleft()
            self.window.popleft()
        self.window.append(item)
        self._push_peak(item)

    def _push_peak(self, item: tuple[int, float]) -> None:
        while self._peaks and self._peaks[-1][1] <= item[1]:
            self._peaks.pop()
        self._peaks.append(item)

    def _trend(self, obs: Observation, run: RunState) -> Finding | None:
        scale = obs.scale
        if scale is None and not run.in_startup:
            # A log row that does not print the scale (a metric row between overflow lines)
            # says nothing changed it: the trajectory goes on across the row.
            return None
        # A row without a step counter stands for an unknown number of steps (one every 500,
        # say): a window of collapse_trend_window such rows may span a run's slow, healthy
        # drift of the scale. No trajectory is measured in them (the streak still is).
        if (scale is None or not math.isfinite(scale) or run.in_startup
                or obs.extra.get(SPAN_UNKNOWN)):
            self.window.clear()
            self._peaks.clear()
            return None
        if obs.extra.get(RESTARTED):
            # A run begun again in the log (its step counter went back: a second run, or one
            # relaunched in bf16 or at a static scale; or a resume's line, the counter going
            # on: a scaler not in the checkpoint starts over) starts its own trajectory: the
            # last run's scales are no peak this one fell from, and its steps, numbered from
            # the start again, would sit inside the window beside the new run's.
            self.window.clear()
            self._peaks.clear()
        # A scale below the last one seen fell through skips, on this step or (a log row
        # every N steps) in the gap before it, where the skips are counted but not observed.
        # A fall that ends below 1 between two rows is a collapse too: only overflows halve a
        # dynamic scale, so the fall is the cause and the scale below 1 its consequence
        # (AMP004), both reported. Not a fall to exactly 0: halving from a scale a log printed
        # does not reach 0 (the logs' readers keep an exact 0 only where the steps between
        # could not have halved it there: ``scale_prints.rounded_zero``): something set it.
        fell = bool(self.window) and 0.0 < scale < self.window[-1][1]
        self._push_window((obs.step, scale))
        peak_step, peak = self._peaks[0]
        self._note_recovery(scale)
        if self.trend_floor is not None or self.firing or not (obs.was_skipped or fell):
            return None
        if peak <= 0 or scale > peak / 2.0 ** self.t.collapse_net_halvings:
            return None
        self.trend_floor = scale
        after = [(s, sc) for s, sc in self.window if s > peak_step]
        start = after[0][0] if after else obs.step
        span = obs.step - start + 1
        halvings = math.log2(peak / scale) if scale > 0 else math.inf
        fall = f" ({halvings:.0f} halvings)" if scale > 0 else ""
        return Finding(
            self.code,
            start,
            f"loss scale fell from {peak:g} to {scale:g}{fall} in {span} "
            f"steps from step {start}, with clean steps between the skips "
            f"({run.skipped_total} of {run.steps_seen} steps skipped so far)",
            evidence={
                "pattern": "scale-trajectory",
                "scale_peak": peak,
                "scale_now": scale,
                "halvings": round(halvings, 1),
                "steps": span,
                **_run_evidence(run),
            },
            lines=(obs.line,) if obs.line is not None else (),
            quotes=(obs.text,) if obs.text else (),
        )


def _startup_halvings(obs: Observation, run: RunState) -> float | None:
    """How many times the scale halved since the start-up back-off began (None: unknown).

    Measured on the scale, not counted in skips: DeepSpeed's hysteresis skips without halving.
    """
    start, now = run.skip_streak_start_scale, obs.scale
    if start is None or now is None or not (0.0 < start < math.inf) or not math.isfinite(now):
        return None
    return math.inf if now <= 0.0 else max(0.0, math.log2(start / now))


def _phase(run: RunState) -> str:
    """Where in the run the streak began, in words (never 'stable' when it was not)."""
    if run.in_startup:
        return run.startup_reason
    if run.clean_steps_seen < STABLE_AFTER_UPDATES:
        return (f"early in training: {run.skipped_total} of the first {run.steps_seen} steps "
                "skipped")
    return "after training was stable"


def _run_evidence(run: RunState) -> dict[str, object]:
    """What both collapse patterns quote of the run: counts and the recent history."""
    return {
        "skipped_total": run.skipped_total,
        "steps_seen": run.steps_seen,
        "applied_updates": run.clean_steps_seen,
        "history": run.history(),
    }
