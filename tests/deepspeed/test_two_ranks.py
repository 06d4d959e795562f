"""Two real DeepSpeed ranks (two processes on gloo): per-rank reports and a joint stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks.core.report import initiating_rank, read_report_dir

pytest.importorskip("deepspeed")

SCRIPT = Path(__file__).with_name("two_ranks.py")


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_stop_policy_stops_both_ranks_after_the_same_step(
    fp16_cpu: None, tmp_path: Path
) -> None:
    procs = []
    for rank in (0, 1):  # the ranks meet through a file in tmp_path (no port to pick)
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2")
        procs.append(subprocess.Popen(
            [sys.executable, str(SCRIPT), str(tmp_path)], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        ))
    outputs = [proc.communicate(timeout=240)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], "\n".join(o[-1500:] for o in outputs)
    paths = [tmp_path / f"result{r}.json" for r in (0, 1)]
    results = [json.loads(p.read_text()) for p in paths]
    # Rank 1's loss went non-finite from step 3 (absorbed: a warning); at step 4 it persists
    # (escalated to an error): both ranks stopped after step 4.
    assert [r["global_steps"] for r in results] == [4, 4]
    assert [r["codes"] for r in results] == [[], ["AMP006"]]
    assert "stopping training after step 4 (on_fault='stop', diagnosis on another rank)" in (
        outputs[0])
    reports = read_report_dir(tmp_path / "reports")
    assert [r.rank for r in reports] == [0, 1]
    assert [d.code for d in reports[0].diagnoses] == []
    assert [(d.code, d.step) for d in reports[1].diagnoses] == [("AMP006", 3)]
    assert initiating_rank(reports) == (1, 3)
