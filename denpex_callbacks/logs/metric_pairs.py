"""The (key, value) pairs of one line, in any common notation: the generic reader's core.

How a value finds its key: every number on the line is located with one regex (``VALUE``);
the text between it and the previous number, stripped of separators (``= : ' " [ ( |``), must
end in a key, of which the longest run of up to five words that the lexicon knows is taken. A
key of several space-separated words counts only when the lexicon knows it as a whole (``lm
loss``, ``Train Loss``, ``number of skipped iterations``): prose before a value is not a key.
Keys go through :mod:`~denpex_callbacks.logs.lexicon`, the one place that names them; every
non-finite spelling is read (``nan -nan NaN NAN nan.0 inf -inf Infinity 1.#INF``).

:func:`find_claims` is the slow path (the regex over the line, a lexicon look-up per key);
:func:`collect` reads the values at the claims' places, for the slow path and for the plans
of :mod:`~denpex_callbacks.logs.metric_templates` alike.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from denpex_callbacks.logs import best_tags, lexicon, region_losses
from denpex_callbacks.logs.metric_templates import Claim
from denpex_callbacks.logs.split_tags import held_out_part
from denpex_callbacks.logs.timing_lines import timing_line

# Numbers as loops print them, and every spelling of a non-finite value. ``1.#INF`` first:
# otherwise its ``1`` would be read as a number; none right after ``@`` (a name's: ``mean@1``)
# nor after a ``#`` glued to a name (``1.#INF``'s ``INF``); after a ``#`` on its own it is a
# number sign (``Step #1500``).
# The lookahead names every first character a value can have (İ and ı: case-insensitive
# "inf"): the regex engine then skips other positions fast (about 25% of this regex's time).
# A non-finite value padded with a fill character is still one: ``'{:x<6f}'`` (PaddleOCR's
# ``TrainingStats.log``, ppocr/utils/stats.py, and the trainers copied from it) pads a
# number's six decimals with nothing but ``nan`` to ``nanxxx``.
# Julia shows a Float32 with an ``f`` exponent and its non-finite values with their width
# (``2.3012f0``, ``1.0f-5``, ``NaN32``, ``Inf16``): Base's ``show`` for Float32/Float16, what
# Logging's ConsoleLogger prints for ``@info "Epoch 1" loss`` (Flux's and Lux's losses are
# Float32).
VALUE = re.compile(
    r"(?=[-+.\dnNiI\u0130\u0131])(?<![\w.@])(?<![\w.]#)(?:[-+]?1\.#(?:INF|QNAN|IND)\w*"
    r"|[-+]?\.?(?i:nan(?:\.0|x+|16|32)?|inf(?:inity|x+|16|32)?)"
    r"|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eEf][-+]?\d+)?)(?![\w#]|\.\d)"
)
# ``|`` between a key and its value: trax's Loop (trax/supervised/training.py ``_log_scalars``:
# ``'%s %s | % .8f' % (log_prefix.ljust(5), name.rjust(...), value)`` behind ``'Step % 6d: '``);
# not where the key is a table's cell (see ``_claim``).
_SEPARATORS = " \t=:'\"[(#>-|"
# A number after ``@`` is part of a name, not a value: verl's ``reward/mean@1``,
# ``acc/best@4/mean``, ``Acc@1``, ``ndcg@10``.
_KEY_TAIL = re.compile(r"[A-Za-z][\w./@-]*(?:[ \t]+[A-Za-z][\w./@-]*){0,4}$")
# A scalar printed as its type's repr wraps the value, the key before the wrapper: torch's
# ``tensor(nan)``, numpy 2's ``np.float32(nan)`` (a dict of numpy scalars, as TF Model Garden's
# orbit Controller pprints its ``train | step: ... | output: {...}``), JAX's ``Array(nan,
# dtype=float32)`` (EasyLM's pprint'd metrics), TF2 eager's ``tf.Tensor(nan, shape=(),
# dtype=float32)`` and ``<tf.Tensor: shape=(), dtype=float32, numpy=nan>``, MindSpore's
# ``Tensor(shape=[], dtype=Float32, value= nan)``. Matched on the text before the value,
# its separators stripped.
_WRAPPER = re.compile(r"(?:\b(?:tensor|Tensor|Array|array|DeviceArray|tf\.Tensor"
                      r"|(?:np|numpy|jnp)\.[a-z]+\d*)"
                      r"|<tf\.Tensor: shape=\(\), dtype=\w+, numpy"
                      r"|\bTensor\(shape=\[\], dtype=\w+, value)$")
# An aside that names the split or the statistic a key's value is (``loss (train)``,
# ``loss(avg)``, ``loss (ema)``), or the value's unit, one per another (aiqm/torchani
# ``examples/training.py``: ``f"After epoch {epoch}: Validation RMSE (kcal/mol) {rmse}"``):
# the key is the name before it.
_MODE = re.compile(r" ?\((?:train|training|avg|average|mean|ema|smoothed|running"
                   r"|[A-Za-z\u00c5]{1,8}/[A-Za-z\u00c5]{1,8})\)$")
# ...the unit alone: an error of a property printed in the property's unit (``RMSE (kcal/mol)
# = nan``: chemprop's and MACE's scores, torchani's) is a score measured on data, an
# evaluation's, where no split word says training (``lexicon.property_error``).
_UNIT = re.compile(r" ?\([A-Za-z\u00c5]{1,8}/[A-Za-z\u00c5]{1,8}\)$")
# Python's self-documenting f-string (``f"{loss.item()=} {scaler.get_scale()=}"``) prints the
# expression as the key: its trailing method calls go, the name they are called on is the key
# (``loss``, ``scaler``).
_CALLS = re.compile(r"(?:\.\w+\(\))+$")
# ...and a call with arguments, printed the same way by Python's ``f"{loss_fn(x, y)=}"`` and by
# Julia's ``@show`` (``expr = value``: FluxML/model-zoo ``vision/mlp_mnist/mlp_mnist.jl``'s
# ``evalcb = () -> @show(loss_all(train_data, m))`` prints ``loss_all(train_data, m) =
# 2.2841f0``): the function's name is the key. Only before ``=`` (an expression echoed, not
# prose), and only names as arguments (``RMSE (kcal/mol)`` is a unit, ``loss (train)`` an
# aside: ``_MODE``). An argument that names held-out data makes the key an evaluation's
# (``loss_all(test_data, m)``, ``loss(val)``, ``loss(x_test, y_test)``): the split is a word
# of the argument's name wherever it stands (``lexicon.held_out_data``).
_ARGUMENT_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*)"
                            r"\(([A-Za-z_][\w.]*(?:, ?[A-Za-z_][\w.]*){0,5})\)$")
_MAX_KEY_WORDS = 5
# A dataset's or task's acronym (LAION, MMC4, COCO, CC3M): capitals and digits only.
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,11}")
_COUNT_OF = ["number", "of"]  # the words before a key that make it a count of things
# The words before a counter's key that make it a count other than the run's step, which is
# then the counter that runs up elsewhere on the line, or the rows: a countdown
# (``remaining steps: 990``, a LoRA-GA initialisation's ``step: {idx+1}, loss: ...,
# remaining steps: {iters - (idx+1)}``), which runs down to 0; an episode's own count (the
# steps an RL episode took, keras-rl's TrainEpisodeLogger, rl/callbacks.py: ``... episode:
# {episode}, duration: {duration:.3f}s, episode steps: {episode_steps}, ...``, the run's
# step opening the line as ``{step}/{nb_steps}:``), which starts over each episode.
_NOT_RUN_COUNT = frozenset({"remaining", "remain", "episode", "episodes"})
# "{key} at step {n}: {value}": the key before the step's, and an aside in parentheses after
# it ("(for 1 batch)")
_AT_STEP = re.compile(r"(?i)(.*?)\s+(?:at|for)\s+[A-Za-z][\w ]{0,20}?[\s:=#]*$")
_AT_WORDS = frozenset({"at", "for"})  # before the step an evaluation ran at
_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")
_COUNTERS = (lexicon.STEP, lexicon.SKIPPED)
# The counters a held-out split's name may tag as the step its evaluation ran at (see
# ``_split_tagged``): one step, not a count of steps (Keras-style ``Val steps: 20`` counts the
# evaluation's batches).
_SPLIT_COUNTERS = frozenset({"step", "iter", "iteration", "global step"})
# ``logging.basicConfig``'s default "%(levelname)s:%(name)s:%(message)s": the name follows.
_LEVEL_COLON = ("DEBUG:", "INFO:", "WARNING:", "ERROR:", "CRITICAL:")
_THOUSANDS = re.compile(r"(?:,\d{3})+(?![\d.])")  # a counter's thousands, '{:,d}'
# Two counts of one progress side by side, ``iter {n} step {m}`` (lit-gpt's pretrain and
# finetune scripts, litgpt's ``Epoch 1 | iter 48 step 12 | loss train: ...``): the iterations
# count micro-batches, the steps count optimizer steps (gradient accumulation between them).
_STEP_AFTER_ITER = re.compile(r"\s+step\s")
_TERMS = (lexicon.LOSS, lexicon.COMPONENT)  # keys whose list of values are a loss's terms
# The running average a meter prints in parentheses after its current value, ``loss 6.9
# (6.9)`` (timm's and Swin's ``AverageMeter``, the PyTorch examples' ``ProgressMeter``
# ``{name} {val} ({avg})``, the MetricLogger's ``{median} ({global_avg})``): a claim of its
# own, read only where it is non-finite beside a finite value (see ``_averaged``).
AVERAGE = "average"
# A change printed as its two ends: ``(inf --> 0.700000)`` (the EarlyStopping class that
# thuml/Time-Series-Library utils/tools.py and many loops copy: ``"Validation loss decreased
# ({self.val_loss_min:.6f} --> {val_loss:.6f})"``), Keras' ModelCheckpoint ``val_loss
# improved from inf to 0.50000`` (keras/callbacks.py). The first end is the best so far
# (inf before the first evaluation), the second the value measured now.
_ARROW = r"[ \t]*(?:-+>|=+>|\u2192|to\b)"
_CHANGE_TO = re.compile(_ARROW + r"[ \t]*$")
_CHANGED_FROM = re.compile(_ARROW)  # after the value it changed from
# A field that prints its value, then the value's name, up to the comma that ends it or the
# line's end (see _named_after); the first may open with a bare count (the step).
_NAMED_FIELD = re.compile(
    r"(?:^[ \t]*(?P<count>\d+)[ \t]+|(?:^|,)[ \t]*)"
    r"(?P<value>[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf))"
    r"[ \t]+(?P<name>[A-Za-z][\w./-]*(?: [A-Za-z][\w./-]*){0,2})[ \t]*(?=,|$)")
_NAMED_FIELDS = 3
# A bare value (no name of its own) that ends the text before a named field.
_BARE_BEFORE = re.compile(r"(?:^|[\s:,])[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf)[ \t]*$")
# A unit of time after a value; a unit word followed by a value of its own is that value's
# key ("loss nan min 1.9 max 3.1": the loss's statistics, not minutes).
# A report of the best so far that goes on to print that best's values: GraphGPS' ``> Epoch
# 37: took 38.4s (avg 38.4s) | Best so far: epoch 12\ttrain_loss: 0.4312 ...\tval_loss: ...``
# (rampasek/GraphGPS graphgps/train/custom_train.py ``custom_train``, every eval epoch). Every
# value after it is the best epoch's, not this step's: what lexicon.extreme_or_bound says of
# the one key it ends, said of all the keys after it.
_BEST_SO_FAR = re.compile(r"(?i)\bbest so far\b")
_DURATION = re.compile(r" ?(?:s|sec|secs|seconds|ms|min|mins|minutes|h|hours)"
                       r"(?![\w/]|[ \t]*[:=]?[ \t]*[-+]?(?:\d|\.\d|nan|inf))")

# A "no" answer right after a non-finite word: the word is a check's question, and the check
# found nothing (``print(f"Loss is NaN: {torch.isnan(loss)}")``: ``Loss is NaN: tensor(False)``,
# ``.item()``'s ``Loss is nan: False``). A "yes" leaves the word read: the value was found.
_ANSWERED = re.compile(r"(?i)[ \t]*[:=?][ \t]*(?:(?:tensor|array)\([ \t]*\[*[ \t]*)?"
                       r"(?:false|no)\b")

# Words that deny what follows them in a sentence about evaluation (``Test passed: loss did
# not become NaN``): the word before the non-finite value is then no score's name.
_DENIALS = frozenset({"not", "never", "no", "didn't", "without", "nor"})


@dataclass
class MetricLine:
    """What one line holds, by role (values of the first key seen for each role)."""

    values: dict[str, float] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    components: list[tuple[str, float]] = field(default_factory=list)
    separator: str | None = None  # the separator before the first value claimed
    evals: list[tuple[str, float]] = field(default_factory=list)  # evaluation metrics
    # The decimals of a loss printed as 0 ("0.0000": 4): a value below the print's last
    # digit reads as 0 there, not only an exact 0
    zero_places: int = 0
    # A loss scale as printed (Swin-Transformer's ``loss_scale 0.0000``): whether a 0 is the
    # scale or a print that rounded it (see scale_prints)
    scale_spelled: str = ""
    # A bare ``scale``'s value as printed (VGen's ``scale: {scaler.get_scale():.1f}``), read
    # as a loss scale only where its values are a scaler's (metric_reader's ``BareScale``)
    maybe_scale_spelled: str = ""
    # A table row's cells that may be pandas' empty cells (``NaN``, see metric_reader's
    # ``_unfilled``): evaluation values beside a finite training loss, and whether the row
    # left its training loss so beside a finite evaluation value
    unfilled: list[tuple[str, float]] = field(default_factory=list)
    unfilled_loss: bool = False
    # Where the loss's value starts and the separator before it (for the word before its
    # key, ``D`` of ``[D loss: 0.1]``), and the key whose two objectives the line printed
    # under it (see _objectives)
    loss_at: tuple[int, str] | None = None
    split: str = ""
    # The micro-batch count printed before the optimizer step (``iter 48 step 12``, see
    # _STEP_AFTER_ITER): the count the same tool's evaluation line is numbered by
    iteration: float | None = None


def classify(prefix: str) -> tuple[str, str] | None:
    """The (role, key) that ends ``prefix``, the text just before a value.

    Example:
        >>> classify("iter 120: time 3ms, Train Loss "), classify("reducing to ")
        (('loss', 'Train Loss'), None)
    """
    found = _claim(prefix)
    return None if found is None else (found[0], found[1])


def notation(prefix: str, line: str) -> str:
    """How a line writes its pairs, from the separator before one value.

    Example:
        >>> notation("{'loss': ", "{'loss': nan}"), notation("| Loss ", "| Loss nan |")
        ("'key': value", '| key value | cells')
    """
    found = _claim(prefix)
    return written_as(found[2] if found else "", line)


def written_as(separator: str, line: str) -> str:
    """How a line writes its pairs, from the separator before its first value.

    Example:
        >>> written_as(": ", "loss: nan"), written_as(" ", "| Loss nan |")
        ('key: value', '| key value | cells')
    """
    if "'" in separator or '"' in separator:
        return "'key': value"
    if "|" in line:
        return "| key value | cells"
    if "=" in separator:
        return "key=value"
    if ":" in separator:
        return "key: value"
    return "key value"


@functools.lru_cache(maxsize=8192)
def _claim(prefix: str) -> tuple[str, str, str] | None:
    """(role, key, separator) ending ``prefix``. Cached: the text between two numbers of a
    log's lines repeats (", loss: ") while the numbers change."""
    stripped = prefix.rstrip(_SEPARATORS)
    if len(stripped) == len(prefix):
        return None  # no separator: the number is glued to a word ("fp16", "loss0.5")
    if stripped.endswith(('",', "',")):
        # a (key, value) tuple: pfrl's ``statistics:[('average_q', 1.5), ('average_loss',
        # nan), ('n_updates', 800), ...]`` (pfrl/agents/dqn.py ``get_statistics``)
        stripped = stripped[:-1].rstrip(_SEPARATORS)
    if (wrapper := _WRAPPER.search(stripped, max(0, len(stripped) - 48))) is not None:
        stripped = stripped[:wrapper.start()].rstrip(_SEPARATORS)
    unit = stripped.endswith(")") and _UNIT.search(stripped) is not None
    stripped = _MODE.sub("", stripped).rstrip(_SEPARATORS)
    if stripped.endswith("()"):
        stripped = _CALLS.sub("", stripped)
    elif stripped.endswith(")") and "=" in prefix[len(stripped):] and (
            call := _ARGUMENT_CALL.search(stripped, max(0, len(stripped) - 120))) is not None:
        splits = [split for name in call.group(2).split(",")
                  if (split := lexicon.held_out_data(name.strip())) is not None]
        stripped = stripped[:call.start()] + (splits[0] + " " if splits else "") + call.group(1)
    found = _KEY_TAIL.search(stripped[-80:])
    if found is None:
        return None
    before = stripped[:len(stripped) - len(found.group(0))]
    if before.endswith(_LEVEL_COLON):
        return None  # basicConfig's "INFO:eval_run:[nan, ...": the logger's name, no key
    if "|" in prefix[len(stripped):] and before.rstrip().endswith("|"):
        # a table's cell, not a key: Lightning's model summary ``1 | loss_fn |
        # CrossEntropyLoss | 0 | train`` (its Params column)
        return None
    tokens = found.group(0).split()
    if lexicon.extreme_or_bound(tokens):
        return None
    if before.rstrip().endswith("!") and lexicon.extreme_or_bound(
            [*before.rstrip()[:-1].split()[-1:], *tokens]):
        # the extreme word ends its own exclamation: the best so far's value (01joja/D7047E
        # ``training.py``: ``"\\r New best! loss:" + str(validation_loss)``)
        return None
    evaluation = False  # a longer run named evaluation: only an evaluation metric may follow
    for size in range(min(len(tokens), _MAX_KEY_WORDS), 0, -1):
        key = " ".join(tokens[-size:])
        kind = lexicon.role(key)
        if unit and kind in (lexicon.LOSS, None) and size == 1 and lexicon.property_error(
                " ".join(tokens[-2:])):
            return lexicon.EVAL, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
        if kind is None and lexicon.is_evaluation(key):
            # "val_lm loss": an evaluation metric (its last word is no training loss either)
            if lexicon.evaluation_metric(key):
                return lexicon.EVAL, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
            # "CV info cv_loss" (wenet's ``Epoch 3 CV info cv_loss nan``): the evaluation
            # word opens the sentence; its metric is the key that ends it
            evaluation = True
            continue
        if evaluation and kind == lexicon.STEP and (
                _measured_at(tokens, size) or _split_tagged(tokens, size)):
            # "validation loss for step 2501" (mesh-transformer-jax's device_train.py): the
            # training step the evaluation ran at, not an evaluation's own counter
            return kind, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
        if size == 2 and kind == lexicon.COMPONENT and _loss_on_named_set(tokens):
            return kind, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
        if evaluation or kind is None or (size > 1 and kind == lexicon.COMPONENT):
            continue
        if kind == lexicon.STEP and [t.lower() for t in tokens[-size - 2:-size]] == _COUNT_OF:
            return None  # a count of things (gsplat's "Number of GS: 1234567"), no step
        if kind == lexicon.STEP and size < len(tokens) and (
                tokens[-size - 1].lower() in _NOT_RUN_COUNT):
            return None  # a countdown or an episode's length (see _NOT_RUN_COUNT)
        return kind, key, prefix[len(prefix.rstrip(_SEPARATORS)):]
    return None


