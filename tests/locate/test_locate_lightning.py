"""The locator inside a real Lightning Trainer (CPU, real fp16 MixedPrecision + GradScaler)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("lightning")

import lightning.pytorch as L
import torch
from locate_models import ARMED_AFTER, FEATURES, TinyT5, hooks_on

from denpex_callbacks.lightning import AmpDiagnosticCallback

FAULT_STEP = 4  # Lightning's 0-based global_step of the first overflowing optimizer step


class Regression(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.net = TinyT5()

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x).float(), y)

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def train_dataloader(self) -> Any:
        x = torch.randn(256, FEATURES, generator=torch.Generator().manual_seed(1))
        data = torch.utils.data.TensorDataset(x, x[:, :1] * 2.0 + 0.5)
        return torch.utils.data.DataLoader(data, batch_size=32)


class OverflowBlock2(L.Callback):
    """Before step FAULT_STEP, the 3rd block's activations are pushed past 65504."""

    def __init__(self) -> None:
        self.hooks_per_step: list[int] = []

    def on_train_batch_start(self, trainer: Any, module: Any, batch: Any, idx: int) -> None:
        if trainer.global_step == FAULT_STEP:
            block = module.net.blocks[2]
            with torch.no_grad():
                block.wi.weight.mul_(1000.0)  # wo's output reaches ~1e6 on any batch
                block.wo.weight.mul_(1000.0)

    def on_before_backward(self, trainer: Any, module: Any, loss: Any) -> None:
        self.hooks_per_step.append(hooks_on(module))


def fit(tmp_path: Any, steps: int, fault: bool) -> tuple[AmpDiagnosticCallback, Any, list[int]]:
    # The locator armed for the step after the fault: the failing-step re-run is off here.
    callback = AmpDiagnosticCallback(report_dir=None, rerun=False)
    spy = OverflowBlock2() if fault else _HookSpy()
    module = Regression()
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    trainer = L.Trainer(
        accelerator="cpu", devices=1, max_steps=steps, logger=False, enable_checkpointing=False,
        enable_progress_bar=False, enable_model_summary=False, default_root_dir=str(tmp_path),
        plugins=[L.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)],
        callbacks=[callback, spy],
    )
    trainer.fit(module)
    return callback, module, spy.hooks_per_step


class _HookSpy(L.Callback):
    def __init__(self) -> None:
        self.hooks_per_step: list[int] = []

    def on_before_backward(self, trainer: Any, module: Any, loss: Any) -> None:
        self.hooks_per_step.append(hooks_on(module))


def test_lightning_activation_overflow_is_located(tmp_path):
    callback, module, hooks = fit(tmp_path, FAULT_STEP + 3, fault=True)
    assert callback.monitor is not None
    (nan_loss,) = [d for d in callback.monitor.diagnoses if d.code == "AMP006"]
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["module"], origin["located_step"]) == (
        "activation-overflow", "net.blocks.2.wo", FAULT_STEP + ARMED_AFTER)
    assert nan_loss.root_cause.startswith("activation overflow in net.blocks.2.wo (Linear)")
    assert 'precision="bf16-mixed"' in nan_loss.fix
    # Hooked during the one armed step only (one per module and per parameter).
    expected = len(list(module.modules())) + len(list(module.parameters()))
    assert [i for i, n in enumerate(hooks) if n] == [FAULT_STEP + ARMED_AFTER]
    assert hooks[FAULT_STEP + ARMED_AFTER] == expected and hooks_on(module) == 0


def test_lightning_healthy_run_never_hooks(tmp_path):
    callback, module, hooks = fit(tmp_path, 8, fault=False)
    assert callback.monitor is not None and callback.monitor.faults() == []
    assert hooks == [0] * 8 and hooks_on(module) == 0


class NaNBatches(L.Callback):
    """From step FAULT_STEP every batch carries one NaN (a corrupt shard)."""

    def on_train_batch_start(self, trainer: Any, module: Any, batch: Any, idx: int) -> None:
        if trainer.global_step >= FAULT_STEP:
            batch[0][3, 1] = float("nan")


def test_lightning_nan_batch_is_a_data_problem_though_the_module_is_never_called(tmp_path):
    # training_step calls self.net, never self(...): the batch is seen as net's input.
    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = L.Trainer(
        accelerator="cpu", devices=1, max_steps=FAULT_STEP + 3, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        default_root_dir=str(tmp_path), callbacks=[callback, NaNBatches()],
        plugins=[L.plugins.MixedPrecision("16-mixed", "cpu",
                                          scaler=torch.amp.GradScaler("cpu", init_scale=1024.0))],
    )
    trainer.fit(Regression())
    assert callback.monitor is not None
    (nan_loss,) = [d for d in callback.monitor.diagnoses if d.code == "AMP006"]
    origin = nan_loss.evidence["origin"]
    assert (nan_loss.step, origin["verdict"], origin["module"]) == (
        FAULT_STEP, "input-data", "net.embed")
    assert nan_loss.root_cause.startswith("non-finite values in the input batch")
