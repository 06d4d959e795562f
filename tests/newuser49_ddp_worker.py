"""One rank of the newuser49 two-rank DDP findings: a plain fp16 loop (gloo, CPU, file store)
wrapped in ``DistributedDataParallel`` (or sharded by FSDP1 or FSDP2), stepped by a CPU
``GradScaler``, watched by ``AmpMonitor`` as a user writes it. Rank 1 reads a corrupt shard: a
NaN in every batch from FAULT_STEP on; rank 0's data is clean (the gradient all-reduce still
hands it rank 1's NaN).

Usage: ``python newuser49_ddp_worker.py OUT_DIR RANK [ddp|fsdp1|fsdp2]``. Writes
``done<rank>`` once trained.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

import torch
import torch.nn.functional as F

from denpex_callbacks.torch import AmpMonitor

FAULT_STEP = 12
STEPS = 30


def wrapped(model: torch.nn.Module, kind: str) -> torch.nn.Module:
    """``model`` as the run shards or replicates it (every kind all-reduces the gradients)."""
    if kind == "fsdp1":
        from torch.distributed.fsdp import FullyShardedDataParallel

        # device_id="cpu": FSDP1 otherwise asks for an accelerator
        return FullyShardedDataParallel(model, device_id=torch.device("cpu"), use_orig_params=True)
    if kind == "fsdp2":
        from torch.distributed.fsdp import fully_shard

        return fully_shard(model)
    return torch.nn.parallel.DistributedDataParallel(model)


def main(out: Path, rank: int, kind: str = "ddp") -> None:
    """Train STEPS steps on this rank and write its run report under ``out/reports``."""
    torch.set_num_threads(1)
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{out / 'store'}", rank=rank, world_size=2,
        timeout=timedelta(seconds=60))  # a rank left waiting fails the test, not CI's clock
    torch.manual_seed(0)
    model = wrapped(torch.nn.Sequential(
        torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)), kind)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**12, growth_interval=50)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                         report_dir=str(out / "reports"))
    gen = torch.Generator().manual_seed(1 + rank)
    for step in range(STEPS):
        x = torch.randn(16, 8, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        if rank == 1 and step >= FAULT_STEP:
            x[2, 3] = float("nan")
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.mse_loss(model(x).float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    (out / f"done{rank}").write_text("ok")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), *sys.argv[3:4])
