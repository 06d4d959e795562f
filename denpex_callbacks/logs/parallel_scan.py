"""The keyword scan of a big log file, spread over worker processes while this one parses.

Scanning (``bytes.find`` per keyword over every byte) is about half of the doctor's time on a
big log, parsing the candidate lines the other half. ``bytes.find`` holds the GIL, so threads
do not help: worker processes each scan one span of the file (the lines that *start* in it),
hand back the candidate lines with span-relative numbers, and this process renumbers them and
parses them in order, scanning and parsing at the same time. The first ``OWN_SPANS`` spans
this process scans itself, as a worker would, while its workers start. Results are the same as the
one-process scan of :func:`~denpex_callbacks.logs.reader.candidate_lines` (the tests compare
them), except that a line of ``MAX_LINE`` (4 MiB) or more may be cut into different pieces
(and counted as a long line or not) depending on where its scan's chunks begin, and that the
rows after a header row (handed over without a keyword, see ``reader.ValueRowLine``) stop at
the end of the header's span.

Only plain files of at least ``PARALLEL_MIN_BYTES`` on a machine with more than one CPU take
this path; stdin, ``.gz`` and small files are scanned in this process. So is a dense log, where
more than ``DENSE_SHARE`` of the lines of its first MiB or of a MiB from its middle are
candidates: there parsing, which stays in this process, is the bottleneck, and workers only
take CPU from it and add the cost of shipping every line back (measured on 2 CPUs, a log
with 30% generic metric lines: 9.4 MB/s in one process, 4.0 MB/s with workers).
"""

from __future__ import annotations

import io
import os
import signal
import stat
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from typing import BinaryIO

from denpex_callbacks.logs.keyword_scan import HAS_RE2, line_starts
from denpex_callbacks.logs.reader import (
    MAX_TEXT,
    STDIN,
    InputError,
    ReadStats,
    RunMatcher,
    candidate_lines,
    last_line,
    looks_binary,
)

PARALLEL_MIN_BYTES = 64 * 1024 * 1024  # below this, starting workers costs more than it saves
SPAN = 16 * 1024 * 1024  # bytes one worker task scans (its memory: about one 4 MiB chunk)
# The first spans, scanned (and parsed) in this process while the workers start: a spawned
# worker imports the doctor before it scans (about 0.3 s on 2 CPUs), which this process spent
# waiting for its first span. Two spans take this process about as long as a worker's start
# and its first span (RE2: 32 MiB of a DeepSpeed/HF log in about 0.3 s, reading and parsing),
# so that it rarely waits for one after them either.
OWN_SPANS = 2
MAX_WORKERS = 8  # past this the parsing process is the bottleneck anyway
DENSE_SHARE = 0.1  # a DeepSpeed log at INFO: 2.4% of lines are candidates; 30% generic: 32%
_SAMPLE = 1024 * 1024  # the head whose share of candidate lines decides
_SEEK_BLOCK = 64 * 1024

Found = list[tuple[int, str]]


def scan_workers(workers: int | None = None) -> int:
    """How many scanning processes to use: ``workers`` when given (at most ``MAX_WORKERS``),
    else, on a machine with more than one CPU, one when the RE2 scan is installed and one per
    CPU when it is not (none with a single CPU).

    RE2 scans all keywords in one pass, about three times faster than this process parses the
    lines it finds: one worker scanning ahead keeps up, and the main process only parses
    (2 CPUs, 300 MB DeepSpeed/HF log: 2.72 s in one process, 1.87 s with one worker, medians
    of 5; at 70 MB the worker's start-up eats the gain). A second worker only takes CPU from
    the parsing (the stdlib scan's figures below were what once kept RE2 in one process: 2
    loaded CPUs, 200 MB DeepSpeed log, 60.7 MB/s in one process, 23.6 MB/s with 2 workers).
    Without RE2, one per CPU, not one fewer for the parsing process: per byte the
    ``bytes.find`` scan costs more than the parsing (measured on 2 idle CPUs, 1 GB: 1 worker
    7.6 s, 2 workers 5.8 s, none 9.7 s).

    Example:
        >>> scan_workers(0), scan_workers(3), scan_workers(100)
        (0, 3, 8)
    """
    if workers is not None:
        return max(0, min(workers, MAX_WORKERS))
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    if cpus <= 1:
        return 0
    return 1 if HAS_RE2 else min(cpus, MAX_WORKERS)


