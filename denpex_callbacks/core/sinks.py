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
from denpex_callbacks.core.log_line import render_amendment, render_escalation, render_line
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.other_rank import may_be_another_ranks
from denpex_callbacks.core.report import ReportWriter
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.severity import Severity

Sink = Callable[[Diagnosis], None]
# Log records of diagnoses carry this attribute (the id), so a handler can tell them apart.
DIAGNOSIS_RECORD = "denpex_diagnosis"
LogFilter = Callable[[Diagnosis], bool]
# Each rank computes its own loss: these are printed by the rank that sees them. Gradients are
# all-reduced before the scaler checks them, so scale conditions are alike on every rank.
PER_RANK_CODES = frozenset({"AMP006", "AMP007"})

_LEVELS = {
    Severity.INFO: logging.INFO,
    Severity.WARNING: logging.WARNING,
    Severity.ERROR: logging.ERROR,
}


def printed_on_rank(rank: int) -> LogFilter | None:
    """Which diagnoses rank ``rank`` prints (None: all of them, on rank 0).

    A rank's own loss conditions (:data:`PER_RANK_CODES`) are printed by the rank that found
    them (the line names it); conditions every rank sees alike (the shared loss scale, the
    setup) by rank 0 only. Every rank writes all of them to its own report.

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> on_1 = printed_on_rank(1)
        >>> [on_1(Diagnosis.from_finding(Finding(c, 1, ""))) for c in ("AMP006", "AMP003")]
        [True, False]
    """
    if rank == 0:
        return None
    return lambda diagnosis: diagnosis.code in PER_RANK_CODES


class LogSink:
    """One line per diagnosis in the training log (the framework's own logger).

    Lines are rendered by :mod:`denpex_callbacks.core.log_line` (``log_format="line"``, the
    default) or as the multi-line block (``"full"``). Each record carries the attribute
    ``denpex_diagnosis`` (the id, or ``"summary"``) so a logging filter can tell them apart.

    Args:
        logger: Where lines go.
        log_filter: Says which diagnoses this process prints (all when None); see
            :func:`printed_on_rank`.
        log_format: ``"line"`` or ``"full"``.

    Example:
        >>> import logging
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> d = Diagnosis.from_finding(Finding("AMP006", 3, "loss is nan"))
        >>> LogSink(logging.getLogger("x"), lambda d: False).prints(d)
        False
    """

    def __init__(self, logger: logging.Logger, log_filter: LogFilter | None = None,
                 log_format: str = "line") -> None:
        self.logger = logger
        self.log_filter = log_filter
        self.log_format = log_format
        self.report: str | None = None  # the run report's path, named on each line

    def prints(self, diagnosis: Diagnosis) -> bool:
        """Whether this process prints ``diagnosis``."""
        return self.log_filter is None or self.log_filter(diagnosis)

    def __call__(self, diagnosis: Diagnosis) -> None:
        self.line(diagnosis)

    def line(self, diagnosis: Diagnosis) -> None:
        """Log ``diagnosis`` at its severity's level (unless filtered out)."""
        if not self.prints(diagnosis):
            return
        text = (diagnosis.render_text() if self.log_format == "full"
                else render_line(diagnosis, report=self.report))
        self.logger.log(_LEVELS[diagnosis.severity], "denpex: %s", text,
                        extra={DIAGNOSIS_RECORD: diagnosis.code})

    def amended(self, old: Diagnosis, new: Diagnosis) -> None:
        """A diagnosis completed with later evidence: one line saying what changed.

        A consequence's amendment repeats its cause's (the same module, the same fix): the
        report keeps it, the log shows it at debug level only.
        """
        if not self.prints(new):
            return
        text = ("amended " + new.render_text(brief=True) if self.log_format == "full"
                else render_amendment(old, new, report=self.report))
        level = logging.DEBUG if new.caused_by else _LEVELS[new.severity]
        self.logger.log(level, "denpex: %s", text, extra={DIAGNOSIS_RECORD: new.code})

    def escalated(self, diagnosis: Diagnosis) -> None:
        """A diagnosis that got worse in place (a one-off turned persistent): one line."""
        if not self.prints(diagnosis):
            return
        text = ("escalated " + diagnosis.render_text(brief=True) if self.log_format == "full"
                else render_escalation(diagnosis, report=self.report))
        self.logger.log(_LEVELS[diagnosis.severity], "denpex: %s", text,
                        extra={DIAGNOSIS_RECORD: diagnosis.code})

    def summary(self, rank: int, primary: Diagnosis, others: list[str]) -> None:
        """The closing line: which diagnosis to fix first."""
        if not self.prints(primary):
            return
        # A collapse whose rank computed finite values may be another rank's to fix.
        elsewhere = ("; it may come from another rank: see their reports"
                     if may_be_another_ranks(primary) else "")
        self.logger.warning(
            "denpex: run summary (rank %d): fix %s first (%s, from step %s%s)%s",
            rank, primary.code, primary.title, primary.step, elsewhere,
            f"; also reported: {', '.join(others)}" if others else "",
            extra={DIAGNOSIS_RECORD: "summary"},
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
