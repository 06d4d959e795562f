"""One rank of the two-rank CPU runs of tests/test_newuser49_findings.py and
tests/test_review49c_findings.py (gloo, file store, a CPU GradScaler, AmpMonitor as a user
writes it; DDP, or FSDP1 or FSDP2 sharding the model: every kind all-reduces the gradients).

Usage: ``python two_rank_worker.py OUT_DIR RANK WORLD SCENARIO [ddp|fsdp1|fsdp2]``; scenarios:
``nan1`` (rank 1 reads a corrupt shard: NaN data from step 12; rank 0's data is clean, the
all-reduce still hands it rank 1's NaN), ``stop`` (the same under ``on_fault='stop'``), ``lr``
(a learning rate too high on every rank; ``lr10``: from step 10), ``backward`` (the last
rank's gradients overflow in a module's backward from step 12, its forward finite), ``nan2``
(NaN data on rank 0 from step 8, on rank 1 from step 16), ``healthy``. Writes ``done<rank>``
once trained and ``stopped<rank>`` with the last step taken. :func:`train` runs the ranks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import torch
import torch.nn.functional as F

from denpex_callbacks.torch import AmpMonitor

STEPS = 30
FAULT_STEP = 12  # rank 1's first NaN batch in "nan1" and "stop"


def train(out: Path, scenario: str, world: int = 2, kind: str = "ddp") -> Path:
    """The report dir of one run of ``world`` ranks (``scenario`` and ``kind`` as above)."""
    import denpex_callbacks

    # The workers import the package under test (an editable install may point elsewhere).
    here = str(Path(denpex_callbacks.__file__).parents[1])
    path = os.pathsep.join(filter(None, (here, os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": path}
    ranks = [subprocess.Popen([sys.executable, __file__, str(out), str(r), str(world),
                               scenario, kind], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for r in range(world)]
    outputs = [p.communicate(timeout=120)[0] for p in ranks]
    assert all((out / f"done{r}").exists() for r in range(world)), outputs[0][-2000:]
    return out / "reports"


def wrapped(model: torch.nn.Module, kind: str) -> torch.nn.Module:
    """``model`` as the run shards or replicates it."""
    if kind == "fsdp1":
        from torch.distributed.fsdp import FullyShardedDataParallel

        # device_id="cpu": FSDP1 otherwise asks for an accelerator
        return FullyShardedDataParallel(model, device_id=torch.device("cpu"), use_orig_params=True)
    if kind == "fsdp2":
        from torch.distributed.fsdp import fully_shard

        return fully_shard(model)
    return torch.nn.parallel.DistributedDataParallel(model)


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


def main(out: Path, rank: int, world: int, scenario: str, kind: str = "ddp") -> None:
    torch.set_num_threads(1)
    if world > 1:
        torch.distributed.init_process_group(
            "gloo", init_method=f"file://{out / 'store'}", rank=rank, world_size=world,
            timeout=timedelta(seconds=60))
    torch.manual_seed(0)
    blow = Blowup()
    net = torch.nn.Sequential(torch.nn.Linear(8, 32), blow, torch.nn.ReLU(), torch.nn.Linear(32, 1))
    model = wrapped(net, kind) if world > 1 else net
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
                scenario in ("nan1", "stop") and rank == 1 and step >= FAULT_STEP):
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
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], *sys.argv[5:6])