def scan_input(
    path: str,
    stream: BinaryIO,
    keywords: tuple[bytes, ...],
    stats: ReadStats,
    progress: Callable[[int], None] | None = None,
    *,
    workers: int | None = None,
    min_bytes: int | None = None,
    span: int | None = None,
    dense_share: float | None = None,
    runs: RunMatcher | None = None,
) -> Iterator[tuple[int, str]]:
    """Candidate lines of an opened input, like ``candidate_lines``, in worker processes when
    the input is a plain file big enough to gain from it.

    Args:
        path: The input's path (``-`` for stdin).
        stream: ``open_input(path)``; read here when the scan stays in this process.
        keywords: The prefilter keywords.
        stats: Complete when the scan has ended (the same totals either way); on the worker
            path it grows span by span, after each span's lines.
        progress: Called with the bytes done so far.
        workers: Scanning processes (0: scan here); None: see :func:`scan_workers`.
        min_bytes: Smallest file scanned in workers (default ``PARALLEL_MIN_BYTES``).
        span: Bytes per worker task (default ``SPAN``).
        dense_share: Above this share of candidate lines in the head, scan here (default
            ``DENSE_SHARE``; 1.0: never).
        runs: Where lines repeat a quiet line, count them instead of handing them over (see
            ``candidate_lines``; in this process only: the workers hand over every line).
    """
    workers = scan_workers(workers)
    smallest = PARALLEL_MIN_BYTES if min_bytes is None else min_bytes
    file = _reopenable_file(path, stream) if workers else None
    if file is None or file[1] < max(smallest, 1):
        yield from candidate_lines(stream, keywords, stats, progress, runs=runs)
        return
    real_path, size = file
    head, middle = _samples(stream, size)
    if looks_binary(head):
        raise InputError("binary file (NUL bytes), not a text log")
    # (the middle too: a run's first MiB may be start-up noise, NCCL's or a config dump, above
    # a log of metric lines, which the quiet runs read fastest here)
    if max(candidate_share(head, keywords), candidate_share(middle, keywords)) > (
            DENSE_SHARE if dense_share is None else dense_share):
        yield from candidate_lines(stream, keywords, stats, progress, runs=runs)
        return
    yield from _scan_in_workers(real_path, stream, size, keywords, stats, progress, workers,
                                SPAN if span is None else span)


def _reopenable_file(path: str, stream: BinaryIO) -> tuple[str, int] | None:
    """(real path, size) of a plain, uncompressed file that a worker process opening that
    path finds identical to ``stream``; None for stdin, .gz, /dev/fd/N, /proc/..., pipes, and a
    path that names another file by now (a log rotated since it was opened).
    """
    if path == STDIN or not isinstance(stream, io.BufferedReader):
        return None
    try:
        real = os.path.realpath(path)
        if real.startswith(("/dev/", "/proc/")):
            return None
        opened, named = os.fstat(stream.fileno()), os.stat(real)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(opened.st_mode) or not os.path.samestat(opened, named):
        return None
    return real, opened.st_size


def _samples(stream: BinaryIO, size: int) -> tuple[bytes, bytes]:
    """The first ``_SAMPLE`` bytes of the file and ``_SAMPLE`` bytes from its middle on (from
    the first line that starts there); the stream is left at its start."""
    head = stream.read(_SAMPLE)
    stream.seek(size // 2)
    middle = stream.read(_SAMPLE)
    stream.seek(0)
    return head, middle[middle.find(b"\n") + 1:]


def candidate_share(head: bytes, keywords: tuple[bytes, ...]) -> float:
    """The share of the whole lines of ``head`` that hold a keyword.

    Example:
        >>> candidate_share(b"a loss\\nb\\nc\\nd loss\\ne lo", (b"loss",))
        0.5
    """
    cut = head.rfind(b"\n") + 1
    lines = head.count(b"\n", 0, cut)
    return len(line_starts(head, cut, keywords)) / lines if lines else 0.0


def _scan_in_workers(
    path: str, stream: BinaryIO, size: int, keywords: tuple[bytes, ...], stats: ReadStats,
    progress: Callable[[int], None] | None, workers: int, span: int,
) -> Iterator[tuple[int, str]]:
    spans = deque((start, min(start + span, size)) for start in range(0, size, span))
    own = [spans.popleft() for _ in range(min(OWN_SPANS, len(spans)))]
    lines_before = 0  # newlines in the spans already handed on
    done = 0  # bytes of the file already handed on
    pool: Executor | None = None
    pending: deque[tuple[Future[tuple[Found, ReadStats]], int]] = deque()
    unreadable: Exception | None = None
    try:
        if spans:
            pool = _make_pool(workers)
            while spans and len(pending) < 2 * workers:  # (they start while this one scans)
                start, end = spans.popleft()
                pending.append((pool.submit(scan_span, path, start, end, keywords), end))
        for start, end in own:  # the first spans, here: as a worker scans them
            part = ReadStats()
            try:
                for number, text in _own_span(stream, start, end, keywords, part):
                    yield lines_before + number, text
            except (InputError, OSError) as err:
                unreadable = err
                raise
            lines_before += part.lines
            _merge(stats, part)
            done = end
            if progress is not None:
                progress(end)
        while spans or pending:
            assert pool is not None
            while spans and len(pending) < 2 * workers:  # keep every worker busy, bounded
                start, end = spans.popleft()
                pending.append((pool.submit(scan_span, path, start, end, keywords), end))
            future, end = pending.popleft()
            try:
                found, part = future.result()
            except (InputError, OSError) as err:
                unreadable = err
                raise
            for number, text in found:
                yield lines_before + number, text
            lines_before += part.lines
            _merge(stats, part)
            done = end
            if progress is not None:
                progress(end)
    except Exception as err:
        if err is unreadable:
            raise  # the file itself failed to read in a worker: the caller reports it
        # Whatever else broke the workers (BrokenProcessPool from result() or submit(): one
        # was killed, or a __main__ without the spawn guard; no semaphores; a failed spawn):
        # what was handed on stays right, and the rest is scanned below, in this process.
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    # The rest: what the workers did not get to, and what was appended to a log still being
    # written since the scan began (the one-process scan reads to the end as well).
    if done < os.fstat(stream.fileno()).st_size:
        yield from _scan_here(stream, done, lines_before, keywords, stats, progress)


def _scan_here(
    stream: BinaryIO, offset: int, lines_before: int, keywords: tuple[bytes, ...],
    stats: ReadStats, progress: Callable[[int], None] | None,
) -> Iterator[tuple[int, str]]:
    """The lines that start at or after ``offset`` (a span boundary), scanned here from the
    stream the caller opened."""
    first = _line_start_from(stream, offset)
    part = ReadStats()
    tick = (lambda n: progress(first + n)) if progress is not None else None
    stop = os.fstat(stream.fileno()).st_size
    for number, text in _lines_between(stream, first, stop, keywords, part, tick):
        yield lines_before + number, text
    _merge(stats, part)


def _own_span(stream: BinaryIO, start: int, end: int, keywords: tuple[bytes, ...],
              stats: ReadStats) -> Iterator[tuple[int, str]]:
    """What :func:`scan_span` finds in ``[start, end)``, scanned here from the stream the
    caller opened, as it is asked for (numbered from 1 at the span's first line)."""
    first, stop = _line_start_from(stream, start), _line_start_from(stream, end)
    yield from _lines_between(stream, first, stop, keywords, stats)


def _make_pool(workers: int) -> Executor:
    # imported here: multiprocessing and the process pool cost ~10 ms of every start-up, and
    # only a log of PARALLEL_MIN_BYTES or more (never a pasted excerpt) gets a pool
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the caller may hold threads or locks that a forked child would copy.
    # Workers ignore Ctrl-C: the main process stops them (each would print a traceback).
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=signal.signal,
                               initargs=(signal.SIGINT, signal.SIG_IGN))


