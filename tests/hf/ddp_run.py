"""Two CPU ranks (gloo) under torchrun, NaN loss on rank 1 only, on_fault="stop".

Run by test_ddp.py: ``torchrun --nproc_per_node 2 ddp_run.py OUT_DIR FAULT_STEP STEPS``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(out_dir: Path, fault_step: int, steps: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import torch
    from transformers import TrainingArguments

    from conftest import CPUScalerTrainer, FaultyRegressor, RandomRegression
    from denpex_callbacks.hf import AmpDiagnosticCallback

    torch.set_num_threads(1)
    args = TrainingArguments(
        str(out_dir / "out"), use_cpu=True, fp16=True, max_steps=steps,
        per_device_train_batch_size=4, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, logging_nan_inf_filter=False, ddp_backend="gloo",
    )
    callback = AmpDiagnosticCallback(on_fault="stop", report_dir=None)
    torch.manual_seed(0)
    fault = "nan" if args.process_index == 1 else "none"
    trainer = CPUScalerTrainer(model=FaultyRegressor(fault, fault_step), args=args,
                               train_dataset=RandomRegression(), callbacks=[callback])
    trainer.train()
    assert callback.monitor is not None
    result = {
        "world_size": args.world_size,
        "global_step": trainer.state.global_step,
        "diagnoses": [[d.code, d.step] for d in callback.monitor.diagnoses],
    }
    (out_dir / f"rank{args.process_index}.json").write_text(json.dumps(result))
    # Leave in order: all collectives done (barrier), then the group destroyed explicitly, not
    # by interpreter exit while the other rank is still connected (gloo aborts then).
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    # Leave without the interpreter's teardown: gloo's threads, torn down at exit while the
    # other rank is still connected, now and then abort ("terminate called without an active
    # exception", as tests/logs/ranked_loop.py found), and torchrun then fails the run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
