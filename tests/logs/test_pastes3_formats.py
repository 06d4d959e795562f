"""Pastes that put something before every line (paste_margins.py, line_prefixes.py): a
metamorphic check, the answer on an excerpt the same however it was pasted.

Another rank's launcher prefix on every line (torchrun's ``[default1]:``, torch
distributed/elastic/multiprocessing/tail_log.py ``[{role}{local_rank}]:``; torch's
``[rank3]: ``; srun --label's ``1: ``; mpirun --tag-output's ``[1,3]<stdout>:``, open-mpi
orte/mca/iof/base/iof_base_output.c ``"[%s,%s]<%s>:"``) is a margin, its rank kept. A prefix
that changes every line is taken off every line where the head shows it on each: the time of
``kubectl logs --timestamps`` and ``docker logs -t`` (docker daemon/logger
jsonfilelog ``RFC3339NanoFixed``: nine digits), of GitHub Actions' raw logs (seven digits),
moreutils' ``ts`` (its default ``%b %d %H:%M:%S``), journald's short form (``%b %d %H:%M:%S
HOST IDENT[PID]:``), ``kubectl logs --prefix``' ``[pod/NAME/CONTAINER] `` and a Ray worker's
process (ray/_private/worker.py print_worker_logs: ``(RayTrainWorker pid=1234)``, ``(pid=1234,
ip=10.0.0.1)``). An indent on an excerpt of three lines or fewer is a margin too.

Found by re-reading the suite's own excerpts (2,682 distinct ones) with one such prefix on
every line. Changed answers on cdac682, then now: ``[default1]:`` 266, 61; ``[rank3]: `` 277,
59; ``1: `` 275, 59; mpirun 289, 62; docker's and GitHub's times 139, 55; ``ts`` 539, 51;
journald 61, 52; ``kubectl --prefix`` 133, 51; Ray 135, 51. Most of the rest are excerpts
already in a paste's shape (wrapped, newest first, quoted) or rules that read rank 0 apart.
The excerpts below are those of other test files, built by their builders: DETR's evaluation
(test_detect_formats), Composer's console records (test_false_alarms2_formats), a step banner
over its rows (test_step_banners), fastai's table (test_classic_formats), a plain loop.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, loop_lines
from test_classic_formats import _fastai
from test_detect_formats import _detr
from test_false_alarms2_formats import _composer
from test_step_banners import _blocks

Lines = list[str]


def _before(prefix: Callable[[int], str]) -> Callable[[Lines], Lines]:
    """Every line (a blank one too: a collector writes its prefix before it) behind
    ``prefix(i)``, ``i`` the line's index."""
    return lambda lines: [prefix(i) + line for i, line in enumerate(lines)]


def _clock(i: int) -> str:
    """The wall clock of line ``i`` (``%H:%M:%S``), three lines a second from 10:00:00."""
    second = 36000 + i // 3
    return f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"


def _rfc3339(digits: int) -> Callable[[int], str]:
    """An RFC 3339 time with ``digits`` digits of a second (docker's nine, GitHub's seven),
    a different fraction on each line."""
    def prefix(i: int) -> str:
        fraction = (i * 7919 * 104729) % 10 ** digits
        return f"2024-06-01T{_clock(i)}.{fraction:0{digits}d}Z "
    return prefix


def _ts(i: int) -> str:
    """moreutils' ``ts``, its default format ``%b %d %H:%M:%S``."""
    return f"Jun 01 {_clock(i)} "


def _journald(i: int) -> str:
    """journalctl's short form (``-o short``): the time, the host, the process and its pid."""
    return f"Jun 01 {_clock(i)} gpu-node-3 python[1234]: "


SHAPES: dict[str, Callable[[Lines], Lines]] = {
    "torchrun --tee rank 1": _before(lambda i: "[default1]:"),
    "torch rank 3": _before(lambda i: "[rank3]: "),
    "srun --label rank 1": _before(lambda i: "1: "),
    "mpirun --tag-output": _before(lambda i: "[1,3]<stdout>:"),
    "docker logs -t": _before(_rfc3339(9)),
    "GitHub Actions": _before(_rfc3339(7)),
    "ts": _before(_ts),
    "journald": _before(_journald),
    "kubectl --prefix": _before(lambda i: "[pod/trainer-0/main] "),
    "Ray worker": _before(lambda i: "(RayTrainWorker pid=1234) "),
    "Ray process": _before(lambda i: "(pid=1234, ip=10.0.0.1) "),
}


