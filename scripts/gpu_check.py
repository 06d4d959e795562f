"""The GPU check: real fp16 on CUDA through every adapter; faults, silence, syncs, overhead.

Run by ``scripts/gpu_check.sh OUTDIR`` (which installs what the GPU machine lacks); ``--cpu``
is the dry run the test suite uses: the same code paths on CPU with tiny sizes. For each
framework whose runner imports (``benchmarks/frameworks``):

1. ``fault``: an inf loss from step k; the first diagnosis above info must be AMP006 at the
   framework's number for step k, and the collapse AMP003 must follow.
2. ``healthy``: the same run without the fault reports nothing above info.
3. ``syncs``: synchronising CUDA operations counted over the whole run (sync debug mode "warn")
   for no callback / denpex / the naive monitor, and inside the adapter's own hook methods.
   denpex may add at most ``SYNC_SLACK`` over the run (none per step) and none in its hooks; the
   naive monitor must add at least one per step, else the counting itself is not working.
4. ``overhead``: the step-overhead comparison of ``benchmarks/step_overhead.py`` on a
   ~100M-parameter transformer, 50 steps, rotated rounds while the framework's share of the
   time budget lasts (one at least, while any budget is left).

Frameworks run one after the other (DeepSpeed last), each within an equal share of what is
left of the budget.

Writes ``OUTDIR/gpu_check.json`` (same layout as ``benchmarks/results/*.json``: copy it there as
``<date>-gpu.json`` and ``benchmarks/render.py`` puts it in docs/benchmarks.md). Exit status 0
when every check passed.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.frameworks import adapter_missing, available
from benchmarks.frameworks.base import DENPEX, NAIVE, NONE, RunResult, RunSpec
from benchmarks.machine import machine, now, versions
from benchmarks.step_overhead import format_table, summarize
from benchmarks.syncs import SyncCounter
from benchmarks.timing import rotated
from benchmarks.workloads import LM_100M, LM_TINY, Workload

SYNC_SLACK = 2  # syncs denpex may add over a whole run (start-up, close), never per step


@dataclass(frozen=True)
class Sizes:
    """How big each part of the check is."""

    check_workload: Workload
    check_steps: int
    fault_step: int
    sync_steps: int
    overhead_workload: Workload
    overhead_steps: int
    warmup: int
    max_rounds: int


GPU = Sizes(LM_TINY, 40, 12, 30, LM_100M, 50, 10, 5)
CPU = Sizes(LM_TINY, 16, 4, 4, LM_TINY, 5, 1, 1)


class Check:
    """Runs the parts, records each outcome, stops starting work when the budget is spent."""

    def __init__(self, device: str, sizes: Sizes, budget_s: float) -> None:
        self.device, self.sizes = device, sizes
        self.deadline = time.monotonic() + budget_s
        self.checks: list[dict[str, Any]] = []
        self.step_overhead: dict[str, Any] = {}

    def left_s(self) -> float:
        return self.deadline - time.monotonic()

    def spec(self, variant: str, workdir: str, **kwargs: Any) -> RunSpec:
        return RunSpec(variant, self.sizes.check_workload, self.sizes.check_steps,
                       device=self.device, warmup=self.sizes.warmup, workdir=workdir, **kwargs)

    def record(self, name: str, framework: str, body: Callable[[], dict[str, Any]]) -> None:
        """Run one check; an exception fails it with the traceback's tail."""
        entry: dict[str, Any] = {"check": name, "framework": framework}
        if self.left_s() <= 0:
            entry.update(ok=None, skipped="time budget spent")
        else:
            start = time.monotonic()
            try:
                entry.update(body())
            except Exception:
                entry.update(ok=False, error=traceback.format_exc().splitlines()[-12:])
            entry["seconds"] = round(time.monotonic() - start, 1)
        self.checks.append(entry)
        status = {True: "ok", False: "FAILED", None: "skipped"}[entry.get("ok")]
        print(f"gpu check: {framework:10} {name:8} {status}  "
              f"{json.dumps({k: v for k, v in entry.items() if k in SHOWN})}", flush=True)

    # -- the checks ----------------------------------------------------------------------------

    def fault(self, runner: ModuleType) -> dict[str, Any]:
        k = self.sizes.fault_step
        with tempfile.TemporaryDirectory(prefix="denpex_gpu_") as workdir:
            result = runner.run(self.spec(DENPEX, workdir, fault="inf", fault_step=k))
        faults = _above_info(result)
        expected = k + result.first_step
        first = (faults[0]["code"], faults[0]["step"]) if faults else None
        codes = [d["code"] for d in faults]
        return {
            "ok": first == ("AMP006", expected) and "AMP003" in codes,
            "expected_first": ["AMP006", expected],
            "first": first,
            "diagnoses": [(d["code"], d["step"], d["severity"]) for d in result.diagnoses],
        }

    def healthy(self, runner: ModuleType) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="denpex_gpu_") as workdir:
            result = runner.run(self.spec(DENPEX, workdir))
        faults = _above_info(result)
        return {
            "ok": not faults and result.steps_run == self.sizes.check_steps,
            "steps_run": result.steps_run,
            "diagnoses": [(d["code"], d["step"], d["severity"]) for d in result.diagnoses],
        }

    def syncs(self, runner: ModuleType) -> dict[str, Any]:
        steps = self.sizes.sync_steps
        counters: dict[str, SyncCounter] = {}
        for variant in (NONE, DENPEX, NAIVE):
            counters[variant] = SyncCounter(enabled=self.device != "cpu")
            with tempfile.TemporaryDirectory(prefix="denpex_gpu_") as workdir:
                runner.run(RunSpec(variant, self.sizes.check_workload, steps, device=self.device,
                                   warmup=self.sizes.warmup, workdir=workdir,
                                   syncs=counters[variant]))
        counts = {variant: counter.summary(steps) for variant, counter in counters.items()}
        added = counts[DENPEX]["syncs_total"] - counts[NONE]["syncs_total"]
        control = counts[NAIVE]["syncs_total"] - counts[NONE]["syncs_total"]
        out: dict[str, Any] = {
            "steps": steps,
            "added_by_denpex": added,
            "in_denpex_hooks": counts[DENPEX]["syncs_in_adapter_hooks"],
            "denpex_hook_calls": counts[DENPEX]["adapter_hook_calls"],
            "added_by_naive": control,
            # Lines that synchronised more often with denpex than without: where to look.
            "denpex_sources": dict((counters[DENPEX].sources - counters[NONE].sources)
                                   .most_common(8)),
            "counts": counts,
        }
        if self.device == "cpu":
            out.update(ok=True, note="dry run: CPU has no device to synchronise; nothing counted")
            return out
        if control < steps:
            out.update(ok=False, note="the naive monitor added fewer syncs than steps: the "
                                      "counting does not see syncs, so the result proves nothing")
            return out
        out["ok"] = added <= SYNC_SLACK and out["in_denpex_hooks"] == 0
        return out

    def framework(self, name: str, runner: ModuleType, frameworks_left: int) -> None:
        """One framework's checks, then its overhead rounds, within its share of the budget.

        Frameworks run one after the other, not interleaved: DeepSpeed (last) leaves its
        process group and distributed environment behind, which would turn the next HF
        Trainer into a one-rank distributed run.
        """
        until = time.monotonic() + self.left_s() / frameworks_left
        for part in ("fault", "healthy", "syncs"):
            self.record(part, name, functools.partial(getattr(self, part), runner))
        result = self.overhead(name, runner, until)
        if result is not None:
            self.step_overhead[name] = result

    def overhead(self, name: str, runner: ModuleType, until: float) -> dict[str, Any] | None:
        """Rotated rounds of the variants while they fit before ``until`` (one at least, while
        any budget is left); a failing run is recorded as a failed check."""
        runs: dict[str, list[RunResult]] = {v: [] for v in runner.VARIANTS}
        longest = 0.0
        for index in range(self.sizes.max_rounds):
            start = time.monotonic()
            if self.left_s() <= 0 or (index and start + longest > until):
                break
            try:
                for variant in rotated(runner.VARIANTS, index):
                    runs[variant].append(self._timed_run(runner, variant))
            except Exception:
                self.checks.append({"check": "overhead", "framework": name, "ok": False,
                                    "error": traceback.format_exc().splitlines()[-12:]})
                break
            longest = max(longest, time.monotonic() - start)
        if not all(runs.values()):
            return None
        sizes = self.sizes
        return summarize(runner, sizes.overhead_workload, runs, steps=sizes.overhead_steps,
                         warmup=sizes.warmup, device=self.device)

    def _timed_run(self, runner: ModuleType, variant: str) -> RunResult:
        sizes = self.sizes
        gc.collect()  # the previous run's garbage is not this run's cost
        with tempfile.TemporaryDirectory(prefix="denpex_gpu_") as workdir:
            spec = RunSpec(variant, sizes.overhead_workload, sizes.overhead_steps,
                           device=self.device, warmup=sizes.warmup, workdir=workdir)
            result: RunResult = runner.run(spec)
            return result

    def summary(self) -> dict[str, Any]:
        """The JSON summary (also written after each framework, so a killed run leaves one)."""
        sizes, step_overhead = self.sizes, self.step_overhead
        failed = [f"{c['framework']}:{c['check']}" for c in self.checks if c.get("ok") is False]
        return {
            "date": now(),
            "machine": _environment(self.device),
            "versions": versions(),
            "settings": {
                "device": self.device, "workload": sizes.overhead_workload.name,
                "steps": sizes.overhead_steps, "warmup": sizes.warmup,
                "rounds": min((r["rounds"] for r in step_overhead.values()), default=0),
                "check_workload": sizes.check_workload.name, "check_steps": sizes.check_steps,
                "fault_step": sizes.fault_step, "sync_steps": sizes.sync_steps,
                "sync_slack": SYNC_SLACK,
            },
            "ok": not failed,
            "failed": failed,
            "checks": self.checks,
            "step_overhead": step_overhead,
            "notes": [] if step_overhead else ["step overhead not measured"],
        }


