"""False alarms, round seven: healthy distributed runs, where each rank or stage prints its
own view, written as the tools and launchers print them (each builder names its source).

- per-rank losses that differ, behind each launcher's prefix: torchrun ``--tee 3``
  (pytorch/pytorch ``torch/distributed/elastic/multiprocessing/tail_log.py``:
  ``[{role}{local_rank}]:``), mpirun ``--tag-output`` (open-mpi/ompi ORTE
  ``orte/mca/iof/base/iof_base_output.c``: ``[job,rank]<stdout>:``), srun ``-l`` (``N: ``),
  SkyPilot (``sky/skylet/executor/slurm.py``: ``(node, rank=N, pid=P)``), Ray's log dedup
  (ray-project/ray ``python/ray/_private/ray_logging/__init__.py`` ``formatted``: ``line +
  " [repeated {count}x across cluster]"``) and a script's own ``[rank1] step 10 loss 2.31``
  (``logging.basicConfig(format=f"[rank{rank}] ...")``: torch's ``[rank{N}]:`` of
  ``torch/_logging/_internal.py`` without its colon);
- what one stage or rank prints for all: DeepSpeed's PipelineEngine ``steps: 10 loss: 2.3000
  iter time (s): ...`` (microsoft/DeepSpeed ``deepspeed/runtime/pipe/engine.py``
  ``train_batch``, global rank 0 only), ZeRO's overflow line from every rank at one step
  (``deepspeed/runtime/zero/stage2.py`` before 2023: ``[deepspeed] fp16 dynamic loss scale
  overflow! Rank {} Skipping step. Attempted loss scale: {}, reducing to {}`` through
  ``logger.info`` on each rank), apex's ``Gradient overflow.  Skipping step, loss scaler 0
  reducing loss scale to ...`` (NVIDIA/apex ``apex/amp/handle.py`` ``maybe_print``, every
  rank), ``log_dist``'s ``[Rank N] step=...`` (``deepspeed/runtime/engine.py``);
- lines cut mid-line by another rank's print, and tqdm bars of two ranks on one line;
- distributed warnings on healthy runs (NCCL ``WARN``, the reducer's, ProcessGroupNCCL's,
  gloo's and torchrun's closing lines after a finished run, FSDP's, DeepSpeed stage 3's).

The doctor was right on all of these but two: a script's ``[rank1] `` prefix was no rank (a
NaN of rank 1 was reported on rank 0), and a rank's print glued after another's unfinished,
unprefixed one (``step 20 lo[rank1] step 20 loss nan``) lost its rank. The fault tests fail on
the parent commit (1e248f7); every control passes there too.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults


def _loss(rank: int, step: int) -> float:
    """A rank-local loss: each rank's shard gives its own value (they differ by rank)."""
    return 2.5 - step / 200 + 0.07 * rank + 0.03 * math.sin(step * (rank + 1))


def _value(rank: int, step: int, nan: tuple[int, int] | None, digits: int = 4) -> str:
    if nan is not None and rank == nan[0] and step >= nan[1]:
        return "nan"
    return f"{_loss(rank, step):.{digits}f}"


def _ranked(prefix: str, world: int = 4, steps: range = range(1, 61),
            nan: tuple[int, int] | None = None, digits: int = 4) -> list[str]:
    """Each rank's ``step {s} loss {loss}`` behind ``prefix`` (``{r}``: the rank), the ranks
    in turn each step; ``nan``: (rank, step) from which that rank's loss is NaN."""
    return [f"{prefix.format(r=r)}step {s} loss {_value(r, s, nan, digits)}"
            for s in steps for r in range(world)]


def _found(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, int]]:
    return [(d.code, d.step, d.rank) for d in diagnose_lines(tmp_path, lines).faults]


