"""The one pipeline under every framework adapter.

An adapter wires its framework's hooks and reads what only it can read (where the scale is,
the loss, the step number); everything after that is :class:`StepPipeline`'s:

    snapshot -> deferred read -> Observation -> Monitor (engine) -> sinks -> locate -> guard
    -> policy -> close

plus the rules every adapter shares, once each: the report folder, rank discovery, printing
per rank and the stop vote (:mod:`denpex_callbacks.integrations.run_rules`, re-exported here;
:meth:`StepPipeline.decide_stop`: with several ranks every rank votes at every optimizer step,
a rank that skipped the collective would hang the others, and the run stops after the same
step everywhere), and:

- **the hot path**: most steps are quiet; an adapter that can read a step's numbers on the host
  at once hands them to :attr:`StepPipeline.take_quiet` (or :meth:`StepPipeline.step` does it
  from the values): no values dict, no Observation, no finished capture for that step, and the
  same findings at the same steps as the full way (``tests/integrations/test_hot_path.py``).
- **configuration**: every adapter takes the same keyword options, merged by
  :func:`denpex_callbacks.core.config.build_config` (bad values: ValueError, unknown names:
  TypeError).
- **guard**: an internal error is logged once, monitoring switches off, training continues;
  only the user's policy (AmpDiagnosisError under ``"raise"``) reaches training.
- **alerts** (:func:`denpex_callbacks.core.alerts.sink.attach_alerts`): the ``alert_*`` options
  or the environment (``DENPEX_ALERT_WEBHOOK``...) add the alert sink, which alerts what this
  rank prints (the printing rule); :meth:`StepPipeline.close` waits a bounded time for
  alerts still queued.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from denpex_callbacks.core.alerts.sink import AlertSink, attach_alerts
from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.integrations.run_rules import (
    OUTPUT_DIR_FIELD,
    PER_RANK_CODES,
    StopVote,
    all_reduce_vote,
    printed_on_rank,
    rank_and_world,
    resolve_report_dir,
)
from denpex_callbacks.locate.on_fault import LocateOnFault
from denpex_callbacks.readers.deferred import DeferredValues
from denpex_callbacks.readers.step_values import host_numbers, observation_from_values

__all__ = [
    "OUTPUT_DIR_FIELD",
    "PER_RANK_CODES",
    "StepPipeline",
    "StopVote",
    "all_reduce_vote",
    "host_numbers",
    "printed_on_rank",
    "rank_and_world",
    "resolve_report_dir",
]


class StepPipeline:
    """One rank's path from a framework's optimizer step to diagnoses, reports and the policy.

    Args:
        config: The merged configuration (``report_dir`` as the user gave it).
        framework: ``torch``, ``hf``, ``lightning`` or ``deepspeed``.
        logger: The framework's logger for diagnosis lines.
        output_dir: The framework's output folder (see :func:`resolve_report_dir`).
        rank: Global rank (default: :func:`rank_and_world`).
        world_size: Number of ranks (default: :func:`rank_and_world`).
        model: The model the locator hooks after AMP006/AMP003.
        run_name: The framework's name of the run, for alerts (HF ``args.run_name``).

    Example:
        >>> import torch
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> p = StepPipeline(MonitorConfig(report_dir=None), framework="torch",
        ...                  logger=logging.getLogger("x"))
        >>> p.start(lambda: RunSetup(framework="torch"))
        >>> for step in range(4):
        ...     p.record(step, {"loss": torch.tensor(float("nan") if step == 2 else 1.0)})
        ...     _ = p.drain()
        >>> p.close()
        []
        >>> [(d.code, d.step) for d in p.monitor.diagnoses]
        [('AMP006', 2)]
    """

    def __init__(
        self,
        config: MonitorConfig,
        *,
        framework: str,
        logger: logging.Logger,
        output_dir: str | None = None,
        rank: int | None = None,
        world_size: int | None = None,
        model: Any = None,
        run_name: str | None = None,
    ) -> None:
        found_rank, found_world = rank_and_world()
        rank = found_rank if rank is None else rank
        world_size = found_world if world_size is None else world_size
        if config.report_dir is not None:
            config = replace(config, report_dir=resolve_report_dir(config.report_dir, output_dir))
        self.monitor = Monitor(config, rank=rank, world_size=world_size, framework=framework,
                               logger=logger, log_filter=printed_on_rank(rank))
        self.logger = logger
        self.locate = LocateOnFault(self.monitor, model)
        self.alerts: AlertSink | None = self.guard(
            lambda: attach_alerts(self.monitor, run_name=run_name))
        self._values = DeferredValues()
        # The steps recorded and not judged yet, oldest first (empty: nothing in flight; an
        # adapter's hook may skip draining then). The queue itself: read, never replace it.
        self.in_flight = self._values.pending
        self.take_quiet = self.monitor.take_quiet
        """The hot path: ``take_quiet(step, loss, scale_before, scale_after, skipped, tracker,
        grad_norm)`` takes one optimizer step's plain numbers (read on the host already) as a
        quiet step when they are one (True), without a values dict, an Observation or a
        finished capture (:meth:`Monitor.take_quiet`; the capture of a step taken so is let go
        by the next forward). False: nothing was done; the adapter goes the full way
        (:meth:`step` or :meth:`record`). The pipeline holds it off (False) while an earlier
        step is in flight (it is judged first) and while the locator is armed for a step (it
        ends in :meth:`record`/:meth:`step`). Adapters call it inside their guard."""
        self._stop_announced = False

    # -- state -----------------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        """Monitoring is on (no internal error so far)."""
        return not self.monitor.disabled

    @property
    def wants_stop(self) -> bool:
        """This rank's policy asked to stop (``"stop"``, after a fault)."""
        return self.monitor.stop_requested

    @property
    def rank(self) -> int:
        """This process's global rank."""
        return self.monitor.rank

    # -- flow ------------------------------------------------------------------------------------

    def guard(self, action: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run adapter code: an internal error is logged once and turns monitoring off.

        Returns the action's result, or None when it failed or monitoring is off.

        Raises:
            AmpDiagnosisError: Only the user's ``"raise"`` policy passes through.
        """
        monitor = self.monitor
        if monitor.disabled:
            return None
        try:  # Monitor.guard without its closure: this runs several times per step
            result = action(*args, **kwargs)
        except AmpDiagnosisError:
            raise
        except Exception:
            monitor.switch_off()
            result = None
        if monitor.disabled:  # it failed (here or in the engine): remove hooks left armed
            self.locate.close()
        return result

    def fail(self) -> None:
        """For adapter code that inlines :meth:`guard` on a hot path, from its ``except``
        block: log the exception being handled (once), switch monitoring off, remove the
        locator's hooks."""
        self.monitor.switch_off()
        self.locate.close()

    def start(self, read_setup: Callable[[], RunSetup | None]) -> None:
        """Read the run's setup (guarded) and start the engine: header line, start-up lints."""
        setup = self.guard(read_setup)
        if self.active:
            self.monitor.start(setup)

    def record(self, step: int, values: dict[str, Any], *,
               rerun: Callable[[], Any] | None = None, targets: Any = None,
               loss_fn: Callable[..., Any] | None = None) -> None:
        """Snapshot one optimizer step's values (device tensors are read a step late).

        The step's capture for a re-run is labelled here (``rerun``: a closure re-computing
        its loss; ``targets``, ``loss_fn``: what its loss was computed from), and a step the
        locator armed for ends here (its one sync happens only then).
        """
        self.locate.step_finished(values.get("loss"), step, rerun=rerun, targets=targets,
                                  loss_fn=loss_fn)
        self._values.push(step, values)
        self.monitor.hold_quiet()  # until this step is judged: the steps go in order

    def drain(
        self,
        *,
        wait: bool = False,
        complete: Callable[[int, dict[str, Any]], None] | None = None,
        judged: Callable[[int, dict[str, Any]], None] | None = None,
    ) -> list[Diagnosis]:
        """Judge the snapshots that are readable (all of them with ``wait``).

        Args:
            wait: Wait for copies still in flight (end of training).
            complete: Adds values only the adapter knows once a step is readable (HF: the
                grad norm from its logs; plain loops: the scale before the step).
            judged: Called after each step is judged (DeepSpeed mirrors metrics then).
        """
        found: list[Diagnosis] = []
        if not self.in_flight:  # nothing recorded since the last drain
            return found
        for step, values in self._values.ready(wait=wait):
            found += self._judge(step, values, complete, judged)
        if self.in_flight:
            self.monitor.hold_quiet()  # until the queued steps are judged, in order
        return found

    def step(
        self,
        step: int,
        values: dict[str, Any],
        *,
        rerun: Callable[[], Any] | None = None,
        complete: Callable[[int, dict[str, Any]], None] | None = None,
        judged: Callable[[int, dict[str, Any]], None] | None = None,
        targets: Any = None,
        loss_fn: Callable[..., Any] | None = None,
    ) -> list[Diagnosis]:
        """:meth:`record` then :meth:`drain`, for adapters that judge as soon as they can:
        values that are readable now (the CPU's) are judged at once, without the queue; a
        quiet step among them (most steps) by :attr:`take_quiet`, from its numbers alone.

        Example:
            >>> import torch
            >>> from denpex_callbacks.core.config import MonitorConfig
            >>> p = StepPipeline(MonitorConfig(report_dir=None), framework="torch",
            ...                  logger=logging.getLogger("x"))
            >>> p.start(lambda: RunSetup(framework="torch", scaler="dynamic"))
            >>> for step in range(16):
            ...     _ = p.step(step, {"scale_before": 8.0, "scale_after": torch.tensor(8.0),
            ...                       "growth_tracker": torch.tensor(step), "loss": 0.5})
            >>> p.monitor.run.last_step, p.monitor.last_observation.scale_after
            (15, 8.0)
        """
        if complete is None and judged is None:
            numbers = host_numbers(values)
            if numbers is not None and self.take_quiet(step, *numbers):
                return []
        self.locate.step_finished(values.get("loss"), step, rerun=rerun, targets=targets,
                                  loss_fn=loss_fn)
        plain = self._values.read_now_or_push(step, values)
        if plain is None:  # queued behind a device copy
            return self.drain(complete=complete, judged=judged)  # (holds the hot path off)
        return self._judge(step, plain, complete, judged)

    def _judge(
        self,
        step: int,
        values: dict[str, Any],
        complete: Callable[[int, dict[str, Any]], None] | None,
        judged: Callable[[int, dict[str, Any]], None] | None,
    ) -> list[Diagnosis]:
        """One readable snapshot through the engine, the locator and the adapter's callback."""
        if complete is not None:
            complete(step, values)
        monitor = self.monitor
        new = monitor.observe(observation_from_values(
            step, values, rank=monitor.rank, world_size=monitor.world_size))
        # AMP006/AMP003: re-run the failing step (or hook the next one); a step judged
        # healthy lets its captured inputs go.
        self.locate.maybe_arm(new)
        if judged is not None:
            judged(step, values)
        return new

    def flag(self, finding: Finding, step: int) -> list[Diagnosis]:
        """Report what the adapter saw itself (protocol misuse); once per id and severity
        (a warning about the monitor's own use does not hide a later protocol error)."""
        severity = (finding.severity or entry(finding.code).severity).rank
        if self.monitor.worst.get(finding.code, -1) >= severity:
            return []  # one protocol break is enough: the calls after it fail for the same reason
        return self.monitor.flag(finding, reported_step=step)

    def decide_stop(self, vote: StopVote | None, step: int | None = None) -> bool:
        """Whether to stop after this step: this rank's wish, agreed over ranks by ``vote``.

        Under ``on_fault="stop"`` with several ranks, every rank must call this at every
        optimizer step, with monitoring off too (it then votes False).

        Args:
            vote: The framework's reduce (:data:`StopVote`); None for a single rank.
            step: The step named in the announcement.
        """
        wanted = self.wants_stop
        if self.monitor.config.on_fault != "stop":
            return False
        decided = vote(wanted) if vote is not None and self.monitor.world_size > 1 else wanted
        if decided and not self._stop_announced:
            self._stop_announced = True
            if wanted or self.rank == 0:
                self.logger.warning(
                    "denpex: stopping training after step %s (on_fault='stop', diagnosis on %s)",
                    step, f"rank {self.rank}" if wanted else "another rank",
                )
        return decided

    def close(self, *, wait: bool = True) -> list[Diagnosis]:
        """Judge the steps in flight, remove the locator's hooks, write the report summary.

        Safe to call twice. Returns the diagnoses the last steps produced.

        Raises:
            AmpDiagnosisError: A fault in the last steps under ``"raise"`` (after the report
                is closed).
        """
        found: list[Diagnosis] = []
        try:
            if wait:
                found = self.guard(lambda: self.drain(wait=True)) or []
        finally:
            self.locate.close()
            self.monitor.close()
            if self.alerts is not None:
                self.alerts.close()
        return found
