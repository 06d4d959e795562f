"""Logs as launchers, job systems and log collectors hand them on: a known training format
(a loop's ``epoch 1 step N loss X``, HF Trainer's dict rows, nanoGPT's ``iter N: loss X``)
behind the prefixes they write, each from its source:

- mpirun ``--tag-output`` in every form (Open MPI's ORTE ``orte/mca/iof/base/
  iof_base_output.c`` ``"[%s,%s]<%s>:"``; PMIx ``src/mca/iof/base/iof_base_output.c``
  ``"[%s,%s]<%s>: "``, ``"[%s,%s][%s:%s]<%s>: "`` with host and pid, ``"[%s]<%s>: "``) and
  SageMaker smdistributed's ``[1,mpirank:0,algo-1]<stdout>:``;
- torchrun's prefix from ``TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE`` (torch ``distributed/
  elastic/agent/server/local_elastic_agent.py``: ``safe_substitute(role_name=, rank=,
  local_rank=)``);
- SkyPilot's multi-node prefix (skypilot-org/skypilot ``sky/skylet/executor/slurm.py``:
  ``({node_name}, rank={rank}, pid={pid})``, ``, ip={ip}`` on the workers);
- collectors before a launcher's rank prefix: kubectl logs ``--timestamps`` (RFC 3339 with
  nanoseconds) and ``--prefix`` (kubernetes/kubectl ``pkg/cmd/logs/logs.go``:
  ``"[pod/%s/%s] "``), GitHub Actions' raw log time (seven decimals), journald's short form
  and RFC 5424 syslog, a Ray worker's process (ray-project/ray ``python/ray/_private/
  worker.py`` ``print_worker_logs``: ``"{}({}{}, ip={}){} {}"`` in colour), pdsh's ``host: ``
  (``pdsh -w``, as deepspeedai/DeepSpeed ``deepspeed/launcher/multinode_runner.py`` PDSHRunner
  runs it), docker
  compose's ``name  |``; torchrun ``--tee``'s ``[default1]:`` (torch
  ``distributed/elastic/multiprocessing/tail_log.py``) after them;
- ranks that print the same step and loss (an all-reduced loss), rows without a step from
  several ranks, two processes writing into one line, ranks sharing one stdout a row or two
  behind each other (a ``tee`` of all ranks), a table (skorch's PrintLog) behind a
  collector's prefix; controls: healthy ranks, CRLF with tqdm redraws and a cut first line,
  a step counted over each epoch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines

from denpex_callbacks.logs.doctor import diagnose

STEPS, NAN_FROM = 40, 20


def _loop(nan_from: int | None = None, steps: int = STEPS) -> list[str]:
    """A plain loop's ``print(f"epoch 1 step {step} loss {loss:.4f} lr 0.001")``."""
    return [f"epoch 1 step {s} loss {'nan' if nan_from and s >= nan_from else f'{3 - s / 50:.4f}'}"
            f" lr 0.001" for s in range(1, steps + 1)]


def _hf_rows(nan_from: int | None = None, rows: int = 20) -> list[str]:
    """HF Trainer's ``log()`` dicts (no step printed: the row counts), one every 5 steps."""
    return [f"{{'loss': {'nan' if nan_from and i >= nan_from else f'{2.5 - i / 20:.4f}'}, "
            f"'grad_norm': {1 + i / 100:.4f}, 'learning_rate': {5e-05 - i * 1e-06:.6g}, "
            f"'epoch': {i * 0.05:.2f}}}" for i in range(1, rows + 1)]


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
    # torchrun with TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE="[${role_name}${rank}|${local_rank}]:"
    "torchrun_template": lambda r: f"[default{r}|{r}]:",
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


def _behind(collector: str, lines: list[str]) -> list[str]:
    """``lines`` as ``collector`` hands them on, each behind its prefix (a launcher's rank
    tag, where the lines carry one, after it): what the collector tests read."""
    outer = COLLECTORS[collector]
    return [outer + line for line in lines]


@pytest.mark.parametrize("collector", sorted(COLLECTORS))
def test_a_collectors_prefix_before_the_launchers_keeps_its_rank(
        tmp_path: Path, collector: str) -> None:
    lines = _behind(collector, _interleaved(lambda r: f"[default{r}]:", _loop(), _loop(NAN_FROM)))
    assert _diagnosed(tmp_path, lines) == [("AMP006", NAN_FROM, 1)]
    mpi = _behind(collector, _interleaved(lambda r: f"[1,{r}]<stdout>:", _loop(), _loop(NAN_FROM)))
    assert _diagnosed(tmp_path, mpi) == [("AMP006", NAN_FROM, 1)]


