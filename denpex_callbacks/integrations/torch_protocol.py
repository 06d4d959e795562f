"""The GradScaler protocol of a plain loop, diagnosed before torch's own error ends the run.

torch raises on some protocol breaks (``step()`` twice without ``update()``, ``update()``
without ``step()``, fp16 gradients to unscale) and says nothing about others (an optimizer
stepped around the scaler, ``update()`` never called). :class:`ScalerProtocol` wraps the
GradScaler's methods (instance attributes: GradScaler has no hooks of its own in torch 2.13;
the class is untouched and :meth:`ScalerProtocol.close` removes them) and registers the
optimizer's public step pre-hook, so that an AMP002/AMP012 diagnosis is written *before*
torch's RuntimeError ends the run: where torch checks, its error is caught, the state (which
torch leaves as it was) read and the diagnosis reported, and the error goes on unchanged; a
healthy call costs a flag or two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.integrations.pipeline import StepPipeline
from denpex_callbacks.readers.grad_scaler import (
    STEPPED,
    UNSCALED,
    optimizer_has_fp16_params,
    optimizer_stage,
    scaler_enabled,
)

__all__ = ["SCALER_METHODS", "ScalerProtocol"]

SCALER_METHODS = ("scale", "unscale_", "step", "update")


class ScalerProtocol:
    """Protocol checks around one GradScaler and its optimizer.

    Args:
        pipeline: Where findings go (guarded: an internal error turns monitoring off).
        report: Reports a finding at the current call (the monitor's ``_flag``).
        calls: The number of ``monitor.step()`` calls so far (the step a finding names).
    """

    def __init__(self, pipeline: StepPipeline, report: Callable[[Finding | None, int], Any],
                 calls: Callable[[], int]) -> None:
        self.pipeline = pipeline
        self.report = report
        self.calls = calls
        self.scaler: Any = None
        self.optimizer: Any = None
        self.scaled_since_update = False
        self.monitored_before_update: int | None = None  # monitor.step() before update()
        self.in_scaler_step = False
        # scaler.step() ran and update() has not yet: monitor.step() must check the protocol
        # (check_update_called) instead of taking the quiet way.
        self.awaiting_update = False
        self.wrapped: list[str] = []
        self.hooks: list[Any] = []

    # -- attaching -------------------------------------------------------------------------------

    def wrap_scaler(self, scaler: Any) -> None:
        """Watch each of ``scaler``'s protocol calls (a diagnosis before torch's error goes on)."""
        self.scaler = scaler
        for name in SCALER_METHODS:
            original = getattr(scaler, name)
            wrapper = getattr(self, f"_wrapped_{name}")(original)
            wrapper.__wrapped__ = original
            scaler.__dict__[name] = wrapper
            self.wrapped.append(name)

    def watch_optimizer(self, optimizer: Any) -> None:
        """Notice ``optimizer.step()`` called around the scaler (its public pre-hook)."""
        self.optimizer = optimizer
        if hasattr(optimizer, "register_step_pre_hook"):
            self.hooks.append(optimizer.register_step_pre_hook(self._on_optimizer_step))

    def close(self) -> None:
        """Remove the wrappers and the hook."""
        for hook in self.hooks:
            hook.remove()
        self.hooks.clear()
        for name in self.wrapped:
            self.scaler.__dict__.pop(name, None)
        self.wrapped.clear()

    # -- the wrappers: one per method, each as short as its check allows (every iteration
    # calls each once; a frame or a call into torch costs a microsecond or more there) --------

    def _wrapped_scale(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def watched_scale(*args: Any, **kwargs: Any) -> Any:
            self.scaled_since_update = True  # (nothing to check: nothing can fail here)
            return original(*args, **kwargs)

        return watched_scale

    # torch checks the protocol itself and raises before it changes any state: the wrappers
    # read the state only then, in their except block, and report before torch's error goes
    # on (no lookup on a healthy call). Only what torch lets pass is tracked on every call.

    def _wrapped_unscale_(self, original: Callable[..., Any]) -> Callable[..., Any]:
        monitor = self.pipeline.monitor

        def watched_unscale_(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return original(optimizer, *args, **kwargs)
            except Exception:  # twice, after step(), or fp16 gradients (AMP012)
                if not monitor.disabled:
                    self._check(self._unscale_failed, optimizer)
                raise

        return watched_unscale_

    def _wrapped_step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        monitor = self.pipeline.monitor

        def watched_step(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            self.in_scaler_step = True
            try:
                result = original(optimizer, *args, **kwargs)
            except Exception:  # twice without update(), or its unscale_() failed
                self.in_scaler_step = False
                if not monitor.disabled:
                    self._check(self._step_failed, optimizer)
                raise
            self.in_scaler_step = False
            self.awaiting_update = True
            return result

        return watched_step

    def _wrapped_update(self, original: Callable[..., Any]) -> Callable[..., Any]:
        monitor = self.pipeline.monitor

        def watched_update(*args: Any, **kwargs: Any) -> Any:
            self.scaled_since_update = False
            if self.monitored_before_update is not None and not monitor.disabled:
                self._check(self._monitor_misuse)  # (torch lets it pass: a warning)
            try:
                result = original(*args, **kwargs)
            except Exception:  # no inf check recorded: no step() or unscale_() before
                if not monitor.disabled:
                    self._check(self._update_failed)
                raise
            self.awaiting_update = False
            return result

        return watched_update

    def _check(self, check: Callable[..., Finding | None], *args: Any) -> None:
        """Run one protocol check under the pipeline's guard and report what it finds."""
        try:
            finding = check(*args)
        except Exception:
            self.pipeline.fail()  # logged once, monitoring off, training goes on
            return
        if finding is not None:
            self.report(finding, self.calls())

    # -- the checks (when torch's own raised: its state is as it was before the call) -----------

    def _protocol(self, what: str, evidence: dict[str, Any]) -> Finding:
        return Finding("AMP002", self.calls(), what, evidence={"call": what, **evidence})

    def _unscale_failed(self, optimizer: Any) -> Finding | None:
        state = self.scaler._per_optimizer_states.get(id(optimizer))  # (.get: a defaultdict)
        stage = state["stage"] if state else None
        if stage is UNSCALED:
            return self._protocol("unscale_() called twice for this optimizer before update()",
                                  {"stage": "UNSCALED"})
        if stage is STEPPED:
            return self._protocol("unscale_() called after step() and before update()",
                                  {"stage": "STEPPED"})
        if optimizer_has_fp16_params(optimizer):
            return Finding(
                "AMP012", self.calls(),
                "the optimizer holds float16 gradients; GradScaler.unscale_() raises "
                "'Attempting to unscale FP16 gradients.'",
                evidence={"fp16_parameters": True},
            )
        return None

    def _step_failed(self, optimizer: Any) -> Finding | None:
        state = self.scaler._per_optimizer_states.get(id(optimizer))
        if not state or state["stage"] is not STEPPED:
            return None
        missed, self.monitored_before_update = self.monitored_before_update, None
        if missed is not None:  # the iteration monitor.step() closed never reached update()
            return Finding(
                "AMP002", missed,
                "scaler.step() ran but scaler.update() was not called in that iteration: the "
                "scale never adapts and the next scaler.step() raises",
                evidence={"call": "update() missing", "stage": "STEPPED"},
            )
        return self._protocol("scaler.step() called twice without scaler.update() between",
                              {"stage": "STEPPED"})

    def _update_failed(self) -> Finding | None:
        # (a monitor.step() before it was told by the wrapper, before torch's update() ran)
        for state in self.scaler._per_optimizer_states.values():
            if state.get("found_inf_per_device"):
                return None  # an inf check was recorded: torch's update() can run
        return self._protocol(
            "scaler.update() called without scaler.step()/unscale_() in this iteration "
            "(torch: 'No inf checks were recorded prior to update.')",
            {"optimizers_seen": len(self.scaler._per_optimizer_states)},
        )

    def check_update_called(self, step: int) -> None:
        """At ``monitor.step()``: note a ``scaler.step()`` that ``update()`` has not followed.

        Either the loop forgot ``update()`` (the next ``scaler.step()`` says so, as an error)
        or it calls ``update()`` after ``monitor.step()``: a misuse of the monitor, not of the
        scaler, told when ``update()`` comes (a warning).
        """
        if self.optimizer is not None and optimizer_stage(self.scaler, self.optimizer) == (
            "STEPPED"
        ):
            self.monitored_before_update = step

    def update_never_came(self) -> Finding | None:
        """At close: the last ``monitor.step()`` saw ``scaler.step()`` without ``update()``
        and the loop ended before any ``update()``: it was missing, not merely later."""
        missed, self.monitored_before_update = self.monitored_before_update, None
        if missed is None or optimizer_stage(self.scaler, self.optimizer) != "STEPPED":
            return None
        return Finding(
            "AMP002", missed,
            "scaler.step() ran but scaler.update() was never called after it: the scale never "
            "adapts (and a next scaler.step() would raise)",
            evidence={"call": "update() missing", "stage": "STEPPED"},
        )

    def _monitor_misuse(self) -> Finding | None:
        step, self.monitored_before_update = self.monitored_before_update, None
        if step is None:
            return None
        return Finding(
            "AMP002", step,
            "monitor.step() was called before scaler.update(): the loop itself is correct, "
            "the monitor is called too early (it reads the scale before the update)",
            evidence={"call": "monitor.step() before update()", "monitor_misuse": True},
            severity=Severity.WARNING,
            root_cause="a misuse of the denpex monitor, not of the GradScaler: monitor.step() "
                       "runs between scaler.step() and scaler.update().",
            fix="Call monitor.step(loss) after scaler.update(), once per iteration.",
        )

    def _on_optimizer_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.in_scaler_step or not self.scaled_since_update:
            return
        if not scaler_enabled(self.scaler):
            return
        if optimizer_stage(self.scaler, optimizer) == "UNSCALED":
            what = ("optimizer.step() called directly after unscale_() (not through "
                    "scaler.step()): steps with inf/NaN gradients are applied instead of skipped")
        else:
            what = ("optimizer.step() called directly on scaled gradients (not through "
                    "scaler.step()): every update is multiplied by the loss scale")
        finding = self._protocol(what, {"stage": optimizer_stage(self.scaler, optimizer)})
        self.report(finding, self.calls())
