"""Where a step numbered by counting lies between the steps a log printed.

A log that prints its step counter every ``N`` steps (DeepSpeed's ``step=100, skipped=0``
each ``steps_per_print``) and an overflow line for each skipped step in between does not say
which of the steps in between overflowed: the assembler numbers the overflow lines on from
the last counter (101, 102, ...), and the next counter (``step=110, skipped=6``) says only
that 6 of the steps 101-110 were skipped. A condition that began on such a counted step began
somewhere in 101-110, and the diagnosis says so rather than claim step 101.

:class:`StepSpans` follows the printed counters and the counted steps after them; a step that
a diagnosis names is watched, and once the next counter is read, its span is known. Memory is
bounded: a few recent spans and a few watched steps.
"""

from __future__ import annotations

from collections import deque

_RECENT = 16  # closed spans kept for a diagnosis made after the counter that closed its span
_WATCHED = 64  # steps watched at most (one per diagnosis)


class StepSpans:
    """The spans between printed step counters that hold counted steps.

    Example:
        >>> spans = StepSpans()
        >>> spans.printed(100)
        >>> for step in (101, 102, 103):  # overflow lines, numbered on from the counter
        ...     spans.counted(step)
        >>> spans.watch(101)  # a diagnosis began there
        >>> spans.printed(110)  # ``step=110, skipped=3``
        >>> spans.within(101)
        (101, 110)
        >>> spans.within(105) is None  # not watched
        True
    """

    def __init__(self) -> None:
        self._last: int | None = None  # the last step a line printed
        self._counted: tuple[int, int] | None = None  # the first and last step counted since
        # recent spans that held counted steps: (low, high, first counted, last counted)
        self._closed: deque[tuple[int, int, int, int]] = deque(maxlen=_RECENT)
        self._watched: dict[int, tuple[int, int] | None] = {}

    def printed(self, step: int) -> None:
        """A line printed ``step`` (a step counter, a row's step, a quiet run's last line)."""
        counted, last = self._counted, self._last
        if counted is not None and last is not None and step >= counted[1]:
            self._closed.append((last + 1, step, *counted))
            for watched, span in self._watched.items():
                if span is None and counted[0] <= watched <= counted[1]:
                    self._watched[watched] = (last + 1, step)
        self._counted = None
        self._last = step

    def counted(self, step: int) -> None:
        """An observation at ``step`` that no line printed (numbered by counting)."""
        if self._last is None or step <= self._last:
            return
        first = step if self._counted is None else self._counted[0]
        self._counted = (first, max(step, self._counted[1] if self._counted else step))

    def watch(self, step: int) -> None:
        """A diagnosis names ``step``: keep its span, once known."""
        if step in self._watched or len(self._watched) >= _WATCHED:
            return
        for low, high, first, last in self._closed:
            if first <= step <= last:
                self._watched[step] = (low, high)
                return
        counted = self._counted
        if counted is not None and counted[0] <= step <= counted[1]:
            self._watched[step] = None  # closed by the next printed step

    def within(self, step: int) -> tuple[int, int] | None:
        """The printed steps' span ``(low, high)`` that watched ``step`` lies in, when the log
        cannot place it closer (``low < high``); None when it was printed or is not known."""
        span = self._watched.get(step)
        return span if span is not None and span[0] < span[1] else None
