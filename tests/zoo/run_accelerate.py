"""The zoo in an accelerate loop (``accelerator.prepare``, ``accelerator.backward``), watched by
AmpMonitor given the prepared AcceleratedOptimizers as they are.

accelerate builds no scaler and no autocast on a CPU (fp16 asked for, fp32 run): the runner gives
its Accelerator a real CPU GradScaler before ``prepare``, as the HF Trainer recipe does
(:func:`denpex_callbacks.testing.cpu_fp16.accelerate_fp16_on_cpu`)."""

from __future__ import annotations

from typing import Any

import torch
from accelerate import Accelerator
from accelerate.state import AcceleratorState, GradientState
from hand_loop import Loop
from hand_loop import run as run_loop
from scenarios import Scenario
from workload import Outcome

from denpex_callbacks.testing.cpu_fp16 import accelerate_fp16_on_cpu

STEP_OFFSET = 0  # AmpMonitor numbers optimizer steps from 0
MIXED = {"fp16": "fp16", "bf16": "bf16", "fp32": "no"}


class AccelerateLoop(Loop):
    hands_scaler = False

    def prepare(self, s: Scenario, model: torch.nn.Module, opts: list[Any]
                ) -> tuple[Any, list[Any], Any]:
        # accelerate keeps its state per process: a run asking for another precision than the
        # last one starts from a fresh state (test-side; a script builds one Accelerator).
        AcceleratorState._reset_state(reset_partial_state=True)
        GradientState._reset_state()
        self.accelerator = Accelerator(mixed_precision=MIXED[s.precision], cpu=True)
        if s.precision == "fp16":
            accelerate_fp16_on_cpu(self.accelerator, **s.scaler)
        model, *held = self.accelerator.prepare(model, *opts)
        return model, held, self.accelerator.scaler

    def forward(self, s: Scenario, model: Any, x: torch.Tensor) -> torch.Tensor:
        return model(x)  # type: ignore[no-any-return]  # (the prepared model's own autocast)

    def backward(self, loss: torch.Tensor, scaler: Any) -> None:
        self.accelerator.backward(loss)

    def step(self, s: Scenario, step: int, model: Any, scaler: Any, opts: list[Any]) -> Any:
        norm = (self.accelerator.clip_grad_norm_(model.parameters(), s.clip)
                if s.clip is not None else None)
        for o in opts:
            o.step()  # (scaler.step and scaler.update inside, per optimizer)
        return norm


def run(s: Scenario) -> Outcome:
    return run_loop(AccelerateLoop(), s)
