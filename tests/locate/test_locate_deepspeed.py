"""The locator on a real DeepSpeed engine (CPU, gloo, fp16 ZeRO-1 with its dynamic scaler)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

pytest.importorskip("deepspeed")

import deepspeed
import ds_kit
from locate_models import FEATURES, TinyT5, hooks_on

from denpex_callbacks.deepspeed import attach

# The DeepSpeed tests' process-group and CPU-fp16 fixtures (see ds_kit).
ds_dist, fp16_cpu, fresh_groups = ds_kit.ds_dist, ds_kit.fp16_cpu, ds_kit.fresh_groups
BASE_CONFIG = ds_kit.BASE_CONFIG

FAULT_STEP = 4  # DeepSpeed's 1-based global_steps of the first overflowing step


def test_deepspeed_fp16_activation_overflow_is_located(
    fresh_groups: None, fp16_cpu: None, tmp_path: Any
) -> None:
    config = copy.deepcopy(BASE_CONFIG)
    config["fp16"]["initial_scale_power"] = 10
    config["denpex"] = {"enabled": True, "report_dir": None, "rerun": False}  # next step
    model = TinyT5()
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    watcher = attach(engine)
    assert watcher is not None
    generator = torch.Generator().manual_seed(1)
    own_hooks = hooks_on(engine.module)  # DeepSpeed's own (ZeRO gradient hooks)
    hooks: list[int] = []
    for step in range(1, FAULT_STEP + 3):
        x = torch.randn(4, FEATURES, generator=generator).half()
        if step == FAULT_STEP:  # DeepSpeed trains the fp16 module itself: overflow it there
            block = engine.module.blocks[2]
            with torch.no_grad():
                block.wi.weight.mul_(1000.0)
                block.wo.weight.mul_(1000.0)
        loss = (engine(x).float() - (x[:, :1].float() * 2 + 0.5)).pow(2).mean()
        hooks.append(hooks_on(engine.module) - own_hooks)
        engine.backward(loss)
        engine.step()
    watcher.detach()
    (nan_loss,) = [d for d in watcher.monitor.diagnoses if d.code == "AMP006"]
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["module"], origin["located_step"]) == (
        "activation-overflow", "blocks.2.wo", FAULT_STEP + 1)
    assert '"bf16": {"enabled": true}' in nan_loss.fix
    expected = len(list(engine.module.modules())) + len(list(engine.module.parameters()))
    assert [i + 1 for i, n in enumerate(hooks) if n] == [FAULT_STEP + 1]
    assert hooks[FAULT_STEP] == expected and hooks_on(engine.module) == own_hooks
