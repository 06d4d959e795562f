"""The re-run capture on the hot path: what it keeps per forward, and for which step.

A capture is taken at every training forward; the step it belongs to is finished on the full
path only (a step the pipeline takes as quiet never is): these tests check that a capture goes
with its own step and no other, and that the parameters whose versions prove "unchanged since"
are the ones an applied update writes; that the RNG state is kept exactly while the steps draw
random numbers.
"""

from __future__ import annotations

import torch

from denpex_callbacks import Monitor, MonitorConfig, Observation
from denpex_callbacks.locate.capture import (
    RNG_CHECK_EVERY,
    RNG_CHECKS_TO_SETTLE,
    TRACKED_PARAMS,
    StepCaptures,
)


def _net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 8),
                               torch.nn.Linear(8, 1))


def test_a_quiet_step_s_capture_is_never_finished_as_the_next_step_s() -> None:
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    captures = StepCaptures(monitor, model)
    model(torch.ones(2, 4))  # step 0's forward
    monitor.observe(Observation(0, loss=1.0, skipped=False))  # judged (as a quiet step would be)
    captures.step_finished(1)  # step 1 had no forward of the watched model
    assert captures.held_steps == []  # step 0's capture is not step 1's
    model(torch.ones(2, 4))  # step 1's own forward ...
    model(torch.ones(2, 4))  # ... and a second micro-batch: one step, two forwards
    captures.step_finished(1)
    assert captures.held_steps == [1] and captures.held[1].forwards == 2
    captures.close()


def test_the_versions_tracked_are_those_an_applied_update_writes() -> None:
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    frozen = model[1].weight
    frozen.requires_grad_(False)  # not trainable: never tracked
    captures = StepCaptures(monitor, model)
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert captures.tracked_params == trainable  # all of them until an update is seen
    optimizer = torch.optim.SGD(trainable, lr=0.1)
    for _ in range(2):
        model(torch.ones(2, 4)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
    tracked = captures.tracked_params
    assert len(tracked) == TRACKED_PARAMS
    assert tracked[0] is trainable[0] and tracked[-1] is trainable[-1]  # first and last written
    before = captures.param_version()
    optimizer.step()  # no gradients: SGD writes nothing
    assert captures.param_version() == before
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()  # an applied update: the tracked versions move
    assert captures.param_version() != before
    captures.close()


def _kept(captures: StepCaptures, model: torch.nn.Module) -> bool:
    """One forward: whether its capture kept the RNG state."""
    model(torch.ones(2, 4))
    assert captures._open is not None
    return captures._open[2] is not None


def test_the_rng_state_is_kept_while_the_steps_draw_random_numbers() -> None:
    torch.manual_seed(0)
    dropout = torch.nn.Dropout(0.0)  # off: draws nothing
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), dropout, torch.nn.Linear(8, 1))
    monitor = Monitor(MonitorConfig(report_dir=None))
    captures = StepCaptures(monitor, model)
    # The generator stays still from one forward to the next: the checks' forwards keep the
    # state (each check clones at one forward and compares at the next); then no more.
    kept = [_kept(captures, model) for _ in range(RNG_CHECKS_TO_SETTLE + 3)]
    assert kept == [True] * RNG_CHECKS_TO_SETTLE + [False] * 3
    assert not captures.rng_kept
    # The model begins to draw (a dropout schedule): the next check, RNG_CHECK_EVERY forwards
    # after the last (forwards 4 -> 68; 2 since were seen above), sees it, and from the forward
    # that compared on the state is kept again.
    dropout.p = 0.1
    kept = [_kept(captures, model) for _ in range(RNG_CHECK_EVERY - 2)]
    assert kept[-2:] == [True, True] and kept.count(True) == 2 and captures.rng_kept
    assert all(_kept(captures, model) for _ in range(RNG_CHECK_EVERY))
    captures.close()


def test_a_model_with_dropout_keeps_the_rng_state_at_every_forward() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Dropout(0.1),
                                torch.nn.Linear(8, 1))
    monitor = Monitor(MonitorConfig(report_dir=None))
    captures = StepCaptures(monitor, model)
    assert all(_kept(captures, model) for _ in range(2 * RNG_CHECK_EVERY))
    assert captures.rng_kept
    captures.close()


def test_an_update_count_proves_an_update_instead_of_version_counters() -> None:
    # An optimizer that writes around the counters (DeepSpeed's ZeRO) gives its count.
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    applied = [0]
    captures = StepCaptures(monitor, model, updates=lambda: applied[0])
    assert captures.tracked_params == []  # no counter is read per forward
    model(torch.ones(2, 4))
    captures.step_finished(0)
    before = captures.held[0].param_version
    with torch.no_grad():
        model[0].weight.add_(1.0)  # the counters move, the count does not
    assert captures.param_version() == before
    applied[0] += 1
    assert captures.param_version() != before
    captures.close()


def test_the_autocast_state_around_the_forward_is_kept() -> None:
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    captures = StepCaptures(monitor, model)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.ones(2, 4))
    captures.step_finished(0)
    monitor.observe(Observation(0, loss=1.0, skipped=False))
    model(torch.ones(2, 4))  # outside autocast (a Trainer's pre-hook: accelerate enters it
    captures.step_finished(1)  # inside the wrapped forward)
    assert captures.held[0].autocast == [("cpu", torch.bfloat16)]
    assert captures.held[1].autocast == []
    monitor.observe(Observation(1, loss=1.0, skipped=False))
    with torch.autocast("cpu", dtype=torch.float16, enabled=False):
        model(torch.ones(2, 4))
    captures.step_finished(2)
    assert captures.held[2].autocast == []
    captures.close()
