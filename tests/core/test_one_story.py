"""Issue 25, item 8: one collapse, one story. One AMP003 per episode with one start step and
counts that agree, and no amendment that the run's later steps contradict (a located
"one-off" one step before the loss goes NaN again)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence

from streams import scaler_stream

from denpex_callbacks import Diagnosis, Monitor, MonitorConfig, Observation, RunSetup
from denpex_callbacks.core.detectors.scale_collapse import ScaleCollapseDetector

NAN = float("nan")


def monitor(growth_interval: int = 2000, init: float = 2.0**16) -> Monitor:
    m = Monitor(MonitorConfig(report_dir=None))
    m.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic", init_scale=init,
                     growth_interval=growth_interval))
    return m


def scaler(pattern: str, *, init: float, losses: Sequence[float] | None = None,
           growth_interval: int = 2000, start: int = 0) -> Iterator[Observation]:
    """A GradScaler's observations from a pattern of ``S`` (skipped: the scale halves) and
    ``.`` (applied; the scale doubles every ``growth_interval`` of them in a row)."""
    scale, tracker = init, 0
    for index, mark in enumerate(pattern):
        before = scale
        if mark == "S":
            scale, tracker = scale / 2, 0
        else:
            tracker += 1
            if tracker == growth_interval:
                scale, tracker = scale * 2, 0
        loss = losses[index] if losses is not None else 1.0
        yield Observation(start + index, scale_before=before, scale_after=scale, loss=loss,
                          growth_tracker=tracker)


def judged(m: Monitor, stream: Iterator[Observation]) -> list[Diagnosis]:
    for obs in stream:
        m.act(m.observe(obs))
    return m.diagnoses


def codes(diagnoses: list[Diagnosis], code: str) -> list[Diagnosis]:
    return [d for d in diagnoses if d.code == code]


# -- one AMP003 per episode ----------------------------------------------------------------------

def test_lr_100x_in_a_fabric_loop_is_one_collapse_from_its_first_skip() -> None:
    # As recorded from a plain fp16 loop at lr 100x (init_scale 1024): two sane losses, then
    # losses of ~1e7 and skips from step 2, one applied step at 16, skips and NaN from 17.
    pattern = ".." + "S" * 14 + "." + "S" * 43
    losses = [1.08, 5.23] + [8.3e6, 5.8e6, 8.5e6, 3.9e6, 5.9e6, 5.9e6, 6.2e6, 6.4e6, 5.0e6,
                             5.7e6, 6.7e6, 6.7e6, 8.8e6, 8.8e6, 4.6e6] + [NAN] * 43
    found = judged(monitor(), scaler(pattern, init=1024.0, losses=losses))
    [collapse] = codes(found, "AMP003")  # was: a second AMP003 "step 5 ... from step 15"
    assert collapse.step == 2
    summary = collapse.summary
    assert summary.startswith("6 consecutive skipped steps from step 2 ")
    assert "(the first skip at" not in summary
    # The counts say the same thing: 6 skips ending at the step it was reported on.
    seen = re.search(r"(\d+) of the first (\d+) steps skipped", summary)
    assert seen is not None and (int(seen[1]), int(seen[2])) == (6, collapse.reported_step + 1)
    assert collapse.evidence["consecutive_skipped"] == 6
    # What follows is its consequence, not another story.
    assert all(d.caused_by == "AMP003" for d in found if d.code != "AMP003")


def test_streaks_split_by_one_applied_step_are_one_collapse() -> None:
    # A GAN's shared scaler: the generator's step goes through now and then, the discriminator's
    # overflow goes on. Was: three AMP003s, one per streak.
    pattern = "." * 30 + ("S" * 7 + ".") * 3 + "S" * 7 + "." * 40
    found = judged(monitor(), scaler(pattern, init=2.0**16))
    [collapse] = codes(found, "AMP003")
    assert collapse.step == 30


def test_alternating_skips_of_two_optimizers_are_one_collapse() -> None:
    # Two optimizer steps per batch (Lightning's manual optimisation): the discriminator's
    # always skipped, the generator's applied, the scale falling to nothing.
    pattern = "." * 40 + "S." * 60
    found = judged(monitor(), scaler(pattern, init=1024.0))
    [collapse] = codes(found, "AMP003")
    assert collapse.evidence["pattern"] == "scale-trajectory" and collapse.step == 40


def test_a_collapse_after_the_scale_recovered_is_a_new_episode() -> None:
    # Healthy side, non-default growth interval (100): the first collapse (reported at 1024,
    # falling to 256) recovers, the scale growing back past 16 x 1024 over 600 applied steps;
    # then a second one begins: two reports.
    pattern = "." * 50 + "S" * 8 + "." * 700 + "S" * 8 + "." * 20
    found = judged(monitor(growth_interval=100), scaler(pattern, init=2.0**16,
                                                        growth_interval=100))
    assert [d.step for d in codes(found, "AMP003")] == [50, 758]


def test_the_collapse_stays_open_until_the_scale_recovers() -> None:
    # What an adapter asks before reporting DeepSpeed's own exit at its minimum scale.
    m = monitor(growth_interval=100)
    [collapse] = [d for d in m.detectors if isinstance(d, ScaleCollapseDetector)]
    judged(m, scaler("." * 50 + "S" * 8, init=2.0**16, growth_interval=100))
    assert collapse.collapse_open
    judged(m, scaler("." * 700, init=256.0, growth_interval=100, start=58))
    # (Monitor.detectors gives the quiet steps to the detectors first, as an adapter reads it)
    assert collapse in m.detectors and not collapse.collapse_open


def test_a_second_streak_before_any_recovery_stays_the_first_collapse() -> None:
    # The same two streaks 60 steps apart: the scale has not grown back, one episode.
    pattern = "." * 50 + "S" * 8 + "." * 60 + "S" * 8 + "." * 20
    found = judged(monitor(growth_interval=100), scaler(pattern, init=2.0**16,
                                                        growth_interval=100))
    assert [d.step for d in codes(found, "AMP003")] == [50]


# -- an amendment never contradicts the evidence ---------------------------------------------

ONE_OFF = ("located at step {at}: every input, activation, loss and gradient was finite, the "
           "fault did not recur (a one-off points to the failing step's batch or a transient "
           "spike)")


def one_off(m: Monitor, code: str, step: int, at: int) -> Diagnosis:
    """Amend ``code`` as the locator does when the armed step ``at`` was finite."""
    clause = ONE_OFF.format(at=at)
    amended = m.amend(code, step=step, located=clause,
                      evidence={"origin": {"verdict": "not-reproduced", "located_step": at},
                                "cause": "bad-data", "cause_evidence": ["a one-off"]},
                      root_cause="bad input data, not AMP: a one-off",
                      fix="Find and drop or repair the bad samples")
    assert amended is not None
    return amended


def test_a_one_off_withdrawn_when_the_nan_recurs_two_steps_later() -> None:
    # A diverging GAN at lr 2 (no scaler skip: the NaN is applied, an error at once): the
    # armed step 12 is finite, and the loss is inf again at step 14.
    m = monitor()
    losses = [1.7, 56.7, 113.0, 153.0, 187.0, 201.0, 212.0, 227.0, 229.0, 215.0, 224.6]
    stream = [Observation(s, scale_before=64.0, scale_after=64.0, loss=x)
              for s, x in enumerate(losses)]
    judged(m, iter(stream))
    [nan] = m.observe(Observation(11, scale_before=64.0, scale_after=64.0, loss=NAN))
    assert nan.severity.value == "error"
    one_off(m, "AMP006", 11, at=12)
    judged(m, iter([Observation(12, scale_before=64.0, scale_after=32.0, loss=153.8),
                    Observation(13, scale_before=32.0, scale_after=32.0, loss=2.0),
                    Observation(14, scale_before=32.0, scale_after=16.0, loss=math.inf)]))
    [held] = codes(m.diagnoses, "AMP006")
    assert "did not recur" not in held.summary and held.located is None
    assert held.summary.endswith("the fault recurred at step 14 (loss inf): it was not a "
                                 "one-off")
    assert held.evidence["recurred_step"] == 14
    assert held.evidence.get("cause") != "bad-data" and "bad samples" not in held.fix
    # The origin the locator measured stays on record.
    assert held.evidence["origin"]["verdict"] == "not-reproduced"


def test_an_escalation_does_not_keep_a_one_off() -> None:
    m = monitor()
    judged(m, scaler_stream([], 20))
    m.observe(Observation(20, scale_before=65536.0, scale_after=32768.0, loss=NAN))  # warning
    one_off(m, "AMP006", 20, at=21)
    judged(m, iter([Observation(21, scale_before=32768.0, scale_after=32768.0, loss=1.0),
                    Observation(22, scale_before=32768.0, scale_after=16384.0, loss=NAN)]))
    [held] = codes(m.diagnoses, "AMP006")
    assert held.severity.value == "error" and held.evidence["recurred_step"] == 22
    assert "did not recur" not in held.summary and held.located is None
    assert held.root_cause != "bad input data, not AMP: a one-off"
    assert held.evidence.get("cause") != "bad-data"


def test_a_one_off_collapse_withdrawn_when_the_skips_go_on() -> None:
    m = monitor()
    pattern = "." * 30 + "S" * 6
    judged(m, scaler(pattern, init=2.0**16))
    [collapse] = codes(m.diagnoses, "AMP003")
    one_off(m, "AMP003", collapse.step or 0, at=36)
    judged(m, scaler("SS", init=1024.0, start=36))
    [held] = codes(m.diagnoses, "AMP003")
    assert held.evidence["recurred_step"] == 37 and "did not recur" not in held.summary
    assert "the step was skipped again" in held.summary


def test_a_true_one_off_stays_one() -> None:
    # Healthy side: the NaN never comes back; the one-off verdict stands.
    m = monitor()
    judged(m, scaler_stream([], 20))
    m.observe(Observation(20, scale_before=65536.0, scale_after=32768.0, loss=NAN))
    one_off(m, "AMP006", 20, at=21)
    # One ordinary overflow five steps later (a finite loss): no recurrence of a NaN.
    judged(m, scaler("....." + "S" + "." * 94, init=32768.0, start=21))
    [held] = codes(m.diagnoses, "AMP006")
    assert held.located is not None and "did not recur" in held.summary
    assert "recurred_step" not in held.evidence and held.evidence["cause"] == "bad-data"
