"""Real fp16 autocast + GradScaler training loops on CPU, with injectable faults."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from denpex_callbacks.torch import AmpMonitor


@dataclass
class LoopResult:
    monitor: AmpMonitor
    scales: list[float] = field(default_factory=list)
    error: BaseException | None = None
    steps_run: int = 0


def tiny_model(seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)
    )


def run_loop(
    steps: int = 60,
    *,
    fault: str | None = None,
    fault_step: int = 20,
    lr: float = 0.01,
    scaler_kwargs: dict[str, Any] | None = None,
    monitor_kwargs: dict[str, Any] | None = None,
    use_scaler: bool = True,
    half_model: bool = False,
    attach_early: bool = True,
    stop_on_request: bool = True,
) -> LoopResult:
    """Train a tiny regression model; ``fault`` picks what goes wrong from ``fault_step``.

    Faults: "inf" (loss * inf), "nan" (loss * nan), "nan-once" (at ``fault_step`` only),
    "zero" (loss * 0), "no-update" (the loop never calls scaler.update()), "double-step",
    "direct-step" (optimizer.step() on scaled gradients).
    """
    model = tiny_model()
    if half_model:
        model = model.half()
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", **(scaler_kwargs or {})) if use_scaler else None
    kwargs = {"report_dir": None, **(monitor_kwargs or {})}
    if attach_early:
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, **kwargs)
    else:
        monitor = AmpMonitor(**kwargs)
    result = LoopResult(monitor)
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(256, 16, generator=gen)
    y = x[:, :1] * 3.0 + 0.5
    try:
        for step in range(steps):
            idx = torch.randint(0, 256, (32,), generator=gen)
            with torch.autocast("cpu", dtype=torch.float16):
                out = model(x[idx].half() if half_model else x[idx])
            loss = torch.nn.functional.mse_loss(out.float(), y[idx])
            faulty = fault is not None and step >= fault_step
            if faulty and fault == "inf":
                loss = loss * float("inf")
            elif (faulty and fault == "nan") or (fault == "nan-once" and step == fault_step):
                loss = loss * float("nan")
            elif fault == "zero":
                loss = loss * 0.0
            if scaler is None:
                loss.backward()
                opt.step()
            elif faulty and fault == "direct-step":
                scaler.scale(loss).backward()
                opt.step()
                scaler.update()
            else:
                scaler.scale(loss).backward()
                scaler.step(opt)
                if faulty and fault == "double-step":
                    scaler.step(opt)
                if not (faulty and fault == "no-update"):
                    scaler.update()
            opt.zero_grad()
            if scaler is not None:
                result.scales.append(float(scaler.get_scale()))
            if attach_early:
                monitor.step(loss)
            else:
                monitor.step(loss, scaler=scaler, optimizer=opt, model=model)
            result.steps_run = step + 1
            if stop_on_request and monitor.should_stop:
                break
    except Exception as exc:  # the test inspects what torch raised
        result.error = exc
    finally:
        monitor.close()
    return result