def _loss_on_named_set(tokens: list[str]) -> bool:
    """Whether ``tokens`` end in the loss noun and then a dataset's or task's acronym: one of a
    multi-dataset run's losses (open_flamingo's ``Loss LAION: 2.913 // Loss MMC4: 2.541``,
    mlfoundations/open_flamingo ``open_flamingo/train/train_utils.py``). The acronym names
    nothing the lexicon knows, so the shorter key is nothing and the line had no loss; other
    two-word components stay skipped (prose before a value is no key)."""
    noun, name = tokens[-2], tokens[-1]
    return (_ACRONYM.fullmatch(name) is not None and lexicon.role(noun) == lexicon.LOSS
            and lexicon.role(name) is None and not lexicon.is_evaluation(name))


def _measured_at(tokens: list[str], size: int) -> bool:
    """Whether the key ending ``tokens`` (its last ``size``) follows "at" or "for": the step
    an evaluation was measured at, whatever the sentence's evaluation words before it.

    Example:
        >>> _measured_at(["validation", "loss", "for", "step"], 1)
        True
        >>> _measured_at(["val", "step"], 1)
        False
    """
    return len(tokens) > size and tokens[-size - 1].lower() in _AT_WORDS


def _split_tagged(tokens: list[str], size: int) -> bool:
    """Whether the step key ending ``tokens`` (its last ``size``) has a held-out split's name
    alone before it, the first word of the key's run: the split tags the line, the count is
    the training step the evaluation ran at (CS336-style loops' ``f"eval step={step:06d}
    train_loss=... valid_loss=..."`` below the training row of the same step). An evaluation's
    own batch counted so (``Val Step 0``, ``VALID Step: 000``) runs below the training step
    already reached: the evaluation stream drops such a count (``evaluation._take``).

    Example:
        >>> _split_tagged(["eval", "step"], 1), _split_tagged(["val", "iter"], 1)
        (True, True)
        >>> _split_tagged(["validation", "loss", "step"], 1), _split_tagged(["train", "step"], 1)
        (False, False)
        >>> _split_tagged(["Val", "steps"], 1)
        False
    """
    return len(tokens) == size + 1 and lexicon.held_out_heading(tokens[0].lower()) and (
        " ".join(tokens[1:]).lower() in _SPLIT_COUNTERS)


