"""HF Trainer under DeepSpeed: the scale comes from the ZeRO optimizer behind accelerate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks import read_report_dir

pytest.importorskip("deepspeed")


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_hf_deepspeed_zero1_fp16_inf_loss(tmp_path: Path) -> None:
    k, steps = 4, 10
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("deepspeed_run.py")), str(tmp_path),
         str(k), str(steps)],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["optimizer"] == "DeepSpeedOptimizerWrapper"
    setup = result["setup"]
    assert (setup["active_precision"], setup["scaler"], setup["init_scale"]) == (
        "fp16-mixed", "dynamic", 1024.0)
    assert setup["extra"]["deepspeed_scale_layout"] == "loss_scaler"
    faults = [(code, step, cause) for code, step, cause in result["diagnoses"]
              if code in ("AMP006", "AMP003")]
    assert faults == [("AMP006", k, None), ("AMP003", k, "AMP006")]
    steps_seen = read_report_dir(tmp_path / "reports")[0].steps
    assert [(o.step, o.was_skipped, o.scale_before) for o in steps_seen] == [
        (s, s >= k, 1024.0 / 2 ** max(0, s - k)) for s in range(1, steps + 1)]
    # The loss judged is the one backpropagated (a compute_loss that halves the model's), read
    # at DeepSpeed's engine.backward: it equals the loss HF logs, step by step.
    logged = {row["step"]: float(row["loss"]) for row in result["log_history"] if "loss" in row}
    for obs in steps_seen[: k - 1]:
        assert obs.loss == pytest.approx(logged[obs.step], rel=1e-3)
    rows = [row for row in result["log_history"] if "loss" in row]
    assert rows[-1]["amp/loss_scale"] == 1024.0 / 2 ** (steps - k + 1)


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_hf_deepspeed_zero2_ending_at_its_minimum_scale_leaves_a_whole_report(
        tmp_path: Path) -> None:
    # Was: rank0.jsonl held steps 1-7 and no summary, no run summary line was printed, and
    # AMP003 did not carry DeepSpeed's own message.
    k, steps = 3, 40
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("deepspeed_run.py")), str(tmp_path),
         str(k), str(steps), "1"],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads((tmp_path / "result.json").read_text())
    assert "Current loss scale already at minimum" in result["ended"]
    faults = [(code, step) for code, step, _cause in result["diagnoses"]]
    assert ("AMP003", k) in faults
    report = read_report_dir(tmp_path / "reports")[0]
    assert report.summary is not None and report.summary["disabled"] is False
    # 1024 -> 1 takes 10 halvings (steps k to k + 9); the overflow at the floor, step k + 10,
    # is the step DeepSpeed refused: judged, recorded as skipped.
    seen = [o.step for o in report.steps]
    assert seen == list(range(1, k + 11)) and report.steps[-1].was_skipped
    (collapse,) = [d for d in report.diagnoses if d.code == "AMP003"]
    assert "Current loss scale already at minimum" in collapse.evidence["framework_exit"]
    assert "denpex: run summary (rank 0): fix AMP" in done.stdout + done.stderr
