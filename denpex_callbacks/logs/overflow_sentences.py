"""Overflow sentences in any wording: a line that says a gradient overflow made the run skip
its step or lower its loss scale, from a tool that has no family parser and no row in the
message table (a custom loop's print, a toolkit nobody described).

A line is an overflow when it names the overflow (``overflow``, ``inf/nan``, ``nan or inf``,
``non-finite``, ``found inf``, ``gradient norm: nan``) and what the scaler did about it:
skipped the step (the update, the iteration, the batch; "the step was skipped"; "found inf
during ... step"; "skipping both actor and critic steps"; the step thrown out, or its
gradients zeroed or reset instead of applied) or reduced the loss scale (reduced, decreased,
lowered, halved, backed off, set, adjusted; a new scale announced, ``scale -> 512``).
A ``skipping`` that ends its clause counts beside a gradient's overflow (``nan grad detected,
skipping``), not a loss's (a NaN loss skipped is the loss's). A loss scale lowered to a number
is an overflow without the word (``loss scale decreased to 256``): a dynamic scaler lowers it
for nothing else. The scale after
it is the number the line says the scale goes to (``to 512``, ``-> 512``, ``scale=512``,
``new loss scale 512``); ``from X to Y`` gives both. A
negated overflow (``no overflow``, ``overflow: False``, ``overflow=0``) is none, and a line that
only counts overflows (``overflows: 3``) names no verb and is left to the metric reader, as is a
``key=value`` line such as ``overflow=True, loss_scale=8192`` (its other values are metrics).

A scale reported small with a value below 1 (``loss scale is too small: 1.2e-05``) is AMP004.
A scale said to be at its floor (``loss scale already at minimum``, ``minimum loss scale
reached``, ``cannot decrease the loss scale any further``) is AMP003 by itself: the scaler can
back off no more and the gradients still overflow.
"""

from __future__ import annotations

from denpex_callbacks.logs.events import FLAG, OVERFLOW, LogEvent, sentence_step, to_float
from denpex_callbacks.logs.lazy_patterns import lazy_pattern

FAMILY = "sentences"
# The prefilter's own nan, inf, scale and kipping find the rest ("non-finite, skipping").
# ``finite``: a guard's "non-finite grad steps" (it holds the table's ``not finite``: no
# more passes)
KEYWORDS = (b"verflow", b"VERFLOW", b"finite")
# What a line must hold before the rule's regexes are tried (metric lines come by millions);
# ``erflow`` finds hivemind's ``gradient over/underflow`` too.
_CUES = ("erflow", "VERFLOW", "nan", "NaN", "inf", "Inf", "INF", "finite")

_NUM = r"([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+))"
_CAUSE = lazy_pattern(
    r"(?i)\b(?:overflow(?:ed|s|ing)?|over/underflow|(?:inf|nan)s?\s*(?:/|\bor\b|\band\b|,)\s*(?:inf|nan)s?"
    r"|non-?finite|not\s+finite|found\s+(?:inf|nan)|(?:inf|nan)\s+grad(?:ient)?s?"
    r"|(?:grad(?:ient)?s?(?:\s+norm)?|loss)\s+(?:is\s+|are\s+|was\s+|[=:]\s*)?(?:nan|inf)"
    # a gradient norm given as a value ("invalid gradient norm: nan"; a loss's stays a metric)
    r"|grad(?:ient)?s?\s+norm\s*[=:]\s*(?:nan|inf)"
    # a NaN said to be in the gradients ("NaN found in grads", "Seen NaN in gradient")
    r"|(?:inf|nan)s?\s+(?:found\s+|detected\s+|seen\s+)?in\s+(?:the\s+)?(?:\w+\s+)?"
    r"grad(?:ient)?s?)\b")
_NEGATED = lazy_pattern(r"(?i)\b(?:no|without|not|never|0)\s+(?:\w+\s+)?overflow"
                        r"|overflow\w*(?:\s+count)?\s*[:=]?\s*(?:false|0|no|none)\b")
