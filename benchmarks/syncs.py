"""Counting host-device synchronisations with torch's sync debug mode, and hook time.

``torch.cuda.set_sync_debug_mode("warn")`` makes every synchronising CUDA operation (``.item()``,
``float(tensor)``, a blocking device-to-host copy...) emit a warning. :class:`SyncCounter`
counts those warnings over a whole run, and separately while the adapter's own per-step code
runs (its hook methods, wrapped per instance or per class). Warnings rather than ``"error"``:
the adapters guard their hooks, so an error would be swallowed and turn monitoring off instead
of showing.

The same wrappers time the adapter's code, in wall time and in the thread's CPU time (which
another process on a loaded machine does not inflate). Where the adapter wraps a framework
method (the GradScaler's methods, ``engine.step``), the framework's own call inside is wrapped
as *excluded* (:meth:`SyncCounter.exclude`): its time (and any hook of the adapter it calls,
timed again as the adapter's) is taken out.

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
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

_wall_ns = time.perf_counter_ns
_cpu_ns = time.thread_time_ns

SYNC_MESSAGE = "synchroniz"  # "called a synchronizing CUDA operation"


def _noop() -> None:
    """What :meth:`SyncCounter.probe` times: nothing, inside the same wrapper as a hook."""


class SyncCounter:
    """Counts synchronising CUDA operations during a run and inside wrapped methods.

    The wrapped methods (the adapter's per-step hooks) are also timed: ``hook_seconds`` is the
    wall time spent inside them, ``hook_cpu_seconds`` the thread's CPU time there: the
    adapter's own cost without the noise of whole steps. Nested watched calls count once, and
    calls wrapped by :meth:`exclude` (the framework's own method under an adapter's wrapper)
    not at all.

    Args:
        enabled: Set the sync debug mode (CUDA only); False counts nothing.
        timing: Wrap and time the watched methods. False wraps nothing (``watch``,
            ``exclude`` and ``watching_class`` leave their targets as they are, ``probe`` does
            nothing): a run whose step time is compared with another's, without the timer's
            own cost (two clock reads per switch, one of them a system call) in it.

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

    def __init__(self, enabled: bool, *, timing: bool = True) -> None:
        self.enabled = enabled
        self.timing = timing
        self.total = 0
        self.in_hooks = 0
        self.hook_calls = 0
        # Framework calls made from the adapter's own code (its wrapper calling the method it
        # wraps): their timer runs in part while the adapter's time is counted, as a watched
        # call's does, so they pay the timer's cost once each as well.
        self.nested_framework_calls = 0
        self.hook_seconds = 0.0
        self.hook_cpu_seconds = 0.0
        self.sources: collections.Counter[str] = collections.Counter()
        self._hooks: list[str] = []  # the watched methods running now, innermost last
        # Whose code runs now, innermost last: True the adapter's, False the framework's own
        # call under an adapter's wrapper. Time is counted while the innermost is True.
        self._mine: list[bool] = []
        self._since = (0, 0)  # (wall, cpu) ns when the innermost entry began or resumed
        # The timer's own cost per watched call: a watched no-op timed by :meth:`probe`.
        self.probe_seconds: list[float] = []
        self.probe_cpu_seconds: list[float] = []
        self._noop = self._counted(_noop)

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
                if self._hooks and self._mine and self._mine[-1]:
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
        if not self.timing:
            return []
        wrapped = []
        for name in names:
            method = getattr(owner, name, None)
            if callable(method):
                setattr(owner, name, self._counted(method))
                wrapped.append(name)
        return wrapped

    def exclude(self, owner: Any, names: Iterable[str]) -> list[str]:
        """Wrap ``owner``'s methods ``names`` (instance attributes) as the framework's own
        work: time inside them is not the adapter's, even when an adapter's wrapper calls them.

        Wrap them *before* the adapter wraps them, so that the adapter's wrapper calls these.
        """
        if not self.timing:
            return []
        wrapped = []
        for name in names:
            method = getattr(owner, name, None)
            if callable(method):
                owner.__dict__[name] = self._timed(method, mine=False)
                wrapped.append(name)
        return wrapped

    @contextlib.contextmanager
    def watching_class(self, cls: type, names: Iterable[str]) -> Iterator[None]:
        """Watch methods ``names`` of every instance of ``cls`` while the block runs (for
        hooks an adapter registers from objects it builds itself, such as the re-run
        capture's forward pre-hook). The class is restored afterwards."""
        saved = {name: cls.__dict__[name] for name in names
                 if name in cls.__dict__ and self.timing}
        for name, function in saved.items():
            setattr(cls, name, self._counted(function))
        try:
            yield
        finally:
            for name, function in saved.items():
                setattr(cls, name, function)

    def probe(self) -> None:
        """Time one watched no-op through the same wrapper, apart from the hook totals.

        Called at the end of each step (where the hooks run, the step has left the caches
        cold as well): what the wrapper itself adds to each watched call, entering and
        leaving, is what a watched method that does nothing measures. :meth:`timer_cost`
        gives the median.

        Example:
            >>> counter = SyncCounter(enabled=False)
            >>> counter.probe()
            >>> counter.timer_cost() > 0, counter.hook_calls, counter.hook_seconds
            (True, 0, 0.0)
        """
        if not self.timing:
            return
        wall, cpu, calls = self.hook_seconds, self.hook_cpu_seconds, self.hook_calls
        self._noop()
        self.probe_seconds.append(self.hook_seconds - wall)
        self.probe_cpu_seconds.append(self.hook_cpu_seconds - cpu)
        self.hook_seconds, self.hook_cpu_seconds, self.hook_calls = wall, cpu, calls

    def timer_cost(self, *, cpu: bool = False) -> float | None:
        """Median seconds the wrapper adds to one watched call (None: never probed)."""
        probes = self.probe_cpu_seconds if cpu else self.probe_seconds
        return statistics.median(probes) if probes else None

    def _counted(self, method: Callable[..., Any]) -> Callable[..., Any]:
        return self._timed(method, mine=True)

    def _timed(self, method: Callable[..., Any], *, mine: bool) -> Callable[..., Any]:
        name = getattr(method, "__name__", "hook")

        @functools.wraps(method)
        def timed(*args: Any, **kwargs: Any) -> Any:
            if mine:
                self.hook_calls += 1
                self._hooks.append(name)
            elif self._mine and self._mine[-1]:
                self.nested_framework_calls += 1
            self._switch(mine)
            try:
                return method(*args, **kwargs)
            finally:
                self._switch(None)
                if mine:
                    self._hooks.pop()

        return timed

    def _switch(self, mine: bool | None) -> None:
        """Enter code of the adapter (True) or of the framework (False), or leave (None).

        The wall clock is read first and last, around the CPU clock (a system call of about
        a microsecond here): the wall time counted leaves it out.
        """
        wall, cpu = _wall_ns(), _cpu_ns()
        stack = self._mine
        if stack and stack[-1]:  # the adapter's code ran since the last switch
            self.hook_seconds += (wall - self._since[0]) * 1e-9
            self.hook_cpu_seconds += (cpu - self._since[1]) * 1e-9
        if mine is None:
            stack.pop()
        else:
            stack.append(mine)
        self._since = (_wall_ns(), cpu)

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


def hook_names(callback: Any, own: str | None = None) -> list[str]:
    """The per-step hook methods of a callback (``on_*`` and ``step``, once-per-run excluded).

    Args:
        callback: The callback.
        own: Only the methods defined in modules whose name starts with this (the adapter's
            own code, not the no-op hooks it inherits from the framework's base class).

    Example:
        >>> class Base:
        ...     def on_step_begin(self): ...
        >>> class Callback(Base):
        ...     def on_step_end(self): ...
        ...     def on_train_end(self): ...
        >>> hook_names(Callback()), hook_names(Callback(), own="denpex_callbacks")
        (['on_step_begin', 'on_step_end'], [])
    """
    kind = type(callback)

    def defined_by(name: str) -> str:
        owner = next((c for c in kind.__mro__ if name in c.__dict__), kind)
        return owner.__module__

    return sorted(
        name for name in dir(kind)
        if (name.startswith("on_") or name == "step")
        and name not in ONCE_PER_RUN
        and callable(getattr(callback, name))
        and (own is None or defined_by(name).startswith(own))
    )