def test_script_rank_prefix_names_the_rank_of_a_nan(tmp_path: Path) -> None:
    """A DDP script that logs on every rank behind its own ``[rank{rank}] `` (the prefix of
    ``logging.basicConfig(format=f"[rank{rank}] %(asctime)s ...")`` and of ``print(f"[rank
    {rank}] ...")``; torch's ``[rank{N}]:`` without the colon): rank 1's loss NaN from step
    200. Before: AMP006 at step 200 on rank 0 (the prefix was no rank's)."""
    lines = _ranked("[rank{r}] ", steps=range(10, 410, 10), nan=(1, 200), digits=2)
    assert _found(tmp_path, lines) == [("AMP006", 200, 1)]


@pytest.mark.parametrize("prefix", ["[rank1] ", "[default1]:"])
def test_print_cut_by_another_rank_keeps_its_rank(tmp_path: Path, prefix: str) -> None:
    """Rank 0 prints unprefixed and rank 1 behind its prefix (a script that prefixes only the
    other ranks, or torchrun's ``[default1]:``): rank 0's print is cut by rank 1's, whose
    loss is NaN from step 20 (``step 20 lo[rank1] step 20 loss nan`` then ``ss 2.41``).
    Before: AMP006 at step 20 on rank 0 (the glued line read as one print)."""
    lines = []
    for step in range(1, 60):
        rank1 = f"{prefix}step {step} loss {'nan' if step >= 20 else f'{_loss(1, step):.2f}'}"
        if step == 20:
            lines += [f"step {step} lo{rank1}", f"ss {_loss(0, step):.2f}"]
        else:
            lines += [f"step {step} loss {_loss(0, step):.2f}", rank1]
    assert _found(tmp_path, lines) == [("AMP006", 20, 1)]


@pytest.mark.parametrize("prefix", [
    "[rank{r}] ", "[default{r}]:", "[1,{r}]<stdout>:", "{r}: ",
    "(worker{r}, rank={r}, pid=234{r}, ip=10.0.0.{r}) ", "",
])
def test_per_rank_losses_that_differ_are_healthy(tmp_path: Path, prefix: str) -> None:
    """Four ranks each printing their own (different) loss every step, behind each launcher's
    prefix, and with none (ranks sharing one stdout). Passes on the parent too."""
    assert faults(tmp_path, _ranked(prefix)) == []


def test_identical_tensor_parallel_lines_are_healthy(tmp_path: Path) -> None:
    """Tensor-parallel ranks print the same line (one loss, four times a step) behind
    torchrun's prefixes. Passes on the parent too."""
    lines = [f"[default{r}]:iteration {s} | loss {_loss(0, s):.4f}"
             for s in range(1, 60) for r in range(4)]
    assert faults(tmp_path, lines) == []


def _ray_worker(step: int, loss: str, tail: str) -> list[str]:
    return [f"(RayTrainWorker pid=101) step {step} loss {_loss(0, step):.4f}",
            f"(RayTrainWorker pid=104, ip=10.0.0.2) step {step} loss {loss}{tail}"]


def test_ray_deduplicated_workers_are_healthy(tmp_path: Path) -> None:
    """Ray Train's workers, their similar lines folded by Ray's log dedup into one with ``
    [repeated 3x across cluster]`` after it (coloured). Passes on the parent too."""
    tail = "\x1b[32m [repeated 3x across cluster]\x1b[0m"
    lines = [line for s in range(1, 120)
             for line in _ray_worker(s, f"{_loss(3, s):.4f}", tail)]
    assert faults(tmp_path, lines) == []


def _pipeline(nan_from: int | None = None) -> list[str]:
    """DeepSpeed PipelineEngine: global rank 0 prints the loss the last stage broadcast (every
    ``steps_per_print``); ``log_dist``'s ``[Rank r] step=`` from each rank beside it."""
    lines = []
    for s in range(10, 510, 10):
        loss = "nan" if nan_from is not None and s >= nan_from else f"{_loss(0, s):.4f}"
        lines += [f"[2024-06-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank {r}] "
                  f"step={s}, skipped=0, lr=[0.0003], mom=[(0.9, 0.95)]" for r in range(2)]
        lines.append(f"steps: {s} loss: {loss} iter time (s): 0.512 samples/sec: 62.500")
    return lines


