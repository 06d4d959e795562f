"""DeepSpeed: a ``"denpex"`` section in the ds_config, honoured by :func:`attach` or
:func:`initialize` (a drop-in for ``deepspeed.initialize``).

The public door; the code lives in :mod:`denpex_callbacks.integrations.deepspeed_engine`.
"""

from denpex_callbacks.integrations.deepspeed_config import monitor_config
from denpex_callbacks.integrations.deepspeed_engine import (
    DeepSpeedMonitor,
    attach,
    initialize,
)

__all__ = ["DeepSpeedMonitor", "attach", "initialize", "monitor_config"]
