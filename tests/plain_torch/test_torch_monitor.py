"""The plain-PyTorch monitor on real fp16 autocast + GradScaler loops (CPU)."""

from __future__ import annotations

import logging

import pytest
import torch
from torch_loops import run_loop, tiny_model

from denpex_callbacks import AmpDiagnosisError, Severity, read_report
from denpex_callbacks.torch import AmpMonitor


def codes(result):  # (id, first step) pairs in report order
    return [(d.code, d.step) for d in result.monitor.diagnoses]


def faults(result):
    return [d for d in result.monitor.diagnoses if d.severity.rank >= Severity.WARNING.rank]


def test_healthy_300_steps_with_sawtooth_is_quiet():
    result = run_loop(300, scaler_kwargs={"growth_interval": 20})
    assert result.error is None
    # The run really exercised start-up back-off and growth, and stayed quiet about it.
    assert min(result.scales) < 65536.0 < max(result.scales)
    assert faults(result) == []


def test_inf_loss_from_step_k_is_amp006_then_collapse_as_consequence():
    result = run_loop(60, fault="inf", fault_step=20)
    found = {d.code: d for d in result.monitor.diagnoses}
    assert codes(result)[0] == ("AMP006", 20)
    assert found["AMP006"].reported_step == 20 and found["AMP006"].is_primary
    collapse = found["AMP003"]
    assert (collapse.step, collapse.caused_by) == (20, "AMP006")
    # Detection delay is collapse_skip_streak - 1 steps.
    assert collapse.reported_step == 25
    assert found["AMP004"].caused_by == "AMP006"


def test_huge_learning_rate_collapses_the_scale():
    result = run_loop(60, lr=50.0)
    primary = result.monitor.monitor.primary
    # Divergence overflows the fp16 activations first: skips from step 3, no NaN loss yet.
    assert (primary.code, primary.step, primary.reported_step) == ("AMP003", 3, 8)
    assert result.monitor.diagnoses[0].evidence["consecutive_skipped"] == 6


def test_missing_update_is_reported_before_torch_raises(tmp_path):
    result = run_loop(10, fault="no-update", fault_step=0,
                      monitor_kwargs={"report_dir": str(tmp_path)})
    assert isinstance(result.error, RuntimeError)
    assert "step() has already been called" in str(result.error)
    assert codes(result) == [("AMP002", 0)]
    on_disk = read_report(tmp_path / "rank0.jsonl")
    assert [(d.code, d.step) for d in on_disk.diagnoses] == [("AMP002", 0)]


@pytest.mark.parametrize(
    ("fault", "torch_error"),
    [("double-step", RuntimeError), ("direct-step", AssertionError)],
)
def test_protocol_breaks_are_amp002_at_their_step(fault, torch_error):
    result = run_loop(10, fault=fault, fault_step=3)
    assert isinstance(result.error, torch_error)
    assert codes(result) == [("AMP002", 3)]


def test_no_scaler_with_fp16_autocast_is_amp001():
    result = run_loop(30, use_scaler=False)
    assert codes(result) == [("AMP001", 0)]


def test_fp16_parameters_with_scaler_are_amp012_before_torch_raises():
    result = run_loop(5, half_model=True)
    assert isinstance(result.error, ValueError)
    assert "Attempting to unscale FP16 gradients" in str(result.error)
    assert codes(result) == [("AMP012", 0)]


def test_huge_growth_interval_is_amp005():
    result = run_loop(30, scaler_kwargs={"growth_interval": 10**9})
    assert codes(result) == [("AMP005", 0)]
    assert result.monitor.diagnoses[0].evidence["pattern"] == "growth-disabled"


def test_unscale_then_raw_optimizer_step_is_amp002():
    # unscale_() for clipping, then opt.step() instead of scaler.step(opt): inf/NaN gradients
    # are applied instead of skipped, and update() has nothing to update from.
    model = tiny_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(torch.randn(32, 16)).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    opt.step()
    monitor.close()
    assert [(d.code, d.step) for d in monitor.diagnoses] == [("AMP002", 0)]
    assert "after unscale_()" in monitor.diagnoses[0].summary


def test_loss_forced_to_zero_is_amp007():
    result = run_loop(40, fault="zero")
    assert codes(result) == [("AMP007", 0)]
    assert result.monitor.diagnoses[0].reported_step == 19


def test_attach_late_still_watches():
    result = run_loop(40, fault="nan", fault_step=10, attach_early=False)
    assert codes(result)[0] == ("AMP006", 10)


def test_stop_policy_sets_should_stop_at_the_fault():
    result = run_loop(60, fault="nan", fault_step=12, monitor_kwargs={"on_fault": "stop"})
    assert result.monitor.should_stop
    # NaN from step 12 on: the scaler absorbs step 12 (a warning); step 13 shows the fault
    # persists (escalated to an error on the same diagnosis) and the run stops right after it.
    assert result.steps_run == 14
    [diagnosis] = result.monitor.diagnoses
    assert (diagnosis.code, diagnosis.step, diagnosis.severity.value) == ("AMP006", 12, "error")
    assert diagnosis.evidence["escalated_step"] == 13


