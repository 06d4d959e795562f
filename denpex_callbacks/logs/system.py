"""Failures that are not AMP faults, recognised so they are not misread as one.

SYS001: ``CUDA out of memory`` / ``torch.OutOfMemoryError`` / ``torch.cuda.OutOfMemoryError``
(and the CPU allocator's ``DefaultCPUAllocator: can't allocate memory``). SYS002: NCCL's
``Watchdog caught collective operation timeout`` and other collective timeouts.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import FLAG, LogEvent

FAMILY = "system"
# The watchdog's line says "timeout"; gloo's "Timed out" comes in a "...Error: " line.
KEYWORDS = (b"emory", b"imeout", b"Error")

_OOM = re.compile(r"CUDA out of memory|OutOfMemoryError|DefaultCPUAllocator: can't allocate memory"
                  r"|CUDA error: out of memory")
_TIMEOUT = re.compile(r"Watchdog caught collective operation timeout|collective operation timeout"
                      r"|NCCL .*[Tt]imeout|Timed out waiting .*(?:collective|barrier|store)")


def parse(text: str) -> list[LogEvent]:
    """Events on one line naming an out-of-memory or a collective timeout.

    Example:
        >>> parse("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")[0].code
        'SYS001'
    """
    if "emory" not in text and "imeout" not in text and "Timed out" not in text:
        return []  # a literal check per line instead of two regex searches
    if _OOM.search(text):
        return [LogEvent(FLAG, FAMILY, code="SYS001",
                         summary="the device ran out of memory (not a loss-scale fault)")]
    if _TIMEOUT.search(text):
        return [LogEvent(FLAG, FAMILY, code="SYS002",
                         summary="a collective operation timed out: a rank hung or died "
                                 "(not a loss-scale fault)")]
    return []
