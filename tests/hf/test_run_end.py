"""A whole report whenever the run ends, also by an exception the Trainer does not turn into
``on_train_end`` (Ctrl-C, an out-of-memory error): the steps seen, the summary, the run
summary line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks import read_report_dir

DIE_AT = 8  # the micro-batch (and optimizer step) the run dies in


@pytest.mark.parametrize("kind", ["interrupt", "oom"])
def test_a_run_that_dies_keeps_its_whole_report(tmp_path: Path, kind: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("dying_run.py")),
         str(tmp_path / "reports"), kind, str(DIE_AT)],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode != 0  # the exception ended the run, as it ends a user's script
    assert ("KeyboardInterrupt" if kind == "interrupt" else "OutOfMemoryError") in done.stderr
    report = read_report_dir(tmp_path / "reports")[0]
    assert [o.step for o in report.steps] == list(range(1, DIE_AT))
    assert report.summary is not None and report.summary["steps"] == DIE_AT - 1
    assert [d.code for d in report.diagnoses if d.severity.value != "info"][:1] == ["AMP006"]
    assert "denpex: run summary (rank 0): fix AMP006 first" in done.stdout + done.stderr