def read_pairs(text: str) -> MetricLine:
    """Every (role, value) a line holds in any notation.

    Example:
        >>> m = read_pairs("Epoch(train) [3][50/500]  lr: 1.0e-04, loss_cls: 0.0, "
        ...                "loss: nan, grad_norm: inf")
        >>> m.values["loss"], m.values["lr"], m.values["grad_norm"], m.components
        (nan, 0.0001, inf, [('loss_cls', 0.0)])
    """
    return collect(find_claims(text)[0], text)


# COCO's IoU range after a metric's name (``mAP@50:95``, ``AP@[.5:.95]``): part of the name.
# DeepLabCut 3's detector CSV (deeplabcut/pose_estimation_pytorch/runners/logger.py
# ``CSVLogger``) heads a column ``metrics/test.mAP@50:95``.
IOU_RANGE = re.compile(r"(?<=[AaPpRr]@)\[?[\d.]+:[\d.]+\]?")


def find_claims(text: str) -> tuple[list[Claim], list[tuple[int, int]]]:
    """The values that keys claim on a line, and the spans of every value on it (claimed
    or not): what :func:`collect` reads, and what a template of the line is made of.

    Example:
        >>> find_claims("iter 12: loss nan, time 3ms")
        ([(5, 7, 'step', 'iter', ' '), (14, 17, 'loss', 'loss', ' ')], [(5, 7), (14, 17)])
    """
    claims: list[Claim] = []
    spans: list[tuple[int, int]] = []
    previous = 0
    terms: str | None = None  # the loss key whose list of terms the values are in
    step_prefix = None  # the line before the last value, when a step counter claimed it
    tracked = tracked_from(text)
    ranges = [found.span() for found in IOU_RANGE.finditer(text)] if "@" in text else []
    for found in VALUE.finditer(text):
        start, end = found.span()
        if ranges and any(low < start < high for low, high in ranges):
            continue  # the end of a metric name's IoU range: no value
        spans.append((start, end))
        if start >= tracked:
            continue  # the best so far's values (see _BEST_SO_FAR)
        between = text[previous:start]
        claimed = _claim(between)
        if claimed is None and step_prefix is not None and not between.strip(_SEPARATORS):
            claimed = _before_step(step_prefix)
        step_prefix = (text[max(0, start - 120):start]
                       if claimed is not None and claimed[0] == lexicon.STEP else None)
        if claimed is None and claims and _indexed(claims[-1], text, previous, between):
            # "Train loss 37 0.523" (NVIDIA/tacotron2's "Train loss {} {:.6f} Grad Norm ...",
            # its forks'): the key's integer is the iteration, the value after it the loss.
            index_start, index_end, kind, key, separator = claims[-1]
            claims[-1] = (index_start, index_end, lexicon.STEP, key, separator)
            claimed = (kind, key, between)
        if claimed is None and claims and _changed(claims[-1], previous, between):
            claimed = claims.pop()[2:]
        if claimed is None and claims and _in_parentheses(claims[-1], text, previous, between,
                                                          end):
            claimed = (AVERAGE, claims[-1][3], between)
        previous = end
        if claimed is None:
            if terms is not None and between.strip() == ",":
                claims.append((start, end, lexicon.COMPONENT, terms, between))
            else:
                terms = None
            continue
        terms = None
        if claimed[0] in _TERMS and claimed[1] == "Obj" and "No Obj" in text:
            # the mean objectness of the cells with an object, beside those without: a YOLO
            # layer's statistics (pjreddie/darknet src/yolo_layer.c, region_layer.c: ``Region
            # %d Avg IOU: %f, Class: %f, Obj: %f, No Obj: %f, ...``), no objective
            continue
        if not text[end - 1].isdigit() and _ANSWERED.match(text, end):
            continue  # "Loss is NaN: False": the check's question (see _ANSWERED)
        if claimed[0] in _TERMS and _DURATION.match(text, end):
            # "cost 123.45 s" (so-vits-svc's ``====> Epoch: 3, cost 123.45 s``): the time an
            # epoch cost, not a loss
            continue
        if claimed[0] in _TERMS and claimed[2].endswith("["):
            # A loss key over a list (so-vits-svc ``Losses: [2.4, 2.2, nan, ...]``): the
            # values are its terms, each one counts (their sum is the loss).
            terms = claimed[1]
            claimed = (lexicon.COMPONENT, terms, claimed[2])
        claims.append((start, end, *claimed))
    if ", " in text and not any(claim[2] in _TERMS for claim in claims) and (
            named := _named_after(text)):
        claims = sorted(claims + named)
    if not claims and ") " in text and "; " in text:
        claims = _epoch_scores(text)
    if ("; g: " in text or "| G: " in text) and not any(
            claim[2] in _TERMS for claim in claims):
        # (a step claimed before the pair: ``Batch [50/400] | D: ... | G: ...``)
        claims = sorted(claims + _gan_pair(text))
    if " is " in text and " at " in text and not any(claim[2] in _TERMS for claim in claims):
        claims = sorted(claims + _at_count_is(text))
    if any(claim[2] == lexicon.LOSS for claim in claims) and timing_line(text):
        # ``FORWARD: 101.4, LOSS: 152.3, BACKWARD: 117.3``: the seconds the loss's evaluation
        # took among the step's timed phases, no loss (see timing_lines)
        claims = [claim for claim in claims if claim[2] != lexicon.LOSS]
    return claims, spans


