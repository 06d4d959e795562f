"""An epoch's length said once, on a line of its own, before training starts: read from the
log's head, not from the prefilter's lines (the line holds no keyword, and the keyword budget
guards the speed on large logs; the head is a few KB however large the log).

A script's set-up print, Ctdunn/td3-hybrid ``train_world_model.py``: ``f"Number of batches
per epoch: {len(dataloader)}"``; the rows after it count the batches within each epoch
(``Epoch 3, Batch 30, Loss: ...``), printed every N batches, so the rows alone tell the length
only to within an interval. (13061051/TGCE_2021 ``train_gnn.py`` declares its length under its
own variable's name, ``380  is batch_train_num``: one script's name, not read; its rows are not
read as an epoch and a batch either, a strict xfail in tests/logs/test_sample28_formats.py.)
"""

from __future__ import annotations

import re

HEAD_BYTES = 8192  # the head looked at: set-up prints stand in a log's first lines
# ``Number of batches per epoch: 57``, ``Batches per epoch = 57``, ``Steps per epoch: 57``,
# each a line of its own: a line that says more (a row, a table) is not a declaration.
_DECLARED = re.compile(
    rb"(?m)^[ \t]*(?:(?:[Nn]umber of |[Nn]um )?(?:[Bb]atche|[Ss]tep|[Ii]teration)s per epoch"
    rb"[ \t]*[:=][ \t]*(\d{1,9}))[ \t]*\r?$")


def declared_epoch_length(head: bytes) -> int:
    """The batches an epoch holds as a log's head declares them on a line of their own, or 0.

    Example:
        >>> declared_epoch_length(b"Using device: cuda\\nNumber of batches per epoch: 57\\n")
        57
        >>> declared_epoch_length(b"Epoch 3, steps per epoch: 57, loss: 0.1\\n")
        0
    """
    if b"per epoch" not in head:  # (cheap: most heads)
        return 0
    found = _DECLARED.search(head)
    if found is None:
        return 0
    return int(found.group(1))
