"""What a metric key names, whatever the tool spells it: loss, loss scale, gradient norm...

Keys are normalised (lower case, ``_ - . /`` and camelCase boundaries become spaces) and then
matched: exact phrases for scale, grad norm, skipped counters, step counters and learning
rate. Losses are named by a rule, not a list: a key is a loss when one of its words is a
loss noun (``loss``, ``cost``, ``objective``, ``nll``, ``xent``, ``crossentropy``, the words
``cross entropy``, ``log likelihood``); with only harmless qualifiers beside it (``train``,
``avg``, ``total``, ``lm``, ``step``, ``averaged``...) it is the training loss, any other word
makes it a component (``loss_cls``, ``d_loss``, ``box_loss``, ``kl_cost``); a word that makes
it a setting (``loss_weight``, ``min_loss_scale``) makes it nothing. Keys that start with an
evaluation prefix (``val``, ``eval``, ``test``...) are no training loss: the metrics among them
are evaluation metrics (:func:`evaluation_metric`), read as a stream of their own.

The loss scale is named by a rule too: a key is the loss scale when its head is ``scale``
(``scaler``; ``scaling`` and ``sc`` beside ``loss``), glued or not (``lscale``, ``ampScale``),
and every other word says whose scale it is (``loss``, ``amp``, ``fp16``, ``grad``,
``scaler``, ``cur``, ``dynamic``...): ``grad_scaler/scale``, ``fp16_scale``, ``loss_sc``. Any
other word makes it something else (``lr_scale``, ``min_loss_scale``, ``scale_window``). A bare
``scale`` (``ls_scale`` too: ``ls`` is as often label smoothing) is :data:`MAYBE_SCALE`: an
image, model or learning-rate scale as often as the loss scale, it is read as the loss scale
only where its values are what a dynamic loss scaler prints, which the reader of a log's
lines decides (:class:`~denpex_callbacks.logs.metric_reader.BareScale`).
"""

from __future__ import annotations

import functools
import math
import re

from denpex_callbacks.logs.gan_terms import gan_term

LOSS = "loss"  # the total training loss
COMPONENT = "component"  # one term of the loss (loss_cls, d_loss): not the total
SCALE = "scale"  # the current loss scale
# A bare "scale": the loss scale only where its values are a dynamic scaler's (the reader
# decides, line by line; a key alone cannot say).
MAYBE_SCALE = "maybe scale"
# The loss scale's base-2 logarithm (OpenAI's diffusion loops log ``lg_loss_scale``, 20.0 at
# first): read as the scale ``2 ** value``.
LOG2_SCALE = "log2 scale"
GRAD_NORM = "grad_norm"
SKIPPED = "skipped"  # a cumulative count of skipped steps
STEP = "step"  # an optimizer step / iteration counter
EPOCH = "epoch"
LR = "lr"
EVAL = "eval"  # an evaluation metric (val_loss, eval/accuracy): not the training loss

# "vali": the Informer family's epoch line (thuml/Time-Series-Library exp/
# exp_long_term_forecasting.py ``"... | Train Loss: {2:.7f} Vali Loss: {3:.7f} Test Loss: ..."``)
_EVAL = frozenset({"val", "valid", "validation", "eval", "evaluation", "test", "dev",
                   "testing", "holdout", "vali",
                   "cv"})  # cross-validation: wenet's ``cv_loss``, Kaldi-style cv sets
# The names of the held-out splits that key a score alone (not ``cv``, ``testing``...)
_SPLITS = frozenset({"val", "valid", "validation", "eval", "test", "dev"})
# ...and those that head a split's values on a line of their own (``evaluation`` too)
_SPLIT_HEADINGS = _SPLITS | {"evaluation"}
_TRAIN = frozenset({"train", "training", "tr", "trn", "trainer", "optim"})
# Words that may sit beside "loss" in the name of the total training loss.
_QUALIFIERS = frozenset({
    "avg", "average", "avr", "mean", "running", "smoothed", "smooth", "total", "lm", "step",
    "epoch", "overall", "reduced", "batch", "iter", "sum", "global", "current", "cur", "final",
    "ema", "loss", "losses", "all", "objective", "reported", "mb", "micro", "main", "full",
    "moving", "value", "averaged", "combined", "weighted", "net", "unscaled", "raw", "agg",
    "aggregated", "per", "token", "sample", "tok", "last", "local", "minibatch", "mini",
    "normalized", "accum", "accumulated",
})
# The head nouns of a loss: one of them makes a key a loss (the total or a component). The
# objectives trained on directly count too (a regression's mse, a VAE's elbo, an ASR model's
# ctc, a density model's bits per dim); metrics that are seldom the objective (mae, kl, ppl)
# do not.
_LOSS_NOUNS = frozenset({"loss", "losses", "cost", "costs", "objective", "nll", "xent",
                         "crossentropy", "xentropy", "ce", "bce", "mse", "rmse", "elbo",
                         "nelbo", "ctc", "bpd",
                         # Kaldi's and k2's "objective function" (snowfall's "current batch
                         # average objf: nan", Kaldi's "objf")
                         "objf",
                         # an objective abbreviated: ElegantRL's evaluator's ``objC`` / ``objA``
                         # (the critic's and the actor's, elegantrl/train/evaluator.py)
                         "obj",
                         # its plural, as the DARTS family keys the running mean of the
                         # objective (PC-DARTS-style ``'TRAIN Step: %03d Objs: %e R1: %f ...'``,
                         # ``objs = utils.AvgrageMeter()``), as "losses" and "costs" are
                         "objs",
                         # an L1 reconstruction keyed by its norm alone: Wav2Lip's bar ``L1:
                         # 0.0312, Sync Loss: 0.0`` (Rudrabha/Wav2Lip wav2lip_train.py), the
                         # loss trained on beside a term weighted 0 until sync is on
                         "l1"})
# Two-word head nouns, read as one ("cross entropy", "log likelihood").
_LOSS_PHRASES = (("negative", "log", "likelihood"), ("neg", "log", "likelihood"),
                 ("cross", "entropy"), ("log", "likelihood"))
# Words that make an evaluation key no metric (a time, a speed, a count, the best so far).
_NOT_METRIC = frozenset({
    "runtime", "time", "duration", "eta", "samples", "sample", "second", "seconds", "sec",
    "steps", "step", "epoch", "epochs", "iter", "iters", "iteration", "speed", "throughput",
    "wps", "ups", "wpb", "bsz", "mem", "memory", "gpu", "lr", "best", "min", "max", "lowest",
    "highest", "prev", "previous", "init", "initial", "batch", "batches", "size", "count",
    "num", "flos", "tokens", "ms", "per", "interval", "patience", "wait", "every",
    # a log level after a logger named for a test run (``...\ttest\tINFO\t[nan, ...]``)
    "info", "debug", "warning", "warn", "critical",
})
# Words that make a "loss..." key a setting rather than a value (loss_weight, min_loss_scale).
_SETTING = frozenset({
    "scale", "scaler", "window", "weight", "weights", "coef", "coeff", "coefficient", "factor",
    "fn", "type", "func", "function", "scaling", "power", "ratio", "clip", "threshold", "min",
    "max", "init", "initial", "name", "names", "config", "cfg", "reduction", "mode", "class",
    "ignore", "index", "hysteresis", "delta", "patience", "best", "target", "lambda",
    # the best or the last value so far, not this step's: ``lowest_loss=inf`` and
    # ``prev_loss=inf`` before the first one (an early-stopping loop's sentinels)
    "lowest", "highest", "prev", "previous",
    "scaled", "multiplier", "temperature", "margin", "smoothing", "eps", "epsilon", "alpha",
    "beta", "gamma",
})

