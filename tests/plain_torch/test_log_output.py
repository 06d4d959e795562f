"""What a training log shows: one line per diagnosis, numbers rounded, each record one line."""

from __future__ import annotations

import json
import logging
import re
import subprocess
import sys
from pathlib import Path

import pytest
from torch_loops import run_loop

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.cli import main

REPO = Path(__file__).resolve().parents[2]
RAW_REPR = re.compile(r"\d\.\d{6,}|=null|=\"nan\"|\d\.0\b")


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """`make demo`'s run (a learning-rate blow-up at step 60), 80 steps, stdout + stderr."""
    reports = tmp_path_factory.mktemp("demo")
    done = subprocess.run(
        [sys.executable, str(REPO / "examples/torch/train.py"), "--fault", "overflow",
         "--steps", "80", "--report-dir", str(reports)],
        capture_output=True, text=True, timeout=120, check=True,
    )
    return done.stdout + done.stderr, reports / "rank0.jsonl"


def test_the_demo_prints_one_line_per_diagnosis(demo_output: tuple[str, Path]) -> None:
    text, report = demo_output
    lines = [line for line in text.splitlines() if line.startswith("denpex: ")]
    assert [line.split()[1] for line in lines] == [
        "AMP006", "AMP006", "AMP006", "AMP003", "AMP004", "run"]
    first, amended, escalated, collapse, underflow, summary = lines
    # The scaler absorbed step 61 (a warning); the NaN at step 62 makes it persistent: the
    # same diagnosis escalated to an error on one line, without repeating what was located.
    assert first.startswith(
        "denpex: AMP006 non-finite-loss [warning] step 61, rank 0: loss is nan")
    assert escalated.startswith(
        "denpex: AMP006 non-finite-loss [error] step 61, rank 0, escalated: loss is nan again "
        "at step 62: 2 non-finite losses since step 61")
    assert "located" not in escalated and "Fix: Lower the learning rate" in escalated
    assert "Fix: Check the batch for NaN/inf." in first
    # The amendment says what was found and how the fix changed, without repeating the rest.
    # The failing step re-run: it reproduces (a diverged model) and is located in itself.
    assert amended.startswith(
        "denpex: AMP006 non-finite-loss [warning] step 61, rank 0, amended: re-run of step 61 "
        "(same inputs, parameters, RNG state) reproduced it: not the hardware; located at step 61: "
        "<model>.2 (Linear) overflowed fp16")
    assert "Fix now: Lower the learning rate (by 10x to start) (before: Check the batch" in amended
    assert "loss is nan" not in amended
    # Consequences name their cause and carry no fix of their own.
    assert ": consequence of AMP006, fix that first: 6 consecutive skipped steps" in collapse
    assert "step 76, rank 0: consequence of AMP006" in underflow
    assert all("Fix" not in line for line in (collapse, underflow))
    assert all(line.endswith(f"Details: {report}") for line in lines[:5])
    assert summary.startswith("denpex: run summary (rank 0): fix AMP006 first")
    # The last finite loss is quoted as the report records it, rounded to 4 significant digits
    # (its exact value depends on the CPU's fp16 rounding).
    records = [json.loads(line) for line in report.read_text().splitlines()]
    last_finite = next(r["evidence"]["last_finite_loss"] for r in records
                       if r.get("id") == "AMP006" and "last_finite_loss" in r.get("evidence", {}))
    assert 0.04 < last_finite < 0.05
    assert f"last finite loss: {last_finite:.4g}" in first and "32768 -> 512" in collapse
    assert not [line for line in lines if RAW_REPR.search(line)]
    # Every line of the output is short enough to read; nothing spans several lines.
    assert len(text.splitlines()) <= 9 and len(text.encode()) < 2000


