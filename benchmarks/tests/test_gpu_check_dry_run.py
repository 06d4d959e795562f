"""The GPU check's --cpu dry run: the same code paths as on CUDA, so the script cannot rot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.frameworks import FRAMEWORKS, available

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # run by `make test-slow`, not `make test`


def test_dry_run_passes_every_check_of_every_framework(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(ROOT / "scripts" / "gpu_check.sh"), str(tmp_path), "--cpu"],
        env={**os.environ, "PYTHON": sys.executable}, capture_output=True, text=True,
        timeout=600, check=False,
    )
    summary = json.loads((tmp_path / "gpu_check.json").read_text())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert summary["ok"] and summary["failed"] == []
    runnable = [name for name, runner in available().items() if not isinstance(runner, ImportError)]
    assert "torch" in runnable
    checks = {(c["framework"], c["check"]): c for c in summary["checks"]}
    for name in runnable:
        for part in ("fault", "healthy", "syncs"):
            assert checks[(name, part)]["ok"] is True, checks[(name, part)]
        fault = checks[(name, "fault")]
        assert fault["first"] == fault["expected_first"]
        assert set(summary["step_overhead"][name]["variants"]) >= {"a", "b", "c"}
    # The hook counting ran around the adapters' own hooks (DeepSpeed wraps the engine instead).
    for name in set(runnable) - {"deepspeed"}:
        syncs = checks[(name, "syncs")]
        assert syncs["denpex_hook_calls"] >= syncs["steps"]
    assert (tmp_path / "gpu_check.log").read_text().strip()
    assert set(FRAMEWORKS) >= set(runnable)


def test_usage_without_outdir() -> None:
    done = subprocess.run([str(ROOT / "scripts" / "gpu_check.sh")], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2 and "usage" in done.stderr
