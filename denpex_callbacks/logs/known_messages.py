"""The table's parser: every row of :mod:`~denpex_callbacks.logs.messages` whose ``reader`` is
``table`` becomes a regex (its literal text, a pattern for each value), found on a line by
its longest literal piece first.

A line is checked against one alternation of those pieces (one search); only the rows of the
piece found are tried in full, so a line costs one regex here unless it holds a known message.
"""

from __future__ import annotations

import functools
import math
import re

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import (
    DROPPED,
    EVAL,
    FLAG,
    FP16_SHOWN,
    GROWTH,
    IN_STEP,
    METRICS,
    NO_SCALER_SHOWN,
    OVERFLOW,
    SETUP,
    LogEvent,
    sentence_step,
    to_float,
    to_int,
)
from denpex_callbacks.logs.messages import FLAG as FLAG_ROW
from denpex_callbacks.logs.messages import GROWTH as GROWTH_ROW
from denpex_callbacks.logs.messages import MESSAGES, MONITORED, SKIP, Message
from denpex_callbacks.logs.messages import OVERFLOW as OVERFLOW_ROW
from denpex_callbacks.logs.messages import SETUP as SETUP_ROW

FAMILY = "messages"
# a whole number: never "0" of "0.0001" where a sentence's full stop follows the value
# (fairseq2: "... to {after}." beside "... to {after} (minimum). ...")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|nan|inf)(?!\.?\d)"
_PATTERNS = {
    "before": _NUMBER, "after": _NUMBER, "scale": _NUMBER, "value": r"\S+?", "norm": r".+?",
    "log2_after": _NUMBER, "step": r"\d+", "epoch": r"\d+", "rank": r"\d+", "n": r"\d+",
    "metric": r"\S+", "text": r".+?", "op": r"\S+", "tensor": r"\S+",
}
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_ROWS = tuple(m for m in MESSAGES if m.reader == "table")


def _literals(message: str) -> list[str]:
    return [part for part in _PLACEHOLDER.split(message)[::2] if part.strip()]


def anchor(row: Message) -> str:
    """The longest literal piece of a row's message (what a line must hold to be tried)."""
    return max(_literals(row.message), key=len).strip()


@functools.cache
def _regex(message: str) -> re.Pattern[str]:
    # compiled the first time a line holds the row's anchor: the table has hundreds of rows,
    # and compiling them all cost ~30 ms of every ``denpex`` start-up (most never match)
    pieces = _PLACEHOLDER.split(message)
    out: list[str] = []
    seen: set[str] = set()
    last = len(pieces) - 1
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            # blanks as the source writes them, or more (a logger may pad)
            out.append(r"\s+".join(re.escape(word) for word in piece.split(" ")))
            continue
        pattern = _PATTERNS.get(piece, r".+?")
        if i == last - 1 and not pieces[last].strip():
            pattern = pattern.replace("+?", "+")  # a value that ends the message: all of it
        out.append(f"(?P=v_{piece})" if piece in seen else f"(?P<v_{piece}>{pattern})")
        seen.add(piece)
    return re.compile("".join(out))


_BY_ANCHOR: dict[str, list[Message]] = {}
for _row in _ROWS:
    _BY_ANCHOR.setdefault(anchor(_row), []).append(_row)


@functools.cache
def _anchors() -> re.Pattern[str]:
    """Every anchor, longest first (compiled when a line first passes the triggers)."""
    return re.compile("|".join(re.escape(a) for a in sorted(_BY_ANCHOR, key=len, reverse=True)))


# What every row's line holds (tests/logs/test_messages.py checks each row against the whole
# prefilter): few and short, each one more pass over the bytes without RE2.
# (fairseq's ``gradients are Nan/Inf`` and mmengine's ``AmpOptimizerWrapper`` rows are raised:
# their lines hold the exception's ``...Error: `` and need no keyword of their own.)
# (``checkpoint``: a resume's line, guided-diffusion's ``loading model from checkpoint``; it
# holds Megatron's ``loaded checkpoint``, so the prefilter makes no more passes for it.)
KEYWORDS: tuple[bytes, ...] = (b"AMP", b"fp16", b"16bit", b"CUDA", b"atience", b"kipp",
                               b"half precision", b"mixed_float16", b"is INF", b"not finite",
                               b"steps are invalid", b"checkpoint")
# What a line must hold for the table's regexes to be tried (literal checks, cheap): for each
# row, the first of these its message holds, else its longest literal piece. (``factor must
# be``: torch's two GradScaler argument checks, growth and backoff, in one check; ``ratio must
# be``: Paddle's two; ``supported on device `CPU```: MindSpore's and mindcv's refusals of a
# dynamic scale on CPU.)
_CANDIDATES = (*(keyword.decode() for keyword in KEYWORDS), "Nan/Inf", "AmpOptimizerWrapper",
               "verflow", "GradScaler",
               "is None", "nan/inf", "infinite", "NaN", "non-finite", "Unexpected result",
               "out of memory", "factor must be", "ratio must be", "supported on device `CPU`")
