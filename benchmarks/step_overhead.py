"""Step overhead per framework: no callback / denpex / a naive monitor / the heavy option.

Each framework's variants run alternately in rotated order (``rounds`` rounds, one run of each
variant per round); the result is the median seconds per step of each variant and its ratio to
variant a (no callback). Usage: ``.venv/bin/python benchmarks/run_all.py --only step``.

The compared variants run without the hook timer; the time inside denpex's hooks comes from
one more run of variant b per round with its hooks timed (``TIMED``), outside the ratios. Timing
every watched call reads two clocks at each switch, one a system call: in variant b's own runs
that cost, not denpex's, was 20-70 µs a step on steps of 1.8-5 ms.

Variant b also runs through the device path (``DEVICE``: ``DENPEX_DEVICE_STANDIN=1``, each
step's values packed into one copy into the ring and read a hook later, as on CUDA), compared
beside the host path: what the path a GPU run takes costs on the CPU.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import tempfile
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from benchmarks.frameworks import available
from benchmarks.frameworks.base import (
    DENPEX,
    DEVICE_PATH,
    NONE,
    VARIANT_NAMES,
    RunResult,
    RunSpec,
)
from benchmarks.syncs import SyncCounter
from benchmarks.timing import compare, rotated_rounds
from benchmarks.workloads import Workload

TIMED = "+timed"  # a run label's suffix: the variant again, its hooks timed (not compared)
STANDIN_ENV = "DENPEX_DEVICE_STANDIN"


@contextlib.contextmanager
def device_path(on: bool) -> Iterator[None]:
    """Run denpex through the device stand-in (``on``) or the host path, whatever the
    environment says outside."""
    before = os.environ.get(STANDIN_ENV)
    os.environ[STANDIN_ENV] = "1" if on else "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(STANDIN_ENV, None)
        else:
            os.environ[STANDIN_ENV] = before


def variant_and_counter(label: str) -> tuple[str, SyncCounter]:
    """A run's variant and the counter it runs with: the hooks timed only in a ``TIMED`` run
    (the compared runs carry no timer: its clock reads would count as denpex's cost).

    Example:
        >>> [(v, c.timing) for v, c in map(variant_and_counter, ["b", "b" + TIMED])]
        [('b', False), ('b', True)]
    """
    timed = label.endswith(TIMED)
    variant = label.removesuffix(TIMED)
    return (DENPEX if variant == DEVICE_PATH else variant), SyncCounter(enabled=False,
                                                                        timing=timed)


def run_label(runner: ModuleType, label: str, workload: Workload, *, steps: int, device: str,
              warmup: int) -> RunResult:
    """One run of the variant ``label`` names (through the device path for ``b+device``, its
    hooks timed for ``b+timed``), in a scratch folder of its own."""
    variant, syncs = variant_and_counter(label)
    with tempfile.TemporaryDirectory(prefix="denpex_bench_") as workdir, device_path(
            label == DEVICE_PATH):
        spec = RunSpec(variant, workload, steps, device=device, warmup=warmup,
                       workdir=workdir, syncs=syncs)
        result: RunResult = runner.run(spec)
        return result


def measure(
    runner: ModuleType, workload: Workload, *, steps: int, rounds: int, device: str = "cpu",
    warmup: int = 10,
) -> dict[str, Any]:
    """Rotated rounds of the runner's variants; medians and ratios to variant a."""
    # The hooks are timed in one more run of variant b each round, kept out of the ratios.
    labels = ((*runner.VARIANTS, DEVICE_PATH, DENPEX + TIMED) if DENPEX in runner.VARIANTS
              else runner.VARIANTS)
    runs = rotated_rounds(labels, rounds, lambda label: run_label(
        runner, label, workload, steps=steps, device=device, warmup=warmup))
    return summarize(runner, workload, runs, steps=steps, warmup=warmup, device=device)


def settings_of(workload: Workload, *, steps: int, warmup: int, rounds: int,
                device: str) -> dict[str, Any]:
    """The settings a framework's entry of the results starts with."""
    return {"workload": workload.name, "parameters": workload.parameters(), "device": device,
            "steps": steps, "warmup": warmup, "rounds": rounds}


def measure_pairs(
    runner: ModuleType, workload: Workload, *, steps: int, rounds: int, device: str = "cpu",
    warmup: int = 10,
) -> dict[str, Any]:
    """Variant a and variant b only, alternately (a b, b a, a b...): every round's two runs
    are minutes' neighbours, so the paired ratio compares runs in the same load. Timed in
    wall time and in the thread's CPU time (which another process does not inflate); the
    quartiles of the per-round ratios say how finely the run resolves the ratio."""

    runs = rotated_rounds((NONE, DENPEX), rounds, lambda label: run_label(
        runner, label, workload, steps=steps, device=device, warmup=warmup))
    wall = compare({v: [r.per_step_s for r in results] for v, results in runs.items()}, NONE)
    cpu = compare({v: [r.per_step_cpu_s for r in results] for v, results in runs.items()}, NONE)
    return {
        **settings_of(workload, steps=steps, warmup=warmup, rounds=rounds, device=device),
        "variants": {v: {"name": VARIANT_NAMES[v], **wall[v], "cpu": cpu[v]} for v in runs},
    }


def summarize(
    runner: ModuleType, workload: Workload, runs: dict[str, list[RunResult]], *, steps: int,
    warmup: int, device: str,
) -> dict[str, Any]:
    """One framework's entry of the results: settings, medians and ratios to variant a, and
    the median time spent inside denpex's own hook methods per step (from the timed runs of
    variant b where there are some, else from variant b's)."""
    timed_runs = runs.pop(DENPEX + TIMED, [])
    table = compare({v: [r.per_step_s for r in results] for v, results in runs.items()}, NONE)
    denpex = timed_runs or runs.get(DENPEX, [])
    hooks = [r.hook_s_per_step for r in denpex if r.hook_s_per_step is not None]
    cpu = [r.hook_cpu_s_per_step for r in denpex if r.hook_cpu_s_per_step is not None]
    net = [r.hook_net_s_per_step for r in denpex if r.hook_net_s_per_step is not None]
    net_cpu = [r.hook_net_cpu_s_per_step for r in denpex if r.hook_net_cpu_s_per_step is not None]
    calls = [r.hook_calls_per_step for r in denpex if r.hook_calls_per_step is not None]
    timer = [r.timer_s_per_call for r in denpex if r.timer_s_per_call is not None]
    return {
        **settings_of(workload, steps=steps, warmup=warmup,
                      rounds=min(len(v) for v in runs.values()), device=device),
        "heavy_option": runner.HEAVY_OPTION,
        "variants": {v: {"name": VARIANT_NAMES[v], **table[v]} for v in runs},
        "denpex_hook_s_per_step": statistics.median(hooks) if hooks else None,
        "denpex_hook_cpu_s_per_step": statistics.median(cpu) if cpu else None,
        # The same less the timing wrapper's own cost on each watched call (a watched no-op
        # timed at each step's end: benchmarks.syncs.SyncCounter.probe).
        "denpex_hook_net_s_per_step": statistics.median(net) if net else None,
        "denpex_hook_net_cpu_s_per_step": statistics.median(net_cpu) if net_cpu else None,
        "denpex_hook_calls_per_step": statistics.median(calls) if calls else None,
        "timer_s_per_call": statistics.median(timer) if timer else None,
        # Variant b's step time with its hooks timed: what the timer itself costs a step.
        "denpex_timed_s_per_step": (statistics.median(r.per_step_s for r in timed_runs)
                                    if timed_runs else None),
        "denpex_hooks": runner.WATCHED_HOOKS,
    }


def run(
    workload: Workload, *, steps: int, rounds: int, device: str = "cpu", warmup: int = 10,
    only: list[str] | None = None, pairs: bool = False,
) -> dict[str, Any]:
    """Every available framework (or those in ``only``); unavailable ones say why.
    ``pairs``: variants a and b alone (:func:`measure_pairs`), else every variant."""
    how = measure_pairs if pairs else measure
    return each_framework(
        f"step overhead{', a/b pairs' if pairs else ''} ({rounds} rounds x {steps} steps)", only,
        lambda runner: how(runner, workload, steps=steps, rounds=rounds, device=device,
                           warmup=warmup),
    )


def each_framework(
    title: str, only: list[str] | None, measure_one: Callable[[ModuleType], dict[str, Any]]
) -> dict[str, Any]:
    """``measure_one(runner)`` for every available framework (or those in ``only``), each
    table printed as it is done; unavailable ones say why."""
    out: dict[str, Any] = {}
    for name, runner in available().items():
        if only and name not in only:
            continue
        if isinstance(runner, ImportError):
            out[name] = {"skipped": f"not available: {runner}"}
            print(f"{title}: {name}: not available: {runner}", flush=True)
            continue
        print(f"{title}: {name}...", flush=True)
        out[name] = measure_one(runner)
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
            label = row["name"] if variant != "d" else result["heavy_option"]
            paired = row.get("paired_ratio")
            cpu_paired = row.get("cpu", {}).get("paired_ratio")
            lines.append(f"  {name:10} ({variant}) {label:48.48} "
                         f"{row['median_s'] * 1e3:9.3f} ms/step  {row['ratio']:6.3f}x"
                         + (f"  (paired {paired:.3f}x)" if paired is not None else "")
                         + (f"  (CPU time, paired {cpu_paired:.3f}x)"
                            if cpu_paired is not None else ""))
        if result.get("denpex_hook_s_per_step") is not None:
            cpu = result.get("denpex_hook_cpu_s_per_step")
            net, calls = result.get("denpex_hook_net_s_per_step"), result.get(
                "denpex_hook_calls_per_step")
            lines.append(f"  {name:10}     time inside {result['denpex_hooks']}: "
                         f"{result['denpex_hook_s_per_step'] * 1e6:.0f} µs/step"
                         + (f" (thread CPU time {cpu * 1e6:.0f} µs)" if cpu is not None else "")
                         + (f"; net of the timer's own cost ({calls:.0f} calls x "
                            f"{result['timer_s_per_call'] * 1e6:.1f} µs): {net * 1e6:.0f} µs"
                            if net is not None and calls is not None else ""))
        if result.get("denpex_timed_s_per_step") is not None:
            lines.append(f"  {name:10}     (variant b with its hooks timed, not compared: "
                         f"{result['denpex_timed_s_per_step'] * 1e3:.3f} ms/step)")
    return "\n".join(lines)
