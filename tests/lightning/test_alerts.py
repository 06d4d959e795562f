"""Alerts and fingerprint metrics from real Lightning Trainers (fp16 GradScaler on CPU),
including the callback the entry point registers by itself."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from alert_endpoints import SECRET_PATH, Endpoint
from lightning.pytorch.loggers import TensorBoardLogger
from wandb_records import alerts, finish, history, offline_environment

from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import TinyModule


class LoggingTinyModule(TinyModule):
    """Logs its own loss every step, as a run with a dashboard does: denpex's amp/ metrics
    ride along in the user's rows and never add rows of their own."""

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        loss = super().training_step(batch, batch_idx)
        self.log("train_loss", loss.detach(), on_step=True, on_epoch=False)
        return loss

FAULT_STEP = 5


def test_the_auto_registered_callback_alerts_from_the_environment(
    tmp_path: Path, new_trainer: Any, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_RUN_NAME", "lightning-job-17")
    trainer = new_trainer(steps=10)  # no callbacks: the entry point adds ours
    trainer.fit(TinyModule(fault="nan", fault_step=FAULT_STEP))
    assert trainer.global_step == 10
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"], payload["framework"]) == (
        "AMP006", FAULT_STEP, "lightning")
    assert payload["run"] == "lightning-job-17"
    assert payload["report"] == str(tmp_path / "denpex_reports" / "rank0.jsonl")


def test_a_healthy_run_sends_nothing(
    new_trainer: Any, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    callback = AmpDiagnosticCallback(report_dir=None)
    new_trainer(callbacks=[callback], steps=12).fit(TinyModule())
    assert callback.monitor is not None and callback.monitor.faults() == []
    assert receiver.requests == []


@pytest.mark.parametrize("where", ["failing", "hanging", "unreachable"])
def test_a_broken_webhook_leaves_training_complete_with_one_warning(
    new_trainer: Any, where: str, request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = request.getfixturevalue(where)
    callback = AmpDiagnosticCallback(report_dir=None, alert_timeout_s=0.2,
                                     alert_webhook=getattr(endpoint, "url", endpoint))
    trainer = new_trainer(callbacks=[callback], steps=10)
    with caplog.at_level(logging.WARNING):
        trainer.fit(TinyModule(fault="nan", fault_step=FAULT_STEP))
    assert trainer.global_step == 10
    assert callback.monitor is not None
    assert (callback.monitor.diagnoses[0].code, callback.monitor.diagnoses[0].step) == (
        "AMP006", FAULT_STEP)
    alert_warnings = [r.getMessage() for r in caplog.records
                      if r.levelno == logging.WARNING and "alert" in r.getMessage()]
    assert len(alert_warnings) == 1, alert_warnings
    assert SECRET_PATH not in caplog.text and "127.0.0.1" not in caplog.text


def test_the_fingerprint_metric_reaches_tensorboard(tmp_path: Path, new_trainer: Any) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    logger = TensorBoardLogger(tmp_path, name="tb")
    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = new_trainer(callbacks=[callback], logger=logger, steps=10, log_every_n_steps=1)
    trainer.fit(LoggingTinyModule(fault="nan", fault_step=FAULT_STEP))
    events = EventAccumulator(logger.log_dir)
    events.Reload()
    fault = [(e.step, e.value) for e in events.Scalars("amp/fault/AMP006")]
    assert fault == [(s, 1.0) for s in range(FAULT_STEP, 10)]  # from the step it fired on
    count = [e.value for e in events.Scalars("amp/diagnoses")]
    assert count[:FAULT_STEP] == [0.0] * FAULT_STEP and len(count) == 10
    assert "amp/fault/AMP012" not in events.Tags()["scalars"]  # never fired: no key


def test_wandb_logger_gets_the_alert_and_the_fingerprint(
    tmp_path: Path, new_trainer: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("wandb", reason="wandb is in the test extra")
    from lightning.pytorch.loggers import WandbLogger

    offline_environment(tmp_path, monkeypatch)
    logger = WandbLogger(project="denpex-alerts", save_dir=str(tmp_path), offline=True)
    trainer = new_trainer(callbacks=[AmpDiagnosticCallback(report_dir=None)], logger=logger,
                          steps=8, log_every_n_steps=1)
    trainer.fit(LoggingTinyModule(fault="nan", fault_step=FAULT_STEP))
    finish()
    (alert,) = alerts(tmp_path)
    assert (alert.title, alert.level) == ("denpex AMP006 non-finite-loss (rank 0)", "ERROR")
    assert f"step {FAULT_STEP}" in alert.text and "(lightning)" in alert.text
    fault = history(tmp_path, "amp/fault/AMP006")
    assert fault == [1.0] * (8 - FAULT_STEP)
    assert history(tmp_path, "amp/diagnoses")[:FAULT_STEP] == [0.0] * FAULT_STEP