_KEY_VALUE = lazy_pattern(r"(?i)\boverflow(?:ed|s)?\s*[:=]\s*(?:true|1)\b")
# What the scaler did about it: skipped the step, lowered the scale, or the overflow is
# announced at a step ("overflow on iteration 1200"; not "checking for inf/nan at step 5") or
# found during one ("found inf during ShardedOptimV2 step": the optimizer skips that step).
_SKIPPED = lazy_pattern(
    r"(?i)\bskip(?:ping|ped|s)?\s+(?:this\s+|the\s+|current\s+|global\s+|optimizer\s+"
    r"|parameter\s+|weight\s+)?(?:step|updat\w*|iteration|iter|batch)"
    r"|\b(?:step|update|iteration|batch)\s+(?:was\s+|is\s+|has\s+been\s+|will\s+be\s+)?"
    r"skipped\b"
    r"|\boverflow\w*\s+(?:detected\s+)?(?:at|on|in)\s+(?:step|iteration|iter)\s*\d"
    # found while the optimizer stepped, which then returns (ColossalAI's ShardedOptimizerV2)
    r"|\bfound\s+(?:inf|nan)s?\s+during\s+(?:the\s+|this\s+)?(?:\w+\s+)?step\b"
    # the steps named after a few words ("skipping both actor and critic steps"), or the step
    # thrown out, or its gradients dropped instead of applied ("Throwing this step out",
    # "Setting gradients to zero", "resetting local gradients")
    r"|\bskip(?:ping|ped|s)?\s+(?:[a-z]+\s+){1,4}?(?:steps|updates)\b"  # (a count is no step)
    r"|\bthrow(?:ing|n)?\s+(?:this\s+|the\s+)?(?:step|update|batch)\s+(?:out|away)\b"
    r"|\bsetting\s+(?:the\s+|all\s+)?grad(?:ient)?s?\s+to\s+(?:zero|none)\b"
    r"|\b(?:zero(?:ing)?|reset(?:ting)?)\s+(?:the\s+|local\s+|all\s+)?grad(?:ient)?s\b")
# "skipping" that ends its clause ("nan grad detected at step 300, skipping"): the step is
# what a loop skips; read only beside a gradient's overflow (a loss's NaN is the loss's).
_SKIPPING = lazy_pattern(r"(?i)\bskip(?:ping|ped)\s*(?:[.!;,)\]]|$)")
# Marian names its loss scale the "cost-scaling factor"; mmcv "downscale[s]" it.
_SCALE_WORDS = (r"(?:(?:the|dynamic|loss|grad|gradient|fp16|amp|cost)[\s_-]+)*"
                r"scal(?:e|er|ing)\b")
_VERB = (r"(?:reduc|decreas|lower|halv|drop|shrink|back(?:ing|ed)?\s*off|adjust|set|cut"
         r"|downscal)\w*")
_REDUCED = lazy_pattern(r"(?i)\b" + _VERB + r"\s+" + _SCALE_WORDS + r"|\b" + _SCALE_WORDS
                        + r"\s+(?:is\s+|was\s+|has\s+been\s+)?" + _VERB + r"|\b(?:reduc|decreas)"
                        r"\w*\s+to\b")
# The scale after, in the order the wordings are tried: "scale from X to Y", "X -> Y",
# "reducing (loss scale) to Y", "new loss scale Y", "scale=Y".
_FROM_TO = lazy_pattern(r"(?i)" + _SCALE_WORDS + r"[^\d\n]{0,30}?\bfrom\s+" + _NUM
                        + r"\s*(?:to|->|→)\s*" + _NUM + r"(?![\w*]|\.\d)")
_ARROW = lazy_pattern(_NUM + r"\s*(?:->|→)\s*" + _NUM)
_REDUCED_TO = lazy_pattern(r"(?i)\b" + _VERB + r"\s+(?:" + _SCALE_WORDS + r"\s+)?(?:factor\s+)?"
                           r"(?:to|->|→)\s*:?\s*" + _NUM + r"(?:\s*\*\s*" + _NUM + r")?"
                           r"(?![\w*]|\.\d)")
# "overflow! scale -> 512": the scale after, announced with an arrow.
_SCALE_ARROW = lazy_pattern(r"(?i)" + _SCALE_WORDS + r"\s*[:=]?\s*(?:->|→|=>)\s*" + _NUM
                            + r"(?![\w*]|\.\d)")
