"""Streaming reader: big binary chunks, a keyword prefilter, only candidate lines decoded.

Memory stays flat in the file size: one chunk (4 MiB) plus one partial line (capped) is held
at a time. Speed comes from scanning whole chunks for the keywords at C speed
(:mod:`~denpex_callbacks.logs.keyword_scan`: one RE2 pass, or ``bytes.find`` per keyword) and
decoding only the lines that contain a keyword, instead of a Python loop over every line.
"""

from __future__ import annotations

import codecs
import gzip
import io
import os
import re
import sys
import zlib
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Protocol, cast

from denpex_callbacks.logs.bullet_lists import BULLET_REACH, bullet_row
from denpex_callbacks.logs.closing_bars import closes_epoch, finishes_bare_bar
from denpex_callbacks.logs.counted_epochs import COUNTED_TAIL
from denpex_callbacks.logs.counter_headings import is_counter_heading
from denpex_callbacks.logs.empty_means import warning_above
from denpex_callbacks.logs.epoch_ends import ends_epoch
from denpex_callbacks.logs.keyword_scan import line_starts_from
from denpex_callbacks.logs.launcher_ranks import rank_prefix_end
from denpex_callbacks.logs.metric_reader import (
    DICT_REACH,
    EVAL_AT,
    FRAMED_EPOCH,
    HEADER_REACH,
    KERAS_EPOCH,
    MAPPING_REACH,
    RECORD_REACH,
    ROW_REACH,
    STEP_ALONE,
    STEP_BEFORE_KEY,
    STEP_NUMBER,
    STEP_OPENS,
    announces_row,
    header_cells,
    mapping_row,
    opens_dict,
    record_cell,
    simple_cell,
    table_row,
)
from denpex_callbacks.logs.noise_lines import NOISE_BETWEEN, noise_bytes
from denpex_callbacks.logs.paste import WINDOWS_1252, without_collector
from denpex_callbacks.logs.record_rows import step_above_rows
from denpex_callbacks.logs.stat_grids import GRID_ROWS, counters_header, grid_row
from denpex_callbacks.logs.step_layouts import COMPOSER_PROGRESS, PHASE_COUNT
from denpex_callbacks.logs.tensor_wraps import joined_end, unwrapped, wrapped_tensor

CHUNK = 4 * 1024 * 1024
MAX_LINE = CHUNK  # a line longer than this is read in pieces of this size
MAX_TEXT = 16 * 1024  # characters of a candidate line handed to the parsers
STDIN = "-"
# A header row holds no number, though its names may hold digits (``Rouge1``, ``mAP50-95``,
# ``lr0``): most lines are told by the first digit that starts a number.
_NUMBER_START = re.compile(r"\d(?<![\w-]\d)")
# How far the prefixes of log collectors reach (kubectl's ``[pod/NAME/CONTAINER]`` and its
# RFC 3339 time, nanoseconds and all): a number further on is no collector's.
_COLLECTOR_REACH = 96
# a candidate line's last byte that may end a Paddle tensor's header (``,``; ``\r`` of CRLF):
# the cheap test before :func:`wrapped_tensor`
_TENSOR_END = frozenset(b",\r")
# How far into a line a launcher's rank prefix holds its digits (``[1,mpirank:0,algo-1]<stdout>:``).
_RANK_REACH = 40
# A record's step line's end: ``step: 700``, ``[step=1080/739328]``, OLMo-core's
# ``[step=1080/100000,epoch=0,eta=1d2h]`` (``/???`` with no step limit); a colour may end it
# (coqui-ai/Trainer's bold ``--> TIME: ... -- STEP: 25/500 -- GLOBAL_STEP: 1025\x1b[0m`` over
# its ``     | > loss: nan  (nan)`` lines: trainer/logging/console_logger.py print_train_step)
_COLOURS = rb"(?:\x1b\[[0-9;]*m)*"  # colour codes that may end a line (a reset, a bold's end)
_STEP_TAIL = re.compile(
    rb"(?i:step)[=:] *\d+(?:/(?:\d+|\?+))?(?:(?:,[^\]\n]*)?\])?" + _COLOURS + rb"\s*$")
# ...or a bar whose postfix is the run's count alone, over the bar whose postfix holds the
# loss (OpenPCDet before 2022-08, tools/train_utils/train_utils.py ``train_one_epoch``:
# ``pbar.set_postfix(dict(total_it=accumulated_iter))`` under ``tbar.set_postfix(disp_dict)``)
_BAR_COUNT = b", total_it="
_BAR_COUNT_TAIL = re.compile(rb", total_it=\d+\]\s*$")
# ...or the line above a dict pprint spread over lines that numbers it (metric_reader's
# STEP_ABOVE: orbit's ``train | step:   3000 | ... | output: ``, the TF Object Detection
# API's ``Step 100 per-step time 0.123s``)
_STEP_BEFORE_KEY = re.compile(STEP_BEFORE_KEY.encode())
_STEP_NUMBER = re.compile(STEP_NUMBER.encode())
_STEP_OPENS = re.compile(STEP_OPENS.encode())
# ...or a step counter alone on its line (metric_reader's STEP_ALONE)
_STEP_ALONE = re.compile(STEP_ALONE.encode())
NOTE_WIDTH = 80  # the longest line between a banner and its metrics that is looked past
_SECTION = re.compile(rb"[A-Za-z_][\w./-]*:$")  # a YAML mapping's key that opens a section
# An epoch at a line's end, all the line holds after the word (see _is_epoch_line)
# (or of how many, after a colon and a spaced slash: microsoft/mattersim's ``logger.info(f"Epoch:
# {epoch} / {epochs}")`` over its ``train: Loss: ...`` line; Keras' ``Epoch 3/10`` heads a
# bar whose count numbers the line); a colour may end it (loguru's coloured message); or a
# heading's epoch of a count between rules (Open3D-ML's pipelines, ml3d/torch/pipelines/
# semantic_segmentation.py ``run_train``: ``log.info(f"=== EPOCH {epoch:d}/{cfg.max_epoch:d}
# ===")``; a bare ``Epoch 3/10``: Keras' over its bar, which numbers itself, or a loop's over
# its epoch's summary, a rule between (Chatchanan-V/PRiDAN ``train.py``: ``'Epoch {}/{}'``,
# ``'-' * 10``, ``'{} Loss: {:.4f} ...'``); or an epoch and the counts of its end in brackets
# (Chcltms/DeepGrabCut_Davis_finetune ``train.py``, a DeepLab trainer's: ``print('[Epoch: %d,
# numImages: %5d]' % (...))`` over ``print('Loss: %f' % ...)``); or the first line of an
# epoch's summary that says it ended, its values indented below (Stanza's constituency parser,
# stanza/models/constituency/parser_training.py ``iterate_training``: ``Epoch 5 finished``
# over ``  Transitions correct: ...`` and ``  Total loss for epoch: ...``): only over its own
# indented lines, as a loop's ``Epoch 5 done`` after its rows heads the next epoch's; or an
# epoch in brackets, of how many or alone, the epoch's time after it at most (AhmedShakr/
# CVproject1 ``train_ddp.py``: ``f"Epoch [{epoch+1}/{EPOCHS}] -> Time: {elapsed:.1f}s"`` over
# its ``    ↳ Train Loss: ...`` line; 072jiajia/SampleNet-Experiment ``pretrain.py``: ``'Epoch
# [%d]'`` over `` * Train * Loss: ...``): an excerpt pasted from the middle reads the epoch
# printed, not its rows; or an epoch of how many with one note in parentheses after it
# (1Huy2409/network-traffic-prediction ``train_vae.py``: ``f"Epoch {epoch+1}/{epochs}
# (β={beta:.4f})"`` over ``  Train - Loss: ...``): the note is the epoch's setting, no value
_ENDED = rb" (?:finished|done|completed?|ended)"
# ...or an epoch of how many with the learning rate it trains at, and nothing else
# (3200701576/Deep-learning-based-functional-visual-field-prediction ``train_main.py``:
# ``f"\nEpoch {epoch}/{args.epochs}, lr: {lr:.6e}"`` over the epoch's two bars and its
# ``Train Loss: ...`` line), the rate called the current one (AIKU-friends/pose-generation
# ``train_vae.py``: ``f'Epoch {epoch+1}/{num_epochs}, current lr={current_lr}'`` over its
# ``Validation Loss: ...`` row, the training loss sent to wandb only)
_EPOCH_LR = (rb",? +(?:current +)?(?:lr|LR|[Ll]earning[ _]rate)[:=]? *[-+]?\d[\d.]*"
             rb"(?:e[-+]?\d+)?")