def test_one_absorbed_nan_never_stops_the_run():
    from denpex_callbacks import MonitorConfig

    config = MonitorConfig(report_dir=None, on_fault="stop")  # default: persist_losses=2
    result = run_loop(60, fault="nan-once", fault_step=12, monitor_kwargs={"config": config})
    assert not result.monitor.should_stop and result.steps_run == 60
    assert [(d.code, d.step, d.severity.value) for d in result.monitor.diagnoses] == [
        ("AMP006", 12, "warning")]


def test_raise_policy_raises_amp_diagnosis_error():
    result = run_loop(60, fault="nan", fault_step=7, monitor_kwargs={"on_fault": "raise"})
    assert isinstance(result.error, AmpDiagnosisError)
    assert (result.error.diagnosis.code, result.error.diagnosis.step) == ("AMP006", 7)


def test_warning_does_not_trigger_stop_by_default():
    result = run_loop(40, fault="zero", monitor_kwargs={"on_fault": "stop"})
    assert codes(result) == [("AMP007", 0)]
    assert not result.monitor.should_stop and result.steps_run == 40


def test_internal_error_is_logged_once_and_training_continues(caplog, monkeypatch):
    from denpex_callbacks.core.detectors.nonfinite_loss import NonFiniteLossDetector

    def broken(self, obs, run):
        raise ZeroDivisionError("detector bug")

    monkeypatch.setattr(NonFiniteLossDetector, "observe", broken)
    with caplog.at_level(logging.ERROR, logger="denpex_callbacks"):
        result = run_loop(30, fault="nan", fault_step=5)
    assert result.error is None and result.steps_run == 30
    assert result.monitor.monitor.disabled
    internal = [r for r in caplog.records if "internal error" in r.getMessage()]
    assert len(internal) == 1


def test_close_removes_scaler_wrappers_and_hooks():
    model = tiny_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu")
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
    assert "step" in scaler.__dict__
    monitor.close()
    assert not {"scale", "unscale_", "step", "update"} & set(scaler.__dict__)
    assert not model._forward_pre_hooks and not opt._optimizer_step_pre_hooks


def test_state_dict_round_trip_keeps_history():
    first = run_loop(40, fault="nan", fault_step=10)
    state = first.monitor.state_dict()
    resumed = AmpMonitor(report_dir=None)
    resumed.load_state_dict(state)
    assert [(d.code, d.step) for d in resumed.diagnoses] == codes(first)
    assert resumed.monitor.run.steps_seen == 40


def _loop_with_monitor_before_update(steps: int, monitor_kwargs, *, nan_from: int | None = None,
                                     before_update: bool = True):
    import torch

    from denpex_callbacks.torch import AmpMonitor

    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None,
                         **monitor_kwargs)
    for step in range(steps):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(torch.randn(4, 8)).float().pow(2).mean()
        if nan_from is not None and step >= nan_from:
            loss = loss * float("nan")
        scaler.scale(loss).backward()
        scaler.step(opt)
        if before_update:
            monitor.step(loss)  # early: the monitor reads the step at update() itself
        scaler.update()
        if not before_update:
            monitor.step(loss)
        opt.zero_grad()
    monitor.close()
    return monitor


def test_monitor_step_before_update_is_no_fault_of_the_loop():
    # Was: AMP002 [error] "update() was not called", ending a correct loop under "raise"; then a
    # misuse warning. The monitor reads each step at update(), wherever it is called.
    monitor = _loop_with_monitor_before_update(6, {"on_fault": "raise"})
    assert monitor.diagnoses == [] and not monitor.should_stop
    assert monitor.monitor.summary()["steps"] == 6


def test_where_monitor_step_stands_changes_no_diagnosis():
    def faults(before_update: bool):
        monitor = _loop_with_monitor_before_update(12, {}, nan_from=5,
                                                   before_update=before_update)
        return [(d.code, d.step, d.severity.value, d.summary) for d in monitor.diagnoses]

    early, late = faults(True), faults(False)
    assert early == late
    assert early[0][:2] == ("AMP006", 5)


def test_a_loop_that_never_calls_update_is_still_a_protocol_error():
    result = run_loop(30, fault="no-update", fault_step=10)
    (error,) = [d for d in result.monitor.diagnoses if d.code == "AMP002"]
    assert (error.step, error.severity.value) == (10, "error")


def test_fix_texts_on_a_cpu_run_speak_of_the_cpu():
    # Was: AMP001 told a CPU loop to use torch.amp.GradScaler('cuda') / autocast('cuda').
    result = run_loop(5, use_scaler=False)
    (missing,) = [d for d in result.monitor.diagnoses if d.code == "AMP001"]
    assert "'cuda'" not in missing.fix and "GradScaler('cpu')" in missing.fix
