"""The failing-step re-run inside a real Lightning Trainer (CPU, fp16 MixedPrecision + scaler).

The batch is captured in ``on_train_batch_start``; the re-run calls ``training_step`` on it
under the precision plugin's autocast, with ``self.log`` silenced.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("lightning")

import lightning.pytorch as L
import rerun_models as check
import torch
from lightning.pytorch.loggers import CSVLogger
from locate_models import FEATURES, TinyT5, hooks_on
from rerun_models import DropoutLogLoss, FlipOnce, assert_identical

from denpex_callbacks.integrations.lightning_rerun import MANUAL
from denpex_callbacks.lightning import AmpDiagnosticCallback

FAULT_STEP = 4  # Lightning's 0-based global_step
BATCH = 32


class Regression(L.LightningModule):
    """Regression on TinyT5 (or a network computing its own loss); logs its loss each step."""

    def __init__(self, net: torch.nn.Module | None = None, *, lr: float = 0.01,
                 nan_at_step: int | None = None, same: bool = False) -> None:
        super().__init__()
        self.net = net if net is not None else TinyT5()
        self.lr, self.nan_at_step, self.same = lr, nan_at_step, same

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        x, y = batch
        out = self.net(x)
        loss = out.float() if out.dim() == 0 else torch.nn.functional.mse_loss(out.float(), y)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=self.lr, momentum=0.9)

    def train_dataloader(self) -> Any:
        x = torch.randn(BATCH * 20, FEATURES, generator=torch.Generator().manual_seed(1))
        if self.same:
            x[:] = x[0]
        if self.nan_at_step is not None:
            x[self.nan_at_step * BATCH + 3, 1] = float("nan")
        data = torch.utils.data.TensorDataset(x, x[:, :1] * 2.0 + 0.5)
        return torch.utils.data.DataLoader(data, batch_size=BATCH)


class ManualRegression(Regression):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.automatic_optimization = False

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        optimizer = self.optimizers()
        loss = torch.nn.functional.mse_loss(self.net(batch[0]).float(), batch[1])
        optimizer.zero_grad()
        self.manual_backward(loss)
        optimizer.step()
        return loss


def fit(tmp_path: Path, module: L.LightningModule, *, steps: int = 8, **options: Any
        ) -> tuple[AmpDiagnosticCallback, L.Trainer]:
    torch.manual_seed(3)
    callback = AmpDiagnosticCallback(report_dir=None, **options)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    trainer = L.Trainer(
        accelerator="cpu", devices=1, max_steps=steps, enable_checkpointing=False,
        enable_progress_bar=False, enable_model_summary=False, default_root_dir=str(tmp_path),
        logger=CSVLogger(str(tmp_path), name="logs", version=0), log_every_n_steps=1,
        plugins=[L.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)],
        callbacks=[callback],
    )
    trainer.fit(module)
    return callback, trainer


def first(callback: AmpDiagnosticCallback, code: str) -> Any:
    assert callback.monitor is not None
    return next(d for d in callback.monitor.diagnoses if d.code == code)


def end_state(trainer: L.Trainer, tmp_path: Path) -> dict[str, Any]:
    module = trainer.lightning_module
    return {
        "params": {n: p.detach().clone() for n, p in module.named_parameters()},
        "optimizer": copy.deepcopy(trainer.optimizers[0].state_dict()),
        "scaler": copy.deepcopy(trainer.precision_plugin.scaler.state_dict()),
        "logged": (tmp_path / "logs" / "version_0" / "metrics.csv").read_text(),
    }


def test_lightning_nan_batch_reproduces_and_nothing_is_logged_twice(tmp_path):
    callback, trainer = fit(tmp_path / "on", Regression(nan_at_step=FAULT_STEP))
    nan_loss = first(callback, "AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP, "net.embed")
    # Parameters, optimizer, scaler and every logged row exactly as without the re-run.
    _, off = fit(tmp_path / "off", Regression(nan_at_step=FAULT_STEP), rerun=False)
    assert_identical(end_state(trainer, tmp_path / "on"), end_state(off, tmp_path / "off"))


def test_lightning_learning_rate_far_too_high_reproduces(tmp_path):
    callback, _ = fit(tmp_path, Regression(lr=0.5))
    check.assert_reproduced_here(first(callback, "AMP006"), data=False)


def test_lightning_activation_flipped_once_is_not_reproduced(tmp_path):
    module = Regression()
    flip = FlipOnce(at_forward=FAULT_STEP)
    module.net.blocks[1].register_forward_hook(flip)
    callback, _ = fit(tmp_path, module)
    assert flip.fired == 1
    check.assert_transient(first(callback, "AMP006"), FAULT_STEP)


def test_lightning_dropout_failure_reproduces(tmp_path):
    # 32 samples a batch: 7 features make a fully dropped sample rare (about 1 step in 5)
    callback, _ = fit(tmp_path, Regression(DropoutLogLoss(features=7), same=True), steps=16)
    failing = check.first_nonfinite_then_finite(callback.monitor)
    nan_loss = first(callback, "AMP006")
    assert nan_loss.step == failing and nan_loss.evidence["rerun"] == "reproduced"


def test_lightning_manual_optimisation_is_not_rerunnable(tmp_path):
    callback, _ = fit(tmp_path, ManualRegression(nan_at_step=FAULT_STEP))
    nan_loss = first(callback, "AMP006")
    assert nan_loss.evidence["rerun"] == "not-rerunnable"
    assert nan_loss.evidence["rerun_reason"] == MANUAL


def test_lightning_healthy_run_hooks_nothing_and_never_reruns(tmp_path):
    module = Regression()
    callback, _ = fit(tmp_path, module)
    assert callback.monitor is not None and callback.monitor.faults() == []
    assert callback.pipeline is not None
    locate = callback.pipeline.locate
    assert locate.rerun is not None and locate.rerun.reruns == 0
    assert hooks_on(module) == 0 and locate.rerun.held_steps == []


class EpochEndDivision(Regression):
    """Four batches an epoch; the loss divides by 0 at the last step of epoch 0 (a schedule
    read from the trainer's counters); each call records (re-run?, global_step, epoch)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[bool, int, int]] = []

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        rerun = "log" in self.__dict__  # a re-run silences self.log with an instance attribute
        self.seen.append((rerun, self.global_step, self.current_epoch))
        loss = super().training_step(batch, batch_idx)
        last_of_epoch_0 = (self.global_step, self.current_epoch) == (3, 0)
        return loss / 0.0 if last_of_epoch_0 else loss

    def train_dataloader(self) -> Any:
        x = torch.randn(BATCH * 4, FEATURES, generator=torch.Generator().manual_seed(1))
        return torch.utils.data.DataLoader(
            torch.utils.data.TensorDataset(x, x[:, :1] * 2.0 + 0.5), batch_size=BATCH)


def test_lightning_rerun_runs_at_the_steps_counters_and_leaves_the_trainers(tmp_path):
    module = EpochEndDivision()
    callback, trainer = fit(tmp_path / "on", module, steps=6)
    nan_loss = first(callback, "AMP006")
    assert nan_loss.step == 3 and nan_loss.evidence["rerun"] == "reproduced"
    assert "node" not in nan_loss.fix
    # The re-run saw the step's counters; training saw its own, before and after it.
    assert [s[1:] for s in module.seen if s[0]] == [(3, 0)]
    assert [s[1:] for s in module.seen if not s[0]] == [
        (0, 0), (1, 0), (2, 0), (3, 0), (4, 1), (5, 1)]
    _, off = fit(tmp_path / "off", EpochEndDivision(), steps=6, rerun=False)
    assert (trainer.global_step, trainer.current_epoch) == (off.global_step, off.current_epoch)
