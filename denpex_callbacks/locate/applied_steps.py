"""Whether an optimizer step changed the watched parameters since a step's forward.

A re-run proves something only with the parameters the failing step used. :class:`AppliedSteps`
counts the optimizer steps that may have changed them, with a global optimizer step
post-hook (``torch.optim.optimizer.register_optimizer_step_post_hook``): it sees every
optimizer, whatever wraps it (accelerate's ``AcceleratedOptimizer``, Lightning's and Fabric's
wrappers call the real one) and however many there are, and counts those that hold a watched
parameter, or that the adapter named. A step GradScaler skips never reaches the hook
(``scaler.step`` does not call ``optimizer.step`` when it found an inf). The exception:
optimizers that unscale and skip inside their own kernel (``_step_supports_amp_scaling``:
``fused=True`` Adam, AdamW, SGD) are always called; GradScaler hands them its ``found_inf``
tensor as an attribute for the call. The hook keeps a reference to it (no copy, no sync), and
:meth:`AppliedSteps.applied_since` reads it only after a fault: nonzero means the kernel
skipped that step.

What this cannot see: parameters written outside an optimizer (a hand-written update, an
in-place edit of the weights between the forward and the re-run).

DeepSpeed's engine steps its optimizers itself and counts its applied updates:
:class:`CountedUpdates` reads that count instead.
"""

from __future__ import annotations

import functools
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

__all__ = ["FUSED_KEPT", "AppliedSteps", "CountedUpdates", "StepCounter", "inner_optimizer"]

FUSED_KEPT = 64  # recent fused steps whose found_inf is kept (a re-run looks a step or two back)


def inner_optimizer(optimizer: Any) -> Any:
    """The torch optimizer inside a framework's wrapper (accelerate's ``.optimizer``,
    Lightning's and Fabric's ``._optimizer``).

    Example:
        >>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
        >>> inner_optimizer(opt) is opt
        True
    """
    for _ in range(4):
        inner = getattr(optimizer, "_optimizer", None) or getattr(optimizer, "optimizer", None)
        if inner is None or inner is optimizer or not hasattr(inner, "param_groups"):
            break
        optimizer = inner
    return optimizer


class StepCounter(Protocol):
    """What a capture asks: a mark now, and later whether an update applied since."""

    def mark(self) -> int:
        """A value to compare with later (taken at a step's forward)."""

    def applied_since(self, mark: int) -> bool:
        """An update may have changed the parameters since ``mark`` was taken."""

    def close(self) -> None:
        """Remove any hook."""


class AppliedSteps:
    """Counts the optimizer steps that hold a watched parameter (or were named).

    Args:
        models: The watched modules (their parameters decide which optimizers count).
        optimizers: Optimizers that count whatever they hold (wrappers are unwrapped).

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1)
        >>> steps = AppliedSteps([model])
        >>> mark = steps.mark()
        >>> model(torch.ones(1, 2)).sum().backward()
        >>> steps.applied_since(mark), opt.step(), steps.applied_since(mark)
        (False, None, True)
        >>> steps.close()
    """

    def __init__(self, models: Iterable[torch.nn.Module], optimizers: Iterable[Any] = ()) -> None:
        self._models = list(models)
        self._counts: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
        for optimizer in optimizers:
            self._counts[inner_optimizer(optimizer)] = True
        self.calls = 0  # steps of counted optimizers so far
        # (call number, GradScaler's found_inf) of the steps a fused optimizer may have skipped
        self._fused: deque[tuple[int, torch.Tensor]] = deque(maxlen=FUSED_KEPT)
        # The hook holds this object weakly: a monitor never closed does not stay alive in
        # torch's global registry, and its hook goes with it.
        self._handle: Any = register_optimizer_step_post_hook(
            functools.partial(_counted, weakref.ref(self)))
        weakref.finalize(self, self._handle.remove)

    def _on_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        counts = self._counts.get(optimizer)
        if counts is None:  # an optimizer seen for the first time: does it hold ours?
            watched = {id(p) for model in self._models for p in model.parameters()}
            counts = any(id(p) in watched for group in optimizer.param_groups
                         for p in group["params"])
            self._counts[optimizer] = counts
        if not counts:
            return
        self.calls += 1
        found_inf = getattr(optimizer, "found_inf", None)  # set by GradScaler for this call
        if isinstance(found_inf, torch.Tensor):
            self._fused.append((self.calls, found_inf))

    def mark(self) -> int:
        """The count of steps so far."""
        return self.calls

    def applied_since(self, mark: int) -> bool:
        """A counted step ran since ``mark`` and was not skipped in its kernel (reads the
        fused steps' ``found_inf``: a sync, after a fault only)."""
        fused = dict(self._fused)
        for call in range(mark + 1, self.calls + 1):
            found_inf = fused.get(call)
            if found_inf is None or not bool(found_inf.detach().ne(0).any()):
                return True  # (a fused step whose found_inf is no longer kept counts too)
        return False

    def close(self) -> None:
        """Remove the hook. Safe to call twice."""
        self._handle.remove()


def _counted(steps: weakref.ref[AppliedSteps], optimizer: Any, args: Any, kwargs: Any) -> None:
    counter = steps()
    if counter is not None:
        counter._on_step(optimizer, args, kwargs)


class CountedUpdates:
    """A framework's own count of applied updates (DeepSpeed: global steps minus skipped
    ones), for optimizers that the post-hook does not see as stepping ours.

    Example:
        >>> applied = [3]
        >>> counter = CountedUpdates(lambda: applied[0])
        >>> mark = counter.mark()
        >>> applied[0] += 1
        >>> counter.applied_since(mark)
        True
    """

    def __init__(self, updates: Callable[[], int]) -> None:
        self._updates = updates

    def mark(self) -> int:
        """The count now."""
        return self._updates()

    def applied_since(self, mark: int) -> bool:
        """The count moved."""
        return self._updates() != mark

    def close(self) -> None:
        """Nothing to remove."""
