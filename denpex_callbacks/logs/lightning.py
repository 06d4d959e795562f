"""Lightning's progress bars, its precision notices and its non-finite metric check.

A TQDM bar segment: ``Epoch 1:  40%|####      | 4/10 [00:00<00:00, 9.8it/s, v_num=0,
train_loss=nan]`` (only metrics logged with ``prog_bar=True``; the step is
``epoch * batches + n``; a non-finite ``val_*`` metric beside it is an evaluation value),
or a RichProgressBar's last line per epoch: ``Epoch 1/1  ━━━ 10/10
0:00:00 • 0:00:00 48.60it/s train_loss: nan``. ``Monitored metric {m} = {v} is not finite.
Previous best value was {b}. Signaling Trainer to stop.`` (EarlyStopping ``check_finite``).
``Using 16bit Automatic Mixed Precision (AMP)`` / ``Using bfloat16 Automatic Mixed Precision
(AMP)``.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import EVAL, FLAG, METRICS, SETUP, LogEvent, to_float

FAMILY = "lightning"
# check_finite's line names the value (nan, inf): the generic keywords find it.
KEYWORDS = (b"loss", b"nan", b"inf", b"Automatic Mixed Precision")

_BAR = re.compile(r"Epoch (\d+):\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)\s*\[([^\]]*)\]")
# RichProgressBar (the default when rich is installed) in a file: one final line per epoch,
# ``Epoch 1/1  ━━━━ 10/10 0:00:00 • 0:00:00 48.60it/s train_loss: nan``.
_RICH = re.compile(r"Epoch (\d+)/-?\d+\s+\S*\s*(\d+)/(\d+)\s(.*)")  # max_epochs=-1 prints /-2
_VALUE = r"([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|inf)"
_RICH_LOSS = re.compile(r"(?:^|\s)(?:train_)?loss(?:_step)?: " + _VALUE)
_LOSS = re.compile(r"(?:^|[\s,])(?:train_)?loss(?:_step)?=" + _VALUE)
# ``val_loss=nan`` (TQDM) / ``val_loss: nan`` (Rich) beside the training loss: evaluation's.
_EVAL_VALUE = re.compile(r"(?:^|[\s,])((?:val|valid|validation|test)[\w/.-]*)[=:] ?"
                         r"([-+]?(?:nan|inf)(?:\.0)?)(?=[\s,\]]|$)")
# ...and a finite evaluation loss there: a correlation's NaN beside it is undefined (see
# lexicon.undefined_correlation)
_FINITE_EVAL_LOSS = re.compile(r"(?:^|[\s,])(?:val|valid|validation|test)[\w/.-]*loss"
                               r"[\w/.-]*[=:] ?[-+]?\.?\d")
# A step logged with ``prog_bar=True`` (CompVis latent-diffusion and the textual-inversion /
# DreamBooth forks of it: ``self.log("global_step", self.global_step, prog_bar=True)``, shown
# ``global_step=449.000``) or a loop's own tqdm postfix beside ``desc=f"Epoch {epoch}"``
# (Open-Sora: ``loss=..., step=99, global_step=499``): the step the run counts, which wins
# over the bar's count of its epoch's batches.
_GLOBAL_STEP = re.compile(r"(?:^|[\s,])global_step=(\d+)(?:\.0*)?(?=[\s,\]]|$)")
# Any other metric of the postfix that is not finite: a loss term (taming-transformers'
# ``train/aeloss_step=nan``) makes the training loss not finite, whatever ``loss=`` says
# (Lightning 1.x's running mean of 20 batches shows it late; 2.x shows no ``loss=``).
_NONFINITE_VALUE = re.compile(r"(?:^|[\s,])([A-Za-z][\w/.-]*)=([-+]?(?:nan|inf)(?:\.0)?)"
                              r"(?=[\s,\]]|$)")
_NOT_FINITE = re.compile(r"Monitored metric (\S+) = (\S+) is not finite")
# 1.3-1.9 ``Using 16bit native Automatic Mixed Precision (AMP)`` (``native`` / ``apex``), 2.0-2.2
# ``Using 16bit ...``, 2.3 on ``Using 16-bit ...``; ``Using bfloat16 ...`` throughout.
_PRECISION = re.compile(
    r"Using (16bit|16-bit|bfloat16)(?: native| apex)? Automatic Mixed Precision")


def parse(text: str) -> list[LogEvent]:
    """Events on one Lightning line segment.

    Example:
        >>> e = parse("Epoch 1:  40%|####      | 4/10 [00:00<00:00, 9.8it/s, v_num=0, "
        ...           "train_loss=nan]")[0]
        >>> e.step, e.loss
        (14, nan)
    """
    if "Automatic Mixed Precision" in text and (found := _PRECISION.search(text)):
        fp16 = found.group(1) != "bfloat16"
        return [LogEvent(SETUP, FAMILY, setup={
            "active_precision": "fp16-mixed" if fp16 else "bf16-mixed",
            "scaler": "dynamic" if fp16 else None})]
    if "not finite" in text and (found := _NOT_FINITE.search(text)):
        metric, value = found.groups()
        return [LogEvent(FLAG, FAMILY, code="AMP006", loss=to_float(value),
                         summary=f"Lightning EarlyStopping: monitored metric {metric} = {value} "
                                 "is not finite")]
    if "Epoch " not in text:  # both bar patterns start with it
        return []
    found = _BAR.search(text)
    pattern = _LOSS
    if found is None:
        found, pattern = _RICH.search(text), _RICH_LOSS
        if found is None:
            return []
    epoch, done, total, postfix = found.groups()
    loss = pattern.search(postfix)
    value = to_float(loss.group(1)) if loss else None
    step = int(epoch) * int(total) + int(done)
    if "global_step=" in postfix and (counted := _GLOBAL_STEP.search(postfix)):
        step = int(counted.group(1))
    if ("nan" in postfix or "inf" in postfix) and (value is None or math.isfinite(value)):
        for key, term in _NONFINITE_VALUE.findall(postfix):
            if lexicon.role(key) in (lexicon.LOSS, lexicon.COMPONENT):
                value = to_float(term)
                break
    out = [LogEvent(METRICS, FAMILY, step=step, loss=value)] if value is not None else []
    if "nan" in postfix or "inf" in postfix:
        pairs = [(key, number) for key, value in _EVAL_VALUE.findall(postfix)
                 if (number := to_float(value)) is not None]
        # (read only beside a correlation's NaN: seldom)
        finite_loss = any(lexicon.correlation(key) for key, _ in pairs) and \
            _FINITE_EVAL_LOSS.search(postfix) is not None
        for key, number in pairs:
            if not math.isfinite(number) and lexicon.evaluation_metric(key) and \
                    not lexicon.undefined_correlation(key, number, finite_loss):
                out.append(LogEvent(EVAL, FAMILY, step=step, loss=number, metric=key))
    return out
