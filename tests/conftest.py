"""Suite-wide settings: quiet, single-threaded torch so parallel CPU runs stay predictable."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The alert tests' endpoints (tests/alerts/alert_endpoints.py) serve every adapter's folder.
sys.path.insert(0, str(Path(__file__).parent / "alerts"))
# The two-rank runs' worker (tests/ranks/two_rank_worker.py), run and imported by the tests
# beside this file.
sys.path.insert(0, str(Path(__file__).parent / "ranks"))

# pytest's own tester runs real inner sessions in tests/plugin; pytest allows pytest_plugins
# only in the top-level conftest.
pytest_plugins = ["pytester", "alert_endpoints"]

# Keep frameworks offline and their caches inside the repo's ignored folder.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_REPO_CACHE = os.path.join(os.path.dirname(os.path.dirname(__file__)), ".cache")
os.environ.setdefault("TORCH_EXTENSIONS_DIR", os.path.join(_REPO_CACHE, "torch_extensions"))
# torch.compile's inductor cache defaults to /tmp/torchinductor_<user>, shared by every clone
# and never pruned: each CI clone added its own entries there until the disk filled up.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(_REPO_CACHE, "torchinductor"))
# Its precompiled headers ignore that setting: torch writes them to
# /tmp/torchinductor_<user>/precompiled_headers, a new pair of about 150 MB for each clone's path.
# Without them each kernel compiles its headers again (a few seconds over the suite).
os.environ.setdefault("TORCHINDUCTOR_CPP_CACHE_PRECOMPILE_HEADERS", "0")

try:  # the core tests run without torch installed
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    pass


# -- a real single-process DeepSpeed on CPU --------------------------------------------------


@pytest.fixture(scope="module")
def ds_dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """torch.distributed (gloo, rank 0 of 1) and DeepSpeed's comm on top of it (DeepSpeed tests
    and the adapter contract test).

    Torn down after each module so that other areas' tests find no process group.
    """
    torch = pytest.importorskip("torch")
    deepspeed = pytest.importorskip("deepspeed")
    saved = {name: os.environ.get(name) for name in _DIST_ENV}
    os.environ.update(LOCAL_RANK="0", RANK="0", WORLD_SIZE="1")
    owned = not torch.distributed.is_initialized()
    if owned:  # a file rendezvous: no port to pick
        rendezvous = tmp_path_factory.mktemp("rendezvous") / "store"
        torch.distributed.init_process_group(
            "gloo", init_method=f"file://{rendezvous}", rank=0, world_size=1)
    deepspeed.init_distributed("gloo")
    yield
    if owned and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    # DeepSpeed caches groups of the destroyed process group; a later engine would fail with
    # "Group ... is not registered".
    from deepspeed.utils import groups

    groups._WORLD_GROUP = groups.mpu = None
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


_DIST_ENV = ("LOCAL_RANK", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture(scope="module")
def fp16_cpu(ds_dist: None) -> Iterator[None]:
    """Let DeepSpeed build fp16 engines on this CPU, or skip with the reason.

    The public helper (:func:`denpex_callbacks.testing.cpu_fp16.deepspeed_fp16_on_cpu`)
    replaces only DeepSpeed's capability answer; the engine, its optimizers and its loss scaler
    are DeepSpeed's own.
    """
    pytest.importorskip("deepspeed")
    from denpex_callbacks.testing.cpu_fp16 import deepspeed_fp16_on_cpu, torch_runs_fp16_on_cpu

    if not torch_runs_fp16_on_cpu():
        pytest.skip("DeepSpeed: get_accelerator().is_fp16_supported() is false on this CPU and "
                    "torch cannot run fp16 matmul/backward on it")
    with deepspeed_fp16_on_cpu():
        yield


# What Lightning's DDP strategies write into the environment and leave there after their tests:
# an Accelerator made later in the same process reads LOCAL_RANK as a distributed launch and
# wraps the model in DistributedDataParallel.
_LAUNCH_ENV = ("LOCAL_RANK", "RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "NODE_RANK",
               "MASTER_ADDR", "MASTER_PORT")


@pytest.fixture
def fresh_accelerate(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """accelerate, its AcceleratorState and GradientState reset before and after the test, in
    an environment without an earlier test's launch variables."""
    accelerate = pytest.importorskip("accelerate")
    from accelerate.state import AcceleratorState, GradientState

    for name in _LAUNCH_ENV:
        monkeypatch.delenv(name, raising=False)
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
    yield accelerate
    AcceleratorState._reset_state(reset_partial_state=True)
    GradientState._reset_state()
