"""A non-finite training loss announced in a sentence, in any wording: a custom loop's or an
undescribed toolkit's warning that its loss went NaN (``NaN detected in loss at iteration
1200``, ``Detected NaN loss, skipping batch``, ``loss became inf at step 7``, ``Stopping
training due to NaN loss``), which holds no ``key: value`` pair for the metric reader.

A line is one when it names a non-finite value (``nan``, ``inf``, ``nan/inf``, ``non-finite``,
``not finite``) and the loss together with a word that says it was seen (detected, found,
encountered, occurred, observed, got, became, at/on step ...), in one of these orders: the
value found in the loss, a non-finite loss found, the loss became (went to, is) non-finite, the
value in the loss (``NaN in loss``), or a non-finite loss given as the cause of what the loop
did (``due to``, ``because of``: pytorch-accelerated's ``TerminateOnNaNCallback``). The step is
the one the line names, else the next one. A line whose whole message is ``NaN detected``
(DINOv2's, before it stops) says it of the loss too. A negated finding (``no NaN loss``), an
evaluation loss (``NaN detected in val loss``: the evaluation stream's, read by the metric
reader where it has a value) and a setting (``nan loss check enabled``, no verb of finding) are
none.
"""

from __future__ import annotations

import math

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import EVAL, METRICS, LogEvent, sentence_step
from denpex_callbacks.logs.lazy_patterns import lazy_pattern

FAMILY = "sentences"
# The prefilter's own "nan", "NaN", "inf" and "oss" find the lines; "NAN"/"INF" alone would
# match every "INFO" line.
KEYWORDS: tuple[bytes, ...] = ()
# What a line must hold before the regex is tried (metric lines come by millions): "loss"
# and a non-finite word ("INF" alone would be every "[INFO]" line). "Nan": NVIDIA Modulus
# Sym's trainer says ``loss went to Nans`` (modulus/sym/trainer.py, ``self.log.error``).
_CUES = ("nan", "NaN", "Nan", "inf", "Inf", "finite")

_VALUE = (r"(?:nan\s*(?:/|or|and)\s*inf|inf\s*(?:/|or|and)\s*nan|nan|infinity|inf|non-?finite"
          r"|not\s+finite)")
_FOUND = (r"(?:detected|found|encountered|occurred|occured|appeared|observed|seen|produced"
          r"|got)")
_EVAL = r"(?:val|valid|validation|eval|evaluation|test|dev)"
# The word before "loss" that names which loss (evaluation named anywhere: see _EVAL_WORD).
_WHICH = r"(?:[a-z_]+\s+)?"
_LOSS = r"loss(?:_\w+)?\b"  # the loss, or a term of it (loss_ctc)
_CAUSE = (r"\b(?:due\s+to|because\s+of|caused\s+by|owing\s+to)\s+(?:an?\s+|the\s+)?" + _VALUE
          + r"\s+" + _WHICH + _LOSS)
# A cause a loop reports having had none of (a count of zero after it: ``Skipped due to NaN
# loss: 0``, ``... = 0``; a denial or a zero count before it in the line: ``No batches were
# skipped due to NaN loss``, ``Skipped 0 batches due to inf loss``): a summary, no finding.
_CAUSE_ONLY = lazy_pattern(r"(?i)" + _CAUSE)
_NONE_BEFORE = lazy_pattern(r"(?i)\b(?:no|not|never|none|zero)\b|\b0\s+[a-z]")
_SENTENCE = lazy_pattern(
    r"(?i)\b(?:"
    # "NaN detected in loss", "inf found in the training loss"
    + _VALUE + r"\s+(?:values?\s+)?" + _FOUND + r"\s+(?:in|for|on)\s+(?:the\s+)?" + _WHICH
    + _LOSS
    # "Detected NaN loss", "encountered a non-finite training loss", "got inf loss"
    + r"|" + _FOUND + r"\s+(?:an?\s+)?" + _VALUE + r"\s+" + _WHICH + _LOSS
    # "NaN loss detected", "nan loss at step 7", "Non-finite loss encountered"
    + r"|" + _VALUE + r"\s+" + _WHICH + _LOSS + r"(?:\s+(?:(?:was|is|has\s+been)\s+)?(?:" + _FOUND
    + r"|(?:at|on|in)\s+(?:step|iter|iteration|batch|epoch|update|rank)\b)"
    # "nan loss, step 200": the step after a comma, its number right after it
    + r"|,\s*(?:step|iter|iteration|batch|update)\s*[:=]?\s*\d)"
    # "Stopping training due to NaN loss", "skipped because of an inf loss": the value given
    # as the cause of what the loop did, which a cause can only be once it was seen
    + r"|" + _CAUSE
    # "NaN in loss", "inf in the total loss": the value placed in the loss
    + r"|" + _VALUE + r"\s+(?:values?\s+)?in\s+(?:the\s+)?" + _WHICH + _LOSS
    # "loss became NaN", "loss has become inf", "the loss went (to) non-finite", "the loss is
    # not finite"
    + r"|\bloss\s+(?:has\s+)?(?:became|become|becomes|turned|went|goes|exploded|is|was)"
    + r"\s+(?:to\s+|into\s+)?" + _VALUE + r")")
