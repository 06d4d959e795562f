"""The failing-step re-run in real fp16 autocast + GradScaler loops (CPU), through AmpMonitor."""

from __future__ import annotations

import math
import platform
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch
from locate_models import (
    FAULT_STEP,
    FEATURES,
    TinyT5,
    backward_only_overflow,
    nan_in_one_batch,
)
from rerun_models import (
    DropoutLogLoss,
    FlipOnce,
    NormedT5,
    assert_identical,
    state_of,
)

from denpex_callbacks import MonitorConfig, read_report
from denpex_callbacks.core import catalog
from denpex_callbacks.torch import AmpMonitor


def compute_loss(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)
    return out.float() if out.dim() == 0 else torch.nn.functional.mse_loss(out.float(), y)


@dataclass
class Loop:
    monitor: AmpMonitor
    model: torch.nn.Module
    losses: list[float] = field(default_factory=list)
    states: dict[int, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    rerun_calls: int = 0

    def diagnosis(self, code: str) -> Any:
        return next(d for d in self.monitor.diagnoses if d.code == code)


def train(
    steps: int,
    *,
    model: torch.nn.Module | None = None,
    fault: Any = None,
    lr: float = 0.01,
    momentum: float = 0.9,
    closure: str | None = "partial",
    scaler: bool = True,
    config: MonitorConfig | None = None,
    same_batch: bool = False,
    micro_batches: int = 1,
    after_backward: Any = None,
    growth_interval: int = 2000,
    init_scale: float = 2.0**10,
) -> Loop:
    """A real fp16 loop; ``closure``: "partial" (bound), "lambda" (reads loop variables
    late) or None (the model alone is re-run). ``monitor.step`` runs before ``zero_grad`` so
    that the re-run finds gradients in place and must leave them."""
    model = model if model is not None else TinyT5()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    amp = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval,
                               enabled=scaler)
    monitor = AmpMonitor(scaler=amp if scaler else None, optimizer=opt, model=model,
                         config=config or MonitorConfig(report_dir=None))
    loop = Loop(monitor, model)
    gen = torch.Generator().manual_seed(1)
    fixed = torch.randn(2, FEATURES, generator=gen)
    torch.manual_seed(3)
    for step in range(steps):
        total = torch.zeros(())
        for micro in range(micro_batches):
            x = fixed if same_batch else torch.randn(32, FEATURES, generator=gen)
            y = x[:, :1] * 2.0 + 0.5
            if fault is not None and micro == 0:
                x = fault(model, step, x)
            loss = compute_loss(model, x, y)
            amp.scale(loss).backward()
            total = total + loss.detach()
        if after_backward is not None:
            after_backward(step, x)
        amp.step(opt)
        amp.update()

        def counted(x: torch.Tensor = x, y: torch.Tensor = y) -> torch.Tensor:
            loop.rerun_calls += 1
            return compute_loss(model, x, y)

        rerun = {"partial": counted, "lambda": lambda: compute_loss(model, x, y),  # noqa: B023
                 None: None}[closure]
        before = state_of(model, opt, amp)
        monitor.step(total, rerun=rerun)
        loop.states[step] = (before, state_of(model, opt, amp))
        opt.zero_grad()
        loop.losses.append(total.item())
    monitor.close()
    return loop


def assert_untouched(loop: Loop, *steps: int) -> None:
    for step in steps:
        assert_identical(*loop.states[step])


def test_nan_in_one_batch_reproduces_and_is_located_in_the_failing_batch(tmp_path):
    loop = train(9, fault=nan_in_one_batch, config=MonitorConfig(report_dir=str(tmp_path)))
    nan_loss = loop.diagnosis("AMP006")
    assert (nan_loss.step, nan_loss.reported_step) == (FAULT_STEP, FAULT_STEP)
    assert nan_loss.evidence["rerun"] == "reproduced"
    assert nan_loss.evidence["rerun_reason"] == "the re-run's loss is nan again"
    detail = nan_loss.evidence["rerun_detail"]
    assert (detail["step"], detail["rank"], detail["covers"]) == (FAULT_STEP, 0, "forward")
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP, "embed")  # the failing batch itself, not the next one
    assert nan_loss.root_cause.startswith("non-finite values in the input batch")
    assert "reproduced" in nan_loss.summary and "not the hardware" in nan_loss.summary
    assert loop.rerun_calls == 1
    assert_untouched(loop, *range(9))
    # The verdict is in the rank's report.
    on_disk = next(d for d in read_report(tmp_path / "rank0.jsonl").diagnoses
                   if d.code == "AMP006")
    assert on_disk.evidence["rerun"] == "reproduced" and on_disk.evidence["origin"]


def test_without_a_closure_the_model_alone_reproduces_a_nan_batch():
    loop = train(9, fault=nan_in_one_batch, closure=None)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.evidence["rerun"] == "reproduced"
    assert nan_loss.evidence["rerun_reason"] == "the model's output is non-finite again"
    assert nan_loss.evidence["origin"]["located_step"] == FAULT_STEP


