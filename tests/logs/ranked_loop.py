"""Two CPU ranks (gloo) of a plain fp16 PyTorch loop that prints its own metric line per step.

Run by test_per_rank.py: ``torchrun --standalone --nproc_per_node 2 --tee 3 ranked_loop.py
FAULT FAULT_STEP STEPS``. torchrun's ``--tee`` prefixes each rank's lines with
``[default<rank>]:``; the doctor reads that log afterwards. ``FAULT`` happens on rank 1 only,
from optimizer step ``FAULT_STEP`` on:

- ``zero``: rank 1's loss is multiplied by 0 (every target masked out): it prints exactly 0.0
  while rank 0 trains on normally;
- ``nan``: rank 1's loss is NaN; DDP averages the NaN gradients into both ranks, the
  GradScaler skips every step from then on and halves the scale;
- ``none``: a healthy run.
"""

from __future__ import annotations

import os
import sys


def main(fault: str, fault_step: int, steps: int) -> None:
    import torch
    import torch.distributed as dist

    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    data = torch.Generator().manual_seed(1 + rank)
    for step in range(1, steps + 1):
        x = torch.randn(16, 8, generator=data)
        y = x.sum(1, keepdim=True) + 1.0
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x).float(), y)
        if rank == 1 and step >= fault_step and fault != "none":
            loss = loss * (0.0 if fault == "zero" else float("nan"))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(f"step {step} loss {loss.item()} loss_scale {scaler.get_scale()}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    # Leave without the interpreter's teardown: gloo's threads, destroyed at exit while the
    # other rank is still connected, now and then abort ("terminate called without an active
    # exception"), and torchrun then fails the run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
