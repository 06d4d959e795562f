"""DeepSpeed (ZeRO stage 2, fp16), with ``denpex_callbacks.deepspeed.attach`` as variant b.

DeepSpeed has no per-step fault check of its own, so there is no variant d. Single process:
rank 0 of 1 (gloo on CPU, NCCL on CUDA). On CPU, DeepSpeed accepts fp16 only where oneDNN says
the CPU supports it; where it does not but torch runs fp16 anyway, the capability answer is
replaced as in the adapter's tests (the engine, optimizer and loss scaler stay DeepSpeed's).
"""

from __future__ import annotations

import math
import os
import socket
from typing import Any

import deepspeed
import torch
from deepspeed.accelerator import get_accelerator

from benchmarks.frameworks.base import DENPEX, NAIVE, RunResult, RunSpec, finish
from denpex_callbacks.deepspeed import attach

VARIANTS = ("a", "b", "c")
HEAVY_OPTION = "none (DeepSpeed has no per-step fault check)"
FIRST_STEP = 1  # engine.global_steps after the first optimizer step
WATCHED_HOOKS = ("the adapter's wrappers of engine.backward and engine.step (without DeepSpeed's "
                 "own calls inside) and the re-run capture's forward pre-hook")
ENGINE_METHODS = ("backward", "step")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _distributed(device: str) -> None:
    """Rank 0 of a world of 1, once per process."""
    if torch.distributed.is_initialized():
        return
    os.environ.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(_free_port()))
    backend = "gloo" if device == "cpu" else "nccl"
    torch.distributed.init_process_group(backend, rank=0, world_size=1)
    deepspeed.init_distributed(backend)
    accelerator = type(get_accelerator())
    if device == "cpu" and not get_accelerator().is_fp16_supported():
        accelerator.is_fp16_supported = lambda self: True


def _config(spec: RunSpec) -> dict[str, Any]:
    config: dict[str, Any] = {
        "train_micro_batch_size_per_gpu": spec.workload.batch_size,
        "gradient_accumulation_steps": 1,
        "gradient_clipping": 0,
        "steps_per_print": 10**9,
        "optimizer": {"type": "Adam", "params": {"lr": spec.workload.lr, "torch_adam": True}},
        "fp16": {"enabled": True, "initial_scale_power": int(math.log2(spec.init_scale))},
        "zero_optimization": {"stage": 2},
    }
    if spec.variant == DENPEX:
        config["denpex"] = {"report_dir": spec.report_dir, **spec.denpex_options}
    return config


def run(spec: RunSpec) -> RunResult:
    """Train ``spec.workload`` with a DeepSpeed engine for ``spec.steps`` fp16 steps."""
    _distributed(spec.device)
    model = spec.workload.model()
    model.inject(spec.fault, spec.fault_step)
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=_config(spec))
    watcher = None
    batches = [
        {k: v.half() if v.is_floating_point() else v for k, v in batch.items()}
        for batch in spec.workload.batches(spec.steps, str(engine.device))
    ]
    with spec.watching_captures():  # the capture hook attach() registers is timed too
        if spec.variant == DENPEX:
            # DeepSpeed's own methods are excluded before the adapter wraps them; its wrappers
            # are watched after.
            spec.syncs.exclude(engine, ENGINE_METHODS)
            watcher = attach(engine)
            spec.syncs.watch(engine, ENGINE_METHODS)
        with spec.counting(captures=False):
            for batch in batches:
                loss = engine(**batch)["loss"]
                engine.backward(loss)
                engine.step()
                if spec.variant == NAIVE:
                    float(loss.detach())
                    float(engine.optimizer.loss_scale)
                spec.clock.tick()
    diagnoses = []
    if watcher is not None:
        watcher.detach()
        diagnoses = watcher.monitor.diagnoses
    engine.destroy()
    return finish(spec, diagnoses, FIRST_STEP)
