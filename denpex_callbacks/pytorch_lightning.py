"""Lightning's older package name (``pytorch_lightning``): the same callback as
:mod:`denpex_callbacks.lightning`, built on ``pytorch_lightning``'s Callback.

The public door; the code lives in :mod:`denpex_callbacks.integrations.lightning_callback`.
"""

from denpex_callbacks.integrations.lightning_auto import AUTO_ENV, auto_enabled
from denpex_callbacks.integrations.pytorch_lightning_entry import (
    AmpDiagnosticCallback,
    auto_callbacks,
)

__all__ = ["AUTO_ENV", "AmpDiagnosticCallback", "auto_callbacks", "auto_enabled"]
