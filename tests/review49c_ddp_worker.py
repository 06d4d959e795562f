"""One rank of review49c's two-rank CPU runs (gloo, file store, DDP, a CPU GradScaler, AmpMonitor).

Usage: ``python review49c_ddp_worker.py OUT_DIR RANK WORLD SCENARIO``; scenarios: ``lr`` (a
learning rate too high on every rank; ``lr10``: from step 10), ``backward`` (the last rank's
gradients overflow in a module's backward from step 12, its forward finite), ``nan2`` (NaN data
on rank 0 from step 8, on rank 1 from step 16), ``stop`` (rank 1's data NaN from step 12,
``on_fault='stop'``), ``healthy``. Writes ``done<rank>`` once trained and ``stopped<rank>``
with the last step taken.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import torch
import torch.nn.functional as F

from denpex_callbacks.torch import AmpMonitor

STEPS = 30


class BigGrad(torch.autograd.Function):
    """Identity forward; backward multiplies the gradient by ``factor`` (an overflowing layer)."""

    @staticmethod
    def forward(ctx, x, factor):  # type: ignore[no-untyped-def, override]
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):  # type: ignore[no-untyped-def, override]
        return grad * ctx.factor, None


class Blowup(torch.nn.Module):
    """Its gradients overflow where ``self.factor`` is large: on this rank's data only."""

    def __init__(self) -> None:
        super().__init__()
        self.factor = 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return BigGrad.apply(x, self.factor)


def main(out: Path, rank: int, world: int, scenario: str) -> None:
    torch.set_num_threads(1)
    if world > 1:
        torch.distributed.init_process_group(
            "gloo", init_method=f"file://{out / 'store'}", rank=rank, world_size=world,
            timeout=timedelta(seconds=60))
    torch.manual_seed(0)
    blow = Blowup()
    net = torch.nn.Sequential(torch.nn.Linear(8, 32), blow, torch.nn.ReLU(), torch.nn.Linear(32, 1))
    model = torch.nn.parallel.DistributedDataParallel(net) if world > 1 else net
    lr = 3.0 if scenario == "lr" else 0.01
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**12, growth_interval=50)
    stop = scenario == "stop"
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=str(
        out / "reports"), **({"on_fault": "stop"} if stop else {}))
    gen = torch.Generator().manual_seed(1 + rank)
    for step in range(STEPS):
        x = torch.randn(16, 8, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        if (scenario == "nan2" and step >= (8 if rank == 0 else 16)) or (
                stop and rank == 1 and step >= 12):
            x[2, 3] = float("nan")
        if scenario == "lr10" and step == 10:  # too high from step 10 on, on every rank
            for group in opt.param_groups:
                group["lr"] = 30.0
        blow.factor = 1e30 if (scenario == "backward" and rank == world - 1 and step >= 12) else 1.0
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.mse_loss(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss)
        if monitor.should_stop:
            break
    monitor.close()
    (out / f"stopped{rank}").write_text(str(step))
    (out / f"done{rank}").write_text("ok")
    if world > 1:
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
