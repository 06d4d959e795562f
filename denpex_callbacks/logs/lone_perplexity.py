"""A perplexity printed alone on its line, under a step: an evaluation's.

A loop that prints its training loss on its progress bar (or its own rows) measures its
perplexity on held-out data every so often and prints that alone, under the step it ran at:
0x0shephard/assignment ``train_sft.py`` prints ``f"  [step {step}] response-token PPL
(partial): {ppl:.2f}"`` from ``eval_perplexity(policy, eval_loader, ...)``. The key names no
split, so the generic reader reads no metric there; a perplexity computed apart from the
training rows is measured, not trained on: its NaN is the evaluation stream's (AMP013).

The same loop evaluates once more after its last step and prints that under ``[final]``
(``f"[final] response-token PPL: {ppl_final:.2f}  ({dt/60:.1f} min)"``): the evaluation's
too, at no step of its own, a parenthesised note after its value.

A line is one when, after a step in brackets, ``step N:`` or ``[final]`` and nothing else,
its only ``key: value`` is a perplexity (``ppl``, ``perplexity``, words and a parenthesised
note around it, a parenthesised note after the value) whose value is NaN. An infinite
perplexity is no finding (exp overflows on a large finite loss: see
:func:`lexicon.overflowed_perplexity`); a finite one needs no reading here; a line holding a
loss, or any other key, is the generic reader's.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs.events import EVAL, LogEvent

FAMILY = "perplexity"
# The NaN lines pass the generic prefilter's own ``nan``/``NaN``: no keyword of its own.
KEYWORDS: tuple[bytes, ...] = ()

# ``  [step 300] response-token PPL (partial): nan``; ``step 300: val-free ppl = nan``.
# Bounded pieces, no nested repetition: linear on any line.
# ``[final] response-token PPL: nan  (41.2 min)``: the evaluation after the loop, tagged
# ``[final]`` in place of a step (none: the doctor places it), a note after the value.
_LONE = re.compile(
    r"^\s*(?:\[\s*(?:step|iter|iteration)\s+(\d{1,12})\s*\]|(?:step|iter|iteration)\s+"
    r"(\d{1,12})\s*:|\[\s*final\s*\])\s+((?:[A-Za-z][\w-]{0,30}\s+){0,3}(?:ppl|PPL|Ppl|"
    r"perplexity|Perplexity)(?:\s+\([^()]{1,30}\))?)\s*[:=]\s*(nan|NaN|NAN)"
    r"(?:\s+\([^()]{1,30}\))?\s*$")
# A loss named beside it, or the training split named: no evaluation (the generic reader's).
_NOT_HELD_OUT = re.compile(r"(?i)loss|\btrain(?:ing)?\b")


def parse(text: str) -> list[LogEvent]:
    """The evaluation's NaN perplexity one line prints alone under its step.

    Example:
        >>> line = "  [step 300] response-token PPL (partial): nan"
        >>> [(e.kind, e.step, e.metric) for e in parse(line)]
        [('eval', 300, 'response-token PPL (partial)')]
        >>> parse("  [step 300] response-token PPL (partial): 14.20")  # finite: not needed
        []
        >>> parse("  [step 300] PPL: inf"), parse("step 300: loss nan ppl nan")
        ([], [])
        >>> parse("[step 300] loss ppl: nan"), parse("[step 300] train ppl: nan")
        ([], [])
        >>> [(e.kind, e.step) for e in parse("[final] response-token PPL: nan  (41.2 min)")]
        [('eval', None)]
        >>> parse("[final] response-token PPL: 5.69  (41.2 min)")
        []
    """
    if "pl" not in text and "PL" not in text and "erplex" not in text:
        return []
    found = _LONE.match(text)
    if found is None or _NOT_HELD_OUT.search(found.group(3)):
        return []
    number = found.group(1) or found.group(2)
    step = int(number) if number else None
    return [LogEvent(EVAL, FAMILY, step=step, loss=math.nan, metric=found.group(3))]
