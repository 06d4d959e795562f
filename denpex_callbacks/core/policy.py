"""The user's policy on a fault: ``"warn"``, ``"stop"`` or ``"raise"``.

``"stop"`` means the same everywhere: a flag (``Monitor.stop_requested``) that the adapter
turns into its framework's graceful stop after the current step (HF
``control.should_training_stop``, Lightning ``trainer.should_stop``) or that the user's own
loop polls (plain loops and DeepSpeed: ``monitor.should_stop``). ``"raise"`` raises
AmpDiagnosisError from the step where the fault is found, once the locator has amended the
diagnosis (:meth:`denpex_callbacks.core.monitor.Monitor.act`), so the error carries the origin.
"""

from __future__ import annotations

from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis
from denpex_callbacks.core.ordering import counts_as_fault
from denpex_callbacks.core.severity import Severity

__all__ = ["Policy"]


class Policy:
    """Acts on new diagnoses at or above ``fault_level``.

    Args:
        on_fault: One of :data:`denpex_callbacks.core.config.POLICIES`.
        fault_level: Lowest severity acted on.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> p = Policy("stop", Severity.ERROR)
        >>> p.apply([Diagnosis.from_finding(Finding("AMP006", 3, "nan"))])
        >>> p.stop_requested
        True
    """

    def __init__(self, on_fault: str, fault_level: Severity) -> None:
        self.on_fault = on_fault
        self.fault_level = fault_level
        self.stop_requested = False

    def apply(self, diagnoses: list[Diagnosis]) -> None:
        """Request a stop, or raise, when one of ``diagnoses`` is a fault.

        Raises:
            AmpDiagnosisError: Under ``"raise"``.
        """
        if self.on_fault == "warn":
            return
        # A misuse of the monitor itself (its call order) is said, never acted on.
        faults = [d for d in diagnoses if d.severity.rank >= self.fault_level.rank
                  and counts_as_fault(d)]
        if not faults:
            return
        self.stop_requested = True
        if self.on_fault == "raise":
            raise AmpDiagnosisError(faults[0])
