"""Makes the loop helpers of this folder importable (pytest runs in importlib mode), and
hands out accelerate with its process-wide state reset."""

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def fresh_accelerate() -> Iterator[Any]:
    """accelerate, its AcceleratorState and GradientState reset before and after the test."""
    accelerate = pytest.importorskip("accelerate")
    from accelerate.state import AcceleratorState, GradientState

    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
    yield accelerate
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
