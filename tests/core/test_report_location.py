"""A new run never overwrites an earlier run's report; remote folders go through fsspec."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.cli import main

NAN = float("nan")


def run(report_dir: str, nan_at: int | None = None, state: dict | None = None) -> Monitor:
    monitor = Monitor(MonitorConfig(report_dir=report_dir))
    if state is not None:
        monitor.load_state_dict(state)
    monitor.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    for step in range(5):
        monitor.observe(Observation(step, loss=NAN if step == nan_at else 1.0))
    monitor.close()
    return monitor


def records(path: Path | str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_a_second_run_in_the_same_folder_writes_beside_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = run(str(tmp_path), nan_at=2)
    second = run(str(tmp_path))
    run(str(tmp_path))
    assert first.report_path == f"{tmp_path}/rank0.jsonl"
    assert second.report_path == f"{tmp_path}/run-2/rank0.jsonl"  # the path to quote
    first = records(tmp_path / "rank0.jsonl")
    assert [r["id"] for r in first if r["type"] == "diagnosis"] == ["AMP006"]  # kept
    assert (tmp_path / "run-2" / "rank0.jsonl").exists()
    assert (tmp_path / "run-3" / "rank0.jsonl").exists()
    # The doctor reads every run of the folder, each on its own.
    assert main(["diagnose", "--format", "json", str(tmp_path)]) == 1
    inputs = [r["path"] for r in json.loads(capsys.readouterr().out)["inputs"]]
    assert inputs == [str(tmp_path), str(tmp_path / "run-2"), str(tmp_path / "run-3")]


def test_a_resumed_run_appends_to_its_report(tmp_path: Path) -> None:
    first = run(str(tmp_path), nan_at=2)
    run(str(tmp_path), state=first.state_dict())
    kinds = [r["type"] for r in records(tmp_path / "rank0.jsonl")]
    assert kinds.count("header") == 2 and kinds.count("summary") == 2
    assert not (tmp_path / "run-2").exists()


def test_a_remote_folder_is_written_through_fsspec(tmp_path: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    url = "memory://denpex-test/run"
    try:
        monitor = run(url, nan_at=1)
        run(url)
        text = memory.cat(f"{url}/rank0.jsonl").decode()
        assert [json.loads(line)["type"] for line in text.splitlines()][:2] == [
            "header", "step"]
        assert memory.exists(f"{url}/run-2/rank0.jsonl")
        assert monitor.diagnoses[0].code == "AMP006"
        assert not any(tmp_path.iterdir()) and not Path("memory:").exists()
    finally:
        memory.rm("/denpex-test", recursive=True)