def test_learning_rate_far_too_high_reproduces_as_divergence():
    loop = train(8, lr=0.5)
    first = next(i for i, loss in enumerate(loop.losses) if not math.isfinite(loss))
    assert first >= 2 and loop.losses[first - 1] > 10 * loop.losses[0]  # diverging first
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == first and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert origin["located_step"] == first and origin["inputs_nonfinite"] is False
    assert origin["verdict"] in ("diverged-weights", "activation-overflow")
    assert nan_loss.root_cause != catalog.entry("AMP006").root_cause
    assert_untouched(loop, first)
    # The collapse that follows starts at the same step: re-run once, the verdict reused.
    collapse = loop.diagnosis("AMP003")
    assert collapse.step == first and collapse.evidence["rerun"] == "reproduced"
    assert loop.rerun_calls == 1


@pytest.mark.parametrize("closure", ["partial", None])
def test_an_activation_flipped_once_is_not_reproduced_and_names_the_node(closure):
    # Without a closure the loss (computed outside the model) is not re-run: the model's
    # output, kept as finite or not in the failing step, decides.
    model = TinyT5()
    flip = FlipOnce(FAULT_STEP)
    model.blocks[1].register_forward_hook(flip)
    loop = train(9, model=model, closure=closure)
    assert flip.fired == 1 and not math.isfinite(loop.losses[FAULT_STEP])
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    assert nan_loss.evidence["rerun"] == "not-reproduced"
    assert nan_loss.evidence["rerun_reason"].startswith(
        f"the re-run of step {FAULT_STEP} gave a finite loss" if closure else
        f"the model's output was non-finite in step {FAULT_STEP} and is finite on re-run")
    assert nan_loss.evidence["cause"] == "transient"
    host = platform.node()
    assert nan_loss.evidence["rerun_detail"]["host"] == host
    assert f"rank 0, host {host}" in nan_loss.summary
    assert nan_loss.root_cause.startswith("not reproducible") and "hardware" in nan_loss.root_cause
    assert "another node" in nan_loss.fix and host in nan_loss.fix
    assert nan_loss.evidence["origin"]["located_step"] == FAULT_STEP
    assert_untouched(loop, FAULT_STEP)


def draw(step: int, x: torch.Tensor) -> None:
    torch.rand(3)  # the loop draws from the global generator between forward and monitor


def test_dropout_failure_reproduces_because_the_rng_state_is_restored():
    loop = train(20, model=DropoutLogLoss(features=4), same_batch=True, after_backward=draw)
    failing = [i for i, loss in enumerate(loop.losses) if not math.isfinite(loss)]
    first = failing[0]
    # Same batch every step: only the dropout mask decides whether a step fails.
    assert math.isfinite(loop.losses[first - 1]) and math.isfinite(loop.losses[first + 1])
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == first and nan_loss.evidence["rerun"] == "reproduced"
    assert_untouched(loop, first)
    # The re-run puts the RNG back as it found it: the run continues exactly as without it.
    off = train(20, model=DropoutLogLoss(features=4), same_batch=True, after_backward=draw,
                config=MonitorConfig(report_dir=None, rerun=False))
    assert str(off.losses) == str(loop.losses)
    assert "rerun" not in off.diagnosis("AMP006").evidence


def test_gradient_overflow_reruns_forward_and_backward_at_the_streak_start():
    loop = train(13, init_scale=2.0**16, fault=backward_only_overflow)
    collapse = loop.diagnosis("AMP003")
    assert (collapse.step, collapse.reported_step) == (FAULT_STEP, FAULT_STEP + 5)
    assert collapse.evidence["rerun"] == "reproduced"
    scale = collapse.evidence["scale_at_start"]  # after the start-up back-off from 2**16
    assert scale in (2.0**16, 2.0**15)
    assert collapse.evidence["rerun_reason"] == (
        f"the gradients overflow again at loss scale {scale:g}")
    assert collapse.evidence["rerun_detail"]["covers"] == "forward+backward"
    assert collapse.evidence["rerun_detail"]["loss_identical"] is True
    origin = collapse.evidence["origin"]
    assert (origin["verdict"], origin["located_step"]) == ("backward-overflow", FAULT_STEP)
    assert (origin["backward_module"], origin["backward_role"]) == ("blocks.2.wo", "input")
    assert loop.rerun_calls == 1
    assert_untouched(loop, *range(13))  # gradients in place before and after, too
    assert loop.monitor.pipeline.locate.rerun is not None


