"""A framework ending the run with its own error, read as evidence for the diagnosis it confirms.

DeepSpeed's dynamic loss scaler raises ``Current loss scale already at minimum - cannot decrease
scale anymore. Exiting run.`` from inside its optimizer step when an overflow comes at the scale
floor (checked on 0.19.8): the end of a collapse. The run's AMP003 is amended with the
framework's own words, or reported with them if the collapse was not reported yet.
"""

from __future__ import annotations

from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.run_state import RunState

__all__ = ["DEEPSPEED_MIN_SCALE", "confirmed_by_exit", "ends_the_run"]

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
        f"the framework stopped the run: {run.skip_streak} consecutive skipped steps drove "
        f"the loss scale from {run.skip_streak_start_scale} to its minimum {run.last_scale}",
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
