"""A real single-process DeepSpeed on CPU (gloo), and a tiny model to train with it."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config

deepspeed = pytest.importorskip("deepspeed")


# The public CPU fp16 config, quiet, with ZeRO-1 and an explicit hysteresis of 2.
BASE_CONFIG: dict[str, Any] = deepspeed_cpu_fp16_config(
    steps_per_print=10_000,
    fp16={"enabled": True, "initial_scale_power": 8, "hysteresis": 2},
    zero_optimization={"stage": 1},
)


def ds_config(
    report_dir: Any, denpex: dict[str, Any] | None = None, **overrides: Any
) -> dict[str, Any]:
    """The tests' ds_config: BASE_CONFIG, a denpex section writing to ``report_dir`` (with
    the options in ``denpex``), top-level keys replaced by ``overrides``."""
    config = copy.deepcopy(BASE_CONFIG)
    config["denpex"] = {"enabled": True, "report_dir": str(report_dir), **(denpex or {})}
    config.update(overrides)
    return config


def tiny_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def build_engine(config: dict[str, Any], initialize: Any = None) -> Any:
    """A real DeepSpeedEngine around a fresh tiny model."""
    model = tiny_model()
    init = initialize or deepspeed.initialize
    engine, *_ = init(model=model, model_parameters=model.parameters(), config=config)
    return engine


def watched(config: dict[str, Any]) -> tuple[Any, Any]:
    """A real engine built from ``config`` and the denpex watcher attached to it."""
    from denpex_callbacks.deepspeed import attach  # after the importorskip above

    engine = build_engine(config)
    watcher = attach(engine)
    assert watcher is not None
    return engine, watcher


def train(engine: Any, micro_batches: int, *, inf_from: int | None = None,
          autocast: bool = False) -> None:
    """Run ``micro_batches`` forward/backward/step calls; loss * inf from micro-batch
    ``inf_from`` (0-based) on."""
    dtype = next(engine.module.parameters()).dtype
    generator = torch.Generator().manual_seed(1)
    for index in range(micro_batches):
        inputs = torch.randn(4, 8, generator=generator).to(dtype)
        target = torch.randn(4, 1, generator=generator)
        if autocast:
            with torch.autocast("cpu", dtype=torch.float16):
                output = engine(inputs)
        else:
            output = engine(inputs)
        loss = (output.float() - target).pow(2).mean()
        if inf_from is not None and index >= inf_from:
            loss = loss * float("inf")
        engine.backward(loss)
        engine.step()


@pytest.fixture
def kit(fp16_cpu: None, tmp_path: Any) -> Any:
    """The helpers above, for tests (pytest's importlib mode keeps conftest off sys.path)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        config=lambda denpex=None, **overrides: ds_config(tmp_path / "reports", denpex,
                                                          **overrides),
        report_dir=tmp_path / "reports",
        build=build_engine,
        watched=watched,
        model=tiny_model,
        train=train,
    )
