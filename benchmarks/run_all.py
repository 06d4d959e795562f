"""Run every benchmark, write ``benchmarks/results/<date>-cpu.json``, refresh docs/benchmarks.md.

Usage (``make bench`` runs the first)::

    .venv/bin/python benchmarks/run_all.py                   # full settings (~15 minutes)
    .venv/bin/python benchmarks/run_all.py --quick --out /tmp/b   # seconds: a smoke run
    .venv/bin/python benchmarks/run_all.py --only step --frameworks torch,hf
    .venv/bin/python benchmarks/run_all.py --only rerun    # the re-run capture's own cost
    .venv/bin/python benchmarks/run_all.py --only pairs --rounds 15   # (b)/(a) resolved finely

Full settings: step overhead of a 3 x 256 MLP, batch 64, 300 fp16 steps on CPU, 5 rotated
rounds; Monitor cost over 100 000 observations, 5 rounds; the log doctor on a 1 GB log.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `benchmarks` as a package

from benchmarks import (
    alert_overhead,
    core_micro,
    log_doctor_run,
    render,
    rerun_overhead,
    step_overhead,
)
from benchmarks.machine import load_note, machine, now, versions
from benchmarks.workloads import MLP_CPU, MLP_TINY

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
PARTS = ("core", "step", "rerun", "logs")
# On request: step time with alerts to a hanging webhook; variants a and b alone, alternated
# (the overhead ratio resolved finely, in wall and CPU time).
EXTRA_PARTS = ("alerts", "pairs")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes (a smoke run of the harness; numbers mean nothing)")
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma list of {PARTS + EXTRA_PARTS}")
    parser.add_argument("--frameworks", default="", help="comma list (default: all available)")
    parser.add_argument("--steps", type=int, help="optimizer steps per run (default 300)")
    parser.add_argument("--rounds", type=int, help="rotated rounds (default 7)")
    parser.add_argument("--observations", type=int, help="core stream length (default 100000)")
    parser.add_argument("--log-size-mb", type=int, help="log doctor file size (default 1024)")
    parser.add_argument("--log-sizes", default="100,300",
                        help="smaller log sizes in MB, run too: peak RSS flat in file size")
    parser.add_argument("--baseline",
                        help="another checkout's Python: its denpex read the smallest logs "
                             "beside this one (before/after)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results JSON")
    parser.add_argument("--no-readme", action="store_true",
                        help="do not refresh the table in docs/benchmarks.md")
    return parser.parse_args(argv)


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """Sizes of this run: the full ones, ``--quick`` ones, or what the flags say."""
    quick = args.quick
    return {
        "quick": quick,
        "workload": (MLP_TINY if quick else MLP_CPU).name,
        "steps": args.steps or (12 if quick else 300),
        "warmup": 3 if quick else 10,
        "rounds": args.rounds or (1 if quick else 7),
        "observations": args.observations or (2_000 if quick else 100_000),
        "core_rounds": 1 if quick else 5,
        "log_size_mb": args.log_size_mb or (1 if quick else 1024),
        "log_sizes_mb": [] if quick else [int(x) for x in args.log_sizes.split(",") if x],
        "log_rounds": 1 if quick else 3,
        "torch_threads": args.threads,
    }


def main(argv: list[str] | None = None) -> Path:
    args = parse_args(argv)
    conf = settings(args)
    parts = [p for p in args.only.split(",") if p]
    # As the Makefile sets them: offline, DeepSpeed's JIT-built CPU ops cached in the repo.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", str(REPO / ".cache" / "torch_extensions"))
    import torch

    torch.set_num_threads(conf["torch_threads"])
    results: dict[str, Any] = {
        "date": now(), "machine": machine(), "versions": versions(), "settings": conf,
    }
    if "core" in parts:
        results["core"] = core_micro.run(conf["observations"], conf["core_rounds"])
    if "step" in parts:
        workload = MLP_TINY if conf["quick"] else MLP_CPU
        results["step_overhead"] = step_overhead.run(
            workload, steps=conf["steps"], rounds=conf["rounds"], warmup=conf["warmup"],
            only=[f for f in args.frameworks.split(",") if f] or None,
        )
    if "pairs" in parts:
        workload = MLP_TINY if conf["quick"] else MLP_CPU
        results["step_pairs"] = step_overhead.run(
            workload, steps=conf["steps"], rounds=conf["rounds"], warmup=conf["warmup"],
            only=[f for f in args.frameworks.split(",") if f] or None, pairs=True,
        )
    if "rerun" in parts:
        workload = MLP_TINY if conf["quick"] else MLP_CPU
        results["rerun_capture"] = rerun_overhead.run(
            workload, steps=conf["steps"], rounds=conf["rounds"], warmup=conf["warmup"],
            only=[f for f in args.frameworks.split(",") if f] or None,
        )
    if "alerts" in parts:
        workload = MLP_TINY if conf["quick"] else MLP_CPU
        results["alert_overhead"] = alert_overhead.run(
            workload, steps=conf["steps"], rounds=conf["rounds"], warmup=conf["warmup"],
            only=[f for f in args.frameworks.split(",") if f] or None,
        )
    if "logs" in parts:
        sizes = sorted({*conf["log_sizes_mb"], conf["log_size_mb"]})
        # the second log: 30% of the lines are metric lines only the generic reader knows
        for key, generic in (("log_doctor", 0.0), ("log_doctor_generic", 0.3)):
            results[key] = log_doctor_run.run_sizes(sizes, generic, rounds=conf["log_rounds"],
                                                    baseline=args.baseline)
    results["load_average_after"] = machine()["load_average"]
    notes = [n for n in (load_note(results["machine"]["load_average"], results["machine"]["cpus"]),
                         load_note(results["load_average_after"], results["machine"]["cpus"]))
             if n]
    results["notes"] = sorted(set(notes))
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = results["date"][:16].replace(":", "").replace("T", "-")
    path: Path = args.out / f"{stamp}-{'quick' if conf['quick'] else 'cpu'}.json"
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"results: {path}")
    for note in results["notes"]:
        print(f"note: {note}")
    if not conf["quick"] and not args.no_readme and args.out == RESULTS:
        print(f"table: {render.update_readme(path)}")
    return path


if __name__ == "__main__":
    main()
