"""A log pasted with its long lines hard-wrapped at the terminal's width, joined again.

Copied from a terminal that wraps at its width (``screen``, ``tmux`` copy mode, a Windows
console, a web console) or passed through ``fold``, each line longer than the width ``W``
arrives as lines of exactly ``W`` characters and a shorter rest. Read as they are, a
DeepSpeed overflow line loses its new scale (``... Attempted loss scale: 6`` / ``5536, reducing
to 32768``), its ``step=`` counter its skip count, a Megatron iteration line its loss: a
healthy sawtooth then reads as a cascade, a collapse as nothing.

A log is taken as wrapped where no line is longer than the longest, ``W`` (60 to 400), at
least ``WRAP_LINES`` lines of exactly ``W`` are followed by a line that does not open like
them (a record of the same kind) nor as a line after a shorter line does (a record's start),
and at least ``WRAP_BROKEN_SHARE`` of those breaks cut a word or a number in two (a terminal
wraps at a column, not between tokens; a fixed-width table or a progress bar at the width ends
its lines between tokens); in a short paste, ``WRAP_FEW`` such lines where every break cuts
a token. Each line of exactly ``W`` is then joined with the lines after it that open neither
way. A line of exactly ``W`` that was whole is then joined with the next too: the paste
cannot tell it from a wrapped one (rare: one line in hundreds). Lines that would be joined
but are all of exactly ``W``, no shorter rest after them, are left as they are: a table whose
header and rows are padded to one width (YOLO's ``'%11s' * 7``, pasted without the padding
its first column opens with).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from denpex_callbacks.logs.paste import WINDOWS_1252, is_elision

WRAP_MIN = 60  # narrower than any terminal a log is read in
WRAP_MAX = 400
WRAP_LINES = 4
WRAP_FEW = 2  # as few where every break cuts a word or a number (a short paste: three lines)
WRAP_BROKEN_SHARE = 0.25  # (a log's lines of one format may all break at one place)
WRAP_HEAD = 8192  # bytes of the head that may show a wrap first
WRAP_BYTES = 4 << 20  # a larger input is no paste
_ENDING = 12  # characters of a line's end compared (runs of digits or letters as one)
_RUNS = re.compile(r"\d+|[^\W\d_]+")
_STARTS = 12  # characters of a line's opening whose shape tells a record's start
_OPENING = 6  # characters of a line's opening compared (its shape: digits as 0, letters as a)
_TOKEN = frozenset("._-")
_CONTINUES = frozenset(",;:)]}=/%")  # no line opens with these
# nor ends with these (a key waiting for its value; tqdm's ``[00:20<00:00`` cut at its ``<``)
_OPENS = frozenset("=:([{,<")
_FILLS = frozenset("#█=━■*")  # what a progress bar is filled with (no table's border)
_RULE = "-=+|: ─━"  # what a table's rule is drawn with
# Characters alike after a line's first word that make it a record of another line's kind
# under another tag (see _retagged): a rest of a wrapped line does not repeat the head's text.
_RETAGGED = 16
_ELISION_OPENS = frozenset(".\u2026[(<#")  # what a line that marks a cut opens with


def may_be_wrapped(head: bytes) -> bool:
    """Whether the head of an input may be hard-wrapped (two whole lines of its longest
    length, within the widths a terminal has): then the whole input is looked at.

    Example:
        >>> may_be_wrapped(b"a" * 80 + b"\\nbc\\n" + b"d" * 80 + b"\\ne\\n")
        True
        >>> may_be_wrapped(b"step 1 loss 2.3\\nstep 2 loss nan\\n")
        False
    """
    lines = head.split(b"\n")[:-1]  # (the last piece may be a line cut by the head's end)
    widths = [len(line.rstrip(b"\r")) for line in lines]
    if not widths:
        return False
    width = max(widths)
    return WRAP_MIN <= width <= WRAP_MAX and widths.count(width) >= 2


class Unwrapped(NamedTuple):
    """A hard-wrapped log's lines joined again, and the width they were wrapped at."""

    data: bytes
    width: int


