"""The locator on a real DeepSpeed engine (CPU, gloo, fp16 ZeRO-1 with its dynamic scaler)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

pytest.importorskip("deepspeed")

import deepspeed
from locate_models import ARMED_AFTER, FEATURES, TinyT5, hooks_on

from denpex_callbacks.deepspeed import attach
from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config

# ds_dist and fp16_cpu (a process group, DeepSpeed fp16 on CPU) come from tests/conftest.py.

FAULT_STEP = 4  # DeepSpeed's 1-based global_steps of the first overflowing step


@pytest.fixture(scope="module")
def _fresh_groups() -> Iterator[None]:
    """Forget DeepSpeed's cached groups around this module's process group.

    ds_dist destroys its process group at module end, but deepspeed.utils.groups keeps groups
    of it (``_WORLD_GROUP``, and ``mpu`` once a PipelineModule was built): the next module
    building an engine in this process fails ("Group ... is not registered"). Set up before
    ds_dist, so torn down after it.
    """
    from deepspeed.utils import groups

    groups._WORLD_GROUP = groups.mpu = None
    yield
    groups._WORLD_GROUP = groups.mpu = None


def test_deepspeed_fp16_activation_overflow_is_located(
    _fresh_groups: None, fp16_cpu: None, tmp_path: Any
) -> None:
    config = deepspeed_cpu_fp16_config(
        steps_per_print=10_000,
        fp16={"enabled": True, "initial_scale_power": 10, "hysteresis": 2},
        zero_optimization={"stage": 1},
        # The locator armed for the step after the fault: the failing-step re-run is off here.
        denpex={"enabled": True, "report_dir": None, "rerun": False},
    )
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
        "activation-overflow", "blocks.2.wo", FAULT_STEP + ARMED_AFTER)
    assert '"bf16": {"enabled": true}' in nan_loss.fix
    expected = len(list(engine.module.modules())) + len(list(engine.module.parameters()))
    assert [i + 1 for i, n in enumerate(hooks) if n] == [FAULT_STEP + ARMED_AFTER]
    assert hooks[FAULT_STEP + ARMED_AFTER - 1] == expected
    assert hooks_on(engine.module) == own_hooks
