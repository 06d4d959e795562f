"""The log doctor: one input (a log, stdin, a .gz, a run-report folder, a run's output
folder) in, diagnoses out.

Logs go through the same Monitor and detectors as live runs: the parsers' events become
Observations (see :mod:`denpex_callbacks.logs.assembler`) and error lines become Findings
flagged with :meth:`Monitor.flag`.
"""

from __future__ import annotations

import io
import logging
import os
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from itertools import repeat
from pathlib import Path
from typing import BinaryIO, NamedTuple

from denpex_callbacks.core.causes import one_off
from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.detectors.base import UNBOUNDED
from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.observation import Observation
from denpex_callbacks.core.ordering import order
from denpex_callbacks.core.other_rank import linked_across_ranks, other_ranks_bad_batches
from denpex_callbacks.core.report import (
    REPORT_GLOB,
    initiating_rank,
    is_report_file,
    read_report,
    read_report_dir,
)
from denpex_callbacks.core.rerun_verdict import rank_verdicts
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.logs import folder_verdict, lexicon, run_files, run_folder
from denpex_callbacks.logs.abandoned_runs import ended_by_search
from denpex_callbacks.logs.assembler import HF, Assembler, Printed
from denpex_callbacks.logs.cri_partials import CRI_BYTES, CRI_JOINED, joined_log, may_be_cri
from denpex_callbacks.logs.declared_lengths import HEAD_BYTES, declared_epoch_length
from denpex_callbacks.logs.denpex_lines import BY_THE_RUN, as_said
from denpex_callbacks.logs.dropped_values import DroppedValues
from denpex_callbacks.logs.empty_means import FAMILY as EMPTY_MEANS
from denpex_callbacks.logs.empty_means import EmptyMeans
from denpex_callbacks.logs.evaluation import EvaluationStream
from denpex_callbacks.logs.events import (
    EVAL,
    FROM_START,
    METRICS,
    OVERFLOW,
    PROGRESS,
    SETUP,
    LogEvent,
)
from denpex_callbacks.logs.excerpt import ExcerptJudge
from denpex_callbacks.logs.hard_wraps import WRAP_BYTES, WRAP_HEAD, may_be_wrapped, unwrapped_log
from denpex_callbacks.logs.json_documents import flattened_document, parsed_object
from denpex_callbacks.logs.json_logs import HeldLog, held_log, may_hold_log
from denpex_callbacks.logs.line_prefixes import collected, uncollected
from denpex_callbacks.logs.logging_interval import (
    LoggingInterval,
    logging_interval,
    redrawn_interval,
)
from denpex_callbacks.logs.newest_first import (
    NEWEST_BYTES,
    may_be_newest_first,
    oldest_first,
    reversed_lines,
    runs_backwards,
)
from denpex_callbacks.logs.nonfinite_sentences import EvaluationEcho
from denpex_callbacks.logs.parallel_scan import scan_input
from denpex_callbacks.logs.parsers import KEYWORDS, LineParser
from denpex_callbacks.logs.paste import (
    ESCAPED_BYTES,
    ESCAPED_HEAD,
    may_be_escaped,
    may_be_webbed,
    plain_characters,
    unescaped_log,
)
from denpex_callbacks.logs.paste_margins import margin, may_be_numbered, may_be_spaced, unpasted
from denpex_callbacks.logs.quiet_runs import QuietRuns, Shape
from denpex_callbacks.logs.rank_dates import RankDates
from denpex_callbacks.logs.rank_streams import RankBlocks, by_rank, may_be_ranked
from denpex_callbacks.logs.reader import (
    MAX_LINE,
    STDIN,
    InputError,
    QuietLines,
    ReadStats,
    open_input,
)
from denpex_callbacks.logs.result import Result, summary_counts
from denpex_callbacks.logs.step_basis import based

__all__ = ["Result", "diagnose", "summary_counts"]

# Catalog fixes are phrased per framework; log families map onto those names.
_FRAMEWORK_OF = {"deepspeed": "deepspeed", "hf": "hf", "lightning": "lightning",
                 "torch": "torch", "fairseq": "torch", "apex": "torch", "megatron": "torch"}
_LOSS_CODES = frozenset({"AMP006", "AMP007", "AMP009"})
# The window of recent lines in which a diagnosis' first line is looked up: (step, line,
# shows the loss) of the last lines read; _NO_LINE stands for a line counted in a quiet run.
_RECENT_LINES = 512
# An input where no line was read is read once more with every line a candidate (a newline
# ends it; a digit finds the last one), up to this size (a pasted excerpt; a big file of
# nothing known stays refused without a second, slow pass).
RESCAN_BYTES = 4 << 20
EVERY_LINE = (b"\n", *(bytes([digit]) for digit in b"0123456789"))
_ESCAPED = "escaped"  # (a paste of one line of escapes)
_NEWEST = "listed newest line first"
_UNCOLLECTED = ("every line opened with a collector's time or process (kubectl --timestamps, "
                "ts, journald, a Ray worker), taken off")
# (json_documents.py: a tracker's summary file, pasted whole)
_DOCUMENT = "one JSON object whose values nest, read as one line with its keys joined by '/'"
# (json_logs.py: a service's record of a run, pasted whole)
_HELD_LOG = "one JSON object holding the run's output as its"
_NO_LINE = (-1, 0, False)
_QUIET = logging.getLogger("denpex_callbacks.doctor")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False
_QUIET.setLevel(logging.CRITICAL + 1)  # the doctor prints its own report


