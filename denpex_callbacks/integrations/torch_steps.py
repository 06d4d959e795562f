"""Which optimizer step each ``monitor.step()`` call of a hand-written loop belongs to.

With an enabled GradScaler the steps are the scaler's ``update()`` calls, each read by its
reader; a call brings what only the loop knows (a step number, a grad norm, a re-run closure)
to the step it belongs to: the step whose ``update()`` came before it, or, for a call made
between ``scaler.step()`` and ``update()``, the step about to be updated (the call waits). A call
with no step of its own (a micro-batch under accumulation) brings nothing the scaler did not
see. Without a scaler, a call is a step, or, where the loop's optimizers are watched, an applied
``optimizer.step()`` is, and the calls between are its micro-batches (their losses averaged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from denpex_callbacks.readers.scale_reading import LossSum, ScaleReading

__all__ = ["Call", "LoopSteps", "Step"]


@dataclass
class Call:
    """What one ``monitor.step()`` call brought."""

    step: int | None = None
    loss: Any = None
    grad_norm: Any = None
    rerun: Callable[[], Any] | None = None
    targets: Any = None
    loss_fn: Callable[..., Any] | None = None


@dataclass
class Step:
    """One optimizer step to judge: its number, its reading, the call that belongs to it."""

    number: int
    reading: ScaleReading
    call: Call


class LoopSteps:
    """Numbers a loop's optimizer steps (from 0, or as the loop numbers them) and pairs them
    with the calls that belong to them.

    Example (a call before its update(), as some loops place it):
        >>> steps = LoopSteps()
        >>> steps.scaled(Call(loss=0.5), [], stepped=True)  # scaler.step() ran, update() not
        []
        >>> [(s.number, s.call.loss) for s in steps.scaled(Call(loss=0.7), [ScaleReading()],
        ...                                                 stepped=False)]
        [(0, 0.5)]
    """

    def __init__(self) -> None:
        self.next = 0  # the next optimizer step's number
        self.held: Call | None = None  # a call made before its step's update()
        self._losses = LossSum()  # the calls' losses, without a scaler
        self.applied = 0  # optimizer.step() calls since the last step, without a scaler

    def optimizer_stepped(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        """An optimizer's step post-hook: one more applied step (a step the GradScaler
        skipped never calls ``optimizer.step``)."""
        self.applied += 1

    def held_number(self) -> int | None:
        """The number the step a call waits for will get (None: no call waits)."""
        held = self.held
        if held is None:
            return None
        return self.next if held.step is None else held.step

    def _numbered(self, reading: ScaleReading, call: Call) -> Step:
        number = self.next if call.step is None else call.step
        self.next = number + 1
        return Step(number, reading, call)

    def scaled(self, call: Call, readings: list[ScaleReading], *, stepped: bool) -> list[Step]:
        """The steps the scaler's ``update()`` read since the last call, each with its call;
        ``stepped``: ``scaler.step()`` ran and this call comes before its ``update()``."""
        calls = [self.held] if self.held is not None else []
        self.held = call if stepped else None
        if not stepped:
            calls.append(call)
        return [self._numbered(reading, calls[i] if i < len(calls) else Call())
                for i, reading in enumerate(readings)]

    def unscaled(self, call: Call, *, optimizers_watched: bool) -> list[Step]:
        """No enabled scaler: this call's step, or none while the optimizer step it belongs
        to has not come yet."""
        self._losses.add(call.loss)
        if optimizers_watched and not self.applied:
            return []  # a micro-batch
        self.applied = 0
        return [self._numbered(ScaleReading(), replace(call, loss=self._losses.take(mean=True)))]

    def leftover(self, readings: list[ScaleReading]) -> list[Step]:
        """At the end: the steps read since the last call (a waiting call is theirs)."""
        held, self.held = self.held, None
        return [self._numbered(reading, held if i == 0 and held is not None else Call())
                for i, reading in enumerate(readings)]
