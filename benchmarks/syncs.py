"""Counting host-device synchronisations with torch's sync debug mode, and hook time.

``torch.cuda.set_sync_debug_mode("warn")`` makes every synchronising CUDA operation (``.item()``,
``float(tensor)``, a blocking device-to-host copy...) emit a warning. :class:`SyncCounter`
counts those warnings over a whole run, and separately while the adapter's own per-step code
runs (its hook methods, wrapped per instance). Warnings rather than ``"error"``: the adapters
guard their hooks, so an error would be swallowed and turn monitoring off instead of showing.

Code that records warnings itself (``warnings.catch_warnings(record=True)``) while training runs
hides them from the counter; the GPU check's control (a naive monitor must add a sync per
step) says when the count is blind.

On CPU there is nothing to synchronise and the mode cannot be set: a disabled counter runs the
same wrapping code and counts zero, which is what the ``--cpu`` dry run exercises.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

SYNC_MESSAGE = "synchroniz"  # "called a synchronizing CUDA operation"


class SyncCounter:
    """Counts synchronising CUDA operations during a run and inside wrapped methods.

    The wrapped methods (the adapter's per-step hooks) are also timed: ``hook_seconds`` is the
    wall time spent inside them, the adapter's own cost without the noise of whole steps.

    Args:
        enabled: Set the sync debug mode (CUDA only); False counts nothing.

    Example:
        >>> counter = SyncCounter(enabled=False)
        >>> class Hooks:
        ...     def on_step_end(self):
        ...         return 1
        >>> hooks = Hooks()
        >>> counter.watch(hooks, ["on_step_end"])
        ['on_step_end']
        >>> with counter.counting():
        ...     hooks.on_step_end()
        1
        >>> counter.total, counter.in_hooks, counter.hook_calls
        (0, 0, 1)
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.total = 0
        self.in_hooks = 0
        self.hook_calls = 0
        self.hook_seconds = 0.0
        self.sources: collections.Counter[str] = collections.Counter()
        self._hooks: list[str] = []  # the watched methods running now, innermost last

    @contextlib.contextmanager
    def counting(self) -> Iterator[SyncCounter]:
        """Count syncs while the block runs (the mode is restored afterwards)."""
        with warnings.catch_warnings():
            warnings.filterwarnings("always", message=f".*{SYNC_MESSAGE}")
            shown = warnings.showwarning

            def record(message: Any, category: Any, filename: str, lineno: int,
                       *args: Any, **kwargs: Any) -> None:
                if SYNC_MESSAGE not in str(message):
                    shown(message, category, filename, lineno, *args, **kwargs)
                    return
                # Where: the Python line that called the synchronising operation.
                self.total += 1
                where = f"{filename}:{lineno}"
                if self._hooks:
                    self.in_hooks += 1
                    where = f"{where} (in {self._hooks[-1]})"
                self.sources[where] += 1

            warnings.showwarning = record
            self._set_mode("warn")
            try:
                yield self
            finally:
                self._set_mode("default")

    def watch(self, owner: Any, names: Iterable[str]) -> list[str]:
        """Wrap ``owner``'s methods ``names`` (those it has) so syncs in them count apart."""
        wrapped = []
        for name in names:
            method = getattr(owner, name, None)
            if callable(method):
                setattr(owner, name, self._counted(method))
                wrapped.append(name)
        return wrapped

    def _counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.hook_calls += 1
            self._hooks.append(method.__name__)
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.hook_seconds += time.perf_counter() - start
                self._hooks.pop()

        return counted

    def _set_mode(self, mode: str) -> None:
        if self.enabled:
            import torch

            torch.cuda.set_sync_debug_mode(mode)

    def summary(self, steps: int) -> dict[str, Any]:
        """Counts as a JSON-friendly dict."""
        return {
            "counted": self.enabled,
            "syncs_total": self.total,
            "syncs_per_step": round(self.total / steps, 3) if steps else None,
            "syncs_in_adapter_hooks": self.in_hooks,
            "adapter_hook_calls": self.hook_calls,
            "top_sources": dict(self.sources.most_common(8)),
        }


# Hooks that run once per run (set-up, the final drain and report): allowed to wait.
ONCE_PER_RUN = frozenset({
    "on_init_end", "on_train_begin", "on_train_end", "on_fit_start", "on_fit_end",
    "on_exception", "on_save", "on_save_checkpoint", "on_load_checkpoint", "on_evaluate",
    "on_validation_end", "on_predict", "on_sanity_check_start", "on_sanity_check_end",
})


def hook_names(callback: Any) -> list[str]:
    """The per-step hook methods of a callback (``on_*`` and ``step``, once-per-run excluded).

    Example:
        >>> class Callback:
        ...     def on_step_end(self): ...
        ...     def on_train_end(self): ...
        >>> hook_names(Callback())
        ['on_step_end']
    """
    return sorted(
        name for name in dir(type(callback))
        if (name.startswith("on_") or name == "step")
        and name not in ONCE_PER_RUN
        and callable(getattr(callback, name))
    )
