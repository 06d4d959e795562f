"""Errors and warnings of other tools that name an AMP fault.

Verbatim sources:
- detectron2 ``detectron2/engine/train_loop.py`` (``SimpleTrainer._write_metrics``):
  ``FloatingPointError: Loss became infinite or NaN at iteration={iter}!`` (AMP006).
- accelerate ``accelerate/accelerator.py`` (``Accelerator.__init__`` of earlier releases):
  ``ValueError: fp16 mixed precision requires a GPU (not {self.device.type!r}).`` (AMP010:
  fp16 asked for, not possible here). accelerate 1.15 no longer raises it: it runs such a
  run in fp32 silently (FRAMEWORKS.md), which only a live callback sees.
- torch ``torch/amp/autocast_mode.py``: ``CUDA is not available or torch_xla is imported.
  Disabling autocast.`` (AMP010: autocast asked for, silently off).
- torch ``torch/amp/grad_scaler.py`` (``GradScaler.__init__``): ``torch.cuda.amp.GradScaler is
  enabled, but CUDA is not available.  Disabling.`` (AMP010: the scaler asked for is off;
  recorded from PyTorch-Ignite's ``amp_mode="amp", scaler=True`` on CPU, tests/logs/recorded).
- mmcv / mmdet ``CheckInvalidLossHook``: ``loss become infinite or NaN!`` (AMP006).
- PaddlePaddle ``python/paddle/amp/grad_scaler.py`` (``AmpScaler.__init__``): ``AmpScaler can
  only be enabled on CUDAPlace, XPUPlace and CustomPlace, current place is {place}, so it
  makes no effect.`` and ``python/paddle/amp/auto_cast.py`` (``amp_guard``): ``amp_guard can
  only be enabled on CUDAPlace, XPUPlace, and CustomPlace, current place is {place}, so it
  makes no effect.`` (AMP010: the scaler / autocast asked for is off; recorded from Paddle
  3.3.1 on CPU, tests/logs/recorded).
- Keras ``keras/src/callbacks/terminate_on_nan.py``: ``Batch {batch}: Invalid loss,
  terminating training`` (AMP006; ``batch`` is the index, from 0, within the epoch, so no
  step is taken: the step is that of the bar the message is glued to).
- PyTorch-Ignite ``ignite/handlers/terminate_on_nan.py``: ``TerminateOnNan: Output '{output}'
  contains NaN or Inf. Stop training`` (AMP006).
- torchbearer ``torchbearer/callbacks/terminate_on_nan.py`` (``TerminateOnNaN._check``):
  ``print('Invalid ' + self._monitor + ', terminating')``, the whole line: AMP006 for the
  training metric it monitors by default (``running_loss``), AMP013 for an evaluation's.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.events import EVAL, FLAG, LogEvent
from denpex_callbacks.logs.launcher_ranks import rank_prefix_end

FAMILY = "errors"
# accelerate's message comes in a "ValueError: " line; PyTorch-Ignite's TerminateOnNan line
# holds "NaN" ("... contains NaN or Inf"), a keyword of the generic reader's. Paddle's
# ``... can only be enabled on CUDAPlace, ... so it makes no effect`` and torch's
# ``GradScaler is enabled, but CUDA is not available`` hold the message table's "CUDA" (the
# regexes below need it), torch's ``Closure use ... if GradScaler is enabled`` is raised (its
# line holds "Error"): no keyword of their own.
KEYWORDS = (b"infinite or NaN", b"Error", b"Disabling autocast", b"Invalid loss")

_DETECTRON = re.compile(r"Loss became infinite or NaN at iteration=(\d+)")
_MMCV = "loss become infinite or NaN"
_ACCELERATE = re.compile(r"fp16 mixed precision requires a GPU(?: \(not '?(\w+)'?\))?")
_AUTOCAST = "CUDA is not available or torch_xla is imported. Disabling autocast"
_PADDLE_OFF = re.compile(r"\b(AmpScaler|amp_guard) can only be enabled on CUDAPlace.*?"
                         r"current place is (.+?), so it makes no effect")
_SCALER_OFF = re.compile(r"GradScaler is enabled, but (CUDA) is not available\.\s+Disabling")
_KERAS_NAN = re.compile(r"Batch (\d+): Invalid loss, terminating training")
# the whole print, or glued to the tqdm bar it interrupted (``... running_loss=nan]Invalid``)
_TORCHBEARER_NAN = re.compile(r"(?:^|\])Invalid (\S+), terminating$")
_PADDLE_WHAT = {"AmpScaler": "the loss scaler (paddle.amp.GradScaler)",
                "amp_guard": "fp16 autocast (paddle.amp.auto_cast)"}


def parse(text: str) -> list[LogEvent]:
    """Events on one line of another tool's error or warning.

    Example:
        >>> [(e.code, e.step) for e in parse(
        ...     "FloatingPointError: Loss became infinite or NaN at iteration=42!")]
        [('AMP006', 42)]
        >>> parse("ValueError: fp16 mixed precision requires a GPU (not 'cpu').")[0].code
        'AMP010'
        >>> parse("UserWarning: AmpScaler can only be enabled on CUDAPlace, XPUPlace and "
        ...       "CustomPlace, current place is Place(cpu), so it makes no effect.")[0].code
        'AMP010'
    """
    if "infinite or NaN" in text:
        if found := _DETECTRON.search(text):
            return [LogEvent(FLAG, FAMILY, code="AMP006", step=int(found.group(1)),
                             loss=float("nan"),
                             summary="detectron2 stopped: the loss became infinite or NaN "
                                     f"at iteration {found.group(1)}")]
        if _MMCV in text:
            return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float("nan"),
                             summary="mmcv's CheckInvalidLossHook: the loss became infinite "
                                     "or NaN")]
    if "requires a GPU" in text and (found := _ACCELERATE.search(text)):
        device = found.group(1) or "this device"
        return [LogEvent(FLAG, FAMILY, code="AMP010",
                         summary=f"accelerate refused fp16 mixed precision on {device}: fp16 "
                                 "was asked for and cannot run here (use bf16 or fp32, or a "
                                 "GPU)")]
    if "makes no effect" in text and (found := _PADDLE_OFF.search(text)):
        return [LogEvent(FLAG, FAMILY, code="AMP010",
                         summary=f"PaddlePaddle switched off {_PADDLE_WHAT[found.group(1)]} on "
                                 f"{found.group(2)}: fp16 was asked for and the run trains "
                                 "unscaled in fp32")]
    if "Invalid " in text:  # (one check for both callbacks' messages)
        if found := _KERAS_NAN.search(text):
            return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float("nan"),
                             summary="Keras TerminateOnNaN stopped the run: the loss of batch "
                                     f"{int(found.group(1)) + 1} of its epoch was NaN or inf")]
        line = text.strip()  # (the whole line: behind a launcher's rank prefix, its rest)
        if found := _TORCHBEARER_NAN.search(line[rank_prefix_end(line):].lstrip()):
            return _torchbearer(found.group(1))
    if "GradScaler is enabled" in text and (found := _SCALER_OFF.search(text)):
        return [LogEvent(FLAG, FAMILY, code="AMP010",
                         summary=f"torch disabled the GradScaler ({found.group(1)} is not "
                                 "available): the run asked for loss scaling and has none")]
    if "TerminateOnNan:" in text and "contains NaN or Inf" in text:
        return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float("nan"),
                         summary="PyTorch-Ignite's TerminateOnNan stopped the run: the "
                                 "training step's output contained NaN or Inf")]
    if _AUTOCAST in text:
        return [LogEvent(FLAG, FAMILY, code="AMP010",
                         summary="torch disabled CUDA autocast (CUDA is not available): the "
                                 "run asked for mixed precision and trains in fp32")]
    return []


def _torchbearer(metric: str) -> list[LogEvent]:
    """torchbearer's TerminateOnNaN on ``metric``: an evaluation's is AMP013's (no flag).

    Example:
        >>> [(e.kind, e.code) for e in _torchbearer("running_loss") + _torchbearer("val_loss")]
        [('flag', 'AMP006'), ('eval', None)]
    """
    if lexicon.evaluation_metric(metric):
        return [LogEvent(EVAL, FAMILY, loss=float("nan"), metric=metric)]
    return [LogEvent(FLAG, FAMILY, code="AMP006", loss=float("nan"),
                     summary=f"torchbearer's TerminateOnNaN stopped the run: {metric} was NaN "
                             "or inf")]
