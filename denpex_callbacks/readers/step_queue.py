"""The steps a pipeline has snapshotted and not judged yet, in order.

A step's values (a :class:`~denpex_callbacks.readers.scale_reading.ScaleReading` and what the
adapter adds: learning rate, grad norm, time) are split once: tensors that live on the device
go through the run's device boundary in one packed copy, everything else is a host number read
now. The queue hands a step back, as plain numbers, once its copy has landed; the steps go in
the order they were taken. The boundary is chosen at the first tensor seen (the run's device).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from denpex_callbacks.core.observation import Observation
from denpex_callbacks.readers.device_boundary import DeviceBoundary, Slot, boundary_for

__all__ = ["StepQueue", "observation_of", "quiet_taken", "skipped_of"]

_UNCHOSEN = object()
# Monitor.take_quiet: (step, loss, scale_before, scale_after, skipped, growth_tracker,
# grad_norm) -> taken
QuietTake = Callable[[int, float | None, float | None, float | None, bool | None, int | None,
                      float | None], bool]


@dataclass
class PendingStep:
    """One step in the queue: its host numbers now, its device values once landed."""

    step: int
    numbers: dict[str, Any]
    names: list[str]  # of the values in ``slot``, in order
    slot: Slot | None


class StepQueue:
    """Snapshots of steps, each handed back once readable.

    Example:
        >>> queue = StepQueue()
        >>> queue.push(7, {"scale_after": torch.tensor(1024.0), "loss": 0.5, "lr": None})
        >>> [(step, sorted(values.items())) for step, values in queue.ready(wait=True)]
        [(7, [('loss', 0.5), ('scale_after', 1024.0)])]
    """

    def __init__(self) -> None:
        self._pending: deque[PendingStep] = deque()
        self._boundary: Any = _UNCHOSEN

    def __len__(self) -> int:
        return len(self._pending)

    @property
    def boundary(self) -> DeviceBoundary | None:
        """The run's device boundary (None: host numbers only, or not chosen yet)."""
        return None if self._boundary is _UNCHOSEN else self._boundary

    def push(self, step: int, values: dict[str, Any]) -> None:
        """Snapshot ``values`` (tensors, numbers or None; None values are dropped)."""
        numbers: dict[str, Any] = {}
        names: list[str] = []
        tensors: list[torch.Tensor] = []
        for name, value in values.items():
            if value is None:
                continue
            if not isinstance(value, torch.Tensor):
                numbers[name] = value
                continue
            boundary = self._boundary
            if boundary is _UNCHOSEN:
                boundary = self._boundary = boundary_for(value.device)
            if value.numel() == 0:
                continue
            if boundary is not None and boundary.takes(value):
                names.append(name)
                tensors.append(value)
            else:  # a host tensor: item() waits for nothing
                numbers[name] = (value.item() if value.numel() == 1
                                 else value.detach().reshape(-1)[0].item())
        slot = self._boundary.copy(tensors) if tensors else None
        self._pending.append(PendingStep(step, numbers, names, slot))

    def ready(self, *, wait: bool = False) -> list[tuple[int, dict[str, Any]]]:
        """The steps whose values have landed (``wait``: all of them), oldest first."""
        out: list[tuple[int, dict[str, Any]]] = []
        pending = self._pending
        while pending:
            first = pending[0]
            slot = first.slot
            if slot is not None and not wait and not slot.ready():
                break
            pending.popleft()
            values = dict(first.numbers)
            if slot is not None:
                values.update(zip(first.names, slot.values(wait=True), strict=True))
            out.append((first.step, values))
        return out


def observation_of(step: int, values: dict[str, Any], *, rank: int = 0,
                   world_size: int = 1) -> Observation:
    """The Observation of one step's plain values.

    Whether the step was skipped: ``skipped`` when given, else found_inf > 0, else DeepSpeed's
    ``overflow``, else unknown (the Observation infers it from a fall of the scale).

    Example:
        >>> obs = observation_of(3, {"scale_before": 8.0, "scale_after": 4.0, "found_inf": 1.0,
        ...                          "loss": float("nan")})
        >>> obs.skipped, math.isnan(obs.loss)
        (True, True)
    """
    get = values.get
    return Observation(
        step=step, rank=rank, world_size=world_size,
        scale_before=_float(get("scale_before")), scale_after=_float(get("scale_after")),
        skipped=skipped_of(values),
        loss=_float(get("loss")), grad_norm=_float(get("grad_norm")), lr=_float(get("lr")),
        growth_tracker=_integer(get("growth_tracker")), hysteresis=_integer(get("hysteresis")),
        time=_float(get("time")),
    )


def skipped_of(values: dict[str, Any]) -> bool | None:
    """Whether a step was skipped: ``skipped`` when given, else found_inf > 0, else
    DeepSpeed's ``overflow``, else None (unknown)."""
    get = values.get
    skipped, found_inf = get("skipped"), get("found_inf")
    if skipped is None and found_inf is not None:
        skipped = float(found_inf) > 0
    if skipped is None and isinstance(get("overflow"), (bool, float, int)):
        skipped = bool(get("overflow"))
    return None if skipped is None else bool(skipped)


def quiet_taken(take: QuietTake, step: int, values: dict[str, Any]) -> bool:
    """Offer a step's plain values to the engine's quiet path (``Monitor.take_quiet``)
    without building its Observation: True when it was taken (a healthy step nothing can
    fire on; see :class:`~denpex_callbacks.core.quiet_steps.QuietSteps`).

    Example:
        >>> from denpex_callbacks.core.monitor import Monitor
        >>> from denpex_callbacks.core.config import MonitorConfig
        >>> monitor = Monitor(MonitorConfig(report_dir=None))
        >>> for step in range(40):
        ...     _ = monitor.observe(observation_of(step, {"scale_before": 8.0,
        ...                                               "scale_after": 8.0, "loss": 1.0}))
        >>> quiet_taken(monitor.take_quiet, 40, {"scale_before": 8.0, "scale_after": 8.0,
        ...                                      "found_inf": 0.0, "loss": 0.9})
        True
        >>> monitor.last_observation.step
        40
    """
    get = values.get
    loss = get("loss")
    if loss is None:
        return False  # (a quiet step needs a finite loss)
    return take(step, float(loss), _float(get("scale_before")), _float(get("scale_after")),
                skipped_of(values), _integer(get("growth_tracker")), _float(get("grad_norm")))


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _integer(value: Any) -> int | None:
    if value is None:
        return None
    number = float(value)
    return int(number) if math.isfinite(number) else None
