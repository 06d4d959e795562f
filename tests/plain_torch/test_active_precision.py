"""What the plain-PyTorch monitor says really runs, read from real CPU training loops."""

from __future__ import annotations

import pytest
import torch
from torch_loops import tiny_model

from denpex_callbacks.torch import AmpMonitor


def _precision(autocast: torch.dtype | None, *, scaler: bool, half: bool = False) -> str:
    model = tiny_model()
    if half:
        model = model.half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    grad_scaler = torch.amp.GradScaler("cpu") if scaler else None
    monitor = AmpMonitor(scaler=grad_scaler, optimizer=opt, model=model, report_dir=None)
    x = torch.randn(8, 16, dtype=torch.float16 if half else torch.float32)
    for _ in range(3):
        if autocast is not None:
            with torch.autocast("cpu", dtype=autocast):
                loss = model(x).float().pow(2).mean()
        else:
            loss = model(x).float().pow(2).mean()
        if grad_scaler is not None:
            grad_scaler.scale(loss).backward()
            grad_scaler.step(opt)
            grad_scaler.update()
        else:
            loss.backward()
            opt.step()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    return str(monitor.monitor.setup.active_precision)


@pytest.mark.parametrize(("autocast", "scaler", "half", "expected"), [
    (torch.float16, True, False, "fp16-mixed"),
    (torch.float16, False, False, "fp16-pure"),  # fp16 autocast without a scaler
    (torch.bfloat16, False, False, "bf16-mixed"),
    (torch.bfloat16, True, False, "bf16-mixed"),  # a needless scaler does not make it fp16
    (None, False, False, "fp32"),
    (None, True, False, "fp16-mixed"),  # forwards outside autocast: the scaler still says fp16
    (None, False, True, "fp16-pure"),  # .half() parameters, no autocast, no scaler
])
def test_active_precision(autocast: torch.dtype | None, scaler: bool, half: bool,
                          expected: str) -> None:
    assert _precision(autocast, scaler=scaler, half=half) == expected
