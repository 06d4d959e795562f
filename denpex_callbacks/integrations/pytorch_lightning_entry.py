"""``AmpDiagnosticCallback`` for ``pytorch_lightning`` (imports no ``lightning.pytorch``).

Example (needs ``pytorch_lightning`` installed, so not a doctest)::

    from denpex_callbacks.pytorch_lightning import AmpDiagnosticCallback
    trainer = pytorch_lightning.Trainer(callbacks=[AmpDiagnosticCallback()])
"""

from __future__ import annotations

from pytorch_lightning.callbacks import Callback

from denpex_callbacks.integrations.lightning_auto import auto_callbacks_for, callback_class

__all__ = ["AmpDiagnosticCallback", "auto_callbacks"]

AmpDiagnosticCallback = callback_class(Callback, "pytorch_lightning")
auto_callbacks = auto_callbacks_for(AmpDiagnosticCallback)
