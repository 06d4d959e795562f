"""An epoch's sums under the splits' names alone, below a bar an epoch that prints no value.

A plain loop may draw one tqdm bar an epoch with no postfix (``tqdm(dataloader,
unit="batch")`` and ``set_description(f"Epoch: {epoch+1}/{N_EPOCHS}")``) and print the
epoch's losses after it under the names of the splits alone: 8DM20-group6/
ProstateSegmentation ``train_vae.py``, ``f"Train: {current_train_loss:.4f} | Validation:
{current_valid_loss:.4f}"``. Nothing on the line says ``loss``; the training split's name
keys the training loss, the held-out split's the evaluation's, and the bar just above says
how many batches the run has done (its epoch of how many, counted from 1, times its total,
plus its count): the step of both.

A line is one only right below such a bar's state and only when every value on it is printed
with a decimal point (or is a NaN or an infinity): a split's sizes (``Train: 3 | Test: 2``)
are counts, no loss.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.metric_pairs import to_value

# A tqdm bar labelled with its epoch of how many, and nothing after its rate: no postfix
# (``Epoch: 38/80: 100%|██████████| 12/12 [00:03<00:00,  3.87batch/s]``). Each part one
# character class, then the anchored end: no backtracking to speak of.
_BAR = re.compile(r"\b[Ee]poch:? ?(\d{1,7})/\d{1,7}:? +\d{1,3}%\|[^|]{0,200}\| *(\d{1,12})/"
                  r"(\d{1,12}) \[[^\]=,]{0,80},[^\]=,]{0,40}/s\]$")
# A split's value as these layouts print it: with a decimal point (a split's size is a count),
# or a NaN or an infinity. The split names, as a split is named alone (epoch_split_rows too).
SPLIT_VALUE = r"(?:-?\d{1,12}\.\d{1,12}(?:[eE][-+]?\d{1,3})?|-?nan|-?inf)"
TRAINING_SPLIT = r"(?:Train|Training|train|training)"
HELD_OUT_SPLIT = r"(?:Validation|Valid|Val|Test|Eval|validation|valid|val|test|eval)"
_NUMBER = "(" + SPLIT_VALUE + ")"
# The training split named alone with its value, then the held-out splits', each alone
# with its own, parted by a bar or a comma.
_SUMS = re.compile(r"\s*" + TRAINING_SPLIT + ":? " + _NUMBER
                   + r"((?: *[|,] *" + HELD_OUT_SPLIT + ":? " + SPLIT_VALUE + r"){1,3})\s*$")
_HELD_OUT = re.compile(r"([A-Za-z]+):? " + _NUMBER)


def postfixless_bar_step(text: str) -> int | None:
    """The run's batches done at a bar's state drawn an epoch without a postfix: the epochs
    before its own (its label counts from 1) times its total, plus its count; else None.

    Example:
        >>> bare = "Epoch: 38/80: 100%|##########| 12/12 [00:03<00:00,  3.87batch/s]"
        >>> with_postfix = "Epoch: 3/8: 100%|###| 12/12 [00:03<00:00,  3.87it/s, loss=0.5]"
        >>> postfixless_bar_step(bare), postfixless_bar_step(with_postfix)
        (456, None)
    """
    found = _BAR.search(text)
    if found is None:
        return None
    epoch, done, total = (int(group) for group in found.groups())
    return None if epoch < 1 or done > total else (epoch - 1) * total + done


def split_sums(text: str) -> tuple[float, list[tuple[str, float]]] | None:
    """The training split's value and the held-out splits' (name, value) of a line that
    holds only those, each printed with a decimal point; else None.

    Example:
        >>> split_sums("Train: nan | Validation: 140.5000")
        (nan, [('Validation', 140.5)])
        >>> split_sums("Train: 3 | Test: 2") is None
        True
    """
    found = _SUMS.match(text)  # blanks around the line: the pattern's own ``\s*`` ends
    if found is None:
        return None
    held_out = [(name, to_value(value)) for name, value in _HELD_OUT.findall(found.group(2))]
    return to_value(found.group(1)), held_out