_EPOCH_NOTE = rb" +\([^()\n]{1,40}\)"  # (the one note in parentheses, above)
# ...or this run's count of epochs and the loop's epoch in parentheses (PointNet++'s ``Epoch
# 1 (31/200):``: see counted_epochs); or an epoch of how many with a colon after it, or an
# epoch framed by a rule, of how many or alone (``Epoch 4/10:``, ``--- Epoch 4 ---``: the
# headings over a bare bar that numbers the run's batches, tests/logs/test_convention56.py)
_EPOCH_END = (rb"(?:poch|POCH)(?:" + COUNTED_TAIL + rb"|: +\d+ +/ +\d+|:? +\d+(?:/\d+"
              rb"(?: +[-=*#]{2,}|:|"
              + _EPOCH_NOTE + rb"|"
              + _EPOCH_LR + rb")?| +[-=*#]{2,})?"
               rb"|: +\d+(?:, *[A-Za-z]+: *\d+)+\]"
               rb"|:? *\[\d+(?:/\d+)?\](?: *(?:->|-|\|)? *[Tt]ime: *\d+(?:\.\d+)?s)?)(?:"
              + _ENDED + rb")? *" + _COLOURS)
_ENDED_TAIL = re.compile(_ENDED + rb" *" + _COLOURS + rb"\r?\n?$")
_EPOCH_TAIL = re.compile(_EPOCH_END + rb"\r?$")
# An epoch line is looked for this many lines above a candidate line (nnU-Net v2 prints the
# learning rate between its ``Epoch 12`` and the row's ``train_loss``; the visual-field
# script above, a weight's line and two bars' last states).
EPOCH_REACH = 4
EPOCH_BYTES = 512  # how far back those lines may reach, for a first look for one
_EPOCH_ABOVE = re.compile(_EPOCH_END + rb"\r?\n")  # (an epoch line's end, in the bytes; CRLF too)
_AFTER_EPOCH = (b":", b" ", b"[")  # (what each of its ends has after the word: _may_end_epoch)
# Composer's console record: ``[batch=12/4800]:`` over its metrics, one a line (``\t Train
# time/batch: 11`` ...), the loss a few lines down; looked for above a candidate that follows
# such a row, this many lines and bytes up at most. The row is told by its indent, whatever
# it is made of: a chat tool that makes a tab blanks and a run of blanks one leaves `` Train ``.
_RECORD_ROW = b"Train "
# A split's name alone on a line, over the table its batches fill (NequIP prints
# ``training`` or ``validation`` above each ``# Epoch batch  loss ...`` header row:
# nequip/train/trainer.py ``end_of_batch_log``, ``self.logger.info(f"{batch_type}")``).
_SPLIT_LINE = re.compile(rb"\s*(?:training|train|validation|valid|val|evaluation|eval|test)\s*")
# An epoch's heading that says its learning rate and nothing else, over the epoch's batches
# (SysCV/sam-hq train/train.py ``train``: ``print("epoch:   ", epoch, "  learning rate:  ",
# lr)`` over its MetricLogger rows): handed over with the first batch below it, so that an
# epoch back at the first (a second run appended to the log) is seen before its batches.
# It may stand behind a logger's prefix (the DARTS family's ``'%(asctime)s %(message)s'``
# over ``'epoch %d lr %e'``, quark0/darts cnn/train_search.py): it ends the line.
_EPOCH_HEADING = re.compile(rb"(?i)(?:^|(?<= ))epoch[:=]? +\d+ *,? +(?:learning[ _]rate|lr)"
                            rb"[:=]? +[-+]?\d[\d.]*(?:e[-+]?\d+)? *\r?\Z")
