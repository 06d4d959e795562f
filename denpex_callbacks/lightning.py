"""Lightning: ``Trainer(callbacks=[AmpDiagnosticCallback()])``, or nothing once installed.

The public door; the code lives in :mod:`denpex_callbacks.integrations.lightning_callback`.
"""

from denpex_callbacks.integrations.lightning_callback import (
    AUTO_ENV,
    AmpDiagnosticCallback,
    auto_callbacks,
    auto_enabled,
)

__all__ = ["AUTO_ENV", "AmpDiagnosticCallback", "auto_callbacks", "auto_enabled"]
