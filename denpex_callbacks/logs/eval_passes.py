"""An evaluation pass printed in the training's own format, told by its counter.

Some loops print their validation batches with the very line their training batches use
(08212849/E2E-ASR ``solver/solver.py``, the speech-transformer ``Solver``: ``'Epoch {0} |
Iter {1} | Average Loss {2:.3f} | Current Loss {3:.6f} | ...'`` for both, the validation's
after ``'Train Summary | End of Epoch {0} | Time {1:.2f}s | Train Loss {2:.3f}'`` and
``Cross validation...``). The rows name no split, but the log says what they are: the epoch's
training ended (a line says so), and rows of that same epoch follow, their count started over
below the training's. They are the evaluation's until the epoch moves on. A count that starts
over with no end of the epoch said is a run resumed (the assembler's to tell).
"""

from __future__ import annotations

import re

# A line that says an epoch ended, and which: ``End of Epoch 3``, ``Epoch 3 finished``,
# ``Finished epoch: 3``.
_ENDED = re.compile(r"(?i)\bend of epoch:? *(\d+)\b|\bepoch:? *(\d+),? +(?:is +)?(?:finished|"
                    r"done|ended|completed?)\b|\bfinished epoch:? *(\d+)\b")


class EvalPasses:
    """The epoch and count of the last training row, whether a line said that epoch ended,
    and so whether a row of the same epoch is an evaluation pass's.

    Example:
        >>> passes = EvalPasses()
        >>> passes.trained(2, 901)
        >>> passes.evaluates(2, 1)  # no end of the epoch said: a resumed run, training's
        False
        >>> passes.read("Train Summary | End of Epoch 2 | Time 1302.44s | Train Loss nan")
        >>> passes.evaluates(2, 1), passes.evaluates(2, 101), passes.evaluates(3, 1)
        (True, True, False)
    """

    __slots__ = ("count", "ended", "epoch")

    def __init__(self) -> None:
        self.epoch: int | None = None  # the last training row's epoch and count
        self.count = 0
        self.ended = False  # a line said the epoch ended

    def trained(self, epoch: int, count: int) -> None:
        """Keep a training row's epoch and count."""
        self.epoch, self.count, self.ended = epoch, count, False

    def read(self, text: str) -> None:
        """Read a line that may say the last training row's epoch ended (cheap: only lines
        that print the word)."""
        if self.epoch is None or self.ended or "poch" not in text:
            return
        found = _ENDED.search(text)
        if found is not None and int(next(g for g in found.groups() if g)) == self.epoch:
            self.ended = True

    def evaluates(self, epoch: int, count: int) -> bool:
        """Whether a row of ``epoch`` and ``count`` is an evaluation pass's: the ended
        epoch's, its count below the training's last."""
        return self.ended and epoch == self.epoch and count < self.count
