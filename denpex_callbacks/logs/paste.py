"""What pasting a log adds to its lines, taken off before they are read.

Markdown quoting on every line (``> ``, nested), tmux or box-drawing borders (``│ ... │``)
and editor line numbers (``12 | ...``). Terminal escape sequences (colours) go too, and what
a log collector wrote before each line of the program's own (see ``_COLLECTOR``).
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_QUOTED = re.compile(r"^\s*(?:>\s?)+")
_BORDER = re.compile(r"^\s*[│┃║]\s?|\s*[│┃║]\s*$")
_NUMBERED = re.compile(r"^\s*\d{1,7}\s*[│|]\s")
_BOX = ("│", "┃", "║")
_OPENERS = ("(", "<")
# What a collector writes before each line of a program's output, one or more of them: the
# RFC 3339 time of ``kubectl logs --timestamps`` and of GitHub Actions' raw logs
# (``2024-05-01T12:00:00.123456789Z``), ``kubectl logs --prefix`` (kubectl pkg/cmd/logs/
# logs.go: ``[pod/NAME/CONTAINER]``), journald's and syslog's short form (``May 01 12:00:00
# host python3[1234]:``) and RFC 5424's (``<14>1 TIME HOST APP PID MSGID -``), a Ray worker's
# process (ray/_private/worker.py print_worker_logs: ``(RayTrainWorker pid=1234,
# ip=10.0.0.1)``, coloured; not SkyPilot's, which names the rank: parsers.line_rank reads
# it). A prefix read as part of the line would be a table row's first
# cell (a header row over value rows no longer lines up: skorch's, YOLO's) or a value.
# Each with the one blank after it (the program's own indentation, a table's alignment,
# stays). Tried only on a line that opens as one of them does (may_be_collected).
_COLLECTOR = re.compile(
    r"^\s*(?:(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\[pod/[^\]\s]+\]"
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ [^\s:\[]+(?:\[\d+\])?:"
    r"|<\d{1,3}>\d (?:\S+ ){5}(?:-|\[[^\]]*\])"
    r"|\((?![^()]*\brank=)[^()]*?\bpid=\d+(?:, ip=[^()]*)?\))[ \t])+")


def strip_paste(text: str) -> str:
    """The line without the artefacts of pasting it (colours, quoting, borders, numbers).

    Example:
        >>> strip_paste("> > 12 | loss: nan"), strip_paste("│ step 3 loss 0.5 │")
        ('loss: nan', 'step 3 loss 0.5')
        >>> strip_paste("[pod/llm-0/pytorch] 2024-05-01T12:00:00.1Z      1  2.3010  2.2860")
        '     1  2.3010  2.2860'
        >>> strip_paste("(RayTrainWorker pid=1234, ip=10.0.0.1) iter 3: loss nan")
        'iter 3: loss nan'
    """
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    head = text.lstrip()[:5]  # looked at twice: found once unless the text changes between
    first = head[:1]
    if (head == "[pod/" if first == "[" else first != "{" and may_be_collected(head)) and (
            found := _COLLECTOR.match(text)):  # (DeepSpeed's and HF's lines told inline)
        text = text[found.end():]
        first = text[:1]
    if first == ">":
        text = _QUOTED.sub("", text)
        first = text.lstrip()[:1]
    if _BOX[0] in text or _BOX[1] in text or _BOX[2] in text:
        text = _BORDER.sub("", text)
        first = text.lstrip()[:1]
    if first.isdigit() and (found := _NUMBERED.match(text)):
        text = text[found.end():]
    return text


def without_collector(text: str) -> str:
    """``text`` without a collector's prefix (and colours where it has one), else ``text``
    itself: what the program printed (a header row's cells behind a kubectl timestamp).

    Example:
        >>> without_collector("2024-05-01T12:00:00.1Z   epoch    train_loss")
        '  epoch    train_loss'
        >>> line = "epoch 3 loss 0.5"
        >>> without_collector(line) is line
        True
    """
    plain = _ANSI.sub("", text) if "\x1b" in text else text
    if may_be_collected(plain.lstrip()[:5]) and (found := _COLLECTOR.match(plain)):
        return plain[found.end():]
    return text


def may_be_collected(head: str) -> bool:
    """Whether a line that opens with ``head`` (its first five characters) may open with a
    collector's prefix: what each of them opens with, told without a regex (most lines are
    told by their first character).

    Example:
        >>> may_be_collected("2024-"), may_be_collected("[pod/"), may_be_collected("[2024")
        (True, True, False)
    """
    first = head[:1]
    if first.isdigit():
        return head[4:5] == "-"  # 2024-05-01T...
    if first == "[":
        return head == "[pod/"
    if first in _OPENERS:
        return True  # ``(`` a Ray worker's process, ``<`` syslog's priority
    return first.isupper() and head[3:4] == " "  # May 01 ...
