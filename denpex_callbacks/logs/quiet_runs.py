"""Runs of quiet lines: a log where every line is a metric line (Megatron's iteration lines,
nanoGPT's ``iter N: loss X``) repeats one line shape millions of times, and almost all of
those lines say only "another step, applied, the loss finite".

Once the parser has read two consecutive lines of one shape as such quiet steps, the shape
becomes a byte regex: the line's text between its values kept as it is, each value by what
it holds (a step: digits; a loss: a finite number that is not 0; the loss scale and skip
counters: the very text printed, so a changed scale or a skip ends the run; any other value:
a finite number). The reader then matches the lines that follow at C speed and hands them
over as a count (:class:`~denpex_callbacks.logs.reader.QuietLines`) instead of one by one:
the steps they stand for reach the engine as applied steps of a gap
(``Monitor.advance``), as a log that prints every ``N`` steps would show them, the last of
them read exactly from its line. The run stops at the first line of another shape, a
non-finite or zero loss, a changed scale or a skip, which is read one by one; the last
``KEEP`` lines of a run are read one by one too, so what a fault after it is judged from (the
run state's recent losses) is what the lines said.

A run's step is its counter (the step claimed, else a count over its total: MNIST's
``[19200/60000``) plus the offset that the two lines that armed it showed between their
counter and the step the reader made (the epochs before, counted across epochs or in the
run's samples); the epoch and those totals are matched as printed, so the offset holds over
the run and a run ends where an epoch does. Where the next epoch's first ``KEEP`` lines are
quiet lines of the shape too, the run before them keeps only its last ``TAIL`` lines (what the
reader learns of an epoch's end: its last counter and the stride to it), not ``KEEP``: no
fault can be judged before the next run has kept its own, and a log of short epochs (the
MNIST example's 938 lines) is not read one line in fifteen. One shape serves every epoch (its
epoch captured, a run's lines held to their first line's by a backreference): a shape's
patterns cost more to compile than an epoch's end costs to read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.diagnosis import STEP_BASIS
from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import METRICS, LogEvent
from denpex_callbacks.logs.keyword_scan import byte_pattern
from denpex_callbacks.logs.metric_pairs import collect, find_claims
from denpex_callbacks.logs.metric_templates import Claim
from denpex_callbacks.logs.step_basis import PRINTED

KEEP = 64  # lines at the end of a run read one by one (the run state's loss trail: 64 steps)
# ...where the next ``KEEP`` lines are quiet lines of the next epoch: what the reader learns
# at an epoch's end (its last counter, the stride to it) is read from these lines, and the
# loss trail is read again from the next epoch's lines before a fault could be judged on it.
TAIL = 2
# Lines one match takes at most: the regex engine keeps a little state per repetition, so a
# run is matched in batches and memory stays flat however long it is.
_BATCH = 2048
_TEMPLATE = bytes.maketrans(b"123456789", b"000000000")  # a line's template: digits as 0
_LIMIT = 256  # shapes kept by template (a log has few)

_FAMILIES = frozenset({"generic", "megatron"})
_STEP = rb"(?P<step>\d+)"
_EPOCH = rb"(?P<epoch>\d+)"
_FINITE = rb"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
# (a nonzero digit before the point, else one after it: no lookahead, which costs the regex
# engine about a fifth of a run's match; either way a line's text is read once)
_NONZERO = rb"[-+]?0*(?:[1-9]\d*(?:\.\d*)?|\.0*[1-9]\d*)(?:[eE][-+]?\d+)?"
# A value printed as a plain decimal or a whole number (most are: ``{:.4f}``, ``{:d}``) is
# matched in that form, which costs the regex engine a third less than any number; another
# line of the shape that prints it otherwise (``1e-05`` after ``0.0001``) ends the run, is read
# one by one, and the shape of its own template (digits as 0) arms the next run.
_FORMS = ((re.compile(r"[-+]?\d+\.\d+"), rb"[-+]?\d+\.\d+",
           rb"[-+]?(?:0*[1-9]\d*\.\d+|0+\.0*[1-9]\d*)"),
          (re.compile(r"[-+]?\d+"), rb"[-+]?\d+", rb"[-+]?0*[1-9]\d*"))
# (the epoch too, captured and held over a run: a run never crosses an epoch's end, where a
# reader may learn how a counter that starts over each epoch continues, and the offset of a
# step from its counter changes)
_EXACT = frozenset({lexicon.SCALE, lexicon.LOG2_SCALE, lexicon.MAYBE_SCALE, lexicon.SKIPPED,
                    lexicon.EVAL, lexicon.EPOCH})
_LOSSES = frozenset({lexicon.LOSS, lexicon.COMPONENT})
_DIGITS = re.compile(r"\d+")
# A count and its total (``[19200/60000``, ``Step [200/600]``): the count at the end of the
# text before the slash, the total right after it.
_OVER = re.compile(r"\s*/\s*(\d+)")


@dataclass(frozen=True)
class Shape:
    """The shape of a quiet line: what a run of it is made of.

    Attributes:
        line: One line of the shape, as a regex (the step captured).
        run: Consecutive lines of the shape.
        steps: A line of the shape up to its step, then the rest of the line and its
            newline, the step its only group: a findall over a run's lines (each known to
            match ``line``) gives each line's step, at a third of a full match's cost.
        family: The parser family that read it.
        kinds: The event kinds its lines gave.
        rank: The rank its lines belong to.
        scale: The loss scale its lines print (None: none).
        grad_norm: Whether its lines print a gradient norm.
        epoch: Its lines up to the epoch they print, which it captures (None: they print
            none). ``line`` captures it too (``epoch``), and a run's lines are those of one
            epoch: ``run`` matches its first line's epoch on the others, and the reader
            checks that first line's with this.
        next_epochs: ``KEEP`` lines of the shape in any epoch (None: it prints none): a run
            followed by them ended where only its epoch changed, and the next run is armed,
            and keeps its own last ``KEEP`` lines, before a fault could be judged.
        whole: ``run`` without its batches, compiled by RE2 (None: RE2 is not installed, or
            the shape prints an epoch, which ``run`` holds by a backreference): the same
            lines in one match, at about a third of ``run``'s cost a line.
    """

    line: re.Pattern[bytes]
    run: re.Pattern[bytes]
    steps: re.Pattern[bytes]
    family: str
    kinds: frozenset[str]
    rank: int | None
    scale: float | None
    grad_norm: bool
    epoch: re.Pattern[bytes] | None = None
    next_epochs: re.Pattern[bytes] | None = None
    whole: Any = None


# Shapes by template and scale: what a template's values mean does not change from line to
# line (see metric_templates), so its shape is built once per scale it prints. The scale is
# part of the key because a shape matches its scale's very text (``1024.0`` and ``2048.0``
# share a template), and because whether a bare ``scale`` is the loss scale at all is the
# reader's decision for one input (lexicon.MAYBE_SCALE), not the template's.
_SHAPES: dict[tuple[bytes, float | None], Shape | None] = {}


def shape_of(text: str, events: list[LogEvent]) -> Shape | None:
    """The shape of a line whose events say it is a quiet step, or None.

    Example:
        >>> from denpex_callbacks.logs.parsers import parse_line
        >>> line = "iter 120: loss 3.1234, time 35.21ms, mfu 12.34%"
        >>> shape = shape_of(line, parse_line(line))
        >>> shape.line.match(b"iter 121: loss 3.0001, time 35.03ms, mfu 12.40%")["step"]
        b'121'
        >>> shape.line.match(b"iter 122: loss nan, time 35.03ms, mfu 12.40%") is None
        True
    """
    found = counted(text, events)
    return found[0] if found is not None else None


def counted(text: str, events: list[LogEvent]) -> tuple[Shape, int, bytes | None] | None:
    """The shape of a line whose events say it is a quiet step, the counter it printed and
    its epoch as printed (None: the shape prints none), or None.

    Example:
        >>> from denpex_callbacks.logs.parsers import parse_line
        >>> line = "Epoch [2/5], Step [300/600], Loss: 0.4700"
        >>> shape, counter, epoch = counted(line, parse_line(line))
        >>> counter, epoch, shape.line.match(b"Epoch [3/5], Step [1/600], Loss: 0.4600")["epoch"]
        (300, b'2', b'3')
        >>> shape.line.match(b"Epoch [3/6], Step [1/600], Loss: 0.4600") is None  # a total
        True
    """
    if len(events) != 1 or "\r" in text or "\ufffd" in text:
        return None
    event = events[0]
    if (event.kind != METRICS or event.family not in _FAMILIES or event.step is None
            or event.skipped_total is not None or event.skipped_in_interval
            or event.nan_in_interval):
        return None
    for value in (event.loss, event.grad_norm, event.scale_after):
        if value is not None and not math.isfinite(value):
            return None
    if event.loss is None or event.loss == 0.0:
        return None
    try:
        encoded = text.encode()
    except UnicodeEncodeError:
        return None
    key = (encoded.translate(_TEMPLATE), event.scale_after)
    shape = _SHAPES.get(key)
    if shape is None and key in _SHAPES:
        return None
    # A shape matches some values as printed (a total, the scale), which its template does
    # not hold: a line of the template that the shape does not match is built anew.
    if shape is None or (found := shape.line.match(encoded)) is None:
        if shape is None and len(_SHAPES) >= _LIMIT:
            _SHAPES.clear()
        shape = _SHAPES[key] = _build(text, event)
        if shape is None or (found := shape.line.match(encoded)) is None:
            return None
    return shape, int(found["step"]), found["epoch"] if shape.epoch is not None else None


def _build(text: str, event: LogEvent) -> Shape | None:
    """The shape of a quiet line's template (the same for every line of it)."""
    claims, spans = find_claims(text)
    read = collect(claims, text)
    scale = read.values.get(lexicon.SCALE)
    if scale is None and event.scale_after is not None:
        scale = read.values.get(lexicon.MAYBE_SCALE)  # a bare scale the reader took as one
    if read.values.get(lexicon.LOSS) != event.loss or scale != event.scale_after:
        return None  # the generic reading of the line is not the family's: no shape
    # The counter a run's steps are read from: the step claimed, or else a count over its
    # total (the PyTorch MNIST example's ``[19200/60000 (32%)]``). The step the reader made
    # of it may be the counter plus the epochs before (counted across epochs, or the run's
    # samples): QuietRuns arms only where that offset held on two lines in a row, and the
    # epoch and the total are matched as printed, so that it holds over the whole run.
    counter = _counter(text, spans, claims)
    if counter is None:
        return None
    roles = {(start, end): role for start, end, role, _key, _sep in claims}
    # the totals of the counter and of the epoch (``Epoch [3/10]``), which the step is made
    # with, as printed
    exact = {total.span(1) for span in spans
             if (span == counter or roles.get(span) == lexicon.EPOCH)
             and (total := _OVER.match(text, span[1])) is not None}
    out: list[bytes] = []
    epoched = False  # an epoch printed (the first value claimed as one)
    previous, stepped = 0, False
    for start, end in spans:
        out.append(_literal(text, previous, start))
        role = roles.get((start, end))
        spelled = text[start:end]
        if not _is_finite(spelled):
            if role is not None:
                return None  # a quiet line has no non-finite value
            out.append(re.escape(spelled.encode()))  # a word ("number of nan iterations")
        elif (start, end) == counter:
            out.append(_STEP)
            stepped = True
        elif (start, end) in exact:
            out.append(re.escape(spelled.encode()))
        elif role in _LOSSES:
            out.append(_number(spelled, nonzero=True))
        elif role in _EXACT:
            if role == lexicon.EPOCH and spelled.isdigit() and not epoched:
                epoched = True  # captured: a run's lines share it
                out.append(_EPOCH)
            else:
                out.append(re.escape(spelled.encode()))
        else:
            out.append(_number(spelled, nonzero=False))
        previous = end
    out.append(_literal(text, previous, len(text)))
    if not stepped:
        return None
    line = b"".join(out)
    bare = line.replace(_STEP, rb"\d+")  # any line of the shape, nothing captured
    anyhow = bare.replace(_EPOCH, rb"\d+")  # ...in any epoch
    if not epoched:
        run = b"(?:" + bare + b"\n){1,%d}" % _BATCH
    else:  # (the others in the first one's epoch: a backreference, not a shape per epoch)
        run = (bare + b"\n(?:" + bare.replace(_EPOCH, rb"(?P=epoch)") + b"\n){0,%d}"
               % (_BATCH - 1))
    steps = line[:line.index(_STEP) + len(_STEP)].replace(_EPOCH, rb"\d+") + rb"[^\n]*\n"
    epoch = next_epochs = whole = None
    if epoched:
        epoch = re.compile(bare[:bare.index(_EPOCH)] + rb"(\d+)")
        next_epochs = re.compile(b"(?:" + anyhow + b"\n){%d}" % KEEP)
    else:  # (RE2 keeps no state per line: no batches)
        whole = byte_pattern(b"(?:" + bare + b"\n)+")
    return Shape(re.compile(line), re.compile(run), re.compile(steps),
                 event.family, frozenset({event.kind}), event.rank, event.scale_after,
                 event.grad_norm is not None, epoch, next_epochs, whole)


