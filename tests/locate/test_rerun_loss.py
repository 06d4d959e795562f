"""Plain loops that compute the loss outside the model: the fault placed without re-running the
loss (the model's output kept as finite or not, on the device), and re-run with the loss once
the loop hands over its loss function and targets. Real fp16 autocast + GradScaler loops (CPU).
(A one-off non-finite activation, transient, is in test_rerun_torch.py.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import torch
from locate_models import FAULT_STEP, FEATURES, TinyT5

from denpex_callbacks import MonitorConfig
from denpex_callbacks.torch import AmpMonitor


def normalised_mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The error in units of the batch's spread of targets: infinite when they are constant."""
    return torch.nn.functional.mse_loss(out.float(), y) / y.std()


@dataclass
class Loop:
    monitor: AmpMonitor
    losses: list[float] = field(default_factory=list)

    def diagnosis(self, code: str) -> Any:
        return next(d for d in self.monitor.diagnoses if d.code == code)

    def warnings(self) -> list[str]:
        return [d.code for d in self.monitor.diagnoses if d.severity.rank >= 1]


def half_normalised_mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The same error computed and reduced in float16."""
    return ((out.half() - y.half()) ** 2).mean() / y.half().std()


def train(steps: int, *, model: torch.nn.Module | None = None, targets: Any = None,
          hand_over: bool = False, loss_fn_at_start: bool = False,
          init_scale: float = 2.0**10, loss_fn: Any = normalised_mse) -> Loop:
    """``targets(step, x)`` makes each batch's targets; ``hand_over``: the loop passes them
    and its loss function to ``monitor.step`` (or, with ``loss_fn_at_start``, the loss
    function to the constructor)."""
    model = model if model is not None else TinyT5()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                         loss_fn=loss_fn if loss_fn_at_start else None,
                         config=MonitorConfig(report_dir=None))
    loop = Loop(monitor)
    gen = torch.Generator().manual_seed(1)
    for step in range(steps):
        x = torch.randn(32, FEATURES, generator=gen)
        y = targets(step, x) if targets is not None else x[:, :1] * 2.0 + 0.5
        if isinstance(model, ReturnsItsLoss):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(x, y)
        else:
            with torch.autocast("cpu", dtype=torch.float16):
                out = model(x)
            loss = loss_fn(out, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        if hand_over:
            monitor.step(loss, targets=y, loss_fn=None if loss_fn_at_start else loss_fn)
        else:
            monitor.step(loss)
        loop.losses.append(loss.item())
    monitor.close()
    return loop


def constant_targets(step: int, x: torch.Tensor) -> torch.Tensor:
    """One batch of identical targets (a shard of one class): their std is 0."""
    y = x[:, :1] * 2.0 + 0.5
    return torch.full_like(y, 0.5) if step == FAULT_STEP else y


def nan_target(step: int, x: torch.Tensor) -> torch.Tensor:
    y = x[:, :1] * 2.0 + 0.5
    if step == FAULT_STEP:
        y = y.clone()
        y[7, 0] = float("nan")
    return y


def test_a_loss_divided_by_a_zero_statistic_is_placed_in_the_loss_computation():
    loop = train(9, targets=constant_targets)
    assert math.isinf(loop.losses[FAULT_STEP])
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    assert nan_loss.evidence["rerun"] == "not-rerunnable"  # the loss itself was not re-run
    assert nan_loss.evidence["rerun_detail"]["placed"] == "loss-computation"
    assert "loss_fn" in nan_loss.evidence["rerun_reason"]
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"]) == ("loss-computation", FAULT_STEP)
    assert origin["targets_finite"] is True  # the step's inputs (the targets were not handed)
    assert nan_loss.root_cause.startswith("the loss computation produced the non-finite value")
    assert "every module of the model returned finite outputs" in nan_loss.root_cause
    assert "bad samples" not in nan_loss.fix and "epsilon" in nan_loss.fix
    # Placed in the failing step itself: no locator armed for the next step.
    assert f"located at step {FAULT_STEP + 1}" not in nan_loss.summary


def test_with_the_loss_function_and_targets_handed_over_the_loss_is_re_run():
    for at_start in (False, True):
        loop = train(9, targets=constant_targets, hand_over=True, loss_fn_at_start=at_start)
        nan_loss = loop.diagnosis("AMP006")
        assert nan_loss.evidence["rerun"] == "reproduced"
        assert nan_loss.evidence["rerun_reason"] == "the re-run's loss is inf again"
        origin = nan_loss.evidence["origin"]
        assert origin["verdict"] == "loss-computation" and origin["targets_finite"] is True
        assert "the targets and the step's inputs were finite, so the loss code itself" in (
            nan_loss.root_cause)


def test_a_float32_loss_is_not_told_to_be_computed_in_float32():
    """The loss above is computed from ``out.float()``: re-run, its precision is seen not to be
    the fault, so the fix is the guard, not an upcast that would change nothing; not re-run,
    its dtype is not known and the upcast is only advised where the loss is not float32."""
    nan_loss = train(9, targets=constant_targets, hand_over=True).diagnosis("AMP006")
    assert nan_loss.evidence["origin"]["loss_dtype"] == "torch.float32"
    assert nan_loss.fix.startswith("Guard log/div with an epsilon")
    assert "already float32, so computing it in float32 would change nothing" in nan_loss.fix
    assert "the re-run computed it in float32, so not its precision" in nan_loss.root_cause
    placed = train(9, targets=constant_targets).diagnosis("AMP006")
    assert placed.evidence["origin"]["loss_dtype"] is None
    assert placed.fix.startswith("Guard log/div with an epsilon")
    assert placed.fix.endswith("if it is not float32 already.")


def test_a_float16_loss_is_told_to_be_computed_in_float32():
    loop = train(9, targets=constant_targets, hand_over=True, loss_fn=half_normalised_mse)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    assert nan_loss.evidence["origin"]["verdict"] == "loss-computation"
    assert nan_loss.evidence["origin"]["loss_dtype"] == "torch.float16"
    assert nan_loss.fix.startswith("Compute the loss in float32 outside autocast")
    assert "a reduction in fp16" in nan_loss.root_cause


def test_a_nan_target_handed_over_is_bad_data_not_the_loss_code():
    loop = train(9, targets=nan_target, hand_over=True)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["targets_finite"]) == ("input-data", False)
    assert nan_loss.root_cause.startswith("non-finite values in the targets")
    assert "torch.isfinite(targets).all()" in nan_loss.fix


def test_a_loss_divided_by_a_statistic_that_is_never_zero_stays_silent():
    loop = train(30, hand_over=True)
    assert loop.warnings() == []
    assert all(math.isfinite(loss) for loss in loop.losses)


def spike(step: int, x: torch.Tensor) -> torch.Tensor:
    """One batch 30 times larger: finite, but its gradients overflow fp16 at the scale."""
    if step == FAULT_STEP:
        x.mul_(30.0)
    return x[:, :1] * 2.0 + 0.5


def test_a_transient_spike_the_scaler_absorbs_stays_silent():
    loop = train(12, targets=spike, init_scale=2.0**16)
    skipped = [step for step, _scale, was_skipped, _loss in loop.monitor.monitor.run.recent
               if was_skipped]
    assert skipped == [FAULT_STEP] and math.isfinite(loop.losses[FAULT_STEP])
    assert loop.warnings() == []
    assert loop.monitor.pipeline.locate.rerun is not None
    assert loop.monitor.pipeline.locate.rerun.reruns == 0


class ReturnsItsLoss(torch.nn.Module):
    """A model whose forward computes its own loss (as HF models do), in float32 or in the
    output's float16."""

    def __init__(self, wide: bool) -> None:
        super().__init__()
        self.body, self.wide = TinyT5(), wide

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = self.body(x)
        loss = normalised_mse if self.wide else half_normalised_mse
        return loss(out, y)


def test_a_model_returning_a_float32_loss_is_not_told_to_upcast():
    loop = train(9, model=ReturnsItsLoss(wide=True), targets=constant_targets)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    assert nan_loss.evidence["origin"]["verdict"] == "loss-computation"
    assert "its output was already float32, so not its precision" in nan_loss.root_cause
    assert nan_loss.fix.startswith("Guard log/div with an epsilon")


def test_a_model_returning_a_float16_loss_is_told_to_upcast():
    loop = train(9, model=ReturnsItsLoss(wide=False), targets=constant_targets)
    nan_loss = loop.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    assert nan_loss.evidence["origin"]["verdict"] == "loss-computation"
    assert nan_loss.fix.startswith("Compute the loss in float32 (upcast the logits")
