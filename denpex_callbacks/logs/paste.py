"""What pasting a log adds to its lines, taken off before they are read.

Markdown quoting on every line (``> ``, nested), tmux or box-drawing borders (``│ ... │``)
and editor line numbers (``12 | ...``). Terminal escape sequences (colours) go too, and what
a log collector wrote before each line of the program's own (see ``_COLLECTOR``). What a web
page or a notebook's output turns characters into is turned back: non-breaking and other
Unicode spaces (a rendered page's ``&nbsp;``), zero-width characters, and HTML's character
references (``{&#39;loss&#39;: nan}`` from a page's source or an API's escaped text).
"""

from __future__ import annotations

import codecs
import html
import json
import re

ANSI = r"\x1b\[[0-9;?]*[A-Za-z]"  # a terminal's control sequence (colours, cursor moves)
_ANSI = re.compile(ANSI)
# Spaces a page or a notebook renders (no-break, thin, figure, narrow no-break...) as the
# space the program printed; zero-width characters and a byte-order mark as nothing. (The
# ideographic space is the CJK rewrite's: see cjk.py.)
# Quotes a chat tool or a word processor makes curly (Slack, Word, a forum's editor) and the
# minus sign a math font or a rendered page prints (U+2212), as the program's ASCII; the
# full-width digits and colon of a CJK input method as ASCII (its other punctuation, in a line
# of CJK words: cjk.py).
_WEB_PLAIN = {**dict.fromkeys(
    ["\u00a0", *map(chr, range(0x2000, 0x200b)), "\u202f", "\u205f"], " "),
    **dict.fromkeys(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"], ""),
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2212": "-",
    **{chr(0xFF10 + digit): str(digit) for digit in range(10)}, "\uff1a": ":"}
_WEB_SPACES = str.maketrans(_WEB_PLAIN)
# An en dash a rendered page or a word processor made of a number's minus (``loss \u20130.5``,
# ``1e\u201305``): one after a blank, an opening or a separator, or an exponent's ``e``, before
# a digit (a range's dash, ``1\u20133``, stays).
_EN_DASH = re.compile(r"(?:^|(?<=[\s(\[=:,;])|(?<=\d[eE]))\u2013(?=\.?\d)")
_QUOTED = re.compile(r"^\s*(?:>\s?)+")
_BORDER = re.compile(r"^\s*[│┃║]\s?|\s*[│┃║]\s*$")
_NUMBERED = re.compile(r"^\s*\d{1,7}\s*[│|]\s")
_BOX = ("│", "┃", "║")
_RULES = str.maketrans(dict.fromkeys(_BOX, "|"))
_OPENERS = ("(", "<")
# What a collector writes before each line of a program's output, one or more of them: the
# RFC 3339 time of ``kubectl logs --timestamps`` and of GitHub Actions' raw logs
# (``2024-05-01T12:00:00.123456789Z``), ``kubectl logs --prefix`` (kubectl pkg/cmd/logs/
# logs.go: ``[pod/NAME/CONTAINER]``), journald's and syslog's short form (``May 01 12:00:00
# host python3[1234]:``, the pid kept, so that a line's own ``Averaged stats:`` is none; the
# clock alone: moreutils' ``ts``, its default ``%b %d %H:%M:%S``)
# and RFC 5424's (``<14>1 TIME HOST APP PID MSGID -``), a Ray worker's process
# (ray/_private/worker.py print_worker_logs: ``(RayTrainWorker pid=1234, ip=10.0.0.1)``,
# coloured; not SkyPilot's, which names the rank: launcher_ranks.line_rank reads
# it), a log viewer's clock (``[12:00:01] ``; Jenkins' Timestamper, jenkinsci/timestamper-plugin
# README.md: ``21:51:15  Started by user``, the second blank kept as the line's own). A prefix
# read as part of the line would be a table row's first cell (a header row over value rows no
# longer lines up: skorch's, YOLO's) or a value.
# Each with the one blank after it (the program's own indentation, a table's alignment,
# stays). Tried only on a line that opens as one of them does (may_be_collected).
_COLLECTOR = re.compile(
    r"^\s*(?:(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\[pod/[^\]\s]+\]"
    r"|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?: \S+ [^\s:\[]+\[\d+\]:)?"
    r"|<\d{1,3}>\d (?:\S+ ){5}(?:-|\[[^\]]*\])"
    r"|\((?![^()]*\brank=)[^()]*?\bpid=\d+(?:, ip=[^()]*)?\)"
    r"|\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?)[ \t])+")


def strip_paste(text: str) -> str:
    """The line without the artefacts of pasting it (colours, quoting, borders, numbers).

    Example:
        >>> strip_paste("> > 12 | loss: nan"), strip_paste("│ step 3 loss 0.5 │")
        ('loss: nan', 'step 3 loss 0.5')
        >>> strip_paste("┃ Step ┃ Train Loss ┃"), strip_paste("│ 100  │ nan        │")
        ('Step | Train Loss', '100  | nan')
        >>> strip_paste("[pod/llm-0/pytorch] 2024-05-01T12:00:00.1Z      1  2.3010  2.2860")
        '     1  2.3010  2.2860'
        >>> strip_paste("(RayTrainWorker pid=1234, ip=10.0.0.1) iter 3: loss nan")
        'iter 3: loss nan'
        >>> strip_paste("{&#39;loss&#39;: nan}"), strip_paste("step\u00a03 loss\u00a0nan")
        ("{'loss': nan}", 'step 3 loss nan')
    """
    if text[-2:] in _NOTEBOOK_ENDS:
        text = _notebook_string(text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if not text.isascii():
        text = text.translate(_WEB_SPACES)
        if "\u2013" in text:
            text = _EN_DASH.sub("-", text)
    if "&" in text:
        text = html.unescape(text)
    if text[:1] == "[" and "||" in text:
        text = _without_task_log_head(text)
    head = text.lstrip()[:5]  # looked at twice: found once unless the text changes between
    first = head[:1]
    if first != "{" and may_be_collected(head) and (
            printed := as_printed(text)) is not None:  # (DeepSpeed's, HF's lines told inline)
        text = printed
        first = text[:1]
    if first == ">":
        text = _QUOTED.sub("", text)
        first = text.lstrip()[:1]
    bordered = False  # a drawn table's row: its first cell is no editor's line number
    if _BOX[0] in text or _BOX[1] in text or _BOX[2] in text:
        bordered = first in _BOX
        # the rules between a drawn table's cells as the pipes a Markdown table parts them by
        text = _BORDER.sub("", text).translate(_RULES)
        first = text.lstrip()[:1]
    if first.isdigit() and not bordered and (found := _NUMBERED.match(text)):
        text = text[found.end():]
    return text


# A notebook's output pasted as the ``.ipynb`` file holds it (nbformat: a stream output's
# ``"text": [...]``, one JSON string for each line, ``"epoch 1 loss nan\\n",``): each string
# read as the line it holds (its escapes, ANSI colours as ``\\u001b``, turned back). Told by
# how the line ends (the last string of a list has no comma).
_NOTEBOOK_ENDS = ('",', 'n"')
_NOTEBOOK_STRING = re.compile(r'\s*("(?:[^"\\]|\\.)*\\n")\s*,?')


def _notebook_string(text: str) -> str:
    """The line a notebook's JSON string holds, else ``text`` itself.

    Example:
        >>> _notebook_string('     "iter 3: loss nan, time 35.21ms\\\\n",')
        'iter 3: loss nan, time 35.21ms'
        >>> _notebook_string('loss="nan",')
        'loss="nan",'
    """
    found = _NOTEBOOK_STRING.fullmatch(text)
    if found is None:
        return text
    try:
        line: str = json.loads(found[1])
    except ValueError:
        return text
    return line.rstrip("\n")


# Determined's task logs as its master hands them on (``det trial logs``, the web UI's
# download: determined-ai/determined master/pkg/model/task.go ``TaskLog.Message``): the time,
# the container's first eight characters (blanks where none), ``[rank=N]`` where the worker
# printed it through wrap_rank.py, ``||`` and the level, joined by blanks:
# ``[2024-05-01T10:00:00.123456Z] f6114bb3 [rank=1] || INFO: ...``.
_TASK_LOG_HEAD = re.compile(r"\[\d{4}-\d\d-\d\dT[^\]\s]*\] +(?:[^\s\[|]{1,8} +)?"
                            r"(?P<rank>\[rank=\d+\] )?\|\| (?:[A-Z]+: )?")


def _without_task_log_head(text: str) -> str:
    """``text`` without a Determined task log's head, its rank kept as wrap_rank.py wrote it
    (launcher_ranks reads it), else ``text`` itself.

    Example:
        >>> _without_task_log_head("[2024-05-01T10:00:00.123456Z] f6114bb3 [rank=1] || INFO: x")
        '[rank=1] x'
        >>> _without_task_log_head("[2024-05-01T10:00:00.123456Z]          || INFO: x")
        'x'
    """
    found = _TASK_LOG_HEAD.match(text)
    return (found["rank"] or "") + text[found.end():] if found else text


# A Kubeflow PyTorchJob's pods, named ``{job}-{master|worker}-{index}`` with the container
# ``pytorch`` (kubeflow/training-operator pkg/controller.v1/pytorch/envvar.go genGeneralName
# and setPodEnv: RANK is the master's index, a worker's index + 1), as ``kubectl logs
# --prefix`` names them: the rank is the pod's (the node's, where torchrun starts several
# processes in it), read as a launcher's prefix would give it.
_REPLICA = re.compile(r"\[pod/[^\]\s]*-(master|worker)-(\d{1,5})/[^\]\s/]+\]")


def _replica_rank(collected: str) -> str:
    """The rank a Kubeflow replica's pod name in a collector's prefix gives, as the prefix
    launcher_ranks reads (``[rank1]:``), else nothing.

    Example:
        >>> _replica_rank("[pod/gpt-worker-2/pytorch] "), _replica_rank("[pod/llm-0/main] ")
        ('[rank3]:', '')
    """
    found = _REPLICA.search(collected) if "/" in collected else None
    if found is None:
        return ""
    return f"[rank{int(found[2]) + (found[1] == 'worker')}]:"


def as_printed(text: str) -> str | None:
    """``text`` without a collector's prefix, the rank a Kubeflow replica's pod name in it
    gives put before it (as launcher_ranks reads it), where ``text`` opens with one; else
    None. Called where ``may_be_collected`` said it may.

    Example:
        >>> as_printed("[pod/gpt-worker-2/pytorch] 2024-05-01T12:00:00.1Z loss nan")
        '[rank3]:loss nan'
        >>> as_printed("Jun 01 10:00:00 step 3 loss nan"), as_printed("step 3 loss nan")
        ('step 3 loss nan', None)
    """
    found = _COLLECTOR.match(text)
    if found is None:
        return None
    collected, text = text[:found.end()], text[found.end():]
    if text[:1] != "[" and "-" in collected:  # (a launcher's own rank prefix comes first)
        return _replica_rank(collected) + text
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
        >>> may_be_collected("[12:0"), may_be_collected("12:00")
        (True, True)
    """
    first = head[:1]
    if first.isdigit():
        return head[4:5] == "-" or head[2:3] == ":"  # 2024-05-01T..., 12:00:01
    if first == "[":
        return head == "[pod/" or head[3:4] == ":"  # [12:00:01]
    if first in _OPENERS:
        return True  # ``(`` a Ray worker's process, ``<`` syslog's priority
    return first.isupper() and head[3:4] == " "  # May 01 ...


# A whole log pasted as one line of escapes: the JSON string of a notebook cell's output or
# of an API's response, a Python repr of the captured output (``'Epoch 1 ...\nEpoch 2 ...'``).
# Read as the lines it escapes where the text has at most this many lines of its own and
# ESCAPED_MIN escaped newlines, more than ESCAPED_RATIO for each line of its own (a log with
# an escaped newline inside a message here and there is left as it is).
ESCAPED_MAX_LINES = 3
ESCAPED_MIN = 8
ESCAPED_RATIO = 4
ESCAPED_BYTES = 16 << 20  # a larger input is no paste
ESCAPED_HEAD = 4096  # bytes looked at first (most logs have several newlines there)
# JSON's escapes and Python's: a backslash and its character, ``\xHH``, ``\uHHHH``.
_ESCAPE = re.compile(rb"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))", re.DOTALL)
_ESCAPED = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"f": b"\f", b"b": b"\b", b"0": b"\0",
            b"/": b"/"}


def may_be_escaped(head: bytes) -> bool:
    """Whether the first bytes of an input may open a log pasted as one line of escapes (an
    escaped newline, at most one line of its own): then the whole input is looked at
    (:func:`unescaped_log`).

    Example:
        >>> may_be_escaped(b"'step 1 loss 2.3\\\\nstep 2 loss nan\\\\n'"), may_be_escaped(b"a\\nb")
        (True, False)
    """
    return b"\\n" in head and head.count(b"\n") <= 1


def unescaped_log(data: bytes) -> bytes | None:
    """The lines a log pasted as one line of escapes holds, or None for any other input.

    Example:
        >>> unescaped_log(b"'" + b"\\\\n".join(b"step %d" % i for i in range(9)) + b"'")
        b"'step 0\\nstep 1\\nstep 2\\nstep 3\\nstep 4\\nstep 5\\nstep 6\\nstep 7\\nstep 8'"
        >>> unescaped_log(b"step 1 loss 2.3\\nmsg: a\\\\nb\\n") is None
        True
    """
    lines = data.count(b"\n")
    escaped = data.count(b"\\n")
    if lines > ESCAPED_MAX_LINES or escaped < ESCAPED_MIN or escaped <= ESCAPED_RATIO * lines:
        return None
    return _ESCAPE.sub(_unescape, data)


def _unescape(found: re.Match[bytes]) -> bytes:
    """What one escape stands for (an unknown escape stays as it was)."""
    hex2, hex4, char = found.groups()
    if hex2 is not None or hex4 is not None:
        return chr(int(hex2 or hex4, 16)).encode("utf-8", "replace")
    return _ESCAPED.get(char, char if char in (b"\\", b"'", b'"') else found.group(0))


def _as_windows_1252(error: UnicodeError) -> tuple[str, int]:
    """The bytes that are no UTF-8 read as Windows-1252 (what a paste saved by a Windows editor
    as "ANSI" holds: a page's no-break spaces as ``\\xa0``, ``±`` as ``\\xb1``, ``µs`` as
    ``\\xb5s``); the rest of the line stays UTF-8. A no-break space then reads as the blank it
    stands for (paste.strip_paste), not as a replacement character that joins two fields.

    Example:
        >>> b"step\\xa03 loss\\xa0nan \\xe2\\x96\\x88".decode("utf-8", errors=WINDOWS_1252)
        'step\\xa03 loss\\xa0nan \u2588'
    """
    assert isinstance(error, UnicodeDecodeError)
    bad = error.object[error.start:error.end]
    return bytes(bad).decode("cp1252", errors="replace"), error.end


# The characters above as the bytes of their UTF-8, for a whole paste read at once (the lines
# around a line, a table's header, are read as the program printed them too): each with the
# ASCII it stands for. Looked for where the head holds one of WEB_LEADS (an ASCII head holds
# none: most logs are told by ``bytes.isascii``).
_WEB_BYTES = tuple((web.encode(), plain.encode()) for web, plain in _WEB_PLAIN.items())
WEB_LEADS = (b"\xc2\xa0", b"\xe2\x80", b"\xe2\x81", b"\xe2\x88\x92", b"\xef\xbb\xbf",
             b"\xef\xbc")
# HTML's character references for what a page's source or an API's escaped text escapes (the
# quotes of ``{&#39;loss&#39;: nan}``, the ``&gt;`` of a quoted reply), read in one pass (an
# ``&amp;gt;`` is the text ``&gt;``).
_ENTITIES = {b"#39": b"'", b"#x27": b"'", b"quot": b'"', b"#34": b'"', b"gt": b">", b"lt": b"<",
             b"amp": b"&", b"nbsp": b" ", b"#160": b" "}
_ENTITY = re.compile(rb"&(#39|#x27|quot|#34|gt|lt|amp|nbsp|#160);")
_EN_DASH_BYTES = re.compile(rb"(?:^|(?<=[\s(\[=:,;])|(?<=\d[eE]))\xe2\x80\x93(?=\.?\d)",
                            re.MULTILINE)


def may_be_webbed(head: bytes) -> bool:
    """Whether the first bytes of an input hold a character a web page, a chat tool or an
    editor turns a log's own into (a no-break space, a curly quote, a zero-width space, a
    minus sign, a full-width digit, an HTML character reference): then the whole input is looked at
    (:func:`plain_characters`).

    Example:
        >>> may_be_webbed("step\u00a03 loss nan".encode()), may_be_webbed(b"step 3 loss nan")
        (True, False)
        >>> may_be_webbed(b"{&#39;loss&#39;: nan}"), may_be_webbed(b"a & b")
        (True, False)
    """
    if b"&" in head and _ENTITY.search(head) is not None:
        return True
    return not head.isascii() and any(lead in head for lead in WEB_LEADS)


def plain_characters(data: bytes) -> bytes | None:
    """``data`` with those characters as the ASCII they stand for, where it holds any; else
    None.

    Example:
        >>> plain_characters("{\u2018loss\u2019:\u00a0\u22121.5e\u201305}".encode())
        b"{'loss': -1.5e-05}"
        >>> plain_characters(b"&gt; {&#39;loss&#39;: nan} &amp;gt;")
        b"> {'loss': nan} &gt;"
        >>> plain_characters("epoch 1\u20133 \u00e9t\u00e9".encode()) is None
        True
    """
    plain = _ENTITY.sub(_entity, data) if b"&" in data else data
    for web, ascii_form in _WEB_BYTES:
        if web in plain:
            plain = plain.replace(web, ascii_form)
    if b"\xe2\x80\x93" in plain:
        plain = _EN_DASH_BYTES.sub(b"-", plain)
    return None if plain == data else plain


def _entity(found: re.Match[bytes]) -> bytes:
    """What one character reference stands for."""
    return _ENTITIES[found[1]]


# A line a person put where they cut a paste (``...``, ``[... 300 lines omitted ...]``,
# ``<truncated 2000 lines>``, ``(12 more lines)``) or a CI runner's fold around a step's output
# (GitHub Actions' ``##[group]Run python train.py`` and ``##[endgroup]``): no line of the log.
_ELISION = re.compile(
    rb"[ \t]*(?:(?:\.{3,}|\xe2\x80\xa6)[ \t]*"
    rb"|[\[(<][^\]\)>\n]{0,40}?(?:\b(?:omitted|truncated|snipped|elided|trimmed)\b"
    rb"|\b\d[\d,]* (?:more )?lines\b|\.{3}|\xe2\x80\xa6)[^\]\)>\n]{0,40}[\])>][ \t]*"
    rb"|##\[(?:end)?group\][^\n]*)\r?")


def is_elision(line: bytes) -> bool:
    """Whether ``line`` (without its break) only marks where a paste was cut, or folds a CI
    step's output: a margin every other line opens with is no margin it lacks.

    Example:
        >>> [is_elision(line) for line in (b"...", b"[... 300 lines omitted ...]",
        ...  b"<truncated 2000 lines>", b"##[group]Run python train.py", b"##[endgroup]")]
        [True, True, True, True, True]
        >>> is_elision(b"[step 3] loss nan ..."), is_elision(b"(skipped 3 steps)")
        (False, False)
    """
    return _ELISION.fullmatch(line) is not None


WINDOWS_1252 = "denpex-windows-1252"
codecs.register_error(WINDOWS_1252, _as_windows_1252)
