"""One contract for the four adapters: the same runs, the same faults, the same answers.

Each adapter trains a tiny model with a real fp16 loss scaler on CPU (plain loop: GradScaler;
HF Trainer: its accelerator with a CPU GradScaler; Lightning: the fp16 MixedPrecision plugin;
DeepSpeed: its own fp16 optimizer and loss scaler). A fault is injected at the optimizer step
the adapter itself numbers ``FAULT_STEP`` (each adapter keeps its framework's numbering):

- healthy: no diagnosis above info, nothing printed above info;
- ``nan``: the loss is NaN from that step: AMP006 at that step;
- ``overflow``: the loss stays finite but its scaled gradients overflow every step from
  there (persistent overflow): AMP003, starting at that step.

The report lands where the one rule says (relative to the framework's output folder for HF
and Lightning, to the working directory for the plain loop and DeepSpeed), and each diagnosis
is printed once.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from adapter_runs import FAULT_STEP, RUNNERS, STEPS  # noqa: E402  (the fixture: conftest)

from denpex_callbacks.core.report import RunReport, read_report  # noqa: E402


def _train(adapter: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
           caplog: pytest.LogCaptureFixture) -> tuple[RunReport, list[str]]:
    monkeypatch.chdir(tmp_path)  # the working directory of the report rule
    with caplog.at_level(logging.INFO):
        folder = RUNNERS[adapter](tmp_path, fault)
    report = read_report(folder / "rank0.jsonl")  # the rule's folder, rank 0's file
    printed = [r.getMessage() for r in caplog.records
               if r.levelno >= logging.WARNING and r.getMessage().startswith("denpex: AMP")]
    return report, printed


def test_a_healthy_run_is_silent(adapter: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 caplog: pytest.LogCaptureFixture) -> None:
    report, printed = _train(adapter, "healthy", tmp_path, monkeypatch, caplog)
    assert [d.code for d in report.diagnoses if d.severity.value != "info"] == []
    assert printed == []
    assert report.summary is not None and report.summary["steps"] == STEPS


def test_a_nan_loss_is_amp006_at_its_step(adapter: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    report, printed = _train(adapter, "nan", tmp_path, monkeypatch, caplog)
    faults = [(d.code, d.step) for d in report.diagnoses if d.severity.value != "info"]
    assert faults[0] == ("AMP006", FAULT_STEP)
    # The NaN persists from FAULT_STEP on: the absorbed first one is a warning, the next one
    # escalates that diagnosis to an error. One line each, never more.
    amp006 = [line for line in printed if line.startswith("denpex: AMP006")]
    assert len(amp006) == 2
    assert amp006[0].startswith(f"denpex: AMP006 non-finite-loss [warning] step {FAULT_STEP}, "
                                "rank 0: ")
    assert amp006[1].startswith(f"denpex: AMP006 non-finite-loss [error] step {FAULT_STEP}, "
                                f"rank 0, escalated: loss is nan again at step {FAULT_STEP + 1}")
    assert [d.severity.value for d in report.diagnoses if d.code == "AMP006"] == ["error"]


def test_persistent_overflow_is_amp003(adapter: str, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch,
                                       caplog: pytest.LogCaptureFixture) -> None:
    report, printed = _train(adapter, "overflow", tmp_path, monkeypatch, caplog)
    faults = [(d.code, d.step) for d in report.diagnoses if d.severity.value != "info"]
    assert faults[0] == ("AMP003", FAULT_STEP)
    assert "AMP006" not in {code for code, _ in faults}  # the loss itself stayed finite
    assert sum(line.startswith("denpex: AMP003") for line in printed) == 1
