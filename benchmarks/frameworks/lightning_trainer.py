"""Lightning, with ``denpex_callbacks.lightning.AmpDiagnosticCallback`` as variant b.

Variant d is Lightning's own heavy check, ``Trainer(detect_anomaly=True)``. On CPU,
``precision="16-mixed"`` silently becomes bf16, so the Trainer gets a real fp16
``MixedPrecision`` plugin with a CPU GradScaler; on CUDA ``precision="16-mixed"`` is Lightning's
own path. The entry-point auto-registration is switched off (``DENPEX_AUTO=0``) so that only
variant b carries the callback.
"""

from __future__ import annotations

import os
from typing import Any
from unittest import mock

import lightning.pytorch as L
import torch
from torch.utils.data import DataLoader

from benchmarks.frameworks.base import HEAVY, RunResult, RunSpec, finish, quiet, with_callbacks
from benchmarks.workloads import FaultyLoss, Workload
from denpex_callbacks.lightning import AmpDiagnosticCallback

VARIANTS = ("a", "b", "c", "d")
HEAVY_OPTION = "Trainer(detect_anomaly=True)"
FIRST_STEP = 0  # Lightning's global_step before the first optimizer step
WATCHED_HOOKS = "the callback's per-step hooks (the re-run capture runs in them)"
AUTO_OFF = {"DENPEX_AUTO": "0"}  # only variant b carries the callback


class _Module(L.LightningModule):  # type: ignore[misc]
    def __init__(self, model: FaultyLoss, workload: Workload, steps: int) -> None:
        super().__init__()
        self.model, self.workload, self.steps = model, workload, steps

    def training_step(self, batch: dict[str, torch.Tensor], batch_index: int) -> torch.Tensor:
        loss: torch.Tensor = self.model(**batch)["loss"]
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return self.workload.optimizer(self.parameters())

    def train_dataloader(self) -> DataLoader[Any]:
        return DataLoader(self.workload.dataset(self.steps), batch_size=self.workload.batch_size)


class _Clock(L.Callback):  # type: ignore[misc]
    def __init__(self, spec: RunSpec) -> None:
        self.clock = spec.clock

    def on_train_batch_end(self, *args: Any) -> None:
        self.clock.tick()


class _NaiveMonitor(L.Callback):  # type: ignore[misc]
    """Reads the scale and the loss as Python floats every step (a host-device sync each)."""

    def on_train_batch_end(self, trainer: Any, pl_module: Any, outputs: Any,
                           *args: Any) -> None:
        scaler = getattr(trainer.precision_plugin, "scaler", None)
        if scaler is not None:
            scaler.get_scale()
        float(outputs["loss"])


def run(spec: RunSpec) -> RunResult:
    """Train ``spec.workload`` with a real Lightning Trainer for ``spec.steps`` fp16 steps."""
    model = spec.workload.model()
    model.inject(spec.fault, spec.fault_step)
    callbacks, callback = with_callbacks(spec, _Clock(spec), AmpDiagnosticCallback,
                                         _NaiveMonitor)
    options: dict[str, Any] = {}
    if spec.device == "cpu":
        scaler = torch.amp.GradScaler("cpu", init_scale=spec.init_scale)
        options["plugins"] = [L.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)]
    else:
        options["precision"] = "16-mixed"
    with quiet("lightning.pytorch", "lightning.fabric"), mock.patch.dict(os.environ, AUTO_OFF):
        trainer = L.Trainer(
            accelerator="cpu" if spec.device == "cpu" else "gpu", devices=1,
            max_steps=spec.steps, logger=False, enable_checkpointing=False,
            enable_progress_bar=False, enable_model_summary=False,
            default_root_dir=spec.workdir, detect_anomaly=spec.variant == HEAVY,
            callbacks=callbacks, **options,
        )
        with spec.counting():
            trainer.fit(_Module(model, spec.workload, spec.steps))
    if callback is None or callback.monitor is None:
        return finish(spec)
    return finish(spec, callback.monitor.diagnoses, FIRST_STEP)
