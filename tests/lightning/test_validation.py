"""Validation as its own stream in a real Lightning Trainer: a NaN sample in the validation set
is AMP013 at the step Lightning logs the validation row at, once; a healthy validation (with
the sanity check, several validations, a logger) is silent."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from denpex_callbacks.core.report import read_report
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.testing.tiny_lightning import TinyModule


class Validated(TinyModule):
    """The tiny module with a validation set; ``nan_at``: validation samples whose input is
    NaN; ``returns``: validation_step returns its loss (else it only logs it)."""

    def __init__(self, nan_at: tuple[int, ...] = (), returns: bool = True, log: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.nan_at, self.returns, self.log_it = nan_at, returns, log

    def validation_step(self, batch: Any, batch_idx: int) -> Any:
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).float(), y)
        if self.log_it:
            self.log("val_loss", loss)
        return {"loss": loss} if self.returns else None

    def val_dataloader(self) -> DataLoader[tuple[torch.Tensor, ...]]:
        generator = torch.Generator().manual_seed(1)
        x = torch.randn(32, 8, generator=generator)
        y = x.sum(dim=1, keepdim=True) * 0.1
        for index in self.nan_at:
            x[index, 2] = math.nan
        return DataLoader(TensorDataset(x, y), batch_size=8)


def train(new_trainer: Any, module: Validated, **kwargs: Any) -> Any:
    options: dict[str, Any] = {"steps": 20, "val_check_interval": 10, "num_sanity_val_steps": 0}
    options.update(kwargs)
    callback = AmpDiagnosticCallback(report_dir="reports")
    trainer = new_trainer(callbacks=[callback], **options)
    trainer.fit(module)
    return trainer


@pytest.mark.parametrize("returns, log", [(True, True), (True, False), (False, True)])
def test_a_nan_validation_sample_is_amp013_at_the_validation_step(new_trainer, tmp_path,
                                                                  returns, log):
    train(new_trainer, Validated(nan_at=(11,), returns=returns, log=log))
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    faults = [d for d in report.diagnoses if d.severity.value != "info"]
    assert [(d.code, d.step) for d in faults] == [("AMP013", 9)]  # once, not per validation
    found = faults[0]
    assert found.evidence["phase"] == "evaluation"
    assert found.evidence["value"] == "nan"
    if returns:
        assert (found.evidence["nonfinite_batches"], found.evidence["batches"]) == (1, 4)
    assert found.evidence["metric"] == ("val_loss" if log else "validation_step loss")
    assert [(d.code, d.step) for d in diagnose(str(tmp_path / "reports")).diagnoses
            if d.code == "AMP013"] == [("AMP013", 9)]


def test_the_step_is_the_one_lightning_logs_the_validation_row_at(new_trainer, tmp_path):
    from lightning.pytorch.loggers import CSVLogger

    logger = CSVLogger(str(tmp_path), name="csv")
    train(new_trainer, Validated(nan_at=(3,)), logger=logger, log_every_n_steps=1)
    with open(Path(logger.log_dir) / "metrics.csv") as metrics:
        rows = list(csv.DictReader(metrics))
    logged = [int(row["step"]) for row in rows if row.get("val_loss")]
    assert logged == [9, 19]
    assert all(row["val_loss"] == "nan" for row in rows if row.get("val_loss"))
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    assert [d.step for d in report.diagnoses if d.code == "AMP013"] == [logged[0]]


def test_a_nan_sample_in_the_sanity_check_is_amp013_at_step_0(new_trainer, tmp_path):
    train(new_trainer, Validated(nan_at=(0,)), num_sanity_val_steps=1, val_check_interval=None,
          steps=4)
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    assert [(d.code, d.step) for d in report.diagnoses if d.code == "AMP013"] == [("AMP013", 0)]


@pytest.mark.parametrize("settings", [
    {},
    # Non-default: the sanity check, a logger, validation every 5 steps, a train loss that is
    # logged too (a metric of training in callback_metrics during validation).
    {"num_sanity_val_steps": 2, "val_check_interval": 5, "log_every_n_steps": 1},
])
def test_a_healthy_validation_is_silent(new_trainer, tmp_path, settings):
    from lightning.pytorch.loggers import CSVLogger

    class LogsTrainLoss(Validated):
        def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
            loss = super().training_step(batch, batch_idx)
            self.log("train_loss", loss)
            return loss

    if settings:
        settings = {**settings, "logger": CSVLogger(str(tmp_path), name="csv")}
    trainer = train(new_trainer, LogsTrainLoss(), **settings)
    assert math.isfinite(float(trainer.callback_metrics["val_loss"]))
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    assert [d.code for d in report.diagnoses if d.severity.value != "info"] == []


def test_a_nan_training_metric_is_not_taken_for_validation(new_trainer, tmp_path):
    # The training loss is inf from step 5 (logged as train_loss): AMP006 is training's; the
    # validation, healthy (every inf step is skipped), adds no AMP013.
    class LogsTrainLoss(Validated):
        def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
            loss = super().training_step(batch, batch_idx)
            self.log("train_loss", loss)
            return loss

    train(new_trainer, LogsTrainLoss(fault="nan", fault_step=5))
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    codes = [d.code for d in report.diagnoses if d.severity.value != "info"]
    assert codes[0] == "AMP006" and "AMP013" not in codes
