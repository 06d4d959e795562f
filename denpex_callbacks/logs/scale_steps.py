"""What two logged loss scales of one rank say about the steps between them.

A log that prints only the scale (``loss_scale=512.0`` each step, a ``loss_scale`` column in
metrics.csv or TensorBoard) still shows its skipped steps: every dynamic scaler that backs
off (torch's GradScaler, DeepSpeed, Megatron, Paddle, Keras) halves the scale only on a step
whose gradients were not finite, and skips that step. So, between two values of the same rank:

- at consecutive steps, a halving is a skipped step, the same scale or a doubling an applied
  one (what a live run infers from the scale before and after a step);
- over a gap of ``n`` steps, ``k`` halvings are at least ``k`` skipped steps in it; all ``n``
  skipped when ``k == n`` (then the scale before the last step is known too);
- any other change (a drop by a factor that is no power of 2, more halvings than steps, a
  jump up) is a scale someone set: nothing is inferred.

Only the default backoff (x0.5) is read; a scaler built with another backoff factor shows
drops this module does not claim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

TOLERANCE = 0.01  # in halvings: printed scales are rounded (``%g``, six digits)


@dataclass(frozen=True)
class ScaleChange:
    """The steps up to and including a logged scale, read from the previous one.

    Attributes:
        before: The scale before the logged step (None: not known).
        skipped: Whether the logged step was skipped (None: not known).
        gap_skipped: Skipped steps among the unseen steps before the logged one.
        halvings: How many times the scale halved (each one a skipped step).
    """

    before: float | None
    skipped: bool | None
    gap_skipped: int
    halvings: int = 0

    def less(self, seen: int) -> ScaleChange | None:
        """What is left once ``seen`` of the skips were already shown one by one (overflow
        lines between the two values): only the halvings no line showed are inferred.

        Example:
            >>> ScaleChange(None, None, 3, halvings=3).less(1)
            ScaleChange(before=None, skipped=None, gap_skipped=2, halvings=2)
            >>> ScaleChange(512.0, True, 0, halvings=1).less(1) is None
            True
        """
        if seen <= 0:
            return self
        left = self.halvings - seen
        return ScaleChange(None, None, left, left) if left > 0 else None


def read_change(previous: tuple[int, float] | None, step: int,
                scale: float | None) -> ScaleChange | None:
    """What the scale going from ``previous`` (step, scale) to ``scale`` at ``step`` says;
    None when it says nothing.

    Example:
        >>> read_change((5, 1024.0), 6, 512.0)  # halved between consecutive steps: a skip
        ScaleChange(before=1024.0, skipped=True, gap_skipped=0, halvings=1)
        >>> read_change((5, 1024.0), 6, 1024.0).skipped  # the same scale: applied
        False
        >>> read_change((10, 1024.0), 20, 1.0)  # 10 halvings in 10 steps: all skipped
        ScaleChange(before=2.0, skipped=True, gap_skipped=9, halvings=10)
        >>> read_change((10, 1024.0), 20, 128.0)  # 3 halvings in 10 steps: at least 3 skips
        ScaleChange(before=None, skipped=None, gap_skipped=3, halvings=3)
        >>> read_change((5, 65536.0), 6, 1000.0) is None  # set by hand
        True
    """
    if previous is None or scale is None:
        return None
    last_step, last = previous
    steps = step - last_step
    if steps < 1:
        return None
    whole = _doublings(scale, last)  # the halvings from ``last`` to ``scale``
    if whole is None:
        return None  # not a power of 2: a scale someone set
    if whole <= 0:
        # The same scale or one growth between consecutive steps: an applied step. Over a gap
        # the unseen steps are applied already (the gap says so); the logged one is unknown.
        return ScaleChange(last, False, 0) if steps == 1 and whole >= -1 else None
    if whole > steps:
        return None  # more halvings than steps: not a back-off
    if whole == steps:
        return ScaleChange(scale * 2.0, True, steps - 1, whole)
    return ScaleChange(None, None, whole, whole)


def fell_faster(before: float | None, after: float | None, most: int) -> bool:
    """Whether the scale fell from ``before`` to ``after`` by more than ``most`` halvings (the
    steps between two rows, or the skips an interval's row counts): no dynamic scaler backs
    off more than once a skipped step (torch's, DeepSpeed's, Megatron's and fairseq's halve),
    so another scaler reports ``after`` (a run resumed in bf16, whose disabled
    ``GradScaler.get_scale()`` is 1.0, as Megatron's ``loss scale: 1.0`` without a grad
    scaler; a scale set by hand). Only a fall to 1 or above is read: below 1 a print
    rounded to its digits (Megatron's ``0.0625`` as ``0.1``) falls further than the scale did.

    Example:
        >>> fell_faster(4096.0, 1.0, 1)  # 12 halvings in one step
        True
        >>> fell_faster(4096.0, 1.0, 100)  # ...in 100 steps: may be a collapse
        False
        >>> fell_faster(4096.0, 2048.0, 1), fell_faster(None, 1.0, 0), fell_faster(0.5, 0.2, 1)
        (False, False, False)
    """
    if before is None or after is None or not _usable(before) or not 1.0 <= after < math.inf:
        return False
    return math.log2(before / after) > max(most, 0) + TOLERANCE


def _usable(scale: float) -> bool:
    return math.isfinite(scale) and scale > 0.0


@dataclass
class GrowthBounds:
    """Upper bounds on a dynamic scaler's growth interval, read from rows printed every few
    steps (fairseq's ``train_inner`` every ``--log-interval`` updates beside its overflow
    NOTEs), or from overflow lines that print the scale they attempted (:meth:`overflow`).
    Such rows never show a clean stretch one by one, so the interval is not learnt exactly;
    but a scaler grows ``interval`` clean steps after its last back-off (torch's
    GradScaler, fairseq's, DeepSpeed's), so a row ``n`` steps after a back-off that shows
    ``k`` doublings since it bounds the interval by ``n // k``. The longest bound is kept:
    a healthy sawtooth's own skip rate is judged against it (a shorter interval skips more),
    and being no shorter than the interval it makes AMP005 and AMP008 no easier to raise
    than the interval itself would (as the exact stretches learnt from rows step by step).

    Example:
        >>> bounds = GrowthBounds()
        >>> bounds.row(0, (100, 512.0), 110, 256.0, None)  # halved in the gap: a back-off
        >>> bounds.row(0, (110, 256.0), 130, 512.0, None)  # regrown at most 29 steps after 101
        29
        >>> bounds.row(0, (130, 512.0), 140, 256.0, 135)  # an overflow line said the back-off
        >>> bounds.row(0, (140, 256.0), 160, 512.0, None)  # 25 at most: the longest is kept
        29
    """

    anchors: dict[int, tuple[int, float]] = field(default_factory=dict)  # rank: back-off
    longest: int = 0

    def row(self, rank: int, previous: tuple[int, float] | None, step: int, scale: float,
            shown_skip: int | None) -> int | None:
        """A row of ``rank`` at ``step`` printing ``scale`` after its ``previous`` (step,
        scale); ``shown_skip``: the step of an overflow line read since that row. Returns the
        longest bound read so far where this row read one, else None."""
        if previous is None or step - previous[0] <= 1 or not _usable(scale):
            return None  # rows step by step: the exact stretches are learnt elsewhere
        last_step, last = previous
        if shown_skip is not None:
            self.anchors[rank] = (shown_skip, scale)
            return None
        if scale == last:
            return None  # most rows: the scale as before, nothing grew (no log2 per row)
        change = _doublings(last, scale)
        if change is None or change < 0:
            # halved in the gap (its earliest step), or set by hand (nothing to anchor on)
            if change is None:
                self.anchors.pop(rank, None)
            else:
                self.anchors[rank] = (last_step + 1, scale)
            return None
        anchor = self.anchors.get(rank)
        grown = _doublings(anchor[1], scale) if anchor is not None and change > 0 else None
        if anchor is None or grown is None or grown <= 0:
            return None
        self.longest = max(self.longest, (step - anchor[0]) // grown)
        return self.longest

    def overflow(self, rank: int, step: int, before: float | None,
                 after: float | None) -> int | None:
        """An overflow line of ``rank`` at ``step`` that printed the scale it attempted
        (``before``) and the one it backed off to (``after``): DeepSpeed's ``Attempted loss
        scale: 2048, reducing to 1024``, which prints no growth. A scale attempted above the
        last back-off's grew in the steps between, each doubling after the interval's clean
        steps, so it bounds the interval as a row would (the attempted scale is the scale
        after the step before). Returns the longest bound read so far where this line read
        one, else None.

        Example:
            >>> bounds = GrowthBounds()
            >>> bounds.overflow(0, 100, 2048.0, 1024.0)  # the first back-off: an anchor
            >>> bounds.overflow(0, 117, 2048.0, 1024.0)  # 1024 regrown within 16 steps
            16
        """
        anchor = self.anchors.get(rank)
        bound = None
        if anchor is not None and before is not None and _usable(before):
            grown = _doublings(anchor[1], before)
            if grown is not None and grown > 0 and step - 1 > anchor[0]:
                self.longest = bound = max(self.longest, (step - 1 - anchor[0]) // grown)
        if after is not None and _usable(after):
            self.anchors[rank] = (step, after)
        return bound

    def forget(self, rank: int | None) -> None:
        """A run begins (of ``rank``; None: of every rank): its back-offs are not the last's."""
        if rank is None:
            self.anchors.clear()
        else:
            self.anchors.pop(rank, None)


def _doublings(before: float, after: float) -> int | None:
    """How many times ``before`` doubled to ``after`` (negative: halved); None when the
    ratio is no power of 2."""
    if not (_usable(before) and _usable(after)):
        return None
    doublings = math.log2(after / before)
    whole = round(doublings)
    return whole if abs(doublings - whole) <= TOLERANCE else None
