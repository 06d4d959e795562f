"""The zoo in a Lightning Fabric loop (``fabric.setup``, ``fabric.backward``), watched by
AmpMonitor given Fabric's wrapped model and optimizers as they are.

Fabric swaps 16-mixed for bf16 on a CPU; the runner gives it a real CPU GradScaler through the
fp16 MixedPrecision plugin, as Lightning's CPU recipe does."""

from __future__ import annotations

from typing import Any

import torch
from hand_loop import Loop
from hand_loop import run as run_loop
from lightning.fabric import Fabric
from lightning.fabric.plugins import MixedPrecision
from scenarios import Scenario
from workload import Outcome

STEP_OFFSET = 0  # AmpMonitor numbers optimizer steps from 0
PRECISION = {"fp16": "16-mixed", "bf16": "bf16-mixed", "fp32": "32-true"}


class FabricLoop(Loop):
    hands_scaler = False

    def prepare(self, s: Scenario, model: torch.nn.Module, opts: list[Any]
                ) -> tuple[Any, list[Any], Any]:
        self.precision = PRECISION[s.precision]
        if s.precision == "fp16":
            scaler = torch.amp.GradScaler("cpu", **s.scaler)
            self.fabric = Fabric(accelerator="cpu", devices=1,
                                 plugins=[MixedPrecision("16-mixed", "cpu", scaler=scaler)])
        else:
            self.fabric = Fabric(accelerator="cpu", devices=1, precision=self.precision)
        model, *held = self.fabric.setup(model, *opts)
        return model, held, getattr(self.fabric.strategy.precision, "scaler", None)

    def forward(self, s: Scenario, model: Any, x: torch.Tensor) -> torch.Tensor:
        return model(x)  # type: ignore[no-any-return]  # (Fabric's module enters autocast)

    def backward(self, loss: torch.Tensor, scaler: Any) -> None:
        self.fabric.backward(loss)

    def step(self, s: Scenario, step: int, model: Any, scaler: Any, opts: list[Any]) -> Any:
        # Fabric's clip_gradients raises on a non-finite norm by default: under fp16 an
        # overflowing step would end the run instead of being skipped by the scaler.
        norm = (self.fabric.clip_gradients(model, opts[0], max_norm=s.clip,
                                           error_if_nonfinite=False)
                if s.clip is not None else None)
        for o in opts:
            o.step()  # (scaler.step and scaler.update inside, per optimizer)
        return norm


def run(s: Scenario) -> Outcome:
    return run_loop(FabricLoop(), s)
