"""Step-less overflow lines between two rows that print their step: the last steps up to the
later row.

A loop that prints its row after ``optimizer.step()`` prints each overflow line during the
step that overflowed, so before that step's own row: apex's ImageNet example
(NVIDIA/apex ``examples/imagenet/main_amp.py``: ``with amp.scale_loss(loss, optimizer) as
scaled_loss: scaled_loss.backward()``, ``optimizer.step()``, then ``if i%args.print_freq ==
0: print('Epoch: [{0}][{1}/{2}]\\t...')``), whose ``Gradient overflow.  Skipping step, loss
scaler 0 reducing loss scale to {}`` apex prints as ``scale_loss`` exits (``apex/amp/
handle.py``), within the step. A run of such lines right above a row is the steps just
before it and the row's own: a scale that collapsed ten steps before the row of 560 prints
ten lines (551 to 560), then that row, then the lines of 561 on. Numbered on from the row
before them (541 to 550) the run would stand apart from the lines after the row, ten clean
steps between: a collapse's streak broken in two, its lines read as a high skip rate beside
it. Where the lines are placed in the span matters only to such runs; a lone overflow in a
long span is counted either way (the spans say so).

Lines before the first row of a run keep their count from the run's start (a start-up
back-off comes first), and so do lines that fill the span (no room to place them back) and a
line alone between two rows (one skip: its place in the span is not known).
"""

from __future__ import annotations

# At least this many lines above the row: one line alone is one skip whose place in the span no
# line says (numbered on from the row before, as it always was); a run of them that goes on
# past the row is a streak.
MIN_RUN = 2
# At most this many lines held between two rows: past it (a log that prints no rows while its
# scale collapses) they are numbered on from the row before, as they come.
MAX_HELD = 4096


def first_of_run(row_step: int, held: int, clock: int) -> int | None:
    """The step of the first of ``held`` overflow lines read since the row of ``clock``, where
    they are the last steps up to the row of ``row_step``; None where that leaves them no room
    after ``clock``, or where they are fewer than :data:`MIN_RUN` (they are numbered on from
    it, as before).

    Args:
        row_step: The step the row below the lines prints.
        held: How many overflow lines (each a step) were read since the last row.
        clock: The last step read (the row above the lines).

    Returns:
        ``row_step - held + 1``, or None.

    Example:
        >>> first_of_run(560, 10, 540), first_of_run(560, 20, 540), first_of_run(560, 25, 540)
        (551, 541, None)
        >>> first_of_run(1110, 1, 1100) is None  # one skip alone: its place is not known
        True
    """
    if held < MIN_RUN or row_step - held < clock:
        return None
    return row_step - held + 1
