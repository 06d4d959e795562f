"""Turns parsed log events into the core's Observations: steps, ranks, duplicates.

Log lines rarely say everything an Observation holds. The assembler:
- numbers steps: a step printed on the line wins; otherwise each skipped step counts one,
  and progress lines (DeepSpeed ``step=``, a tqdm counter) re-synchronise the count; the
  steps in between are a gap, handed on as a count (``on_gap``), never as made-up
  observations;
- reads skipped steps from a rank's logged scale alone (see
  :mod:`denpex_callbacks.logs.scale_steps`): halved between consecutive steps, the step was
  skipped; halved ``k`` times over a gap, ``k`` of the gap's steps were;
- merges the lines that describe one overflow: the same overflow printed once per rank, or
  split over several lines (``Grad overflow on iteration 5`` + ``Reducing dynamic loss scale
  from 64 to 32``), is one skipped step;
- places interval summaries (Megatron: ``number of skipped iterations: 3`` over 10
  iterations) on single steps: skipped steps first during the start-up back-off, evenly
  spread afterwards, so a healthy sawtooth never looks like a streak; the count is the log's,
  the places are a convention, and no scale is made up for them (only the interval's final
  scale is known);
- tracks which rank saw a non-finite loss first.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from denpex_callbacks.core.diagnosis import STEP_BASIS, Finding
from denpex_callbacks.core.observation import (
    RESTARTED,
    RESTARTED_AT,
    SCALE_BELOW,
    SPAN_UNKNOWN,
    Observation,
)
from denpex_callbacks.logs.epoch_summaries import EpochSummaries
from denpex_callbacks.logs.events import (
    EVAL,
    FLAG,
    FP16_SHOWN,
    FROM_START,
    GROWTH,
    IN_STEP,
    METRICS,
    NO_SCALER_SHOWN,
    OVERFLOW,
    OWN_COUNT,
    PROGRESS,
    RUN_SAID,
    RUN_START,
    SCALE_KEPT,
    SETUP,
    SOLE_COUNT,
    SUMMARY,
    UNDER_WAY_KEY,
    LogEvent,
)
from denpex_callbacks.logs.logging_interval import LoggingInterval, row_epoch
from denpex_callbacks.logs.row_overflows import MAX_HELD, first_of_run
from denpex_callbacks.logs.scale_steps import (
    GrowthBounds,
    ScaleChange,
    fell_faster,
    read_change,
)
from denpex_callbacks.logs.sole_counts import BEGAN, HELD, SoleCounts
from denpex_callbacks.logs.step_basis import EPOCH, INTERVAL, PRINTED, ROWS, BasisTrail
from denpex_callbacks.logs.step_spans import StepSpans
from denpex_callbacks.logs.trailing_steps import TrailingSteps

# The families of skips printed once per skipped step: the message table's (known_messages)
# and the overflow sentences in any wording (overflow_sentences).
SKIPPING = frozenset({"messages", "sentences"})
HF = "hf"  # HF Trainer's rows (hf.py): numbered by the logging interval where the log says it
MAX_GAP = 20_000  # the longest gap taken as steps; a bigger jump is a restart or resume
# How far a row's step counter may go back and still be the same run: ranks' rows of one
# logging step interleave a little; a counter that goes back further started a run again.
RESTART_BACK = 50
# An overflow line right above a block of metrics (its first row this many lines below, a
# rule of dashes between) whose scale is still the overflow's old one, within this much, is
# that block's step (see Assembler._block_of_overflow): guided-diffusion's mean over 10 steps
# of a scale grown 2**0.001 a step is 0.3% below it; an overflow one step earlier leaves 7%.
BLOCK_BELOW = 2
BLOCK_SCALE_TOLERANCE = 0.005
# A scale that grew between two overflow lines proves applied steps in between (at least one
# growth window) even when the log prints no step counter. How many is not printed: this many
# are counted (a gap, not observations), enough to keep a sawtooth under the skip-rate
# threshold.
GROWTH_GAP = 32
# The families whose overflow line may keep the scale it names, no growth between, where the
# log's configuration shows a tolerance above 0 (``scale_tolerance``; fairseq's default, 0.0,
# halves the scale on every overflow, so two alike NOTEs have a growth between them): fairseq's
# scaler under ``--fp16-scale-tolerance`` lowers the scale only once overflows pass that share
# of the steps since the last rescale (fairseq/optim/dynamic_loss_scaler.py check_overflow:
# ``if pct_overflow >= self.tolerance: self._decrease_loss_scale()``), each NOTE naming the
# scale kept; a growth would need a scale window of updates (``2**14`` over the world size by
# default), over which its ``train_inner`` rows (every ``--log-interval``, 100) are printed.
SCALE_MAY_STAY = frozenset({"fairseq"})
# The families whose overflow line only the master prints, each line a skipped step: fairseq
# sets the other ranks' logging to WARNING (fairseq/distributed/utils.py distributed_init:
# ``logging.getLogger().setLevel(logging.WARNING)`` where not ``is_master``) and its NOTE is
# an INFO line. Two alike, one after the other, are two steps, not one step two ranks printed.
# Read so only where the log shows a tolerance (as SCALE_MAY_STAY): without it two alike NOTEs
# are read as one overflow, as before, since each would otherwise be a step with a guessed
# growth window (GROWTH_GAP) before it, which put a cascade's collapse thousands of steps late.
MASTER_ONLY = frozenset({"fairseq"})
# A scale (an overflow line's, a Megatron row's) back up at least this many times the last one
# seen, sooner than doubling once a growth window could regrow it, is a run started again (a
# sweep's next run, a resume without the optimizer's state, no banner): its scaler's start-up
# back-off.
RESTART_JUMP = 16
# The growth window assumed where the log does not tell it: half the defaults of the scalers
# whose overflow lines print the scale (DeepSpeed's and ColossalAI's 1000, torch's and apex's
# 2000).
MIN_GROWTH_WINDOW = 500
# How many steps of rows without a step counter are kept to number the same rows of the other
# ranks (see Assembler._row_step): ranks flush their output in blocks far smaller than this.
_ROWS_KEPT = 8192


@dataclass
class _Overflow:
    """One overflow being assembled from one or more lines."""

    step: int | None
    scale_before: float | None
    scale_after: float | None
    hysteresis: int | None
    ranks: set[int | None]
    lines: list[int]
    texts: list[str]
    scale_may_stay: bool = False  # (see SCALE_MAY_STAY)
    below: float | None = None  # its new scale was printed as 0 below this (SCALE_BELOW)

    def accepts(self, event: LogEvent) -> bool:
        """True when ``event`` describes this same overflow (another rank, or more detail)."""
        for mine, theirs in ((self.step, event.step), (self.scale_before, event.scale_before),
                             (self.scale_after, event.scale_after),
                             (self.hysteresis, event.hysteresis)):
            if mine is not None and theirs is not None and mine != theirs:
                return False
        if event.rank is not None and event.rank in self.ranks:
            return False  # the same rank again: a new step
        if (self.step is None and event.step is not None and event.scale_before is None
                and event.scale_after is None
                and (self.scale_before is not None or self.scale_after is not None)):
            # a line that names only its step opens its overflow (DeepSpeed's ``Grad overflow
            # on iteration {i}`` before its ``Reducing dynamic loss scale``): the scales read
            # before it were the step before's (an excerpt cut between the two lines)
            return False
        if event.family in MASTER_ONLY and self.scale_may_stay:
            return False
        if event.family in SKIPPING and event.scale_before is None and event.scale_after is None:
            # a skip that says nothing but itself (ESPnet's, SpeechBrain's, ColossalAI's), from
            # tools that print it once per skipped step on the rank that logs: each a step
            return False
        floor = self.scale_before is not None and self.scale_before == self.scale_after
        return not (floor and event.rank is None and None in self.ranks
                    and event.step is None and self.step is None)

    def merge(self, event: LogEvent, line: int, text: str) -> None:
        """Fill in what ``event`` adds."""
        self.step = self.step if self.step is not None else event.step
        self.scale_before = _first(self.scale_before, event.scale_before)
        self.scale_after = _first(self.scale_after, event.scale_after)
        self.hysteresis = self.hysteresis if self.hysteresis is not None else event.hysteresis
        self.ranks.add(event.rank)
        if len(self.lines) < 8:
            self.lines.append(line)
            self.texts.append(text)


def _first(a: float | None, b: float | None) -> float | None:
    return a if a is not None else b


@dataclass(frozen=True)
class Printed:
    """The lines of a quiet run, in a gap: each an applied step a rank printed at ``scale``
    (its loss finite), counted rather than read."""

    rows: int
    scale: float | None
    rank: int


class OnGap(Protocol):
    """Told of steps that were not observed one by one: how many, how many of them skipped,
    and the lines of a quiet run among them (None: a plain gap)."""

    def __call__(self, steps: int, skipped: int, printed: Printed | None = None, /) -> Any:
        ...


# The lines a flag's diagnosis lists (its occurrences), and the flags held for fp16 shown: at
# most this many (a warning a log prints every step).
FLAG_LINES = 50


@dataclass
class Assembler:
    """Feeds Observations and line-level Findings to two callables, in log order.

    Example:
        >>> seen, gaps = [], []
        >>> a = Assembler(seen.append, seen.append, lambda steps, skipped: gaps.append(steps))
        >>> from denpex_callbacks.logs.events import LogEvent
        >>> for rank in (0, 1):  # one overflow printed by two ranks
        ...     a.feed(LogEvent("overflow", "deepspeed", rank=rank, scale_before=8.0,
        ...                     scale_after=4.0), line=rank + 1, text="...")
        >>> a.feed(LogEvent("progress", "deepspeed", step=3, skipped_total=1), 3, "...")
        >>> a.finish()
        >>> # steps 2-3: applied, not seen (3, the progress line's own, once no row of it came)
        >>> [(o.step, o.was_skipped) for o in seen], gaps
        ([(1, True)], [1, 1])
    """

    on_observation: Callable[[Observation], Any]
    on_flag: Callable[[Finding], Any]
    # Told of steps that were not observed one by one: how many, how many of them skipped,
    # the quiet run's lines among them.
    on_gap: OnGap
    clock: int = 0
    setup: dict[str, Any] = field(default_factory=dict)
    ranks: set[int] = field(default_factory=set)
    first_nonfinite: dict[int, tuple[int, int]] = field(default_factory=dict)
    flags: dict[str, list[int]] = field(default_factory=dict)
    overflow_lines: int = 0
    # Metrics rows that printed their step, and rows numbered by their place in the log
    # (no step counter on them): a log of the latter only is judged in rows.
    printed_rows: int = 0
    counted_rows: int = 0
    # How often a row's printed step was below, and above, the row's before: a log listed
    # newest line first runs backwards (newest_first.py; the doctor reads it again reversed).
    steps_back: int = 0
    steps_forward: int = 0
    _last_printed: int | None = None
    # How often HF Trainer printed a row, where the log's arguments say (logging_interval.py):
    # its rows without a step are numbered by it, each rank's k-th row the same step.
    row_interval: LoggingInterval | None = None
    # Each rank's rows under it, and its first and last row's epoch (None: none printed): a
    # row back at the first epoch after later ones is a run begun again from its start (the
    # script run again after a crash).
    _interval_rows: dict[int | None, tuple[int, tuple[float, float] | None]] = field(
        default_factory=dict)
    # Each rank's first HF row's epoch in the log and its last one's, kept across runs: where
    # no interval numbers the rows, a row back at the log's first epoch after later ones, the
    # first after a line that starts a run (the last run's summary), begins its run's count
    # again; a resumed run prints its epochs on from its checkpoint's.
    _row_epochs: dict[int | None, tuple[float, float]] = field(default_factory=dict)
    # A metrics row was read since the last overflow line: in a log that prints each
    # overflow, the next row's step overflowed not (see _metrics).
    _row_since_overflow: bool = False
    _pending: _Overflow | None = None
    # Step-less overflow lines read since the last row that printed its step, not yet numbered:
    # the next row says whether they were the steps up to it (row_overflows.py).
    _held_lines: list[_Overflow] = field(default_factory=list)
    # ...and the row below them, read but not yet handed on: (the row, its line, its text,
    # whether a progress line counted it) until the next event says whether the lines run on
    # past it.
    _row_waiting: tuple[LogEvent, int, str, bool] | None = None
    _any_clean: bool = False
    _clean_since_skip: bool = True
    _last_scale: float | None = None
    _last_scale_step: int = 0  # ...the step it was seen at
    _restarted: bool = False  # a run began on the last row read: its first observation says so
    _restarted_at: int | None = None  # ...at this earlier step (see RESTARTED_AT)
    # A line that starts a run was read after steps: the next step counter a line prints is
    # the new run's own (see _counts_anew).
    _count_open: bool = False
    # the counts one process alone prints, and one gone back held: (step, line, all skipped)
    _sole: SoleCounts = field(default_factory=SoleCounts)
    _sole_held: tuple[int, int, bool] | None = None
    _engine_counted: bool = False  # a count of every step (``step=N, skipped=K``) was read
    _own_offset: int | None = None  # the run's step less an optimizer's own count (OWN_COUNT)
    _last_metrics: tuple[int | None, float | None, int | None] | None = None
    _skipped_total: int = 0
    _counts_read: bool = False  # a row's cumulative skip count was read
    _skipped_step: int | None = None  # the step of the last overflow emitted
    # the step of the last skip said before its own row (``IN_STEP``) while that row is unread
    _row_awaited: int | None = None
    # (step, line) of a progress line (DeepSpeed's ``step=N, skipped=K``) whose own step is not
    # counted yet: HF's Trainer prints that step's row right after it, with no step of its own
    # (DeepSpeed's engine steps inside the Trainer's step, which logs after it). Third: its
    # cumulative count says every step so far was skipped (``step=1, skipped=1``: a run's
    # start-up back-off, its overflow line cut off above the excerpt), so the step was too.
    _progress: tuple[int, int, bool] | None = None
    _rank_scales: dict[int, tuple[int, float]] = field(default_factory=dict)  # last logged
    # Per rank: skipped steps shown one by one (overflow lines) since its last logged scale.
    _rank_skips: dict[int, int] = field(default_factory=dict)
    # Per rank: clean steps seen one by one since the scale last changed (None: not known).
    _rank_clean_run: dict[int, int | None] = field(default_factory=dict)
    # Rows without a step counter from ranks that a prefix names: how many each rank printed,
    # and the step the k-th of them was given (from ``_row_base`` on; see _row_step).
    _rank_rows: dict[int, int] = field(default_factory=dict)
    _row_steps: list[int] = field(default_factory=list)
    _row_base: int = 0
    _row_high: int = 0  # the highest step a row without a named rank printed
    _row_first: int | None = None  # the lowest step such a row printed: a count starts there
    interval_learned: bool = False  # setup's growth_interval read from the scale's doublings
    _stretches: set[int] = field(default_factory=set)  # clean stretches that ended in a growth
    # Where the steps numbered by counting (overflow lines between two step counters) lie
    # between the printed ones: a diagnosis on one says the span, not the counted step.
    spans: StepSpans = field(default_factory=StepSpans)
    # Where the steps came from (printed, counted across epochs, samples, rows), kept where
    # it changes: each diagnosis says the basis of its step (step_basis.py).
    bases: BasisTrail = field(default_factory=BasisTrail)
    # Records whose step row comes last, below the rows of its terms (trailing_steps.py)
    _trailing: TrailingSteps = field(default_factory=TrailingSteps)
    # An epoch's summary row below the row that printed its step (epoch_summaries.py)
    _summaries: EpochSummaries = field(default_factory=EpochSummaries)
    _longest: int = 0  # the longest of them, once the interval is learnt
    growth_bounds: GrowthBounds = field(default_factory=GrowthBounds)  # ...from spaced rows
    # Flags that count only where other lines show fp16 asked for (``FP16_SHOWN``) or show
    # no loss scaler (``NO_SCALER_SHOWN``), held to the end: (that condition, the flag at the
    # step it was read at, line, text).
    _held: list[tuple[str, LogEvent, int, str]] = field(default_factory=list)
    _scale_seen: bool = False

    def feed(self, event: LogEvent, line: int, text: str) -> None:
        """Take one event read from ``line``."""
        if self._row_waiting is not None:
            self._row_goes_on(event.kind == OVERFLOW and event.step is None
                              and not event.evidence.get(IN_STEP))
        if event.rank is not None:
            self.ranks.add(event.rank)
        kind = event.kind
        if self._sole_held is not None and event.step is not None and kind in (
                PROGRESS, METRICS, OVERFLOW):
            self._sole_told(event)
        progress_row = False  # the row of the step the last progress line counted
        if self._progress is not None:
            # (its row prints no step, or the progress line's own: HF's bar before the dict;
            # counted in a gap and again as a row, the step was two steps)
            progress_row = (kind == METRICS and event.step in (None, self._progress[0])
                            and event.skipped_total is None and event.skipped_in_interval is None)
            if progress_row:
                self._progress = None  # (the clock stands before it: the row is that step)
            elif kind == PROGRESS and event.step is not None and event.step > self._progress[0]:
                self._progress = None  # counted in the gap up to this line's step: one gap
            else:
                self._count_progress()
        if kind == SETUP:
            if event.setup.get(RUN_START):
                self._run_start()
            self.setup.update({k: v for k, v in event.setup.items() if k != RUN_START})
            return
        if kind in (EVAL, SUMMARY):
            return  # no training step: the evaluation stream is judged on its own
        if (self._count_open and event.step and kind in (PROGRESS, METRICS, OVERFLOW)
                and not event.evidence.get(OWN_COUNT)):
            # (a count of 0 is no step yet: DeepSpeed's engine prints step=0 at initialize,
            # before a resumed run loads the checkpoint that its count goes on from)
            self._counts_anew(event.step)
        if kind == FLAG:
            self._flush()
            if event.step is not None and event.step > self.clock + 1:
                # "at iteration 42": the steps before it were applied; what the next lines
                # print without a step belongs to it
                self._catch_up(event.step - 1, line)
            self._flag(event, line, text)
            return
        if kind == OVERFLOW and not self._setup_stands(event):
            self._setup_cut()
        if kind == OVERFLOW and self._without_scaler(event):
            self._flush()
            self._skip_without_scaler(event, line, text)
            return
        if kind == OVERFLOW and event.step is None and event.evidence.get(IN_STEP):
            self._skip_in_step(event, line, text)
            return
        if kind == OVERFLOW and event.step is not None and event.evidence.get(OWN_COUNT):
            event = replace(event, step=self._engine_step(event.step))
        if kind == OVERFLOW:
            self.overflow_lines += 1
            self._row_since_overflow = False
            if self._pending is not None and self._pending.accepts(event):
                self._pending.merge(event, line, text)
                return
            self._hold_or_flush()
            self._pending = _Overflow(event.step, event.scale_before, event.scale_after,
                                      event.hysteresis, {event.rank}, [line], [text],
                                      event.family in SCALE_MAY_STAY
                                      and bool(self.setup.get("scale_tolerance")),
                                      event.evidence.get(SCALE_BELOW))
            return
        if kind == METRICS and self._pending is not None and (
                self._scale_of_overflow(event) or self._block_of_overflow(event, line)):
            return
        if kind == METRICS and event.step is not None and self._rows_wait(event):
            self._row_waiting = (event, line, text, progress_row)
            return
        self._flush()
        if kind == PROGRESS and event.step is not None:
            self._engine_counted = self._engine_counted or event.skipped_total is not None
            # a count of every step so far (``step=3, skipped=3``): the steps up to it, cut
            # off above the excerpt, were the run's start-up back-off, not applied steps
            all_skipped = event.skipped_total is not None and event.skipped_total >= event.step
            if event.evidence.get(SOLE_COUNT) and event.step and (
                    self._sole.read(event.step) == HELD):
                # (closer than RESTART_BACK too: step=1 after step=40, no banner between)
                self._sole_held = (event.step, line, all_skipped)
            if all_skipped and event.step < self.clock - RESTART_BACK and event.step > 0:
                # ...and a counter gone back so: a new run (a sweep's next, a rerun appended)
                # whose first steps were the overflow lines just read
                self._sole_held = None
                self._begin_run(None)
                self._restarted_at = self.clock - event.step + 1
            self._catch_up(event.step - 1, line, skipped=event.step if all_skipped else 0)
            self.spans.printed(event.step)
            self.bases.note(event.step, PRINTED)
            if event.step == self.clock + 1:  # counted with its row, or before the next
                self._progress = (event.step, line, all_skipped)
        elif kind == GROWTH:
            self._emit(Observation(self.clock + 1, rank=event.rank or 0,
                                   scale_before=event.scale_before,
                                   scale_after=event.scale_after, skipped=False,
                                   line=line, text=text), counted=True)
        elif kind == METRICS:
            self._metrics(event, line, text, applied=progress_row)

    def settle(self) -> None:
        """Hand on a row still waiting for the next event (see _rows_wait) before the clock is
        read for something the assembler is not fed (an evaluation's step): the lines above it
        numbered on from the row before."""
        self._row_goes_on(False)

    def finish(self) -> None:
        """Flush what is pending at the end of the input; the held flags count where the
        log showed fp16 asked for, or no loss scaler, as each asks."""
        self.settle()
        self._flush()
        self._count_progress()
        held, self._held = self._held, []
        for condition, event, line, text in held:
            if self._fp16_shown() if condition == FP16_SHOWN else not self._scaler_shown():
                self._raise_flag(event, event.step, line, text)

    def _fp16_shown(self) -> bool:
        """Whether lines other than the held flags show fp16 asked for: an fp16 setup, a loss
        scale, an overflow, or another flag of fp16 asked for and not active."""
        return (self.setup.get("active_precision") == "fp16-mixed" or self._scale_seen
                or self.overflow_lines > 0 or "AMP010" in self.flags)

    def _scaler_shown(self) -> bool:
        """Whether lines other than the held flags show a loss scaler: a setup's scaler (a
        tool's line that it made one), or a loss scale read."""
        return self.setup.get("scaler") is not None or self._scale_seen

    def _count_progress(self) -> None:
        """Count the step of the last progress line, which no row of its own followed."""
        if self._progress is not None:
            step, line, skipped = self._progress
            self._progress = None
            self._catch_up(step, line, skipped=int(skipped))

    def quiet_run(self, last_step: int, scale: float | None, rank: int | None,
                  rows: int = 0, basis: str = PRINTED) -> int:
        """``rows`` lines that repeated a quiet line up to ``last_step`` (each an applied step
        at ``scale``): their steps are a gap, as a log printing every ``N`` steps shows them,
        which hands on the rows and their scale (a detector that counts clean steps at a
        scale counts them as it would have read them). ``basis``: where the rows' steps came
        from (step_basis.py), as the lines that armed the run said. Returns the steps
        counted."""
        self._count_progress()
        self._flush()
        steps = last_step - self.clock
        if steps <= 0:
            return 0
        owner = rank or 0
        self._gap(steps, printed=Printed(min(rows, steps), scale, owner) if rows else None)
        self.spans.printed(last_step)
        self.bases.note(last_step, basis)
        if scale is not None:
            self._rank_scales[owner] = (self.clock, scale)
        run = self._rank_clean_run.get(owner)
        if run is not None:
            self._rank_clean_run[owner] = run + steps
        self._last_metrics = None
        return steps

    # -- internals --------------------------------------------------------------------------

    def _emit(self, obs: Observation, *, counted: bool = False, basis: str | None = None) -> None:
        """Hand ``obs`` on; ``counted``: its step was numbered by counting, not printed;
        ``basis``: where a row's step came from (step_basis.py). A counted line that is no
        row (an overflow between two counters) takes the basis of the steps around it: the
        spans say how exact it is."""
        if basis is not None or not counted:
            self.bases.note(obs.step, basis or PRINTED)
        if counted:
            self.spans.counted(obs.step)
        else:
            self.spans.printed(obs.step)
        if self._restarted:
            self._restarted = False
            obs.extra[RESTARTED] = True  # (each observation has a dict of its own)
            if self._restarted_at is not None:
                obs.extra[RESTARTED_AT], self._restarted_at = self._restarted_at, None
        self.clock = max(self.clock, obs.step)
        skipped = obs.was_skipped
        if skipped:
            self._skipped_step = obs.step
        if skipped is False:
            self._any_clean = self._clean_since_skip = True
        elif skipped:
            self._clean_since_skip = False
        if obs.scale is not None:
            self._last_scale, self._last_scale_step = obs.scale, obs.step
            self._scale_seen = True
        if obs.loss is not None and not math.isfinite(obs.loss):
            self._note_nonfinite(obs.rank, obs.step, obs.line or 0)
        if skipped:
            for rank in (obs.extra.get("ranks") if obs.extra else None) or [obs.rank]:
                self._rank_skips[rank] = self._rank_skips.get(rank, 0) + 1
        self.on_observation(obs)

    def _scale_of_overflow(self, event: LogEvent) -> bool:
        """Whether ``event`` is the metrics line of the step whose overflow was just read,
        printing the scale that overflow left (InternLM's "Overflow occurs, please check it."
        before the step's ``loss_scale=``; MindFormers' line flagging its own overflow): then
        the scale is the overflow's new scale and the two are one step, emitted here (a
        second observation of the step would read the halving as applied)."""
        pending = self._pending
        assert pending is not None
        if (pending.scale_after is not None or event.scale_after is None or event.step is None
                or event.skipped_in_interval is not None or event.skipped_total is not None
                or (event.loss is not None and not math.isfinite(event.loss))
                or pending.ranks != {event.rank}):
            return False
        if pending.step != event.step and (pending.step is not None
                                           or event.step != self.clock + 1):
            return False
        pending.step, pending.scale_after = event.step, event.scale_after
        self._flush()
        rank = event.rank or 0
        self._rank_scales[rank] = (event.step, event.scale_after)  # the next line's is read
        self._rank_skips.pop(rank, None)  # from this one
        return True

    def _block_of_overflow(self, event: LogEvent, line: int) -> bool:
        """Whether ``event``, a block of metrics right below the overflow just read that
        names a step further on than the next (a loop that logs every N steps), is that
        overflow's own step: its scale is still the one the overflow lowered (taken before
        the scaler's update of that step: openai/guided-diffusion's ``fp16_util.py`` logs
        ``lg_loss_scale`` before ``Found NaN, decreased lg_loss_scale to {x}``, and the
        logger's table of the step comes after the line). An overflow at an earlier step
        of the interval leaves the block the lowered scale or a mean below the old one, and
        keeps the step after the last (the step is then not known). The block's metrics go
        with the overflow's step, as :meth:`_scale_of_overflow` takes them."""
        pending = self._pending
        assert pending is not None
        if (pending.step is not None or pending.scale_after is None or event.step is None
                or event.scale_after is None or event.step <= self.clock + 1
                or event.step - self.clock > MAX_GAP or pending.ranks != {event.rank}
                or not 0 < line - pending.lines[-1] <= BLOCK_BELOW
                or (event.loss is not None and not math.isfinite(event.loss))):
            return False
        before = (pending.scale_before if pending.scale_before is not None
                  else pending.scale_after * 2)  # (a halving: what a line of the new scale
        # alone says, the backoff factor's default)
        if abs(event.scale_after / before - 1) > BLOCK_SCALE_TOLERANCE:
            return False
        pending.step = event.step
        self._flush()
        return True

    def _hold_or_flush(self) -> None:
        """The overflow read so far held for the next row to number (a step-less one after a
        row that printed its step), or numbered now."""
        pending = self._pending
        if (pending is not None and pending.step is None and self._last_printed is not None
                and len(self._held_lines) < MAX_HELD):
            self._held_lines.append(pending)
            self._pending = None
        else:
            self._flush()

    def _rows_wait(self, row: LogEvent) -> bool:
        """Whether the row ``row``, below step-less overflow lines held since the last row,
        waits for the next event: the lines are the last steps up to it where they run on
        past it (see row_overflows.py). Not where the row does not go on from the last one or
        leaves the lines no room, nor where it prints its scale."""
        self._hold_or_flush()
        last = self._last_printed
        # (a row that prints its scale is left as before: it may count applied updates alone,
        # as fairseq's ``num_updates`` does, and its scale is read against the lines before it)
        return (bool(self._held_lines) and last is not None and row.step is not None
                and row.step > last and row.scale_after is None
                and first_of_run(row.step, len(self._held_lines), self.clock) is not None)

    def _row_goes_on(self, overflow_next: bool) -> None:
        """Hand on the row that waited, and the overflow lines above it: as the last steps
        up to it where ``overflow_next`` (the next event a step-less overflow line: a run of
        them across the row), else numbered on from the row before (by _flush)."""
        waiting, self._row_waiting = self._row_waiting, None
        if waiting is None:
            return
        row, line, text, counted = waiting
        held = self._held_lines
        first = None if row.step is None else first_of_run(row.step, len(held), self.clock)
        if overflow_next and first is not None:
            self._held_lines = []
            self._catch_up(first - 1, held[0].lines[0])
            for pending in held:
                self._flush_pending(pending)
        self._flush()
        self._metrics(row, line, text, applied=counted)

    def _flush(self) -> None:
        held, self._held_lines = self._held_lines, []
        for pending in held:  # (numbered on from the last row, as they came)
            self._flush_pending(pending)
        self._flush_pending()

    def _flush_pending(self, pending: _Overflow | None = None) -> None:
        if pending is None:
            pending, self._pending = self._pending, None
        if pending is None:
            return
        if self._starts_over(pending):
            self._begin_run(None)
        if pending.step is None and not self._clean_since_skip and self._grew(pending):
            self._gap(GROWTH_GAP)
        step = pending.step if pending.step is not None else self.clock + 1
        if pending.step is not None and step < self.clock - RESTART_BACK:
            # an overflow that names a step far behind the clock: a run begun again (a sweep's
            # next run, a rerun appended), whose start-up back-off this is
            self._begin_run(None)
            self.clock = step - 1
        if (pending.step is not None and 0 < self.clock < step - 1 <= RESTART_BACK
                and not self._any_clean):
            # the first step a line numbers, near a run's start, after overflows that numbered
            # none and no applied step: those were the steps just before it (an excerpt cut
            # mid start-up back-off), not skips with applied steps between
            self.clock = step - 1
        if pending.step is not None and step > self.clock + 1:
            self._catch_up(step - 1, pending.lines[0])
        ranks = sorted(r for r in pending.ranks if r is not None)
        self._publish_bound(self.growth_bounds.overflow(
            ranks[0] if ranks else 0, step, pending.scale_before, pending.scale_after))
        self._emit(Observation(
            step, rank=ranks[0] if ranks else 0, scale_before=pending.scale_before,
            scale_after=pending.scale_after, skipped=True, hysteresis=pending.hysteresis,
            line=pending.lines[0], text=pending.texts[0],
            extra={**({"ranks": ranks, "lines": pending.lines} if len(pending.lines) > 1 else {}),
                   **({SCALE_BELOW: pending.below} if pending.below is not None else {})},
        ), counted=pending.step is None)

    def _starts_over(self, pending: _Overflow) -> bool:
        """Whether the overflow ``pending`` begins a new run's start-up back-off: its scale
        came back up too soon since the last scale seen (see :meth:`_regrown_too_soon`). Two
        healthy runs in one file (a sweep without a banner between) otherwise read as one run
        whose scale collapsed under persistent overflow once training was under way."""
        # (a line printing only the new scale, apex's and fairseq's: the one before was higher)
        scale = pending.scale_before if pending.scale_before is not None else pending.scale_after
        return self._regrown_too_soon(scale, self.clock - self._last_scale_step)

    def _regrown_too_soon(self, scale: float | None, steps: int) -> bool:
        """Whether ``scale``, ``steps`` after the last scale seen, is :data:`RESTART_JUMP` times
        that one or more: more doublings than a dynamic scaler makes in ``steps`` (one growth
        window a doubling), so a scaler started over (a new run, or a resume that did not load
        the optimizer's state)."""
        last = self._last_scale
        if last is None or last <= 0 or scale is None or scale < last * RESTART_JUMP:
            return False
        window = self.setup.get("growth_interval")
        each = window if isinstance(window, int) and window > 0 else MIN_GROWTH_WINDOW
        return steps < math.log2(scale / last) * each

    def _skip_in_step(self, event: LogEvent, line: int, text: str) -> None:
        """A skip said by the skipped step before its own row (``IN_STEP``: hivemind's "Skipping
        global step due to gradient over/underflow", then the step's ``Local loss`` row): the
        step after the last one read, whose row comes next (see _metrics); said again before
        that row (a local batch's gradients, then the global step's), the same step."""
        self.overflow_lines += 1
        self._row_since_overflow = False
        if self._pending is None and self._row_awaited is not None and (
                self._row_awaited == self.clock):
            return
        self._flush()
        self._pending = _Overflow(None, event.scale_before, event.scale_after, event.hysteresis,
                                  {event.rank}, [line], [text])
        self._flush()
        self._row_awaited = self.clock

    def _grew(self, pending: _Overflow) -> bool:
        """True when the scale before this overflow is above the last one seen."""
        last = self._last_scale
        if last is None:
            return False
        if pending.scale_before is not None:
            return pending.scale_before > last
        after, kept = pending.scale_after, pending.scale_may_stay
        # (a new scale only: the one before it was higher, unless the scaler may keep it)
        return after is not None and (after > last or (after == last and not kept))

    def _catch_up(self, step: int, line: int, skipped: int = 0) -> None:
        """Steps up to ``step`` not seen one by one: ``skipped`` of them skipped (known from
        the scale), the rest clean (scale unknown)."""
        if step <= self.clock:
            if step < self.clock - MAX_GAP:
                self.clock = step  # the counter went back: a restarted run
            return
        gap = step - self.clock
        if gap > MAX_GAP:
            self.clock = step - 1
            gap = 1
        self._gap(gap, min(skipped, gap))

    def _gap(self, steps: int, skipped: int = 0, printed: Printed | None = None) -> None:
        self.clock += steps
        if skipped < steps:
            self._any_clean = self._clean_since_skip = True
        else:
            self._clean_since_skip = False
        if printed is None:
            self.on_gap(steps, skipped)
        else:
            self.on_gap(steps, skipped, printed)

    def _metrics(self, event: LogEvent, line: int, text: str, *, applied: bool = False) -> None:
        """A row's observation. ``applied``: a progress line counted the row's step as applied
        (DeepSpeed's ``step=N, skipped=K``, read with no overflow line left to place)."""
        key = (event.step, event.loss, event.rank)
        # (the reader's basis of a step it made, the generic reader's own field or a family
        # parser's evidence; rows numbered here are named below)
        basis: str = getattr(event, "step_basis", None) or event.evidence.get(
            STEP_BASIS, PRINTED)
        if self._last_metrics is not None and _same(self._last_metrics, key):
            # the same bar/dict printed again (a refresh, or another rank that no prefix
            # names); a rank that a prefix names sees the step itself (an all-reduced loss
            # printed by each rank is each rank's observation: its judge needs it)
            return
        self._last_metrics = key
        if event.step is None and event.family == HF:
            epoch = row_epoch(text)
            again = self._rows_begun_again(event.rank, epoch)
            if self.row_interval is not None:
                row = self._interval_row(event.rank, epoch)
                event = replace(event, step=self.row_interval.step(row))
                basis = INTERVAL
            elif again and self._count_open:
                # (after a line that starts a run: the last run's summary; rows back at the
                # first epoch without one are left counted on, as a tee or a repeat may be)
                self._counts_anew(1)  # (its rows count from its first again)
        if event.step is None and not applied:
            self.counted_rows += 1
        else:  # (a row after a progress line that printed its step counts as printed)
            self.printed_rows += 1
        if event.step is not None:
            last, self._last_printed = self._last_printed, event.step
            if last is not None and event.step != last:
                if event.step < last:
                    self.steps_back += 1
                else:
                    self.steps_forward += 1
        if event.step is not None and self._restarts(event, event.step):
            self._begin_run(event.rank or 0)
            self._row_high = event.step
        # A row without a step, or numbered by its epoch (one row an epoch), stands for steps
        # the log does not count.
        span_unknown = event.step is None or getattr(event, "epoch_row", False)
        behind = False
        if event.rank is None and event.step is not None and not span_unknown:
            if self._row_first is None or event.step <= self._row_first:
                # the log's first row, or a counter started over (each epoch's batches
                # counted from 1): not behind, a new count
                self._row_first = self._row_high = event.step
            elif event.step < self._row_high:
                # A row for a step before one a row already printed, no rank named: another
                # rank's copy, behind in a tee of several (ranks flush their output in blocks).
                # Read as the log's own next row, its finite loss would end the NaN run the
                # leading rank's rows began (the same NaN found again a few steps on), its
                # scale would be the scale growing back and halving again. A non-finite loss
                # is still read (a rank's own NaN may come late), without its scale.
                if event.loss is None or math.isfinite(event.loss):
                    return
                behind = True
            self._row_high = max(self._row_high, event.step)
            self._trailing.printed(event.step)
        counted_skips = False
        if event.skipped_total is not None and event.skipped_in_interval is None:
            counted_skips = span_unknown
            event = self._skips_since_last_row(event)
        if event.skipped_in_interval is not None:
            self._interval(event, line, text, span_unknown=counted_skips)
            return
        awaited, self._row_awaited = self._row_awaited, None
        trailing = None
        if event.step is not None:
            step = event.step
        elif event.rank is not None:
            step = self._row_step(event.rank)
        elif awaited is not None and awaited == self.clock:
            # the row of the step whose skip was said before it (see _skip_in_step): one
            # step, recorded as skipped already; a non-finite loss is still that step's
            if event.loss is None or math.isfinite(event.loss):
                return
            step = awaited
        elif (trailing := self._trailing.stepless()) is not None:
            # a term's row above the row that prints its step (trailing_steps.py)
            step = max(trailing, self.clock)
        elif self.clock > 0 and self._summaries.closes(text):
            # the epoch's summary below its last row (epoch_summaries.py): that row's step
            step = trailing = self.clock
        else:
            step = self.clock + 1
        if event.step is None or event.rank is not None or span_unknown:
            self._summaries.above = None  # (a summary closes a row that printed its step)
        else:
            self._summaries.printed(text)
        printed = event.step is not None or trailing is not None
        if not printed:  # (numbered by a progress line that printed it, or by counting rows)
            basis = PRINTED if applied else ROWS
        elif span_unknown:
            basis = EPOCH
        if (event.step == self._skipped_step == self.clock and event.scale_after is None
                and (event.loss is None or math.isfinite(event.loss))):
            # The loop's own line for the step whose overflow its scaler just printed
            # (Paddle prints "Found inf or nan" in update(), before the loop prints
            # "step 10, loss ..."): one step, already recorded as skipped.
            return
        rank = event.rank or 0
        change = None
        scale = None if behind else event.scale_after
        # A row after a row, in a log that prints each overflow (DeepSpeed's, apex's, a
        # loop's own), none between them: its step was applied (the row just after an
        # overflow line may be that skipped step's own).
        between_rows = (scale is None and self.overflow_lines > 0 and self._row_since_overflow
                        and event.loss is not None and math.isfinite(event.loss))
        self._row_since_overflow = True
        if scale is not None:
            previous = self._rank_scales.get(rank)
            if (previous is not None and not span_unknown and not self._rank_skips.get(rank)
                    and fell_faster(previous[1], scale, step - previous[0])):
                # Fallen faster than a scaler backs off, no overflow line between: another
                # scaler reports (a run resumed in bf16 prints its disabled scaler's 1.0), so a
                # run begins; the last run's scales are no scales this one fell from.
                self._begin_run(rank)
                previous = None
                if step <= self.clock:  # (its counter went back too: the run's own count)
                    self._counts_anew(step)
            self._bound_growth_interval(rank, previous, step, scale)
            change = read_change(previous, step, scale)
            # The halvings that overflow lines already showed are not inferred again.
            change = change.less(self._rank_skips.pop(rank, 0)) if change else None
            self._rank_scales[rank] = (step, scale)
            self._learn_growth_interval(rank, change, scale)
        if step > self.clock + 1:
            self._catch_up(step - 1, line, change.gap_skipped if change else 0)
        self._emit(Observation(step, rank=rank, scale_before=change.before if change else None,
                               scale_after=scale,
                               skipped=change.skipped if change else (
                                   False if applied or between_rows else None),
                               loss=event.loss, grad_norm=event.grad_norm, lr=event.lr,
                               line=line, text=text, extra=_row_extra(event, span_unknown)),
                   counted=not printed, basis=basis)
        if scale is not None:
            self._rank_skips.pop(rank, None)  # counted from this value on

    def _row_step(self, rank: int) -> int:
        """The step of a row without a step counter that ``rank`` printed (a prefix named the
        rank): its k-th such row is the k-th such row of every rank, interleaved or one
        rank's block after another's (each rank prints its own copy of the logging step),
        not the next step after the last rank's row. A rank more rows behind than are kept
        counts on from the clock."""
        k = self._rank_rows.get(rank, 0)
        self._rank_rows[rank] = k + 1
        if self._row_base <= k < self._row_base + len(self._row_steps):
            return self._row_steps[k - self._row_base]
        step = self.clock + 1
        if k == self._row_base + len(self._row_steps):
            self._row_steps.append(step)
            if len(self._row_steps) > _ROWS_KEPT:  # bounded: drop the older half
                del self._row_steps[:_ROWS_KEPT // 2]
                self._row_base += _ROWS_KEPT // 2
        return step

    def _rows_begun_again(self, rank: int | None, epoch: float | None) -> bool:
        """Whether rank ``rank``'s HF row printing ``epoch`` is back at the epoch of the log's
        first row after later ones: a run begun from its start again."""
        if epoch is None:
            return False
        first, last = self._row_epochs.get(rank, (epoch, epoch))
        self._row_epochs[rank] = (first, epoch)
        return epoch <= first < last

    def _interval_row(self, rank: int | None, epoch: float | None) -> int:
        """The place, from 0, of rank ``rank``'s HF row that prints ``epoch`` in its run."""
        row, epochs = self._interval_rows.get(rank, (0, None))
        if epoch is not None:
            first, last = epochs if epochs is not None else (epoch, epoch)
            if row and epoch <= first < last:
                row = 0  # (back at the first row's epoch: a run begun from its start again)
            epochs = (first, epoch)
        self._interval_rows[rank] = (row + 1, epochs)
        return row

    def _run_start(self) -> None:
        """A line that starts a run, after steps were read: a run appended to this log (a
        resume, or another run), whose overflow lines may come before any row with a step
        counter. Its first observation begins a run (its start-up back-off is its own); the
        last run's scales are no scales its lines fell from."""
        self._flush()  # an overflow already read is the last run's
        self._interval_rows.clear()  # (its rows number their steps from its start again)
        if self.clock > 0:
            self._begin_run(None)
            # (an interval's skips are placed as a start-up back-off until a clean step)
            self._any_clean = False
            self._count_open = True

    def _sole_told(self, event: LogEvent) -> None:
        """The next step read after a count one process alone prints (``SOLE_COUNT``) went
        back: the count before it going on above its high is several engines' (DeepSpeed-
        Chat's actor and critic); any other step says the run began again at the count held,
        which is then read as such a count is (see :mod:`~denpex_callbacks.logs.
        sole_counts`)."""
        if event.kind == PROGRESS and event.evidence.get(SOLE_COUNT):
            if not event.step:
                return  # (step=0: printed at initialize, before a resume loads its count)
            began = self._sole.read(event.step) == BEGAN
        else:
            began = self._sole.other_step()
        held, self._sole_held = self._sole_held, None
        if not began or held is None:
            return
        step, line, all_skipped = held
        self._flush()
        self._begin_run(None)
        self._count_open = True
        self._counts_anew(step)
        self._catch_up(step - 1, line, skipped=step if all_skipped else 0)
        if step == self.clock + 1:
            self._progress = (step, line, all_skipped)

    def _counts_anew(self, step: int) -> None:
        """The first step counter printed after a line that starts a run (a banner, a
        configuration dump, a loaded checkpoint, the last run's summary): the new run's
        count. Where it is not ahead of the clock, the clock goes back to just before it,
        however little: a run appended within :data:`RESTART_BACK` steps of the last one's
        last step (``step=1`` after ``step=40``) counts its own steps, not on from the last
        run's (its overflow lines would otherwise be numbered after the last run's steps and
        its rows read beside them as other steps)."""
        self._count_open = False
        if step <= self.clock:
            self.clock = max(0, step - 1)
            self._row_first, self._row_high = None, 0  # (its rows are a count of their own)

    def _begin_run(self, rank: int | None) -> None:
        """Forget the last run's scales and clean stretch (of ``rank``; None: of every rank):
        they say nothing of the run that begins. Its first observation says it begins."""
        if rank is None:
            self._rank_scales.clear()
            self._rank_clean_run.clear()
        else:
            self._rank_scales.pop(rank, None)
            self._rank_clean_run.pop(rank, None)
        self.growth_bounds.forget(rank)
        self._last_scale = None
        self._own_offset = None  # (a new run's optimizer counts with its engine again)
        self._restarted = True

    def _restarts(self, event: LogEvent, step: int) -> bool:
        """Whether the row of ``event`` at ``step`` begins a run: its step counter went back
        further than rows of several ranks interleave (:data:`RESTART_BACK`: a resumed run
        appended to its log, or another run's log after this one), or an epoch's first batch
        (``Train: [30/300][0/625]``: where the scripts that print such rows resume) is the
        log's first step or follows missing epochs (the reader's ``epoch_start``). The
        scaler of a resumed run may be a fresh one that backs off from its initial scale
        again: the steps before are not this run's, and not known to be clean, so its
        start-up is judged from this row on. Moves the clock there. (The log's first row
        moves it without a gap and is no restart: there is no earlier run to start over
        from.)"""
        if self.clock == 0:
            if getattr(event, "epoch_start", False) and step > 1:
                self.clock = step - 1  # no gap before it; nothing seen yet to start over
            return False
        went_back = step < self.clock - RESTART_BACK
        epoch_start = getattr(event, "epoch_start", False) and step > self.clock
        if not (went_back or epoch_start):
            return False
        # The row stands for its own step, and for its interval's skips (a Megatron row):
        # those are the new run's first steps.
        self.clock = max(0, step - max(1, event.skipped_in_interval or 0))
        return True

    def _learn_growth_interval(self, rank: int, change: ScaleChange | None,
                               scale: float) -> None:
        """A doubling after ``n - 1`` clean steps seen one by one since the last change is a
        dynamic scaler with a growth interval of ``n`` (the live path reads it from the
        scaler; the skip-rate detector needs it to tell a healthy sawtooth from wasted
        steps)."""
        run = self._rank_clean_run.get(rank)
        if change is None or change.skipped is None or change.before is None:
            self._rank_clean_run[rank] = None
        elif change.skipped:
            self._rank_clean_run[rank] = 0
        elif scale == change.before * 2.0:
            if run is not None:
                self._learn(run + 1)
            self._rank_clean_run[rank] = 0
        elif run is not None:
            self._rank_clean_run[rank] = run + 1

    def _bound_growth_interval(self, rank: int, previous: tuple[int, float] | None, step: int,
                               scale: float) -> None:
        """Rows printed every few steps bound the growth interval from above (GrowthBounds):
        the longest bound is published (no shorter than the interval, it raises AMP005 and
        AMP008 no sooner than the interval would: one is enough), unless the setup states the
        interval."""
        shown = self._skipped_step if self._rank_skips.get(rank, 0) else None
        self._publish_bound(self.growth_bounds.row(rank, previous, step, scale, shown))

    def _publish_bound(self, bound: int | None) -> None:
        """Publish a bound on the growth interval (GrowthBounds) longer than any so far,
        unless the setup states the interval."""
        if bound is None or bound <= self._longest or (
                self.setup.get("growth_interval") is not None and not self.interval_learned):
            return
        self._longest, self.interval_learned = bound, True
        self._stretches.clear()
        self.setup.update(scaler="dynamic", growth_interval=bound)

    def _learn(self, stretch: int) -> None:
        """A clean stretch of ``stretch`` steps, seen one by one, that ended in a growth.

        The growth interval is published once two stretches agree (a scaler grows after the
        same count every time), as the longest stretch seen, and only ever grows after that:
        one odd stretch (a scale set by hand, a skip that showed no halving, two runs' lines
        mixed) must not make the next full interval look stuck, and a longer limit can only
        silence AMP005, never raise it. An interval the log's setup states is kept.
        """
        known = self.setup.get("growth_interval")
        if self.interval_learned:
            self._longest = max(self._longest, stretch)
        elif known is not None:
            return
        elif stretch in self._stretches:  # two agree: learnt, and the set is no longer needed
            self._longest = max(self._stretches)
            self._stretches.clear()
            self.interval_learned = True
        else:
            self._stretches.add(stretch)
            return
        if self._longest > (known or 0):
            self.setup.update(scaler="dynamic", growth_interval=self._longest)

    def _skips_since_last_row(self, event: LogEvent) -> LogEvent:
        """A cumulative skip count on a metrics row (denpex's ``amp/skipped_steps`` in an HF
        log row) as the skips of the interval since the previous row. A row without a step
        counter spans at least its own skips and its logged step."""
        skipped = max(0, event.skipped_total - self._skipped_total) if event.skipped_total else 0
        if (not self._counts_read and event.evidence.get(UNDER_WAY_KEY)
                and not self.setup.get(FROM_START)):
            # The first count read, on a row well into its run (an excerpt pasted from the
            # middle of a log, ``'epoch': 9.85``): the skips of every step before the excerpt,
            # not of one interval since step 0. It is where the counting starts; not after
            # the Trainer's banner of a run that starts in the excerpt (no resume after it).
            skipped = 0
        self._counts_read = True
        self._skipped_total = max(self._skipped_total, event.skipped_total or 0)
        step = event.step if event.step is not None else self.clock + skipped + 1
        return replace(event, step=step, skipped_in_interval=skipped)

    def _interval(self, event: LogEvent, line: int, text: str, *,
                  span_unknown: bool = False) -> None:
        """Place an interval's skips on single steps (see the module docstring).
        ``span_unknown``: the row printed no step counter, so the steps it stands for are not
        known (its own step and its skips are counted; the observations say so)."""
        extra = {SPAN_UNKNOWN: True} if span_unknown else {}
        end = event.step if event.step is not None else self.clock + 1
        rank = event.rank or 0
        if self._regrown_too_soon(event.scale_after, end - self._last_scale_step):
            # Megatron resumed with --no-load-optim: the counter goes on, its scaler backs off
            # from initial_loss_scale again (its first interval's skips are that back-off).
            self._begin_run(rank)
            self._any_clean = False
        elif not span_unknown and fell_faster(self._last_scale, event.scale_after,
                                              event.skipped_in_interval or 0):
            # Fallen by more halvings than the row counts skips: another scaler reports (a run
            # resumed in bf16 prints Megatron's "loss scale: 1.0"), so a run begins.
            self._begin_run(rank)
        # The overflow lines read since the rank's last row were this interval's skips, each
        # a step already (Megatron-DeepSpeed and GPT-NeoX count the skips that DeepSpeed's
        # "OVERFLOW! ... Skipping step" lines printed one by one): counted once.
        shown = min(self._rank_skips.pop(rank, 0), event.skipped_in_interval or 0)
        if shown and self._restarted:
            # A row whose counter went back after its skips' overflow lines (a sweep of
            # Megatron-DeepSpeed runs): those lines were the new run's first steps, read
            # already; this row only numbers them.
            self.clock = max(self.clock, end)
            return
        if shown and end <= self.clock:
            # Every step up to the row's last was such a line: the row adds only that the
            # skipped iterations' losses were not finite (Megatron's "number of nan
            # iterations").
            if event.nan_in_interval:
                self._flag(replace(
                    event, kind=FLAG, step=self.clock - shown + 1, code="AMP006",
                    loss=math.nan, summary=f"{event.nan_in_interval} skipped iteration(s) of "
                    f"the interval that ends at {end} had a non-finite loss"), line, text)
            return
        length = max(end - self.clock, 1)
        skipped = min((event.skipped_in_interval or 0) - shown, length)
        nonfinite = min(event.nan_in_interval or 0, length)
        pattern = _spread(length, skipped, startup=not self._any_clean)
        # (an interval all skipped, or none, all NaN or none, has one placing: a convention's
        # places are not the log's, and a diagnosis on one says the interval)
        placed = skipped in (0, length) and nonfinite in (0, skipped)
        first_step = end - length + 1
        clean_run = 0
        first_skip = True
        for index, was_skipped in enumerate(pattern):
            last = index == len(pattern) - 1
            if not was_skipped and not last:
                clean_run += 1
                continue
            if clean_run:
                self._gap(clean_run)
                clean_run = 0
            loss: float | None = event.loss if last else None
            if nonfinite and was_skipped:
                loss, nonfinite = math.nan, nonfinite - 1
            # The scale before the interval's first skip is the last one printed; the one
            # after its last step is printed; what lies between is not.
            before = self._last_scale if was_skipped and first_skip else None
            first_skip = first_skip and not was_skipped
            self._emit(Observation(
                first_step + index, rank=rank, scale_before=before,
                scale_after=event.scale_after if last else None, skipped=was_skipped,
                loss=loss, grad_norm=event.grad_norm if last else None,
                lr=event.lr if last else None, line=line,
                text=text if last or was_skipped else None,
                extra=(_row_extra(event, span_unknown) or {}) if last else dict(extra)),
                counted=not placed)
        if not placed:
            self.spans.printed(end)  # (its last step's skip is placed too: in the span)
        self._rank_skips.pop(rank, None)  # the next row's interval counts from here

    def _engine_step(self, count: int) -> int:
        """The run's step of an overflow numbered by its optimizer's own count (``OWN_COUNT``):
        the count, or, where it is far behind (:data:`RESTART_BACK`) the step a count of every
        step (``step=N, skipped=K``) brought the clock to and is itself no run's start (more
        than RESTART_BACK: a new run's back-off comes before its own counter goes back), the
        count shifted by the distance at the first such overflow: the optimizer counts afresh
        (DeepSpeed resumed with ``load_optimizer_states=False``) while the engine goes on."""
        if (self._own_offset is None and self._engine_counted
                and RESTART_BACK < count < self.clock - RESTART_BACK):
            self._own_offset = self.clock + 1 - count
        return count + (self._own_offset or 0)

    def _without_scaler(self, event: LogEvent) -> bool:
        """An overflow line with no scale in a run whose setup says it has no loss scaler, or
        whose wording says its scaler keeps the scale where the excerpt shows no setup (a
        window cut after the configuration dump)."""
        if event.scale_before is not None or event.scale_after is not None:
            return False
        if "scaler" in self.setup:
            return self.setup["scaler"] is None
        return bool(event.evidence.get(SCALE_KEPT))

    def _setup_stands(self, event: LogEvent) -> bool:
        """Whether the setup read may be that of the run an overflow line is from: not where
        the line's wording says its scaler keeps its scale and the setup names a dynamic
        scaler, which never prints it (DeepSpeed's ``DynamicLossScaler`` overrides the
        ``LossScalerBase.update_scale`` that says so)."""
        return not (event.evidence.get(SCALE_KEPT) and self.setup.get("scaler") == "dynamic")

    def _setup_cut(self) -> None:
        """The setup read is an earlier run's in the same file; this run's was cut away
        (a run appended after another, pasted from below its configuration dump). Its run
        starts over, numbered by its own rows: the clock goes back to the last step a row
        printed where that went back (its counter started over: ``step=1`` after
        ``step=40``, closer than :data:`RESTART_BACK`)."""
        self.setup.clear()
        self._run_start()
        if self._last_printed is not None and self._last_printed < self.clock:
            self.clock = self._last_printed

    def _skip_without_scaler(self, event: LogEvent, line: int, text: str) -> None:
        # bf16/fp32 runs skip steps on non-finite gradients too (DeepSpeed's LossScaler of
        # scale 1 prints "OVERFLOW!"): the values are NaN/inf, the loss scale plays no part, so
        # the step is not fed as a loss-scale skip and the scale detectors stay silent.
        step = event.step if event.step is not None else self.clock + 1
        self._emit(Observation(step, rank=event.rank or 0, line=line, text=text),
                   counted=event.step is None)
        precision = self.setup.get("active_precision")
        run = f"a {precision} run" if precision else "this run"
        where = (f"in {run} without a loss scaler" if "scaler" in self.setup
                 else "at a loss scale that never moves (a scaler that keeps its scale: bf16's "
                      "scale of 1 or a static fp16 scale)")
        self._flag(LogEvent(
            FLAG, event.family, step=step, rank=event.rank, code="AMP006",
            summary=f"steps skipped for non-finite gradients {where}: the forward/backward "
                    "produces NaN/inf; not a loss-scale problem"), line, text)

    def _flag(self, event: LogEvent, line: int, text: str) -> None:
        step = event.step if event.step is not None else (self.clock or None)
        condition = next((c for c in (FP16_SHOWN, NO_SCALER_SHOWN) if event.evidence.get(c)),
                         None)
        if condition is not None:
            evidence = {k: v for k, v in event.evidence.items() if k != condition}
            if len(self._held) < FLAG_LINES:  # (bounded: a warning printed every step)
                self._held.append((condition, replace(event, step=step, evidence=evidence),
                                   line, text))
            return
        self._raise_flag(event, step, line, text)

    def _raise_flag(self, event: LogEvent, step: int | None, line: int, text: str) -> None:
        code = event.code or ""
        if event.loss is not None and not math.isfinite(event.loss) and event.rank is not None:
            self._note_nonfinite(event.rank, event.step or self.clock, line)
        if code in self.flags:
            if len(self.flags[code]) < FLAG_LINES:
                self.flags[code].append(line)
            said = event.evidence.get(RUN_SAID, {})
            if not (said.get("amended") or said.get("escalated")):
                return
            # (denpex's amended or escalated line: the run's later word on the diagnosis)
        else:
            self.flags[code] = [line]
        self.on_flag(Finding(
            code, step, event.summary,
            evidence={"family": event.family, **event.evidence}, lines=(line,),
            quotes=(text.strip(),),
            rank=event.rank,
        ))

    def _note_nonfinite(self, rank: int, step: int, line: int) -> None:
        if rank not in self.first_nonfinite:
            self.first_nonfinite[rank] = (step, line)

    def initiating_rank(self) -> tuple[int, int] | None:
        """(rank, step) of the rank whose loss went non-finite first, when ranks are known."""
        if len(self.ranks) < 2 or not self.first_nonfinite:
            return None
        rank, (step, _line) = min(self.first_nonfinite.items(), key=lambda kv: (kv[1], kv[0]))
        return rank, step


def _same(a: tuple[int | None, float | None, int | None],
          b: tuple[int | None, float | None, int | None]) -> bool:
    if a[0] != b[0] or a[0] is None or a[2] != b[2]:
        return False
    la, lb = a[1], b[1]
    if la is None or lb is None:
        return la is lb
    return la == lb or (math.isnan(la) and math.isnan(lb))


def _spread(length: int, skipped: int, *, startup: bool) -> list[bool]:
    """Where ``skipped`` of ``length`` steps go: first in start-up, else evenly spread.

    Example:
        >>> _spread(5, 2, startup=True), _spread(6, 2, startup=False)
        ([True, True, False, False, False], [False, False, True, False, False, True])
    """
    if startup or skipped in (0, length):
        return [i < skipped for i in range(length)]
    marks = {((i + 1) * length) // skipped - 1 for i in range(skipped)}
    return [i in marks for i in range(length)]


def _row_extra(event: LogEvent, span_unknown: bool) -> dict[str, Any] | None:
    """What a row's observation says beyond its numbers: that its span of steps is not known,
    that its scale was printed as 0 at a precision it is below (metric_reader's
    ``scale_below``, a family parser's ``SCALE_BELOW`` evidence)."""
    extra: dict[str, Any] = {}
    if span_unknown:
        extra[SPAN_UNKNOWN] = True
    below = getattr(event, "scale_below", None) or event.evidence.get(SCALE_BELOW)
    if below is not None:
        extra[SCALE_BELOW] = below
    return extra or None
