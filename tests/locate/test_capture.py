"""The re-run capture on the hot path: what it keeps per forward, and for which step.

A capture is taken at every training forward; the step it belongs to is finished on the full
path only (a step the pipeline takes as quiet never is): these tests check that a capture goes
with its own step and no other, and that the parameters whose versions prove "unchanged since"
are the ones an applied update writes.
"""

from __future__ import annotations

import torch

from denpex_callbacks import Monitor, MonitorConfig, Observation
from denpex_callbacks.locate.capture import TRACKED_PARAMS, StepCaptures


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
