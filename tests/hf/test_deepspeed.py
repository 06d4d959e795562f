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
    rows = [row for row in result["log_history"] if "loss" in row]
    assert rows[-1]["amp/loss_scale"] == 1024.0 / 2 ** (steps - k + 1)
