"""The evaluation stream: values computed in evaluation, judged apart from training.

An evaluation loss or metric that is NaN/inf is not the training loss: training may be fine
(an fp16 overflow in the evaluation forward, which no loss scaler protects; a NaN sample in
the evaluation set; a metric dividing by zero) or be the cause (a non-finite training loss
first). Readers emit one ``eval`` event per non-finite evaluation value (``eval_loss`` in an
HF dict or metrics block, ``val_loss=nan`` in a bar, fairseq's ``valid on 'valid' subset``
line, wandb's run summary); this module makes one AMP013 finding of them, where they began,
with ``evidence = {"phase": "evaluation", "metric", "value", "step" or "row", ...}``.

A block that prints one metric a row (transformers' ``***** eval metrics *****``, Lightning's
``Test metric  DataLoader 0`` table) sends its finite evaluation loss too (``loss`` finite):
a correlation's NaN within reach of it is the correlation undefined on constant predictions
(as on one line: ``metric_reader._nonfinite``), not a fault; the rows come sorted by name, so
a correlation printed above the loss waits for the block's end. A closing summary's finite
mean over the classes (HF evaluate's ``mean_iou``) is sent too: a per-class value's NaN within
reach of it is a class the evaluation did not hold (the mean left it out), as on one line.

A perplexity's +inf is held to the end, not counted where it is read: perplexity is exp(loss),
and exp overflows on a finite loss (past 11.09 where it is computed in float16, past 88.7 in
float32), so a language model's first evaluation, its loss about ln(vocabulary) ≈ 11, prints
``val_ppl=inf`` with nothing non-finite. Where training went well (every training loss read
finite, the last below the first) the held values were such overflows and say nothing; else
they count, in line order with the rest. A NaN perplexity, or a loss's inf, counts as read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.defined_areas import DEFINED_AREA
from denpex_callbacks.logs.events import EVALUATED_ROW, LogEvent
from denpex_callbacks.logs.run_summaries import FAMILY as SUMMARY

CODE = "AMP013"
# Lines between a block's rows and its finite loss: a block holds a row per metric (a
# Lightning table of a few dozen at most); a farther loss is another evaluation's
BLOCK_REACH = 32
_HELD = 16  # NaNs held for their block's finite value, or a table's cells (bounded memory)
_NAMES = 64  # names of values read finite, kept (bounded memory)
# A value non-finite in every evaluation row a reader told whole, from the first, never
# finite, while training's loss was finite and fell: a tool that writes NaN where it computes
# nothing (DeepLabCut 3's detector runner sets its evaluation loss to NaN: the detector
# returns no loss in evaluation), or an evaluation broken from its first pass; no sign that
# anything went wrong in the run. Said at info, with that sentence, only where the rows'
# finite evaluation values changed from row to row (DeepLabCut's COCO metrics: the evaluation
# ran and measured); values that never move beside it (timm's top-1 stuck at chance beside
# its NaN ``eval_loss``) are an evaluation broken from its first pass, a warning. Rows seen
# at least:
PLACEHOLDER_ROWS = 2
PLACEHOLDER = ("never finite in this excerpt: a placeholder, or an evaluation broken from the "
               "start; training's loss was finite and fell")
# one value read: (event, line, text, after_step)
_Read = tuple[LogEvent, int, str, int | None]


@dataclass
class _Held:
    """NaNs that a finite value of their block explains (a correlation's, a finite loss; a
    class's, a finite mean over the classes), held until it comes: those within
    :data:`BLOCK_REACH` above it or below it are no fault, the others count."""

    anchor: int | None = None  # the line of the block's finite value
    values: list[_Read] = field(default_factory=list)

    def wait(self, value: _Read) -> bool:
        """Whether ``value`` need not be counted now: its block's finite value is within
        reach above it, or it is held for one below (False: no room, count it)."""
        if self.anchor is not None and value[1] - self.anchor <= BLOCK_REACH:
            return True
        if len(self.values) < _HELD:
            self.values.append(value)
            return True
        return False

    def explain(self, line: int) -> None:
        """The block's finite value on ``line``: the values held within reach above it were
        no fault; those farther up stay held, to count."""
        self.anchor = line
        self.values = [held for held in self.values if line - held[1] > BLOCK_REACH]

    def take(self) -> list[_Read]:
        """The values held (to count), held no more."""
        values, self.values = self.values, []
        return values


@dataclass
class _First:
    metric: str
    value: float
    step: int | None  # printed on the line
    row: int  # the evaluation row it was on (1 = the first read)
    after_step: int | None  # the last training step seen before it
    line: int
    text: str
    rows_before: int = 0  # evaluation rows told whole before it


@dataclass
class EvaluationStream:
    """Non-finite evaluation values of one rank, in bounded memory.

    Example:
        >>> stream = EvaluationStream()
        >>> stream.event(LogEvent("eval", "generic", loss=float("nan"), metric="eval_loss"),
        ...              line=7, text="{'eval_loss': nan}", after_step=40)
        >>> finding = stream.finding()
        >>> finding.code, finding.step, finding.evidence["metric"], finding.evidence["row"]
        ('AMP013', 40, 'eval_loss', 1)
    """

    first: _First | None = None
    rows: int = 0  # lines with a non-finite evaluation value
    metrics: dict[str, int] = field(default_factory=dict)  # metric -> rows (bounded)
    _last_line: int | None = None
    # correlations' NaNs of a block and its finite evaluation loss
    _correlations: _Held = field(default_factory=_Held)
    # a summary's per-class NaNs (sorted by name: ``iou_wall`` first, before the mean) and its
    # finite mean over the classes
    _classes: _Held = field(default_factory=_Held)
    _unfilled_table: bool = False  # a table row left its training loss NaN beside a finite value
    told_rows: int = 0  # evaluation rows a reader told whole (EVALUATED_ROW)
    # ...their values read finite, by name: the first value read (bounded)
    finite_values: dict[str, float] = field(default_factory=dict)
    moved: bool = False  # ...and whether one of them changed in a later row
    _cells: list[_Read] = field(default_factory=list)
    _overflowed: list[_Read] = field(default_factory=list)  # perplexities' +inf (held)

    def event(self, event: LogEvent, line: int, text: str, after_step: int | None) -> None:
        """Take one ``eval`` event read from ``line``; ``after_step``: the training step the
        log had reached."""
        told = event.evidence.get(EVALUATED_ROW)
        if told is not None:
            self._told(told)
            return
        value = event.loss if event.loss is not None else float("nan")
        if event.evidence.get("cell") == "unfilled":
            self._unfilled_cell(event, line, text, after_step)
            return
        if math.isfinite(value):
            if event.metric and lexicon.class_mean(event.metric):
                self._block_mean(line)
            else:
                self._block_loss(line)
            return
        if event.metric and lexicon.perfect_score(event.metric, value):
            return  # a PSNR's +inf: the images matched, whichever reader read it
        if value == math.inf and event.metric and lexicon.perplexity(event.metric) and (
                line != self._last_line):  # (beside a value counted on its line: counted)
            if len(self._overflowed) < _HELD:
                self._overflowed.append((event, line, text, after_step))
            return  # exp's overflow on a finite loss, or not: training's course tells
        if math.isnan(value) and event.metric and lexicon.undefined_score(event.metric) and (
                DEFINED_AREA not in event.evidence) and (  # (finite before: see defined_areas)
                self._correlations.wait((event, line, text, after_step))):
            return  # below its block's finite loss, or held for one
        if math.isnan(value) and event.family == SUMMARY and (
                event.metric is not None and lexicon.per_class(event.metric)) and (
                self._classes.wait((event, line, text, after_step))):
            return  # below its summary's finite mean over the classes, or held for one
        self._release()
        held = [read for read in self._overflowed if read[1] == line]
        if held:  # (a perplexity's +inf on a line with another non-finite value: no overflow)
            self._overflowed = [read for read in self._overflowed if read[1] != line]
            for read in held:
                self._take(*read)
        self._take(event, line, text, after_step)

    def _told(self, told: tuple[tuple[str, float], ...]) -> None:
        """One evaluation row told whole: the names and values of its finite values."""
        self.told_rows += 1
        for name, value in told:
            first = self.finite_values.get(name)
            if first is None:
                if len(self.finite_values) < _NAMES:
                    self.finite_values[name] = value
            elif value != first:
                self.moved = True

    def _unfilled_cell(self, event: LogEvent, line: int, text: str,
                       after_step: int | None) -> None:
        """A table's ``NaN`` evaluation cell beside a finite training loss (held until the
        end), or a row that left its training loss so (the table leaves empty cells NaN:
        what is held was no value)."""
        if event.loss is not None and math.isfinite(event.loss):
            self._unfilled_table = True
            self._cells = []
        elif not self._unfilled_table and len(self._cells) < _HELD:
            self._cells.append((event, line, text, after_step))

    def _block_loss(self, line: int) -> None:
        """A block's finite evaluation loss on ``line``: the correlations held within reach
        above it were undefined; those farther up count."""
        self._correlations.explain(line)
        self._release(classes=False)

    def _block_mean(self, line: int) -> None:
        """A summary's finite mean over the classes on ``line``: the per-class NaNs held
        within reach above it were classes it left out; those farther up count."""
        self._classes.explain(line)
        self._release()

    def _count_cells(self) -> None:
        """Count the ``NaN`` cells held, the earliest first: no row showed them empty."""
        cells, self._cells = self._cells, []
        if cells and not self._unfilled_table:
            self._count_late(cells)

    def _count_late(self, held: list[_Read]) -> None:
        """Count values held to the end, the first of all kept where it came before them."""
        later = self.first
        self.first = None
        for event, line, text, after_step in held:
            self._take(event, line, text, after_step)
        if later is not None and self.first is not None and later.line < self.first.line:
            self.first = later

    def _release(self, *, classes: bool = True) -> None:
        """Count the correlations' NaNs held (no finite loss came for them) and, with
        ``classes``, the per-class ones (no finite mean came for them), in line order."""
        held = self._correlations.take()
        if classes:
            held = sorted(held + self._classes.take(), key=lambda item: item[1])
        for event, line, text, after_step in held:
            self._take(event, line, text, after_step)

    def _take(self, event: LogEvent, line: int, text: str, after_step: int | None) -> None:
        """Count one non-finite evaluation value."""
        metric = event.metric or "evaluation value"
        value = event.loss if event.loss is not None else float("nan")
        if line != self._last_line:
            self.rows += 1
            self._last_line = line
        if metric in self.metrics or len(self.metrics) < 16:
            self.metrics[metric] = self.metrics.get(metric, 0) + 1
        if self.first is None:
            step = event.step
            if step is not None and after_step is not None and step < after_step:
                # a count below the training step already reached is no training step (one
                # never goes back): the evaluation's own batch (pytorch3d's NeRF ``[val] |
                # epoch 30 | it 0 | ...``, projects/nerf/nerf/stats.py ``Stats.print``)
                step = None
            self.first = _First(metric, value, step, self.rows, after_step, line,
                                text.strip(), self.told_rows)

    @property
    def last_line(self) -> int | None:
        """The line of the last non-finite evaluation value counted (None: none yet)."""
        return self._last_line if self.rows else None

    def never_finite(self) -> bool:
        """Whether the first non-finite value was so in every evaluation row a reader told
        whole, from the first of them, and never read finite, while the rows' finite values
        changed (see :data:`PLACEHOLDER`)."""
        first = self.first
        return (first is not None and first.rows_before == 0 and self.moved
                and self.told_rows >= PLACEHOLDER_ROWS
                and self.metrics.get(first.metric) == self.told_rows
                and first.metric not in self.finite_values)

    def finding(self, *, trained: bool = False, went_well: bool = False) -> Finding | None:
        """AMP013 where the stream first went non-finite, or None; at info where the value
        was never finite and training (``trained``: its loss finite and falling) went well.
        ``went_well``: every training loss read was finite and the last below the first (read
        in one pass or not); an area under the ROC curve that no finite loss explained is then
        no fault: a set of one class (see ``lexicon.undefined_area``)."""
        if went_well:
            self._correlations.values = [
                held for held in self._correlations.values
                if not (held[0].metric and lexicon.undefined_area(held[0].metric))]
        self._release()
        self._count_cells()
        overflowed, self._overflowed = self._overflowed, []
        if overflowed and not went_well:  # (training went well: exp's overflows, no fault)
            self._count_late(overflowed)
        first = self.first
        if first is None:
            return None
        placeholder = trained and self.never_finite()
        where: dict[str, object] = ({"step": first.step} if first.step is not None
                                    else {"row": first.row})
        others = sorted(set(self.metrics) - {first.metric})
        also = f" (also {', '.join(others)})" if others else ""
        at = (f"at step {first.step}" if first.step is not None
              else f"in evaluation row {first.row}" + (
                  f", after training step {first.after_step}" if first.after_step else ""))
        summary = (f"evaluation {first.metric} = {first.value} {at}{also}: a value computed in "
                   f"evaluation, not the training loss; {self.rows} evaluation line(s) hold "
                   "a non-finite value" + (f"; {PLACEHOLDER}" if placeholder else ""))
        step = first.step if first.step is not None else first.after_step
        return Finding(
            CODE, step, summary, severity=Severity.INFO if placeholder else None,
            evidence={"phase": "evaluation", "metric": first.metric,
                      "value": repr(first.value), **where, "rows": self.rows,
                      "metrics": dict(self.metrics)},
            lines=(first.line,), quotes=(first.text,))
