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
from dataclasses import dataclass

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
    if steps < 1 or not (_usable(last) and _usable(scale)):
        return None
    halvings = math.log2(last / scale)
    whole = round(halvings)
    if abs(halvings - whole) > TOLERANCE:
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


def _usable(scale: float) -> bool:
    return math.isfinite(scale) and scale > 0.0
