"""DeepSpeed internals the DeepSpeed reader and adapter rely on, checked on the installed
release with real single-process engines on CPU (see test_facts_torch.py for ``CHECKED``)."""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

torch = pytest.importorskip("torch")
deepspeed = pytest.importorskip("deepspeed")

from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config  # noqa: E402

pytestmark = pytest.mark.slow  # real engines, about a minute: `make test-slow`, `make test-min`

CHECKED = SpecifierSet(">=0.16.8,<=0.19.8")
INSTALLED = Version(metadata.version("deepspeed"))


def test_the_installed_release_is_in_the_checked_range() -> None:
    assert INSTALLED.base_version in CHECKED


def engine(**overrides: Any) -> Any:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    config = deepspeed_cpu_fp16_config(steps_per_print=10_000, **overrides)
    built, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                     config=config)
    return built


def step(built: Any, loss_factor: float = 1.0) -> None:
    inputs = torch.randn(4, 8, generator=torch.Generator().manual_seed(1)).half()
    loss = (built(inputs).float() - 1.0).pow(2).mean() * loss_factor
    built.backward(loss)
    built.step()


def test_zero_keeps_its_dynamic_scale_on_the_optimizers_loss_scaler(fp16_cpu: None) -> None:
    # readers/deepspeed_optimizer.py (DeepSpeedReader, the "loss_scaler" layout) and
    # integrations/deepspeed_engine.py: ZeRO 1/2 keep `optimizer.loss_scaler` (cur_scale,
    # cur_hysteresis, min_scale, scale_window), `optimizer.overflow`, and the engine counts
    # `global_steps`, `skipped_steps` and says `was_step_applied()`.
    built = engine(fp16={"enabled": True, "initial_scale_power": 8, "hysteresis": 1},
                   zero_optimization={"stage": 1})
    scaler = built.optimizer.loss_scaler
    assert (scaler.cur_scale, scaler.cur_hysteresis, scaler.min_scale) == (256.0, 1, 1)
    assert scaler.scale_window == 1000 and scaler.dynamic is True
    step(built, float("inf"))
    assert built.optimizer.overflow is True and scaler.cur_scale == 128.0
    assert (built.global_steps, built.skipped_steps, built.was_step_applied()) == (1, 1, False)


def test_zero_updates_leave_the_parameters_version_counters_alone(fp16_cpu: None) -> None:
    # integrations/deepspeed_engine.py (the locator's `updates=`): ZeRO writes the parameters
    # through flat buffers, so their `_version` does not move on an applied update, and the
    # engine's count of applied steps has to prove one instead. The grad norm of a step is
    # `engine._global_grad_norm`, set by the step (the adapter reads it without a sync).
    built = engine(zero_optimization={"stage": 1})
    params = list(built.module.parameters())
    before = [p._version for p in params]
    weights = [p.detach().clone() for p in params]
    step(built)
    assert built.was_step_applied()
    assert any(not torch.equal(p, w) for p, w in zip(params, weights, strict=True))
    assert [p._version for p in params] == before
    assert built._global_grad_norm is not None


def test_the_fp16_optimizer_keeps_its_scale_where_the_reader_looks(fp16_cpu: None) -> None:
    # readers/deepspeed_optimizer.py: FP16_Optimizer and FP16_UnfusedOptimizer (fp16 without
    # ZeRO; torch's Adam gets the unfused one) keep their scale in
    # `optimizer.loss_scale_config.cur_scale` from 0.18.6, as `optimizer.cur_scale` before.
    built = engine(zero_optimization={"stage": 0})
    optimizer = built.optimizer
    assert type(optimizer).__name__ == "FP16_UnfusedOptimizer"
    if Version("0.18.6") <= INSTALLED:
        assert optimizer.loss_scale_config.cur_scale == 256.0
        assert "cur_scale" not in vars(optimizer)
    else:
        assert not hasattr(optimizer, "loss_scale_config")
        assert vars(optimizer)["cur_scale"] == 256.0
