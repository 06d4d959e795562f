"""fairseq's loss-scale lines and its train progress lines (simple, json and pipe formats).

Verbatim sources (fairseq 0.12): ``NOTE: gradient overflow detected, ignoring gradient,
setting loss scale to: {s}`` (trainer + DynamicLossScaler), ``AMP: overflow detected, setting
scale to to {s}`` (AMPOptimizer), ``[AMP: ]Minimum loss scale reached ({m}). Your loss is
probably exploding. ...``, and progress lines carrying ``num_updates`` / ``loss_scale``:
``epoch 001:    100 / 2000 loss=9.2, ..., num_updates=100, lr=..., gnorm=1.2, loss_scale=64``
or ``{"epoch": 1, "update": 0.05, "loss": "9.2", ..., "loss_scale": "64", ...}``.

Each run prints its whole configuration on one line as it starts (``fairseq_cli/train.py``:
``logger.info(cfg)``, an omegaconf dict ``{..., 'fp16': True, ..., 'fp16_init_scale': 128,
...}`` since 0.10.2; ``logger.info(args)`` / ``print(args)``, ``Namespace(..., fp16=True,
fp16_init_scale=128, ...)`` before): a run starts there, so the overflow lines of its own
start-up back-off, printed before its first progress line, are not read as the last run's.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.events import (
    FLAG,
    METRICS,
    OVERFLOW,
    RUN_START,
    SETUP,
    LogEvent,
    to_float,
    to_int,
)

FAMILY = "fairseq"
KEYWORDS = (b"verflow", b"loss")

_NUM = r"([-+]?\d[\d.]*(?:[eE][-+]?\d+)?|inf|nan)"
_NOTE = re.compile(r"gradient overflow detected, ignoring gradient, setting loss scale to:\s*"
                   + _NUM)
_AMP = re.compile(r"AMP: overflow detected, setting scale to (?:to )?" + _NUM)
_MINIMUM = re.compile(r"Minimum loss scale reached \(" + _NUM + r"\)")
# key=value (simple), "key": "value" (json) or | key value (pipes)
_FIELD = re.compile(
    r"""(?:^|[\s,{|])"?(loss|num_updates|loss_scale|gnorm|lr)"?(?:=|":\s*"?|\s+)"""
    r"""([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|inf)"""
)
# a field of the configuration dump: 'key': value (omegaconf) or key=value (argparse)
_CONFIG_FIELD = re.compile(r"""['"]?\b(fp16|amp|fp16_init_scale|amp_init_scale|min_loss_scale"""
                           r"""|fp16_scale_tolerance)"""
                           r"""['"]?(?::\s*|=)([\w.+-]+)""")


def parse(text: str) -> list[LogEvent]:
    """Events on one fairseq line.

    Example:
        >>> parse("NOTE: gradient overflow detected, ignoring gradient, setting loss scale "
        ...       "to: 64.0")[0].scale_after
        64.0
        >>> e = parse("epoch 001:     20 / 500 loss=nan, num_updates=20, lr=1e-05, gnorm=nan, "
        ...           "loss_scale=8")[0]
        >>> e.step, e.loss, e.scale_after
        (20, nan, 8.0)
    """
    if "verflow" in text:
        found = _NOTE.search(text) or _AMP.search(text)
        if found:
            return [LogEvent(OVERFLOW, FAMILY, scale_after=to_float(found.group(1)))]
    if "Minimum loss scale reached" in text and (found := _MINIMUM.search(text)):
        return [LogEvent(FLAG, FAMILY, code="AMP003",
                         summary=f"fairseq stopped: minimum loss scale reached "
                                 f"({found.group(1)}); the loss is exploding")]
    if "fp16_init_scale" in text:
        return _config(text)
    if "num_updates" not in text or "valid on '" in text:
        return []
    fields = {key: value for key, value in _FIELD.findall(text)}
    step = to_int(fields.get("num_updates"))
    if step is None or not ("loss" in fields or "loss_scale" in fields or "gnorm" in fields):
        # a counter named as fairseq names it, the values not as it prints them (a loop's own
        # ``num_updates=300  Loss=NaN``): the generic reader's line
        return []
    return [LogEvent(METRICS, FAMILY, step=step, loss=to_float(fields.get("loss")),
                     scale_after=to_float(fields.get("loss_scale")),
                     grad_norm=to_float(fields.get("gnorm")), lr=to_float(fields.get("lr")))]


def _config(text: str) -> list[LogEvent]:
    """A run's configuration dump: the run starts; its initial scale when it trains in fp16.

    Example:
        >>> _config("{'common': {'fp16': True, 'fp16_init_scale': 128, 'amp': False}}")[0].setup
        {'run_start': True, 'scaler': 'dynamic', 'init_scale': 128.0}
        >>> _config("Namespace(arch='lstm', fp16=False, fp16_init_scale=128)")[0].setup
        {'run_start': True}
        >>> _config("Namespace(fp16=True, fp16_init_scale=128, fp16_scale_tolerance=0.25)"
        ...         )[0].setup["scale_tolerance"]
        0.25
    """
    fields = dict(_CONFIG_FIELD.findall(text))
    setup: dict[str, object] = {RUN_START: True}
    for flag, init in (("fp16", "fp16_init_scale"), ("amp", "amp_init_scale")):
        if fields.get(flag) == "True":
            setup["scaler"] = "dynamic"
            setup["init_scale"] = to_float(fields.get(init))
            if flag == "fp16" and fields.get("min_loss_scale") is not None:
                setup["min_scale"] = to_float(fields["min_loss_scale"])
            if flag == "fp16" and fields.get("fp16_scale_tolerance") is not None:
                # (above 0, an overflow may keep the scale: assembler.SCALE_MAY_STAY)
                setup["scale_tolerance"] = to_float(fields["fp16_scale_tolerance"])
            break
    return [LogEvent(SETUP, FAMILY, setup=setup)]
