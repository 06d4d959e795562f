"""A sentence that an epoch ended, of how many, with no metric: which epoch the bar above it
was.

junyanz/pytorch-CycleGAN-and-pix2pix ``train.py`` prints ``'End of epoch %d / %d \\t Time
Taken: %d sec' % (epoch, opt.n_epochs + opt.n_epochs_decay, ...)`` after each epoch (epochs
from ``opt.epoch_count``, 1 by default), and the many loops copied from it print the same
under a tqdm bar that restarts each epoch (Aavache/CAESynth ``train_vocoder.py``). A paste
from the middle counts the bars from its own first; the sentence says how many epochs ended
there. It holds no keyword: the reader hands it over as the line just above the next bar.

An epoch's log printed one key a row after its batches says the same: victoresque/
pytorch-template's ``base/base_trainer.py`` and the many trainers built on it (R2Gen's and
its report generators' ``modules/trainer.py``: ``print('\\t{:15s}: {}'.format(str(key),
value))`` for each key of ``{'epoch': epoch, 'train_loss': ..., 'val_...': ...}``) pad each
key into a column, the epoch's row first. Its batch rows (``480/2300 loss: ...``) print no
epoch, so an excerpt from the middle counts its first pass as the run's first; the row says
which epoch just ended. A heading (``Epoch: 3`` over the epoch's rows) pads no column.
"""

from __future__ import annotations

import re

_ENDED = r"End of epoch (\d{1,7}) / \d{1,7}\b"
_ENDED_TEXT = re.compile(_ENDED)
_ENDED_BYTES = re.compile(_ENDED.encode())
# the epoch's row of a log printed a key a row, the key padded into a column (``{:15s}``: at
# least 4 blanks before the colon), the whole epoch alone after it
_COLUMN = r"(?:^|\s)epoch {4,}: (\d{1,7})\s*$"
_COLUMN_TEXT = re.compile(_COLUMN)
_COLUMN_BYTES = re.compile(_COLUMN.encode())


def ends_epoch(line: bytes) -> bool:
    """Whether a line that holds no keyword says an epoch of how many ended (cheap first).

    Example:
        >>> ends_epoch(b"End of epoch 4 / 8 \\t Time Taken: 25 sec"), ends_epoch(b"End of epoch")
        (True, False)
        >>> ends_epoch(b"\\tepoch          : 2"), ends_epoch(b"Epoch: 2")
        (True, False)
    """
    return (b"nd of epoch " in line and _ENDED_BYTES.search(line) is not None) or (
        b"epoch    " in line and _COLUMN_BYTES.search(line) is not None)


def ended_epoch(text: str) -> int | None:
    """The epoch ``text`` says ended (as printed), or None.

    Example:
        >>> ended_epoch("End of epoch 4 / 8 \\t Time Taken: 25 sec"), ended_epoch("epoch 4")
        (4, None)
    """
    # (cheap first: most lines)
    return _epoch(_ENDED_TEXT.search(text)) if "nd of epoch " in text else None


def summary_epoch(text: str) -> int | None:
    """The epoch of a log's row printed a key a row, the key padded into a column
    (``\\tepoch          : 2``, pytorch-template's ``'{:15s}: {}'``), or None: the epoch
    that just ended where batch rows came before it.

    Example:
        >>> summary_epoch("\\tepoch          : 2"), summary_epoch("INFO -     epoch    : 14")
        (2, 14)
        >>> summary_epoch("Epoch: 3"), summary_epoch("epoch          : 2.5")
        (None, None)
    """
    return _epoch(_COLUMN_TEXT.search(text)) if "epoch    " in text else None  # (cheap first)


def _epoch(found: re.Match[str] | None) -> int | None:
    """The epoch a pattern's first group read, or None where it matched nothing."""
    return int(found.group(1)) if found is not None else None
