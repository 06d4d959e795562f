"""An epoch and the batch of that epoch in two layouts that name each count with a word of
its own, the epoch's length printed nowhere: the counter of the batches restarts with each
epoch, and :class:`~denpex_callbacks.logs.step_layouts.EpochBatches` learns the length from
where it restarts (the rows printed every N batches: the epoch holds its last row's count and
the interval after it where the count starts from 0).

- Each count before its own word (13061051/TGCE_2021 ``train_gnn.py``: ``print(
  time_now_str() + ': ' + str(epoch) + ' epoch ' + str(i) + ' index,loss: ', loss.item())``,
  ``2 epoch 300 index,loss:  0.41``): the epoch's number, the word ``epoch``, the batch's
  number and a word that names a batch's counter (``index``, ``iter``, ``batch``, ``step``).
- One bracket that keys both, the epoch first (010404/SS-pytorch-mine ``training.py``:
  ``'[epoch: %d,idex: %2d] loss:%.3f' % (epoch + 1, batch_idx + 1, ...)``): the second key
  is any word (``idex`` is a typo of ``index``), the bracket holding nothing else.
"""

from __future__ import annotations

import re

# ``2 epoch 300 index,loss:``: a count, ``epoch``, a count, a counter's word; anchored by the
# word ``epoch`` between two bare numbers, which a sentence rarely prints.
_COUNTS_BEFORE_WORDS = re.compile(
    r"(?:^|(?<=[\s:]))(\d{1,6}) [Ee]poch,? (\d{1,9}) (?:index|idx|iter|iteration|batch|step)\b")
# ``[epoch: 4,idex: 200]``: one bracket, the epoch keyed first, one more keyed count.
_BRACKET_OF_KEYS = re.compile(r"\[[Ee]poch:? *(\d{1,6}) *, *[A-Za-z_]{2,12}:? *(\d{1,9}) *\]")


def epoch_pair(text: str) -> tuple[int, int] | None:
    """The epoch and the batch within it that a training row prints in one of this module's
    layouts, or None.

    Example:
        >>> epoch_pair("2021-06-01 10:00:00: 2 epoch 300 index,loss:  0.41")
        (2, 300)
        >>> epoch_pair("[epoch: 4,idex: 200] loss:0.412")
        (4, 200)
        >>> epoch_pair("best epoch 3 loss 0.2"), epoch_pair("[epoch: 4] loss: 0.4")
        (None, None)
    """
    if "poch" not in text:  # (cheap: most rows)
        return None
    found = None
    if "[" in text:
        found = _BRACKET_OF_KEYS.search(text)
    if found is None and "poch " in text:
        found = _COUNTS_BEFORE_WORDS.search(text)
    if found is None:
        return None
    return int(found.group(1)), int(found.group(2))
