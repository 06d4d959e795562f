"""Plain PyTorch loops: :class:`AmpMonitor`, one call per iteration beside the GradScaler.

The public door; the code lives in :mod:`denpex_callbacks.integrations.torch_loop`.
"""

from denpex_callbacks.integrations.torch_loop import AmpMonitor

__all__ = ["AmpMonitor"]
