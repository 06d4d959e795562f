"""The scan spread over worker processes finds exactly what the one-process scan finds.

Spans are made tiny (a few hundred bytes, so that most lines straddle a span boundary) and the
size threshold zero, so that small files take the worker path. The span logic is checked with
threads standing in for processes (fast, same code), then once with real worker processes and
the full doctor.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from denpex_callbacks.cli import main
from denpex_callbacks.logs import parallel_scan
from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.keyword_scan import HAS_RE2
from denpex_callbacks.logs.parallel_scan import scan_input, scan_workers
from denpex_callbacks.logs.parsers import KEYWORDS
from denpex_callbacks.logs.reader import InputError, ReadStats, candidate_lines, open_input

CORPUS = Path(__file__).parent / "corpus"
LOGS = sorted(CORPUS.glob("*.log"))


def _serial(path: Path) -> tuple[list[tuple[int, str]], ReadStats]:
    stats = ReadStats()
    with open_input(str(path)) as stream:
        return list(candidate_lines(stream, KEYWORDS, stats)), stats


def _parallel(path: Path, span: int, workers: int = 3) -> tuple[list[tuple[int, str]], ReadStats]:
    stats = ReadStats()
    done: list[int] = []
    with open_input(str(path)) as stream:
        found = list(scan_input(str(path), stream, KEYWORDS, stats, done.append,
                                workers=workers,
                                min_bytes=0, span=span, dense_share=1.0))
    assert done == sorted(done) and done[-1] == path.stat().st_size
    return found, stats


def _step_lines(count: int) -> bytes:
    return b"".join(b"step %d loss 0.5\n" % i for i in range(count))


def _parallel_with(
    path: Path, span: int, after: int, action: Callable[[], Any]
) -> tuple[list[tuple[int, str]], ReadStats]:
    """The worker scan, running ``action`` once ``after`` lines have been handed on."""
    stats = ReadStats()
    found: list[tuple[int, str]] = []
    with open_input(str(path)) as stream:
        for item in scan_input(str(path), stream, KEYWORDS, stats, workers=2, min_bytes=0,
                               span=span, dense_share=1.0):
            found.append(item)
            if len(found) == after:
                action()
    return found, stats


def _threads(workers: int) -> Executor:
    return ThreadPoolExecutor(workers)


@pytest.fixture
def threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel_scan, "_make_pool", _threads)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("span", [1, 97, 4096])
def test_whole_corpus_same_lines_same_numbers(tmp_path: Path, span: int) -> None:
    joined = tmp_path / "corpus.log"
    joined.write_bytes(b"".join(log.read_bytes() for log in LOGS))
    serial, serial_stats = _serial(joined)
    parallel, parallel_stats = _parallel(joined, span)
    assert len(serial) > 500
    assert parallel == serial
    assert parallel_stats == serial_stats


_LINE = st.one_of(
    st.sampled_from([
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, reducing to 4",
        "{'loss': 0.25, 'grad_norm': 1.0, 'learning_rate': 1e-05, 'epoch': 0.1}",
        "[Rank 1] step=10, skipped=2, lr=[0.1], mom=[0.9]",
        "plain noise", "", "tqdm\r 10%|# | 1/10 {'loss': 'nan'}\rmore",
    ]),
    st.text(alphabet="aelossVERFLOW \t\r=", max_size=40),
)


@pytest.mark.usefixtures("threads")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, max_size=40), end=st.sampled_from(["", "\n", "\r\n"]),
       span=st.integers(1, 300))
def test_any_text_any_span(tmp_path: Path, lines: list[str], end: str, span: int) -> None:
    log = tmp_path / "x.log"
    log.write_text("\n".join(lines) + end, encoding="utf-8")
    if log.stat().st_size == 0:
        return
    assert _parallel(log, span) == _serial(log)


@pytest.mark.usefixtures("threads")
def test_binary_file_is_refused_before_any_worker_starts(tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(b"loss\x00\x01" * 100)
    with pytest.raises(InputError, match="binary file"):
        _parallel(log, 64)


class _DiesAfter(ThreadPoolExecutor):
    """A pool whose worker "dies" after ``tasks`` tasks, as a killed process would: the
    pending task fails, and (``refuse``) so does every later submit."""

    def __init__(self, workers: int, tasks: int, refuse: bool) -> None:
        super().__init__(workers)
        self.left, self.refuse = tasks, refuse

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.left -= 1
        if self.left >= 0:
            return super().submit(fn, *args, **kwargs)
        if self.refuse and self.left < -1:
            raise BrokenProcessPool("a worker died")
        broken: Future[Any] = Future()
        broken.set_exception(BrokenProcessPool("a worker died"))
        return broken


@pytest.mark.parametrize("refuse", [False, True])
@pytest.mark.parametrize("tasks", [0, 1, 5])
def test_a_dying_worker_leaves_the_rest_to_this_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tasks: int, refuse: bool
) -> None:
    monkeypatch.setattr(parallel_scan, "_make_pool", lambda n: _DiesAfter(n, tasks, refuse))
    joined = tmp_path / "corpus.log"
    joined.write_bytes(b"".join(log.read_bytes() for log in LOGS[:6]))
    assert _parallel(joined, 211) == _serial(joined)


def test_a_killed_worker_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """SIGKILL to a real worker while this process is busy with earlier lines."""
    log = tmp_path / "x.log"
    log.write_bytes(_step_lines(20000))
    pools: list[Any] = []
    real_pool = parallel_scan._make_pool
    monkeypatch.setattr(parallel_scan, "_make_pool",
                        lambda n: pools.append(real_pool(n)) or pools[-1])

    def kill_a_worker() -> None:
        worker = next(iter(pools[0]._processes.values()))
        os.kill(worker.pid, signal.SIGKILL)
        worker.join(timeout=60)  # dead for sure before the scan goes on (no sleep to guess)

    assert _parallel_with(log, 4096, 5, kill_a_worker) == _serial(log)


def test_workers_open_the_file_this_process_opened(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    log = CORPUS / "deepspeed_zero2_collapse.log"
    monkeypatch.setattr(parallel_scan, "_make_pool", _threads)
    with open(log, "rb") as handle:  # /dev/fd/N means nothing in a worker: its real path does
        fd_path = f"/dev/fd/{handle.fileno()}"
        with open_input(fd_path) as stream:
            stats = ReadStats()
            found = list(scan_input(fd_path, stream, KEYWORDS, stats, workers=2, min_bytes=0,
                                    span=999, dense_share=1.0))
    assert (found, stats) == _serial(log)
    monkeypatch.setattr(parallel_scan, "_make_pool", lambda n: pytest.fail("no pool wanted"))
    renamed = tmp_path / "rotated.log"
    renamed.write_bytes(log.read_bytes())
    with open_input(str(renamed)) as stream:
        renamed.rename(tmp_path / "rotated.log.1")  # logrotate, after the doctor opened it
        renamed.write_bytes(b"another file\n")
        stats = ReadStats()
        found = list(scan_input(str(renamed), stream, KEYWORDS, stats, workers=2, min_bytes=0,
                                dense_share=1.0))
    assert (found, stats) == _serial(log)


def test_worker_count() -> None:
    assert scan_workers(0) == 0
    assert scan_workers(4) == 4
    assert scan_workers(100) == parallel_scan.MAX_WORKERS
    cpus = len(os.sched_getaffinity(0))
    if cpus == 1:
        assert scan_workers() == 0  # nothing to scan beside the parsing on
    elif HAS_RE2:  # the one-pass scan outruns the parsing: one worker keeps ahead of it
        assert scan_workers() == 1
    else:  # the stdlib scan costs more per byte than the parsing: one per CPU
        assert scan_workers() == min(cpus, parallel_scan.MAX_WORKERS)


def test_worker_processes_give_the_same_diagnoses(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real spawned processes, in the doctor and through the CLI."""
    log = CORPUS / "deepspeed_zero2_min_scale_exit.log"
    serial = diagnose(str(log), workers=0)
    monkeypatch.setattr(parallel_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(parallel_scan, "SPAN", 512)
    monkeypatch.setattr(parallel_scan, "DENSE_SHARE", 1.0)  # the corpus log is all candidates
    pools: list[Executor] = []
    real_pool = parallel_scan._make_pool

    def spy(workers: int) -> Executor:
        pools.append(real_pool(workers))
        return pools[-1]

    monkeypatch.setattr(parallel_scan, "_make_pool", spy)
    parallel = diagnose(str(log), workers=2)
    assert len(pools) == 1 and type(pools[0]).__name__ == "ProcessPoolExecutor"
    assert serial.faults and not serial.error
    assert [(d.code, d.step, d.rank, d.lines) for d in parallel.faults] == \
        [(d.code, d.step, d.rank, d.lines) for d in serial.faults]
    assert parallel.stats == serial.stats and parallel.families == serial.families
    assert main(["diagnose", "--workers", "2", "--format", "json", str(log)]) == 1
    assert '"AMP' in capsys.readouterr().out
    assert len(pools) == 2


def test_workers_must_be_a_count(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("-1", "two"):
        assert main(["diagnose", "--workers", bad, "x.log"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--workers" in err


@pytest.mark.usefixtures("threads")
def test_a_log_still_being_written_is_read_to_its_end(tmp_path: Path) -> None:
    log = tmp_path / "live.log"
    log.write_bytes(_step_lines(300))

    def training_goes_on() -> None:
        with open(log, "ab") as more:
            more.write(b"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss "
                       b"scale: 8, reducing to 4\n")

    found, stats = _parallel_with(log, 1000, 1, training_goes_on)
    assert (found, stats) == _serial(log)
    assert "OVERFLOW" in found[-1][1] and found[-1][0] == 301


def test_a_dense_log_is_scanned_in_this_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Parsing is the bottleneck when most lines are candidates: no workers then, also where
    the first MiB is start-up noise above them (the middle of the file is looked at too)."""
    dense, sparse = tmp_path / "dense.log", tmp_path / "sparse.log"
    noisy_head = tmp_path / "noisy_head.log"
    dense.write_bytes(_step_lines(3000))
    noisy_head.write_bytes(b"NCCL INFO Channel 00/32 : 0 1 2 3 4 5 6 7\n" * 30_000
                           + _step_lines(150_000))
    sparse.write_bytes(b"".join(b"noise %d\n" % i + (b"step %d loss 0.5\n" % i if i % 50 == 0
                                                     else b"") for i in range(3000)))
    pools: list[int] = []

    def counted(workers: int) -> Executor:
        pools.append(workers)
        return _threads(workers)

    monkeypatch.setattr(parallel_scan, "_make_pool", counted)
    for log in (dense, sparse, noisy_head):
        with open_input(str(log)) as stream:
            stats = ReadStats()
            found = list(scan_input(str(log), stream, KEYWORDS, stats, workers=2, min_bytes=0,
                                    span=4096))
        assert (found, stats) == _serial(log)
    assert pools == [2]  # the sparse log only
