"""Lightning's progress bars, its precision notices and its non-finite metric check.

A TQDM bar segment: ``Epoch 1:  40%|####      | 4/10 [00:00<00:00, 9.8it/s, v_num=0,
train_loss=nan]`` (only metrics logged with ``prog_bar=True``; the step is
``epoch * batches + n``; a non-finite ``val_*`` metric beside it is an evaluation value),
or a RichProgressBar's last line per epoch: ``Epoch 1/1  ━━━ 10/10
0:00:00 • 0:00:00 48.60it/s train_loss: nan``. ``Monitored metric {m} = {v} is not finite.
Previous best value was {b}. Signaling Trainer to stop.`` (EarlyStopping ``check_finite``).
``Using 16bit Automatic Mixed Precision (AMP)`` / ``Using bfloat16 Automatic Mixed Precision
(AMP)``.

Lightning 1.x's main bar (1.0-1.9, TQDM and Rich) counts the validation batches of its epoch
too: its total is ``total_train_batches + total_val_batches`` (times the validation runs of
an epoch) and its count rises through validation (``train_batch_idx + _val_processed``);
2.x's counts training only. :class:`Bars` learns the validation share from the validation
bar's own lines (``Validating: ...| 50/100 [``, ``Validation DataLoader 0: ...``) and numbers
the training batches only.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from denpex_callbacks.core.diagnosis import STEP_BASIS
from denpex_callbacks.logs import lexicon
from denpex_callbacks.logs.bar_epochs import repeats_epoch
from denpex_callbacks.logs.defined_areas import DEFINED_AREA, DefinedAreas
from denpex_callbacks.logs.events import EVAL, FLAG, METRICS, SETUP, LogEvent, to_float
from denpex_callbacks.logs.split_bars import held_out_bar, training_bar_epoch
from denpex_callbacks.logs.step_basis import PRINTED, across

FAMILY = "lightning"
# check_finite's line names the value (nan, inf): the generic keywords find it.
# Every precision notice ends ``(AMP)``: the message table's ``AMP`` finds it. ``Validati``
# finds the validation bar (``Validating``, ``Validation DataLoader 0``) that says how many of
# a 1.x bar's batches are validation's (see Bars).
KEYWORDS = (b"loss", b"nan", b"inf", b"Validati")

_BAR = re.compile(r"Epoch (\d+):\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)\s*\[([^\]]*)\]")
# RichProgressBar (the default when rich is installed) in a file: one final line per epoch,
# ``Epoch 1/1  ━━━━ 10/10 0:00:00 • 0:00:00 48.60it/s train_loss: nan``.
# A bar's epoch zero-padded (``Epoch 01:``), which Lightning never prints
_PADDED_EPOCH = re.compile(r"^Epoch 0(\d+):\s*\d+%\|")
_RICH = re.compile(r"Epoch (\d+)/-?\d+\s+\S*\s*(\d+)/(\d+)\s(.*)")  # max_epochs=-1 prints /-2
_VALUE = r"([-+]?[\d.]+(?:[eE][-+]?\d+)?|nan|inf)"
_RICH_LOSS = re.compile(r"(?:^|\s)(?:train_)?loss(?:_step)?: " + _VALUE)
_LOSS = re.compile(r"(?:^|[\s,])(?:train_)?loss(?:_step)?=" + _VALUE)
# ``val_loss=nan`` (TQDM) / ``val_loss: nan`` (Rich) beside the training loss: evaluation's.
_EVAL_VALUE = re.compile(r"(?:^|[\s,])((?:val|valid|validation|test)[\w/.-]*)[=:] ?"
                         r"([-+]?(?:nan|inf)(?:\.0)?)(?=[\s,\]]|$)")
# ...any value of it, finite or not (an area under the ROC curve's: see defined_areas)
_EVAL_NUMBER = re.compile(r"(?:^|[\s,])((?:val|valid|validation|test)[\w/.-]*)[=:] ?"
                          + _VALUE + r"(?=[\s,\]]|$)")
# ...and a finite evaluation loss there: a correlation's NaN beside it is undefined (see
# lexicon.undefined_correlation)
_FINITE_EVAL_LOSS = re.compile(r"(?:^|[\s,])(?:val|valid|validation|test)[\w/.-]*loss"
                               r"[\w/.-]*[=:] ?[-+]?\.?\d")
# A step logged with ``prog_bar=True`` (CompVis latent-diffusion and the textual-inversion /
# DreamBooth forks of it: ``self.log("global_step", self.global_step, prog_bar=True)``, shown
# ``global_step=449.000``) or a loop's own tqdm postfix beside ``desc=f"Epoch {epoch}"``
# (Open-Sora: ``loss=..., step=99, global_step=499``): the step the run counts, which wins
# over the bar's count of its epoch's batches.
_GLOBAL_STEP = re.compile(r"(?:^|[\s,])global_step=(\d+)(?:\.0*)?(?=[\s,\]]|$)")
# ...or as ``step`` (``steps``): in the padded float form of a value logged with
# ``prog_bar=True`` (Matcha-TTS ``self.log("step", float(self.global_step), prog_bar=True)``:
# ``step=3450.0``), or a whole number above the epoch's batches, which no count within the
# epoch reaches (MoonInTheRiver/DiffSinger's own trainer: ``tqdm_dict = {'step':
# '{}'.format(self.global_step)}``). A whole number below them may count the epoch's batches (a
# loop's own postfix); :class:`Bars` takes it while it never goes back as a new epoch begins
# (openvpi/DiffSinger's ``DsTQDMProgressBar``: ``steps = str(trainer.global_step)``, fewer than
# the batches under ``accumulate_grad_batches``). tqdm's ``format_num`` writes a float
# ``'{:.3g}'`` where that is shorter (``3e+3``, ``1.2e+4``, every one from 100000 on): a logged
# value too, the step to 3 digits, nearer than the bar's count under accumulation.
_LOGGED_STEP = re.compile(r"(?:^|[\s,])steps?=(?:(\d+)(\.0+)?|(\d(?:\.\d\d?)?e\+\d\d?))"
                          r"(?=[\s,\]]|$)")
# Any other metric of the postfix that is not finite: a loss term (taming-transformers'
# ``train/aeloss_step=nan``) makes the training loss not finite, whatever ``loss=`` says
# (Lightning 1.x's running mean of 20 batches shows it late; 2.x shows no ``loss=``).
_NONFINITE_VALUE = re.compile(r"(?:^|[\s,])([A-Za-z][\w/.-]*)=([-+]?(?:nan|inf)(?:\.0)?)"
                              r"(?=[\s,\]]|$)")
# ...and the same on a Rich bar, which writes ``key: value `` (lightning-hydra-template's
# ``train/loss`` logged ``on_epoch=True``, ashleve/lightning-hydra-template
# ``src/models/mnist_module.py``: ``... val/acc_best: 0.952 train/loss: nan train/acc: 0.098``)
_RICH_NONFINITE_VALUE = re.compile(r"(?:^|\s)([A-Za-z][\w/.-]*): ([-+]?(?:nan|inf)(?:\.0)?)"
                                   r"(?=\s|$)")
# Every key of a postfix (TQDM's ``key=value``, Rich's ``key: value``): is a loss among them?
_KEYS = re.compile(r"(?:^|[\s,])([A-Za-z][\w/.-]*)=")
_RICH_KEYS = re.compile(r"(?:^|\s)([A-Za-z][\w/.-]*): ")
_NOT_FINITE = re.compile(r"Monitored metric (\S+) = (\S+) is not finite")
# 1.3-1.9 ``Using 16bit native Automatic Mixed Precision (AMP)`` (``native`` / ``apex``; 1.9
# ``None`` when no ``amp_backend`` is given: ``f"Using 16bit {self._amp_type_flag} ..."``), 2.0-2.2
# ``Using 16bit ...``, 2.3 on ``Using 16-bit ...``; ``Using bfloat16 ...`` throughout.
# The validation bar of a fit (1.0-1.5 ``Validating: ``, 1.6 on ``Validation DataLoader 0: ``,
# the Rich bar's ``Validation ━━━ 50/100``); the sanity check's (``Validation sanity check:``,
# ``Sanity Checking DataLoader 0:``) is no part of an epoch. Behind a prefix that ends without a
# blank too (torchrun's ``[default0]:``, mpirun's ``<stdout>:``, logging's ``INFO:__main__:``).
_VAL_BAR = re.compile(r"(?<!\w)Validati(?:ng|on(?: DataLoader \d+)?):\s*\d+%\|[^|]*\|\s*"
                      r"(\d+)/(\d+)\s*\["
                      r"|(?<!\w)Validation\s+[━╸╺ ]*\s(\d+)/(\d+)\s")
# 1.0-1.3 show ``loss=`` (the running mean) as ``f"{nan:.3g}"`` (``nan.0`` once padded) until
# a loss is recorded, and record one only at the optimizer's step: a healthy run under
# ``accumulate_grad_batches=4`` shows ``loss=nan.0`` for its first 3 batches (training_loop.py
# ``update_running_loss`` after ``should_accumulate()``; ``get_progress_bar_dict``). Before any
# finite loss, within this many batches of its epoch (a resumed run starts one), that is no
# NaN; a NaN from the first batch is still told once the count passes it.
_NO_LOSS_YET = 64
_RUNNING_NAN = re.compile(r"(?:^|[\s,])loss=nan")
# ModelCheckpoint (1.2 on ``callbacks/model_checkpoint.py`` ``_update_best_and_save``: ``f"Epoch
# {epoch:d}, global step {step:d}: {self.monitor!r} reached {current:0.5f} (best ...)"``, the
# name unquoted before 1.6) saves a NaN as ``inf`` (``-inf`` in mode max): "do not save nan,
# replace with +/- inf". A non-finite value it reached is the monitored metric's, at that step.
_CHECKPOINT = re.compile(r"Epoch \d+, global step (\d+): '?([\w/.-]+)'? reached "
                         r"([-+]?(?:inf|nan))\b")
_AREA_DEFINED = {DEFINED_AREA: True}  # (an eval event's evidence: see defined_areas)
_AREA_LINES = 16  # the bar lines an area's finite values are noted from (see Bars.parse)
_PRECISION = re.compile(
    r"Using (16bit|16-bit|bfloat16)(?: native| apex| None)? Automatic Mixed Precision")


def parse(text: str) -> list[LogEvent]:
    """Events on one Lightning line segment, read on its own (the bar's step: ``epoch *
    total + n``).

    Example:
        >>> e = parse("Epoch 1:  40%|####      | 4/10 [00:00<00:00, 9.8it/s, v_num=0, "
        ...           "train_loss=nan]")[0]
        >>> e.step, e.loss
        (14, nan)
    """
    return _read(text, _plain_step, _proven_step)


def _plain_step(epoch: int, done: int, total: int) -> int:
    return epoch * total + done


def _proven_step(epoch: int, value: int, total: int) -> bool:
    """Whether a whole ``step=`` below its epoch's batches counts the run: not on a line
    read alone (see _LOGGED_STEP)."""
    return False


def _read(text: str, step_of: Callable[[int, int, int], int],
          counts_run: Callable[[int, int, int], bool],
          areas: frozenset[str] = frozenset()) -> list[LogEvent]:
    """Events on one segment, a bar's step numbered by ``step_of(epoch, n, total)``, or by
    the postfix's ``step=`` where it counts the run: ``counts_run(epoch, value, total)`` for
    a whole one below the epoch's batches. ``areas``: the areas under the ROC curve read
    finite on the bars before (a NaN of one counts: see :mod:`defined_areas`)."""
    if "Automatic Mixed Precision" in text and (found := _PRECISION.search(text)):
        fp16 = found.group(1) != "bfloat16"
        return [LogEvent(SETUP, FAMILY, setup={
            "active_precision": "fp16-mixed" if fp16 else "bf16-mixed",
            "scaler": "dynamic" if fp16 else None})]
    if "not finite" in text and (found := _NOT_FINITE.search(text)):
        metric, value = found.groups()
        return [LogEvent(FLAG, FAMILY, code="AMP006", loss=to_float(value),
                         summary=f"Lightning EarlyStopping: monitored metric {metric} = {value} "
                                 "is not finite")]
    if "Epoch " not in text:  # both bar patterns start with it
        return []
    if " reached " in text and (found := _CHECKPOINT.search(text)):
        return _checkpoint(*found.groups())
    found = _BAR.search(text)
    pattern, nonfinite, keys = _LOSS, _NONFINITE_VALUE, _KEYS
    if found is None:
        found, pattern, nonfinite, keys = (_RICH.search(text), _RICH_LOSS,
                                           _RICH_NONFINITE_VALUE, _RICH_KEYS)
        if found is None:
            return []
    epoch, done, total, postfix = found.groups()
    if pattern is _LOSS and held_out_bar(text, found.start()):
        # a loop's own bar over its held-out split (``Validation Epoch 3: ...``): no training
        # step, its loss the evaluation's (placed after the training's last step)
        held_out = pattern.search(postfix)
        number = to_float(held_out.group(1)) if held_out else None
        return [] if number is None or math.isfinite(number) else [
            LogEvent(EVAL, FAMILY, loss=number, metric="loss")]
    if done == "0":
        # No batch of the epoch done: the bar's reset as the next epoch begins, drawn before
        # its new label (lightning ``TQDMProgressBar.on_train_epoch_start``: ``reset`` then
        # ``set_description``), so ``Epoch 2: 0%| 0/20`` after ``Epoch 2: 20/20``, the epoch's
        # last postfix still on it: where that epoch ended, not a step back at its start.
        done = total
    loss = pattern.search(postfix)
    value = to_float(loss.group(1)) if loss else None
    step = step_of(int(epoch), int(done), int(total))
    # (the bar's count across the epochs before it, unless the postfix prints the run's step)
    basis = across(step, int(done))
    if "global_step=" in postfix and (counted := _GLOBAL_STEP.search(postfix)):
        step, basis = int(counted.group(1)), PRINTED
    elif "step" in postfix and (logged := _LOGGED_STEP.search(postfix)):
        whole, padded, short = logged.groups()
        if short is not None:
            # the logged step to 3 digits: the bar's own count where it rounds to the same
            # (no accumulation: the two are one number), the shown value where it does not
            if float(f"{step:.3g}") != float(short):
                step, basis = int(float(short)), PRINTED
        elif padded or int(whole) > int(total) or counts_run(int(epoch), int(whole),
                                                               int(total)):
            step, basis = int(whole), PRINTED
    if ("nan" in postfix or "inf" in postfix) and (value is None or math.isfinite(value)):
        terms = nonfinite.findall(postfix)  # (read once: _unnamed_term reads them again)
        for key, term in terms:
            if lexicon.role(key) in (lexicon.LOSS, lexicon.COMPONENT):
                value = to_float(term)
                break
        if value is None:
            value = _unnamed_term(postfix, terms, keys)
    out = [LogEvent(METRICS, FAMILY, step=step, loss=value,
                    evidence=None if basis == PRINTED else {STEP_BASIS: basis})
           ] if value is not None else []
    if "nan" in postfix or "inf" in postfix:
        pairs = [(key, number) for key, value in _EVAL_VALUE.findall(postfix)
                 if (number := to_float(value)) is not None]
        # (read only beside a NaN by definition, a correlation's or a ratio's: seldom)
        finite_loss = any(lexicon.undefined_score(key) for key, _ in pairs) and \
            _FINITE_EVAL_LOSS.search(postfix) is not None
        for key, number in pairs:
            if not math.isfinite(number) and lexicon.evaluation_metric(key) and (
                    key in areas or not lexicon.undefined_correlation(key, number, finite_loss)):
                out.append(LogEvent(EVAL, FAMILY, step=step, loss=number, metric=key,
                                    evidence=_AREA_DEFINED if key in areas else None))
    return out


def _unnamed_term(postfix: str, terms: list[tuple[str, str]],
                  keys: re.Pattern[str]) -> float | None:
    """The non-finite value of a loss term named after what it measures, on a bar whose
    postfix names no loss (DiffSinger's ``mel=nan``: see lexicon.unnamed_loss_term), or None.
    ``terms``: the postfix's (key, non-finite value) pairs. Where any key names a loss, that
    key tells: the others are not read as one."""
    if any(lexicon.role(key) in (lexicon.LOSS, lexicon.COMPONENT)
           for key in keys.findall(postfix)):
        return None
    for key, term in terms:
        number = to_float(term)
        if number is not None and lexicon.unnamed_loss_term(key, number):
            return number
    return None


def _checkpoint(step: str, metric: str, value: str) -> list[LogEvent]:
    """ModelCheckpoint's non-finite best: an evaluation metric's value at the global step."""
    number = to_float(value)
    if number is None or not lexicon.evaluation_metric(metric):
        return []
    return [LogEvent(EVAL, FAMILY, step=int(step), loss=number, metric=metric)]


class Bars:
    """Lightning's bars read across the lines of one log: a 1.x main bar's count less the
    validation batches it counted.

    A validation run that the main bar entered below its total and left at it (the epoch's
    last run), or left higher by exactly the run's batches (a run within the epoch,
    ``val_check_interval`` < 1), was counted on the main bar: 1.x. An epoch's training
    batches are then its total less its runs times the validation batches (told at the
    epoch's end, or when the next epoch begins). 2.x's bar stands at its total when the
    epoch's validation starts, and at the count it entered with after a run within the
    epoch: nothing changes there, nor before proof.

    Example:
        >>> bars = Bars()
        >>> for line in ("Epoch 0:  91%|#########| 1000/1100 [00:50<00:05, loss=0.5]",
        ...              "Validation DataLoader 0: 100%|##########| 100/100 [00:05<00:00]",
        ...              "Epoch 0: 100%|##########| 1100/1100 [00:55<00:00, loss=0.5]"):
        ...     _ = bars.parse(line)
        >>> bars.parse("Epoch 3:  41%|####      | 450/1100 [00:22<00:32, loss=nan]")[0].step
        3450
    """

    def __init__(self) -> None:
        self._epoch = -1  # the last main bar line's epoch, count and total
        self._count = 0
        self._total = 0
        self._shared = 0  # validation batches ended within the last main bar line's epoch
        self._run = 0  # ... within the last run (each dataloader's bar its own total)
        self._ended: tuple[int, int] | None = None  # the last validation bar line, if ended
        self._entered: int | None = None  # the main count a validation run began at
        self._val_done = 0  # the validation bar's count within the run's current dataloader
        self._left: int | None = None  # ... once that run ended, till the main bar shows again
        self._counts_val = False  # proven: the main bar counts validation batches (1.x)
        self._train: int | None = None  # an epoch's training batches, once told
        self._finite = False  # a finite loss seen: a ``loss=nan`` from now on is the loss's
        self._held: LogEvent | None = None  # the first ``loss=nan`` held (see _running_nan)
        self._sanity = False  # the fit's sanity check seen before any main bar line
        self._first = 0  # the number the bars give the fit's first epoch (see _first_epoch)
        self._padded = False  # the first bar's epoch was zero-padded and above 0 (see parse)
        self._zero = False  # a bar labelled ``Epoch 0`` was read (its epochs from 0)
        self._versioned = False  # a bar's postfix carried ``v_num``: Lightning's own bar
        # a whole ``step=`` below the epoch's batches (see _counts_run): the bar's epoch it was
        # last seen on and its value there; None once it went back as an epoch began
        self._step_seen: tuple[int, int] | None = (-1, -1)
        self._areas = DefinedAreas()  # areas under the ROC curve read finite (defined_areas)
        self._area_lines = 0  # bar lines read for them

    def parse(self, text: str) -> list[LogEvent]:
        """Events on one segment (see :func:`parse`); a validation bar's line gives none."""
        if self._epoch < 0 and "sanity check" in text:  # (the sanity bar: before epoch 0)
            self._sanity = True
        if "Validati" in text and (found := _VAL_BAR.search(text)):
            done, total = (int(g) for g in (found.group(1, 2) if found.group(1)
                                            else found.group(3, 4)))
            self._validating(done, total)
            return []
        if self._epoch < 0 and (padded := _PADDED_EPOCH.search(text)) is not None:
            # Lightning labels its bar ``Epoch 3`` (from 0, never padded); ``Epoch 03`` is a
            # loop's own ``tqdm(loader, desc=f"Epoch {epoch + 1:02d}")``: from 1, unless the
            # first one seen is ``Epoch 00``
            self._padded = int(padded.group(1)) > 0
        if self._epoch < 0 and (own := training_bar_epoch(text)) is not None:
            # a loop's own bar described as the training's (``Training Epoch 1:``, beside its
            # ``Validation Epoch 1:``): counted as its print says, from 1 unless ``Epoch 0``
            self._padded = own > 0
        if not self._versioned and "v_num=" in text:
            self._versioned = True
        if self._first == 0 and self._epoch > 0 and not self._zero and not self._versioned and (
                repeats_epoch(text, self._epoch)):
            # the last bar's label repeated as ``Epoch E/N``: a loop's own count (bar_epochs),
            # from 1 (Lightning's from 0 would have shown its ``Epoch 0`` bar first; a bar
            # whose postfix carries the logger's ``v_num`` is Lightning's, from 0, whatever a
            # LightningModule's own ``Epoch {current_epoch}/{max_epochs}`` print repeats)
            self._first, self._epoch = 1, self._epoch - 1
        areas = frozenset[str]()
        if ("uc=" in text or "uc:" in text) and (
                self._area_lines < _AREA_LINES or "nan" in text or "inf" in text):
            # an area under the ROC curve (defined_areas): its finite values noted on the
            # first bars only (cheap: a run's bars repeat their keys), a NaN's line always
            self._area_lines += 1
            areas = self._areas.defined("", [
                (key, number) for key, value in _EVAL_NUMBER.findall(text)
                if (number := to_float(value)) is not None])
        events = _read(text, self._step, self._counts_run, areas)
        if events and not self._finite and events[0].kind == METRICS and \
                events[0].loss is not None:
            if math.isfinite(events[0].loss):
                self._finite, self._held = True, None
            elif _RUNNING_NAN.search(text):
                return self._running_nan(events)
        return events

    def _running_nan(self, events: list[LogEvent]) -> list[LogEvent]:
        """A ``loss=nan`` before any finite loss: no loss recorded yet within the batches an
        accumulation takes (see _RUNNING_NAN), held as a metric line without one; past them,
        the NaN it was from the first held line on."""
        if self._count <= _NO_LOSS_YET:
            if self._held is None:
                self._held = events[0]
            return [LogEvent(METRICS, FAMILY, step=events[0].step), *events[1:]]
        held, self._held, self._finite = self._held, None, True
        return [held, *events] if held is not None else events

    def finish(self) -> list[LogEvent]:
        """A ``loss=nan`` still held where the log ends: a NaN (nothing said otherwise)."""
        held, self._held = self._held, None
        return [held] if held is not None else []

    def _counts_run(self, epoch: int, value: int, total: int) -> bool:
        """Whether a whole ``step=`` below the epoch's batches counts the run: so far it has
        not gone back as a new epoch began (a count within the epoch starts again there). In
        the first epoch seen the two are one number (or the run's optimizer steps, where
        accumulation makes them fewer than the batches); a count that went back is the
        epoch's for good, and the bar's count numbers the steps from there on."""
        if self._step_seen is None:
            return False
        last_epoch, last = self._step_seen
        if epoch != last_epoch and last_epoch >= 0 and value < last:
            self._step_seen = None
            return False
        self._step_seen = (epoch, value)
        return True

    def _validating(self, done: int, total: int) -> None:
        if self._entered is None and self._left is None and self._epoch >= 0:
            self._entered, self._run = self._count, 0  # a run begins: where the main bar stood
        if done < total or self._ended == (done, total):  # (a bar's end redrawn: once)
            self._ended = None
            self._val_done = done if done < total else 0
            return
        self._val_done = 0
        self._ended = (done, total)
        if self._entered is not None:
            self._left, self._entered = self._entered, None
        if self._left is not None:  # each dataloader's bar ends in turn
            self._shared += total
            self._run += total

    def _step(self, epoch: int, done: int, total: int) -> int:
        self._zero = self._zero or epoch == 0
        if self._epoch < 0:
            self._first_epoch(epoch)
        epoch -= self._first
        if epoch != self._epoch or self._left is not None:  # (most lines: neither)
            self._turn(epoch, done, total)
        elif self._entered is not None and not self._counts_val and self._val_done and \
                done == self._entered + self._run + self._val_done:
            # Redrawn within a validation run, risen by exactly the batches validated so far:
            # 1.x (``train_batch_idx + _val_processed``); 2.x's bar stands still meanwhile.
            self._counts_val = True
        self._count = done
        if not self._counts_val:
            return epoch * total + done
        train = self._train if self._train is not None else total - self._shared
        if self._entered is not None:  # within a run: training stands where the run began
            per = train if 0 < train < total else total
            return epoch * per + max(0, min(self._entered - self._shared, per))
        if train >= total or train <= 0:  # an epoch that ran no validation
            return epoch * total + done
        return epoch * train + max(0, min(done - self._shared, train))

    def _first_epoch(self, epoch: int) -> None:
        """0.7-0.8 number the bar's epochs from 1 (0.7 ``trainer/training_loop.py``, 0.8
        ``callbacks/progress.py``: ``f'Epoch {trainer.current_epoch + 1}'``), 0.9 on from 0:
        a fit whose sanity check (``Validation sanity check``, run before its first epoch)
        is followed by ``Epoch 1`` numbers from 1. (A later release's fit resumed at its
        second epoch reads the same; without the sanity check, numbers are read as 0.9's.)
        So does a loop's own bar whose first epoch is zero-padded above 0 (``_padded``)."""
        if (self._sanity and epoch == 1) or self._padded:
            self._first = 1

    def _turn(self, epoch: int, done: int, total: int) -> None:
        """A new epoch (the last one's training batches learnt, if proven 1.x), or the main
        bar's first line after a validation run: whether the run was counted on it."""
        if epoch != self._epoch:
            if self._counts_val and self._shared and self._train is None:
                self._learn(self._total)
            self._shared, self._entered = 0, None
        elif self._left is not None and self._left < total and self._run and \
                done in (total, self._left + self._run):
            self._counts_val = True
            if done == total:
                self._learn(total)
        self._left, self._ended = None, None
        self._epoch, self._total = epoch, total

    def _learn(self, total: int) -> None:
        """An epoch's training batches: its bar's total less its validation runs'."""
        if total > self._shared:
            self._train = total - self._shared
