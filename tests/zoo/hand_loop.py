"""The zoo in a hand-written loop, as people write one: plain torch (autocast + GradScaler), an
accelerate loop (``accelerator.prepare``/``backward``) or a Lightning Fabric loop
(``fabric.setup``/``backward``), watched by one AmpMonitor given what the loop holds (every
optimizer, the wrapped objects as they are). A :class:`Loop` says how its framework does each
part; :func:`run` is the one loop."""

from __future__ import annotations

import warnings
from typing import Any

import torch
from scenarios import FAULT_STEP, Scenario
from workload import Data, Outcome, Record, autocast_dtype, build_model, loss_fn, warmup_lambda

from denpex_callbacks.core.diagnosis import AmpDiagnosisError
from denpex_callbacks.torch import AmpMonitor


class Loop:
    """Plain torch: the base every framework's loop changes where it differs."""

    precision: Any = None  # what the loop asked for, where the framework keeps no trace
    hands_scaler = True  # the loop gives AmpMonitor its GradScaler (else found from wrappers)

    def prepare(self, s: Scenario, model: torch.nn.Module, opts: list[Any]
                ) -> tuple[Any, list[Any], Any]:
        """(the model, the optimizers as the loop holds them, the GradScaler or None)."""
        scaled = s.precision in ("fp16", "fp16-weights")
        return model, opts, torch.amp.GradScaler("cpu", **s.scaler) if scaled else None

    def forward(self, s: Scenario, model: Any, x: torch.Tensor) -> torch.Tensor:
        dtype = autocast_dtype(s)
        with torch.autocast("cpu", dtype=dtype or torch.float16, enabled=dtype is not None):
            return model(x)  # type: ignore[no-any-return]

    def backward(self, loss: torch.Tensor, scaler: Any) -> None:
        (scaler.scale(loss) if scaler else loss).backward()

    def step(self, s: Scenario, step: int, model: Any, scaler: Any, opts: list[Any]) -> Any:
        """Clip (when the scenario does), step every optimizer, update the scaler."""
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

    def fresh_scaler(self, s: Scenario, scaler: Any) -> Any:
        """A new GradScaler on resume (its scale back at init)."""
        return torch.amp.GradScaler("cpu", **s.scaler)


def _optimizers(s: Scenario, model: torch.nn.Module) -> list[torch.optim.Optimizer]:
    params = list(model.parameters())
    groups = [params] if s.optimizers == 1 else [params[: len(params) // 2],
                                                  params[len(params) // 2:]]
    return [torch.optim.SGD(g, lr=s.lr, momentum=0.9) for g in groups]


def run(loop: Loop, s: Scenario) -> Outcome:
    """Train ``s`` for ``s.steps`` optimizer steps; the record is read with syncs (test side)."""
    data, compute = Data(), loss_fn(s)
    model = build_model(s)
    if s.compiled:
        model = torch.compile(model, backend="eager")
    opts = _optimizers(s, model)
    scheds = [torch.optim.lr_scheduler.LambdaLR(o, warmup_lambda(s)) for o in opts]
    model, held, scaler = loop.prepare(s, model, opts)

    def new_monitor(state: dict[str, Any] | None) -> AmpMonitor:
        # The scaler only where the loop holds one itself (a framework's is found from its
        # optimizer wrapper); every optimizer, as the loop holds them.
        monitor = AmpMonitor(scaler=scaler if loop.hands_scaler else None,
                             optimizer=held, model=model, report_dir=None, on_fault="warn",
                             precision=loop.precision)
        if state is not None:
            monitor.load_state_dict(state)
        return monitor

    monitor = new_monitor(None)
    record, diagnoses = Record(), []
    error: BaseException | None = None
    def get_scale() -> float | None:
        return float(scaler.get_scale()) if scaler is not None else None

    try:
        for step in range(s.steps):
            if s.resume_at is not None and step == s.resume_at:
                state = monitor.state_dict()
                monitor.close()
                diagnoses += monitor.diagnoses
                if s.fresh_scaler and scaler is not None:
                    scaler = loop.fresh_scaler(s, scaler)
                monitor = new_monitor(state)
                diagnoses = []  # the resumed monitor holds the history
            total = torch.zeros(())
            for micro in range(s.accumulation):
                x, y = data.batch(s, step, micro)
                if s.precision == "fp16-weights":
                    x = x.half()
                loss = compute(loop.forward(s, model, x), y) / s.accumulation
                total = total + loss.detach()
                loop.backward(loss, scaler)
            before = get_scale()
            norm = loop.step(s, step, model, scaler, held)
            after = get_scale()
            for o in held:
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
