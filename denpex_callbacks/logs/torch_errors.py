"""torch's own error messages that name an AMP fault.

Verbatim sources (torch 2.x): anomaly mode ``Function '{name}' returned nan values in its
{i}th output.``; GradScaler: ``step() has already been called since the last update().``,
``unscale_() has already been called on this optimizer since the last update().``,
``unscale_() is being called after step().``, ``No inf checks were recorded for this
optimizer.``, ``Attempting to unscale FP16 gradients.``
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import FLAG, LogEvent

FAMILY = "torch"
# Each message is raised as an exception: its line always holds "...Error: ".
KEYWORDS = (b"Error",)

_ANOMALY = re.compile(r"Function '(\w+)' returned (nan|inf) values in its (\d+)\w* output")
_PROTOCOL = (
    "step() has already been called since the last update()",
    "unscale_() has already been called on this optimizer since the last update()",
    "unscale_() is being called after step()",
    "No inf checks were recorded for this optimizer",
)


def parse(text: str) -> list[LogEvent]:
    """Events on one line of a torch traceback.

    Example:
        >>> parse("RuntimeError: Attempting to unscale FP16 gradients.")[0].code
        'AMP012'
    """
    if "values in its" in text and (found := _ANOMALY.search(text)):
        name, value, index = found.groups()
        return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float(value),
                         summary=f"anomaly mode: {name} returned {value} values in its output "
                                 f"{index}; the first non-finite value comes from this "
                                 "operation's backward")]
    if "Attempting to unscale FP16 gradients" in text:
        return [LogEvent(FLAG, FAMILY, code="AMP012",
                         summary="GradScaler refused fp16 gradients: the optimizer holds "
                                 "float16 parameters")]
    for message in _PROTOCOL:
        if message in text:
            return [LogEvent(FLAG, FAMILY, code="AMP002",
                             summary=f"GradScaler protocol error: {message}")]
    return []
