"""Two ranks: a NaN loss on one rank under on_fault="stop" stops both (no hang)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_stop_on_one_rank_stops_every_rank_after_the_same_step(tmp_path: Path) -> None:
    k = 4
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        # --standalone: torchrun's own rendezvous on a port the OS picks (port 0)
        [torchrun, "--standalone", "--nproc_per_node", "2",
         str(Path(__file__).with_name("ddp_run.py")), str(tmp_path), str(k), "12"],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = [tmp_path / f"rank{r}.json" for r in (0, 1)]
    ranks = [json.loads(p.read_text()) for p in results]
    assert [r["world_size"] for r in ranks] == [2, 2]
    assert ranks[1]["diagnoses"][0] == ["AMP006", k]  # only rank 1's loss was NaN
    assert "AMP006" not in [code for code, _ in ranks[0]["diagnoses"]]
    # NaN from step k on: absorbed at k (a warning), persistent at k + 1 (escalated): stop.
    assert [r["global_step"] for r in ranks] == [k + 1, k + 1]
    # The training log of both ranks: every denpex record one whole line, each diagnosis
    # printed once, by the rank it concerns (AMP006 by rank 1; rank 0 found none of its own).
    output = (done.stdout + done.stderr).splitlines()
    ours = [line[line.index("denpex: "):] for line in output if "denpex: " in line]
    found = [line for line in ours if line.startswith("denpex: AMP")]
    assert [line.split()[1] for line in found
            if ", amended: " not in line and ", escalated: " not in line] == ["AMP006"]
    assert found[0].startswith(f"denpex: AMP006 non-finite-loss [warning] step {k}, rank 1: ")
    [escalated] = [line for line in found if ", escalated: " in line]
    assert escalated.startswith(
        f"denpex: AMP006 non-finite-loss [error] step {k}, rank 1, escalated: ")
    assert " Fix: " in found[0]
    assert not [line for line in output if line.lstrip().startswith(
        ("observed:", "root cause:", "evidence:", "fix:"))]  # no multi-line block
