"""The public DeepSpeed CPU fp16 helpers build a real fp16 engine on this CPU."""

from __future__ import annotations

import pytest
import torch

from denpex_callbacks.testing.cpu_fp16 import (
    deepspeed_cpu_fp16_config,
    deepspeed_fp16_on_cpu,
    torch_runs_fp16_on_cpu,
)

deepspeed = pytest.importorskip("deepspeed")


def test_an_fp16_engine_trains_and_skips_with_its_own_scaler(ds_dist: None) -> None:
    if not torch_runs_fp16_on_cpu():
        pytest.skip("torch cannot run fp16 matmul/backward on this CPU")
    from deepspeed.accelerator import get_accelerator

    answer_before = get_accelerator().is_fp16_supported()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    with deepspeed_fp16_on_cpu():
        engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                          config=deepspeed_cpu_fp16_config())
    assert get_accelerator().is_fp16_supported() == answer_before  # restored after the block
    assert next(engine.module.parameters()).dtype == torch.float16
    scales = []
    for step in range(4):
        loss = engine(torch.randn(4, 8).half()).float().pow(2).mean()
        engine.backward(loss * (float("inf") if step == 2 else 1.0))
        engine.step()
        scales.append(engine.optimizer.loss_scaler.cur_scale)
    # hysteresis 2 (the default): the first overflow skips the step, the scale holds once
    assert engine.skipped_steps == 1 and scales == [256, 256, 256, 256]
