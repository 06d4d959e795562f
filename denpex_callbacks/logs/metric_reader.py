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

import itertools
import math
import re
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from denpex_callbacks.logs import lexicon, quality_scores, region_losses, slash_pairs, split_rows
from denpex_callbacks.logs import step_basis as bases
from denpex_callbacks.logs.abandoned_runs import ended_by_search
from denpex_callbacks.logs.bare_columns import BareColumns, HeldNaN
from denpex_callbacks.logs.bullet_lists import ZeroInList, bullet_row
from denpex_callbacks.logs.closing_bars import closed_length, finished_epoch, finished_total
from denpex_callbacks.logs.counted_epochs import loop_epoch
from denpex_callbacks.logs.counter_headings import COUNTERS_WIDTH, FILLED, counter_heading
from denpex_callbacks.logs.counter_rows import named_row as counter_row
from denpex_callbacks.logs.defined_areas import DEFINED_AREA, DefinedAreas
from denpex_callbacks.logs.episode_blanks import GATE as EPISODE_ROW
from denpex_callbacks.logs.episode_blanks import EpisodeBlanks
from denpex_callbacks.logs.epoch_brackets import bracket_epoch_step, epoch_share
from denpex_callbacks.logs.epoch_ends import ended_epoch, summary_epoch
from denpex_callbacks.logs.epoch_pairs import epoch_pair
from denpex_callbacks.logs.epoch_split_rows import epoch_split_row
from denpex_callbacks.logs.epoch_sums import postfixless_bar_step, split_sums
from denpex_callbacks.logs.eval_headings import HEADING_WIDTH, HeadedBlock
from denpex_callbacks.logs.eval_passes import EvalPasses
from denpex_callbacks.logs.events import (
    EVAL,
    EVALUATED_ROW,
    METRICS,
    OVERFLOW,
    PROGRESS,
    LogEvent,
)
from denpex_callbacks.logs.floor_skips import row_scale
from denpex_callbacks.logs.launcher_ranks import rank_prefix_end
from denpex_callbacks.logs.list_cells import collapse_lists, loss_total
from denpex_callbacks.logs.metric_pairs import (
    AVERAGE,
    IOU_RANGE,
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
    training_split_value,
    unclaimed_nonfinite,
    written_as,
)
from denpex_callbacks.logs.metric_templates import Claim, Templates
from denpex_callbacks.logs.noise_lines import NOISE_BETWEEN, all_noise, warning_line
from denpex_callbacks.logs.phase_counts import phase_count
from denpex_callbacks.logs.run_epochs import RunEpochs
from denpex_callbacks.logs.scale_prints import rounded_zero
from denpex_callbacks.logs.split_tags import held_out_part
from denpex_callbacks.logs.split_trees import EPOCH_SUMMARY, READ, SplitTree, is_branch
from denpex_callbacks.logs.step_layouts import (
    BATCH_BAR,
    BRACKET_OPENERS,
    BRACKET_STEP,
    COLON_COUNT,
    COMPOSER_LINE,
    EPOCH_BAR,
    EPOCH_BATCH,
    EPOCH_BRACKET,
    EPOCH_ITER,
    EPOCH_OF_COUNT,
    EPOCH_OF_STEPS,
    EPOCH_RANGE,
    EPOCH_SAMPLES,
    EPOCH_STEP,
    LEADING_COUNT,
    LEADING_PADDED_COUNT,
    LOGGER_COUNT,
    LOGGER_EPOCH,
    MINIBATCH_RANGE,
    OPEN_BAR,
    PHASE_BATCHES,
    PHASE_COUNT,
    PHASE_DONE,
    POSTFIX_EPOCH,
    RUN_BATCH,
    SLASH_BATCH,
    SPEED_COUNT,
    STEP_EPOCH,
    STEP_TUPLE,
    TQDM,
    TRAILING_COUNT,
    TWO_COUNTS,
    UNSIZED_BAR,
    EpochBatches,
    bare_fraction,
    epoch_length,
)

__all__ = ["DICT_REACH", "FAMILY", "HEADER_REACH", "MAPPING_REACH",
           "RECORD_REACH", "ROW_REACH", "STEP_ABOVE", "STEP_ALONE", "STEP_BEFORE_KEY",
           "STEP_NUMBER", "STEP_OPENS", "BareScale",
           "MetricEvent", "MetricLine", "MetricReader", "announces_row",
           "classify", "collect", "dangling_key", "find_claims", "header_cells",
           "mapping_row",
           "notation", "opens_dict", "read_pairs", "record_cell", "simple_cell",
           "starts_with_value", "step_line", "table_row", "to_value"]

FAMILY = "generic"
# A bracket numbers the step only before something the step measured (a loss, a scale, a
# gradient norm): beside a count alone it numbers anything (a test run's summary ``SKIPPED
# [2] tests/test_gpu.py:10: CUDA not available``: two tests skipped, no step 2).
_MEASURED = frozenset({lexicon.SCALE, lexicon.MAYBE_SCALE, lexicon.GRAD_NORM})
# tqdm_loggable's progress line (levanter logs its bar through it): ``Progress on:train
# 1.20kit/10.0kit rate:1.2it/s remaining:... postfix:loss=nan``; the counts are tqdm's
# ``format_sizeof`` (three significant digits and a 1000s prefix, the unit glued on).
_LOGGABLE_BAR = re.compile(r"Progress on:.*? (\d+(?:\.\d+)?)([kMGT]?)[A-Za-z/]*/\S+ rate:")
_SIZE_PREFIX = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
# A step counter printed abbreviated, a 1000s prefix glued on and rounded to the print's
# digits: LeRobot's MetricsTracker (lerobot/common/utils/logging_utils.py ``__str__``:
# ``f"step:{format_big_number(self.steps)}"``, no decimals: ``step:200`` ... ``step:800``,
# then ``step:1K`` for 1000 to 1499 and ``step:3K`` for 2500 to 3499), behind its
# ``INFO 2024-06-01 10:00:00 ts/train.py:232 `` prefix.
_ABBREVIATED_STEP = re.compile(r"\b(?:step|steps|iter|it)[:=] ?(\d+(?:\.(\d+))?)([KMB])\b")
_COUNT_PREFIX = {"K": 10**3, "M": 10**6, "B": 10**9}
# ...or in exponent notation, rounded to its mantissa's digits: fairchem's trainers
# (FAIR-Chem/fairchem src/fairchem/core/trainers/ocp_trainer.py ``train``: ``log_str =
# [f"{k}: {v:.2e}" for k, v in log_dict.items()]``, the step among them: ``step: 1.23e+04``
# for 12300 to 12349).
_EXPONENT_STEP = re.compile(r"\b(?:step|steps|iter|it)[:=] ?\d\.(\d+)e\+0*(\d+)\b")
# A heading that names its phase and epoch, nothing after it: robomimic's ``print("Validation
# Epoch {}".format(epoch))`` over ``json.dumps(step_log, sort_keys=True, indent=4)``
# (robomimic/scripts/train.py): the dict below it is that phase's.
_EPOCH_HEADING = re.compile(r"\b[Ee]poch:? +\d+\s*$")
# A step's overflow flag beside its metrics: MindSpore's TrainOneStepWithLossScaleCell returns
# it and MindFormers' MFLossMonitor prints ``..., overflow cond: True, loss_scale: 1024.0``
# (the optimizer skipped the step); a key=value loop's ``overflow=True``. A setting holds
# the word too (DeepSpeed's ``check_grad_overflow=True``, ``skip_overflow=True``): the flag
# counts only on a training step's line (a step and a loss or a scale) and alone as its key.
# MindSpore's model zoo (PanGu-alpha's and its copies' LossCallBack: ``"time: {} local_rank:
# {}, epoch: {}, step: {}, loss is {}, overflow is {}, loss scale is {}, ..."``) says ``is``.
_OVERFLOW_FLAG = re.compile(r"(?<![\w./-])(?:is[_ ]|has[_ ])?overflow(?:[_ ]cond(?:ition)?)?"
                            r"(?:['\"]?\s*[:=]\s*(?:True|true|1)| is True)\b")
# MindSpore's ``TrainOneStepWithLossScaleCell`` returns (loss, overflow condition, loss
# scale), which the model zoo's LossCallBack prints unnamed (models official/nlp/Bert
# src/utils.py and the trainers copied from it: ``print("epoch: {}, step: {}, outputs are
# {}".format(cb_params.cur_epoch_num, cb_params.cur_step_num, str(cb_params.net_outputs)))``:
# ``outputs are (Tensor(shape=[1], dtype=Float32, value= [ 6.5e+00]), Tensor(shape=[],
# dtype=Bool, value= False), Tensor(shape=[], dtype=Float32, value= 65536))``); named here.
_NET_OUTPUTS = re.compile(
    r"outputs are \(Tensor\(shape=\[\d*\], dtype=Float\d+, value=\s*\[?\s*([^\s\]),]+)\]?\),"
    r"\s*Tensor\(shape=\[\d*\], dtype=Bool, value=\s*\[?\s*(True|False)\]?\),"
    r"\s*Tensor\(shape=\[\d*\], dtype=Float\d+, value=\s*\[?\s*([^\s\]),]+)\]?\)\)")
_NAMED_OUTPUTS = r"loss: \1, overflow cond: \2, loss_scale: \3"
# A key left dangling at the end of a line that a terminal wrapped (Rich bars at 80 columns):
# the run of key characters before the line's last separator, matched on the reversed line.
# (A forward search for ``[A-Za-z][\w./-]*\s*[:=]\s*$`` retries from every letter of a long
# token, a base64 blob or a digest, to its end: quadratic in the token's length.)
_KEY_RUN_REVERSED = re.compile(r"[\w./-]*")
# A statistic as NVlabs' ``torch_utils/training_stats.py`` ``Collector.as_dict()`` keeps it,
# ``NAME = EasyDict(num=..., mean=..., std=...)``, which StyleGAN2-ADA, StyleGAN3, EDM and
# their descendants write to ``stats.jsonl`` once a tick (``json.dumps(dict(stats_dict,
# timestamp=...))``: ``"Loss/G/loss": {"num": 64, "mean": NaN, "std": NaN}``). The mean is
# the statistic's value; with ``num`` 0 (nothing reported in that tick: a lazy regulariser)
# its NaN means "no value", not a non-finite one.
_STAT_RECORD = re.compile(r'\{"num": ([^,{}]*), "mean": ([^,{}]*), "std": [^,{}]*\}')
_STARTS_WITH_VALUE = re.compile(r"\s*" + VALUE.pattern)
_HEADER_CELL = re.compile(r"[^\s;,|]+")  # cells: by blanks, or ``;`` ``,`` ``|`` between them
# A table titled by its first cell, a name and a colon (usnistgov/alignn ``alignn/utils.py``
# ``print_train_val_loss``: ``"{:<12} {:<8} {:<10} ...".format("Train Loss:", "Epoch",
# "Total", "Graph", "Atom", "Grad", "Stress", "Addn.", "Time")`` over a row whose first cell
# is empty, ``Val Loss:`` over the validation's): the title names what the columns measure.
_TITLE = re.compile(r" *([A-Za-z][A-Za-z ]{0,30}?):(?= {2,}[A-Za-z])")
# A table whose cells tabs part: one copied as text from a notebook or a spreadsheet (HF's
# notebook table, ``Step\tTraining Loss\tValidation Loss\tRouge1``, whose cell reads ``No log``
# until a training loss was logged): a cell is what the tabs part, blanks and all.
_TAB_CELL = re.compile(r"[^\t]*[^\t\s][^\t]*")
# A table whose cells pipes part, names of several words among them: a Markdown table (a
# notebook's table pasted into a README or an issue: ``| Step | Training Loss |``, its rows
# ``| 100 | 2.2900 |``), a rich or box-drawn one once paste.strip_paste has made its rules
# pipes (``┃ Step ┃ Train Loss ┃``): a cell is what the pipes part, blanks and all.
_PIPE_CELL = re.compile(r"[^|\s](?:[^|]*[^|\s])?")
# What a table prints in a cell that has no value yet: fastai v1's Recorder ``'#na#' if stat
# is None`` (fastai/basic_train.py ``format_stats``: a run without a validation set), fastai
# v2's ``str(None)``, HF's ``No log``. It stands in its column as a value would.
_NOT_AVAILABLE = frozenset({"#na#", "None", "No log"})
# A row's first cell that labels the row as the values of the names above, no thing's name: a
# record printed as a two-row table (DI-engine's ``get_tabulate_vars_hor``: ``| Name | ... |``
# over ``| Value | ... |``), a run's row (see _named_rows).
_VALUES_LABELS = frozenset({"value", "values"})
# A first cell that stamps a step, no thing's name, under a table of otherwise named rows: a
# clock time (``time.strftime('%H:%M:%S')``: ``10:29:00``, ``10:29 AM``), a date (``2026-12-07``,
# ``2026-12-07T10:29:00``) or a ``done/total`` count (``30/40``).
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?: ?[AaPp][Mm])?"
_STAMP_CELL = re.compile(rf"\d{{4}}-\d{{2}}-\d{{2}}(?:[ T]{_CLOCK})?|{_CLOCK}|\d+/\d+")
# A message, not a row of column names: a word and a colon before more words, or a sentence's
# full stop at the end ("Exception: Current loss scale already at minimum - cannot decrease
# scale anymore. Exiting run."); not "etc." closing a row of names (ElegantRL's evaluator,
# elegantrl/train/evaluator.py: ``ID  Step  Time |  avgR  stdR ... |  expR  objC  objA  etc.``).
_PROSE = re.compile(r"\w: |\w(?<!\betc)\.\s*$")
# A fixed-width table whose column names hold a blank, two blanks or more between columns:
# spaCy's training table (``spacy/training/loggers.py`` console_logger through wasabi's
# ``msg.row``, spacing 2): ``E    #       LOSS TOK2VEC  LOSS NER  ENTS_F  ...  SCORE``.
_WIDE_CELL = re.compile(r"[^\s;,|]+(?: [^\s;,|]+)*")
# A line about evaluation (``valid on 'valid' subset``, ``Validation: ...``, ``Test set:``)
# holds no training loss, whatever its keys say; ``val_loss`` as a key is left to the lexicon.
# mmengine's ``Epoch(val) [1][10/10]`` and ``Epoch(test)`` runner lines are evaluation too.
# wenet tags its cross-validation lines ``CV | steps/sec 8.1| Batch 2/10 loss nan ...`` and
# ``Epoch 2 Step 1200 CV info lr ... cv_loss nan``. TensorFlow's Estimator names no split
# when it logs an evaluation's results: ``Saving dict for global step 1000: accuracy = 0.91,
# global_step = 1000, loss = 0.31`` (tensorflow_estimator/python/estimator/estimator.py,
# ``_write_dict_to_summary``; TF 1.x tensorflow/python/estimator/estimator.py).
# The ImageNet example's ``validate`` summary and the scripts copied from it (DeiT's, MAE's,
# ConvNeXt's ``engine.py`` ``evaluate``: ``'* Acc@1 {top1.global_avg:.3f} Acc@5
# {top5.global_avg:.3f} loss {losses.global_avg:.3f}'``) open with ``* Acc@1``.
# CLU's LoggingWriter names its writer's collection: t5x's train-eval metrics are logged as
# ``[2000] collection=training_eval/wmt_t2t_ende_v003 accuracy=0.4, loss=nan``
# (t5x/trainer.py, ``MetricsManager(f"training_eval/{name}")``).
# torchtitan's validator prints ``validate step: 50  loss:  2.3412  memory: ...``
# (torchtitan/components/metrics.py ``log_validation``). DeepSpeed-Chat's evaluations name
# no split: under a banner of their own (``***** Evaluating perplexity, Epoch 1/2 *****``,
# no keyword), they print what they measured, then the loss (step 1's ``ppl: {perplexity},
# loss: {eval_loss}``, the DPO step 2's ``chosen: {c}, rejected: {r}, loss: {eval_loss}``).
# A line that opens with ``val`` (``val: loss nan acc 0.1``, ``[val] loss ...``, ``Val |
# ...``) or with what it is doing (``Evaluating... loss=nan``) is evaluation's too, and so is
# a message that does behind its logger's `` - `` (loguru's default format, microsoft/
# mattersim ``src/mattersim/forcefield/potential.py`` ``train_one_epoch``: ``... |
# INFO     | mattersim.forcefield.potential:train_one_epoch:635 - val: Loss: 0.0123, ...``).
# DeePMD-kit names the split as a label before its keys: ``batch    1000: val: rmse = 3.2e-01,
# rmse_e = ...`` (deepmd/loggers/training.py ``format_training_message_per_task``, the task
# name ``val`` beside ``trn``, its keys ``key = value``); ``Val: 0.78`` (a split keying its
# score) and LitGPT's ``loss train: 3.1, val: n/a`` are no label. A message behind a
# bracketed date and time opens after it (loguru's ``"[{time:YYYY-MM-DD HH:mm:ss}]
# {message}"`` before distribuuuu's ``ProgressMeter`` prefix `` = VAL:     [1][ 0/49] | ...
# | Loss nan (nan)``, BIGBALLON/distribuuuu distribuuuu/trainer.py ``validate``).
_EVAL_CONTEXT = re.compile(r"(?i)\b(?:valid|validate|validation|validating|eval|evaluation"
                           r"|evaluating|test|testing|cv)\b(?![/_.-])"
                           r"|(?:^| - |^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[\d.,]*\])"
                           r"\W*(?:val|evaluating|validating|testing)\b(?![/_-]|\.\w)"
                           r"|(?:Epoch|Iter)\((?:val|test)\)"
                           r"|Saving dict for global step|\* Acc@1 "
                           r"|\bcollection=(?:[\w.-]*[_/.-])?(?:eval|valid|test)"
                           r"|^(?:ppl|chosen): \S+, (?:rejected: \S+, )?loss: "
                           r"|\bval: [a-z_]+ = "
                           # semseg's and Pointcept's ``Val result: mIoU/mAcc/allAcc
                           # {:.4f}/{:.4f}/{:.4f}.`` (pointcept/engines/hooks/evaluator.py),
                           # behind a logging prefix
                           r"|\b(?:Val|Eval|Test)\d? result: "
                           # an evaluation pass's step (DALLE2-pytorch's ``Epoch 1/2 Val Step
                           # 0 -  Sample 3200 - ...``; reader.py hands it over)
                           r"|\bVal Step \d"
                           # a bar whose description tags its pass with the split in brackets
                           # (2002jan/put-mp-2025: ``tqdm(val_loader, desc=f'Epoch {e}/{n}
                           # [Val]')`` beside its ``[Train]`` bar): the held-out pass's bar.
                           # Only as a bar's description (tqdm's ``{desc}: {percentage:3.0f}%|``):
                           # a line tagging both passes (``[Train] Loss: ... | [Val] Loss: ...``)
                           # is the training's row, its ``[Val]`` half the held-out set's
                           r"|\[val\]: {1,4}\d{1,3}%\|"
                           # the split a word after the row's last value, ending the line
                           # (01joja/D7047E ``training.py``: ``'\\rEpoch {} [{}/{}] - Loss: {}
                           # val'``, beside its training rows' ``... Loss: tensor(...) train``)
                           r"|(?:\d|nan|inf) val *$"
                           # image-quality scores against held-out views, no split named:
                           # gsplat's ``PSNR: {:.3f}, SSIM: {:.4f}, LPIPS: {:.3f} Time: ...``
                           # (nerfstudio-project/gsplat examples/simple_trainer.py ``eval``),
                           # instant-ngp's ``PSNR={} [min={} max={}] SSIM={}`` over its test
                           # transforms (NVlabs/instant-ngp scripts/run.py)
                           r"|\bPSNR(?:: \S+, |=\S+ \[min=\S+ max=\S+\] )SSIM[:=]")
# A record that names its own kind in a field of its dict: openpifpaf's ``{'type':
# 'val-epoch', 'epoch': 2, 'loss': nan, ...}`` beside ``'type': 'train'`` (openpifpaf/openpifpaf
# src/openpifpaf/network/trainer.py ``Trainer.val``), a ``"mode": "val"`` record: the
# glued ``val-`` is none of _EVAL_CONTEXT's words.
_RECORD_KIND = re.compile(r"""(?i)['"](?:type|mode|phase)['"]:[ \t]*['"](?:val|valid|validation"""
                          r"""|eval|evaluation|test)(?:[-_ ][a-z]+)?['"]""")
# ...unless each of those words is a split's name keying that split's score, after the
# training loss: PyTorch Geometric's and OGB's examples print ``Epoch: 019, Loss: 0.4172,
# Train: 0.9500, Val: 0.7800, Test: 0.8010`` (OGB: ``Run: 01, Epoch: 05, Loss: 0.43, Train:
# 60.00%, Valid: 58.00% Test: 57.00%``): the accuracies are evaluation's, the loss is not.
_LOSS_KEY = re.compile(r"(?i)\bloss\s*[:=]")
# Both print the epoch before the loss: a row without one (a results table's or a README's
# ``Loss: 0.41, Train: 0.95, Val: 0.78, Test: 0.80``) gives a finished model's scores. The
# epoch may open a bracket (00-Abhishek/mnist-mlp-pytorch src/train.py: ``f"Epoch [{epoch +
# 1}/{EPOCHS}] | Loss: {average_loss:.4f} | Train Accuracy: ... | Validation Accuracy: ..."``).
_EPOCH_KEY = re.compile(r"(?i)\bepoch\s*[:=]?\s*\[?\d")
# The split's name may key a score it names (the TensorFlow mixed precision guide's custom
# loop: ``'Epoch {}: loss={}, test accuracy={}'``, tensorflow/docs site/en/guide/
# mixed_precision.ipynb).
# A line that announces an evaluation pass and says nothing else: the logging prefix, then
# the word (AllenNLP's ``logger.info("Validating")``; reader.py hands it over).
# Its bar's first line with values comes right below it (AllenNLP's empty 0% line between):
# one further down is another loop's (a bar without values between, then training's own).
ANNOUNCED_BAR_REACH = 4
_ANNOUNCES_EVALUATION = re.compile(r"(?:^|[\s:|-])(?:Validating|Evaluating)$")
# A count of updates at 0 beside a NaN loss: the loss is a mean over the updates so far, NaN
# for none (pfrl's ``statistics:[('average_q', nan), ('average_loss', nan), ...,
# ('n_updates', 0), ...]`` until the replay buffer holds ``replay_start_size`` transitions:
# pfrl/agents/dqn.py ``get_statistics``, ``_mean_or_nan``), no value that broke.
# Only a loss named as a mean (``average_loss``): fairseq's ``loss=nan, ..., num_updates=0``
# is the first update's own NaN.
_MAX_TAGS = 1024  # device tags before a step's count: more than any run's devices
_MEASURED_AFTER = re.compile(r"[1-9]")  # a number other than 0 (see _events' +inf at step 0)
_NO_UPDATE = re.compile(r"\b(?:n|num)_updates\W{1,4}0(?![\d.])")
_AVERAGED = frozenset({"average", "avg", "mean"})
_PADDED_OPENERS = frozenset(" 0123456789")  # what opens a line LEADING_PADDED_COUNT reads
# A bar described "epochs" counts the run's epochs (OpenPCDet's ``tqdm.trange(start_epoch,
# total_epochs, desc='epochs')``, tools/train_utils/train_utils.py): its count is no step.
_EPOCHS_BAR = re.compile(r"\s*[Ee]pochs?:\s+\d+%\|")
# The epoch a tqdm bar's label names with the run's epochs after it, ``Epoch 4/100`` (see
# ``MetricReader._tqdm_step``); the count is the label's last such one. Or the epoch keyed
# by a colon, a comma after it, as a label that goes on with the epoch's running means
# (356255531/foldnn_pytorch ``train_eval.py``: ``pbar.set_description('epoch: {}, train acc:
# {:.3f}, train loss: {:.3f}'.format(epoch + 1, ...))``), or the epoch padded before a
# split's name (0xKushwaha/mamba_comparision ``train_mamba.py``: ``desc=f"Epoch {epoch:>3}
# Train"``): no total, counted as any epoch of the reader (``_epochs_before``). A label whose
# epoch repeats the bar's own count is a bar over the epochs: no passes before it
# (``_over_epochs``). The epoch of how many may be right-aligned too (a DCGAN exercise's
# ``desc=f"  [{label}] Epoch {epoch:>3}/{cfg['num_epochs']}"``: ``Epoch   5/6``).
_BAR_LABEL_EPOCH = re.compile(
    r"\b[Ee]poch(?: {1,8}(\d+)/(\d+)\b|:? +(\d+)(?:,| [A-Za-z]))(?!.*\b[Ee]poch:? \d)")
