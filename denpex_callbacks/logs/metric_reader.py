"""The generic metric reader: (key, value) pairs in any common notation, on any line.

Family parsers know the sentences of eight families; this reader knows none and reads what
most training loops print: ``k=v``, ``k: v``, ``k : v``, ``k v``, ``'k': v``, JSON,
``| k v |`` cells, Keras bars (``- loss: 0.0000e+00``), glog (``loss = -nan``), DLLogger
(``loss_scale : 1.4e-14``), nanoGPT (``iter 120: loss nan``), mmengine (``Epoch(train)
[3][50/500]  lr: 1e-04, loss: nan``), tqdm postfixes (``avr_loss=nan``) and a header row over
value rows (YOLO). Keys go through :mod:`~denpex_callbacks.logs.lexicon`; every non-finite
spelling is read (``nan -nan NaN NAN nan.0 inf -inf Infinity 1.#INF``).

How a value finds its key: every number on the line is located with one regex; the text
between it and the previous number, stripped of separators (``= : ' " [ (``), must end in a
key, of which the longest run of up to five words that the lexicon knows is taken. A key of
several space-separated words counts only when the lexicon knows it as a whole (``lm loss``,
``Train Loss``, ``number of skipped iterations``): prose before a value is not a key.

Precedence: a family parser that claims a line wins it (they know the event sentences and
their own fields better); this reader sees only lines no family claimed, so the two never
read one line twice or disagree about it.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import METRICS, PROGRESS, LogEvent

FAMILY = "generic"
# Numbers as loops print them, and every spelling of a non-finite value. ``1.#INF`` first:
# otherwise its ``1`` would be read as a number.
# The lookahead names every first character a value can have (İ and ı: case-insensitive
# "inf"): the regex engine then skips other positions fast (about 25% of this regex's time).
_VALUE = re.compile(
    r"(?=[-+.\dnNiI\u0130\u0131])(?<![\w.#])(?:[-+]?1\.#(?:INF|QNAN|IND)\w*"
    r"|[-+]?(?i:nan(?:\.0)?|inf(?:inity)?)"
    r"|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)(?![\w#]|\.\d)"
)
_SEPARATORS = " \t=:'\"[(#>-"
_KEY_TAIL = re.compile(r"[A-Za-z][\w./-]*(?:[ \t]+[A-Za-z][\w./-]*){0,4}$")
_TENSOR = re.compile(r"tensor\($")
_MODE = re.compile(r"\((?:train|training)\)$")
# mmengine / mmcv epoch-based runners: ``Epoch(train)  [3][ 50/500]`` or ``Epoch [3][50/500]``;
# PyTorch-Ignite's ProgressBar: ``Epoch [3/10]: [50/500]  10%|█ , loss=0.5 [00:01<00:09]``.
_EPOCH_ITER = re.compile(
    r"Epoch(?:\(train\))?\s*\[(\d+)(?:/\d+)?\]:?\s*\[\s*(\d+)\s*/\s*(\d+)\]")
# A bar counting the batches of an epoch (Lightning's TQDM ``Epoch 1:  40%|###  | 4/10 [``,
# its Rich bar ``Epoch 1/9  ━━━━ 4/10``): the step is ``epoch * batches + n``.
_EPOCH_BAR = re.compile(r"Epoch (\d+)(?::\s*\d+%\|[^|]*\||/-?\d+\s+\S*)\s*(\d+)/(\d+)")
# A bar that starts its line with the batch of its epoch: Keras ``15/20 ━━━━ 0s 32ms/step -
# loss: 2.42``, Paddle's hapi ``step  4/20 - loss: 2.90``. The epoch is on a line of its own
# (``Epoch 2/3``) that no keyword brings here: the counter going back marks a new epoch, and
# so does the same count on a new line (a bar printed once an epoch, ``32/32 ...``; Keras
# redraws its last count once more on the same line, after a carriage return).
_BATCH_BAR = re.compile(r"\s*(?:step\s+)?(\d+)/(\d+)\s")
# A tqdm counter before its postfix: ``| 120/1000 [00:10<01:30, ...``.
_TQDM = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")
# A key left dangling at the end of a line that a terminal wrapped (Rich bars at 80 columns).
_DANGLING = re.compile(r"([A-Za-z][\w./-]*)\s*[:=]\s*$")
_STARTS_WITH_VALUE = re.compile(r"\s*" + _VALUE.pattern)
_HEADER_CELL = re.compile(r"\S+")
_MAX_KEY_WORDS = 5
# A line about evaluation (``valid on 'valid' subset``, ``Validation: ...``, ``Test set:``)
# holds no training loss, whatever its keys say; ``val_loss`` as a key is left to the lexicon.
_EVAL_CONTEXT = re.compile(r"(?i)\b(?:valid|validation|validating|eval|evaluation|evaluating"
                           r"|test|testing)\b(?![/_.-])")
# A run's closing summary (HF ``{'train_runtime': ..., 'train_loss': ...}``) is an average
# over the run, not a step.
_SUMMARY = ("_runtime", "train_samples_per_second")
_COUNTERS = (lexicon.STEP, lexicon.SKIPPED)
HEADER_REACH = 200  # value rows are read this many lines after their header row


@dataclass
class MetricLine:
    """What one line holds, by role (values of the first key seen for each role)."""

    values: dict[str, float] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    components: list[tuple[str, float]] = field(default_factory=list)
    first_prefix: str | None = None  # the text before the first value claimed


def classify(prefix: str) -> tuple[str, str] | None:
    """The (role, key) that ends ``prefix``, the text just before a value.

    Example:
        >>> classify("iter 120: time 3ms, Train Loss "), classify("reducing to ")
        (('loss', 'Train Loss'), None)
    """
    found = _claim(prefix)
    return None if found is None else (found[0], found[1])


def notation(prefix: str, line: str) -> str:
    """How a line writes its pairs, from the separator before one value.

    Example:
        >>> notation("{'loss': ", "{'loss': nan}"), notation("| Loss ", "| Loss nan |")
        ("'key': value", '| key value | cells')
    """
    found = _claim(prefix)
    separator = found[2] if found else ""
    if "'" in separator or '"' in separator:
        return "'key': value"
    if "|" in line:
        return "| key value | cells"
    if "=" in separator:
        return "key=value"
    if ":" in separator:
        return "key: value"
    return "key value"


@functools.lru_cache(maxsize=8192)
def _claim(prefix: str) -> tuple[str, str, str] | None:
    """(role, key, separator) ending ``prefix``. Cached: the text between two numbers of a
    log's lines repeats (", loss: ") while the numbers change."""
    stripped = prefix.rstrip(_SEPARATORS)
    if len(stripped) == len(prefix):
        return None  # no separator: the number is glued to a word ("fp16", "loss0.5")
    if stripped.endswith("tensor(") or stripped.endswith("tensor"):
        stripped = _TENSOR.sub("", stripped).removesuffix("tensor").rstrip(_SEPARATORS)
    stripped = _MODE.sub("", stripped).rstrip(_SEPARATORS)
    found = _KEY_TAIL.search(stripped[-80:])
    if found is None:
        return None
    tokens = found.group(0).split()
    for size in range(min(len(tokens), _MAX_KEY_WORDS), 0, -1):
        key = " ".join(tokens[-size:])
        kind = lexicon.role(key)
        if kind is None and lexicon.is_evaluation(key):
            return None  # "val_lm loss": its last word is no training loss either
        if kind is None or (size > 1 and kind == lexicon.COMPONENT):
            continue
        return kind, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
    return None


