"""Alerts from the pytest plugin's fixtures, turned on by the CI job's environment: the
alert names the test."""

from __future__ import annotations

import pytest
from alert_endpoints import Endpoint
from inner_models import FAULT_STEP, Regressor, overflowing_batch, regression_batch
from test_inner_sessions import LOOP_TESTS, MODELS, run


def test_amp_smoke_alerts_name_the_test(
    amp_smoke: object, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    diagnoses = amp_smoke(Regressor(gain=10.0), overflowing_batch, fail_on="never")  # type: ignore[operator]
    assert (diagnoses[0].code, diagnoses[0].step) == ("AMP006", FAULT_STEP)
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"]) == ("AMP006", FAULT_STEP)
    assert payload["run"] == request.node.nodeid


def test_a_healthy_smoke_test_sends_nothing(
    amp_smoke: object, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    monkeypatch.setenv("DENPEX_ALERT_LEVEL", "warning")
    amp_smoke(Regressor(), regression_batch, steps=50)  # type: ignore[operator]
    assert receiver.requests == []


def test_amp_monitor_alerts_from_a_users_ci_session(
    pytester: pytest.Pytester, receiver: Endpoint, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DENPEX_ALERT_WEBHOOK", receiver.url)
    pytester.makepyfile(inner_models=MODELS, test_ci=LOOP_TESTS)
    result = run(pytester, "-k", "test_nan_loop and not failing")
    result.assert_outcomes(passed=1, errors=1)  # the body passes; amp_monitor fails teardown
    (payload,) = receiver.payloads
    assert (payload["id"], payload["step"]) == ("AMP006", 7)
    assert payload["run"] == "test_ci.py::test_nan_loop"
