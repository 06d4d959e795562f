"""All log families in one place: the keyword prefilter and the line dispatcher."""

from __future__ import annotations

import re
from types import ModuleType

from denpex_callbacks.logs import (
    apex,
    deepspeed,
    denpex_lines,
    fairseq,
    hf,
    lightning,
    megatron,
    system,
    torch_errors,
)
from denpex_callbacks.logs.events import LogEvent

# Order matters only when two families could claim one segment: errors first.
FAMILIES: tuple[ModuleType, ...] = (
    denpex_lines, system, torch_errors, deepspeed, apex, fairseq, megatron, hf, lightning,
)

def _minimal(keywords: set[bytes]) -> tuple[bytes, ...]:
    """Drop every keyword that contains another: a line holding it is found anyway."""
    return tuple(sorted(k for k in keywords if not any(o != k and o in k for o in keywords)))


# The prefilter: a line is parsed only if it holds one of these (each scanned at C speed).
KEYWORDS: tuple[bytes, ...] = _minimal({kw for family in FAMILIES for kw in family.KEYWORDS})

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Launcher prefixes: torchrun --tee/--log-dir ``[rank1]:``, mpirun ``[1,0]<stdout>:``,
# srun -l ``0: ``; DeepSpeed's log_dist ``[Rank 0]`` can sit anywhere in the line.
_LAUNCHER_RANK = re.compile(r"^\s*(?:\[rank(\d+)\]:|\[\d+,(\d+)\]<std(?:out|err)>:|(\d{1,5}): )")
_RANK_TAG = re.compile(r"\[Rank (\d+)\]")


def line_rank(text: str) -> int | None:
    """The rank a launcher or DeepSpeed prefix assigns to a line.

    Example:
        >>> line_rank("[rank3]: Traceback"), line_rank("[1,2]<stdout>:x"), line_rank("hi")
        (3, 2, None)
    """
    found = _LAUNCHER_RANK.match(text)
    if found:
        return int(next(g for g in found.groups() if g is not None))
    tag = _RANK_TAG.search(text) if "[Rank " in text else None
    return int(tag.group(1)) if tag else None


def parse_line(text: str) -> list[LogEvent]:
    """Every event on one physical line: tqdm's carriage returns split it into segments.

    Example:
        >>> [e.kind for e in parse_line("a\\r[deepspeed] OVERFLOW! Rank 1 Skipping step. "
        ...                              "Attempted loss scale: 8, reducing to 4")]
        ['overflow']
    """
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    rank = line_rank(text)
    out: list[LogEvent] = []
    segments = text.split("\r") if "\r" in text else [text]
    for segment in segments:
        if not segment.strip():
            continue
        for family in FAMILIES:
            events = family.parse(segment)
            if events:
                if rank is not None:
                    events = [_with_rank(e, rank) for e in events]
                out.extend(events)
                break
    return out


def _with_rank(event: LogEvent, rank: int) -> LogEvent:
    if event.rank is None:
        # The parser built this event just now and nothing else holds it, so it is set in
        # place: dataclasses.replace costs as much as parsing the line (big logs: 10%).
        object.__setattr__(event, "rank", rank)
    return event
