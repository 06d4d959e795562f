"""All log families in one place: the keyword prefilter and the line dispatcher.

Each segment of a line (tqdm's carriage returns split one line into several) goes to the
family parsers first; the first family that claims it wins. A segment no family claims goes
to the generic metric reader (:mod:`~denpex_callbacks.logs.metric_reader`). Paste artefacts
(markdown ``> `` quoting, tmux borders, numbered lines) are stripped first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from types import ModuleType

from denpex_callbacks.logs import (
    apex,
    deepspeed,
    denpex_lines,
    empty_means,
    fairseq,
    framework_errors,
    held_out_epoch,
    hf,
    known_messages,
    length_errors,
    lightning,
    list_postfix,
    lone_perplexity,
    megatron,
    nonfinite_sentences,
    other_scalers,
    overflow_sentences,
    precision_sentences,
    raised_nonfinite,
    run_summaries,
    system,
    torch_errors,
)
from denpex_callbacks.logs.cjk import has_cjk, in_english
from denpex_callbacks.logs.events import FLAG, METRICS, LogEvent
from denpex_callbacks.logs.launcher_ranks import line_rank, prefixed_rank, rank_prefix_end
from denpex_callbacks.logs.logging_interval import REDRAWN_READ
from denpex_callbacks.logs.metric_reader import MetricReader, dangling_key, starts_with_value
from denpex_callbacks.logs.paste import strip_paste
from denpex_callbacks.logs.reader import ValueRowLine

# Order matters only when two families could claim one segment: errors first; the message
# table next to last (its rows are no family's lines, and the families' literal checks are
# cheaper), and the NaN-loss and overflow sentences in any wording after every known one (a
# "non-finite loss, skipping the batch" is the loss's: AMP006, not one skipped step).
FAMILIES: tuple[ModuleType, ...] = (
    denpex_lines, system, torch_errors, framework_errors, empty_means, run_summaries, deepspeed,
    apex, other_scalers, fairseq, megatron, hf, lightning, known_messages, nonfinite_sentences,
    raised_nonfinite, overflow_sentences, precision_sentences, lone_perplexity,
    held_out_epoch, length_errors,
)
# What a metric line of an unknown format holds: a loss (loss, Loss, and the lexicon's other
# loss nouns: cost, nll, xent, cross entropy, objective), a scale, a non-finite value (nan,
# NaN, inf, -inf: "INF" alone would match every "INFO"), a skipped counter.
# Each keyword is one more pass over every byte, and a short one is the slowest: NAN, 1.#INF
# and a capitalised "Scale" are left out (a metric line holding them and none of these is
# rare: "Loss Scale" holds "oss"). ``LOSS`` is in: the pytorch_sac logger's tables (and
# mbrl-lib's, DrQ's, CURL's) key every loss in capitals (``| train | S: 1000 | CLOSS: ...``).
# ``kipp`` finds ``skipped``, ``Skipped``, ``skipping`` and ``Skipping`` in one keyword;
# ``utocast`` finds ``autocast`` and ``Autocast`` (open_clip's ``FSDP2: MixedPrecisionPolicy(
# ...). Autocast disabled.``, the line that says its fp16 run has a GradScaler).
GENERIC_KEYWORDS = (b"oss", b"LOSS", b"scale", b"nan", b"NaN", b"inf", b"kipp", b"utocast",
                    b"ost", b"nll", b"NLL", b"xent", b"ntropy", b"bj", b"%]", b" avg, ",
                    "失".encode(), b"Complete [", b"| G: ")
# ``| G: `` finds a GAN's row that keys its two networks' losses by a letter each and names
# no loss (ACOTSAE/DGD-UNet-GAN ``train_gan.py``: ``  Batch [50/400] | D: ... | G: ...``, see
# ``metric_pairs._gan_pair``): its finite rows number the passes its NaN row is counted in.
# `` avg, `` is darknet's iteration line (pjreddie/darknet examples/detector.c: ``"%ld: %f, %f
# avg, %f rate, ..."``), whose loss is named only by its running average (see
# ``metric_pairs._named_after``).
# ``bj`` finds ``objective``, ``Objective`` and Kaldi's and snowfall's ``objf`` in one keyword.
# ``ost`` finds ``cost`` and ``Cost`` in one keyword (a few more lines, ``host``, ``most``,
# are parsed for nothing); ``%]`` ends the progress line that announces a row of values on
# the next line: VITS' ``Train Epoch: 3 [40%]`` over its bare list of losses, step and lr,
# which holds no keyword (see ``metric_reader.announces_row``). ``失`` ends the loss of
# Chinese and Japanese prints, 损失 and 損失 (:mod:`~denpex_callbacks.logs.cjk`).
# ``Complete [`` is KerasTuner's end of a trial (``Trial 3 Complete [00h 01m 02s]``), the
# search's word that it dropped a trial (see ``abandoned_runs.ended_by_search``): its line
# holds no other keyword.
# A callback's message printed right after a progress bar that did not end its line (Keras'
# TerminateOnNaN: ``15/20 ━━━ 0s 4ms/step - loss: 2.4221Batch 15: Invalid loss, ...``): two
# prints glued into one segment, read as two. torchbearer's TerminateOnNaN prints its whole
# line after the tqdm bar it interrupted: ``... running_loss=nan]Invalid running_loss,
# terminating``.
_GLUED = re.compile(r"(?=Batch \d+: Invalid loss)|(?<=\])(?=Invalid \S+, terminating$)")
# A print glued right after a tqdm bar's status: a loop that ``print``s while its bar over the
# epochs is drawn (not through ``tqdm.write``) writes on the bar's line, after its closing
# bracket (04RR/MedSRGAN trainer.py: ``  4%|  | 4/100 [16:05<6:35:12, 241.05s/it]5/100 --
# Gen Loss: tensor(nan, ...)``): the bar's count is not the print's step; two segments. Only
# a print that opens with its own count: one that prints none (HF's log dict glued after its
# ``ProgressCallback`` bar, ``...1.50it/s]{'loss': nan, ...}``) is numbered by the bar's count
# (see hf.bar_count). The status is tqdm's ``| n/total [elapsed<remaining, rate...]``
# (bounded: no backtracking).
_BAR_STATUS = re.compile(r"\| ?\d{1,12}/\d{1,12} \[[\d:]{4,12}<[^\[\]|]{1,160}\](?=\d)")

def _minimal(keywords: set[bytes]) -> tuple[bytes, ...]:
    """Drop every keyword that contains another: a line holding it is found anyway."""
    return tuple(sorted(k for k in keywords if not any(o != k and o in k for o in keywords)))


# The prefilter: a line is parsed only if it holds one of these (each scanned at C speed).
KEYWORDS: tuple[bytes, ...] = _minimal(
    {kw for family in FAMILIES for kw in family.KEYWORDS} | set(GENERIC_KEYWORDS))

# srun -l's ``{rank}: `` is also how a loop prints its step before its metrics (lucidrains'
# trainers: muse-maskgit-pytorch ``f"{steps}: vae loss: {...} - discr loss: {...}"``,
# audiolm-pytorch ``f"{steps}: soundstream total loss: ..."``). Ranks repeat, a step counts
# up: this many metric lines in a row that print no step of their own, each numbered more
# than the last, make it a step; a number that goes back makes it a rank for good
# (ranks printing in turn, ``0: loss 2.1`` ... ``7: loss 2.1``, then ``0: ...`` again).
_COUNTED_PREFIX = 5
# ``grep -n`` numbers each line of the excerpt it prints with its line in the file, which
# reads as srun's ``N: `` where the line opens with a blank (Megatron's `` [2024-...]
# iteration``): a number at least the line's own in the excerpt, counting up line after line,
# this many lines in a row, is a line number (no rank). Ranks print in turn from 0, each below
# its line's number in the excerpt.
_LINE_NUMBERS = 2
# A line's opening up to its first digit (see _glued_prints): a print's own words.
_PRINT_HEAD = re.compile(r"[^\d\s][^\d]{3,39}(?=\d)")
_PRINT_ENDS = "%)]}'\""
# A rank's prefix right after another rank's unfinished print (``step 20 lo[rank1] step 20
# loss nan``): torchrun's ``[default1]:`` or a script's ``[rank1] `` (launcher_ranks), letters
# before the number, so that an index (``grads[0]: 0.1``) is none.
_GLUED_RANK = re.compile(r"(?<=\S)(?=\[[A-Za-z_]+\d{1,5}\]:|\[rank\d{1,5}\] )")
# A key's line of a record drawn by Julia's ConsoleLogger (base/logging/ConsoleLogger.jl
# ``handle_message``: ``@info "epoch" train_loss=l val_loss=v`` prints ``┌ Info: epoch``, then
# ``│   train_loss = 0.5``, the last key behind ``└   ``; FluxTraining's and MLJ's loops log
# through it): a row logged each epoch, not a closing summary's ``  key = value`` (the run
# summaries' family): the generic reader reads it, numbered by its rows.
_LOGGED_RECORD = ("│   ", "└   ")
# A traceback that runs through a GradScaler's backward (anomaly mode under AMP).
_SCALED_BACKWARD = re.compile(r"scaler\.scale\([^)]*\)\.backward\(")


class LineParser:
    """Turns one input's candidate lines into events, in order.

    Holds what reading needs across lines: the generic reader's header row, a key that a
    terminal wrapped onto the next line, and whether a traceback ran through a GradScaler.
    ``generic=False`` switches the generic reader off; ``families`` picks the family parsers
    (both for tests that measure what each part reads alone).

    Example:
        >>> p = LineParser()
        >>> [(e.family, e.loss) for e in p.parse("step 3 | Train Loss NAN |", 1)]
        [('generic', nan)]
    """

    def __init__(self, *, generic: bool = True,
                 families: tuple[ModuleType, ...] = FAMILIES) -> None:
        self.generic = MetricReader() if generic else None
        self.families = families
        # The parse functions themselves: one attribute lookup per family and segment less.
        # Lightning's bars are read across lines (a 1.x bar counts validation batches too).
        self._lightning = lightning.Bars()
        # Megatron's printed scale is judged by the one printed before it (megatron.Scales).
        self._megatron = megatron.Scales()
        self._parsers = tuple((self._message if family is known_messages
                               else self._lightning.parse if family is lightning
                               else self._megatron_line if family is megatron else family.parse,
                               family is torch_errors) for family in families)
        self._wrapped: tuple[int, str] | None = None
        self._scaled_backward = False
        # srun's ``N: `` read as a step (see _COUNTED_PREFIX): the last N, and the run of
        # lines numbered more than the line before (-1: N went back, a rank for good)
        self._prefix_last = -1
        self._prefix_run = 0
        # ... or grep -n's line number (see _LINE_NUMBERS): the last one, the run so far
        self._numbered_last = -1
        self._numbered_run = 0
        # The count of the bar redrawn after the last Trainer row (see _redrawn_step), and
        # the first few such counts, in order (they tell the logging interval: see
        # logging_interval.redrawn_interval)
        self._redrawn: int | None = None
        self.redrawn_counts: list[int] = []
        # The rank of a line that names none: the one a rank prefix taken off every line of
        # a paste named (paste_margins.margin_rank); None: rank 0, as a log that names none.
        self.rank: int | None = None

    @property
    def evaluation_lines(self) -> int:
        """Lines read as evaluation so far (with finite values too: they give no event, but
        say that training was under way)."""
        return self.generic.evaluation_lines if self.generic is not None else 0

    def _redrawn_step(self, events: list[LogEvent], segments: Sequence[str]) -> None:
        """Number a Trainer row behind a fast bar by the bar tqdm redrew after the row before.

        ``tqdm.write`` redraws the bar it cleared right after the row it printed (tqdm
        ``std.py`` ``external_write_mode``: ``inst.refresh``), at the count of that row's
        step (transformers ``ProgressCallback`` updates the bar in ``on_step_end``, before
        ``on_log``): the first bar of the next line. A bar faster than tqdm's mininterval is
        seldom drawn again before the next row (see ``hf.bar_count``), so the bar the row
        interrupts may be that same stale one; but two such first bars give the logging
        interval, and this row is that interval after the last. Only a training row (a loss)
        on a line that opens with a bar's redraw; an evaluation row keeps its own numbering.
        """
        # (a row whose loss the filter hid, 0 beside a NaN norm: read with no loss, its
        # AMP009 flag beside it, is a training row too)
        hidden = events[0].loss is None and any(e.code == "AMP009" for e in events[1:])
        if segments[0] != "" or events[0].kind != METRICS or (
                events[0].loss is None and not hidden):
            return  # (no redraw opens the line, or no training row)
        count = hf.drawn_count(next((segment for segment in segments if segment.strip()), ""))
        if count is None:
            return
        if len(self.redrawn_counts) < REDRAWN_READ:
            self.redrawn_counts.append(count)
        last, self._redrawn = self._redrawn, count
        if last is None or count <= max(last, 1):
            return  # (after a row at step 1, logging_first_step's, the interval is not known)
        # The Trainer logs at the multiples of logging_steps (and at step 1 with
        # logging_first_step: a gap from it is one short of the interval)
        _numbered(events, count + (count - (last if last > 1 else 0)))

    def parse(self, text: str, line: int = 0) -> list[LogEvent]:
        """Every event on one physical line (``line``: its number, for wrapped lines)."""
        if self.generic is not None and self.generic.held is not None:
            # events that wait for the line that ends their run or list (MetricReader.held)
            held = self.generic.release(text, line)
            if held:
                return [*held, *self._parse(text, line)]
        return self._parse(text, line)

    def _parse(self, text: str, line: int) -> list[LogEvent]:
        if self.generic is not None:
            self.generic.handed.append((line, text))  # (see MetricReader.right_below)
        if isinstance(text, ValueRowLine):
            return self._value_rows(text, line)
        if text.startswith(_LOGGED_RECORD) and self.generic is not None and (
                not text.rstrip().endswith("│")):  # (a bordered pane's row, not a record)
            return list(self.generic.read(strip_paste(text), line))
        text = strip_paste(text)
        if not text.isascii() and has_cjk(text):  # (most lines: ASCII, told inline)
            text = in_english(text)
        if self._wrapped is not None:
            wrapped_line, head = self._wrapped
            self._wrapped = None
            if wrapped_line == line - 1 and starts_with_value(text):
                text = head.rstrip() + " " + text.lstrip()
        rank, numbered = prefixed_rank(text)
        if rank is None:
            rank = self.rank
        if "s[{" in text or "it[{" in text:
            text = list_postfix.spread(text)  # (a bar's postfix given as a list: see there)
        segments: Sequence[str] = text.split("\r") if "\r" in text else (text,)
        if text[:1] == "{" and len(segments) > 1:
            segments = _block_cut(segments)
        if "Invalid " in text:
            segments = [part for segment in segments for part in _GLUED.split(segment)]
        if "<" in text and "]" in text:  # (a bar's status: most lines hold no "<")
            segments = [part for segment in segments for part in _after_bar(segment)]
        out: list[LogEvent] = []
        drawn = ""  # the last segment drawn before this one (a bar a row may interrupt)
        # the bar cleared so far on the line: tqdm's clear is blanks as wide as the bar it
        # erases, between carriage returns (and the last one's width)
        clears = cleared = 0
        for segment in segments:  # (most lines: one segment, no list built for it)
            if not segment.strip():
                if segment:
                    clears, cleared = clears + 1, len(segment)
                continue
            # (most lines: their first four characters do not recur, told inline)
            pieces = None if segment.find(segment[:4], 4) < 0 else _glued_prints(segment)
            if pieces is None:
                events = self._segment(segment, line)
                if (drawn and clears == 1 and events and events[0].family == hf.FAMILY
                        and cleared >= len(drawn.strip())):
                    _bar_step(events, drawn)
                    if events[0].step is None:
                        self._redrawn_step(events, segments)
                out += events
                drawn = segment
                continue
            for index, piece in enumerate(pieces):  # each print its own, with its own rank
                if index and piece == pieces[index - 1]:
                    continue  # the same row printed by two ranks: one row (its step, if it
                    # prints none, counted once)
                events = self._segment(piece, line)
                piece_rank = prefixed_rank(piece)[0]
                if piece_rank is not None:
                    events = [_with_rank(event, piece_rank) for event in events]
                out += events
            drawn = segment
        if numbered and rank is not None and out:
            rank = self._counted_prefix(rank, out, line)
        if rank is not None:
            for event in out:
                _with_rank(event, rank)  # (in place)
            if self.generic is not None and self.generic.held is not None:
                for event in self.generic.held.events:  # (held: see parse)
                    _with_rank(event, rank)
        if not out and self.generic is not None and dangling_key(segments[-1]):
            self._wrapped = (line, segments[-1])
        return out

    def _counted_prefix(self, number: int, events: list[LogEvent], line: int) -> int | None:
        """The rank of a line that starts with srun's ``N: `` (``N``), or None where ``N``
        has proven to be the step (the step is then set on the metric events without one) or
        a line number (grep -n's: see _LINE_NUMBERS). A step never goes back: a number that
        does is a rank, for good."""
        if self._prefix_run < 0 or not any(e.kind == METRICS and e.step is None
                                           for e in events):
            return None if self._line_number(number, line) else number
        if number <= self._prefix_last:
            self._prefix_run = -1  # gone back: ranks, for good
            return number
        self._prefix_run += 1
        self._prefix_last = number
        if self._prefix_run < _COUNTED_PREFIX:
            return number
        for event in events:
            if event.kind == METRICS and event.step is None:
                object.__setattr__(event, "step", number)  # built just now: see _with_rank
        return None

    def _line_number(self, number: int, line: int) -> bool:
        """Whether srun's ``N: `` on ``line`` has proven to be grep -n's line number."""
        if self._numbered_run < 0:
            return False
        if number < line or number <= self._numbered_last:
            self._numbered_run = -1  # a rank below its line, or gone back: ranks, for good
            return False
        self._numbered_last = number
        self._numbered_run += 1
        return self._numbered_run >= _LINE_NUMBERS

    def _megatron_line(self, text: str) -> list[LogEvent]:
        """Megatron-LM's events on one segment, its scale judged across the log's lines."""
        return megatron.parse(text, self._megatron)

    def finish(self) -> list[LogEvent]:
        """The events of what the input left pending at its end."""
        held = self._lightning.finish()
        return held + list(self.generic.finish()) if self.generic is not None else held

    def _value_rows(self, text: str, line: int) -> list[LogEvent]:
        """A line that holds no keyword but follows a header row: read only as value rows
        under it (each carriage-return segment: a progress bar rewrites its row)."""
        if self.generic is None:
            return []
        text = strip_paste(text)
        if not text.isascii() and has_cjk(text):
            text = in_english(text)
        rank = line_rank(text)
        if rank is not None:
            text = text[rank_prefix_end(text):]  # a row's cells, as its header's stand
        else:
            rank = self.rank
        out: list[LogEvent] = []
        for segment in text.split("\r"):
            if segment.strip():
                out.extend(self.generic.read_value_row(segment, line))
        return [_with_rank(e, rank) for e in out] if rank is not None else out

    def _message(self, segment: str) -> list[LogEvent]:
        """The message table's events; a message that numbers its step within an epoch
        (MindSpore's ``epoch: 2 step: 50. Invalid loss, ...``) is at the step the generic
        reader numbers that count at (its
        :class:`~denpex_callbacks.logs.step_layouts.EpochBatches`)."""
        events = known_messages.parse(segment)
        if events and self.generic is not None and events[0].step is not None and (
                epoch := events[0].evidence.get("epoch")) is not None:
            object.__setattr__(events[0], "step",  # built just now: see _with_rank
                               self.generic.epoch_batches.step_of(
                                   epoch, events[0].step, keep=False))
        return events

    def _segment(self, segment: str, line: int) -> list[LogEvent]:
        for parse, torch_family in self._parsers:
            events: list[LogEvent] = parse(segment)
            if events:
                if parse is nonfinite_sentences.parse and self.generic is not None and (
                        self.generic.keyed_as_rows(segment)):
                    break  # the loop's own row in words (see MetricReader.keyed_as_rows)
                if torch_family and self._scaled_backward:
                    events = [_under_amp(e) for e in events]
                return events
        if "backward(" in segment and _SCALED_BACKWARD.search(segment):
            self._scaled_backward = True
            return []
        if self.generic is not None:
            return list(self.generic.read(segment, line))
        return []


def _after_bar(segment: str) -> list[str]:
    """``segment`` cut after a tqdm bar's status where a print is glued to it (see
    ``_BAR_STATUS``), else ``segment`` alone.

    Example:
        >>> _after_bar("  4%|4         | 4/100 [16:05<6:35:12, 241.05s/it]5/100 -- Loss: nan")
        ['  4%|4         | 4/100 [16:05<6:35:12, 241.05s/it]', '5/100 -- Loss: nan']
        >>> _after_bar(" 40%|####      | 4/10 [00:05<00:07,  1.2s/it, loss=0.3]")
        [' 40%|####      | 4/10 [00:05<00:07,  1.2s/it, loss=0.3]']
    """
    found = _BAR_STATUS.search(segment)
    if found is None:
        return [segment]
    return [segment[:found.end()], segment[found.end():]]


def _glued_prints(segment: str) -> list[str] | None:
    """The prints of one segment that holds several glued together, or None (most lines).

    Processes that share one stdout (ranks launched without a prefix, a ``tee`` of several)
    write into each other's lines: a print that did not end its line before another began
    leaves ``...lr 0.001epoch 1 step 20 loss nan``, or with torchrun's prefixes ``...lr
    0.001[default1]:epoch 1 ...``. A line's opening (up to its first digit, four characters
    or more: ``epoch ``, ``iter ``, ``{'loss': ``, ``[default``) found again right after a
    character that is no blank starts another print there (a line that names a key twice
    puts a blank or a separator before the second); an opening of words only after a digit
    or what ends a value (``%)]}'"``): after a letter, ``_`` or ``/`` it is the end of a
    longer key (``train_loss: 0.5, val_train_loss: 0.6``).

    Example:
        >>> _glued_prints("iter 10: loss 2.31, mfu 12.30%iter 10: loss nan, mfu 12.30%")
        ['iter 10: loss 2.31, mfu 12.30%', 'iter 10: loss nan, mfu 12.30%']
        >>> _glued_prints("epoch 1 step 2 loss 0.5 epoch_loss 0.6") is None
        True
        >>> _glued_prints("train_loss: 0.5, val_train_loss: 0.6") is None
        True
        >>> _glued_prints("step 20 lo[rank1] step 20 loss nan")
        ['step 20 lo', '[rank1] step 20 loss nan']
    """
    head = _PRINT_HEAD.match(segment)
    if head is None:
        return None
    opening = head.group()
    at = segment.find(opening, head.end())
    if at < 0:
        return None
    if opening[0] != "[" and segment.find("[", head.end()) >= 0:
        # the second print opens with its rank's prefix where the first has none (an
        # unprefixed rank 0 or an unfinished print): the opening recurs after that prefix
        ranked = _GLUED_RANK.split(segment)
        if len(ranked) > 1:
            return ranked
    pieces: list[str] = []
    start = 0
    worded = opening[0].isalpha()
    while at >= 0:
        before = segment[at - 1]
        if not before.isspace() and (not worded or before.isdigit() or before in _PRINT_ENDS):
            pieces.append(segment[start:at])
            start = at
        at = segment.find(opening, at + len(opening))
    if not pieces:
        return None
    pieces.append(segment[start:])
    return pieces


def parse_line(text: str) -> list[LogEvent]:
    """Every event on one physical line, read on its own (no state from other lines).

    Example:
        >>> [e.kind for e in parse_line("a\\r[deepspeed] OVERFLOW! Rank 1 Skipping step. "
        ...                              "Attempted loss scale: 8, reducing to 4")]
        ['overflow']
    """
    return LineParser().parse(text)


def _under_amp(event: LogEvent) -> LogEvent:
    if event.kind != FLAG or event.code != "AMP006":
        return event
    return replace(event, summary=event.summary + "; the traceback runs through "
                   "scaler.scale(loss).backward(): the non-finite value came from an fp16 "
                   "backward under AMP")


def _block_cut(segments: Sequence[str]) -> Sequence[str]:
    """A dict row that a block of buffered stdout cut in two, made whole again: its head
    (``{'loss': 1.15,``) opens the line, the bar (stderr, unbuffered) draws on after it, and
    the next block, written after the bar's carriage returns, ends the line with the row's
    tail (`` 'learning_rate': 2e-05, 'epoch': 1.47}``); a long line's reader hands the head
    and the tail alone (``reader._long_pieces``). Other lines are left as they are.

    Example:
        >>> _block_cut(["{'loss':", " 5%| 5/100 [00:01<00:20]", " 1.2, 'epoch': 0.7}"])
        ["{'loss': 1.2, 'epoch': 0.7}", ' 5%| 5/100 [00:01<00:20]']
    """
    head, tail = segments[0], segments[-1]
    if (head[1:2] in ("'", '"') and "}" not in head and tail.rstrip().endswith("}")
            and "{" not in tail):
        return [head + tail, *segments[1:-1]]
    return segments


def _bar_step(events: list[LogEvent], drawn: str) -> None:
    """Number a Trainer row that prints no step by the tqdm bar drawn in the segment before
    it on its line (``drawn``), the bar ``tqdm.write`` cleared to print it
    (:func:`~denpex_callbacks.logs.hf.bar_count`); a row that prints its step keeps it.

    Only where the bar was cleared once on the line (blanks at least as wide as the bar: a
    bar cut short is no clear), for this row: a row of a run whose stdout reached the file in
    blocks (redirected without ``-u``) follows the clears of every row the block holds,
    behind whatever bar was drawn when the block was written."""
    if events[0].step is not None:
        return
    count = hf.bar_count(drawn)
    if count is not None:
        _numbered(events, count)


def _numbered(events: list[LogEvent], step: int) -> None:
    """Give a Trainer row's events (built just now, held by nothing else: see _with_rank)
    the step a bar told."""
    for event in events:
        object.__setattr__(event, "step", step)


def _with_rank(event: LogEvent, rank: int) -> LogEvent:
    if event.rank is None:
        # The parser built this event just now and nothing else holds it, so it is set in
        # place: dataclasses.replace costs as much as parsing the line (big logs: 10%).
        object.__setattr__(event, "rank", rank)
    return event
