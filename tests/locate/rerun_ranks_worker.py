"""One rank of the two-rank re-run test: a plain fp16 DDP loop (gloo, CPU, file store).

Usage: ``python rerun_ranks_worker.py OUT_DIR RANK WORLD_SIZE``. Rank 1 reads a corrupt shard
(a NaN in every batch from FAULT_STEP on); gradients are all-reduced, so every rank skips.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from locate_models import FAULT_STEP, FEATURES, TinyT5

from denpex_callbacks import MonitorConfig
from denpex_callbacks.torch import AmpMonitor

STEPS = 12


def compute_loss(model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)
    return torch.nn.functional.mse_loss(out.float(), y)


def main(out: Path, rank: int, world_size: int) -> None:
    torch.set_num_threads(1)
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{out / 'store'}", rank=rank, world_size=world_size)
    ddp = torch.nn.parallel.DistributedDataParallel(TinyT5())
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=ddp,
                         config=MonitorConfig(report_dir=str(out / "reports")))
    gen = torch.Generator().manual_seed(1 + rank)
    for step in range(STEPS):
        x = torch.randn(32, FEATURES, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        if rank == 1 and step >= FAULT_STEP:
            x[3, 1] = float("nan")
        compute = functools.partial(compute_loss, ddp, x, y)  # calls the DDP wrapper
        loss = compute()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss, rerun=compute)
    monitor.close()
    (out / f"done{rank}").write_text("ok")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
