"""A sentence that an epoch ended, of how many, with no metric: which epoch the bar above it
was.

junyanz/pytorch-CycleGAN-and-pix2pix ``train.py`` prints ``'End of epoch %d / %d \\t Time
Taken: %d sec' % (epoch, opt.n_epochs + opt.n_epochs_decay, ...)`` after each epoch (epochs
from ``opt.epoch_count``, 1 by default), and the many loops copied from it print the same
under a tqdm bar that restarts each epoch (Aavache/CAESynth ``train_vocoder.py``). A paste
from the middle counts the bars from its own first; the sentence says how many epochs ended
there. It holds no keyword: the reader hands it over as the line just above the next bar.
"""

from __future__ import annotations

import re

_ENDED = r"End of epoch (\d{1,7}) / \d{1,7}\b"
_ENDED_TEXT = re.compile(_ENDED)
_ENDED_BYTES = re.compile(_ENDED.encode())


def ends_epoch(line: bytes) -> bool:
    """Whether a line that holds no keyword says an epoch of how many ended (cheap first).

    Example:
        >>> ends_epoch(b"End of epoch 4 / 8 \\t Time Taken: 25 sec"), ends_epoch(b"End of epoch")
        (True, False)
    """
    return b"nd of epoch " in line and _ENDED_BYTES.search(line) is not None


def ended_epoch(text: str) -> int | None:
    """The epoch ``text`` says ended (as printed), or None.

    Example:
        >>> ended_epoch("End of epoch 4 / 8 \\t Time Taken: 25 sec"), ended_epoch("epoch 4")
        (4, None)
    """
    if "nd of epoch " not in text:  # (cheap: most lines)
        return None
    found = _ENDED_TEXT.search(text)
    return int(found.group(1)) if found is not None else None
