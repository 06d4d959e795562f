"""An evaluation that went NaN/inf, in plain numbers: AMP013 from one evaluation's counts.

An evaluation loss or metric that is NaN/inf is not the training loss, and no loss scaler
protects the evaluation forward. HF's ``logging_nan_inf_filter`` (from transformers 5.23) also
leaves non-finite evaluation batches out of ``eval_loss``, so the logged number can be finite
while half the batches were NaN. The torch side
(:mod:`denpex_callbacks.integrations.evaluation_stream`) counts each evaluation batch's loss on
its device and reads the count, and the metrics its framework reduced, once the evaluation is
over; this module turns them into one AMP013 finding, with the evidence shape of the log
doctor's (:mod:`denpex_callbacks.logs.evaluation`): ``{"phase": "evaluation", "metric",
"value", "step", ...}``. Framework-free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.numbers import format_value

__all__ = ["EvaluationCount", "evaluation_finding", "nonfinite_metrics"]

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


def nonfinite_metrics(metrics: Mapping[str, Any]) -> dict[str, float]:
    """The metrics that are NaN/inf numbers (values of other types are skipped).

    Example:
        >>> nonfinite_metrics({"eval_loss": float("nan"), "eval_runtime": 0.5, "epoch": 1})
        {'eval_loss': nan}
    """
    return {str(name): value for name, value in metrics.items()
            if isinstance(value, float) and not math.isfinite(value)}


def evaluation_finding(step: int, count: EvaluationCount, metrics: Mapping[str, Any], *,
                       loss_metric: str, filtered: bool = False) -> Finding | None:
    """AMP013 for one evaluation at training step ``step``, or None when it was finite.

    Args:
        step: The training step the evaluation ran at (as the adapter numbers steps).
        count: Its batch losses, as they were counted.
        metrics: The metrics the framework computed for it, read to the host (HF's
            ``on_evaluate`` metrics, Lightning's validation metrics); the numbers among them
            are checked.
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
