"""Two counters on one line with no word for the first: an epoch of how many in brackets,
then a keyed step of how many (1160528707/HF-SSIRNet ``train_rl.py``: ``'[{}/{}] Step {}/{},
loss={:.4f}, ...'.format(epoch, epochs, step, len(loader))``, behind its logger's prefix).

The bracket counts epochs (from 1) and the keyed count either the batches of that epoch or
the run's own steps: the reader tells which as it does for ``Epoch E/N, step i/M``
(``MetricReader._step_of_epoch``): a count outside epoch E's share of M, or one that goes back
as the epoch moves on, counts the epoch's batches (``(E - 1) * M + i``: an excerpt pasted from
a later epoch reads the epochs before it); until then it is read as printed. Harishmelvic/
trivima ``trivima/multiview/train.py`` prints the same with ``batch`` (``"  [%d/%d] batch %d/%d
loss=%.4f"``).
"""

from __future__ import annotations

import re

# ``[3/10] Step 300/500``: the bracket opens the message (the line's start, or after a blank
# or a bracket that closes a prefix), the step key right after it.
BRACKET_EPOCH_STEP = re.compile(
    r"(?:^|(?<=[\s\]]))\[(\d+)/(\d+)\]\s+(?:[Ss]tep|[Ii]ter|[Ii]teration|[Bb]atch):?\s+"
    r"(\d+)\s*/\s*(\d+)\b")


def bracket_epoch_step(text: str) -> tuple[int, int, int, int] | None:
    """The epoch, the epochs, the step and its total of a line that prints an epoch of how
    many in brackets before a keyed step of how many, or None.

    The bracket's count must lie within its total (an epoch of the epochs), as must the
    step's: a bracketed fraction that overshoots is something else (a rank, a ratio).

    Example:
        >>> bracket_epoch_step("12:00 - INFO - __main__ -   [3/10] Step 300/500, loss=nan")
        (3, 10, 300, 500)
        >>> bracket_epoch_step("[3/10] Step 600/500, loss=nan"), bracket_epoch_step("x")
        (None, None)
    """
    if "] " not in text or "/" not in text:  # (cheap: most lines print neither)
        return None
    found = BRACKET_EPOCH_STEP.search(text)
    if found is None:
        return None
    epoch, epochs, done, total = (int(g) for g in found.groups())
    if not (epoch <= epochs and total > 0 and done <= total):
        return None
    return epoch, epochs, done, total


def epoch_share(last: int, epochs: int, total: int) -> int | None:
    """An epoch's length where ``[E/N] Step i/M`` counts the epoch's batches against the
    run's total M, or None where M is the epoch's own.

    The count went back (a new epoch) after ``last``: where M splits into N equal shares and
    ``last`` ended within one of them, past its half, the epoch ended there, at ``M / N``
    (a DDP LoRA script in the code index prints ``f"[{epoch}/{num_epochs}] Step
    {step}/{total_steps}"`` with ``total_steps = len(train_loader) * num_epochs``). An epoch of
    M printed in full ends past that share; and its last print ends past its half whatever
    the print interval, so the half rules out no whole epoch, only a count that stopped early.

    Example:
        >>> epoch_share(1000, 3, 3000), epoch_share(3000, 3, 3000), epoch_share(200, 3, 3000)
        (1000, None, None)
    """
    if epochs < 2 or total % epochs:
        return None
    share = total // epochs
    return share if share < 2 * last <= 2 * share else None
