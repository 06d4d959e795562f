"""A non-finite update written into the weights: the fix follows the run's loss scaler.

Without a scaler (bf16, fp32) nothing skips the update of a step whose loss is non-finite, so
the located fix names that step's batch (restore before it, skip it) and the loop's own guard
line; with a scaler, an update that bypassed ``scaler.step()`` is the suspect.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from denpex_callbacks.torch import AmpMonitor

BAD_STEP = 9


def _batches(steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Regression batches; one NaN feature in the batch of BAD_STEP."""
    gen = torch.Generator().manual_seed(3)
    out = []
    for step in range(steps):
        x = torch.randn(8, 16, generator=gen)
        if step == BAD_STEP:
            x[5, 2] = float("nan")
        out.append((x, x[:, :3].sum(1, keepdim=True)))
    return out


def _weights_fix(monitor: AmpMonitor) -> Any:
    (first,) = [d for d in monitor.diagnoses if d.code == "AMP006"]
    return first


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "guarded"])
def test_accelerate_bf16_poisoned_weights_name_the_batch_and_the_guard(
        fresh_accelerate: Any, guarded: bool) -> None:
    accelerator = fresh_accelerate.Accelerator(mixed_precision="bf16", cpu=True)
    model = _model()
    model, opt = accelerator.prepare(model, torch.optim.AdamW(model.parameters(), lr=2e-3,
                                                              weight_decay=0.05))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    for x, y in _batches(16):
        loss = (model(x).float() - y).pow(2).mean()
        accelerator.backward(loss)
        # the guard the fix gives, word for word
        norm = accelerator.clip_grad_norm_(model.parameters(), float("inf"))
        if not guarded or torch.isfinite(norm):
            opt.step()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    first = _weights_fix(monitor)
    assert first.step == BAD_STEP
    if guarded:  # the update was skipped: the weights stay finite, the batch is the cause
        assert all(torch.isfinite(p).all() for p in model.parameters())
        assert first.evidence["origin"]["verdict"] != "nonfinite-weights"
        return
    assert first.evidence["origin"]["verdict"] == "nonfinite-weights"
    assert f"Restore a checkpoint from before step {BAD_STEP}" in first.fix
    assert f"skip the batch of step {BAD_STEP}" in first.fix
    assert ("after accelerator.backward(loss), norm = accelerator.clip_grad_norm_(model."
            "parameters(), max_norm)") in first.fix
    assert "if torch.isfinite(norm): optimizer.step()" in first.fix
    assert "scaler.step" not in first.fix


def test_fp16_update_that_bypassed_the_scaler_keeps_the_scaler_fix() -> None:
    # Control: a scaler exists (non-default settings), and the NaN step's update went around
    # it (optimizer.step() called directly): the suspect is the bypass, as before.
    model = _model()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=512.0, growth_interval=13)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
    for step, (x, y) in enumerate(_batches(16)):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = (model(x).float() - y).pow(2).mean()
        scaler.scale(loss).backward()
        if step == BAD_STEP:
            opt.step()  # around the scaler: nothing skips the NaN update
        else:
            scaler.step(opt)
            scaler.update()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    first = _weights_fix(monitor)
    assert first.evidence["origin"]["verdict"] == "nonfinite-weights"
    assert "scaler.step()" in first.fix and "skip the batch" not in first.fix
