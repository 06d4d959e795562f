"""A loss printed as a row of a bulleted list, the run's reward on a row below it.

NeMo-RL prints a step's results one a row (NVIDIA-NeMo/RL ``nemo_rl/algorithms/grpo.py``
``grpo_train``: ``📊 Training Results:``, then ``  • Loss: {:.4f}``, ``  • Generation KL
Error: ...``, ``  • Avg Reward: {:.4f}``). A policy objective's loss is 0 by construction
where every reward is 0 (the advantages are 0: a hard task's start), which the reader tells
by a reward or an advantage keyed on the loss's own line (``lexicon.POLICY_OBJECTIVE``).
Here the reward is a row below, on a line that holds no keyword: a bullet row's exact 0 loss
waits for the rows of its list (the scanner hands over :data:`BULLET_REACH` lines after a
bullet row), and one that keys a reward or an advantage makes it no collapse (the loss is
read as unknown). A list without one leaves the 0 as read.
"""

from __future__ import annotations

from dataclasses import replace

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import LogEvent

BULLET_REACH = 4  # lines handed over after a bullet row (its list's other rows)


def bullet_row(text: str) -> bool:
    """True for an indented ``• key: value`` row.

    Example:
        >>> bullet_row("  • Avg Reward: 0.0000"), bullet_row("• loss: 0.1 | lr: 3e-4")
        (True, False)
    """
    return text[:1] == " " and text.lstrip(" ")[:2] == "• " and ": " in text


class ZeroInList:
    """The events of a bullet row whose loss is exactly 0, held while its list goes on.

    Example:
        >>> from denpex_callbacks.logs.events import METRICS
        >>> held = ZeroInList([LogEvent(METRICS, "generic", loss=0.0)], 11)
        >>> held.goes_on("  • Avg Reward: 0.0000", 13), held.goes_on("  • Avg Reward: 0.0", 12)
        (False, True)
        >>> [e.loss for e in held.ended("⏱️  Timing:")]
        [None]
    """

    def __init__(self, events: list[LogEvent], line: int, text: str = "") -> None:
        # (released with a later line: quoted where read)
        self.events = [event if event.quoted is not None
                       else replace(event, quoted=(line, text.strip())) for event in events]
        self.last = line  # the list's last row read
        self.objective = False  # a row of the list keys a reward or an advantage

    def goes_on(self, text: str, line: int) -> bool:
        """Whether ``text`` is the list's next row (read for a reward's key)."""
        if line != self.last + 1 or not bullet_row(text):
            return False
        self.last = line
        # (the list's keys are capitalised words: ``Avg Reward``)
        self.objective = self.objective or (
            lexicon.POLICY_OBJECTIVE.search(text.lower()) is not None)
        return True

    def ended(self, text: str) -> list[LogEvent]:
        """The events held, once ``text`` (no row of the list) ends it: a policy
        objective's 0 loss read as unknown."""
        if not self.objective:
            return self.events
        return [replace(event, loss=None) if event.loss == 0.0 else event
                for event in self.events]
