"""A small PyTorch-Ignite training on CPU, as the log corpus records it.

Variants: ``healthy`` (fp32, ignite's ProgressBar with the loss in its postfix);
``amp_cpu`` (``create_supervised_trainer(amp_mode="amp", scaler=True)`` on CPU: ignite's step
asks torch for CUDA autocast and a CUDA GradScaler, which torch switches off with a warning);
``nan_terminate`` (NaN features from iteration 15, with ignite's TerminateOnNan handler).
"""

from __future__ import annotations

import sys

import torch
from ignite.engine import Events, create_supervised_trainer
from ignite.handlers import ProgressBar, TerminateOnNan

VARIANT = sys.argv[1]
torch.manual_seed(0)
x = torch.randn(160, 8)
y = x @ torch.linspace(-1, 1, 8) + 0.1 * torch.randn(160)
if VARIANT == "nan_terminate":
    x[14 * 8:, 0] = float("nan")  # batch size 8: iteration 15 on
data = torch.utils.data.DataLoader(list(zip(x, y[:, None], strict=True)), batch_size=8)
model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
amp = {"amp_mode": "amp", "scaler": True} if VARIANT == "amp_cpu" else {}
trainer = create_supervised_trainer(model, optimizer, torch.nn.functional.mse_loss,
                                    device="cpu", **amp)
ProgressBar(persist=True).attach(trainer, output_transform=lambda loss: {"loss": loss})
if VARIANT == "nan_terminate":
    trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan())
trainer.run(data, max_epochs=2)
