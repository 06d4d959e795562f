"""``wandb.alert`` on the user's active run; wandb is never imported here.

A run is active when the user's code (or HF ``report_to="wandb"``, Lightning's WandbLogger)
imported wandb and called ``wandb.init``: then ``sys.modules["wandb"].run`` is not None.

What wandb 0.31 does with an alert (read in ``wandb/sdk/wandb_run.py``, ``Run.alert``): it
checks the level (``INFO``/``WARN``/``ERROR``), publishes an ``AlertRecord`` to the wandb-core
service without waiting for an answer and returns. Online, the service sends it to W&B
(GraphQL ``notifyScriptableRunAlert``), which throttles one title per ``wait_duration``
(default 1 minute) and forwards it to the user's Slack/email settings. Offline, it is
accepted the same way and written to the run's ``.wandb`` transaction log, sent when the run
is synced (``wandb sync``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from denpex_callbacks.core.alerts.payload import wandb_title
from denpex_callbacks.core.severity import Severity

WANDB_LEVELS = {Severity.INFO: "INFO", Severity.WARNING: "WARN", Severity.ERROR: "ERROR"}


def active_wandb_run() -> Any:
    """The active wandb run, or None (also when wandb was never imported).

    Example:
        >>> import sys
        >>> active_wandb_run() is None or "wandb" in sys.modules
        True
    """
    wandb = sys.modules.get("wandb")
    return getattr(wandb, "run", None) if wandb is not None else None


def raise_wandb_alert(run: Any, payload: Mapping[str, Any]) -> None:
    """``run.alert(...)`` with the alert's title, text and level."""
    run.alert(
        title=wandb_title(payload),
        text=payload["text"],
        level=WANDB_LEVELS[Severity(payload["severity"])],
    )
