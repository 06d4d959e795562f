"""What a paste adds around every line of a log, taken off again: a blank line after each
line, an indent, a quote mark, one container's name or rank 0's prefix before each, a
terminal's colours.

A log copied through a channel that doubles its line breaks (``\\r\\n`` turned into two
breaks by an editor or a web form, a console that prints a blank line after each record) has
a blank line between any two of its lines; one pasted as a Markdown code block by indenting
it (four spaces, a tab), quoted in a reply (``> ``) or collected from one container (``docker
compose logs``) has the same prefix on every line. Read as they are, the lines' neighbours
change: a blank line between an evaluation header and its rows puts the rows out of the
header's reach (DETR's ``Test:`` rows after its ``Averaged stats``, read as training); an
indent turns every ``key: value`` line into what reads as a YAML mapping's rows; a table's
header no longer lines up with its rows (fastai's behind a compose prefix).

A log is taken as double-spaced where at least ``SPACED_LINES`` of its lines hold text, no
two of them neighbours, and an odd number of blank lines lies between any two (a blank line
of the log's own, doubled, is three); the log's own blank lines are kept. It is taken as
indented where every line that holds text opens with the same prefix, over at least
``MARGIN_LINES`` lines: a tab, at least two blanks, ``>`` (with the blanks after it), a
container's name (``trainer-1  | ``), or one rank's launcher prefix (``[default0]:``,
``[rank3]: ``, mpirun's ``[1,3]<stdout>:``: launcher_ranks reads it), and over every line of
an excerpt of fewer lines where the prefix is an indent; a rank's prefix, but for a few
lines of its launcher's own (``LAUNCHER_LINES``: torchrun's OMP_NUM_THREADS warning above
the tee), kept as they are. The margin is taken off, the blank
lines dropped; line numbers then count the lines read. A rank prefix's rank is kept: the
lines are read as that rank's (``margin_rank``), as they were with the prefix on each.
"""

from __future__ import annotations

import os
import re

from denpex_callbacks.logs.hard_wraps import WRAP_HEAD
from denpex_callbacks.logs.launcher_ranks import (
    LAUNCHER_LINES,
    LAUNCHER_SHARE,
    line_rank,
    rank_prefix_end,
)
from denpex_callbacks.logs.paste import ANSI, is_elision

SPACED_LINES = 6  # lines that hold text, at least: a blank line after each of fewer is chance
MARGIN_LINES = 4
# What a paste puts before every line: a quote mark, a tab, blanks; what ``docker compose
# logs`` does with one container's output (``trainer-1  | ``: the service and its replica).
# (``kubectl logs --prefix``' ``[pod/NAME/CONTAINER] `` goes with the paste artefacts, where
# the pod's name may say the rank: paste.py, launcher_ranks.py.)
# Rank 0's own prefix on every line (torchrun's ``[default0]:``, torch's ``[rank0]:``,
# Lightning's ``[rank: 0] ``, a script's ``[rank0] ``, srun's ``0: ``): one rank's log, whose
# rank the doctor takes as 0 anyway. Another rank's prefix is found by launcher_ranks (every
# form it reads), and its rank kept (margin_rank).
_MARGIN = re.compile(rb"[ \t]*>[ \t]?|\t|  +|[\w.-]+[-_]\d+ +\| "
                     rb"|\[[A-Za-z_]*0\]:? ?|\[rank: 0\] |0: ")


# A terminal's control sequences (colours ``\x1b[32m``, a bold's end, tqdm's cursor moves
# ``\x1b[A``): a log saved from a coloured terminal, a CI runner's raw log.
_CONTROL = re.compile(ANSI.encode())  # (paste's, read in bytes)


def uncoloured(data: bytes) -> bytes | None:
    """``data`` without a terminal's control sequences, where it holds any; else None. Each
    line read is cleaned of them anyway (paste.py); the lines looked at around it (a banner
    over its rows, a record's header) are too, where the whole input is.

    Example:
        >>> uncoloured(b"\\x1b[32m==== Step 1200 ====\\x1b[0m\\nloss: nan\\n")
        b'==== Step 1200 ====\\nloss: nan\\n'
        >>> uncoloured(b"loss: nan\\n") is None
        True
    """
    return _CONTROL.sub(b"", data) if b"\x1b[" in data else None


