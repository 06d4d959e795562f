"""What capturing each step for a failing-step re-run costs healthy steps.

Per framework, three variants run alternately in rotated order (``rounds`` rounds): ``a`` no
callback, ``b`` denpex as it ships (``MonitorConfig.rerun`` on: a forward pre-hook keeps a
reference to the inputs, the RNG state and the parameters' version counters before every
training forward), ``b-off`` denpex with ``rerun=False``. The capture's own cost is the paired
ratio b / b-off (median over rounds of the ratio within a round); b / a is denpex's whole cost
with it. Target: b / a within 1.02.

A ratio of 1.01 drowns in the noise of a loaded CPU, so the capture is also timed on its own
(:func:`capture_cost`: the three calls a step makes, on the workload's model and batch, median
of blocks) and set against variant a's median step: ``capture_estimate`` = 1 + that / step.
Usage::

    .venv/bin/python benchmarks/run_all.py --only rerun --frameworks torch,hf
"""

from __future__ import annotations

import statistics
import tempfile
import time
from types import ModuleType
from typing import Any

from benchmarks.frameworks.base import DENPEX, NONE, RunResult, RunSpec
from benchmarks.step_overhead import TIMED, each_framework, variant_and_counter
from benchmarks.timing import compare, rotated_rounds
from benchmarks.workloads import Workload
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.locate.rerun import FailingStepRerun

CAPTURE_OFF = "b-off"
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    NONE: (NONE, {}),
    DENPEX: (DENPEX, {}),
    CAPTURE_OFF: (DENPEX, {"rerun": False}),
}
NAMES = {NONE: "no callback", DENPEX: "denpex (re-run capture on)",
         CAPTURE_OFF: "denpex, rerun=False"}
TARGET = 1.02


def measure(
    runner: ModuleType, workload: Workload, *, steps: int, rounds: int, device: str = "cpu",
    warmup: int = 10,
) -> dict[str, Any]:
    """Rotated rounds of a, b, b-off on one framework: medians and paired ratios."""

    def run_one(label: str) -> RunResult:
        # The hooks are timed in runs of their own (b and b-off), kept out of the ratios.
        name, syncs = variant_and_counter(label)
        variant, options = VARIANTS[name]
        with tempfile.TemporaryDirectory(prefix="denpex_bench_") as workdir:
            spec = RunSpec(variant, workload, steps, device=device, warmup=warmup,
                           workdir=workdir, denpex_options=options, syncs=syncs)
            result: RunResult = runner.run(spec)
            return result

    labels = [*VARIANTS, DENPEX + TIMED, CAPTURE_OFF + TIMED]
    runs = rotated_rounds(labels, rounds, run_one)
    timed_runs = {name: runs.pop(name + TIMED) for name in (DENPEX, CAPTURE_OFF)}
    per_step = {name: [r.per_step_s for r in results] for name, results in runs.items()}
    versus_none = compare(per_step, NONE)
    capture = compare(per_step, CAPTURE_OFF)[DENPEX]
    cost = capture_cost(workload)
    step_s = versus_none[NONE]["median_s"]
    # The adapters' hook time with and without the capture (net of the timer's own cost):
    # the capture's share of the hot path, inside real training steps.
    hooks = {name: statistics.median(values) if (values := [
        r.hook_net_s_per_step for r in timed_runs[name] if r.hook_net_s_per_step is not None])
        else None for name in (DENPEX, CAPTURE_OFF)}
    print(f"  capture alone: b / b-off paired {capture['paired_ratio']:.4f}x; timed alone "
          f"{cost * 1e6:.1f} µs/step, {1.0 + cost / step_s:.4f}x of a step; hooks net "
          + ", ".join(f"{name} {value * 1e6:.0f} µs" for name, value in hooks.items()
                      if value is not None), flush=True)
    return {
        "workload": workload.name,
        "capture_us_per_step": round(cost * 1e6, 2),
        "capture_estimate": round(1.0 + cost / step_s, 4) if step_s > 0 else None,
        "device": device,
        "steps": steps,
        "warmup": warmup,
        "rounds": rounds,
        "variants": {name: {"name": NAMES[name], "median_s": row["median_s"],
                            "ratio": row["ratio"], "paired_ratio": row["paired_ratio"]}
                     for name, row in versus_none.items()},
        "capture_paired_ratio": capture["paired_ratio"],
        "hooks_net_us": {name: None if value is None else round(value * 1e6, 1)
                         for name, value in hooks.items()},
        "within_target": (versus_none[DENPEX]["paired_ratio"] or 0.0) <= TARGET,
    }


def capture_cost(workload: Workload, steps: int = 2000, blocks: int = 9) -> float:
    """Seconds per step spent capturing (the forward pre-hook and the output hook,
    ``step_finished``, ``release``) on the workload's model and batch: the median of
    ``blocks`` blocks of ``steps`` steps."""
    model = workload.model()
    batch = workload.batches(1, "cpu")[0]
    output = model(**batch)
    monitor = Monitor(MonitorConfig(report_dir=None))
    rerun = FailingStepRerun(monitor, model)
    captures = rerun.captures
    per_block = []
    for _ in range(blocks):
        started = time.perf_counter()
        for step in range(steps):
            captures._on_forward("", model, (), batch)
            captures._on_output("", model, (), output)
            rerun.step_finished(step)
            monitor.run.last_step = step  # judged healthy, as the monitor would say
            rerun.release()
        per_block.append((time.perf_counter() - started) / steps)
    rerun.close()
    return statistics.median(per_block)


def run(
    workload: Workload, *, steps: int, rounds: int, device: str = "cpu", warmup: int = 10,
    only: list[str] | None = None,
) -> dict[str, Any]:
    """Every available framework (or those in ``only``); unavailable ones say why."""
    return each_framework(
        f"re-run capture overhead ({rounds} rounds x {len(VARIANTS)} variants x {steps} steps)",
        only,
        lambda runner: measure(runner, workload, steps=steps, rounds=rounds, device=device,
                               warmup=warmup),
    )
