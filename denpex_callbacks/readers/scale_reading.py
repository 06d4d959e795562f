"""What a scale reader hands the pipeline for one optimizer step, the one interface every
adapter reads a run's steps through (:class:`StepReader`), and the step's loss sum.

Every value may be a device tensor (a snapshot no later call changes), a Python number, or
None (not known for this scaler). The pipeline copies the tensors off the device in one packed
non-blocking copy and judges the step once it has landed.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Protocol, TypeAlias

import torch

__all__ = ["READING_FIELDS", "LossSum", "NoScaler", "ScaleReading", "StepReader"]

Value: TypeAlias = "torch.Tensor | float | int | bool | None"


@dataclass
class ScaleReading:
    """One optimizer step as the loss scaler saw it.

    Attributes:
        scale_before: The scale the step's backward used.
        scale_after: The scale after the scaler's update.
        found_inf: > 0 when the step's gradients were non-finite (torch GradScaler).
        overflow: DeepSpeed's overflow flag for the step.
        skipped: Known outright to be skipped (or applied).
        growth_tracker: Consecutive clean steps counted by the GradScaler.
        hysteresis: DeepSpeed's remaining hysteresis.
        loss: The loss backpropagated in the step (its micro-batches summed), when the reader
            sees it (a GradScaler's ``scale()``); None otherwise.

    Example:
        >>> ScaleReading(scale_before=8.0, scale_after=4.0).values()
        {'scale_before': 8.0, 'scale_after': 4.0}
    """

    scale_before: Value = None
    scale_after: Value = None
    found_inf: Value = None
    overflow: Value = None
    skipped: Value = None
    growth_tracker: Value = None
    hysteresis: Value = None
    loss: Value = None

    def values(self) -> dict[str, Value]:
        """The fields that are known, by name."""
        # (A dataclass instance's __dict__ holds exactly its fields, in their order.)
        return {name: value for name, value in self.__dict__.items() if value is not None}


READING_FIELDS = tuple(field.name for field in fields(ScaleReading))


class StepReader(Protocol):
    """The run's scale reader, chosen once per run, as every adapter calls it: a
    :class:`~denpex_callbacks.readers.grad_scaler.GradScalerReader`, a
    :class:`~denpex_callbacks.readers.deepspeed_optimizer.DeepSpeedReader` or
    :class:`NoScaler`."""

    sees_loss: bool  # its readings carry the step's loss (a GradScaler's scale() sees it)

    def step_begins(self) -> None:
        """An optimizer step is about to run (where the scaler keeps no record of the scale
        before it, that scale is read now)."""

    def take(self) -> list[ScaleReading]:
        """The readings of the optimizer steps since the last take, oldest first."""


class NoScaler:
    """The reader of a run without a loss scaler: one empty reading per optimizer step begun.

    Example:
        >>> reader = NoScaler()
        >>> reader.step_begins(); reader.step_begins()
        >>> len(reader.take()), reader.take()
        (2, [])
    """

    sees_loss = False

    def __init__(self) -> None:
        self._steps = 0

    def step_begins(self) -> None:
        self._steps += 1

    def take(self) -> list[ScaleReading]:
        steps, self._steps = self._steps, 0
        return [ScaleReading() for _ in range(steps)]


class LossSum:
    """The loss of one optimizer step, summed over its micro-batches on the device.

    Summed in float32 (an fp16 sum of fp16 losses can overflow by itself); a loss of several
    values counts as its mean. Each added loss is copied, so a later in-place change of the
    caller's tensor changes nothing here.

    Example:
        >>> acc = LossSum()
        >>> acc.add(torch.tensor(1.0, dtype=torch.float16)); acc.add(torch.tensor([2.0, 4.0]))
        >>> float(acc.take(mean=False)), acc.take(mean=False)
        (4.0, None)
        >>> acc.add(torch.tensor(1.0)); acc.add(3.0)
        >>> float(acc.take(mean=True))
        2.0
    """

    def __init__(self) -> None:
        self._total: torch.Tensor | float | None = None
        self.count = 0  # losses added since the last take()

    def add(self, loss: Any) -> None:
        """Add one micro-batch's loss (a tensor of any shape, or a number; others ignored)."""
        value: torch.Tensor | float
        if isinstance(loss, torch.Tensor):
            count = loss.numel()
            if not count or not loss.is_floating_point():
                return
            if count != 1:
                value = loss.detach().float().mean()
            else:  # a copy in float32 (clone where it is float32 already: one op either way)
                value = loss.detach()
                value = value.clone() if value.dtype == torch.float32 else value.float()
                if value.ndim:
                    value = value.reshape(())
        elif isinstance(loss, (int, float)) and not isinstance(loss, bool):
            value = float(loss)
        else:
            return
        total = self._total
        if total is None:
            self._total = value
        elif isinstance(total, torch.Tensor) and isinstance(value, torch.Tensor):
            self._total = total + value.to(total.device)
        else:
            self._total = total + value  # a Python number on one side: no device to move to
        self.count += 1

    def take(self, *, mean: bool) -> torch.Tensor | float | None:
        """The sum (or the mean) so far, and start the next step; None when nothing was added."""
        total, count = self._total, self.count
        self._total, self.count = None, 0
        if total is None:
            return None
        return total / count if mean and count > 1 else total
