"""Makes the helpers of this folder importable (pytest runs in importlib mode) and warms torch
up before any in-process inner session.

The ``pytester`` plugin itself is enabled in tests/conftest.py: pytest accepts
``pytest_plugins`` only in the top-level conftest.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from inner_models import Regressor, regression_batch

from denpex_callbacks.testing.smoke import run_amp_smoke


@pytest.fixture(scope="session", autouse=True)
def torch_warmed_up() -> None:
    """One tiny fp16 run before any in-process inner session.

    torch imports ~800 modules lazily at the first optimizer step (torch._dynamo and what it
    pulls in). Imported inside an inner session, pytester drops them from sys.modules
    afterwards, and the next session's re-import registers torch ops twice and fails.
    """
    run_amp_smoke(Regressor(), regression_batch, steps=1, device="cpu")
