"""Several ranks' lines mixed line by line, each behind its own rank's prefix: read apart.

A tee of a job whose ranks all print (torchrun ``--tee 3`` of two ranks: ``[default0]:`` and
``[default1]:`` lines alternating; srun ``--label``'s ``0: ``, ``1: ``; mpirun
``--tag-output``'s ``[1,0]<stdout>:``, ``[1,1]<stdout>:``) has no prefix on every line, so
none is a margin (paste_margins.py). Each line's events carry its prefix's rank, but what is
read around a line (a banner over its rows, a table's header over its values, a record's
header) is another rank's line as often as its own. Where every line of the head that holds
text opens with a rank prefix of one shape (the prefixes alike but for their numbers), at
least two ranks each on two lines or more (a loop's step before its colon, ``12: loss 2.1``,
never recurs), each rank's lines are read apart: the prefix taken off, each rank's lines one
block, in the order the ranks first printed, each line read as its block's rank. Which rank
went non-finite first is then told by the steps (assembler.initiating_rank).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from denpex_callbacks.logs.launcher_ranks import (
    LAUNCHER_LINES,
    LAUNCHER_SHARE,
    prefixed_rank,
    rank_prefix_end,
)
from denpex_callbacks.logs.paste_margins import MARGIN_LINES

_DIGITS = re.compile(r"\d+")
_OPENS = b"[0123456789 ("  # what a rank prefix opens with (a line opening otherwise has none)
# SkyPilot's node prefix (launcher_ranks: ``(head, rank=0, pid=2345)`` on the head node,
# ``(worker1, rank=1, pid=2346, ip=10.0.0.2)`` on the others): one shape whatever the node's
# name and address, which differ between the head and the workers.
_NODE_FIELDS = re.compile(r"\([^()]*?\b(rank=#, pid=#)(?:, ip=[^()]*)?\)")


@dataclass(frozen=True)
class RankBlocks:
    """Where each rank's block of lines begins in the lines read (1-based line numbers,
    ascending) and whose it is; each line read's place in the input and its text there (a
    diagnosis names the input's lines, as the user's file has them).

    Example:
        >>> blocks = RankBlocks((1, 4), (0, 1), (1, 3, 4, 2, 5), tuple(b"abcde"))
        >>> blocks.rank_at(1), blocks.rank_at(3), blocks.rank_at(9), blocks.origin(2)
        (0, 0, 1, 3)
    """

    starts: tuple[int, ...]
    ranks: tuple[int, ...]
    places: tuple[int, ...] = ()
    lines: tuple[bytes, ...] = ()

    def rank_at(self, line_no: int) -> int:
        """The rank whose block holds line ``line_no``."""
        return self.ranks[max(bisect_right(self.starts, line_no) - 1, 0)]

    def origin(self, line_no: int) -> int:
        """The input's line number of line ``line_no`` read (itself past the last)."""
        return self.places[line_no - 1] if 0 < line_no <= len(self.places) else line_no

    def quote(self, line_no: int, quote: str) -> str:
        """``quote`` of line ``line_no`` read, as the input has it (its prefix on it)."""
        if not 0 < line_no <= len(self.lines):
            return quote
        whole = self.lines[line_no - 1].decode("utf-8", "replace").strip()
        return whole if quote and quote in whole else quote


def _split(line: str) -> tuple[str, int, str] | None:
    """The shape of the rank prefix opening ``line`` (its numbers masked, stderr as stdout:
    one job's two streams), its rank and the rest of the line; None where none opens it."""
    end = rank_prefix_end(line)
    if not end:
        return None
    rank = prefixed_rank(line)[0]
    if rank is None:
        return None
    if line[end:end + 1] == " " and line[end - 1:end] == ":":
        end += 1  # (torch's ``[rank1]: ``: the blank is the prefix's)
    shape = _DIGITS.sub("#", line[:end].strip()).replace("<stderr>", "<stdout>")
    if shape[:1] == "(":
        shape = _NODE_FIELDS.sub(r"(\1)", shape)
    return shape, rank, line[end:]


