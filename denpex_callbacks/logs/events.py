"""What a log parser reports about one line: a plain event, before steps are assigned."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

# Kinds of event a parser emits.
OVERFLOW = "overflow"  # one optimizer step skipped by a gradient overflow
GROWTH = "growth"  # a clean step on which the dynamic scale grew
METRICS = "metrics"  # loss / grad norm / lr / scale of a step (or of a logging interval)
PROGRESS = "progress"  # a step counter (and maybe a cumulative skipped count)
FLAG = "flag"  # a line that is a diagnosis by itself (an error message)
# A flag that counts only where other lines show fp16 asked for (see LogEvent.evidence).
FP16_SHOWN = "fp16_shown"
# A flag that says the run makes no loss scaler, printed whatever the run makes: it counts
# only where no other line shows a scaler (see LogEvent.evidence).
NO_SCALER_SHOWN = "no_scaler_shown"
# What denpex's own line said of its diagnosis (logs/denpex_lines.py): {"severity", "fix",
# "amended", "escalated"}; the flag's diagnosis keeps it (the run's word, not the catalog's
# default).
RUN_SAID = "run_said"
# A metrics row well into its run (its epoch 1 or more): the first cumulative skip count read
# there counts the skips before the excerpt began, not those since an earlier row.
UNDER_WAY_KEY = "under_way"
# A ``setup`` event's key: whether the run whose rows follow starts in the excerpt (True: HF
# Trainer's ``***** Running training *****``) or goes on from a checkpoint (False: its
# ``Continuing training from ...``): a first cumulative skip count read after a start counts
# from 0, whatever the row's epoch (see UNDER_WAY_KEY).
FROM_START = "from_start"
# An overflow the skipped step says before its own row, which prints no step (see
# messages.Message.in_step): the next such row is that step's, not the step after it.
IN_STEP = "in_step"
# An overflow line in the wording of a scaler that keeps its scale (DeepSpeed's static
# ``LossScaler``, a bf16 run's scale of 1): its skips never move the scale, so no streak of
# them is a collapse of it, whatever the excerpt shows of the run's configuration.
SCALE_KEPT = "scale_kept"
# An overflow line numbered by its optimizer's own count (DeepSpeed's FP16_Optimizer: ``Grad
# overflow on iteration {cur_iter}``), which starts afresh at a resume that did not load the
# optimizer's state while the engine's count of steps (``step=N, skipped=K``) goes on.
OWN_COUNT = "own_count"
# A cumulative count that one process alone prints (DeepSpeed's engine logs ``step=N,
# skipped=K`` through ``log_dist(..., ranks=[0])``): no other rank's copy of it comes between,
# so such a count that goes back at all counts a run begun again.
SOLE_COUNT = "sole_count"
# A ``flag`` event's key: the non-finite value a logger says it dropped (neptune-client's
# "A value you're trying to log (`inf`) will be skipped"), naming no field: the rows printed
# beside it may show that value and explain it (see logs/dropped_values.py).
DROPPED = "dropped"
SETUP = "setup"  # a configuration fact (static scale, precision, floor)
# A ``setup`` event's key: the line starts a run (a DeepSpeed engine's configuration dump,
# fairseq's checkpoint loading): a run appended to a log begins its own start-up there.
RUN_START = "run_start"
EVAL = "eval"  # a non-finite value computed in evaluation (``metric`` names it); finite:
# a block's evaluation loss or a table's empty cells (see logs/evaluation.py)
SUMMARY = "summary"  # a value of a run's closing summary: no step, nothing to judge
# An ``eval`` event's evidence key: one evaluation row read whole, its finite values as
# ``(name, value)`` pairs (a table's row: the stream counts the rows, which values were ever
# finite, and whether they moved).
EVALUATED_ROW = "evaluated_row"


@dataclass(frozen=True, init=False)
class LogEvent:
    """One fact read from one log line.

    Attributes:
        kind: One of ``overflow``, ``growth``, ``metrics``, ``progress``, ``flag``, ``setup``,
            ``eval``, ``summary``.
        step: Step number printed on the line (None when the line has none).
        rank: Rank printed on the line (None when the line has none).
        scale_before: Loss scale before the step.
        scale_after: Loss scale after the step.
        hysteresis: Remaining hysteresis printed on the line.
        loss: Loss printed on the line.
        grad_norm: Gradient norm printed on the line.
        lr: Learning rate printed on the line.
        skipped_total: Cumulative skipped steps printed on the line (DeepSpeed ``skipped=``).
        skipped_in_interval: Skipped steps in a logging interval (Megatron).
        nan_in_interval: Non-finite-loss iterations in a logging interval (Megatron).
        code: Catalog id for ``flag`` events.
        summary: One line saying what the line means (``flag`` events).
        setup: Configuration facts for ``setup`` events.
        family: Parser family that recognised the line.
        metric: The key of an ``eval`` event's value (``eval_loss``, ``val/acc``); its value
            is in ``loss``.
        evidence: What a ``flag`` line's message names, for its diagnosis's evidence (an
            AMP014 dtype error: its kind, kernel, dtypes, value). ``FP16_SHOWN`` in it: the
            flag counts only where other lines show fp16 asked for (the assembler holds it);
            ``NO_SCALER_SHOWN``: only where no other line shows a loss scaler (held alike).
        quoted: (line, text) of the line to quote instead of the one the event was read on
            (a record of rows ends on a rule that shows none of them).
    """

    kind: str
    family: str
    step: int | None = None
    rank: int | None = None
    scale_before: float | None = None
    scale_after: float | None = None
    hysteresis: int | None = None
    loss: float | None = None
    grad_norm: float | None = None
    lr: float | None = None
    skipped_total: int | None = None
    skipped_in_interval: int | None = None
    nan_in_interval: int | None = None
    code: str | None = None
    summary: str = ""
    setup: dict[str, Any] = field(default_factory=dict)
    metric: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    quoted: tuple[int, str] | None = None

    def __init__(self, kind: str, family: str, step: int | None = None, rank: int | None = None,
                 scale_before: float | None = None, scale_after: float | None = None,
                 hysteresis: int | None = None, loss: float | None = None,
                 grad_norm: float | None = None, lr: float | None = None,
                 skipped_total: int | None = None, skipped_in_interval: int | None = None,
                 nan_in_interval: int | None = None, code: str | None = None,
                 summary: str = "", setup: dict[str, Any] | None = None,
                 metric: str | None = None, evidence: dict[str, Any] | None = None,
                 quoted: tuple[int, str] | None = None) -> None:
        # One update of the instance dict instead of the frozen dataclass's generated
        # __init__, which sets each of the 19 fields through object.__setattr__: a big log
        # makes millions of events, and this builds each about 2.5x faster.
        vars(self).update(kind=kind, family=family, step=step, rank=rank,
                          scale_before=scale_before, scale_after=scale_after,
                          hysteresis=hysteresis, loss=loss, grad_norm=grad_norm, lr=lr,
                          skipped_total=skipped_total, skipped_in_interval=skipped_in_interval,
                          nan_in_interval=nan_in_interval, code=code, summary=summary,
                          setup={} if setup is None else setup, metric=metric,
                          evidence={} if evidence is None else evidence, quoted=quoted)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)", re.I)


def to_float(text: str | None) -> float | None:
    """Parse a number as frameworks print it (``nan``, ``inf``, ``'1.5'``, ``tensor(2.)``).

    Example:
        >>> to_float("'nan'"), to_float("1.5e+04"), to_float("tensor(3.)"), to_float("x")
        (nan, 15000.0, 3.0, None)
    """
    if text is None:
        return None
    if "_" not in text:  # float() reads "1_000" as 1000; the search below reads 1
        try:  # the whole text a number (what parsers capture): the same value, 3x faster
            return float(text)
        except ValueError:
            pass
    found = _NUMBER.search(text)
    if found is None:
        return None
    try:
        return float(found.group(0))
    except ValueError:
        return None


def to_int(text: str | None) -> int | None:
    """Parse an integer; None when the text holds no finite number.

    Example:
        >>> to_int(" 42 "), to_int("nan")
        (42, None)
    """
    value = to_float(text)
    if value is None or not math.isfinite(value):
        return None
    return int(value)


# The step a free-worded sentence names ("at iteration 12", "step 301:", "global step 40",
# "batch_idx=3"); the first one, where a line names several. Not a dotted name's last part:
# a logger's caller ``[hivemind.optim.grad_scaler.step:93]`` (hivemind/utils/logging.py's
# ``{name}.{funcName}:{lineno}``) names a function and its line.
_SENTENCE_STEP = re.compile(r"(?i)(?<!\.)\b(?:step|iter(?:ation)?|it|update|global[_ ]step"
                            r"|batch_idx)\s*[:=#]?\s*(\d+)\b")


def sentence_step(text: str) -> int | None:
    """The step a sentence names, or None.

    Example:
        >>> sentence_step("NaN detected in loss at iteration 12"), sentence_step("overflow!")
        (12, None)
        >>> sentence_step("[step 7] overflow! new scale = 512")
        7
        >>> sentence_step("[hivemind.optim.grad_scaler.step:93] Skipping global step due to")
    """
    found = _SENTENCE_STEP.search(text)
    return int(found.group(1)) if found else None
