"""The training phase's word, then the batch of the epoch, opening a row of keyed values:
the NAS family's loops over ``enumerate(train_queue)`` (renqianluo/NAO_pytorch
``NAO_V2/train_cifar.py``: ``logging.info('train %03d loss %e top1 %f top5 %f', step+1,
objs.avg, ...)`` behind ``'%(asctime)s %(message)s'``), each epoch under its own heading
(``epoch %d lr %e``) that the count restarts after.

The count is the batch within the epoch; the reader adds the epochs before it where the count
goes back after a heading (``MetricReader._epoch_count_step``). Only a key right after the
count makes it a row (``train 100 loss 2.3e+00``): a sentence that names a count of things
(``train 5000 images``) is followed by a word that no value follows.
"""

from __future__ import annotations

import re

# ``train 300 loss 2.249833e+00 top1 ...``: the word opens the message (the line's start, or
# after a blank: a logger's date), the count, a key and its number.
_PHASE_COUNT = re.compile(r"(?:^|(?<= ))(?:[Tt]rain|TRAIN|[Tt]raining) (\d{1,9}) +[A-Za-z_]\w*"
                          r"[:=]? +[-+]?(?:\d|nan|inf)")


def phase_count(text: str) -> int | None:
    """The batch count that follows the training phase's word opening a row of keyed values,
    or None.

    Example:
        >>> phase_count("03/14 01:00:49 PM train 300 loss 2.249833e+00 top1 33.000000")
        300
        >>> phase_count("train 5000 images from the pool"), phase_count("train_acc 40.000000")
        (None, None)
    """
    if "rain" not in text:  # (cheap: most rows)
        return None
    found = _PHASE_COUNT.search(text)
    return int(found.group(1)) if found is not None else None
