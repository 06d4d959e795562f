"""A split's error printed in a length unit glued to its value: a distance the model minimises.

Pose and depth estimators train on a distance and print it in millimetres after the value
with no blank: 2505552499/Myformer1 ``train_mamba.py`` prints ``f"Train MPJPE:
{train_losses['mpjpe']:.2f}mm"`` (its loss is the MPJPE times a weight) and ``f"Test MPJPE:
{test_mpjpe:.2f}mm"`` each epoch. ``41.20mm`` and ``nanmm`` are no numbers to the generic
reader, so the test set's NaN was not read.

A line is one when it holds only a split (``train``, ``training``, ``test``, ``val``,
``valid``, ``validation``, ``eval``, ``dev``), one key and its value glued to (or a blank
before) ``mm`` or ``cm``. A length is a distance to the target, lower being better: the
training split's is its loss averaged over the epoch the loop's own rows (its progress bar)
already counted, a summary of that epoch (no step of its own: read as a new row it would push
the evaluation after it one step past the epoch's end); a held-out split's NaN is the
evaluation stream's (AMP013), its finite value needs no reading. (A loop that prints only such
averages, no bar, is read but not judged: its NaN stays silent, as before this rule; a finite
line holds no keyword and is not read at all, so a healthy run stays "nothing to diagnose".)
A line with anything else on it (a ``|``-separated record, a second key) is the generic
reader's.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import EVAL, SUMMARY, LogEvent

FAMILY = "length error"
# No keyword of its own: the prefilter's budget (tests/logs/test_messages.py) is full, and a
# keyword hands its lines to the generic reader as well (``mm`` would make flashy's ``Train
# Summary | Epoch 1 | ...`` a row). Its lines reach it where the generic prefilter's ``nan``
# is on them (``Test MPJPE: nanmm``); a healthy ``Train MPJPE: 41.20mm`` does not.
KEYWORDS: tuple[bytes, ...] = ()

# ``Train MPJPE: 41.20mm``; ``Test MPJPE: nanmm``; ``val PA-MPJPE = 33.1 mm``. Bounded pieces,
# no nested repetition: linear on any line.
_LINE = re.compile(
    r"^\s*((?i:train|training|test|val|valid|validation|eval|dev))[ _]([A-Za-z][\w-]{0,24})"
    r"\s*[:=]\s*([-+]?(?:\d{1,9}(?:\.\d{1,12})?|nan|NaN|inf))\s?(?:mm|cm)\s*$")
_TRAINING = frozenset({"train", "training"})


def parse(text: str) -> list[LogEvent]:
    """The training split's length (its epoch's loss) or a held-out split's NaN length.

    Example:
        >>> [(e.kind, e.loss, e.metric) for e in parse("Train MPJPE: 41.20mm")]
        [('summary', 41.2, 'Train MPJPE')]
        >>> [(e.kind, e.metric) for e in parse("Test MPJPE: nanmm")]
        [('eval', 'Test MPJPE')]
        >>> parse("Test MPJPE: 38.10mm"), parse("VALID | MPJPE: 41.20mm | DTW: 0.3")
        ([], [])
        >>> parse("Train MPJPE: 41.20ms"), parse("Train loss 41.20mm")
        ([], [])
    """
    if "mm" not in text and "cm" not in text:
        return []
    found = _LINE.match(text)
    if found is None:
        return []
    split, key, number = found.groups()
    value = float(number)
    metric = f"{split} {key}"
    if split.lower() in _TRAINING:
        return [LogEvent(SUMMARY, FAMILY, loss=value, metric=metric)]
    if value != value:
        return [LogEvent(EVAL, FAMILY, loss=value, metric=metric)]
    return []