def _merge(total: ReadStats, part: ReadStats) -> None:
    total.bytes_read += part.bytes_read
    total.lines += part.lines
    total.candidates += part.candidates
    total.undecodable_lines += part.undecodable_lines
    total.long_lines += part.long_lines
    total.problems.extend(part.problems)


def scan_span(
    path: str, start: int, end: int, keywords: tuple[bytes, ...]
) -> tuple[Found, ReadStats]:
    """The candidate lines among the lines that start in ``[start, end)`` of a file.

    Runs in a worker process. Line numbers count from 1 at the span's first line; the stats'
    ``lines`` is the number of newlines of those lines (what the next span's numbers follow).

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile("wb", delete=False) as f:
        ...     _ = f.write(b"a loss\\nb\\nc loss\\nd loss\\n")
        >>> scan_span(f.name, 3, 12, (b"loss",))[0]  # lines 2 and 3 start in [3, 12)
        [(2, 'c loss')]
        >>> os.unlink(f.name)
    """
    stats = ReadStats()
    with open(path, "rb") as handle:
        # first >= stop: a line that began in an earlier span covers this one (nothing read)
        first, stop = _line_start_from(handle, start), _line_start_from(handle, end)
        found = list(_lines_between(handle, first, stop, keywords, stats))
    return found, stats


def _lines_between(
    handle: BinaryIO, first: int, stop: int, keywords: tuple[bytes, ...], stats: ReadStats,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[int, str]]:
    """Candidate lines of the file's bytes ``[first, stop)`` (both line starts), numbered from
    1 there; the file's start was checked for binary content already."""
    before = b""
    if first > 0:  # the line before the span's first: a record's step line may be there
        low = max(0, first - 2 - MAX_TEXT)
        handle.seek(low)
        before = last_line(handle.read(first - low), first - low, keywords)
    handle.seek(first)
    yield from candidate_lines(_Window(handle, stop - first), keywords, stats, progress,
                               check_binary=False, before=before)


def _line_start_from(handle: BinaryIO, offset: int) -> int:
    """The offset of the first line that starts at or after ``offset`` (EOF if none)."""
    if offset == 0:
        return 0
    handle.seek(offset - 1)
    position = offset - 1
    while True:
        block = handle.read(_SEEK_BLOCK)
        if not block:
            return position
        newline = block.find(b"\n")
        if newline >= 0:
            return position + newline + 1
        position += len(block)


class _Window:
    """At most ``limit`` bytes of a file from where it is positioned."""

    def __init__(self, handle: BinaryIO, limit: int) -> None:
        self._handle = handle
        self._left = limit

    def read(self, size: int = -1, /) -> bytes:
        if self._left <= 0:
            return b""
        size = self._left if size < 0 else min(size, self._left)
        data = self._handle.read(size)
        self._left -= len(data)
        return data
