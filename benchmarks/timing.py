"""Side-by-side timing: rotated rounds of variants, per-step clocks, medians and ratios.

On a shared, noisy machine a single timing means little; what holds is the ratio of medians of
variants run alternately in the same minutes. Each round runs every variant once, the order
rotated by one each round, so no variant always runs first (cold caches) or last.
"""

from __future__ import annotations

import gc
import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def rotated(items: Sequence[T], round_index: int) -> list[T]:
    """``items`` rotated left by ``round_index``.

    Example:
        >>> rotated(["a", "b", "c"], 1)
        ['b', 'c', 'a']
    """
    if not items:
        return []
    shift = round_index % len(items)
    return [*items[shift:], *items[:shift]]


def rotated_rounds(
    variants: Sequence[str], rounds: int, run_one: Callable[[str], T]
) -> dict[str, list[T]]:
    """Run every variant once per round, in rotated order; results grouped by variant.

    Example:
        >>> seen = []
        >>> out = rotated_rounds(["a", "b"], 2, lambda v: seen.append(v) or len(seen))
        >>> seen, out
        (['a', 'b', 'b', 'a'], {'a': [1, 4], 'b': [2, 3]})
    """
    results: dict[str, list[T]] = {v: [] for v in variants}
    for index in range(rounds):
        for variant in rotated(variants, index):
            gc.collect()  # garbage of the previous run is not this run's cost
            results[variant].append(run_one(variant))
    return results


class StepClock:
    """Timestamps at the end of each step; per-step time after a warm-up.

    On CUDA the host runs ahead of the device, so the first timed step and the last one
    synchronise the device (``sync``): the window between them is device time. The steps in
    between are not synchronised, so the clock adds no sync of its own to what it measures.

    Args:
        steps: How many steps the run will take (the last one synchronises).
        warmup: Steps excluded from timing, at least 1 (start-up, first-touch allocation, the
            scaler's initial back-off).
        sync: Called before reading the clock on the window's edges (``torch.cuda.synchronize``
            on CUDA, None on CPU).
        counter: A running total read at each tick (seconds spent in some part of the step):
            :meth:`counted_per_step` gives its median growth per timed step.
        cpu_counter: A second running total read at each tick (the same part's CPU time):
            ``counted_per_step(cpu=True)``.
        probe: Called at each tick first (the hook timer's calibration,
            :meth:`benchmarks.syncs.SyncCounter.probe`).

    Example:
        >>> clock = StepClock(steps=4, warmup=1)
        >>> for _ in range(4):
        ...     clock.tick()
        >>> len(clock.intervals())
        3
    """

    def __init__(
        self, steps: int, warmup: int, sync: Callable[[], Any] | None = None,
        counter: Callable[[], float] | None = None,
        cpu_counter: Callable[[], float] | None = None,
        probe: Callable[[], None] | None = None,
    ) -> None:
        self.steps = steps
        # Step i lasts from tick i - 1 to tick i: timing starts at the warm-up's last tick.
        self.warmup = max(1, min(warmup, steps - 2))
        self.sync = sync
        self.counter = counter
        self.probe = probe
        self.cpu_counter = cpu_counter
        self.ticks: list[float] = []
        # The thread's CPU time at each tick: what another process on a shared machine does
        # not inflate (with one torch thread, a CPU step's whole work runs in this thread).
        self.cpu_ticks: list[float] = []
        self.counts: list[float] = []
        self.cpu_counts: list[float] = []

    def tick(self) -> None:
        """Record the end of one step."""
        if self.probe is not None:
            self.probe()
        index = len(self.ticks)
        if self.sync is not None and index in (self.warmup - 1, self.steps - 1):
            self.sync()
        self.ticks.append(time.perf_counter())
        self.cpu_ticks.append(time.thread_time())
        if self.counter is not None:
            self.counts.append(self.counter())
        if self.cpu_counter is not None:
            self.cpu_counts.append(self.cpu_counter())

    def intervals(self, *, cpu: bool = False) -> list[float]:
        """Seconds of each timed step (``steps - warmup`` of them; ``cpu``: the thread's CPU
        seconds)."""
        timed = (self.cpu_ticks if cpu else self.ticks)[self.warmup - 1 :]
        return [b - a for a, b in itertools.pairwise(timed)]

    def counted_per_step(self, *, cpu: bool = False) -> float:
        """Median growth of ``counter`` (``cpu``: of ``cpu_counter``) per timed step (NaN
        without one)."""
        timed = (self.cpu_counts if cpu else self.counts)[self.warmup - 1 :]
        if len(timed) < 2:
            return float("nan")
        return statistics.median(b - a for a, b in itertools.pairwise(timed))

    def per_step(self, *, cpu: bool = False) -> float:
        """Seconds per step: median interval on CPU, the synchronised window's mean on CUDA
        (``cpu``: the median of the thread's CPU seconds per step)."""
        intervals = self.intervals(cpu=cpu)
        if not intervals:
            return float("nan")
        if self.sync is not None and not cpu:
            return sum(intervals) / len(intervals)
        return statistics.median(intervals)


def compare(samples: dict[str, list[float]], baseline: str) -> dict[str, dict[str, Any]]:
    """Median per variant, its ratio to the baseline's median, and the paired ratio.

    The samples of every variant are in round order (as :func:`rotated_rounds` gives them).
    The paired ratio is the median over rounds of the variant's time over the baseline's in
    the same round: a load that drifts from round to round (another job on a shared machine)
    moves both sides of each pair, so it cancels there and not in the ratio of medians.

    Example:
        >>> out = compare({"a": [1.0, 3.0, 2.0], "b": [1.1, 3.3, 2.2]}, "a")["b"]
        >>> out["ratio"], out["paired_ratio"]
        (1.1, 1.1)
    """
    base = statistics.median(samples[baseline])
    out: dict[str, dict[str, Any]] = {}
    for variant, values in samples.items():
        mid = statistics.median(values)
        pairs = [v / b for v, b in zip(values, samples[baseline], strict=False) if b > 0]
        out[variant] = {
            "median_s": mid,
            "ratio": round(mid / base, 4) if base > 0 else None,
            "paired_ratio": round(statistics.median(pairs), 4) if pairs else None,
            # How finely the run resolves a ratio: the middle half of the per-round ratios.
            "paired_quartiles": ([round(q, 4) for q in statistics.quantiles(pairs, n=4)[::2]]
                                 if len(pairs) >= 2 else None),
            "samples_s": list(values),
        }
    return out