# The model's outputs found non-finite in a training loop, which skips the batch before its
# loss (``NaN detected in model outputs in batch 12``, ``NaN in model outputs at step 5,
# skipping batch``, ``Detected NaN in model outputs``): the forward pass went non-finite, the
# loss it would give is (AMP006, whose causes start there).
_OUTPUTS = r"in\s+(?:the\s+)?model(?:'s)?\s+outputs?\b"
_OUTPUTS_SENTENCE = lazy_pattern(
    r"(?i)\b(?:" + _VALUE + r"\s+(?:values?\s+)?(?:" + _FOUND + r"\s+)?" + _OUTPUTS
    + r"|" + _FOUND + r"\s+(?:an?\s+)?" + _VALUE + r"\s+(?:values?\s+)?" + _OUTPUTS + r")")
_NO_VALUE = lazy_pattern(r"(?i)\b(?:no|without|never|zero|0)\s+" + _VALUE)  # ("No NaN in ...")
# A check's report that found nothing: a value after the sentence that says none (``NaN in
# model outputs: False``, ``NaN values in model outputs: 0``, ``...: none found``), or a check
# named before it (``checked for NaN in model outputs``, ``checking for ...``).
_FOUND_NONE = lazy_pattern(r"(?i)[^:=\n]{0,20}[:=]\s*(?:false|no|none|0(?:\.0*)?)\b"
                           r"|.{0,40}\b(?:none|nothing|not)\s+found\b")
# A check printed as a yes/no answer after its question (``print(f"Loss is NaN:
# {torch.isnan(loss)}")``: ``Loss is NaN: tensor(False)``; ``NaN in loss: tensor(False,
# device='cuda:0')``; ``.item()``'s ``False``; jax.debug.print's ``Checking for NaN in loss:
# False``, a JAX array's ``Array(False, dtype=bool)``; ``NaN detected in loss: 0``; ``Any NaN in
# loss? False``): group 1, the check found nothing; group 2, it found the value. Only a whole
# answer: ``0.5``, ``12`` or a word beginning so are no yes/no.
_ANSWER = lazy_pattern(r"(?i)[^:=?\n]{0,20}[:=?]\s*(?:(?:tensor|array|np\.bool_?|bool)\(\s*\[*\s*)?"
                       r"(?:(false|no|none|0(?:\.0*)?)|(true|yes|1(?:\.0*)?))(?![\w.])")
_CHECKED_FOR = lazy_pattern(r"(?i)\bcheck(?:ed|ing|s)?\s+(?:for\s+)?$")
_NEGATED = lazy_pattern(r"(?i)\b(?:no|without|never|not\s+a|zero|0)\s+(?:\w+\s+)?" + _VALUE
                      + r"\s+(?:\w+\s+)?loss")
# Evaluation named anywhere in the line ("got inf loss on eval batch 3", "val loss became
# nan"): the evaluation stream's, read by the metric reader where it has a value.
_EVAL_WORD = lazy_pattern(r"(?i)\b" + _EVAL + r"\b")
# A denial right before the sentence: a check's report that it found none (lstival/
# ssm_time_series ``src/test_m5_nan.py``: ``print("PASS: no NaN/Inf detected in
# loss/grad/params.")`` after its loop; ``No NaN detected in loss``), which _NEGATED's one word
# between the value and the loss does not reach. Searched up to the sentence's start only.
_DENIED = lazy_pattern(r"(?i)\b(?:no|never|without)\s+$")
# The announcement alone, the whole message after its logger's prefix: DINOv2's
# (dinov2/train/train.py ``do_train``: ``if math.isnan(losses_reduced):  # this happens most
# likely due to fp16`` then ``logger.info("NaN detected")`` and ``raise AssertionError``,
# behind its glog-like prefix ``I20240601 10:00:00 12345 dinov2 train.py:262] ``).
_BARE = lazy_pattern(r"(?i)(?:^|[\]:|]\s*)(?:nan|non-?finite)\s+detected[.!]?\s*$")
# A non-finite loss named alone, the whole message: STAckable-Recurrent-network's
# (0zgur0/STAckable-Recurrent-network ``train_agent.py``: ``if np.isnan(loss):
# print('!'*70); print('Nan loss value'); sys.exit()``), which prints it once and stops. Only
# the value's word, the loss and ``value`` may be on the line: a name with more before or after
# it is a key or a column, not the finding.
_BARE_LOSS = lazy_pattern(r"(?i)(?:^|[\]:|]\s*)(?:nan|inf|non-?finite)\s+loss(?:\s+values?)?"
                        r"[.!]*\s*$")
