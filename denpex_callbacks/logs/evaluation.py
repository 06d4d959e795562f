"""The evaluation stream: values computed in evaluation, judged apart from training.

An evaluation loss or metric that is NaN/inf is not the training loss: training may be fine
(an fp16 overflow in the evaluation forward, which no loss scaler protects; a NaN sample in
the evaluation set; a metric dividing by zero) or be the cause (a non-finite training loss
first). Readers emit one ``eval`` event per non-finite evaluation value (``eval_loss`` in an
HF dict or metrics block, ``val_loss=nan`` in a bar, fairseq's ``valid on 'valid' subset``
line, wandb's run summary); this module makes one AMP013 finding of them, where they began,
with ``evidence = {"phase": "evaluation", "metric", "value", "step" or "row", ...}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.logs.events import LogEvent

CODE = "AMP013"


@dataclass
class _First:
    metric: str
    value: float
    step: int | None  # printed on the line
    row: int  # the evaluation row it was on (1 = the first read)
    after_step: int | None  # the last training step seen before it
    line: int
    text: str


@dataclass
class EvaluationStream:
    """Non-finite evaluation values of one rank, in bounded memory.

    Example:
        >>> stream = EvaluationStream()
        >>> stream.event(LogEvent("eval", "generic", loss=float("nan"), metric="eval_loss"),
        ...              line=7, text="{'eval_loss': nan}", after_step=40)
        >>> finding = stream.finding()
        >>> finding.code, finding.step, finding.evidence["metric"], finding.evidence["row"]
        ('AMP013', 40, 'eval_loss', 1)
    """

    first: _First | None = None
    rows: int = 0  # lines with a non-finite evaluation value
    metrics: dict[str, int] = field(default_factory=dict)  # metric -> rows (bounded)
    _last_line: int | None = None

    def event(self, event: LogEvent, line: int, text: str, after_step: int | None) -> None:
        """Take one ``eval`` event read from ``line``; ``after_step``: the training step the
        log had reached."""
        metric = event.metric or "evaluation value"
        value = event.loss if event.loss is not None else float("nan")
        if line != self._last_line:
            self.rows += 1
            self._last_line = line
        if metric in self.metrics or len(self.metrics) < 16:
            self.metrics[metric] = self.metrics.get(metric, 0) + 1
        if self.first is None:
            step = event.step
            if step is not None and after_step is not None and step < after_step:
                # a count below the training step already reached is no training step (one
                # never goes back): the evaluation's own batch (pytorch3d's NeRF ``[val] |
                # epoch 30 | it 0 | ...``, projects/nerf/nerf/stats.py ``Stats.print``)
                step = None
            self.first = _First(metric, value, step, self.rows, after_step, line,
                                text.strip())

    def finding(self) -> Finding | None:
        """AMP013 where the stream first went non-finite, or None."""
        first = self.first
        if first is None:
            return None
        where: dict[str, object] = ({"step": first.step} if first.step is not None
                                    else {"row": first.row})
        others = sorted(set(self.metrics) - {first.metric})
        also = f" (also {', '.join(others)})" if others else ""
        at = (f"at step {first.step}" if first.step is not None
              else f"in evaluation row {first.row}" + (
                  f", after training step {first.after_step}" if first.after_step else ""))
        summary = (f"evaluation {first.metric} = {first.value} {at}{also}: a value computed in "
                   f"evaluation, not the training loss; {self.rows} evaluation line(s) hold "
                   "a non-finite value")
        step = first.step if first.step is not None else first.after_step
        return Finding(
            CODE, step, summary,
            evidence={"phase": "evaluation", "metric": first.metric,
                      "value": repr(first.value), **where, "rows": self.rows,
                      "metrics": dict(self.metrics)},
            lines=(first.line,), quotes=(first.text,))
