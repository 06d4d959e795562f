"""The GradScaler protocol of a plain loop, diagnosed before torch's own error ends the run.

torch raises on some protocol breaks (``step()`` twice without ``update()``, ``update()``
without ``step()``, fp16 gradients to unscale) and says nothing about others (an optimizer
stepped around the scaler, ``update()`` never called). :class:`ScalerProtocol` hears the
scaler's calls from its reader (:class:`~denpex_callbacks.readers.grad_scaler.GradScalerReader`)
and each ``optimizer.step()`` from the loop's optimizer pre-hook, so that an AMP002/AMP012
diagnosis is written *before* torch's RuntimeError ends the run: where torch checks, its error
is caught, the state (which torch leaves as it was) read and the diagnosis reported, and the
error goes on unchanged.
Where the loop calls ``monitor.step()`` is no protocol matter: the reader takes each step's
reading at ``update()`` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.integrations.torch_steps import LoopSteps
from denpex_callbacks.readers.grad_scaler import GradScalerReader, optimizer_has_fp16_params

__all__ = ["ScalerProtocol"]


class ScalerProtocol:
    """Protocol checks around one GradScaler and its optimizers.

    Args:
        reader: The scaler's reader; the protocol hears its calls from now on.
        report: Reports a finding (the monitor's flag); runs under the pipeline's guard.
        steps: The loop's steps: the step a finding names (the current optimizer step, or
            that of a ``monitor.step()`` call that came after ``scaler.step()`` and waits for
            its ``update()``).
    """

    def __init__(self, reader: GradScalerReader, report: Callable[[Finding], Any],
                 steps: LoopSteps) -> None:
        self.reader = reader
        self.report = report
        self.steps = steps
        reader.observer = self

    # -- what the reader tells (ScalerObserver) --------------------------------------------------

    def call_failed(self, name: str, optimizer: Any) -> None:
        finding = {"unscale_": self._unscale_failed, "step": self._step_failed,
                   "update": self._update_failed}.get(name, lambda _opt: None)(optimizer)
        if finding is not None:
            self.report(finding)

    # -- the checks (when torch's own raised: its state is as it was before the call) -----------

    def _protocol(self, what: str, evidence: dict[str, Any], step: int | None = None) -> Finding:
        return Finding("AMP002", self.steps.next if step is None else step, what,
                       evidence={"call": what, **evidence})

    def _unscale_failed(self, optimizer: Any) -> Finding | None:
        stage = self.reader.stage(optimizer)
        if stage == "UNSCALED":
            return self._protocol("unscale_() called twice for this optimizer before update()",
                                  {"stage": stage})
        if stage == "STEPPED":
            return self._protocol("unscale_() called after step() and before update()",
                                  {"stage": stage})
        if optimizer_has_fp16_params(optimizer):
            return Finding(
                "AMP012", self.steps.next,
                "the optimizer holds float16 gradients; GradScaler.unscale_() raises "
                "'Attempting to unscale FP16 gradients.'",
                evidence={"fp16_parameters": True},
            )
        return None

    def _step_failed(self, optimizer: Any) -> Finding | None:
        if self.reader.stage(optimizer) != "STEPPED":
            return None
        held = self.steps.held_number()
        if held is not None:  # the iteration monitor.step() closed never reached update()
            return self._protocol(
                "scaler.step() ran but scaler.update() was not called in that iteration: the "
                "scale never adapts and the next scaler.step() raises",
                {"call": "update() missing", "stage": "STEPPED"}, step=held)
        return self._protocol("scaler.step() called twice without scaler.update() between",
                              {"stage": "STEPPED"})

    def _update_failed(self, optimizer: Any) -> Finding | None:
        if self.reader.inf_checks_recorded():
            return None  # an inf check was recorded: not the order's fault
        return self._protocol(
            "scaler.update() called without scaler.step()/unscale_() in this iteration "
            "(torch: 'No inf checks were recorded prior to update.')",
            {"optimizers_seen": self.reader.optimizers_seen()},
        )

    def update_never_came(self) -> Finding | None:
        """At close: a ``monitor.step()`` waited for the ``update()`` of its ``scaler.step()``
        and the loop ended without one: it was missing, not merely later."""
        held = self.steps.held_number()
        if held is None or not self.reader.stepped:
            return None
        return self._protocol(
            "scaler.step() ran but scaler.update() was never called after it: the scale never "
            "adapts (and a next scaler.step() would raise)",
            {"call": "update() missing", "stage": "STEPPED"}, step=held)

    def optimizer_stepping(self, optimizer: Any) -> None:
        """An ``optimizer.step()`` begins (the loop's pre-hook): a protocol break when it is
        called around the scaler, on gradients the scaler scaled."""
        reader = self.reader
        if reader.in_step or not reader.scaled:
            return
        stage = reader.stage(optimizer)
        if stage == "UNSCALED":
            what = ("optimizer.step() called directly after unscale_() (not through "
                    "scaler.step()): steps with inf/NaN gradients are applied instead of skipped")
        else:
            what = ("optimizer.step() called directly on scaled gradients (not through "
                    "scaler.step()): every update is multiplied by the loss scale")
        self.report(self._protocol(what, {"stage": stage}))
