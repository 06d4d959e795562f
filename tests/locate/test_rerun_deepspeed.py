"""The failing-step re-run on a real DeepSpeed engine (CPU, gloo, fp16 ZeRO-1, dynamic scale).

DeepSpeed's fp16 mode trains the module itself in fp16 (no autocast); the re-run calls
``engine.module`` on the captured inputs, forward only for a non-finite loss. The module here
computes its loss inside, as HF models do.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

pytest.importorskip("deepspeed")

import deepspeed
import rerun_models as check
from locate_models import ARMED_AFTER, FEATURES, TinyT5
from rerun_models import DropoutLogLoss, FlipOnce, assert_identical

from denpex_callbacks.deepspeed import attach
from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config

# ds_dist and fp16_cpu (a process group, DeepSpeed fp16 on CPU) come from tests/conftest.py.
BASE_CONFIG: dict[str, Any] = deepspeed_cpu_fp16_config(
    steps_per_print=10_000,
    fp16={"enabled": True, "initial_scale_power": 10, "hysteresis": 2},
    zero_optimization={"stage": 1},
)

FAULT_STEP = 4  # DeepSpeed's 1-based global_steps


class LossNet(torch.nn.Module):
    """A network and its regression loss in one module (the engine returns the loss)."""

    def __init__(self, net: torch.nn.Module | None = None) -> None:
        super().__init__()
        self.net = net if net is not None else TinyT5()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.net(x)
        if out.dim() == 0:
            return out.float()
        return (out.float() - (x[:, :1].float() * 2 + 0.5)).pow(2).mean()


def ds_train(model: torch.nn.Module, *, steps: int = 7, lr: float = 1e-3,
             nan_at: int | None = None, same: bool = False, stage: int = 1,
             rerun: bool = True) -> tuple[Any, Any]:
    config = copy.deepcopy(BASE_CONFIG)
    config["optimizer"]["params"]["lr"] = lr
    config["zero_optimization"]["stage"] = stage
    config["denpex"] = {"enabled": True, "report_dir": None, "rerun": rerun}
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    watcher = attach(engine)
    assert watcher is not None
    generator = torch.Generator().manual_seed(1)
    fixed = torch.randn(4, FEATURES, generator=generator).half()
    for step in range(1, steps + 1):
        x = fixed if same else torch.randn(4, FEATURES, generator=generator).half()
        if step == nan_at:
            x[1, 2] = float("nan")
        loss = engine(x)
        engine.backward(loss)
        engine.step()
    watcher.detach()
    return watcher, engine


def first(watcher: Any, code: str) -> Any:
    return next(d for d in watcher.monitor.diagnoses if d.code == code)


def engine_state(engine: Any) -> dict[str, Any]:
    return {
        "params": {n: p.detach().clone() for n, p in engine.module.named_parameters()},
        "master": [t.detach().clone() for t in engine.optimizer.single_partition_of_fp32_groups],
        "adam": [{k: v.clone() for k, v in state.items()}
                 for state in engine.optimizer.optimizer.state.values()],
        "scale": engine.optimizer.loss_scaler.cur_scale,
        "steps": (engine.global_steps, engine.skipped_steps),
    }


def test_deepspeed_nan_batch_reproduces_and_the_run_is_unchanged(fp16_cpu: None) -> None:
    watcher, engine = ds_train(LossNet(), nan_at=FAULT_STEP)
    nan_loss = first(watcher, "AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP, "net.embed")
    _, off = ds_train(LossNet(), nan_at=FAULT_STEP, rerun=False)
    assert_identical(engine_state(engine), engine_state(off))


def test_deepspeed_learning_rate_far_too_high_reproduces(fp16_cpu: None) -> None:
    watcher, _ = ds_train(LossNet(), lr=30.0, steps=10)
    check.assert_reproduced_here(first(watcher, "AMP006"), data=False)


def test_deepspeed_activation_flipped_once_is_not_reproduced(fp16_cpu: None) -> None:
    model = LossNet()
    flip = FlipOnce(at_forward=FAULT_STEP - 1)
    model.net.blocks[1].register_forward_hook(flip)
    watcher, _ = ds_train(model)
    assert flip.fired == 1
    check.assert_transient(first(watcher, "AMP006"), FAULT_STEP)


def test_deepspeed_dropout_failure_reproduces(fp16_cpu: None) -> None:
    watcher, _ = ds_train(LossNet(DropoutLogLoss(features=4)), same=True, steps=16)
    failing = check.first_nonfinite_then_finite(watcher.monitor)
    nan_loss = first(watcher, "AMP006")
    assert nan_loss.step == failing and nan_loss.evidence["rerun"] == "reproduced"


def test_deepspeed_zero3_is_not_rerunnable_and_says_why(fp16_cpu: None) -> None:
    watcher, _ = ds_train(LossNet(), nan_at=FAULT_STEP, stage=3)
    nan_loss = first(watcher, "AMP006")
    assert nan_loss.evidence["rerun"] == "not-rerunnable"
    assert "ZeRO stage 3" in nan_loss.evidence["rerun_reason"]
    # The next-step locator: the first step whose forward runs after the fault is known.
    assert nan_loss.evidence["origin"]["located_step"] == FAULT_STEP + ARMED_AFTER