def test_deepspeed_pipeline_loss_from_one_rank(tmp_path: Path) -> None:
    """The pipeline's loss line, healthy and NaN from step 200 (the step it prints). Both
    pass on the parent too (kept: the suite had no ``steps: N loss:`` beside several ranks'
    ``[Rank r] step=``)."""
    assert faults(tmp_path, _pipeline()) == []
    assert faults(tmp_path, _pipeline(200)) == [("AMP006", 200)]


def test_zero_overflow_from_every_rank_is_one_overflow(tmp_path: Path) -> None:
    """Old ZeRO stage 2 (``logger.info`` on every rank), initial scale 2**32 and hysteresis 2
    (the first overflow keeps the scale): 17 warmup overflows, each printed by 8 ranks,
    then HF Trainer's rows. Passes on the parent too."""
    lines, scale = [], 2 ** 32
    for step in range(1, 301):
        if step <= 17:
            attempted, scale = scale, scale if step == 1 else scale // 2
            lines += [f"[2021-06-01 10:00:00,000] [INFO] [stage2.py:1502:step] [deepspeed] fp16 "
                      f"dynamic loss scale overflow! Rank {r} Skipping step. Attempted loss "
                      f"scale: {attempted}, reducing to {scale}" for r in range(8)]
        if step % 10 == 0:
            lines.append(f"{{'loss': {_loss(0, step):.4f}, 'learning_rate': 0.0001, "
                         f"'epoch': {step / 1000:.2f}}}")
    assert faults(tmp_path, lines) == []


@pytest.mark.parametrize("prefix", ["", "[default{r}]:", "[1,{r}]<stdout>:"])
def test_apex_overflow_from_every_rank_is_healthy(tmp_path: Path, prefix: str) -> None:
    """apex's ``maybe_print`` prints on every rank: 5 warmup overflows and two later ones,
    each 8 times, beside rank 0's loss line. Passes on the parent too."""
    lines, scale = [], 65536.0
    for step in range(1, 601):
        if step <= 5 or step in (200, 400):
            scale /= 2
            lines += [f"{prefix.format(r=r)}Gradient overflow.  Skipping step, loss scaler 0 "
                      f"reducing loss scale to {scale}" for r in range(8)]
        if step % 10 == 0:
            lines.append(f"{prefix.format(r=0)}epoch 1 iter {step} loss {_loss(0, step):.4f}")
    assert faults(tmp_path, lines) == []


def test_cut_lines_and_bars_of_two_ranks_are_healthy(tmp_path: Path) -> None:
    """A print cut by another rank's (``[rank0] step 20 lo[rank1] step 20 loss 2.41`` then
    ``ss 2.38``), and two ranks' tqdm bars rewriting one line with ``\\r``. Passes on the
    parent too."""
    cut = []
    for step in range(1, 60):
        if step == 20:
            cut += [f"[rank0] step {step} lo[rank1] step {step} loss {_loss(1, step):.2f}",
                    f"ss {_loss(0, step):.2f}"]
        else:
            cut += [f"[rank{r}] step {step} loss {_loss(r, step):.2f}" for r in range(2)]
    assert faults(tmp_path, cut) == []
    bars = "\r".join(f"Epoch 0:  {s}%|{'#' * (s // 10):<10}| {s}/100 [00:{s:02d}<01:00,  "
                     f"1.50it/s, loss={_loss(r, s):.3f}]" for s in range(1, 100, 3)
                     for r in range(2))
    assert faults(tmp_path, [bars]) == []


_HF_ROWS = [f"{{'loss': {_loss(0, s):.4f}, 'grad_norm': 1.2, 'learning_rate': 0.0003, "
            f"'epoch': {s / 20:.2f}}}" for s in range(1, 21)]
_FINISHED = ("{'train_runtime': 1000.0, 'train_samples_per_second': 10.0, "
             "'train_steps_per_second': 0.02, 'train_loss': 2.1, 'epoch': 1.0}")
