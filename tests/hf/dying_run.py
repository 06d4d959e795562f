"""An HF Trainer run (CPU fp16 recipe, a NaN loss from step 3) that dies at a step by an
exception nobody catches.

Run by test_run_end.py in a subprocess (the exception ends the interpreter, as it ends a user's
script). Usage: python dying_run.py REPORT_DIR KIND DIE_AT   (KIND: interrupt | oom)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import torch
from transformers import TrainerCallback, TrainingArguments

sys.path.insert(0, str(Path(__file__).parent))
from conftest import FaultyRegressor, RandomRegression
from denpex_callbacks.hf import AmpDiagnosticCallback
from denpex_callbacks.testing.cpu_fp16 import hf_fp16_on_cpu


class Dies(TrainerCallback):  # type: ignore[misc]
    """An uncaught exception as optimizer step ``die_at`` begins (HF's 1-based numbering)."""

    def __init__(self, kind: str, die_at: int) -> None:
        self.kind, self.die_at = kind, die_at

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step + 1 == self.die_at:
            if self.kind == "interrupt":
                raise KeyboardInterrupt
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")


def main(report_dir: str, kind: str, die_at: int) -> None:
    from transformers import Trainer

    torch.manual_seed(0)
    args = TrainingArguments(str(Path(report_dir).parent / "out"), use_cpu=True, fp16=True,
                             max_steps=20, per_device_train_batch_size=8, logging_steps=1,
                             report_to=[], save_strategy="no", disable_tqdm=True)
    callback = AmpDiagnosticCallback(report_dir=report_dir, record_every=1)
    trainer = Trainer(model=FaultyRegressor("nan", from_step=3), args=args,
                      train_dataset=RandomRegression(), callbacks=[callback, Dies(kind, die_at)])
    hf_fp16_on_cpu(trainer, init_scale=1024.0)
    trainer.train()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
