"""wandb.alert on an active run, checked in wandb's offline mode (no network): the alert is
accepted and written to the run's transaction log, which ``wandb sync`` uploads."""

from __future__ import annotations

from pathlib import Path

import pytest
from wandb_records import alerts, finish, offline_environment

from denpex_callbacks.core.alerts.sink import attach_alerts
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation

wandb = pytest.importorskip("wandb", reason="wandb is in the test extra")


@pytest.fixture
def offline_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    offline_environment(tmp_path, monkeypatch)
    run = wandb.init(project="denpex-alerts", dir=str(tmp_path))
    yield run
    finish()


def nan_run(environ: dict[str, str]) -> Monitor:
    monitor = Monitor(MonitorConfig(report_dir=None), framework="hf")
    sink = attach_alerts(monitor, environ=environ)
    for step, loss in enumerate([1.0, 1.0, float("nan")]):
        monitor.observe(Observation(step, loss=loss))
    if sink is not None:
        assert sink.close(30.0) == 0
    return monitor


def test_an_active_run_gets_wandb_alert(offline_run: object, tmp_path: Path) -> None:
    monitor = nan_run({})  # no webhook: wandb alerts need no configuration
    finish()
    (alert,) = alerts(tmp_path)
    assert alert.title == "denpex AMP006 non-finite-loss (rank 0)"
    assert alert.level == "ERROR"
    assert alert.text.startswith("denpex AMP006 non-finite-loss [error]: Loss is NaN or inf")
    assert "step 2" in alert.text and "(hf)" in alert.text
    assert [d.code for d in monitor.diagnoses] == ["AMP006"]


def test_wandb_alerts_can_be_switched_off(offline_run: object, tmp_path: Path) -> None:
    nan_run({"DENPEX_ALERT_WANDB": "0"})
    finish()
    assert alerts(tmp_path) == []
