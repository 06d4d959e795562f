"""Lightning's entry points: one ``AmpDiagnosticCallback`` class per namespace, and the
factory that gives every Trainer one (``DENPEX_AUTO=0`` turns it off)."""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Callable
from typing import Any

from denpex_callbacks.integrations.lightning_callback import AmpDiagnosticHooks

__all__ = ["AUTO_ENV", "auto_callbacks_for", "auto_enabled", "callback_class"]

AUTO_ENV = "DENPEX_AUTO"  # "0" (or false/off/no) turns off the entry-point auto-registration
_LOG = logging.getLogger(__name__)


def callback_class(base: type, namespace: str) -> type[AmpDiagnosticHooks]:
    """``AmpDiagnosticCallback`` for one Lightning namespace: the hooks on its ``Callback``.

    Example:
        >>> from lightning.pytorch.callbacks import Callback
        >>> cls = callback_class(Callback, "lightning.pytorch")
        >>> cls.__name__, issubclass(cls, Callback), cls.__module__
        ('AmpDiagnosticCallback', True, 'denpex_callbacks.lightning')
    """
    door = "denpex_callbacks." + ("lightning" if namespace == "lightning.pytorch" else namespace)
    doc = (f"Diagnoses fp16 mixed-precision failures inside a ``{namespace}`` Trainer.\n\n"
           f"    See :class:`{__name__}.AmpDiagnosticHooks`.")
    return type("AmpDiagnosticCallback", (AmpDiagnosticHooks, base),
                {"__doc__": doc, "__module__": door})


def auto_callbacks_for(
    callback_type: type[AmpDiagnosticHooks],
) -> Callable[[], list[AmpDiagnosticHooks]]:
    """The entry-point factory of one namespace: every Trainer gets one callback of its type.

    Lightning calls it from ``Trainer.__init__`` (groups ``lightning.pytorch.callbacks_factory``
    and ``pytorch_lightning.callbacks_factory``). It also records the Trainer's ``precision``
    argument on every AmpDiagnosticCallback of that Trainer, because Lightning keeps no trace
    of a ``"16-mixed"`` it replaced by ``"bf16-mixed"`` on CPU (needed for AMP010). It adds no
    callback when ``DENPEX_AUTO=0``, when the user already passed one (exactly one instance,
    no duplicate state key), or when the Trainer under construction cannot be found.
    """

    def auto_callbacks() -> list[AmpDiagnosticHooks]:
        try:
            found = _trainer_under_construction()
            if found is None:
                return []
            trainer, precision = found
            requested = None if precision is None else str(precision)
            present = [cb for cb in trainer.callbacks if isinstance(cb, AmpDiagnosticHooks)]
            for callback in present:
                callback._requested_precision = requested
            if present or not auto_enabled():
                return []
            callback = callback_type()
            callback.auto = True
            callback._requested_precision = requested
            return [callback]
        except Exception:  # a factory error would break the user's Trainer() call
            _LOG.debug("denpex: auto-registration skipped", exc_info=True)
            return []

    return auto_callbacks


def auto_enabled() -> bool:
    """False when the ``DENPEX_AUTO`` environment variable says ``0``/``false``/``off``/``no``."""
    return os.environ.get(AUTO_ENV, "1").strip().lower() not in {"0", "false", "off", "no"}


def _trainer_under_construction(max_depth: int = 12) -> tuple[Any, Any] | None:
    """(trainer, its ``precision`` argument) from the ``Trainer.__init__`` frame calling us.

    Why frames (no public way; checked on lightning 2.2.0-2.6.6,
    tests/versions/test_facts_lightning.py): the callbacks factory is called
    with no arguments from inside ``Trainer.__init__``, and no public attribute keeps the
    ``precision`` the user asked for once Lightning has swapped it (16-mixed -> bf16-mixed on
    CPU). This is the package's only frame walk in Lightning.
    """
    frame = inspect.currentframe()
    for _ in range(max_depth):
        if frame is None:
            return None
        candidate = frame.f_locals.get("self")
        if (
            frame.f_code.co_name == "__init__"
            and hasattr(candidate, "_callback_connector")
            and hasattr(candidate, "_accelerator_connector")
        ):
            return candidate, frame.f_locals.get("precision")
        frame = frame.f_back
    return None
