"""The fault zoo in a hand-written fp16 loop (real autocast + GradScaler on CPU): every
scenario's id, first step and root cause right; healthy controls silent above info."""

from __future__ import annotations

import pytest
import run_torch
from judge import judge
from scenarios import Scenario, for_adapter


@pytest.mark.parametrize("scenario", for_adapter("torch"), ids=lambda s: s.name)
def test_zoo_torch(scenario: Scenario) -> None:
    verdict = judge(scenario, "torch", run_torch.run(scenario), run_torch.STEP_OFFSET)
    if scenario.healthy:
        assert verdict.loud == ()
        return
    assert verdict.got == verdict.expected
    assert verdict.id_ok, f"another fault reported first: {verdict.loud}"
