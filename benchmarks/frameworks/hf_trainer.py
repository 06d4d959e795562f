"""Hugging Face Trainer, with ``denpex_callbacks.hf.AmpDiagnosticCallback`` as variant b.

Variant d is HF's own heavy check, ``TrainingArguments(debug="underflow_overflow")``, which
installs ``DebugUnderflowOverflow`` (forward hooks on every module). On CPU, HF ignores
``fp16=True`` (accelerate builds no scaler there), so the Trainer's accelerator is given a real
``torch.amp.GradScaler("cpu")`` and autocast, as the adapter's tests do; on CUDA ``fp16=True``
is HF's own path.
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import Trainer, TrainerCallback, TrainingArguments

from benchmarks.frameworks.base import HEAVY, RunResult, RunSpec, finish, quiet, with_callbacks
from denpex_callbacks.hf import AmpDiagnosticCallback

VARIANTS = ("a", "b", "c", "d")
HEAVY_OPTION = 'TrainingArguments(debug="underflow_overflow")'
FIRST_STEP = 1  # HF's global_step of the first optimizer step
WATCHED_HOOKS = ("the callback's per-step on_* methods, its loss forward hook and the re-run "
                 "capture's forward pre-hook")


class _CPUScalerTrainer(Trainer):  # type: ignore[misc]
    """A Trainer whose accelerator runs fp16 autocast with a real CPU GradScaler."""

    init_scale = 2.0**16

    def create_accelerator_and_postprocess(self) -> None:
        super().create_accelerator_and_postprocess()
        self.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=self.init_scale)
        self.accelerator.native_amp = True


class _Clock(TrainerCallback):  # type: ignore[misc]
    def __init__(self, spec: RunSpec) -> None:
        self.clock = spec.clock

    def on_step_end(self, *args: Any, **kwargs: Any) -> None:
        self.clock.tick()


class _NaiveMonitor(TrainerCallback):  # type: ignore[misc]
    """Reads the scale and the loss as Python floats every step (a host-device sync each)."""

    def __init__(self) -> None:
        self.loss: torch.Tensor | None = None

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        kwargs["model"].register_forward_hook(self._keep_loss)

    def _keep_loss(self, module: Any, inputs: Any, output: Any) -> None:
        self.loss = output["loss"]

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        scaler = getattr(kwargs.get("optimizer"), "scaler", None)
        if scaler is not None:
            scaler.get_scale()
        if self.loss is not None:
            float(self.loss.detach())


def run(spec: RunSpec) -> RunResult:
    """Train ``spec.workload`` with a real Trainer for ``spec.steps`` fp16 steps."""
    on_cpu = spec.device == "cpu"
    model = spec.workload.model().to(spec.device)
    model.inject(spec.fault, spec.fault_step)
    args = TrainingArguments(
        output_dir=f"{spec.workdir}/out", max_steps=spec.steps, fp16=True, use_cpu=on_cpu,
        per_device_train_batch_size=spec.workload.batch_size, report_to=[],
        save_strategy="no", disable_tqdm=True, dataloader_num_workers=0, seed=0,
        debug="underflow_overflow" if spec.variant == HEAVY else "",
    )
    callbacks, callback = with_callbacks(spec, _Clock(spec), AmpDiagnosticCallback,
                                         _NaiveMonitor, extra_hooks=["_on_forward"])
    trainer_type = type("BenchTrainer", (_CPUScalerTrainer,), {"init_scale": spec.init_scale})
    with quiet("transformers"):
        trainer = (trainer_type if on_cpu else Trainer)(
            model=model, args=args, train_dataset=spec.workload.dataset(spec.steps),
            optimizers=(spec.workload.optimizer(model.parameters()), None), callbacks=callbacks,
        )
        with spec.counting():
            trainer.train()
    if callback is None or callback.monitor is None:
        return finish(spec)
    return finish(spec, callback.monitor.diagnoses, FIRST_STEP)
