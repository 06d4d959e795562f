"""The one pipeline under every framework adapter.

An adapter wires its framework's hooks and reads what only it can read (where the scale is,
the loss, the step number); everything after that is :class:`StepPipeline`'s:

    snapshot -> deferred read -> Observation -> Monitor (engine) -> sinks -> locate -> guard
    -> policy -> close

and the rules every adapter shares live here, once each:

- **report folder** (:func:`resolve_report_dir`): a relative ``report_dir`` is taken inside the
  framework's output folder (HF ``args.output_dir``, Lightning ``default_root_dir``); the plain
  loop and DeepSpeed have none, so theirs is taken from the working directory.
  ``"{output_dir}"`` in the path is replaced by that folder.
- **rank** (:func:`rank_and_world`): ``torch.distributed`` when initialised, else rank 0 of 1.
- **printing per rank** (:func:`printed_on_rank`): a rank's own loss conditions (AMP006,
  AMP007) are printed by the rank that found them (the line names it); conditions every rank
  sees alike (the shared loss scale, the setup) are printed by rank 0 only. Every rank writes
  all of them to its own report.
- **stopping** (:meth:`StepPipeline.decide_stop`): with several ranks every rank votes at
  every optimizer step (a rank that skipped the collective would hang the others) through its
  framework's reduce (:data:`StopVote`); the run stops after the same step everywhere.
- **configuration**: every adapter takes the same keyword options, merged by
  :func:`denpex_callbacks.core.config.build_config` (bad values: ValueError, unknown names:
  TypeError).
- **guard**: an internal error is logged once, monitoring switches off, training continues;
  only the user's policy (AmpDiagnosisError under ``"raise"``) reaches training.
- **alerts** (:func:`denpex_callbacks.core.alerts.sink.attach_alerts`): the ``alert_*`` options
  or the environment (``DENPEX_ALERT_WEBHOOK``...) add the alert sink, which alerts what this
  rank prints (the printing rule above); :meth:`StepPipeline.close` waits a bounded time for
  alerts still queued.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch

from denpex_callbacks.core.alerts.sink import AlertSink, attach_alerts
from denpex_callbacks.core.catalog import entry
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import AmpDiagnosisError, Diagnosis, Finding
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.locate.on_fault import LocateOnFault
from denpex_callbacks.readers.deferred import DeferredValues
from denpex_callbacks.readers.step_values import observation_from_values

__all__ = [
    "PER_RANK_CODES",
    "StepPipeline",
    "StopVote",
    "all_reduce_vote",
    "host_numbers",
    "printed_on_rank",
    "rank_and_world",
    "resolve_report_dir",
]

# Each rank computes its own loss: these are printed by the rank that sees them. Gradients are
# all-reduced before the scaler checks them, so scale conditions are alike on every rank.
PER_RANK_CODES = frozenset({"AMP006", "AMP007"})
OUTPUT_DIR_FIELD = "{output_dir}"

StopVote = Callable[[bool], bool]
"""One rank's wish to stop in, the ranks' joint decision (any rank wants it) out."""


def resolve_report_dir(report_dir: str | None, output_dir: str | None = None) -> str | None:
    """Where the run reports go: ``report_dir`` taken inside ``output_dir`` when relative.

    Args:
        report_dir: The configured folder (None: no report).
        output_dir: The framework's output folder (None: the working directory).

    Example:
        >>> resolve_report_dir("denpex_reports", "out")
        'out/denpex_reports'
        >>> resolve_report_dir("{output_dir}/r", "out"), resolve_report_dir("/abs", "out")
        ('out/r', '/abs')
        >>> resolve_report_dir("denpex_reports") is None, resolve_report_dir(None, "out")
        (False, None)
    """
    if report_dir is None:
        return None
    root = output_dir or "."
    if OUTPUT_DIR_FIELD in report_dir:
        return report_dir.replace(OUTPUT_DIR_FIELD, root)
    if os.path.isabs(report_dir) or output_dir is None:
        return report_dir
    return os.path.join(root, report_dir)


def rank_and_world() -> tuple[int, int]:
    """This process's global rank and the number of ranks (0 and 1 without a process group).

    Example:
        >>> rank_and_world()
        (0, 1)
    """
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def printed_on_rank(rank: int) -> Callable[[Diagnosis], bool] | None:
    """Which diagnoses rank ``rank`` prints (None: all of them, on rank 0).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> on_1 = printed_on_rank(1)
        >>> [on_1(Diagnosis.from_finding(Finding(c, 1, ""))) for c in ("AMP006", "AMP003")]
        [True, False]
    """
    if rank == 0:
        return None
    return lambda diagnosis: diagnosis.code in PER_RANK_CODES


def all_reduce_vote(device: Any = None) -> StopVote:
    """The stop vote over ``torch.distributed`` (plain loops, HF, DeepSpeed).

    A one-element all_reduce(MAX) and its ``item()``: a sync, made only under
    ``on_fault="stop"`` with several ranks. ``device`` defaults to the current CUDA device
    under NCCL and to the CPU otherwise (gloo).
    """

    def vote(wanted: bool) -> bool:
        where = device
        if where is None:
            nccl = torch.distributed.get_backend() == "nccl"
            where = torch.device("cuda", torch.cuda.current_device()) if nccl else "cpu"
        flag = torch.tensor([1.0 if wanted else 0.0], device=where)
        torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        return bool(flag.item() > 0)

    return vote


_TENSOR = torch.Tensor
_NUMBERS = (float, int)


def host_numbers(values: dict[str, Any]) -> tuple[Any, ...] | None:
    """(loss, scale_before, scale_after, skipped, growth_tracker, grad_norm) of one step's
    values, for :attr:`StepPipeline.take_quiet`, when every one of them is readable on the host
    now (a number, None, or a one-element CPU tensor: ``item()`` waits for nothing there); None
    when one is not (a device tensor: the step goes the full way, read a step late).

    Whether the step was skipped, as :func:`observation_from_values` says: an explicit
    ``skipped``, else found_inf > 0, else DeepSpeed's ``overflow``, else None.

    Example:
        >>> host_numbers({"loss": torch.tensor(0.5), "scale_after": 8.0, "found_inf": 0.0})
        (0.5, None, 8.0, False, None, None)
        >>> host_numbers({"loss": 0.5, "lr": 0.1, "scale_after": torch.ones(2)}) is None
        True
    """
    get = values.get
    out = []
    for name in ("loss", "scale_before", "scale_after", "found_inf", "growth_tracker",
                 "grad_norm"):
        value = get(name)
        if value is None or value.__class__ in _NUMBERS:
            out.append(value)
        elif value.__class__ is _TENSOR and value.is_cpu and value.numel() == 1:
            out.append(value.item())
        else:
            return None  # (a bool, a device tensor, anything else: the full way says)
    loss, before, after, found_inf, tracker, grad_norm = out
    skipped = get("skipped")
    if skipped is None:
        if found_inf is not None:
            skipped = found_inf > 0
        elif (overflow := get("overflow")).__class__ is bool:
            skipped = overflow
    if tracker is not None:
        tracker = int(tracker)
    return (loss, None if before is None else float(before),
            None if after is None else float(after), skipped, tracker,
            None if grad_norm is None else float(grad_norm))


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
               rerun: Callable[[], Any] | None = None) -> None:
        """Snapshot one optimizer step's values (device tensors are read a step late).

        The step's capture for a re-run is labelled here (``rerun``: a closure re-computing
        its loss), and a step the locator armed for ends here (its one sync happens only then).
        """
        self.locate.step_finished(values.get("loss"), step, rerun=rerun)
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
        if self._values.pending:
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
        self.locate.step_finished(values.get("loss"), step, rerun=rerun)
        plain = self._values.read_now_or_push(step, values)
        if plain is None:  # queued behind a device copy
            found = self.drain(complete=complete, judged=judged)
            if self._values.pending:
                self.monitor.hold_quiet()  # until the queued steps are judged, in order
            return found
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