_PROGRESS_ABOVE = re.compile(rb"(?m)^" + COMPOSER_PROGRESS.encode() + rb"\r?\n")
PROGRESS_REACH = 24
PROGRESS_BYTES = 2048
# A line that announces an evaluation pass, and nothing else (AllenNLP's trainer logs
# ``Validating`` over a tqdm bar that prints the training bar's keys: allennlp/training/
# gradient_descent_trainer.py ``_validation_loss``): handed over with the first candidate
# that follows it within ANNOUNCED_REACH lines (the bar's empty 0% line between), so that
# the bar is read as evaluation's (metric_reader's ``announces_evaluation``).
_ANNOUNCED_TAIL = b"ating"
_ANNOUNCED_ABOVE = re.compile(rb"(?:Validating|Evaluating) *\r?\n")
ANNOUNCED_REACH = 3
ANNOUNCED_BYTES = 512
# An evaluation pass's own step line over its loss, which holds no keyword (lucidrains/
# DALLE2-pytorch train_decoder.py: ``f"Epoch {epoch}/{epochs} Val Step {i} -  Sample
# {val_sample} - {samples_per_sec:.2f} samples/sec"`` over ``f"Loss: {tensor}"``): handed
# over with the loss line below it, so that the loss is read as evaluation's
# (metric_reader's ``_goes_on``), not as the training loss's.
_EVAL_STEP = re.compile(rb"\b(?:Val|Valid|Validation|Eval|Evaluation|Test) [Ss]tep \d")
# ...or an evaluation pass that opens at the iteration it names (metric_reader's EVAL_AT:
# Caffe's ``Iteration 1500, Testing net (#0)`` over ``    Test net output #0: ...``)
_EVAL_AT = re.compile(EVAL_AT.encode())
_KERAS_EPOCH = re.compile(KERAS_EPOCH.encode())
_FRAMED_EPOCH = re.compile(FRAMED_EPOCH.encode())
_RULES = frozenset({b"--", b"==", b"**", b"##"})  # (a framed heading's cheap test)
# A table drawn in box-drawing characters (U+2500-U+257F: tabulate's ``fancy_grid``, rich's
# tables), under a heading that names the step its rows print none of (Ludwig's ``Running
# evaluation for step: 1000, epoch: 4`` over its metrics table, ludwig/trainers/trainer.py):
# a candidate row hands the heading over (:func:`_table_heading`). Its lines open with these
# two bytes of UTF-8; the heading is looked for this many lines up at most.
_DRAWN = (b"\xe2\x94", b"\xe2\x95")
TABLE_REACH = 48
_PHASE_COUNT = re.compile(PHASE_COUNT.encode())


class Readable(Protocol):
    """What the scanner reads from: a binary stream's ``read``."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes; ``b""`` at the end."""
        ...


class ValueRowLine(str):
    """A line handed over because it follows a header row (``Epoch GPU_mem box_loss ...``)
    within ``HEADER_REACH`` lines, a progress line that announces a row of values on the
    next line (VITS' ``Train Epoch: 3 [40%]``) within ``ROW_REACH`` lines, or a record's row
    (``| loss | 0.103 |``) within ``RECORD_REACH`` lines, though it holds no keyword: it is
    read only as a row of values or of the record (a YOLO table's rows of finite values,
    VITS' bare lists and a record's step row and closing rule hold no keyword)."""

    __slots__ = ()


class QuietLines(str):
    """Stands for ``lines`` consecutive lines (from its line number on) that a
    :class:`RunMatcher` proved quiet: read as a count, not one by one."""

    lines: int


class RunMatcher(Protocol):
    """Says how far the lines from an offset repeat the quiet line the parser armed it with."""

    def quiet_end(self, buffer: bytes, start: int, stop: int) -> int:
        """The end (after its newline) of the last of the quiet lines from ``start`` (a line
        start) before ``stop``, at most all but the last few; ``start`` when none."""
        ...


@dataclass
class _Following:
    """Up to which line every line is handed over (after a header row), across chunks."""

    until: int = 0


class InputError(Exception):
    """An input that cannot be diagnosed; the message is one line for the user."""


@dataclass
class ReadStats:
    """What the reader saw in one input (for the report and the exit code).

    Attributes:
        bytes_read: Bytes read (uncompressed).
        lines: Newlines seen (the last line may lack one).
        candidates: Lines handed to the parsers.
        undecodable_lines: Candidate lines holding bytes that are not UTF-8.
        long_lines: Lines longer than ``MAX_LINE`` (read in pieces).
        problems: One-line notes about the input (non-UTF-8 bytes, a truncated .gz...).
    """

    bytes_read: int = 0
    lines: int = 0
    candidates: int = 0
    undecodable_lines: int = 0
    long_lines: int = 0
    problems: list[str] = field(default_factory=list)


def open_input(path: str) -> BinaryIO:
    """Open a path (``-`` for stdin) for binary reading; gzip data (told by its magic bytes,
    not by the name, so also on stdin) is decompressed transparently.

    Raises:
        InputError: Missing file, a directory, permission denied.
    """
    if path == STDIN:
        return _decoded_if_utf16(_gunzipped_if_gzip(sys.stdin.buffer))
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory without denpex run reports (rank*.jsonl)")
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot open ({err.strerror or err})") from None
    return _decoded_if_utf16(_gunzipped_if_gzip(handle))


def _gunzipped_if_gzip(handle: BinaryIO) -> BinaryIO:
    magic = handle.peek(2)[:2] if isinstance(handle, io.BufferedReader) else b""
    if magic == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=handle, mode="rb")  # type: ignore[return-value]
    return handle


def _decoded_if_utf16(handle: BinaryIO) -> BinaryIO:
    """``handle``, or where it opens with a UTF-16 byte-order mark, the UTF-8 bytes of its
    text: Windows PowerShell 5.1 writes a program's output redirected with ``>``, ``Out-File``
    or ``Tee-Object`` as UTF-16LE with a BOM, which would read as binary (a NUL byte after
    every ASCII character)."""
    # (not a gzip stream's: peeking into it would raise on a truncated one, before the scan
    # that reports what it could read)
    peek = None if isinstance(handle, gzip.GzipFile) else getattr(handle, "peek", None)
    if peek is None or peek(2)[:2] not in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return handle
    return cast(BinaryIO, _Utf16Text(handle))


