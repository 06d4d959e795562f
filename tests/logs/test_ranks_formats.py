"""Launchers' rank prefixes (rank_streams.py, doctor.py): one rank's prefix on every line, or
several ranks' lines mixed line by line, each behind its own.

The prefixes, from each launcher's source: torchrun's ``--tee``/``--redirects``
``[{role}{local_rank}]:`` (pytorch/pytorch torch/distributed/elastic/multiprocessing/
tail_log.py), torch's ``[rank{N}]: `` (torch/distributed/elastic/multiprocessing/errors and
torch/_logging/_internal.py), srun ``--label``'s ``"%*d: "`` (SchedMD/slurm
src/common/write_labelled_message.c ``_build_label``: the task id, as wide as the widest),
mpirun ``--tag-output``'s ``"[%s,%s]<%s>:"`` (open-mpi/ompi
orte/mca/iof/base/iof_base_output.c).

Found by re-reading every excerpt the log tests hand the doctor (2,682 distinct ones) with
one prefix on every line: changed answers against the unprefixed ones on 20e3164, then now:
``[default1]:`` 51, 22; ``[rank3]: `` 49, 19; ``1: `` 49, 19; mpirun's 52, 23 (``[default0]:``
21, 19). The rest are excerpts already in a paste's shape (indented, quoted, a compose
prefix, a CRI record: a rank's prefix cannot stand before those) and a few that move with
rank 0's prefix too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, loop_lines
from test_classic_formats import _fastai, _torchbearer
from test_false_alarms4_formats import _LOADED, _megatron_deepspeed_run
from test_small_formats import _tinygrad_resnet
from test_step_banners import _blocks
from test_trainers_formats import _bloom
from test_untried3_formats import _hivemind
from test_vision_formats import _parlai

Lines = list[str]

PREFIXES: dict[str, Callable[[int], str]] = {
    "torchrun --tee": lambda rank: f"[default{rank}]:",
    "torch": lambda rank: f"[rank{rank}]: ",
    "srun --label": lambda rank: f"{rank}: ",
    "srun --label, 10 tasks or more": lambda rank: f"{rank:2d}: ",
    "mpirun --tag-output": lambda rank: f"[1,{rank}]<stdout>:",
}


def _one_rank(prefix: str, lines: Lines, rank: int = 3) -> Lines:
    """Every line behind rank ``rank``'s ``prefix``."""
    return [PREFIXES[prefix](rank) + line for line in lines]


def _tee(prefix: str, per_rank: list[Lines]) -> Lines:
    """Each rank's lines behind its own prefix, mixed line by line (the ranks print in step,
    as a tee of a job whose ranks all print shows them)."""
    return [PREFIXES[prefix](rank) + lines[index]
            for index in range(len(per_rank[0])) for rank, lines in enumerate(per_rank)]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_one_rank_reads_as_a_log_that_names_none(tmp_path: Path, prefix: str) -> None:
    """Rank 3's prefix on every line: the answer of the same lines without it, on rank 3.
    Before, the lines read as rank 3's and rules reading rank 0 apart moved: ParlAI's
    collapse AMP003 at 3500, AMP008 at 3335, AMP004 at 3516 (the unprefixed log: AMP003 at
    30, AMP004 at 18); hivemind's NaN at 31 (30); a Megatron-DeepSpeed resume at iteration
    20000 without its optimizer's state AMP008 at 20017 (quiet)."""
    parlai = _parlai(6000, lambda it, scale: scale > 2 ** 15 or it >= 4000)
    result = diagnose_lines(tmp_path, _one_rank(prefix, parlai))
    assert [(d.code, d.step, d.rank) for d in result.faults] == [
        ("AMP003", 30, 3), ("AMP004", 18, 3)]
    hivemind = _hivemind(range(30, 61), nan_loss=True)
    assert faults(tmp_path, _one_rank(prefix, hivemind)) == [("AMP006", 30), ("AMP003", 30)]
    resumed = (_megatron_deepspeed_run(0, 20000, 100)
               + [line.replace("2000", "20000") for line in _LOADED]
               + _megatron_deepspeed_run(20000, 40000, 100))
    assert faults(tmp_path, _one_rank(prefix, resumed)) == []


