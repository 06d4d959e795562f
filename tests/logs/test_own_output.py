"""The doctor reads what denpex itself wrote: its log lines and nested report folders."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import torch

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.cli import main
from denpex_callbacks.torch import AmpMonitor


def watched_nan_run(report_dir: Path | None, log_file: Path | None = None, *,
                    nan_from: int | None = 6, scaler: Any = None) -> AmpMonitor:
    """A real fp16 autocast + GradScaler loop, NaN loss from step ``nan_from`` (None: never),
    watched by AmpMonitor; its console lines go to ``log_file`` as a logging setup's do."""
    handler = logging.FileHandler(log_file) if log_file else None
    logger = logging.getLogger("denpex_callbacks")
    if handler:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
    try:
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = scaler or torch.amp.GradScaler("cpu")
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                             report_dir=str(report_dir) if report_dir else None)
        for step in range(20):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(torch.randn(16, 8)).float().pow(2).mean()
            if nan_from is not None and step >= nan_from:
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
    return monitor


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


def _console_log(path: Path, steps: list[Observation], *, amend: str | None = None) -> Monitor:
    """What a watched run's console shows: the real Monitor's lines through a file handler,
    its NaN diagnosis amended with ``amend`` (as the locator does) when given."""
    logger = logging.getLogger(f"denpex_test_console.{path.name}")
    logger.propagate = False
    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    try:
        monitor = Monitor(MonitorConfig(report_dir=None), logger=logger)
        monitor.start(RunSetup(framework="torch", active_precision="fp16-mixed",
                               scaler="dynamic", init_scale=1024.0, growth_interval=9))
        for obs in steps:
            monitor.observe(obs)
        if amend is not None:
            monitor.amend("AMP006", fix=amend,
                          located="located at step 5: the model's inputs were non-finite")
        monitor.close()
    finally:
        logger.removeHandler(handler)
        handler.close()
    return monitor


@pytest.mark.parametrize("nan_steps", [{5}, {5, 6}], ids=["one-off", "escalated"])
def test_the_doctor_keeps_what_the_runs_own_lines_said(tmp_path: Path,
                                                       nan_steps: set[int]) -> None:
    """Severity and fix as the run printed them (a persistent NaN escalated to error), its
    amended fix over the first; the closing 'run summary' line, which names the diagnosis
    again, is no second NaN loss."""
    from denpex_callbacks.core.log_line import first_fix
    from denpex_callbacks.logs.doctor import diagnose

    log = tmp_path / "train.log"
    steps, scale, clean = [], 1024.0, 0
    for step in range(40):  # a dynamic scaler's steps: x2 after 9 clean ones, /2 on the NaN
        nan = step in nan_steps
        clean = 0 if nan else clean + 1
        after = scale / 2 if nan else scale * 2 if clean == 9 else scale
        clean %= 9
        steps.append(Observation(step, loss=float("nan") if nan else 1.0 / (step + 1),
                                 scale_before=scale, scale_after=after))
        scale = after
    live = _console_log(log, steps, amend="Drop the bad samples, then resume")
    assert "run summary" in log.read_text() and "amended" in log.read_text()
    [said] = [d for d in live.diagnoses if d.code == "AMP006"]
    found = [d for d in diagnose(str(log)).diagnoses if d.code == "AMP006"]
    assert [(d.step, d.severity, d.fix) for d in found] == [
        (said.step, said.severity, first_fix(said.fix))]
    assert "located at step 5" in found[0].summary


def test_the_doctor_is_silent_on_a_healthy_watched_runs_console(tmp_path: Path) -> None:
    """Healthy control: a real fp16 GradScaler loop (non-default scaler) watched by AmpMonitor;
    its console holds denpex's own lines and the doctor reads them as nothing wrong."""
    from denpex_callbacks.logs.doctor import diagnose

    log = tmp_path / "train.log"
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=9)
    assert watched_nan_run(None, log, nan_from=None, scaler=scaler).diagnoses == []
    assert diagnose(str(log)).diagnoses == []
