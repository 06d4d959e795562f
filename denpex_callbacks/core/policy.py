"""The user's policy on a fault: ``"warn"``, ``"stop"`` or ``"raise"``.

``"stop"`` means the same everywhere: a flag (``Monitor.stop_requested``) that the adapter
turns into its framework's graceful stop after the current step (HF
``control.should_training_stop``, Lightning ``trainer.should_stop``) or that the user's own
loop polls (plain loops and DeepSpeed: ``monitor.should_stop``). ``"raise"`` raises
AmpDiagnosisError from the step where the fault is found, once the locator has amended the
diagnosis (:meth:`denpex_callbacks.core.monitor.Monitor.act`), so the error carries the origin.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis
from denpex_callbacks.core.ordering import counts_as_fault
from denpex_callbacks.core.severity import Severity

__all__ = ["Policy", "StopDecision", "StopVote"]

StopVote = Callable[[bool], bool]
"""One rank's wish to stop in, the ranks' joint decision (any rank wants it) out."""


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


class StopDecision:
    """Whether to stop after a step under ``on_fault="stop"``: this rank's wish, agreed over
    ranks by the framework's reduce (every rank must ask at every step: a rank that skipped
    the collective would hang the others), so the run stops after the same step everywhere;
    announced once, and stopped from then on (:attr:`decided`). The vote is the adapter's
    (Lightning's ``reduce_boolean_decision``, an all_reduce over ``torch.distributed``
    elsewhere); the engine enters no collective itself.

    Example:
        >>> decision = StopDecision(True, rank=0, world_size=1, logger=logging.getLogger("x"))
        >>> decision.decide(False, None, 3), decision.decide(True, None, 4), decision.decided
        (False, True, True)
    """

    def __init__(self, stopping: bool, rank: int, world_size: int,
                 logger: logging.Logger) -> None:
        self.stopping, self.rank, self.world_size, self.logger = (
            stopping, rank, world_size, logger)
        self.decided = False  # the ranks decided to stop (it stays decided)

    def decide(self, wanted: bool, vote: StopVote | None, step: int | None) -> bool:
        """The ranks' joint decision on this rank's wish (``vote``: None for a single rank)."""
        if not self.stopping:
            return False
        decided = vote(wanted) if vote is not None and self.world_size > 1 else wanted
        if decided and not self.decided:
            self.decided = True
            if wanted or self.rank == 0:
                self.logger.warning(
                    "denpex: stopping training after step %s (on_fault='stop', diagnosis on %s)",
                    step, f"rank {self.rank}" if wanted else "another rank")
        return self.decided
