"""Plain PyTorch: a bare autocast + GradScaler loop, with ``AmpMonitor`` as variant b.

Variant d is torch's own heavy check, anomaly mode (``torch.autograd.set_detect_anomaly``),
which is what Lightning's ``detect_anomaly=True`` turns on.
"""

from __future__ import annotations

import torch

from benchmarks.frameworks.base import DENPEX, HEAVY, NAIVE, RunResult, RunSpec, finish
from denpex_callbacks.core.config import build_config
from denpex_callbacks.torch import AmpMonitor

VARIANTS = ("a", "b", "c", "d")
HEAVY_OPTION = "torch.autograd.set_detect_anomaly(True)"
FIRST_STEP = 0  # AmpMonitor counts its calls from 0
WATCHED_HOOKS = ("AmpMonitor.step, its GradScaler method wrappers (without torch's own calls), "
                 "its optimizer step pre-hook and the re-run capture's forward pre-hook")
SCALER_METHODS = ("scale", "unscale_", "step", "update")


def run(spec: RunSpec) -> RunResult:
    """Train ``spec.workload`` for ``spec.steps`` steps in a hand-written fp16 loop."""
    device = spec.device
    model = spec.workload.model().to(device)
    model.inject(spec.fault, spec.fault_step)
    optimizer = spec.workload.optimizer(model.parameters())
    scaler = torch.amp.GradScaler(device, init_scale=spec.init_scale)
    batches = spec.workload.batches(spec.steps, device)
    monitor = None
    with spec.watching_captures():  # the capture hook attach() registers is timed too
        if spec.variant == DENPEX:
            config = build_config(report_dir=spec.report_dir, **spec.denpex_options)
            monitor = AmpMonitor(config=config)
            # Its hooks are watched before attach() registers them; torch's own scaler
            # methods are excluded before the monitor wraps them.
            spec.syncs.watch(monitor, ["step", "_on_forward"])
            spec.syncs.watch(monitor.protocol, ["_on_optimizer_step"])
            spec.syncs.exclude(scaler, SCALER_METHODS)
            monitor.attach(scaler, optimizer, model)
            spec.syncs.watch(scaler, SCALER_METHODS)
        with spec.counting(captures=False), torch.autograd.set_detect_anomaly(
                spec.variant == HEAVY):
            for batch in batches:
                with torch.autocast(device, dtype=torch.float16):
                    loss = model(**batch)["loss"]
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
                if monitor is not None:
                    monitor.step(loss)
                elif spec.variant == NAIVE:
                    scaler.get_scale()
                    float(loss.detach())
                spec.clock.tick()
    if monitor is None:
        return finish(spec)
    monitor.close()
    return finish(spec, monitor.diagnoses, FIRST_STEP)
