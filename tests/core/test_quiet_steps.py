"""The engine's quiet-step fast path changes nothing: same diagnoses, same steps, same state.

Each stream runs through two Monitors side by side, one with the fast path and one judging
every step one by one; after every step their diagnoses and saved state must be equal.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest
from streams import scaler_stream

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup, Thresholds
from denpex_callbacks.core.quiet_steps import QuietSteps

SETUP = dict(active_precision="fp16-mixed", scaler="dynamic", growth_interval=50,
             init_scale=2.0**16)


class _OneByOne(QuietSteps):
    """Never takes a step quietly: every step is judged one by one."""

    def rearm(self, *args: object, **kwargs: object) -> None:
        self.left = 0


def _pair(setup: dict[str, object] | None = None, **config: object) -> tuple[Monitor, Monitor]:
    fast = Monitor(MonitorConfig(report_dir=None, **config))  # type: ignore[arg-type]
    slow = Monitor(MonitorConfig(report_dir=None, **config))  # type: ignore[arg-type]
    slow._quiet = _OneByOne(slow.run)
    slow.take_quiet = slow._quiet.take_values
    for monitor in (fast, slow):
        monitor.start(RunSetup(**(setup or SETUP)))  # type: ignore[arg-type]
    return fast, slow


def _same_throughout(stream: Iterator[Observation], fast: Monitor, slow: Monitor, *,
                     numbers: bool = False) -> int:
    """Feed both; compare after every step. Returns how many steps the fast path took.

    ``numbers``: the fast monitor is first offered each step's plain numbers
    (``take_quiet``, the adapters' hot path) and observes the step only when they are refused.
    """
    taken = 0
    for obs in stream:
        pending = fast._quiet.pending
        if numbers and fast.take_quiet(obs.step, obs.loss, obs.scale_before, obs.scale_after,
                                       obs.skipped, obs.growth_tracker, obs.grad_norm):
            got = []
            assert fast.last_observation is not None
            assert fast.last_observation.step == obs.step
        else:
            got = fast.observe(obs)
        want = slow.observe(obs)
        taken += fast._quiet.pending > pending
        assert [d.to_dict() for d in got] == [d.to_dict() for d in want], obs.step
        assert fast.run == slow.run, obs.step
        if obs.step % 7 == 0 or got:  # the saved state flushes the pending quiet steps
            assert fast.state_dict() == slow.state_dict(), obs.step
    assert [d.to_dict() for d in fast.diagnoses] == [d.to_dict() for d in slow.diagnoses]
    assert fast.state_dict() == slow.state_dict()
    return taken


def _noisy(steps: int, seed: int, *, overflow_rate: float, nan_rate: float,
           zero_from: int | None = None) -> Iterator[Observation]:
    rng = random.Random(seed)
    overflows = [s for s in range(steps) if rng.random() < overflow_rate]
    losses = {s: float("nan") for s in range(steps) if rng.random() < nan_rate}
    if zero_from is not None:
        losses.update({s: 0.0 for s in range(zero_from, zero_from + 40)})
    return scaler_stream(overflows, steps, growth_interval=50, losses=losses)


@pytest.mark.parametrize("numbers", [False, True], ids=["observations", "plain-numbers"])
@pytest.mark.parametrize("seed", range(6))
def test_noisy_runs_judge_alike(seed: int, numbers: bool) -> None:
    fast, slow = _pair()
    taken = _same_throughout(
        _noisy(1500, seed, overflow_rate=0.01 * seed, nan_rate=0.002 * seed,
               zero_from=700 if seed % 2 else None), fast, slow, numbers=numbers)
    assert taken > (300 if seed < 3 else 10)  # the fast path was really taken
    if seed >= 3:
        assert fast.diagnoses  # and faults were found beside it


def test_a_collapse_after_a_long_healthy_stretch_is_found_at_the_same_step() -> None:
    fast, slow = _pair()
    overflows = range(900, 1000)  # every step from 900 on overflows
    _same_throughout(scaler_stream(overflows, 1000, growth_interval=50), fast, slow)
    assert ("AMP003", 900) in [(d.code, d.step) for d in fast.diagnoses]


def test_growth_disabled_fires_on_the_step_that_reaches_the_limit() -> None:
    # A dynamic scaler whose scale never grows: AMP005 at its limit (3 x 50 clean steps).
    setup = {**SETUP, "growth_interval": 50}
    fast, slow = _pair(setup)
    stream = (Observation(s, scale_before=1024.0, scale_after=1024.0, loss=1.0,
                          growth_tracker=s % 50) for s in range(400))
    taken = _same_throughout(stream, fast, slow)
    stuck = [d for d in fast.diagnoses if d.code == "AMP005"]
    assert taken > 100 and len(stuck) == 1 and stuck[0].reported_step == 149


def test_a_frozen_tracker_is_never_taken_quietly() -> None:
    # update() not called: the tracker stays put; AMP002 after tracker_frozen_steps.
    fast, slow = _pair()
    stream = (Observation(s, scale_before=512.0, scale_after=512.0, loss=1.0,
                          growth_tracker=min(s, 20)) for s in range(60))
    _same_throughout(stream, fast, slow)
    assert [(d.code, d.reported_step) for d in fast.diagnoses] == [("AMP002", 28)]


def test_a_high_skip_rate_window_is_judged_step_by_step() -> None:
    fast, slow = _pair(thresholds=Thresholds(skip_rate_window=40, skip_rate_threshold=0.2))
    overflows = [s for s in range(200, 400) if s % 4 == 0]
    taken = _same_throughout(scaler_stream(overflows, 600, growth_interval=3), fast, slow)
    assert "AMP008" in [d.code for d in fast.diagnoses] and taken > 100


def test_static_scale_and_missing_values() -> None:
    static = {**SETUP, "scaler": "static"}
    fast, slow = _pair(static)
    stream = (Observation(s, scale_before=0.5, scale_after=0.5, skipped=False,
                          loss=None if s % 9 == 0 else 1.0, grad_norm=float(s))
              for s in range(300))
    _same_throughout(stream, fast, slow)
    fast, slow = _pair()
    stream = (Observation(s, scale_after=64.0, skipped=s == 150, loss=math.inf if s == 151
                          else 1.0) for s in range(300))
    _same_throughout(stream, fast, slow)
    assert "AMP006" in [d.code for d in fast.diagnoses]


def test_a_resume_and_a_log_gap_start_the_count_again() -> None:
    fast, slow = _pair()
    stream = list(scaler_stream([40, 41, 42], 300, growth_interval=50))
    _same_throughout(iter(stream[:150]), fast, slow)
    saved = slow.state_dict()
    for monitor in (fast, slow):
        monitor.load_state_dict(saved)
        monitor.advance(25)
    later = (Observation(o.step + 25, scale_before=o.scale_before, scale_after=o.scale_after,
                         loss=o.loss, growth_tracker=o.growth_tracker) for o in stream[150:])
    _same_throughout(later, fast, slow)