def unwrapped_log(data: bytes) -> Unwrapped | None:
    """The log's lines joined again where it was hard-wrapped, or None for any other input.

    Example:
        >>> line = ("[INFO] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, "
        ...         "reducing to 32768")
        >>> wrapped = "\\n".join(part for _ in range(5) for part in (line[:64], line[64:]))
        >>> joined = unwrapped_log(wrapped.encode())
        >>> joined.data.decode() == "\\n".join([line] * 5), joined.width
        (True, 64)
        >>> unwrapped_log(b"step 1 loss 2.3\\nstep 2 loss nan\\n") is None
        True
    """
    text = data.decode("utf-8", WINDOWS_1252)  # (a no-break space kept as one)
    lines = text.split("\n")
    ends = ["\r" if line.endswith("\r") else "" for line in lines]
    bodies = [line[:-1] if end else line for line, end in zip(lines, ends, strict=True)]
    width = max((len(body) for body in bodies), default=0)
    if not WRAP_MIN <= width <= WRAP_MAX:
        return None
    # A line a person put where the paste was cut (``[... 300 lines omitted ...]``) is no line
    # of the log: the line after it may be any piece of a record (a wrapped rest), so it tells
    # no record's start and no record's end, and no piece is joined to it.
    cut = [len(body) < width and body.lstrip()[:1] in _ELISION_OPENS
           and is_elision(body.encode("utf-8", "replace")) for body in bodies]
    # The openings of the lines after a shorter line, which start a record for sure: a line
    # that opens in one of their shapes starts a record too (ALIGNN's ``Val Loss:`` rows, padded
    # to one width, end ``Saving model`` every third epoch above a ``Train Loss:`` header).
    starts = {_opening(bodies[at + 1], _STARTS) for at in range(len(bodies) - 1)
              if len(bodies[at]) < width and not cut[at]}
    # How records of each opening end: a line of the width that ends as a shorter line of its
    # kind does (apex's ``... reducing loss scale to 65536.0`` beside ``... to 8192.0``) is
    # whole.
    endings = {(_opening(body), _ending(body)) for body, marks in zip(bodies, cut, strict=True)
               if 0 < len(body) < width and not marks}
    joins = broken = 0
    out: list[str] = []
    index = 0
    while index < len(bodies):
        first, opening = index, _opening(bodies[index])
        piece, cuts = bodies[index], 0
        marks: list[int] = []  # lines that mark a cut, joined across (see below)
        while len(piece) == width and not _rule(piece) and (
                opening, _ending(piece)) not in endings:
            # a piece of the width, then a line that marks a cut, then a rest: the paste was
            # cut between a record's head and a rest (the same record's, or another one's of
            # the same kind where lines were left out): joined across it, as a rest whose head
            # is gone read alone would misread (a DeepSpeed ``loss scale: 0, reducing to 0``
            # as a scale of 0); the cut's line is kept, before the record
            after = index + 2 if index + 2 < len(bodies) and cut[index + 1] else index + 1
            if not (after < len(bodies) and bodies[after] and not cut[after]
                    and _opening(bodies[after]) != opening
                    and not _retagged(bodies[first], bodies[after])
                    and _opening(bodies[after], _STARTS) not in starts
                    and not _rule(bodies[after], width)):
                break
            marks.extend(range(index + 1, after))
            index = after
            cuts += _cut_token(piece[-1], bodies[index][0], bodies[index][1:2])
            piece = bodies[index]
        if index > first and len(piece) == width:
            # every piece as wide as the widest, no shorter rest: lines padded to one width
            # (a table whose header and rows print ``'%11s' * 7``), not a record wrapped
            out.extend(body + end for body, end in zip(bodies[first:index + 1],
                                                       ends[first:index + 1], strict=True))
        else:
            joins, broken = joins + index - first - len(marks), broken + cuts
            out.extend(bodies[at] + ends[at] for at in marks)
            out.append("".join(bodies[at] for at in range(first, index + 1) if at not in marks)
                       + ends[index])
        index += 1
    if joins < (WRAP_LINES if broken < joins else WRAP_FEW) or broken < WRAP_BROKEN_SHARE * joins:
        return None
    return Unwrapped("\n".join(out).encode("utf-8"), width)


def _retagged(head: str, line: str) -> bool:
    """Whether ``line`` is a record of ``head``'s kind under another first word: the same
    text after it (:data:`_RETAGGED` characters alike). A loop that prints each phase's row
    in one format opens it with the phase (A-NGJ/deeplearning2022-footandball
    ``train_detector.py``: ``"{} Avg. loss total / ball conf. / ...: {:.4f} / ..."`` for
    ``train`` then ``val``): the ``val`` row after a ``train`` row of the width is a record,
    not the rest of one; a rest holds a record's tail, not its head again.

    Example:
        >>> _retagged("train Avg. loss total / ball: 0.4", "val Avg. loss total / ball: 0.5")
        True
        >>> _retagged("step 10 loss 2.1, lr 0.1", "rate 0.1")
        False
    """
    head_words, line_words = head.split(" ", 1), line.split(" ", 1)
    if len(head_words) < 2 or len(line_words) < 2:
        return False
    after = head_words[1][:_RETAGGED]
    return len(after) == _RETAGGED and line_words[1].startswith(after)


def _rule(line: str, width: int | None = None) -> bool:
    """Whether ``line`` is a table's rule (as wide as ``width``, where given): tabulate's
    ``simple`` format pads a table's header, rule and rows to one width (Ray Tune's ``Trial
    name  status  loss ...`` over ``----------  ------  ----`` over its rows): a line above
    or below such a rule was whole, no wrap left it so."""
    return (width is None or len(line) == width) and not line.strip(_RULE)


def _opening(line: str, size: int = _OPENING) -> str:
    """The shape of a line's first ``size`` characters (digits as 0, letters as a): the lines
    of one kind of record share it."""
    return "".join("0" if c.isdigit() else "a" if c.isalpha() else c for c in line[:size])


def _ending(line: str) -> str:
    """The shape of a line's last characters, each run of digits or letters as one."""
    return _RUNS.sub(lambda run: "0" if run.group()[0].isdigit() else "a", line[-_ENDING:])


def _cut_token(last: str, first: str, second: str) -> bool:
    """Whether a break between ``last`` and ``first`` cuts a word or a number in two (a
    capital after it opens a record: ``... 512`` then ``Training =>``), or leaves the next
    line opening with what only continues one (``, lr=``, ``: 0.5``), or the line ending with
    what opens one (``grad norm:``, ``lr=``)."""
    return (((last.isalnum() or last in _TOKEN)
             and (first.islower() or first.isdigit() or first in _TOKEN))
            or first in _CONTINUES or last in _OPENS or (last == first and last in _FILLS)
            or (last.isupper() and first.isupper() and second.isupper())
            or (last.isalnum() and first == " " and second.islower())
            # a column's padding cut in two: a printed line ends with no blank, so a blank
            # at both sides of the break is a run of spaces the width split (YOLOv5's
            # ``('%11s' * 2 + '%11.4g' * 5)`` row wrapped at 60 columns: ``0.01811     `` /
            # ``   178``)
            or (last == " " and first == " "))