@pytest.mark.parametrize("collector", sorted(COLLECTORS))
def test_healthy_ranks_behind_a_collector_stay_silent(tmp_path: Path, collector: str) -> None:
    # a control: passes on the parent too
    lines = _behind(collector, _interleaved(lambda r: f"[default{r}]:", _loop(), _loop()))
    assert _diagnosed(tmp_path, lines) == []


def test_ranks_printing_the_same_loss_each_see_their_steps(tmp_path: Path) -> None:
    # An all-reduced loss: both ranks print 4.0, 2.0, ... until rank 1 prints 0.0 from step
    # 6. Rank 1's first rows are its own observations, not copies of rank 0's.
    def rank(zero_from: int | None) -> list[str]:
        return [f"step {s} loss {0.0 if zero_from and s >= zero_from else 4.0 / s} "
                "loss_scale 1024.0" for s in range(1, 15)]
    lines = _interleaved(lambda r: f"[default{r}]:", rank(None), rank(6))
    assert _diagnosed(tmp_path, lines) == [("AMP007", 6, 1)]


@pytest.mark.parametrize("blocks", [False, True])
def test_rows_without_a_step_from_two_ranks_are_not_counted_twice(
        tmp_path: Path, blocks: bool) -> None:
    rank0 = [f"[default0]:{row}" for row in _hf_rows()]
    rank1 = [f"[default1]:{row}" for row in _hf_rows(nan_from=9)]
    lines = rank0 + rank1 if blocks else _interleaved(lambda r: "", rank0, rank1)
    assert _diagnosed(tmp_path, lines) == [("AMP006", 9, 1)]


def test_healthy_rows_without_a_step_from_two_ranks_stay_silent(tmp_path: Path) -> None:
    # a control: passes on the parent too
    lines = _interleaved(lambda r: f"[default{r}]:", _hf_rows(), _hf_rows())
    assert _diagnosed(tmp_path, lines) == []


def test_two_ranks_glued_into_one_line_are_read_as_two_prints(tmp_path: Path) -> None:
    # ranks sharing one stdout: rank 0's print not yet ended when rank 1's began
    glued = [a + b for a, b in zip(_loop(), _loop(NAN_FROM), strict=True)]
    assert _diagnosed(tmp_path, glued) == [("AMP006", NAN_FROM, 0)]
    tee = [f"[default0]:{a}[default1]:{b}"
           for a, b in zip(_loop(), _loop(NAN_FROM), strict=True)]
    assert _diagnosed(tmp_path, tee) == [("AMP006", NAN_FROM, 1)]
    nano = [f"iter {i}: loss {3 - i / 1000:.4f}, time 35.21ms, mfu 12.30%"
            f"iter {i}: loss {'nan' if i >= 250 else f'{3 - i / 1000:.4f}'}, time 35.90ms, "
            "mfu 12.10%" for i in range(0, 400, 10)]
    assert _diagnosed(tmp_path, nano) == [("AMP006", 250, 0)]


def test_healthy_prints_glued_together_stay_silent(tmp_path: Path) -> None:
    # a control: passes on the parent too
    glued = [a + b for a, b in zip(_loop(), _loop(), strict=True)]
    assert _diagnosed(tmp_path, glued) == []


def _tee(ranks: list[list[str]], *, lag: int, block: int = 3) -> list[str]:
    """Ranks sharing one stdout (``torchrun`` without ``--tee``, ``accelerate launch``, ``| tee``
    of all ranks), no prefix: rank ``r`` prints row ``k`` at time ``k + r * lag``, and each
    rank's rows come out in blocks of ``block`` (its stdout buffer flushed)."""
    rows = len(ranks[0])
    out: list[str] = []
    for start in range(0, rows + lag * len(ranks), block):
        for rank, lines in enumerate(ranks):
            first = max(0, start - rank * lag)
            out += lines[first:max(first, min(rows, start + block - rank * lag))]
    return out


def _scale_rows(rank: int, collapse_from: int | None = None, steps: int = 300) -> list[str]:
    """A GradScaler loop's ``print(f"step {step} loss {loss:.4f} loss_scale {scale}")`` on
    every rank (the scale is the same on all: the overflow check is all-reduced); healthy:
    the start-up back-off, then a sawtooth."""
    scale, out = 65536.0, []
    for step in range(1, steps + 1):
        halves = step >= collapse_from if collapse_from else step in (1, 2, 3, 100, 200)
        if halves:
            scale /= 2
        elif collapse_from is None and step in (60, 160, 260):
            scale *= 2
        out.append(f"step {step} loss {2.0 + (rank * 7 + step) % 10 / 100:.4f} "
                   f"loss_scale {scale}")
    return out


@pytest.mark.parametrize("lag", [1, 2])
def test_a_tee_of_ranks_behind_each_other_is_one_collapse(tmp_path: Path, lag: int) -> None:
    # The ranks' rows of steps already read (a rank behind) are not the scale growing back
    # and halving again: one AMP003 where the cascade began, one AMP004.
    lines = _tee([_scale_rows(rank, collapse_from=150) for rank in range(8)], lag=lag)
    assert _diagnosed(tmp_path, lines) == [("AMP003", 150, 0), ("AMP004", 166, 0)]


