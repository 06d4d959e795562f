"""A progress bar whose description names a held-out split: the evaluation pass's bar.

A loop's own tqdm bars label each pass (``tqdm(val_data, desc=f"Validation Epoch {e}")``
beside ``desc=f"Training Epoch {e}"``; ``desc=f"Valid Epoch {e + 1}"`` beside ``desc=f"Epoch
{e + 1}/{n}"``): ``Validation Epoch 3: 100%|...| 30/30 [..., loss=nan]``. The bar pattern finds
``Epoch 3:`` in it as in a training bar; the word before it says the pass is evaluation's,
its ``loss=`` the held-out loss and its count the evaluation's batches, no training step.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs import lexicon

# How far before the bar's ``Epoch`` its description's split word may stand (a bracket, a
# colon or a dash between: ``[Val] Epoch``, ``Eval - Epoch``): one word, not the line's.
_REACH = 16
# The description's last word before ``Epoch``, closing what it may be wrapped in.
_LAST_WORD = re.compile(r"([A-Za-z]+)[\]):\s-]{1,4}$")


def _described(text: str, label: int) -> str | None:
    """The word right before the ``Epoch`` label at ``label`` (lower-cased), or None."""
    if label <= 0:
        return None
    found = _LAST_WORD.search(text, max(0, label - _REACH), label)
    return None if found is None else found.group(1).lower()


def held_out_bar(text: str, label: int) -> bool:
    """Whether the bar whose ``Epoch`` label starts at ``label`` in ``text`` is described as a
    held-out split's pass (its description's word right before the label names one).

    Example:
        >>> line = "Validation Epoch 3: 100%|##| 30/30 [00:03<00:00, 10.00it/s, loss=nan]"
        >>> held_out_bar(line, line.find("Epoch")), held_out_bar("Training Epoch 3: ", 9)
        (True, False)
        >>> held_out_bar("[Val] Epoch 2: ", 6), held_out_bar("Epoch 2: ", 0)
        (True, False)
    """
    word = _described(text, label)
    return word is not None and lexicon.held_out_heading(word)


# A bar's ``Epoch N:`` label, as lightning's bar pattern opens
_LABEL = re.compile(r"Epoch (\d+):\s*\d+%\|")


def training_bar_epoch(text: str) -> int | None:
    """The epoch of a bar described as the training split's pass (``Training Epoch 3: 40%|``),
    or None. Lightning's own bar has no description before ``Epoch``: such a bar is a loop's
    own, labelled as its print counts (``desc=f"Training Epoch {epoch + 1}"``: from 1, unless
    its first bar says ``Epoch 0``).

    Example:
        >>> training_bar_epoch("Training Epoch 1:  40%|####      | 48/120 [00:04<00:07]")
        1
        >>> training_bar_epoch("Epoch 1:  40%|####      | 4/10"), training_bar_epoch("Epoch")
        (None, None)
    """
    at = text.find("Epoch ")
    if at <= 0:
        return None
    found = _LABEL.match(text, at)
    word = _described(text, at)
    if found is None or word is None or not lexicon.training_split(word):
        return None
    return int(found.group(1))
