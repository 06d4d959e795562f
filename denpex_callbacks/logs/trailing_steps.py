"""Records whose step counter comes last: rows without a step above the row that prints it.

Some loops print a logging step's terms first, each on a line of its own and with no step, and
the step's own line last: LlamaGen's VQ tokenizer trainer (FoundationVision/LlamaGen
``tokenizer/tokenizer_image/vq_loss.py`` logs ``(Generator) rec_loss: ..., ...`` and
``(Discriminator) discriminator_adv_loss: ...`` at ``global_step % log_every == 0``, then
``vq_train.py`` logs ``(step=0001000) Train Loss: ...`` for that same step). Numbered one a
row on from the last printed step, those rows would be steps 951 and 952 of a log printed every
50 steps, and a NaN that began at step 1000 would be claimed at 951.

:class:`TrailingSteps` learns that layout from the excerpt itself, narrowly: the first metric
rows were ``k`` rows without a step (``k`` from 1 to 4: a record's few lines), then a row
with one, and every step row since came after exactly ``k`` such rows, its step ``d`` (more
than ``k + 1``) after the one before. While that holds, a row without a step is the coming
step row's: the last printed step plus ``d``. A record that begins with its step (the step
row, then its terms below) never starts this way, and the first record that breaks the
pattern ends it for the rest of the log. Rows that fill the interval (``k = d - 1``: a loop's
row each step, its step printed on every ``d``-th) are each a step, counted on as before.
"""

from __future__ import annotations

_MOST_LINES = 4  # the most rows without a step that one record prints above its step row


class TrailingSteps:
    """Follows the rows of one log (no rank named) to number those whose step comes last.

    Example:
        >>> t = TrailingSteps()
        >>> [t.stepless(), t.stepless()]  # the excerpt's first rows: the layout not known yet
        [None, None]
        >>> t.printed(50)
        >>> [t.stepless(), t.stepless()]  # still not known: one step row gives no interval
        [None, None]
        >>> t.printed(100)
        >>> [t.stepless(), t.stepless()]  # the rows of the coming step row, step 150
        [150, 150]
        >>> t.printed(150)
        >>> t.printed(200)  # a step row after no row without a step: the layout is broken
        >>> t.stepless() is None
        True
    """

    def __init__(self) -> None:
        self._lead: int | None = 0  # rows without a step before each step row; None: not this
        self._learned = False  # the first step row was read (``_lead`` is the layout's)
        self._since = 0  # rows without a step since the last step row (or the log's start)
        self._last: int | None = None  # the last printed step
        self._interval: int | None = None  # the steps between the last two step rows

    def printed(self, step: int) -> None:
        """A row that printed ``step``."""
        if self._lead is not None:
            if not self._learned:
                self._learned = True
                self._lead = self._since if self._since else None
            elif self._since != self._lead:
                self._lead = None
        last, self._last = self._last, step
        self._interval = step - last if last is not None else None
        self._since = 0

    def stepless(self) -> int | None:
        """The step of a row without one, where the layout holds (else None: count it on)."""
        self._since += 1
        lead, interval, last = self._lead, self._interval, self._last
        if (not self._learned or lead is None or interval is None or last is None
                or self._since > lead or lead > _MOST_LINES or interval <= lead + 1):
            return None
        return last + interval