# A loss scale lowered, in words that name no overflow ("loss scale decreased to 256",
# "Reducing grad scale from 1024 to 512"): a dynamic scaler lowers its scale for nothing else.
# The scale is named as a loss's, a gradient's or a precision's (a bare "scale" is an image's
# as often), and the verb only lowers ("set" and "adjusted" also start a run at its scale).
_NAMED_SCALE = lazy_pattern(r"(?i)\b(?:loss|grad(?:ient)?|cost|amp|fp16)[\s_-]+scal(?:e|er|ing)\b")
_LOWERED_TO = lazy_pattern(r"(?i)\b(?:reduc|decreas|lower|halv|drop|shrink|back(?:ing|ed)?\s*off"
                           r"|cut|downscal)\w*\s+(?:(?:the\s+)?" + _SCALE_WORDS
                           + r"\s+)?(?:factor\s+)?(?:from\s+" + _NUM + r"\s+)?to\s*:?\s*"
                           + _NUM + r"(?![\w*]|\.\d)")
# A skip and the scale's fall shown with an arrow, no overflow named ("[STEP] batch=400 AMP
# SKIPPED (scale 256.0→128.0)"): a scaler that skips and lowers its scale together met one.
_SKIP_WORD = lazy_pattern(r"(?i)\bskip(?:ped|ping|s)?\b")
_SCALE_FELL = lazy_pattern(r"(?i)\bscal(?:e|er|ing)\s*[:=(]?\s*" + _NUM + r"\s*(?:->|→)\s*"
                           + _NUM + r"(?![\w*]|\.\d)")
# Such a line's own batch counter ("batch=400"), where it names no step.
_BATCH_AT = lazy_pattern(r"(?i)\bbatch\s*[:=#]\s*(\d+)\b")
_NEW_SCALE = lazy_pattern(r"(?i)\bnew\s+" + _SCALE_WORDS + r"(?:\s+is)?\s*[:=]?\s*" + _NUM)
_SCALE_IS = lazy_pattern(r"(?i)" + _SCALE_WORDS + r"\s*[=:]\s*" + _NUM + r"(?![\w*]|\.\d)")
# "Attempted loss scale: X" / "current scale is X": the scale the step used.
_ATTEMPTED = lazy_pattern(r"(?i)\b(?:attempted|current|old|previous)\s+" + _SCALE_WORDS
                          + r"(?:\s+is)?\s*[:=]?\s*" + _NUM)
# The scale at its floor, still overflowing: "loss scale already at minimum", "cost-scaling
# factor is already at its minimum", "minimum loss scale reached", "cannot decrease the loss
# scale any further".
_AT_MINIMUM = lazy_pattern(
    r"(?i)\b(?:loss[\s_-]?|cost[\s_-]?|grad(?:ient)?[\s_-]?)?scal(?:e|er|ing)(?:\s+factor)?"
    r"(?:\s+(?:is|was|has\s+been))?\s+(?:already\s+)?(?:at|reached)\s+(?:its\s+|the\s+)?"
    r"(?:minimum|min|floor|lower\s+bound)\b"
    r"|\bminimum\s+(?:loss\s+)?scale\s+(?:\(\S+\)\s+)?(?:has\s+been\s+|was\s+)?reached"
    r"|\bcannot\s+(?:decrease|reduce|lower)\s+(?:the\s+)?(?:loss\s+)?scal\w*\s+(?:any\s*)?"
    r"(?:further|more|anymore)")
# A loop's guard that stopped the run after steps in a row whose gradients were not finite
# (a GSM8K fine-tune cell, index file 56138907195: ``f"ABORT at ep {ep+1}: {consec_bad}
# non-finite grad steps."``): under a dynamic scaler each of them halved the scale, which
# backed off that many times and still overflowed (AMP003). Group 1: how many.
_GAVE_UP = lazy_pattern(r"(?i)\b(?:abort\w*|stop(?:ped|ping|s)?|halt\w*|terminat\w*)\b[^\n]{0,40}?"
                        r"\b(\d+)\s+(?:consecutive\s+|successive\s+)?(?:non-?finite|inf/nan|nan/inf"
                        r"|overflow(?:ed|ing)?)\s+(?:grad(?:ient)?s?\s+)?(?:steps|updates|iterations"
                        r"|batches)\b")