# A non-finite value announced at a step, the message's first words (a loop that skips the
# batch: ``print(f'  ⚠ NaN at step {step+1}, skipped {skipped_steps}')``, a README's DETR
# loop, index file 51853581630): the loop's own value, its loss. Only after the line's start or
# a mark (``⚠``, ``]``, ``:``): a value named before it (``grad_norm nan at step 5``) is that
# value's, and an evaluation's stays out (``_EVAL_WORD``).
_BARE_AT_STEP = lazy_pattern(r"(?i)(?:^|[^\w\s]\s*)(?:nan|inf|non-?finite)\s+(?:value\s+)?"
                             r"(?:(?:detected|found|encountered)\s+)?(?:at|on|in)\s+"
                             r"(?:step|iter|iteration|batch)\s*[:=#]?\s*\d")
# A C++ loop's check that its loss is finite, failed: it aborts the run on a NaN loss before
# printing it. pytorch/examples ``cpp/mnist/mnist.cpp`` (and the libtorch loops copied from
# it) ``AT_ASSERT(!std::isnan(loss.template item<float>()))``, which c10 reports as
# ``what():  <condition> INTERNAL ASSERT FAILED at "<file>":<line>, please report a bug to
# PyTorch.`` (c10/util/Exception.h ``TORCH_INTERNAL_ASSERT``; before torch 1.5 ``Expected
# <condition> to be true, but got false.``), glog's ``CHECK`` as ``Check failed: <condition>``.
# The condition names the loss inside ``isnan(`` or ``isfinite(``; the loop printed no step.
_ASSERTED = lazy_pattern(r"(?i)!\s*(?:\w+::)*isnan\s*\(\s*[\w.>-]*loss|(?<!!)\b(?:\w+::)*isfinite"
                       r"\s*\(\s*[\w.>-]*loss")
_FAILED = lazy_pattern(r"ASSERT(?:ION)? FAILED|to be true, but got false|Check failed")
# Deeplearning4j's training score, which is its loss (the loss function's value plus the
# regularization terms): ScoreIterationListener's ``log.info("Score at iteration {} is {}",
# iteration, score)`` (deeplearning4j/deeplearning4j ``deeplearning4j-nn/.../optimize/
# listeners/ScoreIterationListener.java``), Java spelling a non-finite double ``NaN`` or
# ``Infinity``. The message starts the line or follows its logger's prefix (``... - ``,
# ``] ``): a named score ("Rouge score at iteration 3 is nan") is an evaluation's.
_SCORE = lazy_pattern(r"(?i)(?:^|[-\]:|]\s+)score\s+at\s+(?:iteration|iter|step)\s+(\d+)\s+is\s+"
                    r"(?:-\s*)?(nan|infinity|inf)\b")


# A line of source a traceback echoes under its ``File "...", line N, in ...`` line (DiffWave's
# ``    raise RuntimeError(f'Detected NaN loss at step {self.step}.')``, lmnt-com/diffwave
# src/diffwave/learner.py): the code that prints the sentence, not the sentence printed (the
# exception's own line below it says it, with its step).
_SOURCE_LINE = lazy_pattern(r"\s+(?:raise|print|warnings\.warn|log(?:ger|ging)?\.[a-z]+)\b\(?")