# "{key} at {n}/{total} is {value}": a value named before the count it was measured at, the
# value itself after "is" (Alikerin/Audio-Classification ``run_training.py``: ``"Train Loss
# at {}/{} is {} | Train accuracy:{} | Time:{}".format(i+1, epochs, ...)``, its test line
# the same with ``Test Loss``). The count is the step; the key is read as any key is. The
# name's words are bounded (no backtracking beyond 40 characters a position).
_AT_COUNT_IS = re.compile(r"(?:^|[|,;]\s*)([A-Za-z][\w ]{0,40}?)\s+at\s+(\d{1,12})\s*/\s*"
                          r"\d{1,12}\s+is\s+([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
                          r"|(?i:nan|inf(?:inity)?)))(?![\w.])")


def _at_count_is(text: str) -> list[Claim]:
    """The step and the value of a line in :data:`_AT_COUNT_IS`'s layout; else [].

    Example:
        >>> line = "Train Loss at 5/100 is nan | Train accuracy:0.11 | Time:31.5"
        >>> [(line[start:end], kind, key) for start, end, kind, key, _sep in _at_count_is(line)]
        [('5', 'step', 'at'), ('nan', 'loss', 'Train Loss')]
        >>> _at_count_is("the best model at 5/100 is saved")
        []
    """
    found = _AT_COUNT_IS.search(text)
    if found is None:
        return []
    claimed = _claim(found.group(1) + ": ")
    if claimed is None or claimed[0] == lexicon.STEP:
        return []
    return [(found.start(2), found.end(2), lexicon.STEP, "at", " "),
            (found.start(3), found.end(3), claimed[0], claimed[1], " is ")]


