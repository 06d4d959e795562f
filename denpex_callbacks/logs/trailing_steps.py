"""Records whose step counter comes last: rows without a step above the row that prints it.

Some loops print a logging step's terms first, each on a line of its own and with no step, and
the step's own line last: LlamaGen's VQ tokenizer trainer (FoundationVision/LlamaGen
``tokenizer/tokenizer_image/vq_loss.py`` logs ``(Generator) rec_loss: ..., ...`` and
``(Discriminator) discriminator_adv_loss: ...`` at ``global_step % log_every == 0``, then
``vq_train.py`` logs ``(step=0001000) Train Loss: ...`` for that same step). Numbered one a
row on from the last printed step, those rows would be steps 951 and 952 of a log printed every
50 steps, and a NaN that began at step 1000 would be claimed at 951.

:class:`TrailingSteps` learns that layout from the excerpt itself, narrowly: the excerpt's
first metric row printed no step; the first whole record (between the first two step rows)
was ``k`` such rows (``k`` from 1 to 4: a record's few lines) and its step row, the rows
before the first step row no more than ``k`` (a record the excerpt cut); every record since
had ``k`` rows too, its step ``d`` (more than ``k + 1``) after the one before. While that
holds, a row without a step is the coming step row's: the last printed step plus ``d``. An
excerpt that opens with a step row never starts this layout, and the first record that breaks
it ends it for the rest of the log. Rows that fill the interval (``k = d - 1``: a loop's row
each step, its step printed on every ``d``-th) are each a step, counted on as before.
"""

from __future__ import annotations

_MOST_LINES = 4  # the most rows without a step that one record prints above its step row


class TrailingSteps:
    """Follows the rows of one log (no rank named) to number those whose step comes last.

    Example:
        >>> t = TrailingSteps()
        >>> t.stepless() is None  # the excerpt's first row, cut from its record: not known yet
        True
        >>> t.printed(50)
        >>> [t.stepless(), t.stepless()]  # still not known: a whole record not seen yet
        [None, None]
        >>> t.printed(100)  # two rows, then the step row: a record
        >>> [t.stepless(), t.stepless()]  # the rows of the coming step row, step 150
        [150, 150]
        >>> t.printed(150)
        >>> t.printed(200)  # a step row after no row without a step: the layout is broken
        >>> t.stepless() is None
        True
    """

    def __init__(self) -> None:
        self._broken = False  # a record broke the layout: rows are counted one a row
        # the rows before the first step row (a cut record); 0: the excerpt opened with a step
        # row (a record that begins with its step: not this layout)
        self._first: int | None = None
        self._lead: int | None = None  # rows without a step above each step row since
        self._since = 0  # rows without a step since the last step row (or the log's start)
        self._last: int | None = None  # the last printed step
        self._interval: int | None = None  # the steps between the last two step rows

    def printed(self, step: int) -> None:
        """A row that printed ``step``."""
        if self._first is None:
            self._first = self._since
        elif self._lead is None:
            # the first whole record; the excerpt may have cut the one before it
            self._lead = self._since
            self._broken = self._broken or self._first > self._since
        elif self._since != self._lead:
            self._broken = True
        last, self._last = self._last, step
        self._interval = step - last if last is not None else None
        self._since = 0

    def stepless(self) -> int | None:
        """The step of a row without one, where the layout holds (else None: count it on)."""
        self._since += 1
        lead, interval, last = self._lead, self._interval, self._last
        if (not self._first or self._broken or lead is None or interval is None or last is None
                or not 0 < self._since <= lead <= _MOST_LINES or interval <= lead + 1):
            return None
        return last + interval
