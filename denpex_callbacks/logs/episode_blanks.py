"""keras-rl's episode rows whose metrics print ``--``: NaN losses, where the rows say so.

keras-rl's TrainEpisodeLogger (keras-rl/keras-rl ``rl/callbacks.py`` ``on_episode_end``)
prints a row per episode, ``{step}/{nb_steps}: episode: {episode}, duration: ...s, episode
steps: {episode_steps}, ..., loss: 0.012345, mae: 0.234567, mean_q: 1.234567``; each metric
is ``np.nanmean`` of the episode's steps, under ``warnings.filterwarnings('error')``, and a
warning (the mean of an all-NaN column) prints ``{name}: --`` instead. An agent's step that
did not train reports NaN metrics (``rl/agents/dqn.py`` ``backward``: ``metrics =
[np.nan for _ in self.metrics_names]`` before ``nb_steps_warmup`` and between
``train_interval`` steps), so ``--`` is also what a healthy run prints during its warm-up,
and on an episode too short to hold a training step (shorter than ``train_interval``).

A NaN loss is what makes ``--`` after the warm-up persist: the weights a NaN update wrote
give NaN on every later step. So ``--`` counts as a NaN loss only after a finite loss of the
same run, on :data:`RUNS_OF_BLANKS` rows in a row that cover at least :data:`BLANK_STEPS`
steps of the run's counter (more than any ``train_interval`` leaves untrained), and the NaN
is placed on the first of them. A counter that goes back is another run (its warm-up again).
"""

from __future__ import annotations

import math
import re

# The row's head and its loss: ``   640/50000: episode: 12, ...`` and ``loss: --``/``loss: 0.5``.
_HEAD = re.compile(r"\s*(\d+)/\d+: episode: \d+, ")
_LOSS = re.compile(r", loss: (--|[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?:,|$)")
GATE = "episode steps: "  # the cheap check on a candidate line before the regexes
RUNS_OF_BLANKS = 3
BLANK_STEPS = 100


class EpisodeBlanks:
    """Follows keras-rl's episode rows; :meth:`row` returns the step of the NaN loss they
    show, once.

    Example:
        >>> rows = EpisodeBlanks()
        >>> def row(step, loss):
        ...     return (f"{step:6d}/50000: episode: 1, duration: 0.2s, episode steps: 40, "
        ...             f"steps per second: 200, episode reward: 40.000, loss: {loss}, mae: --")
        >>> [rows.row(row(s, "--")) for s in (40, 80)]  # the warm-up: no loss yet
        [None, None]
        >>> rows.row(row(120, "0.5")), rows.row(row(160, "--")), rows.row(row(200, "--"))
        (None, None, None)
        >>> rows.row(row(240, "--"))
        160
    """

    __slots__ = ("blanks", "finite", "last")

    def __init__(self) -> None:
        self.finite: int | None = None  # the step of the run's last finite loss
        self.last = 0  # the last row's step
        self.blanks: list[int] = []  # the steps of the ``--`` rows since then

    def row(self, text: str) -> int | None:
        """Take one line that holds :data:`GATE`; the step of a NaN loss where the rows
        show one."""
        head = _HEAD.match(text)
        loss = _LOSS.search(text) if head is not None else None
        if head is None or loss is None:
            return None
        step = int(head.group(1))
        if step < self.last:  # the counter went back: another run, its warm-up again
            self.finite, self.blanks = None, []
        self.last = step
        if loss.group(1) != "--":
            finite = math.isfinite(float(loss.group(1)))
            self.finite, self.blanks = step if finite else None, []
            return None
        if self.finite is None:
            return None
        self.blanks.append(step)
        if len(self.blanks) < RUNS_OF_BLANKS or step - self.finite < BLANK_STEPS:
            return None
        first = self.blanks[0]
        self.finite, self.blanks = None, []  # told once, until a finite loss again
        return first
