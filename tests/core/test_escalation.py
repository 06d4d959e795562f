"""Item 12: a NaN the scaler absorbed is a warning by default; when it persists the same
diagnosis is escalated to an error, logged once as one line, seen by the sinks and the policy."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from streams import scaler_stream

from denpex_callbacks import (
    AmpDiagnosisError,
    Diagnosis,
    Monitor,
    MonitorConfig,
    RunSetup,
    Thresholds,
)

FP16 = RunSetup(active_precision="fp16-mixed", scaler="dynamic")
NAN = float("nan")


def watched(nan_steps: set[int], steps: int = 60,
            **config: Any) -> tuple[Monitor, list[Diagnosis]]:
    """A GradScaler stream whose NaN losses are all skipped steps; what the sinks received."""
    seen: list[Diagnosis] = []
    m = Monitor(MonitorConfig(report_dir=None, **config), sinks=[seen.append])
    m.start(FP16)
    for obs in scaler_stream(nan_steps, steps, losses={s: NAN for s in nan_steps}):
        m.act(m.observe(obs))  # (an adapter locates in between)
        if m.stop_requested:
            break
    return m, seen


def amp006_lines(caplog: pytest.LogCaptureFixture) -> list[tuple[int, str]]:
    return [(r.levelno, r.getMessage()) for r in caplog.records
            if r.getMessage().startswith("denpex: AMP006")]


def test_the_default_tolerates_one_absorbed_nan() -> None:
    assert Thresholds().nonfinite_persist_losses == 2


def test_one_absorbed_nan_is_one_warning_line_and_never_stops(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="denpex_callbacks"):
        m, seen = watched({20}, on_fault="stop")
    assert not m.stop_requested and m.run.steps_seen == 60
    assert [(d.code, d.step, d.severity.value) for d in seen] == [("AMP006", 20, "warning")]
    [(level, line)] = amp006_lines(caplog)
    assert level == logging.WARNING and "escalated" not in line
    assert line.startswith("denpex: AMP006 non-finite-loss [warning] step 20, rank 0: ")


def test_a_persistent_nan_is_escalated_once_on_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="denpex_callbacks"):
        m, seen = watched(set(range(20, 40)))
    [(_, first), (level, escalated)] = amp006_lines(caplog)  # 20 NaN steps, two lines
    assert first.startswith("denpex: AMP006 non-finite-loss [warning] step 20, rank 0: ")
    assert level == logging.ERROR and "\n" not in escalated
    assert escalated.startswith(
        "denpex: AMP006 non-finite-loss [error] step 20, rank 0, escalated: loss is nan again at "
        "step 21: 2 non-finite losses since step 20")
    assert "the fault persists" in escalated and " Fix: " in escalated
    # The sinks see the warning, then the same diagnosis at its worse severity, once.
    assert [(d.code, d.step, d.severity.value) for d in seen if d.code == "AMP006"] == [
        ("AMP006", 20, "warning"), ("AMP006", 20, "error")]
    [held] = [d for d in m.diagnoses if d.code == "AMP006"]
    assert held.severity.value == "error" and held.evidence["escalated_step"] == 21


def test_the_policy_acts_on_the_escalation() -> None:
    m, _ = watched(set(range(20, 40)), on_fault="stop")
    assert m.stop_requested and m.run.steps_seen == 22  # steps 0..21: stopped after step 21
    with pytest.raises(AmpDiagnosisError) as raised:
        watched(set(range(20, 40)), on_fault="raise")
    diagnosis = raised.value.diagnosis
    assert (diagnosis.code, diagnosis.step, diagnosis.severity.value) == ("AMP006", 20, "error")


def test_a_nan_that_recurs_after_the_episode_ended_is_not_escalated() -> None:
    # nonfinite_clear_steps (10) finite losses end the episode: two separate one-offs.
    m, seen = watched({20, 40}, on_fault="stop")
    assert not m.stop_requested
    assert [(d.step, d.severity.value) for d in seen if d.code == "AMP006"] == [
        (20, "warning"), (40, "warning")]
