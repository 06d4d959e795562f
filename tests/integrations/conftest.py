"""The adapters' runs of this folder (importable: pytest runs in importlib mode), and the
fixture that names each adapter whose framework is installed."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from adapter_runs import NEEDS, RUNNERS


@pytest.fixture(params=sorted(RUNNERS))
def adapter(request: pytest.FixtureRequest) -> str:
    """Each adapter in turn (skipped, with the reason, when its framework is missing)."""
    name: str = request.param
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    if name == "deepspeed":
        request.getfixturevalue("fp16_cpu")  # a process group, DeepSpeed fp16 on this CPU
    return name
