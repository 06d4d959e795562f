"""Streams shaped like real runs that the detectors used to misjudge (issue 14, items 4, 5, 7,
9, 11, 12): healthy runs with unusual scalers stay quiet, real faults are told at the step
they began, and a one-off NaN that the scaler absorbed does not end a run."""

from __future__ import annotations

import math

import pytest
from streams import scaler_stream

from denpex_callbacks import (
    AmpDiagnosisError,
    Monitor,
    MonitorConfig,
    Observation,
    RunSetup,
    Thresholds,
)

INF, NAN = float("inf"), float("nan")


def dynamic(growth_interval: int | None = 2000, **extra) -> RunSetup:
    return RunSetup(active_precision="fp16-mixed", scaler="dynamic",
                    growth_interval=growth_interval, init_scale=2.0**16, extra=extra)


def monitor(setup: RunSetup | None = None, **config) -> Monitor:
    # A one-off NaN the scaler absorbed is tolerated (a warning) with this threshold at 2.
    config.setdefault("thresholds", Thresholds(nonfinite_persist_losses=2))
    m = Monitor(MonitorConfig(report_dir=None, **config))
    m.start(setup or dynamic())
    return m


def feed(m: Monitor, observations) -> list[tuple[str, int | None, int | None, str]]:
    for obs in observations:
        m.act(m.observe(obs))
    return [(d.code, d.step, d.reported_step, d.severity.value) for d in m.diagnoses]


def loud(found):
    return [f for f in found if f[3] != "info"]


def grad_scaler(steps: int, overflow, *, growth_interval: int = 2000, init: float = 2.0**16,
                losses=None):
    """A torch GradScaler's observations as the plain-loop adapter makes them: the scale
    before, after and the growth tracker; ``skipped`` left to be inferred (None)."""
    scale, tracker = init, 0
    for step in range(steps):
        before, skipped = scale, overflow(step, scale)
        if skipped:
            scale, tracker = _float32(scale * 0.5), 0
        else:
            tracker += 1
            if tracker == growth_interval:
                scale, tracker = scale * 2.0, 0
        loss = (losses or {}).get(step, 1.0)
        yield Observation(step, scale_before=before, scale_after=scale, loss=loss,
                          growth_tracker=tracker)


def _float32(value: float) -> float:
    """The scale as the GradScaler holds it (float32): below 2**-149 it is 0.0."""
    return 0.0 if value < 2.0**-149 else value


# -- item 5: a scale of exactly 0.0 ----------------------------------------------------------

def test_skips_at_scale_zero_are_not_read_as_update_not_called():
    # inf loss from step 20: the scale halves to 0.0 (float32 underflow) and stays there.
    losses = {s: INF for s in range(20, 260)}
    found = feed(monitor(dynamic()), grad_scaler(260, lambda s, _sc: s >= 20, losses=losses))
    codes = [f[0] for f in found]
    assert "AMP002" not in codes and "AMP005" not in codes  # was: "update() not called"
    assert "AMP008" not in codes  # was: "... although the scale does not collapse"
    assert ("AMP004", "error") in [(f[0], f[3]) for f in found]
    assert found[0][:2] == ("AMP006", 20)


# -- item 7: the sawtooth of a small growth interval ---------------------------------------

@pytest.mark.parametrize("interval", [10, 16])  # torch growth_interval=10; fairseq's window 16
def test_sawtooth_of_a_small_growth_interval_is_healthy(interval):
    # At equilibrium the scale overflows once per growth: one skip in interval + 1 steps.
    scale_edge = 2.0**12

    def overflow(step, scale):
        return step < 4 or scale >= scale_edge

    found = feed(monitor(dynamic(interval)), grad_scaler(3000, overflow,
                                                         growth_interval=interval))
    assert loud(found) == []


def test_skip_rate_well_above_the_sawtooth_still_fires():
    # DeepSpeed-like hysteresis: a third of the steps skipped, the scale held (no backoff).
    stream = [Observation(s, scale_before=1024.0, scale_after=1024.0, skipped=s % 3 == 0 and s > 0,
                          loss=1.0) for s in range(400)]
    found = feed(monitor(dynamic(10)), stream)
    assert [f[:2] for f in loud(found)] == [("AMP008", 3)]


