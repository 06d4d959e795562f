"""The generic reader's fast path: a log repeats a few line templates millions of times.

A line's template is the line with every digit written as ``0`` (one C-speed
``bytes.translate``): lines of one template have the same length, the same characters and
digits at the same places, differing only in which digits. The value regex of
:mod:`~denpex_callbacks.logs.metric_pairs` treats every digit alike, so such lines split
into values at the same places, and the text between their values differs only in digit
runs that start a word (``35.21ms``, ``1s``): a key is a run of words that start with a
letter, so those digits are never part of one. What the reader decides from that text (which
values a key of the lexicon claims, with which key and separator; whether the line is about
evaluation) is therefore the same for every line of the template, and is learnt once, by the
reader's own slow path, the second time a template is met (a line seen once costs only its
template). Digits inside words (``fp16``, ``lr0``, ``lr/1``) can change a key: a plan keeps
them and a line whose digits there differ is read by the slow path instead.

Lines holding ``#`` (``1.#INF``, where the digit ``1`` matters) and lines that cannot be
encoded (lone surrogates) are always read by the slow path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_TEMPLATE = bytes.maketrans(b"123456789", b"000000000")
# A digit run glued to the end of a word (``fp16``, ``lr0``, ``lr/1``, ``step-2``): part of a
# key, so a plan keeps the digits themselves.
_IN_WORD = re.compile(r"(?<=[\w./-])(?<!\d)\d+")
# (start, end, role, key, separator) of one value a key claims on a line.
Claim = tuple[int, int, str, str, str]
LIMIT = 4096  # plans (and templates seen once) kept; past it they are forgotten and relearnt


@dataclass(frozen=True)
class Plan:
    """What the slow path decided for one template.

    Attributes:
        skip: Why the line holds no training step's values (about evaluation, or a run's
            closing summary: only its evaluation values are read), or None.
        claims: The values keys claim, with the key, its role and separator.
        fixed: ``(start, end, digits)``: digit runs inside words, which a line of this
            template must repeat to be read with this plan.
    """

    skip: str | None
    claims: list[Claim]
    fixed: tuple[tuple[int, int, str], ...]


Learn = Callable[[str], tuple[str | None, list[Claim], list[tuple[int, int]]]]


class Templates:
    """Plans by template, learnt with ``learn(text) -> (skip, claims, value spans)``.

    Example:
        >>> def learn(text):  # a toy slow path: "loss" claims the value after it
        ...     return None, [(5, 8, "loss", "loss", " ")], [(5, 8)]
        >>> t = Templates(learn)
        >>> t.plan("loss 1.5"), t.plan("loss 2.5").claims  # learnt when met a second time
        (None, [(5, 8, 'loss', 'loss', ' ')])
        >>> t.plan("loss 7.5") is t.plan("loss 2.5")
        True
    """

    def __init__(self, learn: Learn, limit: int = LIMIT) -> None:
        self._learn = learn
        self._limit = limit
        self._plans: dict[bytes, Plan] = {}
        self._seen: set[bytes] = set()

    def plan(self, text: str) -> Plan | None:
        """The plan of ``text``'s template; None: read it by the slow path."""
        try:
            key = text.encode().translate(_TEMPLATE)
        except UnicodeEncodeError:
            return None
        plan = self._plans.get(key)
        if plan is not None:
            for start, end, digits in plan.fixed:
                if text[start:end] != digits:
                    return None
            return plan
        if b"#" in key:
            return None
        if key not in self._seen:
            if len(self._seen) >= self._limit:
                self._seen.clear()
            self._seen.add(key)
            return None
        skip, claims, spans = self._learn(text)
        if len(self._plans) >= self._limit:
            self._plans.clear()
        plan = Plan(skip, claims, _fixed_digits(text, spans))
        self._plans[key] = plan
        return plan


def _fixed_digits(text: str, spans: list[tuple[int, int]]) -> tuple[tuple[int, int, str], ...]:
    """The digit runs inside words, outside every value span."""
    out = []
    for found in _IN_WORD.finditer(text):
        start, end = found.span()
        if not any(s <= start < e for s, e in spans):
            out.append((start, end, found.group(0)))
    return tuple(out)
