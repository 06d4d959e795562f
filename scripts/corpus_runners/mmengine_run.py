"""A small mmengine Runner training on CPU, as the log corpus records it.

Variants: ``healthy``; ``nan_data`` (a NaN sample from iteration 31 on, so the loss logged at
iteration 40 is NaN); ``high_lr`` (lr 1e3: the loss overflows to inf/NaN within a few logs).
Run with the corpus venv's python (scripts/record_log_corpus.py does).
"""

from __future__ import annotations

import sys

import torch
from mmengine.model import BaseModel
from mmengine.runner import Runner
from torch.utils.data import Dataset

VARIANT = sys.argv[1]
WORK_DIR = sys.argv[2]
NAN_FROM = 31  # first iteration (1-based) whose batch carries a NaN


class Regression(Dataset):  # type: ignore[type-arg]
    def __init__(self, size: int) -> None:
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(size, 8, generator=generator)
        self.y = self.x @ torch.linspace(-1, 1, 8) + 0.1 * torch.randn(size, generator=generator)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        x = self.x[index].clone()
        if VARIANT == "nan_data" and index >= (NAN_FROM - 1) * 4:
            x[0] = float("nan")
        return {"inputs": x, "target": self.y[index]}


class Mlp(BaseModel):
    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(),
                                       torch.nn.Linear(32, 1))

    def forward(self, inputs, target, mode="tensor"):  # type: ignore[no-untyped-def]
        pred = self.net(inputs).squeeze(-1)
        if mode == "loss":
            return {"loss": torch.nn.functional.mse_loss(pred, target)}
        return pred


lr = 1e3 if VARIANT == "high_lr" else 1e-2
runner = Runner(
    model=Mlp(),
    work_dir=WORK_DIR,
    train_dataloader={"dataset": Regression(240), "sampler": {"type": "DefaultSampler",
                      "shuffle": False}, "batch_size": 4, "num_workers": 0,
                      "collate_fn": {"type": "default_collate"}},
    train_cfg={"by_epoch": True, "max_epochs": 1},
    optim_wrapper={"optimizer": {"type": "SGD", "lr": lr, "momentum": 0.9}},
    default_hooks={"logger": {"type": "LoggerHook", "interval": 10},
                   "checkpoint": {"type": "CheckpointHook", "interval": 100}},
    randomness={"seed": 0},
    default_scope="mmengine",
)
runner.train()
