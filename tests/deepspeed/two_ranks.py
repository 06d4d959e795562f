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

from denpex_callbacks import AmpDiagnosisError
from denpex_callbacks.deepspeed import attach


def main() -> None:
    """Train until the "stop" policy ends the run on every rank."""
    out_dir = sys.argv[1]
    rank = int(os.environ["RANK"])
    torch.set_num_threads(1)
    deepspeed.init_distributed("gloo")
    if not get_accelerator().is_fp16_supported():  # see conftest.fp16_cpu
        type(get_accelerator()).is_fp16_supported = lambda self: True
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    config = {
        "train_micro_batch_size_per_gpu": 4,
        "gradient_clipping": 0,
        "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
        "fp16": {"enabled": True, "initial_scale_power": 8},
        "zero_optimization": {"stage": 1},
        "denpex": {"on_fault": "stop", "report_dir": os.path.join(out_dir, "reports")},
    }
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    attach(engine)
    result: dict[str, object] = {"rank": rank}
    try:
        for step in range(10):
            loss = engine(torch.randn(4, 8).half()).float().pow(2).mean()
            if rank == 1 and step >= 2:
                loss = loss * float("inf")
            engine.backward(loss)
            engine.step()
    except AmpDiagnosisError as exc:
        result.update(code=exc.diagnosis.code, summary=exc.diagnosis.summary)
    result["global_steps"] = engine.global_steps
    with open(os.path.join(out_dir, f"result{rank}.json"), "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    # Leave together: a gloo group torn down by interpreter exit can abort a rank now and then.
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main()
