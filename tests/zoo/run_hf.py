"""The zoo in a real Hugging Face Trainer on CPU, watched by AmpDiagnosticCallback.

HF on CPU ignores ``fp16=True``; as in tests/hf, the Trainer's accelerator is given a real
``torch.amp.GradScaler("cpu")`` and accelerate's autocast (test code only). The batches are
the zoo's own (a collator that builds step k's batch), so every adapter trains the same data.
"""

from __future__ import annotations

import math
import tempfile
from typing import Any, ClassVar

import torch
from scenarios import Scenario
from transformers import PrinterCallback, Trainer, TrainerCallback, TrainingArguments
from workload import Data, Outcome, Record, build_model, loss_fn, warmup_lambda

from denpex_callbacks.hf import AmpDiagnosticCallback

STEP_OFFSET = 1  # HF's global_step after the optimizer step is 1-based


class ZooModel(torch.nn.Module):
    """The zoo's model returning ``{"loss", "logits"}``, recording each micro-batch loss."""

    def __init__(self, s: Scenario) -> None:
        super().__init__()
        self.net = build_model(s)
        self.compute = loss_fn(s)
        self.micro_losses: list[float] = []

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> dict[str, Any]:
        out = self.net(x)
        loss = self.compute(out, labels)
        if self.training:
            self.micro_losses.append(float(loss.detach()))
        return {"loss": loss, "logits": out}


class StepBatches(torch.utils.data.Dataset):  # type: ignore[misc]
    """Indices only: the collator builds the batch of each (step, micro-batch) in order."""

    def __init__(self, s: Scenario) -> None:
        self.size = s.steps * s.accumulation

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:
        return index


class Collator:
    """Builds micro-batch ``index``'s batch (the sampler is sequential: index = position)."""

    def __init__(self, s: Scenario) -> None:
        self.s, self.data = s, Data()

    def __call__(self, items: list[int]) -> dict[str, torch.Tensor]:
        step, micro = divmod(items[0], self.s.accumulation)
        x, y = self.data.batch(self.s, step, micro)
        return {"x": x, "labels": y}


class StopAt(TrainerCallback):  # type: ignore[misc]
    """Ends the first half of a resumed run (its checkpoint is saved at that step)."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step >= self.step:
            control.should_training_stop = True


class RecordSteps(TrainerCallback):  # type: ignore[misc]
    """The raw record: the step's mean micro-batch loss and whether the scale fell."""

    def __init__(self, model: ZooModel, record: Record) -> None:
        self.model, self.record, self.scale = model, record, None

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        losses, self.model.micro_losses = self.model.micro_losses, []
        loss = sum(losses) / len(losses) if losses else math.nan
        scaler = getattr(kwargs.get("optimizer"), "scaler", None)
        scale = scaler.get_scale() if scaler is not None else None
        fell = scale is not None and self.scale is not None and scale < self.scale
        self.record.add(loss, fell)
        self.scale = scale


def _trainer_type(s: Scenario) -> type[Trainer]:
    class ZooTrainer(Trainer):  # type: ignore[misc]
        """Sequential batches; for fp16, a real CPU GradScaler behind accelerate."""

        scaler_kwargs: ClassVar[dict[str, Any]] = dict(s.scaler)
        fp16_on_cpu: ClassVar[bool] = s.precision == "fp16"

        def _get_train_sampler(self, *args: Any, **kwargs: Any) -> Any:
            return torch.utils.data.SequentialSampler(self.train_dataset)

        def create_accelerator_and_postprocess(self) -> None:
            super().create_accelerator_and_postprocess()
            if self.fp16_on_cpu:
                self.accelerator.scaler = torch.amp.GradScaler("cpu", **self.scaler_kwargs)
                self.accelerator.native_amp = True

    return ZooTrainer


def _trainer(s: Scenario, out: str, record: Record, **overrides: Any) -> tuple[Trainer, Any]:
    model = ZooModel(s)
    callback = AmpDiagnosticCallback(report_dir=None)
    opt = torch.optim.SGD(model.parameters(), lr=s.lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_lambda(s))
    options: dict[str, Any] = dict(
        output_dir=out, use_cpu=True, max_steps=s.steps, per_device_train_batch_size=1,
        gradient_accumulation_steps=s.accumulation, max_grad_norm=s.clip or 0.0,
        logging_steps=1, report_to=[], save_strategy="no", disable_tqdm=True,
        dataloader_num_workers=0, seed=0, fp16=s.precision == "fp16",
        bf16=s.precision == "bf16", logging_nan_inf_filter=False, remove_unused_columns=False,
    )
    options.update(overrides)
    trainer = _trainer_type(s)(
        model=model, args=TrainingArguments(**options), train_dataset=StepBatches(s),
        data_collator=Collator(s), optimizers=(opt, sched),
        callbacks=[callback, RecordSteps(model, record)],
    )
    trainer.remove_callback(PrinterCallback)  # no metrics dict printed per step
    return trainer, callback


def run(s: Scenario) -> Outcome:
    record = Record()
    with tempfile.TemporaryDirectory() as out:
        if s.resume_at is None:
            trainer, callback = _trainer(s, out, record)
            trainer.train()
        else:  # save at resume_at, stop, and resume in a new Trainer from that checkpoint
            first, _ = _trainer(s, out, record, save_strategy="steps", save_steps=s.resume_at)
            first.add_callback(StopAt(s.resume_at))
            first.train()
            trainer, _ = _trainer(s, out, record, restore_callback_states_from_checkpoint=True)
            trainer.train(resume_from_checkpoint=f"{out}/checkpoint-{s.resume_at}")
            callback = next(c for c in trainer.callback_handler.callbacks
                            if isinstance(c, AmpDiagnosticCallback))
    monitor = callback.monitor
    return Outcome(list(monitor.diagnoses) if monitor else [], record)