# rosinality's StyleGAN2 (rosinality/stylegan2-pytorch ``train.py``, and the GANs forked from
# it): its bar's description ``f"d: {d_loss_val:.4f}; g: {g_loss_val:.4f}; r1: {r1_val:.4f};
# path: ..."``, the discriminator's and the generator's losses under one letter each. In
# capitals between pipes the same (ACOTSAE/DGD-UNet-GAN ``train_gan.py``: ``f"  Batch
# [{batch_idx+1}/{len(train_loader)}] | D: {d_loss.item():.6f} | G: {g_loss.item():.6f}"``),
# the pair ending the line or a field: both letters, side by side, say a GAN's two networks.
_GAN_PAIR = re.compile(r"(?<![\w.])(?:d: ([-+]?(?:\d+(?:\.\d*)?|nan|inf)); g: "
                       r"([-+]?(?:\d+(?:\.\d*)?|nan|inf));"
                       r"|D: ([-+]?(?:\d+(?:\.\d*)?|nan|inf)) \| G: "
                       r"([-+]?(?:\d+(?:\.\d*)?|nan|inf))(?: \||\s*$))")


def _gan_pair(text: str) -> list[Claim]:
    """The two losses of a line in :data:`_GAN_PAIR`'s layout, as terms; else [].

    Example:
        >>> line = "d: nan; g: 0.9876; r1: 0.0123; path: 0.0000:   0%|  | 12/800000 ["
        >>> [(line[start:end], key) for start, end, _kind, key, _sep in _gan_pair(line)]
        [('nan', 'd'), ('0.9876', 'g')]
        >>> line = "  Batch [50/400] | D: nan | G: 38.4750"
        >>> [(line[start:end], key) for start, end, _kind, key, _sep in _gan_pair(line)]
        [('nan', 'd'), ('38.4750', 'g')]
    """
    found = _GAN_PAIR.search(text)
    if found is None:
        return []
    first = 1 if found.group(1) is not None else 3  # (lower case, or between pipes)
    return [(found.start(first), found.end(first), lexicon.COMPONENT, "d", ": "),
            (found.start(first + 1), found.end(first + 1), lexicon.COMPONENT, "g", ": ")]


# The epoch's line of the First Order Motion Model's Logger and the many trainers copied from
# it (AliaksandrSiarohin/first-order-model ``logger.py`` ``log_scores``: ``"; ".join(["%s -
# %.5f" % (name, value) for name, value in zip(loss_names, loss_mean)])`` behind
# ``str(self.epoch).zfill(self.zfill_num) + ") "``): every name is a loss term, none says so
# (``perceptual``, ``equivariance_value``, ``gen_gan``).
_SCORE_NAME = r"[A-Za-z][\w./-]*"
_SCORE_VALUE = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf)"
# (one score, written once: the line's layout, then each score of it read again)
_EPOCH_SCORES = re.compile(rf"\s*(\d+)\) (?:{_SCORE_NAME} - {_SCORE_VALUE}(?:; |\s*$)){{2,}}")
_SCORE = re.compile(rf"({_SCORE_NAME}) - ({_SCORE_VALUE})")


def _epoch_scores(text: str) -> list[Claim]:
    """The epoch and the loss terms of a line in :data:`_EPOCH_SCORES`' layout, else [].

    Example:
        >>> line = "00000012) perceptual - nan; equivariance_value - 0.30000"
        >>> [(line[start:end], kind) for start, end, kind, _key, _sep in _epoch_scores(line)]
        [('00000012', 'step'), ('nan', 'component'), ('0.30000', 'component')]
    """
    found = _EPOCH_SCORES.fullmatch(text)
    if found is None:
        return []
    # the epoch is the only count the log prints: the step
    claims: list[Claim] = [(found.start(1), found.end(1), lexicon.STEP, "epoch", ") ")]
    claims += [(score.start(2), score.end(2), lexicon.COMPONENT, score.group(1), " - ")
               for score in _SCORE.finditer(text, found.end(1))]
    return claims


def tracked_from(text: str) -> int:
    """Where a line's report of the best so far begins (its length where it has none): the
    values after it are that best's (see ``_BEST_SO_FAR``; a line tagged ``[BEST]``, see
    :mod:`~denpex_callbacks.logs.best_tags`, is the best's from its start).

    Example:
        >>> text = "> Epoch 3: took 1.0s | Best so far: epoch 2 train_loss: nan"
        >>> text[tracked_from(text):], tracked_from("loss: nan") == len("loss: nan")
        ('Best so far: epoch 2 train_loss: nan', True)
    """
    tagged = best_tags.best_tag_end(text)
    if tagged is not None:
        return 0  # ``[BEST] loss=4.6750``: the whole line is the best so far's
    if "far" not in text and "FAR" not in text and "Far" not in text:
        return len(text)  # the cheap check first: a candidate line seldom says it
    found = _BEST_SO_FAR.search(text)
    return len(text) if found is None else found.start()