# Words that make a "cost" or "loss" key a time: Sockeye's checkpoint line "Time-cost=300.000"
# (seconds), a loop's "loss_time" ("duration" stays: a TTS duration predictor's loss).
_TIME = frozenset({"time", "times", "runtime", "elapsed", "sec", "secs", "seconds", "ms",
                   "wall"})

# Heads of a loss scale's name; "scaling" and "sc" only beside a word of _SCALE_LOSS
# ("loss scaling", "loss_sc"): alone they are any scaling.
_SCALE_HEADS = frozenset({"scale", "scaler", "scaling", "sc"})
# Words that say whose scale it is: beside a head, only these (and _TRAIN prefixes) may stand.
_SCALE_OWNERS = frozenset({
    "loss", "l", "amp", "fp16", "fp", "half", "mixed", "precision", "mp", "grad", "grads",
    "gradient", "scaler", "gradscaler", "dynamic", "dyn", "current", "cur", "curr",
    "optimizer", "optim", "cuda", "torch",
})
# The owners that make "scaling", "sc" and a "factor" tail the loss scale's.
_SCALE_LOSS = frozenset({"loss", "l"})
# Owners that may be glued to the head (``lscale``, ``ampscale``, ``gradscaler``).
_GLUED_SCALE = re.compile(r"(l|loss|amp|fp16|fp|half|grad|gradient|cur|curr|dyn|dynamic)"
                          r"(scale|scaler|scaling)")
# Owners that leave a key ambiguous: "ls" is the loss scale or label smoothing.
_SCALE_MAYBE_OWNERS = frozenset({"ls"})
# A loss scale's name after one of these holds the scale's base-2 logarithm ("lg_loss_scale";
# not "log": a natural logarithm is as likely).
_LOG2 = frozenset({"lg", "log2"})

# A verb between a key and its value in a sentence-like print.
_VERBS = frozenset({"is", "was", "becomes", "became"})
# A condition or a check before a sentence-like print ("stop training if the loss becomes
# NaN", "training stops when the loss is NaN", "checking for NaN loss"): a configuration's or a
# help text's words, which state no value the run had.
HYPOTHETICAL = re.compile(r"(?i)\b(?:if|when|whenever|once|unless|until|in\s+case|should"
                          r"|would|will|checking\s+for|checks?\s+for|watch(?:ing)?\s+for"
                          r"|guard(?:s|ing)?\s+against)\b")

# A reward or an advantage keyed beside the loss: a policy-gradient or preference objective
# (trl's GRPO/DPO/PPO dicts ``'reward': 0.41`` / ``'rewards/chosen': 0.0``, ms-swift's GRPO
# dicts, verl's ``critic/rewards/mean:0.45`` / ``critic/advantages/mean:0.0``, OpenRLHF's
# ``reward=-0.5`` postfix). Such a loss is centred on 0 by construction (group-normalised
# advantages; trl logs GRPO's ``beta * kl`` rounded to four places: ``'loss': 0.0`` for the
# first hundred steps of a healthy run): an exact 0 there says nothing of the run.
POLICY_OBJECTIVE = re.compile(r"(?<![A-Za-z])(?:rewards?|advantages?|pg)(?:[/_.][\w/.@-]*)?"
                              r"['\"]?\s*[:=]")

# A count of the tuples a metric-learning loss was mined over, printed at 0 (pytorch-metric-
# learning's miners: ``num_triplets``, ``num_pos_pairs``; its examples print ``Loss = {},
# Number of mined triplets = {}``): a triplet or contrastive loss over no tuple is 0 by
# construction (its reducer averages no term), so an exact 0 beside it says nothing of the run.
NOTHING_MINED = re.compile(r"(?i)(?:triplets|pairs)['\"]?\s*[:=]\s*0(?![\d.])")


@functools.lru_cache(maxsize=4096)
def objective_tag(word: str) -> bool:
    """Whether ``word``, printed before "loss", names which of a model's objectives the loss
    is (Grad-TTS' ``duration loss = 0.512 | prior loss = 1.234 | diffusion loss = nan``), not
    the total's statistic, a split, a setting or a time (``avg``, ``val``, ``lowest``...);
    "duration" stays (a TTS duration predictor's loss, not a time: see ``_TIME``).

    Example:
        >>> objective_tag("diffusion"), objective_tag("total"), objective_tag("lowest")
        (True, False, False)
    """
    lowered = word.lower()
    return word.isalpha() and not (lowered in _QUALIFIERS or lowered in _EVAL
                                   or lowered in _TRAIN or lowered in _SETTING
                                   or lowered in _TIME)


@functools.lru_cache(maxsize=4096)
def verb_key(key: str) -> bool:
    """Whether ``key`` ends in a verb (``loss is``, ``loss became``): a sentence-like print.

    Example:
        >>> verb_key("loss becomes"), verb_key("train/loss")
        (True, False)
    """
    parts = words(key)
    return len(parts) > 1 and parts[-1] in _VERBS

