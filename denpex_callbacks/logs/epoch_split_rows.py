"""An epoch's row that names its losses by the splits alone, after the epoch's count.

A plain loop may print one row an epoch that opens with the epoch of how many and gives each
split's loss under the split's name alone, its accuracy slashed after it:
2Ahmedsquared2/Multi-Modal_Recognition ``train_audio.py``, ``f"Epoch {epoch:>3}/{args.epochs}
| Train: {train_loss:.4f} / {train_acc*100:>5.1f}% | Val: {val_loss:.4f} / {val_acc*100:>5.1f}%
| LR: {current_lr:.6f} | {epoch_time:.2f}s"``. Nothing on the row says ``loss``; the training
split's name keys the training loss, the held-out split's the evaluation's, and the row's
epoch (printed whole, counted from 1) is its step: the log prints only epochs.

A row is one only where it opens with ``Epoch N/M``, the training split comes right after,
a held-out split right after that, each value printed with a decimal point (or a NaN or an
infinity), an accuracy after a value only as a percentage: ``Train: 3 | Test: 2`` (a split's
sizes) is none, nor ``Train: 0.5 | LR: 0.1`` (no held-out split).
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.epoch_sums import HELD_OUT_SPLIT, SPLIT_VALUE, TRAINING_SPLIT
from denpex_callbacks.logs.metric_pairs import to_value

_VALUE = "(" + SPLIT_VALUE + ")"
# A split's accuracy slashed after its loss, as a percentage (``/  85.0%``).
_RATE = r"(?: {0,3}/ {0,3}\d{1,3}(?:\.\d{1,6})?%)?"
_PART = r" {0,3}[|,] {0,3}"
# Each part one character class or a bounded count of one: no backtracking to speak of.
_ROW = re.compile(r"\s{0,8}[Ee]poch:? {1,8}(\d{1,7})/\d{1,7}" + _PART
                  + TRAINING_SPLIT + ":? " + _VALUE + _RATE + _PART
                  + "(" + HELD_OUT_SPLIT + "):? " + _VALUE + _RATE
                  + r"(?:" + _PART + r"[^\r\n]{0,200})?")


def epoch_split_row(text: str) -> tuple[int, float, tuple[str, float]] | None:
    """The epoch, the training split's value and the held-out split's (name, value) of an
    epoch's row that names its losses by the splits alone; else None.

    Example:
        >>> epoch_split_row("Epoch  23/60 | Train: nan /  16.7% | Val: 0.3456 /  80.0% | "
        ...                 "LR: 0.005000 | 1.42s")
        (23, nan, ('Val', 0.3456))
        >>> epoch_split_row("Epoch 2/9 | Train: 3 | Test: 2") is None
        True
    """
    found = _ROW.fullmatch(text)
    if found is None:
        return None
    epoch, trained, split, held_out = found.groups()
    return int(epoch), to_value(trained), (split, to_value(held_out))
