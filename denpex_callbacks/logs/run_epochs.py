"""A new run in the same log, told by its epochs: the epoch back at a run's first.

Two trainings appended to one log (a second shuffle of DeepLabCut 3 trained after the first,
SAM-HQ run twice) print their counts of the epoch's batches from the start again, as the
next epoch of one run would. The counting rules that add up passes over epochs
(``MetricReader._epoch_count_step``, ``_pass_step``) read that as one more epoch and number
the second run on from the first's last step. What tells a new run is the epoch that the
training lines print going back to a run's first (0 or 1) after a later one: no epoch of a
running loop goes back. A resumed run goes back to the epoch it resumed at, not the first,
and is left to the assembler (its step going back).

The epoch lines that reach this rule mostly sum up the batches above them (DeepLabCut 3's
``Epoch {e}/{epochs} (lr=...), train loss ...``, SAM-HQ's ``Finished epoch: {e}``). A heading
over its batches that says only the epoch and its learning rate (SAM-HQ's ``epoch: {e}
learning rate: ...``) reaches it too, handed over with the first batch below it (reader.py's
``_EPOCH_HEADING``): a run that begins there is seen before its first epoch's batches, whose
counts are then read as printed (``MetricReader._new_run``'s ``heading``). Other headings
(Depth Anything V2's ``===========> Epoch: {e}/{epochs}, d1: ...``) are no training line.
"""

from __future__ import annotations


class RunEpochs:
    """The epochs a log's training lines print, read for where a new run begins.

    Example:
        >>> epochs = RunEpochs()
        >>> [epochs.read(epoch) for epoch in (1, 2, 3, 1, 2, 0)]
        [False, False, False, True, False, True]
    """

    def __init__(self) -> None:
        self.top = -1  # the highest epoch of this run so far

    def read(self, epoch: int) -> bool:
        """Note an epoch a training line printed; whether it begins a new run (back at the
        first epoch, 0 or 1, after a later one)."""
        again = epoch <= 1 and epoch < self.top
        self.top = epoch if again else max(self.top, epoch)
        return again
