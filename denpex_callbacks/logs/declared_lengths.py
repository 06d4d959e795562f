"""An epoch's length said once, on a line of its own, before training starts: read from the
log's head, not from the prefilter's lines (the line holds no keyword, and the keyword budget
guards the speed on large logs; the head is a few KB however large the log).

A script's set-up print, Ctdunn/td3-hybrid ``train_world_model.py``: ``f"Number of batches
per epoch: {len(dataloader)}"``; the rows after it count the batches within each epoch
(``Epoch 3, Batch 30, Loss: ...``), printed every N batches, so the rows alone tell the length
only to within an interval.

A script may print the variable that holds the count beside it instead, in either order
(13061051/TGCE_2021 ``train_gnn.py``: ``print(batch_train_num, " is batch_train_num")``, ``380
is batch_train_num``; ``print("num_batches:", n)``): read where the variable's name says it
counts batches (``batch`` and ``num``, ``count`` or ``len`` in it), and not their size nor an
evaluation's (``size``, ``val``, ``test``, ``eval`` in it).
"""

from __future__ import annotations

import re

HEAD_BYTES = 8192  # the head looked at: set-up prints stand in a log's first lines
# ``Number of batches per epoch: 57``, ``Batches per epoch = 57``, ``Steps per epoch: 57``,
# each a line of its own: a line that says more (a row, a table) is not a declaration.
_DECLARED = re.compile(
    rb"(?m)^[ \t]*(?:(?:[Nn]umber of |[Nn]um )?(?:[Bb]atche|[Ss]tep|[Ii]teration)s per epoch"
    rb"[ \t]*[:=][ \t]*(\d{1,9}))[ \t]*\r?$")

# ``380  is batch_train_num`` or ``num_batches: 380``, a line of its own; the name is checked
# by :func:`_counts_batches`.
_NAMED = re.compile(
    rb"(?m)^[ \t]*(?:(\d{1,9})[ \t]+is[ \t]+([A-Za-z_]{5,40})"
    rb"|([A-Za-z_]{5,40})[ \t]*[:=][ \t]*(\d{1,9}))[ \t]*\r?$")
_COUNT_WORDS = (b"num", b"count", b"len")
_NOT_COUNT_WORDS = (b"size", b"val", b"test", b"eval")


def _counts_batches(name: bytes) -> bool:
    """Whether a variable's ``name`` says it counts an epoch's training batches."""
    name = name.lower()
    return b"batch" in name and any(word in name for word in _COUNT_WORDS) and not any(
        word in name for word in _NOT_COUNT_WORDS)


def declared_epoch_length(head: bytes) -> int:
    """The batches an epoch holds as a log's head declares them on a line of their own, or 0.

    Example:
        >>> declared_epoch_length(b"Using device: cuda\\nNumber of batches per epoch: 57\\n")
        57
        >>> declared_epoch_length(b"Epoch 3, steps per epoch: 57, loss: 0.1\\n")
        0
        >>> declared_epoch_length(b"2021 is time run !\\n\\n380  is batch_train_num\\n")
        380
        >>> declared_epoch_length(b"batch_size: 32\\nnum_val_batches: 9\\n")
        0
    """
    if b"per epoch" in head and (found := _DECLARED.search(head)) is not None:
        return int(found.group(1))
    if b"atch" not in head:  # (cheap: most heads)
        return 0
    for named in _NAMED.finditer(head):
        count, name = (named.group(1), named.group(2)) if named.group(1) else (
            named.group(4), named.group(3))
        if _counts_batches(name):
            return int(count)
    return 0