def parse(text: str) -> list[LogEvent]:
    """The non-finite training loss one line announces in words no family knows.

    Example:
        >>> [(e.step, e.loss) for e in parse("WARNING:root:NaN detected in loss at iteration 12")]
        [(12, nan)]
        >>> [(e.step, e.loss) for e in parse("Detected NaN loss, skipping batch")]
        [(None, nan)]
        >>> [e.step for e in parse("step 7: loss became inf")]
        [7]
        >>> [(e.step, e.loss) for e in parse("[07:16:49] - loss went to Nans")]
        [(None, nan)]
        >>> parse("nan loss check enabled"), parse("No NaN loss in 1000 steps")
        ([], [])
        >>> parse("NaN detected in val loss at step 5"), parse("Got inf loss on eval batch 3")
        ([], [])
        >>> parse("Will stop training if the loss becomes NaN")  # a condition, not a finding
        []
        >>> [e.step for e in parse("step 200: NaN in loss, abort")], parse("the loss is finite")
        ([200], [])
        >>> parse("Checking for NaN loss at every step")
        []
        >>> [e.loss for e in parse("I20240601 10:00:00 12 dinov2 train.py:262] NaN detected")]
        [nan]
        >>> parse("NaN detected in PWLinear bin indexing"), parse("no NaN detected")
        ([], [])
        >>> [e.step for e in parse("nan loss, step 200")]
        [200]
        >>> [e.loss for e in parse("Stopping training due to NaN loss in training step")]
        [nan]
        >>> parse("Stopping training due to NaN loss in validation step")  # evaluation's
        []
        >>> parse("  - Skipped due to NaN loss: 0"), parse("Skipped 0 batches due to inf loss")
        ([], [])
        >>> [e.step for e in parse("[Warning] NaN in model outputs at step 5, skipping batch")]
        [5]
        >>> [e.step for e in parse("Warning: NaN detected in model output, skipping batch")]
        [None]
        >>> parse("No NaN in model outputs"), parse("NaN in model outputs on the test set")
        ([], [])
        >>> parse("NaN in model outputs: False"), parse("NaN values in model outputs: 0")
        ([], [])
        >>> parse("checked for NaN in model outputs at step 10: none found")
        []
        >>> parse("    raise RuntimeError(f'Detected NaN loss at step {self.step}.')")
        []
        >>> [e.loss for e in parse("Nan loss value")], parse("nan loss values: 0 of 12")
        ([nan], [])
        >>> parse("PASS: no NaN/Inf detected in loss/grad/params.")  # a check that found none
        []
        >>> parse("Loss is NaN: tensor(False, device='cuda:0')"), parse("Any NaN in loss? False")
        ([], [])
        >>> [e.loss for e in parse("NaN in loss: tensor(True)")], parse("NaN detected in loss: 0")
        ([nan], [])
        >>> [(e.kind, e.loss) for e in parse("Val loss is NaN: True")]
        [('eval', nan)]
        >>> [(e.step, e.loss) for e in parse("  ⚠ NaN at step 700, skipped 1")]
        [(700, nan)]
        >>> parse("grad_norm nan at step 5"), parse("eval: NaN at step 40")
        ([], [])
    """
    if not any(cue in text for cue in _CUES) or _SOURCE_LINE().match(text):
        return []
    if "oss" in text:
        if "isnan" in text or "isfinite" in text:
            return _asserted(text)
        found = _SENTENCE().search(text) or (
            _BARE_LOSS().search(text) if text.rstrip(" .!\t\r\n")[-12:].lower().endswith(
                ("loss", "value", "values")) else None)  # (the cheap check: the line's end)
    elif "utput" in text:
        found = _OUTPUTS_SENTENCE().search(text)
        if found is not None and (_NO_VALUE().search(text, 0, found.end())
                                  or _FOUND_NONE().match(text, found.end())
                                  or _answered_no(text, found.end())
                                  or _CHECKED_FOR().search(text, 0, found.start())):
            return []
    elif "core at" in text:
        return _score(text)
    else:
        if "etected" in text and _BARE().search(text):
            return [LogEvent(METRICS, FAMILY, step=None, loss=math.nan)]
        if " at " in text and (bare := _BARE_AT_STEP().search(text)) is not None and not (
                _EVAL_WORD().search(text) or _NO_VALUE().search(text)):
            value = bare.group(0).lower()
            loss = math.inf if "inf" in value and "nan" not in value else math.nan
            return [LogEvent(METRICS, FAMILY, step=sentence_step(text), loss=loss)]
        return []
    if (found is None or _NEGATED().search(text)
            or _DENIED().search(text, 0, found.start())
            or lexicon.HYPOTHETICAL.search(text, 0, found.start())
            or (_CAUSE_ONLY().match(text, found.start()) and (
                _FOUND_NONE().match(text, found.end())
                or _NONE_BEFORE().search(text, 0, found.start())))):
        return []
    answer = _ANSWER().match(text, found.end())
    if answer is not None and answer.group(1) is not None:
        return []  # the check's answer: none found
    value = found.group(0).lower()
    loss = math.inf if "inf" in value and "nan" not in value else math.nan
    if _EVAL_WORD().search(text):
        # An evaluation loss's check that answers yes (``Val loss is NaN: True``) gives the
        # metric reader no ``key: value`` pair: told to the evaluation stream here.
        return ([LogEvent(EVAL, FAMILY, step=sentence_step(text), metric="loss", loss=loss)]
                if answer is not None else [])
    return [LogEvent(METRICS, FAMILY, step=sentence_step(text), loss=loss)]


