"""Where diagnoses go once the engine has made them: the log line, the run report, metrics.

A sink is anything callable with a :class:`~denpex_callbacks.core.diagnosis.Diagnosis`
(``Monitor(sinks=[...])``: an alerts hook is one function). The two built-in sinks below
also hear about the run's start, each step, amendments and the end; the engine calls those
methods directly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from denpex_callbacks.core.diagnosis import Diagnosis
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.report import ReportWriter
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.core.severity import Severity

Sink = Callable[[Diagnosis], None]
LogFilter = Callable[[Diagnosis], bool]

_LEVELS = {
    Severity.INFO: logging.INFO,
    Severity.WARNING: logging.WARNING,
    Severity.ERROR: logging.ERROR,
}


class LogSink:
    """One line per diagnosis in the training log (the framework's own logger).

    Args:
        logger: Where lines go.
        log_filter: Says which diagnoses this process prints (all when None); see
            :func:`denpex_callbacks.integrations.pipeline.printed_on_rank`.

    Example:
        >>> import logging
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> d = Diagnosis.from_finding(Finding("AMP006", 3, "loss is nan"))
        >>> LogSink(logging.getLogger("x"), lambda d: False).prints(d)
        False
    """

    def __init__(self, logger: logging.Logger, log_filter: LogFilter | None = None) -> None:
        self.logger = logger
        self.log_filter = log_filter

    def prints(self, diagnosis: Diagnosis) -> bool:
        """Whether this process prints ``diagnosis``."""
        return self.log_filter is None or self.log_filter(diagnosis)

    def __call__(self, diagnosis: Diagnosis) -> None:
        self.line(diagnosis)

    def line(self, diagnosis: Diagnosis, prefix: str = "", *, brief: bool = False) -> None:
        """Log ``diagnosis`` at its severity's level (unless filtered out)."""
        if self.prints(diagnosis):
            self.logger.log(_LEVELS[diagnosis.severity], "denpex: %s%s", prefix,
                            diagnosis.render_text(brief=brief))

    def amended(self, diagnosis: Diagnosis) -> None:
        """A diagnosis completed with later evidence: one brief line."""
        self.line(diagnosis, "amended ", brief=True)

    def summary(self, rank: int, primary: Diagnosis, others: list[str]) -> None:
        """The closing line: which diagnosis to fix first."""
        if not self.prints(primary):
            return
        self.logger.warning(
            "denpex: run summary (rank %d): fix %s first (%s, from step %s)%s",
            rank, primary.code, primary.title, primary.step,
            f"; also reported: {', '.join(others)}" if others else "",
        )


class ReportSink:
    """The rank's JSONL run report: header, sampled steps, diagnoses, amendments, summary.

    Args:
        writer: The opened report writer.
    """

    def __init__(self, writer: ReportWriter) -> None:
        self.writer = writer

    def __call__(self, diagnosis: Diagnosis) -> None:
        self.writer.diagnosis(diagnosis)

    def step(self, obs: Observation) -> None:
        """A step record (the writer samples them)."""
        self.writer.step(obs)

    def amended(self, diagnosis: Diagnosis) -> None:
        """An amendment record; readers merge it into the original."""
        self.writer.amendment(diagnosis)

    def close(self, summary: dict[str, Any]) -> None:
        """The summary record; the file is closed."""
        self.writer.summary(summary)
        self.writer.close()


def run_metrics(run: RunState, faults: int) -> dict[str, float]:
    """Numbers for a framework's metric logger: scale, skipped steps, skip rate, diagnoses.

    Example:
        >>> sorted(run_metrics(RunState(), 0))
        ['amp/diagnoses', 'amp/skip_rate', 'amp/skipped_steps']
    """
    out: dict[str, float] = {
        "amp/skipped_steps": float(run.skipped_total),
        "amp/skip_rate": run.skipped_total / run.steps_seen if run.steps_seen else 0.0,
        "amp/diagnoses": float(faults),
    }
    if run.last_scale is not None:
        out["amp/loss_scale"] = float(run.last_scale)
    return out


def header_line(setup: RunSetup, rank: int, world_size: int) -> str:
    """The run's first log line: what is watched and which detectors are active.

    Example:
        >>> header_line(RunSetup(framework="torch", active_precision="bf16-mixed"), 0, 1)
        ... # doctest: +ELLIPSIS
        'torch rank 0/1: precision bf16-mixed (requested n/a), no loss scaler; ...'
    """
    if setup.has_scaler:
        scaler = f"{setup.scaler} loss scale"
        if setup.init_scale is not None:
            scaler += f" (init {setup.init_scale:g}"
            interval = setup.growth_interval
            scaler += f", growth interval {interval})" if interval else ")"
        scope = "scale and loss detectors on"
    else:
        scaler = "no loss scaler"
        scope = "loss detectors on, scale detectors off"
    return (
        f"{setup.framework} rank {rank}/{world_size}: precision {setup.active_precision}"
        f" (requested {setup.requested_precision or 'n/a'}), {scaler}; {scope}"
    )
