"""The adapters' hot path changes no answer: each adapter's run gives the same report with it
and without it, and it really is taken.

On most steps of a run an adapter hands the step's plain numbers to
``StepPipeline.take_quiet`` (no values dict, no Observation, no finished capture). Here every
adapter of the contract (its runs: tests/integrations/adapter_runs.py) trains long enough for
quiet steps to come, with the re-run capture on (the locator too), and a fault late in the
run; the same run with ``take_quiet`` refusing every step (the full way for each) must write
the same diagnoses at the same steps with the same evidence, the same sampled step records and
the same summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import adapter_runs as contract
import pytest

from denpex_callbacks.core.report import read_report
from denpex_callbacks.integrations.pipeline import StepPipeline

STEPS, FAULT_STEP = 48, 36
TIMES = ("time",)  # wall-clock fields differ between any two runs


def _without_times(record: dict[str, Any]) -> dict[str, Any]:
    return {k: _without_times(v) if isinstance(v, dict) else v
            for k, v in record.items() if k not in TIMES}


def _run(adapter: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *,
         hot: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any, int]:
    """One run: (diagnoses, sampled step records, summary, steps the hot path took)."""
    taken = [0]
    build = StepPipeline.__init__

    def init(self: StepPipeline, *args: Any, **kwargs: Any) -> None:
        build(self, *args, **kwargs)
        take = self.take_quiet

        def counted(*numbers: Any) -> bool:
            if not hot:
                return False  # the full way for every step
            done = take(*numbers)
            taken[0] += done
            return done

        self.take_quiet = counted

    with monkeypatch.context() as patch:
        patch.setattr(StepPipeline, "__init__", init)
        patch.setattr(contract, "STEPS", STEPS)
        patch.setattr(contract, "FAULT_STEP", FAULT_STEP)
        patch.setattr(contract, "LOCATE", True)
        patch.setattr(contract, "HF_LOGGING_STEPS", 10)  # steps that log are judged at on_log
        workdir = tmp_path / ("hot" if hot else "full")
        workdir.mkdir()
        patch.chdir(workdir)
        report = read_report(contract.RUNNERS[adapter](workdir, fault) / "rank0.jsonl")
    diagnoses = [_without_times(d.to_dict()) for d in report.diagnoses]
    steps = [_without_times(record.to_dict()) for record in report.steps]
    return diagnoses, steps, _without_times(report.summary or {}), taken[0]


@pytest.mark.parametrize("fault", ["nan", "overflow"])
def test_the_hot_path_changes_no_answer(adapter: str, fault: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    hot = _run(adapter, fault, tmp_path, monkeypatch, hot=True)
    full = _run(adapter, fault, tmp_path, monkeypatch, hot=False)
    assert hot[:3] == full[:3]
    code = "AMP006" if fault == "nan" else "AMP003"
    assert (code, FAULT_STEP) in [(d["id"], d["step"]) for d in hot[0]]
    assert hot[3] >= 10  # the hot path took most of the healthy stretch before the fault
