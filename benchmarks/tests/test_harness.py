"""A fast smoke of the benchmark harness (tiny sizes: it checks the plumbing, times nothing)."""

from __future__ import annotations

import doctest
import importlib
import json
import warnings
from pathlib import Path

import pytest

from benchmarks import alert_overhead, render, run_all
from benchmarks.frameworks.base import RunSpec
from benchmarks.frameworks.torch_loop import run as run_torch
from benchmarks.syncs import SyncCounter
from benchmarks.workloads import MLP_TINY

HARNESS_MODULES = (
    "timing", "syncs", "machine", "log_doctor_run", "core_micro", "render", "workloads",
    "hanging_webhook", "step_overhead",
)


@pytest.mark.parametrize("name", HARNESS_MODULES)
def test_docstring_examples(name: str) -> None:
    # benchmarks/ is not in pytest's testpaths: run its examples here.
    module = importlib.import_module(f"benchmarks.{name}")
    assert doctest.testmod(module).failed == 0


def test_quick_alert_overhead_runs_both_variants_on_the_same_fault(tmp_path: Path) -> None:
    path = run_all.main(["--quick", "--only", "alerts", "--frameworks", "torch", "--steps",
                         "30", "--out", str(tmp_path)])  # AMP007 needs 20 zero-loss steps
    row = json.loads(path.read_text())["alert_overhead"]["torch"]
    assert list(row["variants"]) == [alert_overhead.PLAIN, alert_overhead.ALERTING]
    assert row["variants"][alert_overhead.PLAIN]["paired_ratio"] == 1.0
    assert all(v["median_s"] > 0 for v in row["variants"].values())
    assert "AMP007" in row["diagnoses"][alert_overhead.ALERTING]
    assert row["diagnoses"][alert_overhead.PLAIN] == row["diagnoses"][alert_overhead.ALERTING]


def test_quick_run_writes_results_with_every_part(tmp_path: Path) -> None:
    path = run_all.main(["--quick", "--frameworks", "torch", "--out", str(tmp_path)])
    results = json.loads(path.read_text())
    assert path.name.endswith("-quick.json")
    assert {"date", "machine", "versions", "settings", "core", "step_overhead", "rerun_capture",
            "log_doctor", "notes"} <= set(results)
    capture = results["rerun_capture"]["torch"]
    assert set(capture["variants"]) == {"a", "b", "b-off"} and capture["capture_us_per_step"] > 0
    assert results["versions"]["torch"]
    assert set(results["core"]["us_per_observation"]) == {
        "healthy", "faulty", "healthy+report", "faulty+report"}
    assert all(v > 0 for v in results["core"]["us_per_observation"].values())
    torch_row = results["step_overhead"]["torch"]
    assert list(torch_row["variants"]) == ["a", "b", "c", "d", "b+device"]  # (device: stand-in)
    assert torch_row["variants"]["a"]["ratio"] == 1.0
    assert all(len(v["samples_s"]) == 1 and v["median_s"] > 0
               for v in torch_row["variants"].values())
    # AmpMonitor.step was timed in a run of its own (not one of the compared variants), and
    # takes less than a whole step
    assert 0 < torch_row["denpex_hook_s_per_step"] < torch_row["denpex_timed_s_per_step"]
    logs = results["log_doctor"]
    assert "skipped" in logs or logs["denpex_mb_s"] > 0
    markdown = render.render(results, "quick")
    assert "| torch | " in markdown and "µs" in markdown


def test_quick_pairs_alternate_a_and_b_in_wall_and_cpu_time(tmp_path: Path) -> None:
    path = run_all.main(["--quick", "--only", "pairs", "--frameworks", "torch", "--rounds", "2",
                         "--out", str(tmp_path)])
    row = json.loads(path.read_text())["step_pairs"]["torch"]
    assert list(row["variants"]) == ["a", "b"] and row["rounds"] == 2
    for variant in row["variants"].values():
        assert len(variant["samples_s"]) == len(variant["cpu"]["samples_s"]) == 2
        assert variant["median_s"] > 0 and variant["cpu"]["median_s"] > 0
    assert row["variants"]["a"]["cpu"]["paired_ratio"] == 1.0
    assert len(row["variants"]["b"]["cpu"]["paired_quartiles"]) == 2
    assert "thread CPU time |" in render.render(json.loads(path.read_text()), "quick")


def test_update_readme_replaces_only_the_marked_table(tmp_path: Path) -> None:
    path = run_all.main(["--quick", "--only", "core", "--out", str(tmp_path)])
    readme = tmp_path / "bench.md"
    readme.write_text(f"intro\n{render.BEGIN}\nold table\n{render.END}\noutro\n")
    render.update_readme(path, readme)
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith("outro\n")
    assert "old table" not in text and "µs" in text


def test_fault_runs_report_where_the_fault_began() -> None:
    result = run_torch(RunSpec("b", MLP_TINY, 20, warmup=2, fault="nan", fault_step=7))
    first = next(d for d in result.diagnoses if d["severity"] != "info")
    assert (first["code"], first["step"]) == ("AMP006", 7)
    assert result.steps_run == 20


def test_sync_counter_counts_sync_warnings_and_where_they_came_from(
    recwarn: pytest.WarningsRecorder,
) -> None:
    # On CPU the mode cannot be set (enabled=False), but the counting of torch's warning is
    # the same code: feed it the warning torch emits under set_sync_debug_mode("warn").
    counter = SyncCounter(enabled=False)

    class Hooks:
        def on_step_end(self) -> None:
            warnings.warn("called a synchronizing CUDA operation", stacklevel=1)

    hooks = Hooks()
    assert counter.watch(hooks, ["on_step_end", "absent"]) == ["on_step_end"]
    with counter.counting():
        for _ in range(3):
            hooks.on_step_end()
        warnings.warn("called a synchronizing CUDA operation", stacklevel=1)
        warnings.warn("an unrelated warning", stacklevel=1)
    summary = counter.summary(steps=3)
    assert (summary["syncs_total"], summary["syncs_in_adapter_hooks"]) == (4, 3)
    assert summary["adapter_hook_calls"] == 3
    assert any(k.endswith("(in on_step_end)") and v == 3 for k, v in counter.sources.items())
    # Other warnings go where they went before (here: pytest's recorder).
    assert [str(w.message) for w in recwarn] == ["an unrelated warning"]


def test_an_untimed_counter_leaves_the_methods_as_they_are() -> None:
    # The compared variants run with it: their step time holds no timer's clock reads.
    counter = SyncCounter(enabled=False, timing=False)

    class Hooks:
        def on_step_end(self) -> int:
            return 1

    hooks, method = Hooks(), Hooks.on_step_end
    assert counter.watch(hooks, ["on_step_end"]) == counter.exclude(hooks, ["on_step_end"]) == []
    with counter.watching_class(Hooks, ["on_step_end"]):
        assert Hooks.on_step_end is method
    counter.probe()
    assert "on_step_end" not in vars(hooks) and hooks.on_step_end() == 1
    assert (counter.hook_calls, counter.timer_cost()) == (0, None)


def test_the_docs_benchmark_table_matches_the_latest_results(tmp_path: Path) -> None:
    # Lives here, not in tests/: no test of the package imports benchmark code.
    root = Path(__file__).resolve().parents[2]
    page = tmp_path / "benchmarks.md"
    page.write_text((root / "docs" / "benchmarks.md").read_text())
    render.update_readme(readme=page)
    assert page.read_text() == (root / "docs" / "benchmarks.md").read_text(), (
        "docs/benchmarks.md is stale: run .venv/bin/python benchmarks/render.py")
