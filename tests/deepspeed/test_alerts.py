"""Alerts and fingerprint metrics from a real DeepSpeedEngine (CPU, gloo, one process)."""

from __future__ import annotations

import csv
import logging
from typing import Any

import pytest
from alert_endpoints import SECRET_PATH, Endpoint

pytest.importorskip("deepspeed")

from denpex_callbacks.integrations.deepspeed_engine import attach, initialize


def test_an_inf_loss_reaches_the_webhook(
    kit: Any, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    engine, watcher = kit.watched(kit.config())
    kit.train(engine, 6, inf_from=2)
    watcher.close()
    assert engine.global_steps == 6
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"], payload["framework"]) == ("AMP006", 3, "deepspeed")
    assert payload["report"] == str(kit.report_dir / "rank0.jsonl")


def test_a_healthy_run_sends_nothing(
    kit: Any, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    engine, watcher = kit.watched(kit.config())
    kit.train(engine, 8)
    watcher.close()
    assert watcher.monitor.faults() == [] and receiver.requests == []


@pytest.mark.parametrize("where", ["failing", "hanging", "unreachable"])
def test_a_broken_webhook_leaves_training_complete_with_one_warning(
    kit: Any, where: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = request.getfixturevalue(where)
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", getattr(endpoint, "url", endpoint))
    # The section's own alert options.
    engine, watcher = kit.watched(kit.config(denpex={"alert_timeout_s": 0.2}))
    with caplog.at_level(logging.WARNING):
        kit.train(engine, 6, inf_from=2)
        watcher.close()
    assert engine.global_steps == 6
    assert watcher.monitor.diagnoses[0].code == "AMP006"
    alert_warnings = [r.getMessage() for r in caplog.records
                      if r.levelno == logging.WARNING and "alert" in r.getMessage()]
    assert len(alert_warnings) == 1, alert_warnings
    assert SECRET_PATH not in caplog.text and "127.0.0.1" not in caplog.text


def test_a_webhook_in_the_config_section_is_refused_before_deepspeed_prints_it(
    kit: Any, receiver: Endpoint
) -> None:
    config = kit.config(denpex={"alert_webhook": receiver.url})
    with pytest.raises(ValueError, match="DENPEX_ALERT_WEBHOOK") as refused:
        initialize(model=kit.model(), config=config)
    assert SECRET_PATH not in str(refused.value)


def test_the_fingerprint_metric_reaches_deepspeeds_monitor(kit: Any, tmp_path: Any) -> None:
    engine = kit.build(kit.config(
        csv_monitor={"enabled": True, "output_path": str(tmp_path / "csv"), "job_name": "run"},
    ))
    watcher = attach(engine)
    assert watcher is not None
    kit.train(engine, 5, inf_from=2)  # AMP006 at step 3
    watcher.close()  # the end of training (on a device the last step is judged then)
    with open(tmp_path / "csv" / "run" / "Train_Samples_amp_fault_AMP006.csv") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["step", "amp_fault_AMP006"]
    assert [float(v) for _samples, v in rows[1:]] == [1.0, 1.0, 1.0]  # from step 3 on
    with open(tmp_path / "csv" / "run" / "Train_Samples_amp_diagnoses.csv") as handle:
        counts = [float(v) for _samples, v in list(csv.reader(handle))[1:]]
    assert counts[:2] == [0.0, 0.0] and len(counts) == 5
