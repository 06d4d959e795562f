"""The generic metric reader: (key, value) pairs in any common notation, on any line.

Family parsers know the sentences of eight families; this reader knows none and reads what
most training loops print: ``k=v``, ``k: v``, ``k : v``, ``k v``, ``'k': v``, JSON,
``| k v |`` cells, Keras bars (``- loss: 0.0000e+00``), glog (``loss = -nan``), DLLogger
(``loss_scale : 1.4e-14``), nanoGPT (``iter 120: loss nan``), mmengine (``Epoch(train)
[3][50/500]  lr: 1e-04, loss: nan``), tqdm postfixes (``avr_loss=nan``) and a header row over
value rows (YOLO). Keys go through :mod:`~denpex_callbacks.logs.lexicon`; every non-finite
spelling is read (``nan -nan NaN NAN nan.0 inf -inf Infinity 1.#INF``).

The pairs of one line are found by :mod:`~denpex_callbacks.logs.metric_pairs`; lines of a
template met before are read by its plan (:mod:`~denpex_callbacks.logs.metric_templates`).
This module keeps what spans lines (a header row over value rows, a key wrapped onto the next
line, a record printed one key a line, a step printed on a line of its own above its metrics,
the counters of bars and epochs) and turns pairs into events.

Precedence: a family parser that claims a line wins it (they know the event sentences and
their own fields better); this reader sees only lines no family claimed, so the two never
read one line twice or disagree about it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import EVAL, METRICS, OVERFLOW, PROGRESS, LogEvent
from denpex_callbacks.logs.metric_pairs import (
    VALUE,
    MetricLine,
    as_step,
    classify,
    collect,
    decimals,
    find_claims,
    notation,
    read_pairs,
    to_value,
    written_as,
)
from denpex_callbacks.logs.metric_templates import Claim, Templates

__all__ = ["FAMILY", "HEADER_REACH", "MAPPING_REACH", "RECORD_REACH", "ROW_REACH", "BareScale",
           "MetricEvent", "MetricLine", "MetricReader", "announces_row", "classify", "collect",
           "dangling_key", "dict_row", "find_claims", "header_cells", "notation", "read_pairs",
           "record_cell", "starts_with_value", "to_value"]

FAMILY = "generic"
# mmengine / mmcv epoch-based runners: ``Epoch(train)  [3][ 50/500]`` or ``Epoch [3][50/500]``;
# PyTorch-Ignite's ProgressBar: ``Epoch [3/10]: [50/500]  10%|█ , loss=0.5 [00:01<00:09]``;
# the ImageNet example's ``Epoch: [3][ 50/500]`` (and the many scripts copied from it); the
# GAN scripts' ``[Epoch 3/200] [Batch 50/938]``; Swin Transformer's and its descendants'
# ``Train: [3/300][50/1251]``; GNMT's (DeepLearningExamples ``seq2seq/train/trainer.py``)
# ``TRAIN [1][350/1000]\tTime ...\tLoss/tok 8.1 (8.2)``; timm's ``Train: 3 [  50/1251 (
# 4%)]``; flashy's LogProgressBar (audiocraft, dora solvers): ``Train | Epoch 3 | 400/2000 |
# 5.23 it/sec | ...``.
_EPOCH_ITER = re.compile(
    r"(?:(?<!/)[Ee]poch(?:\(train\))?:?|Train:|TRAIN)\s*\[(\d+)(?:/\d+)?\]:?\s*\[\s*(\d+)\s*/\s*(\d+)\]"
    r"|Epoch\s+(\d+)/\d+\]\s*\[Batch\s+(\d+)\s*/\s*(\d+)\]"
    r"|Train:\s*(\d+)\s+\[\s*(\d+)\s*/\s*(\d+)\s+\("
    r"|Epoch\s+(\d+)\s+\|\s+(\d+)/(\d+)\s+\|")
# LAVIS' and MiniGPT-4's runners head their MetricLogger ``Train: data epoch: [0]`` (lavis/
# runners/runner_base.py, lavis/tasks/base_task.py ``_train_inner_loop``): the lower-case
# ``epoch:`` above. A MetricLogger line with no epoch before its count (DINOv2's
# ``dinov2/train/train.py``: ``header = "Training"`` over the run's iterations, from
# ``dinov2/logging/helpers.py`` ``log_every``: ``Training  [  500/125000]  eta: 3 days, ...``)
# counts the run's own steps: the step is the count.
_LOGGER_COUNT = re.compile(r"\[\s*(\d+)/\d+\]\s+eta: ")
# A bracket under a key that names its counts (PixArt-alpha/-sigma train_scripts/train.py:
# ``Step/Epoch [{global_step}/{epoch}][{step}/{len(loader)}]:total_eta: ...``): the first
# count is the step itself, not an epoch (the batches of the epoch follow in the next one).
_STEP_EPOCH = re.compile(r"(?:Step|Iter|Iteration)/Epoch:?\s*\[\s*(\d+)\s*/\s*\d+\s*\]")
# ``Epoch [4/100], Step [10/120]`` (StyleTTS2's ``train_first.py`` / ``train_second.py``, the
# pytorch-tutorial scripts copied everywhere): its step key counts the batches of the epoch
# (from 1), the epochs count from 1: the step is ``(epoch - 1) * 120 + 10``.
# The same counters without brackets, the epoch's batch keyed by ``iter`` or ``batch``: MONAI's
# StatsHandler ``Epoch: 2/3, Iter: 13/20 -- train_loss: 0.5``, FastPitch's DLLogger step
# (DeepLearningExamples ``common/tb_dllogger.py``) ``epoch    2 | iter   5/15 |``, Flair's
# ``epoch 2 - iter 40/100 - loss 0.5`` (each counts epochs and batches from 1). ``step`` is
# left out here: ``Epoch 2, step 1200/50000`` often counts the run's steps, not the epoch's.
_EPOCH_STEP = re.compile(
    r"Epoch\s*\[(\d+)/\d+\],?\s*(?:Step|Iter|Iteration|Batch)\s*\[\s*(\d+)\s*/\s*(\d+)\]"
    r"|\b[Ee]poch:?\s+(\d+)(?:/\d+)?\s*[,|-]?\s*(?:[Ii]ter(?:ation)?|[Bb]atch):?\s+(\d+)/(\d+)\b")
# ``Epoch E/N, step i/M``: the step counts the epoch's batches (llama-recipes'
# ``src/llama_recipes/utils/train_utils.py`` bar: ``f"Training Epoch: {epoch+1}/{num_epochs},
# step {step}/{len(train_dataloader)} completed (loss: {loss.detach().float()})"``) or the run's
# steps. A run's count lies in its epoch's share of M; a count outside it (or one that goes
# back when the epoch moves on) counts the epoch's batches: the step is ``(E - 1) * M + i``.
_EPOCH_OF_STEPS = re.compile(r"\b[Ee]poch:?\s+(\d+)/(\d+),?\s+[Ss]tep:?\s+(\d+)/(\d+)\b")
# A bar counting the batches of an epoch (Lightning's TQDM ``Epoch 1:  40%|###  | 4/10 [``,
# its Rich bar ``Epoch 1/9  ━━━━ 4/10``): the step is ``epoch * batches + n``. An epoch
# counted ``E/N`` before ``Epoch`` counts from 1 (Catalyst's VerboseCallback: ``4/10 * Epoch
# (train): 100%|####| 1875/1875 [``): the step is ``(E - 1) * batches + n``.
_EPOCH_BAR = re.compile(r"Epoch (\d+)(?::\s*\d+%\|[^|]*\||/-?\d+\s+\S*)\s*(\d+)/(\d+)"
                        r"|(\d+)/\d+ \* Epoch \([^)]*\):\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")
# A bar that starts its line with the batch of its epoch: Keras ``15/20 ━━━━ 0s 32ms/step -
# loss: 2.42``, Paddle's hapi ``step  4/20 - loss: 2.90``. The epoch is on a line of its own
# (``Epoch 2/3``) that no keyword brings here: the counter going back marks a new epoch, and
# so does the same count on a new line (a bar printed once an epoch, ``32/32 ...``; Keras
# redraws its last count once more on the same line, after a carriage return). MONAI's
# tutorials (copied into most of its users' scripts) print ``f"{step}/{epoch_len},
# train_loss: {loss.item():.4f}"`` under ``epoch 3/5``: the count then a comma.
# A count followed by a clock time is a date (mmengine's console and file format
# ``%m/%d %H:%M:%S``: ``06/01 10:04:00 - mmengine - INFO - Iter(train) [240/5198]``), no bar.
_BATCH_BAR = re.compile(r"\s*(?:step\s+)?(\d+)/(\d+)(?:,|\s(?!\s*\d{1,2}:\d\d))")
# A tqdm counter before its postfix: ``| 120/1000 [00:10<01:30, ...``.
_TQDM = re.compile(r"\|\s*(\d+)/(\d+)\s*\[")
# The epoch in a postfix, counted from 1: GluonTS' Trainer bar (``gluonts/mx/trainer/
# _base.py``: ``"epoch": f"{epoch_no + 1}/{self.epochs}"``) ``| 30/50 [00:01<00:00,
# 30.12it/s, epoch=9/20, avg_epoch_loss=4.77]``: the counter counts that epoch's batches.
_POSTFIX_EPOCH = re.compile(r"\bepoch=(\d+)/\d+")
# A step in brackets before a step's metrics: CLU's LoggingWriter (t5x, and the JAX loops
# that log through clu.metric_writers) ``[%d]%s %s`` as ``[1800] collection=train
# accuracy=0.51, loss=nan``, big_vision's ``\x1b[35m[1400]\x1b[0m training_loss = nan``. A
# bracket followed by ``<`` or ``:`` is a launcher's rank (``[1]<stdout>:``), not this.
_BRACKET_STEP = re.compile(r"\[(\d+)\](?:\x1b\[0m)?\s+[A-Za-z]")
# A bracket numbers the step only before something the step measured (a loss, a scale, a
# gradient norm): beside a count alone it numbers anything (a test run's summary ``SKIPPED
# [2] tests/test_gpu.py:10: CUDA not available``: two tests skipped, no step 2).
_MEASURED = frozenset({lexicon.SCALE, lexicon.MAYBE_SCALE, lexicon.GRAD_NORM})
# tqdm_loggable's progress line (levanter logs its bar through it): ``Progress on:train
# 1.20kit/10.0kit rate:1.2it/s remaining:... postfix:loss=nan``; the counts are tqdm's
# ``format_sizeof`` (three significant digits and a 1000s prefix, the unit glued on).
_LOGGABLE_BAR = re.compile(r"Progress on:.*? (\d+(?:\.\d+)?)([kMGT]?)[A-Za-z/]*/\S+ rate:")
_SIZE_PREFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
# A step's overflow flag beside its metrics: MindSpore's TrainOneStepWithLossScaleCell returns
# it and MindFormers' MFLossMonitor prints ``..., overflow cond: True, loss_scale: 1024.0``
# (the optimizer skipped the step); a key=value loop's ``overflow=True``. A setting holds
# the word too (DeepSpeed's ``check_grad_overflow=True``, ``skip_overflow=True``): the flag
# counts only on a training step's line (a step and a loss or a scale) and alone as its key.
_OVERFLOW_FLAG = re.compile(r"(?<![\w./-])(?:is[_ ]|has[_ ])?overflow(?:[_ ]cond(?:ition)?)?"
                            r"['\"]?\s*[:=]\s*(True|true|1)\b")
# A key left dangling at the end of a line that a terminal wrapped (Rich bars at 80 columns).
_DANGLING = re.compile(r"([A-Za-z][\w./-]*)\s*[:=]\s*$")
# A statistic as NVlabs' ``torch_utils/training_stats.py`` ``Collector.as_dict()`` keeps it,
# ``NAME = EasyDict(num=..., mean=..., std=...)``, which StyleGAN2-ADA, StyleGAN3, EDM and
# their descendants write to ``stats.jsonl`` once a tick (``json.dumps(dict(stats_dict,
# timestamp=...))``: ``"Loss/G/loss": {"num": 64, "mean": NaN, "std": NaN}``). The mean is
# the statistic's value; with ``num`` 0 (nothing reported in that tick: a lazy regulariser)
# its NaN means "no value", not a non-finite one.
_STAT_RECORD = re.compile(r'\{"num": ([^,{}]*), "mean": ([^,{}]*), "std": [^,{}]*\}')
_STARTS_WITH_VALUE = re.compile(r"\s*" + VALUE.pattern)
_HEADER_CELL = re.compile(r"[^\s;,|]+")  # cells: by blanks, or ``;`` ``,`` ``|`` between them
# A fixed-width table whose column names hold a blank, two blanks or more between columns:
# spaCy's training table (``spacy/training/loggers.py`` console_logger through wasabi's
# ``msg.row``, spacing 2): ``E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ...  SCORE``.
_WIDE_CELL = re.compile(r"[^\s;,|]+(?: [^\s;,|]+)*")
# A line about evaluation (``valid on 'valid' subset``, ``Validation: ...``, ``Test set:``)
# holds no training loss, whatever its keys say; ``val_loss`` as a key is left to the lexicon.
# mmengine's ``Epoch(val) [1][10/10]`` and ``Epoch(test)`` runner lines are evaluation too.
# wenet tags its cross-validation lines ``CV | steps/sec 8.1| Batch 2/10 loss nan ...`` and
# ``Epoch 2 Step 1200 CV info lr ... cv_loss nan``.
# The ImageNet example's ``validate`` summary and the scripts copied from it (DeiT's, MAE's,
# ConvNeXt's ``engine.py`` ``evaluate``: ``'* Acc@1 {top1.global_avg:.3f} Acc@5
# {top5.global_avg:.3f} loss {losses.global_avg:.3f}'``) open with ``* Acc@1``.
_EVAL_CONTEXT = re.compile(r"(?i)\b(?:valid|validation|validating|eval|evaluation|evaluating"
                           r"|test|testing|cv)\b(?![/_.-])|Epoch\((?:val|test)\)|\* Acc@1 ")
# ...unless each of those words is a split's name keying that split's score, after the
# training loss: PyTorch Geometric's and OGB's examples print ``Epoch: 019, Loss: 0.4172,
# Train: 0.9500, Val: 0.7800, Test: 0.8010`` (OGB: ``Run: 01, Epoch: 05, Loss: 0.43, Train:
# 60.00%, Valid: 58.00% Test: 57.00%``): the accuracies are evaluation's, the loss is not.
_LOSS_KEY = re.compile(r"(?i)\bloss\s*[:=]")
# Both print the epoch before the loss: a row without one (a results table's or a README's
# ``Loss: 0.41, Train: 0.95, Val: 0.78, Test: 0.80``) gives a finished model's scores.
_EPOCH_KEY = re.compile(r"(?i)\bepoch\s*[:=]?\s*\d")
_SPLIT_SCORE = re.compile(r"\s*[:=]\s*(?:-?\d+(?:\.\d+)?%?|nan|inf)(?=[\s,;|]|$)")
# Python logging's prefix with the logger's name in it: ``%(asctime)s\t%(name)s\t%(levelname)s
# \t`` (the VITS family's file handler), ``%(levelname)s:%(name)s:`` (``basicConfig``'s
# default), ``%(asctime)s - %(name)s - %(levelname)s - ``.
_LOGGER_PREFIX = re.compile(
    r"(?:[^\t]*\t|.{0,40}? - )?[\w.-]+(?:\t| - )(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?:\t| - )"
    r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.-]*:")
# ...unless it also names the training loss by a training key: an epoch's summary of both
# (SpeechBrain's ``train loss: 0.52 - valid loss: 0.61``), whose other keys the lexicon sorts.
_TRAINING_LOSS_KEY = re.compile(r"(?i)\b(?:train|training)[ _/.-]?(?:loss|cost|nll)\b")
# A run's closing summary (HF ``{'train_runtime': ..., 'train_loss': ...}``) is an average
# over the run, not a step: a phase's runtime. A logging interval's runtime is a step's
# (PaddleNLP's Trainer prints ``loss: 2.3, ..., global_step: 10, interval_runtime: 1.2``
# on every logging step).
_SUMMARY = re.compile(r"\b(?:train|eval|predict|test)_runtime\b|train_samples_per_second")
HEADER_REACH = 200  # value rows are read this many lines after their header row
# A multi-line record prints its step on a line of its own, each metric on a line below it
# (OLMo's ``[step=1080/739328]`` over ``    train/CrossEntropyLoss=nan``, fms-fsdp's
# ``step: 700`` over ``loss: nan``): a metric line that names no step, this many lines
# below a line that holds only a step, is that step's. Such a record is a dozen lines.
BLOCK_REACH = 16
# Why a line holds no training step's values (a template's plan keeps it).
EVALUATION = "evaluation"  # a line about evaluation: its losses and metrics are evaluation's
CLOSING = "closing summary"  # a run's closing summary: only its evaluation keys are read
# Bare columns (``print(step, loss)``): an integer, then one value, nothing else; a
# non-finite value in Python's, numpy's or torch's spelling (pandas prints ``NaN`` for
# missing data: not read). Finite rows hold no keyword; a NaN one does.
_BARE = re.compile(r"\s*(\d+)[\s,:;]+(?:tensor\()?(nan|-?inf)\b[^A-Za-z]*(?:device=\S*|grad_fn=\S*"
                   r"|dtype=\S*|[\s,)])*$")
# A YOLO training row read without its header row (an excerpt that starts below it, or
# YOLOv5's ``Epoch gpu_mem box obj cls labels img_size`` header, which holds no keyword):
# ``{epoch}/{epochs - 1}``, the GPU memory, the loss terms, then two counts (labels or
# instances, the image size), then the bar. Finite rows hold no keyword; a NaN one does.
_YOLO_ROW = re.compile(r"\s*(\d+)/\d+\s+[\d.]+G"
                       r"((?:\s+(?:[-+]?[\d.]+(?:e[-+]?\d+)?|nan|-?inf)){2,6})\s+\d+\s+\d+:?\s")
# The VITS family's unlabelled row, ``logger.info([x.item() for x in losses] + [global_step,
# lr])`` (jaywalnut310/vits ``train.py`` and the trainers copied from it: Bert-VITS2
# ``train_ms.py``, GPT-SoVITS ``s2_train.py``, so-vits-svc's early branches, MB-iSTFT-VITS):
# the message is a bare list of Python floats, the loss terms, then an integer (the step) and
# a learning rate (a fraction below 1). RVC prints only ``[global_step, lr]``, its losses on
# the next line (``loss_disc=...``): that step is theirs. Finite rows hold no keyword: they
# are read as the lines announced by the progress line before them (``announces_row``).
_LIST_ROW = re.compile(
    r"(?:^|[\s:])\[((?:\s*(?:[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?|nan|-?inf),)*)"
    r"\s*(\d+),\s*(0?\.\d+(?:e-\d+)?|\d(?:\.\d+)?e-\d+)\]\s*$")
# The progress line that announces such a row: the epoch and how far into it, nothing else
# (VITS' ``Train Epoch: {} [{:.0f}%]``, RVC's translations of it).
_ROW_ANNOUNCED = re.compile(r"\d+\s*\[\s*\d+%\]\s*$")
ROW_REACH = 2  # lines read after it (RVC: ``[step, lr]``, then its losses)
# A record printed one key per line between two rules (OpenAI baselines' logger, copied by
# improved-diffusion, guided-diffusion and stable-baselines3: ``| loss          | 0.103    |``
# rows, sorted by key, between lines of dashes): the cells of one record are one step's
# values, read together when the record ends, since its step counter (``| step | 40 |``)
# is a row of its own. A row with an empty value is a section's title (``| train/ |  |``).
_RECORD_CELL = re.compile(r"\|[ \t]*([A-Za-z][\w./-]*(?:[ \t][A-Za-z][\w./-]*)*)[ \t]*\|"
                          r"[ \t]*(\S*)[ \t]*\|\s*$")
_RECORD_RULE = re.compile(r"\s*-{8,}\s*$")
RECORD_REACH = 64  # lines handed over after a record's row (the rest of it holds no keyword)
RECORD = "| key | value | record rows"
# A dict too wide for one line, as ``pprint.pformat`` wraps it: one ``'key': value,`` a line,
# sorted by key, the step often last (EasyLM's trainers, ``EasyLM/models/llama/llama_train.py``:
# ``tqdm.write("\n" + pprint.pformat(log_metrics) + "\n")`` of numpy scalars: ``{'accuracy':
# array(0.51, dtype=float32),`` ... `` 'loss': array(nan, dtype=float32),`` ... `` 'step':
# 700}``). Its rows are kept and read as the one-line dict they print, once the closing
# brace (or a line that is no row of it) ends it; a row hands over the lines after it, as a
# record's row does, since the rest of the dict holds no keyword.
_DICT_ROW = re.compile(r"[{ ]'[^'\n]+': [^\n]+[,}]\s*$")
# A YAML mapping, one key a line, nested by indentation (RLlib's results through
# ``ray.tune.logger.pretty_print``, ``yaml.safe_dump`` sorted by key: ``        total_loss:
# .nan`` under ``info: / learner: / default_policy: / learner_stats:``, its
# ``training_iteration: 4`` far below): an indented row holding a value opens it; its rows are
# kept, each key once, and read as one line when a line that is no row ends it (the blank
# line ``print`` leaves after the dump). A mapping without a loss, a gradient norm or an
# evaluation metric is a configuration, as a record's table of settings is.
_YAML_ROW = re.compile(r"( *)([A-Za-z_][\w./@-]*):(?: +(\S[^\n]*?))?\s*$")
DICT_ROW_STARTS = ("{'", " '", "  ")
PPRINT = "pprint-wrapped dict rows"
YAML = "YAML mapping rows"
MAPPING_REACH = 200  # lines handed over after such a row (the step row may be far below)
# Evaluation values that do not say whether evaluation went wrong: what the lexicon's
# training roles name on an evaluation line (a step counter, a learning rate, a scale).
_EVAL_ROLES = frozenset({lexicon.LOSS, lexicon.COMPONENT, lexicon.EVAL})


def _split_scores(text: str, first: re.Match[str]) -> bool:
    """True when every evaluation word of ``text`` (the first one ``first``) keys a score of
    its own, after the loss that follows an epoch (``Epoch: 019, Loss: 0.41, Train: 0.95,
    Val: 0.78, Test: 0.80``)."""
    loss = _LOSS_KEY.search(text, 0, first.start())
    if loss is None or _EPOCH_KEY.search(text, 0, loss.start()) is None:
        return False
    return all(_SPLIT_SCORE.match(text, found.end())
               for found in _EVAL_CONTEXT.finditer(text, first.start()))


def _not_training(text: str) -> str | None:
    """Why a line holds no training step's values (:data:`EVALUATION`, :data:`CLOSING`), or
    None for a training line."""
    if (found := _EVAL_CONTEXT.search(text)) is not None and (
            _TRAINING_LOSS_KEY.search(text) is None) and not _split_scores(text, found):
        # The logging prefix's logger name is the run's (``getLogger(basename(model_dir))``
        # in the VITS family, RVC's default experiment ``mi-test``): no word of the line's.
        prefix = _LOGGER_PREFIX.match(text) if found.start() < 80 else None
        if prefix is None or _EVAL_CONTEXT.search(text, prefix.end()) is not None:
            return EVALUATION
    if _SUMMARY.search(text) is not None:
        return CLOSING
    return None


def _learn(text: str) -> tuple[str | None, list[Claim], list[tuple[int, int]]]:
    """The slow path's decisions on one line, for a template's plan."""
    return (_not_training(text), *find_claims(text))


class MetricReader:
    """Reads one input's unclaimed lines; holds the little state notations need across
    lines (a header row over value rows, a record's rows, a step line above its metrics, the
    counters of bars, brackets and epochs).

    Example:
        >>> r = MetricReader()
        >>> [(e.step, e.loss) for e in r.read("iter 120: loss nan, time 35.2ms", 1)]
        [(120, nan)]
        >>> r.read("    Epoch   GPU_mem   box_loss   cls_loss  Instances", 2)
        []
        >>> [(e.loss, e.epoch_text) for e in r.read("    3/100     0G     nan    0.5    16", 3)]
        [(nan, '3/100')]
    """

    def __init__(self, *, templates: bool = True) -> None:
        # (line, column names, their (start, end) on the header row)
        self.header: tuple[int, list[str], list[tuple[int, int]]] | None = None
        # Lines read per (notation, keys): one count per line; the totals per notation and
        # per key are summed when asked for (a big log reads millions of lines).
        self._read_as: dict[tuple[str, tuple[str, ...]], int] = {}
        # batches an epoch -> (last batch, epochs before it, line it was on)
        self.bars: dict[int, tuple[int, int, int]] = {}
        # a tqdm bar's total: (last count, passes before, its line)
        self.tqdm_bars: dict[int, tuple[int, int, int]] = {}
        # a step key's count beside an epoch key: (epoch, count, highest count of the epoch,
        # logging interval, batches an epoch once the count went back, else 0)
        self.epoch_counts: tuple[int, int, int, int, int] | None = None
        self.epochs_from_zero = False  # an "Epoch [0][i/N]" row was read
        self.last_epoch: int | None = None  # the epoch of the last "Epoch [E][i/N]" row
        # the last "Epoch E/N, step i/M" (epoch, i), and whether its steps count batches
        self.epoch_of_steps: tuple[int, int] | None = None
        self.epoch_batches = False
        # The fast path (off: every line by the slow path, for tests that compare the two).
        self.templates = Templates(_learn) if templates else None
        self.evaluation_lines = 0  # lines read as evaluation (training was under way)
        self.last_read_as: tuple[str, tuple[str, ...]] | None = None  # the last line's
        self.bare_scale = BareScale()  # whether this input's bare "scale" is the loss scale
        # (line, step) of a list row of only ``[step, lr]`` (RVC): the step of the metric
        # line right after it, which prints none
        self.row_step: tuple[int, int] | None = None
        # The last line that announced a row of values below it (VITS' ``Train Epoch: 3
        # [40%]``): a finite bare list is read as loss terms only within ROW_REACH of it.
        self.row_announced = -ROW_REACH - 1
        # (step, line) of the last line that held only a step: the record's step below it;
        # the keys its record read so far (a record prints each metric once)
        self.block_step: tuple[int, int] | None = None
        self.block_keys: set[str] = set()
        # the last step read from a bracket before the metrics; off once one went back
        self.bracket_last = 0
        self.bracket_off = False
        self.bracket_loss: int | None = None  # the last bracket that numbered a loss
        # the last epoch that numbered a row printed once an epoch (-1: none yet); off once
        # a row printed its step, no whole epoch, or an epoch that did not go up
        self.epoch_row = -1
        self.epoch_rows_off = False
        self.record: list[tuple[str, str]] = []  # the rows of a record not yet ended
        self.dict_rows: list[str] = []  # the rows of a wrapped dict not yet ended
        self.dict_style: str | None = None  # PPRINT or YAML while one is open
        self.yaml_keys: set[tuple[str, int]] = set()  # (key, indentation) of its rows
        self.last_loss = 0.0  # the last loss read that was finite and not 0

    @property
    def notations(self) -> dict[str, int]:
        """Lines read per notation."""
        out: dict[str, int] = {}
        for (written, _keys), count in self._read_as.items():
            out[written] = out.get(written, 0) + count
        return out

    @property
    def keys_seen(self) -> dict[str, int]:
        """Lines read per key."""
        out: dict[str, int] = {}
        for (_written, keys), count in self._read_as.items():
            for key in keys:
                out[key] = out.get(key, 0) + count
        return out

    def read(self, text: str, line: int) -> list[MetricEvent]:
        """The metric events of one line no family parser claimed."""
        if '{"num": ' in text:
            text = _STAT_RECORD.sub(_stat_mean, text)
        if "%]" in text and announces_row(text):
            self.row_announced = line  # (its row may come as a line of its own: a keyword)
        if self.record or text[:1] == "|":
            ended = self._record(text, line)
            if ended is not None:
                return ended
            if self.record:  # a line that is no row of the record ends it
                return self._end_record(line) + self._read(text, line)
        if self.dict_rows or text[:2] in DICT_ROW_STARTS:
            ended = self._dict_row(text, line)
            if ended is not None:
                return ended
            if self.dict_rows:  # a line that is no row of the dict ends it
                return self._end_dict(line) + self._read(text, line)
        return self._read(text, line)

    def _read(self, text: str, line: int) -> list[MetricEvent]:
        plan = self.templates.plan(text) if self.templates is not None else None
        if plan is None:
            why = _not_training(text)
            if why is not None:
                return self._evaluation(text, find_claims(text)[0], why)
            metrics = read_pairs(text)
        elif plan.skip:
            return self._evaluation(text, plan.claims, plan.skip)
        else:
            metrics = collect(plan.claims, text)
        events = self._pairs(text, metrics, None, line)
        if events is not None:
            return events
        if self._header_row(text, line):
            return []
        row = self._value_row(text, line)
        if row is None:
            return self._bare(text, line)
        return self._events(text, row, "header row over value rows", counters=False)

    def finish(self) -> list[MetricEvent]:
        """The events of what the input left pending at its end (a record without its
        closing rule: an excerpt cut there)."""
        return self._end_record(0) + self._end_dict(0)

    def read_again(self, lines: int) -> None:
        """Count ``lines`` more lines read as the last metric line was (lines that repeated
        it, handed over as a count)."""
        if self.last_read_as is not None:
            self._read_as[self.last_read_as] += lines

    def _evaluation(self, text: str, claims: list[Claim], why: str) -> list[MetricEvent]:
        """The non-finite evaluation values of a line about evaluation (its losses and
        metrics) or of a closing summary (its evaluation keys only)."""
        roles = _EVAL_ROLES if why == EVALUATION else frozenset({lexicon.EVAL})
        metrics = collect([c for c in claims if c[2] in roles or c[2] == lexicon.STEP], text)
        found = [*metrics.evals, *metrics.components]
        if found or lexicon.LOSS in metrics.values:
            self.evaluation_lines += 1
        if lexicon.LOSS in metrics.values:
            found.insert(0, (metrics.keys[lexicon.LOSS], metrics.values[lexicon.LOSS]))
        return _nonfinite(found, as_step(metrics.values.get(lexicon.STEP)))

    def _bare(self, text: str, line: int) -> list[MetricEvent]:
        """``step value`` columns with nothing else on the line: the value is the loss; a YOLO
        training row without its header: the loss terms' sum is the loss; a bare list of
        loss terms, step and learning rate (VITS)."""
        found = _BARE.match(text)
        if found is None:
            return self._yolo_row(text) or self._list_row(
                text, line, announced=line - self.row_announced <= ROW_REACH)
        read_as = ("bare step/value columns", ())
        self._read_as[read_as] = self._read_as.get(read_as, 0) + 1
        return [MetricEvent(METRICS, FAMILY, step=int(found.group(1)),
                            loss=to_value(found.group(2)))]

    def _yolo_row(self, text: str) -> list[MetricEvent]:
        found = _YOLO_ROW.match(text)
        if found is None:
            return []
        loss = _total([to_value(cell) for cell in found.group(2).split()])
        bar = _TQDM.search(text, found.end())
        epoch = int(found.group(1))
        step = epoch * int(bar.group(2)) + int(bar.group(1)) if bar else epoch
        read_as = ("YOLO epoch/GPU-memory row", ())
        self._read_as[read_as] = self._read_as.get(read_as, 0) + 1
        return [MetricEvent(METRICS, FAMILY, step=step, loss=loss)]

    def _list_row(self, text: str, line: int, *, announced: bool = True) -> list[MetricEvent]:
        """A bare list ``[loss terms..., step, lr]`` (see ``_LIST_ROW``): the terms' sum is the
        loss; one of only ``[step, lr]`` numbers the metric line after it. ``announced``:
        whether a progress line announced it; a list of finite numbers that none did is any
        list a program printed (read again with every line a candidate, a text that is no
        training log holds them), not loss terms."""
        if not text.rstrip().endswith("]") or (found := _LIST_ROW.search(text)) is None:
            return []
        terms = [to_value(cell) for cell in found.group(1).split(",") if cell.strip()]
        if not terms:
            self.row_step = (line, int(found.group(2)))
            return []
        if not announced and all(math.isfinite(term) for term in terms):
            return []
        read_as = ("bare list of loss terms, step and lr", ())
        self._read_as[read_as] = self._read_as.get(read_as, 0) + 1
        return [MetricEvent(METRICS, FAMILY, step=int(found.group(2)), loss=_total(terms),
                            lr=float(found.group(3)))]

    def _events(self, text: str, metrics: MetricLine, written: str, *,
                counters: bool, line: int = 0) -> list[MetricEvent]:
        values = metrics.values
        loss = values.get(lexicon.LOSS)
        key = metrics.keys.get(lexicon.LOSS)
        if (loss is not None and key is not None and lexicon.verb_key(key)
                and lexicon.HYPOTHETICAL.search(text, 0, max(text.find(key), 0))):
            # "stop training if the loss becomes NaN": a condition, no value the run had.
            loss = None
        if loss is None and metrics.components:
            # No total printed: the components are its terms.
            loss = _total([v for _k, v in metrics.components])
        if loss == 0.0 and lexicon.POLICY_OBJECTIVE.search(text):
            loss = None  # a policy-gradient objective beside its rewards: 0 is no collapse
        elif loss == 0.0 and metrics.zero_places >= 2 and (
                0.0 < self.last_loss < 10.0 ** (1 - metrics.zero_places)):
            # "0.0000" after "0.0003": a loss that decayed below the print's last digit, not
            # an exact 0 (which drops from a normal value): unknown, not 0
            loss = None
        elif loss is not None and loss != 0.0 and math.isfinite(loss):
            self.last_loss = loss
        step = printed_step = as_step(values.get(lexicon.STEP))
        # The first batch of an epoch that does not follow the last one read (the log's first,
        # or one after missing epochs): where a resumed run starts.
        epoch_start = False
        if "poch" in text and (found := _EPOCH_STEP.search(text)):
            epoch, done, total = (int(g) for g in found.groups() if g is not None)
            step = self._epochs_before(epoch) * total + done
        elif "tep" in text and "poch" in text and (found := _EPOCH_OF_STEPS.search(text)):
            step = self._step_of_epoch(*(int(g) for g in found.groups()))
        elif step is None and ("Epoch" in text or "Train:" in text or "TRAIN [" in text):
            if "/Epoch" in text and (found := _STEP_EPOCH.search(text)):
                step = int(found.group(1))
            elif found := _EPOCH_ITER.search(text):
                epoch, done, total = (int(g) for g in found.groups() if g is not None)
                step = self._epochs_before(epoch) * total + done
                epoch_start = done == 0 and epoch not in (self.last_epoch, (
                    self.last_epoch or 0) + 1)
                self.last_epoch = epoch
            elif counters and (found := _EPOCH_BAR.search(text)):
                if found.group(1) is not None:
                    epoch, done, total = (int(g) for g in found.groups()[:3])
                else:  # "E/N * Epoch (...)": from 1
                    epoch, done, total = (int(g) for g in found.groups()[3:])
                    epoch -= 1
                step = epoch * total + done
        elif counters and (found := _BATCH_BAR.match(text)):
            step = self._bar_step(int(found.group(1)), int(found.group(2)), line)
        if (step is not None and step == printed_step and counters and lexicon.EPOCH in values
                and (epoch_number := as_step(values[lexicon.EPOCH])) is not None):
            step = self._epoch_count(epoch_number, step)
        if step is None and "eta: " in text and (found := _LOGGER_COUNT.search(text)):
            step = int(found.group(1))
        if step is None and self.row_step is not None and self.row_step[0] == line - 1:
            step = self.row_step[1]  # RVC: ``[step, lr]`` on the line before its losses
        # A value row's bar counts batches of its epoch, not steps: left unnumbered.
        if step is None and counters and "|" in text and (found := _TQDM.search(text)):
            step, total = int(found.group(1)), int(found.group(2))
            if "epoch=" in text and (postfix := _POSTFIX_EPOCH.search(text, found.end())):
                # from 1 as GluonTS counts, unless an epoch 0 was seen (a script's own
                # ``set_postfix(epoch=f"{epoch}/{epochs}")`` over ``range(epochs)``)
                step += self._epochs_before(int(postfix.group(1))) * total
            else:
                step = self._tqdm_step(step, total, line)
        if (step is None and counters and not self.bracket_off and "[" in text
                and (loss is not None or _MEASURED.intersection(values))
                and (found := _BRACKET_STEP.search(text))):
            value = int(found.group(1))
            if value < self.bracket_last or (loss is not None and value == self.bracket_loss):
                # a step never goes back, and prints its loss once: these brackets number
                # something else (ranks printing "[0] loss: x", "[1] loss: x"; one rank's
                # "[3] loss: x" on every line), for the rest of the input
                self.bracket_off = True
            else:
                step = self.bracket_last = value
                if loss is not None:
                    self.bracket_loss = value
        if step is None and counters and "Progress on:" in text and (
                found := _LOGGABLE_BAR.search(text)):
            # "1.20k" is 1195 to 1204: the nearest step the bar can mean
            step = round(float(found.group(1)) * _SIZE_PREFIX[found.group(2)])
        epoch_row = False  # the step is the row's epoch: the steps it stands for are unknown
        if counters and not self.epoch_rows_off and (
                loss is not None or lexicon.GRAD_NORM in values):
            printed = step
            step = self._epoch_row(step, values.get(lexicon.EPOCH), text,
                                   metrics.keys.get(lexicon.EPOCH))
            epoch_row = printed is None and step is not None
        scale = values.get(lexicon.SCALE)
        unread = False  # a bare scale key that the scale was not read from: no key read
        if lexicon.MAYBE_SCALE in values:
            # A bare scale is read only on a training step's line (a step or a loss beside
            # it): a lone "scale: 0.5" is a configuration's, and says nothing of the stream.
            if scale is None and (loss is not None or step is not None):
                scale = self.bare_scale.read(values[lexicon.MAYBE_SCALE])
            unread = scale is None or lexicon.SCALE in values
        grad_norm = values.get(lexicon.GRAD_NORM)
        skipped = counted = None
        if lexicon.SKIPPED in values:
            skipped = as_step(values[lexicon.SKIPPED])
            # A bare "skipped" may count batches, images or files a loop skipped: it still
            # numbers the step, but it is no count of skipped optimizer steps.
            if lexicon.words(metrics.keys[lexicon.SKIPPED]) != ("skipped",):
                counted = skipped
        epoch_text = metrics.keys.get("epoch_text")
        measured = loss is not None or grad_norm is not None
        # A lone scale is read only when it is not 0: configuration dumps print
        # ``loss_scale 0`` for DeepSpeed's "dynamic", which is not a scale of 0.
        lone_scale = scale is not None and not measured and step is None
        if lone_scale and scale == 0.0:
            scale = None
        if not measured and scale is None and skipped is None:
            if step is not None and counters:
                self.block_step = (step, line)  # a record's step line: its metrics follow
                self.block_keys = set()
            return []
        if counters and self.block_step is not None:
            if step is not None:
                self.block_step = None  # the log numbers its metric lines themselves
            elif line - self.block_step[1] <= BLOCK_REACH and self.block_keys.isdisjoint(
                    named := {*metrics.keys.values(), *(k for k, _v in metrics.components)}):
                step = self.block_step[0]
                self.block_keys |= named
            else:
                # past the record, or a metric it printed already: a line of its own (a
                # stray "step: 500" before a loop that prints "loss: x" a batch)
                self.block_step = None
        if epoch_text is None and not unread:
            keys = tuple(metrics.keys.values())
        else:
            keys = tuple(key for kind, key in metrics.keys.items() if kind != "epoch_text"
                         and not (unread and kind == lexicon.MAYBE_SCALE))
        if metrics.components:  # (a list of terms names its key once)
            keys += tuple(dict.fromkeys(key for key, _v in metrics.components))
        read_as = self.last_read_as = (written, keys)
        self._read_as[read_as] = self._read_as.get(read_as, 0) + 1
        out: list[MetricEvent] = []
        if measured or scale is not None:
            out.append(MetricEvent(METRICS, FAMILY, step=step, loss=loss, grad_norm=grad_norm,
                                   lr=values.get(lexicon.LR), scale_after=scale,
                                   keys=keys, epoch_text=epoch_text,
                                   epoch_start=epoch_start, epoch_row=epoch_row))
        if skipped is not None and step is not None:
            out.append(MetricEvent(PROGRESS, FAMILY, step=step, skipped_total=counted,
                                   keys=keys))
        if step is not None and "verflow" in text and _OVERFLOW_FLAG.search(text) is not None:
            # the step was skipped: its overflow first, then what the line says of it
            out.insert(0, MetricEvent(OVERFLOW, FAMILY, step=step, keys=keys))
        return out

    def read_value_row(self, text: str, line: int) -> list[MetricEvent]:
        """The metric events of a line read only as a value row under the last header row
        (a line the reader hands over because it follows a header row, though it holds no
        keyword: a YOLO table's rows of finite values), as a row of a record, or as the bare
        list row that a progress line announced (VITS' ``Train Epoch: 3 [40%]``)."""
        if self.record or text[:1] == "|":
            ended = self._record(text, line)
            if ended is not None:
                return ended
        if self.record:
            return self._end_record(line)
        if self.dict_rows:
            ended = self._dict_row(text, line)
            return self._end_dict(line) if ended is None else ended
        if _not_training(text) is not None:
            return []
        row = self._value_row(text, line)
        if row is None:
            return self._list_row(text, line)
        return self._events(text, row, "header row over value rows", counters=False)

    def _record(self, text: str, line: int) -> list[MetricEvent] | None:
        """A row of a record (kept: ``[]``) or the rule that ends one (its events); None for
        any other line."""
        cell = record_cell(text)
        if cell is not None:
            if cell[1]:
                self.record.append(cell)
            return []
        if _RECORD_RULE.match(text) is not None:
            return self._end_record(line)
        return None

    def _dict_row(self, text: str, line: int) -> list[MetricEvent] | None:
        """A row of a wrapped dict or a YAML mapping (kept: ``[]``), a dict's last row (its
        events), or None for any other line, or a one-line dict when none is open (read as
        any line)."""
        stripped = text.rstrip()
        if self.dict_style != YAML and _DICT_ROW.match(stripped) is not None:
            out = []
            if stripped[0] == "{" and self.dict_rows:
                out = self._end_dict(line)  # a new dict: the last one was cut (excerpt's edge)
            if not self.dict_rows and stripped[-1] == "}":
                return None
            self.dict_style = PPRINT
            self.dict_rows.append(stripped[1:].rstrip(",}"))
            return out + self._end_dict(line) if stripped[-1] == "}" else out
        if self.dict_style == PPRINT or (found := _YAML_ROW.match(stripped)) is None or (
                not self.dict_rows and not (found.group(1) and found.group(3))):
            return None
        key, value = found.group(2), found.group(3)
        out = []
        if (key, len(found.group(1))) in self.yaml_keys:
            out = self._end_dict(line)  # a key again: the next mapping
        self.dict_style = YAML
        self.yaml_keys.add((key, len(found.group(1))))
        if value is not None:
            self.dict_rows.append(f"{key}: {value}")
        return out

    def _end_dict(self, line: int) -> list[MetricEvent]:
        """The events of the wrapped dict or mapping read so far, as the one line it
        prints."""
        if not self.dict_rows:
            self.dict_style = None
            return []
        style, self.dict_style = self.dict_style, None
        self.yaml_keys = set()
        rows, self.dict_rows = self.dict_rows, []
        text = "{" + ", ".join(rows) + "}" if style == PPRINT else "  ".join(rows)
        metrics = read_pairs(text)
        if not (metrics.components or metrics.evals or lexicon.LOSS in metrics.values
                or lexicon.GRAD_NORM in metrics.values):
            return []  # a configuration printed so (verl pprints its config at start)
        return self._pairs(text, metrics, style or YAML, line) or []

    def _end_record(self, line: int) -> list[MetricEvent]:
        """The events of the record read so far, as one line of ``key: value`` pairs."""
        if not self.record:
            return []
        text = "  ".join(f"{key}: {value}" for key, value in self.record)
        self.record = []
        metrics = read_pairs(text)
        if not (metrics.components or metrics.evals or lexicon.LOSS in metrics.values
                or lexicon.GRAD_NORM in metrics.values):
            # a table of settings printed as a record (``| loss_scale | 1024 |`` beside
            # ``| seed | 42 |``): a step's record holds what it measured
            return []
        return self._pairs(text, metrics, RECORD, line) or []

    def _pairs(self, text: str, metrics: MetricLine, written: str | None,
               line: int) -> list[MetricEvent] | None:
        """The events of a line's pairs, its evaluation metrics' included (``written``: the
        notation, None to tell it from the line; a record's is :data:`RECORD`, its made-up
        line no bar); None when it holds none."""
        if metrics.values or metrics.components:
            counters = written is None
            if written is None:
                written = written_as(metrics.separator or "", text)
            events = self._events(text, metrics, written, counters=counters, line=line)
            if metrics.evals:
                events += _nonfinite(metrics.evals, as_step(metrics.values.get(lexicon.STEP)))
            return events
        if metrics.evals:
            self.evaluation_lines += 1
            return _nonfinite(metrics.evals, as_step(metrics.values.get(lexicon.STEP)))
        return None

    def _epochs_before(self, epoch: int) -> int:
        """How many epochs came before ``epoch``. Epochs count from 1 (mmcv, StyleTTS2,
        GluonTS) or from 0 (the ImageNet example, Swin, timm, a loop over ``range(epochs)``):
        once an epoch 0 was seen, epoch 1 is the second one, not the first again."""
        self.epochs_from_zero = self.epochs_from_zero or epoch == 0
        return epoch if self.epochs_from_zero else epoch - 1

    def _step_of_epoch(self, epoch: int, epochs: int, done: int, total: int) -> int:
        """The step of ``Epoch E/N, step i/M`` (see ``_EPOCH_OF_STEPS``): ``i`` where it may
        count the run's steps, ``(E - 1) * M + i`` once it cannot (outside epoch E's share of
        M, or gone back while the epoch moved on)."""
        last = self.epoch_of_steps
        if not self.epoch_batches and 0 < epoch <= epochs and (
                not (epoch - 1) * total <= done * epochs <= epoch * total
                or (last is not None and epoch > last[0] and done < last[1])):
            self.epoch_batches = True
        self.epoch_of_steps = (epoch, done)
        return (epoch - 1) * total + done if self.epoch_batches else done

    def _epoch_count(self, epoch: int, count: int) -> int:
        """The step of a printed step key beside a printed epoch key: the count itself until
        it goes back while the epoch moves on; from then on it counts the epoch's batches
        (DGL's examples, ``examples/pytorch/graphsage``: ``'Epoch {:05d} | Step {:05d} | Loss
        {:.4f} | ...'`` every ``log_every`` batches of ``enumerate(dataloader)``), of which
        there are the highest count of an epoch plus the logging interval (the total is
        printed nowhere): the step is ``epochs before * batches + count``."""
        last_epoch, last, high, gap, batches = self.epoch_counts or (epoch, count, 0, 0, 0)
        if epoch == last_epoch and count > last:
            gap = count - last if gap == 0 else min(gap, count - last)
        elif epoch > last_epoch and count < last:
            batches = max(batches, high + max(gap, 1))
        high = max(high, count) if epoch == last_epoch else count
        self.epoch_counts = (epoch, count, high, gap, batches)
        return self._epochs_before(epoch) * batches + count  # (notes an epoch 0 when seen)

    def _tqdm_step(self, done: int, total: int, line: int) -> int:
        """The step of a tqdm bar's count ``done`` of ``total``: the count itself until it goes
        back, or a finished bar is printed again on a line of its own; a bar that starts again
        counts on from its last pass (OpenRLHF's PPO ``Train epoch [1/1]: ... 2/4 [...,
        act_loss=..., reward=...]``, one pass over each rollout's replay buffer, an optimizer
        step a batch: openrlhf/trainer/ray/ppo_actor.py ``ppo_train``; a pasted log keeps
        each pass's last state, ``4/4``)."""
        last, passes, last_line = self.tqdm_bars.get(total, (0, 0, line))
        if done < last or (done == last == total and line != last_line):
            passes += 1
        self.tqdm_bars[total] = (done, passes, line)
        return passes * total + done

    def _bar_step(self, done: int, total: int, line: int) -> int:
        """The step of batch ``done`` of ``total`` (epochs counted by the bar going back)."""
        last, epochs, last_line = self.bars.get(total, (0, 0, line))
        if done < last or (done == last and line != last_line):
            epochs += 1
        self.bars[total] = (done, epochs, line)
        return epochs * total + done

    def _epoch_row(self, step: int | None, epoch: float | None, text: str,
                   key: str | None) -> int | None:
        """The step of a training row that prints no step: its epoch, in a log that prints
        one row an epoch (pytorch-tabnet's ``epoch 23 | loss: nan | val_0_auc: ...``, PyTorch
        Geometric's ``Epoch: 019, Loss: nan, ...``), as its reader counts; else ``step``.

        From the first training row on, every row must print a whole epoch above the last
        one: a row printed every few batches repeats its epoch, a fractional epoch (HF's
        ``epoch: 0.27``) is no count, a log that prints steps numbers its rows itself. Once
        a row breaks that, the rows are numbered as before (the count goes on from the last
        epoch), for the rest of the input: the steps never go back.
        """
        whole = as_step(epoch)
        if step is None and whole is not None and whole > self.epoch_row and key is not None and (
                # printed whole ("epoch 23", "Epoch: 019"), not "epoch: 0.00"
                re.search(re.escape(key) + rf"\W{{0,4}}0*{whole}(?![.\d])", text)):
            self.epoch_row = whole
            return whole
        self.epoch_rows_off = True
        return step

    def _header_row(self, text: str, line: int) -> bool:
        """Remember a row of column names (two or more the lexicon knows, no numbers)."""
        cells = header_cells(text)
        if cells is None:
            return False
        cell = _WIDE_CELL if len(cells) < len(_HEADER_CELL.findall(text)) else _HEADER_CELL
        self.header = (line, cells, [found.span() for found in cell.finditer(text)])
        return True

    def _value_row(self, text: str, line: int) -> MetricLine | None:
        """Values aligned under the last header row, cell by cell."""
        if self.header is None:
            return None
        names = self.header[1]
        cells = _HEADER_CELL.findall(text)[:len(names)]
        # A row far below its header (printed once, as PrintReport does) is read only where
        # it lines up with it (a row that holds a keyword: a NaN one).
        if len(cells) < len(names) or line - self.header[0] > HEADER_REACH:
            columns = _aligned(text, self.header[2])
            if columns is None or len(columns) * 2 < len(names):
                return None  # (half the columns filled, as a table's row fills them)
            names, cells = [names[i] for i in columns], _HEADER_CELL.findall(text)
        out = MetricLine()
        numeric = 0
        zeros: list[int] = []  # the decimals of each loss cell printed as 0
        counted = _step_column(self.header[1])
        for name, cell in zip(names, cells, strict=True):
            kind = (lexicon.STEP if counted else None) if name == "#" else lexicon.role(name)
            if kind == lexicon.EPOCH and "/" in cell:
                out.keys["epoch_text"] = cell
                numeric += 1
                continue
            if kind == lexicon.EPOCH and not VALUE.fullmatch(cell):
                return None  # not a row of this table ("all" opens a validation row)
            if not VALUE.fullmatch(cell):
                continue
            numeric += 1
            value = to_value(cell)
            if value == 0.0 and kind in (lexicon.LOSS, lexicon.COMPONENT):
                # "0.00" (spaCy's "{0:.2f}"): the decimals a decayed loss was rounded to
                zeros.append(decimals(cell))
            if kind == lexicon.COMPONENT:
                out.components.append((name, value))
            elif kind is not None and kind not in out.values:
                out.values[kind] = value
                out.keys[kind] = name
        if numeric * 2 < len(names) or not (out.values or out.components):
            return None
        out.zero_places = min(zeros, default=0)
        return out


class BareScale:
    """Whether the values of a bare ``scale`` key (:data:`~denpex_callbacks.logs.lexicon.
    MAYBE_SCALE`) are a dynamic loss scaler's, decided value by value over an input.

    A scaler's scale starts at a power of two of at least ``2**7`` (GradScaler, apex and
    DeepSpeed at ``2**16``, Megatron at ``2**32``, fairseq at ``2**7``), is halved on an
    overflow (by a power of two between two printed rows) and doubled after a growth
    interval of clean steps: every value it prints is a power of two, and it never grows by
    more than twice between two lines (a log prints more often than once per growth
    interval). An image, model or learning-rate scale (``scale 0.5`` held constant,
    ``scale 1.37`` drawn per batch) breaks that rule at once, and the key is then left unread
    for the rest of the input: a healthy log's bare ``scale`` never raises an alarm, at the
    price of a real loss scale that starts below ``2**7`` (a resumed run) or grows faster
    than it is printed going unread. Values already read stay read: a stream that was a
    scaler's until then is judged as one.

    Cheap per line: an unchanged value (most lines) is one comparison.

    Example:
        >>> guard = BareScale()
        >>> [guard.read(v) for v in (65536.0, 65536.0, 32768.0, 65536.0, 1024.0)]
        [65536.0, 65536.0, 32768.0, 65536.0, 1024.0]
        >>> guard.read(4096.0) is None, guard.read(2048.0) is None  # grew fourfold: unread
        (True, True)
        >>> guard = BareScale()
        >>> guard.read(0.5) is None, guard.read(65536.0) is None  # an image scale first
        (True, True)
        >>> BareScale().read(6.10352e-05) is None, BareScale().read(131072.0)  # too small
        (True, 131072.0)
    """

    FIRST = 2.0 ** 7  # the smallest first value read (fairseq's --fp16-init-scale default)
    # Printed values are rounded (``6.10352e-05`` for 2**-14): how far from a power of two,
    # in binary orders of magnitude, a value may be (0.1%).
    TOLERANCE = 0.0015

    __slots__ = ("last", "off")

    def __init__(self) -> None:
        self.last: float | None = None  # the last value read
        self.off = False  # a value broke the rule: the key is no loss scale in this input

    def read(self, value: float) -> float | None:
        """``value`` when the stream so far is a scaler's, else None (from now on)."""
        if self.off:
            return None
        last = self.last
        if value == last:
            return value
        if (not _power_of_two(value, self.TOLERANCE)
                or (value < self.FIRST if last is None else value > 2.0 * last * 1.001)):
            self.off = True
            return None
        self.last = value
        return value


def _stat_mean(found: re.Match[str]) -> str:
    """A ``training_stats`` record's mean in place of the record (``null`` where nothing was
    reported: its mean is no value).

    Example:
        >>> _STAT_RECORD.sub(_stat_mean, '{"Loss/G/loss": {"num": 64, "mean": NaN, '
        ...                  '"std": NaN}, "Loss/r1": {"num": 0, "mean": NaN, "std": NaN}}')
        '{"Loss/G/loss": NaN, "Loss/r1": null}'
    """
    return "null" if found.group(1).strip() in ("0", "0.0") else found.group(2)


def _aligned(text: str, columns: list[tuple[int, int]]) -> list[int] | None:
    """The header column of each cell of a row that leaves some cells empty, by position: a
    fixed-width table (chainer's PrintReport in ESPnet1: the validation columns are blank
    until an epoch ends) starts each value where its column's name starts (left-aligned), or
    ends it where the name ends (right-aligned). None when a cell is in neither place."""
    starts = {start: i for i, (start, _end) in enumerate(columns)}
    ends = {end: i for i, (_start, end) in enumerate(columns)}
    out: list[int] = []
    for found in _HEADER_CELL.finditer(text):
        column = starts.get(found.start(), ends.get(found.end()))
        if column is None or (out and column <= out[-1]):
            return None
        out.append(column)
    return out or None


def _power_of_two(value: float, tolerance: float) -> bool:
    """Whether a finite, positive ``value`` is a power of two, as printed."""
    if not 0.0 < value < math.inf:
        return False
    exponent = math.log2(value)
    return abs(exponent - round(exponent)) <= tolerance


def _total(terms: list[float]) -> float:
    """The total of a loss's terms: their sum, or the first non-finite term (one makes the
    total non-finite).

    Example:
        >>> _total([0.5, 0.25]), _total([0.5, float("nan"), float("inf")])
        (0.75, nan)
    """
    bad = next((t for t in terms if not math.isfinite(t)), None)
    return math.fsum(terms) if bad is None else bad


def _nonfinite(values: list[tuple[str, float]], step: int | None) -> list[MetricEvent]:
    """An ``eval`` event for each non-finite evaluation value (finite ones say nothing)."""
    return [MetricEvent(EVAL, FAMILY, step=step, loss=value, metric=key)
            for key, value in values if not math.isfinite(value)]


def header_cells(text: str) -> list[str] | None:
    """The column names of a header row (two or more cells the lexicon knows, or ``#``, no
    number on the line), or None.

    Example:
        >>> header_cells("      Epoch    GPU_mem   box_loss   cls_loss  Instances       Size")
        ['Epoch', 'GPU_mem', 'box_loss', 'cls_loss', 'Instances', 'Size']
        >>> header_cells("loss 0.5 lr 0.1") is None
        True
        >>> header_cells("E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  SCORE ")
        ['E', '#', 'LOSS TOK2VEC', 'LOSS NER', 'ENTS_F', 'SCORE']
    """
    if VALUE.search(text):
        return None
    cells = _HEADER_CELL.findall(text)
    if "  " in text:
        # Names of two words or more, known only whole (``LOSS NER``): the table's columns
        # are what two blanks or more part.
        wide = _WIDE_CELL.findall(text)
        if any(" " in cell and lexicon.role(cell) is not None for cell in wide):
            cells = wide
    # "#" beside the epoch numbers the steps (spaCy's): a column the reader knows too.
    steps = _step_column(cells)
    known = sum(1 for cell in cells if (cell == "#" and steps) or lexicon.role(cell) is not None)
    return cells if known >= 2 else None


def _step_column(names: list[str]) -> bool:
    """True when a column named ``#`` holds the step: beside the epoch's (spaCy's ``E    #
    LOSS NER ...``). In a table without an epoch it numbers the rows (a results table's runs
    or models: ``#  Model  Loss  Acc``), no training log's steps."""
    return "#" in names and any(name == "E" or lexicon.role(name) == lexicon.EPOCH
                                for name in names)


def announces_row(text: str) -> bool:
    """True for a progress line that prints only the epoch and how far into it, its values
    on the next line (VITS' ``Train Epoch: 3 [40%]`` over its bare list row).

    Example:
        >>> announces_row("2023-05-01 12:00:00,000\tljs\tINFO\tTrain Epoch: 3 [40%]")
        True
        >>> announces_row("Train Epoch: 1 [0/60000 (0%)]\tLoss: 2.3")
        False
    """
    return _ROW_ANNOUNCED.search(text) is not None


def dict_row(text: str) -> bool:
    """True when ``text`` is a row of a wrapped dict that more rows follow, or an indented row
    of a YAML mapping.

    Example:
        >>> dict_row(" 'loss': array(nan, dtype=float32),"), dict_row(" 'step': 700}")
        (True, False)
        >>> dict_row("        total_loss: .nan"), dict_row("  info:")
        (True, False)
    """
    stripped = text.rstrip()
    if stripped.endswith(",") and _DICT_ROW.match(stripped) is not None:
        return True
    found = _YAML_ROW.match(stripped) if text[:2] == "  " else None
    return found is not None and found.group(3) is not None


def record_cell(text: str) -> tuple[str, str] | None:
    """The (key, value) of a record's row (``| loss          | 0.103    |``; the value empty
    for a section's title), or None.

    Example:
        >>> record_cell("| lg_loss_scale | 20       |"), record_cell("| train/  |   |")
        (('lg_loss_scale', '20'), ('train/', ''))
        >>> record_cell("| epoch | loss |") is None, record_cell("| 3 | 0.5 |") is None
        (True, True)
    """
    found = _RECORD_CELL.match(text)
    if found is None:
        return None
    key, value = found.groups()
    if value and VALUE.fullmatch(value) is None:
        return None  # a table's header row ("| epoch | loss |"), not a record's row
    return key, value


def dangling_key(text: str) -> bool:
    """True when a line ends with a known key and its separator but no value (a terminal
    wrapped the line; the value starts the next one).

    Example:
        >>> dangling_key("Epoch 1/9 ━━━━ 10/10 0:00:01 9.80it/s v_num: 0 train_loss:")
        True
    """
    found = _DANGLING.search(text)
    return found is not None and lexicon.role(found.group(1)) is not None


def starts_with_value(text: str) -> bool:
    """True when a line begins with a number (the wrapped tail of the line before).

    Example:
        >>> starts_with_value("  nan"), starts_with_value("loss nan")
        (True, False)
    """
    return _STARTS_WITH_VALUE.match(text) is not None


@dataclass(frozen=True, init=False)
class MetricEvent(LogEvent):
    """A :class:`LogEvent` from the generic reader, with the keys it was read from."""

    keys: tuple[str, ...] = ()
    epoch_text: str | None = None
    # The row of an epoch's first batch by its counter (``Epoch: [30][   0/5005]``) where the
    # epoch does not follow the last one read (the log's first row, or after missing epochs):
    # where the scripts that print it resume a run (the assembler starts one there).
    epoch_start: bool = False
    # The step is the epoch of a row printed once an epoch (``epoch 23 | loss: ...``): the
    # row stands for that epoch's steps, how many is not known (as for a row without a step).
    epoch_row: bool = False

    def __init__(self, kind: str, family: str, *, keys: tuple[str, ...] = (),
                 epoch_text: str | None = None, epoch_start: bool = False,
                 epoch_row: bool = False, **fields: Any) -> None:
        super().__init__(kind, family, **fields)  # LogEvent's fast __init__: see there
        vars(self).update(keys=keys, epoch_text=epoch_text, epoch_start=epoch_start,
                          epoch_row=epoch_row)
