"""Hugging Face Trainer's log dicts, and the tqdm counter printed on the same line.

The Trainer prints ``{'loss': 0.69, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch': 0.1}``
(transformers 5 prints the values as strings: ``{'loss': '0.6931', ...}``); ``nan`` may appear
as ``nan`` or ``'nan'``. Evaluation (``eval_loss``) and the closing ``train_loss`` dict are not
training steps. A loss of exactly 0 beside a non-finite ``grad_norm`` is the trace of
``logging_nan_inf_filter`` (on by default) hiding a NaN/inf loss. A run watched by denpex adds
``'amp/loss_scale'`` (the scale at the row's step) and ``'amp/skipped_steps'`` (skipped steps so
far) to the same dict; they are read as the scale and the cumulative skip count. A tqdm bar
(``  5/100 [00:01<00:20, ...]``) written before the dict on the same line gives the step, and
so does transformers 3.x's ``'step': 500`` in the dict itself, or ms-swift's
``'global_step/max_steps': '35/100'``. In a log file the bar that the row interrupted is the
carriage-return segment before the dict's (:func:`bar_count`). The Trainer's banner
(``***** Running training *****``) says its run starts in the log, unless ``Continuing
training from ...`` follows it (a resume): the first skip count is then counted from 0.
"""

from __future__ import annotations

import math
import re

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import (
    EVAL,
    FLAG,
    FROM_START,
    METRICS,
    RUN_START,
    SETUP,
    UNDER_WAY_KEY,
    LogEvent,
    to_float,
)
from denpex_callbacks.logs.step_layouts import TQDM

FAMILY = "hf"
# ``ing training`` finds the Trainer's banner and its resume lines (see _STARTED) in one keyword.
KEYWORDS = (b"'loss'", b'"loss"', b"ing training")

_VALUE = r"""\s*'?"?([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|inf|-inf|NaN|Infinity)'?"?"""
# ms-swift's callbacks add the step to the dict as a string: ``'global_step/max_steps':
# '35/100'`` (swift/trainers/callback.py ``add_train_message``); the value read is the step.
_KEY = re.compile(r"""['"](loss|grad_norm|learning_rate|epoch|step|global_step/max_steps)['"]:"""
                  + _VALUE)
_DICT = re.compile(r"""\{['"]loss['"]:""")
# ``'amp/loss_scale'`` (denpex's own), or a plain ``"loss_scale"`` (Megatron-SWIFT's
# ``logging.jsonl``: swift/megatron/trainers/base.py ``logs['loss_scale'] =
# round(loss_scale, 8)`` beside ``'global_step/max_steps'``).
_AMP = re.compile(r"""['"](?:(?:train/)?amp/)?(loss_scale|skipped_steps)['"]:""" + _VALUE)
# The run's closing summary, printed once training ends (trainer.py ``train``:
# ``self.log(metrics)`` of ``speed_metrics("train", ...)`` and ``train_loss``): what a row
# prints after it is another run's (a script run again into the same log), whose rows number
# their steps from its start again.
_RUN_SUMMARY = re.compile(r"""\{['"]train_runtime['"]:""")
# The Trainer's banner as training begins (trainer.py ``_inner_training_loop``:
# ``logger.info("***** Running training *****")``), and the lines a resume logs right after
# it (``logger.info(f"  Continuing training from global step {self.state.global_step}")``,
# after ``... from checkpoint`` and ``... from epoch``): whether the run starts in the log.
_STARTED = re.compile(r"\*{5} Running training \*{5}|(Continuing training from )")
# tqdm's rate in a bar's right part (``[01:02<12:34,  2.67s/it]``, ``88.23it/s``), and the
# fastest bar that is redrawn at each step (tqdm ``update``: only after ``mininterval``, 0.1 s,
# since the last draw; half of that rate, as the rate drawn is smoothed).
_RATE = re.compile(r",\s*(\d+(?:\.\d+)?)(it/s|s/it)")
_REDRAWN = 5.0
# A run's own JSON record that nests the metrics under their split (``{"iter": 400,
# "train": {"loss": NaN}}``): its counter is the outer record's, before the loss's dict.
_OUTER_STEP = re.compile(r"""['"](?:global_step|step|iter|iteration)['"]:\s*(\d+)\s*,""")
# A run's own record that names its split in a field of its own: MACE's results file, one
# JSON line a step (``{"loss": 0.1, "time": 0.2, "mode": "opt", "epoch": 0}``) and one an
# evaluation (``"mode": "eval"``), mace/tools/train.py ``train_one_epoch`` / ``valid_err_log``
# through mace/tools/utils.py ``MetricsLogger``. An evaluation's record is no step.
_SPLIT_FIELD = re.compile(r"""['"](?:mode|phase|split|stage)['"]:\s*['"](?:eval|val|valid"""
                          r"""|validation|test)['"]""")