class _Utf16Text:
    """A UTF-16 stream read as UTF-8 bytes (see :func:`_decoded_if_utf16`)."""

    def __init__(self, handle: BinaryIO) -> None:
        self._handle = handle
        self._text = codecs.getreader("utf-16")(handle, "replace")

    def read(self, size: int = -1, /) -> bytes:
        """About ``size`` bytes of the input, as UTF-8; ``b""`` at its end."""
        return self._text.read(size).encode("utf-8")

    def close(self) -> None:
        self._handle.close()

    # As a file object is: the doctor's second reads (``with open_input(path) as stream``)
    # took a UTF-16 log's stream for one, and stopped with a TypeError.
    def __enter__(self) -> _Utf16Text:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def candidate_lines(
    stream: Readable,
    keywords: tuple[bytes, ...],
    stats: ReadStats,
    progress: Callable[[int], None] | None = None,
    *,
    check_binary: bool = True,
    runs: RunMatcher | None = None,
    before: bytes = b"",
) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every line holding one of ``keywords``; for the
    lines within ``HEADER_REACH`` after a header row, ``ROW_REACH`` after a progress line that
    announces a row of values, ``RECORD_REACH`` after a record's row (as
    :class:`ValueRowLine`); and for a record's step line just above a candidate
    (:func:`_step_line`). Where ``runs`` says that the lines from a candidate on repeat a
    quiet line, they are yielded as one :class:`QuietLines` (their count), not one by one.

    Line numbers start at 1. A line longer than ``MAX_LINE`` is scanned in pieces (all pieces
    keep its number). Text is decoded as UTF-8 with replacement and cut to ``MAX_TEXT``.
    ``check_binary``: refuse a stream whose first block holds NUL bytes (off for a piece from
    the middle of a file that was checked already). ``before``: the line before the stream's
    first (a piece from the middle of a file), for a record's step line (:func:`_step_line`).

    Raises:
        InputError: Binary content, or a compressed stream that is corrupt.
    """
    carry = b""
    line_no = 1  # number of the line that starts at offset 0 of ``buffer``
    following = _Following()
    first = True
    broken = False
    while True:
        block, broken = (b"", True) if broken else _read_block(stream, stats)
        if first:
            first = False
            if check_binary and looks_binary(block):
                raise InputError("binary file (NUL bytes), not a text log")
        stats.bytes_read += len(block)
        if progress is not None:
            progress(stats.bytes_read)
        if not block:
            if carry:
                yield from _scan(carry, len(carry), line_no, keywords, stats, following, runs,
                                 before)
            return
        buffer = carry + block if carry else block
        cut = buffer.rfind(b"\n") + 1
        if cut == 0:  # no newline in a whole chunk: a very long line, read in pieces
            if len(buffer) < MAX_LINE:
                carry = buffer
                continue
            stats.long_lines += 1
            yield from _scan(buffer, len(buffer), line_no, keywords, stats, following, runs,
                             before)
            carry = before = b""
            continue
        newlines = yield from _scan(buffer, cut, line_no, keywords, stats,
                                   following, runs, before)
        before = last_line(buffer, cut, keywords)
        carry = buffer[cut:]
        stats.lines += newlines
        line_no += newlines


def looks_binary(head: bytes) -> bool:
    """Whether the start of an input is binary data rather than text (a NUL byte early on)."""
    return b"\x00" in head[:8192]


def _read_block(stream: Readable, stats: ReadStats) -> tuple[bytes, bool]:
    """Up to ``CHUNK`` bytes; a compressed stream is read in small pieces so that one that
    breaks (a truncated .gz) still yields what came before the break. Returns (data, broken).
    """
    if not isinstance(stream, gzip.GzipFile):
        try:
            return stream.read(CHUNK), False
        except OSError as err:
            raise InputError(f"read error ({err.strerror or err})") from None
    pieces: list[bytes] = []
    size = 0
    read = getattr(stream, "read1", stream.read)
    while size < CHUNK:
        try:
            piece = read(min(CHUNK - size, 1 << 16))
        except (EOFError, zlib.error, gzip.BadGzipFile) as err:
            stats.problems.append(f"compressed data ends early or is corrupt ({err})")
            return b"".join(pieces), True
        except OSError as err:
            raise InputError(f"read error ({err.strerror or err})") from None
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces), False


def _scan(
    buffer: bytes, stop: int, line_no: int, keywords: tuple[bytes, ...], stats: ReadStats,
    following: _Following, runs: RunMatcher | None = None, before: bytes = b"",
) -> Generator[tuple[int, str], None, int]:
    """Yield the candidate lines of ``buffer[:stop]`` (and the lines after a header row, and
    a record's step line: :func:`_step_line`); return its number of newlines. ``before``:
    the line before the buffer's first, when it holds no keyword.

    Works on offsets (no slice of the chunk is copied) and counts newlines in one pass.
    """
    counted_to, number = 0, line_no
    resume, resume_number = 0, line_no  # the line after the last one handed over
    starts = line_starts_from(buffer, 0, stop, keywords)
    while (start := next(starts, -1)) >= 0:
        if start < resume:
            continue  # a line joined to the candidate above it (a tensor's value)
        gap = resume < start  # lines without a keyword just before this one
        if gap and following.until >= resume_number:
            yield from _value_rows(buffer, resume, start, resume_number, following.until, stats)
            gap = False
        number += buffer.count(b"\n", counted_to, start)
        counted_to = start
        if gap:
            if (step_line := _step_line(buffer, resume, start)) is not None:
                yield number - 1 - step_line[1], _decode(step_line[0], stats)
                if step_line[1] and (bar := _bar_under(buffer, resume, start, *step_line)):
                    yield number - 1 - bar[1], _decode(_last_state(bar[0]), stats)
        elif start == 0 and before and (
                (heading := numbers_below(before, buffer[:1] in (b" ", b"\t")))
                or finishes_bare_bar(before)):
            # the line before a piece's first: the same test as a gap's line above
            # (:func:`_step_line`), which no line above it can overrule here
            yield number - 1, _decode(before if heading else _last_state(before), stats)
        if runs is not None and (end := runs.quiet_end(buffer, start, stop)) > start:
            # the lines from here repeat the quiet line before them: counted, not parsed
            count = buffer.count(b"\n", start, end)
            quiet = QuietLines("")
            quiet.lines = count
            stats.candidates += count
            yield number, quiet
            number += count
            counted_to = resume = end
            resume_number = number
            starts = line_starts_from(buffer, end, stop, keywords)  # on from the run's end
            continue
        end = buffer.find(b"\n", start, stop)
        end = stop if end < 0 else end
        joined = end
        if end > start and buffer[end - 1] in _TENSOR_END and wrapped_tensor(buffer, start, end):
            # a Paddle tensor's value on the lines below: one line of them (the lines'
            # newlines are counted at the next candidate, from ``counted_to``)
            joined = joined_end(buffer, start, end, stop)
        resume = joined + 1
        resume_number = number + 1 if joined == end else (
            number + 1 + buffer.count(b"\n", end, joined))
        if joined - start <= MAX_TEXT:
            text = _decode(buffer[start:end], stats) if joined == end else unwrapped(
                _decode(buffer[start:joined], stats))
            yield number, text
            first = _NUMBER_START.search(text)
            if ((first is None and header_cells(text) is not None)
                    # (behind a collector's prefix: not DeepSpeed's ``[2024-...`` nor HF's
                    # ``{'loss'``, most of a big log's lines, told inline)
                    or ((text.startswith("[pod/") if text[:1] == "[" else text[:1] != "{")
                        and _NUMBER_START.search(text, _COLLECTOR_REACH) is None
                        and _collected_header(text))
                    # behind a launcher's rank prefix (its digits before the names, if any;
                    # most lines hold a number further on, told without a call)
                    or ((first is None or first.start() < _RANK_REACH)
                        and _NUMBER_START.search(text, _RANK_REACH) is None
                        and _ranked_header(text))):
                following.until = number + HEADER_REACH
            elif "%]" in text and announces_row(text):
                # VITS' ``Train Epoch: 3 [40%]``: its values follow on a line of their own
                following.until = max(following.until, number + ROW_REACH)
            elif table_row(text) and (record_cell(text) if text[:1] == "|"
                                      else simple_cell(text)) is not None:
                # a record's row: the rest of the record (its step row, its closing rule)
                # holds no keyword
                following.until = max(following.until, number + RECORD_REACH)
            elif ("': " in text or '": ' in text) and opens_dict(text):
                # a row of a dict pprint spread over lines: its other rows (the step's, after
                # the loss) hold no keyword
                following.until = max(following.until, number + DICT_REACH)
            elif text[:2] == "  " and mapping_row(text):
                # a YAML mapping's row: the rest of it (its step row far below) holds no
                # keyword
                following.until = max(following.until, number + MAPPING_REACH)
            elif text[:1] == " " and bullet_row(text):
                # a bulleted list's row: its other rows (a reward's) hold no keyword
                following.until = max(following.until, number + BULLET_REACH)
            continue
        # A long line is usually a progress bar rewritten with carriage returns: hand over
        # each piece that holds a keyword, each bounded.
        for piece in _long_pieces(buffer[start:end], keywords):
            yield number, _decode(piece, stats)
    if following.until >= resume_number and resume < stop:
        yield from _value_rows(buffer, resume, stop, resume_number, following.until, stats)
    return number - line_no + buffer.count(b"\n", counted_to, stop)


def _ranked_header(text: str) -> bool:
    """Whether ``text`` is a header row behind a launcher's rank prefix (``[default0]:epoch
    train_loss  valid_loss``, ``[1,0]<stdout>:``, ``0: ``)."""
    end = rank_prefix_end(text)
    return end > 0 and _names_only(text[end:])


def _collected_header(text: str) -> bool:
    """Whether ``text``, which holds a digit but none past where a collector's prefix ends
    (most metric lines have one further on), is a header row (names, no number) behind a
    collector's prefix (``kubectl logs --timestamps``: its time holds digits)."""
    if text[:1] == "{":
        return False  # (an HF Trainer dict, told without a call)
    body = without_collector(text)
    return body is not text and _names_only(body)


