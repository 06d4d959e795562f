"""The zoo in a real DeepSpeed engine (fp16 ZeRO-1 with DeepSpeed's own dynamic loss scaler,
CPU, gloo, one rank), watched by ``denpex_callbacks.deepspeed.attach``.

DeepSpeed's fp16 holds the model itself in fp16 (no autocast). Its CPU accelerator refuses
fp16 on CPUs without oneDNN fp16 although torch's CPU fp16 kernels run these models: as in
tests/deepspeed, only that capability answer is replaced (test code only).
"""

from __future__ import annotations

import math
import os
import tempfile
import warnings
from typing import Any

import deepspeed
import torch
from scenarios import Scenario
from workload import Data, Outcome, Record, build_model, loss_fn, warmup_lambda

from denpex_callbacks.deepspeed import attach

STEP_OFFSET = 1  # engine.global_steps after the step is 1-based


def _dist() -> None:
    os.environ.setdefault("LOCAL_RANK", "0")
    os.environ.setdefault("RANK", "0")
    os.environ.setdefault("WORLD_SIZE", "1")
    if not torch.distributed.is_initialized():  # a file rendezvous: no port to pick
        store = os.path.join(tempfile.mkdtemp(prefix="denpex-zoo-"), "store")
        torch.distributed.init_process_group(
            "gloo", init_method=f"file://{store}", rank=0, world_size=1)
    deepspeed.init_distributed("gloo")
    from deepspeed.accelerator import get_accelerator

    accelerator = type(get_accelerator())
    if not get_accelerator().is_fp16_supported():
        accelerator.is_fp16_supported = lambda self: True


def _config(s: Scenario) -> dict[str, Any]:
    init = float(s.scaler.get("init_scale", 2.0**16))
    config: dict[str, Any] = {
        "train_micro_batch_size_per_gpu": 32,
        "gradient_accumulation_steps": s.accumulation,
        "gradient_clipping": s.clip or 0.0,
        "steps_per_print": 10**9,
        "zero_optimization": {"stage": 1},
        "zero_allow_untested_optimizer": True,
        "denpex": {"enabled": True, "report_dir": None},
    }
    if s.precision == "fp16":
        interval = int(s.scaler.get("growth_interval", 2000))
        static = interval >= 10**9
        config["fp16"] = {"enabled": True, "hysteresis": 1, "loss_scale_window": interval,
                          "loss_scale": init if static else 0,
                          "initial_scale_power": max(round(math.log2(init)), 0),
                          "min_loss_scale": min(init, 1.0)}
    elif s.precision == "bf16":
        config["bf16"] = {"enabled": True}
    return config


def _scale(engine: Any) -> float | None:
    opt = engine.optimizer
    for holder in (opt, getattr(opt, "loss_scaler", None)):
        value = getattr(holder, "cur_scale", None) if holder is not None else None
        if value is not None:
            return float(value)
    return None


def run(s: Scenario) -> Outcome:
    _dist()
    model, data, compute = build_model(s), Data(), loss_fn(s)
    opt = torch.optim.SGD(model.parameters(), lr=s.lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_lambda(s))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine, *_ = deepspeed.initialize(model=model, optimizer=opt, lr_scheduler=sched,
                                          config=_config(s))
    watcher = attach(engine)
    dtype = next(engine.module.parameters()).dtype
    record, error = Record(), None
    try:
        for step in range(s.steps):
            before, losses = _scale(engine), []
            for micro in range(s.accumulation):
                x, y = data.batch(s, step, micro)
                loss = compute(engine(x.to(dtype)), y)
                losses.append(float(loss.detach()))
                engine.backward(loss)
                engine.step()
            after = _scale(engine)
            record.add(sum(losses) / len(losses),
                       before is not None and after is not None and after < before)
    except Exception as exc:  # DeepSpeed ends a run whose scale cannot fall below its floor
        error = exc
    finally:
        if watcher is not None:
            watcher.detach()
    diagnoses = list(watcher.monitor.diagnoses) if watcher is not None else []
    return Outcome(diagnoses, record, error)
