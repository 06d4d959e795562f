"""The guard of the Trainer callback's hooks: an internal error turns monitoring off, once.

A hook that runs at every step inlines it instead (a frame costs a microsecond there); the
others are decorated.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from denpex_callbacks.core.diagnosis import AmpDiagnosisError

__all__ = ["guarded"]

_Hook = TypeVar("_Hook", bound=Callable[..., Any])


def guarded(hook: _Hook) -> _Hook:
    """Run a hook under the pipeline's guard (an internal error turns monitoring off).

    Only the user's policy (AmpDiagnosisError under ``"raise"``) passes through; the report is
    closed first, because ``on_train_end`` will not come.
    """

    @wraps(hook)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        pipeline = self.pipeline
        if pipeline is None or pipeline.monitor.disabled:
            return None
        try:  # StepPipeline.guard without its extra call: this runs several times per step
            result = hook(self, *args, **kwargs)
        except AmpDiagnosisError:
            self._close(wait=False)
            raise
        except Exception:
            pipeline.monitor.switch_off()
            result = None
        if pipeline.monitor.disabled:  # it failed just now (here or in the engine): unhook all
            self._close(wait=False)
        return result

    return cast(_Hook, wrapper)
