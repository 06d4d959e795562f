"""The one guard and the one lifecycle of every adapter.

- **guard**: :class:`Guard` (what :meth:`StepPipeline.guard` returns, a context manager) and
  :func:`guarded` (a method decorator, for adapter methods whose ``self.pipeline`` is the run's
  pipeline): an internal error is logged once, monitoring switches off, the adapter's hooks and
  wrappers go and the report is closed with its summary (``disabled: true``); training goes on.
  Only the user's policy (AmpDiagnosisError under ``"raise"``) reaches training.
- **lifecycle**: pipelines still open when the interpreter exits (a run ended by an exception
  the framework turned into no end-of-training call: DeepSpeed's exit at the minimum scale, an
  out-of-memory error, Ctrl-C) are closed then, so their reports get their summary.
"""

from __future__ import annotations

import atexit
import functools
import logging
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from denpex_callbacks.core.diagnosis import AmpDiagnosisError

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = ["LIVE_PIPELINES", "Guard", "guarded"]

_Method = TypeVar("_Method", bound=Callable[..., Any])


class Guard:
    """A context manager for adapter code: an internal error inside is handed to the
    pipeline's ``fail()`` and swallowed; AmpDiagnosisError (and what is no ``Exception``:
    Ctrl-C) passes through."""

    __slots__ = ("_pipeline",)

    def __init__(self, pipeline: StepPipeline) -> None:
        self._pipeline = pipeline

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: types.TracebackType | None) -> bool:
        if kind is None or not issubclass(kind, Exception) or issubclass(kind, AmpDiagnosisError):
            return False
        self._pipeline.fail()
        return True


def guarded(method: _Method) -> _Method:
    """Run an adapter method under its pipeline's guard; skipped while monitoring is off.

    Example:
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> from denpex_callbacks.integrations.pipeline import StepPipeline
        >>> class Adapter:
        ...     pipeline = StepPipeline(MonitorConfig(report_dir=None), framework="torch",
        ...                             logger=logging.getLogger("doctest.guarded"))
        ...     @guarded
        ...     def on_step(self):
        ...         return 1 / 0
        >>> Adapter().on_step() is None, Adapter.pipeline.active
        (True, False)
    """

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        pipeline: StepPipeline | None = self.pipeline
        if pipeline is None or not pipeline.active:
            return None
        with pipeline.guard():
            return method(self, *args, **kwargs)
        return None

    return cast(_Method, wrapper)


# The pipelines to close at interpreter exit if they are still open then (a pipeline adds
# itself as it is built and leaves as it closes); held weakly, so a finished run can be freed
# before the interpreter exits.
LIVE_PIPELINES: weakref.WeakSet[StepPipeline] = weakref.WeakSet()


@atexit.register
def _close_live_pipelines() -> None:
    # At exit a log handler's stream may be closed already (pytest's capture is): the report
    # still gets its summary; the log line is dropped quietly instead of logging's dump.
    quiet, logging.raiseExceptions = logging.raiseExceptions, False
    try:
        for pipeline in list(LIVE_PIPELINES):
            try:
                pipeline.close()
            except Exception:  # AmpDiagnosisError of a last step: nothing is left to raise to
                pipeline.logger.debug("denpex: closing at exit failed", exc_info=True)
    finally:
        logging.raiseExceptions = quiet
