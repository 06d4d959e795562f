"""Installed but not asked for: the auto-registered callback's manners in real Lightning runs.

Lightning's own test suite is not shipped in its wheel or sdist; these checks do with a real
Trainer what its logger, checkpoint and callback tests compare: files left in the root
folder, logged metric keys, logger rows, callback_metrics, log records.
"""

from __future__ import annotations

import csv
import logging
from pathlib import Path
from typing import Any

import pytest
import torch
from lightning.pytorch.loggers import CSVLogger

from denpex_callbacks.core.report import read_report
from denpex_callbacks.testing.tiny_lightning import TinyModule


class LoggingModule(TinyModule):
    """Logs its loss every step, as most users' modules do."""

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        loss = super().training_step(batch, batch_idx)
        self.log("train_loss", loss.detach().float())
        return loss


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def csv_rows(root: Path) -> list[dict[str, str]]:
    (path,) = root.rglob("metrics.csv")
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def fit(root: Path | str, new_trainer: Any, module: Any, monkeypatch: pytest.MonkeyPatch, *,
        auto: bool, **kwargs: Any) -> Any:
    monkeypatch.setenv("DENPEX_AUTO", "1" if auto else "0")
    options: dict[str, Any] = dict(logger=CSVLogger(str(root)), enable_checkpointing=True,
                                   log_every_n_steps=1, steps=6)
    options.update(kwargs)
    trainer = new_trainer.func(root, **options)
    trainer.fit(module)
    return trainer


@pytest.mark.parametrize("precision", ["bf16-mixed", "32-true"])
def test_a_run_without_fp16_is_left_exactly_as_it_was(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, precision: str,
) -> None:
    with caplog.at_level(logging.DEBUG):
        watched = fit(tmp_path / "installed", new_trainer, LoggingModule(), monkeypatch,
                      auto=True, fp16=None, precision=precision)
    plain = fit(tmp_path / "off", new_trainer, LoggingModule(), monkeypatch, auto=False,
                fp16=None, precision=precision)
    assert listing(tmp_path / "installed") == listing(tmp_path / "off")  # no report folder
    assert csv_rows(tmp_path / "installed")[0].keys() == csv_rows(tmp_path / "off")[0].keys()
    assert set(watched.callback_metrics) == set(plain.callback_metrics) == {"train_loss"}
    # No header or line of ours (Lightning itself says at INFO that it added the callback).
    assert not [r for r in caplog.records if r.getMessage().startswith("denpex")]


def test_fp16_without_a_scaler_stays_watched(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    fit(tmp_path, new_trainer, TinyModule(), monkeypatch, auto=True, fp16=None,
        precision="16-true", logger=False)
    (report,) = [read_report(p) for p in tmp_path.rglob("rank0.jsonl")]
    assert [d.code for d in report.diagnoses][:1] == ["AMP001"]


def test_fp16_metrics_ride_on_the_users_rows_only(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    fit(tmp_path / "logs", new_trainer, LoggingModule(), monkeypatch, auto=True)
    rows = csv_rows(tmp_path / "logs")
    assert len(rows) == 6 and all(r["train_loss"] for r in rows)  # no rows of our own
    assert rows[-1]["amp/loss_scale"] and "amp/skip_rate" not in rows[-1]
    # A module that logs nothing gets no logger rows from denpex either.
    fit(tmp_path / "silent", new_trainer, TinyModule(), monkeypatch, auto=True)
    assert not list((tmp_path / "silent").rglob("metrics.csv"))


def test_a_remote_root_is_written_through_fsspec(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    monkeypatch.chdir(tmp_path)
    try:
        fit("memory://denpex-auto/run", new_trainer, TinyModule(), monkeypatch,
            auto=True, logger=False, enable_checkpointing=False)
        assert memory.exists("/denpex-auto/run/denpex_reports/rank0.jsonl")
        assert listing(tmp_path) == []  # no local folder named "memory:"
    finally:
        memory.rm("/denpex-auto", recursive=True)


def test_a_second_fit_keeps_the_first_runs_report(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    for fault in ("nan", "none"):
        fit(tmp_path, new_trainer, TinyModule(fault=fault, fault_step=3), monkeypatch,
            auto=True, logger=False, enable_checkpointing=False)
    first = read_report(tmp_path / "denpex_reports" / "rank0.jsonl")
    second = read_report(tmp_path / "denpex_reports" / "run-2" / "rank0.jsonl")
    assert [d.code for d in first.diagnoses][:1] == ["AMP006"]
    assert second.diagnoses == []


def test_the_output_of_a_healthy_run_exits_0(
    tmp_path: Path, new_trainer: Any, capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    from denpex_callbacks.cli import main

    # As on a terminal: Lightning's progress bar and its INFO lines (caplog's handler stands in
    # for Lightning's own, which pytest's capture replaces).
    with caplog.at_level(logging.INFO):
        new_trainer(steps=20, enable_progress_bar=True).fit(TinyModule())
    printed = capfd.readouterr()
    lines = [f"{r.levelname} {r.getMessage()}" for r in caplog.records]
    output = "\n".join([printed.out, printed.err, *lines])
    # The sign of life is an INFO line, never a warning.
    (header,) = [line for line in lines if "denpex: " in line]
    assert header.startswith("INFO denpex: lightning rank 0/1: precision fp16-mixed")
    log = tmp_path / "train.log"
    log.write_text(output)
    assert main(["diagnose", str(log)]) == 0
