"""Where the HF callback sits in the Trainer's callback list: right after DefaultFlowCallback,
so that the metrics its ``on_log`` adds reach the ``report_to`` integrations.

The one workaround on HF's internals, kept here with the reason and the version it was checked
on (:func:`run_before_integrations`).
"""

from __future__ import annotations

import sys
from types import FrameType

from transformers import TrainerCallback
from transformers.trainer_callback import CallbackHandler, DefaultFlowCallback
from transformers.utils import logging as hf_logging

__all__ = ["run_before_integrations"]

LOGGER = hf_logging.get_logger("transformers.denpex")


def run_before_integrations(callback: TrainerCallback) -> None:
    """Move ``callback`` right after DefaultFlowCallback in the Trainer's callback list.

    Why (no public way; checked on transformers 5.24): Trainer builds ``logs`` inside
    ``_maybe_log_save_evaluate`` and calls ``on_log`` on
    DefaultFlowCallback, then the report_to integrations, then user callbacks; no earlier event
    sees that dict, so metrics added by a callback placed last never reach TensorBoard/W&B.
    Callbacks are not given the Trainer, but ``CallbackHandler.call_event`` (our caller) holds
    the handler as ``self``. A checkpoint resume re-adds stateful callbacks at the end, so this
    runs at every ``on_train_begin``. Reordering the list while ``call_event`` iterates it is
    safe here: only entries before our index move, so the iteration continues with the same
    next callback. If the handler is not found, the metrics reach only ``log_history``.
    """
    frame: FrameType | None = sys._getframe(1)
    for _ in range(6):
        if frame is None:
            break
        handler = frame.f_locals.get("self")
        if isinstance(handler, CallbackHandler) and callback in handler.callbacks:
            order = [cb for cb in handler.callbacks if cb is not callback]
            flow = [i for i, cb in enumerate(order) if isinstance(cb, DefaultFlowCallback)]
            order.insert(flow[0] + 1 if flow else 0, callback)
            handler.callbacks[:] = order
            return
        frame = frame.f_back
    LOGGER.info("denpex: callback handler not found; amp/ metrics go to log_history only")
