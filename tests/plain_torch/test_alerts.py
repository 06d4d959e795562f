"""Alerts from a real fp16 GradScaler loop, turned on by the environment alone."""

from __future__ import annotations

import logging

import pytest
from alert_endpoints import SECRET_PATH, Endpoint
from torch_loops import run_loop


def alert_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and "alert" in r.getMessage()]


def test_a_nan_loss_reaches_the_webhook(
    receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    result = run_loop(40, fault="nan", fault_step=20)
    assert result.steps_run == 40
    # The skipped steps that follow are AMP003, a consequence of AMP006: one page, not two.
    assert [(d.code, d.caused_by) for d in result.monitor.monitor.faults()][:2] == [
        ("AMP006", None), ("AMP003", "AMP006")]
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"], payload["rank"]) == ("AMP006", 20, 0)
    assert payload["framework"] == "torch" and payload["severity"] == "error"
    assert payload["text"].startswith("denpex AMP006 non-finite-loss [error]")
    # The fingerprints, for the loop's own metrics logger; a consequence sets its own.
    metrics = result.monitor.monitor.metrics()
    assert metrics["amp/fault/AMP006"] == metrics["amp/fault/AMP003"] == 1.0
    assert "amp/fault/AMP001" not in metrics  # (only the keys of faults that fired)


def test_a_healthy_loop_sends_nothing(
    receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    result = run_loop(60, scaler_kwargs={"init_scale": 2.0**10, "growth_interval": 5})
    assert result.monitor.diagnoses == [] and receiver.requests == []


@pytest.mark.parametrize("where", ["failing", "hanging", "unreachable"])
def test_a_broken_webhook_leaves_the_loop_complete_with_one_warning(
    where: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = request.getfixturevalue(where)
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", getattr(endpoint, "url", endpoint))
    monkeypatch.setenv("DENPEX_ALERT_TIMEOUT", "0.2")
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        result = run_loop(40, fault="nan", fault_step=20)
    assert result.steps_run == 40 and result.error is None
    assert result.monitor.diagnoses[0].code == "AMP006"
    (warning,) = alert_warnings(caplog)
    assert SECRET_PATH not in caplog.text and "127.0.0.1" not in caplog.text
    assert "training" in warning