def _counter(text: str, spans: list[tuple[int, int]],
             claims: list[Claim]) -> tuple[int, int] | None:
    """The span of a quiet line's counter: the first step claimed, else the first unclaimed
    whole number followed by a slash and its total; None: neither."""
    claimed = set()
    for start, end, role, _key, _sep in claims:
        if role == lexicon.STEP:
            return (start, end)
        claimed.add((start, end))
    for start, end in spans:
        if ((start, end) not in claimed and text[start:end].isdigit()
                and _OVER.match(text, end) is not None):
            return (start, end)
    return None


def _literal(text: str, start: int, end: int) -> bytes:
    """The text between two values as a regex: as printed, except digits that start a word
    (``35.21ms``, ``1s``) or continue a number in it (its decimals): any digits there. Digits
    glued to a word (``lr0``, ``fp16``) are part of a key and stay as printed."""
    out: list[bytes] = []
    previous = start
    for found in _DIGITS.finditer(text, start, end):
        at = found.start()
        before = text[at - 1] if at > 0 else " "
        glued = before.isalpha() or before == "_" or (
            before == "." and not (at > 1 and text[at - 2].isdigit()))
        if glued:
            continue
        out.append(re.escape(text[previous:at].encode()))
        out.append(rb"\d+")
        previous = found.end()
    out.append(re.escape(text[previous:end].encode()))
    return b"".join(out)