# A bar whose label counts the run's steps of how many, the word after them: the step is the
# label's, the bar's own count the batch of its pass (the MONAI UNETR tutorial's loop and its
# copies, 12121236767678/A-lightweight-volumetric-ConvNet ``main_train.py``:
# ``epoch_iterator.set_description("Training (%d / %d Steps) (loss=%2.5f)" % (global_step,
# max_iterations, loss))`` over ``tqdm(train_loader)``). A label count that repeats the bar's
# own count (``_repeats_count``) counts the pass's batches, as the bar: the bar's passes count.
_LABEL_STEPS = re.compile(r"\b(\d+) ?/ ?\d+ [Ss]teps\b")
# A non-finite value's word anywhere on a line (the cheap check before a slower reading).
_NONFINITE_WORD = re.compile(r"(?i)nan|inf")
_SPLIT_SCORE = re.compile(r"(?:[ \t]+[A-Za-z]+)?\s*[:=]\s*(?:-?\d+(?:\.\d+)?%?|nan|inf)"
                          r"(?=[\s,;|]|$)")
# Python logging's prefix with the logger's name in it: ``%(asctime)s\t%(name)s\t%(levelname)s
# \t`` (the VITS family's file handler), ``%(levelname)s:%(name)s:`` (``basicConfig``'s
# default), ``%(asctime)s - %(name)s - %(levelname)s - ``.
_BASIC_PREFIX = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.-]*:"
_LOGGER_PREFIX = re.compile(
    r"(?:[^\t]*\t|.{0,40}? - )?[\w.-]+(?:\t| - )(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)(?:\t| - )"
    r"|" + _BASIC_PREFIX)
_BASIC_LOGGER = re.compile(_BASIC_PREFIX)
# ...or any logger's level ending its prefix, the message after it: Stanza's ``%(asctime)s
# %(levelname)s: %(message)s`` (stanza/__init__.py) before its sentiment classifier's
# ``'[%d, %5d] average loss: %.3f'`` (stanza/models/classifier.py ``train_model``), the
# tutorial's bracket behind a logger of its own. Sought within a prefix's width only.
_LEVEL_ENDS = re.compile(r"\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\]?(?::| -| \|)? +")
_LEVEL_REACH = 64
# ...unless it also names the training loss by a training key: an epoch's summary of both
# (SpeechBrain's ``train loss: 0.52 - valid loss: 0.61``), whose other keys the lexicon sorts.
# The split may follow the noun: Open3D-ML's pipelines (ml3d/torch/pipelines/
# semantic_segmentation.py ``save_logs``: ``log.info(f"Loss train: {...:.3f}  eval:
# {...:.3f}")``).
_TRAINING_LOSS_KEY = re.compile(r"(?i)\b(?:train|training)[ _/.-]?(?:loss|cost|nll)\b"
                                r"|\b(?:loss|cost) (?:train|training)\b")
# An error of a material property printed in an energy unit after its value, on a line that
# names no training loss and no learning rate, is a score measured on a data set: the line
# reports an evaluation pass, its loss included. MACE prints only such lines on its console,
# the loss the validation set's (ACEsuite/mace mace/tools/train.py ``valid_err_log``:
# ``Epoch {epoch}: head: Default, loss={valid_loss:8.8f}, RMSE_E_per_atom={error_e:8.2f} meV,
# RMSE_F={error_f:8.2f} meV / A``; ``MAE_E=... meV`` for ``--error_table TotalMAE``).
_UNIT_ERROR = re.compile(r"(?i)\b(?:rmse|mae)(?:_\w+)?[ \t]*[=:][ \t]*[-+]?(?:\d[\d.]*"
                         r"(?:e[-+]?\d+)?|nan|inf) ?(?:m?eV|kcal/mol|kJ/mol)\b")
_LEARNING_RATE = re.compile(r"(?i)\b(?:lr|learning[ _]rate)\b")
# A run's closing summary (HF ``{'train_runtime': ..., 'train_loss': ...}``) is an average
# over the run, not a step: a phase's runtime. A logging interval's runtime is a step's
# (PaddleNLP's Trainer prints ``loss: 2.3, ..., global_step: 10, interval_runtime: 1.2``
# on every logging step).
_SUMMARY = re.compile(r"\b(?:train|eval|predict|test)_runtime\b|train_samples_per_second")
_TABLE_ROW = "header row over value rows"  # how a table's value row is read
HEADER_REACH = 200  # value rows are read this many lines after their header row
# A multi-line record prints its step on a line of its own, each metric on a line below it
# (OLMo's ``[step=1080/739328]`` over ``    train/CrossEntropyLoss=nan``, fms-fsdp's
# ``step: 700`` over ``loss: nan``): a metric line that names no step, this many lines
# below a line that holds only a step, is that step's. Such a record is a dozen lines.
BLOCK_REACH = 16
# What an epoch's heading over its row may say: the epoch, and the learning rate it trains
# at (3200701576/Deep-learning-based-functional-visual-field-prediction ``train_main.py``:
# ``f"Epoch {epoch}/{args.epochs}, lr: {lr:.6e}"`` over the epoch's bars and its ``Train
# Loss: ...`` line)
_EPOCH_HEADING_KINDS = frozenset({lexicon.EPOCH, lexicon.LR})
# An epoch's ``Train: ...`` summary this many lines below the last row of a percentage bar
# (DJL's: the validation bar and ``Epoch N finished.`` between) summarises the bar's rows: no
# step of its own (see ``_epoch_summary``). Without the bar (DJL_DISABLE_PROGRESS_BAR) the
# summaries are the rows.
BAR_SUMMARY_REACH = 4
# An epoch's sums under the splits' names this many lines below its bar's last state (a
# warning's line between at most): see epoch_sums.
SUMS_REACH = 2
# How an epoch's row opens (``Epoch 23/60 | ...``, ``epoch: 4/9, ...``): a cheap test first.
_EPOCH_OPENERS = frozenset(("Epoch", "epoch"))
# A row that says how far into its epoch it is by a percentage in brackets before its values
# (PhysicsNeMo's LaunchLogger, NVIDIA/modulus ``physicsnemo/launch/logging/launch.py``
# ``log_minibatch``: ``f"[{mbp:.02f}%] " + "Mini-Batch Losses: loss = {value:10.3e}"``), and
# the epoch's summary below the last of them (its ``__exit__``: ``f"Epoch {self.epoch}
# Metrics:"`` and the averages of the rows just counted, under the rows' names): no step of
# its own, as DJL's ``Train:`` below its bar. Without the rows (a log interval longer than the
# epoch) the summaries are the rows. A row that names itself a batch's (``Mini-Batch Losses:``,
# printed without the percentage where the loader's length is not given) is one as well.
_PERCENT_ROW = re.compile(r"\[\s*\d{1,3}(?:\.\d+)?%\] |(?i:\b(?:mini-?)?batch losses?:)")
# A line that says its epoch ended (SAM-HQ's ``Finished epoch: 3``, ``Epoch 5 done``): it
# sums up the batches above it, it heads none.
_EPOCH_ENDED = re.compile(r"(?i)\b(?:finished|done|completed?|ended)\b")
_EPOCH_SUMMARY = re.compile(r"(?:^|\] |: | - )Epoch \d+ (?:Metrics|Summary|Averages?|Stats):")
# Why a line holds no training step's values (a template's plan keeps it).
EVALUATION = "evaluation"  # a line about evaluation: its losses and metrics are evaluation's
CLOSING = "closing summary"  # a run's closing summary: only its evaluation keys are read
# Bare columns (``print(step, loss)``): an integer, then one value, nothing else; a
# non-finite value in Python's, numpy's or torch's spelling (pandas prints ``NaN`` for
# missing data: not read). Finite rows hold no keyword; a NaN one does. More numbers after
# the value (group 3) only in columns split by blanks, as ``print(step, loss.item(), lr)``
# splits them (``600 nan 0.001``): a delimited row's step, NaN and more columns is a table's
# (``_DELIMITED``; its header names them). No two quantified parts after the value match the
# same character (the blanks, a keyword's ``\S*``, the blanks after it), so a row that fails
# at its end is refused in linear time: a wide CSV row of empty cells (``7,nan,,,...,0.5``)
# backtracked quadratically when ``[\s,)]`` could also match what the blanks gave back.
_BARE = re.compile(r"\s*(\d+)[\s,:;]+(?:tensor\()?(nan|-?inf)\b"
                   r"((?:[^A-Za-z]|(?<=\d)[eE](?=[-+]?\d))*)"
                   r"(?:(?:device|grad_fn|dtype)=\S*(?:\s[\s,)]*|$))*$")
_DELIMITED = re.compile(r"[,;\t]")
# A class's row of a classification report (scikit-learn sklearn/metrics/_classification.py
# ``classification_report``: ``row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + "
# {:>9}\n"``, seqeval's and many loops' copies of it): a class label, its precision, recall
# and F1, its support
_REPORT_ROW = re.compile(r"\s*\d+((?: +(?:nan|[01]\.\d+)){3}) +\d+\s*$")
# A YOLO training row read without its header row (an excerpt that starts below it, or
# YOLOv5's ``Epoch gpu_mem box obj cls labels img_size`` header, which holds no keyword):
# ``{epoch}/{epochs - 1}``, the GPU memory, the loss terms, then two counts (labels or
# instances, the image size), then the bar. Finite rows hold no keyword; a NaN one does.
_YOLO_ROW = re.compile(r"\s*(\d+)/\d+\s+[\d.]+G"
                       r"((?:\s+(?:[-+]?[\d.]+(?:e[-+]?\d+)?|nan|-?inf)){2,6})\s+\d+\s+\d+:?\s"
                       # YOLOv6's (yolov6/core/engine.py ``print_details``): no memory, no
                       # counts, the learning rate and the loss terms right before the bar
                       r"|\s*(\d+)/\d+((?:\s+(?:[-+]?[\d.]+(?:e[-+]?\d+)?|nan|-?inf)){2,7})"
                       r":\s+\d+%\|")
# The image-to-image GAN trainers' loss line (junyanz/pytorch-CycleGAN-and-pix2pix util/
# visualizer.py ``print_current_losses``: ``'(epoch: %d, iters: %d, time: %.3f, data: %.3f) '``
# then ``'%s: %.3f '`` for each of ``model.get_current_losses()``; NVlabs' SPADE and
# pix2pixHD print it without ``data``, CUT as is): every value after the header is a loss
# term, named as the model names it (``G_GAN``, ``D_real``, ``cycle_A``, no loss noun), and
# ``iters`` counts the epoch's images. Finite lines hold no keyword; a NaN one does.
_VISUALIZER_ROW = re.compile(r"\(epoch: (\d+), iters: (\d+), time: [\d.]+(?:, data: [\d.]+)?\) "
                             r"((?:[A-Za-z]\w*: \S+ ?)+)$")
_VISUALIZER_TERM = re.compile(r"[A-Za-z]\w*: (\S+)")
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
# The same record as tabulate's ``simple`` table of two columns without a header: rllab's
# logger (``dump_tabular``: ``for line in tabulate(self._tabular).split('\n')``) and the RL
# libraries that copied it (rlkit's ``rlkit/core/logging.py``, rlpyt's, garage's dowel) print
# ``trainer/QF1 Loss        0.123`` rows between ``------------  -----`` rules, its counter
# (rlkit's ``Epoch  12``) a row of its own, last.
# rllab's ``log`` puts ``"%s | %s" % (timestamp, line)`` before each (rlpyt's
# ``rlpyt/utils/logging/logger.py``: ``'%Y-%m-%d %H:%M:%S.%f %Z'``, its zone empty).
_STAMP = r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+(?: \w*)? *\| )?"
# garage's dowel pads every other key with a leader of dots (``TotalEnvSteps . . . .``).
_SIMPLE_CELL = re.compile(_STAMP + r"([A-Za-z][\w./-]*(?: [A-Za-z(][\w./()-]*)*)(?: +\.)*"
                          r" {2,}(\S+)[ \t]*$")
_SIMPLE_RULE = re.compile(_STAMP + r"\s*-{3,}  -{3,}\s*$")
RECORD_REACH = 64  # lines handed over after a record's row (the rest of it holds no keyword)
RECORD = "| key | value | record rows"
# A dict that ``pprint`` spread over lines, one key a line: ``{'accuracy': ...,`` then
# `` 'loss': Array(nan, dtype=float32),`` ... `` 'step': 100}`` (EasyLM's ``tqdm.write(
# pprint.pformat(log_metrics))``, EasyLM/models/*/..._train.py), indented under the line that
# says whose output it is (TF Model Garden's orbit Controller, orbit/controller.py
# ``_format_output``: ``train | step:   3000 | steps/sec:    5.2 | output: `` over
# ``    {'learning_rate': np.float32(0.08),``...). Its rows are one record, read together
# when the row that closes the dict (``}``) ends it: the step may be a row of its own, after
# the loss (pprint sorts the keys). Its rows without a keyword come with the one that has.
# The first row may follow a logging prefix (the TF Object Detection API logs
# ``pprint.pformat(logged_dict_np, width=40)``: ``INFO:tensorflow:{'Loss/classification_loss':
# 0.5,``, research/object_detection/model_lib_v2.py). A record may start at a later row (its
# first rows held no keyword). JSON indented the same way is read alike, its closing brace on
# a line of its own: Chainer's LogReport file (chainer/training/extensions/log_report.py
# ``json.dump(self._log, f, indent=4)``: ``    {`` then ``        "main/loss": NaN,`` ...
# ``        "iteration": 3000,`` ... ``    },``), ESPnet1's ``exp/*/results/log``.
_DICT_KEY = r"""(?:'([^'\n]{1,80})'|"([^"\n]{1,80})"): \S"""
_DICT_ROW = re.compile(r"\s*" + _DICT_KEY)
_DICT_OPEN = re.compile(r"(?:.*?\{)?\s*" + _DICT_KEY + r".*,\s*$")
_MEASURED_ROLES = frozenset({lexicon.LOSS, lexicon.COMPONENT, lexicon.GRAD_NORM})
_DICT_CLOSE = re.compile(r"\s*\}[,\]]*\s*$")
# A line above such a dict that numbers it: its step, then the key of what the lines below
# print (orbit's ``train | step:   3000 | steps/sec:    5.2 | output: ``), or a message that
# opens with its step (the Object Detection API's ``'Step {} per-step time {:.3f}s'`` over its
# dict). Handed over (reader.py) and read as a step line, above a dict or in its reach.
STEP_BEFORE_KEY = r"\bstep[=:] *\d+\b.*:[ \t]*$"  # (a line that ends with a colon)
STEP_NUMBER = r"[Ss]tep:? ?\d+\b"  # the step and its number, whatever opens them
STEP_OPENS = r"(?:^|[\]:] ?)" + STEP_NUMBER
STEP_ABOVE = STEP_BEFORE_KEY + "|" + STEP_OPENS
_STEP_ABOVE = re.compile(STEP_ABOVE)
# ...or a line that holds a step counter and nothing else but the marks around it: the banner
# a loop prints over a step's metrics (``==== Step 100 ====``, ``[Step 100]``, ``--- Iteration
# 100 ---``, ``>> global step 100``); the counter may follow the name of what prints it and
# group its digits as Python's ``{:_}`` does (DreamerV3's terminal output, danijar/elements
# ``elements/logger.py`` ``TerminalOutput``: ``--------------------[Agent Step
# 1_200_000]--------------------`` over ``Metrics filtered by: '...'`` and its ``key value /
# key value`` line); its total may stand apart from the slash (007d83QQ/FewShot-Traditional
# Chinese-Handwriting ``training.py``: ``'iteration {} / {}:'`` over its record's lines)
STEP_ALONE = (r"[\W_]*(?:[A-Z][a-z]+ )?(?:[Gg]lobal[ _])?"
              r"(?:[Ss]tep|STEP|[Ii]ter(?:ation)?|ITER(?:ATION)?)"
              r"[\W_]{1,3}\d+(?:_\d{3})*(?: ?/ ?\d+)?[\W_]*$")
_STEP_ALONE = re.compile(STEP_ALONE)
_DIGIT_GROUP = re.compile(r"(?<=\d)_(?=\d{3})")  # ``{:_}``'s separators (``1_200_000``)
_FILLED = re.compile(FILLED)  # a counter's filler word (see counter_headings)
# Keras' epoch header over its bar (keras ``callbacks/progbar_logger.py``: ``Epoch
# {epoch + 1}/{self.epochs}``), handed over with the bar below it (reader.py)
KERAS_EPOCH = r"Epoch (\d+)/(\d+)"
_KERAS_EPOCH = re.compile(KERAS_EPOCH)
# A loop's own epoch heading, the same ``Epoch E/N`` framed by rules (014-Jayal/LUGAI
# ``train_baseline.py``: ``print(f"\\n--- Epoch {epoch+1}/{config.EPOCHS} ---")`` over its
# ``tqdm`` bar): no Keras fit's; it says which epoch the bar below counts (``block_epoch``),
# an excerpt pasted from it included. Handed over with the bar below it (reader.py).
FRAMED_EPOCH = r"([-=*#]{2,}) Epoch (\d+)/(\d+) \1"
_FRAMED_EPOCH = re.compile(FRAMED_EPOCH)
# How far a new fit's first loss stands above the last fit's last one where it is a fresh
# model's (an untrained model's loss; one fitted again goes on near where it was).
_FRESH_FIT_RISE = 2.0
_PHASE_COUNT = re.compile(PHASE_COUNT)
# An evaluation pass that opens at the iteration it names, its outputs below it, none of
# which prints a step (BVLC/caffe src/caffe/solver.cpp ``Test``: ``"Iteration " << iter_ <<
# ", Testing net (#" << test_net_id << ")"`` over ``    Test net output #1: loss = nan (* 1
# = nan loss)``); reader.py hands it over with the first output below it
EVAL_AT = r"\b[Ii]teration (\d+), (?:Testing|Evaluating|Validating)\b"
_EVAL_AT = re.compile(EVAL_AT)
# Lines an evaluation's heading numbers below it (a test net's outputs, one a line)
HEADING_REACH = 16
DICT_REACH = 32  # lines handed over after an open dict's row (the rest of the record)
# A YAML mapping, one key a line, nested by indentation (RLlib's results through
# ``ray.tune.logger.pretty_print``, ``yaml.safe_dump`` sorted by key: ``        total_loss:
# .nan`` under ``info: / learner: / default_policy: / learner_stats:``, its
# ``training_iteration: 4`` far below): an indented row holding a value opens it; its rows are
# kept, each key once, and read as one line when a line that is no row ends it (the blank
# line ``print`` leaves after the dump). A mapping without a loss, a gradient norm or an
# evaluation metric is a configuration, as a record's table of settings is.
_YAML_ROW = re.compile(r"( *)([A-Za-z_][\w./@-]*):(?: +(\S[^\n]*?))?\s*$")
YAML = "YAML mapping rows"
MAPPING_REACH = 200  # lines handed over after such a row (the step row may be far below)
# Evaluation values that do not say whether evaluation went wrong: what the lexicon's
# training roles name on an evaluation line (a step counter, a learning rate, a scale).
# (an evaluation's meter averages its batches too: Swin-Transformer's ``Test: [20/49] ...
# Loss 6.9 (nan)``)
_EVAL_ROLES = frozenset({lexicon.LOSS, lexicon.COMPONENT, lexicon.EVAL, AVERAGE})
_ACCURACIES_KEPT = 64  # accuracies' names remembered as read finite (bounded memory)
SUMMARY_REACH = 2  # a summary's lines below the last evaluation line (a total time between)
_DIGITS = re.compile(r"\d+")  # (two logging prefixes differ in their times only)
# An epoch's summary row (it keys the epoch, no step) right below the row whose count of a
# total reached it (ACOTSAE/DGD-UNet-GAN ``train_gan.py``'s ``Epoch [4/6] | D Loss: ... |
# Val L1: ...`` below ``  Batch [400/400] | D: ... | G: ...``; 014-Jayal/LUGAI
# ``train_baseline.py``'s ``Epoch 3 Train Loss: ...`` below its bar's ``469/469``): the
# epoch's last step, not a step after it (its evaluation ran there). Within this many lines.
_PASS_SUMMARY_REACH = 2
_COUNTED_ENDS = frozenset(":)*=-#")  # how a counted epoch's heading ends (see counted_epochs)
_RULES = frozenset({"--", "==", "**", "##"})  # (FRAMED_EPOCH's cheap test)
# EPOCH_ITER's last group: PointNet's ``[e: i/N]`` layout, its batch's total
_COLON_EPOCH_TOTAL = EPOCH_ITER.groups
_KEY_WORDS = re.compile(r"(?:[A-Za-z][\w.-]* ?)+$")  # the words of a key before its noun


def _bracket_after_level(text: str) -> re.Match[str] | None:
    """The tutorial's ``[epoch, batch]`` that opens the message behind a logger's level
    (``2024-06-01 10:00:00 INFO: [3,  8000] average loss: nan``); the bare ``3 500`` form
    only opens a line (after a level it may be any two numbers a message begins with).

    Example:
        >>> _bracket_after_level("2024-06-01 10:00:00 INFO: [3,  8000] average loss: 0.5"
        ...                      ).groups()
        (None, None, '3', '8000')
        >>> _bracket_after_level("INFO: 3 8000 loss 0.5") is None
        True
    """
    at = text.find("[", 0, _LEVEL_REACH + 16)
    if at < 0:
        return None
    level = _LEVEL_ENDS.search(text, 0, min(len(text), _LEVEL_REACH))
    if level is None:
        return None
    found = TWO_COUNTS.match(text, level.end())
    return found if found is not None and found.group(3) is not None else None


def _split_scores(text: str, first: re.Match[str]) -> bool:
    """True when every evaluation word of ``text`` (the first one ``first``) keys a score of
    its own, after the loss that follows an epoch (``Epoch: 019, Loss: 0.41, Train: 0.95,
    Val: 0.78, Test: 0.80``)."""
    loss = _LOSS_KEY.search(text, 0, first.start())
    if loss is None or _EPOCH_KEY.search(text, 0, loss.start()) is None:
        return False
    return all(_SPLIT_SCORE.match(text, found.end())
               for found in _EVAL_CONTEXT.finditer(text, first.start()))


def _epoch_and_count(metrics: MetricLine) -> tuple[int, int] | None:
    """The epoch and the step a row keys both (``Epoch 2 | Iter 301 | ...``), or None."""
    if lexicon.EPOCH not in metrics.values or lexicon.STEP not in metrics.values:
        return None
    epoch = as_step(metrics.values[lexicon.EPOCH])
    count = as_step(metrics.values[lexicon.STEP])
    return None if epoch is None or count is None else (epoch, count)


def _not_training(text: str) -> str | None:
    """Why a line holds no training step's values (:data:`EVALUATION`, :data:`CLOSING`), or
    None for a training line."""
    if ("type" in text or "mode" in text or "phase" in text) and (
            _RECORD_KIND.search(text) is not None):
        return EVALUATION
    if (found := _EVAL_CONTEXT.search(text)) is not None and (
            _TRAINING_LOSS_KEY.search(text) is None) and not _split_scores(text, found) and (
                region_losses.region_pair(text) is None) and (  # (``hole: ...; valid: ...``)
                held_out_part(text) > found.start()):  # (``[Train] ... | [Valid] ...``)
        # The logging prefix's logger name is the run's (``getLogger(basename(model_dir))``
        # in the VITS family, RVC's default experiment ``mi-test``): no word of the line's.
        prefix = _LOGGER_PREFIX.match(text) if found.start() < 80 else None
        if prefix is None or _EVAL_CONTEXT.search(text, prefix.end()) is not None:
            return EVALUATION
    if ("eV" in text or "/mol" in text) and _UNIT_ERROR.search(text) is not None and (
            _TRAINING_LOSS_KEY.search(text) is None and _LEARNING_RATE.search(text) is None):
        return EVALUATION
    if quality_scores.scores_alone(text):  # (``===> Avg. PSNR: nan dB``: the test pass's)
        return EVALUATION
    if _SUMMARY.search(text) is not None:
        return CLOSING
    return None


def _printed_whole(key: str, whole: int, text: str) -> bool:
    """Whether ``text`` prints the epoch ``whole`` after its key as a whole number (``epoch
    23``, ``Epoch: 019``), not as ``epoch: 0.00``."""
    return re.search(re.escape(key) + rf"\W{{0,4}} *0*{whole}(?![.\d])", text) is not None


