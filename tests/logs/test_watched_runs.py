"""The doctor on the output of runs denpex watched: healthy is exit 0, amp/ values are read."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
import torch

from denpex_callbacks.cli import main
from denpex_callbacks.torch import AmpMonitor


def healthy_watched_run(log_file: Path) -> None:
    """A real fp16 autocast + GradScaler loop, healthy, its denpex log at INFO in a file."""
    handler = logging.FileHandler(log_file)
    logger = logging.getLogger("denpex_callbacks")
    logger.addHandler(handler)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu")
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
        for _ in range(10):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(torch.randn(16, 8)).float().pow(2).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            monitor.step(loss)
        monitor.close()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        handler.close()


def test_the_output_of_a_healthy_watched_run_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    healthy_watched_run(log)
    text = log.read_text()
    assert text.startswith("denpex: torch rank 0/1: precision fp16-mixed")  # only the header
    assert main(["diagnose", str(log)]) == 0
    capsys.readouterr()
    assert main(["diagnose", "--format", "json", str(log)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["diagnoses"] == []


def test_an_unwatched_log_without_any_known_line_is_still_unusable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch 1 done\nall good\n")
    assert main(["diagnose", str(log)]) == 2
    assert "nothing to diagnose" in capsys.readouterr().err