def test_the_doctor_reads_the_demo_output_as_the_run_reported(
    demo_output: tuple[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text(demo_output[0])
    assert main(["diagnose", "--format", "json", str(log)]) == 1
    found = [(d["id"], d["step"]) for d in json.loads(capsys.readouterr().out)["diagnoses"]]
    assert found[:3] == [("AMP006", 61), ("AMP003", 61), ("AMP004", 76)]


def nan_run(config: MonitorConfig, caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    monitor = Monitor(config, rank=1, world_size=2)
    with caplog.at_level(logging.DEBUG, logger="denpex_callbacks"):
        monitor.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic",
                               init_scale=1024.0))
        for step in range(12):
            nan = step >= 4
            before = 1024.0 / 2 ** max(0, step - 4)
            monitor.observe(Observation(
                step, rank=1, world_size=2, loss=float("nan") if nan else 0.3333333333333333,
                scale_before=before, scale_after=before / 2 if nan else before, skipped=nan))
        monitor.amend("AMP006", summary=monitor.diagnoses[0].summary + "; located at step 5: "
                      "fc overflowed fp16", fix="Lower the learning rate, clip gradients.")
        monitor.amend("AMP003", summary=monitor.diagnoses[1].summary + "; located at step 5: "
                      "fc overflowed fp16", fix="Lower the learning rate, clip gradients.")
        monitor.close()
    return [r for r in caplog.records if r.getMessage().startswith("denpex: ")]


def test_each_record_is_one_line_and_a_consequences_amendment_stays_in_the_report(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    records = nan_run(MonitorConfig(report_dir=str(tmp_path)), caplog)
    shown = [r for r in records if r.levelno >= logging.INFO]
    assert all("\n" not in r.getMessage() for r in records)
    codes = [r.getMessage().split()[1] for r in shown]
    # header first; the NaN at step 4 (absorbed: a warning) persists at step 5: escalated.
    assert codes == ["torch", "AMP006", "AMP006", "AMP003", "AMP006", "run"]
    assert "[warning] step 4, rank 1: loss is nan" in shown[1].getMessage()
    assert "[error] step 4, rank 1, escalated: loss is nan again at step 5" in (
        shown[2].getMessage())
    debug = [r.getMessage() for r in records if r.levelno == logging.DEBUG]
    assert len(debug) == 1 and debug[0].startswith("denpex: AMP003 loss-scale-collapse")
    report = [json.loads(line) for line in (tmp_path / "rank1.jsonl").read_text().splitlines()]
    amendments = [r for r in report if r["type"] == "amendment"]
    # The escalation (the warning made an error in place), then the two located amendments.
    assert [(r["id"], r["severity"]) for r in amendments] == [
        ("AMP006", "error"), ("AMP006", "error"), ("AMP003", "error")]


def test_log_format_full_keeps_the_multi_line_block(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    records = nan_run(MonitorConfig(report_dir=None, log_format="full"), caplog)
    first, escalated = [r.getMessage() for r in records if "AMP006" in r.getMessage()][:2]
    assert first.splitlines()[0] == (
        "denpex: AMP006 non-finite-loss [warning] Loss is NaN or inf (step 4, rank 1)")
    assert escalated.splitlines()[0].startswith(
        "denpex: escalated AMP006 non-finite-loss [error] Loss is NaN or inf")
    assert "  root cause: " in first and "  evidence:   loss=nan" in first
    assert "0.3333" in first and "0.33333" not in first


def test_an_unknown_log_format_is_refused() -> None:
    with pytest.raises(ValueError, match="log_format must be one of line, full"):
        MonitorConfig(log_format="json")


def test_the_output_of_a_healthy_watched_run_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    handler = logging.FileHandler(log)
    logger = logging.getLogger("denpex_callbacks")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)  # the header is an INFO line
    try:
        run_loop(10)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()
    assert log.read_text().startswith("denpex: torch rank 0/1: precision fp16-mixed")
    assert main(["diagnose", "--format", "json", str(log)]) == 0
    assert json.loads(capsys.readouterr().out)["diagnoses"] == []


def test_an_unwatched_log_without_any_known_line_is_still_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1 done\nall good\n")
    assert main(["diagnose", str(log)]) == 2
    assert "nothing to diagnose" in capsys.readouterr().err
