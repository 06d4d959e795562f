"""The fault zoo through every adapter (the real frameworks on CPU): each scenario's id,
first step and root cause right; healthy controls silent above info."""

from __future__ import annotations

import importlib

import pytest
from judge import judge
from scenarios import Scenario, for_adapter

ADAPTERS = ("torch", "hf", "lightning", "deepspeed")
FRAMEWORK = {"hf": "transformers", "lightning": "lightning", "deepspeed": "deepspeed"}
LONG_RUN = 100  # steps; longer runs in a framework's Trainer are marked slow


def _cases() -> list[object]:
    cases: list[object] = []
    for adapter in ADAPTERS:
        for scenario in for_adapter(adapter):
            slow = adapter == "deepspeed" or (adapter != "torch" and scenario.steps >= LONG_RUN)
            marks = [pytest.mark.slow] if slow else []
            cases.append(pytest.param(adapter, scenario, marks=marks,
                                      id=f"{adapter}-{scenario.name}"))
    return cases


@pytest.mark.parametrize(("adapter", "scenario"), _cases())
def test_zoo(adapter: str, scenario: Scenario) -> None:
    if adapter in FRAMEWORK:
        pytest.importorskip(FRAMEWORK[adapter])
    runner = importlib.import_module(f"run_{adapter}")
    verdict = judge(scenario, adapter, runner.run(scenario), runner.STEP_OFFSET)
    if scenario.healthy:
        assert verdict.loud == ()
        return
    assert verdict.got[:2] == verdict.expected[:2]  # id and first step
    assert verdict.cause_ok is not False, f"cause {verdict.got[2]}, not {verdict.expected[2]}"
    assert verdict.id_ok, f"another fault reported first: {verdict.loud}"