def _answered_no(text: str, end: int) -> bool:
    """Whether a yes/no answer after the sentence ending at ``end`` says none was found.

    Example:
        >>> _answered_no("NaN in loss: tensor(False)", 11), _answered_no("NaN in loss: True", 11)
        (True, False)
        >>> _answered_no("NaN in loss: 0.5", 11)
        False
    """
    answer = _ANSWER().match(text, end)
    return answer is not None and answer.group(1) is not None


def _asserted(text: str) -> list[LogEvent]:
    """The failed check that the loss is finite a C++ loop aborts on (see ``_ASSERTED``).

    Example:
        >>> line = ('  what():  !std::isnan(loss.template item<float>()) INTERNAL ASSERT FAILED '
        ...         'at "/src/examples/cpp/mnist/mnist.cpp":62, please report a bug to PyTorch.')
        >>> [(e.step, e.loss) for e in _asserted(line)]
        [(None, nan)]
        >>> _asserted("AT_ASSERT(!std::isnan(loss.template item<float>()));")  # the source
        []
    """
    if _ASSERTED().search(text) is None or _FAILED().search(text) is None:
        return []
    return [LogEvent(METRICS, FAMILY, step=None, loss=math.nan)]


def _score(text: str) -> list[LogEvent]:
    """A non-finite Deeplearning4j score at the iteration the line names (see ``_SCORE``).

    Example:
        >>> line = "12:00:01 INFO  o.d.o.l.ScoreIterationListener - Score at iteration 520 is NaN"
        >>> [(e.step, e.loss) for e in _score(line)]
        [(520, nan)]
        >>> _score("Rouge score at iteration 3 is nan"), _score("Score at iteration 3 is 0.25")
        ([], [])
    """
    found = _SCORE().search(text)
    if found is None:
        return []
    loss = math.nan if found.group(2).lower() == "nan" else math.inf
    return [LogEvent(METRICS, FAMILY, step=int(found.group(1)), loss=loss)]


# How many lines after an evaluation's non-finite value a split-less sentence may repeat it.
_ECHO_REACH = 3


class EvaluationEcho:
    """A non-finite loss told in a sentence without its split, right after a non-finite
    evaluation value: pytorch-accelerated's TerminateOnNaNCallback prints ``Stopping training
    due to NaN loss in validation step`` (the metric reader's evaluation value), then, as the
    run ends, ``Exiting due to NaN loss`` (Chris-hughes10/pytorch-accelerated
    ``pytorch_accelerated/callbacks.py``). The second is the first finding's echo, no training
    loss of its own.

    Example:
        >>> echo = EvaluationEcho()
        >>> echo.told(LogEvent(EVAL, "generic", loss=math.nan, metric="val_loss"), 10, "")
        False
        >>> exiting = "Exiting due to NaN loss"
        >>> echo.told(parse(exiting)[0], 12, exiting), echo.told(parse(exiting)[0], 40, exiting)
        (True, False)
        >>> found = "Warning: NaN loss detected, skipping batch"
        >>> echo.told(parse(found)[0], 11, found)
        False
    """

    def __init__(self) -> None:
        self.line = -_ECHO_REACH - 1  # the line of the last non-finite evaluation value

    def told(self, event: LogEvent, line: int, text: str) -> bool:
        """Whether ``event``, read from ``line`` (``text``), repeats the evaluation's NaN just
        read: a sentence that gives the NaN as the cause of what the loop did (``Exiting due
        to NaN loss``); a finding (``NaN loss detected, skipping batch``) is the training
        loop's own. An evaluation's non-finite value is noted, and is no echo."""
        if event.loss is None or math.isfinite(event.loss):
            return False
        if event.kind == EVAL:
            self.line = line
            return False
        return (event.family == FAMILY and event.kind == METRICS and event.step is None
                and line - self.line <= _ECHO_REACH and _CAUSE_ONLY().search(text) is not None)
