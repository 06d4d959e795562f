"""A summary drawn as a tree, one branch per split, the same keys under each: the branches
after the first are held-out splits'.

super-gradients prints one after each epoch (Deci-AI/super-gradients ``src/super_gradients/
training/utils/sg_trainer_utils.py`` ``display_epoch_summary``, through treelib's
``Tree.show``)::

    SUMMARY OF EPOCH 2
    ├── Train
    │   ├── Ppyoloeloss/loss = 2.46
    │   │   ├── Epoch N-1      = 2.47   (↘ -0.01)
    │   │   └── Best until now = 2.47   (↘ -0.01)
    └── Validation
        ├── Ppyoloeloss/loss = nan
        ├── Map@0.50 = nan

The branch names hold no keyword, so the reader never sees them: a loss key read again on
a branch line of the same tree says the split changed, and the tree's lines from there on
are evaluation's (``Validation``, then ``Test``; ``Train`` comes first).
"""

from __future__ import annotations

import math

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.metric_pairs import read_pairs

# How many lines apart two branch lines of one tree may be: a key's own lines (its previous
# and best values) and a split's name between them, none of which a keyword brings here.
TREE_REACH = 4
# What a branch line holds: treelib's and rich's connectors (not a rule's ``───── Epoch 1``).
BRANCHES = ("├── ", "└── ")


def is_branch(text: str) -> bool:
    """Whether ``text`` is a tree's branch line.

    Example:
        >>> is_branch("│   ├── Ppyoloeloss/loss = 2.4"), is_branch("──── loss 2.4 ────")
        (True, False)
    """
    return BRANCHES[0] in text or BRANCHES[1] in text


HELD_OUT = "held_out"  # a held-out split's branch line: evaluation's
EPOCH_SUMMARY = "summary"  # the first split's, every value finite: the epoch's lines showed them
READ = "read"  # the first split's, a value non-finite (or nothing read): read as it is


class SplitTree:
    """The keys read on the branch lines of the tree being read.

    Example:
        >>> tree = SplitTree()
        >>> [tree.branch(text, line) for line, text in enumerate(
        ...     ["│   ├── Ppyoloeloss/loss_cls = 1.1", "│   └── Ppyoloeloss/loss = nan",
        ...      "    ├── Ppyoloeloss/loss_cls = 1.0", "    ├── Map@0.50 = nan"])]
        ['summary', 'read', 'held_out', 'held_out']
    """

    __slots__ = ("held", "keys", "last")

    def __init__(self) -> None:
        self.keys: set[str] = set()  # the loss keys of the first branch
        self.last = -TREE_REACH - 1  # the line of the last branch line read
        self.held = False  # a key came again: the branches from there are held-out splits'

    def heading(self, text: str, line: int) -> None:
        """Take a branch line that names a split (read where the line holds no value): the
        lines under a held-out split's name are evaluation's even where a paste cut the tree
        above it, the first split's keys with it (``└── Validation`` as its first lines).

        Example:
            >>> tree = SplitTree()
            >>> tree.heading("└── Validation", 0)
            >>> tree.branch("    ├── Ppyoloeloss/loss = nan", 1)
            'held_out'
        """
        # (super-gradients' ``Validation``, a ``Test`` after it: lexicon.held_out_heading)
        name = text.rpartition("── ")[2].strip().lower()
        if lexicon.held_out_heading(name):
            if line - self.last > TREE_REACH:  # another tree
                self.keys = set()
            self.last, self.held = line, True

    def branch(self, text: str, line: int) -> str:
        """What the branch line ``text`` is (read only where :func:`is_branch`):
        :data:`HELD_OUT`, :data:`EPOCH_SUMMARY` or :data:`READ`."""
        if line - self.last > TREE_REACH:  # another tree
            self.keys, self.held = set(), False
        self.last = line
        if self.held:
            return HELD_OUT
        metrics = read_pairs(text)
        values = [*metrics.components]
        if lexicon.LOSS in metrics.keys:
            values.append((metrics.keys[lexicon.LOSS], metrics.values[lexicon.LOSS]))
        keys = {key for key, _value in values}
        if keys & self.keys:
            self.held = True
            return HELD_OUT
        self.keys |= keys
        # the split's averages over the epoch, which its own lines printed above the tree:
        # read again they would stand for steps of their own
        return EPOCH_SUMMARY if values and all(math.isfinite(v) for _k, v in values) else READ