# The scale reported small, with its value (icefall's "Grad scale is small: 0.0078" is a row of
# the message table; other loops word it their way: "loss scale is too small (1.2e-05)",
# "grad_scale very low: 0.0001").
_SMALL = lazy_pattern(r"(?i)\b(?:loss|grad(?:ient)?|amp|fp16)[\s_-]*scal(?:e|er|ing)(?:\s+factor)?"
                      r"\s*(?:is\s+|was\s+|became\s+|has\s+become\s+|got\s+)?(?:too\s+|very\s+"
                      r"|extremely\s+)?(?:small|tiny|low)\b[^\d\n]{0,20}?" + _NUM)
# The floor phrase as a key given a false value: a status or configuration dump ("loss scale at
# minimum: False", "minimum loss scale reached = 0") says the scale is not at its floor.
_NOT_SO = lazy_pattern(r"(?i)\s*(?:[:=]|\bis\b)?\s*['\"]?(?:false|no|none|off|0)(?![\w.])")


def parse(text: str) -> list[LogEvent]:
    """The overflow one line announces, in words no family knows.

    Example:
        >>> [(e.scale_before, e.scale_after) for e in parse(
        ...     "Gradient overflow detected. Reducing loss scale to 512.0")]
        [(None, 512.0)]
        >>> [(e.step, e.scale_after) for e in parse(
        ...     "step 301: found inf/nan in gradients, skipping update (scale=16384)")]
        [(301, 16384.0)]
        >>> [(e.scale_before, e.scale_after) for e in parse(
        ...     "Loss scale reduced from 65536 to 32768 due to overflow")]
        [(65536.0, 32768.0)]
        >>> [(e.step, e.scale_after) for e in parse("[step 7] overflow! new scale = 512")]
        [(7, 512.0)]
        >>> [(e.step, e.scale_after) for e in parse(
        ...     "Detected inf grad at step 300. Decreasing loss scale to 32768.0.")]
        [(300, 32768.0)]
        >>> len(parse("Gradient overflow detected, optimizer step was skipped"))
        1
        >>> len(parse("found inf during ShardedOptimV2 step")), parse("found inf during eval")
        (1, [])
        >>> len(parse("Skipping optimizer step - detected invalid gradient norm: nan"))
        1
        >>> [e.code for e in parse("Loss scaling factor already at minimum, cannot decrease")]
        ['AMP003']
        >>> parse("no overflow, skipping nothing"), parse("overflow=True, loss_scale=8192")
        ([], [])
        >>> parse("loss scale at minimum: False")  # a status dump: not at the floor
        []
        >>> [e.code for e in parse("step 40: loss scale is too small (1.2e-05)")]
        ['AMP004']
        >>> [e.code for e in parse("ABORT at ep 14: 50 non-finite grad steps.")]
        ['AMP003']
        >>> parse("Fine-tune done (skipped 4 non-finite steps)"), parse("stopped: 1 nan step")
        ([], [])
    """
    if (("inim" in text or "annot" in text) and (floor := _AT_MINIMUM().search(text))
            and not _NOT_SO().match(text, floor.end())):
        return [LogEvent(FLAG, FAMILY, step=sentence_step(text), code="AMP003",
                         summary="the loss scale is at its minimum and the gradients still "
                                 f"overflow ({floor.group(0)!r})")]
    if ("teps" in text or "pdates" in text or "atches" in text) and (
            gave_up := _GAVE_UP().search(text)) is not None and int(gave_up.group(1)) > 1:
        return [LogEvent(FLAG, FAMILY, step=sentence_step(text), code="AMP003",
                         summary="the run stopped after steps in a row whose gradients were "
                                 f"not finite ({gave_up.group(0)!r})")]
    if ("mall" in text or "low" in text or "iny" in text) and (small := _SMALL().search(text)):
        value = to_float(small.group(1))
        if value is not None and value < 1.0:
            return [LogEvent(FLAG, FAMILY, step=sentence_step(text), code="AMP004",
                             summary=f"the loss scale is reported small ({small.group(0)!r})")]
    if not any(cue in text for cue in _CUES):
        return _lowered(text) if "cal" in text else []
    cause = _CAUSE().search(text)
    if cause is None or _NEGATED().search(text) or _KEY_VALUE().search(text):
        return _lowered(text) if cause is None and "cal" in text else []
    if (_SKIPPED().search(text) is None and _REDUCED().search(text) is None
            and _NEW_SCALE().search(text) is None  # "overflow! new scale = 512"
            and _SCALE_ARROW().search(text) is None
            and (cause.group(0)[:1] in "lL" or _SKIPPING().search(text) is None)):
        return []
    before = after = None
    if found := _FROM_TO().search(text) or _ARROW().search(text):
        before, after = to_float(found.group(1)), to_float(found.group(2))
    elif found := _REDUCED_TO().search(text):
        after = to_float(found.group(1))
        if found.group(2) is not None and after is not None:  # Paddle's "to: 1024.0*0.5"
            after *= float(found.group(2))
        if attempted := _ATTEMPTED().search(text):
            before = to_float(attempted.group(1))
    elif found := _NEW_SCALE().search(text):
        after = to_float(found.group(1))
        if attempted := _ATTEMPTED().search(text):
            before = to_float(attempted.group(1))
    elif found := _ATTEMPTED().search(text):
        before = to_float(found.group(1))
    elif found := _SCALE_IS().search(text) or _SCALE_ARROW().search(text):
        after = to_float(found.group(1))
    return [LogEvent(OVERFLOW, FAMILY, step=sentence_step(text),
                     scale_before=before, scale_after=after)]


