"""Diagnosis accuracy on the fault zoo: id, first step and root cause, per scenario and adapter.

Usage::

    .venv/bin/python benchmarks/accuracy.py                       # every adapter available
    .venv/bin/python benchmarks/accuracy.py --adapters torch,hf --out /tmp/acc

Runs every scenario of ``tests/zoo/scenarios.py`` through each adapter's runner (the real
framework on CPU, the same runners the zoo's tests use) and writes
``benchmarks/results/accuracy-<date>.json`` and ``accuracy-<date>.md`` (the table). A healthy
control is right when nothing above info was reported.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ZOO = REPO / "tests" / "zoo"
RESULTS = REPO / "benchmarks" / "results"
ADAPTERS = ("torch", "hf", "lightning", "deepspeed", "accelerate", "fabric")

sys.path.insert(0, str(ZOO))  # the zoo's scenarios and runners (test helpers, not a package)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapters", default=",".join(ADAPTERS),
                        help="comma list (default: all whose runner and framework import)")
    parser.add_argument("--only", default="", help="comma list of scenario names")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the results")
    return parser.parse_args(argv)


def _runner(adapter: str) -> Any:
    try:
        return importlib.import_module(f"run_{adapter}")
    except ImportError as exc:  # the framework is not installed, or no runner yet
        print(f"{adapter}: skipped ({exc})", file=sys.stderr)
        return None


def run(adapters: list[str], only: set[str]) -> list[dict[str, Any]]:
    """Every (scenario, adapter) verdict, as dicts."""
    from judge import judge
    from scenarios import for_adapter

    rows: list[dict[str, Any]] = []
    for adapter in adapters:
        runner = _runner(adapter)
        if runner is None:
            continue
        for scenario in for_adapter(adapter):
            if only and scenario.name not in only:
                continue
            started = time.perf_counter()
            outcome = runner.run(scenario)
            verdict = judge(scenario, adapter, outcome, runner.STEP_OFFSET)
            row = verdict.to_dict()
            row.update(ok=verdict.ok, healthy=scenario.healthy,
                       seconds=round(time.perf_counter() - started, 2))
            rows.append(row)
            print(f"{adapter:10s} {scenario.name:32s} {'ok' if verdict.ok else 'WRONG'}",
                  file=sys.stderr)
    return rows


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The headline numbers: id+step right, cause right, healthy silent."""
    faults = [r for r in rows if not r["healthy"]]
    healthy = [r for r in rows if r["healthy"]]
    judged = [r for r in faults if r["cause_ok"] is not None]
    return {
        "runs": len(rows),
        "faults": len(faults),
        "id_and_step_right": sum(1 for r in faults if r["id_ok"] and r["step_ok"]),
        "cause_judged": len(judged),
        "cause_right": sum(1 for r in judged if r["cause_ok"]),
        "healthy": len(healthy),
        "healthy_silent": sum(1 for r in healthy if not r["loud"]),
    }


def markdown(rows: list[dict[str, Any]], summary: dict[str, Any]) -> str:
    """The results table: one row per scenario and adapter."""
    mark = {True: "yes", False: "**no**", None: "-"}
    out = [
        "| scenario | adapter | expected (id, step, cause) | got | id | step | cause |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        expected = "silent" if r["healthy"] else ", ".join(str(v) for v in r["expected"])
        got = ((" ".join(r["loud"]) or "silent") if r["healthy"]
               else ", ".join(str(v) for v in r["got"]))
        out.append(f"| {r['scenario']} | {r['adapter']} | {expected} | {got} | "
                   f"{mark[r['id_ok']]} | {mark[r['step_ok']]} | {mark[r['cause_ok']]} |")
    s = summary
    out += [
        "",
        f"id and step right: {s['id_and_step_right']}/{s['faults']} fault runs; cause right: "
        f"{s['cause_right']}/{s['cause_judged']}; healthy controls silent above info: "
        f"{s['healthy_silent']}/{s['healthy']}.",
    ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.getLogger("denpex_callbacks").setLevel(logging.CRITICAL)
    adapters = [a for a in args.adapters.split(",") if a]
    only = {n for n in args.only.split(",") if n}
    rows = run(adapters, only)
    summary = totals(rows)
    date = time.strftime("%Y-%m-%d")
    args.out.mkdir(parents=True, exist_ok=True)
    document = {"date": date, "summary": summary, "rows": rows}
    (args.out / f"accuracy-{date}.json").write_text(json.dumps(document, indent=1) + "\n")
    (args.out / f"accuracy-{date}.md").write_text(markdown(rows, summary))
    print(markdown(rows, summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
