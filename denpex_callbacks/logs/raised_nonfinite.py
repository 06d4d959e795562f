"""A training loop's own exception raised on a non-finite value it found in any tensor.

A loop that checks its forward pass raises before it has a loss to print: 00VALAK00/
Dual-Encoder ``scripts/train.py`` checks the model's similarity scores (``if
torch.isnan(similarity_scores).any(): ... raise ValueError("Nan values detected in
similarity_scores.")``) and the run ends in ``ValueError: Nan values detected in
similarity_scores.``. The tensor it names is no loss (:mod:`nonfinite_sentences` reads
those), yet the run stopped on a non-finite value of its training, which the loss would have
carried on (AMP006, whose causes start in the forward pass).

A line is one when it is an exception's message line (``{Name}Error: ``, ``{Name}Exception:
``, as Python's traceback ends) whose message says a non-finite value was found (``NaN
detected``, ``found inf``, ``Nan values encountered``) or names a non-finite loss without a
word of finding: a loop that checks its loss and raises (a DDP trainer's ``FloatingPointError:
Non-finite training loss on at least one rank at epoch=3 batch=56``, a RED-CNN script's
``RuntimeError: non-finite LOSS ep18: ...``; at most two words between the value and
``loss``). A negated finding (``no NaN found``),
an evaluation's (a split named: ``NaN found in val predictions``) and a line of source echoed
in the traceback (``raise ValueError("NaN detected ...")``: no ``Error: `` on it) are none.
A launcher's rank prefix before the exception (torchrun ``--tee 2``'s ``[default0]:`` on
stderr alone, its rows bare: no margin to take off) is read past, as
:mod:`framework_errors` reads past it (``launcher_ranks.rank_prefix_end``).

A NaN found in the data an environment handed the loop is no value training computed, so
none either: stable-baselines3's ``VecCheckNan(raise_exception=True)`` (``vec_check_nan.py``
``_check_val``) raises ``found {nan|inf} in {name}`` on the observations, rewards and dones
(``observations.{key}`` of a dict or tuple space) that ``reset`` and ``step_wait`` return,
and names the model's own ``actions`` (``step_async``, ``Originated from the RL model``),
which stays AMP006.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs.events import METRICS, LogEvent, sentence_step
from denpex_callbacks.logs.launcher_ranks import rank_prefix_end

FAMILY = "raised"
# ``NaN``, ``nan`` and ``inf`` are the generic prefilter's own; ``Error: Nan`` finds the
# capitalised ``Nan`` an exception's message opens with, a long keyword (one more pass over
# the bytes, at C speed): ``Nan`` alone would be a slow short one.
KEYWORDS: tuple[bytes, ...] = (b"Error: Nan",)

# The exception's message line: its dotted name ending Error or Exception, then ": ", matched
# where a launcher's rank prefix ends (``match`` anchors there; ``^`` would not).
_RAISED = re.compile(r"\s*(?:[A-Za-z_][\w.]{0,80})?(?:Error|Exception):\s")
_VALUE = r"(?:nan\s*(?:/|or|and)\s*inf|inf\s*(?:/|or|and)\s*nan|nans?|infs?|non-?finite)"
_FOUND = r"(?:detected|found|encountered|occurred|appeared|observed)"
_FINDING = re.compile(
    r"(?i)\b(?:" + _VALUE + r"\s+(?:values?\s+|entries\s+|elements\s+)?(?:(?:was|were|is|are"
    r"|has\s+been|have\s+been)\s+)?" + _FOUND + r"|" + _FOUND + r"\s+(?:an?\s+)?" + _VALUE
    + r"|" + _VALUE + r"(?:\s+[a-z]{1,20}){0,2}?\s+loss(?:es)?" + r")\b")
# A message that opens by calling what it raises on non-finite ("Non-finite tensor: L_task
# at step=617.", "non-finite strict epoch metric"): the loop's check named its finding.
# A check named instead ("non-finite check disabled") reports no finding.
_STATED = re.compile(r"(?i)non-?finite\s+(?!checks?\b|checking\b|guards?\b)\w")
_NEGATED = re.compile(r"(?i)\b(?:no|not|never|without|zero|0)\s+(?:\w+\s+)?" + _VALUE)
_EVAL = re.compile(r"(?i)\b(?:val|valid|validation|eval|evaluation|test|dev)\b")
# The environment's data a NaN was found in (RL: what reset/step return, in SB3's own words
# for them): input, not a value training computed. Dotted: a dict or tuple space's member.
# Only in those words: a loop's own "NaN detected in rewards" (an RLHF reward model's fp16
# output) is a value training computed.
_ENV_DATA = re.compile(r"\bfound\s+(?:nan|inf)\s+in\s+(?:observations|rewards|dones)(?:\.\w+)?\b")
_CUES = ("nan", "NaN", "Nan", "inf", "Inf", "finite")


def parse(text: str) -> list[LogEvent]:
    """The non-finite value one exception's message says the training loop found.

    Example:
        >>> line = "ValueError: Nan values detected in similarity_scores."
        >>> [(e.step, e.loss) for e in parse(line)]
        [(None, nan)]
        >>> [e.step for e in parse("RuntimeError: NaN found in logits at step 40")]
        [40]
        >>> parse('    raise ValueError("Nan values detected in similarity_scores.")')
        []
        >>> parse("Nan values detected in similarity_scores.")  # logged, not raised
        []
        >>> parse("AssertionError: no NaN found"), parse("ValueError: NaN found in val preds")
        ([], [])
        >>> parse("ValueError: Input contains NaN, infinity or a value too large")
        []
        >>> [e.loss for e in parse("[default0]:ValueError: Nan values detected in scores.")]
        [nan]
        >>> parse("ValueError: found inf in rewards, found nan in observations.image.")
        []
        >>> [e.loss for e in parse("ValueError: found nan in actions.")]  # the model's
        [nan]
        >>> [e.loss for e in parse("RuntimeError: NaN detected in rewards")]  # a reward model's
        [nan]
        >>> [e.loss for e in parse("FloatingPointError: Non-finite training loss on rank 1")]
        [nan]
        >>> parse("RuntimeError: non-finite validation loss"), parse("ValueError: loss is finite")
        ([], [])
        >>> [(e.step, e.loss) for e in parse(
        ...     "FloatingPointError: Non-finite tensor: L_task at step=617. {'nan': 1}")]
        [(617, nan)]
        >>> parse("ValueError: finite values only")
        []
        >>> parse("AssertionError: non-finite check disabled for bf16")
        []
    """
    if "Error" not in text and "Exception" not in text:
        return []
    if not any(cue in text for cue in _CUES):
        return []
    raised = _RAISED.match(text, rank_prefix_end(text))
    if raised is None:
        return []
    found = _FINDING.search(text, raised.end()) or _STATED.match(text, raised.end())
    if (found is None or _NEGATED.search(text, raised.end())
            or _EVAL.search(text, raised.end()) or _ENV_DATA.search(text, raised.end())):
        return []
    value = found.group(0).lower()
    loss = math.inf if "inf" in value and "nan" not in value else math.nan
    return [LogEvent(METRICS, FAMILY, step=sentence_step(text), loss=loss)]
