"""The zoo in a hand-written loop: torch.autocast + GradScaler, watched by AmpMonitor."""

from __future__ import annotations

from hand_loop import Loop
from hand_loop import run as run_loop
from scenarios import Scenario
from workload import Outcome

STEP_OFFSET = 0  # AmpMonitor numbers optimizer steps from 0


def run(s: Scenario) -> Outcome:
    return run_loop(Loop(), s)
