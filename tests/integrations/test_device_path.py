"""The path a GPU run takes changes no answer, nor does the engine's quiet-step path.

Every adapter of the contract (its runs: tests/integrations/adapter_runs.py) trains long enough
for quiet steps to come, with the re-run capture and the locator on, and a fault late in the
run, three ways: CPU tensors read as host numbers (a CPU run), the same run through the device
stand-in (``DENPEX_DEVICE_STANDIN=1``: one packed copy per step into a ring whose copies land a
hook later, as a CUDA stream's do), and the stand-in with the engine's quiet path refused (each
step judged in full). All three must write the same diagnoses at the same steps with the same
evidence, the same sampled step records and the same summary; the quiet path must really be
taken, and the device path must really queue.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import adapter_runs as contract
import pytest

from denpex_callbacks.core.quiet_steps import QuietSteps
from denpex_callbacks.core.report import read_report
from denpex_callbacks.readers.device_boundary import STANDIN_ENV
from denpex_callbacks.readers.step_queue import StepQueue

STEPS, FAULT_STEP = 48, 36
LOCATE = False  # the re-run capture: see test_the_device_path_keeps_the_rerun (locate on)
TIMES = ("time",)  # wall-clock fields differ between any two runs


def _without_times(record: dict[str, Any]) -> dict[str, Any]:
    return {k: _without_times(v) if isinstance(v, dict) else v
            for k, v in record.items() if k not in TIMES}


def _run(adapter: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *,
         device: bool, quiet: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any,
                                             int, int]:
    """One run: (diagnoses, sampled step records, summary, quiet steps taken, steps that
    waited in the queue)."""
    taken, queued = [0], [0]
    take = QuietSteps.take_values
    ready = StepQueue.ready

    def counted_take(self: QuietSteps, *args: Any, **kwargs: Any) -> bool:
        done = quiet and take(self, *args, **kwargs)
        taken[0] += done
        return done

    def counted_ready(self: StepQueue, *, wait: bool = False) -> list[Any]:
        before = len(self)
        out = ready(self, wait=wait)
        queued[0] += before - len(out)  # steps left behind: not landed yet
        return out

    with monkeypatch.context() as patch:
        patch.setattr(QuietSteps, "take_values", counted_take)
        patch.setattr(StepQueue, "ready", counted_ready)
        if device:
            patch.setenv(STANDIN_ENV, "1")
        else:
            patch.delenv(STANDIN_ENV, raising=False)
        patch.setattr(contract, "STEPS", STEPS)
        patch.setattr(contract, "FAULT_STEP", FAULT_STEP)
        patch.setattr(contract, "LOCATE", LOCATE)
        patch.setattr(contract, "HF_LOGGING_STEPS", 10)
        workdir = tmp_path / f"{'device' if device else 'host'}-{'quiet' if quiet else 'full'}"
        workdir.mkdir()
        patch.chdir(workdir)
        report = read_report(contract.RUNNERS[adapter](workdir, fault) / "rank0.jsonl")
    diagnoses = [_without_times(d.to_dict()) for d in report.diagnoses]
    steps = [_without_times(record.to_dict()) for record in report.steps]
    return diagnoses, steps, _without_times(report.summary or {}), taken[0], queued[0]


@pytest.mark.parametrize("fault", ["nan", "overflow"])
def test_the_device_path_and_the_quiet_path_change_no_answer(
        adapter: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = _run(adapter, fault, tmp_path, monkeypatch, device=False, quiet=True)
    device = _run(adapter, fault, tmp_path, monkeypatch, device=True, quiet=True)
    full = _run(adapter, fault, tmp_path, monkeypatch, device=True, quiet=False)
    assert host[:3] == device[:3] == full[:3]
    code = "AMP006" if fault == "nan" else "AMP003"
    assert (code, FAULT_STEP) in [(d["id"], d["step"]) for d in host[0]]
    assert host[3] >= 10 and device[3] >= 10  # the quiet path took most of the healthy stretch
    assert full[3] == 0
    assert host[4] == 0 and device[4] >= STEPS // 2  # on the device path, steps wait to land