def _epoch_summary(text: str) -> bool:
    """Whether ``text`` opens its message with ``Train: `` (after a logger's prefix): DJL's
    LoggingTrainingListener ``onEpoch`` (api/src/main/java/ai/djl/training/listener/
    LoggingTrainingListener.java: ``logger.info("Epoch {} finished.", numEpochs)``, then
    ``logger.info("Train: {}", status)``, the epoch's values under the names its progress bar
    printed them by each batch, ``Training:    40% |████    | Accuracy: 0.87,
    SoftmaxCrossEntropyLoss: 0.41, speed: ...``): below such a bar, an epoch's summary of the
    rows just counted, no row of its own (see ``BAR_SUMMARY_REACH``)."""
    before = text[:text.find("Train: ")]
    return not before or before.endswith((" - ", "] "))


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
        # (line, column names, their (start, end) on the header row, what parts its cells:
        # "\t", "|" or "" for blanks)
        self.header: tuple[int, list[str], list[tuple[int, int]], str] | None = None
        # its columns that are an evaluation's, each with its training twin's
        self.header_evals: dict[str, str] = {}
        self.header_split = False  # the table is an evaluation's (its split named above it)
        self.header_csv = False  # commas alone part the header's cells (a CSV file's)
        self.header_named = False  # its rows are named things, no steps (see _named_rows)
        # the last header between pipes that may head a table of splits (see split_rows):
        # (line, cells); the line of the last row read as a split's
        self.split_head: tuple[int, list[str]] | None = None
        self.split_read = -1
        self.header_text = ""  # the header row as printed (a second row may go on its names)
        # Lines read per (notation, keys): one count per line; the totals per notation and
        # per key are summed when asked for (a big log reads millions of lines).
        self._read_as: Counter[tuple[str, tuple[str, ...]]] = Counter()
        # batches an epoch -> (last batch, epochs before it, line it was on)
        self.bars: dict[int, tuple[int, int, int]] = {}
        # Keras' last ``Epoch e/N`` header (0: none read), and whether a new fit began
        # below it (an ``Epoch 1/N`` after another header): its first row starts a run
        self.fit_epoch = 0
        self.fit_total = 0  # ...and the total it named (``Epoch e/N``'s N)
        self.new_fit = False
        self.ended_fit = False  # the new fit follows one of as many epochs run to its end
        self.fit_loss = math.nan  # the last finite loss a Keras bar's row printed
        self.fit_row = -1  # the line of that fit's first row
        self.phase_count = (-2, 0, 0)  # ClassyVision's last phase line: (line, phase, batches)
        self.bar_line = -BAR_SUMMARY_REACH - 1  # the last line of a percentage bar's row
        # (run's batches, line) of the last state of a bar an epoch with no postfix
        self.sums_bar = (0, -SUMS_REACH - 1)
        self.bar_units: dict[int, int] = {}  # a bar's samples a batch (see _bar_step)
        # a keyed count of a total (``Iter: 700/2000``): total -> (last count, passes,
        # printing interval), see ``_pass_step``
        self.passes: dict[int, tuple[int, int, int]] = {}
        # the line and step of the last count that reached its total (an epoch's last batch),
        # which numbers the epoch's summary right below it (see ``_summary_of_pass``)
        self.pass_end = (-3, 0)
        # ...and the epoch summaries read (``epochs_up``'s rows) when each total's count was
        self.pass_summaries: dict[int, int] = {}
        # The last bare sized bar (no description but its epoch's label, no postfix) at its
        # total (closing_bars.finishes_bare_bar): (line, its total: the epoch's batches).
        # Only the longest such bar's: a loop's evaluation over its
        # smaller held-out loader draws one too (the T5 loop of Adewale-1/Natural-Language-
        # to-SQL ``train_t5.py``: ``tqdm(train_loader)``, ``Epoch {e}: Average train loss was
        # ...``, then ``tqdm(dev_loader)`` and ``Epoch {e}: Dev loss: ...``), among the bars
        # within a summary's reach of each other: a bar further below is the next pass's, kept
        # whatever its length (a held-out loader longer than the training's: its bar must not
        # number the next epoch's training summary)
        self.bare_end = (-3, 0)
        # the epoch that bar is labelled with, if any (``Epoch 3: 100%|...``): (line, epoch)
        self.bare_label: tuple[int, int] | None = None
        # a tqdm bar's total: (last count, passes before, its line)
        self.tqdm_bars: dict[int, tuple[int, int, int]] = {}
        # a bar first seen with ``epoch: N,`` in its label repeating its count, taken for a bar
        # over the epochs until its next state says (``_over_epochs_still``): total: (the
        # label's epoch, the count)
        self.epoch_label_first: dict[int, tuple[int, int]] = {}
        # a count of the epoch's batches printed without its epoch: (last count, the counts
        # of the epochs before)
        self.restarts = (0, 0)
        # a keyed count alone on its rows (no epoch, no total): (last count, the counts of the
        # epochs before, printing interval, epoch rows read when it was), see
        # _epoch_count_step; and the rows read so far whose epoch went up, with that epoch
        self.key_count = (-1, 0, 0, 0)
        self.epochs_up: tuple[int, int] = (0, -1)
        # the epoch headings read whose epoch moved (an epoch's ``Epoch: 3 lr 0.02`` line
        # over its batches, its learning rate and no loss on it): each one opens an epoch, as
        # a summary closes one, and the keyed count going back after it is the next epoch's;
        # with the last epoch
        self.headings_moved: tuple[int, int] = (0, -1)
        # whether a heading printed epoch 0 (the epochs count from 0), and whether the epochs
        # above the excerpt's first were added (once, at the first restart after a heading)
        self.heading_zero = self.headings_placed = False
        self.run_epochs = RunEpochs()  # where a new run's epochs begin (see _new_run)
        # the same of an open bar alone (see _open_bar_step): the last count, the counts of
        # the epochs before, and the line of the last count
        self.open_bar = (0, 0, 0)
        self.epochs_from_zero = False  # an "Epoch [0][i/N]" row was read
        self.last_epoch: int | None = None  # the epoch of the last "Epoch [E][i/N]" row
        # the batches of epochs whose length is not printed (``Epoch 3, batch 500``)
        self.epoch_batches = EpochBatches()
        self.eval_passes = EvalPasses()
        self.phase_batches = 0  # the batches of a ClassyVision phase (0: not printed yet)
        # A row whose finite lines hold no keyword (only its non-finite ones are candidates)
        # that numbers its count within the epoch, first read past the first epoch: the
        # epochs before it went unread, so its step is not known from the rows read (the
        # doctor reads such an excerpt again, every line a candidate).
        self.epochs_unread = False
        # wenet's ``Batch a/b``: the last pair, and whether ``a`` is the epoch (None: not
        # told yet)
        self.slash_last: tuple[int, int] | None = None
        self.slash_epochs: bool | None = None
        # the last "Epoch E/N, step i/M" (epoch, i), and whether its steps count the epoch's
        # batches
        self.epoch_of_steps: tuple[int, int] | None = None
        self.steps_in_epoch = False
        # the epoch's length in those steps, where the count went back after a run's share
        # (None: M, as printed)
        self.epoch_length: int | None = None
        # the samples a step of ``Epoch E [n/N (p%)]`` counts (None: not told yet; 0: not
        # known, the counts are read as nothing)
        self.step_samples: int | None = None
        # The fast path (off: every line by the slow path, for tests that compare the two).
        self.templates = Templates(_learn) if templates else None
        self.episodes = EpisodeBlanks()  # keras-rl's rows: ``loss: --`` that persists is NaN
        self.evaluation_lines = 0  # lines read as evaluation (training was under way)
        self.split_tree = SplitTree()  # a summary tree's branches (see split_trees)
        self.accuracies_read: set[str] = set()  # accuracies read finite (see _placeholders)
        self.last_read_as: tuple[str, tuple[str, ...]] | None = None  # the last line's
        self.bare_scale = BareScale()  # whether this input's bare "scale" is the loss scale
        # (line, step) of a list row of only ``[step, lr]`` (RVC): the step of the metric
        # line right after it, which prints none
        self.row_step: tuple[int, int] | None = None
        # the last (iteration, optimizer step) pair of a line that prints both (lit-gpt's
        # ``iter 480 step 30``), see _optimizer_step
        self.iteration_step: tuple[int, int] | None = None
        # The last line that announced a row of values below it (VITS' ``Train Epoch: 3
        # [40%]``): a finite bare list is read as loss terms only within ROW_REACH of it.
        self.row_announced = -ROW_REACH - 1
        # (step, line) of the last line that held only a step: the record's step below it;
        # the keys its record read so far (a record prints each metric once)
        self.block_step: tuple[int, int] | None = None
        self.block_keys: set[str] = set()
        # Step lines that recur, each the last one plus 1, over lines that print the same
        # metric again (LBFGS' closure, one ``loss:`` line an evaluation, several a step:
        # pytorch/examples ``time_sequence_prediction/train.py`` prints ``'STEP: ', i`` over
        # them): those lines are that step's. The last step line's step, whether its lines
        # printed a metric again, and whether the current one's may.
        self.step_only: int | None = None
        self.block_repeated = False
        self.block_again = False
        # (epoch, line) of the last line that held only an epoch (nnU-Net's ``Epoch 12``):
        # the epoch of a row below it that prints none
        self.block_epoch: tuple[int, int] | None = None
        self.fit_line = -1  # the line of the last Keras ``Epoch E/N`` header (_fit_header)
        # (epoch, line) of the last ``End of epoch E / N`` sentence (epoch_ends)
        self.ended_epoch: tuple[int, int] | None = None
        self.areas = DefinedAreas()  # areas under the ROC curve read finite (defined_areas)
        # the last step read from a bracket before the metrics; off once one went back
        self.bracket_last = 0
        self.bracket_off = False
        self.bracket_loss: int | None = None  # the last bracket that numbered a loss
        # each device tag's (last count, the counts of its epochs before, printing interval),
        # see _tagged_step
        self.bracket_tags: dict[str, tuple[int, int, int]] = {}
        self.colon_last: int | None = None  # the last count before a colon (COLON_COUNT)
        # the last epoch that numbered a row printed once an epoch (-1: none yet); off once
        # a row printed its step, no whole epoch, or an epoch that did not go up
        self.epoch_row = -1
        self.epoch_rows_off = False
        self.before_epochs = False  # a row without an epoch came before the first epoch row
        # (epoch, count) of the last ``Epoch: E/N ... steps: T`` line, and whether its
        # count is the epoch's steps (see ``_epoch_count``)
        self.epoch_count: tuple[int, int] | None = None
        self.counts_epoch = False
        self.record: list[tuple[str, str]] = []  # the rows of a record not yet ended
        # the row a record's events quote, (line, text): its first non-finite row, else its
        # first (the rule that ends a record, a line of dashes, shows nothing)
        self.record_quote: tuple[int, str] | None = None
        self.record_nonfinite = False
        # The line of the record's last row: a two-column ``key  value`` row (tabulate's
        # ``simple`` table) after lines that were not handed over (a blank line, a line of no
        # record: Ray's ``Training finished iteration 6`` between its result tables) begins a
        # record of its own; the rows of one table are one after another
        self.record_line = -1
        self.dict_rows: list[str] = []  # the rows of a pprint'd dict not yet closed
        self.dict_lines = (0, 0)  # the lines of its first and last rows
        self.eval_line = -2  # the last line read as evaluation's, and its text
        self.eval_text = ""
        # The step of the last evaluation pass's heading (``EVAL_AT``), and its line: the
        # values of that evaluation below it print none
        self.eval_heading = (-1, 0)
        # the rows of a block an evaluation heading opened (coqui's ``--> EVAL PERFORMANCE``
        # over ``| > avg_loss: nan``): evaluation's, though they name no split
        self.headed = HeadedBlock()
        self.eval_opener = -1  # the last evaluation line that ended with a key (`` eval |
        # ... | output: ``): the dict on the lines below it is evaluation's
        self.mapping_rows: list[str] = []  # the rows of a YAML mapping not yet ended
        self.mapping_keys: set[tuple[str, int]] = set()  # (key, indentation) of its rows
        # The step of the step line just above a mapping's first row (a loop's ``==== Step
        # 100 ====`` or ``step: 100`` over its indented metrics), or None
        self.mapping_step: int | None = None
        self.last_loss = 0.0  # the last loss read that was finite and not 0
        self.last_scale_spelled: str | None = None  # the last loss scale above 0, as printed
        self.last_scale_at: tuple[int, str | None] | None = None  # its step (and epoch's text)
        # An evaluation pass announced by a line of its own (AllenNLP's ``Validating``): the
        # line, and the total of the bar read since (None: none yet)
        self.announced: tuple[int, int | None] | None = None
        # the last step a metric line numbered and how far it was from the one before it:
        # what numbers a row whose counter is printed abbreviated (``_ABBREVIATED_STEP``)
        self.step_rhythm = (0, 0)
        # (line, text) of the last lines handed over (the parser appends each line before
        # it is read): what lies between a heading and the line below it (``right_below``)
        self.handed: deque[tuple[int, str]] = deque(maxlen=NOISE_BETWEEN + 2)
        # bare step/value rows read line after line: a NaN one whose NaN cannot be pandas'
        self.bare_columns = BareColumns()
        # Events that wait for the line that ends their run or list: a bare NaN row's
        # (pandas' footer below), a bullet row's 0 loss (a reward in the rows below)
        self.held: HeldNaN | ZeroInList | None = None

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

    def keyed_as_rows(self, text: str) -> bool:
        """Whether the loss on ``text`` is keyed as rows this reader has read were: a loop
        that prints its loss in a sentence (Adewale-1/Natural-Language-to-SQL ``train_t5.py``:
        ``f"Epoch {epoch}: Average train loss was {tr_loss}"``) prints its NaN so too, which
        then reads as a finding in words (``loss was nan``, see nonfinite_sentences) but is
        the row, numbered as the rows are. Asked only of such sentences (rare lines).

        Example:
            >>> reader = MetricReader()
            >>> reader.keyed_as_rows("Epoch 2: Average train loss was nan")
            False
            >>> _ = reader.read("Epoch 1: Average train loss was 1.8", 1)
            >>> reader.keyed_as_rows("Epoch 2: Average train loss was nan")
            True
            >>> reader.keyed_as_rows("step 7: loss became inf")
            False
        """
        keys = {claim[3] for claim in find_claims(text)[0] if claim[2] == lexicon.LOSS}
        return bool(keys) and not keys.isdisjoint(self.keys_seen)

    def read(self, text: str, line: int) -> list[MetricEvent]:
        """The metric events of one line no family parser claimed."""
        if ".py:" in text and warning_line(text):
            return []  # a Python warning interleaved (its path's name is no key)
        if "train" in text and (named := counter_row(text)) is not None:
            text, finite = named  # a split's bare row, its counter and values unnamed
            if not finite:
                self.epochs_unread = True  # (its finite rows hold no keyword: counter_rows)
        if '{"num": ' in text:
            text = _STAT_RECORD.sub(_stat_mean, text)
        if "outputs are (" in text:
            text = _NET_OUTPUTS.sub(_NAMED_OUTPUTS, text)
        if " / " in text and ": " in text:
            text = slash_pairs.spread(text)  # (names, then their values, each list slashed)
        if "%]" in text and announces_row(text):
            self.row_announced = line  # (its row may come as a line of its own: a keyword)
        if text[:6] == "Epoch " and self._fit_header(text, line):
            return []
        if text[-1:] in _COUNTED_ENDS and (plain := loop_epoch(text)) is not None:
            text = plain  # the loop's epoch in parentheses (see counted_epochs)
        if text[:2] in _RULES and (framed := _FRAMED_EPOCH.fullmatch(text.strip())):
            self.block_epoch = (int(framed.group(2)), line)
            return []
        if (ended := ended_epoch(text)) is not None:
            self.ended_epoch = (ended, line)  # (see _headed_passes)
            return []
        if self.bars and (ended := summary_epoch(text)) is not None:
            # an epoch's log a key a row, after its bars (a config's padded ``epoch`` before
            # any bar is no epoch's end)
            self.ended_epoch = (ended, line)
            return []
        if "rain" in text and text.lstrip()[:5] in _EPOCH_OPENERS and (
                row := epoch_split_row(text)) is not None:
            return self._epoch_split_row(text, *row)  # (see epoch_split_rows)
        if text[-3:] == "/s]" and "poch" in text and (
                done := postfixless_bar_step(text)) is not None:
            self.sums_bar = (done, line)  # (an epoch's sums may follow: see epoch_sums)
        elif "rain" in text and (sums := split_sums(text)) is not None:
            if 0 < line - self.sums_bar[1] <= SUMS_REACH:
                return self._epoch_sums(text, *sums)
            # No bar above: where the bars hold no keyword, only these sums' non-finite
            # values were handed over; the bars that number them are read on a second
            # reading of every line (doctor._steps_unread)
            self.epochs_unread = True
        if text[-3:] == "/s]" and (total := finished_total(text)):
            if total >= self.bare_end[1] or line - self.bare_end[0] > _PASS_SUMMARY_REACH:
                # (a shorter bare bar beside a longer one: an evaluation's, see bare_end)
                self.bare_end = (line, total)
                label = finished_epoch(text)
                self.bare_label = None if label is None else (line, label)
            return []
        if text[-3:] == "/s]" and (length := closed_length(text)):
            # an open bar's last state alone: the batches of the epoch it closed, which the
            # rows printed every few batches tell only roughly (see closing_bars). Within an
            # interval of the last row's batch only: a bar of another count (an evaluation
            # over an unsized loader, ``1000it [...]``, between the epochs) is no epoch's
            batches = self.epoch_batches
            if batches.last < length <= batches.last + (batches.interval or length):
                batches.declared = length
            return []
        if "Complete [" in text and ended_by_search(text):
            # A search's trial ended (KerasTuner): the next trial builds a new model, whose
            # optimizer counts from 0 again; its bars do not count on from this one's.
            self.bars.clear()
            self.bar_units.clear()
            return []
        if EPISODE_ROW in text and (blank := self.episodes.row(text)) is not None:
            return [MetricEvent(METRICS, FAMILY, step=blank, loss=math.nan, keys=("loss",))]
        if "ed batches: " in text and (found := _PHASE_COUNT.search(text)) is not None:
            # (ClassyVision's phase line over its loss line: see PHASE_COUNT)
            self.phase_count = (line, int(found.group(1)), int(found.group(2)))
            return []
        if "% |" in text or (("%] " in text or "atch " in text) and (
                _PERCENT_ROW.search(text) is not None)):
            self.bar_line = line
        elif "Train: " in text and line - self.bar_line <= BAR_SUMMARY_REACH and (
                _epoch_summary(text)):
            return []
        elif "Epoch " in text and line - self.bar_line <= BAR_SUMMARY_REACH and (
                _EPOCH_SUMMARY.search(text) is not None):
            return []  # (the epoch's averages of the percentage rows above it)
        if text.endswith("ating") and _ANNOUNCES_EVALUATION.search(text) is not None:
            self.announced = (line, None)
            return []
        if self.announced is not None and "|" in text and (
                out := self._announced_bar(text, line)) is not None:
            return out
        # A record, a dict or a mapping spread over lines: a row of the open one is kept, a
        # line that is no row ends it (its events, then the line's own).
        if (self.record or table_row(text)) and (out := self._spread(
                self._record(text, line), self.record, self._end_record, text, line)) is not None:
            return out
        if (self.dict_rows or "': " in text or '": ' in text) and (out := self._spread(
                self._dict_row(text, line), self.dict_rows, self._end_dict, text,
                line)) is not None:
            return out
        if (self.mapping_rows or text[:2] == "  ") and (out := self._spread(
                self._mapping_row(text, line), self.mapping_rows, self._end_mapping, text,
                line)) is not None:
            return out
        events = self._read(text, line)
        if events and text[:1] == " " and bullet_row(text) and (
                isinstance(self.held, ZeroInList) or any(e.loss == 0.0 for e in events)):
            # (see bullet_lists; a row of a list already held joins it)
            held = ZeroInList(list(events), line, text)
            if isinstance(self.held, ZeroInList):
                self.held.events += held.events
            else:
                self.held = held
            return []
        return events

    def right_below(self, above: int, line: int) -> bool:
        """Whether ``line`` is the loop's line right below line ``above``: the next line, or
        the next but for a few lines another source interleaved (a Python warning, a
        checkpoint saver's line, wandb's chatter: see :mod:`noise_lines`). A line between
        that was handed over must be in such a shape; one that was not holds no keyword."""
        if above < 0:
            return False  # (none yet)
        if line - 1 == above:
            return True
        if not 1 < line - above <= 1 + NOISE_BETWEEN:
            return False
        between = [(at, text) for at, text in self.handed if above < at < line]
        # (handed over one after the other, as a warning's two lines are)
        return all(at == between[0][0] + index for index, (at, _) in enumerate(between)) and (
            all_noise([text for _, text in between]))

    def _in_block(self, named: set[str], line: int) -> bool:
        """Whether a metric line that prints no step is the record's below the last step
        line: within its reach, a metric it has not printed yet; or, below step lines that
        recur over the same metric printed again (``block_again``), the same metrics again,
        up to the next step line."""
        if self.block_step is None:
            return False
        if self.block_again:
            return named == self.block_keys or not self.block_keys
        return line - self.block_step[1] <= BLOCK_REACH and self.block_keys.isdisjoint(named)

    def _announced_bar(self, text: str, line: int) -> list[MetricEvent] | None:
        """The events of a bar of an announced evaluation pass (AllenNLP's validation bar
        prints the training bar's keys: ``loss: nan ||: 48%|#  | 150/313 [``), as
        evaluation's; None for a line that is none. The pass's bar is the first one right
        below the announcement, unless its total is a training bar's (training went on: no
        pass printed a bar); a bar of another total, or the pass's last count, ends the
        pass."""
        bar = TQDM.search(text)
        if bar is None or self.announced is None:
            return None
        done, total = int(bar.group(1)), int(bar.group(2))
        if self.announced[1] is None and total not in self.tqdm_bars and (
                line - self.announced[0] <= ANNOUNCED_BAR_REACH) and (
                lexicon.LOSS in read_pairs(text[:text.rfind("%|", 0, bar.start())]).values):
            # (its loss in the bar's description, as the training bar's: not a dict glued
            # after another loop's bar)
            self.announced = (self.announced[0], total)
        if self.announced[1] != total:
            self.announced = None
            return None
        if done >= total:
            self.announced = None
        return self._evaluated(text, find_claims(text)[0], EVALUATION, line)

    def _spread(self, held: list[MetricEvent] | None, rows: list[Any],
                end: Callable[[int], list[MetricEvent]], text: str,
                line: int) -> list[MetricEvent] | None:
        """What a line gives that may go on a record, a dict or a mapping spread over lines:
        ``held``, its reading as a row of one, where it is a row; else, where one is open
        (``rows``), that one's events (``end``) and the line's own; else None."""
        if held is not None:
            return held
        return end(line) + self._read(text, line) if rows else None

    def _dict_row(self, text: str, line: int) -> list[MetricEvent] | None:
        """A row of a dict spread over lines: kept (``[]``), or the events of the dict it
        closes; None for a line that is no row of an open dict (or opens none)."""
        if not self.dict_rows:
            # a row that more rows follow (a dict on one line is a line)
            if not text.rstrip().endswith(",") or _DICT_OPEN.match(text) is None:
                return None
        elif line - self.dict_lines[1] > 1:
            return None  # cut off: the rows read so far are the dict
        elif _DICT_CLOSE.match(text) is not None:
            return self._end_dict()  # JSON's closing brace, on a line of its own
        elif _DICT_ROW.match(text) is None:
            return None
        self.dict_lines = (self.dict_lines[0] if self.dict_rows else line, line)
        self.dict_rows.append(text.strip())
        return self._end_dict() if text.rstrip().endswith("}") else []

    def _end_dict(self, line: int = 0) -> list[MetricEvent]:
        """The events of the dict's rows read so far, as the one line pprint cut (read at
        its first row's line, not ``line``: a step line above it numbers it)."""
        if not self.dict_rows:
            return []
        text = " ".join(self.dict_rows)
        self.dict_rows = []
        if not _measured(read_pairs(text)):
            return []  # a configuration printed so (verl pprints its config at start)
        first = self.dict_lines[0]
        opener = self.eval_opener  # (JSON's opening brace between)
        if self.right_below(opener, first) or self.right_below(opener, first - 1):
            return self._evaluation(text, find_claims(text)[0], EVALUATION)
        return self._read(text, first)

    def _read(self, text: str, line: int) -> list[MetricEvent]:
        if self.eval_passes.epoch is not None:  # (rows that key an epoch and a step read)
            self.eval_passes.read(text)
        if "_" in text and _STEP_ALONE.match(text) is not None:
            text = _DIGIT_GROUP.sub("", text)  # a banner's grouped counter: one number
        if len(text) <= COUNTERS_WIDTH and (" n" in text or " N" in text or " #" in text) and (
                _FILLED.search(text) is not None and (heading := counter_heading(text))):
            text = heading  # counters named in words alone: the filler words dropped
        if text[:1] == "[" and (progress := COMPOSER_LINE.match(text)) is not None:
            epoch, batch, batches = progress.groups()
            if epoch is None or batches is not None:  # (an epoch's length not printed: none)
                before = (int(epoch) - 1) * int(batches) if epoch is not None else 0
                self.block_step, self.block_keys = (before + int(batch), line), set()
            return []
        if text[:8] == "(epoch: " and (visualized := self._visualizer_row(text)):
            return visualized
        if self._piped_header(text, line):
            return []
        plan = self.templates.plan(text) if self.templates is not None else None
        why = _not_training(text) if plan is None else plan.skip
        if why == EVALUATION and is_branch(text):
            self.split_tree.heading(text, line)  # ``└── Validation``: a split's name
        if why is None and is_branch(text) and (
                branch := self.split_tree.branch(text, line)) != READ:
            if branch == EPOCH_SUMMARY:
                return []
            return self._evaluated(text, find_claims(text)[0], EVALUATION, line)
        if why == EVALUATION and ":  " in text and self._header_row(text, line):
            return []  # an evaluation's titled table (ALIGNN's ``Val Loss:  Epoch  Total``)
        if plan is None:
            if why is not None:
                return self._evaluated(text, find_claims(text)[0], why, line)
            metrics = read_pairs(text)
        elif plan.skip:
            return self._evaluated(text, plan.claims, plan.skip, line)
        else:
            metrics = collect(plan.claims, text)
        if self.headed.last >= 0 and len(self.handed) > 1 and (
                self.headed.row(text, line, self.handed[-2][0])):
            return self._evaluated(text, find_claims(text)[0], EVALUATION, line)
        if line - self.eval_line <= SUMMARY_REACH + NOISE_BETWEEN:
            if "|" in text and (head := _split_header(text)) is not None:
                self.split_head = (line, head)  # (a table of splits below its heading)
            if self._goes_on(text, metrics, line):
                return self._evaluated(text, find_claims(text)[0], EVALUATION, line)
        if lexicon.LOSS not in metrics.values and ("total" in text or "Total" in text) and (
                summed := _total_of_terms(text)) is not None:
            metrics = _with_loss(metrics, *summed)
        counts = _epoch_and_count(metrics)
        if counts is not None and self.eval_passes.evaluates(*counts):
            # the training's format, its count started over after its epoch ended: the pass's
            # own count numbers no step (the training step reached does)
            claims = [claim for claim in find_claims(text)[0] if claim[2] != lexicon.STEP]
            return self._evaluated(text, claims, EVALUATION, line)
        events = self._pairs(text, metrics, None, line)
        if events is not None:
            if counts is not None:
                self.eval_passes.trained(*counts)
            return events
        # a table behind a launcher's rank prefix: its cells where the prefix ends
        cells = text[rank_prefix_end(text):]
        if self._header_row(cells, line):
            return []
        row = self._value_row(cells, line)
        if row is None:
            return self._bare(cells, line)
        return self._row_events(text, row, line)

    def finish(self) -> list[LogEvent]:
        """The events of what the input left pending at its end (a record without its
        closing rule, a dict or a mapping without its last row, the events :attr:`held`: an
        excerpt cut there)."""
        held = self.release("", -1) or []
        return [*held, *self._end_record(0), *self._end_dict(), *self._end_mapping(0)]

    def release(self, text: str, line: int) -> list[LogEvent] | None:
        """The events :attr:`held` once ``text`` (line ``line``) ends what holds them, to come
        before its own; None where it goes on it (a row of the run or the list)."""
        held = self.held
        if held is None:
            return []
        if held.goes_on(text, line):
            return None
        self.held = None
        return held.ended(text)

    def read_again(self, lines: int) -> None:
        """Count ``lines`` more lines read as the last metric line was (lines that repeated
        it, handed over as a count)."""
        if self.last_read_as is not None:
            self._read_as[self.last_read_as] += lines

    def _evaluated(self, text: str, claims: list[Claim], why: str,
                   line: int) -> list[MetricEvent]:
        """``_evaluation``, the line kept as the last evaluation line read."""
        if why == EVALUATION:
            self.eval_line, self.eval_text = line, text
            self._opens_below(text, line)
            if len(text) <= HEADING_WIDTH:
                self.headed.heading(text, line)
            if "tep" in text:
                self._heading_step(text, line)
            if "teration " in text and (found := _EVAL_AT.search(text)) is not None:
                self.eval_heading = (line, int(found.group(1)))
                return []  # the heading of an evaluation pass: its values are below it
        return self._evaluation(text, claims, why, line)

    def _heading_step(self, text: str, line: int) -> None:
        """Keep the step of an evaluation line that measured nothing as the step of the lines
        below it: the heading of a checkpoint's tables, whose rows print no step (Ludwig's
        ``Running evaluation for step: 1000, epoch: 4`` over its grid of ``│ loss │ {train}
        │ {validation} │ {test} │``, ludwig/trainers/trainer.py ``_evaluation`` and
        utils/metrics_printed_table.py; tabulate's ``fancy_grid``). Each row is read as before
        (its first value column, the training split); only its step comes from the heading,
        within ``BLOCK_REACH`` lines and once per key, as a training step line's would."""
        metrics = read_pairs(text)
        step = as_step(metrics.values.get(lexicon.STEP))
        if step is not None and not _measured(metrics):
            self.block_step, self.block_keys = (step, line), set()

    def _opens_below(self, text: str, line: int) -> None:
        """Keep an evaluation line as the opener of the dict below it, where it heads one:
        orbit's `` eval | ... | output: `` (it ends with a colon), robomimic's ``Validation
        Epoch 4`` over its JSON dict (it ends with its epoch)."""
        if text.rstrip().endswith(":") or _EPOCH_HEADING.search(text) is not None:
            self.eval_opener = line

    def _goes_on(self, text: str, metrics: MetricLine, line: int) -> bool:
        """Whether a line below an evaluation line goes on with it: the MetricLogger's
        ``Averaged stats:`` summary of the evaluation's meters (facebookresearch/detr
        ``engine.py`` ``evaluate``, and its copies: only ``Test: Total time: ...`` between);
        the line right below it whose message is a loss alone, behind the logging prefix
        the evaluation line has (open_clip's ``Eval Epoch: 1 [2048 / 50000]\tClip Loss:
        ...`` over ``Generative Loss: ...``, src/open_clip_train/train.py ``evaluate``), not
        a training line that names its step or its split before the loss; a loss alone
        right below an evaluation line that measured nothing, the pass's heading (DALLE2-
        pytorch's ``Epoch 1/2 Val Step 0 -  Sample 3200 - ...`` over ``Loss: tensor(...)``);
        the line right below a heading of evaluation that ends with its epoch (apple/ml-cvnets'
        and corenet's ``*** Validation summary for epoch 3`` over ``\t loss=nan || top1=...``,
        corenet/metrics/stats.py ``Statistics.epoch_summary``: see ``_opens_below``)."""
        if ("Averaged stats:" in text and line - self.eval_line <= SUMMARY_REACH) or (
                self.right_below(self.eval_opener, line)):
            return True
        if line - 1 == self.eval_line and _loss_alone(metrics) and not _measured(
                read_pairs(self.eval_text)) and _TRAINING_LOSS_KEY.search(text) is None:
            # An evaluation's heading over its loss (DALLE2's ``Val Step``); a loss keyed by
            # the training split is training's even there (a validation bar's last state
            # over ``Train Loss: ...``, the epoch's summary printed after both passes)
            return True
        if (line - 1 != self.eval_line or len(metrics.values) != 1
                or lexicon.LOSS not in metrics.values or metrics.components):
            return False
        start = text.find(metrics.keys[lexicon.LOSS])
        if start < 0 or _TRAINING_LOSS_KEY.search(text) is not None:
            # a loss the training split keys is training's, its prefix shared or not:
            # PointNet's ``[1: 37/100] train loss: ...`` right below ``[1: 30/100] test loss:
            # ...`` (fxia22/pointnet.pytorch utils/train_segmentation.py and its copies)
            return False
        prefix = _KEY_WORDS.sub("", text[:start], count=1)  # ("Generative " of its key)
        # no prefix, nothing shared: a bar's ``loss=0.19| ...`` right below gsplat's ``PSNR:
        # ..., SSIM: ...`` is training's again
        return bool(prefix.strip()) and _DIGITS.sub("0", self.eval_text).startswith(
            _DIGITS.sub("0", prefix))

    def _evaluation(self, text: str, claims: list[Claim], why: str,
                    line: int = -1) -> list[MetricEvent]:
        """The non-finite evaluation values of a line about evaluation (its losses and
        metrics) or of a closing summary (its evaluation keys only); ``line``: where an
        evaluation's heading may number it (``eval_heading``)."""
        roles = _EVAL_ROLES if why == EVALUATION else frozenset({lexicon.EVAL})
        metrics = collect([c for c in claims if c[2] in roles or c[2] == lexicon.STEP], text)
        found = [*metrics.evals, *metrics.components]
        if lexicon.LOSS in metrics.values:
            found.insert(0, (metrics.keys[lexicon.LOSS], metrics.values[lexicon.LOSS]))
        trained: list[float] = []
        if why == EVALUATION and _NONFINITE_WORD.search(text) is not None:
            # An evaluator's scores under their own names (mmseg's ``mIoU: nan`` on
            # mmengine's ``Epoch(val)`` line, ``L1 nan PSNR nan`` of the splatting trainers):
            # no lexicon lists them; the line says whose they are. (Read only where a
            # non-finite word is on the line: seldom.) But the training split's name keying
            # its value beside the held-out split's (ProteinMPNN's ``epoch: 4, step: 2000,
            # time: ..., train: nan, valid: nan``, dauparas/ProteinMPNN training/
            # training.py): the training objective went non-finite, not evaluation.
            unclaimed = unclaimed_nonfinite(text, claims)
            trained = [value for key, value in unclaimed if lexicon.training_split(key)]
            if all(math.isfinite(value) for _, value in found):
                mean = lexicon.finite_class_mean(text)  # (the classes it left out: no fault)
                found += [pair for pair in unclaimed if not lexicon.training_split(pair[0])
                          and not (mean and math.isnan(pair[1]) and lexicon.per_class(pair[0]))]
        if found:
            self.evaluation_lines += 1
        step = self._optimizer_step(metrics, as_step(metrics.values.get(lexicon.STEP)),
                                    evaluation=True)
        if step is not None and _evaluation_batch(text, claims):
            step = None  # (the training step reached numbers it)
        step = self._headed(step, line)
        read: list[MetricEvent] = []
        if step is None and why == EVALUATION and found:
            step = self._epoch_step(claims, text)
            headed = False
            if step is None and (headed_epoch := self._epoch_above(line)) is not None:
                step, headed = headed_epoch, True
            if step is not None and (lexicon.LOSS in metrics.values or (
                    headed and "loss" in lexicon.words(found[0][0]))) and all(
                    math.isfinite(value) for _, value in found):
                # (its finite loss sent too: a log of such lines alone, MACE's console, is
                # an evaluation seen each epoch, not a log with nothing to diagnose)
                read.append(MetricEvent(EVAL, FAMILY, step=step, loss=found[0][1],
                                        metric=found[0][0]))
        return [*(MetricEvent(METRICS, FAMILY, step=step, loss=value) for value in trained[:1]),
                *self._nonfinite_events(text, found, step), *read]

    def _nonfinite_events(self, text: str, values: list[tuple[str, float]],
                          step: int | None) -> list[MetricEvent]:
        """:func:`_nonfinite`'s events of an evaluation's values on ``text``, the areas under
        the ROC curve among them read finite noted (a NaN of one read finite before on such
        a line counts: see :mod:`defined_areas`)."""
        return _nonfinite(values, step, self.areas.defined(text, values))

    def _epoch_step(self, claims: list[Claim], text: str) -> int | None:
        """The step of an evaluation line that counts nothing but its epoch, printed whole,
        in a log whose training rows, where it prints any, count nothing but their epoch
        too: its epoch, as such a row's is (MACE prints one validation line an epoch and no
        training line, ``Epoch 12: head: Default, loss=nan, ...``); else None. A log whose
        rows print their step, or count their epoch in fractions (HF's), numbers its
        evaluations otherwise."""
        if self.epoch_rows_off or self.step_rhythm[0]:
            return None
        metrics = collect([c for c in claims if c[2] == lexicon.EPOCH], text)
        whole = as_step(metrics.values.get(lexicon.EPOCH))
        key = metrics.keys.get(lexicon.EPOCH)
        return whole if whole is not None and key is not None and _printed_whole(
            key, whole, text) else None

    def _epoch_split_row(self, text: str, epoch: int, trained: float,
                         held_out: tuple[str, float]) -> list[MetricEvent]:
        """The events of an epoch's row that names its losses by the splits alone (see
        :mod:`epoch_split_rows`): the training loss and the held-out loss at the row's
        epoch, a row an epoch."""
        self.evaluation_lines += 1
        read = [MetricEvent(EVAL, FAMILY, step=epoch, loss=held_out[1], metric=held_out[0],
                            epoch_row=True, step_basis=bases.EPOCH)
                ] if math.isfinite(held_out[1]) else []
        return [MetricEvent(METRICS, FAMILY, step=epoch, loss=trained, epoch_row=True,
                            step_basis=bases.EPOCH),
                *self._nonfinite_events(text, [held_out], epoch), *read]

    def _epoch_sums(self, text: str, trained: float,
                    held_out: list[tuple[str, float]]) -> list[MetricEvent]:
        """The events of an epoch's sums under the splits' names below its bar (see
        :mod:`epoch_sums`): the training loss and the held-out losses at the run's batches
        the bar counted."""
        step = self.sums_bar[0]
        self.evaluation_lines += 1
        read = [MetricEvent(EVAL, FAMILY, step=step, loss=value, metric=key)
                for key, value in held_out[:1] if math.isfinite(value)]
        return [MetricEvent(METRICS, FAMILY, step=step, loss=trained),
                *self._nonfinite_events(text, held_out, step), *read]

    def _epoch_above(self, line: int) -> int | None:
        """The epoch of the epoch's heading a few lines above an evaluation row that prints
        no count of its own (``block_epoch``), in a log that has printed no training row: a
        loop that sends its training loss elsewhere (AIKU-friends/pose-generation
        ``train_vae.py`` logs it to wandb) and prints ``Epoch 12/30, current lr=0.0001``
        over each epoch's ``Validation Loss: ...`` row; else None. Where training rows were
        read they number the run (in steps or batches), not the heading's epoch."""
        block = self.block_epoch
        if block is None or not 0 < line - block[1] <= BLOCK_REACH or self.step_rhythm[0] or (
                self.last_loss != 0.0):
            return None
        return block[0]

    def _headed(self, step: int | None, line: int) -> int | None:
        """The step of an evaluation line: its own, or that of the evaluation's heading a
        few lines up (see ``eval_heading``)."""
        heading, named = self.eval_heading
        if step is None and heading >= 0 and 0 < line - heading <= HEADING_REACH:
            return named
        return step

    def _optimizer_step(self, metrics: MetricLine, step: int | None, *,
                        evaluation: bool = False) -> int | None:
        """``step``, or the optimizer step of a line numbered by the iteration alone that a
        line printing both paired it with: litgpt prints ``iter 480 step 30`` on the
        training line and ``iter 480: val loss ...`` on the evaluation after it (litgpt/
        finetune/lora.py ``fit``), lit-gpt ``iter 480 step 30: loss ...`` and ``step 480:
        val loss ...`` (lit-gpt finetune/adapter.py): under gradient accumulation the
        iteration counts micro-batches, and the run's steps are the optimizer's. An
        evaluation line's count under any name is the iteration when it is the one just
        paired (the optimizer step is below it wherever the two differ)."""
        if metrics.iteration is not None and step is not None:
            self.iteration_step = (int(metrics.iteration), step)
        elif (step is not None and self.iteration_step is not None
              and step == self.iteration_step[0]
              and (evaluation or metrics.keys[lexicon.STEP].lower() == "iter")):
            return self.iteration_step[1]
        return step

    def _bare(self, text: str, line: int) -> list[MetricEvent]:
        """``step value`` columns with nothing else on the line: the value is the loss; a YOLO
        training row without its header: the loss terms' sum is the loss; a bare list of
        loss terms, step and learning rate (VITS)."""
        found = _BARE.match(text)
        if found is not None and _DELIMITED.search(text) and any(
                c.isdigit() for c in found.group(3)):
            found = None  # a delimited table's row (see _BARE)
        if found is None:
            above = self.handed[-2] if len(self.handed) > 1 else None
            nan_step = self.bare_columns.nan_step(
                text, line, above[1] if above is not None and above[0] == line - 1 else None)
            if nan_step is not None:
                # (the finite row before it too: finite rows hold no keyword, so the first
                # reading saw none; the value before the NaN says where it came from)
                before, self.bare_columns.last_finite = self.bare_columns.last_finite, None
                self._read_as[("bare step/value columns", ())] += 1
                # held until the line that ends the run: pandas' footer makes it a Series'
                # missing value (see release_bare); quoted where read
                quote = (line, text.strip())
                events: list[LogEvent] = [*([] if before is None else [MetricEvent(
                    METRICS, FAMILY, step=before[0], loss=before[1], quoted=quote)]),
                    MetricEvent(METRICS, FAMILY, step=nan_step, loss=math.nan, quoted=quote)]
                if isinstance(self.held, HeldNaN):
                    self.held.events += events  # (a NaN row after another)
                else:
                    self.held = HeldNaN(self.bare_columns, events)
                return []
            return self._yolo_row(text) or self._list_row(
                text, line, announced=line - self.row_announced <= ROW_REACH)
        if report_row(text):
            return []
        read_as = ("bare step/value columns", ())
        self._read_as[read_as] += 1
        return [MetricEvent(METRICS, FAMILY, step=int(found.group(1)),
                            loss=to_value(found.group(2)))]

    def _yolo_row(self, text: str) -> list[MetricEvent]:
        found = _YOLO_ROW.match(text)
        if found is None:
            return []
        first = 1 if found.group(1) is not None else 3
        loss = loss_total([to_value(cell) for cell in found.group(first + 1).split()])
        bar = TQDM.search(text, found.end() - 1)
        epoch = int(found.group(first))
        step = epoch * int(bar.group(2)) + int(bar.group(1)) if bar else epoch
        read_as = ("YOLO epoch/GPU-memory row", ())
        self._read_as[read_as] += 1
        return [MetricEvent(METRICS, FAMILY, step=step, loss=loss)]

    def _visualizer_row(self, text: str) -> list[MetricEvent]:
        """The CycleGAN visualizer's loss line (see ``_VISUALIZER_ROW``): the terms' sum is
        the loss, the epoch's count of images its batch."""
        if (found := _VISUALIZER_ROW.match(text)) is None:
            return []
        values = _VISUALIZER_TERM.findall(found.group(3))
        if any(VALUE.fullmatch(value) is None for value in values):
            return []  # a word among the values: some other print
        terms = [to_value(value) for value in values]
        epoch = int(found.group(1))
        if self.epoch_batches.epoch is None and epoch > 1:
            self.epochs_unread = True  # (epochs count from 1: ``--epoch_count``'s default)
        step = self.epoch_batches.step_of(epoch, int(found.group(2)))
        read_as = ("image-to-image GAN visualizer's loss line", ())
        self._read_as[read_as] += 1
        return [MetricEvent(METRICS, FAMILY, step=step, loss=loss_total(terms))]

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
        self._read_as[read_as] += 1
        return [MetricEvent(METRICS, FAMILY, step=int(found.group(2)), loss=loss_total(terms),
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
            loss = loss_total([v for _k, v in metrics.components])
        elif loss is None and metrics.evals:
            # ``train 4.2000 | val 4.2500``: the splits' names key their losses
            loss = training_split_value(text, metrics.evals)
        rounded = False  # a loss printed, its value below the print's last digit
        if loss == 0.0 and lexicon.POLICY_OBJECTIVE.search(text):
            loss = None  # a policy-gradient objective beside its rewards: 0 is no collapse
        elif loss == 0.0 and ("triplets" in text or "pairs" in text) and (
                lexicon.NOTHING_MINED.search(text)):
            loss = None  # a metric-learning loss over no mined tuple: 0 by construction
        elif loss is not None and math.isnan(loss) and "updates" in text and key is not None and (
                _NO_UPDATE.search(text) is not None) and _AVERAGED.intersection(
                    lexicon.words(key)) and f"('{key}'" in text:
            # the mean of no update's loss (before the replay buffer fills), in an agent's
            # statistics (pfrl's ``get_statistics()``, a list of ``(name, value)`` tuples); a
            # loop's own ``avg_loss=nan, num_updates=0`` may be its first batch's NaN
            loss = None
        elif loss == math.inf and self.last_loss == 0.0 and values.get(lexicon.STEP) == 0.0 and (
                not _MEASURED.intersection(values)) and not _MEASURED_AFTER.search(
                    text, metrics.loss_at[0] if metrics.loss_at else 0):
            # +inf at step 0, no loss read yet and nothing measured beside it (no number but
            # 0 after it): the loop's default before its first batch is learned (torchbeast's
            # monobeast.py ``train``: ``total_loss = stats.get("total_loss", float("inf"))``
            # while ``stats`` is still ``{}``: ``Steps 0 @ 0.0 SPS. Loss inf. Stats:``), no
            # value measured; nanoGPT's ``iter 0: loss inf, time 45.12ms`` measured one
            loss = None
        elif loss == 0.0 and metrics.zero_places >= 2 and (
                0.0 < self.last_loss < 10.0 ** (1 - metrics.zero_places)):
            # "0.0000" after "0.0003": a loss that decayed below the print's last digit, not
            # an exact 0 (which drops from a normal value): unknown, not 0 (its row is still
            # a step's)
            loss, rounded = None, True
        elif loss is not None and loss != 0.0 and math.isfinite(loss):
            self.last_loss = loss
        step = self._optimizer_step(metrics, as_step(values.get(lexicon.STEP)))
        # Where the step comes from (step_basis.py): a branch that makes it from a count (an
        # epoch times its length, the run's samples) names the basis as it decides the step.
        basis = bases.PRINTED
        if step is not None and "Batch: " in text and (found_run := RUN_BATCH.search(text)):
            step = int(found_run.group(1))  # not the epoch "Batch:" keys (MedicalNet's)
        if step is not None and "poch" in text and metrics.keys[lexicon.STEP][-5:] == "steps" and (
                summary := EPOCH_OF_COUNT.search(text)):
            step = self._epoch_count(int(summary.group(1)), count := step)
            basis = bases.across(step, count)
        if step is not None and counters and "/" in text and "poch" not in text and (
                total := _keyed_total(text, metrics.keys[lexicon.STEP], step)):
            step = self._pass_step(count := step, total)
            basis = bases.across(step, count)
            if count == total:
                self.pass_end = (line, step)
        epoch_value = as_step(values.get(lexicon.EPOCH)) if counters else None
        new_run = epoch_value is not None and self.run_epochs.read(epoch_value)
        if new_run:
            # (a line that prints the epoch and no loss, and does not say it ended, heads the
            # epoch's batches: the new run's first epoch is still to come)
            self._new_run(heading=loss is None and _EPOCH_ENDED.search(text) is None)
        if counters and loss is not None and epoch_value is not None:
            if self._epoch_read(epoch_value, new_run) and step is None and self.key_count[1]:
                # the summary of an epoch whose batches a restarting count numbered: the
                # epoch's last count read
                step = self.key_count[0] + self.key_count[1]
                basis = bases.EPOCH_LENGTH
        elif step is not None and counters and loss is None and _no_total(
                text, metrics.keys[lexicon.STEP]) and (
                metrics.evals and lexicon.GRAD_NORM not in values):
            # An evaluation's own batches under the same key (PSMNet's ``Iter %d 3-px error
            # in val = %.3f`` after its ``Iter %d training loss = %.3f`` lines, 2c984r83y/
            # PSMNet finetune.py): counted within the epoch reached, never as the training
            # count going back (which would read the next epoch's batches as printed).
            step, basis = self.key_count[1] + step, bases.across(self.key_count[1] + step, step)
        elif step is not None and counters and _no_total(text, metrics.keys[lexicon.STEP]):
            step = self._epoch_count_step(count := step)
            basis = bases.across(step, count)
        # The first batch of an epoch that does not follow the last one read (the log's first,
        # or one after missing epochs): where a resumed run starts.
        epoch_start = False
        found: re.Match[str] | None = None  # a layout's counters (each test sets it or None)
        if counters and " [" in text and ("/s" in text or "s/" in text) and (
                found := OPEN_BAR.search(text) or (
                    UNSIZED_BAR.search(text) if "/?" in text else None)):
            # the count before the unit numbers the line, not the "it" it reads as a key
            count = int(found.group(2))
            step = self._open_bar_step(count, line) if found.group(1) is None else (
                self.epoch_batches.step_of(int(found.group(1)), count))
            basis = bases.across(step, count)
        elif "poch" in text and (found := EPOCH_STEP.search(text)):
            epoch, done, total = (int(g) for g in found.groups() if g is not None)
            done = self.epoch_batches.wrapped(epoch, done, total)
            # a count that goes on rising as the epoch goes up is the run's, of all its
            # iterations (PaddleSeg's ``[TRAIN] epoch: 2, iter: 300/1000``, paddleseg/core/
            # train.py), not the epoch's (MONAI's ``Epoch: 2/3, Iter: 13/20``)
            self.epoch_batches.step_of(epoch, done, total)
            step = done if self.epoch_batches.run_wide else (
                self._epochs_before(epoch) * total + done)
            basis = bases.across(step, done)
        elif "% done)" in text and (found := PHASE_DONE.search(text)):
            step = self._phase_step(text, int(found.group(1)), float(found.group(2)))
            basis = bases.EPOCH_LENGTH
        elif "tep" in text and "poch" in text and (found := EPOCH_OF_STEPS.search(text)):
            step = self._step_of_epoch(*(int(g) for g in found.groups()))
            basis = bases.across(step, int(found.group(3)))
        elif "] " in text and (bracketed := bracket_epoch_step(text)) is not None:
            # the same counts, the epoch in brackets with no word for it (see epoch_brackets)
            step = self._step_of_epoch(*bracketed)
            basis = bases.across(step, bracketed[2])
        elif step is None and ("Epoch" in text or "Train:" in text or "TRAIN [" in text
                               or text[:1] == "[" or "(t): " in text
                               # torchreid's engine (torchreid/engine/engine.py ``train``):
                               # ``epoch: [3/60][140/200]\ttime ...``, lower-case
                               or "epoch: [" in text):
            if "/Epoch" in text and (found := STEP_EPOCH.search(text)):
                step = int(found.group(1))
            elif found := EPOCH_ITER.search(text):
                epoch, done, total = (int(g) for g in found.groups() if g is not None)
                if "eta: " in text and LOGGER_EPOCH.search(text):
                    self.epochs_from_zero = True  # (its loops' epochs: see LOGGER_EPOCH)
                if done == 0 and found.lastindex == _COLON_EPOCH_TOTAL:
                    # PointNet's ``[%d: %d/%d]`` prints both loop indices as they are: its
                    # batch 0 says the epoch counts from 0 too (in an excerpt past epoch 0)
                    self.epochs_from_zero = True
                step = self._epochs_before(epoch) * total + done
                basis = bases.across(step, done)
                epoch_start = done == 0 and epoch not in (self.last_epoch, (
                    self.last_epoch or 0) + 1)
                self.last_epoch = epoch
            elif "%)]" in text and (found := EPOCH_SAMPLES.search(text)):
                epoch_of = found.group(1)  # (none printed: the epoch the excerpt shows)
                step, basis = self._sample_step(
                    int(epoch_of) if epoch_of is not None else None, int(found.group(2)),
                    int(found.group(3)))
            elif counters and (found := EPOCH_BAR.search(text)):
                if found.group(1) is not None:
                    epoch, done, total = (int(g) for g in found.groups()[:3])
                else:  # "E/N * Epoch (...)": from 1
                    epoch, done, total = (int(g) for g in found.groups()[3:])
                    epoch -= 1
                step = epoch * total + done
                basis = bases.across(step, done)
        elif counters and (found := BATCH_BAR.match(text)):
            # (Keras 1.x/2.x draw ``[====>...]`` after the count: such a bar may count samples)
            step = self._bar_step(count := int(found.group(1)), int(found.group(2)), line,
                                  drawn=text.startswith("[", found.end()), loss=loss)
            basis = bases.across(step, count)
        if found is None and counters and (loss is not None or lexicon.GRAD_NORM in values) and (
                pair := self._epoch_and_batch(text, metrics, step, line)) is not None:
            # no layout above numbered the line: an epoch and its batch, the length unknown
            step = self.epoch_batches.step_of(*pair)
            basis = bases.across(step, pair[1])
        if step is None and self.phase_count[0] == line - 1:  # the phase line just above
            step = self.epoch_batches.step_of(*self.phase_count[1:])
            basis = bases.across(step, self.phase_count[2])
        if step is None and "eta: " in text and (found := LOGGER_COUNT.search(text)):
            # one count over the run as printed; a count that starts over adds its passes
            step = self._pass_step(count := int(found.group(1)), int(found.group(2)))
            basis = bases.across(step, count)
        if step is None and "/s - " in text and (found := SPEED_COUNT.search(text)):
            step = int(found.group(1))
        if step is None and counters and ", " in text and (found := LEADING_COUNT.search(text)):
            step = int(found.group(1))
        if step is None and counters and loss is not None and (
                batch := phase_count(text)) is not None:
            step = self._epoch_count_step(batch)  # ``train 300 loss ...``: restarts each epoch
            basis = bases.across(step, batch)
        if step is None and counters and "inibatch[" in text and (
                found := MINIBATCH_RANGE.search(text)):
            step = self._restarting_count(count := int(found.group(1)))
            basis = bases.across(step, count)
        if step is None and self.row_step is not None and self.row_step[0] == line - 1:
            step = self.row_step[1]  # RVC: ``[step, lr]`` on the line before its losses
        # A value row's bar counts batches of its epoch, not steps: left unnumbered.
        if step is None and counters and "|" in text and (found := TQDM.search(text)) and (
                _EPOCHS_BAR.match(text) is None):
            step, total = int(found.group(1)), int(found.group(2))
            label = text[:found.start()]
            if "teps" in label and (in_label := _LABEL_STEPS.search(label)) is not None and (
                    not _repeats_count(int(in_label.group(1)), step)):
                # the label counts the run's steps itself; one that repeats the bar's count
                # counts the pass's batches as the bar does: the bar's passes number it
                step = int(in_label.group(1))
            elif "epoch=" in text and (postfix := POSTFIX_EPOCH.search(text, found.end())):
                # from 1 as GluonTS counts, unless an epoch 0 was seen (a script's own
                # ``set_postfix(epoch=f"{epoch}/{epochs}")`` over ``range(epochs)``)
                step += self._epochs_before(int(postfix.group(1))) * total
            else:
                step = self._tqdm_step(step, total, line, label)
            basis = bases.across(step, int(found.group(1)))
            if int(found.group(1)) == total:
                self.pass_end = (line, step)
        if (step is None and counters and not self.bracket_off
                and (loss is not None or _MEASURED.intersection(values))
                and ((("[" in text or text.lstrip().startswith(BRACKET_OPENERS))
                      and (found := BRACKET_STEP.search(text)))
                     or (loss is not None and ": " in text
                         and (found := self._colon_count(text))))):
            if found.re is BRACKET_STEP and found.group("tagged") is not None:
                step = self._tagged_step(found.group("tag"), int(found.group("tagged")),
                                         loss is not None)
            elif (value := int(next(g for g in found.groups() if g is not None))) < (
                    self.bracket_last) or (loss is not None and value == self.bracket_loss):
                # a step never goes back, and prints its loss once: these brackets number
                # something else (ranks printing "[0] loss: x", "[1] loss: x"; one rank's
                # "[3] loss: x" on every line), for the rest of the input
                self.bracket_off = True
            else:
                step = self.bracket_last = value
                if loss is not None:
                    self.bracket_loss = value
        if step is None and counters and loss is not None and "/" in text and (
                "poch" not in text) and (fraction := bare_fraction(text)) is not None:
            step = self._bar_step(*fraction, line)
            basis = bases.across(step, fraction[0])
        if step is None and counters and loss is not None and text.endswith("]") and (
                "poch" not in text) and (found := TRAILING_COUNT.search(text)) is not None:
            step = int(found.group(1))  # ``loss: nan [25600]``: the loop's count as printed
        if step is None and counters and "Progress on:" in text and (
                found := _LOGGABLE_BAR.search(text)):
            # "1.20k" is 1195 to 1204: the nearest step the bar can mean
            step = round(float(found.group(1)) * _SIZE_PREFIX[found.group(2)])
        if step is None and loss is not None and (
                "K " in text or "M " in text or "B " in text) and (
                found := _ABBREVIATED_STEP.search(text)) is not None:
            step = self._abbreviated_step(found)
        elif step is not None and "e+" in text and (
                found := _EXPONENT_STEP.search(text)) is not None:
            step = self._rounded_step(step, 10 ** (int(found.group(2)) - len(found.group(1))))
        if step is None and counters and loss is not None and (
                0 < line - self.pass_end[0] <= _PASS_SUMMARY_REACH) and (
                epoch_value is not None or lexicon.training_first(
                    metrics.keys.get(lexicon.LOSS, ""))):
            # (no layout numbered it: an epoch's summary, not a bar's or a counter's row; or
            # the training phase's, keyed by its split alone: ``train Loss: ... Acc: ...``)
            step, basis = self.pass_end[1], bases.EPOCH_LENGTH  # (see _PASS_SUMMARY_REACH)
        elif step is None and counters and loss is not None and (
                0 < line - self.bare_end[0] <= _PASS_SUMMARY_REACH) and not metrics.evals and (
                pass_epoch := epoch_value if epoch_value is not None else self._bar_heading()
        ) is not None:
            # the same below a bare bar's pass (bare_end), by the epoch the summary names, or
            # the heading over the bar where the summary names none (an excerpt from the
            # middle: the bar's passes before it were not printed there); a summary that
            # holds an evaluation's value too may follow the evaluation's bar
            step = (self._epochs_before(pass_epoch) + 1) * self.bare_end[1]
            basis = bases.EPOCH_LENGTH
        if step is not None and counters:
            last = self.step_rhythm[0]
            self.step_rhythm = (step, step - last if step > last else self.step_rhythm[1])
        epoch_row = False  # the step is the row's epoch: the steps it stands for are unknown
        # A table's epoch column holds the epoch alone in its cell (fastai's ``epoch
        # train_loss valid_loss ...`` table, from 0): whole there is whole as printed.
        # So does a record's row of its own (rlkit's ``Epoch  12`` below its values, from 0).
        table = written == _TABLE_ROW or (written == RECORD and lexicon.EPOCH in values
                                          and lexicon.STEP not in values)
        if (counters or table) and not self.epoch_rows_off and (
                loss is not None or lexicon.GRAD_NORM in values):
            printed = step
            row_epoch = values.get(lexicon.EPOCH)
            block = self.block_epoch
            above = table or (
                row_epoch is None and block is not None and line - block[1] <= BLOCK_REACH)
            if above and not table and block is not None:  # nnU-Net's ``Epoch 12`` line
                row_epoch = float(block[0])
            step = self._epoch_row(step, row_epoch, text, metrics.keys.get(lexicon.EPOCH),
                                   above=above)
            epoch_row = printed is None and step is not None
        scale, scale_below = self._scale(values.get(lexicon.SCALE), metrics.scale_spelled,
                                         None if epoch_row else step,
                                         metrics.keys.get("epoch_text"))
        unread = False  # a bare scale key that the scale was not read from: no key read
        if lexicon.MAYBE_SCALE in values:
            # A bare scale is read only on a training step's line (a step or a loss beside
            # it): a lone "scale: 0.5" is a configuration's, and says nothing of the stream.
            if scale is None and (loss is not None or step is not None):
                scale = self.bare_scale.read(values[lexicon.MAYBE_SCALE])
                if scale is not None:  # a 0 its column's rounding printed is no exact 0
                    scale, scale_below = self._scale(
                        scale, metrics.maybe_scale_spelled, None if epoch_row else step,
                        metrics.keys.get("epoch_text"))
            unread = scale is None or lexicon.SCALE in values
        grad_norm = values.get(lexicon.GRAD_NORM)
        if loss == 0.0 and grad_norm is not None and math.isnan(grad_norm):
            # A loss of exactly 0 beside a NaN gradient norm is a logger's stand-in for the
            # non-finite loss it hid (HF's logging_nan_inf_filter, its rows re-printed as
            # JSON by a callback: AfterMaxQ/mini-llm ``scripts/sft.py``): no loss of 0 (AMP007).
            # Not beside an inf norm: that is an overflow step (GradScaler's unscaled grads), a
            # loss printed 0 at each such step is a run stuck at 0 whose steps all overflow,
            # AMP007 (no filter flag is raised here to say otherwise; hf.py raises AMP009).
            loss = None
        skipped = counted = None
        if lexicon.SKIPPED in values:
            skipped = as_step(values[lexicon.SKIPPED])
            # A bare "skipped" may count batches, images or files a loop skipped: it still
            # numbers the step, but it is no count of skipped optimizer steps.
            if lexicon.words(metrics.keys[lexicon.SKIPPED]) != ("skipped",):
                counted = skipped
        epoch_text = metrics.keys.get("epoch_text")
        measured = loss is not None or grad_norm is not None or rounded
        # A lone scale is read only when it is not 0: configuration dumps print
        # ``loss_scale 0`` for DeepSpeed's "dynamic", which is not a scale of 0.
        lone_scale = scale is not None and not measured and step is None
        if lone_scale and values.get(lexicon.SCALE) == 0.0:
            scale = scale_below = None
        if not measured and scale is None and skipped is None:
            if step is not None and counters:
                self.block_step = (step, line)  # a record's step line: its metrics follow
                self.block_keys = set()
                self.block_again = (self.block_repeated or self.block_again) and (
                    step == (self.step_only or 0) + 1)
                self.step_only, self.block_repeated = step, False
            elif (counters and set(values) <= _EPOCH_HEADING_KINDS
                  and (only := as_step(values.get(lexicon.EPOCH))) is not None):
                self.block_epoch = (only, line)  # an epoch's line: its row follows
                if lexicon.LR in values:
                    # (a heading that states its learning rate, the NAS family's ``epoch %d lr
                    # %e``; the Keras guide's bare ``Start of epoch 1`` leaves its counts read
                    # as printed: tests/logs/test_vision_formats.py)
                    moved, last = self.headings_moved
                    self.headings_moved = (moved + (only != last), only)
                    self.heading_zero = self.heading_zero or only == 0
            return []
        if counters and self.block_step is not None:
            if step is not None:
                self.block_step = None  # the log numbers its metric lines themselves
            elif self._in_block(
                    named := {*metrics.keys.values(), *(k for k, _v in metrics.components)},
                    line):
                step = self.block_step[0]
                self.block_keys |= named
            else:
                # past the record, or a metric it printed already: a line of its own (a
                # stray "step: 500" before a loop that prints "loss: x" a batch)
                self.block_repeated = self.block_repeated or not self.block_keys.isdisjoint(
                    named)
                self.block_step = None
        if epoch_text is None and not unread:
            keys = tuple(metrics.keys.values())
        else:
            keys = tuple(key for kind, key in metrics.keys.items() if kind != "epoch_text"
                         and not (unread and kind == lexicon.MAYBE_SCALE))
        if metrics.components:  # (a list of terms names its key once)
            keys += tuple(dict.fromkeys(key for key, _v in metrics.components))
        read_as = self.last_read_as = (written, keys)
        self._read_as[read_as] += 1
        out: list[MetricEvent] = []
        run_start = self.fit_row == line  # (a new fit's first row begins a run: see there)
        if measured or scale is not None:
            # A row's own cumulative count of skipped updates (optax's ``total_notfinite``)
            # says which steps since the last row were skipped, as HF's rows do.
            out.append(MetricEvent(METRICS, FAMILY, step=step, loss=loss, grad_norm=grad_norm,
                                   lr=values.get(lexicon.LR), scale_after=scale,
                                   skipped_total=counted if step is not None else None,
                                   keys=keys, epoch_text=epoch_text,
                                   epoch_start=epoch_start or run_start,
                                   epoch_row=epoch_row, run_start=run_start,
                                   scale_below=scale_below, step_basis=basis))
        if skipped is not None and step is not None:
            # The scale printed beside the counter, read as a scale or not (a bare one the
            # input's other values left unread): a floor under climbing skips (floor_skips.py)
            beside = row_scale(values.get(lexicon.SCALE), values.get(lexicon.MAYBE_SCALE))
            out.append(MetricEvent(PROGRESS, FAMILY, step=step, skipped_total=counted,
                                   keys=keys, scale_skips=None if beside is None
                                   else (beside, skipped)))
        if step is not None and "verflow" in text and _OVERFLOW_FLAG.search(text) is not None:
            # the step was skipped: its overflow first, then what the line says of it
            out.insert(0, MetricEvent(OVERFLOW, FAMILY, step=step, keys=keys))
        return out

    def _scale(self, scale: float | None, spelled: str, step: int | None,
               epoch_text: str | None) -> tuple[float | None, float | None]:
        """A loss scale as read and, for one printed as 0 by a column that rounds
        (Swin-Transformer's ``loss_scale {:.4f}``: ``0.0000`` after ``0.0001``), the bound it
        is below (``scale_prints.rounded_zero``); such a scale reads as the most that prints
        so, half that bound: halving never reaches an exact 0 between two prints. A column
        that prints full precision (``0.0`` after ``1.52587890625e-05``) shows an exact 0,
        and so does one whose last scale could not have halved below what prints as 0 in
        the steps between (``step`` a step, not an epoch: a scaler halves once a step)."""
        if scale == 0.0:
            last = self.last_scale_at
            halvings = (step - last[0] if step is not None and last is not None
                        and last[1] == epoch_text and step > last[0] else None)
            below = rounded_zero(spelled, self.last_scale_spelled, halvings)
            return (scale, None) if below is None else (0.5 * below, below)
        if scale is not None and 0.0 < scale < math.inf:
            self.last_scale_spelled = spelled
            self.last_scale_at = None if step is None else (step, epoch_text)
        return scale, None

    def read_value_row(self, text: str, line: int) -> list[MetricEvent]:
        """The metric events of a line read only as a value row under the last header row
        (a line the reader hands over because it follows a header row, though it holds no
        keyword: a YOLO table's rows of finite values), as a row of a record, or as the bare
        list row that a progress line announced (VITS' ``Train Epoch: 3 [40%]``)."""
        if self.record or table_row(text):
            ended = self._record(text, line)
            if ended is not None:
                return ended
        if self.record:
            return self._end_record(line)
        closed: list[MetricEvent] = []  # a dict that this line does not go on
        if self.dict_rows or "': " in text or '": ' in text:
            held = self._dict_row(text, line)
            if held is not None:
                return held
            closed = self._end_dict()
        mapped = bool(self.mapping_rows)  # a line that is no row of the open mapping ends it
        if mapped:
            held = self._mapping_row(text, line)
            if held is not None:
                return held
            closed += self._end_mapping(line)
        if step_line(text) or _counters_line(text):
            return closed + self._read(text, line)  # the step line over a dict or a mapping
        if mapped:
            return closed
        if self._piped_header(text, line):
            return closed
        if (why := _not_training(text)) is not None:
            if " " not in text.strip():  # a split's name alone, over its table (NequIP's)
                self.eval_line, self.eval_text = line, text
            if why == EVALUATION:
                self._opens_below(text, line)
            return closed
        row = self._value_row(text, line)
        if row is None:
            return closed + self._list_row(text, line)
        return closed + self._row_events(text, row, line)

    def _row_events(self, text: str, row: MetricLine, line: int) -> list[MetricEvent]:
        """The events of a value row under a header row, its evaluation columns' included."""
        split = self.split_read == line
        if split and self.block_step is not None and (
                line - self.block_step[1] <= split_rows.REACH):
            # a table of splits prints no step: its heading's (Ludwig 0.5's ``Running
            # evaluation for step: 500, epoch: 4``, see _heading_step) numbers every table
            # below it, the combined loss's after the feature's
            row.values[lexicon.STEP] = self.block_step[0]
        epoch_text = row.keys.get("epoch_text")
        if (epoch_text is not None and lexicon.STEP not in row.values and "|" in text
                and (bar := TQDM.search(text)) is not None):
            # ``{epoch}/{epochs - 1}`` in the first column, a tqdm bar of the epoch's batches
            # after the cells (YOLOv6's ``Epoch lr iou_loss dfl_loss cls_loss`` table,
            # yolov6/core/engine.py ``print_details``): the bar counts the epoch's batches
            epoch, _, last = epoch_text.partition("/")
            row.values[lexicon.STEP] = (
                self._epochs_before(int(epoch), int(last) if last.isdigit() else None)
                * int(bar.group(2)) + int(bar.group(1)))
        if self.header_split and not split:
            self.evaluation_lines += 1
            losses = [(row.keys[lexicon.LOSS], row.values[lexicon.LOSS])] if (
                lexicon.LOSS in row.values) else []
            # (its batch counts the evaluation's batches: the training step reached is its)
            return self._nonfinite_events(text, [*losses, *row.components, *row.evals], None)
        row_epoch = as_step(row.values.get(lexicon.EPOCH))
        batch = as_step(row.values.get(lexicon.STEP))
        if row_epoch is not None and batch is not None:
            # an epoch's column beside its batch's: the batch may start over each epoch
            # (NequIP's ``# Epoch batch  loss ...`` table, nequip/train/trainer.py
            # ``end_of_batch_log``: ``f"  {iepoch+1:5d} {ibatch+1:5d}"``), counted as the
            # epoch-and-batch lines are
            row.values[lexicon.STEP] = self.epoch_batches.step_of(row_epoch, batch)
        events = self._events(text, row, _TABLE_ROW, counters=False)
        if row.evals or row.unfilled:
            step = as_step(row.values.get(lexicon.STEP))
            if step is None and events and events[0].epoch_row:
                step = events[0].step  # the row's epoch numbers its evaluation too
            events += self._nonfinite_events(text, row.evals, step)
            events += [MetricEvent(EVAL, FAMILY, step=step, loss=value, metric=key,
                                   evidence=UNFILLED) for key, value in row.unfilled]
            if row.evals:
                # the row's evaluation told whole, its finite values included: the stream
                # may then tell a value never finite from one that went non-finite, and an
                # evaluation that measured (its values move) from one that never ran right
                events.append(MetricEvent(EVAL, FAMILY, step=step, evidence={
                    EVALUATED_ROW: tuple((key, value) for key, value in row.evals
                                         if math.isfinite(value))}))
        if row.unfilled_loss:
            # (a finite value of the row: the stream's sign that the table leaves cells so)
            key, value = next((k, v) for k, v in row.evals if math.isfinite(v))
            events.append(MetricEvent(EVAL, FAMILY, loss=value, metric=key,
                                      evidence=UNFILLED))
        return events

    def _record(self, text: str, line: int) -> list[MetricEvent] | None:
        """A row of a record (kept: ``[]``) or the rule that ends one (its events); None for
        any other line."""
        piped = text[:1] == "|"
        cell = record_cell(text) if piped else simple_cell(text)
        if cell is not None:
            ended = (self._end_record(line) if not piped and self.record
                     and line - self.record_line > 1 else [])
            self.record_line = line
            if cell[1]:
                self.record.append(cell)
                if not self.record_nonfinite:
                    self.record_nonfinite = not math.isfinite(to_value(cell[1]))
                    if self.record_nonfinite or self.record_quote is None:
                        self.record_quote = (line, text.strip())
            return ended
        if "---" in text and (_RECORD_RULE.match(text) is not None
                              or _SIMPLE_RULE.match(text) is not None):
            return self._end_record(line)
        return None

    def _mapping_row(self, text: str, line: int) -> list[MetricEvent] | None:
        """A row of a YAML mapping (kept: ``[]``, or the events of the mapping before it where
        its key comes again: the next mapping), or None for a line that is no row of one (an
        indented row holding a value opens one)."""
        found = _YAML_ROW.match(text.rstrip())
        if found is None or (not self.mapping_rows and not (found.group(1) and found.group(3))):
            return None
        key, indent, value = found.group(2), len(found.group(1)), found.group(3)
        if not self.mapping_rows:
            above = self.block_step
            self.mapping_step = above[0] if above is not None and 0 < line - above[1] <= 2 \
                else None
        elif not indent and self.mapping_step is not None and lexicon.role(key) == lexicon.STEP:
            return None  # a mapping under a step line: the next one's step line (``step: 200``)
        out: list[MetricEvent] = []
        if (key, indent) in self.mapping_keys:
            out = self._end_mapping(line)
        self.mapping_keys.add((key, indent))
        if value is not None:
            self.mapping_rows.append(f"{key}: {value}")
        return out

    def _end_mapping(self, line: int) -> list[MetricEvent]:
        """The events of the YAML mapping read so far, as the one line it prints."""
        rows, self.mapping_rows, self.mapping_keys = self.mapping_rows, [], set()
        above, self.mapping_step = self.mapping_step, None
        if not rows:
            return []
        if above is not None and not any(lexicon.role(row.partition(":")[0]) == lexicon.STEP
                                         for row in rows):
            rows.insert(0, f"step: {above}")  # numbered by its step line
        text = "  ".join(rows)
        metrics = read_pairs(text)
        if not _measured(metrics):
            return []  # a configuration printed so
        return self._pairs(text, metrics, YAML, line) or []

    def _end_record(self, line: int) -> list[MetricEvent]:
        """The events of the record read so far, as one line of ``key: value`` pairs."""
        if not self.record:
            return []
        text = "  ".join(f"{key}: {value}" for key, value in self.record)
        quote = self.record_quote
        self.record, self.record_quote, self.record_nonfinite = [], None, False
        metrics = read_pairs(text)
        if not _measured(metrics):
            # a table of settings printed as a record (``| loss_scale | 1024 |`` beside
            # ``| seed | 42 |``): a step's record holds what it measured
            return []
        events = self._pairs(text, metrics, RECORD, line) or []
        for event in events:
            object.__setattr__(event, "quoted", quote)
        return events

    def _pairs(self, text: str, metrics: MetricLine, written: str | None,
               line: int) -> list[MetricEvent] | None:
        """The events of a line's pairs, its evaluation metrics' included (``written``: the
        notation, None to tell it from the line; a record's is :data:`RECORD`, its made-up
        line no bar); None when it holds none."""
        if not metrics.values and metrics.evals and text[:1] in _PADDED_OPENERS and (
                found := LEADING_PADDED_COUNT.match(text)):
            # the epoch that opens the line bare numbers it, as a keyed step would: the
            # training split's value is then its loss (see ``_events``)
            metrics = replace(metrics, values={lexicon.STEP: float(found.group(1))},
                              keys={lexicon.STEP: "epoch"})
        if metrics.values or metrics.components:
            counters = written is None
            if written is None:
                written = written_as(metrics.separator or "", text)
            events = self._events(text, metrics, written, counters=counters, line=line)
            if metrics.evals:
                # the step the line's counters gave its training values numbers its
                # evaluation's too (``Epoch: 3/5 Train steps: 100 ... val_loss: nan``)
                step = next((e.step for e in events if e.kind == METRICS), None)
                events += self._nonfinite_events(
                    text, self._measured(metrics), self._optimizer_step(
                        metrics, as_step(metrics.values.get(lexicon.STEP)), evaluation=True)
                    if step is None else step)
            return events
        if metrics.evals:
            self.evaluation_lines += 1
            return self._nonfinite_events(text, metrics.evals, self._optimizer_step(
                metrics, as_step(metrics.values.get(lexicon.STEP)), evaluation=True)) or (
                    _block_loss(text, metrics.evals))
        return None

    def _measured(self, metrics: MetricLine) -> list[tuple[str, float]]:
        """The evaluation values of a training line, less an accuracy's NaN beside a finite
        loss before that accuracy was ever read finite: the loop's placeholder before its
        first evaluation (tinygrad's ``examples/beautiful_mnist.py``: ``test_acc =
        float('nan')``, then ``t.set_description(f"loss: {loss.item():6.2f} test_accuracy:
        {test_acc:5.2f}%")`` each step, the accuracy measured every 10). An accuracy counts
        right predictions, finite whatever the logits hold: NaN only where none were
        counted yet."""
        loss = metrics.values.get(lexicon.LOSS)
        if loss is None or not math.isfinite(loss):
            return metrics.evals
        kept = []
        for key, value in metrics.evals:
            if lexicon.accuracy(key):
                if math.isfinite(value):
                    if len(self.accuracies_read) < _ACCURACIES_KEPT:
                        self.accuracies_read.add(key)
                elif math.isnan(value) and key not in self.accuracies_read:
                    continue
            kept.append((key, value))
        return kept

    def _abbreviated_step(self, found: re.Match[str]) -> int:
        """The step a counter printed abbreviated stands for (``step:3K``, see
        ``_ABBREVIATED_STEP``): the step after the last one read, as far on as the rows
        before were apart, where the print rounds that step to what it shows; else what it
        shows (its rows then repeat a step: the count is known only to its rounding)."""
        unit = _COUNT_PREFIX[found.group(3)] / 10 ** len(found.group(2) or "")
        return self._rounded_step(round(float(found.group(1)) * _COUNT_PREFIX[found.group(3)]),
                                  unit)

    def _rounded_step(self, shown: int, unit: float) -> int:
        """The step a counter rounded to ``unit`` and shown as ``shown`` stands for: the step
        after the last one read, as far on as the rows before were apart, where the print
        rounds that step to ``shown``; else ``shown``."""
        last, interval = self.step_rhythm
        if interval and abs(last + interval - shown) <= unit / 2:
            return last + interval
        return shown

    def _epochs_before(self, epoch: int, last: int | None = None) -> int:
        """How many epochs came before ``epoch``. Epochs count from 1 (mmcv, StyleTTS2,
        GluonTS) or from 0 (the ImageNet example, Swin, timm, a loop over ``range(epochs)``):
        once an epoch 0 was seen, epoch 1 is the second one, not the first again. ``last``:
        the last epoch printed after a slash (``{epoch}/{epochs - 1}``, YOLOv5's and
        YOLOv6's): one below a round count of epochs (``37/399``) says they count from 0,
        in an excerpt resumed past epoch 0 too."""
        self.epochs_from_zero = self.epochs_from_zero or epoch == 0 or (
            last is not None and last % 10 == 9)
        return epoch if self.epochs_from_zero else epoch - 1

    def _phase_step(self, text: str, phase: int, done: float) -> int | None:
        """The step of a ClassyVision phase line (see ``PHASE_DONE``): the phases before it
        and the share of this one done, in batches, once a phase's end printed how many it
        holds (None before: the rows number it)."""
        if "processed batches: " in text and (found := PHASE_BATCHES.search(text)):
            self.phase_batches = int(found.group(1))
        if not self.phase_batches:
            return None
        return phase * self.phase_batches + round(done * self.phase_batches / 100)

    def _epoch_and_batch(self, text: str, metrics: MetricLine, printed: int | None,
                         line: int) -> tuple[int, int, int] | None:
        """The epoch and the batch of that epoch that a training line prints without the
        epoch's length (icefall's ``Epoch 3, batch 500``, wenet's ``Batch 3/500``, ESPnet2's
        ``3epoch:train:401-500batch:``, DLLogger's ``(3, 500)``, DALLE's ``3 500 loss - ...``,
        ConvNets' ``Epoch: 3 Iteration: 500``, mlx-examples' ``Epoch 03 [500] | Train
        loss ...``), and how many batches the epoch holds where printed (0: not printed), or
        None. Runs only on a line that read a loss."""
        if "atch" in text:
            if found := EPOCH_BATCH.search(text):
                if found.group(1) is not None:
                    return int(found.group(1)), int(found.group(2)), 0
                return int(found.group(4)), int(found.group(3)), 0
            if "batch:" in text and (found := EPOCH_RANGE.search(text)):
                return int(found.group(1)), int(found.group(2)), 0
            if "poch" not in text and (found := SLASH_BATCH.search(text)):
                return self._slash_batch(int(found.group(1)), int(found.group(2)), line)
        if "poch" in text and "]" in text and (found := EPOCH_BRACKET.search(text)):
            return int(found.group(1)), int(found.group(2)), 0
        if ") " in text and (found := STEP_TUPLE.search(text)):
            return int(found.group(1)), int(found.group(2)), 0
        if pair := epoch_pair(text):  # ``2 epoch 300 index``, ``[epoch: 4,idex: 200]``
            return *pair, 0
        if printed is None and ((found := TWO_COUNTS.match(text)) or (
                # behind ``basicConfig``'s ``INFO:root:`` (I-JEPA's ``'[%d, %5d] loss: %.3f
                # ...' % (epoch + 1, itr, ...)``, facebookresearch/ijepa src/train.py)
                text[:1] in "DIWEC" and (prefix := _BASIC_LOGGER.match(text)) is not None
                and (found := TWO_COUNTS.match(text, prefix.end()))) or (
                (found := _bracket_after_level(text)) is not None)):
            first, second = (int(g) for g in found.groups() if g is not None)
            return first, second, 0
        epoch = as_step(metrics.values.get(lexicon.EPOCH))
        key = metrics.keys.get(lexicon.STEP)
        if printed is not None and epoch is not None:
            # a step key beside the epoch (the counter decides), the batches it counts to
            # printed after it or not (``it: 100/1000 ep: 1/10``; quoted in a JSON dict,
            # SlowFast's ``json_stats: {..., "epoch": "2/200", ..., "iter": "100/196", ...}``,
            # slowfast/utils/meters.py ``TrainMeter.log_iter_stats``)
            # (padded, a blank after the slash: pytorch3d implicitron's ``it %5d/ %d``,
            # pytorch3d/implicitron/tools/stats.py ``Stats.print``)
            total = re.search(rf"{re.escape(key)}\W{{0,4}} *0*{printed}/ ?(\d+)", text) if (
                "/" in text and key is not None) else None
            return epoch, printed, int(total.group(1)) if total else (
                _batches_total(text, printed) or _bar_total(text, printed))
        return None

    def _slash_batch(self, first: int, second: int, line: int) -> tuple[int, int, int] | None:
        """wenet's ``Batch {epoch}/{batch}`` or ``Batch {batch}/{batches}``: the first line
        cannot tell; the second can (the epoch stays while its batches move on; the batch
        moves on while the total stays). None until told, or for a batch of a total (the
        bar's counter then numbers it: see ``_bar_step``)."""
        last, self.slash_last = self.slash_last, (first, second)
        if self.slash_epochs is None and last is not None:
            if first == last[0] and second != last[1]:
                self.slash_epochs = True
                self.epoch_batches.step_of(*last)  # the first line's, not numbered then
            elif second == last[1] and first != last[0]:
                self.slash_epochs = False
        return (first, second, 0) if self.slash_epochs else None

    def _epoch_count(self, epoch: int, count: int) -> int:
        """The step of an epoch's summary line that prints how many steps the epoch took
        (poutyne's ``Epoch: 3/5 Train steps: 100 ... val_loss: nan``, see
        ``EPOCH_OF_COUNT``): the epoch's last step, ``E * count``, once the count is known
        to be the epoch's (it stayed put while the epoch went up, or the batch lines counted
        the epoch's steps); the count itself while it may be the run's."""
        last = self.epoch_count
        self.epoch_count = (epoch, count)
        if self.steps_in_epoch or (last is not None and epoch > last[0] and count == last[1]):
            self.counts_epoch = True
        return epoch * count if self.counts_epoch else count

    def _step_of_epoch(self, epoch: int, epochs: int, done: int, total: int) -> int:
        """The step of ``Epoch E/N, step i/M`` (see ``EPOCH_OF_STEPS``): ``i`` where it may
        count the run's steps, the epochs before E times the epoch's length plus ``i`` once
        it cannot (outside epoch E's share of M, or gone back while the epoch moved on).

        Epochs count from 1 unless an epoch 0 was printed (``_epochs_before``). The epoch's
        length is M, unless the count went back after ending the epoch before within its
        share of M (``epoch_share``): then M was the run's and an epoch ``M / N``."""
        last = self.epoch_of_steps
        before = self._epochs_before(epoch)
        if not self.steps_in_epoch and 0 <= before < epochs and (
                not before * total <= done * epochs <= (before + 1) * total
                or (last is not None and epoch > last[0] and done < last[1])):
            self.steps_in_epoch = True
            if last is not None and epoch > last[0] and done < last[1]:
                self.epoch_length = epoch_share(last[1], epochs, total) or total
        self.epoch_of_steps = (epoch, done)
        return before * (self.epoch_length or total) + done if self.steps_in_epoch else done

    def _sample_step(self, epoch: int | None, samples: int, total: int) -> tuple[int, str]:
        """The step of ``Epoch E [n/N (p%)]``, a count of samples (see ``EPOCH_SAMPLES``), and
        its basis. Where the input's first count is above 0 and within 1% of its epoch (a
        count of batches done, from 1, times the batch: open_clip's) and each count after it
        a multiple of it, it is one step's samples. Else the batch is not known (the PyTorch
        MNIST example counts ``batch_idx * len(data)`` from 0: the first count above 0 holds
        the print interval too), and the step is the run's samples, said so (``SAMPLES``):
        the epochs before times the samples an epoch holds, plus the count. A batch step is
        not knowable there; the sample count is, with its unit said. ``epoch`` None: none
        printed, the samples of the one epoch the excerpt shows."""
        if self.step_samples is None:
            # (a first count past 1% of its epoch is no first batch: an excerpt from the
            # middle, whose later counts it would number as steps of its size)
            self.step_samples = samples if samples * 100 <= total else 0
        unit = self.step_samples
        if not unit or samples % unit:
            self.step_samples = 0
            before = self._epochs_before(epoch) if epoch is not None else 0
            return before * total + samples, bases.SAMPLES
        before = self._epochs_before(epoch) if epoch is not None else 0
        step = before * -(-total // unit) + samples // unit
        return step, bases.across(step, samples)

    def _tqdm_step(self, done: int, total: int, line: int, label: str = "") -> int:
        """The step of a tqdm bar's count ``done`` of ``total``: the count itself until it goes
        back, or a finished bar is printed again on a line of its own; a bar that starts again
        counts on from its last pass (OpenRLHF's PPO ``Train epoch [1/1]: ... 2/4 [...,
        act_loss=..., reward=...]``, one pass over each rollout's replay buffer, an optimizer
        step a batch: openrlhf/trainer/ray/ppo_actor.py ``ppo_train``; a pasted log keeps
        each pass's last state, ``4/4``). A bar first seen with ``Epoch {e}/{epochs}`` in its
        ``label`` (the text before its count: 0xStick1/Transformer-based-Sentiment-
        Classification pretrain.py's ``desc=f'Pre-train Epoch {epoch + 1}/{EPOCHS}'``) opens
        an excerpt pasted from the middle of the run: the epochs before it were passes of
        this bar too, as the log read from its start counts them; unless the label's epoch
        repeats the bar's count, a bar over the epochs themselves (``_over_epochs``)."""
        labelled = _BAR_LABEL_EPOCH.search(label) if "poch" in label else None
        if total in self.tqdm_bars:
            last, passes, last_line = self.tqdm_bars[total]
            if total in self.epoch_label_first and labelled is not None and labelled.group(3):
                passes += self._over_epochs_still(total, int(labelled.group(3)), done)
        else:
            last, passes, last_line = 0, 0, line
            if labelled is not None and not _over_epochs(labelled, done, total):
                passes = self._epochs_before(int(labelled.group(1) or labelled.group(3)))
            elif labelled is not None and labelled.group(3) is not None:
                # (``epoch: N,`` names no total to check: a batch bar pasted from the batch
                # its epoch happens to equal reads so too, till its next state)
                self.epoch_label_first[total] = (int(labelled.group(3)), done)
            else:
                # the same under an ``Epoch 6/9`` header of its own a line or two above
                # (14aprows/drone-object-detection engine/trainer.py: ``print(f"Epoch
                # {epoch+1}/{EPOCHS}")`` over ``tqdm(train_loader, leave=True)``), as Keras'
                # first bar under its header (``_bar_step``)
                passes = self._headed_passes(passes, line, -1)
        if _new_pass(done, last, done == total and line != last_line):
            # a later pass under its own header says so too (see ``_headed_passes``)
            passes = self._headed_passes(passes + 1, line, last_line)
        self.tqdm_bars[total] = (done, passes, line)
        return passes * total + done

    def _over_epochs_still(self, total: int, epoch: int, done: int) -> int:
        """The passes a bar taken for one over the epochs (its first state's ``epoch: N,``
        label repeating its count, ``epoch_label_first``) had before it, once a later state
        with another count shows what it is: over the epochs its label's epoch moves with
        the count (timegan-pytorch's ``Epoch: {epoch}, Loss: ...``), none; on a batch bar it
        stays put while the count moves (foldnn_pytorch's ``epoch: 3, train acc: ...`` over
        ``3/100`` then ``13/100``), the epochs before the first state's."""
        first_epoch, first_done = self.epoch_label_first[total]
        if done == first_done:
            return 0  # (the same state again: no word yet)
        del self.epoch_label_first[total]
        if epoch - done == first_epoch - first_done:
            return 0
        return self._epochs_before(first_epoch)

    def _restarting_count(self, done: int) -> int:
        """The step of batch ``done`` of an epoch whose length is not printed and whose epoch
        is not on the line (CNTK's ``Minibatch[301- 400]``): where the count goes back, an
        epoch ended at the last count printed; the step is the counts of the epochs before
        and ``done``."""
        last, before = self.restarts
        if _new_pass(done, last, False):
            before += last
        self.restarts = (done, before)
        return before + done

    def _epoch_read(self, epoch: int, new_run: bool) -> bool:
        """Note a row that prints its epoch and a loss, the epoch's summary: one whose epoch
        went up, or the first epoch of a ``new_run``, ends an epoch (see
        ``_epoch_count_step``; a header without a loss, Keras' guide's ``Start of epoch 1``
        over ``Training loss (for 1 batch) at step 0: ...``, opens one, its counts read as
        printed). Whether it ended one."""
        rows, last = self.epochs_up
        if epoch > last or new_run:
            self.epochs_up = (rows + 1, epoch)
            return True
        return False

    def _new_run(self, *, heading: bool = False) -> None:
        """A new run began in the same log (its epoch back at the first: see
        :mod:`run_epochs`): the counts that add passes over epochs (``_epoch_count_step``,
        ``_pass_step``) start over, as that run alone would count. An epoch line that sums
        up its batches: the last count read ended the new run's first epoch (the next count
        going back is its second); an epoch's ``heading`` over its batches (SAM-HQ's
        ``epoch: 0  learning rate: ...``): its first count is read as printed."""
        if heading:
            self.passes = {total: (-1, 0, interval)
                           for total, (_last, _passes, interval) in self.passes.items()}
            _last, _before, interval, rows = self.key_count
            self.key_count = (-1, 0, interval, rows)
            return
        self.passes = {total: (last, 0, interval)
                       for total, (last, _passes, interval) in self.passes.items()}
        last, _before, interval, rows = self.key_count
        self.key_count = (last, 0, interval, rows)

    def _epoch_count_step(self, done: int) -> int:
        """The step of a keyed count printed with no epoch and no total on its row, once it
        shows that it counts the batches of an epoch: it went back to within one printing
        interval of its start after a row that printed a loss and an epoch above the last,
        the epoch's summary printed after its batches (DeepLabCut 3's ``Number of iterations:
        {i + 1}, loss: ...`` under ``Epoch {e}/{epochs} (lr=...), train loss ...``,
        deeplabcut/pose_estimation_pytorch/runners/train.py). An epoch ended at the last
        count; the steps go on from the epochs before. A count that goes back without an
        epoch's summary between, or further back than an interval, is read as printed (a run
        resumed or started over: the assembler's to tell)."""
        last, before, interval, rows = self.key_count
        epochs = self.epochs_up[0] + self.headings_moved[0]
        if 0 <= done < last and done <= interval and epochs > rows:
            length = epoch_length(last, done, interval)
            # The summary's epoch says how many epochs ended (from 1 as the reader counts,
            # ``_epochs_before``): an excerpt pasted from the middle (2024yuva/multi-crop
            # ``train_vae.py``'s ``Epoch 2/5 | Train Loss: ...`` after its first batches
            # pasted) counted only the passes it shows; a heading above the first restart
            # places the epochs before it once (``_epochs_above``); never fewer than counted.
            ended = self._epochs_before(self.epochs_up[1]) + 1
            before = max(before + length + self._epochs_above(length), ended * length)
        elif done < last:
            before = 0  # read as printed from here on
        elif done > last >= 0:
            interval = done - last
        self.key_count = (done, before, interval, epochs)
        return before + done

    def _epochs_above(self, length: int) -> int:
        """The batches of the epochs before the excerpt's first, once, when a keyed count
        first restarts after an epoch's heading (``epoch 3 lr 2.5e-02``): the heading names the
        epoch that begins, the epoch that ended is the one before it, and the epochs before
        that count from 1 unless a heading printed epoch 0 (as :class:`EpochBatches` counts
        them). 0 where no heading was read, or after the first restart."""
        heading = self.headings_moved[1]
        if self.headings_placed or self.headings_moved[0] == 0 or heading < 0:
            return 0
        self.headings_placed = True
        return max(heading - 1 - (0 if self.heading_zero else 1), 0) * length

    def _open_bar_step(self, done: int, line: int) -> int:
        """The step of an open bar's count (see ``OPEN_BAR``) with no epoch on its line: a bar
        per epoch over a loader's ``enumerate`` (Wav2Lip's ``tqdm(enumerate(
        train_data_loader))`` under ``print('Starting Epoch: {}'...)``, Rudrabha/Wav2Lip
        wav2lip_train.py). Where the count goes back, or the same count ends a new line (the
        last state of each epoch's bar, as a terminal shows them), an epoch ended at the last
        count; one bar that never ends counts the run's steps."""
        last, before, last_line = self.open_bar
        if _new_pass(done, last, line != last_line):
            before += last
        self.open_bar = (done, before, line)
        return before + done

    def _pass_step(self, done: int, total: int) -> int:
        """The step of a keyed count of a total that starts over each pass (Depth Anything
        V2's ``logger.info('Iter: {}/{}, LR: {:.7f}, Loss: {:.3f}'.format(i,
        len(trainloader), ...))`` under its ``===========> Epoch: {}/{}`` line, metric_depth/
        train.py): ``passes * total + done``, a pass counted where the count goes back to
        within one printing interval of its start. A count that goes back further is a run
        resumed from a checkpoint (the assembler's to tell), read as printed.

        An epoch's summary read between the passes, its epoch above the passes counted
        (LIIF's ``epoch 3/1000, train loss = ...`` after its ``iter {i}/{n}`` lines, Calvin-
        Pang/NExpR ``train_ddp.py``, in an excerpt pasted from epoch 3), says how many passes
        ended there, its epoch counted from 1 as an "of how many" print counts: the passes
        go on from it, not from the excerpt's first line."""
        last, passes, interval = self.passes.get(total, (-1, 0, 0))
        summaries, summed = self.epochs_up
        if 0 <= done < last and done <= interval:
            passes += 1
            if summaries > self.pass_summaries.get(total, summaries):
                passes = max(passes, summed)
        elif done > last >= 0:
            interval = done - last
        self.pass_summaries[total] = summaries
        self.passes[total] = (done, passes, interval)
        return passes * total + done

    def _fit_header(self, text: str, line: int) -> bool:
        """Whether ``text`` is Keras' epoch header over its bar (``Epoch 3/10``, keras
        ``callbacks/progbar_logger.py`` ``on_epoch_begin``); one that counts from 1 again
        after another is a new ``fit``: a learning-rate range test that stopped its own fit
        on a NaN (keras_lr_finder, surmenok ``keras_lr_finder/lr_finder.py``: ``if
        math.isnan(loss) or loss > self.best_loss * 4: self.model.stop_training = True``),
        then the real one. Its first row starts a run (where the fit before it ended on a
        NaN, it may be an abandoned one); its bars count on from the last fit's, as the
        model's optimizer does (``optimizer.iterations``, TensorBoard's step): a second
        ``fit`` of the same model (fine-tuning after a frozen stage, ``fit(epochs=1)`` in a
        loop) goes on from its steps. A fresh model's (the same ``fit`` again after one run
        to its end, its loss back up) counts from its own start (``_bar_step``)."""
        found = _KERAS_EPOCH.fullmatch(text.strip())
        if found is None:
            return False
        epoch, total = int(found.group(1)), int(found.group(2))
        if epoch == 1 and self.fit_epoch:
            self.new_fit = True
            # A fit of several epochs run to its end, then one of as many from 1 again: the
            # same ``fit`` called again, on a fresh model where its loss is back up (see
            # ``_bar_step``).
            self.ended_fit = self.fit_epoch == self.fit_total == total > 1
        self.fit_epoch, self.fit_total = epoch, total
        # The same line heads a loop's own epoch summary (Chatchanan-V/PRiDAN ``train.py``:
        # ``print('Epoch {}/{}'.format(epoch, num_epochs - 1))`` over ``train Loss: 0.52 ...``):
        # a row below it that prints no step is that epoch's, as below nnU-Net's ``Epoch 12``.
        # A Keras bar numbers itself.
        self.block_epoch = (epoch, line)
        self.fit_line = line
        return True

    def _tagged_step(self, tag: str, value: int, with_loss: bool) -> int | None:
        """The step a count after a device's tag numbers (``[xla:3](120) Loss=``), None once
        such counts number something else. Each device of a multi-core run prints its own
        line of each step, flushed in no set order: the same step comes back under another
        tag, and one device's line may come after another's of the next step. A device's own
        count that goes back to within one printing interval of its start counts the batches
        of an epoch: pytorch/xla's MNIST loops (``contrib/colab/mnist-training.ipynb``,
        ``test/test_train_mp_mnist.py``) enumerate each epoch's loader afresh (``for x,
        (data, target) in enumerate(loader)``, ``[xla:0](0) Loss=...`` after ``Finished
        training epoch 1``), so the steps go on from that device's epochs before, each its
        last count plus the interval, as other counts that start over each epoch are read.
        Only a count going back further, or a loss printed twice at one count, says these
        are no steps; a late line is placed at the step reached (within one print interval of
        its own)."""
        last, before, interval = self.bracket_tags.get(tag, (-1, 0, 0))
        if last < 0 and len(self.bracket_tags) >= _MAX_TAGS:
            self.bracket_off = True
            return None
        if 0 <= value < last and value <= interval:
            before += epoch_length(last, value, interval)
        elif value < last or (value == last and with_loss):
            self.bracket_off = True
            return None
        elif value > last >= 0:
            interval = value - last
        self.bracket_tags[tag] = (value, before, interval)
        self.bracket_last = max(self.bracket_last, before + value)
        return self.bracket_last

    def _colon_count(self, text: str) -> re.Match[str] | None:
        """A count before a colon opening the message (``COLON_COUNT``), taken once it rose
        from the one the row before printed: a count the same on every row (a process id, a
        logging call's line number, ``srun --label``'s task) numbers no step."""
        found = COLON_COUNT.search(text)
        if found is None:
            return None
        value = int(next(group for group in found.groups() if group is not None))
        last, self.colon_last = self.colon_last, value
        return found if last is not None and value > last else None

    def _bar_step(self, done: int, total: int, line: int, *, drawn: bool = False,
                  loss: float | None = None) -> int:
        """The step of batch ``done`` of ``total`` (epochs counted by the bar going back).

        A bar that counts samples (Keras 1.x and 2.x ``fit`` on arrays: ``Train on 60000
        samples``, then ``3200/60000 [>....] - ETA: 52s - loss: nan``, keras/utils/
        generic_utils.py ``Progbar``, updated by ``batch_size`` each batch) counts in steps
        of its batch: the first count it shows (a Progbar always draws its first update) is
        one batch, and every count after it a multiple of that, but the last (the epoch's
        remainder). Its steps are the batches: ``ceil(done / batch)``. A count that is no
        multiple says the bar counts batches after all (1 from then on: the steps never go
        back, the counts only grow). Only where ``drawn`` (Keras' ``[====>...]`` follows the
        count): a loop's bare ``[2000/10000]`` printed every 100 steps counts steps."""
        if self.new_fit:  # the first bar of a new fit
            self.new_fit, self.fit_row = False, line
            if self.ended_fit and loss is not None and loss >= _FRESH_FIT_RISE * self.fit_loss:
                # A fresh model's (a model a setting, a fold of a cross-validation:
                # 02alexander/autocar ``experiment.py``, five ``model.fit(..., epochs=200)``
                # of five new models): its loss starts high again, as a script run again, and
                # its steps count from its own start. The same model fitted again (a round of
                # new data, 1653109/stylegan-encoder ``train_resnet.py``) goes on from its loss.
                self.bars.clear()
        if loss is not None and math.isfinite(loss):
            self.fit_loss = loss
        first = total not in self.bars
        last, epochs, last_line = self.bars.get(total, (0, 0, line))
        if first:
            # The first bar of an excerpt pasted from the middle of a fit, under its
            # ``Epoch 30/40`` header: the epochs before it were passes of this bar too
            # (``Epoch 1/40`` pasted from the start counts the same steps from 1); Keras 3's
            # bar draws no ``[``: ``500/500 ━━━━ 61s 122ms/step - loss: ...``.
            epochs = self._headed_passes(epochs, line, -1, fit=drawn)
        if _new_pass(done, last, line != last_line):
            # (a paste that opens on the last bar of the epoch before its first header)
            epochs = self._headed_passes(epochs + 1, line, last_line, fit=drawn)
        self.bars[total] = (done, epochs, line)
        unit = self._bar_unit(done, total, first) if drawn else 1
        return epochs * -(-total // unit) + -(-done // unit)

    def _headed_passes(self, passes: int, line: int, last_line: int, *,
                       fit: bool = False) -> int:
        """The passes before a bar's pass that starts at ``line`` (its last state before at
        ``last_line``, -1 for its first): ``passes`` as counted, or more where the epoch's own
        heading stands between, a line or two above (Keras' ``Epoch 9/30``, a loop's bare
        ``Epoch 6``, ``block_epoch``). A bar that restarts each epoch is counted from the
        paste's first pass; the heading says which epoch this pass is, so the epochs before
        it were passes too. Counted as the reader counts every epoch (``_epochs_before``:
        from 1 unless an epoch 0 was read; an excerpt from the middle cannot tell), a Keras
        ``fit``'s (``fit``) from 1. So does a sentence after the last pass that its epoch
        ended (``End of epoch 4 / 8``, :mod:`epoch_ends`): this pass is the next. Never fewer
        than counted: a heading that falls behind the passes (several bars an epoch) says
        nothing."""
        ended = self.ended_epoch
        if ended is not None and last_line < ended[1] < line:
            # the epoch the last pass ended, said after it (``End of epoch 4 / 8``)
            passes = max(passes, self._epochs_before(ended[0]) + 1)
        block = self.block_epoch
        if block is None or not (last_line < block[1] < line
                                 and line - block[1] <= _FIT_HEADER_GAP):
            return passes
        if fit:
            # (only under a fit's own ``Epoch E/N`` header: a Keras bar's epochs count from 1)
            return max(passes, self.fit_epoch - 1) if block[1] == self.fit_line else passes
        return max(passes, self._epochs_before(block[0]))

    def _bar_unit(self, done: int, total: int, first: bool) -> int:
        """The samples a batch of the bar of ``total`` counts (1: it counts batches)."""
        if first:
            # a whole number of batches under a tenth of the total: a batch size
            self.bar_units[total] = done if 1 < done <= total // 10 else 1
        unit = self.bar_units.get(total, 1)
        if unit > 1 and done % unit and done != total:
            unit = self.bar_units[total] = 1
        return unit

    def _bar_heading(self) -> int | None:
        """The epoch of the heading right over the last bare bar (PointNet++'s ``Epoch 4
        (4/8):`` over its bar and ``Train Instance Loss: ...``: see counted_epochs), or None
        where no heading stands within :data:`BLOCK_REACH` lines above it."""
        label = self.bare_label
        if label is not None and label[0] == self.bare_end[0]:
            return label[1]  # (the bar's own label: the epoch it counts)
        block = self.block_epoch
        if block is None or not 0 < self.bare_end[0] - block[1] <= BLOCK_REACH:
            return None
        return block[0]

    def _epoch_row(self, step: int | None, epoch: float | None, text: str,
                   key: str | None, *, above: bool = False) -> int | None:
        """The step of a training row that prints no step: its epoch, in a log that prints
        one row an epoch (pytorch-tabnet's ``epoch 23 | loss: nan | val_0_auc: ...``, PyTorch
        Geometric's ``Epoch: 019, Loss: nan, ...``), as its reader counts; else ``step``.

        From the first training row on, every row must print a whole epoch above the last
        one: a row printed every few batches repeats its epoch, a fractional epoch (HF's
        ``epoch: 0.27``) is no count, a log that prints steps numbers its rows itself. Once
        a row breaks that, the rows are numbered as before (the count goes on from the last
        epoch), for the rest of the input: the steps never go back. ``above``: the epoch is
        a line's of its own above the row (nnU-Net's ``Epoch 12``, then ``train_loss -0.7``).
        """
        whole = as_step(epoch)
        if step is None and whole is not None and whole > self.epoch_row and (above or (
                # printed whole ("epoch 23", "Epoch: 019", padded to its width: e3nn's
                # examples/tetris.py ``f"epoch {step:5d} | loss ..."``), not "epoch: 0.00"
                key is not None and _printed_whole(key, whole, text))):
            self.epoch_row = whole
            return whole
        if step is None and whole is None and self.epoch_row < 0 and not self.before_epochs:
            # One row before the first epoch's: an evaluation before any training (MACE's
            # ``Initial: head: Default, loss=...`` above ``Epoch 0: ...``, mace/tools/
            # train.py ``valid_err_log``), counted as a row.
            self.before_epochs = True
            return step
        self.epoch_rows_off = True
        return step

    def _header_row(self, text: str, line: int) -> bool:
        """Remember a row of column names (two or more the lexicon knows, no numbers)."""
        if self._header_below(text, line):
            return True
        cells = header_cells(text)
        if cells is None:
            if "|" in text and (head := _split_header(text)) is not None:
                self.split_head = (line, head)  # (no header: its rows may be splits)
            return False
        parted = "\t" if _tabbed(text) else "|" if _piped(text) else ""
        cell = (_TAB_CELL if parted == "\t" else _PIPE_CELL if parted else _WIDE_CELL
                if len(cells) < len(_HEADER_CELL.findall(text)) else _HEADER_CELL)
        spans = [found.span() for found in cell.finditer(text)]
        if len(spans) > len(cells) and (titled := _TITLE.match(text)) is not None:
            # (a titled table's columns: the title's cell is no column)
            spans = [found.span() for found in _HEADER_CELL.finditer(text, titled.end())]
        self.header = (line, cells, spans, parted)
        self.header_text = text
        self.header_evals = lexicon.evaluation_twins(cells)
        self.header_csv = _comma_separated(text)
        self.header_named = _named_rows(cells)
        # right below an evaluation split's name alone (NequIP's ``validation`` over its
        # batch table): the table's rows are the evaluation's
        self.header_split = self.right_below(self.eval_line, line) and (
            " " not in self.eval_text.strip())
        return True

    def _piped_header(self, text: str, line: int) -> bool:
        """A header row between pipes (its first character one), taken as one before its
        names are asked whether they are an evaluation's: trainNetwork's verbose table names
        its ``Validation`` columns beside the training's."""
        return (text[:1] == "|" and not any(c.isdigit() for c in text)
                and self._header_row(text, line))

    def _header_below(self, text: str, line: int) -> bool:
        """The second row of a header whose names run over two rows between pipes at the
        same places (MATLAB trainNetwork's verbose table: ``|  Epoch  |  Iteration  | ...  |
        Mini-batch  |  Base Learning  |`` over ``|         |             | ...  |     Loss
        |      Rate      |``): each column named by its two cells, the upper first."""
        header = self.header
        if (header is None or header[0] != line - 1 or "|" not in text
                or any(c.isdigit() for c in text)):
            return False
        above = self.header_text
        if [i for i, c in enumerate(above) if c == "|"] != (
                pipes := [i for i, c in enumerate(text) if c == "|"]) or len(pipes) < 3:
            return False
        spans = list(itertools.pairwise(pipes))
        names = [" ".join(f"{above[a + 1:b].strip()} {text[a + 1:b].strip()}".split())
                 for a, b in spans]
        if not any(text[a + 1:b].strip(" -=:+") for a, b in spans) or _known(names) < 2:
            # (a rule under the header, a Markdown table's ``|---|:---:|``, names nothing)
            return False
        self.header = (line, names, [(a + 1, b) for a, b in spans], "|")
        self.header_evals = lexicon.evaluation_twins(names)
        self.header_named = _named_rows(names)
        return True

    def _split_value_row(self, text: str, line: int) -> MetricLine | None:
        """A row of a table of splits under the last such header (see split_rows), opened by a
        split's name and as wide as the header, or None (read as before)."""
        assert self.split_head is not None
        cells = _PIPE_CELL.findall(text)
        names = self.split_head[1]
        split = split_rows.split_row(cells[0]) if cells else None
        if split is None or len(cells) != len(names) or (
                line - self.split_head[0] > split_rows.REACH):
            return None
        out = _split_cells(names, cells, split == split_rows.HELD_OUT)
        if not (out.values or out.components or out.evals):
            return None
        self.split_read = line
        return out

    def _value_row(self, text: str, line: int) -> MetricLine | None:
        """Values aligned under the last header row, cell by cell."""
        if self.split_head is not None and "|" in text and (
                self.header is None or self.header[0] < self.split_head[0]) and (
                split := self._split_value_row(text, line)) is not None:
            return split
        if self.header is None:
            return None
        names, parted = self.header[1], self.header[3]
        if "[" in text and not parted:
            # a cell that prints a list (DeepXDE's loss terms): one cell, their total
            text = collapse_lists(text)
        csv = self.header_csv and _comma_separated(text)
        if parted == "\t" and _tabbed(text):
            cells = [cell.strip() for cell in _TAB_CELL.findall(text)][:len(names)]
        elif parted == "|" and "|" in text:
            cells = _PIPE_CELL.findall(text)[:len(names)]
        elif csv:
            # each cell where the commas put it, an empty one too (a metric not logged on
            # this row: Lightning's CSVLogger leaves the validation's cells empty on a
            # training step's row)
            cells = text.strip().split(",")
            if len(cells) != len(names):
                return None
        else:
            cells = _HEADER_CELL.findall(text)
            if len(cells) == len(names) + 1 and cells[0].isdigit() and (
                    text.find(cells[0]) + len(cells[0]) <= self.header[2][0][0]):
                # a cell left of the first column's name: the row's number under no name
                # (pandas prints a DataFrame's index so: ``0    100  2.290000``)
                cells = cells[1:]
            cells = cells[:len(names)]
            names = _uncommented(names, cells)
        if self.header_named and cells and _names_a_thing(cells[0]):
            # a row that opens with a name under a table with no step or epoch column: one
            # thing's (a model's, in a closing summary), no step; a NaN in it is the tool's
            # placeholder for a value it lacks (``stats.get('train_loss', float('nan'))``)
            return None
        # A row far below its header (printed once, as PrintReport does) is read only where
        # it lines up with it (a row that holds a keyword: a NaN one).
        if not csv and (len(cells) < len(names) or line - self.header[0] > HEADER_REACH):
            columns = _aligned(text, self.header[2])
            if columns is None or len(columns) * 2 < len(names):
                return None  # (half the columns filled, as a table's row fills them)
            names, cells = [self.header[1][i] for i in columns], _HEADER_CELL.findall(text)
        out = MetricLine()
        numeric = 0
        zeros: list[int] = []  # the decimals of each loss cell printed as 0
        counted = _step_column(self.header[1])
        for name, cell in zip(names, cells, strict=True):
            kind = (lexicon.STEP if counted else None) if name == "#" else (
                lexicon.EVAL if name in self.header_evals else lexicon.role(name))
            if kind == lexicon.EPOCH and "/" in cell:
                out.keys["epoch_text"] = cell
                numeric += 1
                continue
            if kind == lexicon.EPOCH and not VALUE.fullmatch(cell):
                return None  # not a row of this table ("all" opens a validation row)
            if not VALUE.fullmatch(cell):
                numeric += cell in _NOT_AVAILABLE  # (the tool's mark fills its column)
                continue
            numeric += 1
            value = to_value(cell)
            if value == 0.0 and kind in (lexicon.LOSS, lexicon.COMPONENT):
                # "0.00" (spaCy's "{0:.2f}"): the decimals a decayed loss was rounded to
                zeros.append(decimals(cell))
            if kind == lexicon.COMPONENT:
                out.components.append((name, value))
            elif kind == lexicon.EVAL or (kind is None and lexicon.evaluation_metric(name)):
                out.evals.append((name, value))  # ("Validation Loss": the evaluation's)
            elif kind is not None and (kind not in out.values or (
                    # a column named ``loss`` beats an earlier one that a loss noun names
                    # (Ray's trials table: the tutorial's layer widths ``l1``, ``l2``)
                    kind == lexicon.LOSS and lexicon.plain_loss_beats(name, out.keys[kind]))):
                out.values[kind] = value
                out.keys[kind] = name
        if (numeric * 2 < len(names) and not csv) or not (out.values or out.components):
            return None
        if out.evals and self.header_evals:
            out.evals = _measured_twins(out.evals, dict(zip(names, cells, strict=True)),
                                        self.header_evals)
        out.zero_places = min(zeros, default=0)
        if "NaN" in cells:
            _unfilled(out, {name for name, cell in zip(names, cells, strict=True)
                            if cell == "NaN"})
        return out if out.values or out.components or out.evals else None


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
    scaler's until then is judged as one. Once a value has held over two rows, a value
    between powers of two is read too (still never more than twice the last): the mean of a
    window in which the scaler halved or doubled, as a loop that averages its metrics over
    each logging window prints it.

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
        >>> guard = BareScale()  # a window's mean: the scale halved within it
        >>> [guard.read(v) for v in (65536.0, 65536.0, 42598.4, 32768.0)]
        [65536.0, 65536.0, 42598.4, 32768.0]
        >>> guard = BareScale()
        >>> guard.read(256.0), guard.read(200.0)  # no power of two before one held
        (256.0, None)
        >>> guard = BareScale()  # rising twice between powers of two: an image size
        >>> [guard.read(v) for v in (256.0, 256.0, 320.0, 384.0, 512.0)]
        [256.0, 256.0, 320.0, None, None]
    """

    FIRST = 2.0 ** 7  # the smallest first value read (fairseq's --fp16-init-scale default)
    # Printed values are rounded (``6.10352e-05`` for 2**-14): how far from a power of two,
    # in binary orders of magnitude, a value may be (0.1%).
    TOLERANCE = 0.0015

    __slots__ = ("held", "last", "off")

    def __init__(self) -> None:
        self.last: float | None = None  # the last value read
        self.held = False  # a value read was printed again on the next row
        self.off = False  # a value broke the rule: the key is no loss scale in this input

    def read(self, value: float) -> float | None:
        """``value`` when the stream so far is a scaler's, else None (from now on)."""
        if self.off:
            return None
        last = self.last
        if value == last:
            self.held = True
            return value
        if last is None:
            broken = value < self.FIRST or not _power_of_two(value, self.TOLERANCE)
        elif _power_of_two(value, self.TOLERANCE):
            broken = value > 2.0 * last * 1.001  # it never grows past twice
        else:
            # Once a power of two has held over two rows, a value that is none may be the
            # mean of a window in which the scaler halved or doubled (Flax's imagenet
            # example prints each metric averaged over log_every_steps steps, its
            # DynamicScale's ``train_scale`` among them): a fall, or one rise from a power
            # of two to less than twice it (the window after holds the doubled scale; an
            # image size stepping 256, 320, 384 is no scaler's).
            broken = not self.held or (value > last and (
                value > 2.0 * last * 1.001 or not _power_of_two(last, self.TOLERANCE)))
        if broken:
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


def _measured_twins(evals: list[tuple[str, float]], row: dict[str, str],
                    twins: dict[str, str]) -> list[tuple[str, float]]:
    """A row's evaluation values less those of a quantity with no reference data: DeePMD-kit
    prints ``nan`` in both its ``_val`` and its ``_trn`` column then ("If there is no
    available reference data, rmse_*_{val,trn} will print nan", under ``lcurve.out``'s
    header), a virial's on every row of a run without virials. A training value that went
    non-finite is the loss's to report."""
    def unmeasured(name: str, value: float) -> bool:
        twin = row.get(twins.get(name, ""))
        return not math.isfinite(value) and twin is not None and (
            VALUE.fullmatch(twin) is None or not math.isfinite(to_value(twin)))
    return [(name, value) for name, value in evals if not unmeasured(name, value)]


def _under(cell: tuple[int, int], columns: list[tuple[int, int]]) -> int | None:
    """The one column whose name a value cell overlaps, aligned neither way: a name printed
    left-aligned over a wider right-aligned value (DeePMD-kit's ``lcurve.out``: ``"   {:8s}"
    .format("lr")`` over ``"   %8.1e" % lr``). None when it overlaps none, or two."""
    start, end = cell
    under = [i for i, (left, right) in enumerate(columns) if left < end and start < right]
    return under[0] if len(under) == 1 else None


def _uncommented(names: list[str], cells: list[str]) -> list[str]:
    """The column names of a header row that ``#`` comments out (a data file written for
    gnuplot or ``numpy.loadtxt``: DeePMD-kit's ``lcurve.out``, ``#  step  rmse_val ...``),
    where its rows hold one cell fewer: the ``#`` names no column. A ``#`` that numbers the
    rows (or the steps, beside the epoch) has its cell on each row."""
    if names[0] == "#" and len(cells) == len(names) - 1 and not _step_column(names):
        return names[1:]
    return names


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
        if column is None:
            column = _under(found.span(), columns)
        if column is None or (out and column <= out[-1]):
            return None
        out.append(column)
    return out or None


# The lines a Keras bar's final state may stand below its epoch header (the header, then
# the bar: 1; a bar whose redraws a paste kept on lines of their own: a few more)
_FIT_HEADER_GAP = 3


def _no_total(text: str, key: str) -> bool:
    """Whether a row's keyed step stands with no total after it: no slash from the key on (a
    slash before it is a logger's date, ``12/07 01:02:27 PM TRAIN Step: 300``, or a path).

    Example:
        >>> _no_total("12/07 01:02 PM Step: 300 Objs: nan", "Step"), _no_total("Step 3/9", "Step")
        (True, False)
    """
    return "/" not in text or "/" not in text[max(text.find(key), 0):]


def _repeats_count(number: int, done: int) -> bool:
    """Whether a bar label's ``number`` merely repeats the bar's own count ``done``: equal to
    it (a label set from the loop's index, which tqdm's count equals while the body runs) or
    one more (the same index printed from 1). Such a label counts what the bar counts and
    says nothing of the passes before it (timegan-pytorch's ``trange(emb_epochs)`` described
    ``f"Epoch: {epoch}, ..."``; a ViT-pytorch-style ``"Training (%d / %d Steps)"`` filled with
    the epoch's batch over that epoch's bar).

    Example:
        >>> _repeats_count(20, 20), _repeats_count(21, 20), _repeats_count(19, 20)
        (True, True, False)
    """
    return number in (done, done + 1)


def _over_epochs(labelled: re.Match[str], done: int, total: int) -> bool:
    """Whether a bar whose label names an epoch (``labelled``, a ``_BAR_LABEL_EPOCH`` match)
    is a bar over the epochs themselves, its count ``done`` of ``total``: the label's epoch
    repeats the bar's count (see ``_repeats_count``), and where the label names the run's
    epochs too (``Epoch 20/50``) they are the bar's total. Its count is then the epoch, no
    passes before it (birdx0810/timegan-pytorch ``models/utils.py``: ``trange(emb_epochs,
    desc="Epoch: 0, Loss: 0")`` described ``f"Epoch: {epoch}, Loss: {loss:.4f}"``)."""
    if labelled.group(1) is not None:
        return int(labelled.group(2)) == total and _repeats_count(int(labelled.group(1)), done)
    return _repeats_count(int(labelled.group(3)), done)


def _new_pass(done: int, last: int, again: bool) -> bool:
    """Whether a count of batches ``done``, after ``last``, begins a new pass over the data
    (an epoch; a bar started again): the count went back, or the same count is printed
    ``again`` (the caller says when: on a line of its own, the last state of each pass's bar
    as a pasted terminal keeps them). The one rule of the bars and counts that number steps
    by their passes (``_bar_step``, ``_tqdm_step``, ``_open_bar_step``,
    ``_restarting_count``).

    Example:
        >>> _new_pass(3, 20, False), _new_pass(20, 20, True), _new_pass(20, 20, False)
        (True, True, False)
    """
    return done < last or (again and done == last)


def _power_of_two(value: float, tolerance: float) -> bool:
    """Whether a finite, positive ``value`` is a power of two, as printed."""
    if not 0.0 < value < math.inf:
        return False
    exponent = math.log2(value)
    return abs(exponent - round(exponent)) <= tolerance


# A key that names how many batches the epoch holds, beside a keyed epoch and batch:
# openpifpaf's ``{'type': 'train', 'epoch': 1, 'batch': 220, 'n_batches': 500, ...}``
# (openpifpaf/openpifpaf src/openpifpaf/network/trainer.py ``Trainer.train``).
_BATCHES_KEY = re.compile(r"(?i)\b(?:n_|num_)?(?:batches|(?:batches|iters|steps)_per_epoch)"
                          r"['\"]?[ \t]*[:=][ \t]*(\d+)\b")


def _batches_total(text: str, batch: int) -> int:
    """The batches of the epoch that a key beside the batch's says (``_BATCHES_KEY``), or 0;
    a count not above the batch is none (an interval's batches, not the epoch's)."""
    if "atches" not in text and "_per_epoch" not in text:
        return 0
    found = _BATCHES_KEY.search(text)
    return int(found.group(1)) if found and int(found.group(1)) > batch else 0


def _bar_total(text: str, batch: int) -> int:
    """The batches of the epoch that a tqdm bar after a keyed epoch and batch counts, or 0.
    A description set each batch holds the keys, the bar that follows counts the same batches
    (ffcv-imagenet's ``train_imagenet.py`` ``train_loop``: ``ep=1, iter=582, shape=(...),
    lrs=['0.558'], loss=5.407:  23%|██▍ | 583/2502 [01:00<03:10, 10.0it/s]``): its total is
    the epoch's length, which the batches printed every so often would only guess short."""
    if "|" not in text or (bar := TQDM.search(text)) is None:
        return 0
    return int(bar.group(2)) if int(bar.group(1)) - batch in (0, 1) else 0


# ``name: value`` and ``name=value`` pairs, for a total's terms (see _total_of_terms).
_NAMED_NUMBER = re.compile(r"([A-Za-z][\w./-]*)[ \t]*[:=][ \t]*([-+]?(?:\d+(?:\.\d*)?"
                           r"(?:[eE][-+]?\d+)?|(?i:nan|inf)))(?![\w.])")


def _total_of_terms(text: str) -> tuple[str, float, list[tuple[str, float]]] | None:
    """``total`` after the terms it sums, where no key names the loss: the loss and its
    terms (pytorch/examples fast_neural_style ``"...\\tcontent: {:.6f}\\tstyle: {:.6f}
    \\ttotal: {:.6f}"``: the loss trained on is content plus style). Told by the sum: a finite
    total is its terms' sum (to the print's rounding); a non-finite one is where a term is.

    Example:
        >>> _total_of_terms("Epoch 1: [8/90]  content: 1.5  style: 2.25  total: 3.75")
        ('total', 3.75, [('content', 1.5), ('style', 2.25)])
        >>> _total_of_terms("done: 3  failed: 1  total: 5") is None
        True
        >>> _total_of_terms("train: 800  val: 100  test: 100  total: 1000") is None
        True
    """
    # (counts print no decimals: ``train: 800 val: 100 test: 100 total: 1000`` is a split)
    pairs = [(key, to_value(value)) for key, value in _NAMED_NUMBER.findall(text)
             if "." in value or value.isalpha()]
    at = next((i for i, (key, _) in enumerate(pairs) if key.lower() == "total"), None)
    if at is None:
        return None
    terms = [(key, value) for key, value in pairs[:at]
             if lexicon.score_name(key) or lexicon.role(key) == lexicon.COMPONENT]
    total = pairs[at][1]
    if len(terms) < 2:
        return None
    if not math.isfinite(total):
        return (pairs[at][0], total, terms) if any(
            not math.isfinite(value) for _, value in terms) else None
    summed = math.fsum(value for _, value in terms)
    return (pairs[at][0], total, terms) if math.isclose(
        summed, total, rel_tol=1e-4, abs_tol=1e-5) else None


def _with_loss(metrics: MetricLine, key: str, loss: float,
               terms: list[tuple[str, float]]) -> MetricLine:
    """``metrics`` with ``loss`` under ``key`` as the loss and ``terms`` as its components."""
    held = {name for name, _ in metrics.components}
    return replace(metrics, values={**metrics.values, lexicon.LOSS: loss},
                   keys={**metrics.keys, lexicon.LOSS: key},
                   components=[*metrics.components,
                               *(term for term in terms if term[0] not in held)])


# A count printed as a count of a total right after its key (``Iter: 700/2000``)
_COUNT_OF_TOTAL = re.compile(r"\W{0,4}0*(\d+)/(\d+)")


def _keyed_total(text: str, key: str, step: int) -> int:
    """The total after the count ``step`` that ``key`` claims on ``text`` (0 where the count
    is no count of a total)."""
    at = text.find(key)
    found = _COUNT_OF_TOTAL.match(text, at + len(key)) if at >= 0 else None
    return int(found.group(2)) if found and int(found.group(1)) == step else 0


def _evaluation_batch(text: str, claims: list[Claim]) -> bool:
    """Whether the count an evaluation line prints beside its epoch is the evaluation's own
    batch of its total, not a training step: PaddleClas' ``[Eval][Epoch 2][Iter: 20/100]
    CELoss: ...`` (PaddlePaddle/PaddleClas ppcls/engine/evaluation/classification.py:
    ``"[Eval][Epoch {}][Iter: {}/{}]{}, {}, {}".format(epoch_id, iter_id,
    len(engine.eval_dataloader), ...)``, from 0 at each evaluation).

    Example:
        >>> text = "[Eval][Epoch 2][Iter: 20/100]CELoss: nan, top1: 0.1"
        >>> _evaluation_batch(text, find_claims(text)[0])
        True
        >>> text = "Validation at step 500/10000: loss nan"
        >>> _evaluation_batch(text, find_claims(text)[0])
        False
    """
    return any(claim[2] == lexicon.EPOCH for claim in claims) and any(
        claim[2] == lexicon.STEP and text.startswith("/", claim[1]) for claim in claims)


def _nonfinite(values: list[tuple[str, float]], step: int | None,
               areas: set[str] | frozenset[str] = frozenset()) -> list[MetricEvent]:
    """An ``eval`` event for each non-finite evaluation value (finite ones say nothing), but
    a correlation's NaN beside a finite evaluation loss: the predictions were constant (an
    untrained regressor's first evaluation: scipy's pearsonr and spearmanr return NaN, HF's
    run_glue averages them into ``combined_score``), nothing overflowed. Without a loss on
    the line it counts: sentence-transformers' evaluator prints only its correlations, and
    NaN embeddings show there first. A perplexity's +inf beside a finite loss is its exponent's
    overflow (huggingface/peft's examples: ``eval_ppl=tensor(inf, device='cuda:0')
    eval_epoch_loss=tensor(91.0000, device='cuda:0')``, ``torch.exp`` in float32), no fault.
    An area under the ROC curve in ``areas`` was read finite before: its NaN counts, marked
    (see :mod:`defined_areas`)."""
    finite_loss = any(math.isfinite(value) and "loss" in key.lower() for key, value in values)
    finite_mean = any(math.isfinite(value) and lexicon.class_mean(key) for key, value in values)
    return [MetricEvent(EVAL, FAMILY, step=step, loss=value, metric=key,
                        evidence=_AREA_DEFINED if key in areas else None)
            for key, value in values if not math.isfinite(value)
            and (key in areas or not lexicon.undefined_correlation(key, value, finite_loss))
            and not lexicon.overflowed_perplexity(key, value, finite_loss) and not (
                finite_mean and math.isnan(value) and lexicon.per_class(key))]


_AREA_DEFINED = {DEFINED_AREA: True}  # (an eval event's evidence: see defined_areas)


# pandas prints a DataFrame's missing value as ``NaN`` (``na_rep``, pandas/io/formats/
# format.py): the table of a logger that writes each call's keys on a row of its own
# (Lightning's CSVLogger, pytorch_lightning/loggers/csv_logs.py, read back with
# ``pd.read_csv``; transformers' ``log_history`` as a DataFrame) shows a training step's row
# with its evaluation cells NaN and an evaluation's row with its training loss NaN.
UNFILLED = {"cell": "unfilled"}


def _unfilled(row: MetricLine, nan_names: set[str]) -> None:
    """Set apart a table row's ``NaN`` cells that may be pandas' empty ones: a training loss
    beside a finite evaluation value (a loss that went NaN leaves no evaluation finite at its
    step) is dropped, the row marked; evaluation values beside a finite training loss go to
    ``row.unfilled``, which the evaluation stream counts only in a table where no row left
    its loss so (a Keras ``history`` DataFrame's NaN ``val_loss`` is a fault)."""
    loss = row.values.get(lexicon.LOSS)
    epoch = row.values.get(lexicon.EPOCH)
    if epoch is not None and math.isnan(epoch) and row.keys.get(lexicon.LOSS) in nan_names:
        # A row without its epoch in a frame whose rows have one: another logger's
        # (Lightning's LearningRateMonitor writes ``lr-Adam`` at its step into CSVLogger's
        # metrics.csv, no epoch), every metric cell of it empty.
        del row.values[lexicon.LOSS], row.keys[lexicon.LOSS]
        _set_apart(row, [(k, v) for k, v in row.evals if math.isnan(v)])
        return
    if loss is None or row.keys.get(lexicon.LOSS) not in nan_names:
        if loss is not None and math.isfinite(loss):
            _set_apart(row, [(k, v) for k, v in row.evals if k in nan_names and math.isnan(v)])
        return
    if any(math.isfinite(value) for _key, value in row.evals) and not _losses_went_nan(row):
        del row.values[lexicon.LOSS], row.keys[lexicon.LOSS]
        row.components = [(k, v) for k, v in row.components if k not in nan_names]
        row.unfilled_loss = True


def _set_apart(row: MetricLine, cells: list[tuple[str, float]]) -> None:
    """Take ``cells``, NaN evaluation cells of ``row``, out of its evaluation values; those
    no frame left empty go to ``row.unfilled`` (see :func:`_unfilled`)."""
    row.evals = [(k, v) for k, v in row.evals if (k, v) not in cells]
    row.unfilled = _not_left_empty(cells)


def _not_left_empty(cells: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """A row's ``NaN`` evaluation cells, or none where they are a frame's empty cells: an
    evaluation loss and an evaluation accuracy both ``NaN`` beside a finite training loss.
    An evaluation gone NaN leaves its accuracy a number (the argmax of NaN outputs is still
    a class: a Keras ``history`` frame's NaN ``val_loss`` sits beside a finite
    ``val_accuracy``), so where both are NaN no evaluation filled the row. This holds on a
    window of the frame too: a paste of its first training rows, before any validation row
    showed the cells empty (see :func:`_unfilled`).

    Example:
        >>> _not_left_empty([("val_loss", math.nan), ("val_acc", math.nan)])
        []
        >>> _not_left_empty([("val_loss", math.nan)])
        [('val_loss', nan)]
    """
    if any("loss" in key.lower() for key, _value in cells) and any(
            lexicon.accuracy(key) for key, _value in cells):
        return []
    return cells


def _losses_went_nan(row: MetricLine) -> bool:
    """Whether a row whose training loss is NaN shows a model gone NaN, not a pandas frame's
    empty cells: its training side filled (a finite learning rate on the row) and every
    evaluation loss NaN too, one at least, whose accuracies stay finite (the argmax of NaN
    outputs is a class). MATLAB's ``trainnet`` table (``Iteration  Epoch  TimeElapsed
    LearnRate  TrainingLoss  ValidationLoss  TrainingAccuracy  ValidationAccuracy``) prints
    such a row at a validation iteration. A frame of rows logged apart (Lightning's
    CSVLogger's) leaves a validation row's training cells empty, its learning rate's too."""
    lr = row.values.get(lexicon.LR)
    if lr is None or not math.isfinite(lr):
        return False
    losses = [value for key, value in row.evals if "loss" in key.lower()]
    return bool(losses) and all(math.isnan(value) for value in losses)


def _block_loss(text: str, values: list[tuple[str, float]]) -> list[MetricEvent]:
    """The finite evaluation loss of a row that prints it alone (Lightning's results table,
    pytorch_lightning/loops/evaluation_loop.py ``_print_results``: ``│  test_loss  │  0.41
    │``, one metric a row, sorted by name) as an ``eval`` event: the correlations' NaNs of
    its block are then undefined ones (see :mod:`~denpex_callbacks.logs.evaluation`)."""
    if len(values) != 1 or len(text.split()) > 3:
        return []  # (a line of its own pairs: ``_nonfinite`` judged it whole)
    key, value = values[0]
    if not math.isfinite(value) or "loss" not in key.lower():
        return []
    return [MetricEvent(EVAL, FAMILY, loss=value, metric=key)]


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
        >>> header_cells("Step\\tTraining Loss\\tValidation Loss\\tRouge1")
        ['Step', 'Training Loss', 'Validation Loss', 'Rouge1']
        >>> header_cells("step,losses/train.total_loss,metrics/test.mAP@50:95")
        ['step', 'losses/train.total_loss', 'metrics/test.mAP@50:95']
        >>> header_cells("   Train Loss    Train Acc   Valid Loss    Valid Acc")
        ['Train Loss', 'Train Acc', 'Valid Loss', 'Valid Acc']
        >>> header_cells("#   run        loss    val_loss") is None
        True
    """
    if (titled := _titled(text)) is not None:
        return _title_cells(*titled)
    # an IoU range in a COCO metric's name is no value (``mAP@50:95``, ``AP@[.5:.95]``)
    probe = IOU_RANGE.sub("", text) if "@" in text else text
    if VALUE.search(probe) or _PROSE.search(probe):
        return None
    tabbed = _tabbed(text)
    piped = not tabbed and _piped(text)
    if tabbed:
        cells = [cell.strip() for cell in _TAB_CELL.findall(text)]
    elif piped:
        cells = _PIPE_CELL.findall(text)
    else:
        cells = _HEADER_CELL.findall(text)
    if "  " in text and not tabbed and not piped:
        # Names of two words or more, known only whole (``LOSS NER``): the table's columns
        # are what two blanks or more part.
        wide = _WIDE_CELL.findall(text)
        if any(" " in cell and lexicon.role(cell) is not None for cell in wide):
            cells = wide
    # "#" beside the epoch numbers the steps (spaCy's): a column the reader knows too.
    steps = _step_column(cells)
    known = sum(1 for cell in cells if (cell == "#" and steps) or lexicon.role(cell) is not None)
    if known == 1 and any(" " in cell for cell in cells):
        # a training column beside an evaluation's, names of several words that two blanks or
        # more part: STAckable's ``print_metrics``, ``Train Loss  Train Acc  Train F1  Valid
        # Loss ...`` (names right-justified in 13 places); a results table's one-word names
        # (``#  run  loss  val_loss``) stay no header
        known += sum(1 for cell in cells if lexicon.evaluation_metric(cell))
    return cells if known >= 2 else None


def _known(cells: list[str]) -> int:
    """How many of ``cells`` the lexicon knows."""
    return sum(1 for cell in cells if lexicon.role(cell) is not None)


def _titled(text: str) -> tuple[str, list[str]] | None:
    """The title and the column names of a header row titled by its first cell (see
    ``_TITLE``), or None.

    Example:
        >>> _titled("Train Loss:  Epoch    Total      Graph      Time      ")
        ('Train Loss', ['Epoch', 'Total', 'Graph', 'Time'])
        >>> _titled("Note: the loss is nan") is None, _titled("Time:  12 s") is None
        (True, True)
    """
    found = _TITLE.match(text)
    if found is None:
        return None
    title, rest = found.group(1), text[found.end():]
    if lexicon.role(title) != lexicon.LOSS and not lexicon.evaluation_metric(title):
        return None
    if VALUE.search(rest) or _PROSE.search(rest):
        return None
    return title, _HEADER_CELL.findall(rest)


def _title_cells(title: str, cells: list[str]) -> list[str] | None:
    """The column names under a table's title: ``Total`` is the title's own value, a counter
    keeps its name, every other column is a part of what the title names (``Graph`` of
    ``Train Loss``: ``Train Loss Graph``, a term of the loss); None where fewer than two are
    known.

    Example:
        >>> _title_cells("Train Loss", ["Epoch", "Total", "Graph", "Grad", "Time"])
        ['Epoch', 'Train Loss', 'Train Loss Graph', 'Train Loss Grad', 'Train Loss Time']
    """
    named = [title if cell.lower() == "total" else cell
             if lexicon.role(cell) in (lexicon.STEP, lexicon.EPOCH) else f"{title} {cell}"
             for cell in cells]
    known = sum(1 for name in named
                if lexicon.role(name) is not None or lexicon.evaluation_metric(name))
    return named if known >= 2 else None


def _comma_separated(text: str) -> bool:
    """Whether commas alone part a line's cells: a CSV file's header row or row (Lightning's
    ``metrics.csv`` pasted into a log: ``epoch,step,train/loss,val/loss``)."""
    return "," in text and " " not in text.strip() and "\t" not in text


def _tabbed(text: str) -> bool:
    """Whether tabs part a line's cells (a tab between two of them, not only around it)."""
    return "\t" in text.strip()


def _piped(text: str) -> bool:
    """Whether pipes part a header row's cells and a name of several words is one of them
    (``| Step | Training Loss |``): a table whose cells are what the pipes part (a row of
    single words, ``| step | loss |``, is read by blanks as before)."""
    # (two blanks inside a cell: fixed-width columns between rules, ElegantRL's ``ID    Step
    # Time |    avgR ...``, whose names the blanks part)
    return "|" in text and any(" " in cell and "  " not in cell and lexicon.role(cell) is not None
                               for cell in _PIPE_CELL.findall(text))


def _split_cells(names: list[str], cells: list[str], held_out: bool) -> MetricLine:
    """A split's row of a table of splits (see split_rows), read by the header's ``names``:
    the training split's values by their roles, a held-out split's as its evaluation
    metrics (``vali loss``)."""
    out = MetricLine()
    for name, cell in zip(names[1:], cells[1:], strict=True):
        if VALUE.fullmatch(cell) is None:
            continue
        value = to_value(cell)
        if held_out:
            out.evals.append((name if lexicon.is_evaluation(name) else f"{cells[0]} {name}",
                              value))
        elif (kind := lexicon.role(name)) == lexicon.COMPONENT:
            out.components.append((name, value))
        elif kind is not None and kind not in out.values:
            out.values[kind], out.keys[kind] = value, name
    return out


def _split_header(text: str) -> list[str] | None:
    """The cells of a header row between pipes that heads a table of splits (see
    split_rows), or None."""
    if "|" not in text or any(c.isdigit() for c in text):
        return None
    cells = _PIPE_CELL.findall(text)
    return cells if split_rows.split_header(cells) else None


def _named_rows(names: list[str]) -> bool:
    """Whether a table's rows are named things, not steps: its first column is one the
    lexicon does not know (``Model``, ``Method``), and none holds a step or an epoch (a closing
    per-model summary: ``Model  Train Loss  Val MSE  Val MAE  Avg R2``).

    Example:
        >>> _named_rows(["Model", "Train Loss", "Val MSE", "Val MAE", "Avg R2"])
        True
        >>> _named_rows(["Model", "Epoch", "Train Loss"]), _named_rows(["Train Loss", "Val MSE"])
        (False, False)
    """
    if not names or names[0] == "#" or lexicon.role(names[0]) is not None or (
            lexicon.evaluation_metric(names[0])):
        return False
    return not any(name == "#" or lexicon.role(name) in (lexicon.STEP, lexicon.EPOCH)
                   for name in names)


def _names_a_thing(cell: str) -> bool:
    """Whether a row's first cell, under a table of named rows (``_named_rows``), names a
    thing (a model: ``LSTM``, ``GRU-2``): it holds a letter and is no step's stamp (a clock
    time, a date, a ``done/total`` count), no value, no tool's mark for a missing one.

    Example:
        >>> _names_a_thing("GRU-2"), _names_a_thing("10:29:00"), _names_a_thing("30/40")
        (True, False, False)
    """
    return (any(c.isalpha() for c in cell) and not VALUE.fullmatch(cell)
            and not _STAMP_CELL.fullmatch(cell) and cell not in _NOT_AVAILABLE
            and cell.lower() not in _VALUES_LABELS)


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


def _loss_alone(metrics: MetricLine) -> bool:
    """Whether a line measures a loss and names nothing else (no step, no epoch, no other
    metric): ``Loss: nan``, ``Loss: tensor([[nan, 0.02]], device='cuda:0')`` (one loss per
    model, under one key)."""
    if metrics.evals or not set(metrics.values) <= {lexicon.LOSS}:
        return False
    return lexicon.LOSS in metrics.values or len({key for key, _ in metrics.components}) == 1


def _measured(metrics: MetricLine) -> bool:
    """Whether a record, a dict or a mapping read as one line holds what a step measured (a
    loss, a gradient norm, an evaluation metric), not only settings."""
    return bool(metrics.components or metrics.evals or lexicon.LOSS in metrics.values
                or lexicon.GRAD_NORM in metrics.values)


def _counters_line(text: str) -> bool:
    """True for a line of ``key: value`` pairs that hold a step counter and nothing measured,
    handed over with no keyword of its own: a record's step line, whatever its counter is
    called (AlvinYeeeeee/Silksong_RL ``run_training.py``: ``f'  Steps: {env_steps}, Updates:
    {gradient_steps}, ε: {eps:.4f}'`` between its ``Episode 57`` heading and its ``Reward:
    ..., Loss: ...`` line), which numbers the rows below it as :func:`step_line`'s do.

    Example:
        >>> _counters_line("  Steps: 100277, Updates: 2513, ε: 0.0000")
        True
        >>> _counters_line("  Steps: 100, Loss: 0.5"), _counters_line("  Memory: 66.8%")
        (False, False)
    """
    if "tep" not in text or ": " not in text:
        return False  # (most value rows: no step keyed)
    metrics = read_pairs(text)
    return lexicon.STEP in metrics.values and not _measured(metrics)


def step_line(text: str) -> bool:
    """True for a line that numbers the metric lines below it: a step and what a record's
    rows print below (:data:`STEP_ABOVE`), or a step counter alone (:data:`STEP_ALONE`).

    Example:
        >>> step_line("==== Step 100 ===="), step_line("train | step:   3000 | output: ")
        (True, True)
        >>> step_line("lr: 0.0001")
        False
    """
    return ("tep" in text and _STEP_ABOVE.search(text) is not None) or (
        _STEP_ALONE.match(text) is not None) or (
        len(text) <= COUNTERS_WIDTH and counter_heading(text) is not None)


def mapping_row(text: str) -> bool:
    """True for an indented row of a YAML mapping that holds a value (its other rows follow).

    Example:
        >>> mapping_row("        total_loss: .nan"), mapping_row("  info:")
        (True, False)
    """
    found = _YAML_ROW.match(text.rstrip()) if text[:2] == "  " else None
    return found is not None and found.group(3) is not None


def report_row(text: str) -> bool:
    """Whether ``text`` is a class's row of a classification report under a numeric label: its
    NaN a ratio undefined for that class (``zero_division=np.nan``: no prediction or no
    instance of it), not a step's loss. The three ratios are printed with the same decimals.

    Example:
        >>> report_row("           1        nan      0.00      0.00       100")
        True
        >>> report_row("100 nan 0.001"), report_row("  7  nan  0.5  0.25  32")
        (False, False)
    """
    found = _REPORT_ROW.match(text)
    if found is None:
        return False
    places = {len(cell.partition(".")[2]) for cell in found.group(1).split() if cell != "nan"}
    return len(places) <= 1


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


def table_row(text: str) -> bool:
    """Whether ``text`` may be a row of a record: ``|`` first, or a word, two blanks and one
    value last (tabulate's ``simple`` table, see ``_SIMPLE_CELL``), or rllab's timestamp
    before such a row; a cheap test, no regex.

    Example:
        >>> table_row("trainer/QF1 Loss     nan"), table_row("Epoch(train)  loss: 0.5  lr: 1")
        (True, False)
    """
    first = text[:1]
    if first == "|":
        return True
    if not (first.isalpha() or (first.isdigit() and "| " in text[26:36])):
        return False
    # one value after the last two blanks: not a line of ``key: value  key: value`` pairs
    tail = text.rstrip()
    gap = tail.rfind("  ")
    return gap > 0 and " " not in tail[gap + 2:]


def simple_cell(text: str) -> tuple[str, str] | None:
    """The (key, value) of a row of tabulate's ``simple`` two-column record
    (``trainer/QF1 Loss     0.123``), or None.

    Example:
        >>> simple_cell("trainer/QF1 Loss               nan"), simple_cell("time/epoch (s)  12.3")
        (('trainer/QF1 Loss', 'nan'), ('time/epoch (s)', '12.3'))
        >>> simple_cell("Epoch 3  loss 0.5") is None, simple_cell("Epoch   3") is None
        (True, False)
        >>> simple_cell("2024-03-01 10:00:00.123456  | lossAverage      nan")
        ('lossAverage', 'nan')
        >>> simple_cell("policy/LossAfter  . . . .       0.4")
        ('policy/LossAfter', '0.4')
    """
    found = _SIMPLE_CELL.match(text)
    if found is None or VALUE.fullmatch(found.group(2)) is None:
        return None
    return found.group(1), found.group(2)


def opens_dict(text: str) -> bool:
    """True for a row of a dict that pprint spread over lines, not its last (``{'loss':
    Array(nan, dtype=float32),``): its other rows follow.

    Example:
        >>> opens_dict(" 'loss': Array(nan, dtype=float32),"), opens_dict("{'loss': nan}")
        (True, False)
    """
    if not text.rstrip().endswith(",") or (found := _DICT_OPEN.match(text)) is None:
        return False
    # A dict of what a step measured (a loss, a gradient norm, an evaluation metric), not a
    # configuration's (DeepSpeed's JSON dump: ``"loss_scale_window": 4,``): its rows come
    # with it, read in a record; a configuration's are left to the keyword scan.
    key = found.group(1) or found.group(2)
    return lexicon.role(key) in _MEASURED_ROLES or (
        lexicon.role(key) is None and lexicon.evaluation_metric(key))


def dangling_key(text: str) -> bool:
    """True when a line ends with a known key and its separator but no value (a terminal
    wrapped the line; the value starts the next one).

    Example:
        >>> dangling_key("Epoch 1/9 ━━━━ 10/10 0:00:01 9.80it/s v_num: 0 train_loss:")
        True
    """
    body = text.rstrip()
    # Cheap guard first: only a line whose last non-blank character is a separator can end
    # with a key and no value; nearly every line is turned away here.
    if not body.endswith((":", "=")):
        return False
    before = body[:-1].rstrip()
    run = _KEY_RUN_REVERSED.match(before[::-1])
    key_chars = run.group()[::-1] if run is not None else ""
    # The key starts at the run's first ASCII letter (a name, not a number's digits).
    start = next((i for i, c in enumerate(key_chars) if c.isascii() and c.isalpha()), None)
    return start is not None and lexicon.role(key_chars[start:]) is not None


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
    # The scale was printed as 0 at this precision after a scale above 0: below it, not 0
    # (``scale_after`` holds half of it; see MetricReader._scale).
    scale_below: float | None = None
    # The first row of a new fit (Keras' ``Epoch 1/N`` again over its bar): the run before
    # it ended there (see ``MetricReader._fit_header``)
    run_start: bool = False
    # Where the step came from (step_basis.py): the counter printed, or one made from it
    # (an epoch times its length, the run's samples); the assembler names a counted row's.
    step_basis: str = bases.PRINTED
    # A row's printed scale beside its printed count of skipped steps (a bare ``skipped`` and
    # a bare ``scale`` too), for a scale at its floor while the skips climb (floor_skips.py)
    scale_skips: tuple[float, int] | None = None

    def __init__(self, kind: str, family: str, *, keys: tuple[str, ...] = (),
                 epoch_text: str | None = None, epoch_start: bool = False,
                 epoch_row: bool = False, scale_below: float | None = None,
                 run_start: bool = False, step_basis: str = bases.PRINTED,
                 scale_skips: tuple[float, int] | None = None, **fields: Any) -> None:
        super().__init__(kind, family, **fields)  # LogEvent's fast __init__: see there
        vars(self).update(keys=keys, epoch_text=epoch_text, epoch_start=epoch_start,
                          epoch_row=epoch_row, scale_below=scale_below, run_start=run_start,
                          step_basis=step_basis, scale_skips=scale_skips)