def _number(spelled: str, *, nonzero: bool) -> bytes:
    """A value's regex: any finite number (``nonzero``: that is not 0) in the form printed."""
    for printed, finite, not_zero in _FORMS:
        if printed.fullmatch(spelled) is not None and spelled.isascii():
            return not_zero if nonzero else finite
    return _NONZERO if nonzero else _FINITE


def _is_finite(spelled: str) -> bool:
    try:
        return math.isfinite(float(spelled))
    except ValueError:
        return False


class QuietRuns:
    """The reader's :class:`~denpex_callbacks.logs.reader.RunMatcher`: armed by the doctor
    with the shape of the quiet line it just read, it says how many lines from an offset
    repeat it, and at which step the last of them is.

    Example:
        >>> from denpex_callbacks.logs.parsers import parse_line
        >>> runs = QuietRuns()
        >>> lines = [f"iter {i}: loss {3 - i / 1000:.4f}" for i in range(1, 101)]
        >>> for number in (1, 2):
        ...     runs.offer(number, lines[number - 1], parse_line(lines[number - 1]))
        >>> data = ("\\n".join(lines[2:]) + "\\n").encode()
        >>> end = runs.quiet_end(data, 0, len(data))
        >>> data.count(b"\\n", 0, end), runs.last_step  # all but the last KEEP lines
        (34, 36)
    """

    def __init__(self, room: Callable[[Shape], int] | None = None) -> None:
        # How many lines of a run of ``shape`` may be counted at once: what the detectors can
        # take as printed quiet steps before one of them could fire on a line (the doctor's
        # monitors say; None: no bound). The line past it is read one by one, so a limit
        # reached inside a run is judged on its very line, as reading every line would.
        self.room = room
        self.shape: Shape | None = None  # armed: the lines after the last one read repeat it
        self.last_step: int | None = None  # the step of the last line of the last run
        # The armed lines' step less their counter (the epochs before it, where the reader
        # counts across epochs or in the run's samples), and where their step came from.
        self.offset = 0
        self.basis = PRINTED
        # The armed line's counter and how far it moved from the line before it (the stride):
        # a run's lines must go on by that stride (a counter that starts over within the
        # lines of one shape, ``Step [1/600]`` after ``Step [600/600]``, ends the run there).
        self.counter = 0
        self.stride = 0
        self.epoch: bytes | None = None  # the armed line's epoch as printed (None: none)
        # (line, shape regex, epoch, step, offset, basis, counter) of the last line read
        self._seen: tuple[int, bytes, bytes | None, int, int, str, int] | None = None
        # (buffer, stop, shape, end) of the last run found shorter than KEEP lines
        self._short: tuple[bytes, int, Shape, int] | None = None

    def offer(self, line: int, text: str, events: list[LogEvent]) -> None:
        """A line read one by one: arm with its shape when the line before had the same one
        (two in a row: a run may follow), disarm otherwise."""
        seen, self._seen = self._seen, None
        found = counted(text, events)
        if found is None:
            self.shape = None
            return
        shape, printed, epoch = found
        event = events[0]
        step = event.step
        assert step is not None
        offset = step - printed
        basis = getattr(event, "step_basis", None) or event.evidence.get(STEP_BASIS, PRINTED)
        key = shape.line.pattern
        self._seen = (line, key, epoch, step, offset, basis, printed)
        same = (seen is not None and seen[0] == line - 1 and seen[1] == key
                and seen[2] == epoch and step > seen[3] and seen[4] == offset
                and seen[5] == basis)
        if same:
            assert seen is not None
            self.shape, self.offset, self.basis, self.epoch = shape, offset, basis, epoch
            self.counter, self.stride = printed, printed - seen[6]
        else:
            self.shape = None

    def quiet_end(self, buffer: bytes, start: int, stop: int) -> int:
        """See :class:`~denpex_callbacks.logs.reader.RunMatcher`."""
        shape = self.shape
        if shape is None:
            return start
        short = self._short
        if (short is not None and short[0] is buffer and short[1] == stop and short[2] is shape
                and start < short[3]):
            # A line of the last KEEP of a run whose end is known: the lines from here to it
            # are fewer still (matching them again at each line would cost KEEP squared).
            return start
        cut = start
        if shape.whole is not None:  # (the same lines as the batches below, in one match)
            whole = shape.whole.match(buffer, start, stop)
            cut = start if whole is None else whole.end()
        while shape.whole is None:
            if shape.epoch is not None and (
                    (head := shape.epoch.match(buffer, cut, stop)) is None
                    or head[1] != self.epoch):
                break  # (the next epoch's lines: the reader reads where it starts)
            if (found := shape.run.match(buffer, cut, stop)) is None:
                break
            cut = found.end()
        if cut == start:
            return start
        matched = cut
        cut = self._steady(shape, buffer, start, cut)
        if cut == start:
            return start
        end = cut
        # An epoch's end, the next epoch's lines quiet too (every line matched went on by the
        # stride, and the line after them differs only in its epoch): its last TAIL lines are
        # read one by one, not KEEP.
        keep = KEEP
        if (cut == matched and shape.next_epochs is not None
                and shape.next_epochs.match(buffer, cut, stop) is not None):
            keep = TAIL
        for _ in range(keep):  # the last lines are read one by one
            cut = buffer.rfind(b"\n", start, cut - 1) + 1
            if cut <= start:
                self._short = (buffer, stop, shape, end)
                return start
        # At most ``room`` lines (each one byte at least: most runs skip the count). Asked
        # here, of a run there is (the monitors' horizons cost more than most calls' match).
        room = self.room(shape) if self.room is not None else None
        if room is not None and room <= 0:
            return start
        if room is not None and room < cut - start and buffer.count(b"\n", start, cut) > room:
            cut = start
            for _ in range(room):
                cut = buffer.index(b"\n", cut) + 1
        # (a run of one line: no newline before its own, and rfind's -1 is not the buffer's 0)
        last = max(start, buffer.rfind(b"\n", start, cut - 1) + 1)
        step = shape.line.match(buffer, last, cut - 1)
        if step is None:
            return start
        self.last_step = self.offset + int(step["step"])
        self._seen = None  # the next line read one by one follows a run, not this line
        return cut

    def _steady(self, shape: Shape, buffer: bytes, start: int, end: int) -> int:
        """The end of the lines from ``start`` whose counters go on from the armed line by its
        stride, up to ``end`` (the end of the lines that match ``shape``). Every line's counter
        is checked, at C speed (a findall, a join and a compare of texts): a check at the last
        line alone, or by halving, is fooled by a counter that jumps ahead and later goes back
        as far (an excerpt with lines cut out, then a run resumed from an earlier checkpoint)."""
        printed = shape.steps.findall(buffer, start, end)
        first = self.counter + self.stride
        expected = list(range(first, first + self.stride * len(printed), self.stride))
        # The counters as printed, joined, against the text of the expected ones (a list's
        # repr, written in C): a sixth cheaper than making each an int, where most runs end.
        if b", ".join(printed) == str(expected)[1:-1].encode():
            return end
        steps = list(map(int, printed))  # (a counter printed with leading zeros, or a break)
        if steps == expected:
            return end
        # The longest prefix that holds (equal prefixes: a monotone test, so halved).
        low, high = 0, len(steps)  # ``low`` lines hold, ``high`` lines do not
        while high - low > 1:
            middle = (low + high) // 2
            if steps[:middle] == expected[:middle]:
                low = middle
            else:
                high = middle
        at = start
        for _ in range(low):
            at = buffer.index(b"\n", at) + 1
        return at
