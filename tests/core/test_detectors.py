"""Each detector fed plain number streams, faulty and healthy (no torch)."""

from __future__ import annotations

import pytest
from streams import scaler_stream

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup, Severity, Thresholds
from denpex_callbacks.core.detectors import default_detectors
from denpex_callbacks.core.run_state import RunState


def run(observations, setup=None, thresholds=None):
    """Feed a stream to a Monitor; returns [(id, first step, reported step, severity)]."""
    monitor = Monitor(MonitorConfig(report_dir=None, thresholds=thresholds or Thresholds()))
    monitor.start(setup or RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    for obs in observations:
        monitor.observe(obs)
    return [(d.code, d.step, d.reported_step, d.severity.value) for d in monitor.diagnoses]


def loud(found):
    return [f for f in found if f[3] != "info"]


# -- healthy patterns ------------------------------------------------------------------------

def test_startup_backoff_from_2_16_is_quiet():
    # Twelve halvings at the start (a big model finding its scale), then clean training.
    assert run(scaler_stream(range(12), 3000)) == []


def test_startup_backoff_from_2_32_is_quiet():
    assert run(scaler_stream(range(28), 3000, init_scale=2.0**32)) == []


def test_sawtooth_one_overflow_per_growth_interval_is_quiet():
    overflows = [0, 1, 2] + [k * 101 for k in range(1, 100)]
    assert run(scaler_stream(overflows, 10_000, growth_interval=100)) == []


def test_constant_scale_between_growth_windows_while_loss_falls_is_quiet():
    assert run(scaler_stream([5], 5000, growth_interval=2000)) == []


# -- AMP003 ----------------------------------------------------------------------------------

def test_collapse_after_stable_training():
    found = run(scaler_stream(range(500, 540), 600))
    assert found[0] == ("AMP003", 500, 505, "error")


def test_collapse_during_startup_is_bounded_in_halvings():
    # From 2**16, 12 halvings are a start-up back-off (startup_halvings); the 13th is not.
    found = run(scaler_stream(range(0, 60), 80))
    assert found[0] == ("AMP003", 0, 12, "error")


def test_collapse_threshold_is_configurable():
    found = run(scaler_stream(range(100, 110), 200), thresholds=Thresholds(collapse_skip_streak=3))
    assert found[0][:3] == ("AMP003", 100, 102)


def test_five_consecutive_skips_are_not_yet_a_collapse():
    assert run(scaler_stream(range(300, 305), 400)) == []


# -- AMP004 ----------------------------------------------------------------------------------

def test_underflow_below_one_then_zero():
    stream = list(scaler_stream(range(100, 1300), 1300, init_scale=2.0**16))
    found = [f for f in run(stream) if f[0] == "AMP004"]
    # 2**16 halved 17 times is 0.5 (first value below 1) at step 116; 0.0 after ~1100 halvings.
    assert found[0] == ("AMP004", 116, 116, "warning")
    assert found[1][0] == "AMP004" and found[1][3] == "error"
    assert stream[found[1][1]].scale_after == 0.0


# -- AMP005 ----------------------------------------------------------------------------------

def test_static_scale_skipping_every_step_is_stuck_not_collapse():
    setup = RunSetup(active_precision="fp16-mixed", scaler="static", init_scale=128.0)
    found = run(scaler_stream(range(10, 60), 80, init_scale=128.0, static=True), setup)
    assert [f[:3] for f in found] == [("AMP005", 10, 13)]


def test_no_growth_for_three_growth_intervals():
    stream = [Observation(s, scale_before=1024.0, scale_after=1024.0, loss=1.0)
              for s in range(400)]
    setup = RunSetup(active_precision="fp16-mixed", scaler="dynamic", growth_interval=100)
    assert [f[:3] for f in run(stream, setup)] == [("AMP005", 0, 299)]


def test_constant_scale_that_never_overflows_is_info_not_a_warning():
    # A log's scale with no growth interval known (Megatron's --loss-scale 65536): 50000
    # clean steps at one scale, no overflow. A static scale that works is a choice.
    stream = [Observation(s, scale_before=65536.0, scale_after=65536.0, loss=3.0 - s / 4000)
              for s in range(50_000)]
    setup = RunSetup(active_precision="fp16-mixed", scaler="unknown")
    found = run(stream, setup)
    assert [(f[0], f[3]) for f in found] == [("AMP005", "info")]
    assert loud(found) == []


def test_constant_scale_after_an_overflow_is_still_a_warning():
    # The scale halved once (a dynamic scaler), then never grew again over 50000 clean steps
    # (three of the longest default growth interval, fairseq's 16384, with the interval
    # unknown).
    stream = [Observation(0, scale_before=65536.0, scale_after=32768.0, loss=3.0)]
    stream += [Observation(s, scale_before=32768.0, scale_after=32768.0, loss=2.0)
               for s in range(1, 50_000)]
    setup = RunSetup(active_precision="fp16-mixed", scaler="unknown")
    assert [(f[0], f[3]) for f in run(stream, setup)] == [("AMP005", "warning")]


def test_frozen_growth_tracker_means_update_not_called():
    stream = [Observation(s, scale_before=1024.0, scale_after=1024.0, skipped=False,
                          growth_tracker=0, loss=1.0) for s in range(30)]
    found = run(stream)
    assert [f[:3] for f in found] == [("AMP002", 0, 8)]  # protocol misuse, not AMP005


def test_growth_disabled_config_is_reported_at_start():
    setup = RunSetup(active_precision="fp16-mixed", scaler="dynamic", growth_interval=10**9)
    assert run([], setup) == [("AMP005", 0, 0, "warning")]


# -- AMP006 / AMP007 / AMP008 / AMP009 -------------------------------------------------------

def test_nonfinite_loss_fires_once_and_rearms_after_clearing():
    losses = {10: float("nan"), 11: float("nan"), 40: float("inf")}
    found = run(scaler_stream([], 60, losses=losses))
    assert [f[:2] for f in found] == [("AMP006", 10), ("AMP006", 40)]


def test_loss_stuck_at_zero():
    losses = {s: 0.0 for s in range(50, 100)}
    assert [f[:3] for f in run(scaler_stream([], 120, losses=losses))] == [("AMP007", 50, 69)]


def test_occasional_zero_loss_is_quiet():
    losses = {s: 0.0 for s in range(0, 100, 7)}
    assert run(scaler_stream([], 120, losses=losses)) == []


def test_high_skip_rate_without_collapse():
    overflows = [0, *range(50, 1000, 10)]  # 10% of steps, never two in a row
    found = run(scaler_stream(overflows, 1000, growth_interval=5))
    # The 200-step window (steps 1..200, after the start-up skip) is full at step 200 and
    # holds 16 skips (8% >= 5%); the diagnosis names the window's first skip.
    assert [f[:3] for f in found] == [("AMP008", 50, 200)]


def test_hidden_nonfinite_escalates_the_filter_note():
    setup = RunSetup(active_precision="fp16-mixed", scaler="dynamic", nan_inf_filter=True)
    found = run(scaler_stream([], 30, losses={12: float("inf")}), setup)
    assert ("AMP009", 0, 0, "info") in found
    assert ("AMP009", 12, 12, "warning") in found
    assert ("AMP006", 12, 12, "error") in found


# -- primary and collateral ------------------------------------------------------------------

def test_nan_then_collapse_then_underflow_names_the_nan_as_primary():
    losses = {s: float("nan") for s in range(812, 900)}
    monitor = Monitor(MonitorConfig(report_dir=None))
    monitor.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    for obs in scaler_stream(range(812, 900), 900, init_scale=2.0**16, losses=losses):
        monitor.observe(obs)
    by_code = {d.code: d for d in monitor.diagnoses}
    assert monitor.primary.code == "AMP006" and monitor.primary.step == 812
    assert by_code["AMP003"].caused_by == "AMP006"
    assert by_code["AMP004"].caused_by == "AMP006"
    assert "consequence of AMP006" in by_code["AMP003"].render_text()


# -- state -----------------------------------------------------------------------------------

@pytest.mark.parametrize("split", [3, 505, 520])
def test_detector_state_survives_a_resume(split):
    stream = list(scaler_stream(range(500, 540), 600))
    whole = run(stream)
    first = Monitor(MonitorConfig(report_dir=None))
    first.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    for obs in stream[:split]:
        first.observe(obs)
    second = Monitor(MonitorConfig(report_dir=None))
    second.load_state_dict(first.state_dict())
    second.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    for obs in stream[split:]:
        second.observe(obs)
    resumed = [(d.code, d.step, d.reported_step, d.severity.value) for d in second.diagnoses]
    assert resumed == whole


def test_every_detector_round_trips_its_state():
    stream = list(scaler_stream(range(30, 45), 60))
    detectors = default_detectors()
    run_state = RunState()
    for obs in stream:
        run_state.update(obs)
        for d in detectors:
            d.observe(obs, run_state)
    for d in detectors:
        fresh = type(d)()
        fresh.load_state_dict(d.state_dict())
        assert fresh.state_dict() == d.state_dict()


def test_severity_ordering():
    assert Severity.ERROR.rank > Severity.WARNING.rank > Severity.INFO.rank


def test_high_skip_rate_from_a_log_without_scales_says_no_scale():
    # A DeepSpeed ZeRO log: skipped steps are known, the scale of clean steps is not.
    stream = [Observation(step=s, skipped=s % 10 == 0 and s > 0) for s in range(300)]
    monitor = Monitor(MonitorConfig(report_dir=None))
    found = [d for obs in stream for d in monitor.observe(obs)]
    assert [d.code for d in found] == ["AMP008"]
    assert "were skipped by overflow" in found[0].summary
    assert "None" not in found[0].summary and "scale staying near" not in found[0].summary
    monitor.close()


def test_one_collapse_is_one_amp003_when_the_trajectory_fires_before_the_streak():
    # Every other step skipped for 7 halvings, then every step: the eighth halving (step 514)
    # completes the trajectory, and the streak that it starts reaches collapse_skip_streak at
    # step 519. One collapse: one AMP003, named where the trajectory saw it begin.
    overflows = list(range(500, 514, 2)) + list(range(514, 540))
    found = [f for f in run(scaler_stream(overflows, 600)) if f[0] == "AMP003"]
    assert found == [("AMP003", 500, 514, "error")]


def test_when_trajectory_and_streak_fire_on_one_step_the_streak_names_where_it_began():
    # Two halvings with clean steps between, then six skips in a row: at step 509 the scale
    # has fallen 8 times (the trajectory) and the streak reaches collapse_skip_streak. The
    # streak's start (504) is the more precise answer than the trajectory's (500).
    overflows = [500, 502, *range(504, 540)]
    found = [f for f in run(scaler_stream(overflows, 600)) if f[0] == "AMP003"]
    assert found == [("AMP003", 504, 509, "error")]