_FIRST = {next((c for c in _CANDIDATES if c in row.message), anchor(row)) for row in _ROWS}
# a trigger that holds another is found where that one is: one check fewer a line
_TRIGGERS = tuple(sorted(t for t in _FIRST if not any(o != t and o in t for o in _FIRST)))


def parse(text: str) -> list[LogEvent]:
    """The event a known message on this line means (the table's row).

    Example:
        >>> [(e.kind, e.scale_after) for e in parse(
        ...     "colossalai - INFO: Overflow occurs, the loss scale is adjusted to 32768.0")]
        [('overflow', 32768.0)]
        >>> [(e.kind, e.code) for e in parse(
        ...     "WARNING: The grad norm is nan. Skipping updating the model.")]
        [('overflow', None)]
    """
    # literal checks first: one regex over a long line of many alternatives costs more
    for trigger in _TRIGGERS:
        if trigger in text:
            break
    else:
        return []
    # every anchor on the line, leftmost first: a row's anchor can sit in another's message
    # (fairseq2's "... loss scale from {before} to {after} (minimum). Your loss ...")
    for found in _anchors().finditer(text):
        for row in _BY_ANCHOR[found.group(0)]:
            match = _regex(row.message).search(text)
            if match is not None:
                return _events(row, {k[2:]: v for k, v in match.groupdict().items()},
                               text)
    return []


def _events(row: Message, values: dict[str, str], text: str) -> list[LogEvent]:
    # A message without a step of its own takes the one its line names around it (a loop
    # that prints allennlp's "nan loss encountered" with "at iteration 200" after it).
    step = to_int(values.get("step"))
    if step is None:
        step = sentence_step(text)
    rank = to_int(values.get("rank"))
    if row.event == OVERFLOW_ROW:
        before, after = to_float(values.get("before")), to_float(values.get("after"))
        if after is None and before is not None and "*" in row.message:
            after = before / 2
        if after is None and (exponent := to_float(values.get("log2_after"))) is not None:
            after = lexicon.from_log2(exponent)
        return [LogEvent(OVERFLOW, FAMILY, step=step, rank=rank, scale_before=before,
                         scale_after=after)]
    if row.event == SKIP:
        return [LogEvent(OVERFLOW, FAMILY, step=step, rank=rank,
                         evidence={IN_STEP: True} if row.in_step else None)]
    if row.event == GROWTH_ROW:
        return [LogEvent(GROWTH, FAMILY, step=step, rank=rank,
                         scale_before=to_float(values.get("before")),
                         scale_after=to_float(values.get("after")))]
    if row.event == SETUP_ROW:
        return [LogEvent(SETUP, FAMILY, setup=dict(row.setup))]
    if row.event == MONITORED:
        return _monitored(row, values.get("metric") or row.metric or "",
                          values.get("value") or "")
    assert row.event == FLAG_ROW
    # ``{epoch}``: the epoch whose batches ``{step}`` counts (the parser numbers the step)
    epoch = to_int(values.get("epoch"))
    evidence: dict[str, object] = {} if epoch is None else {"epoch": epoch}
    if row.fp16_shown:
        evidence[FP16_SHOWN] = True
    if row.no_scaler_shown:
        evidence[NO_SCALER_SHOWN] = True
    dropped = to_float(values.get("value")) if row.code == "AMP009" else None
    if dropped is not None and not math.isfinite(dropped):
        # a logger's word that it dropped this value: a row beside it may show and explain it
        evidence[DROPPED] = dropped
    flag = LogEvent(FLAG, FAMILY, step=step, rank=rank, code=row.code,
                    loss=math.nan if row.code == "AMP006" else None,
                    summary=f"{row.tool}: {row.means}", evidence=evidence or None)
    if row.in_step and step is None:
        # said by the step that fails, before any line of its own: its NaN loss is that
        # step's, the one after the last read (as a metric line's NaN without a step is)
        return [LogEvent(METRICS, FAMILY, rank=rank, loss=math.nan), flag]
    return [flag]


def _monitored(row: Message, metric: str, value: str) -> list[LogEvent]:
    """``{metric} = {value}`` that is not finite: evaluation's when the metric is one."""
    number = to_float(value)
    if number is None or math.isfinite(number):
        return []
    if lexicon.evaluation_metric(metric):
        return [LogEvent(EVAL, FAMILY, loss=number, metric=metric)]
    return [LogEvent(FLAG, FAMILY, code="AMP006", loss=number,
                     summary=f"{row.tool}: the monitored metric {metric} = {value} is not "
                             "finite")]