_EXACT: dict[tuple[str, ...], str] = {}
_OWNED = frozenset({GRAD_NORM, LR})  # roles a namespace before a slash may own
for _role, _phrases in {
    GRAD_NORM: ("grad norm", "gradnorm", "gnorm", "grad", "grads norm", "gradient norm",
                "grad l2 norm", "total norm", "total grad norm", "global grad norm",
                "global norm", "grad norm total", "gradients norm", "grad total norm",
                "gradient global norm", "grad norm avg", "grad norm mean", "norm grad",
                "gradient norm total", "grads",
                # Composer's OptimizerMonitor (llm-foundry's runs): ``l2_norm/grad/global``
                "l2 norm grad global",
                # marian's display line (src/training/scheduler.h): ``... : gNorm 1.2345``
                "g norm",
                # lingvo's learner (lingvo/core/learner.py): ``grad_norm/all``, the global
                # norm over all the variables, in the trainer's ``step: ... key:value`` line
                "grad norm all"),
    SKIPPED: ("skipped", "skipped steps", "skipped iterations", "skipped iters",
              "num skipped", "number of skipped iterations", "skip count", "overflows",
              "overflow count", "num overflows", "skipped updates", "skipped total",
              "total skipped", "num skipped steps", "nan iterations",
              # optax ``apply_if_finite``'s state: ``total_notfinite`` counts the updates it
              # dropped for non-finite gradients (``notfinite_count`` only the latest run)
              "total notfinite"),
    # "gs": EveryDream2's bar postfix ``vram=... MB gs:300`` and its "at gs:300" lines
    STEP: ("step", "global step", "iter", "iteration", "num updates", "updates", "update",
           "optimizer step", "global iteration", "iters", "gstep", "gs", "global steps",
           "trainer global step", "it", "num steps", "step num", "steps", "optimizer steps",
           # LLaMA-Factory's trainer_log.jsonl ``current_steps`` (beside ``total_steps``);
           # accelerate's examples' ``completed_steps``
           "current step", "current steps", "cur step", "completed steps",
           # OpenPCDet's train_utils (tools/train_utils/train_utils.py ``train_one_epoch``):
           # ``Acc_iter {accumulated_iter:<10d}``, the run's iterations over its epochs
           "acc iter", "accumulated iter", "accumulated iters",
           # ...and before 2022-08 as its inner bar's postfix, ``total_it=...``
           "total it",
           # NVlabs' StyleGAN2-ADA / StyleGAN3 / EDM count their log's records in ticks:
           # ``tick 25    kimg 100.0 ...`` and ``stats.jsonl``'s ``Progress/tick``
           "tick", "progress tick",
           # Paxml's trainer (paxml/trainer_lib.py, programs.py): ``logging.info('step_i:
           # %d, training loss: %s', step_i, loss)``
           "step i",
           # the environment steps an RL run's record counts (stable-baselines3's logger,
           # dumped at ``step=self.num_timesteps``: ``|    total_timesteps      | 10240 |``;
           # OpenAI baselines' ppo2 ``logkv("total_timesteps", ...)``; Spinning Up's
           # EpochLogger ``| TotalEnvInteracts |           4e+03 |``; garage's Trainer
           # ``tabular.record('TotalEnvSteps', ...)``, garage/trainer.py ``step_epochs``)
           "total timesteps", "total env interacts", "total env steps",
           # pfrl's agents' statistics (pfrl/agents/dqn.py ``get_statistics``:
           # ``('cumulative_steps', ...)``, the environment steps, as ``step:`` above it)
           "cumulative steps",
           # PyMARL's (oxwhirl/pymarl src/utils/logging.py ``print_recent_stats``: ``Recent
           # Stats | t_env: {:>10} | Episode: {:>8}`` over its stats) and EPyMARL's
           "t env",
           # a loop's own names for its counter; a batch beside an epoch is the epoch's
           # (the epoch's batches are counted as such: see step_layouts.EpochBatches)
           "opt step", "n iter", "iter num", "step idx", "batch", "batch idx",
           # the loader's index alone (ChawDoe/LeNet5-MNIST-PyTorch train.py: ``'idx: {},
           # loss: {}'.format(idx, loss.sum().item())`` over ``enumerate(train_loader)``); a
           # named index (``class idx``, ``sample idx``) is no counter
           "idx",
           # marian's updates, abbreviated (src/training/scheduler.h): ``Ep. 1 : Up. 1000 :``
           "up",
           # the iterations abbreviated: DeepLabV3Plus-Pytorch's ``"Epoch %d, Itrs %d/%d,
           # Loss=%f"`` (main.py), BigGAN-PyTorch's ``itr: %d`` and its logs' ``"itr": ...``
           "itr", "itrs",
           # DeepLabCut 3's runner (deeplabcut/pose_estimation_pytorch/runners/train.py):
           # ``Number of iterations: {i + 1}, loss: ...``, the batch of the epoch (see
           # metric_reader._epoch_count_step)
           "number of iterations"),
    EPOCH: ("epoch", "epochs", "ep"),
    # the policy-gradient loss as OpenRLHF's PPO postfix shortens it, alone (openrlhf/
    # trainer/ppo_trainer.py before 0.6: ``short_status = {"pg": status["policy_loss"], "rm":
    # status["reward"], ..., "kl": ...}``); ``pg_clipfrac`` is no loss
    LOSS: ("pg",),
    LR: ("lr", "learning rate", "learningrate", "lr0", "lr group 0", "current lr",
         "cur lr", "learning rate 0", "lr 0", "base lr",
         # marian's ``--lr-report``: ``... : L.r. 3.0000e-04`` (not "l" for a loss)
         "l r",
         # MATLAB's trainnet table column (``LearnRate``, trainingOptions' ``InitialLearnRate``)
         "learn rate",
         # trainNetwork's verbose table, a header of two rows (``Base Learning`` over ``Rate``)
         "base learning rate"),
}.items():
    for _phrase in _phrases:
        _EXACT[tuple(_phrase.split())] = _role

