"""A run that says it switched its mixed precision off, in any wording: an automatic check or a
guard that turned AMP off after NaNs or overflows (``AMP disabled: NaN detected in the first
steps, falling back to fp32``, ``Disabling AMP after repeated overflows``), from a tool whose
message is not a row of the table (YOLOv5's and Ultralytics' ``check_amp`` are).

A line is one when it says that fp16 or AMP was switched off (disabled, turned off, fell back
or switched to fp32) and names why: a NaN or inf, an overflow, a non-finite value, an anomaly,
an instability, a divergence, a failed check. The run then trains in fp32: AMP010, fp16 asked
for and not active. A setting (``amp: disabled``), a condition (``disable AMP if the loss is
NaN``) and a flag's name (``disable_amp_on_nan: True``) are none.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import FLAG, LogEvent, sentence_step

FAMILY = "sentences"
# The prefilter's own "nan", "NaN", "inf", "oss" and "verflow" find the lines: a cause is
# required, and each names one of them.
KEYWORDS: tuple[bytes, ...] = ()
# What a line must hold before the regexes are tried (metric lines come by millions).
_CUES = ("isabl", "off", "back to", "witch", "evert")

_PRECISION = (r"(?:amp|automatic\s+mixed\s+precision|mixed[\s_-]precision|fp16|float16"
              r"|half[\s_-]precision)")
_OFF = re.compile(
    r"(?i)\b" + _PRECISION + r"\b[^\n]{0,40}?\b(?:(?:is|was|has\s+been|got)\s+)?(?:disabled"
    r"|turned\s+off|switched\s+off)\b"
    r"|\b(?:disabl(?:e|ed|es|ing)|turn(?:s|ed|ing)?\s+off|switch(?:es|ed|ing)?\s+off)\s+"
    r"(?:the\s+)?" + _PRECISION + r"\b"
    r"|\b(?:fall(?:s|ing)?\s+back|fell\s+back|revert(?:s|ed|ing)?|switch(?:es|ed|ing)?)\s+to\s+"
    r"(?:fp32|float32|full[\s_-]precision)\b")
_WHY = re.compile(r"(?i)\b(?:nan|inf|overflow\w*|non-?finite|anomal\w*|unstable|instabilit\w*"
                  r"|diverg\w*|checks?\s+failed)\b")
# A condition or a setting's help ("disable AMP if the loss is NaN"), not a finding.
_CONDITION = re.compile(r"(?i)\b(?:if|when|whenever|unless|in\s+case|should|would|can)\b")
# The causes a line names (``_WHY``'s words), as the diagnosis says them.
_CAUSES = (("nan", "a NaN"), ("inf", "an inf"), ("overflow", "an overflow"),
           ("anomal", "an anomaly"), ("unstable", "an instability"),
           ("instabilit", "an instability"), ("diverg", "a divergence"),
           ("check", "a failed check"))


def parse(text: str) -> list[LogEvent]:
    """The switch to fp32 one line announces, in words no table row knows.

    Example:
        >>> [(e.code, e.step) for e in parse(
        ...     "step 120: AMP disabled after repeated overflows, training in fp32")]
        [('AMP010', 120)]
        >>> [e.code for e in parse("NaN detected in the first steps, falling back to fp32")]
        ['AMP010']
        >>> parse("amp: disabled"), parse("disable_amp_on_nan: True")
        ([], [])
        >>> parse("Will disable AMP if the loss becomes NaN")
        []
    """
    if not any(cue in text for cue in _CUES):
        return []
    off = _OFF.search(text)
    if off is None:
        return []
    why = _WHY.search(text)
    if why is None or _CONDITION.search(text):
        return []
    return [LogEvent(FLAG, FAMILY, step=sentence_step(text), code="AMP010",
                     evidence={"switched_off": _cause(why.group(0))},
                     summary=f"the run switched its mixed precision off ({off.group(0)!r}): "
                             "it trains in fp32 from here")]


def _cause(word: str) -> str:
    """What a line's word for why names, with its article (``overflows`` -> ``an overflow``).

    Example:
        >>> _cause("overflows"), _cause("NaN"), _cause("checks failed")
        ('an overflow', 'a NaN', 'a failed check')
    """
    word = word.lower()
    for head, named in _CAUSES:
        if word.startswith(head):
            return named
    return "a non-finite value"