def _names_only(body: str) -> bool:
    """Whether what a prefix left of a line is a header row: names, no number."""
    return _NUMBER_START.search(body) is None and header_cells(body) is not None


def _is_epoch_line(line: bytes) -> bool:
    """Whether a line ends with an epoch and holds nothing else after it (nnU-Net's
    ``print_to_log_file(f'Epoch {self.current_epoch}')``, v1's ``"\\nepoch: ", self.epoch``):
    the epoch of the row its trainer prints a few lines below it.

    Example:
        >>> [_is_epoch_line(x) for x in (b"2023-05-01 10:00:00.123456: Epoch 12 ",
        ...                              b"epoch:  12 ", b"Epoch 3/10", b"Epoch 3 loss 0.5",
        ...                              b"INFO - x - === EPOCH 5/100 ===",
        ...                              b"Epoch: 17 / 40", b"INFO: Epoch 5 finished",
        ...                              b"[Epoch: 3, numImages:  1176]",
        ...                              b"Epoch [3/8] -> Time: 215.4s", b"Epoch [7]",
        ...                              b"Epoch [3/8] loss 0.5", b"Epoch 6/30 (beta=0.17)",
        ...                              b"Epoch 6 (lr=0.1)")]
        [True, True, True, False, True, True, True, True, True, True, False, True, False]
        >>> [_is_epoch_line(x) for x in (b"Epoch 4/8, lr: 1.000000e-04",
        ...                              b"Epoch 4/8, lr: 1e-4, bs: 4",
        ...                              b"Epoch 12/30, current lr=0.0001")]
        [True, False, True]
    """
    at = max(line.rfind(b"poch"), line.rfind(b"POCH"))
    return at >= 0 and _EPOCH_TAIL.match(line, at) is not None


def numbers_below(line: bytes, indented: bool) -> bool:
    """Whether ``line``, which holds no keyword, numbers the candidate line just below it by
    itself (a record's step line, an epoch's heading, a bar that closes an epoch...): the one
    test of a single line that both a gap's line above a candidate (:func:`_step_line`) and a
    piece's line before its first candidate (``candidate_lines``' ``before``) ask, so that an
    excerpt reads the same wherever the file is cut into chunks or spans. ``indented``:
    whether the candidate opens with a blank or a tab (an epoch that says it ended numbers
    only its own indented summary).

    Each test is guarded by a substring or a byte the line must hold (this runs once per gap).

    Example:
        >>> [numbers_below(x, False) for x in (b"step: 7", b"Iteration 1500, Testing net (#0)",
        ...                                    b"epoch 3 lr 0.1", b"--- Epoch 2/5 ---",
        ...                                    b"200it [01:11, 2.82it/s]", b"training",
        ...                                    b"Epoch 12", b"Epoch 5 finished", b"ready")]
        [True, True, True, True, True, True, True, False, False]
        >>> numbers_below(b"Epoch 5 finished", True)
        True
    """
    if _is_step_line(line) or (b"tep " in line and _EVAL_STEP.search(line) is not None) or (
            b"teration " in line and _EVAL_AT.search(line) is not None) or (
            b"poch" in line and _EPOCH_HEADING.search(line) is not None) or (
            is_counter_heading(line)):  # (counters named in words: see counter_headings)
        return True
    if b"ed batches: " in line and _PHASE_COUNT.search(line) is not None:
        return True  # ClassyVision's phase line over its loss line
    if line.startswith(b"Epoch ") and _KERAS_EPOCH.fullmatch(line.rstrip()) is not None:
        return True  # Keras' epoch header over its bar (a second fit begins at 1 again)
    if line[:2] in _RULES and _FRAMED_EPOCH.fullmatch(line.strip()) is not None:
        return True  # a loop's own ``--- Epoch 2/5 ---`` over its bar
    if closes_epoch(line) or ends_epoch(line):
        # an open bar's last state: the epoch's length (see closing_bars); a sentence that
        # the epoch ended: which one the bar above was (see epoch_ends)
        return True
    if len(line) <= 16 and _SPLIT_LINE.fullmatch(line):
        return True  # the split whose table's header row this candidate may be
    # an epoch line (nnU-Net's ``Epoch 12``); one that says the epoch ended heads only its
    # own indented summary, not the next epoch's first line
    return _is_epoch_line(line) and (indented or _ENDED_TAIL.search(line) is None)


