"""Whether a bar's ``Epoch E:`` label counts from 0 or from 1, as the log itself says.

A bar labelled ``Epoch E:`` is Lightning's TQDM bar by default, its epochs from 0. A loop of
its own that draws ``tqdm(loader, desc=f"Epoch {epoch}")`` and then logs the epoch's summary
as a count of how many, ``Epoch {epoch}/{epochs} | loss=...`` (1234quan1234/
Computer_Vision_Project ``engine/trainer.py`` under ``scripts/train.py``'s logger), prints the
same number twice: the label is the loop's own count of epochs, numbered as the reader numbers
every ``Epoch E/N`` (from 1, unless an epoch 0 was seen). Nothing else is taken from the
summary line: the bars still number the rows.
"""

from __future__ import annotations

import re

# The epoch's own count of how many, then no bar: not a TQDM bar (``%|`` after it) nor a Rich
# one (``Epoch 1/9  ━━━━ 4/10``: its next field a count of how many).
_OF_HOW_MANY = re.compile(r"\b[Ee]poch:?\s+(\d+)/\d+\b(?![^|]*%\|)(?!\s+\S*\s*\d+/\d+)")


def repeats_epoch(text: str, epoch: int) -> bool:
    """Whether ``text`` (a line that is no bar) prints ``epoch`` as an epoch of how many: the
    summary of the epoch a bar labelled ``Epoch {epoch}:`` drew.

    Example:
        >>> repeats_epoch("2026-03-01 10:01:41,220 | INFO | Epoch 1/4 | loss=5.6995", 1)
        True
        >>> repeats_epoch("Epoch 1/4 | loss=5.6995", 2), repeats_epoch("Epoch 1/9  ━━ 4/10", 1)
        (False, False)
        >>> repeats_epoch("Epoch 1:  40%|####      | 4/10 [00:01<00:01, loss=0.5]", 1)
        False
    """
    if "poch" not in text or "/" not in text:  # (cheap: most lines print neither)
        return False
    found = _OF_HOW_MANY.search(text)
    return found is not None and int(found.group(1)) == epoch
