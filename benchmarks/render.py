"""Render benchmark results JSON as Markdown and refresh the table in docs/benchmarks.md.

Usage::

    .venv/bin/python benchmarks/render.py                      # latest CPU (and GPU) results
    .venv/bin/python benchmarks/render.py benchmarks/results/X.json --print
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
README = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"  # the page with the table
BEGIN, END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"
COLUMNS = ("a", "b", "b+device", "c", "d")
PARTS = ("step_overhead", "step_pairs", "core", "log_doctor", "log_doctor_generic")  # keys


def _ms(row: dict[str, Any]) -> str:
    return f"{row['median_s'] * 1e3:.3f} ms"


def step_table(step: dict[str, Any]) -> list[str]:
    """Markdown rows: per framework, ms/step and the ratio to (a) of each variant."""
    lines = [
        "| framework | (a) no callback | (b) denpex, default | (b) denpex, device path (CPU"
        " stand-in) | (c) naive get_scale()+float(loss) | (d) framework's heavy option"
        " | inside denpex's hooks |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, result in step.items():
        if "variants" not in result:
            lines.append(f"| {name} | {result.get('skipped', 'not run')} | | | | | |")
            continue
        cells = []
        for column in COLUMNS:
            row = result["variants"].get(column)
            if row is None:
                cells.append("n/a")
            elif column == "a":
                cells.append(_ms(row))
            else:
                paired = row.get("paired_ratio")
                cells.append(f"{_ms(row)} (**{row['ratio']:.3f}x**"
                             + (f", paired {paired:.3f}x" if paired is not None else "") + ")")
        if "d" in result["variants"]:
            cells[-1] += f"<br>`{result['heavy_option']}`"
        hook_s, cpu_s = result.get("denpex_hook_s_per_step"), result.get(
            "denpex_hook_cpu_s_per_step")
        net_s = result.get("denpex_hook_net_s_per_step")
        cells.append("n/a" if hook_s is None else (
            f"**{net_s * 1e6:.0f} µs/step** net, " if net_s is not None else "")
            + f"{hook_s * 1e6:.0f} µs/step timed"
            + (f" (CPU {cpu_s * 1e6:.0f} µs)" if cpu_s is not None else "")
            # What cold code cost at that minute (a timed no-op at each step's end): the
            # hooks' time moves with it on a shared machine.
            + (f"; probe {result['timer_s_per_call'] * 1e6:.1f} µs"
               if result.get("timer_s_per_call") is not None else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def pairs_table(pairs: dict[str, Any]) -> list[str]:
    """Markdown rows of the a/b pairs run: per framework, (b)'s paired ratio to (a) in wall
    and in CPU time, each with the middle half of its per-round ratios."""
    lines = ["| framework | (a) no callback | (b) denpex, default | paired (b)/(a), wall time "
             "| paired (b)/(a), thread CPU time |", "|---|---|---|---|---|"]
    for name, result in pairs.items():
        if "variants" not in result:
            lines.append(f"| {name} | {result.get('skipped', 'not run')} | | | |")
            continue
        a, b = result["variants"]["a"], result["variants"]["b"]

        def paired(row: dict[str, Any]) -> str:
            low, high = row.get("paired_quartiles") or (None, None)
            spread = f" (middle half {low:.3f}-{high:.3f})" if low is not None else ""
            return f"**{row['paired_ratio']:.3f}x**{spread}"

        lines.append(f"| {name} | {_ms(a)} (CPU {_ms(a['cpu'])}) | {_ms(b)} (CPU {_ms(b['cpu'])}) "
                     f"| {paired(b)} | {paired(b['cpu'])} |")
    return lines


def _versions(results: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in results["versions"].items())


def render(results: dict[str, Any], title: str) -> str:
    """One results file as Markdown."""
    conf, host = results["settings"], results["machine"]
    out = [f"### {title}", "",
           f"Measured {results['date']} on {host['cpu']} ({host['cpus']} CPUs"
           + (f", {host['gpu']}" if host.get("gpu") else "")
           + f"), load average {host['load_average'][0]}; {_versions(results)}.", ""]
    if "step_overhead" in results:
        out += [f"Step overhead: {conf['workload']}, {conf['steps']} fp16 steps per run "
                f"({conf['warmup']} warm-up steps not timed), median per-step time of "
                f"{conf['rounds']} rotated rounds, ratio to (a) (ratio of medians; paired: median "
                f"of the per-round ratios):", ""]
        out += [*step_table(results["step_overhead"]), ""]
    if "step_pairs" in results:
        out += [f"Step overhead, (a) and (b) alone, alternated (a b, b a, ...): "
                f"{conf['workload']}, {conf['steps']} fp16 steps per run, {conf['rounds']} "
                "rounds; paired: the median of the per-round ratios (middle half of them in "
                "parentheses), in wall time and in the thread's CPU time:", ""]
        out += [*pairs_table(results["step_pairs"]), ""]
    if "core" in results:
        cost = results["core"]["us_per_observation"]
        out += [f"Monitor cost per observation, all detectors on "
                f"({results['core']['steps']} observations, median of "
                f"{results['core']['rounds']}): "
                + ", ".join(f"{k} **{v:.1f} µs**" for k, v in cost.items()) + ".", ""]
    for key, what in (("log_doctor", "log"),
                      ("log_doctor_generic", "log where 30% of lines are generic metric lines")):
        if key in results:
            out += [_log_line(results[key], what), ""]
    out += [f"Note: {note}" for note in results.get("notes", [])]
    return "\n".join(out).rstrip() + "\n"


def _log_line(logs: dict[str, Any], what: str) -> str:
    if "denpex_mb_s" not in logs:
        return f"Log doctor ({what}): {logs.get('skipped') or logs.get('error')}"
    return (f"Log doctor on a generated {logs.get('file_mb', logs['size_mb']):.0f} MB {what}: "
            f"**{logs['denpex_mb_s']:.0f} MB/s** "
            f"({100 * logs.get('share_of_grep', 0):.0f}% of `grep -cE` on the same "
            f"patterns, {logs.get('grep_mb_s', 0):.0f} MB/s"
            + (f"; {logs['times_python_loop']:.1f}x a Python per-line regex loop, "
               f"{logs['python_loop_mb_s']:.0f} MB/s" if "times_python_loop" in logs else "")
            + (f"; {logs['denpex_one_process_mb_s']:.0f} MB/s with `--workers 0`"
               if "denpex_one_process_mb_s" in logs else "")
            + f"), peak RSS {logs.get('denpex_peak_rss_mb', 0):.0f} MB."
            + "".join(f" {_size_line(row)}" for row in logs.get("sizes", [])
                      if row.get("size_mb") != logs.get("size_mb")))


def _size_line(row: dict[str, Any]) -> str:
    """One smaller size of the same log: speed, peak RSS, and the baseline's beside it."""
    text = (f"At {row.get('file_mb') or row['size_mb']:.0f} MB: {row.get('denpex_mb_s') or 0:.0f}"
            f" MB/s ({100 * (row.get('share_of_grep') or 0):.0f}% of grep), peak RSS "
            f"{row.get('denpex_peak_rss_mb') or 0:.0f} MB")
    if row.get("baseline_mb_s"):
        text += (f"; the baseline beside it {row['baseline_mb_s']:.0f} MB/s, peak RSS "
                 f"{row.get('baseline_peak_rss_mb') or 0:.0f} MB")
    return text + "."