def _step_line(buffer: bytes, resume: int, start: int) -> tuple[bytes, int] | None:
    """The line just before ``start`` (one of the lines without a keyword from ``resume``)
    when it is a record's step line, or one of the :data:`EPOCH_REACH` lines before it when it
    is an epoch line (:func:`_is_epoch_line`), with how many lines lie between; else None.

    A multi-line record prints its step on a line of its own and each metric on a line below
    it (OLMo's ``[step=1080/739328]`` over ``    train/CrossEntropyLoss=nan``, fms-fsdp's
    ``step: 700`` over ``loss: nan``); the step line holds no keyword, so it is handed over
    with the record's first metric line. Looking back one line costs an ``rfind`` per
    candidate after a gap, where keywords would cost a pass over every byte.

    Example:
        >>> b = b"[step=10/99]\\n  loss=nan\\n"
        >>> _step_line(b, 0, 13)
        (b'[step=10/99]', 0)
        >>> b = b"step: 100\\ntrain:\\n  loss: nan\\n"
        >>> _step_line(b, 0, 17)
        (b'step: 100', 1)
        >>> b = b"x: Epoch 12 \\nx: Current learning rate: 0.00982 \\nx: train_loss nan\\n"
        >>> _step_line(b, 0, 48)
        (b'x: Epoch 12 ', 1)
    """
    end = start - 1
    if end < resume:
        return None
    low = max(resume, end - MAX_TEXT)
    newline = buffer.rfind(b"\n", low, end)
    if newline < 0 and low > resume:
        # a line longer than any handed over: a bar written to a file keeps every refresh
        # on one line, joined by ``\r`` (tqdm's ``status_printer``), tens of KB an epoch
        return _long_bar(buffer, resume, low, end)
    begin = max(newline + 1, resume)
    line = buffer[begin:end]
    if ((line[:2] == b"  " and line[2:3] != b" ") or b"RuntimeWarning: " in line) and (
            warned := warning_above(buffer, resume, start)) is not None:
        return warned  # numpy's empty mean, over the NaN it printed (see empty_means)
    if numbers_below(line, buffer[start:start + 1] in (b" ", b"\t")):
        return line, 0
    if line[:1] in (b" ", b"\t") and begin > resume and (rows := step_above_rows(
            buffer, resume, start, begin, line, _is_step_line)) is not None:
        return rows  # a record's rows with no keyword between (coqui's ``| > log_mle``)
    if line.lstrip(b" ")[:2] in _DRAWN and begin > resume:
        return _table_heading(buffer, resume, begin)
    if (b"\t" in line or b"|" in line) and (grid := _step_past(
            buffer, start, resume, counters_header, grid_row, GRID_ROWS)):
        return grid  # PyMARL's counters' header over its grid of stats (see stat_grids)
    if line.endswith(b":") and begin > resume and _SECTION.match(line) is not None:
        # a mapping's section key between (``step: 100`` over ``train:`` over ``  loss: x``,
        # as yaml.dump sorts a step's metrics)
        above = _line_before(buffer, resume, begin)
        if _is_step_line(above):
            return above, 1
    if begin > resume and noise_bytes(line):
        return _step_past(buffer, start, resume, _is_step_line, noise_bytes, NOISE_BETWEEN)
    if len(line) <= NOTE_WIDTH and begin > resume:
        # a banner over a blank line or a short note, then its metrics (DreamerV3's terminal
        # output, danijar/elements ``elements/logger.py`` ``TerminalOutput``: ``[Agent Step
        # 1_200]`` over the empty line an unfiltered output leaves, or over ``12 metrics
        # truncated, filter to see specific keys.``, then ``key value / key value``)
        above = _line_before(buffer, resume, begin)
        if _STEP_ALONE.match(above) is not None:
            return above, 1
    if line[:1] in (b" ", b"\t") and line.lstrip(b" \t").startswith(_RECORD_ROW):
        found = _last_above(_PROGRESS_ABOVE, buffer, max(resume, begin - PROGRESS_BYTES), start,
                            PROGRESS_REACH)
        return None if found is None else (found[0].group(0).rstrip(), found[1])
    # An epoch line up to EPOCH_REACH lines up: one search of the bytes before (most gaps
    # hold none), where they hold the word as an epoch line's end has it
    low = max(resume, begin - EPOCH_BYTES)
    found = (_last_above(_EPOCH_ABOVE, buffer, low, start, EPOCH_REACH)
             if _may_end_epoch(buffer, low, start) else None)
    if found is None:
        if finishes_bare_bar(line):
            # a bare sized bar at its total under no epoch heading (one heads it otherwise,
            # and numbers it): the pass the epoch's summary below it closes (closing_bars)
            return _last_state(line), 0
        if not line.strip(b" ") and begin > resume and (bar := _bar_over_blank(
                buffer, resume, begin)) is not None:
            return bar
        return _announcement(buffer, max(resume, begin - ANNOUNCED_BYTES), start)
    return _epoch_heading(buffer, resume, found, buffer[start:start + 1])


def _epoch_heading(buffer: bytes, resume: int, found: tuple[re.Match[bytes], int],
                   below: bytes) -> tuple[bytes, int] | None:
    """The whole epoch line an ``_EPOCH_ABOVE`` search found (with how many lines lie between
    it and the line it numbers), or None for an epoch that says it ended over a line that is
    not its indented summary (``below``: that line's first byte)."""
    epoch, back = found
    if below not in (b" ", b"\t") and _ENDED_TAIL.search(epoch.group(0)):
        return None  # an epoch that ended, over a line not its summary's own
    first = buffer.rfind(b"\n", resume, epoch.start()) + 1
    return buffer[max(first, resume):epoch.end() - 1], back


def _long_bar(buffer: bytes, resume: int, low: int, end: int) -> tuple[bytes, int] | None:
    """The step line for a line longer than ``MAX_TEXT`` that ends just before a candidate:
    a bare sized bar at its total in its last state (``buffer[low:end]`` its tail) is read as
    the same bar with one refresh a line would be (:func:`_step_line`'s last test): the epoch
    line up to :data:`EPOCH_REACH` lines above it (one line further from the candidate), or
    else the bar's last state; anything else, None. Only the bytes above the line are
    searched for the epoch (a labelled bar's refreshes each hold ``Epoch 3:``), and each
    search is one call over bytes already read (no per-byte Python loop).

    Example:
        >>> bar = b"100%|#| 9/9 [00:01<00:00, 9it/s]"
        >>> b = b"Epoch 4 (4/8):\\n" + b"\\r 50%|#| 4/9 [00:01<00:01, 9it/s]" * 600 + b"\\r" + bar
        >>> _long_bar(b + b"\\nTrain Instance Loss: 1\\n", 0, len(b) - MAX_TEXT, len(b))
        (b'Epoch 4 (4/8):', 1)
    """
    cut = buffer.rfind(b"\r", low, end)
    if cut < 0 or not finishes_bare_bar(buffer[cut:end]):
        return None
    begin = buffer.rfind(b"\n", resume, low) + 1
    begin = max(begin, resume)
    top = max(resume, begin - EPOCH_BYTES)
    found = (_last_above(_EPOCH_ABOVE, buffer, top, begin, EPOCH_REACH - 1)
             if begin > resume and _may_end_epoch(buffer, top, begin) else None)
    if found is None:
        return buffer[cut + 1:end], 0
    heading = _epoch_heading(buffer, resume, found, buffer[end + 1:end + 2])
    return None if heading is None else (heading[0], heading[1] + 1)


