"""The re-run capture on healthy steps: what it keeps per forward, and for which step.

A capture is taken at every training forward; the step it belongs to is finished on the full
path only (a step the pipeline takes as quiet never is): these tests check that a capture goes
with its own step and no other, that whether the output was finite is kept on the device over
a step's micro-batches, that applied optimizer steps are counted (a fused optimizer's skipped
step included) and that several models are captured each on its own.
"""

from __future__ import annotations

import torch

from denpex_callbacks import Monitor, MonitorConfig, Observation
from denpex_callbacks.locate.applied_steps import AppliedSteps, CountedUpdates
from denpex_callbacks.locate.capture import StepCaptures
from denpex_callbacks.locate.watched import watched_models


def _net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 8),
                               torch.nn.Linear(8, 1))


def _captures(models: object, monitor: Monitor) -> StepCaptures:
    watched = watched_models(models)
    return StepCaptures(monitor, watched, AppliedSteps([m.module for m in watched]))


def test_a_step_judged_meanwhile_leaves_the_running_step_s_capture_whole() -> None:
    # On a device an earlier step is judged while the next one runs (before its optimizer
    # step): the forwards until step_finished are still that step's.
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    captures = _captures(model, monitor)
    model(torch.ones(2, 4))  # step 1's first micro-batch
    monitor.observe(Observation(0, loss=1.0, skipped=False))  # step 0 judged meanwhile
    model(torch.ones(2, 4))  # step 1's second micro-batch
    captures.step_finished(1)
    assert captures.held_steps == [1] and captures.held[1].forwards == 2
    captures.step_finished(2)  # a step without a forward of the watched model keeps nothing
    assert captures.held_steps == [1]
    captures.close()


def test_the_output_sum_stays_on_the_device_and_covers_every_micro_batch() -> None:
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    captures = _captures(model, monitor)
    bad = torch.ones(2, 4)
    bad[0, 0] = float("inf")
    model(bad)  # the first micro-batch's output is non-finite, the second's finite
    model(torch.ones(2, 4))
    captures.step_finished(0)
    forward = captures.held[0].models[""]
    assert isinstance(forward.output_sum, torch.Tensor) and forward.output_sum.dim() == 0
    assert captures.held[0].output_finite() is False
    monitor.observe(Observation(0, loss=1.0, skipped=False))
    model(torch.ones(2, 4))
    captures.step_finished(1)
    assert captures.held[1].output_finite() is True
    captures.close()


def test_fp16_outputs_near_the_limit_are_finite_though_their_sum_is_not_in_fp16() -> None:
    layer, monitor = torch.nn.Linear(4, 1, bias=False), Monitor(MonitorConfig(report_dir=None))
    with torch.no_grad():
        layer.weight.fill_(15000.0)
    captures = _captures(layer, monitor)
    with torch.autocast("cpu", dtype=torch.float16):
        out = layer(torch.ones(8, 4))  # 60000 each: finite, summing to 480000 (inf in fp16)
    captures.step_finished(0)
    assert out.dtype == torch.float16 and torch.isfinite(out).all()
    assert captures.held[0].output_finite() is True
    captures.close()


def test_the_loss_in_a_model_output_is_not_its_output() -> None:
    class WithLoss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(4, 2)

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
            logits = self.lin(x)
            return {"loss": logits.sum() / 0.0, "logits": logits}  # inf loss, finite logits

    model, monitor = WithLoss(), Monitor(MonitorConfig(report_dir=None))
    captures = _captures(model, monitor)
    model(torch.ones(2, 4))
    captures.step_finished(0)
    assert captures.held[0].output_finite() is True
    captures.close()


def test_applied_steps_are_counted_and_a_fused_skip_is_read_from_found_inf() -> None:
    model = _net()
    other = torch.nn.Linear(2, 2)  # an optimizer of another model does not count
    foreign = torch.optim.SGD(other.parameters(), lr=0.1)
    steps = AppliedSteps([model])
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    assert optimizer._step_supports_amp_scaling  # GradScaler calls it even to skip
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    for overflow in (False, True):
        mark = steps.mark()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(torch.ones(2, 4)).float().sum() * (float("inf") if overflow else 1.0)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        other(torch.ones(1, 2)).sum().backward()
        foreign.step()
        # Both steps called the fused optimizer; only the first one applied its update.
        assert steps.calls == mark + 1
        assert steps.applied_since(mark) is not overflow
    steps.close()
    before = steps.calls
    optimizer.step()
    assert steps.calls == before  # the hook is gone


def test_a_framework_s_count_of_updates_replaces_the_hook() -> None:
    applied = [0]
    counter = CountedUpdates(lambda: applied[0])
    mark = counter.mark()
    assert not counter.applied_since(mark)
    applied[0] += 1
    assert counter.applied_since(mark)


def test_several_models_are_captured_each_on_its_own() -> None:
    torch.manual_seed(0)
    gen, disc = torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)
    monitor = Monitor(MonitorConfig(report_dir=None))
    captures = _captures(torch.nn.ModuleDict({"gen": gen, "disc": disc}), monitor)
    z = torch.ones(2, 3)
    fake = gen(z)
    disc(fake)
    disc(torch.ones(2, 4))  # a second forward of the discriminator (real data)
    captures.step_finished(0)
    capture = captures.held[0]
    assert list(capture.models) == ["gen", "disc"]
    assert capture.models["gen"].args[0] is z and capture.models["disc"].forwards == 2
    assert capture.first is capture.models["gen"]  # a whole-step re-run starts there
    captures.close()


def test_the_autocast_state_around_the_forward_is_kept() -> None:
    model, monitor = _net(), Monitor(MonitorConfig(report_dir=None))
    captures = _captures(model, monitor)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(torch.ones(2, 4))
    captures.step_finished(0)
    monitor.observe(Observation(0, loss=1.0, skipped=False))
    model(torch.ones(2, 4))  # outside autocast (a Trainer's pre-hook: accelerate enters it
    captures.step_finished(1)  # inside the wrapped forward)
    assert captures.held[0].models[""].autocast == [("cpu", torch.bfloat16)]
    assert captures.held[1].models[""].autocast == []
    monitor.observe(Observation(1, loss=1.0, skipped=False))
    with torch.autocast("cpu", dtype=torch.float16, enabled=False):
        model(torch.ones(2, 4))
    captures.step_finished(2)
    assert captures.held[2].models[""].autocast == []
    captures.close()
