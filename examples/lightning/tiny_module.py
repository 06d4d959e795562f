"""A tiny LightningModule on random data that can inject an fp16 fault (for the example;
the tests keep their own in tests/lightning, so that no test imports example code).

``TinyLogic`` holds the model and the faults; ``TinyModule`` / ``ManualTinyModule`` bind it to
``lightning.pytorch``. For ``pytorch_lightning``, mix ``TinyLogic`` into its LightningModule.

Faults (from ``fault_step``, on ``fault_rank`` only when given):
- ``nan``: the loss is multiplied by inf (non-finite loss, every step skipped).
- ``overflow``: a huge learning rate blows the weights up until fp16 overflows.
- ``stuck``: the GradScaler cannot grow (growth_interval 10**9): see ``cpu_fp16_plugin``.
- ``zero``: the loss is multiplied by 0.
"""

from __future__ import annotations

from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

FAULTS = ("none", "nan", "overflow", "stuck", "zero")
HUGE_LR = 1e6


class TinyLogic:
    """Model, data and fault injection shared by the automatic and manual variants."""

    def __init__(
        self,
        fault: str = "none",
        fault_step: int = 5,
        fault_rank: int | None = None,
        lr: float = 0.05,
        fused: bool = False,
        seed: int = 0,
    ) -> None:
        super().__init__()
        if fault not in FAULTS:
            raise ValueError(f"fault must be one of {FAULTS}")
        self.fault, self.fault_step, self.fault_rank = fault, fault_step, fault_rank
        self.lr = HUGE_LR if fault == "overflow" else lr
        self.fused = fused
        with torch.random.fork_rng():  # the same weights in every run, global RNG untouched
            torch.manual_seed(seed)
            self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))

    def faulty_loss(self, batch: Any) -> torch.Tensor:
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x).float(), y)
        injecting = self.global_step >= self.fault_step and (
            self.fault_rank is None or self.global_rank == self.fault_rank
        )
        if injecting and self.fault == "nan":
            loss = loss * float("inf")
        elif injecting and self.fault == "zero":
            loss = loss * 0.0
        return loss

    def configure_optimizers(self) -> torch.optim.Optimizer:
        if self.fused:
            return torch.optim.AdamW(self.parameters(), lr=self.lr, fused=True)
        return torch.optim.SGD(self.parameters(), lr=self.lr)

    def train_dataloader(self) -> DataLoader[tuple[torch.Tensor, ...]]:
        generator = torch.Generator().manual_seed(0)
        x = torch.randn(512, 8, generator=generator)
        y = x.sum(dim=1, keepdim=True) * 0.1
        return DataLoader(TensorDataset(x, y), batch_size=8)


class TinyModule(TinyLogic, L.LightningModule):
    """Automatic optimization."""

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        return self.faulty_loss(batch)


def fp16_plugin(device: str, fault: str = "none", namespace: Any = L) -> Any:
    """A real fp16 MixedPrecision plugin with its own GradScaler (works on CPU too).

    ``Trainer(precision="16-mixed")`` on CPU silently becomes bf16; this plugin does not.
    The ``stuck`` fault gives the scaler a growth interval it never reaches.
    """
    growth_interval = 10**9 if fault == "stuck" else 2000
    scaler = torch.amp.GradScaler(device, init_scale=2.0**16, growth_interval=growth_interval)
    return namespace.plugins.MixedPrecision("16-mixed", device, scaler=scaler)
