"""The evaluation stream, live: values computed in evaluation, judged apart from training.

An evaluation loss or metric that is NaN/inf is not the training loss, and no loss scaler
protects the evaluation forward. HF's ``logging_nan_inf_filter`` (from transformers 5.23) also
leaves non-finite evaluation batches out of ``eval_loss``, so the logged number can be finite
while half the batches were NaN. An adapter counts each evaluation batch's loss here, on the
loss's device (no host-device sync per batch), and reads the count once the evaluation is over,
where its framework has synced anyway (HF's ``on_evaluate``, Lightning's
``on_validation_end``), and hands the count, the metrics its framework reduced and the step to
:meth:`EvaluationStream.end`: one AMP013 per evaluation at most, with the evidence shape of the
log doctor's (:mod:`denpex_callbacks.logs.evaluation`): ``{"phase": "evaluation", "metric",
"value", "step", ...}``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.numbers import format_value

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = ["EvaluationCount", "EvaluationLosses", "EvaluationStream",
           "evaluation_finding", "nonfinite_metrics"]

CODE = "AMP013"


@dataclass(frozen=True)
class EvaluationCount:
    """One evaluation's batches as its losses were counted.

    Attributes:
        batches: Evaluation batches whose loss was seen.
        nan_batches: Those whose loss held a NaN.
        inf_batches: Those whose loss held an inf (and no NaN).
    """

    batches: int = 0
    nan_batches: int = 0
    inf_batches: int = 0

    @property
    def nonfinite_batches(self) -> int:
        """Batches whose loss was NaN or inf."""
        return self.nan_batches + self.inf_batches


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


def nonfinite_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The metrics that are NaN/inf numbers (a one-value tensor counts; others are skipped).

    Reads a tensor's value: call it where the framework has read its metrics already.

    Example:
        >>> nonfinite_metrics({"eval_loss": float("nan"), "eval_runtime": 0.5, "epoch": 1})
        {'eval_loss': nan}
    """
    found: dict[str, float] = {}
    for name, value in metrics.items():
        if isinstance(value, torch.Tensor):
            if value.numel() != 1 or not value.is_floating_point():
                continue
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            found[str(name)] = value
    return found


def evaluation_finding(step: int, count: EvaluationCount, metrics: Mapping[str, Any], *,
                       loss_metric: str, filtered: bool = False) -> Finding | None:
    """AMP013 for one evaluation at training step ``step``, or None when it was finite.

    Args:
        step: The training step the evaluation ran at (as the adapter numbers steps).
        count: Its batch losses, as :class:`EvaluationLosses` counted them.
        metrics: The metrics the framework computed for it (HF's ``on_evaluate`` metrics,
            Lightning's validation metrics); the numbers among them are checked.
        loss_metric: The name of the evaluation loss (``eval_loss``, ``val_loss``...).
        filtered: The framework leaves non-finite batches out of its evaluation loss (HF's
            ``logging_nan_inf_filter`` from transformers 5.23).

    Example:
        >>> finding = evaluation_finding(40, EvaluationCount(8, 4, 0), {"eval_loss": 4.44},
        ...                              loss_metric="eval_loss", filtered=True)
        >>> finding.code, finding.step, finding.evidence["metric"], finding.evidence["value"]
        ('AMP013', 40, 'eval_loss', 'nan')
        >>> finding.summary.split(", but")[0]
        'evaluation at step 40: 4 of 8 evaluation batches had a NaN loss'
        >>> "eval_loss reads 4.44: logging_nan_inf_filter leaves" in finding.summary
        True
        >>> evaluation_finding(40, EvaluationCount(8), {"eval_loss": 4.4}, loss_metric="eval_loss")
    """
    bad = nonfinite_metrics(metrics)
    if not count.nonfinite_batches and not bad:
        return None
    evidence: dict[str, Any] = {"phase": "evaluation"}
    if count.nonfinite_batches:
        kind = "nan" if count.nan_batches else "inf"
        evidence.update(metric=loss_metric, value=kind, step=step, batches=count.batches,
                        nonfinite_batches=count.nonfinite_batches)
        said = (f"{count.nonfinite_batches} of {count.batches} evaluation batches had a "
                f"{'NaN' if kind == 'nan' else 'inf'} loss")
        logged = metrics.get(loss_metric)
        if filtered and isinstance(logged, (int, float)) and math.isfinite(logged):
            said += (f", but {loss_metric} reads {format_value(float(logged))}: "
                     "logging_nan_inf_filter leaves non-finite batches out of it")
    else:
        first = loss_metric if loss_metric in bad else next(iter(bad))
        evidence.update(metric=first, value=repr(bad[first]), step=step)
        said = f"{first} = {bad[first]}"
    others = sorted(set(bad) - {evidence["metric"]})
    if bad:
        evidence["nonfinite_metrics"] = {name: repr(value) for name, value in bad.items()}
    also = f" (also {', '.join(others)})" if others else ""
    return Finding(CODE, step, f"evaluation at step {step}: {said}{also}", evidence=evidence)


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
        :func:`evaluation_finding`."""
        pipeline.drain(wait=True)
        finding = evaluation_finding(step, self.losses.take(), metrics,
                                     loss_metric=loss_metric, filtered=filtered)
        began, self._in_episode = not self._in_episode, finding is not None
        if finding is not None and began:
            pipeline.flag(finding, step, once=False)
