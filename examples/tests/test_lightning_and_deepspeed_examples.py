"""examples/lightning/train.py and examples/deepspeed/train.py run as a user runs them (a process
of their own, on CPU) and report what their faults are."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks import read_report_dir

EXAMPLES = Path(__file__).parents[1]

pytestmark = pytest.mark.slow  # run by `make test-slow` and `make test-min`, not `make test`


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def run(tmp_path: Path, example: str, *args: str) -> subprocess.CompletedProcess[str]:
    # A process of its own, as a user starts it: none of the rendezvous settings that earlier
    # tests in this session left behind (their port may still be taken), a free port of its own.
    env = {name: value for name, value in os.environ.items() if name not in (
        "MASTER_ADDR", "MASTER_PORT", "RANK", "LOCAL_RANK", "WORLD_SIZE")}
    env.update(PYTHONPATH=str(EXAMPLES.parent), MASTER_PORT=str(free_port()))
    return subprocess.run([sys.executable, str(EXAMPLES / example / "train.py"), *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


def faults(report_dir: Path) -> list[tuple[str, int]]:
    (report,) = read_report_dir(report_dir)
    return [(d.code, d.step) for d in report.diagnoses if d.severity.value != "info"]


@pytest.mark.parametrize(("fault", "expected"), [
    ("nan", [("AMP006", 10), ("AMP003", 10)]),
    ("none", []),
])
def test_the_lightning_example(tmp_path: Path, fault: str,
                               expected: list[tuple[str, int]]) -> None:
    done = run(tmp_path, "lightning", "--fault", fault, "--steps", "20",
               "--report-dir", str(tmp_path / "reports"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert faults(tmp_path / "reports")[:2] == expected
    assert "Seed set to" not in done.stdout + done.stderr


def test_the_deepspeed_example_when_healthy(tmp_path: Path) -> None:
    done = run(tmp_path, "deepspeed", "--steps", "20")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "done: 20 steps" in done.stdout
    assert faults(tmp_path / "denpex_reports") == []


def test_the_deepspeed_example_reports_the_inf_loss_before_deepspeed_exits(
    tmp_path: Path
) -> None:
    done = run(tmp_path, "deepspeed", "--fault", "inf")
    # DeepSpeed ends the run itself at its minimum scale; the report has the cause first.
    assert done.returncode != 0
    assert "training stopped: Current loss scale already at minimum" in done.stdout
    assert faults(tmp_path / "denpex_reports")[:2] == [("AMP006", 10), ("AMP003", 10)]


def test_the_deepspeed_example_with_a_static_scale_is_stuck(tmp_path: Path) -> None:
    done = run(tmp_path, "deepspeed", "--fault", "static", "--steps", "20")
    assert done.returncode == 0, done.stderr[-3000:]
    assert [code for code, _step in faults(tmp_path / "denpex_reports")][:1] == ["AMP005"]
