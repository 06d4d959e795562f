"""A Lightning fp16 run with accumulate_grad_batches=2 and a progress bar, NaN loss from batch
20 (optimizer step 10): run as a script, its output is the log the doctor reads."""

from __future__ import annotations

import logging
import math
from typing import Any

import lightning.pytorch as L
import torch
from lightning.pytorch.plugins import MixedPrecision

from denpex_callbacks.lightning import AmpDiagnosticCallback


class Regressor(L.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch: Any, index: int) -> torch.Tensor:
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x).float(), y)
        if index >= 20:
            loss = loss * math.inf
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        return torch.optim.SGD(self.parameters(), lr=0.01)

    def train_dataloader(self) -> Any:
        x = torch.randn(320, 8, generator=torch.Generator().manual_seed(0))
        return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, x[:, :1]),
                                           batch_size=8)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    L.Trainer(accelerator="cpu", max_epochs=1, logger=False, enable_checkpointing=False,
              enable_model_summary=False, accumulate_grad_batches=2,
              callbacks=[AmpDiagnosticCallback(report_dir=None)],
              plugins=[MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu"))],
              ).fit(Regressor())
