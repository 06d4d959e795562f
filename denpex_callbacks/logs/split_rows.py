"""A table whose rows are the data splits and whose columns are the metrics.

Ludwig 0.5 prints each output feature's metrics at a checkpoint so (ludwig/models/trainer.py
``run_evaluation``: a header ``[feature name] + metric names`` and a row per split,
``train``, ``vali``, ``test``, under ``Running evaluation for step: N, epoch: E``; tabulate's
``fancy_grid``). Its header names one metric the lexicon knows at most (``loss``; ``accuracy``
and ``roc_auc`` are evaluation scores) beside the feature's own name, so it is no header of a
step's columns; the row opened by the training split's name holds the training values, the
others the held-out splits'. Only a table whose first column names no metric, with a loss among
its other columns, is taken so, and only its rows opened by a split's name are read.
"""

from __future__ import annotations

from denpex_callbacks.logs import lexicon

TRAINING, HELD_OUT = "training", "held out"
# How far below its heading a table of splits is numbered by it, in lines: a checkpoint's
# tables, one per output feature and the combined loss's (a 3-split table is 9 lines)
REACH = 48
# The training split's names, as a row's first cell
_TRAINING = frozenset({"train", "training", "trn"})
# The held-out splits' names (Ludwig's ``vali``), as a row's first cell
_HELD_OUT = frozenset({"val", "vali", "valid", "validation", "eval", "evaluation", "test",
                       "dev", "holdout"})


def split_header(cells: list[str]) -> bool:
    """Whether a header row's cells may head a table of splits: a first cell that names no
    metric (the feature's or the table's name) and a loss among the rest.

    Example:
        >>> split_header(["label", "loss", "accuracy", "roc_auc"])
        True
        >>> split_header(["epoch", "loss", "accuracy"]), split_header(["label", "accuracy"])
        (False, False)
    """
    if len(cells) < 2 or not lexicon.words(cells[0]) or lexicon.role(cells[0]) is not None or (
            lexicon.evaluation_metric(cells[0])):
        return False
    return any(lexicon.role(cell) == lexicon.LOSS for cell in cells[1:])


def split_row(cell: str) -> str | None:
    """The split a table's row names in its first cell: :data:`TRAINING`, :data:`HELD_OUT`,
    or None (no split's name).

    Example:
        >>> split_row("train"), split_row("vali"), split_row("combined")
        ('training', 'held out', None)
    """
    name = cell.strip().lower()
    return TRAINING if name in _TRAINING else HELD_OUT if name in _HELD_OUT else None