def _bar_over_blank(buffer: bytes, resume: int, begin: int) -> tuple[bytes, int] | None:
    """The step line (:func:`_long_bar`) for a bar line longer than :data:`EPOCH_BYTES` over
    the blank line that starts at ``begin``, one line further from the candidate below the
    blank; else None. pytorch-accelerated prints each metric after a blank line
    (``callbacks.py`` ``LogMetricsCallback``: ``f"\\n{metric_name}: {metric_value}"``), so
    the epoch search above the blank ends inside a bar whose refreshes a file kept; only a
    line that ends in ``/s]`` is looked at (one byte test first).
    """
    end = begin - 1
    if buffer[end - 3:end] != b"/s]":
        return None
    cut = buffer.rfind(b"\r", max(resume, end - MAX_TEXT), end)
    if cut < 0 or buffer.rfind(b"\n", cut, end) >= 0 or end - EPOCH_BYTES < resume:
        return None  # (no refreshes on that line: the search above saw its heading)
    if buffer.rfind(b"\n", max(resume, end - EPOCH_BYTES), end) >= 0:
        return None  # a short line: the epoch search above reached past it
    found = _long_bar(buffer, resume, cut, end)
    return None if found is None else (found[0], found[1] + 1)


def _last_state(line: bytes) -> bytes:
    """A bar's last state: the line after its last carriage return. Its earlier states are
    no pass's end, and a bar labelled with its epoch alone (``Epoch 3:  50%|...| 150/300``)
    would be read in them as that epoch's progress, which numbers the lines below it (an
    evaluation's ``After epoch 3: ...`` then lost its epoch).

    Example:
        >>> _last_state(b"Epoch 3:   0%|  | 0/9 [...]\\rEpoch 3: 100%|#| 9/9 [00:01<00:00, 9it/s]")
        b'Epoch 3: 100%|#| 9/9 [00:01<00:00, 9it/s]'
    """
    return line[line.rfind(b"\r") + 1:]


def _may_end_epoch(buffer: bytes, low: int, start: int) -> bool:
    """Whether ``buffer[low:start]`` holds ``poch`` or ``POCH`` followed by what each of an
    epoch line's ends (``_EPOCH_END``) has after the word: ``:``, a blank or ``[``. The cheap
    test before ``_EPOCH_ABOVE``'s search: most gaps hold no epoch, or one in other words
    (DeepSpeed's timer line, ``epoch=0/micro_step=3``, before most of its step lines).

    Example:
        >>> [_may_end_epoch(x, 0, len(x)) for x in (b"epoch=0/micro_step=3\\n", b"Epoch 3\\n",
        ...                                           b"EPOCH[2/5]\\n", b"epochs\\n")]
        [False, True, True, False]
    """
    for word in (b"poch", b"POCH"):
        at = buffer.find(word, low, start)
        while at >= 0:
            if buffer[at + 4:at + 5] in _AFTER_EPOCH:
                return True
            at = buffer.find(word, at + 4, start)
    return False


def _bar_under(buffer: bytes, resume: int, start: int, heading: bytes,
               back: int) -> tuple[bytes, int] | None:
    """A bare sized bar at its total among the ``back`` lines between an epoch heading (the
    step line handed over) and the candidate at ``start``, with how many lines lie between it
    and the candidate; else None. PointNet++'s ``Epoch 4 (4/8):`` heads a bare bar and the
    epoch's ``Train Instance Loss: ...`` (see counted_epochs), pytorch-accelerated's
    ``Starting epoch 4`` its bar and ``train_loss_epoch: ...``: the heading says the epoch,
    the bar how many batches an epoch holds, the two the run's batches (closing_bars). One
    convention, whatever the heading's wording: the step is the run's batches wherever a
    bar's total is known, the epoch only where none is (docs/doctor-reading.md).
    """
    for between in range(back):
        if start <= resume:
            return None
        above = _line_before(buffer, resume, start)
        if finishes_bare_bar(above):
            return above, between
        start -= len(above) + 1
    return None


def _step_past(buffer: bytes, start: int, resume: int, found: Callable[[bytes], bool],
               passable: Callable[[bytes], bool], reach: int) -> tuple[bytes, int] | None:
    """The line ``found`` accepts above the lines ``passable`` accepts (no more than
    ``reach``) that end just before the candidate at ``start``, with how many lie between;
    else None: the step line above lines of another source (a c10 warning, a Python
    warning's two lines, between OpenPCDet's two bars), or a record's counters above the
    rows of its grid (:mod:`~denpex_callbacks.logs.stat_grids`)."""
    for between in range(reach + 1):
        if start <= resume:
            return None
        above = _line_before(buffer, resume, start)
        if found(above):
            return above, between
        if not passable(above):
            return None
        start -= len(above) + 1
    return None


def _line_before(buffer: bytes, resume: int, begin: int) -> bytes:
    """The line that ends just before the one starting at ``begin`` (from ``resume`` on)."""
    return buffer[max(buffer.rfind(b"\n", resume, begin - 1) + 1, resume):begin - 1]


def _announcement(buffer: bytes, low: int, start: int) -> tuple[bytes, int] | None:
    """The line that announces an evaluation pass (``_ANNOUNCED_ABOVE``) among the
    :data:`ANNOUNCED_REACH` lines above ``start``, with how many lines lie between; else
    None. A ``rfind`` of its tail first: most gaps hold none.

    Example:
        >>> b = b"x - Validating\\n  0%|   | 0/313 [\\nloss: nan ||: 48%|#  | 150/313 [\\n"
        >>> _announcement(b, 0, b.index(b"loss"))
        (b'x - Validating', 1)
    """
    if buffer.rfind(_ANNOUNCED_TAIL, low, start) < 0:
        return None
    found = _last_above(_ANNOUNCED_ABOVE, buffer, low, start, ANNOUNCED_REACH)
    if found is None:
        return None
    announced, back = found
    first = buffer.rfind(b"\n", low, announced.start()) + 1
    return buffer[max(first, low):announced.end()].rstrip(), back


