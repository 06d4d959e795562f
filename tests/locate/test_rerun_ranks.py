"""Two ranks (plain DDP loop, gloo, CPU): each rank's re-run verdict in its own report, and the
log doctor showing them per rank. Rank 1's data is corrupt; rank 0 only sees the all-reduced
overflow, which its own re-run cannot reproduce: it says so instead of guessing."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from locate_models import FAULT_STEP

from denpex_callbacks.core.report import read_report_dir
from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.render import render_json, render_text

WORKER = Path(__file__).with_name("rerun_ranks_worker.py")


@pytest.mark.slow  # two processes importing torch: about 15 s on an idle 2-core machine
def test_each_rank_reports_its_own_verdict_and_the_doctor_shows_them(tmp_path: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    ranks = [subprocess.Popen([sys.executable, str(WORKER), str(tmp_path), str(r), "2"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) for r in (0, 1)]
    outputs = [p.communicate(timeout=240)[0] for p in ranks]
    # Both ranks trained to the end: a re-run entering a collective alone would hang here.
    assert all((tmp_path / f"done{r}").exists() for r in (0, 1)), outputs[1][-3000:]

    by_rank = {report.rank: report for report in read_report_dir(tmp_path / "reports")}
    nan_loss = next(d for d in by_rank[1].diagnoses if d.code == "AMP006")
    assert (nan_loss.step, nan_loss.evidence["rerun"]) == (FAULT_STEP, "reproduced")
    assert nan_loss.evidence["origin"]["verdict"] == "input-data"
    assert nan_loss.evidence["origin"]["module"] == "embed"  # no DDP "module." in the name
    collapse = next(d for d in by_rank[0].diagnoses if d.code == "AMP003")
    assert collapse.step == FAULT_STEP and "AMP006" not in {d.code for d in by_rank[0].diagnoses}
    assert collapse.evidence["rerun"] == "not-rerunnable"
    assert collapse.evidence["rerun_detail"]["covers"] == "forward+backward"
    assert "all-reduced over 2 ranks" in collapse.evidence["rerun_reason"]
    # Its own gradients finite: the fix sends the user to the rank that began it, not the LR.
    assert "learning rate" not in collapse.fix.lower() and "denpex diagnose" in collapse.fix

    result = diagnose(str(tmp_path / "reports"))
    text = render_text([result])
    assert "re-run of the failing step (hardware or software?), per rank:" in text
    host = platform.node()
    assert f"rank 1 (host {host}): AMP006 at step {FAULT_STEP} reproduced" in text
    assert f"rank 0 (host {host}): AMP003 at step {FAULT_STEP} not-rerunnable" in text
    assert "across ranks: reproduced on rank 1; not re-runnable on rank 0" in text
    linked = {d.code: d for d in result.diagnoses}
    assert result.diagnoses[0].code == "AMP006" and linked["AMP003"].caused_by == "AMP006"
    reruns = json.loads(render_json([result], 1))["inputs"][0]["reruns"]
    assert {(r["rank"], r["code"], r["verdict"]) for r in reruns} >= {
        (1, "AMP006", "reproduced"), (0, "AMP003", "not-rerunnable")}
