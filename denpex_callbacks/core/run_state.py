"""Facts about the run so far that several detectors share (derived once per step)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field, fields
from typing import Any

from denpex_callbacks.core.observation import RESTARTED, RESTARTED_AT, Observation

RECENT_STEPS = 16  # observations kept for evidence ("the scale history before it fell")
EARLY_STEPS = 12  # the run's first observations, kept for the root cause ("loss 22 at step 0")
TRAIL_STEPS = 64  # loss / grad-norm trail before a fault, for the root cause

# An episode of overflow begins at a skip whose loss is far above its usual level (or not
# finite) and lasts, through clean steps, while the scale has not recovered, up to this many
# steps after its last skip: a collapse "began" there, not where its longest streak did.
EPISODE_WINDOW = 50
ELEVATED_LOSS = 5.0  # times the run's usual (first) losses

# A loss this many times the run's first one, before any step was seen applied: the weights
# moved since, and only an applied step moves them (see RunState._applied_first).
WEIGHTS_MOVED = 1000.0

# A scale that jumps up by more than one growth (x2) between two steps, back to the run's
# initial scale, was not grown by the scaler: a restart, or a resume with a fresh scaler.
RESET_JUMP = 2.0


@dataclass(slots=True)  # fixed offsets, not a dict: read at every step, from cold caches
class RunState:
    """Running summary of the observations seen so far, in bounded memory.

    Updated by the Monitor before the detectors look at an observation, so each detector
    reads the same derived facts instead of re-deriving them.

    A start-up phase (the scaler backing off from its initial scale) lasts until the first
    clean step; it begins again after a resume (:meth:`load_state_dict`) and after a restart
    that put the scale back up (a jump of more than one growth).

    Example:
        >>> run, scale = RunState(), 65536.0
        >>> for step in range(8):  # the back-off to 256, then a clean step
        ...     run.update(Observation(step, scale_before=scale, scale_after=scale / 2))
        ...     scale /= 2
        >>> run.update(Observation(8, scale_before=256.0, scale_after=256.0))
        >>> run.in_startup
        False
        >>> run.update(Observation(9, scale_before=65536.0, scale_after=32768.0))  # restarted
        >>> run.in_startup, run.startup_reason
        (True, 'after the scale was reset to 65536')
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
    # Skips of the streak that only spent the scaler's hysteresis (DeepSpeed's and Megatron's
    # tolerance: the scale kept by design until it runs out) and the last hysteresis seen.
    streak_spent: int = 0
    last_hysteresis: int | None = None
    last_step: int | None = None
    episode_start: int | None = None  # first skip of the current episode of overflow
    episode_scale: float | None = None
    last_skip_step: int | None = None
    restart_reason: str | None = None  # set on a resume or a scale reset, until a clean step
    restart_step: int | None = None
    recent: deque[tuple[int, float | None, bool | None, float | None]] = field(
        default_factory=lambda: deque(maxlen=RECENT_STEPS)
    )
    early: list[tuple[int, float | None, bool | None, float | None]] = field(
        default_factory=list
    )
    trail: deque[tuple[int, float | None, float | None, float | None]] = field(
        default_factory=lambda: deque(maxlen=TRAIL_STEPS)
    )

    @property
    def in_startup(self) -> bool:
        """True until the first clean step of the run, or of a resume or restart.

        A skip streak already running when the run was resumed is not a new start-up: the
        scaler's state came back with the checkpoint and the streak goes on.
        """
        if self.first_clean_step is None:
            return True
        if self.restart_reason is None:
            return False
        start, since = self.skip_streak_start, self.restart_step
        return start is None or since is None or start >= since

    @property
    def backoff_streak(self) -> int:
        """The streak's skipped steps less those that only spent hysteresis: the overflows
        the scaler answered by backing off (or would have, but for a static scale).

        Example:
            >>> run = RunState()
            >>> for left in (3, 2, 1):  # "but hysteresis is 4. Reducing hysteresis to 3" ...
            ...     run.update(Observation(left, scale_before=512.0, scale_after=512.0,
            ...                            skipped=True, hysteresis=left))
            >>> run.update(Observation(5, scale_before=512.0, scale_after=256.0, skipped=True))
            >>> run.skip_streak, run.backoff_streak
            (4, 1)
        """
        return self.skip_streak - self.streak_spent

    @property
    def startup_reason(self) -> str:
        """Why the run is in a start-up phase, in words (``""`` when it is not)."""
        if self.restart_reason is not None:
            return self.restart_reason
        return "before any clean step" if self.first_clean_step is None else ""

    def update(self, obs: Observation) -> None:
        """Fold one observation into the summary."""
        reset = self._scale_reset(obs)
        if obs.extra and obs.extra.get(RESTARTED):
            reset = "after a new run began in the log"
            self.initial_scale = None  # the new run's scaler starts where its first line says
        skipped = None if reset and obs.skipped is None else obs.was_skipped
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
        began = obs.extra.get(RESTARTED_AT) if obs.extra else None
        if reset is not None and isinstance(began, int) and (
                self.skip_streak_start is not None and self.skip_streak_start >= began):
            # the run began with the streak going on: its skips are the new run's start-up
            self.restart_reason, self.restart_step = reset, self.skip_streak_start
        elif reset is not None:
            self.restart_reason, self.restart_step = reset, obs.step
            self.skip_streak, self.skip_streak_start, self.skip_streak_start_scale = 0, None, None
            self.streak_spent = 0
        spent = bool(skipped) and self._spent_hysteresis(obs)
        self.last_hysteresis = obs.hysteresis
        if skipped and self.first_clean_step is None and (
                (applied := self._applied_first(obs)) is not None):
            self.clean_steps_seen += 1
            self.first_clean_step = applied
            self.restart_reason = None
        if skipped:
            self.skipped_total += 1
            self._episode(obs)
            if self.skip_streak == 0:
                self.skip_streak_start = obs.step
                self.skip_streak_start_scale = obs.scale_before
                self.streak_spent = 0
            self.skip_streak += 1
            self.streak_spent += spent
        elif skipped is False:
            self.clean_steps_seen += 1
            if self.first_clean_step is None:
                self.first_clean_step = obs.step
            self.restart_reason = None
            self.skip_streak = 0
            self.skip_streak_start = None
            self.skip_streak_start_scale = None
            self.streak_spent = 0
        self.recent.append((obs.step, obs.scale, skipped, obs.loss))
        if len(self.early) < EARLY_STEPS:
            self.early.append((obs.step, obs.loss, skipped, obs.grad_norm))
        ratio = obs.extra.get("update_ratio") if obs.extra else None
        self.trail.append((obs.step, obs.loss, obs.grad_norm,
                           float(ratio) if isinstance(ratio, (int, float)) else None))

    def _spent_hysteresis(self, obs: Observation) -> bool:
        """Whether a skipped step only spent hysteresis: the scale kept and some hysteresis
        left, less than the step before had (DeepSpeed's ``but hysteresis is 2. Reducing
        hysteresis to 1``; a live scaler's ``cur_hysteresis``). A scale held at its floor
        keeps its hysteresis (1) and spends none: those skips still count."""
        left = obs.hysteresis
        if left is None or left < 1 or obs.scale_before != obs.scale_after:
            return False
        return self.last_hysteresis is None or left < self.last_hysteresis

    def _applied_first(self, obs: Observation) -> int | None:
        """The run's first step, where a skip right after it proves it applied (else None).

        A log's first row says nothing of its own step's skip (no scale before it: a live
        run always knows). A skipped step leaves the weights as they were, so in a start-up
        back-off from that step on every loss is the initial weights' loss; a loss
        :data:`WEIGHTS_MOVED` times the first row's, in a skip streak that began right after
        it, says the weights moved in between: that first step was applied, and the streak is
        overflow after training began (a learning rate far too high), not the back-off.

        Example:
            >>> run = RunState()
            >>> run.update(Observation(0, scale_after=65536.0, loss=0.76))  # skip unknown
            >>> run.update(Observation(1, scale_before=65536.0, scale_after=32768.0,
            ...                        loss=2020.0))
            >>> run.first_clean_step, run.in_startup
            (0, False)
        """
        first = self.early[0] if self.early else None
        if first is None or first[2] is not None or obs.loss is None:
            return None
        step, loss = first[0], first[1]
        began = self.skip_streak_start if self.skip_streak else obs.step
        if loss is None or not (0.0 < loss < math.inf) or began != step + 1:
            return None
        return step if math.isfinite(obs.loss) and obs.loss >= WEIGHTS_MOVED * loss else None

    def _episode(self, obs: Observation) -> None:
        """Begin or continue the episode of overflow this skip belongs to (after start-up)."""
        if self.first_clean_step is None or self.restart_reason is not None:
            self.episode_start = self.episode_scale = None
        elif self.episode_start is not None and (
            self.last_skip_step is None or obs.step - self.last_skip_step > EPISODE_WINDOW
            or None in (obs.scale_before, self.episode_scale)
            or obs.scale_before >= self.episode_scale  # type: ignore[operator]
        ):
            self.episode_start = self.episode_scale = None  # over: the scale recovered
        if self.episode_start is None and self._elevated(obs.loss):
            self.episode_start, self.episode_scale = obs.step, obs.scale_before
        self.last_skip_step = obs.step

    def _elevated(self, loss: float | None) -> bool:
        if loss is None:
            return False
        if not math.isfinite(loss):
            return True
        usual = sorted(x for _s, x, _k, _g in self.early[:3] if x is not None
                       and math.isfinite(x))
        # Three first losses at least: fewer say nothing of the run's usual level.
        return len(usual) == 3 and loss > ELEVATED_LOSS * usual[1]

    def _scale_reset(self, obs: Observation) -> str | None:
        last = self.last_scale
        seen = [s for s in (obs.scale_before, obs.scale_after) if s is not None]
        if last is None or not seen or not all(math.isfinite(s) for s in seen):
            return None
        new, init = max(seen), self.initial_scale
        # Back to the run's initial scale (or one backoff below it, when the first step after
        # the reset already backed off): a scale rebuilt from a log's interval summary can
        # jump too, but not to there.
        if init is None or not init / 2 <= new <= init:
            return None
        if last == 0.0 or new > last * RESET_JUMP:
            return f"after the scale was reset to {new:g}"
        return None

    def mark_resumed(self) -> None:
        """History was loaded from a checkpoint: the scaler may back off again."""
        self.restart_reason = "after the resume"
        self.restart_step = None if self.last_step is None else self.last_step + 1

    def advance(self, steps: int, skipped: int = 0) -> None:
        """Fold in ``steps`` steps that were not observed one by one: a gap in a log whose
        step counter moved on. Nothing is invented about them (no scale, no loss). Of them,
        ``skipped`` are known to be skipped (a logged scale that halved over the gap), the
        rest were applied; where the skips lie is not known, so a skip streak goes on
        through the gap only when every step in it was skipped, and otherwise ends, as does
        the start-up phase.

        Example:
            >>> run = RunState()
            >>> run.update(Observation(1, skipped=True))
            >>> run.advance(9)
            >>> run.last_step, run.steps_seen, run.skip_streak, run.in_startup
            (10, 10, 0, False)
            >>> run.advance(4, skipped=4)  # the scale halved four times over four steps
            >>> run.skip_streak, run.skip_streak_start, run.skipped_total
            (4, 11, 5)
        """
        skipped = max(0, min(skipped, steps))
        if steps <= 0:
            return
        first = (self.last_step or 0) + 1
        self.steps_seen += steps
        self.skipped_total += skipped
        self.clean_steps_seen += steps - skipped
        self.last_step = first + steps - 1
        if skipped:
            self.last_skip_step = self.last_step
        if skipped == steps:
            if self.skip_streak == 0:
                self.skip_streak_start = first
                self.skip_streak_start_scale = self.last_scale
                self.streak_spent = 0
            self.skip_streak += steps
            return
        if self.first_clean_step is None:
            self.first_clean_step = first
        self.restart_reason = None  # applied steps: a restart's back-off is over too
        self.skip_streak = 0
        self.skip_streak_start = None
        self.skip_streak_start_scale = None
        self.streak_spent = 0

    def quiet_ready(self) -> bool:
        """Whether the next step may be a quiet one (:mod:`denpex_callbacks.core.quiet_steps`):
        past start-up, no skip streak or restart pending, the early steps recorded, and a
        positive finite scale to stay at."""
        scale = self.last_scale
        return (
            scale is not None and 0.0 < scale < math.inf
            and self.last_step is not None and self.skip_streak == 0
            and self.skip_streak_start is None and self.restart_reason is None
            and self.first_clean_step is not None and len(self.early) >= EARLY_STEPS
        )

    def history(self) -> list[dict[str, Any]]:
        """The last few steps, for evidence."""
        return [
            {"step": s, "scale": sc, "skipped": sk, "loss": lo} for s, sc, sk, lo in self.recent
        ]

    def state_dict(self) -> dict[str, Any]:
        """Serializable state (for checkpoint resume)."""
        state = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _SEQUENCES}
        for name in _SEQUENCES:
            state[name] = [list(item) for item in getattr(self, name)]
        return state

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from :meth:`state_dict`; the run then counts as resumed."""
        for key, value in state.items():
            if key == "recent":
                self.recent = deque((tuple(v) for v in value), maxlen=RECENT_STEPS)
            elif key == "trail":
                self.trail = deque((tuple(v) for v in value), maxlen=TRAIL_STEPS)
            elif key == "early":
                self.early = [tuple(v) for v in value]  # type: ignore[misc]
            elif hasattr(self, key):
                setattr(self, key, value)
        self.mark_resumed()


_SEQUENCES = ("recent", "early", "trail")
