"""Alerts and fingerprint metrics from a real HF Trainer (fp16 GradScaler on CPU)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from alert_endpoints import SECRET_PATH, Endpoint
from wandb_records import alerts, finish, history, offline_environment

from denpex_callbacks.hf import AmpDiagnosticCallback


def test_a_nan_loss_reaches_the_webhook_with_the_run_name(hf: Any, receiver: Endpoint) -> None:
    callback = AmpDiagnosticCallback(report_dir="reports", alert_webhook=receiver.url)
    trainer = hf.trainer(fault="nan", from_step=4, steps=8, fp16_scaler={"init_scale": 256.0},
                         run_name="hf-alert-test", callback=callback)
    trainer.train()
    assert trainer.state.global_step == 8
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"], payload["framework"]) == ("AMP006", 4, "hf")
    assert payload["run"] == "hf-alert-test"
    assert payload["report"] == str(Path(trainer.args.output_dir) / "reports" / "rank0.jsonl")
    assert "run hf-alert-test" in payload["text"]
    # The webhook is a secret: it is not checkpointed with the callback's arguments.
    assert SECRET_PATH not in json.dumps(callback.state(), default=str)


def test_a_healthy_run_sends_nothing(
    hf: Any, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    trainer = hf.trainer(steps=8, fp16_scaler={"init_scale": 256.0, "growth_interval": 3})
    trainer.train()
    assert hf.monitor_of(trainer).faults() == [] and receiver.requests == []


@pytest.mark.parametrize("where", ["failing", "hanging", "unreachable"])
def test_a_broken_webhook_leaves_training_complete_with_one_warning(
    hf: Any, where: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = request.getfixturevalue(where)
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", getattr(endpoint, "url", endpoint))
    monkeypatch.setenv("DENPEX_ALERT_TIMEOUT", "0.2")
    trainer = hf.trainer(fault="nan", from_step=3, steps=6, fp16_scaler={"init_scale": 256.0})
    with caplog.at_level(logging.WARNING):
        trainer.train()
    assert trainer.state.global_step == 6
    assert hf.first(hf.monitor_of(trainer), "AMP006").step == 3
    alert_warnings = [r.getMessage() for r in caplog.records
                      if r.levelno == logging.WARNING and "alert" in r.getMessage()]
    assert len(alert_warnings) == 1, alert_warnings
    assert SECRET_PATH not in caplog.text and "127.0.0.1" not in caplog.text


def test_the_fingerprint_metric_reaches_tensorboard(hf: Any) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    trainer = hf.trainer(fault="nan", from_step=4, steps=7, fp16_scaler={"init_scale": 256.0},
                         report_to=["tensorboard"])
    trainer.train()
    assert hf.first(hf.monitor_of(trainer), "AMP006").step == 4
    (events,) = {p.parent for p in Path(trainer.args.output_dir).rglob("events.out.tfevents.*")}
    accumulator = EventAccumulator(str(events))
    accumulator.Reload()
    fault = [(e.step, e.value) for e in accumulator.Scalars("train/amp/fault/AMP006")]
    assert fault == [(s, 1.0) for s in range(4, 8)]  # from the step it fired on
    # The fault count is there from the first step; an id that never fired has no key.
    count = [(e.step, e.value) for e in accumulator.Scalars("train/amp/diagnoses")]
    assert [step for step, _ in count] == list(range(1, 8))
    assert all(value == 0.0 for step, value in count if step < 4)
    assert "train/amp/fault/AMP001" not in accumulator.Tags()["scalars"]


def test_report_to_wandb_gets_the_alert_and_the_fingerprint(
    hf: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("wandb", reason="wandb is in the test extra")
    offline_environment(tmp_path, monkeypatch)
    trainer = hf.trainer(fault="nan", from_step=3, steps=5, fp16_scaler={"init_scale": 256.0},
                         report_to=["wandb"], run_name="hf-wandb")
    trainer.train()
    finish()
    (alert,) = alerts(tmp_path)  # raised on the run HF's WandbCallback started
    assert (alert.title, alert.level) == ("denpex AMP006 non-finite-loss (rank 0)", "ERROR")
    assert "run hf-wandb" in alert.text and "step 3" in alert.text
    assert history(tmp_path, "train/amp/fault/AMP006") == [1.0, 1.0, 1.0]  # steps 3, 4, 5
    assert history(tmp_path, "train/amp/diagnoses")[:2] == [0.0, 0.0]
