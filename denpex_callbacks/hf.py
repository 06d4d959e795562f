"""Hugging Face Trainer: ``Trainer(..., callbacks=[AmpDiagnosticCallback()])``.

The public door; the code lives in :mod:`denpex_callbacks.integrations.hf_callback`.
"""

from denpex_callbacks.integrations.hf_callback import AmpDiagnosticCallback, read_setup

__all__ = ["AmpDiagnosticCallback", "read_setup"]