def _table_heading(buffer: bytes, resume: int, begin: int) -> tuple[bytes, int] | None:
    """The line above a table drawn in box-drawing characters that ends just before
    ``begin``, where that line names a step (``_STEP_NUMBER``), with how many lines lie
    between it and the candidate below ``begin``; else None. Looked for over at most
    :data:`TABLE_REACH` lines of the table (its rules and rows).

    Example:
        >>> b = "step: 9\\n╒══╕\\n│ x │\\n├──┤\\n│ loss │ nan │\\n".encode()
        >>> _table_heading(b, 0, b.index("├".encode()))
        (b'step: 9', 3)
    """
    back = 0
    while back < TABLE_REACH and begin > resume:
        line = _line_before(buffer, resume, begin)
        begin = max(buffer.rfind(b"\n", resume, begin - 1) + 1, resume)
        back += 1
        if line.lstrip(b" ")[:2] not in _DRAWN:
            return (line, back) if _STEP_NUMBER.search(line) is not None else None
    return None


def _last_above(pattern: re.Pattern[bytes], buffer: bytes, low: int, start: int,
                reach: int) -> tuple[re.Match[bytes], int] | None:
    """The last line-ending match of ``pattern`` in ``buffer[low:start]`` and how many lines
    lie between it and ``start``, where fewer than ``reach``; else None."""
    matches = list(pattern.finditer(buffer, low, start))
    if not matches:
        return None
    last = matches[-1]
    back = buffer.count(b"\n", last.end(), start)
    return (last, back) if back < reach else None


def _is_step_line(line: bytes) -> bool:
    """Whether a line ends with its step (``[step=1080/739328]``, ``step: 700``; in a
    bracket, what says where the run is may follow: ``[step=1080/100000,epoch=0,eta=1d]``):
    a record's step line. A line that goes on after its step is a line of its own
    (DeepSpeed's timer line ``epoch=0/micro_step=3/global_step=3, RunningAvgSamplesPerSec=...``).

    Example:
        >>> [_is_step_line(x) for x in (b"step: 7", b"[step=7/9,epoch=0,eta=1d2h]",
        ...                             b"global_step=3, RunningAvgSamplesPerSec=1224.88")]
        [True, True, False]
        >>> [_is_step_line(x) for x in (b"==== Step 100 ====", b"--- Iteration 100 ---",
        ...                             b"Saved 100 steps")]
        [True, True, False]
    """
    at = line.rfind(b"tep")
    if at < 1:
        at = line.rfind(b"TEP")  # (``print('STEP: ', i)``)
    # A message that opens with its step (the Object Detection API's ``Step 100 per-step time
    # 0.123s``): the step and its number looked for first, since most lines hold none
    # (DeepSpeed's ``micro_step=3``) and a search led by what opens it tries every position.
    if at >= 1 and (_STEP_TAIL.match(line, at - 1) is not None or (
            _STEP_NUMBER.search(line) is not None and _STEP_OPENS.search(line) is not None)):
        return True
    if _STEP_ALONE.match(line) is not None:  # (``--- Iteration 100 ---`` holds no "tep")
        return True
    if (count := line.rfind(_BAR_COUNT)) >= 0 and _BAR_COUNT_TAIL.match(line, count):
        return True
    # (the key's pattern runs to the line's end from each step: only on a line that ends
    # with the colon it looks for, not on DeepSpeed's long timer lines)
    return at >= 1 and line.rstrip().endswith(b":") and _STEP_BEFORE_KEY.search(line) is not None


def last_line(buffer: bytes, cut: int, keywords: tuple[bytes, ...]) -> bytes:
    """The last whole line of ``buffer[:cut]`` (``cut`` after a newline) when it holds no
    keyword (no candidate) and is no longer than ``MAX_TEXT``, else ``b""``: the line before
    the next buffer's first, for :func:`_step_line`.

    Example:
        >>> last_line(b"a loss\\nstep: 3\\n", 15, (b"loss",))
        b'step: 3'
    """
    low = max(0, cut - 2 - MAX_TEXT)
    newline = buffer.rfind(b"\n", low, cut - 1)
    if newline < 0 and low > 0:
        return b""
    line = buffer[newline + 1:cut - 1]
    return b"" if any(keyword in line for keyword in keywords) else line


def _value_rows(buffer: bytes, position: int, stop: int, number: int, until: int,
                stats: ReadStats) -> Iterator[tuple[int, str]]:
    """The lines from ``position`` (line ``number``) up to ``stop`` or line ``until``."""
    while position < stop and number <= until:
        end = buffer.find(b"\n", position, stop)
        end = stop if end < 0 else end
        raw = buffer[position:end]
        pieces = [raw] if len(raw) <= MAX_TEXT else raw.split(b"\r")
        for piece in pieces:
            yield number, ValueRowLine(_decode(piece[:MAX_TEXT], stats))
        position, number = end + 1, number + 1


def _long_pieces(line: bytes, keywords: tuple[bytes, ...]) -> Iterator[bytes]:
    """The carriage-return pieces of a long line that hold a keyword, each bounded. A
    Trainer row (``{'loss': ...``) keeps the two pieces before it, the bar it interrupted and
    tqdm's clear (the row's step: ``hf.bar_count``), where that clear is the line's only one
    (see ``parsers._bar_step``); a row that a block of buffered stdout cut in two, its head
    opening the line and its tail ending it, goes with its tail (the parser joins them
    again: ``parsers._block_cut``)."""
    pieces = line.split(b"\r")
    if pieces[0][:1] == b"{" and b"}" not in pieces[0] and b"{" not in pieces[-1]:
        yield pieces[0][:MAX_TEXT] + b"\r" + pieces[-1][:MAX_TEXT]
        pieces = pieces[1:-1]
    clears = 0  # the clears before this piece (counted as it goes: a line may hold many)
    for index, piece in enumerate(pieces):
        if piece and not piece.strip():
            clears += 1
        elif any(keyword in piece for keyword in keywords):
            if piece[:1] == b"{" and index >= 2 and clears == 1:
                yield b"\r".join(part[:MAX_TEXT] for part in pieces[index - 2:index + 1])
            else:
                yield piece[:MAX_TEXT]


def _decode(raw: bytes, stats: ReadStats) -> str:
    stats.candidates += 1
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        stats.undecodable_lines += 1
        return raw.decode("utf-8", errors=WINDOWS_1252)