@pytest.mark.parametrize("prefix", ["torchrun --tee", "mpirun --tag-output"])
def test_a_prefix_glued_to_lines_with_and_without_a_blank(tmp_path: Path, prefix: str) -> None:
    """A prefix with no blank of its own before lines of which the first open with a blank
    and later ones do not: the head showed ``[default3]: `` on every line, and the lines
    without the blank broke that margin. Before: Megatron-DeepSpeed's collapse (`` iteration``
    rows, then DeepSpeed's ``[2022-...] [INFO]`` records) AMP006 at 110 for 101; tinygrad's
    ResNet (``    0  512.34 ms run, ...`` rows, then ``eval loss:`` lines) at 151 and 200 for
    150 and 199."""
    result = diagnose_lines(tmp_path, _one_rank(prefix, _bloom(10, 10, overflow_lines=True)))
    assert sorted((d.code, d.step, d.rank) for d in result.faults) == [
        ("AMP003", 101, 3), ("AMP006", 101, 3)]
    assert faults(tmp_path, _one_rank(prefix, _tinygrad_resnet(150))) == [
        ("AMP006", 150), ("AMP013", 199)]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_whole_line_message_behind_a_prefix(tmp_path: Path, prefix: str) -> None:
    """torchbearer's ``print('Invalid ' + self._monitor + ', terminating')`` (torchbearer
    callbacks/terminate_on_nan.py), a whole line, after bars redrawn by carriage returns
    (lines longer than the head: no margin found) behind rank 3's prefix: AMP013 at 300 on
    rank 3. Before: silence (the message is read only as a whole line, or after a bar)."""
    lines = _one_rank(prefix, [*_torchbearer(epochs=3), "Invalid val_loss, terminating"])
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP013", 300, 3)]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_two_ranks_each_behind_its_prefix(tmp_path: Path, prefix: str) -> None:
    """Two ranks printing the same step banner over its rows, NaN from 1200: step 1200.
    Before: AMP006 at 12 (no prefix on every line, so none taken off; a banner's rows read
    behind the other rank's lines, the rows counted)."""
    banners = _blocks("==== Step {s} ====", 1200)
    assert faults(tmp_path, _tee(prefix, [banners, banners])) == [("AMP006", 1200)]


@pytest.mark.parametrize("ranks", [4, 8])
@pytest.mark.parametrize("prefix", PREFIXES)
def test_the_rank_that_went_nan_first(tmp_path: Path, prefix: str, ranks: int) -> None:
    """``ranks`` ranks, rank ``ranks - 2`` NaN from step 900, the others from 1200: the
    diagnosis is that rank's, at its step. Before: AMP006 at 9 (the rows counted)."""
    first = ranks - 2
    per_rank = [_blocks("==== Step {s} ====", 900 if rank == first else 1200)
                for rank in range(ranks)]
    result = diagnose_lines(tmp_path, _tee(prefix, per_rank))
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 900, first)]
    assert result.initiating == (first, 900)
    # the file's own line, prefix on, and no paste reported (a tee's log is no paste)
    (fault,) = result.faults
    line = _tee(prefix, per_rank)[fault.lines[0] - 1]
    assert line.startswith(PREFIXES[prefix](first)) and "nan" in line
    assert not result.problems


@pytest.mark.parametrize("prefix", PREFIXES)
def test_controls(tmp_path: Path, prefix: str) -> None:
    """Healthy ranks (non-default settings: 2, 4 and 8 ranks, a banner every 100 steps from
    100, fastai's table of 7 healthy epochs, a loop of 60 steps) stay quiet behind their
    prefixes, mixed or one rank alone (pass on the parent too)."""
    for lines in (_blocks("==== Step {s} ===="), _fastai(epochs=7), loop_lines(steps=60)):
        assert faults(tmp_path, _one_rank(prefix, lines, rank=1)) == []
        for ranks in (2, 4, 8):
            assert faults(tmp_path, _tee(prefix, [lines] * ranks)) == []


def _keras_epochs(scales: tuple[str, ...]) -> Lines:
    """Keras 3's Progbar at an epoch's end (keras/keras src/utils/progbar.py ``update``:
    ``f"{current}/{target}"``, the bar, the time per step, then ``" - {k}: {v}"`` for each
    value), ``LossScaleOptimizer``'s ``dynamic_scale`` among them: one line an epoch."""
    return [f"100/100 {'━' * 20} 1s 3ms/step - loss: 0.5 - dynamic_scale: {scale}"
            for scale in scales]


def test_three_keras_epochs_behind_mpirun(tmp_path: Path) -> None:
    """The scale falling below 1 on the second epoch's line (step 200), behind mpirun's tag
    (torchrun's ``[default3]:`` reads right: AMP004 at 200). Main said 2: three lines, fewer
    than a margin needs, keep the tag, and ``step_layouts.bare_fraction`` took a count after
    ``]:`` but not after ``>:``; now after any launcher's rank prefix that opens the line."""
    lines = _one_rank("mpirun --tag-output", _keras_epochs(("32768.0", "0.5", "0.25")))
    assert faults(tmp_path, lines) == [("AMP004", 200)]