def parse(text: str) -> list[LogEvent]:
    """Events on one Trainer log line.

    Example:
        >>> e = parse("  5%|5         | 5/100 [00:01<00:20]{'loss': 'nan', 'grad_norm': 'nan', "
        ...           "'learning_rate': '5e-05', 'epoch': '0.05'}")[0]
        >>> e.step, e.loss, e.grad_norm
        (5, nan, nan)
        >>> parse('{"loss": NaN, "learning_rate": 4.9e-05, "epoch": 0.1, "step": 300}')[0].step
        300
        >>> parse('{"iter": 400, "train": {"loss": NaN, "lr": 0.0001}}')[0].step
        400
        >>> e = parse("{'loss': '0.69', 'amp/skipped_steps': '140', 'amp/loss_scale': '0.5'}")[0]
        >>> e.scale_after, e.skipped_total
        (0.5, 140)
    """
    if "ing training" in text and (started := _STARTED.search(text)) is not None:
        return [LogEvent(SETUP, FAMILY, setup={FROM_START: started.group(1) is None})]
    if "train_runtime" in text and _RUN_SUMMARY.search(text) is not None:
        return [LogEvent(SETUP, FAMILY, setup={RUN_START: True})]  # (see _RUN_SUMMARY)
    start = _DICT.search(text) if "loss" in text else None
    if start is None:
        return []
    fields = dict(_KEY.findall(text, start.start()))
    if "loss" not in fields:
        return []
    counters = TQDM.findall(text, 0, start.start())
    # transformers 3.x's Trainer.log printed {**logs, "step": global_step}; ms-swift prints
    # 'global_step/max_steps' (its bar is on a line of its own, or none: a file's log)
    printed = fields.get("step") or fields.get("global_step/max_steps", "")
    outer = (_OUTER_STEP.search(text, 0, start.start())
             if not printed and "{" in text[:start.start()] else None)
    step = (int(printed) if printed.isdigit()
            # a step cast to float with the other metrics (dm-haiku's examples/transformer/
            # train.py: ``logging.info({k: float(v) for k, v in metrics.items()})``)
            else int(printed[:-2]) if printed.endswith(".0") and printed[:-2].isdigit()
            else int(outer.group(1)) if outer is not None
            else int(counters[-1][0]) if counters else None)
    loss, grad_norm = to_float(fields["loss"]), to_float(fields.get("grad_norm"))
    # the filter's 0 beside a NaN gradient norm, whatever the objective (trl's GRPO/DPO rows
    # under fp16 print it too): read before a policy objective's 0 is set aside below
    hidden = loss == 0.0 and grad_norm is not None and not math.isfinite(grad_norm)
    if ("mode" in text or "phase" in text or "split" in text or "stage" in text) and (
            _SPLIT_FIELD.search(text, start.start())):
        return ([LogEvent(EVAL, FAMILY, step=step, loss=loss, metric="loss")]
                if loss is not None and not math.isfinite(loss) else [])
    if loss == 0.0 and lexicon.POLICY_OBJECTIVE.search(text, start.start()):
        loss = None  # trl's GRPO loss rounded to 0 beside its rewards: no value of the run
    if hidden:
        # The filter's 0 stands for a NaN/inf it hid (AMP009 below), not a loss of 0: read
        # as a loss it ran on to "exactly 0 for 20 steps" (AMP007) beside AMP009 on an SFT
        # run that stayed NaN (AfterMaxQ/mini-llm, AlexWortega/SolveITnow ``scripts/sft.py``).
        loss = None
    amp = dict(_AMP.findall(text, start.start())) if "_s" in text else {}
    skipped = to_float(amp.get("skipped_steps"))
    epoch = to_float(fields.get("epoch")) if skipped is not None else None
    out = [LogEvent(METRICS, FAMILY, step=step, loss=loss, grad_norm=grad_norm,
                    lr=to_float(fields.get("learning_rate")),
                    scale_after=to_float(amp.get("loss_scale")),
                    skipped_total=int(skipped) if skipped is not None else None,
                    # a row past the first epoch: its run was under way (see the assembler)
                    evidence={UNDER_WAY_KEY: True} if epoch is not None and epoch >= 1
                    else None)]
    if hidden:
        # logging_nan_inf_filter logs a non-finite loss as 0 (logging_steps=1); grad_norm is
        # not filtered, so a 0 loss beside a NaN gradient norm is the filter at work.
        out.append(LogEvent(FLAG, FAMILY, step=step, code="AMP009", summary=(
            "the logged loss is 0 while grad_norm is non-finite: the Trainer's "
            "logging_nan_inf_filter replaced a NaN/inf loss")))
    return out


def bar_count(segment: str) -> int | None:
    """The count of the tqdm bar drawn in ``segment`` (None: no bar), the step of a Trainer
    row printed in the next carriage-return segment of the same line.

    In a file (an unbuffered run's stdout and stderr, one file), ``tqdm.write`` clears the bar
    it interrupts (``\\r``, blanks, ``\\r``: tqdm ``std.py`` ``clear``) and prints the row
    after it on the same line; the bar, redrawn at ``on_step_end`` before the row's
    ``on_log`` (transformers ``trainer_callback.py`` ``ProgressCallback``), counts the row's
    step, where the row itself prints none. Not a bar drawing more than 5 steps a second: it
    is not redrawn at each step, its count may lag the row's.

    Example:
        >>> bar_count(" 27%|##6       | 310/1164 [14:02<38:40,  2.72s/it]")
        310
        >>> bar_count("Training Alpaca-LoRA model with params:") is None
        True
        >>> bar_count(" 27%|##6       | 310/1164 [00:02<00:07, 120.50it/s]") is None
        True
    """
    count = drawn_count(segment)
    if count is None:
        return None
    # A bar faster than tqdm's mininterval (0.1 s) is not redrawn at every update: the count
    # drawn before the row may be the previous row's (tqdm's refresh after it), a step or more
    # behind; its rate tells (``88.23it/s``, where a slow bar shows ``2.67s/it``).
    rate = _RATE.search(segment)
    if rate is None or (rate.group(2) == "it/s" and float(rate.group(1)) > _REDRAWN):
        return None
    return count


def drawn_count(segment: str) -> int | None:
    """The count a tqdm bar drawn in ``segment`` shows, whatever its rate (None: no bar).

    Example:
        >>> drawn_count(" 63%|######3   | 63/100 [00:00<00:00, 618.66it/s]")
        63
    """
    counters = TQDM.findall(segment) if "/" in segment else []
    return int(counters[-1][0]) if counters else None
