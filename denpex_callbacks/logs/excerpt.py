"""Judgement from an excerpt: what a few pasted lines prove on their own.

The detectors are calibrated on whole runs (a collapse is six skipped steps after training
was stable; a zero loss is twenty steps long). A pasted excerpt rarely holds that much, yet
it often shows enough: a cumulative counter (``step=2000, skipped=1995``), absolute scale
levels (halved to 2, or pinned at the floor of 1 while overflows go on), every interval of a
Megatron excerpt skipped at one constant scale, a loss of exactly 0 on every line after a
normal first value, or an iteration line whose loss is missing beside a NaN gradient norm.

Log rows are judged as rows, not only as steps: a row a loop prints every ``N`` optimizer
steps samples one step of ``N``, so a dozen consecutive rows that show one fault (a gradient
norm that is NaN on each, a scale halved between each two) prove it although they are "too
few steps" for a detector counting steps. The interval is read where the rows show it (the
steps they print); otherwise the judgement is in rows, and the summary says which.
Overflow lines without any step counter are judged as a cascade once the log showed training
under way before them (finite training rows, or evaluations), and an overflow beside a loss
that jumped a thousandfold is the loss exploding, not a sawtooth.

Each rule says how sure it is (``confidence``: high, medium or low, from how much the
excerpt shows) and stays quiet on what healthy runs print: the start-up back-off (allowed
``startup_skip_allowance`` skips), one overflow in a long run, a constant scale of 1 with no
skips (bf16), a loss that decays gradually to a printed 0.0000.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections import Counter, deque
from dataclasses import dataclass, field, replace

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.observation import RESTARTED, Observation
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.thresholds import Thresholds
from denpex_callbacks.logs.abandoned_runs import AbandonedRuns
from denpex_callbacks.logs.events import FLAG, METRICS, PROGRESS, LogEvent
from denpex_callbacks.logs.floor_skips import HIGH_SKIPS, FloorSkips, FloorWatch

HALVINGS = 4  # consecutive overflows that prove a collapse once the scale is this low...
LOW_SCALE = 8.0  # ...: no healthy fp16 run overflows all the way down to 8
FLOOR = 1.0
# Finite losses after a non-finite one, with no other between, that show it a one-off: a NaN
# update would have made every loss after it NaN.
ONE_OFF_AFTER = 5
FLOOR_OVERFLOWS = 3  # overflows at the floor that prove the scale cannot absorb them
ZERO_LINES = 3  # consecutive losses of exactly 0 after a normal value
NORMAL_LOSS = 0.01  # the value before the zeros: above it the drop is abrupt, not decay
MIN_COUNTER_STEPS = 20  # a cumulative counter below this says too little
COLLAPSE_SHARE = 0.5  # share of steps skipped (start-up back-off deducted): AMP003
HIGH_SHARE = 0.25  # ...: AMP008 (a healthy sawtooth with a short growth interval skips ~1 in 9)
SCALE_CODES = frozenset({"AMP003", "AMP004", "AMP005", "AMP008"})
CASCADE = 6  # consecutive overflow lines after training was under way: a collapse
STABLE_ROWS = 3  # finite training rows (or one evaluation) before them: training was under way
FAULT_ROWS = 3  # rows whose gradient norm is NaN/inf (after the first finite one)...
ROW_SHARE = 0.05  # ...making this share of the rows: overflow on that share of the steps
HALVED_ROWS = 4  # consecutive rows, each logged scale half the one before (or less)
# Consecutive skipped iterations at one constant scale that prove it stuck: more than a
# hysteresis spends before halving (Megatron's default of 2 skips once at the scale, which a
# run logging every iteration shows as one all-skipped interval per sawtooth tooth).
STUCK_ITERATIONS = Thresholds().stuck_skip_streak
JUMP = 1000.0  # a loss this many times its recent median...
JUMP_NEAR = 3  # ...within this many observations of an overflow: the loss exploded
# A jump to below this after which the loss is back within RECOVERED times the median before
# it, within JUMP_NEAR losses, is a hard batch (an exploding loss neither comes back at once
# nor stays below 1)
SPIKE_CEILING = 1.0
RECOVERED = 10.0
_LOSS_FAULTS = frozenset({"AMP006", "AMP009"})
# What already explains a condition: no second diagnosis for it.
_EXPLAINED_BY = {"AMP007": frozenset({"AMP007", "AMP009"}), "AMP006": frozenset({"AMP006"})}


@dataclass
class _Point:
    step: int | None
    line: int | None
    text: str | None


@dataclass
class ExcerptJudge:
    """Collects what the excerpt shows, in bounded memory; :meth:`findings` at the end.

    Example:
        >>> judge = ExcerptJudge()
        >>> judge.event(LogEvent("progress", "deepspeed", step=2000, skipped_total=1995), 1, "")
        >>> [(f.code, f.evidence["confidence"]) for f in judge.findings()]
        [('AMP003', 'high')]
    """

    thresholds: Thresholds = field(default_factory=Thresholds)
    first_counter: tuple[int, int, int] | None = None  # (step, skipped, line)
    last_counter: tuple[int, int, int] | None = None
    streak: int = 0
    streak_start: _Point | None = None
    streak_start_scale: float | None = None
    streak_spent: int = 0  # overflows of the streak that only spent hysteresis
    collapse: tuple[_Point, int, float | None, float] | None = None
    last_overflow_scale: float | None = None
    floor_overflows: int = 0
    floor_first: _Point | None = None
    last_nonzero_loss: float | None = None
    nonzero_grad: float | None = None  # the gradient norm beside the last nonzero loss
    zeros: int = 0
    # Every zero of the run of zeros now showed a finite, positive gradient norm below
    # the one before the zeros (in a paste that opens on them, the first zero's): gradients
    # still flow and shrank with the loss.
    zeros_fit: bool = False
    zero_start: _Point | None = None
    # Zeros that finite nonzero losses ended, each run short of ZERO_LINES: a term printed
    # as 0 beside the others all along (a discriminator before its warm-up ends)...
    zero_terms: int = 0
    # ...and whether a non-finite loss came between the zeros of the run now
    zeros_beside_nonfinite: bool = False
    megatron_last: tuple[int, float | None] | None = None
    stuck_intervals: int = 0  # all-skipped intervals of the first streak that proved stuck
    stuck_first: _Point | None = None
    stuck_scale: float | None = None
    # The streak of consecutive all-skipped intervals at one scale now: (first, intervals,
    # iterations); only a long one is a stuck scale (see STUCK_ITERATIONS).
    stuck_run: tuple[_Point, int, int] | None = None
    missing_loss: _Point | None = None
    last_scale: float | None = None
    superseded: set[str] = field(default_factory=set)  # codes a finding here replaces
    # -- rows ---------------------------------------------------------------------------------
    stable_rows: int = 0  # finite training rows (not skipped) seen so far
    evaluations: int = 0  # evaluation lines seen so far (told by the session)
    evaluations_before: int = 0  # ...of them before this run began (a restart in the log)
    cascade: tuple[_Point, int] | None = None  # overflows without steps after stable rows
    streak_after_stable: bool = False  # the current streak began once training was under way
    printed_steps: deque[int] = field(default_factory=lambda: deque(maxlen=64))
    grad_rows: int = 0  # rows with a gradient norm, from the first finite one
    grad_bad: int = 0  # ...of them NaN/inf
    grad_run: int = 0  # consecutive NaN/inf ones now
    grad_longest: int = 0
    grad_first: _Point | None = None
    # ...of them on a row that counts its interval's skipped steps as none (Megatron's
    # "number of skipped iterations:   0" beside "grad norm: nan"): applied, not skipped
    grad_applied: int = 0
    halved_run: int = 0
    halved_first: _Point | None = None
    halved: tuple[_Point, int, float | None, float] | None = None
    halved_from: float | None = None
    row_scale: float | None = None  # the scale of the last row that printed one
    row_step: int | None = None  # ...and its step
    scale_steady: bool = False  # a row's scale stayed or grew: past the start-up back-off
    recent_losses: deque[float] = field(default_factory=lambda: deque(maxlen=8))
    first_loss: float | None = None  # the first finite training loss (did the loss fall?)
    since_overflow: int = JUMP_NEAR + 1  # observations since the last overflow
    # The highest finite loss so far: a loss that jumps back within it (a converged fine-tune
    # at 0.0002 meeting one hard batch at 0.4) is the run's own range, no explosion.
    loss_peak: float = -math.inf
    # A loss of this run went below 0: a difference or a log-likelihood (a WGAN critic's,
    # an ELBO's), which has no scale a jump could be a ratio of (around 0 any swing is 1000x).
    signed_loss: bool = False
    jump: tuple[_Point, float, float] | None = None  # (where, loss, median before)
    pending_jump: tuple[_Point, float, float, int] | None = None  # waits for an overflow
    # a jump's (loss, median, losses read since), for the JUMP_NEAR losses after it
    spike: tuple[float, float, int] | None = None
    # Episodes of non-finite training losses, the latest last: [first step, non-finite
    # losses, finite ones after the last of them (quiet rows included)]
    nonfinite: deque[list[int]] = field(default_factory=lambda: deque(maxlen=256))
    runs: AbandonedRuns = field(default_factory=AbandonedRuns)  # range tests, failed trials
    nonfinite_flags: int = 0  # error lines that said a loss was NaN/inf (AMP006 flags)
    # rows that print the scale beside a skip counter: the first at the floor, mostly skipped
    floor_watch: FloorWatch = field(default_factory=FloorWatch)
    floor_skips: tuple[FloorSkips, _Point] | None = None

    def trained_down(self) -> bool:
        """Whether every training loss the excerpt shows was finite, a few rows of them, the
        last below the first: a run that trains."""
        return (not self.nonfinite and self.stable_rows >= 3 and self.first_loss is not None
                and bool(self.recent_losses) and self.recent_losses[-1] < self.first_loss)

    def abandoned(self) -> bool:
        """Whether every non-finite loss ended a run that the log then began afresh and that
        trained on (abandoned_runs.py: a learning-rate range test, a search's trial, a run
        restarted after its fault), no error line having said a loss was NaN/inf."""
        return not self.nonfinite_flags and self.runs.only_abandoned()

    def event(self, event: LogEvent, line: int, text: str) -> None:
        """Take one parsed event (counters and Megatron intervals are read here)."""
        if event.kind == FLAG and event.code == "AMP006":
            self.nonfinite_flags += 1
        if event.kind == PROGRESS and event.step is not None and event.skipped_total is not None:
            counter = (event.step, event.skipped_total, line)
            if self.first_counter is None or (
                    self.last_counter is not None and event.step < self.last_counter[0]):
                # (a counter that went back counts another run's steps, or a resumed one's:
                # the skips between it and the last run's counters are no skips of a window)
                self.first_counter = counter
            self.last_counter = counter
        elif event.kind == METRICS and event.skipped_in_interval is not None:
            self._megatron(event, _Point(event.step, line, text))
        if event.step is not None and (event.kind == METRICS or event.kind == PROGRESS):
            self._floor_row(event, event.step, line, text)
        if event.kind == METRICS and event.step is not None:
            self.printed_steps.append(event.step)
            if getattr(event, "run_start", False):  # a new fit (Keras' ``Epoch 1/N`` again)
                self.runs.restart(event.step, line, fresh=True)
                self._new_run()

    def _floor_row(self, event: LogEvent, step: int, line: int, text: str) -> None:
        """A row with a step: one that prints the scale beside a skip counter is read for a
        scale at its floor under climbing skips (floor_skips.py); the others start a span."""
        pair: tuple[float, int] | None = getattr(event, "scale_skips", None)
        if pair is None:
            self.floor_watch.stepped(step, line)
            return
        found = self.floor_watch.row(step, pair[0], pair[1], line,
                                     self.thresholds.startup_skip_allowance)
        if found is not None and self.floor_skips is None:
            self.floor_skips = (found, _Point(step, line, text))

    def observation(self, obs: Observation) -> None:
        """Take one assembled step."""
        if obs.extra and obs.extra.get(RESTARTED):
            self.runs.restart(obs.step, obs.line)
            self._new_run()
        skipped = obs.was_skipped
        if skipped:
            self._overflow(obs, _Point(obs.step, obs.line, obs.text))
        elif skipped is False:
            self.streak = 0
        if obs.scale is not None:
            self.last_scale = obs.scale
        self._row(obs, skipped)
        loss = obs.loss
        if loss is not None:
            self.runs.loss(obs.step, loss)
        if loss is not None and not math.isfinite(loss):
            self.zeros_beside_nonfinite = self.zeros > 0
            last = self.nonfinite[-1] if self.nonfinite else None
            if last is not None and last[2] < ONE_OFF_AFTER:
                last[1], last[2] = last[1] + 1, 0  # the same episode goes on
            elif obs.step is not None:
                self.nonfinite.append([obs.step, 1, 0])
        elif loss is not None and self.nonfinite:
            self.nonfinite[-1][2] += 1
        if loss is not None and math.isfinite(loss):
            if loss == 0.0:
                # A paste that opens on the zeros (a memorised set's tail) shows no norm beside a
                # nonzero loss: its first zero's norm is the one the next must shrink below.
                opens = self.zeros == 0 and self.last_nonzero_loss is None
                if self.zeros == 0:
                    self.zero_start = _Point(obs.step, obs.line, obs.text)
                    self.zeros_beside_nonfinite = False
                self.zeros_fit = _still_fit(obs.grad_norm, self.nonzero_grad,
                                            self.zeros_fit or self.zeros == 0) or (
                    opens and obs.grad_norm is not None and 0.0 < obs.grad_norm < math.inf)
                if opens:
                    self.nonzero_grad = obs.grad_norm
                self.zeros += 1
            else:
                if 0 < self.zeros < ZERO_LINES:
                    self.zero_terms += 1
                self.last_nonzero_loss, self.zeros = loss, 0
                self.zeros_beside_nonfinite = False
                self.nonzero_grad = obs.grad_norm

    def one_off(self, step: int | None) -> int | None:
        """How many finite losses followed the non-finite one at ``step``, where it was the
        only one of its episode and at least :data:`ONE_OFF_AFTER` followed it; else None."""
        for first, losses, after in reversed(self.nonfinite):
            if first == step:
                return after if losses == 1 and after >= ONE_OFF_AFTER else None
        return None

    def _new_run(self) -> None:
        """A run began again in the log (its step counter went back, or an epoch's first
        batch followed another run's steps): what showed the last run under way (its rows,
        evaluations, its steady scale) says nothing of this one's start-up back-off, and its
        last scale is no scale this run's overflow lines fell from. Findings already made
        stay."""
        self.stable_rows = self.streak = self.halved_run = self.grad_rows = self.grad_run = 0
        self.evaluations_before = self.evaluations
        self.scale_steady = False
        self.row_scale = self.row_step = self.last_overflow_scale = self.last_scale = None
        self.megatron_last = self.stuck_run = None
        self.floor_watch.forget()
        # A new run's losses are no jump from the last run's (a fresh model's 2.3 after a
        # fine-tune's 0.001), nor is its first overflow beside the last run's jump.
        self.recent_losses.clear()
        self.loss_peak = -math.inf
        self.pending_jump = self.spike = None
        self.signed_loss = False

    def gap(self, first: int, steps: int, skipped: int = 0) -> None:
        """Steps ``first``.. the log did not show, ``skipped`` of them skipped: an overflow
        streak ends at an applied one, and goes on through a gap of skipped steps only."""
        if skipped < steps or steps <= 0:
            self.streak = 0
            return
        if self.streak == 0:
            self.streak_start = _Point(first, None, None)
            self.streak_start_scale = self.last_scale
            self.streak_spent = 0
        self.streak += steps

    def quiet_rows(self, rows: int, last_step: int, scale: float | None, *,
                   grad_norm: bool) -> None:
        """``rows`` lines that repeated a quiet row (an applied step each, a finite loss that
        is not 0, the scale unchanged), the last at ``last_step``: what reading them one by
        one would leave (their losses are not kept: the rows read after them are)."""
        self.streak = 0
        self.since_overflow += rows
        self.stable_rows += rows
        if self.nonfinite:
            self.nonfinite[-1][2] += rows
        self.runs.quiet(rows, last_step)
        if grad_norm and self.grad_rows:
            self.grad_rows += rows
        self.grad_run = self.zeros = self.halved_run = 0
        if scale is not None and self.row_scale == scale:
            self.scale_steady = True
        self.pending_jump = None
        self.printed_steps.append(last_step)
        if self.megatron_last is not None:
            self.megatron_last = (last_step, scale)
        self.stuck_run = None  # applied steps end a streak of all-skipped intervals

    def _row(self, obs: Observation, skipped: bool | None) -> None:
        """What one row shows beside the steps it stands for: its gradient norm, its scale
        against the previous row's, its loss against the recent ones."""
        # Where the row is (a _Point) is made only where a finding may keep it: most rows
        # only count.
        loss, norm = obs.loss, obs.grad_norm
        if skipped:
            self.since_overflow = 0
            if self.pending_jump is not None and self.jump is None:
                where, value, median, _seen = self.pending_jump
                self.jump = (where, value, median)
        else:
            self.since_overflow += 1
            if loss is not None and math.isfinite(loss) and (norm is None or math.isfinite(norm)):
                self.stable_rows += 1
        if norm is not None and not skipped:
            if math.isfinite(norm):
                self.grad_rows += 1
                self.grad_run = 0
            elif self.grad_rows:  # after the first finite one: the start-up is behind
                self.grad_rows += 1
                self.grad_bad += 1
                self.grad_run += 1
                self.grad_longest = max(self.grad_longest, self.grad_run)
                if self.grad_first is None:
                    self.grad_first = _Point(obs.step, obs.line, obs.text)
        if obs.scale_after is not None and obs.scale_before is None and not skipped:
            self._row_scale(_Point(obs.step, obs.line, obs.text), obs.scale_after)
        if loss is not None and math.isfinite(loss) and not skipped:
            if self.spike is not None:
                self._spike_after(*self.spike, loss)
            if self.first_loss is None:
                self.first_loss = loss
            recent = self.recent_losses
            # (the median is at least the smallest: most losses are not a jump from it)
            self.signed_loss = self.signed_loss or loss < 0
            if (len(recent) >= 3 and self.jump is None and loss > self.loss_peak
                    and not self.signed_loss and loss >= JUMP * min(recent)):
                median = statistics.median(recent)
                if median > 0 and loss >= JUMP * median:
                    point = _Point(obs.step, obs.line, obs.text)
                    self.spike = (loss, median, 0)
                    if self.since_overflow <= JUMP_NEAR:
                        self.jump = (point, loss, median)
                    else:
                        self.pending_jump = (point, loss, median, 0)
            recent.append(loss)
            self.loss_peak = max(self.loss_peak, loss)
        if self.pending_jump is not None and self.jump is None:
            where, value, median, seen = self.pending_jump
            self.pending_jump = (where, value, median, seen + 1) if seen < JUMP_NEAR else None

    def _spike_after(self, value: float, median: float, seen: int, loss: float) -> None:
        """A loss read within JUMP_NEAR after a jump: back near the losses before it, the
        jump and what came between below 1, the jump was a hard batch or two (a fitted
        fine-tune's 0.41 among 0.0002s, pasted without the run's start that showed the loss
        that high), no explosion."""
        self.spike = None
        if value >= SPIKE_CEILING or loss >= SPIKE_CEILING:
            return
        if loss <= RECOVERED * median:
            self.jump = self.pending_jump = None
        elif seen + 1 < JUMP_NEAR:
            self.spike = (value, median, seen + 1)

    def _row_scale(self, point: _Point, scale: float) -> None:
        """A row's logged scale against the previous row's: halved (or less) on every one of
        several consecutive rows is an overflow on every logging interval."""
        previous, self.row_scale = self.row_scale, scale
        last_step, self.row_step = self.row_step, point.step
        if last_step is not None and point.step is not None and point.step <= last_step:
            # The step counter went back: a resumed or restarted run (appended to the same
            # log), whose scaler may start over with its own start-up back-off.
            self.scale_steady = False
            self.halved_run = 0
            return
        if previous is None:
            return
        if scale >= previous:
            self.scale_steady = True
            self.halved_run = 0
            return
        if not self.scale_steady or scale > previous / 2 * (1 + 1e-6):
            self.halved_run = 0
            return
        if self.halved_run == 0:
            self.halved_first = _Point(point.step, point.line, point.text)
            self.halved_from = previous
        self.halved_run += 1
        if self.halved is None and self.halved_run >= HALVED_ROWS and self.halved_first:
            self.halved = (self.halved_first, self.halved_run, self.halved_from, scale)

    def _overflow(self, obs: Observation, point: _Point) -> None:
        if self.streak == 0:
            self.streak_start, self.streak_start_scale = point, obs.scale_before
            self.streak_after_stable = (self.stable_rows >= STABLE_ROWS
                                        or self.evaluations > self.evaluations_before)
            self.streak_spent = 0
        self.streak += 1
        # An overflow that only spent hysteresis (DeepSpeed's ``but hysteresis is 8. Reducing
        # hysteresis to 7``) kept its scale by design: a tooth of a sawtooth at hysteresis H
        # prints H lines in a row. Only the overflows the scaler backed off on make a cascade.
        self.streak_spent += _spent_hysteresis(obs)
        backed_off = self.streak - self.streak_spent
        if (self.cascade is None and self.streak_after_stable and backed_off >= CASCADE
                and self.streak_start is not None):
            self.cascade = (self.streak_start, self.streak)
        after = obs.scale_after
        # Lines that print only the new scale (apex, fairseq, ColossalAI): the one before is
        # the previous overflow's.
        fell_from = obs.scale_before if obs.scale_before is not None else self.last_overflow_scale
        # A cascade before training was seen under way may be the start-up back-off: where
        # its first scale is not printed (only the new one is), it may have begun as low as
        # fairseq's initial 128, whose back-off reaches 8 in four halvings (fairseq sums the
        # loss over tokens: its healthy scales sit at 4 to 64). The monitor judges those.
        known_start = self.streak_after_stable or self.streak_start_scale is not None
        if (self.collapse is None and backed_off >= HALVINGS and after is not None
                and after <= LOW_SCALE and fell_from is not None and known_start
                and fell_from > after and self.streak_start is not None):
            self.collapse = (self.streak_start, self.streak, self.streak_start_scale, after)
        # Pinned: the scale did not fall (lines printing only the new scale repeat it). An
        # overflow that only spent hysteresis (DeepSpeed's ``but hysteresis is 2``) kept its
        # scale by design, at any scale: no floor held it.
        before = obs.scale_before if obs.scale_before is not None else self.last_overflow_scale
        if (before is not None and after is not None and before <= FLOOR and after == before
                and obs.hysteresis is None):
            if self.floor_overflows == 0:
                self.floor_first = point
            self.floor_overflows += 1
        self.last_overflow_scale = after

    def _backed_off(self, event: LogEvent) -> bool:
        """Whether a Megatron line without a loss counts every iteration of its interval
        skipped and none NaN: the loss is left out because no iteration advanced, and the
        skipped ones' losses were finite (``training_log`` checks a skipped iteration's loss
        for NaN; an applied NaN loss is left out too, as its average is not above 0, with
        nothing skipped)."""
        skipped, step = event.skipped_in_interval, event.step
        if event.nan_in_interval != 0 or not skipped or step is None:
            return False
        before = self.megatron_last[0] if self.megatron_last is not None else 0
        return step - before <= skipped

    def _megatron(self, event: LogEvent, point: _Point) -> None:
        if event.grad_norm is not None and not math.isfinite(event.grad_norm):
            if event.loss is None and self.missing_loss is None and not self._backed_off(event):
                self.missing_loss = point
            if event.skipped_in_interval == 0 and self.grad_rows:  # (counted as grad_bad is)
                self.grad_applied += 1
        previous, self.megatron_last = self.megatron_last, (event.step or 0, event.scale_after)
        if previous is None or event.step is None or event.scale_after is None:
            return
        interval = event.step - previous[0]
        if not (interval > 0 and event.skipped_in_interval == interval
                and event.scale_after == previous[1]):
            if (self.stuck_run is not None and self.stuck_first is self.stuck_run[0]
                    and event.skipped_in_interval and previous[1] is not None
                    and event.scale_after < previous[1]):
                # The streak ended in a back-off: the scaler spent its hysteresis (Megatron's
                # --hysteresis 5 skips four iterations at the scale, then halves), it is not
                # stuck. A static scale, or one update() never reaches, never halves.
                self.stuck_first = self.stuck_scale = None
                self.stuck_intervals = 0
            self.stuck_run = None  # an applied step or a back-off ends the streak
            return
        first, intervals, iterations = self.stuck_run or (point, 0, 0)
        self.stuck_run = (first, intervals + 1, iterations + interval)
        if iterations + interval < STUCK_ITERATIONS:
            return  # a hysteresis skip, not a scale that never backs off
        if self.stuck_first is None:
            self.stuck_first, self.stuck_scale = first, event.scale_after
        if self.stuck_first is first:
            self.stuck_intervals = intervals + 1

    # -- verdicts -------------------------------------------------------------------------------

    def findings(self, known: set[str] | frozenset[str] = frozenset(), *,
                 scaled: bool = True) -> list[Finding]:
        """What the excerpt proves that ``known`` (the codes already diagnosed) does not
        explain, each with its confidence. ``scaled=False``: the run has no loss scaler
        (skipped steps there are not a loss-scale matter)."""
        out: list[Finding] = []
        scale_known = known & SCALE_CODES
        # (a scale at its floor while a printed counter climbs says where it began: first)
        under_skips = self._floor_under_skips()
        floor = under_skips or self._floor()
        # NaN/inf gradients on rows whose loss is known to be non-finite are its consequence.
        loss_known = bool(known & _LOSS_FAULTS)
        grad = None if loss_known else self._grad_rows()
        # Rows that say their steps were applied (none skipped) with NaN/inf gradients: no loss
        # scaler skipped them (a bf16 Megatron run prints "loss scale: 1.0"), whatever the
        # setup says.
        applied = grad is not None and self.grad_applied >= self.grad_bad
        if scaled and under_skips is not None and "AMP005" in scale_known:
            # A scale at its floor while the printed skips climb is not stuck either (beside
            # the AMP003 a cumulative counter already gave): it cannot go lower.
            self.superseded.add("AMP005")
            if "AMP003" not in scale_known:
                out.append(under_skips)
        elif scaled and floor is not None and scale_known == {"AMP005"}:
            # A constant scale at the floor is not stuck: it cannot go lower.
            self.superseded.add("AMP005")
            out.append(floor)
        elif scaled and scale_known <= {"AMP004"}:
            scale = (under_skips, self._counter(), self._collapse(), floor, self._stuck(),
                     self._cascade(),
                     self._halved_rows(), self._jump(), None if applied else grad)
            found = next((f for f in scale if f is not None), None)
            # A scale already known to be below 1 still leaves its cause to tell: the
            # overflow cascade that drove it there (rows that each show the scale halved)
            if found is not None and (not scale_known or found.code == "AMP003"):
                out.append(found)
        if grad is not None and (applied or not scaled):
            # no loss scaler skipped them: NaN/inf gradients were applied
            out.append(replace(grad, code="AMP006", summary=grad.summary.replace(
                "overflowed (a loss scaler skips such steps)", "were applied")))
        normal = self.last_nonzero_loss
        if "AMP007" in known and self.zeros and normal is not None and abs(normal) < NORMAL_LOSS:
            # The zeros follow a loss that decayed towards them (HF's Trainer rounds to four
            # places: 0.0002, 0.0001, then 0.0): rounded away, not a collapse to an exact 0.
            self.superseded.add("AMP007")
        if "AMP007" in known and self.zeros and self.zeros_fit:
            # The zeros shrank the gradient norm with them, finite and above 0: a fit whose
            # loss the print rounded to 0 (HF's Trainer averages a logging interval and
            # rounds to four places: 0.2, then 0.0 on a memorised set), not a scale that
            # underflowed (norm 0) or skipped steps (norm NaN/inf).
            self.superseded.add("AMP007")
        for finding in (self._zero_loss(), self._missing_loss()):
            if finding is not None and not (
                    known | {f.code for f in out}) & _EXPLAINED_BY[finding.code]:
                out.append(finding)
        return out

    def _counter(self) -> Finding | None:
        if self.last_counter is None or self.first_counter is None:
            return None
        step, skipped, line = self.last_counter
        first_step, first_skipped, _ = self.first_counter
        span, skips = step - first_step, skipped - first_skipped
        if span >= MIN_COUNTER_STEPS:  # the excerpt's own window
            basis = f"{skips} of the {span} steps between two counters were skipped"
        else:  # the run so far, the start-up back-off deducted
            span = step
            skips = skipped - min(skipped, self.thresholds.startup_skip_allowance)
            basis = f"the counter says {skipped} of {step} steps were skipped"
        if span < MIN_COUNTER_STEPS:
            return None
        share = skips / span
        if share < HIGH_SHARE:
            return None
        code = "AMP003" if share >= COLLAPSE_SHARE else "AMP008"
        return _finding(code, step, line, None,
                        f"{basis} ({share:.0%}): "
                        + ("the optimizer hardly updates the weights" if code == "AMP003"
                           else "many updates are wasted"),
                        "high" if span >= 200 else "medium",
                        {"skipped": skips, "steps": span, "skip_share": round(share, 4)})

    def _collapse(self) -> Finding | None:
        if self.collapse is None:
            return None
        start, count, first_scale, last_scale = self.collapse
        return _finding("AMP003", start.step, start.line, start.text,
                        f"{count} consecutive overflows took the loss scale from "
                        f"{_fmt(first_scale)} to {_fmt(last_scale)}: no healthy run overflows "
                        "down to such a scale", "medium" if count < 6 else "high",
                        {"consecutive_skipped": count, "scale_at_start": first_scale,
                         "scale_now": last_scale})

    def _floor(self) -> Finding | None:
        if self.floor_overflows < FLOOR_OVERFLOWS or self.floor_first is None:
            return None
        first = self.floor_first
        return _finding("AMP003", first.step, first.line, first.text,
                        f"{self.floor_overflows} overflows with the loss scale pinned at its "
                        "floor: it cannot go lower and the gradients still overflow",
                        "high" if self.floor_overflows >= 6 else "medium",
                        {"overflows_at_floor": self.floor_overflows})

    def _floor_under_skips(self) -> Finding | None:
        if self.floor_skips is None:
            return None
        found, point = self.floor_skips
        return _finding("AMP003", point.step, point.line, point.text,
                        f"the loss scale sits at {_fmt(found.scale)}, its floor, while the "
                        f"printed skip counter rose by {found.skipped} over the {found.steps} "
                        f"steps up to this row ({found.share:.0%}): every step overflows and "
                        "the scale cannot go lower",
                        "high" if found.skipped >= HIGH_SKIPS else "medium",
                        {"scale": found.scale, "skipped": found.skipped, "steps": found.steps,
                         "skip_share": round(found.share, 4)})

    def _stuck(self) -> Finding | None:
        if self.stuck_intervals == 0 or self.stuck_first is None:
            return None
        first = self.stuck_first
        return _finding("AMP005", first.step, first.line, first.text,
                        f"every iteration of {self.stuck_intervals} logging interval(s) was "
                        f"skipped at a constant loss scale of {_fmt(self.stuck_scale)}: the "
                        "scale never backs off", "medium" if self.stuck_intervals < 3 else "high",
                        {"intervals_all_skipped": self.stuck_intervals,
                         "scale": self.stuck_scale})

    def interval(self) -> int | None:
        """The logging interval the printed steps show (the commonest difference), or None."""
        steps = list(self.printed_steps)
        gaps = Counter(b - a for a, b in itertools.pairwise(steps) if b > a)
        return gaps.most_common(1)[0][0] if gaps else None

    def _in_rows(self) -> str:
        interval = self.interval()
        if interval is None:
            return "judged in log rows (the rows print no step: the interval is not known)"
        if interval == 1:
            return "one row per step"
        return f"judged in log rows, one every {interval} steps"

    def _cascade(self) -> Finding | None:
        if self.cascade is None:
            return None
        start, count = self.cascade
        basis = (f"{self.stable_rows} finite training row(s)" if self.stable_rows >= STABLE_ROWS
                 else f"{self.evaluations} evaluation line(s)")
        return _finding("AMP003", start.step, start.line, start.text,
                        f"{count} consecutive overflow lines after {basis}: training was under "
                        "way, so this is no start-up back-off but persistent overflow",
                        "high" if count >= 2 * CASCADE else "medium",
                        {"consecutive_skipped": count, "stable_rows": self.stable_rows,
                         "evaluations": self.evaluations})

    def _halved_rows(self) -> Finding | None:
        if self.halved is None:
            return None
        start, count, first, last = self.halved
        return _finding("AMP003", start.step, start.line, start.text,
                        f"the logged loss scale fell on {count} consecutive rows "
                        f"({_fmt(first)} -> {_fmt(last)}), {self._in_rows()}: an overflow on "
                        "every logging interval, not a sawtooth",
                        "high" if count >= 2 * HALVED_ROWS else "medium",
                        {"rows_halved": count, "scale_at_start": first, "scale_now": last,
                         "interval": self.interval()})

    def _jump(self) -> Finding | None:
        if self.jump is None:
            return None
        point, loss, median = self.jump
        return _finding("AMP003", point.step, point.line, point.text,
                        f"the loss jumped to {loss:g}, {loss / median:.0f}x its recent median "
                        f"{median:g}, beside an overflow: the loss is exploding (usually the "
                        "learning rate), not a sawtooth", "medium",
                        {"loss": loss, "loss_before": median, "jump": round(loss / median)})

    def _grad_rows(self) -> Finding | None:
        bad, rows = self.grad_bad, self.grad_rows
        if self.grad_first is None or bad < FAULT_ROWS or bad < ROW_SHARE * rows:
            return None
        first = self.grad_first
        persistent = self.grad_longest >= FAULT_ROWS
        code = "AMP003" if persistent else "AMP008"
        what = (f"{self.grad_longest} consecutive rows" if persistent
                else f"{bad} of {rows} rows")
        return _finding(code, first.step, first.line, first.text,
                        f"the gradient norm is NaN/inf on {what} after the start-up, "
                        f"{self._in_rows()}: the steps those rows sample overflowed (a loss "
                        "scaler skips such steps)" + ("; a healthy run overflows about once "
                                                      "per growth interval" if not persistent
                                                      else ""),
                        "high" if bad >= 2 * FAULT_ROWS else "medium",
                        {"rows_nonfinite_grad_norm": bad, "rows": rows,
                         "consecutive": self.grad_longest, "interval": self.interval()})

    def _zero_loss(self) -> Finding | None:
        normal = self.last_nonzero_loss
        if self.zeros < ZERO_LINES or normal is None or abs(normal) < NORMAL_LOSS \
                or self.zero_start is None or self.zeros_fit:
            return None
        if self.zeros_beside_nonfinite and self.zero_terms >= ZERO_LINES:
            # A term printed as 0 between the other losses all along (007d83QQ/FewShot-
            # TraditionalChinese-Handwriting ``training.py``'s ``template_D loss: 0.000000``
            # through its warm-up), its zeros now side by side only because the losses
            # between them turned NaN (no finite loss ends their run): no drop to 0.
            return None
        start = self.zero_start
        return _finding("AMP007", start.step, start.line, start.text,
                        f"the loss is exactly 0.0 on the last {self.zeros} lines, after "
                        f"{normal:g}: an abrupt drop to 0, not convergence",
                        "medium" if self.zeros < self.thresholds.zero_loss_steps else "high",
                        {"zero_lines": self.zeros, "loss_before": normal})

    def _missing_loss(self) -> Finding | None:
        point = self.missing_loss
        if point is None:
            return None
        return _finding("AMP006", point.step, point.line, point.text,
                        "the gradient norm is NaN/inf and the iteration line has no loss: "
                        "Megatron leaves the loss out when every iteration of the interval was "
                        "skipped or non-finite", "medium", {})


def _still_fit(grad: float | None, before: float | None, fit_so_far: bool) -> bool:
    """Whether a zero loss beside gradient norm ``grad`` keeps the zeros a fit: a finite,
    positive norm below ``before`` (the norm beside the last nonzero loss)."""
    return (fit_so_far and grad is not None and before is not None and math.isfinite(before)
            and 0.0 < grad < before)


def _finding(code: str, step: int | None, line: int | None, text: str | None, summary: str,
             confidence: str, evidence: dict[str, object]) -> Finding:
    return Finding(
        code, step, f"{summary} (judged from the excerpt; confidence: {confidence})",
        evidence={**evidence, "basis": "excerpt", "confidence": confidence},
        severity=Severity.WARNING if confidence == "low" else None,
        lines=(line,) if line is not None else (), quotes=(text,) if text else ())


def _spent_hysteresis(obs: Observation) -> bool:
    """Whether an overflow only spent the scaler's hysteresis: some left after it and the
    scale kept (``Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to
    1``)."""
    return (obs.hysteresis is not None and obs.hysteresis >= 1
            and obs.scale_before == obs.scale_after)


def _fmt(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"
