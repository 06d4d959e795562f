"""torch.compile: the monitor given the compiled wrapper, the original module, or a module
compiled in place. Real fp16 autocast + GradScaler loops (CPU) with dynamo's own counters: no
graph break and no recompile added to a healthy run, and the locator sees inside the compiled
module (its armed step runs eagerly)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
import torch
from locate_models import FAULT_STEP, FEATURES, TinyT5, fp16_step, overflow_block2
from torch._dynamo.utils import counters

from denpex_callbacks import MonitorConfig
from denpex_callbacks.torch import AmpMonitor

GIVEN = ("compiled", "original", "in-place")


@dataclass
class Compiled:
    monitor: AmpMonitor | None
    graph_breaks: int
    graphs: int
    recompiles: int

    def diagnosis(self, code: str) -> Any:
        assert self.monitor is not None
        return next(d for d in self.monitor.diagnoses if d.code == code)


def train(given: str, *, monitor: bool = True, fault: bool = False, steps: int = 8,
          backend: str = "eager") -> Compiled:
    """``given``: what the monitor is handed, the wrapper torch.compile returned, the module
    it wraps, or a module compiled in place (``model.compile()``)."""
    torch._dynamo.reset()
    counters.clear()
    model = TinyT5()
    if given == "in-place":
        model.compile(backend=backend)
        call: torch.nn.Module = model
    else:
        call = torch.compile(model, backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    watched = AmpMonitor(scaler=scaler, optimizer=opt,
                         model=call if given == "compiled" else model,
                         config=MonitorConfig(report_dir=None)) if monitor else None
    gen = torch.Generator().manual_seed(1)
    for step in range(steps):
        x = torch.randn(32, FEATURES, generator=gen)
        y = x[:, :1] * 2.0 + 0.5
        if fault and step == FAULT_STEP:
            overflow_block2(model)
        if watched is not None:
            fp16_step(call, scaler, opt, watched, x, y)
        else:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(call(x).float(), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
    if watched is not None:
        watched.close()
    return Compiled(watched, sum(counters["graph_break"].values()),
                    counters["stats"]["unique_graphs"], sum(counters["recompiles"].values()))


@pytest.mark.parametrize("given", GIVEN)
def test_no_graph_break_and_no_recompile_on_a_healthy_run(given):
    bare, watched = train(given, monitor=False), train(given)
    assert (bare.graph_breaks, bare.graphs, bare.recompiles) == (0, 1, 0)
    assert (watched.graph_breaks, watched.graphs, watched.recompiles) == (0, 1, 0)
    assert watched.monitor is not None
    assert [d for d in watched.monitor.diagnoses if d.severity.rank >= 1] == []


@pytest.mark.parametrize("given", GIVEN)
def test_the_locator_sees_inside_the_compiled_module(given):
    run = train(given, fault=True)
    nan_loss = run.diagnosis("AMP006")
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    # Named without torch.compile's _orig_mod., inside the module, not "every submodule
    # returned finite outputs".
    assert (origin["verdict"], origin["module"]) == ("activation-overflow", "blocks.2.wo")
    assert nan_loss.root_cause.startswith("activation overflow in blocks.2.wo (Linear)")
    assert run.recompiles == 0  # the eager armed step leaves the compiled code as it was
    if given == "compiled":  # captured on the wrapper, outside the graph: re-run in place
        assert nan_loss.evidence["rerun"] == "reproduced"
        assert origin["located_step"] == FAULT_STEP
    else:  # nothing can be captured inside the graph: said, and the next step is located
        assert nan_loss.evidence["rerun"] == "not-rerunnable"
        assert "ran inside torch.compile" in nan_loss.evidence["rerun_reason"]
        assert "give the monitor what torch.compile returned" in (
            nan_loss.evidence["rerun_reason"])
        assert origin["located_step"] == FAULT_STEP + 1


@pytest.mark.slow  # inductor compiles C++ on the CPU: about 40 s on two cores
def test_inductor_compiled_run_is_located_without_graph_breaks():
    healthy = train("compiled", backend="inductor")
    assert (healthy.graph_breaks, healthy.graphs, healthy.recompiles) == (0, 1, 0)
    run = train("compiled", fault=True, backend="inductor")
    nan_loss = run.diagnosis("AMP006")
    assert nan_loss.evidence["rerun"] == "reproduced"
    assert nan_loss.evidence["origin"]["module"] == "blocks.2.wo"
    assert (run.graph_breaks, run.recompiles) == (0, 0)
