"""Lines tagged as the best so far: ``[BEST] loss=4.6750``.

A loop that keeps its best checkpoint often says so on a line of its own, tagged by a
bracketed word before everything else (0xbyteptr/shinrai ``train_gpt.py``: ``print(f"[BEST]
loss={best_loss:.4f}")`` after the epoch's ``Epoch 3/20 | Avg Loss: ...``). Its values are the
extreme seen so far, printed only when the epoch improved on it: read as a loss, they are a
second loss stream that interleaves with the epoch's and turns the epochs into log rows. What
:func:`lexicon.extreme_or_bound` says of ``best loss: 4.67``, said of a line whose bracketed
tag is the extreme word.
"""

from __future__ import annotations

import re

# The tag: a bracket, angle or parenthesis around one extreme word (any case), first on the
# line (a level or a time before it may not: the tag is the line's own, not the logger's).
_TAG = re.compile(r"[ \t]*[\[(<][ \t]*(?i:best|lowest|min|minimum)[ \t]*[\])>]")


def best_tag_end(text: str) -> int | None:
    """Where a line's bracketed best-so-far tag ends, or None where the line opens with
    none; every value after it is the best so far's.

    Example:
        >>> best_tag_end("[BEST] loss=4.6750"), best_tag_end("(best) val_loss: 0.31")
        (6, 6)
        >>> best_tag_end("[INFO] loss=4.6750"), best_tag_end("loss [best] 4.2")
        (None, None)
    """
    first = text[:1]
    if not first or (first not in "[(<" and (first not in " \t"
                                             or text.lstrip(" \t")[:1] not in "[(<")):
        return None  # the cheap check first: most lines open with no bracket (or blank)
    found = _TAG.match(text)
    return None if found is None else found.end()
