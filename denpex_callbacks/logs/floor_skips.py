"""A loss scale that sits at its floor while a printed skip counter climbs: a collapse.

A dynamic scaler halves its scale on every overflowing step and skips the step; many halvings
in a row take it to its floor (a scaler clamps at a minimum: 1 for many hand-written
scalers, ``min_loss_scale`` for DeepSpeed's and fairseq's), where it can go no lower and every
step overflows on. A loop that prints the scale and its count of skipped steps on each row
(RedSafir/Visformer-FP16's bar postfix ``loss=GradNaN, scale=1, skipped=781``, a
``loss_scale: 1.0 | skipped_iters: 400`` line, a dict ``{'scale': 0.5, 'skipped': 1200}``)
shows that as a row whose scale is at most 1 while the counter rose by most of the steps since
the row before: AMP003 from that row, although no overflow line was printed.

Healthy runs stay out of it on two counts: a healthy fp16 scale sits far above 1 (2**16 at the
start, a few halvings of it after the start-up back-off), and a bf16 or fp32 run that prints
``scale=1.0`` skips no step (its counter stays 0, or is not printed). A few start-up skips
never make most of a span. A bare ``scale`` (no ``loss`` beside it) is read only as a
scaler prints it, a power of two: an image or model scale is any number.

How many steps a counter's rise stands for depends on what it counts. Against the row before
that printed one, a rise is the skips in between; a counter that restarted (per epoch) or that
the row before did not print (a postfix that shows it only once it is above 0) counts at most
the steps since that row, where its value is no larger than them. With no row before, the
counter is read as the run's so far from step 0, the start-up back-off deducted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FLOOR = 1.0  # a scale at or below this is at a floor: no healthy fp16 run sits there
MIN_SKIPS = 20  # skips the counter must climb by (more than any start-up back-off)
SHARE = 0.5  # ...making at least this share of the steps they span: most steps skipped
HIGH_SKIPS = 200  # from this many skips the finding is sure
_TOLERANCE = 0.0015  # in binary orders of magnitude: a printed power of two is rounded


def row_scale(named: float | None, bare: float | None) -> float | None:
    """The scale a row printed, as this rule reads it: a key that names a loss scale as
    printed; a bare ``scale`` only where its value is a power of two (a scaler's).

    Example:
        >>> row_scale(1.0, None), row_scale(None, 0.00390625), row_scale(None, 0.6)
        (1.0, 0.00390625, None)
    """
    if named is not None:
        return named if math.isfinite(named) else None
    if bare is None or not 0.0 < bare < math.inf:
        return None
    exponent = math.log2(bare)
    return bare if abs(exponent - round(exponent)) <= _TOLERANCE else None


@dataclass(frozen=True)
class FloorSkips:
    """What one row showed: the scale at its floor and how many skips since the row before.

    Attributes:
        step: The row's step.
        scale: The scale it printed.
        skipped: The skipped steps its counter says came since the row before.
        steps: The steps since the row before (from step 0 where there was none).
    """

    step: int
    scale: float
    skipped: int
    steps: int

    @property
    def share(self) -> float:
        """The share of the span's steps that were skipped."""
        return self.skipped / self.steps


class FloorWatch:
    """Reads rows in order; keeps the first that shows a scale at its floor over a span of
    steps mostly skipped. Cheap per row: a few comparisons.

    Example:
        >>> watch = FloorWatch()
        >>> watch.stepped(781, line=1)  # a row without the pair (the scale 64, no counter)
        >>> watch.row(1562, 1.0, 582, line=2, allowance=10)
        FloorSkips(step=1562, scale=1.0, skipped=582, steps=781)
        >>> watch = FloorWatch()  # bf16: scale 1.0, nothing skipped
        >>> [watch.row(s, 1.0, 0, line=s, allowance=10) for s in (100, 200)]
        [None, None]
    """

    __slots__ = ("earlier", "last")

    def __init__(self) -> None:
        # (step, counter or None, line) of the last row with a step, and of the last one on
        # an earlier line than it (a row's events share its line: the anchor is the row before)
        self.last: tuple[int, int | None, int] | None = None
        self.earlier: tuple[int, int | None, int] | None = None

    def stepped(self, step: int, line: int) -> None:
        """A row with a step but no scale beside a skip counter: the next span starts here."""
        self._note(step, None, line)

    def row(self, step: int, scale: float, counter: int, line: int,
            allowance: int) -> FloorSkips | None:
        """A row that printed ``scale`` and the skip ``counter`` at ``step``; what it shows
        where the scale is at its floor over a span mostly skipped, else None.
        ``allowance``: the start-up back-off's skips, deducted where the counter is read
        from step 0."""
        anchor = self.last if self.last is None or self.last[2] != line else self.earlier
        self._note(step, counter, line)
        if not 0.0 <= scale <= FLOOR or counter < MIN_SKIPS:
            return None
        if anchor is None or anchor[0] >= step:  # none before (or a counter gone back)
            steps, skipped = step, counter - min(counter, allowance)
        else:
            steps, before = step - anchor[0], anchor[1]
            if before is not None and before <= counter:
                skipped = counter - before
            elif counter <= steps:  # restarted, or first printed since the row before
                skipped = counter
            else:  # more than the span: a count of the run so far
                steps, skipped = step, counter - min(counter, allowance)
        if skipped < MIN_SKIPS or steps <= 0 or skipped < SHARE * steps:
            return None
        return FloorSkips(step, scale, skipped, steps)

    def forget(self) -> None:
        """A new run began: its rows are no span from the last run's."""
        self.last = self.earlier = None

    def _note(self, step: int, counter: int | None, line: int) -> None:
        last = self.last
        if last is not None and last[2] == line:
            # the same row's other event: one row, its counter kept
            self.last = (step, counter if counter is not None else last[1], line)
            return
        self.earlier, self.last = last, (step, counter, line)
