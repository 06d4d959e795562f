"""A framework ending the run with its own error, read as evidence for the diagnosis it confirms.

DeepSpeed's dynamic loss scaler raises ``Current loss scale already at minimum - cannot decrease
scale anymore. Exiting run.`` from inside its optimizer step when an overflow comes at the scale
floor (checked on 0.19.8): the end of a collapse. The run's AMP003 is amended with the
framework's own words, or reported with them if the collapse was not reported yet.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from denpex_callbacks.core.detectors.scale_collapse import ScaleCollapseDetector
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.run_state import RunState

if TYPE_CHECKING:
    from denpex_callbacks.core.monitor import Monitor

__all__ = ["DEEPSPEED_MIN_SCALE", "confirmed_by_exit", "ends_the_run", "read_exit"]

DEEPSPEED_MIN_SCALE = "Current loss scale already at minimum"


def ends_the_run(message: str) -> bool:
    """Whether ``message`` is a framework's own exit this module reads.

    Example:
        >>> ends_the_run("Current loss scale already at minimum - cannot decrease scale "
        ...              "anymore. Exiting run."), ends_the_run("CUDA out of memory")
        (True, False)
    """
    return DEEPSPEED_MIN_SCALE in message


def confirmed_by_exit(run: RunState, diagnoses: list[Diagnosis], step: int, message: str, *,
                      collapse_open: bool = False) -> tuple[Diagnosis | None, Finding | None]:
    """The collapse diagnosis the exit at ``step`` confirms, already reported (to amend), or
    the finding to report when it was not (the other is None). ``collapse_open``: the engine's
    collapse detector holds an episode the scale never recovered from (its AMP003 may have
    begun in an earlier streak of skips).

    Example:
        >>> run = RunState()
        >>> held, new = confirmed_by_exit(run, [], 9, DEEPSPEED_MIN_SCALE + ".")
        >>> held is None, new.code, new.quotes
        (True, 'AMP003', ('Current loss scale already at minimum.',))
    """
    start = run.skip_streak_start
    for diagnosis in reversed(diagnoses):
        if diagnosis.code == "AMP003" and (collapse_open or start is None
                                           or diagnosis.step is None or diagnosis.step >= start):
            return diagnosis, None
    return None, Finding(
        "AMP003",
        start if start is not None else step,
        f"{run.skip_streak} consecutive skipped steps drove the loss scale from "
        f"{run.skip_streak_start_scale} to its minimum {run.last_scale}; the framework ended "
        f"the run: {message}",
        evidence={
            "consecutive_skipped": run.skip_streak,
            "scale_at_start": run.skip_streak_start_scale,
            "scale_now": run.last_scale,
            "skipped_total": run.skipped_total,
            "history": run.history(),
            "framework_exit": message,
        },
        quotes=(message,),
    )


def read_exit(monitor: Monitor, step: int, message: str) -> Finding | None:
    """Amend the diagnosis the framework's exit at ``step`` confirms with its words, or return
    the finding to report when none was reported (the caller flags it).

    Example:
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> from denpex_callbacks.core.monitor import Monitor
        >>> read_exit(Monitor(MonitorConfig(report_dir=None)), 9, DEEPSPEED_MIN_SCALE).code
        'AMP003'
    """
    collapse_open = any(isinstance(d, ScaleCollapseDetector) and d.collapse_open
                        for d in monitor.detectors)
    held, new = confirmed_by_exit(monitor.run, monitor.diagnoses, step, message,
                                  collapse_open=collapse_open)
    if held is not None:
        monitor.amend(held.code, step=held.step, evidence={"framework_exit": message},
                      summary=f"{held.summary}; the framework ended the run: {message}")
    return new
