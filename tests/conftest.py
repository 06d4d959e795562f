"""Suite-wide settings: quiet, single-threaded torch so parallel CPU runs stay predictable."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The alert tests' endpoints (tests/alerts/alert_endpoints.py) serve every adapter's folder.
sys.path.insert(0, str(Path(__file__).parent / "alerts"))

# pytest's own tester runs real inner sessions in tests/plugin; pytest allows pytest_plugins
# only in the top-level conftest.
pytest_plugins = ["pytester", "alert_endpoints"]

# Keep frameworks offline and their caches inside the repo's ignored folder.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault(
    "TORCH_EXTENSIONS_DIR",
    os.path.join(os.path.dirname(os.path.dirname(__file__)), ".cache", "torch_extensions"),
)

try:  # the core tests run without torch installed
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass
