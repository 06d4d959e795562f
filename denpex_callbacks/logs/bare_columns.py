"""Bare ``step value`` columns whose ``NaN`` cannot be pandas' missing value.

The generic reader reads ``{step} nan`` (Python's, numpy's, torch's spelling) as the loss of a
loop's ``print(step, loss)`` and leaves ``NaN`` alone: pandas prints a DataFrame's missing
value so (``na_rep``), under a header of column names. Other languages print a NaN float as
``NaN`` too: Rust's ``Display`` for ``f64`` (huggingface/candle
``candle-examples/examples/llama2-c/training.rs``: ``println!("{batch_index} {loss}")`` every
100 batches), Java's ``Double.toString``, JavaScript's. A run of such rows proves the layout:
rows of two cells, an integer that rises row after row and a finite value, one a line with
nothing between them, no row of names above the first (a frame's header), and not 0, 1, 2...
(a Series' RangeIndex, printed without a header: its ``Name: ..., dtype: float64`` comes
after). Then a ``NaN`` row that goes on the run is the loop's value gone NaN, unless the run
ends on pandas' footer: a Series indexed by step (``print(series)``, no index name, so no
header row above it) prints its missing value ``NaN`` and closes with ``Name: val_loss,
dtype: float64`` (pandas/io/formats/format.py ``SeriesFormatter._get_footer``; a long one
elides its middle rows behind a row of ``...``), so a NaN row's reading waits for the line
that ends its run (:meth:`BareColumns.goes_on`, :func:`series_footer`).

Finite bare rows hold no keyword, so a first reading never sees them; the reading of every
line that follows a first reading that found nothing (a file of bare columns and nothing
else) does.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import LogEvent

# A finite bare row: an integer, then one number, nothing else.
_FINITE = re.compile(r"\s*(\d{1,12})[ \t]+(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$")
# A bare row whose value is printed ``NaN`` (Rust's, Java's, JavaScript's spelling).
_NAN = re.compile(r"\s*(\d{1,12})[ \t]+NaN\s*$")
# A line of names only (letters, digits inside names, blanks): a frame's header row.
_NAMES = re.compile(r"\s*[A-Za-z_][\w]*(?:[ \t]+[A-Za-z_][\w]*)*\s*$")
# pandas' Series footer: ``[Freq: F, ][Name: N, ][Length: L, ]dtype: D``.
_FOOTER = re.compile(r"(?:Freq: [^,]+, )?(?:Name: .*, )?(?:Length: \d+, )?dtype: \w+\s*$")
# pandas' elided rows (``display.max_rows``): the index's and the values' ``...``.
_ELIDED = re.compile(r"\s*\.\.\.(?:\s+\.\.\.)?\s*$")
PROOF_ROWS = 3  # finite bare rows in a run before a NaN one is read
_FRAMED = -(1 << 40)  # the count of a run under a header: it never reaches PROOF_ROWS


class BareColumns:
    """The run of bare ``step value`` rows read so far, line after line.

    Example:
        >>> columns = BareColumns()
        >>> [columns.nan_step(f"{s} {3 - s / 1000}", s // 100, None) for s in (100, 200, 300)]
        [None, None, None]
        >>> columns.nan_step("400 NaN", 4, "300 2.7")
        400
        >>> framed = BareColumns()
        >>> [framed.nan_step(f"{i} 2.{i}", i + 1, "   loss" if i == 0 else "")
        ...  for i in range(4)] + [framed.nan_step("4 NaN", 5, "3 2.3")]
        [None, None, None, None, None]
    """

    def __init__(self) -> None:
        self.rows = 0  # finite rows in the run (negative: a frame's rows, never proof)
        self.last_step = -1
        self.last_line = -2
        # the last row's (step, value) where it was finite: the value before a NaN row
        self.last_finite: tuple[int, float] | None = None
        self.first_step = -1  # the run's first step (from 0, counting by one: an index)

    def nan_step(self, text: str, line: int, above: str | None) -> int | None:
        """The step of a ``NaN`` row that goes on a proven run of bare rows, else None (the
        finite row right before it: :attr:`last_finite`).

        Args:
            text: A line no reader claimed: it goes on the run or breaks it.
            line: Its number.
            above: The line right above it, if it was read (a header of names there makes
                the run a frame's rows).
        """
        if (found := _FINITE.match(text)) is not None:
            self._go_on(int(found.group(1)), line, above, finite=True)
            self.last_finite = (self.last_step, float(found.group(2)))
            return None
        if (found := _NAN.match(text)) is not None:
            step = int(found.group(1))
            proven = (self.rows >= PROOF_ROWS and self._goes_on(step, line)
                      and not (self.first_step == 0 and step == self.rows))
            if not proven:
                self.last_finite = None
            self._go_on(step, line, above, finite=False)
            return step if proven else None
        if self.rows and line == self.last_line + 1 and _ELIDED.match(text) is not None:
            self.last_line = line  # (pandas' elided rows: the run goes on below)
            return None
        self.rows = 0
        return None

    def goes_on(self, text: str, line: int) -> bool:
        """Whether ``text`` is the run's next row (a bare row numbered on, or pandas' elided
        rows), not the line that ends it."""
        if line != self.last_line + 1:
            return False
        found = _FINITE.match(text) or _NAN.match(text)
        if found is not None:
            return int(found.group(1)) > self.last_step
        return _ELIDED.match(text) is not None

    def _goes_on(self, step: int, line: int) -> bool:
        return line == self.last_line + 1 and step > self.last_step

    def _go_on(self, step: int, line: int, above: str | None, *, finite: bool) -> None:
        if not self._goes_on(step, line):
            # a new run; under a header of names, a frame's rows: never proof
            framed = above is not None and _NAMES.match(above) is not None
            self.rows = _FRAMED if framed else int(finite)
            self.first_step = step
        elif finite:
            self.rows += 1
        self.last_step, self.last_line = step, line


def series_footer(text: str) -> bool:
    """True for pandas' footer under a printed Series.

    Example:
        >>> series_footer("Name: val_loss, dtype: float64"), series_footer("dtype: float64")
        (True, True)
        >>> series_footer("Name: loss, Length: 100, dtype: float64"), series_footer("loss nan")
        (True, False)
    """
    return "dtype: " in text and _FOOTER.match(text) is not None


class HeldNaN:
    """The events of a bare NaN row (and the finite row before it), held until the line that
    ends the run: pandas' Series footer makes the NaN a missing value.

    Example:
        >>> from denpex_callbacks.logs.events import METRICS
        >>> columns = BareColumns()
        >>> _ = [columns.nan_step(f"{s} {3 - s / 1000}", s // 100, None) for s in (100, 200)]
        >>> held = HeldNaN(columns, [LogEvent(METRICS, "generic", step=300, loss=float("nan"))])
        >>> held.ended("Name: loss, dtype: float64"), len(held.ended("saving checkpoint"))
        ([], 1)
    """

    def __init__(self, columns: BareColumns, events: list[LogEvent]) -> None:
        self.columns = columns
        self.events = events

    def goes_on(self, text: str, line: int) -> bool:
        """Whether ``text`` is the run's next row (its own reading adds to the events)."""
        return self.columns.goes_on(text, line)

    def ended(self, text: str) -> list[LogEvent]:
        """The events held, once ``text`` ends the run: none after pandas' footer."""
        return [] if series_footer(text) else self.events
