"""Names joined by slashes before one colon, their values joined the same way after it.

A loop that prints several losses at once may name them all first and give their values
after one colon, each list joined by `` / ``: A-NGJ/deeplearning2022-footandball
``train_detector.py`` (FootAndBall) prints each epoch's averages as ``"{} Avg. loss total /
ball conf. / player conf. / player loc.: {:.4f} / {:.4f} / {:.4f} / {:.4f}"`` with the phase
(``train``, ``val``) first. No name sits beside its value, so the generic reader pairs none
of them (it read the last name and the first value, or nothing).

Such a line is spread into ``name: value`` pairs, in order, the phase word kept on the first
name (``train Avg. loss total: nan, ball conf.: nan, ...``), and read as any other line is.
A line is one only where the names and the values are equal in number (two to eight), every
value is a number (``nan`` and ``inf`` among them) and every name holds a letter and no
digit: a ratio (``3 / 4``), a date, a path or a fraction printed after a colon (``lr: 1 /
1000``) is none.
"""

from __future__ import annotations

import re

# A name: words without a digit, a colon or a slash, a dot allowed (``conf.``); bounded.
_NAME = r"[^\W\d][^:/\d\n]{0,40}?"
_NUMBER = r"[-+]?(?:\d{1,12}(?:\.\d{0,12})?(?:[eE][-+]?\d{1,3})?|nan|NaN|inf|-inf)"
# The values: after the line's last ``: `` (no value holds a colon), to the end of the line.
_VALUES = re.compile(rf"{_NUMBER}(?: / {_NUMBER}){{1,7}}")
# The names: right before that colon, each bounded, so they lie within _NAMES_SPAN characters
# of it; searched only there (a long line of slashed words is not searched from every start).
_NAMES = re.compile(rf"{_NAME}(?: / {_NAME}){{1,7}}$")
_NAMES_SPAN = 8 * (41 + 3)


def spread(text: str) -> str:
    """``text`` with its slashed names and values paired, or ``text`` itself where it is no
    such line.

    Example:
        >>> spread("train Avg. loss total / ball conf.: 0.4100 / 0.2460")
        'train Avg. loss total: 0.4100, ball conf.: 0.2460'
        >>> spread("lr: 1 / 1000")
        'lr: 1 / 1000'
    """
    colon = text.rfind(": ")
    if colon < 0 or _VALUES.fullmatch(tail := text[colon + 2:].rstrip()) is None:
        return text
    start = max(0, colon - _NAMES_SPAN)
    found = _NAMES.search(text, start, colon)
    if found is None:
        return text
    names = found.group(0).split(" / ")
    values = tail.split(" / ")
    if len(names) != len(values) or any(not name.strip() for name in names):
        return text
    pairs = ", ".join(f"{name.strip()}: {value}" for name, value in zip(names, values, strict=True))
    return text[:found.start()] + pairs