# -- item 11: growth_interval=1 ----------------------------------------------------------

def test_growth_interval_one_growing_every_step_is_healthy():
    def overflow(step, scale):
        return scale >= 2.0**20  # grows from 2**16 each step, then the sawtooth of period 2

    found = feed(monitor(dynamic(1)), grad_scaler(400, overflow, growth_interval=1))
    assert loud(found) == []  # was: AMP005 "growth tracker stayed at 0" four times


# -- item 9: start-up allowance after a resume or a restart --------------------------------

def backoff_then_clean(start: int, steps: int, halvings: int, init: float = 2.0**16):
    scale = init
    for step in range(start, start + steps):
        skipped = step - start < halvings
        after = scale * 0.5 if skipped else scale
        yield Observation(step, scale_before=scale, scale_after=after, loss=1.0)
        scale = after


def resumed_from(first: Monitor, **config) -> Monitor:
    """A new monitor resumed from ``first``'s checkpoint state (defaults unless ``config``)."""
    resumed = Monitor(MonitorConfig(report_dir=None, **config))
    resumed.load_state_dict(first.state_dict())
    resumed.start(dynamic())
    return resumed


def test_backoff_after_a_resume_with_a_fresh_scaler_is_quiet():
    first = monitor()
    feed(first, backoff_then_clean(0, 500, halvings=10))
    resumed = resumed_from(first)
    # The checkpoint did not hold the scaler: it starts again from 2**16 and backs off.
    assert loud(feed(resumed, backoff_then_clean(500, 200, halvings=10))) == []


def test_backoff_after_a_restart_in_the_same_monitor_is_quiet():
    m = monitor()
    stream = [*backoff_then_clean(0, 500, halvings=10), *backoff_then_clean(500, 200, 10)]
    assert loud(feed(m, stream)) == []  # the scale was reset from 64 to 65536 at step 500


def test_backoff_after_a_resume_while_the_plain_loop_carries_the_old_scale_is_quiet():
    # The plain-loop adapter takes the scale before a step from the last one it saw: after a
    # resume with a fresh scaler only the scale *after* the step shows the reset.
    first = monitor()
    feed(first, backoff_then_clean(0, 500, halvings=10))
    resumed = resumed_from(first)
    stream = list(backoff_then_clean(500, 200, halvings=10))
    stream[0] = Observation(500, scale_before=64.0, scale_after=2.0**15, loss=1.0)
    assert loud(feed(resumed, stream)) == []


def test_a_collapse_after_the_resume_is_still_a_collapse():
    first = monitor()
    feed(first, backoff_then_clean(0, 500, halvings=3))
    resumed = resumed_from(first)
    stream = scaler_stream(range(600, 640), 700, init_scale=2.0**13)
    found = feed(resumed, (o for o in stream if o.step >= 500))
    assert ("AMP003", 600, 605, "error") in found


# -- AMP003's words -------------------------------------------------------------------------

def test_a_streak_early_in_training_is_not_called_after_training_was_stable():
    # 2 clean steps, then every step skipped: 7 of the first 9 steps.
    stream = scaler_stream(range(2, 40), 40, init_scale=2.0**16)
    m = monitor()
    feed(m, stream)
    collapse = next(d for d in m.diagnoses if d.code == "AMP003")
    assert "after training was stable" not in collapse.summary
    assert "early in training: 6 of the first 8 steps skipped" in collapse.summary


# -- item 4: several optimizers share a scaler ----------------------------------------------

def test_scale_falling_with_skips_alternating_between_two_optimizers_is_a_collapse():
    # A GAN: the discriminator's step overflows (d_loss nan), the generator's does not. The
    # shared scale halves every other optimizer step: 65536 -> 4 in 28 skips, never 2 in a row.
    scale, stream = 2.0**16, []
    for step in range(60):
        skipped = step >= 4 and step % 2 == 0
        after = scale * 0.5 if skipped else scale
        loss = NAN if skipped else 0.7
        stream.append(Observation(step, scale_before=scale, scale_after=after, loss=loss))
        scale = after
    found = feed(monitor(), stream)
    collapse = [f for f in found if f[0] == "AMP003"]
    assert collapse and collapse[0][1] == 4  # the descent began at the first skip
    assert collapse[0][2] == 4 + 2 * 7  # 8 halvings net: reported at the 8th skip