def diagnose(path: str, progress: Callable[[int, int | None], None] | None = None,
             config: MonitorConfig | None = None, *, workers: int | None = 0,
             quiet_runs: bool = True) -> Result:
    """Diagnose one input; never raises for bad input (see ``Result.error``).

    ``workers``: processes that scan a log file over 64 MiB for candidate lines while this one
    parses them; the result is the same either way. 0 (the default here): none. None: one per
    CPU, as the ``denpex`` command does; they are started with multiprocessing's ``spawn``, so
    a script calling this needs the usual ``if __name__ == "__main__":`` guard.

    ``quiet_runs=False`` reads every line one by one instead of counting the runs of lines
    that repeat a quiet line (:mod:`~denpex_callbacks.logs.quiet_runs`): the diagnoses are
    the same (tests compare the two).

    Example:
        >>> import tempfile, os
        >>> lines = [f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
        ...          f"{2.0 ** (20 - i)}, reducing to {2.0 ** (19 - i)}" for i in range(50)]
        >>> with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        ...     _ = f.write("\\n".join(["[Rank 0] step=1, skipped=0, lr=[0.1], mom=[0.9]"]
        ...                          + lines) + "\\n")
        >>> r = diagnose(f.name)
        >>> [(d.code, d.step, d.lines[0]) for d in r.faults][:2]
        [('AMP003', 2, 2), ('AMP004', 22, 22)]
        >>> os.unlink(f.name)
    """
    try:
        if path != STDIN and os.path.isdir(path):
            if any(Path(path).glob(REPORT_GLOB)):
                return _diagnose_reports(path)
            return _diagnose_folder(path, config, workers)
        if path != STDIN and path.endswith(".jsonl") and is_report_file(path):
            return _diagnose_reports(path)
        if path != STDIN and (kind := run_files.kind_of(path)) is not None:
            return _diagnose_run_file(path, kind, config)
        return _diagnose_log(path, progress, config, workers, quiet_runs)
    except (InputError, OSError, ValueError) as err:
        return Result(path, error=str(err) if str(err).startswith(path) else f"{path}: {err}")


def _diagnose_folder(path: str, config: MonitorConfig | None, workers: int | None) -> Result:
    """A folder of the files a run leaves: each read as on its own, one merged verdict."""
    parts = [(found, diagnose(found.path, config=config, workers=workers))
             for found in run_folder.discover(path)]
    return folder_verdict.merge(path, parts)