def _named_after(text: str) -> list[Claim]:
    """The values of a line of comma-parted fields that each print a value and then its
    name (tinygrad's training loops, examples/mlperf/model_train.py and
    examples/hlb_cifar10.py: ``f"{i:5} {ms:7.2f} ms run, ..., {loss:5.2f} loss, {acc:3.2f}
    acc, {lr:.6f} LR, {mem:.2f} GB used, ..."``), the count that opens the line as the step:
    where the keys before values claimed no loss and the line holds
    :data:`_NAMED_FIELDS` such fields or more, one of them a loss's. A name is a key where the
    lexicon knows it whole (``avg loss``; ``5.12 s step`` is a time, ``12.3 GB used`` a size:
    not keys): darknet's iteration line (AlexeyAB/darknet ``src/detector.c``: ``" %d: %f, %f
    avg loss, %f rate, ..."``) names the loss's running average so, after its iteration (which
    the parser takes off as ``N: ``, a prefix it learns is the step) and the loss unnamed.

    Example:
        >>> line = "   12  41.23 ms run, 0.51 ms python,   nan loss, 0.001000 LR, 3.1 GB used"
        >>> [(text, kind) for start, end, kind, _key, _sep in _named_after(line)
        ...  for text in [line[start:end]]]
        [('12', 'step'), ('nan', 'loss'), ('0.001000', 'lr')]
        >>> line = "-nan, -nan avg loss, 0.001300 rate, 5.391000 seconds, 9600 images"
        >>> [(line[start:end], kind) for start, end, kind, _key, _sep in _named_after(line)]
        [('-nan', 'loss')]
        >>> _named_after("got 3 losses, 2 errors, 1 warning")
        []
    """
    fields = list(_NAMED_FIELD.finditer(text))
    if len(fields) < _NAMED_FIELDS:
        return []
    out: list[Claim] = []
    for found in fields:
        name = found.group("name")
        if name == "avg" and _BARE_BEFORE.search(text, 0, found.start()):
            # "{value}, {average} avg": the running average of the bare value before it,
            # pjreddie/darknet's loss (examples/detector.c, classifier.c: ``"%ld: %f, %f avg,
            # %f rate, %lf seconds, %ld images"``), read as AlexeyAB's ``avg loss`` is
            out.append((found.start("value"), found.end("value"), lexicon.LOSS, name, " "))
            continue
        if (claimed := _claim(name + " ")) is None or claimed[1] != name:
            continue
        if claimed[0] in (lexicon.STEP, lexicon.SKIPPED):
            continue  # a count of what, not the run's step
        out.append((found.start("value"), found.end("value"), claimed[0], name, " "))
    if not any(claim[2] in _TERMS for claim in out):
        return []
    opening = fields[0]
    if opening.group("count") is not None:
        out.insert(0, (opening.start("count"), opening.end("count"), lexicon.STEP, "step", " "))
    return out


def _indexed(last: Claim, text: str, previous: int, between: str) -> bool:
    """True when the loss key of ``last`` (training's or evaluation's) claimed an integer
    that a value follows at once, blanks (or the integer's colon) between: ``Train loss 37
    nan``, ``Validation loss 50: 0.61``. The integer numbers the value, which is the key's.

    Example:
        >>> claims, _ = find_claims("Train loss 37 nan Grad Norm nan 0.52s/it")
        >>> [(kind, key) for _start, _end, kind, key, _separator in claims]
        [('step', 'Train loss'), ('loss', 'Train loss'), ('grad_norm', 'Grad Norm')]
    """
    start, end, kind, _key, _separator = last
    return (end == previous and (kind in _TERMS or kind == lexicon.EVAL)
            and text[start:end].isdigit() and between.strip(" \t") in ("", ":")
            and between.endswith((" ", "\t")))


def _changed(last: Claim, previous: int, between: str) -> bool:
    """True when the value of ``last`` (a measured one, not a counter) ends right before
    ``between`` and ``between`` says it changed to the value after (``inf --> 0.7``, ``inf
    to 0.5``): that value is the key's, the first one what it was.

    Example:
        >>> claims, _ = find_claims("Validation loss decreased (inf --> 0.700000).  Saving")
        >>> [(kind, key) for _start, _end, kind, key, _separator in claims]
        [('eval', 'Validation loss decreased')]
        >>> read_pairs("val_loss improved from inf to 0.50000, saving model to m.h5").evals
        [('val_loss improved from', 0.5)]
    """
    return (last[1] == previous and last[2] not in _COUNTERS
            and _CHANGE_TO.match(between) is not None)


def _in_parentheses(last: Claim, text: str, previous: int, between: str, end: int) -> bool:
    """True when the value ending at ``end`` stands alone in parentheses right after the
    value of ``last``, a loss or one of its terms: the meter's running average of it (``Loss
    6.9078e+00 (nan)``, pytorch/examples ``imagenet/main.py`` ``AverageMeter.__str__``).

    Example:
        >>> claims, _ = find_claims("Train: [0/300][500/1251]  loss 6.8000 (nan)  lr 0.1")
        >>> [(kind, key) for _start, _end, kind, key, _separator in claims]
        [('loss', 'loss'), ('average', 'loss'), ('lr', 'lr')]
    """
    return (last[1] == previous and last[2] in _TERMS and between.strip(" \t") == "("
            and text.startswith(")", end))


def _averaged(out: MetricLine, key: str, value: float) -> None:
    """A loss (or loss term) whose running average is non-finite while its current value is
    finite went non-finite since the meter was reset, between two prints (timm's,
    Swin-Transformer's and the PyTorch examples' meters average an epoch; a GradScaler run
    skips that step and goes on): the line's value is the average's, the first sign of it.
    A finite average is left unread (the current value is the step's)."""
    if math.isfinite(value):
        return
    if out.keys.get(lexicon.LOSS) == key and math.isfinite(out.values[lexicon.LOSS]):
        out.values[lexicon.LOSS] = value
    elif out.components and out.components[-1][0] == key and math.isfinite(
            out.components[-1][1]):
        out.components[-1] = (key, value)


def _before_step(prefix: str) -> tuple[str, str, str] | None:
    """The key of a value printed after the step it was measured at (``Training loss (for 1
    batch) at step 200: 0.1234``, the Keras and TensorFlow guides' custom loops; ``Average
    loss at step 2000: 4.3``): ``prefix``, the line before the step's value (an aside may
    hold a number), names it before ``at step``. Not the step's own key again.

    Example:
        >>> _before_step("Training loss (for 1 batch) at step ")
        ('loss', 'Training loss', ': ')
        >>> _before_step("step "), _before_step("time at step ")
        (None, None)
    """
    found = _AT_STEP.search(prefix)
    if found is None:
        return None
    claimed = _claim(_ASIDE.sub("", found.group(1)) + ": ")
    return None if claimed is None or claimed[0] == lexicon.STEP else claimed


