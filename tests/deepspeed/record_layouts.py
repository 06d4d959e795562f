"""Record where one DeepSpeed release keeps its loss-scale state, by running it on CPU.

Run once per release, each in a throwaway environment (not part of the test suite)::

    python3 -m venv /tmp/ds0185 && /tmp/ds0185/bin/pip install torch==2.13.0 deepspeed==0.18.5
    /tmp/ds0185/bin/python tests/deepspeed/record_layouts.py tests/deepspeed/layouts

For each optimizer kind (ZeRO 0 fp16 unfused and fused, ZeRO 1/2/3 fp16, BF16_Optimizer,
the torch_autocast GradScaler) it trains three steps of a tiny model (the middle one with an
infinite loss, so it overflows) and writes, after each step, the scale-related attributes of
the optimizer, its loss scaler and the engine, plus what DeepSpeed itself reports as the live
scale and whether the step was applied. ``test_reader_layouts.py`` rebuilds plain objects with
exactly these attributes and checks ``read_scale_state`` against DeepSpeed's own answers.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from typing import Any

import torch

# Attribute names worth recording: everything a reader of the scale state might touch.
_KEYWORDS = (
    "scale", "overflow", "hysteresis", "iter", "dynamic", "shift", "window", "min_", "dtype",
    "scaling",
)
_PROPERTIES = ("cur_scale", "loss_scale", "overflow", "dynamic_loss_scale")
_RAISES = "<raises AttributeError>"

_BASE = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 1,
    "gradient_clipping": 0,
    "steps_per_print": 1000,
    "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
}
_FP16_DYNAMIC = {"enabled": True, "initial_scale_power": 8, "hysteresis": 1}
CASES: dict[str, dict[str, Any]] = {
    "zero0_fp16_unfused_dynamic": {"fp16": _FP16_DYNAMIC},
    "zero0_fp16_unfused_static": {"fp16": {"enabled": True, "loss_scale": 128}},
    "zero0_fp16_fused_dynamic": {
        "fp16": _FP16_DYNAMIC,
        "optimizer": {"type": "Adam", "params": {"lr": 1e-3}},
    },
    "zero1_fp16_dynamic": {"fp16": {**_FP16_DYNAMIC, "hysteresis": 2},
                           "zero_optimization": {"stage": 1}},
    "zero2_fp16_static": {"fp16": {"enabled": True, "loss_scale": 128},
                          "zero_optimization": {"stage": 2}},
    "zero3_fp16_dynamic": {"fp16": _FP16_DYNAMIC, "zero_optimization": {"stage": 3}},
    "zero1_bf16": {"bf16": {"enabled": True}, "zero_optimization": {"stage": 1},
                   "data_types": {"grad_accum_dtype": "fp32"}},
    "torch_autocast_fp16": {"torch_autocast": {"enabled": True, "dtype": "torch.float16"}},
}


def _scalars(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in vars(obj).items():
        if isinstance(value, torch.Tensor) and value.numel() == 1:
            value = value.item()
        if isinstance(value, torch.dtype):
            value = str(value)
        if not isinstance(value, (bool, int, float, str, type(None))):
            continue
        if any(word in name for word in _KEYWORDS) or name == "custom_loss_scaler":
            out[name] = value if not isinstance(value, float) or value == value else "nan"
    return out


def _properties(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in _PROPERTIES:
        if isinstance(inspect.getattr_static(type(obj), name, None), property):
            try:
                out[name] = getattr(obj, name)
            except AttributeError:
                out[name] = _RAISES
    return out


def _live_scale(engine: Any) -> float | None:
    """The live scale as DeepSpeed itself reads it for its monitor events."""
    reader = getattr(engine, "_get_optimizer_loss_scale", None)
    if reader is not None:
        return reader()
    return getattr(engine.optimizer, "cur_scale", None)  # the engine's own read up to 0.18.5


def snapshot(engine: Any) -> dict[str, Any]:
    """The scale-related layout of ``engine`` and its optimizer right now."""
    opt = engine.optimizer
    out: dict[str, Any] = {
        "optimizer_class": f"{type(opt).__module__}.{type(opt).__qualname__}",
        "optimizer": _scalars(opt),
        "properties": _properties(opt),
        "loss_scaler": None,
        "loss_scale_config": None,
        "grad_scaler": None,
        "engine": {
            "global_steps": engine.global_steps,
            "skipped_steps": engine.skipped_steps,
            "was_step_applied": engine.was_step_applied(),
            "configured_loss_scale": engine.loss_scale(),
            "live_scale": _live_scale(engine),
        },
    }
    scaler = getattr(opt, "loss_scaler", None)
    if scaler is not None:
        out["loss_scaler"] = {"class": type(scaler).__name__, **_scalars(scaler)}
    config = getattr(opt, "loss_scale_config", None)
    if config is not None:
        out["loss_scale_config"] = {"class": type(config).__name__, **_scalars(config)}
    grad_scaler = getattr(engine, "torch_autocast_z0_gradscaler", None)
    if grad_scaler is not None:
        out["grad_scaler"] = {
            "class": type(grad_scaler).__name__,
            "scale": grad_scaler.get_scale(),
            "growth_tracker": int(grad_scaler._growth_tracker.item()),
        }
    return out


def run_case(name: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """Three steps (the middle one overflows); a snapshot after each."""
    import deepspeed

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    config = {**_BASE, **overrides}
    engine, *_ = deepspeed.initialize(
        model=model, model_parameters=model.parameters(), config=config
    )
    dtype = next(engine.module.parameters()).dtype
    steps = []
    for step in range(3):
        inputs = torch.randn(4, 8, dtype=dtype)
        if "torch_autocast" in overrides:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = engine(inputs).float().pow(2).mean()
        else:
            loss = engine(inputs).float().pow(2).mean()
        if step == 1:
            loss = loss * float("inf")
        engine.backward(loss)
        engine.step()
        steps.append(snapshot(engine))
    return {"config": overrides, "steps": steps}


def main() -> None:
    """Record every case into ``<out>/deepspeed-<version>.json``."""
    out_dir = sys.argv[1]
    os.environ.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE="1")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29633")
    torch.distributed.init_process_group("gloo", rank=0, world_size=1)
    import deepspeed
    from deepspeed.accelerator import get_accelerator

    deepspeed.init_distributed("gloo")
    # Some CPUs lack mkldnn fp16; torch's own CPU fp16 kernels still run this tiny model.
    type(get_accelerator()).is_fp16_supported = lambda self: True
    record: dict[str, Any] = {
        "deepspeed": deepspeed.__version__,
        "torch": torch.__version__,
        "cases": {},
        "not_recorded": {},
    }
    for name, overrides in CASES.items():
        try:
            record["cases"][name] = run_case(name, overrides)
        except Exception as exc:  # a kind this release cannot run on CPU: say why
            record["not_recorded"][name] = f"{type(exc).__name__}: {exc}"[:300]
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"deepspeed-{deepspeed.__version__}.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
    print(path, "recorded:", sorted(record["cases"]), "not:", sorted(record["not_recorded"]))


if __name__ == "__main__":
    main()
