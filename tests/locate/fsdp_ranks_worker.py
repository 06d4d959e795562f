"""One rank of the two-rank FSDP tests: a plain fp16 loop (gloo, CPU, file store) sharded by
FSDP1 (``FullyShardedDataParallel``) or FSDP2 (``fully_shard``), stepped by a
``ShardedGradScaler``, watched by ``AmpMonitor`` as a user would write it.

Usage: ``python fsdp_ranks_worker.py OUT_DIR RANK WORLD_SIZE fsdp1|fsdp2``. Rank 1 reads a
corrupt shard (a NaN in every batch from FAULT_STEP on). Prints one JSON line with what the
rank saw, and writes ``done<rank>`` once training has ended.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

import torch
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

sys.path.insert(0, str(Path(__file__).parent))
from locate_models import FAULT_STEP, FEATURES, TinyT5, fp16_step

from denpex_callbacks import MonitorConfig
from denpex_callbacks.torch import AmpMonitor

STEPS = 9


def sharded(kind: str) -> torch.nn.Module:
    model = TinyT5()
    if kind == "fsdp1":
        from torch.distributed.fsdp import FullyShardedDataParallel

        # device_id="cpu": FSDP1 otherwise asks for an accelerator (torch 2.13)
        return FullyShardedDataParallel(model, device_id=torch.device("cpu"), use_orig_params=True)
    from torch.distributed.fsdp import fully_shard

    for block in model.blocks:
        fully_shard(block)
    fully_shard(model)
    return model


def main(out: Path, rank: int, world_size: int, kind: str) -> None:
    torch.set_num_threads(1)
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{out / 'store'}", rank=rank, world_size=world_size,
        timeout=timedelta(seconds=60))  # a rank left waiting fails the test, not CI's clock
    model = sharded(kind)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = ShardedGradScaler("cpu", init_scale=2.0**10)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                         config=MonitorConfig(report_dir=str(out / "reports")))
    gen = torch.Generator().manual_seed(1 + rank)
    for step in range(STEPS):
        x = torch.randn(32, FEATURES, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        if rank == 1 and step >= FAULT_STEP:
            x[3, 1] = float("nan")
        fp16_step(model, scaler, opt, monitor, x, y)
    monitor.close()
    print(json.dumps({"rank": rank, "internal_error": monitor.monitor.disabled,
                      "diagnoses": [(d.code, d.step) for d in monitor.diagnoses]}))
    (out / f"done{rank}").write_text("ok")
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