def collect(claims: list[Claim], text: str) -> MetricLine:
    """The values of ``claims`` on ``text``, by role: the first key of each role wins,
    except where :func:`_prefer` says otherwise; counters that are no step are dropped.

    Example:
        >>> text = "update: 0.05, num_updates: 7, loss: nan"
        >>> m = collect(find_claims(text)[0], text)
        >>> m.values, m.separator
        ({'step': 7.0, 'loss': nan}, ': ')
    """
    out = MetricLine()
    step_end = 0  # where the step held ends (see _STEP_AFTER_ITER)
    terms: list[str] = []  # the loss keys read so far, in order (see _again)
    held_out = False  # the held-out split's set began: its loss keys are evaluation values
    held_part = held_out_part(text)  # where a tagged held-out part begins (see split_tags)
    for start, end, kind, key, separator in claims:
        if out.separator is None:
            out.separator = separator
        spelled = text[start:end]
        if kind == AVERAGE and spelled[-1].isdigit():
            continue  # a finite average (every line of a meter's): the current value counts
        try:  # the common spellings; to_value knows the rest ("nan.0", "1.#INF")
            value = float(spelled)
        except ValueError:
            value = to_value(spelled)
        if kind in _TERMS:
            if held_out or start > held_part or _again(key, terms):
                held_out = True
                out.evals.append((key, value))
                continue
            if key not in terms:
                terms.append(key)
        if kind in _COUNTERS and text.startswith(",", end) and (
                grouped := _THOUSANDS.match(text, end)):
            # "iter:   12,345" (DL-Art-School's '{:8,d}'): the groups after the comma are the
            # counter's own digits, not values of their own
            value = float(spelled + grouped.group(0).replace(",", ""))
        if kind == lexicon.LOG2_SCALE:
            kind, value = lexicon.SCALE, lexicon.from_log2(value)
        if kind == AVERAGE:
            _averaged(out, key, value)
        elif kind == lexicon.COMPONENT:
            out.components.append((key, value))
        elif kind == lexicon.EVAL:
            out.evals.append((key, value))
        elif kind == lexicon.LOSS and (lexicon.LOSS in out.values or out.split == key) and (
                named := _objectives(out, text, start, key, separator, value)):
            out.components.append(named)
        elif (kind in _COUNTERS or kind == lexicon.EPOCH) and text[end:end + 1] == "%":
            # a bar described "steps" (kohya's, OneTrainer's "step:  12%|...| 120/1000 [")
            # or "epochs" (OpenPCDet's) shows its percentage there, the count after it
            continue
        elif kind in _COUNTERS and as_step(value) is None:
            continue  # fairseq's "update": 0.05 is a fraction of an epoch, not a counter
        elif kind not in out.values or (
                _prefer(kind, key, out.keys[kind])
                and not lexicon.objective_tag(_qualifier(text, start, key, separator))) or (
                kind == lexicon.STEP and out.keys[kind].lower() == "iter"
                and _STEP_AFTER_ITER.match(text, step_end) is not None) or (
                kind == lexicon.STEP and _global_after_share(key, text, step_end)):
            if kind == lexicon.STEP:
                if kind in out.values and out.keys[kind].lower() == "iter":
                    out.iteration = out.values[kind]
                step_end = end
            out.values[kind] = value
            out.keys[kind] = key
            if kind == lexicon.LOSS:
                out.zero_places = decimals(spelled) if value == 0.0 else 0
                out.loss_at = (start, separator)
            elif kind == lexicon.SCALE:
                out.scale_spelled = spelled
            elif kind == lexicon.MAYBE_SCALE:
                out.maybe_scale_spelled = spelled
    if out.components and "lm" in (held := out.keys.get(lexicon.LOSS, "")).lower() and (
            "lm" in lexicon.words(held)):
        # "lm" names an objective: the total only where it is the one printed (Megatron's
        # "lm loss"); beside other terms it is one of them (BLIP's and ALBEF's MetricLogger
        # "loss_ita: nan  loss_itm: 0.61  loss_lm: 3.01", lavis/models/blip_models/
        # blip_pretrain.py: the loss trained on is their sum)
        out.components.append((held, out.values.pop(lexicon.LOSS)))
        del out.keys[lexicon.LOSS]
        out.zero_places = 0
    if out.evals and (pair := region_losses.region_pair(text)) is not None:
        _regions(out, pair)
    return out


def _regions(out: MetricLine, pair: tuple[str, str]) -> None:
    """An inpainting loop's ``hole: ...; valid: ...`` (see region_losses): the two regions'
    losses are terms of the loss, so ``valid`` leaves the evaluation metrics."""
    valid = [(key, value) for key, value in out.evals
             if region_losses.valid_region(lexicon.words(key))]
    if not valid:
        return
    out.evals = [item for item in out.evals if item not in valid]
    out.components += [("hole", to_value(pair[0])), (valid[0][0], to_value(pair[1]))]


def _objectives(out: MetricLine, text: str, start: int, key: str, separator: str,
                value: float) -> tuple[str, float] | None:
    """The loss at ``start`` as one of two objectives printed under one name, each qualified
    by a word the key left out (eriklindernoren/PyTorch-GAN ``implementations/*/*.py``:
    ``"[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]"``): the discriminator's and the
    generator's, neither a total. Both become terms (their sum then stands for the line: a
    NaN in either is the run's, a discriminator at 0 beside a generator at 1.2 no zero
    loss). None where the key is no repeat or a word does not tell the two apart.

    Example:
        >>> text = "[Batch 3/938] [D loss: 0.000000] [G loss: nan]"
        >>> m = collect(find_claims(text)[0], text)
        >>> m.values, m.components
        ({'step': 3.0}, [('D loss', 0.0), ('G loss', nan)])
    """
    qualifier = _qualifier(text, start, key, separator)
    if not qualifier:
        return None
    if out.split == key:
        return f"{qualifier} {key}", value  # a third objective under the same name
    if out.keys.get(lexicon.LOSS) != key or out.loss_at is None:
        return None
    held = _qualifier(text, out.loss_at[0], key, out.loss_at[1])
    if not held or held == qualifier:
        return None
    out.components.append((f"{held} {key}", out.values.pop(lexicon.LOSS)))
    del out.keys[lexicon.LOSS]
    out.zero_places, out.split = 0, key
    return f"{qualifier} {key}", value


def _qualifier(text: str, start: int, key: str, separator: str) -> str:
    """The word printed right before the loss key ending before ``start`` (``D`` of ``[D
    loss: 0.1]``), where it is a short tag of letters or a word that names an objective
    (``diffusion`` of Grad-TTS' ``| diffusion loss = nan``); else ``""``."""
    head = text[:start - len(separator)]
    if not head.endswith(key):
        return ""
    words = head[max(0, len(head) - len(key) - 16):len(head) - len(key)].split()  # (a tag)
    word = words[-1].lstrip("[(|,") if words else ""
    if len(word) <= 3:
        return word if word.isalpha() else ""
    return word if lexicon.objective_tag(word) else ""


def _again(key: str, terms: list[str]) -> bool:
    """Whether a loss key is printed a second time on its line, after the set it belongs to:
    the held-out split's set under the same names (CenterNet's ``log.txt``, xingyizhou/
    CenterNet ``src/main.py``: ``logger.write('{} {:8f} | '.format(k, v))`` for each key of
    the training epoch's dict, then of the validation's, on one line: ``epoch: 5 |loss
    0.500000 | hm_loss ... | time 12.5 | loss nan | hm_loss nan | ...``): a set, two loss
    keys or more, the first of them printed again (the rest of the line is the held-out
    set's). A later key printed again is no new set: two terms the key reader shortened to
    the same noun (``Train Loss: x | Reconstruction Loss: y | KL Loss: z``, 2024yuva/
    multi-crop ``train_vae.py``, both read ``Loss``) are the training loss's terms.

    Example:
        >>> _again("loss", ["loss", "hm_loss"]), _again("Loss", ["Train Loss", "Loss"])
        (True, False)
    """
    return len(terms) > 1 and key == terms[0]


