"""Failures that are not AMP faults, recognised so they are not misread as one.

SYS001: ``CUDA out of memory`` / ``torch.OutOfMemoryError`` / ``torch.cuda.OutOfMemoryError``
(and the CPU allocator's ``DefaultCPUAllocator: can't allocate memory``). SYS002: NCCL's
``Watchdog caught collective operation timeout`` and other collective timeouts.

An out-of-memory that the tool says it retries with less memory is no failure: the batch is
trained again (nothing lost) and the run goes on. MosaicML Composer's automatic
microbatching (mosaicml/composer ``composer/trainer/trainer.py``,
``_adjust_device_train_microbatch_size`` / ``_adjust_grad_accum``) warns ``CUDA out of memory
detected. Train microbatch size will be decreased from 16 -> 8.`` (older: ``Gradient
Accumulation, the number of train microbatches, increased from 1 -> 2, and the batch will be
retrained ...``) while it searches for a microbatch that fits; only its ``The train loop failed
with an internal microbatch of size 1`` is fatal. An OOM that skips its batch (fairseq's
``ran out of memory, skipping batch``) loses data and stays SYS001.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import FLAG, LogEvent

FAMILY = "system"
# The watchdog's line says "timeout"; gloo's "Timed out" comes in a "...Error: " line.
KEYWORDS = (b"emory", b"imeout", b"Error")

_OOM = re.compile(r"CUDA out of memory|OutOfMemoryError|DefaultCPUAllocator: can't allocate memory"
                  r"|CUDA error: out of memory")
# What a tool says it does after an OOM it caught: retry the batch in smaller pieces.
_RETRIED = re.compile(r"(?:decreased|increased|reduced|halved) from \d+ -> \d+"
                      r"|will be retrained|\bretrying\b")
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
        if _RETRIED.search(text):
            return []  # caught and retried with a smaller batch: the run goes on
        return [LogEvent(FLAG, FAMILY, code="SYS001",
                         summary="the device ran out of memory (not a loss-scale fault)")]
    if _TIMEOUT.search(text):
        return [LogEvent(FLAG, FAMILY, code="SYS002",
                         summary="a collective operation timed out: a rank hung or died "
                                 "(not a loss-scale fault)")]
    return []
