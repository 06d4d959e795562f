"""A run's closing summaries: values printed once at the end, not at a step.

Verbatim sources:
- transformers ``trainer_pt_utils.py`` ``log_metrics``: ``print(f"***** {split} metrics
  *****")``, then ``print(f"  {key: <{k_width}} = {metrics_formatted[key]:>{v_width}}")``
  per key (``  train_loss               =     0.6931``, ``  eval_loss = nan``); the example
  scripts log the same ``  {key} = {value}`` lines through a logger.
- (transformers' closing dict ``{'train_runtime': ..., 'train_loss': ...}`` and
  ``evaluate``'s ``{'eval_loss': ..., 'eval_runtime': ...}`` are the generic reader's: it
  reads their evaluation keys only.)
- wandb ``sdk/wandb_run.py`` (the run's footer): ``wandb: Run summary:`` and one
  ``wandb: {key:>width} {value}`` line per key (the last value logged); the ``Run history:``
  lines above it draw sparklines, not numbers.

A training loss that is non-finite in a summary is a non-finite training loss (AMP006), though
where it began is not in it; an evaluation metric there is one of the evaluation stream
(AMP013). A finite evaluation loss there is sent too: a correlation's NaN beside it in the
block is undefined, not a fault (see :mod:`~denpex_callbacks.logs.evaluation`). Every other
value of a metrics block or a wandb summary claims its line and says nothing: a summary is no
step.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import EVAL, FLAG, SUMMARY, LogEvent
from denpex_callbacks.logs.metric_pairs import VALUE, to_value

FAMILY = "summary"
KEYWORDS = (b" = ", b"wandb:")

_SPLITS = ("train_", "eval_", "test_", "predict_", "validation_", "val_")
# ``  key = value`` ending a line, two blanks before the key (log_metrics' block, or a
# logger's copy of it behind its prefix): a loop's own ``step 3: train_loss = nan`` is not,
# nor a loop's ``print(f"train_loss = {loss}")`` at the line's start, one row a step (the
# block indents every key: a row printed again and again is no closing summary).
_BLOCK = re.compile(r"\s\s([A-Za-z][\w/.-]*)\s*= +(\S+)\s*$")
_WANDB = re.compile(r"wandb:\s+([A-Za-z][\w/.@-]*(?: [\w/.@-]+)?)\s+(\S+)\s*$")


def parse(text: str) -> list[LogEvent]:
    """Events on one line of a closing summary.

    Example:
        >>> [(e.kind, e.code, e.metric) for e in parse("  eval_loss               =  nan")]
        [('eval', None, 'eval_loss')]
        >>> [(e.kind, e.code) for e in parse("wandb:          train/loss nan")]
        [('flag', 'AMP006')]
        >>> [e.kind for e in parse("  train_loss               =     0.6931")]
        ['summary']
    """
    if " = " in text and (found := _BLOCK.search(text)) and found.group(1).startswith(_SPLITS):
        return _judge([(found.group(1), found.group(2))], "the closing metrics block")
    if "wandb:" in text and (found := _WANDB.search(text)):
        if VALUE.fullmatch(found.group(2)) is None:
            return []  # a sparkline of the run history, a path, a URL
        return _judge([(found.group(1), found.group(2))], "wandb's run summary")
    return []


def _judge(pairs: list[tuple[str, str]], where: str) -> list[LogEvent]:
    out: list[LogEvent] = []
    for key, text in pairs:
        if VALUE.fullmatch(text.strip()) is None:
            continue
        value = to_value(text.strip())
        if math.isfinite(value):
            if ("loss" in key.lower() or lexicon.class_mean(key)) and \
                    lexicon.evaluation_metric(key):
                # the block's finite evaluation loss (its correlations' NaNs are undefined
                # ones) or mean over the classes (its classes' NaNs were left out of it):
                # see :mod:`~denpex_callbacks.logs.evaluation`
                out.append(LogEvent(EVAL, FAMILY, loss=value, metric=key))
            continue
        if lexicon.evaluation_metric(key):
            out.append(LogEvent(EVAL, FAMILY, loss=value, metric=key))
        elif lexicon.role(key) == lexicon.LOSS:
            out.append(LogEvent(
                FLAG, FAMILY, code="AMP006", loss=value,
                summary=f"{where} reports {key} = {text.strip()}: a training loss went "
                        "non-finite (a summary is no step: where it began is not in it)"))
    return out or [LogEvent(SUMMARY, FAMILY)]
