"""One fault, reported once, whether denpex reads the run live or its log afterwards
(issue 14, item 13): with accumulate_grad_batches=2 the callback counts optimizer steps, the
progress bar counts batches."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from denpex_callbacks.logs.doctor import diagnose

SCRIPT = Path(__file__).with_name("accumulating_run.py")


def test_the_doctor_reports_a_fault_the_run_reported_once_at_the_run_s_step(tmp_path):
    log = tmp_path / "train.log"
    with open(log, "w") as out:
        done = subprocess.run([sys.executable, str(SCRIPT)], stdout=out,
                              stderr=subprocess.STDOUT, check=False, timeout=300)
    assert done.returncode == 0, log.read_text()[-2000:]
    text = log.read_text()
    assert "denpex: AMP006 non-finite-loss" in text and "train_loss" in text
    found = [(d.code, d.step) for d in diagnose(str(log)).diagnoses]
    assert found.count(("AMP006", 10)) == 1  # the run's optimizer step (batch 20)
    assert [code for code, _step in found].count("AMP006") == 1  # was: also at batch 40
