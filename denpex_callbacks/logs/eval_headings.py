"""A heading over a block of rows that names an evaluation: the block is evaluation's.

A trainer that prints each record as a step line over one ``key: value`` row a metric prints
its evaluation's record the same way under a heading of its own instead of a step line:
coqui-ai/Trainer's ``print_epoch_end`` writes ``  --> EVAL PERFORMANCE`` over ``     | >
avg_loss: nan (+0)`` rows (trainer/logging/console_logger.py), after ``print_eval_start``'s
``> EVALUATION``. The rows name no split (``avg_loss``); the heading does. The reader hands
such a heading over in the step line's place (``record_rows.step_above_rows``), and the
metric reader reads the rows below it as the evaluation's, up to the next heading or step
line (the record's end).

A heading here is a short line with no digit: markers (``-->``, ``==``, ``#``, ``>``) and
terminal colours around an evaluation word alone (``EVAL``, ``EVALUATION``, ``VALIDATION``,
``VALID``, ``VAL``, ``TEST``, ``DEV``), or followed by one word that says it holds results
(``PERFORMANCE``, ``RESULTS``, ``METRICS``, ``STATS``, ``SUMMARY``).
"""

from __future__ import annotations

import re

HEADING_WIDTH = 64  # longer lines are no heading (and never searched)
ROWS_REACH = 17  # a block's first row handed over below its heading (record_rows.ROW_REACH + 1)
_COLOUR = re.compile(r"\x1b\[[\d;]{0,8}m")
_HEADING = re.compile(r"(?i)[-=>#*|:\[ \t]{0,12}(?:eval|evaluation|validation|valid|val|test"
                      r"|dev)(?:[ _](?:performance|results?|metrics|stats|summary))?"
                      r"[-=<#*|:\] \t]{0,12}")
# A block's row: an indent, then a marker (``     | > avg_loss: nan``, ``  - loss: 0.3``)
_ROW = re.compile(r"[ \t]{2,16}[|>*:-]")


def evaluation_heading(line: bytes | str) -> bool:
    """Whether ``line`` is a heading that names an evaluation over the rows below it.

    Example:
        >>> evaluation_heading(b"  \\x1b[1m--> EVAL PERFORMANCE\\x1b[0m")
        True
        >>> [evaluation_heading(x) for x in (b" > EVALUATION ", b"--> STEP: 3/40", "test",
        ...                                  b"--> TRAIN PERFORMANCE", "Validation:")]
        [True, False, True, False, True]
    """
    if len(line) > HEADING_WIDTH:
        return False
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    if "\x1b" in text:
        text = _COLOUR.sub("", text)
    return _HEADING.fullmatch(text) is not None


def block_row(text: str) -> bool:
    """Whether ``text`` is shaped as a row of a block under a heading (indent, marker).

    Example:
        >>> block_row("     | > avg_loss: nan (+0)"), block_row("loss: nan")
        (True, False)
    """
    return text[:2] in ("  ", " \t", "\t ", "\t\t") and _ROW.match(text) is not None


class HeadedBlock:
    """The rows of the block an evaluation heading opened, read line after line: a row
    right below the heading or the block's last row (or the first row handed over below
    the heading: the reader hands a heading over only above rows of one shape) goes on it;
    any other line ends it.

    Example:
        >>> block = HeadedBlock()
        >>> block.heading("  --> EVAL PERFORMANCE", 10)
        >>> block.row("     | > avg_loss: nan (+0)", 12, 10), block.row("  | > x: 1", 13, 12)
        (True, True)
        >>> block.row("     | > loss: nan", 20, 19)  # another line between: ended
        False
    """

    __slots__ = ("heading_line", "last")

    def __init__(self) -> None:
        self.heading_line = -1  # the heading's line, and the block's last line read
        self.last = -1

    def heading(self, text: str, line: int) -> None:
        """Read an evaluation line: a heading opens a block."""
        if evaluation_heading(text):
            self.heading_line = self.last = line

    def row(self, text: str, line: int, before: int) -> bool:
        """Whether ``text`` (line ``line``; ``before``: the line handed over before it) is a
        row of the open block; kept as its last if so."""
        if self.last < 0 or before != self.last or not block_row(text):
            return False
        if line != before + 1 and (before != self.heading_line
                                   or line - before > ROWS_REACH):
            self.last = -1
            return False
        self.last = line
        return True
