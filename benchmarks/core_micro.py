"""Monitor cost per observation (µs), every detector on, without and with the run report.

Streams imitate a dynamic GradScaler: ``healthy`` (start-up back-off, then the sawtooth: the
scale grows after ``GROWTH_INTERVAL`` clean steps and overflows ``OVERFLOW_AFTER_GROWTH`` steps
later) and ``faulty`` (the same, then an inf loss from the middle on: every later step skipped,
the scale collapsing to 0, diagnoses firing and then rate-limited). The healthy stream must draw
no diagnosis above info (:func:`run` checks it): until 2026-11-30 it overflowed every
``GROWTH_INTERVAL`` steps, which resets the tracker before it can reach the interval, so its
scale only ever fell and the "healthy" figure timed a slow collapse (AMP004 from step 2400).
Observations are built before timing; only ``Monitor.observe`` is timed.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from typing import Any

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.core.detectors import default_detectors

GROWTH_INTERVAL = 200
STARTUP_BACKOFF = 5
OVERFLOW_AFTER_GROWTH = 10


def stream(steps: int, *, fault_from: int | None = None) -> list[Observation]:
    """Observations of a GradScaler run (``fault_from``: inf loss from that step on)."""
    out = []
    scale, tracker = 2.0**16, 0
    since_growth: int | None = None  # steps since the scale last grew
    for step in range(steps):
        faulty = fault_from is not None and step >= fault_from
        overflow = faulty or step < STARTUP_BACKOFF or since_growth == OVERFLOW_AFTER_GROWTH
        before = scale
        if overflow:
            scale, tracker, since_growth = scale * 0.5, 0, None
        else:
            tracker += 1
            if since_growth is not None:
                since_growth += 1
            if tracker == GROWTH_INTERVAL:
                scale, tracker, since_growth = scale * 2.0, 0, 0
        out.append(Observation(
            step, scale_before=before, scale_after=scale,
            loss=float("inf") if faulty else 1.0 / (1.0 + step * 1e-3),
            grad_norm=0.5, lr=1e-4, growth_tracker=tracker, time=1.7e9 + step * 0.1,
        ))
    return out


def _monitor(report_dir: str | None) -> Monitor:
    monitor = Monitor(MonitorConfig(report_dir=report_dir), framework="torch")
    monitor.start(RunSetup(framework="torch", active_precision="fp16-mixed", scaler="dynamic",
                           init_scale=2.0**16, growth_interval=GROWTH_INTERVAL,
                           growth_factor=2.0, backoff_factor=0.5))
    return monitor


def time_stream(observations: list[Observation], report_dir: str | None, *,
                healthy: bool = False) -> float:
    """Seconds per ``observe`` call over the stream, on a fresh Monitor.

    ``healthy``: the stream must draw no warning or error, else the figure would time a fault.
    """
    monitor = _monitor(report_dir)
    monitor.logger.disabled = True  # the console is not what is measured
    try:
        start = time.perf_counter()
        for obs in observations:
            monitor.observe(obs)
        elapsed = time.perf_counter() - start
        monitor.close()
    finally:
        monitor.logger.disabled = False
    if monitor.disabled:
        raise RuntimeError("the Monitor hit an internal error during the benchmark")
    if healthy and monitor.faults():
        raise RuntimeError(f"the healthy stream drew {monitor.faults()[0].code}")
    return elapsed / len(observations)


def run(steps: int, rounds: int) -> dict[str, Any]:
    """µs per observation for each stream, with and without a run report."""
    streams = {"healthy": stream(steps), "faulty": stream(steps, fault_from=steps // 2)}
    out: dict[str, Any] = {
        "steps": steps,
        "rounds": rounds,
        "detectors": [d.code for d in default_detectors()],
        "us_per_observation": {},
    }
    for report in (False, True):
        for name, observations in streams.items():
            samples = []
            for _ in range(rounds):
                with tempfile.TemporaryDirectory(prefix="denpex_core_") as folder:
                    samples.append(time_stream(observations, folder if report else None,
                                               healthy=name == "healthy"))
            key = f"{name}{'+report' if report else ''}"
            out["us_per_observation"][key] = round(statistics.median(samples) * 1e6, 2)
            print(f"core: {key:16} {out['us_per_observation'][key]:8.2f} µs/observation",
                  flush=True)
    return out
