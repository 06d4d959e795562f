"""Faults and state snapshots for the failing-step re-run tests (every adapter uses them)."""

from __future__ import annotations

import copy
import math
import platform
from typing import Any

import torch
from locate_models import FAULT_STEP, FEATURES, WIDTH


class FlipOnce:
    """A forward hook that turns one activation into inf exactly once, at ``step``'s forward:
    the stand-in for a flipped bit (a transient hardware fault). It counts training forwards,
    so a re-run (which happens after the step) finds it spent."""

    def __init__(self, at_forward: int = FAULT_STEP) -> None:
        self.at_forward = at_forward
        self.forwards = 0
        self.fired = 0

    def __call__(self, module: torch.nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor:
        index = self.forwards
        self.forwards += 1
        if index != self.at_forward or self.fired:
            return output
        self.fired += 1
        output = output.clone()
        output.view(-1)[0] = float("inf")
        return output


class DropoutLogLoss(torch.nn.Module):
    """A model whose loss is log(sum(dropout(h))) per sample: -inf exactly when dropout drops
    every feature of a sample, so whether a step fails depends on the dropout mask alone."""

    def __init__(self, features: int = 3) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(FEATURES, features)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.nn.functional.softplus(self.lin(x)) + 0.1  # strictly positive
        return -self.drop(h).sum(-1).log().mean()


class NormedT5(torch.nn.Module):
    """Linear -> BatchNorm -> Linear: the re-run must leave the running statistics alone."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.embed = torch.nn.Linear(FEATURES, WIDTH)
        self.norm = torch.nn.BatchNorm1d(WIDTH)
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.embed(x)))


def state_of(model: torch.nn.Module, optimizer: Any = None, scaler: Any = None) -> dict[str, Any]:
    """Everything a re-run must leave bit-identical: parameters, gradients, buffers, modes,
    optimizer and scaler state, RNG state (deep copies)."""
    return {
        "params": {n: p.detach().clone() for n, p in model.named_parameters()},
        "grads": {n: None if p.grad is None else p.grad.clone()
                  for n, p in model.named_parameters()},
        "grad_ids": {n: id(p.grad) for n, p in model.named_parameters()},
        "buffers": {n: b.clone() for n, b in model.named_buffers()},
        "modes": [m.training for m in model.modules()],
        "optimizer": copy.deepcopy(optimizer.state_dict()) if optimizer is not None else None,
        "scaler": copy.deepcopy(scaler.state_dict()) if scaler is not None else None,
        "rng": torch.get_rng_state(),
    }


def assert_identical(before: dict[str, Any], after: dict[str, Any]) -> None:
    """Bit-identical, NaN included (compared as raw bytes)."""
    assert before.keys() == after.keys()
    for key in before:
        _same(before[key], after[key], key)


def _same(a: Any, b: Any, where: str) -> None:
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape, where
        assert torch.equal(a.view(torch.uint8) if a.dim() else a.reshape(1).view(torch.uint8),
                           b.view(torch.uint8) if b.dim() else b.reshape(1).view(torch.uint8)
                           ), where
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b or (a != a and b != b), where


def assert_reproduced_here(diagnosis: Any, *, data: bool) -> None:
    """Reproduced, located in the failing step itself; ``data``: a bad batch (else the model:
    the inputs were finite)."""
    origin = diagnosis.evidence["origin"]
    assert diagnosis.evidence["rerun"] == "reproduced"
    assert origin["located_step"] == diagnosis.step
    assert origin["inputs_nonfinite"] is data


def assert_transient(diagnosis: Any, step: int) -> None:
    """Not reproduced at ``step``, the rank's host named, the node suspected."""
    assert diagnosis.step == step and diagnosis.evidence["rerun"] == "not-reproduced"
    assert f"host {platform.node()}" in diagnosis.summary
    assert diagnosis.root_cause.startswith("not reproducible") and "another node" in diagnosis.fix


def first_nonfinite_then_finite(monitor: Any) -> int:
    """The first step with a non-finite loss in the monitor's recent history, checked to be
    followed by a finite one (with the same batch, only the dropout mask differs)."""
    losses = {step: loss for step, _scale, _skipped, loss in monitor.run.recent}
    bad = [step for step, loss in sorted(losses.items()) if not math.isfinite(loss)]
    assert bad and bad[0] < max(losses) and math.isfinite(losses[bad[0] + 1])
    return bad[0]