def may_be_ranked(head: bytes, whole: bool) -> bool:
    """Whether every line of ``head`` that holds text opens with a rank prefix of one shape,
    two ranks at least, each on two lines or more, over ``MARGIN_LINES`` lines at least
    (``whole``: the head is the whole input); but for the launcher's own lines, at most
    ``LAUNCHER_LINES``, each under ``LAUNCHER_SHARE`` prefixed lines at least.

    Example:
        >>> tee = b"".join(b"[default%d]:step %d loss 1.0\\n" % (r, s)
        ...                for s in range(3) for r in (0, 1))
        >>> may_be_ranked(tee, True), may_be_ranked(tee.replace(b"[default1]", b"[rank1]"), True)
        (True, False)
        >>> may_be_ranked(b"".join(b"%d: loss 1.0\\n" % s for s in range(8)), True)
        False
        >>> sky = b"".join(b"(head, rank=0, pid=5) step %d\\n(worker1, rank=1, pid=6, "
        ...                b"ip=10.0.0.2) step %d\\n" % (s, s) for s in range(3))
        >>> may_be_ranked(sky, True)
        True
        >>> warned = b"*****\\nSetting OMP_NUM_THREADS ...\\n*****\\n"
        >>> may_be_ranked(warned + tee * 2, True), may_be_ranked(warned * 3 + tee * 2, True)
        (True, False)
    """
    lines = head.split(b"\n")
    if not whole:
        lines.pop()  # (the last one may be cut off)
    shape = None
    seen: dict[int, int] = {}
    own = 0  # the launcher's own lines (no rank prefix)
    for raw in lines:
        if not raw.strip():
            continue
        found = _split(raw.decode("utf-8", "replace")) if raw[:1] in _OPENS else None
        if found is None:
            own += 1
            if own > LAUNCHER_LINES:
                return False  # (most logs: within a few lines)
            continue
        if shape is not None and found[0] != shape:
            return False
        shape = found[0]
        seen[found[1]] = seen.get(found[1], 0) + 1
    held = sum(seen.values())
    return (held >= max(MARGIN_LINES, LAUNCHER_SHARE * own) and len(seen) >= 2
            and min(seen.values()) >= 2)


def by_rank(data: bytes) -> tuple[bytes, RankBlocks] | None:
    """``data``'s lines, each rank's apart behind its prefix taken off, and where each
    rank's block begins; None where fewer than two ranks print. A line that opens with no
    rank prefix (a blank line, a wrapped line's rest) is the rank's before it.

    Example:
        >>> data, blocks = by_rank(b"[rank0]: a\\n[rank1]: b\\n[rank0]: c\\n\\n[rank1]: d\\n")
        >>> data, blocks.starts, blocks.ranks, blocks.places
        (b'a\\nc\\n\\nb\\nd\\n', (1, 4), (0, 1), (1, 3, 4, 2, 5))
    """
    lines = data.split(b"\n")
    last = lines.pop() if lines and not lines[-1] else None  # (after the last break)
    blocks: dict[int, list[tuple[int, bytes]]] = {}
    rank: int | None = None
    for place, raw in enumerate(lines, 1):
        found = _split(raw.decode("utf-8", "surrogateescape")) if raw[:1] != b"" else None
        if found is not None:
            rank = found[1]
        blocks.setdefault(rank if rank is not None else -1, []).append((place, raw))
    if len([r for r in blocks if r >= 0]) < 2:
        return None
    out: list[bytes] = []
    places: list[int] = []
    starts, ranks = [], []
    for block_rank, block in blocks.items():  # (in the order each first printed)
        starts.append(len(out) + 1)
        ranks.append(max(block_rank, 0))  # (lines before any prefix: read as rank 0's)
        for place, raw in block:
            found = _split(raw.decode("utf-8", "surrogateescape")) if raw[:1] != b"" else None
            out.append(raw if found is None else found[2].encode("utf-8", "surrogateescape"))
            places.append(place)
    return (b"\n".join(out) + (b"\n" if last is not None else b""),
            RankBlocks(tuple(starts), tuple(ranks), tuple(places),
                       tuple(lines[place - 1] for place in places)))
