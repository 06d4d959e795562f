"""The edges of a watched DeepSpeed run: an engine it cannot watch, DeepSpeed's own exit at the
minimum loss scale, and monitors still open at interpreter exit.
"""

from __future__ import annotations

import atexit
import logging
import weakref
from typing import Any

from denpex_callbacks.core.detectors.scale_collapse import ScaleCollapseDetector
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.monitor import Monitor

__all__ = ["LIVE", "min_scale_exit_finding", "refuse_pipeline_engine"]


def refuse_pipeline_engine(engine: Any) -> None:
    """Refuse a PipelineEngine, whose ``train_batch()`` steps without ``engine.step()``.

    Raises:
        ValueError: ``engine`` is a PipelineEngine.
    """
    from deepspeed.runtime.pipe.engine import PipelineEngine

    if isinstance(engine, PipelineEngine):
        raise ValueError(
            "denpex_callbacks.deepspeed does not watch a PipelineEngine yet: train_batch() "
            "runs its optimizer step without engine.step(). Remove the \"denpex\" section "
            "(or set \"enabled\": false) for pipeline-parallel runs, and use "
            "`denpex diagnose` on the training log instead."
        )


def min_scale_exit_finding(monitor: Monitor, step: int, exc: Exception) -> Finding | None:
    """AMP003 for DeepSpeed's exit at the minimum loss scale (``exc``, raised at ``step``),
    unless the monitor reported the collapse already (None then): the engine's collapse
    detector holds one that the scale never recovered from, or an AMP003 began in this
    streak."""
    run = monitor.run
    start = run.skip_streak_start
    if any(isinstance(d, ScaleCollapseDetector) and d.collapse_open for d in monitor.detectors):
        return None
    if any(d.code == "AMP003" and start is not None and d.step is not None and d.step >= start
           for d in monitor.diagnoses):
        return None
    return Finding(
        "AMP003",
        start if start is not None else step,
        f"DeepSpeed stopped the run: {run.skip_streak} consecutive skipped steps drove "
        f"the loss scale from {run.skip_streak_start_scale} to its minimum "
        f"{run.last_scale}",
        evidence={
            "consecutive_skipped": run.skip_streak,
            "scale_at_start": run.skip_streak_start_scale,
            "scale_now": run.last_scale,
            "skipped_total": run.skipped_total,
            "history": run.history(),
        },
        quotes=(str(exc),),
    )


# Monitors still open at interpreter exit get their report summary written then; held weakly
# so that a finished engine (and its model) can be freed before. (Anything with close().)
LIVE: weakref.WeakSet[Any] = weakref.WeakSet()


@atexit.register
def _close_live_monitors() -> None:
    # At exit a log handler's stream may be closed already (pytest's capture is): the report
    # file still gets its summary; the log line is dropped quietly instead of logging's
    # "--- Logging error ---" dump.
    quiet, logging.raiseExceptions = logging.raiseExceptions, False
    try:
        for monitor in list(LIVE):
            monitor.close()
    finally:
        logging.raiseExceptions = quiet
