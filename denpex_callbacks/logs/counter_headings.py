"""A line that holds only the run's counters, each named in words: a record's step line.

A loop that evaluates every so many iterations may print where the run is on a line of its own
and each metric on a line below it, its counters named in words rather than keyed:
AljazBozic/NeuralGraph ``train_graph.py`` prints ``"Epoch number {0}, Iteration number
{1}"`` over ``"{:<50} {}".format("Current Train Loss   TOTAL", ...)`` and a row a loss
term. A single counter alone (``Iteration 400``) was a step line already (metric_reader's
``STEP_ALONE``); two counters, or a counter with a filler word between its name and its
number (``number``, ``no.``, ``#``), were not, so the rows below were numbered by counting
them.

Rule: a line that holds nothing but one to three counters (``epoch``, ``iter``,
``iteration``, ``step``, ``update``, each optionally followed by ``number``, ``no.``,
``num`` or ``#`` and a colon or ``=``, then its number and optionally ``/total``), joined by
commas, pipes, semicolons, dashes or blanks, with marks around them, is a step line when one
of its counters is an iteration, a step or an update. It is read as the same line without
the filler words (``Epoch 2, Iteration 400``), which names the epoch and the step. A line
that holds anything else (a value, a word of another kind) is no such heading.
"""

from __future__ import annotations

import re

COUNTERS_WIDTH = 96  # longer lines are no heading (and never searched)
# A counter: its name, an optional filler word, a colon or ``=``, its number (and total).
# Bounded pieces, each fixed by a word or a digit: linear on any line.
_ITEM = (r"(?:epoch|iter(?:ation)?|step|update)s?(?: (?:number|num|no\.|#))?"
         r" ?[:=]? ?#?\d{1,12}(?:/\d{1,12})?")
_HEADING = re.compile(rf"(?i)[-=#*>\[( \t]{{0,12}}{_ITEM}(?:(?: ?[,;|] ?| - | ){_ITEM}){{0,2}}"
                      r"[-=#*<\]). \t]{0,12}")
_STEP_NAMED = re.compile(r"(?i)\b(?:iter(?:ation)?|step|update)s?\b")
FILLED = r"(?i)(?<=[a-z]) (?:number|num|no\.|#) ?(?=[:=]? ?#?\d)"  # a filler, before its number
_FILLER = re.compile(FILLED)


def counter_heading(text: str) -> str | None:
    """``text`` without its counters' filler words where it is a line of counters alone
    that names a step (see the module's rule); else None.

    Example:
        >>> counter_heading("Epoch number 2, Iteration number 400")
        'Epoch 2, Iteration 400'
        >>> counter_heading("== Epoch #3 | Step #1200 =="), counter_heading("iter number: 7")
        ('== Epoch 3 | Step 1200 ==', 'iter: 7')
        >>> counter_heading("Epoch number 2") is None, counter_heading("Step 4, loss 0.3")
        (True, None)
    """
    if len(text) > COUNTERS_WIDTH:
        return None
    line = text.rstrip()
    if _HEADING.fullmatch(line) is None or _STEP_NAMED.search(line) is None:
        return None
    return _FILLER.sub(_dropped, line)


def _dropped(filler: re.Match[str]) -> str:
    """What stands for a filler word: a blank before the number itself (``Epoch #2``:
    ``Epoch 2``), nothing before a colon or ``=`` (``Iteration number: 4``: ``Iteration:
    4``)."""
    return " " if filler.string[filler.end():filler.end() + 1].isdigit() else ""


def is_counter_heading(line: bytes) -> bool:
    """Whether the raw ``line`` is a counters' heading (:func:`counter_heading`); a cheap test
    first: most lines name no iteration or step.

    Example:
        >>> is_counter_heading(b"Epoch number 0, Iteration number 0")
        True
        >>> is_counter_heading(b"Saved checkpoint 400")
        False
    """
    if len(line) > COUNTERS_WIDTH:
        return False
    low = line.lower()
    if b"ter" not in low and b"tep" not in low and b"pdate" not in low:
        return False
    return counter_heading(line.decode("utf-8", "replace")) is not None
