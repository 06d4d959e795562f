"""One rank of the HF Trainer under FSDP on CPU (gloo), fp16 through a CPU GradScaler.

Run by test_fsdp.py: ``torchrun --nproc_per_node 2 fsdp_run.py OUT_DIR FAULT_STEP STEPS
ACCUMULATION [0]``. FAULT_STEP 0: a healthy run; else rank 1's loss is NaN from that step on. A
last argument "0": no AmpDiagnosticCallback (what the run does without the package).
Writes ``rank<r>.json`` with what the rank saw, once training has ended.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def main(out_dir: Path, fault_step: int, steps: int, accumulation: int,
         with_callback: bool) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import torch
    from transformers import TrainingArguments

    from conftest import CPUScalerTrainer, FaultyRegressor, RandomRegression, StepSpy
    from denpex_callbacks.hf import AmpDiagnosticCallback

    torch.set_num_threads(1)
    args = TrainingArguments(
        str(out_dir / "out"), use_cpu=True, fp16=True, max_steps=steps,
        per_device_train_batch_size=4, gradient_accumulation_steps=accumulation,
        logging_steps=1, report_to=[], save_strategy="no", disable_tqdm=True,
        logging_nan_inf_filter=False, ddp_backend="gloo", ddp_timeout=60,
        # FSDP2 (transformers' default from 5.0); sync_module_states off: FSDP1 (the floors' only
        # FSDP, transformers 4.50 + accelerate 1.0) otherwise refuses a machine without an
        # accelerator in FullyShardedDataParallelPlugin.__post_init__ ("There are currently no
        # available devices found"). FSDP2 has no such setting and ignores it.
        fsdp="full_shard", fsdp_config={"version": 2, "sync_module_states": False},
    )
    spy = StepSpy()
    callbacks: list[Any] = [spy]
    callback = AmpDiagnosticCallback(report_dir=str(out_dir / "reports")) if with_callback else None
    if callback is not None:
        callbacks.insert(0, callback)
    torch.manual_seed(0)
    fault = "nan" if fault_step and args.process_index == 1 else "none"
    trainer = CPUScalerTrainer(
        model=FaultyRegressor(fault, max(fault_step, 1), accumulation), args=args,
        train_dataset=RandomRegression(), callbacks=callbacks)
    trainer.train()
    scaler = trainer.accelerator.scaler
    result = {
        "world_size": args.world_size,
        "fsdp": type(trainer.model_wrapped).__name__,
        "scaler": type(scaler).__name__,
        "global_step": trainer.state.global_step,
        "scale_after": spy.scale_after,
        "losses": {row["step"]: row["loss"] for row in trainer.state.log_history if "loss" in row},
        "diagnoses": [] if callback is None or callback.monitor is None else [
            [d.code, d.step, d.severity.name] for d in callback.monitor.diagnoses],
        "disabled": None if callback is None or callback.monitor is None
        else callback.monitor.disabled,
    }
    (out_dir / f"rank{args.process_index}.json").write_text(json.dumps(result, default=str))
    # Leave in order: all collectives done, then the group destroyed explicitly (gloo aborts
    # a peer still connected when the interpreter exits).
    if torch.distributed.is_initialized():
        torch.distributed.barrier()
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
         sys.argv[5:6] != ["0"])
    # Leave without the interpreter's teardown: gloo's threads, torn down at exit while the
    # other rank is still connected, now and then abort ("terminate called without an active
    # exception", as tests/logs/ranked_loop.py found), and torchrun then fails the run.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