def test_detr_evaluation_and_fastai_table_behind_ts(tmp_path: Path) -> None:
    """DETR's NaN evaluation after epoch 0 (AMP013 at 391 alone) and fastai's table behind
    ``ts``'s clock. Before: AMP006 at 392 and 7785 beside DETR's AMP013 (its ``Averaged
    stats:`` read as journald's process and taken off, the evaluation's heading with it);
    fastai's header no longer over its rows. In the other shapes both were read right
    already."""
    shape = SHAPES["ts"]
    assert faults(tmp_path, shape(_detr(test_nan=True))) == [("AMP013", 391)]
    assert faults(tmp_path, shape(_fastai(4))) == [("AMP006", 4), ("AMP013", 4)]


@pytest.mark.parametrize("shape", SHAPES)
def test_composer_records_keep_their_batch(tmp_path: Path, shape: str) -> None:
    """Composer's console records and the OOM that ended the run, at the last record's
    batch. Before, behind a rank's prefix or a clock: SYS001 at 122 (the records' header,
    looked for in the bytes above a row, unread)."""
    fatal = "CUDA out of memory. Tried to allocate 2.00 GiB."
    assert faults(tmp_path, SHAPES[shape](_composer(None, fatal=fatal))) == [("SYS001", 600)]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_step_banner_over_its_rows(tmp_path: Path, shape: str) -> None:
    """``==== Step 1200 ====`` over its rows: step 1200. Before, behind a rank's prefix or
    ``ts``: step 12 (the banner unread, the rows counted)."""
    assert faults(tmp_path, SHAPES[shape](_blocks("==== Step {s} ====", 1200))) == [
        ("AMP006", 1200)]


def test_a_warning_between_the_rows_behind_a_clock(tmp_path: Path) -> None:
    """A Python warning printed between a step banner's blocks, every line behind GitHub
    Actions' time: the prefix comes off every line, the warning's too. Before: step 12."""
    warning = "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:139: " \
        "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`."
    blocks = _blocks("==== Step {s} ====", 1200)
    lines = [part for index, line in enumerate(blocks)
             for part in ((line, warning) if index % 4 == 3 else (line,))]
    assert faults(tmp_path, SHAPES["GitHub Actions"](lines)) == [("AMP006", 1200)]


@pytest.mark.parametrize("shape", SHAPES)
def test_controls(tmp_path: Path, shape: str) -> None:
    """Healthy runs, non-default settings (DETR without its NaN, a banner every 100 steps
    from 100, fastai's table of healthy epochs, a plain loop), stay quiet in every shape (pass
    on the parent too)."""
    for lines in (_detr(test_nan=False), _blocks("==== Step {s} ===="), _fastai(),
                  loop_lines(steps=60)):
        assert faults(tmp_path, SHAPES[shape](lines)) == []


@pytest.mark.parametrize("shape", ["[rank3]: ", "[1,3]<stdout>:", "[default3]:"])
def test_the_rank_of_a_prefix_on_every_line_is_kept(tmp_path: Path, shape: str) -> None:
    """The rank a prefix taken off every line named is the fault's (a step banner's NaN,
    read right only once the prefix is off)."""
    result = diagnose_lines(tmp_path, [shape + line
                                       for line in _blocks("==== Step {s} ====", 1200)])
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 1200, 3)]


def test_the_report_says_a_clock_was_taken_off(tmp_path: Path) -> None:
    """The reading says what was taken off."""
    result = diagnose_lines(tmp_path, SHAPES["docker logs -t"](loop_lines(nan_from=20)))
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 20)]
    assert "a collector's time or process" in " ".join(result.problems)


def test_two_ranks_each_behind_its_prefix(tmp_path: Path) -> None:
    """torchrun --tee of two ranks that print the same banner and rows, their lines
    alternating: the NaN at the banner's step 1200 (each rank's lines read apart:
    rank_streams.py; more shapes in test_ranks_formats). Before: step 12."""
    lines = [prefix + line for line in _blocks("==== Step {s} ====", 1200)
             for prefix in ("[default0]:", "[default1]:")]
    assert faults(tmp_path, lines) == [("AMP006", 1200)]
