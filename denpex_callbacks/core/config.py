"""User-facing configuration of a Monitor, shared by every adapter."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from denpex_callbacks.core.alerts.settings import check_alert_options
from denpex_callbacks.core.catalog import CATALOG
from denpex_callbacks.core.log_line import LOG_FORMATS
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.thresholds import Thresholds

POLICIES = ("warn", "stop", "raise")


class _Unset:
    """Marks an adapter argument the user did not pass (None is a meaningful value)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
DEFAULT_REPORT_DIR = "denpex_reports"


@dataclass(frozen=True)
class MonitorConfig:
    """How a Monitor reports and what it does on a fault.

    Attributes:
        on_fault: ``"warn"`` (log and continue, the default), ``"stop"`` (ask the framework
            to stop gracefully after the current step) or ``"raise"`` (raise
            AmpDiagnosisError from the step where it is found). On several ranks ``"raise"``
            raises on the rank that diagnosed only (nothing one rank does enters a
            collective): the others go on into their next collective and wait there until
            the launcher ends them (torchrun tears the job down when a rank fails) or the
            process group times out. Prefer ``"stop"`` there: every rank votes at every step
            (one small all-reduce, the framework's own reduce under Lightning) and all stop
            after the same step; or launch under torchrun.
        checkpoint_on_stop: Under ``"stop"``, HF Trainer and Lightning save a checkpoint
            through their own mechanism before stopping (HF: ``control.should_save``, into
            ``output_dir/checkpoint-<step>``; Lightning: ``trainer.save_checkpoint``, beside
            the ModelCheckpoint's files). False stops without one. Plain loops and DeepSpeed
            leave it to the loop that reads ``should_stop``.
        fault_severity: Lowest severity the policy acts on (``"error"`` by default, or
            ``"warning"``). Lower severities are only logged.
        report_dir: Folder of the per-rank JSONL run reports (``rank<k>.jsonl``); None to
            write none.
        record_every: A step record is written every this many steps (plus every skipped
            step, scale change and non-finite loss, up to ``max_step_records``).
        max_step_records: Cap on unsampled step records per report (bounded files).
        max_repeats: How often one id may be reported again after clearing.
        disable: Diagnosis ids to switch off, e.g. ``("AMP008",)``.
        locate: Arm hooks after a fault to find the first module producing non-finite values.
        rerun: Re-run a failing step (non-finite loss, first overflow of a collapse) once with
            the same inputs, parameters and RNG state to tell a reproducible fault from a
            transient one (hardware or software?). Costs a reference to the last inputs and
            a copy of the RNG state per step; needs ``locate``.
        log_format: ``"line"`` (the default: one log line per diagnosis, the detail in the
            run report) or ``"full"`` (the multi-line block: evidence, root cause, fix).
        thresholds: Detection thresholds (see :class:`Thresholds`).
        alert_webhook: URL to POST an alert to on a diagnosis at or above ``alert_level``
            (Slack/Mattermost incoming webhooks show it as is); None: the environment's
            ``DENPEX_ALERT_WEBHOOK``, else no webhook. Never printed (not in this repr).
        alert_level: Lowest severity alerted, ``"warning"`` or ``"error"``; None: the
            environment's ``DENPEX_ALERT_LEVEL``, else ``"error"``.
        alert_wandb: Also raise ``wandb.alert`` when a wandb run is active; None: the
            environment's ``DENPEX_ALERT_WANDB`` (``0`` turns it off), else on.
        alert_timeout_s: Seconds one webhook request may take; None: the environment's
            ``DENPEX_ALERT_TIMEOUT``, else 5. See :mod:`denpex_callbacks.core.alerts`.
        run_name: The run's name in alerts; None: the framework's (HF ``run_name``), else
            ``DENPEX_RUN_NAME``, the active wandb run's, the Slurm job's.

    Example:
        >>> MonitorConfig.from_dict({"on_fault": "stop", "thresholds": {"zero_loss_steps": 5}})
        ... # doctest: +ELLIPSIS
        MonitorConfig(on_fault='stop', ...)
    """

    on_fault: str = "warn"
    checkpoint_on_stop: bool = True
    fault_severity: str = "error"
    report_dir: str | None = DEFAULT_REPORT_DIR
    record_every: int = 50
    max_step_records: int = 10_000
    max_repeats: int = 3
    disable: tuple[str, ...] = ()
    locate: bool = True
    rerun: bool = True
    log_format: str = "line"
    thresholds: Thresholds = field(default_factory=Thresholds)
    alert_webhook: str | None = field(default=None, repr=False)
    alert_level: str | None = None
    alert_wandb: bool | None = None
    alert_timeout_s: float | None = None
    run_name: str | None = None

    def __post_init__(self) -> None:
        if self.on_fault not in POLICIES:
            raise ValueError(
                f"on_fault must be one of {', '.join(POLICIES)}, not {self.on_fault!r}"
            )
        if self.fault_severity not in ("warning", "error"):
            raise ValueError(
                f"fault_severity must be 'warning' or 'error', not {self.fault_severity!r}"
            )
        unknown = [code for code in self.disable if code not in CATALOG]
        if unknown:
            raise ValueError(f"disable lists unknown diagnosis id(s): {', '.join(unknown)}")
        if self.log_format not in LOG_FORMATS:
            raise ValueError(
                f"log_format must be one of {', '.join(LOG_FORMATS)}, not {self.log_format!r}"
            )
        if self.record_every < 1:
            raise ValueError("record_every must be >= 1")
        check_alert_options(self.alert_webhook, self.alert_level, self.alert_timeout_s)

    @property
    def fault_level(self) -> Severity:
        """``fault_severity`` as a Severity."""
        return Severity(self.fault_severity)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MonitorConfig:
        """Build from a plain dict (a JSON config section), rejecting unknown keys.

        Raises:
            ValueError: On an unknown key or a bad value, naming it.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown denpex option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        kwargs = dict(data)
        if "thresholds" in kwargs:
            kwargs["thresholds"] = Thresholds.from_dict(dict(kwargs["thresholds"] or {}))
        if "disable" in kwargs:
            kwargs["disable"] = tuple(kwargs["disable"] or ())
        return cls(**kwargs)


def build_config(
    config: MonitorConfig | Mapping[str, Any] | None = None, **overrides: Any
) -> MonitorConfig:
    """``config`` (or the defaults) with an adapter's keyword arguments applied.

    Every adapter takes ``on_fault``, ``report_dir``, ``config`` and any other MonitorConfig
    key as a keyword; this is the one place that merges them. An argument left at ``UNSET``
    keeps the config's value, so ``report_dir=None`` still means "write no report".
    ``config`` may be a dict (as in a JSON file), ``thresholds`` a dict, ``disable`` any
    iterable, ``report_dir`` any path-like.

    Raises:
        TypeError: On a keyword that is not a MonitorConfig key, naming the known ones.
        ValueError: On a bad value (see :class:`MonitorConfig`).

    Example:
        >>> build_config(on_fault="stop", report_dir=None, locate=UNSET).report_dir is None
        True
        >>> build_config({"on_fault": "raise"}, thresholds={"zero_loss_steps": 5}).on_fault
        'raise'
    """
    if isinstance(config, Mapping):
        config = MonitorConfig.from_dict(dict(config))
    base = config or MonitorConfig()
    changes = {k: v for k, v in overrides.items() if v is not UNSET}
    known = {f.name for f in fields(MonitorConfig)}
    unknown = sorted(set(changes) - known)
    if unknown:
        raise TypeError(
            f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    if isinstance(changes.get("thresholds"), Mapping):
        changes["thresholds"] = Thresholds.from_dict(dict(changes["thresholds"]))
    if "disable" in changes:
        changes["disable"] = tuple(changes["disable"] or ())
    if changes.get("report_dir") is not None:
        changes["report_dir"] = os.fspath(changes["report_dir"])
    return replace(base, **changes)