def may_be_spaced(head: bytes) -> bool:
    """Whether the head of an input may be double-spaced (a blank line after each line that
    holds text): then the whole input is looked at.

    Example:
        >>> may_be_spaced(b"".join(b"step %d loss 1.0\\n\\n" % s for s in range(8)))
        True
        >>> may_be_spaced(b"step 1 loss 1.0\\nstep 2 loss 1.0\\n\\nstep 3 loss 1.0\\n")
        False
        >>> may_be_spaced(b"".join(b"step %d loss 1.0\\n\\n\\n" % s for s in range(8)))
        False
    """
    return _spaced(head.split(b"\n")[:-1])


def unspaced(data: bytes) -> bytes | None:
    """``data`` without the blank line after each of its lines, where it is double-spaced;
    else None.

    Example:
        >>> unspaced(b"".join(b"step %d loss 1.0\\r\\n\\r\\n" % s for s in range(8)))[:34]
        b'step 0 loss 1.0\\r\\nstep 1 loss 1.0\\r\\n'
        >>> unspaced(b"step 1 loss 1.0\\nstep 2 loss 1.0\\n") is None
        True
        >>> unspaced(b"a\\n\\nb\\n\\n\\n\\nc\\n\\nd\\n\\ne\\n\\nf\\n")
        b'a\\nb\\n\\nc\\nd\\ne\\nf\\n'

    """
    lines = data.split(b"\n")
    if not _spaced(lines[:-1] if lines[-1] == b"" else lines):
        return None
    out: list[bytes] = []
    blanks = 0
    for line in lines:
        if not line.strip():
            blanks += 1
            continue
        out.extend(b"" for _ in range((blanks - 1) // 2))  # (the log's own blank lines)
        out.append(line)
        blanks = 0
    return b"\n".join(out) + b"\n"


def _spaced(lines: list[bytes]) -> bool:
    """Whether ``lines`` hold text on no two neighbours and an odd number of blank lines
    between any two: each line's break doubled (the log's own blank lines, ``k`` of them,
    then ``2k + 1``)."""
    text = 0
    blanks = 1  # (the first line needs no blank before it)
    for line in lines:
        if not line.strip():
            blanks += 1
            continue
        if text and blanks % 2 == 0:
            return False  # (no blank, or two, between two lines that hold text)
        text, blanks = text + 1, 0
    return text >= SPACED_LINES


def margin(head: bytes, whole: bool = False) -> bytes | None:
    """The prefix every line of the head that holds text opens with (a tab, two blanks or
    more, a quote mark, one container's name, one rank's launcher prefix: but for a few of
    its launcher's own lines), over
    ``MARGIN_LINES`` lines at least, where there is one; else None. ``whole``: the head is
    the whole input, and an indent on every line of a shorter one is one too.

    Example:
        >>> margin(b"".join(b"    step %d loss 1.0\\n" % s for s in range(4)))
        b'    '
        >>> margin(b"> step 1 loss 1.0\\n>\\n> step 2 loss 1.0\\n> step 3 loss 1.0\\n> done\\n")
        b'> '
        >>> margin(b"  step 1 loss 1.0\\nstep 2 loss 1.0\\n  a\\n  b\\n") is None
        True
        >>> margin(b"".join(b"trainer-1  | epoch %d loss 1.0\\n" % e for e in range(4)))
        b'trainer-1  | '
        >>> margin(b"".join(b"val | epoch %d loss 1.0\\n" % e for e in range(4))) is None
        True
        >>> margin(b"".join(b"[default0]:epoch %d loss 1.0\\n" % e for e in range(4)))
        b'[default0]:'
        >>> margin(b"".join(b"[default1]:epoch %d loss 1.0\\n" % e for e in range(4)))
        b'[default1]:'
        >>> margin(b"".join(b"[rank3]: epoch %d\\n" % e for e in range(4))), margin(b"  a\\n")
        (b'[rank3]: ', None)
        >>> margin(b"  step 1 loss nan\\n", whole=True)
        b'  '
        >>> margin(b"*****\\n" + b"".join(b"[default3]:epoch %d\\n" % e for e in range(4)))
        b'[default3]:'
        >>> margin(b"*****\\n" + b"".join(b"    epoch %d\\n" % e for e in range(4))) is None
        True
    """
    lines = [line.rstrip(b"\r") for line in head.split(b"\n")]
    if not whole:
        lines.pop()  # (the last one may be cut off)
    common: bytes | None = None
    held = own = 0  # (own: the launcher's lines, no prefix: a rank prefix's margin allows)
    for line in lines:
        if not line.strip() or (line.strip() == b">" and common is not None
                                and common.strip() == b">"):
            continue  # (a blank line, or a quoted one)
        found = _MARGIN.match(line)
        start = found.group() if found else line[:_rank_end(line)]
        if not start:
            if is_elision(line):
                continue  # (where the paste was cut, written without the margin)
            own += 1
            if own > LAUNCHER_LINES:
                return None
            continue
        # the longest start the lines share, byte by byte (no path: RUF071's warning is what
        # is meant here; ``or b""``: typeshed's ``''`` for no sequence, which this never is)
        common = start if common is None else (
            os.path.commonprefix((common, line)) or b"")  # noqa: RUF071
        if not (_MARGIN.fullmatch(common) or _rank_end(common) == len(common) > 0):
            return None
        held += 1
    if own and (common is None or not _launchers(common, held, own)):
        return None
    if common is not None and (held >= MARGIN_LINES or (whole and not common.strip(b" \t"))):
        return common  # (an indent on an excerpt of a line or three: no rank, no name)
    return None


def _launchers(prefix: bytes, held: int, own: int) -> bool:
    """Whether ``own`` lines without ``prefix`` among ``held`` with it are its launcher's own
    (torchrun's OMP_NUM_THREADS warning above rank 3's tee): ``prefix`` a rank's, and each
    such line under ``LAUNCHER_SHARE`` lines with it at least."""
    return _rank_end(prefix) == len(prefix) > 0 and held >= LAUNCHER_SHARE * own


def _rank_end(line: bytes) -> int:
    """Where a launcher's rank prefix opening ``line`` ends (launcher_ranks), the blank after
    its colon with it: 0 where there is none."""
    text = line.decode("latin-1")
    end = rank_prefix_end(text)
    return end + 1 if end and text[end - 1:end + 1] == ": " else end


def margin_rank(prefix: bytes) -> int | None:
    """The rank a margin names, where it is a launcher's rank prefix other than rank 0's
    (the rank a log that names none is taken as); else None.

    Example:
        >>> margin_rank(b"[1,3]<stdout>:"), margin_rank(b"[default0]:"), margin_rank(b"  ")
        (3, None, None)
    """
    return line_rank(prefix.decode("latin-1")) or None


def without_margin(data: bytes, prefix: bytes) -> bytes | None:
    """``data`` with ``prefix`` taken off each line that opens with it, where every line that
    holds text does; else None.

    Example:
        >>> without_margin(b"    a\\n\\n    b\\n", b"    ")
        b'a\\n\\nb\\n'
        >>> without_margin(b"    a\\nb\\n", b"    ") is None
        True
        >>> without_margin(b"[default1]: a\\n[default1]:b\\n", b"[default1]: ")
        b'a\\nb\\n'
    """
    out = []
    quote = prefix.strip()
    # A bracketed rank prefix whose colon the head showed a blank after on every line
    # (torchrun's ``[default1]:`` before a line that opens with a blank): the blank is the
    # lines', not the launcher's, and a later line without one (a DeepSpeed record after
    # Megatron's `` iteration`` rows) still opens with the prefix.
    bare = prefix[:-1] if prefix[:1] == b"[" and prefix.endswith(b": ") else None
    held = own = 0  # (own: the launcher's lines, kept as they are: _launchers)
    for line in data.split(b"\n"):
        if line.startswith(prefix):
            out.append(line[len(prefix):])
            held += 1
        elif bare is not None and line.startswith(bare) and _rank_end(bare) == len(bare):
            out.append(line[len(bare):])
            held += 1
        elif not line.strip() or (quote and line.strip() == quote) or is_elision(line):
            out.append(b"")
        elif _rank_end(prefix) == len(prefix) > 0:
            out.append(line)
            own += 1
        else:
            return None
    return b"\n".join(out) if not own or _launchers(prefix, held, own) else None


# A line number before every line, counting up by one from the first: ``cat -n``'s ``%6d\t``
# (coreutils src/cat.c), an editor's or a pager's gutter (``12 | ``, ``12 │ ``). Each line's
# own number, so no margin every line shares. (A line's ``12 | `` alone goes in strip_paste;
# grep -n's ``12:`` in parsers.py, where it may be srun's rank.)
_LINE_NUMBER = re.compile(
    rb"(?: {5}(\d)| {4}(\d\d)| {3}(\d{3})| {2}(\d{4})| (\d{5})|(\d{6,7}))\t"  # cat -n's
    rb"|[ \t]*(\d{1,7})[ \t]*(?:\||\xe2\x94\x82)(?:[ \t]|(?=\r?$))")  # a gutter


_NUMBER_OPENS = b" \t0123456789"  # what a line opening with its number opens with


def may_be_numbered(head: bytes) -> bool:
    """Whether each line of the head opens with its line number (at least MARGIN_LINES
    lines): then the whole input is looked at (:func:`unnumbered`).

    Example:
        >>> may_be_numbered(b"".join(b"%6d\\tstep %d loss 1.0\\n" % (s, s) for s in range(1, 6)))
        True
        >>> may_be_numbered(b"".join(b"%d | step 1 loss 1.0\\n" % s for s in (1, 2, 2, 3, 4)))
        False
        >>> may_be_numbered(b"".join(b"%d\\t2.3\\n" % s for s in range(1, 6)))  # (a TSV's steps)
        False
    """
    if head[:1] not in _NUMBER_OPENS:
        return False  # (most logs: their first byte tells, before any line is split)
    lines = head.split(b"\n")[:-1]
    return len(lines) >= MARGIN_LINES and _numbers(lines) is not None


def unnumbered(data: bytes) -> bytes | None:
    """``data`` without the line number before each line, where every line has its own;
    else None.

    Example:
        >>> unnumbered(b"  9 | epoch 1\\n 10 |\\n 11 | loss nan\\n")
        b'epoch 1\\n\\nloss nan\\n'
        >>> unnumbered(b"  9 | epoch 1\\n  9 | loss nan\\n") is None
        True
    """
    lines = data.split(b"\n")
    last = lines.pop() if not lines[-1] else None  # (after the last break: nothing)
    kept = _numbers(lines)
    if kept is None:
        return None
    return b"\n".join(kept) + (b"\n" if last is not None else b"")


def _numbers(lines: list[bytes]) -> list[bytes] | None:
    """``lines`` without their line numbers, where each opens with the one after the line
    before's; else None."""
    kept = []
    expected = -1
    for line in lines:
        found = _LINE_NUMBER.match(line)
        if found is None:
            return None
        number = int(found[found.lastindex or 0])  # (the one group that took part)
        if expected >= 0 and number != expected:
            return None
        expected = number + 1
        kept.append(line[found.end():])
    return kept


def unpasted(data: bytes, prefix: bytes | None, spaced: bool,
             coloured: bool, numbered: bool = False) -> tuple[bytes, list[str], int | None]:
    """``data`` without what a paste added around its lines, as its head showed it: colour
    codes (``coloured``), a margin (``prefix``, from ``margin``; looked for again once the
    colours are gone), a blank line after each line (``spaced``: ``unspaced`` tells); what
    was taken off, for the report (the colours go unsaid: they move no line); and the rank a
    margin taken off named (``margin_rank``: the lines' rank, read as the prefix said it).

    Example:
        >>> data, how, rank = unpasted(
        ...     b"".join(b"    step %d loss 1.0\\n\\n" % s for s in range(8)), b"    ", True, False)
        >>> data[:32], len(how), rank
        (b'step 0 loss 1.0\\nstep 1 loss 1.0\\n', 2, None)
    """
    how = []
    rank = None
    again = False  # (the margin looked for again once what hid it is gone: once)
    if numbered and (plain := unnumbered(data)) is not None:
        data, again = plain, True
        how.append("every line opened with its line number (cat -n's, an editor's), taken off")
    if coloured and (plain := uncoloured(data)) is not None:
        data, again = plain, True
    if again:
        prefix, spaced = margin(data[:WRAP_HEAD], len(data) <= WRAP_HEAD), True
    if prefix is not None and (kept := without_margin(data, prefix)) is not None:
        data = kept
        rank = margin_rank(prefix)
        how.append(f"every line opened with {prefix.decode('latin-1')!r} (an indented or "
                   "quoted paste, one container's or one rank's collected output), taken off")
    if spaced and (kept := unspaced(data)) is not None:
        data = kept
        how.append("a blank line after every line (a double-spaced paste), dropped")
    return data, how, rank