SHOWN = ("first", "expected_first", "added_by_denpex", "in_denpex_hooks", "added_by_naive",
         "denpex_sources", "steps_run", "skipped", "seconds")


def _above_info(result: RunResult) -> list[dict[str, Any]]:
    return [d for d in result.diagnoses if d["severity"] != "info"]


def _environment(device: str) -> dict[str, Any]:
    import torch

    host = machine()
    if device != "cpu":
        host["gpu"] = torch.cuda.get_device_name()
    host["torch_cuda"] = torch.version.cuda
    return host


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--cpu", action="store_true", help="dry run on CPU with tiny sizes")
    parser.add_argument("--budget-s", type=float, default=380.0,
                        help="stop starting new runs after this many seconds (default 380)")
    parser.add_argument("--frameworks", default="", help="comma list (default: all)")
    args = parser.parse_args(argv)
    import torch

    device = "cpu" if args.cpu else "cuda"
    if device == "cuda" and not torch.cuda.is_available():
        print("gpu check: no CUDA device (use --cpu for the dry run)", file=sys.stderr)
        return 2
    torch.manual_seed(0)
    sizes = CPU if args.cpu else GPU
    check = Check(device, sizes, args.budget_s)
    wanted = [f for f in args.frameworks.split(",") if f]
    runners: dict[str, ModuleType] = {}
    for name, runner in available().items():
        if wanted and name not in wanted:
            continue
        if isinstance(runner, ImportError):
            # A framework that does not import fails the check; an adapter this tree does not
            # have yet is only reported.
            missing = adapter_missing(runner)
            check.checks.append({"check": "import", "framework": name,
                                 "ok": None if missing else False, "error": str(runner)})
            print(f"gpu check: {name:10} import   {'skipped' if missing else 'FAILED'}  "
                  f"{runner}", flush=True)
        else:
            runners[name] = runner
    args.outdir.mkdir(parents=True, exist_ok=True)
    out = args.outdir / "gpu_check.json"
    for index, (name, runner) in enumerate(runners.items()):
        check.framework(name, runner, len(runners) - index)
        out.write_text(json.dumps(check.summary(), indent=1) + "\n")
    summary = check.summary()
    out.write_text(json.dumps(summary, indent=1) + "\n")
    print(format_table(check.step_overhead))
    failed = summary["failed"]
    print(f"gpu check: {'ok' if not failed else 'FAILED: ' + ', '.join(failed)}; summary in {out}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
