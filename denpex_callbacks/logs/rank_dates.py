"""The step a rank's line came at in the input's order, where the ranks' lines were read apart.

rank_streams reads each rank's lines as one block. A rank that prints no step of its own
(only rank 0 prints HF Trainer's rows; the others print warnings and, at the end, their
error) has a block that no row dates: read alone, its error comes at no step, or at the
step the blocks read before it ended on. In the input its error came after the rows
printed before it, as one process's lines read together say. So a diagnosis from a block in
which the steps never moved and no row or overflow was read takes the step that the lines
before its line in the input had come to; a block whose own lines date it keeps its step.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from denpex_callbacks.logs.rank_streams import RankBlocks


@dataclass
class RankDates:
    """Where the steps moved while each rank's block was read, by the input's line numbers.

    Example:
        >>> blocks = RankBlocks((1, 3), (1, 0), (1, 4, 2, 3))  # rank 1: 1, 4; rank 0: 2, 3
        >>> dates = RankDates(blocks)
        >>> for line_no, clock in ((1, 0), (2, 0), (3, 5), (4, 6)):
        ...     dates.read(line_no, clock, False)
        >>> dates.step_at(2, None), dates.step_at(4, 6)
        (6, 6)
    """

    blocks: RankBlocks
    _clock: int = 0
    # (the input's line number, the step the steps came to there) where they moved
    _moves: list[tuple[int, int]] = field(default_factory=list)
    _stepped: set[int] = field(default_factory=set)  # the blocks where the steps moved
    _sorted: bool = True

    def read(self, line_no: int, clock: int, dated: bool) -> None:
        """Line ``line_no`` read left the steps at ``clock``; ``dated``: it is a row or an
        overflow (a step of its rank's own, though another rank's row moved the steps to it
        first: each rank prints its own copy of a row). Called for each line read."""
        if dated:
            self._stepped.add(self._block(line_no))
        if clock == self._clock:
            return  # (most lines: one comparison)
        self._clock = clock
        self._moves.append((self.blocks.origin(line_no), clock))
        self._stepped.add(self._block(line_no))
        self._sorted = False

    def step_at(self, line_no: int, step: int | None) -> int | None:
        """The step of a diagnosis first seen on line ``line_no`` read, at ``step`` as read:
        ``step`` where its rank's block moved the steps or read a row, else the step the
        input's lines before it had come to (None: none had)."""
        if self._block(line_no) in self._stepped:
            return step
        if not self._sorted:
            self._moves.sort()
            self._sorted = True
        before = bisect_left(self._moves, (self.blocks.origin(line_no), -1))
        return self._moves[before - 1][1] if before else None

    def _block(self, line_no: int) -> int:
        """The index of the block that holds line ``line_no`` read."""
        return max(bisect_right(self.blocks.starts, line_no) - 1, 0)