@pytest.mark.parametrize("lag", [1, 2])
def test_a_tee_of_healthy_ranks_behind_each_other_stays_silent(
        tmp_path: Path, lag: int) -> None:
    # a control: passes on the parent too
    assert _diagnosed(tmp_path, _tee([_scale_rows(rank) for rank in range(8)], lag=lag)) == []
    assert _diagnosed(tmp_path, _tee([_loop() for _ in range(8)], lag=lag)) == []


@pytest.mark.parametrize("lag", [1, 2])
@pytest.mark.parametrize("value, code", [("nan", "AMP006"), ("0.0", "AMP007")])
def test_a_tee_of_ranks_behind_each_other_names_the_fault_once(
        tmp_path: Path, lag: int, value: str, code: str) -> None:
    def rank(r: int) -> list[str]:
        return [f"epoch 1 step {s} loss {value if s >= 120 else f'{3 - s / 200 + r / 100:.4f}'}"
                " lr 0.001" for s in range(1, 201)]
    assert _diagnosed(tmp_path, _tee([rank(r) for r in range(8)], lag=lag)) == [(code, 120, 0)]


def _skorch_table(nan_from: int | None = None, epochs: int = 8) -> list[str]:
    """skorch's PrintLog (skorch/callbacks/logging.py: tabulate's ``simple`` table, a header
    printed once, a row an epoch), as the recorded corpus has it (tests/logs/recorded/skorch)."""
    lines = ["  epoch    train_loss    valid_loss      lr     dur",
             "-------  ------------  ------------  ------  ------"]
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        train, valid = ("nan", "nan") if bad else (f"{3 - epoch / 2:.4f}", f"{3 - epoch / 3:.4f}")
        lines.append(f"{epoch:>7}  {train:>12}  {valid:>12}  0.0100  0.0246")
    return lines


@pytest.mark.parametrize("collector", ["kubectl_timestamps", "kubectl_both", "github_actions",
                                       "journald", "ray_worker"])
def test_a_table_behind_a_collectors_prefix_is_read(tmp_path: Path, collector: str) -> None:
    # The collector's prefix is no cell of the header row: the rows under it are read.
    # kubectl's pod is a Kubeflow PyTorchJob's worker-0: RANK 1 (training-operator envvar.go)
    rank = 1 if "-worker-0/pytorch]" in COLLECTORS[collector] else 0
    assert _diagnosed(tmp_path, _behind(collector, _skorch_table(nan_from=4))) == [
        ("AMP006", 4, rank), ("AMP013", 4, rank)]  # valid_loss NaN too: the consequence
    assert _diagnosed(tmp_path, _behind(collector, _skorch_table())) == []


def test_crlf_redraws_and_a_cut_first_line_keep_step_and_rank(tmp_path: Path) -> None:
    # a control (passes on the parent too): Windows line ends, tqdm's carriage-return
    # redraws before each row (torchrun prefixes the line, so the bar follows the prefix),
    # and an excerpt that starts in the middle of a line
    bar = " 45%|####5     | 9/20 [00:01<00:01,  8.50it/s]\r"
    rows = [line for pair in zip(_loop(), _loop(NAN_FROM), strict=True)
            for line in (f"[default0]:{bar}{pair[0]}", f"[default1]:{bar}{pair[1]}")]
    lines = [rows[0][len(rows[0]) // 2:], *rows[1:]]
    log = tmp_path / "excerpt.log"
    log.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    result = diagnose(str(log))
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", NAN_FROM, 1)]


@pytest.mark.parametrize("value, code", [("0.0", "AMP007"), ("nan", "AMP006")])
def test_a_step_counted_over_each_epoch_is_no_rank_behind(
        tmp_path: Path, value: str, code: str) -> None:
    # one process whose step counts each epoch's batches from 1 (20 a epoch) goes back to
    # its first step, not a little behind: the steps count on over the epochs (epoch 4's
    # step 10 is the run's 70th)
    lines = [f"epoch {e} step {i} loss {value if (e - 1) * 20 + i >= 70 else '1.5'} lr 0.001"
             for e in range(1, 6) for i in range(1, 21)]
    assert _diagnosed(tmp_path, lines) == [(code, 70, 0)]


def test_the_same_row_glued_twice_is_one_row(tmp_path: Path) -> None:
    # a control (the parent read such a line as one row too): two ranks printing the same HF
    # row (no step printed: the row counts) into one line
    rows = _hf_rows(nan_from=9)
    assert _diagnosed(tmp_path, [row + row for row in rows]) == [("AMP006", 9, 0)]
