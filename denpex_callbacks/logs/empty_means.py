"""numpy's warning that a mean had nothing to average, right above the NaN it printed.

``numpy.mean`` of an empty array warns and returns NaN (numpy ``_core/_methods.py``
``_mean``: ``warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)``, ``"Mean of
empty slice."`` in numpy 1.x; ``numpy.nanmean`` of no finite value: the same words, from
``lib/_nanfunctions_impl.py``), then its division warns again (``invalid value encountered in
scalar divide``, ``double_scalars`` before 1.25). Python's ``formatwarning`` prints each as
``{file}:{line}: RuntimeWarning: {message}`` over its source line, on stderr, which a
terminal's paste interleaves with the prints. A script that averages an evaluation it did not
run prints that NaN right below them: 3dem/relion-classranker ``train_resnet.py`` with
``--no_valid`` ends ``f'Final valid loss: {mean_late_loss}'`` on the mean of no validation
loss. That NaN is the mean of nothing, not a value that diverged: no AMP013.

Only an evaluation's NaN (a training loss of no batches is left to the training rows' rules)
within :data:`REACH` lines below the warning, with no training loss's NaN or inf read between
them (the warning stood over that one: the evaluation's NaN below follows a diverged run),
and only the first: one empty mean, one warning (Python's default filter shows it once per
place, so a later empty mean at the same place prints none, and the warning explains no later
NaN).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from denpex_callbacks.logs.events import EVAL, SUMMARY, LogEvent

FAMILY = "numpy"
# The prefilter's budget of keywords is spent: the warning holds none, and is handed over by
# the reader as a line above the NaN's (:func:`warning_above`), as a record's step line is.
KEYWORDS: tuple[bytes, ...] = ()
# Lines from the warning to the print below it: the warning's source line, the division's
# warning and its source line, then the print.
REACH = 4
# formatwarning's ``: RuntimeWarning: Mean of empty slice`` (with numpy 1.x's period) ending
# the line: a line that only quotes the words (a filter's ``message=``) is none
_WARNING = re.compile(r": RuntimeWarning: Mean of empty slice\.?\s*$")
_WARNING_TAIL = re.compile(rb": RuntimeWarning: Mean of empty slice\.?[ \t\r]*(?=\n)")
# How far above a candidate the warning is looked for: its lines (a path, a source line,
# a second warning and its source line), each of a line's usual length
_BYTES = 1024


def warning_above(buffer: bytes, resume: int, start: int) -> tuple[bytes, int] | None:
    """numpy's empty-mean warning on one of the :data:`REACH` lines above the candidate at
    ``start`` (none of them handed over: from ``resume`` on), with how many lines lie
    between; else None. One ``rfind`` of the bytes just above first: most gaps hold none.

    Example:
        >>> b = b"x.py:9: RuntimeWarning: Mean of empty slice\\n  m = x.mean()\\nval loss: nan\\n"
        >>> warning_above(b, 0, b.index(b"val"))
        (b'x.py:9: RuntimeWarning: Mean of empty slice', 1)
    """
    low = max(resume, start - _BYTES)
    if buffer.rfind(b"Mean of empty slice", low, start) < 0:
        return None
    matches = list(_WARNING_TAIL.finditer(buffer, low, start))
    if not matches:
        return None
    last = matches[-1]
    between = buffer.count(b"\n", last.end() + 1, start)
    if between >= REACH:
        return None
    first = buffer.rfind(b"\n", low, last.start()) + 1
    return buffer[max(first, low):last.end()].rstrip(), between


def parse(text: str) -> list[LogEvent]:
    """numpy's empty-mean warning on one line, as an event the session holds (no finding).

    Example:
        >>> [e.family for e in parse(".../numpy/_core/fromnumeric.py:3824: RuntimeWarning: "
        ...                          "Mean of empty slice")]
        ['numpy']
        >>> parse("warnings.filterwarnings('ignore', message='Mean of empty slice')")
        []
    """
    if "Mean of empty slice" not in text or _WARNING.search(text) is None:
        return []
    return [LogEvent(SUMMARY, FAMILY)]


@dataclass
class EmptyMeans:
    """The line of the last empty-mean warning, until the NaN below it is read.

    Example:
        >>> means = EmptyMeans()
        >>> means.warned(10)
        >>> nan = LogEvent(EVAL, "generic", loss=math.nan, metric="valid loss")
        >>> means.explains(nan, 14), means.explains(nan, 15)
        (True, False)
    """

    line: int | None = None

    def warned(self, line: int) -> None:
        """numpy warned on ``line`` that a mean had nothing to average."""
        self.line = line

    def explains(self, event: LogEvent, line: int) -> bool:
        """Whether ``event``, read on ``line``, is the NaN of the mean numpy warned of: an
        evaluation's NaN within :data:`REACH` lines below the warning (the warning is spent
        on it)."""
        if self.line is None or event.kind != EVAL:
            return False
        value = event.loss if event.loss is not None else math.nan
        if not math.isnan(value) or not 0 < line - self.line <= REACH:
            return False
        self.line = None
        return True

    def passed(self, event: LogEvent) -> None:
        """A training event read below the warning: a non-finite loss there is what the
        warning stood over (a loop that averages its batches' losses with numpy, or a
        diverged run whose other mean was empty), and the evaluation's NaN below it follows
        the training's, not a mean of nothing: the warning is spent on it.

        Example:
            >>> from denpex_callbacks.logs.events import METRICS
            >>> means = EmptyMeans()
            >>> means.warned(10)
            >>> means.passed(LogEvent(METRICS, "generic", loss=math.nan))
            >>> means.explains(LogEvent(EVAL, "generic", loss=math.nan, metric="loss"), 12)
            False
        """
        if event.kind != EVAL and event.loss is not None and not math.isfinite(event.loss):
            self.line = None
