"""An excerpt that is one JSON document holding a run's output as one of its strings.

A service's record of a run keeps the run's output as one string among its metadata, and
people paste the record whole: Replicate's training or prediction (replicate/replicate-python
``replicate/training.py``, HTTP API ``GET /v1/trainings/{id}``: ``"logs"`` the run's stdout,
newline-separated, beside ``"input"``, ``"urls"``, ``"status"``, ``"error"``), a job runner's
``{"stdout": ...}``, a notebook tool's ``{"output": ...}``. Read line by line, the whole log is
one escaped line inside the document, and its faults go unsaid.

The rule: an input that is one JSON object (opening with ``{`` and closing with ``}``, read by
Python's ``json``) holding a string of at least ``MIN_LINES`` non-blank lines, more than half
of them with a digit (a program's output numbers its lines' values; a prompt template or a
README in a model card's JSON is prose), is read as that string's lines: the string under a
key named for a log (``LOG_KEYS``, at any depth), else the longest such string. The other
fields are metadata and are not read. The report says which key was read.
"""

from __future__ import annotations

from typing import NamedTuple

# Keys a service names the run's output by (Replicate ``logs``; a job's ``log``, ``output``,
# ``stdout``; a notebook tool's or a chat export's ``text``).
LOG_KEYS = ("logs", "log", "output", "stdout", "text")
MIN_LINES = 3
LOG_BYTES = 16 << 20  # a larger input is a log file, no pasted record
MAX_DEPTH = 8  # (a record nests its log a level or two; deeper is a data set)


class HeldLog(NamedTuple):
    """The log a JSON document holds: its key's path (``/``-joined) and its lines."""

    key: str
    data: bytes


def may_hold_log(head: bytes, size: int) -> bool:
    """Whether an input of ``size`` bytes opening with ``head`` may be one JSON object (one
    line of JSON Lines ends on its first line: a log of records, no document).

    Example:
        >>> may_hold_log(b'{\\n  "id": "a",\\n  "logs": "step 1', 9000)
        True
        >>> may_hold_log(b'{"loss": 1.0}\\n{"loss": 0.9}\\n', 9000), may_hold_log(b"step 1", 6)
        (False, False)
    """
    stripped = head.lstrip()
    if size > LOG_BYTES or stripped[:1] != b"{":
        return False
    first, newline, _rest = stripped.partition(b"\n")
    return not newline or size <= len(head) or first.rstrip()[-1:] != b"}"


def held_log(document: dict[str, object]) -> HeldLog | None:
    """The run's output a JSON object (``json_documents.parsed_object``'s) holds as one of
    its strings, or None where it holds no string that reads as a log.

    Example:
        >>> from denpex_callbacks.logs.json_documents import parsed_object
        >>> def held(data): return held_log(parsed_object(data))
        >>> held(b'{"id": "x", "logs": "step 1 loss 2.1\\\\nstep 2 loss nan\\\\n\\\\n"'
        ...      b', "status": "failed"}') is None
        True
        >>> held(b'{"id": "x", "logs": "step 1 loss 2.1\\\\nstep 2 loss nan\\\\nstep 3 nan"}')
        HeldLog(key='logs', data=b'step 1 loss 2.1\\nstep 2 loss nan\\nstep 3 nan')
        >>> held(b'{"prompt": "Below is an instruction.\\\\n\\\\n### Response:\\\\n"}') is None
        True
    """
    strings: list[tuple[str, str]] = []
    _strings(document, "", strings, 0)
    logs = [(key, text) for key, text in strings if _reads_as_log(text)]
    if not logs:
        return None
    named = [item for item in logs if item[0].rsplit("/", 1)[-1].lower() in LOG_KEYS]
    key, text = max(named or logs, key=lambda item: len(item[1]))
    return HeldLog(key, text.encode("utf-8", "replace"))


def _strings(value: object, path: str, into: list[tuple[str, str]], depth: int) -> None:
    """Put every string under ``value`` with more than one line into ``into`` with its
    ``/``-joined path (a list's items by index)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, str):
        if "\n" in value:
            into.append((path, value))
    elif isinstance(value, dict):
        for key, item in value.items():
            _strings(item, f"{path}/{key}" if path else str(key), into, depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _strings(item, f"{path}/{index}" if path else str(index), into, depth + 1)


def _reads_as_log(text: str) -> bool:
    """Whether a string is a program's output: ``MIN_LINES`` non-blank lines or more, more than
    half of them holding a digit (a step, a value), where prose seldom does."""
    lines = [line for line in text.splitlines() if line.strip()]
    numbered = sum(any(char.isdigit() for char in line) for line in lines)
    return len(lines) >= MIN_LINES and 2 * numbered > len(lines)
