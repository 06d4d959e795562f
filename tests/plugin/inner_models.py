"""Tiny real models and batches for the smoke tests, also copied into inner pytest sessions.

Every model returns its own loss (the default loss contract) unless said otherwise.
"""

from __future__ import annotations

import torch

FAULT_STEP = 20


class Regressor(torch.nn.Module):
    """16 -> 32 -> 1 MLP returning its MSE loss; ``gain`` scales the first layer's weights."""

    def __init__(self, gain: float = 1.0, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.hidden = torch.nn.Linear(16, 32)
        self.head = torch.nn.Linear(32, 1)
        with torch.no_grad():
            self.hidden.weight.mul_(gain)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = self.head(torch.relu(self.hidden(x)))
        return torch.nn.functional.mse_loss(out.float(), y)


def regression_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A clean batch: y = 3 * x[0] + 0.5."""
    x = torch.randn(32, 16)
    return x, x[:, :1] * 3.0 + 0.5


def overflowing_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """From FAULT_STEP the inputs are 1e4 times larger: fp16 activations of a gain-10 first
    layer pass 65504 (inf forward: the loss goes non-finite)."""
    x, y = regression_batch(step)
    return (x * 1e4, y) if step >= FAULT_STEP else (x, y)


def exploding_grad_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """From FAULT_STEP the inputs are 300 times larger: the activations and the loss stay
    finite, the scaled fp16 gradients overflow every step (the scale collapses)."""
    x, y = regression_batch(step)
    return (x * 300.0, y) if step >= FAULT_STEP else (x, y)
