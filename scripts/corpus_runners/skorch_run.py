"""A small skorch NeuralNetRegressor fit on CPU, as the log corpus records it (its table of
epochs: ``epoch    train_loss    valid_loss     dur``).

Variants: ``healthy`` (SGD lr 0.01); ``high_lr`` (skorch's LRScheduler multiplies the lr by
1000 from epoch 4: the loss is NaN there).
"""

from __future__ import annotations

import sys

import numpy as np
import torch
from skorch import NeuralNetRegressor
from skorch.callbacks import LRScheduler

VARIANT = sys.argv[1]
torch.manual_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(320, 8)).astype("float32")
y = (x @ np.linspace(-1, 1, 8) + 0.1 * rng.normal(size=320)).astype("float32")[:, None]
net = NeuralNetRegressor(
    torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1)),
    max_epochs=8, lr=0.01, optimizer=torch.optim.SGD, batch_size=16, device="cpu",
    callbacks=[LRScheduler(policy="LambdaLR", lr_lambda=lambda epoch: 1 if epoch < 3 else 1000)]
    if VARIANT == "high_lr" else None,
)
net.fit(x, y)
