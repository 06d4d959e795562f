"""The doctor reads what denpex itself wrote: its log lines and nested report folders."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import torch

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.cli import main
from denpex_callbacks.torch import AmpMonitor


def watched_nan_run(report_dir: Path | None, log_file: Path | None = None) -> None:
    """A real fp16 autocast + GradScaler loop, NaN loss from step 6, watched by AmpMonitor."""
    handler = logging.FileHandler(log_file) if log_file else None
    logger = logging.getLogger("denpex_callbacks")
    if handler:
        logger.addHandler(handler)
    try:
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu")
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                             report_dir=str(report_dir) if report_dir else None)
        for step in range(20):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(torch.randn(16, 8)).float().pow(2).mean()
            if step >= 6:
                loss = loss * float("nan")
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            monitor.step(loss)
        monitor.close()
    finally:
        if handler:
            logger.removeHandler(handler)
            handler.close()


def test_a_log_of_a_watched_run_reports_what_denpex_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    watched_nan_run(None, log)
    assert main(["diagnose", "--format", "json", str(log)]) == 1
    import json

    diagnoses = json.loads(capsys.readouterr().out)["diagnoses"]
    assert [(d["id"], d["step"]) for d in diagnoses][:2] == [("AMP006", 6), ("AMP003", 6)]


def test_a_folder_of_run_folders_is_diagnosed_run_by_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    watched_nan_run(tmp_path / "reports" / "run-a")
    watched_nan_run(tmp_path / "reports" / "run-b")
    assert main(["diagnose", str(tmp_path / "reports")]) == 1
    out = capsys.readouterr().out
    assert "run-a: " in out and "run-b: " in out and out.count("AMP006 non-finite-loss") == 2


def test_an_escalated_severity_is_kept_from_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monitor = Monitor(MonitorConfig(report_dir=str(tmp_path)))
    monitor.start(RunSetup(framework="hf", active_precision="fp16-mixed", scaler="dynamic",
                           nan_inf_filter=True))
    for step in range(1, 15):
        monitor.observe(Observation(step, loss=float("nan") if step == 11 else 1.0))
    monitor.close()
    assert main(["diagnose", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "AMP009 non-finite-hidden-by-logging [info]" in out
    assert "AMP009 non-finite-hidden-by-logging [warning]" in out


def test_a_log_with_nothing_recognisable_is_not_called_healthy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "notes.log"
    log.write_text("epoch done\nsaving model\n")
    assert main(["diagnose", str(log)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nothing to diagnose" in err[0]


@pytest.mark.parametrize("argv", [[], ["diagnose"], ["diagnose", "--format", "xml", "x"],
                                  ["diagnose", "--bogus", "x.log"]])
def test_usage_errors_are_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("denpex")


def test_rich_bar_of_a_max_steps_run_is_read() -> None:
    from denpex_callbacks.logs.lightning import parse

    # Lightning prints the epoch total as -2 when max_epochs=-1 (a max_steps run).
    [event] = parse("Epoch 0/-2 ━━━━━━━━━━━━━━━━ 20/20 0:00:00 • 0:00:00 91.40it/s train_loss: inf")
    assert event.loss == float("inf")
