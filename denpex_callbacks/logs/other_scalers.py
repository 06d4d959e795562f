"""Loss-scaler messages of frameworks without a family of their own (PaddlePaddle).

Verbatim source: PaddlePaddle ``python/paddle/amp/grad_scaler.py`` (``AmpScaler._update``):
``'Found inf or nan, current scale is: {}, decrease to: {}*{}'.format(scale, scale, decr_ratio)``,
printed when ``decr_every_n_nan_or_inf`` overflows in a row were counted (1 by default for
``paddle.amp.GradScaler`` and ``AmpScaler`` in Paddle 3.3.1: every overflow prints), just before
the scale is multiplied by ``decr_ratio``. Recorded from Paddle 3.3.1 (tests/logs/recorded/).
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import OVERFLOW, LogEvent, to_float

FAMILY = "paddle"
KEYWORDS = (b"Found inf or nan",)

_NUM = r"([-+]?\d[\d.]*(?:[eE][-+]?\d+)?|inf|nan)"
_PADDLE = re.compile(r"Found inf or nan, current scale is:\s*" + _NUM
                     + r",\s*decrease to:\s*" + _NUM + r"\s*\*\s*" + _NUM)


def parse(text: str) -> list[LogEvent]:
    """Events on one PaddlePaddle scaler line.

    Example:
        >>> e = parse("Found inf or nan, current scale is: 1024.0, decrease to: 1024.0*0.5")[0]
        >>> e.kind, e.scale_before, e.scale_after
        ('overflow', 1024.0, 512.0)
    """
    if "Found inf or nan" not in text or (found := _PADDLE.search(text)) is None:
        return []
    before, base, ratio = (to_float(g) for g in found.groups())
    after = base * ratio if base is not None and ratio is not None else None
    return [LogEvent(OVERFLOW, FAMILY, scale_before=before, scale_after=after)]
