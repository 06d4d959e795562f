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
from denpex_callbacks.readers.grad_scaler import GradScalerReader, optimizer_has_fp16_params

__all__ = ["ScalerProtocol"]


class ScalerProtocol:
    """Protocol checks around one GradScaler and its optimizers.

    Args:
        report: Reports a finding (the monitor's flag); runs under the pipeline's guard.
        step_now: The step a finding names (the loop's current optimizer step).
        held_step: The step of a ``monitor.step()`` call that came after ``scaler.step()``
            and waits for its ``update()`` (None: none waits).
    """

    def __init__(self, report: Callable[[Finding], Any], step_now: Callable[[], int],
                 held_step: Callable[[], int | None]) -> None:
        self.report = report
        self.step_now = step_now
        self.held_step = held_step
        self.reader: GradScalerReader | None = None

    def watch(self, reader: GradScalerReader) -> None:
        """Hear ``reader``'s scaler calls."""
        self.reader = reader
        reader.observer = self

    # -- what the reader tells (ScalerObserver) --------------------------------------------------

    def call_failed(self, name: str, optimizer: Any) -> None:
        finding = {"unscale_": self._unscale_failed, "step": self._step_failed,
                   "update": self._update_failed}.get(name, lambda _opt: None)(optimizer)
        if finding is not None:
            self.report(finding)

    # -- the checks (when torch's own raised: its state is as it was before the call) -----------

    def _protocol(self, what: str, evidence: dict[str, Any], step: int | None = None) -> Finding:
        return Finding("AMP002", self.step_now() if step is None else step, what,
                       evidence={"call": what, **evidence})

    def _stage(self, optimizer: Any) -> str | None:
        return self.reader.stage(optimizer) if self.reader is not None else None

    def _unscale_failed(self, optimizer: Any) -> Finding | None:
        stage = self._stage(optimizer)
        if stage == "UNSCALED":
            return self._protocol("unscale_() called twice for this optimizer before update()",
                                  {"stage": stage})
        if stage == "STEPPED":
            return self._protocol("unscale_() called after step() and before update()",
                                  {"stage": stage})
        if optimizer_has_fp16_params(optimizer):
            return Finding(
                "AMP012", self.step_now(),
                "the optimizer holds float16 gradients; GradScaler.unscale_() raises "
                "'Attempting to unscale FP16 gradients.'",
                evidence={"fp16_parameters": True},
            )
        return None

    def _step_failed(self, optimizer: Any) -> Finding | None:
        if self._stage(optimizer) != "STEPPED":
            return None
        held = self.held_step()
        if held is not None:  # the iteration monitor.step() closed never reached update()
            return self._protocol(
                "scaler.step() ran but scaler.update() was not called in that iteration: the "
                "scale never adapts and the next scaler.step() raises",
                {"call": "update() missing", "stage": "STEPPED"}, step=held)
        return self._protocol("scaler.step() called twice without scaler.update() between",
                              {"stage": "STEPPED"})

    def _update_failed(self, optimizer: Any) -> Finding | None:
        reader = self.reader
        if reader is None or reader.inf_checks_recorded():
            return None  # an inf check was recorded: not the order's fault
        return self._protocol(
            "scaler.update() called without scaler.step()/unscale_() in this iteration "
            "(torch: 'No inf checks were recorded prior to update.')",
            {"optimizers_seen": reader.optimizers_seen()},
        )

    def update_never_came(self) -> Finding | None:
        """At close: a ``monitor.step()`` waited for the ``update()`` of its ``scaler.step()``
        and the loop ended without one: it was missing, not merely later."""
        held, reader = self.held_step(), self.reader
        if held is None or reader is None or not reader.stepped:
            return None
        return self._protocol(
            "scaler.step() ran but scaler.update() was never called after it: the scale never "
            "adapts (and a next scaler.step() would raise)",
            {"call": "update() missing", "stage": "STEPPED"}, step=held)

    def optimizer_stepping(self, optimizer: Any) -> None:
        """An ``optimizer.step()`` begins (the loop's pre-hook): a protocol break when it is
        called around the scaler, on gradients the scaler scaled."""
        reader = self.reader
        if reader is None or reader.in_step or not reader.scaled:
            return
        stage = self._stage(optimizer)
        if stage == "UNSCALED":
            what = ("optimizer.step() called directly after unscale_() (not through "
                    "scaler.step()): steps with inf/NaN gradients are applied instead of skipped")
        else:
            what = ("optimizer.step() called directly on scaled gradients (not through "
                    "scaler.step()): every update is multiplied by the loss scale")
        self.report(self._protocol(what, {"stage": stage}))
