"""The alert sink: a diagnosis at or above the alert level becomes a webhook POST and a
``wandb.alert``, sent from a background thread so that no training step waits for it."""

from __future__ import annotations

import logging
import os
import platform
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.alerts.payload import AlertContext, build_payload
from denpex_callbacks.core.alerts.settings import AlertSettings, alert_settings
from denpex_callbacks.core.alerts.wandb_run import active_wandb_run, raise_wandb_alert
from denpex_callbacks.core.alerts.webhook import DeliveryError, post_json, send_with_retries
from denpex_callbacks.core.alerts.worker import AlertWorker
from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.masking import mask
from denpex_callbacks.core.report import report_path
from denpex_callbacks.core.severity import Severity

LOGGER = logging.getLogger("denpex_callbacks")
QUEUE_SIZE = 32  # alerts waiting for a slow webhook; more are dropped (and that is logged)
AlertFilter = Callable[[Diagnosis], bool]


@dataclass(frozen=True)
class _Pending:
    diagnosis: Diagnosis
    wandb_run: Any  # the run active when the diagnosis was made, or None


class AlertSink:
    """Sends an alert for each new diagnosis at or above ``settings.level``.

    A sink for ``Monitor(sinks=[...])``. On the training thread it only filters and queues
    (no I/O, no payload building); a daemon thread builds the payload, POSTs it to the
    webhook (timeout ``settings.timeout_s``, 3 tries, backoff a tenth of the timeout,
    doubled) and raises ``wandb.alert`` on the run that was active. It never raises: the
    first failure of each channel (webhook, wandb) is logged once as a warning, without the
    URL. One page per incident: at most one alert per id and rank per episode (the engine
    reports a condition again only once it cleared and came back, or when it worsens; a
    worsening of a condition already alerted is not alerted again), and a consequence of a
    diagnosis this sink alerted (``caused_by``: AMP003 after AMP006) is not alerted either:
    its fix is the first alert's fix. The run report and the log still have them all.

    Args:
        settings: Where to send and from which severity on.
        context: Run name, report path, framework, world size, host.
        alert_filter: Which diagnoses this process alerts (None: all); multi-rank adapters
            pass the per-rank print rule so a scale condition every rank sees alike is
            alerted by rank 0 only.
        logger: Where a failure is logged.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> sink = AlertSink(AlertSettings(wandb=False), AlertContext())
        >>> sink(Diagnosis.from_finding(Finding("AMP006", 7, "loss is nan")))  # no channel
        >>> sink.close()
        0
    """

    def __init__(
        self,
        settings: AlertSettings,
        context: AlertContext,
        *,
        alert_filter: AlertFilter | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self.settings = settings
        self.context = context
        self.alert_filter = alert_filter
        self.logger = logger or LOGGER
        self._alerted: dict[tuple[str, int], Severity] = {}  # bounded: ids x ranks
        self._warned: set[str] = set()
        self._warn_lock = threading.Lock()
        self._worker: AlertWorker[_Pending] = AlertWorker(self._deliver, queue_size=QUEUE_SIZE)

    def __repr__(self) -> str:
        return f"AlertSink({self.settings!r}, framework={self.context.framework!r})"

    def __call__(self, diagnosis: Diagnosis) -> None:
        """Queue an alert for ``diagnosis`` when it is one (never blocks, never raises)."""
        if diagnosis.severity.rank < self.settings.level.rank:
            return
        if self.alert_filter is not None and not self.alert_filter(diagnosis):
            return
        key = (diagnosis.code, diagnosis.rank)
        alerted = self._alerted.get(key)
        if alerted is not None and diagnosis.severity.rank > alerted.rank:
            return  # the same episode, worse: its first alert already paged someone
        if diagnosis.caused_by and (diagnosis.caused_by, diagnosis.rank) in self._alerted:
            return  # a consequence: the cause's alert says what to fix
        run = active_wandb_run() if self.settings.wandb else None
        if self.settings.webhook is None and run is None:
            return
        self._alerted[key] = diagnosis.severity
        if not self._worker.submit(_Pending(diagnosis, run)):
            self._warn_once("queue", "denpex: alert queue full (%d waiting); the %s alert "
                            "(rank %d) was dropped", QUEUE_SIZE, diagnosis.code, diagnosis.rank)

    def close(self, wait_s: float | None = None) -> int:
        """Wait at most ``wait_s`` (default: twice the timeout) for queued alerts to go out.

        Returns:
            How many were not sent yet (one warning says so; they go on in the background).
        """
        wait = 2 * self.settings.timeout_s if wait_s is None else wait_s
        pending = self._worker.close(wait)
        if pending:
            self._warn_once(
                "webhook" if self.settings.webhook else "wandb",
                "denpex: %d alert(s) not sent before the end of training (no answer within "
                "%gs); training was not held up", pending, wait,
            )
        return pending

    # -- on the worker thread --------------------------------------------------------------------

    def _deliver(self, pending: _Pending) -> None:
        diagnosis = pending.diagnosis
        try:
            payload = build_payload(diagnosis, self.context)
        except Exception as exc:  # never let a bad diagnosis end the worker
            self._warn_once("payload", "denpex: could not build the %s alert: %s",
                            diagnosis.code, type(exc).__name__)
            return
        if pending.wandb_run is not None:  # first: it only hands a record to wandb's service
            try:
                raise_wandb_alert(pending.wandb_run, payload)
            except Exception as exc:
                self._warn_once("wandb", "denpex: wandb.alert failed for %s (rank %d): %s; "
                                "training continues", diagnosis.code, diagnosis.rank,
                                _reason(exc))
        webhook = self.settings.webhook
        if webhook is None:
            return
        timeout = self.settings.timeout_s
        try:
            send_with_retries(lambda: post_json(webhook, payload, timeout),
                              backoff_s=timeout / 10)
        except DeliveryError as exc:
            self._warn_once(
                "webhook", "denpex: alert webhook failed for %s (rank %d): %s; training "
                "continues, later alert failures of this run are not logged",
                diagnosis.code, diagnosis.rank, exc.reason,
            )

    def _warn_once(self, channel: str, message: str, *args: Any) -> None:
        with self._warn_lock:
            if channel in self._warned:
                return
            self._warned.add(channel)
        self.logger.warning(message, *args)


def attach_alerts(
    monitor: Any,
    *,
    run_name: str | None = None,
    alert_filter: AlertFilter | None = None,
    environ: Mapping[str, str] | None = None,
) -> AlertSink | None:
    """Add an :class:`AlertSink` to ``monitor.sinks`` as its config and the environment say.

    The caller closes it at the end of training (``sink.close()``).

    Args:
        monitor: A :class:`~denpex_callbacks.core.monitor.Monitor` (config, rank, framework).
        run_name: The framework's run name; the config's ``run_name`` wins over it (None
            for both: see :func:`~denpex_callbacks.core.alerts.payload.run_name`).
        alert_filter: Which diagnoses this process alerts (see :class:`AlertSink`); None:
            the ones it prints (``monitor.log_filter``).
        environ: The environment (default ``os.environ``).

    Returns:
        The sink, or None when alerts are off (no webhook and ``alert_wandb`` off).

    Example:
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> from denpex_callbacks.core.monitor import Monitor
        >>> m = Monitor(MonitorConfig(report_dir="out", alert_webhook="https://example.com/h"))
        >>> sink = attach_alerts(m, run_name="bert", environ={})
        >>> sink in m.sinks, sink.context.report_path.endswith("out/rank0.jsonl")
        (True, True)
        >>> sink.close()
        0
    """
    settings = alert_settings(monitor.config, environ, monitor.logger)
    if not settings.enabled:
        return None
    report_dir = monitor.config.report_dir
    context = AlertContext(
        framework=monitor.framework,
        world_size=monitor.world_size,
        run_name=monitor.config.run_name or run_name,
        report_path=os.path.abspath(report_path(report_dir, monitor.rank)) if report_dir else None,
        host=platform.node(),
    )
    if alert_filter is None:
        alert_filter = getattr(monitor, "log_filter", None)
    sink = AlertSink(settings, context, alert_filter=alert_filter, logger=monitor.logger)
    monitor.sinks.append(sink)
    return sink


def _reason(exc: Exception) -> str:
    text = mask(f"{type(exc).__name__}: {exc}")
    return text if len(text) <= 200 else text[:197] + "..."

