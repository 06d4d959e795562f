"""The zoo in a hand-written loop: torch.autocast + GradScaler, watched by AmpMonitor."""

from __future__ import annotations

import warnings
from typing import Any

import torch
from scenarios import FAULT_STEP, Scenario
from workload import Data, Outcome, Record, autocast_dtype, build_model, loss_fn, warmup_lambda

from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.torch import AmpMonitor

STEP_OFFSET = 0  # AmpMonitor counts its calls from 0


def _optimizers(s: Scenario, model: torch.nn.Module) -> list[torch.optim.Optimizer]:
    params = list(model.parameters())
    groups = [params] if s.optimizers == 1 else [params[: len(params) // 2],
                                                  params[len(params) // 2:]]
    return [torch.optim.SGD(g, lr=s.lr, momentum=0.9) for g in groups]


def _new_monitor(scaler: Any, opt: Any, model: Any, state: dict[str, Any] | None) -> AmpMonitor:
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None,
                         on_fault="warn")
    if state is not None:
        monitor.load_state_dict(state)
    return monitor


def run(s: Scenario) -> Outcome:
    """Train ``s`` for ``s.steps`` optimizer steps; the record is read with syncs (test side)."""
    model, data, compute = build_model(s), Data(), loss_fn(s)
    if s.compiled:
        model = torch.compile(model, backend="eager")
    opts = _optimizers(s, model)
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, warmup_lambda(s)) for o in opts]
    scaled = s.precision in ("fp16", "fp16-weights")
    scaler = torch.amp.GradScaler("cpu", **s.scaler) if scaled else None
    monitor = _new_monitor(scaler, opts[0], model, None)
    dtype, record, diagnoses = autocast_dtype(s), Record(), []
    error: BaseException | None = None
    try:
        for step in range(s.steps):
            if s.resume_at is not None and step == s.resume_at:
                state = monitor.state_dict()
                monitor.close()
                diagnoses += monitor.diagnoses
                if s.fresh_scaler and scaler is not None:
                    scaler = torch.amp.GradScaler("cpu", **s.scaler)
                monitor = _new_monitor(scaler, opts[0], model, state)
                diagnoses = []  # the resumed monitor holds the history
            total = torch.zeros(())
            for micro in range(s.accumulation):
                x, y = data.batch(s, step, micro)
                if s.precision == "fp16-weights":
                    x = x.half()
                with torch.autocast("cpu", dtype=dtype or torch.float16, enabled=dtype is not None):
                    out = model(x)
                loss = compute(out, y) / s.accumulation
                total = total + loss.detach()
                (scaler.scale(loss) if scaler else loss).backward()
            before = scaler.get_scale() if scaler else None
            norm = _step(s, step, scaler, opts)
            after = scaler.get_scale() if scaler else None
            for o in opts:
                o.zero_grad()
            with warnings.catch_warnings():  # a skipped step: the scheduler runs regardless
                warnings.simplefilter("ignore", UserWarning)
                for sched in scheds:
                    sched.step()
            record.add(float(total), before is not None and after is not None and after < before)
            monitor.step(total, grad_norm=norm)
    except AmpDiagnosisError as exc:  # only under on_fault="raise"
        error = exc
    except (RuntimeError, AssertionError, ValueError) as exc:  # torch refusing a mistake
        error = exc
    finally:
        monitor.close()
    return Outcome(diagnoses + monitor.diagnoses, record, error)


def _step(s: Scenario, step: int, scaler: Any, opts: list[torch.optim.Optimizer]) -> Any:
    norm = None
    if s.clip is not None:
        for o in opts:
            if scaler:
                scaler.unscale_(o)
        params = [p for o in opts for g in o.param_groups for p in g["params"]]
        norm = torch.nn.utils.clip_grad_norm_(params, s.clip)
    faulty = s.protocol is not None and step >= FAULT_STEP
    if scaler is None:
        for o in opts:
            o.step()
        return norm
    if faulty and s.protocol == "direct-step":
        for o in opts:
            o.step()
        scaler.update()
        return norm
    for o in opts:
        scaler.step(o)
        if faulty and s.protocol == "double-step":
            scaler.step(o)
    if not (faulty and s.protocol == "no-update"):
        scaler.update()
    return norm
