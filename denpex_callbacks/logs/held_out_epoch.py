"""A held-out loss that names its epoch between its name and its value: an evaluation's.

A plain loop prints its evaluation in a sentence: Claussss/Controlled_AC ``train_asr.py``
prints ``f"Validation Loss after epoch {epoch+1}: {avg_val_loss:.4f}"`` every few epochs,
under its training rows ``f"Epoch {epoch+1}/{num_epochs} Loss: {avg_loss:.4f}"``. The words
``after epoch 6`` stand between the key and its value, so the generic reader finds no
``key: value`` there (``Validation loss: nan`` and ``Epoch 6 Validation Loss: nan`` it reads
already); the NaN of a held-out loss is the evaluation stream's (AMP013), at the epoch the
sentence names.

A line is one when, alone on it, a held-out split (``validation``, ``val``, ``valid``,
``eval``, ``evaluation``, ``dev``, ``test``) and ``loss`` are followed by ``after``, ``at``,
``for``, ``of`` or ``in`` and ``epoch N`` (or ``step N``), a colon or ``=``, and a NaN. A
finite value needs no reading here; an infinite one is left alone (a divergence the
training rows show first); a training split's is the training loss's, not read here.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs.events import EVAL, LogEvent

FAMILY = "held-out epoch"
# The NaN lines pass the generic prefilter's own ``nan``/``NaN`` and ``oss``.
KEYWORDS: tuple[bytes, ...] = ()

# ``Validation Loss after epoch 6: nan``; ``val loss at step 1200 = NaN``. Bounded pieces,
# no nested repetition: linear on any line.
_SENTENCE = re.compile(
    r"^\s*((?i:validation|valid|val|eval|evaluation|dev|test)[ _]?(?i:loss))\s+"
    r"(?i:after|at|for|of|in)\s+(?:the\s+)?(?i:epoch|step)\s+(\d{1,12})\s*[:=]\s*"
    r"(nan|NaN|NAN)\s*$")


def parse(text: str) -> list[LogEvent]:
    """The evaluation's NaN loss a sentence prints after naming its epoch (or step).

    Example:
        >>> line = "Validation Loss after epoch 6: nan"
        >>> [(e.kind, e.step, e.metric) for e in parse(line)]
        [('eval', 6, 'Validation Loss')]
        >>> parse("Validation Loss after epoch 6: 2.8120")  # finite: the generic reader's
        []
        >>> parse("Training Loss after epoch 6: nan"), parse("Validation Loss after 6: nan")
        ([], [])
        >>> [(e.step, e.metric) for e in parse("val_loss at step 1200 = NaN")]
        [(1200, 'val_loss')]
    """
    if "oss" not in text and "OSS" not in text:
        return []
    found = _SENTENCE.match(text)
    if found is None:
        return []
    return [LogEvent(EVAL, FAMILY, step=int(found.group(2)), loss=math.nan,
                     metric=found.group(1))]