def latest(kind: str, folder: Path = RESULTS) -> Path | None:
    """The newest results file of ``kind`` (``cpu`` or ``gpu``) by its date."""
    found = sorted(folder.glob(f"*-{kind}.json"))
    return found[-1] if found else None


def latest_per_part(kind: str, folder: Path = RESULTS) -> list[tuple[Path, dict[str, Any]]]:
    """For each part (step overhead, core, each log), the newest ``kind`` results file that
    holds it: a run of one part (``--only logs``) does not hide the others' latest numbers.
    Returns (file, its results cut to the parts it is the newest for), oldest file first."""
    loaded = [(path, json.loads(path.read_text()))
              for path in sorted(folder.glob(f"*-{kind}.json"), reverse=True)]
    chosen: dict[Path, dict[str, Any]] = {}
    for part in PARTS:
        path, results = next(((p, r) for p, r in loaded if part in r), (None, None))
        if path is not None and results is not None:
            base = {k: v for k, v in results.items() if k not in PARTS}
            chosen.setdefault(path, base)[part] = results[part]
    return sorted(chosen.items())


def update_readme(cpu: Path | None = None, readme: Path = README) -> Path:
    """Replace the table between the markers in ``readme`` with the latest results of each
    part (``cpu``: a results file just written; its folder is searched)."""
    folder = cpu.parent if cpu is not None else RESULTS
    cpu_kind = cpu.stem.rsplit("-", 1)[-1] if cpu is not None else "cpu"  # "quick" too
    blocks = []
    for kind in (cpu_kind, "gpu"):
        title = "GPU (`scripts/gpu_check.sh`)" if kind == "gpu" else "CPU (`make bench`)"
        for path, results in latest_per_part(kind, folder):
            blocks.append(render(results, title)
                          + f"\nSource: `benchmarks/results/{path.name}`.\n")
    text = readme.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(f"{head}{BEGIN}\n" + "\n".join(blocks) + f"{END}{tail}")
    return readme


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", type=Path, help="a results JSON (default: latest)")
    parser.add_argument("--print", action="store_true", help="print instead of updating")
    args = parser.parse_args(argv)
    if args.print:
        path = args.results or latest("cpu")
        if path is None:
            sys.exit("no results yet: run benchmarks/run_all.py")
        print(render(json.loads(path.read_text()), path.name), end="")
        return
    print(update_readme(args.results))


if __name__ == "__main__":
    main()
