"""One rank of a 2-rank DeepSpeed run on gloo whose rank 1 alone gets an infinite loss.

Started twice by ``test_two_ranks.py`` (RANK=0 and RANK=1 in the environment); writes what
happened on this rank to ``<out>/result<rank>.json``.
"""

from __future__ import annotations

import json
import os
import sys

import deepspeed
import torch
from deepspeed.accelerator import get_accelerator

from denpex_callbacks.deepspeed import attach
from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config


def main() -> None:
    """Train until the "stop" policy ends the run on every rank."""
    out_dir = sys.argv[1]
    rank = int(os.environ["RANK"])
    torch.set_num_threads(1)
    rendezvous = os.path.join(out_dir, "rendezvous")
    deepspeed.init_distributed("gloo", init_method=f"file://{rendezvous}", rank=rank,
                               world_size=2, auto_mpi_discovery=False)
    if not get_accelerator().is_fp16_supported():  # see conftest.fp16_cpu
        type(get_accelerator()).is_fp16_supported = lambda self: True
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    config = deepspeed_cpu_fp16_config(
        zero_optimization={"stage": 1},
        denpex={"on_fault": "stop", "report_dir": os.path.join(out_dir, "reports")},
    )
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    watcher = attach(engine)
    assert watcher is not None
    result: dict[str, object] = {"rank": rank}
    for step in range(10):
        loss = engine(torch.randn(4, 8).half()).float().pow(2).mean()
        if rank == 1 and step >= 2:
            loss = loss * float("inf")
        engine.backward(loss)
        engine.step()
        if watcher.should_stop:  # "stop": every rank sees it after the same step
            break
    watcher.detach()
    result["codes"] = [d.code for d in watcher.monitor.diagnoses]
    result["global_steps"] = engine.global_steps
    with open(os.path.join(out_dir, f"result{rank}.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    # Leave in order: every rank has finished its collectives (barrier), then the group is
    # destroyed explicitly, before interpreter exit tears down gloo's threads in any order.
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
    # Leave without the interpreter's teardown: gloo's threads, torn down at exit while the
    # other rank is still connected, now and then abort ("terminate called without an active
    # exception", as tests/logs/ranked_loop.py found), and torchrun then fails the run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