def test_without_a_loss_a_gradient_overflow_is_not_rerunnable_and_says_why():
    loop = train(13, init_scale=2.0**16, fault=backward_only_overflow, closure=None)
    collapse = loop.diagnosis("AMP003")
    assert collapse.evidence["rerun"] == "not-rerunnable"
    assert "covered the forward only" in collapse.evidence["rerun_reason"]
    assert "returns no loss" in collapse.evidence["rerun_reason"]
    assert collapse.evidence["origin"]["located_step"] == FAULT_STEP + 6  # next-step locator


def test_a_closure_reading_loop_variables_late_is_caught():
    loop = train(13, init_scale=2.0**16, fault=backward_only_overflow, closure="lambda")
    collapse = loop.diagnosis("AMP003")
    assert collapse.evidence["rerun"] == "not-rerunnable"
    assert "other inputs than the failing step's" in collapse.evidence["rerun_reason"]


def test_an_applied_update_makes_the_step_not_rerunnable():
    # fp32, no scaler: nothing skips the NaN update, the weights are NaN by the re-run.
    loop = train(8, fault=nan_in_one_batch, scaler=False)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.evidence["rerun"] == "not-rerunnable"
    assert "an optimizer step was applied" in nan_loss.evidence["rerun_reason"]
    assert loop.rerun_calls == 0


def test_inputs_modified_in_place_make_the_step_not_rerunnable():
    def reuse_buffer(step: int, x: torch.Tensor) -> None:
        if step == FAULT_STEP:
            x.zero_()  # the loop recycles its input buffer before the monitor runs

    loop = train(8, fault=nan_in_one_batch, after_backward=reuse_buffer)
    reason = loop.diagnosis("AMP006").evidence["rerun_reason"]
    assert reason == f"the inputs of step {FAULT_STEP} were modified in place after its forward"


@pytest.mark.parametrize("closure", ["partial", None])
def test_accumulation_only_the_last_micro_batch_kept_is_said_not_guessed(closure):
    loop = train(8, fault=nan_in_one_batch, micro_batches=2, closure=closure)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.evidence["rerun"] == "not-rerunnable"
    assert "only the last of the 2 micro-batches" in nan_loss.evidence["rerun_reason"]
    assert nan_loss.evidence["rerun_detail"]["forwards_in_step"] == 2


def test_batchnorm_statistics_are_left_as_they_were():
    loop = train(8, model=NormedT5(), fault=nan_in_one_batch)
    assert loop.diagnosis("AMP006").evidence["rerun"] == "reproduced"
    assert_untouched(loop, FAULT_STEP)  # running_mean/var, num_batches_tracked included


@pytest.mark.parametrize("closure", ["partial", None])
def test_healthy_run_never_reruns_and_keeps_no_batch(closure):
    loop = train(30, closure=closure, growth_interval=5)
    assert [d.code for d in loop.monitor.diagnoses if d.severity.rank >= 1] == []
    assert loop.rerun_calls == 0 and loop.monitor.pipeline.locate.rerun.reruns == 0
    assert loop.monitor.pipeline.locate.rerun.held_steps == []


class ReadsTheStepCounter:
    """A re-run closure whose loss reads the loop's step counter (a warm-up divisor, 0 at step
    0), advanced since the step, and which says so (``unrestored``), as an adapter's closure
    over a framework's step function does where it cannot set the trainer's counters back."""

    unrestored = "the loss reads the loop's step counter, which the re-run did not restore"

    def __init__(self, model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor,
                 counter: dict[str, int]) -> None:
        self.model, self.x, self.y, self.counter = model, x, y, counter

    def __call__(self) -> torch.Tensor:
        return compute_loss(self.model, self.x, self.y) / min(1.0, self.counter["step"] / 10)


def test_a_rerun_that_could_not_restore_what_the_step_reads_never_blames_the_node():
    torch.manual_seed(0)
    model = TinyT5()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    amp = torch.amp.GradScaler("cpu", init_scale=2.0**9, growth_interval=7)
    monitor = AmpMonitor(scaler=amp, optimizer=opt, model=model, report_dir=None)
    gen = torch.Generator().manual_seed(1)
    counter = {"step": 0}
    for step in range(4):
        x = torch.randn(32, FEATURES, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        closure = ReadsTheStepCounter(model, x, y, counter)
        loss = closure()  # inf at step 0: the divisor is 0
        amp.scale(loss).backward()
        amp.step(opt)
        amp.update()
        opt.zero_grad()
        counter["step"] = step + 1  # counted before the step is judged, as trainers do
        monitor.step(loss.detach(), rerun=closure)
    monitor.close()
    nan_loss = next(d for d in monitor.diagnoses if d.code == "AMP006")
    assert nan_loss.step == 0 and nan_loss.evidence["rerun"] == "not-rerunnable"
    assert nan_loss.evidence["rerun_reason"].endswith(ReadsTheStepCounter.unrestored)
    assert "finite loss" in nan_loss.evidence["rerun_reason"]
    assert "host" not in nan_loss.fix and "node" not in nan_loss.fix
