"""What capturing each step for a failing-step re-run costs healthy steps.

Per framework, three variants run alternately in rotated order (``rounds`` rounds): ``a`` no
callback, ``b`` denpex as it ships (``MonitorConfig.rerun`` on: a forward pre-hook keeps a
reference to the inputs, the RNG state and the parameters' version counters before every
training forward), ``b-off`` denpex with ``rerun=False``. The capture's own cost is the paired
ratio b / b-off (median over rounds of the ratio within a round); b / a is denpex's whole cost
with it. Target: b / a within 1.02. Usage::

    .venv/bin/python benchmarks/run_all.py --only rerun --frameworks torch,hf
"""

from __future__ import annotations

import tempfile
from types import ModuleType
from typing import Any

from benchmarks.frameworks import available
from benchmarks.frameworks.base import DENPEX, NONE, RunResult, RunSpec
from benchmarks.timing import compare, rotated_rounds
from benchmarks.workloads import Workload

CAPTURE_OFF = "b-off"
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    NONE: (NONE, {}),
    DENPEX: (DENPEX, {}),
    CAPTURE_OFF: (DENPEX, {"rerun": False}),
}
TARGET = 1.02


def measure(
    runner: ModuleType, workload: Workload, *, steps: int, rounds: int, device: str = "cpu",
    warmup: int = 10,
) -> dict[str, Any]:
    """Rotated rounds of a, b, b-off on one framework: medians and paired ratios."""

    def run_one(name: str) -> RunResult:
        variant, options = VARIANTS[name]
        with tempfile.TemporaryDirectory(prefix="denpex_bench_") as workdir:
            spec = RunSpec(variant, workload, steps, device=device, warmup=warmup,
                           workdir=workdir, denpex_options=options)
            result: RunResult = runner.run(spec)
            return result

    runs = rotated_rounds(list(VARIANTS), rounds, run_one)
    per_step = {name: [r.per_step_s for r in results] for name, results in runs.items()}
    versus_none = compare(per_step, NONE)
    capture = compare(per_step, CAPTURE_OFF)[DENPEX]
    return {
        "workload": workload.name,
        "device": device,
        "steps": steps,
        "warmup": warmup,
        "rounds": rounds,
        "variants": {name: {"median_s": row["median_s"], "ratio": row["ratio"],
                            "paired_ratio": row["paired_ratio"]}
                     for name, row in versus_none.items()},
        "capture_paired_ratio": capture["paired_ratio"],
        "within_target": (versus_none[DENPEX]["paired_ratio"] or 0.0) <= TARGET,
    }


def run(
    workload: Workload, *, steps: int, rounds: int, device: str = "cpu", warmup: int = 10,
    only: list[str] | None = None,
) -> dict[str, Any]:
    """Every available framework (or those in ``only``); unavailable ones say why."""
    out: dict[str, Any] = {}
    for name, runner in available().items():
        if only and name not in only:
            continue
        if isinstance(runner, ImportError):
            out[name] = {"skipped": f"not available: {runner}"}
            continue
        print(f"re-run capture overhead: {name} ({rounds} rounds x {len(VARIANTS)} variants x "
              f"{steps} steps)...", flush=True)
        out[name] = measure(runner, workload, steps=steps, rounds=rounds, device=device,
                            warmup=warmup)
        print(format_table({name: out[name]}), flush=True)
    return out


def format_table(results: dict[str, Any]) -> str:
    """Plain-text table of :func:`run`'s results."""
    lines = []
    for name, result in results.items():
        if "variants" not in result:
            lines.append(f"  {name:10} {result.get('skipped', '')}")
            continue
        for variant, row in result["variants"].items():
            lines.append(f"  {name:10} ({variant:5}) {row['median_s'] * 1e3:9.3f} ms/step  "
                         f"paired vs a {row['paired_ratio']:.4f}x")
        lines.append(f"  {name:10} capture alone (b / b-off, paired): "
                     f"{result['capture_paired_ratio']:.4f}x; within {TARGET}: "
                     f"{result['within_target']}")
    return "\n".join(lines)
