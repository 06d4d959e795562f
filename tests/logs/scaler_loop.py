"""A real single-process GradScaler loop (CPU, fp16 autocast) that prints its loss scale each
step, watched live by denpex's AmpMonitor at the same time: the log it prints and the live
verdict come from one run, so the doctor's reading of the log can be set against the live one.

Faults are injected where a real run has them: ``overflow`` steps get an inf gradient (the
scaler finds it, skips the step and backs off, the loss stays finite); from ``nan_from`` on
the loss itself is NaN. ``set_scale`` (step, scale): the user sets the scale by hand once
(``scaler.update(new_scale)``, GradScaler's own door for it).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from denpex_callbacks.torch import AmpMonitor

torch = pytest.importorskip("torch")


@dataclass
class LoopRun:
    """What one run printed, what the live monitor diagnosed ((id, step) of its faults) and
    how many steps it counted skipped."""

    lines: list[str]
    live: list[tuple[str, int | None]]
    skipped: int


def scaler_loop(steps: int, fmt: str = "step {step} loss_scale={scale}", *, every: int = 1,
                init_scale: float = 1024.0, growth_interval: int = 2000,
                overflow: frozenset[int] = frozenset(), nan_from: int | None = None,
                set_scale: tuple[int, float] | None = None, bf16: bool = False) -> LoopRun:
    """Run the loop; ``fmt`` is the loop's ``print`` (``step``, ``loss``, ``scale``), printed
    on every ``every``-th step. ``bf16``: autocast to bfloat16 with a disabled scaler (its
    ``get_scale()`` is then a constant 1.0)."""
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale, growth_interval=growth_interval,
                                  enabled=not bf16)
    monitor = AmpMonitor(scaler=scaler, optimizer=optimizer, model=model, report_dir=None,
                         locate=False, rerun=False)
    current = {"step": 0}
    model.weight.register_hook(
        lambda grad: grad * float("inf") if current["step"] in overflow else grad)
    data = torch.Generator().manual_seed(1)
    lines = []
    for step in range(1, steps + 1):
        current["step"] = step
        x = torch.randn(16, 8, generator=data)
        y = x.sum(1, keepdim=True)
        with torch.autocast("cpu", dtype=torch.bfloat16 if bf16 else torch.float16):
            loss = torch.nn.functional.mse_loss(model(x).float(), y)
        if nan_from is not None and step >= nan_from:
            loss = loss * float("nan")
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        if set_scale is not None and step == set_scale[0]:
            scaler.update(set_scale[1])
        else:
            scaler.update()
        monitor.step(loss)
        if step % every == 0:
            lines.append(fmt.format(step=step, loss=loss.item(), scale=scaler.get_scale()))
    monitor.close()
    return LoopRun(lines, [(d.code, d.step) for d in monitor.monitor.faults()],
                   monitor.monitor.run.skipped_total)
