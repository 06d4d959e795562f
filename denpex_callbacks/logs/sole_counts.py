"""The counts one process alone prints (DeepSpeed's ``step=N, skipped=K``), told from the
counts of several engines in that process.

DeepSpeed's engine logs its progress through ``log_dist(..., ranks=[0])``: no other rank's
copy interleaves with it, so such a count going back says the run began again (a run appended
to its log without its start-up lines). But one process may drive several engines, each with
its own count: DeepSpeed-Chat's step 3 steps the actor twice an iteration under unsupervised
training and the critic once, so the critic's ``step=20`` comes after the actor's
``step=30``. Which it is, the next count tells: the count from before goes on above its
high (the actor's ``step=40``: several engines, and no count of this log begins a run again),
or it does not (a count at or below it, or any other line's step: the run began at the count
that went back). A count that went back is held until then.
"""

from __future__ import annotations

from dataclasses import dataclass

# What a count read says (see SoleCounts.read): nothing, a count gone back held for the next,
# the count held before it begun a run (confirmed), several engines' counts.
GOES_ON, HELD, BEGAN, ENGINES = "goes on", "held", "began", "engines"


@dataclass
class SoleCounts:
    """The last count, and the count before one that went back while it is held.

    Example:
        >>> counts = SoleCounts()
        >>> [counts.read(step) for step in (10, 10, 20, 30, 20, 40, 30)]
        ['goes on', 'goes on', 'goes on', 'goes on', 'held', 'engines', 'goes on']
        >>> restarted = SoleCounts()
        >>> [restarted.read(step) for step in (39, 40, 1, 2)]
        ['goes on', 'goes on', 'held', 'began']
    """

    last: int | None = None
    high: int | None = None  # the count before the one held (None: none held)
    engines: bool = False  # several engines' counts: none begins a run

    def read(self, step: int) -> str:
        """What the count ``step`` says."""
        last, self.last = self.last, step
        if self.engines:
            return GOES_ON
        if self.high is not None:
            high, self.high = self.high, None
            if step > high:
                self.engines = True
                return ENGINES
            return BEGAN
        if last is not None and step < last:
            self.high = last
            return HELD
        return GOES_ON

    def other_step(self) -> bool:
        """Another line's step was read: whether a count held began a run (no count came
        back above its high before it)."""
        held, self.high = self.high is not None, None
        return held
