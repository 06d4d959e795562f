"""Lightning (``lightning.pytorch``): ``Trainer(callbacks=[AmpDiagnosticCallback()])``, or
nothing once installed. For the ``pytorch_lightning`` package use
:mod:`denpex_callbacks.pytorch_lightning`.

The public door; the code lives in :mod:`denpex_callbacks.integrations.lightning_callback`.
"""

from denpex_callbacks.integrations.lightning_auto import AUTO_ENV, auto_enabled
from denpex_callbacks.integrations.lightning_entry import AmpDiagnosticCallback, auto_callbacks

__all__ = ["AUTO_ENV", "AmpDiagnosticCallback", "auto_callbacks", "auto_enabled"]