# The training split's name before its value (``train 4.2000``, ``train: nan``)
_TRAIN_SPLIT = re.compile(r"(?<![\w./-])(?:[Tt]rain(?:ing)?|trn)(?::|=)?[ \t]*(?=[-+.\dnNiI])")


def training_split_value(text: str, evals: list[tuple[str, float]]) -> float | None:
    """The value the training split's name keys on a line where a held-out split's name
    keys its own (``step  1000 | lr 6.00e-04 | train 4.2000 | val 4.2500``: each split's
    loss under the split's name, ChavezAILabs/sedenion-transformer-tinystories ``train.py``;
    see lexicon.training_split), alone or first in its metric's key (``train=0.04 |
    val_mse=0.05``, lexicon.held_out_first): the training loss; None where no held-out
    split is named so or no value follows ``train``.

    Example:
        >>> training_split_value("step 250 | train nan | val nan", [("val", float("nan"))])
        nan
        >>> training_split_value(" 12 train=nan | val_mse=nan", [("val_mse", float("nan"))])
        nan
        >>> training_split_value("train_acc 0.5 | val 0.4", [("val", 0.4)]) is None
        True
    """
    if "tr" not in text or not any(lexicon.held_out_first(key) for key, _v in evals):
        return None
    found = _TRAIN_SPLIT.search(text)
    value = None if found is None else VALUE.match(text, found.end())
    return None if value is None else to_value(value.group(0))


def unclaimed_nonfinite(text: str, claims: list[Claim]) -> list[tuple[str, float]]:
    """The non-finite values of a line about evaluation that no key of the lexicon claims,
    each under the word before it where that word names a score (``[ITER 7000] Evaluating
    test: L1 nan PSNR nan``: graphdeco-inria/gaussian-splatting ``train.py``
    ``training_report``, and the splatting and NeRF trainers copied from it): evaluation
    prints the scores it computes, whatever their names.

    Example:
        >>> unclaimed_nonfinite("[ITER 7000] Evaluating test: L1 nan PSNR inf", [])
        [('L1', nan)]
        >>> unclaimed_nonfinite("Validation loss decreased (inf --> 0.700000)", [])
        []
    """
    taken = {(start, end) for start, end, *_rest in claims}
    out: list[tuple[str, float]] = []
    previous = 0
    tracked = tracked_from(text)
    for found in VALUE.finditer(text):
        start, end = found.span()
        between, previous = text[previous:start], end
        if start >= tracked:
            break  # the best so far's values (see _BEST_SO_FAR)
        if found.group(0)[-1].isdigit() or (start, end) in taken:
            continue  # a finite number, or one a known key reads
        if _CHANGED_FROM.match(text, end) is not None or _ANSWERED.match(text, end):
            continue  # what a value changed from (``loss decreased (inf --> 0.70)``), or a
            # check's question its answer denies (``Test loss is NaN: False``)
        stripped = between.rstrip(_SEPARATORS)
        key = _KEY_TAIL.search(stripped[-80:]) if len(stripped) < len(between) else None
        if key is None:
            continue
        words = key.group(0).split()
        if lexicon.extreme_or_bound(words) or any(
                word.lower() in _DENIALS for word in words[:-1]):
            continue  # (a denial: "Test passed: loss did not become NaN")
        name = words[-1]  # the word before the value, not the prose before it
        value = to_value(found.group(0))
        if lexicon.measured_on_evaluation(name, value):
            out.append((name, value))
    return out


def decimals(spelled: str) -> int:
    """The decimals a number was printed with (0 in exponent notation).

    Example:
        >>> decimals("0.0000"), decimals("0.0"), decimals("0"), decimals("0.000e+00")
        (4, 1, 0, 0)
    """
    point = spelled.find(".")
    if point < 0 or "e" in spelled or "E" in spelled:
        return 0
    return len(spelled) - point - 1


def _global_after_share(key: str, text: str, held_end: int) -> bool:
    """Whether the step key ``key`` names the run's count (``global step``) after a step held
    that printed its total, a count of the epoch's share (coqui-ai/Trainer's ``--> TIME: ...
    -- STEP: 10/320 -- GLOBAL_STEP: 650``, trainer/logging/console_logger.py
    ``print_train_step``): the run's count numbers the line, read from the middle of a run
    too (the epoch's share and an epoch counted from the excerpt's start were 330).

    Example:
        >>> text = "STEP: 10/320 -- GLOBAL_STEP: 650"
        >>> _global_after_share("GLOBAL_STEP", text, 8), _global_after_share("step", text, 8)
        (True, False)
        >>> _global_after_share("global step", "step 10 global step 650", 7)
        False
    """
    return lexicon.words(key)[:1] == ("global",) and text[held_end:held_end + 8].lstrip(
        " ")[:1] == "/"


def _prefer(kind: str, key: str, held: str) -> bool:
    """A plain ``loss`` beats ``avg_loss`` / ``train_loss_epoch`` seen earlier on the line
    (not where a word before it names one objective: Wav2Lip's ``L1: 0.03, Sync Loss: 0.0``,
    see collect); any counter beats fairseq's ``update`` (the epoch's progress, 1.000 at its
    end)."""
    if kind == lexicon.STEP:
        return lexicon.words(held) == ("update",)
    return kind == lexicon.LOSS and lexicon.plain_loss_beats(key, held)


def to_value(text: str) -> float:
    """A number in any spelling a log holds.

    Example:
        >>> [to_value(t) for t in ("-nan", "nan.0", "1.#INF", "-Infinity", "1e-3", "-.inf",
        ...                        "infxxx", "NaN32", "-Inf16", "2.5f0", "1.0f-5")]
        [nan, nan, inf, -inf, 0.001, -inf, inf, nan, -inf, 2.5, 1e-05]
    """
    lowered = text.lower().rstrip("x")  # a fill after nan/inf ("nanxxx", see VALUE)
    if "#" in lowered:
        if "inf" in lowered:
            return -math.inf if lowered.startswith("-") else math.inf
        return math.nan
    if "nan" in lowered:
        return math.nan
    if ".inf" in lowered:  # YAML's spelling (PyYAML's safe_dump: ".inf", "-.inf", ".nan")
        return -math.inf if lowered.startswith("-") else math.inf
    if "inf" in lowered:  # Julia's width suffix ("Inf32", see VALUE)
        return -math.inf if lowered.startswith("-") else math.inf
    if "f" in lowered:  # Julia's Float32 exponent ("2.5f0", "1.0f-5")
        return float(lowered.replace("f", "e"))
    return float(lowered.removesuffix(".0") if lowered.endswith("nan.0") else lowered)


def as_step(value: float | None) -> int | None:
    """A counter's value as a step: a finite, non-negative whole number, else None.

    Example:
        >>> as_step(120.0), as_step(0.05), as_step(float("nan"))
        (120, None, None)
    """
    if value is None or not math.isfinite(value) or value < 0 or value != int(value):
        return None
    return int(value)