def read_pairs(text: str) -> MetricLine:
    """Every (role, value) a line holds in any notation.

    Example:
        >>> m = read_pairs("Epoch(train) [3][50/500]  lr: 1.0e-04, loss_cls: 0.0, "
        ...                "loss: nan, grad_norm: inf")
        >>> m.values["loss"], m.values["lr"], m.values["grad_norm"], m.components
        (nan, 0.0001, inf, [('loss_cls', 0.0)])
    """
    out = MetricLine()
    previous = 0
    for found in _VALUE.finditer(text):
        start = found.start()
        claimed = classify(text[previous:start])
        previous = found.end()
        if claimed is None:
            continue
        kind, key = claimed
        if out.first_prefix is None:
            out.first_prefix = text[max(start - 80, 0):start]
        value = to_value(found.group(0))
        if kind == lexicon.COMPONENT:
            out.components.append((key, value))
        elif kind in _COUNTERS and _as_step(value) is None:
            continue  # fairseq's "update": 0.05 is a fraction of an epoch, not a counter
        elif kind not in out.values or _prefer(kind, key, out.keys[kind]):
            out.values[kind] = value
            out.keys[kind] = key
    return out


def _prefer(kind: str, key: str, held: str) -> bool:
    """A plain ``loss`` beats ``avg_loss`` / ``train_loss_epoch`` seen earlier on the line;
    any counter beats fairseq's ``update`` (the epoch's progress, 1.000 at its end)."""
    if kind == lexicon.STEP:
        return lexicon.words(held) == ("update",)
    return kind == lexicon.LOSS and lexicon.words(key) == ("loss",) \
        and lexicon.words(held) != ("loss",)