# The step as a capital letter alone: the console tables of Denis Yarats' pytorch_sac logger
# and its descendants (pytorch_sac/logger.py, DrQ, CURL, facebookresearch/mbrl-lib
# mbrl/util/logger.py: ``("step", "S", "int")`` printed as ``| train | S: 25000 | ...``),
# whose other keys are capital abbreviations too (``E`` the episode, ``CLOSS`` the critic's
# loss). Only the capital: a lower-case ``s`` is seconds.
ABBREVIATED_STEP = "S"

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[\s_\-./:\[\]()'\"]+")


# Correlation metrics (GLUE's STS-B and CoLA, sentence-transformers' evaluators:
# sentence_transformers/evaluation/EmbeddingSimilarityEvaluator.py ``"Cosine-Similarity :\t
# Pearson: {:.4f}\tSpearman: {:.4f}"``, SimCSE's): an evaluation's, whatever precedes; and HF
# run_glue's average of them; torchmetrics' ConcordanceCorrCoef is NaN where its Pearson is
# (functional/regression/concordance.py ``_concordance_corrcoef_compute`` scales it), and
# scikit-learn's ``r2_score`` on fewer than two samples (sklearn/metrics/_regression.py: "R^2
# score is not well-defined with less than two samples.", ``return float("nan")``)
_CORRELATIONS = frozenset({"pearson", "pearsonr", "spearman", "spearmanr", "matthews", "mcc",
                           "kendall", "kendalltau", "corr", "correlation", "combined",
                           "concordance", "r2"})


# Scores of generated text against its references (sacrebleu's ``BLEU = 12.34 45.6/...``,
# fairseq-generate's ``BLEU4 = ...``): measured on held-out sentences only, no loop trains on them.
_GENERATION_SCORES = frozenset({"bleu", "sacrebleu", "bleu4"})
# Scores of a clustering against the labels (scikit-learn's normalized and adjusted mutual
# information and adjusted Rand index: iBOT's ``NMI: {}, ARI: {}, F: {}, ACC: {}`` over an
# epoch's predictions, bytedance/ibot main_ibot.py ``train_one_epoch``): measured, never
# trained on.
_CLUSTERING_SCORES = frozenset({"nmi", "ami", "ari"})
_MEASURED_ONLY = _CORRELATIONS | _GENERATION_SCORES | _CLUSTERING_SCORES  # (no split named)


# Ratios over a class's predictions and instances that scikit-learn returns as NaN when the
# class has neither (sklearn/metrics/_classification.py, ``zero_division=np.nan`` since 1.3:
# precision_score, recall_score, f1_score, fbeta_score, precision_recall_fscore_support; since
# 1.6 cohen_kappa_score): an evaluation set without the positive class, nothing overflowed.
_UNDEFINED_RATIOS = frozenset({"precision", "recall", "f1", "fbeta", "fscore", "kappa"})
# The area under the ROC curve of a set that holds one class only: scikit-learn's
# ``roc_auc_score`` raises "Only one class present in y_true. ROC AUC score is not defined in
# that case." (sklearn/metrics/_ranking.py ``_binary_roc_auc_score``), which scripts catch as
# ``auc = float("nan")`` (Adityadey1/deepfake_detection ``train_tf.py``: a folder of fakes
# only); torchmetrics' AUROC warns the same way. Undefined, nothing overflowed.
_UNDEFINED_AREAS = frozenset({"auc", "auroc", "rocauc"})


def undefined_correlation(key: str, value: float, finite_loss: bool) -> bool:
    """Whether ``value`` is a NaN by definition printed beside a finite loss
    (``finite_loss``): a correlation's (the predictions or labels were constant: an untrained
    regressor's first evaluation) or a ratio's that is undefined for an absent class (see
    ``undefined_ratio``); nothing overflowed. Without a finite loss beside it, it counts: NaN
    embeddings show there first.

    Example:
        >>> undefined_correlation("val_pearson", math.nan, True)
        True
        >>> undefined_correlation("eval_f1", math.nan, True)
        True
        >>> undefined_correlation("val_pearson", math.nan, False)
        False
    """
    return finite_loss and math.isnan(value) and undefined_score(key)


def undefined_score(key: str) -> bool:
    """Whether ``key`` names a score that is NaN by definition on some evaluations: a
    correlation (constant predictions or labels), a ratio of an absent class, or an area
    under the ROC curve of a set of one class.

    Example:
        >>> undefined_score("eval_spearmanr"), undefined_score("val_f1"), undefined_score("bleu")
        (True, True, False)
    """
    return correlation(key) or undefined_ratio(key) or undefined_area(key)


def undefined_area(key: str) -> bool:
    """Whether ``key`` names an area under the ROC curve (undefined on a set of one class).

    Example:
        >>> undefined_area("auc"), undefined_area("val_roc_auc"), undefined_area("acc")
        (True, True, False)
    """
    return any(part in _UNDEFINED_AREAS for part in words(key))


def undefined_ratio(key: str) -> bool:
    """Whether ``key`` names a precision, recall, F-score or Cohen's kappa: a ratio that
    scikit-learn's ``zero_division=np.nan`` leaves NaN where the evaluation holds neither a
    prediction nor an instance of the class it scores.

    Example:
        >>> undefined_ratio("eval_f1"), undefined_ratio("val_recall_macro"), undefined_ratio("acc")
        (True, True, False)
    """
    return any(part in _UNDEFINED_RATIOS for part in words(key))


def correlation(key: str) -> bool:
    """Whether ``key`` names a correlation (NaN where the predictions or labels are constant).

    Example:
        >>> correlation("eval_spearmanr"), correlation("eval_combined_score"), correlation("f1")
        (True, True, False)
    """
    return any(part in _CORRELATIONS for part in words(key))


# A mean over the classes of an evaluation (mmdet's ``bbox_mAP``, mmseg's ``mIoU``, nuScenes'
# ``mAP``, ``mATE`` ... and ``NDS``): the per-class values it averages are NaN where a
# class has no instance or the metric is undefined for it (nuScenes' orientation, velocity
# and attribute errors of a traffic cone or a barrier; nuscenes-devkit ``detection/
# algo.py`` ``calc_tp`` and ``evaluate.py`` ``main``), and it averages them with nanmean; so
# does HF evaluate's ``mean_iou`` (metrics/mean_iou/mean_iou.py: ``np.nanmean(iou)``, beside
# ``per_category_iou``, which HF's segmentation guide logs as ``iou_{label}``).
_CLASS_MEANS = r"(?:m(?:AP|IoU|Acc|Dice|Fscore|ATE|ASE|AOE|AVE|AAE)|NDS|[mM]ean_?[iI]o[uU])"
_CLASS_MEAN = re.compile(r"(?:^|[/._])" + _CLASS_MEANS + r"(?:$|[@_])")
# ...printed finite on a line: its name (a namespace before it, a suffix after it), ``: `` or
# ``=``, a digit
_FINITE_CLASS_MEAN = re.compile(r"(?:^|[\s/._,'\"{])" + _CLASS_MEANS
                                + r"(?:[@_][\w.@]*)?['\"]?\s*[:=]\s*[-+]?\.?\d")


def class_mean(key: str) -> bool:
    """Whether ``key`` names a mean over an evaluation's classes.

    Example:
        >>> class_mean("pts_bbox_NuScenes/mAP"), class_mean("bbox_mAP_50"), class_mean("NDS")
        (True, True, True)
        >>> class_mean("eval_mean_iou"), class_mean("eval_iou_wall")
        (True, False)
        >>> class_mean("pts_bbox_NuScenes/traffic_cone_vel_err"), class_mean("map")
        (False, False)
    """
    return _CLASS_MEAN.search(key) is not None


def per_class(key: str) -> bool:
    """Whether a NaN under ``key`` may be one class's value of a mean over the classes (see
    :func:`class_mean`), one class the metric is undefined for, which the mean left out
    (mmdet3d's ``Epoch(val)`` line of nuScenes' ``detail``: ``.../traffic_cone_vel_err: nan,
    ..., .../NDS: 0.5174``; HF's ``eval_iou_wall`` beside ``eval_mean_iou``): no loss, no
    mean of its own.

    Example:
        >>> per_class("eval_iou_wall"), per_class("eval_mean_iou"), per_class("val_loss")
        (True, False, False)
    """
    return "loss" not in key.lower() and not class_mean(key)


def finite_class_mean(text: str) -> bool:
    """Whether ``text`` prints a mean over an evaluation's classes as a finite number.

    Example:
        >>> finite_class_mean("car_vel_err: nan, pts_bbox_NuScenes/mAP: 0.4163")
        True
        >>> finite_class_mean("bbox_mAP: nan, bbox_mAP_50: nan"), finite_class_mean("map: 0.3")
        (False, False)
    """
    return _FINITE_CLASS_MEAN.search(text) is not None


# A perplexity is exp(loss): +inf where the exponent overflows (float32's past a loss of 88.7,
# ``math.exp``'s past 709, caught as ``float("inf")`` by HF's run_clm_no_trainer.py), while
# the loss it came from is finite.
_PERPLEXITIES = frozenset({"ppl", "perplexity"})


def perplexity(key: str) -> bool:
    """Whether ``key`` names a perplexity (``eval_ppl``, ``val/perplexity``).

    Example:
        >>> perplexity("eval_ppl"), perplexity("val/perplexity"), perplexity("eval_loss")
        (True, True, False)
    """
    return any(part in _PERPLEXITIES for part in words(key))


def overflowed_perplexity(key: str, value: float, finite_loss: bool) -> bool:
    """Whether ``value`` is a perplexity's +inf printed beside a finite loss
    (``finite_loss``): exp(loss) overflowed (huggingface/peft's examples:
    ``eval_ppl=tensor(inf, device='cuda:0') eval_epoch_loss=tensor(91.0000, ...)``,
    ``torch.exp`` in float32), nothing went non-finite.

    Example:
        >>> overflowed_perplexity("eval_ppl", math.inf, True)
        True
        >>> overflowed_perplexity("eval_ppl", math.inf, False)
        False
        >>> overflowed_perplexity("eval_ppl", math.nan, True)
        False
    """
    return finite_loss and value == math.inf and perplexity(key)


# An accuracy's names: a fraction of predictions that were right, finite even where the
# logits overflowed (argmax of NaN logits is still an index); NaN only where nothing was
# counted yet.
_ACCURACIES = frozenset({"acc", "accuracy", "acc1", "acc5", "acc@1", "acc@5", "top1", "top5"})


def accuracy(key: str) -> bool:
    """Whether ``key`` names an accuracy.

    Example:
        >>> accuracy("test_accuracy"), accuracy("Acc@1"), accuracy("val_loss")
        (True, True, False)
    """
    return any(part in _ACCURACIES for part in words(key))


# Words before a key, a word apart from it, that make it the extreme seen so far or a bound,
# not a value measured (the glued forms, ``lowest_loss``, are _SETTING's)
_EXTREMES = frozenset({"best", "lowest", "highest", "smallest", "largest", "min", "minimum",
                       "max", "maximum"})


def extreme_or_bound(tokens: list[str]) -> bool:
    """Whether the blank-parted words before a value name the best value so far or a bound,
    not a value measured: ``lowest loss: inf``, ``Best validation loss so far: inf``, ``max
    grad norm: inf`` (a tracker starts at inf; a setting may be inf).

    Example:
        >>> extreme_or_bound(["lowest", "loss"]), extreme_or_bound(["loss", "so", "far"])
        (True, True)
        >>> extreme_or_bound(["loss"])
        False
    """
    return len(tokens) > 1 and (tokens[-2:] == ["so", "far"] or any(
        token.lower() in _EXTREMES for token in tokens[:-1]))


# Rates of a classifier that a batch leaves undefined (no positive, one class only):
# torchmetrics' AUROC of a one-class batch is NaN; precision, recall, F1, IoU and Dice divide by
# a count that may be 0; so do the means over classes (``miou``, ``map``: a class the batch
# lacks) and the error rates of speech and translation over the reference's words or
# characters (torchmetrics' ``WordErrorRate``, ``CharErrorRate``: errors over a total that an
# empty reference makes 0), and the explained variance of a constant target (torchmetrics'
# ``ExplainedVariance``, stable-baselines3's ``explained_variance``: NaN where the variance of
# the returns is 0). A NaN of them on a training bar says nothing of the loss.
_UNDEFINED_ON_A_BATCH = frozenset({"auc", "auroc", "roc", "ap", "f1", "fscore", "precision",
                                   "recall", "iou", "miou", "map", "dice", "mcc", "kappa",
                                   "wer", "cer", "ter", "explained"})
# ...and what a bar shows beside the terms that is no term: a norm (an fp16 step's ``norm=inf``
# or ``gn=inf`` where it overflowed and was skipped), a rate per second (``tok/s=inf`` over a
# first interval of no time), a utilisation, the overflow count or flag.
_NOT_A_TERM = frozenset({"norm", "gn", "s", "tok", "tps", "fps", "hz", "mfu", "rtf",
                         "overflow", "overflows", "nan", "inf"})


def unnamed_loss_term(key: str, value: float) -> bool:
    """Whether a non-finite ``value`` under ``key`` on a training bar that names no loss is
    a term of the loss, named after what it measures: DiffSinger's ``mel``, ``f0``, ``uv``,
    ``pdur`` (MoonInTheRiver/DiffSinger ``tasks/base_task.py``: the loss terms are the
    bar's whole postfix). Not a key of a role (lr, grad norm, step), an accuracy, a
    perplexity, a correlation, a class mean, a rate a batch may leave undefined, a norm, a
    speed, an evaluation's metric or a score's +inf at perfection.

    Example:
        >>> [unnamed_loss_term(k, math.nan) for k in ("mel", "f0", "acc", "auroc", "lr")]
        [True, True, False, False, False]
        >>> unnamed_loss_term("snr", math.inf), unnamed_loss_term("val_mel", math.nan)
        (False, False)
        >>> [unnamed_loss_term(k, math.inf) for k in ("norm", "gn", "tok/s", "kl")]
        [False, False, False, True]
        >>> [unnamed_loss_term(k, math.nan) for k in ("wer", "miou", "explained_variance")]
        [False, False, False]
    """
    parts = words(key)
    return (score_name(key) and not accuracy(key) and not perplexity(key)
            and not correlation(key) and not class_mean(key) and not is_evaluation(key)
            and not evaluation_metric(key) and not perfect_score(key, value)
            and _UNDEFINED_ON_A_BATCH.isdisjoint(parts) and _NOT_A_TERM.isdisjoint(parts))


def plain_loss_beats(key: str, held: str) -> bool:
    """Whether ``key``, a loss's name, takes the loss from ``held``, another read before it
    on the line or in the table: a plain ``loss`` beats ``avg_loss``, ``train_loss_epoch`` or
    a loss noun alone (``l1``).

    Example:
        >>> plain_loss_beats("loss", "l1"), plain_loss_beats("Loss", "loss")
        (True, False)
    """
    return words(key) == ("loss",) and words(held) != ("loss",)


def words(key: str) -> tuple[str, ...]:
    """A key as lower-case words.

    Example:
        >>> words("train/avgLoss"), words("'loss_scale'"), words("Fp16 Grad Scale")
        (('train', 'avg', 'loss'), ('loss', 'scale'), ('fp16', 'grad', 'scale'))
    """
    parts = _SPLIT.split(_CAMEL.sub(" ", key).lower())
    out: list[str] = []
    for part in parts:
        if not part:
            continue
        # Glued names: "trainloss", "dloss", "avgloss" read as "<x> loss".
        if part.endswith("loss") and len(part) > 4 and part not in ("gloss",):
            out.extend((part[:-4], "loss"))
        else:
            out.append(part)
    return tuple(out)


def _held_out(parts: tuple[str, ...]) -> tuple[str, ...]:
    """A key's words from its held-out split on, where the split follows a model's name and a
    loss noun follows the split: pytorch-accelerated's ModelEmaCallback prefixes the metrics of
    the EMA model's evaluation (Chris-hughes10/pytorch-accelerated
    ``pytorch_accelerated/callbacks.py``: ``set_metric_name_prefix("ema_model_")``, so
    ``ema_model_eval_loss_epoch``), a teacher's or an SWA model's loss the same way. The split
    right before the loss says which data it was measured on, whatever model it names. Words
    that only qualify or rank a value (``avg_val_loss``, ``best_val_loss``) name no model:
    left as they are.

    Example:
        >>> _held_out(("ema", "model", "eval", "loss", "epoch")), _held_out(("eval", "loss"))
        (('eval', 'loss', 'epoch'), ('eval', 'loss'))
        >>> _held_out(("test", "time", "loss")), _held_out(("model", "eval", "steps"))
        (('test', 'time', 'loss'), ('model', 'eval', 'steps'))
        >>> _held_out(("best", "val", "loss")), _held_out(("avg", "val", "loss"))
        (('best', 'val', 'loss'), ('avg', 'val', 'loss'))
    """
    for at in range(1, len(parts) - 1):
        if parts[at] in _EVAL and parts[at + 1] in _LOSS_NOUNS:
            named = any(part not in _QUALIFIERS and part not in _NOT_METRIC
                        and part not in _SETTING and part not in _EXTREMES
                        for part in parts[:at])
            return parts[at:] if named else parts
    return parts


def is_evaluation(key: str) -> bool:
    """Whether a key names an evaluation metric (``val_loss``, ``eval/loss``, ``Test Loss``).

    Example:
        >>> is_evaluation("val_lm loss"), is_evaluation("train_loss")
        (True, False)
    """
    parts = _held_out(words(key))
    return bool(parts) and (parts[0] in _EVAL or parts[-1] in _MEASURED_ONLY
                            or _namespaced_evaluation(key))


# The errors of a predicted property (a regression's root-mean-square, squared or absolute
# error): printed with the property's unit they are a model's score on data, not its objective.
_ERRORS = frozenset({"rmse", "mse", "mae"})


def property_error(key: str) -> bool:
    """Whether a key names only an error of a property (``RMSE``, ``energy MAE``), no loss
    noun and no training split: printed with the property's unit (``RMSE (kcal/mol) =
    nan``), the score a model is measured by, not the loss it trains on.

    Example:
        >>> [property_error(k) for k in ("RMSE", "energy mae", "train RMSE", "mse loss")]
        [True, True, False, False]
    """
    parts = words(key)
    return (bool(parts) and parts[-1] in _ERRORS
            and not any(part in _TRAIN or part in _LOSS_NOUNS for part in parts[:-1]))


def evaluation_metric(key: str | tuple[str, ...]) -> bool:
    """Whether a key names an evaluation metric (``val_loss``, ``eval_accuracy``,
    ``test/ppl``): an evaluation prefix, then something measured (not a time, a speed, a
    count or the best value so far).

    Example:
        >>> [evaluation_metric(k) for k in ("val_loss", "eval_bleu", "eval_runtime",
        ...                                 "eval_samples_per_second", "val_best_loss",
        ...                                 "train_loss", "Spearman", "stsb_pearson")]
        [True, True, False, False, False, False, True, True]
        >>> [evaluation_metric(k) for k in ("eval_epoch_loss", "eval_epoch", "val_step",
        ...                                 "eval_loss_epoch")]
        [True, False, False, True]
        >>> evaluation_metric("ema_model_eval_loss_epoch"), role("ema_model_eval_loss_epoch")
        (True, None)
        >>> evaluation_metric(""), evaluation_metric(" - ")
        (False, False)
    """
    parts = _held_out(words(key) if isinstance(key, str) else key)
    if not parts:  # a cell with no words (a table's rule, a blank cell) names no metric
        return False
    if parts and parts[-1] in _MEASURED_ONLY:
        return True  # no loop trains on a correlation: it is measured on held-out pairs
    if isinstance(key, str) and _namespaced_evaluation(key):
        head, _, rest = key.partition("/")
        split = words(rest)
        # "Loss/val" (a TensorBoard tag): the split's name alone, the metric before it
        return evaluation_metric((split[0], *words(head)) if len(split) == 1 else split)
    if len(parts) == 1:
        # a split's name alone keys its score beside the training loss: Open3D-ML's ``Loss
        # train: 0.512  eval: 0.601``, PyTorch Geometric's ``Train: 0.95, Val: 0.78``
        return parts[0] in _SPLITS
    return parts[0] in _EVAL and (
        not any(part in _NOT_METRIC or part in _SETTING for part in parts[1:])
        or _qualified_loss(parts[1:]))


def _qualified_loss(parts: tuple[str, ...]) -> bool:
    """Whether words name a loss under the words that qualify one, before or after it
    (``epoch loss``, ``batch loss``, ``loss epoch``): a value, where ``epoch`` or ``batch``
    alone would be a count (huggingface/peft's examples print ``eval_epoch_loss=tensor(...)``,
    pytorch-accelerated ``eval_loss_epoch: ...``)."""
    return (len(parts) > 1 and any(part in _LOSS_NOUNS for part in parts)
            and all(part in _QUALIFIERS or part in _LOSS_NOUNS for part in parts))


def evaluation_twins(keys: list[str]) -> dict[str, str]:
    """The keys of a table's columns that name an evaluation's value by a split's name after
    the metric, each with its training twin beside it: DeePMD-kit's ``lcurve.out`` pairs
    ``rmse_val`` with ``rmse_trn``, ``rmse_e_val`` with ``rmse_e_trn`` (deepmd/train/
    trainer.py ``print_header``). Alone, ``loss_val`` may be the loss's value; beside
    ``loss_trn`` it is a split's.

    Example:
        >>> evaluation_twins(["step", "rmse_val", "rmse_trn", "rmse_e_val", "rmse_e_trn"])
        {'rmse_val': 'rmse_trn', 'rmse_e_val': 'rmse_e_trn'}
        >>> evaluation_twins(["loss_val", "lr"])
        {}
    """
    split = [words(key) for key in keys]
    trained = {parts[:-1]: key for key, parts in zip(keys, split, strict=True)
               if len(parts) > 1 and parts[-1] in _TRAIN}
    return {key: trained[parts[:-1]] for key, parts in zip(keys, split, strict=True)
            if len(parts) > 1 and parts[-1] in _EVAL and parts[:-1] in trained}


def training_split(key: str) -> bool:
    """Whether a key is the training split's name alone (``train``, ``Train``): beside a
    held-out split keying its own value, what it keys is the training objective measured on
    the training set (ProteinMPNN's ``train: {perplexity}, valid: {perplexity}``, the
    perplexity exp(loss)).

    Example:
        >>> [training_split(k) for k in ("train", "Training", "train_acc", "valid")]
        [True, True, False, False]
    """
    parts = words(key)
    return len(parts) == 1 and parts[0] in ("train", "training", "trn")


def training_first(key: str) -> bool:
    """Whether a key names the training split first, then what it measures there (``train
    Loss``, ``Training loss``, ``train_loss``): a phase's summary of its own split, the way
    a loop prints it after the phase's bar (31pineapplebun/ai-food-explorer
    ``train_efficientnet.py``: ``f'{phase} Loss: {epoch_loss:.4f} Acc: ...'``).

    Example:
        >>> [training_first(k) for k in ("train Loss", "train_loss", "train", "val Loss")]
        [True, True, False, False]
    """
    parts = words(key)
    return len(parts) >= 2 and parts[0] in ("train", "training", "trn")


def held_out_first(key: str) -> bool:
    """Whether a key names a held-out split first, alone or before what it measures there
    (``val``, ``val_mse``, ``valid_acc``): beside it, the training split's name alone keys
    the training's value (0Dema0/Adversarial_Sonar_Placement ``trainer/train_delta.py``:
    ``train={train_loss:.5f} | val_mse={...:.5f}``), as beside the split named alone (its
    loss: ``train 4.2000 | val 4.2500``).

    Example:
        >>> [held_out_first(k) for k in ("val", "Valid", "val_mse", "valid_acc", "train", "mse")]
        [True, True, True, True, False, False]
    """
    parts = words(key)
    return bool(parts) and parts[0] in _SPLITS


def held_out_heading(name: str) -> bool:
    """Whether ``name``, lower-cased and standing alone (a heading over a split's values:
    super-gradients' tree branch ``└── Validation``), names a held-out split.

    Example:
        >>> [held_out_heading(n) for n in ("validation", "evaluation", "test", "train", "cv")]
        [True, True, True, False, False]
    """
    return name in _SPLIT_HEADINGS


# The held-out splits an identifier of data names as one of its word parts (``x_test``,
# ``X_val``, ``test_data``, ``holdout_set``): whole words only, so ``latest``, ``interval``,
# ``device`` and ``evaluate_every`` name none.
_DATA_SPLITS = frozenset({"test", "val", "valid", "validation", "eval", "dev", "holdout"})


def held_out_data(name: str) -> str | None:
    """The held-out split that an identifier of data names as one of its words, wherever the
    word stands: MLDatasets' scripts name the test set ``x_test, y_test``, Flux's docs
    ``test_x``; a call's arguments (``loss(x_test, y_test)``) are named so, not keyed.

    Example:
        >>> [held_out_data(n) for n in ("x_test", "X_val", "test_data", "yValid", "latest",
        ...                             "interval", "device", "evaluate_every", "train_x")]
        ['test', 'val', 'test', 'valid', None, None, None, None, None]
    """
    return next((part for part in words(name) if part in _DATA_SPLITS), None)


def score_name(key: str) -> bool:
    """Whether a key that names no role may name a score an evaluation measured (``mIoU``,
    ``coco/bbox_mAP``, ``accuracy``): one name, no time, speed, count, setting or best value
    so far among its words. Only read on a line about evaluation (mmengine's ``Epoch(val)``
    line prints its evaluator's metrics under their own names, no split before them).

    Example:
        >>> [score_name(k) for k in ("mIoU", "coco/bbox_mAP", "data_time", "best_acc", "lr")]
        [True, True, False, False, False]
    """
    parts = words(key)
    return (bool(parts) and (role(key) is None or parts in _MEASURED_LOSSES)
            and not any(part in _NOT_METRIC or part in _SETTING for part in parts))


# Loss nouns that an evaluation also prints alone as a score of what it measured
# (gaussian-splatting's ``[ITER 7000] Evaluating test: L1 nan PSNR nan``).
_MEASURED_LOSSES = frozenset({("l1",)})


# Scores that are +inf at perfection (a reconstruction's PSNR or SNR where the error is 0):
# an infinite one says the images match, not that evaluation broke. PSNR-B (the blocking
# effect's PSNR of a JPEG restoration: JingyunLiang/SwinIR ``utils/util_calculate_psnr_ssim.py``
# ``calculate_psnrb``, printed as ``PSNRB``/``PSNRB_Y``) is +inf where the images match too.
_INFINITE_AT_BEST = frozenset({"psnr", "psnrb", "snr", "sisnr", "sdr", "sisdr"})


def perfect_score(key: str, value: float) -> bool:
    """Whether ``value`` is a score's +inf at perfection (see ``_INFINITE_AT_BEST``):
    torchmetrics' PSNR of identical images (functional/image/psnr.py takes the log of a
    squared error of 0).

    Example:
        >>> perfect_score("test_psnr", math.inf), perfect_score("test_psnr", math.nan)
        (True, False)
        >>> perfect_score("val_loss", math.inf)
        False
    """
    return value == math.inf and not _INFINITE_AT_BEST.isdisjoint(words(key))


def measured_on_evaluation(key: str, value: float) -> bool:
    """Whether a word keying a non-finite ``value`` on a line about evaluation names a score
    of it: a :func:`score_name` (``L1``, ``PSNR``, ``SSIM``, ``mIoU``), and not a PSNR's +inf
    (see ``_INFINITE_AT_BEST``).

    Example:
        >>> [measured_on_evaluation(k, math.nan) for k in ("L1", "PSNR", "lr", "eta", "best")]
        [True, True, False, False, False]
        >>> measured_on_evaluation("PSNR", math.inf), measured_on_evaluation("L1", math.inf)
        (False, True)
        >>> measured_on_evaluation("psnr_fine", math.inf)
        False
    """
    # (the score's name among the key's words: pytorch3d NeRF's ``psnr_coarse`` and
    # ``psnr_fine``, projects/nerf/nerf/stats.py, qualify it after)
    return score_name(key) and not perfect_score(key, value)


def _namespaced_evaluation(key: str) -> bool:
    """Whether an evaluation's name follows a namespace and a slash: ``ptl/val_loss``, the
    key of Ray Tune's Lightning examples, which NeuralForecast logs beside ``valid_loss``
    (neuralforecast/common/_base_model.py ``validation_step``). The name is the evaluation's,
    the namespace no training's.

    Example:
        >>> _namespaced_evaluation("ptl/val_loss"), _namespaced_evaluation("train/loss")
        (True, False)
        >>> evaluation_metric("ptl/val_loss"), evaluation_metric("Loss/val")
        (True, True)
    """
    if "/" not in key:
        return False
    rest = words(key.partition("/")[2])
    return bool(rest) and rest[0] in _EVAL


# XLM's objectives, each named for the languages it trains on (facebookresearch/XLM
# xlm/trainer.py ``print_stats``: ``MLM-en:  5.1234 || MLM-fr: ... || MT-en-fr: ...``, the
# mean cross-entropy of each since the last print; the names from its ``self.stats``:
# ``'MLM-%s' % lang``, ``'MT-%s-%s'``, ``'BT-%s-%s-%s'``...): the language-model objectives
# alone or for their languages, the translation ones (auto-encoding, translation,
# back-translation, parallel classification) for their languages only. Upper case and hyphens
# as XLM writes them: ``mlm_lr`` or ``mt_kl`` name no objective.
_LANGUAGE_OBJECTIVE = re.compile(r"(?:[CMT]LM(?:-[a-z]{2})*|(?:AE|MT|BT|PC)(?:-[a-z]{2})+)")


# Measures seldom trained on alone (see _LOSS_NOUNS), and the word that says one was weighted
# to be added to the loss: ``kl_weighted`` (a VAE's ``beta * kl``) is a term of the loss, where
# ``kl`` alone may be a monitored divergence (a policy's KL to its reference).
_WEIGHABLE = frozenset({"kl", "kld", "mae"})
_WEIGHTED = frozenset({"weighted"})


def _weighted_term(parts: tuple[str, ...]) -> bool:
    """Whether a key's words are a measure and the word that says it was weighted into the
    loss, in either order.

    Example:
        >>> _weighted_term(("kl", "weighted")), _weighted_term(("weighted", "kld"))
        (True, True)
        >>> _weighted_term(("kl",)), _weighted_term(("kl", "weight"))
        (False, False)
    """
    return len(parts) == 2 and (
        (parts[0] in _WEIGHABLE and parts[1] in _WEIGHTED)
        or (parts[1] in _WEIGHABLE and parts[0] in _WEIGHTED))


def _language_objective(key: str | tuple[str, ...]) -> bool:
    """Whether ``key`` names an objective and the languages it is trained on (XLM's).

    Example:
        >>> [_language_objective(k) for k in ("MLM-en", "MT-en-fr", "MLM", "MT", "mlm_lr",
        ...                                   "MLM_acc", "AE-en", "BT-en-fr-en")]
        [True, True, True, False, False, False, True, True]
    """
    return isinstance(key, str) and _LANGUAGE_OBJECTIVE.fullmatch(key) is not None


def _loss_words(parts: tuple[str, ...]) -> tuple[str, ...] | None:
    """The words beside a key's loss noun, or None when it names no loss."""
    for phrase in _LOSS_PHRASES:
        size = len(phrase)
        for i in range(len(parts) - size + 1):
            if parts[i:i + size] == phrase:
                parts = (*parts[:i], "loss", *parts[i + size:])  # "CrossEntropyLoss"
                break
    if len(parts) > 1 and parts[0] == "l" and parts[1].isalpha():
        # "l" first is "loss" abbreviated: BasicSR's and its descendants' (ESRGAN, Real-ESRGAN,
        # GFPGAN) loss terms, ``l_pix``, ``l_g_gan``, ``l_d_real`` (basicsr/models/
        # sr_model.py ``loss_dict['l_pix']``, printed by basicsr/utils/logger.py
        # ``MessageLogger``); a digit after it is a norm's name (``l_2``)
        parts = ("loss", *parts[1:])
    if "loss" not in parts:
        # a loss numbered with its index glued on: RecBole's trainer prints a model's tuple
        # of losses as ``train_loss1: 96.2, train_loss2: 0.25`` (recbole/trainer/trainer.py
        # ``_generate_train_loss_output``): each one a term, their sum the loss trained on
        parts = tuple(part for glued in parts for part in (
            ("loss", glued[4:]) if glued[4:].isdigit() and glued.startswith("loss")
            else (glued,)))
    if "loss" in parts or "losses" in parts:
        # "loss" is the head: the other nouns qualify it ("nll_loss" is a term of it)
        return tuple(p for p in parts if p not in ("loss", "losses"))
    nouns = [i for i, part in enumerate(parts) if part in _LOSS_NOUNS]
    if not nouns:
        return None
    i = nouns[-1]
    return parts[:i] + parts[i + 1:]


def _scale_role(parts: tuple[str, ...]) -> str | None:
    """:data:`SCALE` or :data:`MAYBE_SCALE` when a key names a loss scale, else None."""
    tail = parts[-1]
    if tail in ("value", "factor") and len(parts) > 1:  # "loss_scale_value"
        parts = parts[:-1]
    else:
        tail = ""
    head = parts[-1]
    if head not in _SCALE_HEADS:
        glued = _GLUED_SCALE.fullmatch(head)
        if glued is None:
            return None
        parts = (*parts[:-1], glued.group(1), glued.group(2))
        head = glued.group(2)
    owners = parts[:-1]
    if not owners:
        # "scaler" alone is a scaler's; a bare "scale" may be any scale; "scale_factor" is
        # DeepSpeed's backoff setting, "scaling" anything.
        if head == "scaler" and not tail:
            return SCALE
        return MAYBE_SCALE if head == "scale" and tail != "factor" else None
    if not all(word in _SCALE_OWNERS or word in _SCALE_MAYBE_OWNERS for word in owners):
        return None  # "lr_scale", "min_loss_scale", "img_scale"
    if (head in ("scaling", "sc") or tail == "factor") and _SCALE_LOSS.isdisjoint(owners):
        return None  # "grad_scaling", "scaler_factor"
    if any(word in _SCALE_MAYBE_OWNERS for word in owners):
        return MAYBE_SCALE
    return SCALE


def from_log2(exponent: float) -> float:
    """The scale whose base-2 logarithm was printed (:data:`LOG2_SCALE`, and the diffusion
    loops' ``decreased lg_loss_scale to {value}``); one too large for a float is infinite.

    Example:
        >>> from_log2(20.0), from_log2(-1.0), from_log2(5000.0), from_log2(-5000.0)
        (1048576.0, 0.5, inf, 0.0)
    """
    if not exponent < 1024.0:  # nan too
        return math.nan if math.isnan(exponent) else math.inf
    return float(2.0 ** exponent) if exponent > -1075.0 else 0.0


# The span a value was summed or averaged over, said after it in words: Stanza's constituency
# parser ends each epoch with ``Total loss for epoch: 1234.5`` (stanza/models/constituency/
# parser_training.py ``iterate_training``); "loss over the epoch", "loss of this batch".
_PERIOD_PREPOSITIONS = frozenset({"for", "over", "of", "in"})
_PERIOD_DETERMINERS = frozenset({"the", "this", "each", "current"})
_PERIODS = frozenset({"epoch", "step", "batch", "iter", "iteration", "interval"})


def _without_period(parts: tuple[str, ...]) -> tuple[str, ...]:
    """``parts`` without a trailing "for (the) epoch": the loss of that span is the loss.

    Example:
        >>> _without_period(("total", "loss", "for", "epoch")), _without_period(("loss", "of", "d"))
        (('total', 'loss'), ('loss', 'of', 'd'))
    """
    if len(parts) < 3 or parts[-1] not in _PERIODS:
        return parts
    head = parts[:-1]
    if head[-1] in _PERIOD_DETERMINERS:
        head = head[:-1]
    if len(head) > 1 and head[-1] in _PERIOD_PREPOSITIONS:
        return head[:-1]
    return parts


def _counted_period(parts: tuple[str, ...]) -> str | None:
    """The role of the period a counter's key counts within: the number after "step of
    epoch" numbers the epoch, as a count within a span is printed before its span's number
    (OpenRLHF's bars ``desc="Train step of epoch %d" % epoch``, openrlhf/trainer/
    dpo_trainer.py, sft_trainer.py, rm_trainer.py: the bar's count is the step). A loss of a
    period ("Total loss for epoch") stays the loss (:func:`_without_period`). Only "of" says
    the number is the span's: "Step In Epoch: 120" (DeciMamba's ``finetune_ssm.py``, after its
    own ``Epoch: 1 |``) and "current step in epoch" number the step within the span.

    Example:
        >>> _counted_period(("train", "step", "of", "epoch")), _counted_period(("step",))
        ('epoch', None)
        >>> [_counted_period(k) for k in (("total", "loss", "for", "epoch"),
        ...                               ("step", "in", "epoch"))]
        [None, None]
    """
    head = _without_period(parts)
    if head == parts or "of" not in parts[-3:-1]:  # "step of (the) epoch"
        return None
    while len(head) > 1 and head[0] in _TRAIN:
        head = head[1:]
    return _EXACT.get(parts[-1:]) if _EXACT.get(head) == STEP else None


@functools.lru_cache(maxsize=4096)
def role(key: str | tuple[str, ...]) -> str | None:
    """What a metric key names: one of the role constants, or None (evaluation metrics:
    :func:`evaluation_metric`).

    Example:
        >>> [role(k) for k in ("train_loss_step", "lm loss", "loss_cls", "val_loss",
        ...                    "loss scale", "min_loss_scale", "grad_norm", "Iter",
        ...                    "current scale is")]
        ['loss', 'loss', 'component', None, 'scale', None, 'grad_norm', 'step', 'scale']
        >>> [role(k) for k in ("avg_cost", "CrossEntropy", "nll", "train/objective",
        ...                    "total averaged loss", "kl_cost", "loss_weight")]
        ['loss', 'loss', 'loss', 'loss', 'loss', 'component', None]
        >>> [role(k) for k in ("trn_mse", "elbo", "ctc", "ctc_weight", "val_mse", "mae")]
        ['loss', 'loss', 'loss', None, None, None]
        >>> [role(k) for k in ("actor/grad_norm", "actor/lr", "val/grad_norm", "actor/kl",
        ...                    "ptl/val_loss")]
        ['grad_norm', 'lr', None, None, None]
        >>> [role(k) for k in ("Time-cost", "loss_time", "duration_loss")]
        [None, None, 'component']
        >>> [role(k) for k in ("l_pix", "l_g_gan", "l_total", "l_2", "out_d_real")]
        ['component', 'component', 'loss', None, None]
        >>> [role(k) for k in ("S", "s", "CLOSS", "MLOSS")]
        ['step', None, 'component', 'component']

        The loss scale, glued, abbreviated or namespaced, and keys that are not it:

        >>> {role(k) for k in ("lscale", "lossscale", "LossScale", "loss_sc", "amp_scale",
        ...                    "fp16_scale", "scaler_scale", "grad_scaler/scale",
        ...                    "scaler.scale", "cur_scale", "optimizer/loss_scale")}
        {'scale'}
        >>> [role(k) for k in ("scale", "train/scale", "ls_scale")]
        ['maybe scale', 'maybe scale', 'maybe scale']
        >>> [role(k) for k in ("min_loss_scale", "loss_scale_window", "initial_scale_power",
        ...                    "scale_factor", "scale_window", "lr_scale", "img_scale",
        ...                    "grad_scaling")]
        [None, None, None, None, None, None, None, None]
        >>> [role(k) for k in ("lg_loss_scale", "log2_loss_scale", "lg_scale", "log_loss_scale")]
        ['log2 scale', 'log2 scale', None, None]
    """
    if key == ABBREVIATED_STEP:
        return STEP
    parts = words(key) if isinstance(key, str) else key
    if len(parts) > 1 and parts[-1] in _VERBS:
        parts = parts[:-1]  # Paddle's "current scale is: 1024.0", "loss is nan"
    counted = _counted_period(parts)
    if counted is not None:
        return counted
    parts = _held_out(_without_period(parts))
    if not parts or parts[0] in _EVAL or (isinstance(key, str) and _namespaced_evaluation(key)):
        return None
    while len(parts) > 1 and parts[0] in _TRAIN:
        parts = parts[1:]
    if parts[0] in _EVAL:
        return None
    exact = _EXACT.get(parts)
    if exact is not None:
        return exact
    if isinstance(key, str) and "/" in key and (
            _EXACT.get(words(key.partition("/")[2])) in _OWNED):
        # the model it belongs to before a slash: verl's ``actor/grad_norm``, ``actor/lr``,
        # ``critic/grad_norm`` (verl/workers/actor/dp_actor.py ``update_policy``)
        return _EXACT[words(key.partition("/")[2])]
    if parts[0] in _LOG2 and len(parts) > 1:
        return LOG2_SCALE if _scale_role(parts[1:]) == SCALE else None
    scale = _scale_role(parts)
    if scale is not None:
        return scale
    beside = _loss_words(parts)
    if beside is None:
        return COMPONENT if (_language_objective(key) or _weighted_term(parts)
                             or gan_term(parts)) else None
    if any(part in _SETTING or part in _TIME for part in parts):
        return None
    if all(part in _QUALIFIERS or part in _TRAIN for part in beside):  # "Loss/train"
        return LOSS
    return COMPONENT
