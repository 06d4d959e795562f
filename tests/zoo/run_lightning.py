"""The zoo in a real Lightning Trainer on CPU, watched by AmpDiagnosticCallback.

fp16 on CPU needs the precision plugin passed by hand (``precision="16-mixed"`` on CPU runs
bf16): ``MixedPrecision("16-mixed", "cpu", scaler=GradScaler("cpu"))``, the README's recipe.
"""

from __future__ import annotations

import math
import tempfile
import warnings
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.plugins import MixedPrecision
from scenarios import FAULT_STEP, Scenario
from workload import Data, Outcome, Record, build_model, loss_fn, warmup_lambda

from denpex_callbacks.lightning import AmpDiagnosticCallback

STEP_OFFSET = 0  # trainer.global_step before the optimizer step


class Indices(torch.utils.data.Dataset):  # type: ignore[misc]
    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int) -> int:
        return index


class ZooModule(L.LightningModule):
    """The zoo's model; two optimizers (manual optimisation) when the scenario asks."""

    def __init__(self, s: Scenario) -> None:
        super().__init__()
        self.s, self.net, self.compute, self.data = s, build_model(s), loss_fn(s), Data()
        self.micro_losses: list[float] = []
        self.automatic_optimization = s.optimizers == 1

    def collate(self, items: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        step, micro = divmod(items[0], self.s.accumulation)
        return self.data.batch(self.s, step, micro)

    def train_dataloader(self) -> Any:
        return torch.utils.data.DataLoader(Indices(self.s.steps * self.s.accumulation),
                                           batch_size=1, collate_fn=self.collate)

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        x, y = batch
        if self.automatic_optimization:
            loss = self.compute(self.net(x), y)
            self.micro_losses.append(float(loss.detach()))
            return loss
        # Manual optimisation, one loss and one step per optimizer (a GAN's D, then G); the
        # step returns nothing, as GAN examples do.
        for index, opt in enumerate(self.optimizers()):
            loss = self.compute(self.net(x), y)
            if index == 0 and self.s.batch_fault == "d-nan" and batch_idx >= FAULT_STEP:
                loss = loss * float("nan")
            self.micro_losses.append(float(loss.detach()))
            opt.zero_grad()
            self.manual_backward(loss)
            opt.step()
        return None

    def configure_optimizers(self) -> Any:
        params = list(self.net.parameters())
        halves = [params] if self.s.optimizers == 1 else [params[: len(params) // 2],
                                                           params[len(params) // 2:]]
        opts = [torch.optim.SGD(h, lr=self.s.lr, momentum=0.9) for h in halves]
        if self.s.optimizers > 1:
            return opts
        sched = torch.optim.lr_scheduler.LambdaLR(opts[0], warmup_lambda(self.s))
        return {"optimizer": opts[0], "lr_scheduler": {"scheduler": sched, "interval": "step"}}


class RecordSteps(L.Callback):
    """The raw record: per optimizer step, the mean micro-batch loss and whether the scale fell."""

    def __init__(self, record: Record) -> None:
        self.record, self.step, self.scale = record, 0, None

    def on_train_batch_end(self, trainer: Any, module: Any, *args: Any) -> None:
        if trainer.global_step == self.step:
            return  # mid-accumulation
        self.step = trainer.global_step
        losses, module.micro_losses = module.micro_losses, []
        scaler = getattr(trainer.precision_plugin, "scaler", None)
        scale = scaler.get_scale() if scaler is not None else None
        fell = scale is not None and self.scale is not None and scale < self.scale
        self.record.add(sum(losses) / len(losses) if losses else math.nan, fell)
        self.scale = scale


def _trainer(s: Scenario, root: str, record: Record, steps: int) -> tuple[Any, Any]:
    callback = AmpDiagnosticCallback(report_dir=None)
    options: dict[str, Any] = dict(
        accelerator="cpu", devices=1, max_steps=steps, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        default_root_dir=root, accumulate_grad_batches=s.accumulation,
        callbacks=[callback, RecordSteps(record)],
    )
    if s.clip is not None and s.optimizers == 1:
        options["gradient_clip_val"] = s.clip
    if s.precision == "fp16":
        options["plugins"] = [MixedPrecision("16-mixed", "cpu",
                                             scaler=torch.amp.GradScaler("cpu", **s.scaler))]
    else:
        options["precision"] = {"bf16": "bf16-mixed", "fp32": "32-true"}[s.precision]
    return L.Trainer(**options), callback


def run(s: Scenario) -> Outcome:
    record = Record()
    with tempfile.TemporaryDirectory() as root, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Lightning's advice on workers and logging
        module = ZooModule(s)
        if s.resume_at is None:
            trainer, callback = _trainer(s, root, record, s.steps)
            trainer.fit(module)
        else:
            first, _ = _trainer(s, root, record, s.resume_at)
            first.fit(module)
            path = f"{root}/resume.ckpt"
            first.save_checkpoint(path)
            trainer, callback = _trainer(s, root, record, s.steps)
            trainer.fit(ZooModule(s), ckpt_path=path)
    monitor = callback.monitor
    return Outcome(list(monitor.diagnoses) if monitor else [], record)
