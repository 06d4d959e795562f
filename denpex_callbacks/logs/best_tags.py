"""Lines tagged as the best so far: ``[BEST] loss=4.6750``.

A loop that keeps its best checkpoint often says so on a line of its own, tagged by a
bracketed word before everything else (0xbyteptr/shinrai ``train_gpt.py``: ``print(f"[BEST]
loss={best_loss:.4f}")`` after the epoch's ``Epoch 3/20 | Avg Loss: ...``). Its values are the
extreme seen so far, printed only when the epoch improved on it: read as a loss, they are a
second loss stream that interleaves with the epoch's and turns the epochs into log rows. What
:func:`lexicon.extreme_or_bound` says of ``best loss: 4.67``, said of a line whose bracketed
tag is the extreme word. The tag opens the message, which a logger's prefix may precede (a
seismic CVAE's ``logger.info(f"[BEST] epoch={epoch} val_loss=...")`` under
``logging.Formatter("%(asctime)s | %(message)s")``).
"""

from __future__ import annotations

import re

# The tag: a bracket, angle or parenthesis around one extreme word (any case), first in the
# line's message.
_TAG = re.compile(r"[ \t]*[\[(<][ \t]*(?i:best|lowest|min|minimum)[ \t]*[\])>]")
# A logger's prefix before the message: Python logging's ``%(asctime)s`` (a clock time, a date
# before it, bracketed or not) or ``%(levelname)s`` first, then up to three more such fields
# or a logger's name, each ended by a separator (`` | ``, `` - ``, ``:``, a tab; a space after
# a time or a level). Only a time or a level may open it, so a line's own words before a
# bracket (``loss [best] 4.2``) are no prefix.
_STAMP = r"\[?(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"
_LEVEL = r"\[?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\]?"
_SEPARATOR = r"[ \t]*[|:\t-][ \t]*"
_FIELD = rf"(?:{_STAMP}|{_LEVEL})(?:{_SEPARATOR}|[ \t]+)"
_PREFIX = re.compile(rf"{_FIELD}(?:{_FIELD}|[\w.]+{_SEPARATOR}){{0,3}}(?=[\[(<])")


def best_tag_end(text: str) -> int | None:
    """Where a line's bracketed best-so-far tag ends, or None where its message opens with
    none; every value after it is the best so far's.

    Example:
        >>> best_tag_end("[BEST] loss=4.6750"), best_tag_end("(best) val_loss: 0.31")
        (6, 6)
        >>> best_tag_end("2026-03-01 12:00:37,123 | [BEST] epoch=7 val_loss=941.00")
        32
        >>> best_tag_end("12:00:37 - trainer - INFO - [best] loss: 0.31")
        34
        >>> best_tag_end("[INFO] loss=4.6750"), best_tag_end("loss [best] 4.2")
        (None, None)
        >>> best_tag_end("12:00:37 | loss [best] 4.2") is None
        True
    """
    first = text[:1]
    if first and (first in "[(<" or (first in " \t" and text.lstrip(" \t")[:1] in "[(<")):
        found = _TAG.match(text)
        if found is not None:
            return found.end()
    if not first or first not in "0123456789[DIWEC":
        return None  # the cheap check first: most lines open with no logger's time or level
    prefix = _PREFIX.match(text)
    found = None if prefix is None else _TAG.match(text, prefix.end())
    return None if found is None else found.end()
