"""A tiny T5-like model and a real fp16 autocast + GradScaler loop on CPU, with faults."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

import torch

from denpex_callbacks.readers.device_boundary import standin_selected
from denpex_callbacks.torch import AmpMonitor

WIDTH, HIDDEN, FEATURES = 16, 32, 8
FAULT_STEP = 5  # where the fault helpers below strike
# Steps between a fault and the step the locator, armed for the next forward, looks at: 1 on
# the host path; 2 on the device path (DENPEX_DEVICE_STANDIN=1, as on CUDA), where a step is
# judged before the next optimizer step, after the next step's forward has run.
ARMED_AFTER = 2 if standin_selected() else 1


class FeedForward(torch.nn.Module):
    """T5's DenseReluDense shape: wi -> ReLU -> wo, added to the residual stream."""

    def __init__(self) -> None:
        super().__init__()
        self.wi = torch.nn.Linear(WIDTH, HIDDEN)
        self.act = torch.nn.ReLU()
        self.wo = torch.nn.Linear(HIDDEN, WIDTH)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return hidden + self.wo(self.act(self.wi(hidden)))


class TinyT5(torch.nn.Module):
    """embed -> blocks.0..3 -> head; blocks.2 is "the 3rd layer"."""

    def __init__(self, depth: int = 4, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.embed = torch.nn.Linear(FEATURES, WIDTH)
        self.blocks = torch.nn.ModuleList(FeedForward() for _ in range(depth))
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.embed(x)
        for block in self.blocks:
            hidden = block(hidden)
        return self.head(hidden)


def overflow_block2(model: TinyT5) -> None:
    """From now on the 3rd block's activations exceed 65504 (its weights scaled up; |w| stays
    far below 65504: the activation overflows, not the weights)."""
    block = model.blocks[2]
    with torch.no_grad():
        block.wi.weight.mul_(300.0)
        block.wo.weight.mul_(500.0)


def fp16_step(call: Any, scaler: Any, opt: torch.optim.Optimizer, monitor: AmpMonitor,
              x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """One step of a real fp16 plain loop: autocast forward through ``call``, MSE in float32,
    scaled backward, ``scaler.step``, ``update``, ``zero_grad``, ``monitor.step``."""
    with torch.autocast("cpu", dtype=torch.float16):
        out = call(x)
    loss = torch.nn.functional.mse_loss(out.float(), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    monitor.step(loss)
    return loss


def hooks_on(model: torch.nn.Module) -> int:
    """Every hook registered on the model's modules and parameters."""
    count = 0
    for module in model.modules():
        for hooks in (module._forward_hooks, module._forward_pre_hooks, module._backward_hooks,
                      module._backward_pre_hooks):
            count += len(hooks)
    for param in model.parameters():
        count += len(param._backward_hooks or {}) + len(
            getattr(param, "_post_accumulate_grad_hooks", None) or {})
    return count


@dataclass
class Run:
    monitor: AmpMonitor
    model: TinyT5
    losses: list[float] = field(default_factory=list)
    hooks_mid_step: list[int] = field(default_factory=list)  # after forward, before backward
    hooks_after_step: list[int] = field(default_factory=list)
    hooks_after_close: int = 0


def run(
    steps: int,
    *,
    fault: Callable[[TinyT5, int, torch.Tensor], torch.Tensor] | None = None,
    scaler_kwargs: dict[str, Any] | None = None,
    monitor_kwargs: dict[str, Any] | None = None,
    around_step: Callable[[int], AbstractContextManager[Any]] | None = None,
    stop_on_request: bool = False,
) -> Run:
    """Train TinyT5 on a regression task; ``fault(model, step, batch)`` may alter both."""
    model = TinyT5()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", **(scaler_kwargs or {}))
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                         **{"report_dir": None, **(monitor_kwargs or {})})
    result = Run(monitor, model)
    gen = torch.Generator().manual_seed(1)
    for step, x in zip(range(steps), _batches(gen), strict=False):
        with (around_step(step) if around_step else nullcontext()):
            y = x[:, :1] * 2.0 + 0.5
            if fault is not None:
                x = fault(model, step, x)
            with torch.autocast("cpu", dtype=torch.float16):
                out = model(x)
            loss = torch.nn.functional.mse_loss(out.float(), y)
            result.hooks_mid_step.append(hooks_on(model))
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            monitor.step(loss)
        result.losses.append(loss.item())
        result.hooks_after_step.append(hooks_on(model))
        if stop_on_request and monitor.should_stop:
            break
    monitor.close()
    result.hooks_after_close = hooks_on(model)
    return result


def _batches(gen: torch.Generator) -> Iterator[torch.Tensor]:
    while True:
        yield torch.randn(32, FEATURES, generator=gen)


def nan_in_batches(model: TinyT5, step: int, x: torch.Tensor) -> torch.Tensor:
    """From FAULT_STEP every batch carries one NaN feature (a corrupt data shard)."""
    if step >= FAULT_STEP:
        x = x.clone()
        x[3, 1] = float("nan")
    return x


def nan_in_one_batch(model: TinyT5, step: int, x: torch.Tensor) -> torch.Tensor:
    return nan_in_batches(model, step, x) if step == FAULT_STEP else x


def backward_only_overflow(model: TinyT5, step: int, x: torch.Tensor) -> torch.Tensor:
    """Same forward values, gradients 2**14 times larger through blocks.2.wo.

    relu(z / c) * c == relu(z) for c > 0, so dividing wi by c and multiplying wo by c keeps
    every forward value (powers of two are exact), while the gradient wo sends back to its
    input grows by c: the loss stays finite, the scaled backward overflows fp16.
    """
    if step == FAULT_STEP:
        block, c = model.blocks[2], 2.0**14
        with torch.no_grad():
            block.wi.weight.div_(c)
            block.wi.bias.div_(c)
            block.wo.weight.mul_(c)
    return x
