"""HF Trainer with ``torch_compile=True`` on CPU: callbacks are given the module inside the
torch.compile wrapper; the callback finds the wrapper the Trainer trains through, so a failing
step is re-run and located (was: "give the monitor what torch.compile returned", which an HF
user cannot do), without a graph break or a recompile of its own; evaluation (which HF runs
uncompiled) is watched as well."""

from __future__ import annotations

import math
import os
from typing import Any

import pytest
import torch

from denpex_callbacks.hf import AmpDiagnosticCallback

dynamo = pytest.importorskip("torch._dynamo")
from torch._dynamo.utils import counters  # noqa: E402

INF_SAMPLE = 29  # in the 4th batch of 8 (sequential sampling): step 4


@pytest.fixture(autouse=True)
def _compile_stays_in_its_test() -> Any:
    """``TrainingArguments(torch_compile=True)`` sets ``ACCELERATE_DYNAMO_BACKEND`` in
    ``os.environ`` (transformers 4.x; 5.x only with accelerate < 1.2): every Trainer built
    after it in the process trains compiled (seen with 4.50: a later test's ``model_wrapped``
    an ``OptimizedModule``), and accelerate's process-global state keeps the dynamo plugin
    it was first built with; each test here gives both back."""
    from accelerate.state import AcceleratorState, GradientState

    names = ("ACCELERATE_DYNAMO_BACKEND", "ACCELERATE_DYNAMO_MODE")
    before = {name: os.environ.get(name) for name in names}
    yield
    for name, value in before.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
    dynamo.reset()


class TwoLayer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin, self.out = torch.nn.Linear(8, 16), torch.nn.Linear(16, 1)

    def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
        out = self.out(torch.relu(self.lin(x))).squeeze(-1)
        return {"loss": ((out.float() - labels) ** 2).mean(), "logits": out}


def compiled_run(hf: Any, *, callback: bool, bad: tuple[int, ...] = (),
                 eval_bad: tuple[int, ...] | None = None, backend: str = "eager") -> Any:
    dynamo.reset()
    counters.clear()
    torch.manual_seed(0)
    trainer = hf.trainer(
        model=TwoLayer(), steps=8, fp16_scaler={}, torch_compile=True,
        torch_compile_backend=backend, in_order=True,
        callback=AmpDiagnosticCallback(report_dir=None) if callback else None,
        eval_dataset=None if eval_bad is None else hf.RandomRegression(
            16, seed=1, nonfinite_at=eval_bad, value=math.inf),
        eval_strategy="no" if eval_bad is None else "steps", eval_steps=4,
        per_device_eval_batch_size=4)
    if not callback:
        trainer.callback_handler.callbacks[:] = [
            c for c in trainer.callback_handler.callbacks
            if not isinstance(c, AmpDiagnosticCallback)]
    trainer.train_dataset = hf.RandomRegression(64, nonfinite_at=bad, value=math.inf)
    trainer.train()
    assert type(trainer.model_wrapped).__name__ == "OptimizedModule"
    return trainer


def test_a_failing_compiled_step_is_rerun_and_located(hf):
    trainer = compiled_run(hf, callback=True, bad=(INF_SAMPLE,))
    assert dict(counters["graph_break"]) == {}
    found = hf.first(hf.monitor_of(trainer), "AMP006")
    assert found.step == 4
    assert found.evidence["rerun"] == "reproduced"
    origin = found.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["compiled"]) == (
        "input-data", 4, True)
    assert "torch.compile returned" not in found.summary


def test_the_callback_adds_no_compiled_frame_and_no_graph_break(hf):
    compiled_run(hf, callback=False)
    without = dict(counters["frames"])
    trainer = compiled_run(hf, callback=True)
    assert dict(counters["frames"]) == without
    assert dict(counters["graph_break"]) == {}
    assert hf.fault_codes(hf.monitor_of(trainer)) == []


def test_evaluation_of_a_compiled_model_is_watched(hf):
    trainer = compiled_run(hf, callback=True, eval_bad=(2,))
    assert hf.fault_codes(hf.monitor_of(trainer)) == ["AMP013"]
    assert hf.first(hf.monitor_of(trainer), "AMP013").step == 4


@pytest.mark.slow
def test_with_inductor_a_failing_step_is_rerun_and_located(hf):
    # Inductor builds C++ kernels with the machine's compiler (g++ here): slow on 2 cores.
    trainer = compiled_run(hf, callback=True, bad=(INF_SAMPLE,), backend="inductor")
    found = hf.first(hf.monitor_of(trainer), "AMP006")
    assert (found.step, found.evidence["rerun"]) == (4, "reproduced")
