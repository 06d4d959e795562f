"""The fault zoo through every adapter (the real frameworks on CPU): each scenario's id,
first step and root cause right; healthy controls silent above info."""

from __future__ import annotations

import importlib

import pytest
from judge import judge
from scenarios import Scenario, for_adapter

ADAPTERS = ("torch", "hf", "lightning", "deepspeed", "accelerate", "fabric")
FRAMEWORK = {"hf": "transformers", "lightning": "lightning", "deepspeed": "deepspeed",
             "accelerate": "accelerate", "fabric": "lightning"}
HAND_LOOPS = ("torch", "accelerate", "fabric")  # fast enough for every scenario in make test
LONG_RUN = 100  # steps; longer runs in a framework's Trainer are marked slow


def _cases() -> list[object]:
    cases: list[object] = []
    for adapter in ADAPTERS:
        for scenario in for_adapter(adapter):
            slow = adapter == "deepspeed" or (adapter not in HAND_LOOPS
                                              and scenario.steps >= LONG_RUN)
            marks = [pytest.mark.slow] if slow else []
            cases.append(pytest.param(adapter, scenario, marks=marks,
                                      id=f"{adapter}-{scenario.name}"))
    return cases


@pytest.mark.parametrize(("adapter", "scenario"), _cases())
def test_zoo(adapter: str, scenario: Scenario) -> None:
    if adapter in FRAMEWORK:
        pytest.importorskip(FRAMEWORK[adapter])
    runner = importlib.import_module(f"run_{adapter}")
    outcome = runner.run(scenario)
    verdict = judge(scenario, adapter, outcome, runner.STEP_OFFSET)
    if scenario.healthy:
        assert verdict.loud == ()
        return
    assert verdict.got[:2] == verdict.expected[:2]  # id and first step
    assert verdict.cause_ok is not False, f"cause {verdict.got[2]}, not {verdict.expected[2]}"
    assert verdict.id_ok, f"another fault reported first: {verdict.loud}"
    # One collapse, one story: a zoo run is one episode (issue 25, item 8).
    assert [d.code for d in outcome.diagnoses].count("AMP003") <= 1, verdict.loud
    hit = next(d for d in outcome.diagnoses if d.code == verdict.got[0])
    if verdict.got[2] == "divergence":  # the fix follows the cause and the run
        assert "lower the learning rate" in hit.fix.lower()
        if scenario.clip is not None and adapter not in HAND_LOOPS:  # a loop's clipping is
            assert "clipping is already on" in hit.fix  # its own code: nothing says it is on
    if "'cuda'" in hit.fix:
        pytest.fail(f"a CPU run told to use CUDA: {hit.fix}")
