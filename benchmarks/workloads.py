"""The models and data every framework trains in the benchmarks and the GPU check.

One model class per workload, each taking a dict batch ``{"x", "labels"}`` and returning
``{"loss", "logits"}`` (what HF Trainer expects; the other loops read ``["loss"]``). A model
can break its own loss from a given optimizer step on (``fault``), which is how the GPU check
injects a fault the same way into every framework.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

FAULT_FACTORS = {"inf": math.inf, "nan": math.nan, "zero": 0.0}


class FaultyLoss(nn.Module):  # type: ignore[misc]
    """Base of the workload models: multiplies the training loss by ``fault`` from a step on.

    Training forward calls are counted (one per optimizer step: the benchmarks use no gradient
    accumulation), so call ``k`` (0-based) is optimizer step ``k``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.fault: str | None = None
        self.fault_from = 0
        self.forward_calls = 0

    def inject(self, fault: str | None, from_step: int) -> None:
        """Break the loss from 0-based optimizer step ``from_step`` on (None: healthy)."""
        if fault is not None and fault not in FAULT_FACTORS:
            raise ValueError(f"fault must be one of {sorted(FAULT_FACTORS)}, not {fault!r}")
        self.fault, self.fault_from = fault, from_step

    def faulty(self, loss: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return loss
        index = self.forward_calls
        self.forward_calls += 1
        if self.fault is not None and index >= self.fault_from:
            return loss * FAULT_FACTORS[self.fault]
        return loss


class MLP(FaultyLoss):
    """``depth`` hidden layers of ``width`` units, a scalar regression head, MSE loss."""

    def __init__(self, width: int = 256, depth: int = 3) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        for _ in range(depth):
            layers += [nn.Linear(width, width), nn.ReLU()]
        self.body = nn.Sequential(*layers, nn.Linear(width, 1))

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
        out = self.body(x).squeeze(-1)
        loss = nn.functional.mse_loss(out.float(), labels.float())
        return {"loss": self.faulty(loss), "logits": out}


class TinyLM(FaultyLoss):
    """A decoder-only transformer language model (pre-norm, causal), cross-entropy loss."""

    def __init__(self, vocab: int, width: int, layers: int, heads: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        block = nn.TransformerEncoderLayer(
            width, heads, 4 * width, dropout=0.0, batch_first=True, norm_first=True
        )
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
        length = x.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(length, device=x.device)
        hidden = self.blocks(self.embed(x), mask=mask, is_causal=True)
        logits = self.head(self.norm(hidden))
        loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), labels.flatten())
        return {"loss": self.faulty(loss), "logits": logits}


class CycledBatches(torch.utils.data.Dataset):  # type: ignore[misc]
    """``length`` samples drawn cyclically from a small fixed pool (cheap, deterministic)."""

    def __init__(self, pool: dict[str, torch.Tensor], length: int) -> None:
        self.pool = pool
        self.pool_size = len(next(iter(pool.values())))
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> dict[str, torch.Tensor]:
        i = index % self.pool_size
        return {key: value[i] for key, value in self.pool.items()}


@dataclass(frozen=True)
class Workload:
    """A model and its data.

    Attributes:
        name: Short name for reports.
        kind: ``"mlp"`` or ``"lm"``.
        batch_size: Samples per optimizer step.
        width: MLP width / transformer model width.
        depth: MLP hidden layers / transformer blocks.
        vocab: Transformer vocabulary (unused by the MLP).
        seq_len: Transformer sequence length (unused by the MLP).
        heads: Transformer attention heads.
        lr: Learning rate (SGD for the MLP, AdamW for the LM).
    """

    name: str
    kind: str
    batch_size: int
    width: int
    depth: int
    vocab: int = 0
    seq_len: int = 0
    heads: int = 1
    lr: float = 1e-3

    def model(self, seed: int = 0) -> FaultyLoss:
        """A fresh model with the same weights on every call."""
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            if self.kind == "mlp":
                return MLP(self.width, self.depth)
            return TinyLM(self.vocab, self.width, self.depth, self.heads)

    def pool(self, size: int = 256, seed: int = 1) -> dict[str, torch.Tensor]:
        """A fixed pool of samples."""
        gen = torch.Generator().manual_seed(seed)
        if self.kind == "mlp":
            x = torch.randn(size, self.width, generator=gen)
            return {"x": x, "labels": x[:, :8].sum(dim=1) * 0.1}
        tokens = torch.randint(0, self.vocab, (size, self.seq_len + 1), generator=gen)
        return {"x": tokens[:, :-1].contiguous(), "labels": tokens[:, 1:].contiguous()}

    def dataset(self, steps: int) -> CycledBatches:
        """Enough samples for ``steps`` optimizer steps."""
        return CycledBatches(self.pool(), steps * self.batch_size)

    def batches(self, steps: int, device: str) -> list[dict[str, torch.Tensor]]:
        """``steps`` batches already on ``device`` (for hand-written loops)."""
        pool = {k: v.to(device) for k, v in self.pool().items()}
        size = len(pool["x"])
        out = []
        for step in range(steps):
            index = torch.arange(step * self.batch_size, (step + 1) * self.batch_size) % size
            index = index.to(device)
            out.append({k: v[index] for k, v in pool.items()})
        return out

    def optimizer(self, params: Any) -> torch.optim.Optimizer:
        """The workload's optimizer (plain, non-fused: the same on every framework)."""
        if self.kind == "mlp":
            return torch.optim.SGD(params, lr=self.lr)
        return torch.optim.AdamW(params, lr=self.lr)

    def parameters(self) -> int:
        """Parameter count of the model (built on the meta device: no memory, no init).

        Example:
            >>> LM_100M.parameters()
            97638912
        """
        with torch.device("meta"):
            return sum(p.numel() for p in self.model().parameters())


# The CPU benchmark: 3 x 256 MLP, batch 64.
MLP_CPU = Workload("mlp-3x256-b64", "mlp", batch_size=64, width=256, depth=3, lr=1e-3)
# About 98M parameters: 12 blocks of width 768, vocabulary 8192, 8 x 256 tokens per step.
LM_100M = Workload("lm-98m", "lm", batch_size=8, width=768, depth=12, vocab=8192, seq_len=256,
                   heads=12, lr=1e-4)
# Small stand-ins for dry runs and fault checks.
LM_TINY = Workload("lm-tiny", "lm", batch_size=4, width=32, depth=2, vocab=64, seq_len=16,
                   heads=2, lr=1e-3)
MLP_TINY = Workload("mlp-tiny", "mlp", batch_size=8, width=16, depth=1, lr=1e-2)
