"""The reconstructed loss-scale timeline of a run, bounded in memory, and its plot.

matplotlib is imported only by :func:`plot_timeline`; the rest is plain Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.core.observation import Observation, json_number

MAX_POINTS = 4000


@dataclass
class Timeline:
    """Scale, skipped steps and loss per step, thinned to at most ``max_points`` points.

    Steps where something happened (a skip, a scale change, a non-finite loss) are kept in
    preference to quiet ones; quiet ones are sampled every ``stride`` steps, the stride
    doubling whenever the timeline is full.

    ``steps`` and ``skipped`` count the run's steps, not its observations: every rank
    observes each step (a multi-rank log prints it once per rank), so each counts the most
    any one rank has shown.

    Example:
        >>> t = Timeline(max_points=8)
        >>> for s in range(100):
        ...     t.add(Observation(s, scale_after=2.0 ** (s // 10), loss=1.0))
        >>> len(t.points) <= 8, t.points[0][0]
        (True, 0)
        >>> two = Timeline()
        >>> for s in range(14):
        ...     two.add(Observation(s, rank=0, loss=1.0))
        ...     two.add(Observation(s, rank=1, loss=1.0))
        >>> two.steps
        14
    """

    max_points: int = MAX_POINTS
    points: list[tuple[int, float | None, bool, float | None, int]] = field(default_factory=list)
    stride: int = 1
    steps: int = 0
    skipped: int = 0
    _last_scale: float | None = None
    # Per rank: observations and skipped ones (dicts of ranks, bounded by the world size),
    # and the most of each any rank has shown.
    _seen: dict[int, int] = field(default_factory=dict)
    _skips: dict[int, int] = field(default_factory=dict)
    _most_seen: int = 0
    _most_skips: int = 0

    # Per rank: rows read but counted, not observed one by one (a quiet run's repeats)
    _counted: dict[int, int] = field(default_factory=dict)

    @property
    def observed(self) -> int:
        """The most rows any rank showed: its observations and its counted rows (``steps``
        adds the steps between rows that the log did not show).

        Example:
            >>> t = Timeline()
            >>> for s in (10, 20):
            ...     t.add(Observation(s, loss=1.0))
            >>> t.count_rows(0, 5)
            >>> t.observed, t.steps
            (7, 2)
        """
        seen, counted = self._seen, self._counted
        return max((seen.get(rank, 0) + counted.get(rank, 0) for rank in seen.keys() | counted),
                   default=0)

    def count_rows(self, rank: int, rows: int) -> None:
        """``rows`` rows of ``rank`` read but not observed one by one (their steps are counted
        as a gap, apart)."""
        self._counted[rank] = self._counted.get(rank, 0) + rows

    def add(self, obs: Observation) -> None:
        """Record one observation."""
        skipped = bool(obs.was_skipped)
        rank = obs.rank
        seen = self._seen[rank] = self._seen.get(rank, 0) + 1
        if seen > self._most_seen:  # counted once: when a rank shows more than any before
            self._most_seen = seen
            self.steps += 1
        if skipped:
            skips = self._skips[rank] = self._skips.get(rank, 0) + 1
            if skips > self._most_skips:
                self._most_skips = skips
                self.skipped += 1
        scale = obs.scale
        eventful = skipped or (scale is not None and scale != self._last_scale) or (
            obs.loss is not None and not math.isfinite(obs.loss)
        )
        if scale is not None:
            self._last_scale = scale
        if not eventful and obs.step % self.stride:
            return
        if scale is None and obs.loss is None and not skipped:
            return  # a clean step of unknown scale adds nothing to draw
        self.points.append((obs.step, scale, skipped, obs.loss, obs.rank))
        if len(self.points) > self.max_points:
            self._thin()

    def _thin(self) -> None:
        self.stride *= 2
        kept = [p for i, p in enumerate(self.points) if i % 2 == 0 or p[2]]
        if len(kept) > self.max_points * 3 // 4:
            kept = kept[::2]
        self.points = kept

    def to_dict(self) -> dict[str, Any]:
        """Column lists for JSON (NaN/inf as strings)."""
        return {
            "steps_seen": self.steps,
            "skipped_steps": self.skipped,
            "sampled_every": self.stride,
            "step": [p[0] for p in self.points],
            "scale": [p[1] for p in self.points],
            "skipped": [p[2] for p in self.points],
            "loss": [json_number(p[3]) for p in self.points],
            "rank": [p[4] for p in self.points],
        }


class PlotUnavailable(RuntimeError):
    """matplotlib is not installed."""


def plot_timeline(timeline: Timeline, path: str, title: str = "") -> None:
    """Draw the scale (log axis) with skipped steps marked, and the loss beside it.

    Raises:
        PlotUnavailable: When matplotlib is not installed.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotUnavailable(
            "--plot needs matplotlib: pip install 'denpex-callbacks[plot]'"
        ) from None
    fig, (ax_scale, ax_loss) = plt.subplots(2, 1, sharex=True, figsize=(10, 6))
    scaled = [(p[0], p[1]) for p in timeline.points if p[1] is not None and p[1] > 0]
    if scaled:
        ax_scale.step([s for s, _ in scaled], [v for _, v in scaled], where="post",
                      label="loss scale")
        ax_scale.set_yscale("log", base=2)
    skips = [p for p in timeline.points if p[2]]
    if skips:
        ax_scale.scatter([p[0] for p in skips],
                         [p[1] if p[1] and p[1] > 0 else (scaled[0][1] if scaled else 1.0)
                          for p in skips],
                         marker="x", color="red", label="skipped step", zorder=3)
    ax_scale.set_ylabel("loss scale")
    ax_scale.legend(loc="best")
    losses = [(p[0], p[3]) for p in timeline.points if p[3] is not None]
    finite = [(s, v) for s, v in losses if math.isfinite(v)]
    if finite:
        ax_loss.plot([s for s, _ in finite], [v for _, v in finite], label="loss")
    bad = [s for s, v in losses if not math.isfinite(v)]
    for step in bad[:200]:
        ax_loss.axvline(step, color="red", alpha=0.3)
    ax_loss.set_ylabel("loss (red: non-finite)")
    ax_loss.set_xlabel("step")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
