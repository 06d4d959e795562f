"""A real single-process DeepSpeed on CPU (gloo), and a tiny model to train with it."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from typing import Any

import pytest
import torch

deepspeed = pytest.importorskip("deepspeed")


def _torch_runs_fp16_on_cpu() -> bool:
    layer = torch.nn.Linear(4, 4).half()
    layer(torch.randn(2, 4, dtype=torch.float16)).float().sum().backward()
    return layer.weight.grad is not None and layer.weight.grad.dtype == torch.float16


@pytest.fixture(scope="module")
def ds_dist() -> Iterator[None]:
    """torch.distributed (gloo, rank 0 of 1) and DeepSpeed's comm on top of it.

    Torn down after each module so that other areas' tests find no process group.
    """
    saved = {name: os.environ.get(name) for name in _DIST_ENV}
    os.environ.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=os.environ.get("MASTER_PORT", "29641"))
    owned = not torch.distributed.is_initialized()
    if owned:
        torch.distributed.init_process_group("gloo", rank=0, world_size=1)
    deepspeed.init_distributed("gloo")
    yield
    if owned and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    # DeepSpeed caches groups of the destroyed process group; a later engine would fail with
    # "Group ... is not registered".
    from deepspeed.utils import groups

    groups._WORLD_GROUP = groups.mpu = None
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_DIST_ENV = ("LOCAL_RANK", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture(scope="module")
def fp16_cpu(ds_dist: None) -> Iterator[None]:
    """Let DeepSpeed build fp16 engines on this CPU, or skip with the reason.

    DeepSpeed's CPU accelerator answers is_fp16_supported() from oneDNN's fp16 support
    (torch.ops.mkldnn._is_mkldnn_fp16_supported()), which many x86 CPUs lack although torch's
    own CPU fp16 kernels run this tiny model correctly. Only that capability answer is
    replaced; the engine, its optimizers and its loss scaler are DeepSpeed's own.
    """
    from deepspeed.accelerator import get_accelerator

    accelerator = type(get_accelerator())
    original = accelerator.is_fp16_supported
    if not get_accelerator().is_fp16_supported():
        if not _torch_runs_fp16_on_cpu():
            pytest.skip(
                "DeepSpeed: get_accelerator().is_fp16_supported() is false on this CPU and "
                "torch cannot run fp16 matmul/backward on it"
            )
        accelerator.is_fp16_supported = lambda self: True
    yield
    accelerator.is_fp16_supported = original


BASE_CONFIG: dict[str, Any] = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 1,
    "gradient_clipping": 0,
    "steps_per_print": 10_000,
    "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
    "fp16": {"enabled": True, "initial_scale_power": 8, "hysteresis": 2},
    "zero_optimization": {"stage": 1},
}


def ds_config(report_dir: Any, **overrides: Any) -> dict[str, Any]:
    """The tests' ds_config: BASE_CONFIG, a denpex section writing to ``report_dir``."""
    config = copy.deepcopy(BASE_CONFIG)
    config["denpex"] = {"enabled": True, "report_dir": str(report_dir)}
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
        config=lambda **overrides: ds_config(tmp_path / "reports", **overrides),
        report_dir=tmp_path / "reports",
        build=build_engine,
        model=tiny_model,
        train=train,
    )
