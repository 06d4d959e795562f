"""Runs ``benchmarks/log_doctor.py`` (when present) and reads its printed figures."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).with_name("log_doctor.py")
FIGURES = {
    "grep_mb_s": r"^grep:\s+([\d.]+) MB/s",
    "denpex_mb_s": r"^denpex:\s+([\d.]+) MB/s",
    "denpex_one_process_mb_s": r"^denpex --workers 0:\s+([\d.]+) MB/s",
    "python_loop_mb_s": r"^python:\s+([\d.]+) MB/s",
    "denpex_peak_rss_mb": r"^denpex peak RSS:\s+([\d.]+) MB",
    "denpex_one_process_peak_rss_mb": r"^denpex --workers 0:.*peak RSS ([\d.]+) MB",
    "baseline_mb_s": r"^baseline:\s+([\d.]+) MB/s",
    "baseline_peak_rss_mb": r"^baseline:.*peak RSS ([\d.]+) MB",
    "load_before": r"^load:\s+([\d.]+) before",
    "load_after": r"^load:.* ([\d.]+) after",
    "file_mb": r"^file:\s+([\d.]+) MB",
}


def parse(output: str) -> dict[str, float]:
    """The figures found in the script's output.

    Example:
        >>> parse("file:   1024 MB, 2 CPUs\\ngrep:     1500.0 MB/s  (0.7 s)\\n")
        {'grep_mb_s': 1500.0, 'file_mb': 1024.0}
    """
    out = {}
    for key, pattern in FIGURES.items():
        found = re.search(pattern, output, re.MULTILINE)
        if found:
            out[key] = float(found.group(1))
    return out


def run(size_mb: int, generic: float = 0.0, *, rounds: int = 3,
        baseline: str | None = None, shape: str | None = None) -> dict[str, Any]:
    """Run the log doctor benchmark on a generated log of ``size_mb`` MB; ``generic``: the
    share of metric lines in formats no family parser knows; ``shape``: every line a metric
    line of that tool (``megatron``, ``nanogpt``); ``baseline``: another interpreter whose
    denpex runs beside (before/after)."""
    if not SCRIPT.exists():
        return {"skipped": f"{SCRIPT.name} not present"}
    kind = f"_{shape}" if shape else (f"_generic{round(generic * 100)}" if generic else "")
    print(f"log doctor: {size_mb} MB log{kind} (generated once under /tmp)...", flush=True)
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--size-mb", str(size_mb),
         "--path", f"/tmp/denpex_bench_{size_mb}mb{kind}.log", "--generic", str(generic),
         "--rounds", str(rounds), *(["--baseline", baseline] if baseline else []),
         *(["--shape", shape] if shape else [])],
        capture_output=True, text=True, check=False,
    )
    print(done.stdout, end="", flush=True)
    result: dict[str, Any] = {"size_mb": size_mb, "generic_share": generic, "shape": shape,
                              "rounds": rounds,
                              **parse(done.stdout), "output": done.stdout.strip().splitlines()}
    if done.returncode != 0:
        result["error"] = done.stderr.strip().splitlines()[-5:]
    if "grep_mb_s" in result and "denpex_mb_s" in result:
        result["share_of_grep"] = round(result["denpex_mb_s"] / result["grep_mb_s"], 3)
    if "python_loop_mb_s" in result and "denpex_mb_s" in result:
        result["times_python_loop"] = round(result["denpex_mb_s"] / result["python_loop_mb_s"], 2)
    if "baseline_mb_s" in result and "denpex_mb_s" in result:
        result["times_baseline"] = round(result["denpex_mb_s"] / result["baseline_mb_s"], 2)
    return result


def run_sizes(sizes: list[int], generic: float = 0.0, *, rounds: int = 3,
              baseline: str | None = None) -> dict[str, Any]:
    """The benchmark at each size (the largest last): its full result, with each size's
    speed and peak RSS under ``"sizes"`` (memory flat in the file size); ``baseline`` reads
    the smallest."""
    sizes = sorted(sizes)  # the baseline (slow before a speed-up) reads the smallest only
    runs = [run(size, generic, rounds=rounds, baseline=baseline if size == sizes[0] else None)
            for size in sizes]
    largest = runs[-1]
    largest["sizes"] = [{k: r.get(k) for k in ("size_mb", "file_mb", "denpex_mb_s",
                                               "share_of_grep", "denpex_peak_rss_mb",
                                               "denpex_one_process_peak_rss_mb", "baseline_mb_s",
                                               "baseline_peak_rss_mb")} for r in runs]
    return largest
