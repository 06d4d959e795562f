"""The DeepSpeed tests' process-group and CPU-fp16 fixtures, for this folder's DeepSpeed tests.

Loaded by path (importlib mode: no conftest imports); a test module imports the fixtures
(``from ds_kit import BASE_CONFIG, ds_dist, fp16_cpu, fresh_groups``) so pytest finds them.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "_deepspeed_kit", Path(__file__).parents[1] / "deepspeed" / "conftest.py")
assert _spec is not None and _spec.loader is not None
_kit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_kit)
ds_dist, fp16_cpu, BASE_CONFIG = _kit.ds_dist, _kit.fp16_cpu, _kit.BASE_CONFIG


@pytest.fixture(scope="module")
def fresh_groups() -> Iterator[None]:
    """Forget DeepSpeed's cached groups around this module's process group.

    ds_dist destroys its process group at module end, but deepspeed.utils.groups keeps groups
    of it (``_WORLD_GROUP``, and ``mpu`` once a PipelineModule was built): the next module
    building an engine in this process fails ("Group ... is not registered"). Set up before
    ds_dist, so torn down after it.
    """
    from deepspeed.utils import groups

    groups._WORLD_GROUP = groups.mpu = None
    yield
    groups._WORLD_GROUP = groups.mpu = None