# The warnings of healthy distributed runs, as each prints them: NCCL's (``NCCL WARN``), the
# DDP reducer's (torch/csrc/distributed/c10d/reducer.cpp), ProcessGroupNCCL's, FSDP's
# (torch/distributed/fsdp), DeepSpeed ZeRO-3's (deepspeed/runtime/zero/stage3.py).
_WARNINGS = [
    "gpu1:1234:1300 [1] NCCL INFO NET/Plugin: No plugin found (libnccl-net.so), using internal "
    "implementation",
    "gpu1:1234:1300 [1] NCCL WARN NET/IB : No device found.",
    "[W reducer.cpp:1346] Warning: find_unused_parameters=True was specified in DDP constructor, "
    "but did not find any unused parameters in the forward pass. This flag results in an extra "
    "traversal of the autograd graph every iteration,  which can adversely affect performance. "
    "(function operator())",
    "/usr/lib/python3/dist-packages/torch/autograd/graph.py:825: UserWarning: Grad strides do not "
    "match bucket view strides. This may indicate grad was not created according to the gradient "
    "layout contract, or that the param's strides changed since DDP was constructed.  This is not "
    "an error, but may impair performance.",
    "grad.sizes() = [64, 32, 1, 1], strides() = [32, 1, 32, 32]",
    "bucket_view.sizes() = [64, 32, 1, 1], strides() = [32, 1, 1, 1] (Triggered internally at "
    "../torch/csrc/distributed/c10d/reducer.cpp:325.)",
    "[W ProcessGroupNCCL.cpp:2291] Warning: NCCL_ASYNC_ERROR_HANDLING is deprecated, use "
    "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
    "/opt/conda/lib/python3.10/site-packages/accelerate/accelerator.py:1500: UserWarning: FSDP "
    "upcast of low precision parameters may affect the precision of model checkpoints.",
    "/opt/conda/lib/python3.10/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py"
    ":690: FutureWarning: FSDP.state_dict_type() and FSDP.set_state_dict_type() are being "
    "deprecated. Please use APIs, get_state_dict() and set_state_dict().",
    "[2024-06-01 10:00:00,000] [WARNING] [stage3.py:2140:step] 4 pytorch allocator cache flushes "
    "since last step. this happens when there is high memory pressure and is detrimental to "
    "performance.",
]
# What follows a finished run: ProcessGroupNCCL's destructor, gloo's peers closing, torchrun
# closing the ranks still up (torch/distributed/elastic/multiprocessing/api.py ``Sending
# process %s closing signal %s``).
_CLOSING = [
    "[rank0]:[W1201 10:00:00.123456789 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process "
    "group has NOT been destroyed before we destruct ProcessGroupNCCL. On normal program exit, "
    "the application should call destroy_process_group to ensure that any pending NCCL "
    "operations have finished in this process. (function operator())",
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by "
    "peer [10.0.0.2]:45678",
    "[2024-06-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending "
    "process 1235 closing signal SIGTERM",
]


def test_distributed_warnings_of_a_healthy_run(tmp_path: Path) -> None:
    """The warnings among the rows and the closing lines after the finished run. Passes on
    the parent too (the suite had none of these lines)."""
    lines = _WARNINGS[:5] + _HF_ROWS[:10] + _WARNINGS[5:] + _HF_ROWS[10:] + [_FINISHED]
    assert faults(tmp_path, lines + _CLOSING) == []


def test_watchdog_timeout_stays_a_collective_timeout(tmp_path: Path) -> None:
    """The fault twin: ProcessGroupNCCL's watchdog on rank 1 mid-run is SYS002 on rank 1.
    Passes on the parent too."""
    watchdog = ("[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=123, OpType=ALLREDUCE, NumelIn=1, "
                "NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.")
    lines = [*_HF_ROWS[:10], watchdog]
    assert _found(tmp_path, lines) == [("SYS002", 10, 1)]
