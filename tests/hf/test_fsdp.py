"""HF Trainer with ``fsdp="full_shard"`` on CPU: two gloo ranks under torchrun, fp16 through a
CPU GradScaler (conftest's CPUScalerTrainer; accelerate gives FSDP2 a plain GradScaler too).

On CPU accelerate never shards: the FSDP plugin is dropped without a word and the Trainer trains
through DistributedDataParallel (:data:`NOT_SHARDED_ON_CPU`). What runs is pinned here, so that
the day accelerate shards on CPU this file says so and the sharded test below is turned on.
Measured without the package (the same worker, no callback): NaN from step 3 on rank 1 skips
steps 3-8 on both ranks (the gradients are all-reduced), the scale halves from 32768 to 512, both
ranks end at step 8; the healthy run skips step 1 only (65536 overflows fp16 gradients) and keeps
32768 after. The callback changes none of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("transformers")

NOT_SHARDED_ON_CPU = (
    "accelerate (1.0 to 1.15 at least) does not shard on CPU: AcceleratorState keeps the FSDP "
    "plugin only for an accelerator's multi-device types (accelerate/state.py, 1.15 lines 986 and "
    "1010-1013: `elif self.distributed_type in [DistributedType.MULTI_GPU, ...]` ... "
    "`self.distributed_type = DistributedType.FSDP`); under use_cpu=True the run is MULTI_CPU and "
    "the Trainer wraps the model in DistributedDataParallel. Without use_cpu a machine without an "
    "accelerator is not distributed and the Trainer refuses: \"Using fsdp only works in "
    "distributed training.\" (transformers/trainer.py, 5.24 line 478)"
)
SHARDED_NOW = "accelerate shards on CPU now: turn on test_fsdp_sharded_on_cpu_..."
NAN_FROM = 3
STEPS = 8


def run_ranks(out: Path, fault_step: int, accumulation: int) -> tuple[list[dict[str, Any]], str]:
    """Both ranks' results and their output; fails unless both ranks ended."""
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        # --standalone: torchrun's own rendezvous on a port the OS picks (never 29500)
        [torchrun, "--standalone", "--nproc_per_node", "2",
         str(Path(__file__).with_name("fsdp_run.py")), str(out), str(fault_step), str(STEPS),
         str(accumulation)],
        env=env, capture_output=True, text=True, timeout=240, check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    ranks = [json.loads((out / f"rank{r}.json").read_text()) for r in (0, 1)]
    assert [r["world_size"] for r in ranks] == [2, 2]
    assert [r["global_step"] for r in ranks] == [STEPS, STEPS]  # both ranks trained to the end
    assert [r["disabled"] for r in ranks] == [False, False]
    assert "denpex: internal error" not in output
    return ranks, output


def scales(ranks: list[dict[str, Any]]) -> list[list[float]]:
    return [[r["scale_after"][str(s)] for s in range(1, STEPS + 1)] for r in ranks]


@pytest.mark.slow  # two torchrun ranks importing transformers: about 15 s on two cores
def test_fsdp_on_cpu_a_nan_loss_on_rank_1_is_amp006_there_and_both_ranks_finish(
        tmp_path: Path) -> None:
    ranks, output = run_ranks(tmp_path, NAN_FROM, 1)
    assert [r["fsdp"] for r in ranks] == ["DistributedDataParallel"] * 2, SHARDED_NOW
    assert ranks[1]["diagnoses"][0] == ["AMP006", NAN_FROM, "ERROR"]  # escalated at step 4
    assert "AMP006" not in [code for code, *_ in ranks[0]["diagnoses"]]
    # Rank 0's own loss stayed finite; it sees its steps skipped (all-reduced NaN gradients).
    assert [(code, step) for code, step, _ in ranks[0]["diagnoses"]] == [("AMP003", NAN_FROM)]
    expected = [32768.0] * (NAN_FROM - 1) + [32768.0 / 2 ** (s - NAN_FROM + 1)
                                             for s in range(NAN_FROM, STEPS + 1)]
    assert scales(ranks) == [expected, expected]  # as without the package
    assert f"denpex: AMP006 non-finite-loss [warning] step {NAN_FROM}, rank 1: " in output


@pytest.mark.slow  # two torchrun ranks importing transformers: about 15 s on two cores
def test_fsdp_on_cpu_a_healthy_accumulating_run_is_silent(tmp_path: Path) -> None:
    ranks, output = run_ranks(tmp_path, 0, 2)
    assert [r["fsdp"] for r in ranks] == ["DistributedDataParallel"] * 2, SHARDED_NOW
    assert [r["diagnoses"] for r in ranks] == [[], []]
    assert scales(ranks) == [[32768.0] * STEPS] * 2  # step 1 skipped at 65536, as without us
    assert "denpex: AMP" not in output


@pytest.mark.slow
@pytest.mark.skip(reason=NOT_SHARDED_ON_CPU)
def test_fsdp_sharded_on_cpu_a_nan_loss_on_rank_1_is_amp006_there(tmp_path: Path) -> None:
    ranks, _ = run_ranks(tmp_path, NAN_FROM, 1)
    assert all("FSDP" in r["fsdp"] for r in ranks)  # FSDP2's class is FSDP<model class>
    assert ranks[1]["diagnoses"][0][:2] == ["AMP006", NAN_FROM]
    assert "AMP006" not in [code for code, *_ in ranks[0]["diagnoses"]]