def _diagnose_run_file(path: str, kind: str, config: MonitorConfig | None) -> Result:
    """A run file (trainer_state.json, metrics.csv, tfevents): records instead of lines."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    result = Result(path, kind=kind)
    session = _Session(result, config or MonitorConfig(report_dir=None))
    count = 0
    for count, text, events in run_files.records(path, kind):
        session.feed(count, text, events)
    session.end_input()
    result.reading.lines = count
    if not result.families:
        raise InputError(f"{path}: no training record with a loss, loss scale or grad norm")
    result.diagnoses = session.finish()
    return result


def _read_training(result: Result, *, rescanned: bool, numbered: int = 0) -> bool:
    """Whether reading found a training log: any line of a family or the generic reader; read
    again with every line a candidate, a value or an event, not a counter or a setting alone
    (a test run's ``SKIPPED [1] test_x.py:105: ...`` is no count of skipped steps), on
    ``numbered`` lines of two steps or epochs or more (:func:`_numbered`)."""
    if not rescanned:
        return bool(result.families)
    return numbered >= 2 and any(kind not in (PROGRESS, SETUP)
                                 for _family, kind in result.reading.parts)


def _numbered(events: list[LogEvent], marks: set[object], line: int) -> None:
    """Add to ``marks`` where training was for each metric or overflow event that says it:
    its step, or its line when it names an epoch. A text that is no training log holds
    values a loss noun names too (a regression report's ``Fold 3: RMSE=1.52``, a
    configuration's ``step: 0`` over ``mse: 0.0``), but not at two steps or epochs; a
    training loop prints them over time."""
    for event in events:
        if event.kind in (METRICS, OVERFLOW):
            if event.step is not None:
                marks.add(event.step)
            elif any(lexicon.role(key) == lexicon.EPOCH for key in getattr(event, "keys", ())):
                marks.add((line,))


class _Told(NamedTuple):
    """What a first reading told of a log, for the next: ``reverse``, whether its lines are
    listed newest first (read them last to first; None: not known, the times it prints
    decide); ``interval``, how often HF Trainer printed its rows (logging_interval.py: number
    them by it)."""

    reverse: bool | None = None
    interval: LoggingInterval | None = None


_FIRST_READING = _Told()


def _diagnose_log(path: str, progress: Callable[[int, int | None], None] | None,
                  config: MonitorConfig | None, workers: int | None,
                  quiet_runs: bool = True, keywords: tuple[bytes, ...] = KEYWORDS,
                  how: _Told = _FIRST_READING) -> Result:
    """``how``: what a first reading told of the log (see :class:`_Told`)."""
    result = Result(path, stats=ReadStats())
    stats = result.stats
    assert stats is not None
    parser = LineParser()
    session = _Session(result, config or MonitorConfig(report_dir=None),
                       lambda: parser.evaluation_lines)
    session.assembler.row_interval = how.interval
    if how.interval is not None:
        stats.problems.append(
            f"HF Trainer's rows print no step: numbered every {how.interval.every} steps "
            + ("(the progress bar redrawn after each row" if how.interval.by_bars else
               f"(logging_steps={how.interval.every} in the log's arguments")
            + (", and step 1 by logging_first_step)" if how.interval.first_step else ")"))
    runs = QuietRuns(session.printed_room) if quiet_runs else None
    stream = open_input(path)
    # A bar only where bytes read can be set against the file size (not gzip: told by content).
    plain = path != STDIN and isinstance(stream, io.BufferedReader)
    total = os.path.getsize(path) if plain else None
    pasted: str | None = None  # how a paste was read (escapes, hard wraps), for the report
    # The rank a margin taken off every line named (one rank's log: read as a log that names
    # none, its diagnoses put on that rank at the end, so that no rule reads it apart from
    # rank 0's), or each rank's block of lines where several ranks' were read apart.
    ranked: int | RankBlocks | None = None
    if parser.generic is not None and isinstance(stream, io.BufferedReader):
        # an epoch's length said once before training, on a line no keyword keeps
        parser.generic.epoch_batches.declared = declared_epoch_length(
            stream.peek(HEAD_BYTES)[:HEAD_BYTES])
    if plain and total is not None and total <= ESCAPED_BYTES:
        stream, pasted, ranked = _pasted(stream, total, how.reverse)
    blocks = ranked if isinstance(ranked, RankBlocks) else None
    dates = RankDates(blocks) if blocks is not None else None
    tick = (lambda done: progress(done, total)) if progress else None
    rescanned = keywords is not KEYWORDS
    session.every_line = rescanned
    marks: set[object] = set()  # (read again: where the metric lines say training was)
    try:
        for line_no, text in scan_input(path, stream, keywords, stats, tick,
                                        workers=workers, runs=runs):
            if isinstance(text, QuietLines):
                assert runs is not None and runs.shape is not None
                session.quiet_lines(text.lines, runs)
                if runs.shape.family == "generic" and parser.generic is not None:
                    parser.generic.read_again(text.lines)
                continue
            if blocks is not None:  # (a paste of several ranks' lines, read apart)
                parser.rank = blocks.rank_at(line_no)
            events = parser.parse(text, line_no)
            if rescanned and events and len(marks) < 2:
                _numbered(events, marks, line_no)
            session.feed(line_no, text.strip(), events)
            if dates is not None:
                dates.read(line_no, session.assembler.clock,
                           any(event.kind in (METRICS, OVERFLOW) for event in events))
            if runs is not None:
                runs.offer(line_no, text, events)
        last = parser.finish()  # a record the excerpt cut off
        if rescanned:
            _numbered(last, marks, stats.lines)
        session.feed(stats.lines, "", last)
        session.end_input()
    finally:
        if path != STDIN:
            stream.close()
    result.reading.lines = stats.lines
    if parser.generic is not None:
        result.reading.keys = parser.generic.keys_seen
        result.reading.notations = parser.generic.notations
    if stats.problems and (stats.bytes_read == 0 or not result.families):
        # A .gz that broke before any log line: what broke, not "empty" or "nothing known".
        raise InputError(f"{path}: {stats.problems[0]}")
    if stats.bytes_read == 0:
        raise InputError(f"{path}: empty file")
    may_read_again = not rescanned and path != STDIN and stats.bytes_read <= RESCAN_BYTES
    if not _read_training(result, rescanned=rescanned, numbered=len(marks)):
        if may_read_again:
            return _read_again(None, path, progress, config, workers, quiet_runs)
        # "no fault found" would claim a healthy run that was never seen.
        raise InputError(f"{path}: read {stats.lines} line(s), none with a training metric "
                         "(loss, loss scale, grad norm, skipped steps) or a known event line: "
                         "nothing to diagnose")
    if stats.undecodable_lines:
        stats.problems.append(
            f"{stats.undecodable_lines} line(s) hold bytes that are not UTF-8 (read as "
            "Windows-1252)")
    if stats.long_lines:
        stats.problems.append(f"{stats.long_lines} line(s) longer than {MAX_LINE >> 20} MiB "
                              "(read in pieces)")
    if pasted == _ESCAPED:
        stats.problems.append(f"one line of escapes (a JSON string or a Python repr of the "
                              f"output), read as the {stats.lines} line(s) it escapes; line "
                              "numbers count those")
    elif pasted is not None:
        stats.problems.append(f"{pasted}: {stats.lines} line(s); line numbers count those")
    result.problems = [f"{path}: {p}" for p in stats.problems]
    result.diagnoses = session.finish()
    if isinstance(ranked, int):
        result.diagnoses = [replace(d, rank=ranked) if d.rank == 0 else d
                            for d in result.diagnoses]
    elif dates is not None:  # (the lines as the input has them, their prefixes on)
        result.diagnoses = [_in_place(d, dates) for d in result.diagnoses]
    result.initiating = session.assembler.initiating_rank()
    assembler = session.assembler
    by_times = _NEWEST in (pasted or "")
    back, forward = assembler.steps_back, assembler.steps_forward
    if may_read_again and how.reverse is None and (
            back > forward if by_times else runs_backwards(back, forward)):
        # The rows' steps ran backwards: read the other way. A listing newest first that
        # prints no times (``gcloud logging read --format="value(textPayload)"``); or one
        # that times said was (a checkpoint listing ``ls -lt`` above the log, an estimated
        # finish time that gets earlier) whose rows say it was not.
        return _diagnose_log(path, progress, config, workers, quiet_runs,
                             how=how._replace(reverse=not by_times))
    if (may_read_again and how.interval is None and assembler.counted_rows
            and any(family == HF for family, _kind in result.reading.parts)
            and (interval := _hf_interval(path)
                 or redrawn_interval(parser.redrawn_counts)) is not None):
        return _diagnose_log(path, progress, config, workers, quiet_runs,
                             how=how._replace(interval=interval))
    if may_read_again and (session.placeholder_asked or _steps_unread(result, parser)):
        return _read_again(result, path, progress, config, workers, quiet_runs, how)
    return result


def _hf_interval(path: str) -> LoggingInterval | None:
    """The logging interval the log at ``path`` (read again whole: at most RESCAN_BYTES)
    shows in its arguments, for HF Trainer's rows that print no step."""
    with open_input(path) as stream:
        data = stream.read(RESCAN_BYTES + 1)
    if may_be_webbed(data[:WRAP_HEAD]) and (plain := plain_characters(data)) is not None:
        data = plain  # (the arguments as printed: read as the lines were)
    return logging_interval(data)


def _pasted(stream: BinaryIO, size: int, reverse: bool | None = None
            ) -> tuple[BinaryIO, str | None, int | RankBlocks | None]:
    """``stream``, or the log a paste holds, what the paste was (None: a plain log), and the
    rank a margin taken off named (None: none): a JSON record holding the run's output as
    one string (json_logs.py: that string's lines, read as any paste), one line of escapes
    (paste.py's ``unescaped_log``: a JSON string or a Python repr of a run's output), a
    margin on every
    line or a blank line after each (paste_margins.py), a collector's clock or process
    before every line (line_prefixes.py), the characters a web page or a chat tool made of its
    own (paste.py's ``plain_characters``), lines
    hard-wrapped at a terminal's width (hard_wraps.py's ``unwrapped_log``), a
    listing newest line first (newest_first.py's ``oldest_first``; ``reverse``: told by its
    steps on a first reading, True or False; None: by its times), or both of the last two."""
    if not isinstance(stream, io.BufferedReader):
        return stream, None, None
    head = stream.peek(WRAP_HEAD)[:WRAP_HEAD]
    entire = size <= len(head)
    escaped = may_be_escaped(head[:ESCAPED_HEAD])
    small = size <= WRAP_BYTES
    wrapped = small and may_be_wrapped(head)
    newest = reverse is None and size <= NEWEST_BYTES and may_be_newest_first(head)
    coloured = small and b"\x1b[" in head
    webbed = small and may_be_webbed(head)
    cri = size <= CRI_BYTES and may_be_cri(head)
    prefix, spaced, clocked, numbered = _around_lines(head, entire) if small else (
        None, False, False, False)
    document = None  # (parsed once, for both readings of a JSON object below)
    if may_hold_log(head, size):
        data = head if entire else stream.read()
        document = parsed_object(data)
        if document is not None and (log := held_log(document)) is not None:
            stream.close()
            return _held(log, reverse)
        if not entire:  # (read whole: the rules below read it again from memory)
            stream.close()
            stream = io.BufferedReader(io.BytesIO(data))
    if entire and document is not None and (flat := flattened_document(document)) is not None:
        stream.close()  # (entire: the head is the input)
        return io.BytesIO(flat), _DOCUMENT, None
    ranks = small and prefix is None and not clocked and may_be_ranked(head, entire)
    if not (escaped or wrapped or newest or reverse or spaced or coloured or cri or clocked
            or webbed or numbered or ranks):
        return stream, None, None
    data = stream.read()
    stream.close()
    if webbed and (plain := plain_characters(data)) is not None:
        # (unsaid, as colours are: no line moves) what hid a margin or a wrap is gone now
        data, head = plain, plain[:WRAP_HEAD]
        wrapped = may_be_wrapped(head)
        newest = reverse is None and size <= NEWEST_BYTES and may_be_newest_first(head)
        prefix, spaced, clocked, numbered = _around_lines(head, entire)
    how = []
    if cri and (whole := joined_log(data)) is not None:  # (first: its pieces are no paste's)
        data, escaped = whole, False
        how.append(CRI_JOINED)
    if escaped:
        lines = unescaped_log(data)
        return (io.BytesIO(data if lines is None else lines),
                None if lines is None else _ESCAPED, None)
    data, margins, rank = unpasted(data, prefix, spaced, coloured, numbered)
    how += margins
    turned = False
    if not ranks and small and (prefix is not None or clocked or coloured):
        # A collector's prefix before the ranks' own (docker compose's, kubectl's time): the
        # ranks are looked for behind it (the margin is off already; the clock off the head);
        # and behind the colours a launcher paints its prefixes in (SkyPilot's cyan).
        bare = data[:WRAP_HEAD]
        ranks = may_be_ranked(uncollected(bare) if clocked else bare, len(data) <= WRAP_HEAD)
    if ranks:  # (turned round first: each rank's block then runs oldest first too)
        data, turned = _oldest_first(data, how, reverse, newest)
        if clocked:  # (after the times turned it round; before the ranks' prefixes are read)
            data, clocked = uncollected(data), False
            how.append(_UNCOLLECTED)
        split = by_rank(data)
        if split is not None:  # (before any rule that joins lines: the blocks are counted here)
            data, blocks = split
            # (unsaid, as colours are: the diagnoses name the lines split, _in_place)
            return io.BytesIO(data), "; ".join(how) or None, blocks
    if how and not wrapped:  # (the margins hid how wide its lines were)
        wrapped = may_be_wrapped(data[:WRAP_HEAD])
    if wrapped and (unwrapped := unwrapped_log(data)) is not None:
        data = unwrapped.data
        how.append(f"lines hard-wrapped at {unwrapped.width} characters, joined again")
    if not turned:
        data, turned = _oldest_first(data, how, reverse, newest)
    if clocked:  # (last: the times ordered the lines above)
        data = uncollected(data)
        how.append(_UNCOLLECTED)
    return io.BytesIO(data), "; ".join(how) or None, rank


def _held(log: HeldLog, reverse: bool | None) -> tuple[BinaryIO, str | None,
                                                      int | RankBlocks | None]:
    """What :func:`_pasted` makes of the log a JSON document holds (json_logs.py): its
    string's lines, as pasted as any log (a margin, a clock, ranks), the key said."""
    inner, how, rank = _pasted(io.BufferedReader(io.BytesIO(log.data)), len(log.data), reverse)
    if how == _ESCAPED:
        how = "one line of escapes in it, read as the lines it escapes"
    said = f"{_HELD_LOG} '{log.key}' string, read as its lines (the other fields not read)"
    return inner, "; ".join(filter(None, (said, how))), rank


def _oldest_first(data: bytes, how: list[str], reverse: bool | None, newest: bool
                  ) -> tuple[bytes, bool]:
    """``data`` read last line first where it lists its lines newest first (``reverse``: its
    steps said so; ``newest``: its times may say so), and whether it was; ``how`` told."""
    if reverse:
        how.append(f"{_NEWEST} (its steps run backwards), read last line first")
        return reversed_lines(data), True
    if newest and (ordered := oldest_first(data)) is not None:
        how.append(f"{_NEWEST} (its times run backwards), read last line first")
        return ordered, True
    return data, False


def _in_place(diagnosis: Diagnosis, dates: RankDates) -> Diagnosis:
    """``diagnosis`` naming the input's lines and quoting them as it has them, where each
    rank's lines were read apart (rank_streams), at the step its first line came at in the
    input where its rank's block moved no step (rank_dates)."""
    if not diagnosis.lines:
        return diagnosis
    blocks = dates.blocks
    quotes = tuple(blocks.quote(diagnosis.lines[i], quote) if i < len(diagnosis.lines)
                   else quote for i, quote in enumerate(diagnosis.quotes))
    return replace(diagnosis, lines=tuple(blocks.origin(n) for n in diagnosis.lines),
                   quotes=quotes, step=dates.step_at(diagnosis.lines[0], diagnosis.step))


def _around_lines(head: bytes, entire: bool) -> tuple[bytes | None, bool, bool, bool]:
    """What ``head`` shows a paste put around every line: the margin (paste_margins'
    ``margin``), whether a blank line follows each, whether a collector's clock or process
    opens each (line_prefixes), whether a line number does."""
    prefix = margin(head, entire)
    return (prefix, prefix is not None or may_be_spaced(head),
            prefix is None and collected(head, entire), may_be_numbered(head))


def _steps_unread(result: Result, parser: LineParser) -> bool:
    """Whether the lines that number the steps went unread (their finite rows hold no
    keyword): only overflow lines read (pix2pixHD's ``--fp16``: apex's ``Gradient
    overflow.`` lines between the visualizer's loss lines), or rows numbered within their
    epoch first read past the first epoch (the epochs before them unread)."""
    parts = result.reading.parts
    return ((parser.generic is not None and parser.generic.epochs_unread)
            or (bool(parts) and all(kind == OVERFLOW for _family, kind in parts)))


def _read_again(first: Result | None, path: str,
                progress: Callable[[int, int | None], None] | None,
                config: MonitorConfig | None, workers: int | None,
                quiet_runs: bool, how: _Told = _FIRST_READING) -> Result:
    """An excerpt read once more, every line a candidate, for the lines of a loop that hold no
    keyword. Two first readings ask for it:

    - none found a training log (``first`` is None): YOLOv5's ``0/299  3.39G  0.1097  0.06887
      0.04095  204  640: 100%|...`` under a header of ``box obj cls``, an ``mse 0.05`` line, a
      header row ``epoch mse lr`` over its values. The second reading stands, so that a
      healthy excerpt is "no fault" rather than "nothing to diagnose"; where it finds nothing
      either, its "nothing to diagnose" is raised;
    - one read no line that numbers the steps (:func:`_steps_unread`), or one whose
      evaluation value was non-finite on every row it read, from the first, while training
      went well (``_Session.placeholder_asked``: only a reading of every row tells whether the
      value was ever finite). The second reading stands where it reads metric lines (their
      steps number the rest), else the first.
      ``how``: what the first reading told of the log, as it read it."""
    if first is None:
        return _diagnose_log(path, progress, config, workers, quiet_runs, EVERY_LINE)
    try:
        again = _diagnose_log(path, progress, config, workers, quiet_runs, EVERY_LINE, how)
    except InputError:
        return first
    metrics = any(kind == METRICS for _family, kind in again.reading.parts)
    return again if metrics else first


class _Session:
    """One Assembler feeding one Monitor per rank (each rank's run state apart, as in a live
    run), each started lazily once the setup lines are read."""

    def __init__(self, result: Result, config: MonitorConfig,
                 evaluated: Callable[[], int] = lambda: 0) -> None:
        self.result = result
        self.config = config
        self.evaluated = evaluated  # evaluation lines read so far
        self.monitors: dict[int, Monitor] = {}
        self.assembler = Assembler(self._observe, self._flag, self._gap)
        # One judge per rank, like the monitors: one rank's NaN run, zeros or skips are
        # judged on that rank's lines, not diluted by the healthy ranks printed between them.
        self.judges: dict[int, ExcerptJudge] = {}
        # Evaluation values, per rank: a stream of their own (not training steps).
        self.evaluations: dict[int, EvaluationStream] = {}
        self.echo = EvaluationEcho()  # a NaN sentence repeating the evaluation's just before
        self.dropped = DroppedValues()  # a logger's dropped value, held for the row after it
        self.empty_means = EmptyMeans()  # numpy's empty-mean warning, for the NaN below it
        # Detectors report where a condition began (a step) and the line that confirmed it;
        # the line where it began is looked up here, in a bounded window of recent steps.
        self.recent_lines: deque[tuple[int, int, bool]] = deque(maxlen=_RECENT_LINES)
        self.start_lines: dict[tuple[str, int | None], int] = {}
        # Read with every line a candidate: rows that hold no keyword (an evaluation's finite
        # values) were read too, so a value never read finite was never finite in the input.
        self.every_line = False
        # ...and, where not, whether an evaluation value looked never finite: a reading of
        # every line must tell (evaluation.py's PLACEHOLDER).
        self.placeholder_asked = False

    def feed(self, line: int, text: str, events: list[LogEvent]) -> None:
        """The events read from one line (or record)."""
        if not events:
            if ended_by_search(text):  # (a line no parser reads: the judges' run ended)
                for judge in self.judges.values():
                    judge.runs.search_ended()
            return
        if events[0].family == EMPTY_MEANS:  # (numpy's warning: context, not a line read)
            self.empty_means.warned(line)
            return
        families, assembler = self.result.families, self.assembler
        for event in events:
            if event.kind != SETUP or FROM_START not in event.setup:
                # (the Trainer's banner says where a run starts, not that training was read:
                # a script's banner over no row is still nothing to diagnose)
                families[event.family] += 1
            at, shown = (line, text) if event.quoted is None else event.quoted
            if self.echo.told(event, at, shown):
                continue  # (the evaluation's NaN, told again without its split)
            if event.kind == EVAL:
                if self.empty_means.explains(event, at):
                    continue  # (the mean of nothing: see logs/empty_means.py)
                rank = event.rank or 0
                stream = self.evaluations.get(rank)
                if stream is None:
                    stream = self.evaluations[rank] = EvaluationStream()
                assembler.settle()  # (a row waiting for the next event is a step before it)
                stream.event(event, at, shown, assembler.clock or None)
                continue
            if self.empty_means.line is not None:  # (rare: a warning above, see empty_means)
                self.empty_means.passed(event)
            if self.dropped.offer(event, at, shown):
                continue
            for held in self.dropped.row(event):
                self._read(*held)  # (before the row: the warning's step is the one before)
            self._read(event, at, shown)
        if len(events) == 1:  # most lines: counted without a set built per line
            self.result.reading.parts[(events[0].family, events[0].kind)] += 1
        else:
            self.result.reading.add_line({(e.family, e.kind) for e in events})

    def _read(self, event: LogEvent, line: int, text: str) -> None:
        """One event to its rank's judge and the assembler."""
        self._judge(event.rank or 0).event(event, line, text)
        self.assembler.feed(event, line, text)

    def end_input(self) -> None:
        """The input ended: what was held for a later line is read, and the assembler ends."""
        for held in self.dropped.release():
            self._read(*held)
        self.assembler.finish()

    def quiet_lines(self, lines: int, runs: QuietRuns) -> None:
        """``lines`` lines that repeated the quiet line read before them (see
        :mod:`~denpex_callbacks.logs.quiet_runs`): counted as read, their steps a gap."""
        shape = runs.shape
        if shape is None or runs.last_step is None:
            return
        for held in self.dropped.release():
            self._read(*held)  # (the rows repeated are not read one by one: no row explains)
        self.result.families[shape.family] += lines
        for kind in shape.kinds:
            self.result.reading.parts[(shape.family, kind)] += lines
        rank = shape.rank or 0
        self._judge(rank).quiet_rows(lines, runs.last_step, shape.scale,
                                     grad_norm=shape.grad_norm)
        self.assembler.quiet_run(runs.last_step, shape.scale, shape.rank, lines,
                                 basis=runs.basis)
        # Read one by one, the run's lines would have pushed as many older ones out of the
        # window of recent lines: so do placeholders (no step is -1), or a condition that
        # began before the run would be placed on its line here and not there.
        self.recent_lines.extend(repeat(_NO_LINE, min(lines, _RECENT_LINES)))

    def printed_room(self, shape: Shape) -> int:
        """How many lines of a quiet run of ``shape`` may be counted at once: as many as its
        rank's detectors can take as printed quiet steps before one could fire (AMP005's
        clean steps without growth), so the line that reaches a limit is read one by one."""
        monitor = self.monitors.get(shape.rank or 0)
        return UNBOUNDED if monitor is None else monitor.printed_horizon(shape.scale)

    def _judge(self, rank: int) -> ExcerptJudge:
        judge = self.judges.get(rank)
        if judge is None:
            judge = self.judges[rank] = ExcerptJudge(self.config.thresholds)
        return judge

    def _ensure(self, rank: int = 0) -> Monitor:
        monitor = self.monitors.get(rank)
        if monitor is None:
            family = next(iter(self.result.families.most_common(1)), ("log", 0))[0]
            monitor = Monitor(self.config, rank=rank, framework=_FRAMEWORK_OF.get(family, "log"),
                              logger=_QUIET, sinks=[self._note_start])
            setup = RunSetup(framework="log", rank=rank)
            for key, value in self.assembler.setup.items():
                if hasattr(setup, key):
                    setattr(setup, key, value)
            monitor.start(setup)
            self.monitors[rank] = monitor
        return monitor

    def _note_start(self, diagnosis: Diagnosis) -> None:
        # The latest line of that step: a progress bar first repeats the previous step's
        # value at a new count, then prints the new one.
        # A loss condition starts on a line that shows the loss, a scale condition on one
        # that shows the scale or the skip (a script may print its loss after the overflow).
        if diagnosis.step is not None:
            self.assembler.spans.watch(diagnosis.step)
        about_loss = diagnosis.code in _LOSS_CODES
        for step, line, shows_loss in reversed(self.recent_lines):
            if step == diagnosis.step and shows_loss == about_loss:
                self.start_lines[(diagnosis.code, diagnosis.step)] = line
                return

    def _gap(self, steps: int, skipped: int, printed: Printed | None = None) -> None:
        """Steps the log did not show one by one (``skipped`` of them known to be skipped
        from the scale): counted, never made up. ``printed``: a quiet run's lines among
        them, which its rank's detectors count as the steps they printed."""
        self.result.timeline.steps += steps
        self.result.timeline.skipped += skipped
        if printed is not None:  # (a quiet run's lines: rows read, though not one by one)
            self.result.timeline.count_rows(printed.rank, printed.rows)
        first = self.assembler.clock - steps + 1
        for judge in self.judges.values():
            judge.gap(first, steps, skipped)
        if not self.monitors:
            self._ensure()
        for rank, monitor in list(self.monitors.items()):
            if printed is not None and printed.rank == rank:
                monitor.advance(steps, skipped, printed=printed.rows, scale=printed.scale)
            else:
                monitor.advance(steps, skipped)

    def _observe(self, obs: Observation) -> None:
        skipped, scale = obs.was_skipped, obs.scale
        if obs.line is not None and (skipped or obs.loss is not None or scale is not None):
            self.recent_lines.append((obs.step, obs.line, obs.loss is not None
                                      and not skipped and scale is None))
        self.result.timeline.add(obs)
        # One overflow printed by several ranks was merged into one step: each rank saw it.
        ranks = obs.extra.get("ranks") if obs.extra else None
        if skipped:
            evaluated = self.evaluated()
            for rank in ranks or [obs.rank]:
                self._judge(rank).evaluations = evaluated
        if not ranks:  # the common case, without building a list per step
            self._judge(obs.rank).observation(obs)
            monitor = self.monitors.get(obs.rank) or self._ensure(obs.rank)
            if monitor.setup.growth_interval is None or self.assembler.interval_learned:
                self._learned(monitor)
            monitor.observe(obs)
            return
        for rank in ranks:
            seen = obs if rank == obs.rank else replace(obs, rank=rank)
            self._judge(rank).observation(seen)
            monitor = self._ensure(rank)
            self._learned(monitor)
            monitor.observe(seen)

    def _learned(self, monitor: Monitor) -> None:
        """What the assembler learned of the scaler after the monitor started (the growth
        interval, read from the logged scale's doublings) reaches its detectors, which hold
        the monitor's setup: what a live run reads from its scaler at the start."""
        setup = self.assembler.setup
        learned = setup.get("growth_interval")
        if learned is None:
            return
        if monitor.setup.growth_interval is None or (
                self.assembler.interval_learned and learned > monitor.setup.growth_interval):
            # a learnt interval only grows (the longest stretch seen): a lower bound
            monitor.setup.growth_interval = learned
            monitor.setup.scaler = monitor.setup.scaler or setup.get("scaler")

    def _flag(self, finding: Finding) -> None:
        monitor = self._ensure(finding.rank or 0)
        finding, amends = as_said(finding)
        if amends:
            # The run's amendment: what it found later, and its fix over the one printed first
            # (flagged as it is where the log holds no first line of it: an excerpt).
            found = finding.summary.removeprefix(f"{BY_THE_RUN}: ").rstrip(" .")
            if monitor.amend(finding.code, step=finding.step, fix=finding.fix,
                             located=found or None):
                return
        monitor.flag(finding)

    def finish(self) -> list[Diagnosis]:
        self.result.steps_are_rows = (self.assembler.counted_rows > 0
                                      and self.assembler.printed_rows == 0)
        self.result.step_bases = sorted(self.assembler.bases.bases())
        # What a rank's detectors did not see on their own, its excerpt may still prove.
        scaled = self.assembler.setup.get("scaler", "unknown") is not None
        findings = {rank: judge.findings(self._known(rank), scaled=scaled)
                    for rank, judge in sorted(self.judges.items())}
        for rank, stream in sorted(self.evaluations.items()):
            judge = self.judges.get(rank)
            trained = judge is not None and judge.trained_down()
            finding = stream.finding(trained=trained and self.every_line, went_well=trained)
            if trained and not self.every_line and stream.never_finite():
                self.placeholder_asked = True
            if finding is not None:
                findings.setdefault(rank, []).append(finding)
        if not self.monitors and not any(findings.values()):
            return []
        for rank, found in findings.items():
            for finding in found:
                self._ensure(rank).flag(replace(finding, rank=rank))
        for monitor in self.monitors.values():
            monitor.close()
        if any(m.disabled for m in self.monitors.values()):
            self.result.problems.append(
                f"{self.result.path}: internal error in the monitor; diagnoses may be "
                "incomplete (please report)")
        flags = self.assembler.flags
        out: list[Diagnosis] = []
        flagged: set[str] = set()  # codes in ``out`` that an error line reported
        # Every rank's diagnoses, earliest first: each condition is reported once, where it
        # began first (the other ranks' reports of it are more evidence).
        everything = [d for m in self.monitors.values() for d in m.diagnoses]
        if len(self.monitors) > 1:  # one rank: the order they were found in
            everything.sort(key=lambda d: (d.step if d.step is not None else -1, d.rank))
        for diagnosis in everything:
            judge = self.judges.get(diagnosis.rank)
            if judge is not None and diagnosis.code in judge.superseded:
                continue
            if judge is not None and diagnosis.code == "AMP006":
                diagnosis = (_abandoned(diagnosis) if judge.abandoned()
                             else self._one_off(diagnosis, judge))
            elif (judge is not None and diagnosis.code == "AMP013" and judge.abandoned()
                  and (evaluations := self.evaluations.get(diagnosis.rank)) is not None
                  and judge.runs.replaced(evaluations.last_line)):
                diagnosis = _abandoned(diagnosis)  # (every NaN evaluation in a run that ended)
            diagnosis = based(self._placed(diagnosis), self.assembler.bases)
            lines = flags.get(diagnosis.code, [])
            # (an escalated or amended denpex line of it replaced the first line's: any of them)
            from_flag = bool(lines) and diagnosis.lines[:1] in {(line,) for line in lines}
            if from_flag and len(lines) > 1:
                evidence = {**diagnosis.evidence, "occurrences": len(lines)}
                diagnosis = replace(diagnosis, lines=tuple(lines), evidence=evidence)
            start = None if from_flag else self.start_lines.get((diagnosis.code, diagnosis.step))
            if start is not None and start not in diagnosis.lines:
                diagnosis = replace(diagnosis, lines=(start, *diagnosis.lines))
            same = next((d for d in out if d.code == diagnosis.code), None)
            if same is not None and same.rank != diagnosis.rank:
                ranks = sorted({*same.evidence.get("also_on_ranks", []), diagnosis.rank})
                # A consequence on the rank where its cause was seen (rank 1's NaN loss,
                # whose NaN gradients DDP averaged into every rank's collapse) is one on
                # every rank: the cause is listed first.
                out[out.index(same)] = replace(
                    same, evidence={**same.evidence, "also_on_ranks": ranks},
                    caused_by=same.caused_by or diagnosis.caused_by)
                continue
            if same is not None and (from_flag or same.code in flagged):
                # An error line and a detector naming one condition: one diagnosis, the
                # other is more evidence.
                out[out.index(same)] = replace(
                    same, lines=tuple(dict.fromkeys((*same.lines, *diagnosis.lines))),
                    quotes=(*same.quotes, *diagnosis.quotes),
                    evidence={**same.evidence, "confirmed_by": diagnosis.summary})
                continue
            if from_flag:
                flagged.add(diagnosis.code)
            out.append(replace(diagnosis, source=self.result.path))
        return order(out)

    def _one_off(self, diagnosis: Diagnosis, judge: ExcerptJudge) -> Diagnosis:
        """A non-finite loss that the log to its end shows a one-off (the only one of its
        episode, finite losses after it), where the run's evidence named no cause: that
        batch's, said so (:func:`~denpex_callbacks.core.causes.one_off`)."""
        after = judge.one_off(diagnosis.step)
        if after is None or "cause" in diagnosis.evidence or diagnosis.summary.startswith(
                BY_THE_RUN):  # (the run judged its own: its fix stands)
            return diagnosis
        monitor = self.monitors.get(diagnosis.rank)
        cause = one_off(diagnosis.code, diagnosis.step,
                        monitor.setup if monitor is not None else RunSetup(), after)
        evidence = {**diagnosis.evidence, **cause.evidence(), "persistent": False,
                    "finite_losses_after": after}
        return replace(diagnosis, root_cause=cause.root_cause or diagnosis.root_cause,
                       fix=cause.fix or diagnosis.fix, evidence=evidence)

    def _placed(self, diagnosis: Diagnosis) -> Diagnosis:
        """``diagnosis``, saying the span of printed steps its step lies in where the log
        numbered that step by counting (:mod:`~denpex_callbacks.logs.step_spans`)."""
        # (a diagnosis read back from denpex's own line has the step that line printed)
        within = (self.assembler.spans.within(diagnosis.step)
                  if diagnosis.step is not None and not diagnosis.summary.startswith(BY_THE_RUN)
                  else None)
        if within is None:
            return diagnosis
        low, high = within
        summary = (f"{diagnosis.summary}; the log prints no step between {low - 1} and {high}, "
                   f"so this began at a step within {low}-{high}")
        return replace(diagnosis, summary=summary,
                       evidence={**diagnosis.evidence, "step_within": [low, high]})

    def _known(self, rank: int) -> set[str]:
        """The codes rank ``rank``'s detectors diagnosed."""
        monitor = self.monitors.get(rank)
        return {d.code for d in monitor.faults()} if monitor is not None else set()


def _abandoned(diagnosis: Diagnosis) -> Diagnosis:
    """A non-finite loss that ended a run the log then began afresh, the new run training on
    (the excerpt judge's ``abandoned``): said, at info, as what it may be. A learning-rate
    range test diverges on purpose, a search drops a trial that went NaN; a run restarted
    after its NaN may meet it again, so the finding stays in the report."""
    summary = (f"{diagnosis.summary}; the run that ended on it was begun afresh and trained "
               "on: a learning-rate range test or a search's trial that diverged (by design), "
               "or a run restarted after the fault")
    return replace(diagnosis, severity=Severity.INFO, summary=summary,
                   evidence={**diagnosis.evidence, "abandoned_run": True})


def _earlier_root(diagnosis: Diagnosis) -> tuple[int, bool]:
    return diagnosis.step or 0, diagnosis.caused_by is not None


def _diagnose_reports(path: str) -> Result:
    reports = read_report_dir(path) if os.path.isdir(path) else [read_report(path)]
    result = Result(path, kind="reports")
    # The first of each id across ranks, per severity: an escalation (AMP009 info at start,
    # warning once a NaN is hidden; AMP004 below 1, then at 0) is kept beside it.
    first: dict[tuple[str, str], Diagnosis] = {}
    # A rank's collapse that another rank's NaN began (through the all-reduce) is its
    # consequence: linked before the ranks' diagnoses are merged (one rank: none linked).
    linked = linked_across_ranks([replace(d, source=str(report.path))
                                  for report in reports for d in report.diagnoses])
    for diagnosis in linked:
        key = (diagnosis.code, diagnosis.severity.value)
        known = first.get(key)
        # At the same step a rank's own fault goes before another rank's consequence of it
        # (two ranks' AMP003 at one step: the one whose rank overflowed is the one to fix).
        if known is None or _earlier_root(diagnosis) < _earlier_root(known):
            first[key] = diagnosis
    for report in reports:
        for obs in report.steps:
            result.timeline.add(obs)
    # A torn last record (a killed run) is expected in crash reports: not a bad input.
    result.diagnoses = order(other_ranks_bad_batches(list(first.values()), linked))
    result.initiating = initiating_rank(reports) if len(reports) > 1 else None
    result.reruns = rank_verdicts(reports)
    result.ranks = [report.rank for report in reports]
    return result
