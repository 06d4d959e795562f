"""The alert sink on the framework-free engine: real HTTP to 127.0.0.1, real threads."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from alert_endpoints import SECRET_PATH, Endpoint

from denpex_callbacks.core.alerts.payload import AlertContext
from denpex_callbacks.core.alerts.settings import AlertSettings, alert_settings
from denpex_callbacks.core.alerts.sink import AlertSink, attach_alerts
from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.metrics_sink import FINGERPRINT_IDS
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.severity import Severity

NAN = float("nan")
DONE = 30.0  # close() returns as soon as the queue is empty: a bound, not a delay


def monitor_for(url: str | None, tmp_path: Any, **options: Any) -> Monitor:
    config = MonitorConfig(report_dir=str(tmp_path / "reports"), alert_webhook=url,
                           alert_wandb=False, **options)
    monitor = Monitor(config, framework="torch")
    monitor.start(RunSetup(framework="torch", active_precision="fp16-mixed", scaler="dynamic"))
    return monitor


def run_losses(monitor: Monitor, losses: list[float]) -> None:
    for step, loss in enumerate(losses):
        monitor.observe(Observation(step, loss=loss, scale_before=1024.0, scale_after=1024.0))


def alert_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.levelno == logging.WARNING and "alert" in r.getMessage()]


def test_a_nan_loss_posts_one_payload_with_every_field(
    receiver: Endpoint, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_RUN_NAME", "bert-fp16")
    monitor = monitor_for(receiver.url, tmp_path)
    sink = attach_alerts(monitor)
    assert sink is not None
    run_losses(monitor, [2.0, 1.9, 1.8, NAN, NAN, 1.7])
    assert sink.close(DONE) == 0
    assert len(receiver.requests) == 1
    request = receiver.requests[0]
    assert request["path"] == SECRET_PATH and request["content_type"] == "application/json"
    payload = request["json"]
    assert payload["id"] == "AMP006" and payload["slug"] == "non-finite-loss"
    assert payload["severity"] == "error" and payload["title"] == "Loss is NaN or inf"
    assert payload["step"] == 3 and payload["rank"] == 0 and payload["world_size"] == 1
    assert payload["run"] == "bert-fp16" and payload["host"] and payload["framework"] == "torch"
    assert "loss is nan at step 3" in payload["summary"]
    assert payload["fix"].startswith("Check the batch for NaN/inf")
    assert payload["report"] == str(tmp_path / "reports" / "rank0.jsonl")
    text = payload["text"]
    assert text.splitlines()[0] == "denpex AMP006 non-finite-loss [error]: Loss is NaN or inf"
    assert "run bert-fp16" in text and "step 3" in text and payload["report"] in text


def test_a_healthy_run_sends_nothing(receiver: Endpoint, tmp_path: Any) -> None:
    monitor = monitor_for(receiver.url, tmp_path, alert_level="warning")
    sink = attach_alerts(monitor)
    assert sink is not None
    run_losses(monitor, [2.0 - 0.01 * i for i in range(300)])
    assert sink.close(DONE) == 0
    assert monitor.faults() == [] and receiver.requests == []


def test_below_the_alert_level_nothing_is_sent(receiver: Endpoint, tmp_path: Any) -> None:
    # AMP004 at scale 0.5 is a warning: the default level (error) does not page.
    monitor = monitor_for(receiver.url, tmp_path)
    sink = attach_alerts(monitor)
    assert sink is not None
    monitor.observe(Observation(0, loss=1.0, scale_before=2.0, scale_after=0.5))
    assert sink.close(DONE) == 0
    assert [d.code for d in monitor.faults()] == ["AMP004"] and receiver.requests == []


def test_one_alert_per_id_and_rank_per_episode(receiver: Endpoint, tmp_path: Any) -> None:
    monitor = monitor_for(receiver.url, tmp_path, alert_level="warning")
    sink = attach_alerts(monitor)
    assert sink is not None
    # AMP006: NaN, NaN (same episode), 10 finite losses clear it, NaN again (a new episode).
    run_losses(monitor, [1.0, NAN, NAN, *[1.0] * 10, NAN])
    # The same id on another rank (a log holding two ranks) is its own alert.
    monitor.flag(Finding("AMP006", 30, "loss is nan at step 30", rank=1))
    assert sink.close(DONE) == 0
    sent = [(p["id"], p["rank"], p["step"]) for p in receiver.payloads]
    assert sent == [("AMP006", 0, 1), ("AMP006", 0, 13), ("AMP006", 1, 30)]


def test_a_worsening_or_a_consequence_is_not_a_new_page(
    receiver: Endpoint, tmp_path: Any
) -> None:
    monitor = monitor_for(receiver.url, tmp_path, alert_level="warning")
    sink = attach_alerts(monitor)
    assert sink is not None
    # AMP004 worsens within one episode: a warning below 1, an error at 0.
    for step, scale in enumerate([0.5, 0.25, 0.0]):
        monitor.observe(Observation(step, loss=1.0, scale_before=1.0, scale_after=scale))
    # AMP007 (zero loss) follows from the underflow: the catalog makes it a consequence.
    run_losses(monitor, [0.0] * 25)
    assert sink.close(DONE) == 0
    assert [(d.code, d.severity, d.caused_by) for d in monitor.faults()] == [
        ("AMP004", Severity.WARNING, None), ("AMP004", Severity.ERROR, None),
        ("AMP007", Severity.WARNING, "AMP004")]
    assert [(p["id"], p["severity"]) for p in receiver.payloads] == [("AMP004", "warning")]


@pytest.mark.parametrize("where", ["failing", "hanging", "unreachable"])
def test_a_broken_webhook_costs_one_warning_and_never_the_run(
    where: str, request: pytest.FixtureRequest, tmp_path: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = request.getfixturevalue(where)
    url = endpoint.url if isinstance(endpoint, Endpoint) else endpoint
    monitor = monitor_for(url, tmp_path, alert_timeout_s=0.2)
    sink = attach_alerts(monitor)
    assert sink is not None
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        run_losses(monitor, [1.0, NAN, *[1.0] * 10, NAN, 1.0])  # two AMP006 episodes
        sink.close()  # the default bound: twice the timeout
        monitor.close()
    assert [d.code for d in monitor.diagnoses] == ["AMP006", "AMP006"]
    assert monitor.run.steps_seen == 14 and not monitor.disabled
    warnings = alert_warnings(caplog)
    assert len(warnings) == 1, [r.getMessage() for r in warnings]
    message = warnings[0].getMessage()
    assert "training" in message
    for record in caplog.records:
        assert SECRET_PATH not in record.getMessage() and "127.0.0.1" not in record.getMessage()
    if where == "failing":
        assert "HTTP 500" in message


def test_retries_are_bounded(failing: Endpoint, tmp_path: Any) -> None:
    monitor = monitor_for(failing.url, tmp_path, alert_timeout_s=0.5)
    sink = attach_alerts(monitor)
    assert sink is not None
    run_losses(monitor, [1.0, NAN])
    assert sink.close(DONE) == 0
    assert [p["id"] for p in failing.payloads] == ["AMP006"] * 3


def test_a_full_queue_drops_with_one_warning_and_never_blocks(
    hanging: str, caplog: pytest.LogCaptureFixture
) -> None:
    sink = AlertSink(AlertSettings(webhook=hanging, wandb=False, timeout_s=0.2),
                     AlertContext(framework="torch", host="test-host"))
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        for rank in range(100):  # each its own (id, rank): 100 alerts, the queue holds 32
            sink(Diagnosis.from_finding(Finding("AMP006", 1, "loss is nan"), rank=rank))
        pending = sink.close(wait_s=0.1)
    assert pending > 0
    dropped = [r for r in alert_warnings(caplog) if "dropped" in r.getMessage()]
    assert len(dropped) == 1


def test_secrets_are_masked_and_the_url_never_printed(receiver: Endpoint, tmp_path: Any) -> None:
    monitor = monitor_for(receiver.url, tmp_path)
    sink = attach_alerts(monitor)
    assert sink is not None
    token = "hf_" + "a1B2c3D4e5" * 3
    monitor.flag(Finding("AMP006", 5, f"loss is nan after pushing with {token}"))
    assert sink.close(DONE) == 0
    payload = receiver.payloads[0]
    assert token not in payload["summary"] and "hf_***" in payload["summary"]
    assert token not in payload["text"]
    for shown in (repr(sink), repr(monitor.config), repr(sink.settings), str(monitor.config)):
        assert SECRET_PATH not in shown and "127.0.0.1" not in shown


def test_a_bad_config_url_is_refused_without_quoting_it() -> None:
    with pytest.raises(ValueError, match="value not shown") as error:
        MonitorConfig(alert_webhook="hooks.example.com/T0SECRET")
    assert "T0SECRET" not in str(error.value)


def test_environment_turns_alerts_on_and_bad_values_fall_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    env = {"DENPEX_ALERT_WEBHOOK": "https://example.com" + SECRET_PATH,
           "DENPEX_ALERT_LEVEL": "WARNING", "DENPEX_ALERT_WANDB": "0",
           "DENPEX_ALERT_TIMEOUT": "12"}
    settings = alert_settings(MonitorConfig(), env)
    assert settings == AlertSettings(env["DENPEX_ALERT_WEBHOOK"], Severity.WARNING, False, 12.0)
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        bad = alert_settings(MonitorConfig(), {
            "DENPEX_ALERT_WEBHOOK": "ftp://example.com" + SECRET_PATH,
            "DENPEX_ALERT_LEVEL": "fatal", "DENPEX_ALERT_TIMEOUT": "-1"})
    assert bad == AlertSettings(None, Severity.ERROR, True, 5.0)
    assert len(caplog.records) == 3
    assert all(SECRET_PATH not in r.getMessage() for r in caplog.records)
    # A config option wins over the environment.
    assert alert_settings(MonitorConfig(alert_level="error"), env).level is Severity.ERROR


def test_no_channel_no_sink() -> None:
    monitor = Monitor(MonitorConfig(report_dir=None, alert_wandb=False))
    assert attach_alerts(monitor, environ={}) is None and monitor.sinks == []


def test_fingerprint_metrics_appear_with_the_diagnosis_and_stay_from_its_step() -> None:
    monitor = Monitor(MonitorConfig(report_dir=None, disable=("AMP012",)))
    seen = []
    for step, loss in enumerate([1.0, 1.0, NAN, 1.0, 1.0]):
        monitor.observe(Observation(step, loss=loss))
        seen.append(monitor.metrics().get("amp/fault/AMP006"))
    metrics = monitor.metrics()
    assert seen == [None, None, 1.0, 1.0, 1.0]
    # The only fault key is the one that fired; the fault count is there throughout.
    assert sorted(k for k in metrics if k.startswith("amp/fault/")) == ["amp/fault/AMP006"]
    assert metrics["amp/diagnoses"] == 1.0
    # The fingerprinted ids: those that can be errors (AMP004 is one once the scale is 0).
    errors = {c for c, e in CATALOG.items() if c.startswith("AMP") and e.severity.rank == 2}
    assert set(FINGERPRINT_IDS) == errors | {"AMP004"}
    resumed = Monitor(MonitorConfig(report_dir=None))
    resumed.load_state_dict(monitor.state_dict())
    assert resumed.metrics()["amp/fault/AMP006"] == 1.0


def alerting(receiver: Endpoint, tmp_path: Any, **options: Any) -> tuple[Monitor, AlertSink]:
    monitor = monitor_for(receiver.url, tmp_path, **options)
    sink = attach_alerts(monitor)
    assert sink is not None
    return monitor, sink


def absorbed_nans(monitor: Monitor, nan_steps: set[int], steps: int = 40) -> None:
    """NaN losses on steps a GradScaler skipped (the scale halves): absorbed, nothing applied."""
    scale = 1024.0
    for step in range(steps):
        nan = step in nan_steps
        monitor.observe(Observation(step, loss=NAN if nan else 1.0, scale_before=scale,
                                    scale_after=scale / 2 if nan else scale))
        scale = scale / 2 if nan else scale


def test_an_absorbed_nan_pages_nobody_and_its_escalation_pages_once(
    receiver: Endpoint, tmp_path: Any
) -> None:
    monitor, sink = alerting(receiver, tmp_path)  # alert level: error
    absorbed_nans(monitor, {5})  # a one-off: a warning, below the alert level
    assert sink.close(DONE) == 0 and receiver.requests == []
    monitor, sink = alerting(receiver, tmp_path / "persistent")
    absorbed_nans(monitor, set(range(5, 9)))  # persists: escalated to an error at step 6
    assert sink.close(DONE) == 0
    [request] = receiver.requests
    payload = request["json"]
    assert (payload["id"], payload["severity"], payload["step"]) == ("AMP006", "error", 5)
    assert "loss is nan again at step 6" in payload["summary"]


def test_an_escalation_already_paged_as_a_warning_is_not_paged_again(
    receiver: Endpoint, tmp_path: Any
) -> None:
    monitor, sink = alerting(receiver, tmp_path, alert_level="warning")
    absorbed_nans(monitor, set(range(5, 9)))
    assert sink.close(DONE) == 0
    [request] = receiver.requests
    assert (request["json"]["severity"], request["json"]["step"]) == ("warning", 5)
    assert [d.severity.value for d in monitor.diagnoses if d.code == "AMP006"] == ["error"]
