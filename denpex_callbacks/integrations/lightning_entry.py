"""``AmpDiagnosticCallback`` for ``lightning.pytorch`` (imports no ``pytorch_lightning``).

Example:
    >>> from denpex_callbacks.integrations.lightning_entry import AmpDiagnosticCallback
    >>> AmpDiagnosticCallback(report_dir=None).state_key
    'AmpDiagnosticCallback'
"""

from __future__ import annotations

from lightning.pytorch.callbacks import Callback

from denpex_callbacks.integrations.lightning_auto import auto_callbacks_for, callback_class

__all__ = ["AmpDiagnosticCallback", "auto_callbacks"]

AmpDiagnosticCallback = callback_class(Callback, "lightning.pytorch")
auto_callbacks = auto_callbacks_for(AmpDiagnosticCallback)
