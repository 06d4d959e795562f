"""How often Hugging Face Trainer printed a row, where the log shows the run's arguments.

The Trainer's rows (``{'loss': 0.69, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch':
0.1}``) print no step: read alone, the k-th row is step k. A run logs one every
``logging_steps`` optimizer steps (transformers ``trainer_callback.py`` DefaultFlowCallback
``on_step_end``: ``state.global_step % state.logging_steps == 0``; a first row at step 1 too
with ``logging_first_step``), so the k-th row is step ``k * logging_steps`` where the log
shows the setting: the example scripts' ``Training/evaluation parameters
TrainingArguments(...)`` (``training_args.py`` ``__str__``: one ``key=value,`` a line, keys
sorted), a command line echoed (``--logging_steps 50``), a YAML config echoed (LLaMA-Factory,
axolotl: ``logging_steps: 10``), a JSON dump (``"logging_steps": 10``).

A run resumed from a checkpoint says from which step (``Continuing training from global step
500``): its rows go on from there. A run begun again from the start in the same log (the
script run again after a crash, no closing ``train_runtime`` row between) prints its rows'
``epoch`` from the first one's again: its rows number from its start (:func:`row_epoch`).

Where the arguments are not in the log, a fast tqdm bar may show the interval: ``tqdm.write``
redraws the bar it cleared right after each row, at the row's step, at the start of the next
line (:func:`redrawn_interval`).

Not read: a ``logging_steps`` below 1 (a ratio of the total steps, since transformers 4.31),
a log that names two values (two runs), or a ``logging_strategy`` other than ``steps`` (one row
an epoch, or none).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

_SETTING = re.compile(rb"""logging[_-]steps['"]?\s*[=:\s]\s*['"]?(\d+(?:\.\d*)?)(?![\d.])""")
_STRATEGY = re.compile(rb"""logging[_-]strategy['"]?\s*[=:\s]\s*['"]?(?:IntervalStrategy\.)?"""
                       rb"""([A-Za-z]+)""")
# A run resumed from a checkpoint (trainer.py ``_inner_training_loop``: ``logger.info(f"
# Continuing training from global step {self.state.global_step}")``), before its first row.
_RESUMED = re.compile(rb"Continuing training from global step (\d+)")
_FIRST_ROW = re.compile(rb"""\{['"]loss['"]:""")
_FIRST = re.compile(rb"""logging[_-]first[_-]step['"]?\s*[=:\s]\s*['"]?(True|true)\b""")
_EPOCH = re.compile(r"""['"]epoch['"]:\s*['"]?(\d+(?:\.\d+)?)(?![\d.])""")


def row_epoch(text: str) -> float | None:
    """The epoch an HF Trainer row prints (None: none).

    Example:
        >>> row_epoch("{'loss': 0.69, 'grad_norm': 1.2, 'learning_rate': 5e-05, 'epoch': 0.35}")
        0.35
        >>> row_epoch("{'loss': 0.69}") is None
        True
    """
    found = _EPOCH.search(text)
    return float(found.group(1)) if found is not None else None


class LoggingInterval(NamedTuple):
    """Every how many optimizer steps a row was printed, whether step 1 had one too, and the
    step a resumed run continued from (0: none)."""

    every: int
    first_step: bool = False
    resumed_at: int = 0
    by_bars: bool = False  # told by the bars redrawn after the rows, not by the arguments

    def step(self, row: int) -> int:
        """The step of the ``row``-th row (from 0).

        Example:
            >>> [LoggingInterval(50).step(k) for k in range(3)]
            [50, 100, 150]
            >>> [LoggingInterval(50, first_step=True).step(k) for k in range(3)]
            [1, 50, 100]
            >>> [LoggingInterval(50, resumed_at=500).step(k) for k in range(2)]
            [550, 600]
        """
        if self.resumed_at:  # (the next multiple of the interval after it)
            return (self.resumed_at // self.every + row + 1) * self.every
        if self.first_step:
            return 1 if row == 0 else row * self.every
        return (row + 1) * self.every


def logging_interval(data: bytes) -> LoggingInterval | None:
    """The Trainer's logging interval that ``data`` (a log) shows, or None.

    Example:
        >>> logging_interval(b"logging_nan_inf_filter=True,\\nlogging_steps=50,\\n"
        ...                  b"logging_strategy=IntervalStrategy.STEPS,\\n")
        LoggingInterval(every=50, first_step=False, resumed_at=0, by_bars=False)
        >>> logging_interval(b"python run_clm.py --logging_steps 1 --fp16") is None
        True
        >>> logging_interval(b"logging_steps: 10\\nlogging_strategy: epoch\\n") is None
        True
    """
    values = {value for value in _SETTING.findall(data)}
    if len(values) != 1:
        return None
    every = float(values.pop())  # (transformers casts a float above 1 to int: "10.0" is 10)
    if every <= 1 or not every.is_integer():
        return None  # a ratio of the run's total steps, or a row a step (as read already)
    if {found.lower() for found in _STRATEGY.findall(data)} - {b"steps"}:
        return None
    return LoggingInterval(int(every), _FIRST.search(data) is not None, _resumed_at(data))


# The bars redrawn after the first rows that redrawn_interval reads: a first row's (0: none
# drawn yet), logging_first_step's (1), and two more that give the interval and confirm it.
REDRAWN_READ = 4


def redrawn_interval(counts: Sequence[int]) -> LoggingInterval | None:
    """The logging interval the bars redrawn after a Trainer's first rows show, or None.

    ``counts``: the count of the bar that opens each of the first training rows' lines, in
    order: the bar ``tqdm.write`` redrew after the row before (tqdm ``std.py``
    ``external_write_mode``), at that row's step (transformers ``ProgressCallback`` updates
    the bar in ``on_step_end``, before ``on_log``); 0 before the first row of a run. The rows
    fall at the multiples of ``logging_steps`` (and at step 1 with ``logging_first_step``),
    so two redraws past the first give the interval, and every redraw must fall on one of
    its multiples (a bar redrawn at any other count is some other loop's: None). An excerpt
    that begins after its run's first rows goes on from the first redraw, as a resumed run.

    Example:
        >>> redrawn_interval([0, 1, 7, 14])
        LoggingInterval(every=7, first_step=True, resumed_at=0, by_bars=True)
        >>> redrawn_interval([700, 707, 714]).step(0)
        707
        >>> redrawn_interval([0, 5, 12]) is None
        True
    """
    first_step = list(counts[:2]) == [0, 1]
    start = 0 if first_step else counts[0] if counts else 0
    rest = counts[2:] if first_step else counts[1:]
    if len(rest) < 2:
        return None
    every = rest[0] if first_step else rest[1] - rest[0]
    # (a first redraw at 1: the excerpt begins after logging_first_step's row)
    if every < 2 or (start % every and start != 1):
        return None
    base = start // every
    if any(count != (base + index + 1) * every for index, count in enumerate(rest)):
        return None
    return LoggingInterval(every, first_step, start, by_bars=True)


def _resumed_at(data: bytes) -> int:
    """The step the log's one run was resumed from, where it says so before its first row
    (two resumes, or one after rows, belong to runs that no single offset numbers: 0).

    Example:
        >>> _resumed_at(b"  Continuing training from global step 500\\n{'loss': 2.1}")
        500
        >>> _resumed_at(b"{'loss': 2.1}\\n  Continuing training from global step 500")
        0
    """
    found = list(_RESUMED.finditer(data))
    if len(found) != 1:
        return 0
    row = _FIRST_ROW.search(data)
    return int(found[0].group(1)) if row is None or found[0].start() < row.start() else 0