def to_value(text: str) -> float:
    """A number in any spelling a log holds.

    Example:
        >>> [to_value(t) for t in ("-nan", "nan.0", "1.#INF", "-Infinity", "1e-3")]
        [nan, nan, inf, -inf, 0.001]
    """
    lowered = text.lower()
    if "#" in lowered:
        if "inf" in lowered:
            return -math.inf if lowered.startswith("-") else math.inf
        return math.nan
    if "nan" in lowered:
        return math.nan
    return float(lowered.removesuffix(".0") if lowered.endswith("nan.0") else lowered)


class MetricReader:
    """Reads one input's unclaimed lines; holds the little state notations need across
    lines (a header row over value rows, a key wrapped onto the next line).

    Example:
        >>> r = MetricReader()
        >>> [(e.step, e.loss) for e in r.read("iter 120: loss nan, time 35.2ms", 1)]
        [(120, nan)]
        >>> r.read("    Epoch   GPU_mem   box_loss   cls_loss  Instances", 2)
        []
        >>> [(e.loss, e.epoch_text) for e in r.read("    3/100     0G     nan    0.5    16", 3)]
        [(nan, '3/100')]
    """

    def __init__(self) -> None:
        self.header: tuple[int, list[str]] | None = None
        self.notations: dict[str, int] = {}
        self.keys_seen: dict[str, int] = {}
        # batches an epoch -> (last batch, epochs before it, line it was on)
        self.bars: dict[int, tuple[int, int, int]] = {}

    def read(self, text: str, line: int) -> list[MetricEvent]:
        """The metric events of one line no family parser claimed."""
        if _EVAL_CONTEXT.search(text) or any(marker in text for marker in _SUMMARY):
            return []
        metrics = read_pairs(text)
        if metrics.values or metrics.components:
            written = notation(metrics.first_prefix or "", text)
            return self._events(text, metrics, written, counters=True, line=line)
        if self._header_row(text, line):
            return []
        row = self._value_row(text, line)
        if row is None:
            return []
        return self._events(text, row, "header row over value rows", counters=False)

    def _events(self, text: str, metrics: MetricLine, written: str, *,
                counters: bool, line: int = 0) -> list[MetricEvent]:
        values = metrics.values
        loss = values.get(lexicon.LOSS)
        if loss is None and metrics.components:
            # No total printed: the components are its terms; one non-finite term makes the
            # total non-finite, and their sum is what the optimizer saw.
            loss = math.fsum(v for _k, v in metrics.components) if all(
                math.isfinite(v) for _k, v in metrics.components) else next(
                v for _k, v in metrics.components if not math.isfinite(v))
        step = _as_step(values.get(lexicon.STEP))
        epoch_text = None
        if step is None and "Epoch" in text:
            if found := _EPOCH_ITER.search(text):
                epoch, done, total = (int(g) for g in found.groups())
                step = (epoch - 1) * total + done if epoch >= 1 else done
            elif counters and (found := _EPOCH_BAR.search(text)):
                epoch, done, total = (int(g) for g in found.groups())
                step = epoch * total + done
        elif counters and (found := _BATCH_BAR.match(text)):
            step = self._bar_step(int(found.group(1)), int(found.group(2)), line)
        # A value row's bar counts batches of its epoch, not steps: left unnumbered.
        if step is None and counters and "|" in text and (found := _TQDM.search(text)):
            step = int(found.group(1))
        scale = values.get(lexicon.SCALE)
        grad_norm = values.get(lexicon.GRAD_NORM)
        skipped = _as_step(values.get(lexicon.SKIPPED))
        # A bare "skipped" may count batches, images or files a loop skipped: it still
        # numbers the step, but it is no count of skipped optimizer steps.
        counted = skipped if lexicon.words(metrics.keys.get(lexicon.SKIPPED, "")) != (
            "skipped",) else None
        if "epoch_text" in metrics.keys:
            epoch_text = metrics.keys["epoch_text"]
        measured = loss is not None or grad_norm is not None
        # A lone scale is read only when it is not 0: configuration dumps print
        # ``loss_scale 0`` for DeepSpeed's "dynamic", which is not a scale of 0.
        lone_scale = scale is not None and not measured and step is None
        if lone_scale and scale == 0.0:
            scale = None
        if not measured and scale is None and skipped is None:
            return []
        keys = tuple(metrics.keys[k] for k in metrics.keys if k != "epoch_text") + tuple(
            k for k, _v in metrics.components)
        self.notations[written] = self.notations.get(written, 0) + 1
        for key in keys:
            self.keys_seen[key] = self.keys_seen.get(key, 0) + 1
        out: list[MetricEvent] = []
        if measured or scale is not None:
            out.append(MetricEvent(METRICS, FAMILY, step=step, loss=loss, grad_norm=grad_norm,
                                   lr=values.get(lexicon.LR), scale_after=scale,
                                   keys=keys, epoch_text=epoch_text))
        if skipped is not None and step is not None:
            out.append(MetricEvent(PROGRESS, FAMILY, step=step, skipped_total=counted,
                                   keys=keys))
        return out

    def _bar_step(self, done: int, total: int, line: int) -> int:
        """The step of batch ``done`` of ``total`` (epochs counted by the bar going back)."""
        last, epochs, last_line = self.bars.get(total, (0, 0, line))
        if done < last or (done == last and line != last_line):
            epochs += 1
        self.bars[total] = (done, epochs, line)
        return epochs * total + done

    def _header_row(self, text: str, line: int) -> bool:
        """Remember a row of column names (two or more the lexicon knows, no numbers)."""
        cells = _HEADER_CELL.findall(text)
        known = sum(1 for cell in cells if lexicon.role(cell) is not None)
        if known >= 2 and not _VALUE.search(text):
            self.header = (line, cells)
            return True
        return False

    def _value_row(self, text: str, line: int) -> MetricLine | None:
        """Values aligned under the last header row, cell by cell."""
        if self.header is None or line - self.header[0] > HEADER_REACH:
            return None
        names = self.header[1]
        cells = _HEADER_CELL.findall(text)[:len(names)]
        if len(cells) < len(names):
            return None
        out = MetricLine()
        numeric = 0
        for name, cell in zip(names, cells, strict=True):
            kind = lexicon.role(name)
            if kind == lexicon.EPOCH and "/" in cell:
                out.keys["epoch_text"] = cell
                numeric += 1
                continue
            if not _VALUE.fullmatch(cell):
                continue
            numeric += 1
            value = to_value(cell)
            if kind == lexicon.COMPONENT:
                out.components.append((name, value))
            elif kind is not None and kind not in out.values:
                out.values[kind] = value
                out.keys[kind] = name
        if numeric * 2 < len(names) or not (out.values or out.components):
            return None
        return out


def dangling_key(text: str) -> bool:
    """True when a line ends with a known key and its separator but no value (a terminal
    wrapped the line; the value starts the next one).

    Example:
        >>> dangling_key("Epoch 1/9 ━━━━ 10/10 0:00:01 9.80it/s v_num: 0 train_loss:")
        True
    """
    found = _DANGLING.search(text)
    return found is not None and lexicon.role(found.group(1)) is not None


def starts_with_value(text: str) -> bool:
    """True when a line begins with a number (the wrapped tail of the line before).

    Example:
        >>> starts_with_value("  nan"), starts_with_value("loss nan")
        (True, False)
    """
    return _STARTS_WITH_VALUE.match(text) is not None


def _as_step(value: float | None) -> int | None:
    if value is None or not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)


@dataclass(frozen=True)
class MetricEvent(LogEvent):
    """A :class:`LogEvent` from the generic reader, with the keys it was read from."""

    keys: tuple[str, ...] = ()
    epoch_text: str | None = None
