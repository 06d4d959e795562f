"""Logs as launchers, job systems and log collectors hand them on: a known training format
(a loop's ``epoch 1 step N loss X``, HF Trainer's dict rows, nanoGPT's ``iter N: loss X``)
behind the prefixes they write, each from its source:

- mpirun ``--tag-output`` in every form (Open MPI's ORTE ``orte/mca/iof/base/
  iof_base_output.c`` ``"[%s,%s]<%s>:"``; PMIx ``src/mca/iof/base/iof_base_output.c``
  ``"[%s,%s]<%s>: "``, ``"[%s,%s][%s:%s]<%s>: "`` with host and pid, ``"[%s]<%s>: "``) and
  SageMaker smdistributed's ``[1,mpirank:0,algo-1]<stdout>:``;
- SkyPilot's multi-node prefix (skypilot-org/skypilot ``sky/skylet/executor/slurm.py``:
  ``({node_name}, rank={rank}, pid={pid})``, ``, ip={ip}`` on the workers);
- collectors before a launcher's rank prefix: kubectl logs ``--timestamps`` (RFC 3339 with
  nanoseconds) and ``--prefix`` (kubernetes/kubectl ``pkg/cmd/logs/logs.go``:
  ``"[%s/%s/%s] "``), GitHub Actions' raw log time (seven decimals), journald's short form
  and RFC 5424 syslog, a Ray worker's process (ray-project/ray ``python/ray/_private/
  worker.py`` ``print_worker_logs``: ``"{}({}{}, ip={}){} {}"`` in colour), pdsh's host
  (deepspeedai/DeepSpeed ``deepspeed/launcher/multinode_runner.py`` PDSHRunner), docker
  compose's ``name  |``; torchrun ``--tee``'s ``[default1]:`` (torch
  ``distributed/elastic/multiprocessing/tail_log.py``) after them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines

STEPS, NAN_FROM = 40, 20


def _loop(nan_from: int | None = None, steps: int = STEPS) -> list[str]:
    """A plain loop's ``print(f"epoch 1 step {step} loss {loss:.4f} lr 0.001")``."""
    return [f"epoch 1 step {s} loss {'nan' if nan_from and s >= nan_from else f'{3 - s / 50:.4f}'}"
            f" lr 0.001" for s in range(1, steps + 1)]


def _interleaved(prefix: Callable[[int], str], rank0: list[str], rank1: list[str]) -> list[str]:
    return [line for pair in zip(rank0, rank1, strict=True)
            for line in (prefix(0) + pair[0], prefix(1) + pair[1])]


def _diagnosed(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, int]]:
    return [(d.code, d.step, d.rank) for d in diagnose_lines(tmp_path, lines).faults]


MPI_TAGS = {
    "sagemaker": lambda r: f"[1,mpirank:{r},algo-{r + 1}]<stdout>:",
    "pmix_detailed": lambda r: f"[1,{r}][gpu-{r}:{4242 + r}]<stdout>: ",
    "pmix_rank": lambda r: f"[{r}]<stdout>: ",
    "pmix_fullname": lambda r: f"[prterun-node-4242@1,{r}]<stdout>: ",
    "timestamped": lambda r: f"[Sun Dec  6 08:00:00 2026][1,{r}]<stdout>: ",
    "skypilot": lambda r: ("\x1b[36m(head, rank=0, pid=2345)\x1b[0m " if r == 0 else
                           f"\x1b[36m(worker{r}, rank={r}, pid={2345 + r}, ip=10.0.0.{r + 1})"
                           "\x1b[0m "),
}


@pytest.mark.parametrize("tag", sorted(MPI_TAGS))
def test_the_rank_an_mpirun_or_skypilot_prefix_names(tmp_path: Path, tag: str) -> None:
    lines = _interleaved(MPI_TAGS[tag], _loop(), _loop(NAN_FROM))
    assert _diagnosed(tmp_path, lines) == [("AMP006", NAN_FROM, 1)]


COLLECTORS = {
    "kubectl_timestamps": "2024-05-01T12:00:00.123456789Z ",
    "kubectl_prefix": "[pod/llm-worker-0/pytorch] ",
    "kubectl_both": "[pod/llm-worker-0/pytorch] 2024-05-01T12:00:00.123456789Z ",
    "github_actions": "2024-05-01T12:00:00.1234567Z ",
    "journald": "May 01 12:00:00 gpu-node-1 python3[1234]: ",
    "rfc5424": "<14>1 2024-05-01T12:00:00.123Z gpu-node-1 python3 1234 - - ",
    "ray_worker": "\x1b[36m(RayTrainWorker pid=1234, ip=10.0.0.1)\x1b[0m ",
    "pdsh_host": "worker-0: ",
    "pdsh_ip": "10.0.0.1: ",
    "compose": "trainer-1  | ",
}


@pytest.mark.parametrize("collector", sorted(COLLECTORS))
def test_a_collectors_prefix_before_the_launchers_keeps_its_rank(
        tmp_path: Path, collector: str) -> None:
    outer = COLLECTORS[collector]
    lines = _interleaved(lambda r: f"{outer}[default{r}]:", _loop(), _loop(NAN_FROM))
    assert _diagnosed(tmp_path, lines) == [("AMP006", NAN_FROM, 1)]
    mpi = _interleaved(lambda r: f"{outer}[1,{r}]<stdout>:", _loop(), _loop(NAN_FROM))
    assert _diagnosed(tmp_path, mpi) == [("AMP006", NAN_FROM, 1)]


@pytest.mark.parametrize("collector", sorted(COLLECTORS))
def test_healthy_ranks_behind_a_collector_stay_silent(tmp_path: Path, collector: str) -> None:
    # a control: passes on the parent too
    outer = COLLECTORS[collector]
    lines = _interleaved(lambda r: f"{outer}[default{r}]:", _loop(), _loop())
    assert _diagnosed(tmp_path, lines) == []
