"""Excerpts cut the way people cut them: a window of a log the doctor reads right whole.

A person pastes the first screen of a printout, the last 30 lines, or the lines around the
first NaN, the header (configuration dump, table header, first epoch) cut off. A script kept
outside the repository re-read windows of every excerpt the log tests hand to the doctor
(8-60 consecutive lines at several offsets, the head cut by 10% and 30%; for a fault, the
quoted line with 5-40 lines before it): a healthy excerpt's window must stay silent, a fault
excerpt's window must keep the fault wherever its lines still show it. The shapes that read
wrong are here, each built from the builder of the test file that holds the whole excerpt
(its docstring names the tool's source the lines come from):

- Lightning's CSVLogger ``metrics.csv`` printed by pandas (``_csvlogger_frame``): the first
  training rows only, before any validation row showed the evaluation cells empty;
- super-gradients' epoch summary tree (``_super_gradients``): a paste from its
  ``└── Validation`` branch on, the ``Train`` branch above it cut;
- HF Trainer rows carrying denpex's cumulative ``amp/skipped_steps`` (``_hf_lines``): a
  window from the middle of the run, its first count the skips of every step before it;
- DeepSpeed's fp16 sawtooth at a 16-step ``loss_scale_window`` (``_deepspeed`` of
  test_false_alarms8_formats), its configuration dump cut (not fixed: an xfail).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults
from test_detect2_formats import _super_gradients
from test_false_alarms8_formats import _deepspeed
from test_false_alarms_formats import _csvlogger_frame
from test_healthy_sawtooth import _hf_lines, _torch

from denpex_callbacks.logs.doctor import diagnose


def test_a_pandas_frames_first_rows_are_quiet(tmp_path: Path) -> None:
    """The frame's header and its first training rows (every ``val_loss`` and ``val_acc``
    cell ``NaN``: pandas' empty cells, no validation row yet to show them so). Before:
    AMP013 at step 49. An evaluation gone NaN leaves its accuracy a number."""
    frame = _csvlogger_frame()
    assert faults(tmp_path, frame[:8]) == []
    assert faults(tmp_path, frame[:16]) == []
    monitored = _csvlogger_frame(lr_monitor=True)  # LearningRateMonitor's rows between
    assert faults(tmp_path, monitored[:8]) == []
    assert faults(tmp_path, monitored[:15]) == []


def test_a_pandas_frames_first_rows_fault_twins(tmp_path: Path) -> None:
    """Training gone NaN within the window is still AMP006; a frame with no accuracy column
    cannot tell its empty ``val_loss`` cells from NaN ones (a Keras ``history`` frame's are
    NaN): AMP013 stays there, as on the parent. (The first fails on the parent: AMP013 at 49.)"""
    gone = _csvlogger_frame(train_nan_from=249)
    assert faults(tmp_path, gone[:10]) == [("AMP006", 249), ("AMP013", 249)]
    assert faults(tmp_path, _csvlogger_frame(accuracy=False)[:8]) == [("AMP013", 49)]


def _from_validation(lines: list[str], epoch: int, before: int = 0) -> list[str]:
    """The lines of epoch ``epoch``'s summary tree from ``before`` lines above its
    ``└── Validation`` branch to the tree's end: the ``Train`` branch cut."""
    start = lines.index(f"SUMMARY OF EPOCH {epoch}")
    name = lines.index("└── Validation", start)
    end = lines.index("=" * 59, name)
    return lines[name - before:end + 1]


def test_a_summary_trees_validation_branch_alone_is_evaluation(tmp_path: Path) -> None:
    """The ``Validation`` branch of a summary tree (its ``Ppyoloeloss/loss = nan``), the
    ``Train`` branch above it cut: the window prints no step. Before: AMP006 at 1 (the
    branch's keys read as the tree's first split, a training row)."""
    run = _super_gradients(val_nan_epoch=2)
    assert faults(tmp_path, _from_validation(run, 2)) == [("AMP013", None)]
    assert faults(tmp_path, _from_validation(run, 3, before=1)) == [("AMP013", None)]


def test_a_summary_trees_validation_branch_alone_controls(tmp_path: Path) -> None:
    """A healthy run's branch (every batch a bar: non-default) holds nothing to diagnose
    (no fault, no training metric), and the whole tree of the failing epoch with its
    ``Train`` branch reads as it did on the parent."""
    path = tmp_path / "branch.log"
    healthy = _super_gradients(batches=50, every=1)
    path.write_text("\n".join(_from_validation(healthy, 2, before=2)) + "\n", encoding="utf-8")
    assert diagnose(str(path)).faults == []
    run = _super_gradients(val_nan_epoch=2)
    start = run.index("SUMMARY OF EPOCH 2")
    assert faults(tmp_path, run[start:start + 40]) == [("AMP013", None)]


def test_hf_rows_pasted_from_the_middle_count_skips_from_there(tmp_path: Path) -> None:
    """Eight rows of a healthy sawtooth at the Trainer's default ``logging_steps=500``
    (growth interval 2000: non-default), from epoch 9.85 on: the first row's
    ``'amp/skipped_steps': 49`` counts the 49 skips of the run before the window. Before:
    AMP003 at 1 ("40 consecutive skipped steps from step 1"), that count read as one
    interval's skips."""
    rows = _hf_lines(_torch(200_000, 2000, top=2.0**16), every=500)
    assert faults(tmp_path, rows[196:204]) == []
    assert faults(tmp_path, rows[300:330]) == []


def test_hf_rows_pasted_from_the_middle_fault_twin(tmp_path: Path) -> None:
    """The same run collapsing at step 100000 (every step overflows, the scale halved each):
    the window from epoch 9.5 still shows AMP003 and AMP004, once (the rows count the steps:
    they stand for 500 each, so the window's step differs from the whole log's). Before: a
    second AMP003 at 1."""
    seq = _torch(200_000, 2000, top=2.0**16)[:100_000]
    top = seq[-1][2]
    seq += [(step, True, max(top / 2.0 ** min(step - 100_000, 200), 2.0**-24))
            for step in range(100_001, 102_001)]
    rows = _hf_lines(seq, every=500)
    assert faults(tmp_path, rows[190:]) == [("AMP003", 513), ("AMP004", 513)]


def test_deepspeed_short_window_sawtooth_without_its_dump_is_quiet(tmp_path: Path) -> None:
    """Lines 31-90 of a healthy run at ``loss_scale_window=16`` (non-default): every overflow
    attempts 2048 again about 17 steps after it fell to 1024, so the scale grew back within
    17 steps: the window is that short, and a skip in 17 steps is its healthy rate. Main
    said AMP008 at 201 (the whole log without its dump too); fixed: an overflow line's
    attempted scale above the last back-off's bounds the window
    (``scale_steps.GrowthBounds.overflow``)."""
    assert faults(tmp_path, _deepspeed("new")[30:90]) == []
