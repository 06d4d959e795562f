"""What pasting a log adds to its lines, taken off before they are read.

Markdown quoting on every line (``> ``, nested), tmux or box-drawing borders (``│ ... │``)
and editor line numbers (``12 | ...``). Terminal escape sequences (colours) go too.
"""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_QUOTED = re.compile(r"^\s*(?:>\s?)+")
_BORDER = re.compile(r"^\s*[│┃║]\s?|\s*[│┃║]\s*$")
_NUMBERED = re.compile(r"^\s*\d{1,7}\s*[│|]\s")
_BOX = ("│", "┃", "║")


def strip_paste(text: str) -> str:
    """The line without the artefacts of pasting it (colours, quoting, borders, numbers).

    Example:
        >>> strip_paste("> > 12 | loss: nan"), strip_paste("│ step 3 loss 0.5 │")
        ('loss: nan', 'step 3 loss 0.5')
    """
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    first = text.lstrip()[:1]  # looked at twice: found once unless the text changes between
    if first == ">":
        text = _QUOTED.sub("", text)
        first = text.lstrip()[:1]
    if _BOX[0] in text or _BOX[1] in text or _BOX[2] in text:
        text = _BORDER.sub("", text)
        first = text.lstrip()[:1]
    if first.isdigit() and (found := _NUMBERED.match(text)):
        text = text[found.end():]
    return text
