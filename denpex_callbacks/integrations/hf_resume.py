"""Checkpoint resume of the Hugging Face callback.

HF's ``ExportableState`` keeps the callback's settings and detector history in
``trainer_state.json``. On ``restore_callback_states_from_checkpoint=True`` HF rebuilds the
callback from the saved settings and drops the user's instance: :data:`USER_INSTANCES` lets
the callback hand HF the user's own instance instead, so the settings given now and the object
the user holds are the ones that run. :func:`checkpointed_history` reads the saved history
whether HF rebuilds the callback or not.
"""

from __future__ import annotations

import weakref
from dataclasses import asdict
from typing import Any

from transformers.trainer_callback import TrainerState

from denpex_callbacks.core.config import MonitorConfig

__all__ = ["USER_INSTANCES", "UserInstances", "checkpointed_history", "saved_state"]

# The callback's attribute HF sets from the saved "attributes" when it rebuilds the callback.
HISTORY_ATTRIBUTE = "_resume_state"


class UserInstances:
    """The callbacks users built, in order, and whether each has trained yet (weakly held)."""

    def __init__(self) -> None:
        self._refs: list[weakref.ref[Any]] = []
        self._started: weakref.WeakSet[Any] = weakref.WeakSet()

    def add(self, callback: Any) -> None:
        self._refs = [ref for ref in self._refs if ref() is not None] + [weakref.ref(callback)]

    def started(self, callback: Any) -> None:
        self._started.add(callback)

    def latest_unstarted(self, cls: type) -> Any | None:
        """The newest user instance of ``cls`` that has not trained: the one HF replaces."""
        for ref in reversed(self._refs):
            callback = ref()
            if type(callback) is cls and callback not in self._started:
                return callback
        return None


USER_INSTANCES = UserInstances()


def checkpointed_history(state: TrainerState, name: str) -> dict[str, Any] | None:
    """The detector history saved in the checkpoint being resumed, if any.

    HF re-creates stateful callbacks from a checkpoint only with
    ``restore_callback_states_from_checkpoint=True`` (default False), but a resumed
    ``state.stateful_callbacks`` always holds what ``state()`` saved: read it from there.
    A fresh run (global_step 0) holds only the state of callbacks not yet started.
    """
    if not state.global_step:
        return None
    saved = (state.stateful_callbacks or {}).get(name)
    if isinstance(saved, list):
        saved = saved[0] if saved else None
    history = (saved or {}).get("attributes", {}).get(HISTORY_ATTRIBUTE)
    return history if isinstance(history, dict) else None


def saved_state(config: MonitorConfig, history: dict[str, Any] | None) -> dict[str, Any]:
    """What the callback's ``state()`` gives HF for ``trainer_state.json``: every setting (HF
    rebuilds the callback from them when the user's own instance is not there to take them
    back) and the detector history.

    Example:
        >>> saved = saved_state(MonitorConfig(alert_webhook="https://hooks.example/x"), None)
        >>> saved["args"]["restored_from_checkpoint"], "alert_webhook" in saved["args"]["config"]
        (True, False)
    """
    settings = asdict(config)
    settings["disable"] = list(config.disable)
    settings.pop("alert_webhook")  # a secret: never written to trainer_state.json
    return {"args": {"config": settings, "restored_from_checkpoint": True},
            "attributes": {HISTORY_ATTRIBUTE: history}}
