"""Facts about the run so far that several detectors share (derived once per step)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.observation import Observation

RECENT_STEPS = 16  # observations kept for evidence ("the scale history before it fell")


@dataclass
class RunState:
    """Running summary of the observations seen so far, in bounded memory.

    Updated by the Monitor before the detectors look at an observation, so each detector
    reads the same derived facts instead of re-deriving them.
    """

    steps_seen: int = 0
    clean_steps_seen: int = 0
    skipped_total: int = 0
    first_clean_step: int | None = None
    initial_scale: float | None = None
    last_scale: float | None = None
    scale_ever_changed: bool = False
    min_scale_seen: float | None = None
    skip_streak: int = 0
    skip_streak_start: int | None = None
    skip_streak_start_scale: float | None = None
    last_step: int | None = None
    recent: deque[tuple[int, float | None, bool | None, float | None]] = field(
        default_factory=lambda: deque(maxlen=RECENT_STEPS)
    )

    @property
    def in_startup(self) -> bool:
        """True until the first clean (applied) step: the start-up back-off phase."""
        return self.first_clean_step is None

    def update(self, obs: Observation) -> None:
        """Fold one observation into the summary."""
        skipped = obs.was_skipped
        self.steps_seen += 1
        self.last_step = obs.step
        for scale in (obs.scale_before, obs.scale_after):
            if scale is None:
                continue
            if self.initial_scale is None:
                self.initial_scale = scale
            if self.last_scale is not None and scale != self.last_scale:
                self.scale_ever_changed = True
            self.last_scale = scale
            self.min_scale_seen = scale if self.min_scale_seen is None else min(
                self.min_scale_seen, scale
            )
        if skipped:
            self.skipped_total += 1
            if self.skip_streak == 0:
                self.skip_streak_start = obs.step
                self.skip_streak_start_scale = obs.scale_before
            self.skip_streak += 1
        elif skipped is False:
            self.clean_steps_seen += 1
            if self.first_clean_step is None:
                self.first_clean_step = obs.step
            self.skip_streak = 0
            self.skip_streak_start = None
            self.skip_streak_start_scale = None
        self.recent.append((obs.step, obs.scale, skipped, obs.loss))

    def advance(self, steps: int) -> None:
        """Fold in ``steps`` applied (not skipped) steps that were not observed one by one:
        a gap in a log whose step counter moved on with no skip. Nothing is invented about
        them (no scale, no loss); they end a skip streak and the start-up phase.

        Example:
            >>> run = RunState()
            >>> run.update(Observation(1, skipped=True))
            >>> run.advance(9)
            >>> run.last_step, run.steps_seen, run.skip_streak, run.in_startup
            (10, 10, 0, False)
        """
        if steps <= 0:
            return
        first = (self.last_step or 0) + 1
        self.steps_seen += steps
        self.clean_steps_seen += steps
        self.last_step = first + steps - 1
        if self.first_clean_step is None:
            self.first_clean_step = first
        self.skip_streak = 0
        self.skip_streak_start = None
        self.skip_streak_start_scale = None

    def history(self) -> list[dict[str, Any]]:
        """The last few steps, for evidence."""
        return [
            {"step": s, "scale": sc, "skipped": sk, "loss": lo} for s, sc, sk, lo in self.recent
        ]

    def state_dict(self) -> dict[str, Any]:
        """Serializable state (for checkpoint resume)."""
        state = {k: v for k, v in vars(self).items() if k != "recent"}
        state["recent"] = [list(item) for item in self.recent]
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`."""
        for key, value in state.items():
            if key == "recent":
                self.recent = deque((tuple(v) for v in value), maxlen=RECENT_STEPS)
            elif hasattr(self, key):
                setattr(self, key, value)
