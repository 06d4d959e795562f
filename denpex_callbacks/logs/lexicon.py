"""What a metric key names, whatever the tool spells it: loss, loss scale, gradient norm...

Keys are normalised (lower case, ``_ - . /`` and camelCase boundaries become spaces) and then
matched: exact phrases for scale, grad norm, skipped counters, step counters and learning
rate; for losses, a key whose words are ``loss`` plus harmless qualifiers (``train``,
``avg``, ``total``, ``lm``, ``step``...) is the training loss, any other word makes it a
component (``loss_cls``, ``d_loss``, ``box_loss``). Keys that start with an evaluation prefix
(``val``, ``eval``, ``test``...) name nothing here: validation metrics are not training losses.
"""

from __future__ import annotations

import functools
import re

LOSS = "loss"  # the total training loss
COMPONENT = "component"  # one term of the loss (loss_cls, d_loss): not the total
SCALE = "scale"  # the current loss scale
GRAD_NORM = "grad_norm"
SKIPPED = "skipped"  # a cumulative count of skipped steps
STEP = "step"  # an optimizer step / iteration counter
EPOCH = "epoch"
LR = "lr"

_EVAL = frozenset({"val", "valid", "validation", "eval", "evaluation", "test", "dev",
                   "testing", "holdout"})
_TRAIN = frozenset({"train", "training", "tr", "trainer", "optim"})
# Words that may sit beside "loss" in the name of the total training loss.
_QUALIFIERS = frozenset({
    "avg", "average", "avr", "mean", "running", "smoothed", "smooth", "total", "lm", "step",
    "epoch", "overall", "reduced", "batch", "iter", "sum", "global", "current", "cur", "final",
    "ema", "loss", "losses", "all", "objective", "reported", "mb", "micro", "main", "full",
    "moving", "value",
})
# Words that make a "loss..." key a setting rather than a value (loss_weight, min_loss_scale).
_SETTING = frozenset({
    "scale", "scaler", "window", "weight", "weights", "coef", "coeff", "coefficient", "factor",
    "fn", "type", "func", "function", "scaling", "power", "ratio", "clip", "threshold", "min",
    "max", "init", "initial", "name", "names", "config", "cfg", "reduction", "mode", "class",
    "ignore", "index", "hysteresis", "delta", "patience", "best", "target", "lambda",
})

# A verb between a key and its value in a sentence-like print.
_VERBS = frozenset({"is", "was", "becomes", "became"})

_EXACT: dict[tuple[str, ...], str] = {}
for _role, _phrases in {
    SCALE: ("loss scale", "lossscale", "loss scaler", "grad scale", "fp16 grad scale",
            "current scale", "cur scale", "amp scale", "scaler scale", "scaler",
            "dynamic loss scale", "current loss scale", "cur loss scale", "loss scale value",
            "gradscaler scale", "loss scaling", "loss scale factor", "grad scaler",
            "gradient scale", "loss scaling factor", "dynamic scale"),
    GRAD_NORM: ("grad norm", "gradnorm", "gnorm", "grad", "grads norm", "gradient norm",
                "grad l2 norm", "total norm", "total grad norm", "global grad norm",
                "global norm", "grad norm total", "gradients norm", "grad total norm",
                "gradient global norm", "grad norm avg", "grad norm mean", "norm grad",
                "gradient norm total", "grads"),
    SKIPPED: ("skipped", "skipped steps", "skipped iterations", "skipped iters",
              "num skipped", "number of skipped iterations", "skip count", "overflows",
              "overflow count", "num overflows", "skipped updates", "skipped total",
              "total skipped", "num skipped steps", "nan iterations"),
    STEP: ("step", "global step", "iter", "iteration", "num updates", "updates", "update",
           "optimizer step", "global iteration", "iters", "gstep", "global steps",
           "trainer global step", "it", "num steps", "step num", "steps", "optimizer steps"),
    EPOCH: ("epoch", "epochs", "ep"),
    LR: ("lr", "learning rate", "learningrate", "lr0", "lr group 0", "current lr",
         "cur lr", "learning rate 0", "lr 0", "base lr"),
}.items():
    for _phrase in _phrases:
        _EXACT[tuple(_phrase.split())] = _role

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[\s_\-./:\[\]()'\"]+")


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


def is_evaluation(key: str) -> bool:
    """Whether a key names an evaluation metric (``val_loss``, ``eval/loss``, ``Test Loss``).

    Example:
        >>> is_evaluation("val_lm loss"), is_evaluation("train_loss")
        (True, False)
    """
    parts = words(key)
    return bool(parts) and parts[0] in _EVAL


@functools.lru_cache(maxsize=4096)
def role(key: str | tuple[str, ...]) -> str | None:
    """What a metric key names: one of the role constants, or None.

    Example:
        >>> [role(k) for k in ("train_loss_step", "lm loss", "loss_cls", "val_loss",
        ...                    "loss scale", "min_loss_scale", "grad_norm", "Iter",
        ...                    "current scale is")]
        ['loss', 'loss', 'component', None, 'scale', None, 'grad_norm', 'step', 'scale']
    """
    parts = words(key) if isinstance(key, str) else key
    if len(parts) > 1 and parts[-1] in _VERBS:
        parts = parts[:-1]  # Paddle's "current scale is: 1024.0", "loss is nan"
    if not parts or parts[0] in _EVAL:
        return None
    while len(parts) > 1 and parts[0] in _TRAIN:
        parts = parts[1:]
    if parts[0] in _EVAL:
        return None
    exact = _EXACT.get(parts)
    if exact is not None:
        return exact
    if "loss" not in parts and "losses" not in parts:
        return None
    if any(part in _SETTING for part in parts):
        return None
    if all(part in _QUALIFIERS for part in parts):
        return LOSS
    return COMPONENT
