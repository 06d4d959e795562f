"""NVIDIA apex's overflow lines (amp handle, fp16_utils FP16_Optimizer, closures).

Verbatim sources: ``Gradient overflow.  Skipping step, loss scaler {id} reducing loss scale to
{s}`` (amp; two spaces; ``{id}`` is the loss-scaler index, not a rank), ``Gradient overflow.
Skipping step, reducing loss scale to {s}``, ``OVERFLOW within closure! Skipping step, reducing
loss scale to {s}``, and fp16_utils' ``OVERFLOW! Skipping step. Attempted loss scale: {s}[,
reducing to {n}]``.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import OVERFLOW, LogEvent, to_float

FAMILY = "apex"
KEYWORDS = (b"verflow", b"VERFLOW")

_NUM = r"([-+]?\d[\d.]*(?:[eE][-+]?\d+)?|inf|nan)"
_AMP = re.compile(r"(?:Gradient overflow\.|OVERFLOW within closure!)\s+Skipping step, "
                  r"(?:loss scaler \d+ )?reducing loss scale to\s*" + _NUM)
_FP16_UTILS = re.compile(r"OVERFLOW! Skipping step\. Attempted loss scale:\s*" + _NUM
                         + r"(?:,\s*reducing to\s*" + _NUM + ")?")


def parse(text: str) -> list[LogEvent]:
    """Events on one apex line.

    Example:
        >>> parse("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to "
        ...       "32768.0")[0].scale_after
        32768.0
    """
    if "verflow" not in text and "VERFLOW" not in text:
        return []  # both patterns hold one of these: skip the regexes on other lines
    found = _AMP.search(text)
    if found:
        return [LogEvent(OVERFLOW, FAMILY, scale_after=to_float(found.group(1)))]
    if "[deep" not in text and (found := _FP16_UTILS.search(text)):
        before, after = to_float(found.group(1)), to_float(found.group(2))
        return [LogEvent(OVERFLOW, FAMILY, scale_before=before, scale_after=after)]
    return []
