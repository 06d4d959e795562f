"""An epoch's summary row below the rows that printed its steps: the last step read, no step
of its own.

Loops that print their batches with a step print the epoch's averages once it ends, with no
step: the speech-transformer ``Solver`` (kaituoxu/Conv-TasNet ``src/solver.py``, 08212849/
E2E-ASR ``solver/solver.py``: ``'Epoch {0} | Iter {1} | ...'`` rows, then ``'Train Summary |
End of Epoch {0} | Time {1:.2f}s | Train Loss {2:.3f}'``), BintongZhao/dagmm
``solver_timeseries.py`` (``f"Epoch {epoch+1} completed. Average loss: {avg:.4f}"`` below
its ``Epoch [{e}/{n}], Batch [{b}/{nb}], ...`` rows), 17LiQi/MultimodalSignal
``main_train.py`` (a tqdm bar ``Epoch 3/100 [Train]: ...| 120/120``, then ``f"Epoch {epoch}
Summary: Train Loss: ..."``). Counted as a row, the summary was one step past the last one read,
and the evaluation read after it (its validation, EarlyStopping's line) one past the training
step reached. The summary names the epoch the row above it printed its step under: it is that
step's, the epoch's averages up to it.
"""

from __future__ import annotations

import re

# The epoch a line names: ``Epoch 3``, ``End of Epoch 3``, ``Epoch: 3``, ``Epoch [3/10]``,
# ``epoch #3`` (one pass, bounded: a word, at most three marks, the digits).
_EPOCH = re.compile(r"\b[Ee]poch\b[ :#\[]{0,3}(\d+)")


def epoch_named(text: str) -> int | None:
    """The epoch ``text`` names first (None: none).

    Example:
        >>> epoch_named("Train Summary | End of Epoch 2 | Time 1302.44s | Train Loss nan")
        2
        >>> epoch_named("Epoch [3/10], Step [40/120], Loss: 0.5"), epoch_named("loss 0.5")
        (3, None)
    """
    if "poch" not in text:
        return None
    found = _EPOCH.search(text)
    return int(found.group(1)) if found is not None else None


class EpochSummaries:
    """Follows the training rows of one log (no rank named) to tell an epoch's summary: a row
    that prints no step right below a row that printed one, both naming the same epoch.

    Example:
        >>> rows = EpochSummaries()
        >>> rows.printed("Epoch 2 | Iter 901 | Average Loss 3.887 | Current Loss 3.786")
        >>> rows.closes("Train Summary | End of Epoch 2 | Time 1302.44s | Train Loss 3.667")
        True
        >>> rows.closes("Train Summary | End of Epoch 2 | Time 1302.44s | Train Loss 3.667")
        False
        >>> rows.printed("Epoch 3/100 [Train]: 100%|#####| 120/120 [loss=1.01]")
        >>> rows.closes("Epoch 4 Summary: Train Loss: 1.0100")  # another epoch: a row
        False
    """

    __slots__ = ("above",)

    def __init__(self) -> None:
        # the last row, where it printed its step (kept as text: read only when a row without
        # a step comes, so rows that print theirs cost no search); None: no such row above
        self.above: str | None = None

    def printed(self, text: str) -> None:
        """A row that printed its step."""
        self.above = text

    def closes(self, text: str) -> bool:
        """Whether a row that prints no step is the summary of the epoch the row above it
        printed its step under (one summary a row: a second is a row of its own)."""
        above, self.above = self.above, None
        if above is None or (epoch := epoch_named(text)) is None:
            return False
        return epoch_named(above) == epoch
