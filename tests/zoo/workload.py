"""What every runner trains: the zoo's models, data, losses and injected faults (torch)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from scenarios import FAULT_STEP, Scenario

FEATURES, WIDTH, DEPTH, BATCH, DATASET = 16, 64, 3, 32, 512
RAW_TARGETS = 6000.0  # "mse-raw": targets in raw units, an MSE of about 4e7 from the start


class MLP(torch.nn.Module):
    """A plain MLP regressor (no normalisation: a learning rate too high blows it up)."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[torch.nn.Module] = [torch.nn.Linear(FEATURES, WIDTH), torch.nn.ReLU()]
        for _ in range(DEPTH - 1):
            layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.ReLU()]
        self.body = torch.nn.Sequential(*layers)
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


class FeedForward(torch.nn.Module):
    """T5's DenseReluDense: wi -> ReLU -> wo."""

    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.wi = torch.nn.Linear(width, hidden)
        self.act = torch.nn.ReLU()
        self.wo = torch.nn.Linear(hidden, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.wo(self.act(self.wi(x)))


class LargeFFN(torch.nn.Module):
    """embed -> ffn -> head, with ``ffn.wo`` holding large pretrained-like weights (|w| = 60,
    far from diverged) whose outputs exceed 65504 in fp16 from the first forward."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Linear(FEATURES, 32)
        self.ffn = FeedForward(32, 128)
        self.head = torch.nn.Linear(32, 1)
        with torch.no_grad():
            self.embed.weight.mul_(8.0)
            self.ffn.wi.weight.mul_(24.0)
            self.ffn.wo.weight.copy_(torch.sign(self.ffn.wo.weight) * 60.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.ffn(self.embed(x)) * 1e-3)


class FlipOnce:
    """A forward hook turning one activation into inf at one training forward, once: the
    stand-in for a flipped bit (a re-run of the step, after it, finds it spent)."""

    def __init__(self, at_forward: int) -> None:
        self.at_forward, self.forwards, self.fired = at_forward, 0, False

    def __call__(self, module: torch.nn.Module, args: Any, output: torch.Tensor) -> Any:
        if not module.training:
            return None
        index, self.forwards = self.forwards, self.forwards + 1
        if index != self.at_forward or self.fired:
            return None
        self.fired = True
        output = output.clone()
        output.view(-1)[0] = math.inf
        return output


def build_model(s: Scenario, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    model: torch.nn.Module = LargeFFN() if s.model == "ffn-large" else MLP()
    if s.batch_fault == "flip" and isinstance(model, MLP):
        model.body[0].register_forward_hook(FlipOnce(FAULT_STEP * s.accumulation))
    return model.half() if s.precision == "fp16-weights" else model


@dataclass
class Data:
    """The regression task and its batches, deterministic per (step, micro-batch)."""

    x: torch.Tensor = field(init=False)
    y: torch.Tensor = field(init=False)

    def __post_init__(self) -> None:
        gen = torch.Generator().manual_seed(1)
        self.x = torch.randn(DATASET, FEATURES, generator=gen)
        weights = torch.randn(FEATURES, 1, generator=gen)
        self.y = self.x @ weights / 4 + 0.5

    def batch(self, s: Scenario, step: int, micro: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
        gen = torch.Generator().manual_seed(1000 * step + micro)
        idx = torch.randint(0, DATASET, (BATCH,), generator=gen)
        x, y = self.x[idx].clone(), self.y[idx].clone()
        if s.loss == "bce-log0":
            y = (y > 0.5).float()
        if s.loss == "mse-raw":
            y = y * RAW_TARGETS
        if step == FAULT_STEP and micro == 0:
            if s.batch_fault in ("nan", "inf"):
                x[3, 1] = {"nan": math.nan, "inf": math.inf}[s.batch_fault]
            elif s.batch_fault == "constant-targets":
                y.fill_(0.5)
            elif s.batch_fault == "spike":
                x, y = x * 30.0, y * 30.0
        return x, y


def loss_fn(s: Scenario) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    if s.loss == "bce-log0":
        def bce(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            # A hand-written BCE on fp16 logits with a sharp temperature: sigmoid saturates to
            # exactly 1.0 in fp16 for logits above ~8, and log(1 - p) is then log(0) = -inf.
            p = torch.sigmoid(out.half() * 100.0)
            return -(y * torch.log(p) + (1 - y) * torch.log(1 - p)).float().mean()
        return bce

    def mse(out: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.mse_loss(out.float(), y)

    if s.loss == "mse-over-std":
        return lambda out, y: mse(out, y) / y.std()
    return mse


def autocast_dtype(s: Scenario) -> torch.dtype | None:
    return {"fp16": torch.float16, "bf16": torch.bfloat16}.get(s.precision)


def warmup_lambda(s: Scenario) -> Callable[[int], float]:
    return lambda step: min(1.0, (step + 1) / s.warmup) if s.warmup else 1.0


@dataclass
class Record:
    """The raw training record, as the runner reads it itself (never from denpex)."""

    losses: list[float] = field(default_factory=list)
    skipped: list[bool] = field(default_factory=list)

    def add(self, loss: float, skipped: bool) -> None:
        self.losses.append(loss)
        self.skipped.append(skipped)

    def first_fault(self) -> tuple[str | None, int | None]:
        """Where the run itself broke: the first non-finite loss (AMP006), or the first step
        skipped after an applied update when skips come first (AMP003)."""
        bad_loss = next((i for i, x in enumerate(self.losses) if not math.isfinite(x)), None)
        applied = next((i for i, s in enumerate(self.skipped) if not s), None)
        skip = None if applied is None else next(
            (i for i in range(applied, len(self.skipped)) if self.skipped[i]), None)
        if bad_loss is None and skip is None:
            return None, None
        if skip is None or (bad_loss is not None and bad_loss <= skip):
            return "AMP006", bad_loss
        return "AMP003", skip


@dataclass
class Outcome:
    """What one run produced: denpex's diagnoses and the raw record."""

    diagnoses: list[Any]
    record: Record
    error: BaseException | None = None
