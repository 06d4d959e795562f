"""Issue 28, item 3: a bounded start-up allowance. A start-up back-off is a few halvings below
2**16 (a higher initial scale backs off its excess first); a back-off that goes on is AMP003,
with the cause taken from the evidence, and no diagnosis points at one that was not made."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup, Thresholds
from denpex_callbacks.core.catalog import CATALOG


def watched(init: float, growth_interval: int = 2000, backoff: float = 0.5,
            **config: object) -> Monitor:
    m = Monitor(MonitorConfig(report_dir=None, **config))  # type: ignore[arg-type]
    m.start(RunSetup(framework="torch", active_precision="fp16-mixed", scaler="dynamic",
                     init_scale=init, growth_interval=growth_interval, backoff_factor=backoff,
                     extra={"device": "cpu"}))
    return m


def backoff(init: float, skips: int, steps: int, *, loss: float = 2.3, factor: float = 0.5,
            every_step_overflows: bool = False) -> Iterator[Observation]:
    """The scaler's first ``skips`` steps overflow (or every step does), the rest apply."""
    scale = init
    for step in range(steps):
        before = scale
        skipped = every_step_overflows or step < skips
        if skipped:
            scale = 0.0 if scale * factor < 2.0**-149 else scale * factor
        yield Observation(step, scale_before=before, scale_after=scale, loss=loss,
                          growth_tracker=0 if skipped else step - skips + 1)


def loud(m: Monitor, stream: Iterator[Observation]) -> list[tuple[str, int | None]]:
    for obs in stream:
        m.act(m.observe(obs))
    return [(d.code, d.step) for d in m.faults()]


# -- the healthy side: start-up back-offs that end ------------------------------------------------

@pytest.mark.parametrize("init,skips", [
    (2.0**16, 1), (2.0**16, 12),  # torch's default: a few halvings, up to the allowance
    (2.0**24, 8), (2.0**24, 16),  # GradScaler(init_scale=2**24)
    (2.0**32, 16), (2.0**32, 28),  # DeepSpeed initial_scale_power=32
    (2.0**10, 6), (4.0, 2),  # a low initial scale (the zoo's), a very low one (to 1.0)
])
def test_a_start_up_back_off_with_a_normal_loss_is_quiet(init: float, skips: int) -> None:
    assert loud(watched(init), backoff(init, skips, 300)) == []


def test_a_quarter_backoff_counts_halvings_not_skips() -> None:
    # backoff_factor 0.25: each skip is two halvings; 6 skips from 2**16 are 12 of them.
    m = watched(2.0**16, growth_interval=100, backoff=0.25)
    assert loud(m, backoff(2.0**16, 6, 300, factor=0.25)) == []
    m = watched(2.0**16, growth_interval=100, backoff=0.25)
    assert loud(m, backoff(2.0**16, 7, 300, factor=0.25))[0] == ("AMP003", 0)


def test_deepspeed_hysteresis_skips_without_halving_are_not_counted_as_halvings() -> None:
    # hysteresis=2: every other overflow halves; 28 skips from 2**32 are 14 halvings.
    m = watched(2.0**32)
    scale, stream = 2.0**32, []
    for step in range(200):
        before = scale
        skipped = step < 28
        if skipped and step % 2:
            scale /= 2
        stream.append(Observation(step, scale_before=before, scale_after=scale,
                                  skipped=skipped, loss=2.3))
    assert loud(m, iter(stream)) == []


def test_a_log_without_scales_keeps_the_skip_allowance() -> None:
    # Skips known, scale not (a DeepSpeed log at INFO off): 39 skips are a start-up back-off.
    m = Monitor(MonitorConfig(report_dir=None))
    m.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
    stream = [Observation(s, skipped=s < 39, loss=2.3) for s in range(200)]
    assert loud(m, iter(stream)) == []


def test_from_a_low_initial_scale_the_floor_is_the_same_16() -> None:
    # init_scale 2**10: six halvings take it to 16; the seventh goes below, before AMP004.
    m = watched(2.0**10)
    found = loud(m, backoff(2.0**10, 0, 30, loss=4.1e7, every_step_overflows=True))
    assert found[0] == ("AMP003", 0) and m.diagnoses[0].reported_step == 6


def test_the_bound_is_a_threshold() -> None:
    m = watched(2.0**16, thresholds=Thresholds(startup_halvings=4))
    assert loud(m, backoff(2.0**16, 5, 100))[0] == ("AMP003", 0)


# -- the faulty side -------------------------------------------------------------------------------

def test_a_huge_unnormalised_loss_is_amp003_from_step_0_with_its_cause() -> None:
    # Loss about 4e7 at a sane learning rate: the gradients overflow fp16 at any scale, the
    # scale falls from 65536 below 1 within 17 steps. Was: only AMP004 [warning] "see AMP003 /
    # AMP006", neither of them reported.
    m = watched(2.0**16)
    found = loud(m, backoff(2.0**16, 0, 40, loss=4.1e7, every_step_overflows=True))
    assert found[0] == ("AMP003", 0)
    collapse = m.diagnoses[0]
    assert collapse.reported_step == 12  # the 13th halving: past the allowance of 12
    assert "13 halvings, more than a start-up back-off takes" in collapse.summary
    assert collapse.evidence["pattern"] == "startup-back-off"
    assert collapse.evidence["cause"] == "loss-magnitude"
    assert "Normalise the targets" in collapse.fix and "learning rate does not help" in collapse.fix
    assert "loss's magnitude" in collapse.root_cause
    # What follows from it says so, and no text points at a diagnosis that was not made.
    underflow = next(d for d in m.diagnoses if d.code == "AMP004")
    assert underflow.caused_by == "AMP003"
    made = {d.code for d in m.diagnoses}
    for d in m.diagnoses:
        pointed = set(re.findall(r"AMP\d{3}", f"{d.fix} {d.root_cause}")) - {d.code}
        assert pointed <= made, (d.code, pointed)


def test_a_long_back_off_with_a_normal_loss_is_amp003_without_blaming_the_loss() -> None:
    m = watched(2.0**16)
    found = loud(m, backoff(2.0**16, 0, 40, loss=2.3, every_step_overflows=True))
    assert found[0] == ("AMP003", 0)
    assert m.diagnoses[0].evidence.get("cause") != "loss-magnitude"


def test_a_long_back_off_from_2_32_is_bounded_too() -> None:
    m = watched(2.0**32)
    found = loud(m, backoff(2.0**32, 0, 60, loss=3.0e6, every_step_overflows=True))
    assert found[0] == ("AMP003", 0) and m.diagnoses[0].reported_step == 28  # 16 + 12 + 1


def test_an_underflow_alone_points_at_nothing_unmade() -> None:
    # A static-like low scale that drifts below 1 with applied steps between: AMP004 alone.
    fix = CATALOG["AMP004"].fix
    assert not re.findall(r"AMP\d{3}", fix)
    for text in CATALOG["AMP004"].fix_by_framework.values():
        assert not re.findall(r"AMP\d{3}", text)
