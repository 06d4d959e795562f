"""Table cells that print a list of numbers: a loss's terms in one column, read as their total.

A physics-informed network's loss is a list of terms, one a residual or a condition, and its
trainer prints the list whole in one cell of a table: DeepXDE (lululxvi/deepxde
``deepxde/display.py`` ``TrainingDisplay``) prints ``Step  Train loss  Test loss  Test metric``
over rows of ``str(step)`` and ``list_to_str(...)`` cells, ``"[{:s}]".format(", ".join(
"{:.2e}".format(x) ...))`` (``[1.23e-02, 4.56e-04, 7.89e-05]``), each cell padded to a width
the count of terms sets. Split at its blanks such a row's cells fall under the wrong names
(a term of the training loss under ``Test loss``). A list cell is read as one cell, the total
of its terms (:func:`loss_total`: a non-finite term makes the total non-finite), written in
the place the list took, so that a row lined up with its header stays lined up.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs.metric_pairs import VALUE, to_value

# ``[a, b, c]``: no bracket inside, bounded (a cheap, linear match: no nested repetition).
_LIST_CELL = re.compile(r"\[([^\[\]\n]{1,400})\]")


def loss_total(terms: list[float]) -> float:
    """The total of a loss's terms: their sum, or the first non-finite term (one makes the
    total non-finite).

    Example:
        >>> loss_total([0.5, 0.25]), loss_total([0.5, float("nan"), float("inf")])
        (0.75, nan)
    """
    bad = next((t for t in terms if not math.isfinite(t)), None)
    return math.fsum(terms) if bad is None else bad


def collapse_lists(text: str) -> str:
    """``text`` with each bracketed list of numbers replaced by its total, padded to the
    list's width; a bracket that holds anything but numbers (a word, a nested list, a
    ``[1/100]`` counter) is left as it is.

    Example:
        >>> collapse_lists("1000      [2.50e-01, 1.25e-01]  [nan, 1.00e-02]  [1.50e-01]")
        '1000      0.375                 nan              0.15      '
        >>> collapse_lists("Epoch [3/10] [train] loss 0.5")
        'Epoch [3/10] [train] loss 0.5'
    """
    if "[" not in text:
        return text
    return _LIST_CELL.sub(_total_cell, text)


def _total_cell(found: re.Match[str]) -> str:
    items = [item.strip() for item in found.group(1).split(",")]
    if not all(VALUE.fullmatch(item) for item in items):
        return found.group()
    shown = format(loss_total([to_value(item) for item in items]), ".6g")
    # (one blank at least after it: the cell must not run into the next one)
    return shown.ljust(len(found.group())) if len(shown) < len(found.group()) else shown + " "
