"""The evaluation stream, live: values computed in evaluation, judged apart from training.

An adapter counts each evaluation batch's loss here, on the loss's device (no host-device sync
per batch), and reads the count once the evaluation is over, where its framework has synced
anyway (HF's ``on_evaluate``, Lightning's ``on_validation_end``), and hands the count, the
metrics its framework reduced and the step to :meth:`EvaluationStream.end`: one AMP013 per
evaluation at most, judged in plain numbers by
:func:`~denpex_callbacks.core.evaluation_finding.evaluation_finding`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import torch

from denpex_callbacks.core.evaluation_finding import EvaluationCount, evaluation_finding

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = ["EvaluationLosses", "EvaluationStream", "host_numbers"]


class EvaluationLosses:
    """Counts one evaluation's batch losses and the non-finite ones, on their device.

    Example:
        >>> losses = EvaluationLosses()
        >>> for value in (1.0, float("nan"), 2.0, float("inf")):
        ...     losses.add(torch.tensor(value))
        >>> losses.take()
        EvaluationCount(batches=4, nan_batches=1, inf_batches=1)
        >>> losses.take().batches
        0
    """

    def __init__(self) -> None:
        self._flags: torch.Tensor | None = None  # [NaN batches, inf batches], on the device
        self._batches = 0

    def add(self, loss: Any) -> None:
        """Count one evaluation batch's loss (a floating tensor of any shape; others are
        ignored). Nothing is read from the device."""
        if not isinstance(loss, torch.Tensor) or not loss.is_floating_point():
            return
        loss = loss.detach()
        nan = torch.isnan(loss).any()
        flags = torch.stack([nan, torch.isinf(loss).any() & ~nan])
        self._flags = flags.long() if self._flags is None else self._flags + flags
        self._batches += 1

    def take(self) -> EvaluationCount:
        """The count so far, and start the next evaluation. Reads the device (a sync on a
        GPU): call it only where the framework has read its own evaluation results."""
        flags, batches = self._flags, self._batches
        self._flags, self._batches = None, 0
        if flags is None:
            return EvaluationCount()
        nan, inf = (int(value) for value in flags.tolist())
        return EvaluationCount(batches, nan, inf)

    def drop(self) -> None:
        """Forget what was counted (losses seen outside an evaluation)."""
        self._flags, self._batches = None, 0


def host_numbers(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """``metrics`` with each one-value floating tensor read as a Python float (other values
    as they are). Reads the device: call it where the framework has read its metrics already.

    Example:
        >>> host_numbers({"val_loss": torch.tensor(float("nan")), "epoch": 1})
        {'val_loss': nan, 'epoch': 1}
    """
    return {name: value.item() if isinstance(value, torch.Tensor) and value.numel() == 1
            and value.is_floating_point() else value for name, value in metrics.items()}


class EvaluationStream:
    """One adapter's evaluations: each batch's loss counted on the device (``losses``), and
    each evaluation judged once it is over (:meth:`end`), one AMP013 per episode: a run of
    evaluations that are all non-finite (the same bad sample at every evaluation is one
    condition); a finite evaluation ends the episode, so a NaN that comes back is said again.
    """

    def __init__(self) -> None:
        self.losses = EvaluationLosses()
        self._in_episode = False  # the last evaluation was non-finite

    def end(self, pipeline: StepPipeline, step: int, metrics: Mapping[str, Any], *,
            loss_metric: str, filtered: bool = False) -> None:
        """The evaluation at training step ``step`` is over and its framework has read its
        results to the host: reading the count adds no wait, nor does judging the training
        steps still in flight, which go first (a NaN training loss before makes this
        evaluation its consequence). ``metrics``, ``loss_metric`` and ``filtered`` as for
        :func:`~denpex_callbacks.core.evaluation_finding.evaluation_finding`."""
        pipeline.drain(wait=True)
        finding = evaluation_finding(step, self.losses.take(), host_numbers(metrics),
                                     loss_metric=loss_metric, filtered=filtered)
        began, self._in_episode = not self._in_episode, finding is not None
        if finding is not None and began:
            pipeline.flag(finding, step, once=False)