def _lowered(text: str) -> list[LogEvent]:
    """The overflow a line tells only by the loss scale it lowered (``_LOWERED_TO``), or by
    the step it skipped and the new scale it names (``Skipped batch, new scale: 4096.0``:
    NVIDIA's GNMT ``Fp16Optimizer``, whose cause, ``Gradient norm: inf``, is the line above).

    Example:
        >>> [(e.kind, e.scale_after) for e in _lowered("Skipped batch, new scale: 4096.0")]
        [('overflow', 4096.0)]
        >>> _lowered("Upscaling, new scale: 8192.0"), _lowered("new scale: 0.5")
        ([], [])
        >>> [(e.step, e.scale_after) for e in _lowered("[STEP] batch=40 AMP SKIPPED (scale "
        ...                                             "256.0→128.0)")]
        [(40, 128.0)]
        >>> _lowered("skipped 2 files, scale 1.0 -> 2.0")  # no fall
        []
    """
    if (_SKIPPED().search(text) is not None and "new" in text
            and (named := _NEW_SCALE().search(text)) is not None):
        # a step skipped and the scale it left: a dynamic scaler skips and lowers together
        return [LogEvent(OVERFLOW, FAMILY, step=sentence_step(text),
                         scale_after=to_float(named.group(1)))]
    if (("kip" in text or "KIP" in text) and _SKIP_WORD().search(text) is not None
            and (fell := _SCALE_FELL().search(text)) is not None):
        # (a scale printed ``.1f`` shows a tiny one as 0.0: a skip at 0.0 -> 0.0 is one too)
        before, after = to_float(fell.group(1)), to_float(fell.group(2))
        if before is not None and after is not None and (after < before or after == 0.0):
            step = sentence_step(text)
            if step is None and (batch := _BATCH_AT().search(text)) is not None:
                step = int(batch.group(1))
            return [LogEvent(OVERFLOW, FAMILY, step=step, scale_before=before,
                             scale_after=after)]
    if (found := _LOWERED_TO().search(text)) is None or _NAMED_SCALE().search(text) is None:
        return []
    before, after = to_float(found.group(1)), to_float(found.group(2))
    if after is None or (before is not None and after >= before):
        return []
    return [LogEvent(OVERFLOW, FAMILY, step=sentence_step(text), scale_before=before,
                     scale_after=after)]
