"""HF Trainer + DeepSpeed (ZeRO 1, fp16, CPU, gloo) with the callback, in its own process.

Run by test_deepspeed.py in a subprocess: DeepSpeed's process group and accelerate's
AcceleratorState are process-wide and would leak into the other tests.
Usage: python deepspeed_run.py OUT_DIR FAULT_STEP STEPS [MIN_SCALE_EXIT]

MIN_SCALE_EXIT=1: ZeRO 2 with DeepSpeed's own floor (min_loss_scale 1), so that the collapse
ends the run with DeepSpeed's "Current loss scale already at minimum" exception.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def main(out_dir: Path, fault_step: int, steps: int, min_scale_exit: bool = False) -> None:
    # (MASTER_ADDR/PORT are what DeepSpeed's own checks read; nothing listens on the port)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ.get("MASTER_PORT", "29561"),
                      RANK="0", LOCAL_RANK="0", WORLD_SIZE="1")
    sys.path.insert(0, str(Path(__file__).parent))
    import torch
    from deepspeed.accelerator import get_accelerator
    from transformers import Trainer, TrainingArguments

    from conftest import FaultyRegressor, RandomRegression
    from denpex_callbacks.hf import AmpDiagnosticCallback
    from denpex_callbacks.testing.cpu_fp16 import deepspeed_cpu_fp16_config, deepspeed_fp16_on_cpu

    torch.set_num_threads(1)
    # A file rendezvous, before accelerate's env:// one (which it skips when a group exists):
    # no port to pick, none taken by another test's process group.
    torch.distributed.init_process_group(
        "gloo", init_method=f"file://{out_dir / 'rendezvous'}", rank=0, world_size=1)
    native_fp16 = bool(get_accelerator().is_fp16_supported())
    # The documented recipe (docs/frameworks/hf.md, "HF + DeepSpeed on CPU").
    ds_config = deepspeed_cpu_fp16_config(
        train_micro_batch_size_per_gpu="auto", gradient_accumulation_steps="auto",
        fp16={"enabled": True, "initial_scale_power": 10, "hysteresis": 1, "min_loss_scale": 1},
        zero_optimization={"stage": 2 if min_scale_exit else 1},
        optimizer={"type": "Adam", "params": {"torch_adam": True, "lr": "auto"}})
    args = TrainingArguments(
        str(out_dir / "out"), use_cpu=True, fp16=True, deepspeed=ds_config, max_grad_norm=0.0,
        max_steps=steps, per_device_train_batch_size=8, logging_steps=1, report_to=[],
        save_strategy="no", disable_tqdm=True,
    )
    callback = AmpDiagnosticCallback(report_dir=str(out_dir / "reports"), record_every=1)
    class HalvedLoss(Trainer):  # type: ignore[misc]
        """A subclass's own compute_loss: the loss backpropagated is not the model's."""

        def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            loss, outputs = super().compute_loss(model, inputs, return_outputs=True,
                                                 num_items_in_batch=num_items_in_batch)
            return (loss / 2, outputs) if return_outputs else loss / 2

    torch.manual_seed(0)
    trainer = HalvedLoss(model=FaultyRegressor("inf", fault_step), args=args,
                         train_dataset=RandomRegression(), callbacks=[callback])
    ended = None
    try:
        with deepspeed_fp16_on_cpu():  # DeepSpeed builds its fp16 engine inside train()
            trainer.train()
    except Exception as exc:  # DeepSpeed ending the run at its minimum scale
        if not min_scale_exit:
            raise
        ended = str(exc)
    assert callback.monitor is not None
    result = {
        "ended": ended,
        "native_fp16": native_fp16,
        "optimizer": type(trainer.optimizer).__name__,
        "setup": callback.monitor.setup.to_dict(),
        "diagnoses": [[d.code, d.step, d.caused_by] for d in callback.monitor.diagnoses],
        "log_history": trainer.state.log_history,
    }
    (out_dir / "result.json").write_text(json.dumps(result, default=str))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
         len(sys.argv) > 4 and sys.argv[4] == "1")