def test_a_healthy_sawtooth_never_trips_the_trajectory():
    assert loud(feed(monitor(dynamic(100)),
                     scaler_stream([0, 1, 2, *range(101, 10_000, 101)], 10_000,
                                   growth_interval=100))) == []


# -- item 12: one absorbed NaN, episodes ----------------------------------------------------

def absorbed_nan_at(steps: int, nan_steps: set[int]):
    """A GradScaler stream where each NaN loss is a skipped step (the scaler absorbs it)."""
    return scaler_stream(nan_steps, steps, losses={s: NAN for s in nan_steps})


@pytest.mark.parametrize("policy", ["stop", "raise"])
def test_one_absorbed_nan_does_not_end_the_run(policy):
    m = monitor(on_fault=policy)
    found = feed(m, absorbed_nan_at(300, {150}))  # raises under "raise" if it were an error
    assert found == [("AMP006", 150, 150, "warning")]
    assert not m.stop_requested
    assert "skipped the step" in m.diagnoses[0].summary


def test_a_persistent_nan_is_an_error_at_its_first_step():
    m = monitor(on_fault="raise")
    with pytest.raises(AmpDiagnosisError) as caught:
        feed(m, absorbed_nan_at(300, set(range(150, 300))))
    assert (caught.value.diagnosis.code, caught.value.diagnosis.step) == ("AMP006", 150)
    assert caught.value.diagnosis.reported_step == 150  # first reported (as a warning) there
    assert caught.value.diagnosis.evidence["escalated_step"] == 151
    # One diagnosis, escalated in place: not a warning and an error beside it.
    assert [(d.code, d.step, d.severity.value) for d in m.diagnoses] == [
        ("AMP006", 150, "error")]


def test_a_nan_applied_without_a_scaler_is_an_error_at_once():
    setup = RunSetup(active_precision="bf16-mixed")
    m = monitor(setup, on_fault="stop")
    stream = [Observation(s, loss=NAN if s == 40 else 1.0) for s in range(60)]
    assert loud(feed(m, stream)) == [("AMP006", 40, 40, "error")]
    assert m.stop_requested


def test_repeats_count_per_episode_not_per_run():
    # Six separate one-off NaNs, 2000 steps apart, each cleared long before the next.
    nan_steps = {2000 * k + 500 for k in range(6)}
    m = monitor()
    found = feed(m, absorbed_nan_at(12_500, nan_steps))
    assert [f[1] for f in found if f[0] == "AMP006"] == sorted(nan_steps)  # was: the first 4


def test_flapping_within_an_episode_is_still_capped():
    m = monitor(max_repeats=2)
    nan_steps = {s for s in range(100, 400) if s % 20 == 0}
    found = feed(m, absorbed_nan_at(400, nan_steps))
    assert len([f for f in found if f[0] == "AMP006"]) == 3


def test_escalation_survives_a_resume_in_the_middle_of_an_episode():
    m = monitor()
    stream = list(absorbed_nan_at(300, {150, 151}))
    feed(m, stream[:151])
    resumed = resumed_from(m, thresholds=Thresholds(nonfinite_persist_losses=2))
    found = feed(resumed, stream[151:])
    assert [(f[0], f[1], f[3]) for f in found if f[0] == "AMP006"] == [("AMP006", 150, "error")]


def test_persist_threshold_is_configurable():
    m = monitor(thresholds=Thresholds(nonfinite_persist_losses=3))  # (default: 2)
    found = feed(m, absorbed_nan_at(300, {150, 151}))
    assert [(f[0], f[3]) for f in found if f[0] == "AMP006"] == [("AMP006", "warning")]
    assert math.isnan(m.diagnoses[0].evidence["loss"])
