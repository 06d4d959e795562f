"""A tiny LightningModule on random data that injects an fp16 fault: for examples and tests.

One small model (8 -> 32 -> 1, MSE on 512 random samples) that trains in seconds on a CPU,
and the faults denpex diagnoses, from ``fault_step`` on (on ``fault_rank`` only when given):

- ``nan``: the loss is multiplied by inf (a non-finite loss, every step skipped);
- ``overflow``: a huge learning rate blows the weights up until fp16 overflows;
- ``stuck``: the GradScaler cannot grow (see :func:`fp16_plugin`);
- ``zero``: the loss is multiplied by 0.

:class:`TinyLogic` holds the model, the data and the faults; :class:`TinyModule` (automatic
optimization) and :class:`ManualTinyModule` (manual) bind it to ``lightning.pytorch``. For
``pytorch_lightning``, mix :class:`TinyLogic` into its ``LightningModule``. The classes live at
module level so that ``ddp_spawn`` pickles them by name.

This module imports ``lightning`` (the ``lightning`` extra); nothing else in denpex imports it.

Example:
    >>> module = TinyModule(fault="nan", fault_step=0)
    >>> batch = next(iter(module.train_dataloader()))
    >>> module.faulty_loss(batch).item()
    inf
    >>> fp16_plugin("cpu", fault="stuck").scaler.get_growth_interval()
    1000000000
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import lightning.pytorch as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

__all__ = ["FAULTS", "HUGE_LR", "ManualTinyModule", "TinyLogic", "TinyModule", "fp16_plugin"]

FAULTS = ("none", "nan", "overflow", "stuck", "zero")
HUGE_LR = 1e6  # the "overflow" fault's learning rate


class TinyLogic:
    """Model, data and fault injection, for any ``LightningModule`` to mix in (first).

    Args:
        fault: One of :data:`FAULTS`.
        fault_step: First global step the fault is injected at.
        fault_rank: The only rank that injects it (None: every rank).
        lr: Learning rate (:data:`HUGE_LR` under the ``overflow`` fault).
        fused: Train with a fused AdamW instead of SGD.
        seed: Seed of the initial weights (the global RNG is left untouched).

    Raises:
        ValueError: When ``fault`` is not one of :data:`FAULTS`.
    """

    # Provided by the LightningModule this is mixed into.
    global_step: int
    global_rank: int
    parameters: Callable[..., Iterator[nn.Parameter]]

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
        """The MSE loss of ``batch``, with the ``nan`` or ``zero`` fault applied when due."""
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
        """SGD, or a fused AdamW with ``fused=True``."""
        if self.fused:
            return torch.optim.AdamW(self.parameters(), lr=self.lr, fused=True)
        return torch.optim.SGD(self.parameters(), lr=self.lr)

    def train_dataloader(self) -> DataLoader[tuple[torch.Tensor, ...]]:
        """512 fixed random samples, batches of 8."""
        generator = torch.Generator().manual_seed(0)
        x = torch.randn(512, 8, generator=generator)
        y = x.sum(dim=1, keepdim=True) * 0.1
        return DataLoader(TensorDataset(x, y), batch_size=8)


# lightning is untyped here (mypy skips it): its LightningModule is Any to mypy.
class TinyModule(TinyLogic, L.LightningModule):  # type: ignore[misc]
    """:class:`TinyLogic` under automatic optimization."""

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        """The step's loss, faulty when due."""
        return self.faulty_loss(batch)


class ManualTinyModule(TinyLogic, L.LightningModule):  # type: ignore[misc]
    """:class:`TinyLogic` under manual optimization: ``manual_backward`` and
    ``optimizer.step()`` by hand."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.automatic_optimization = False

    def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
        """Backward and step by hand; returns the detached loss."""
        optimizer = self.optimizers()
        loss = self.faulty_loss(batch)
        self.manual_backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        return loss.detach()


def fp16_plugin(device: str, fault: str = "none", namespace: Any = L) -> Any:
    """A real fp16 ``MixedPrecision`` plugin with its own GradScaler (works on CPU too).

    ``Trainer(precision="16-mixed")`` on CPU silently becomes bf16; this plugin does not.

    Args:
        device: ``"cpu"`` or ``"cuda"``.
        fault: ``"stuck"`` gives the scaler a growth interval it never reaches (10**9);
            any other fault leaves the default (2000).
        namespace: ``lightning.pytorch`` (default) or ``pytorch_lightning``.

    Returns:
        The plugin, for ``Trainer(plugins=[...])``; its ``scaler`` is the GradScaler.
    """
    growth_interval = 10**9 if fault == "stuck" else 2000
    scaler = torch.amp.GradScaler(device, init_scale=2.0**16, growth_interval=growth_interval)
    return namespace.plugins.MixedPrecision("16-mixed", device, scaler=scaler)
