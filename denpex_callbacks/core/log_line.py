"""One line per diagnosis in a training log.

A long run's log is read with grep and collected by aggregators that take a line as a record,
from several ranks at once: each diagnosis is one line (id, slug, severity, step, rank, one
sentence, the first fix, where the detail is), a consequence is one line naming its cause, and
an amendment is one line saying what was found and how the fix changed. The multi-line form
(:meth:`Diagnosis.render_text`) stays for the run report, ``denpex diagnose`` and
``denpex explain``, and for ``log_format="full"``.

Example:
    >>> from denpex_callbacks.core.diagnosis import Diagnosis, Finding
    >>> d = Diagnosis.from_finding(
    ...     Finding("AMP006", 61, "loss is nan (last finite loss: 0.047142259776592255)"))
    >>> for part in render_line(d, report="runs/rank0.jsonl").split(". "):
    ...     print(part)
    AMP006 non-finite-loss [error] step 61, rank 0: loss is nan (last finite loss: 0.04714)
    Fix: Check the batch for NaN/inf
    Details: runs/rank0.jsonl
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from denpex_callbacks.core.numbers import round_numbers

if TYPE_CHECKING:
    from denpex_callbacks.core.diagnosis import Diagnosis

LOG_FORMATS = ("line", "full")
_ACTION_WORDS = 3  # a first fix shorter than this is a lead-in ("On CPU"), not an action
_OPEN, _CLOSE = "([{", ")]}"


def _top_level(text: str) -> list[int]:
    """Nesting depth before each character (brackets and quotes), to split outside them."""
    depths, depth, quote = [], 0, ""
    for char in text:
        depths.append(depth + (1 if quote else 0))
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth = max(0, depth - 1)
    return depths


def _find_top(text: str, depths: list[int], marks: tuple[str, ...], start: int = 0) -> int:
    """Index of the first of ``marks`` at nesting depth 0 from ``start``, or -1."""
    for i in range(start, len(text)):
        if depths[i] == 0 and any(text.startswith(mark, i) for mark in marks):
            return i
    return -1


def first_fix(fix: str) -> str:
    """The first thing to do, from a fix text: its first sentence up to the first list comma.

    A lead-in before a colon is kept with its first item, so a pointer ("Find the overflow
    source: ...") still ends in an action; so is an item too short to be one (``"On CPU"``).

    Example:
        >>> first_fix("Lower the learning rate or add warm-up, clip gradients "
        ...           "(scaler.unscale_(opt); clip_grad_norm_), and restart. Or use bf16.")
        'Lower the learning rate or add warm-up'
        >>> first_fix("Find the overflow source (see the evidence): lower the LR, or use bf16.")
        'Find the overflow source (see the evidence): lower the LR'
        >>> first_fix("On CPU, '16-mixed' runs as bf16, so ask for 'bf16-mixed'.")
        "On CPU, '16-mixed' runs as bf16"
    """
    text = " ".join(fix.split())
    depths = _top_level(text)
    end = _find_top(text, depths, (". ",))
    if end >= 0:
        text, depths = text[:end], depths[:end]
    cut = _find_top(text, depths, (", ", "; "))
    colon = _find_top(text, depths, (": ",))
    if 0 <= colon < cut:  # "lead-in: first item, second item": keep the first item
        cut = _find_top(text, depths, (", ", "; "), colon + 2)
    while cut >= 0 and len(text[:cut].split()) < _ACTION_WORDS:  # a lead-in, not an action
        cut = _find_top(text, depths, (", ", "; "), cut + 2)
    return (text[:cut] if cut >= 0 else text).rstrip(" .")


def _headline(diagnosis: Diagnosis, tag: str = "") -> str:
    where = f"step {diagnosis.step}, " if diagnosis.step is not None else ""
    where += f"rank {diagnosis.rank}"
    if diagnosis.lines:
        where += f", line {diagnosis.lines[0]}"
    if diagnosis.source:
        where += f", {diagnosis.source}"
    tag = f", {tag}" if tag else ""
    return f"{diagnosis.code} {diagnosis.slug} [{diagnosis.severity.value}] {where}{tag}"


def _sentence(text: str) -> str:
    text = round_numbers(" ".join(text.split())).rstrip(" .")
    return text + "." if text else ""


def _details(report: str | None) -> str:
    return f" Details: {report}" if report else ""


def render_line(diagnosis: Diagnosis, *, report: str | None = None) -> str:
    """A diagnosis as one log line: what, where, what was seen, the first fix, the detail.

    A consequence of an earlier diagnosis names its cause instead of repeating a fix.

    Args:
        diagnosis: The diagnosis.
        report: Path of the run report holding the full record (None: not written).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Diagnosis, Finding
        >>> d = Diagnosis.from_finding(Finding("AMP003", 61, "loss scale 32768.0 -> 512.0"))
        >>> render_line(d.with_cause("AMP006")).split(": ", 1)[1]
        'consequence of AMP006, fix that first: loss scale 32768 -> 512.'
    """
    summary = _sentence(diagnosis.summary)
    if diagnosis.caused_by:
        return (f"{_headline(diagnosis)}: consequence of {diagnosis.caused_by}, fix that first: "
                f"{summary}{_details(report)}")
    fix = first_fix(diagnosis.fix)
    return f"{_headline(diagnosis)}: {summary} Fix: {fix}.{_details(report)}"


def render_amendment(old: Diagnosis, new: Diagnosis, *, report: str | None = None) -> str:
    """One line saying what later evidence found and how the fix changed.

    The line adds to the first report and never repeats it: what was found (the part of the
    summary that is new, else the new root cause) and the new first fix beside the old one.

    Example:
        >>> from dataclasses import replace
        >>> from denpex_callbacks.core.diagnosis import Diagnosis, Finding
        >>> old = Diagnosis.from_finding(Finding("AMP006", 61, "loss is nan at step 61"))
        >>> new = replace(old, summary=old.summary + "; located at step 62: fc1 overflowed",
        ...               fix="Lower the learning rate or add warm-up, clip gradients.")
        >>> for part in render_amendment(old, new).split(". "):
        ...     print(part)
        AMP006 non-finite-loss [error] step 61, rank 0, amended: located at step 62: fc1 overflowed
        Fix now: Lower the learning rate or add warm-up (before: Check the batch for NaN/inf).
    """
    found = new.summary
    # What the old summary said before its located clause, when the new one withdrew it.
    base = old.summary.removesuffix(f"; {old.located}") if old.located else old.summary
    if found.startswith(old.summary) and found != old.summary:
        found = found[len(old.summary):].lstrip(" ;,.")
    elif found.startswith(base) and found != base:
        found = found[len(base):].lstrip(" ;,.")
    elif found == old.summary:
        found = f"root cause: {new.root_cause}"
    new_fix, old_fix = first_fix(new.fix), first_fix(old.fix)
    change = (f"Fix now: {new_fix} (before: {old_fix})." if new_fix != old_fix
              else "Fix unchanged.")
    return f"{_headline(new, 'amended')}: {_sentence(found)} {change}{_details(report)}"


def render_escalation(diagnosis: Diagnosis, *, report: str | None = None) -> str:
    """One line saying that a diagnosis already reported got worse (a one-off persisted).

    The headline keeps the first step and shows the new severity; the summary says where the
    condition was seen again.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Diagnosis, Finding
        >>> from denpex_callbacks.core.severity import Severity
        >>> d = Diagnosis.from_finding(Finding("AMP006", 5, "loss is nan again at step 6; "
        ...                                    "the fault persists", severity=Severity.ERROR))
        >>> for part in render_escalation(d).split(": ", 1)[:2]:
        ...     print(part.split(" Fix:")[0])
        AMP006 non-finite-loss [error] step 5, rank 0, escalated
        loss is nan again at step 6; the fault persists.
    """
    # What was located is on the amendment's line already: not repeated.
    located = diagnosis.located
    seen = diagnosis.summary.removesuffix(f"; {located}") if located else diagnosis.summary
    return (f"{_headline(diagnosis, 'escalated')}: {_sentence(seen)} "
            f"Fix: {first_fix(diagnosis.fix)}.{_details(report)}")
