"""Misreadings left from earlier rounds, each fixed by a rule for a kind of layout, each with
its healthy controls (before: the parent commit 20e3164; after: this branch).

1. A loss scale printed rounded. Megatron-LM (megatron/training/training.py ``training_log``:
   ``loss scale: {:.1f}``, the rows of ``excerpts.megatron_line``) prints 0.03125 as ``0.0``
   after 0.0625 as ``0.1``; a plain loop printing ``{scaler.get_scale():.0f}`` or ``:.1f``
   (``scaler_loop``, a real GradScaler run) prints 0.5 as ``0`` / 0.03125 as ``0.0``. Before:
   AMP004 at error, "loss scale fell to exactly 0.0". After: a column with a fixed number of
   decimals (the zero has at least the decimals of the last scale above 0 it printed) shows a
   scale below its last digit, AMP004 at warning, "below 0.1 (printed as 0 at that
   precision)" (``scale_prints.rounded_zero``; Megatron's column is fixed by its format). The
   honest severity is the one the core's detector gives a scale below 1 that is not 0. A
   true 0 printed in full (``loss_scale=0.0`` after ``1.52587890625e-05``: the loop sets the
   scale to 0 through ``GradScaler.update(0.0)``) was read as rounded before (silent at
   error), and is AMP004 at error now, as the live monitor says. ``{:.2g}`` never prints a
   positive scale as 0 (it turns to exponent notation): nothing to fix there; its ``0`` after
   ``6.1e-05`` stays an exact 0. DeepSpeed's overflow line prints ``int()`` of the scale
   (``loss_scaler.py``: ``reducing to {int(next_scale)}``): under a ``min_loss_scale`` below
   1, 0.5 prints ``reducing to 0``; before AMP004 at error, after at warning, "below 1"
   (``deepspeed.parse`` gives an integer zero ``SCALE_BELOW``).
2. AMP003 "one row late": not wrong when read closely. The doctor gives the streak's first
   skipped step as the log numbers it; the live monitor numbers iterations from 0, the loop's
   print from 1 (tests/logs/test_scale_drops.py): the live step ``s`` is the log's ``s + 1``.
   A control holds that the two agree (it passes on the parent too).
3. Start-up back-off in a window. DeepSpeed (``deepspeed/runtime/fp16/loss_scaler.py``
   ``DynamicLossScaler.update_scale`` and ``engine.py``'s ``step={}, skipped={}`` progress
   line, the builders of test_false_alarms4_formats) and its 0.3-0.16 wording
   (``fused_optimizer.py``: ``Grad overflow on iteration {}`` then ``Reducing dynamic loss
   scale from {} to {}``):
   - an excerpt cut after the first overflow line (it opens on ``step=1, skipped=1``):
     before AMP003 at 2; a count of every step so far (skipped == step) says the steps up
     to it were skipped, the run's start-up (``Assembler`` progress lines);
   - an excerpt cut between ``Grad overflow on iteration 1`` and its ``Reducing`` line:
     before AMP003 at 2 (the stray ``Reducing`` line was merged with iteration 2's line, and
     iteration 1 read as applied); a line that names only its step opens its overflow
     (``_Overflow.accepts``), and a first numbered step near the start after step-less skips
     leaves no applied steps between (``_flush``);
   - two runs in one file, the first cut to its last rows (no scale shown), the second's
     counter printed each step (``step=1, skipped=1`` after step 600): before AMP003 at 601;
     a counter gone back that counts every step skipped begins a run whose start-up began
     with the skips just read (``RESTARTED_AT``: run_state keeps the streak as the new run's
     back-off); in the old wording (``Grad overflow on iteration 1`` after 300): before AMP003
     at 1; an overflow naming a step far behind the clock begins a run.
   Controls: the same run's collapse mid-way, and a second run that never settles, stay
   AMP003 at their first skipped step. Left (xfail): two runs whose second run's counter is
   printed only after its back-off (``steps_per_print`` 10) and the first cut before any
   scale: AMP003 is said before the counter shows the new run.
4. A bf16 configuration cut. The recorded DeepSpeed 0.19.8 ZeRO-2 bf16 run
   (tests/logs/corpus/deepspeed_zero2_bf16_nonfinite.log) cut after its ``bfloat16_config``
   line (the JSON's ``"bf16": {"enabled": true}`` and the run's rows left): before AMP006
   and AMP003 at 12; after AMP006 only, as for the whole log. ``[deepspeed] OVERFLOW!
   Skipping step. Gradients are non-finite, weights were not updated.`` is
   ``LossScalerBase.update_scale``'s, printed only by a scaler that never moves its scale
   (``DynamicLossScaler`` says the scale it attempted): its skips are no collapse of a scale
   (events.SCALE_KEPT).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, megatron_line
from scaler_loop import scaler_loop
from test_false_alarms4_formats import _ds_older_run, _ds_run

_CORPUS = Path(__file__).parent / "corpus"


def _amp004(tmp_path: Path, lines: list[str]) -> list[tuple[int | None, str, str]]:
    """(step, severity, summary) of each AMP004 the doctor gives."""
    return [(d.step, d.severity.value, d.summary) for d in diagnose_lines(tmp_path, lines).faults
            if d.code == "AMP004"]


# -- 1. a loss scale printed rounded ----------------------------------------------------------

def _megatron_collapse(every: int, stable: float, per_row: int) -> list[str]:
    """Megatron rows each ``every`` iterations at ``stable`` to iteration 300, then every
    iteration skipped, the scale halving ``per_row`` times a row (no loss: Megatron leaves it
    out where no iteration of the interval was applied)."""
    lines = [megatron_line(i, scale=stable) for i in range(every, 301, every)]
    scale = stable
    for i in range(300 + every, 400, every):
        scale /= 2 ** per_row
        lines.append(megatron_line(i, loss=None, scale=scale, grad_norm="nan", skipped=every))
    return lines


def test_megatron_scale_printed_as_zero_is_below_its_digit(tmp_path: Path) -> None:
    """Iteration by iteration: 0.0625 prints ``0.1``, 0.03125 ``0.0`` (iteration 321). Before:
    AMP004 at error at 321, "exactly 0.0". After: AMP004 once, at warning, where the scale
    fell below 1 (317); nothing claims an exact zero."""
    lines = _megatron_collapse(1, 65536.0, 1)
    assert faults(tmp_path, lines) == [("AMP003", 301), ("AMP004", 317)]
    found = _amp004(tmp_path, lines)
    assert [(s, level) for s, level, _ in found] == [(317, "warning")], found
    assert not any("exactly" in summary for _, _, summary in found)


def test_megatron_first_print_below_one_is_a_rounded_zero(tmp_path: Path) -> None:
    """Rows each 10 iterations from a settled 1024: 1.0 at 310, then 2**-10 printed ``0.0``
    at 320, the first row below 1. Before: AMP004 at error, "exactly 0.0: every gradient is
    zero". After: at warning, the bound the print shows."""
    lines = _megatron_collapse(10, 1024.0, 10)
    found = _amp004(tmp_path, lines)
    assert [(s, level) for s, level, _ in found] == [(320, "warning")], found
    assert "below 0.1 (printed as 0 at that precision)" in found[0][2]


@pytest.mark.parametrize("fmt, first", [
    ("step {step} loss_scale={scale:.1f}", "fell to 0.5 (< 1.0)"),
    ("step {step} loss_scale={scale:.0f}", "below 1 (printed as 0 at that precision)")])
def test_loop_scale_printed_at_fixed_decimals(tmp_path: Path, fmt: str, first: str) -> None:
    """A real GradScaler loop (init 1.0, every step from 101 overflowing) printing its scale
    at a fixed precision: ``0.5`` ... ``0.1`` then ``0.0`` (``:.1f``), 0.5 as ``0``
    (``:.0f``). Before (``:.0f``): AMP004 at error, "exactly 0.0", at the first zero. After:
    AMP004 at warning where the scale fell below 1, the bound where that print was a zero;
    none at error (the live monitor's scale never was 0). ``:.1f`` is a control: the parent's
    rule for Swin's ``:.4f`` read it already."""
    run = scaler_loop(130, fmt, init_scale=1.0, overflow=frozenset(range(101, 131)))
    found = _amp004(tmp_path, run.lines)
    assert [(s, level) for s, level, _ in found] == [(101, "warning")], found
    assert first in found[0][2]


def test_loop_scale_printed_in_full_that_is_zero(tmp_path: Path) -> None:
    """Twin: the same loop printing the scale in full (``{scale}``: ``1.52587890625e-05``)
    after 16 overflows, then the scale set to 0 by hand (``scaler.update(0.0)``, GradScaler's
    own door for it) at step 118: ``loss_scale=0.0`` is an exact 0. Before: read as a
    rounded print (no error). After: AMP004 at error at 118, as the live monitor (117, its
    0-based count)."""
    run = scaler_loop(130, "step {step} loss_scale={scale}", init_scale=1.0,
                      overflow=frozenset(range(101, 117)), set_scale=(118, 0.0))
    assert "step 117 loss_scale=1.52587890625e-05" in run.lines
    assert ("AMP004", 117) in run.live
    found = _amp004(tmp_path, run.lines)
    assert [(s, level) for s, level, summary in found if "exactly 0.0" in summary] == [
        (118, "error")], found


def test_scale_printed_with_g_has_no_rounded_zero(tmp_path: Path) -> None:
    """Control: ``{scale:.2g}`` prints 2**-14 as ``6.1e-05``, never a positive scale as 0;
    the same set 0 after it prints ``0``: an exact 0 (error), as on the parent."""
    run = scaler_loop(130, "step {step} loss_scale={scale:.2g}", init_scale=1.0,
                      overflow=frozenset(range(101, 115)), set_scale=(118, 0.0))
    assert "step 114 loss_scale=6.1e-05" in run.lines
    found = _amp004(tmp_path, run.lines)
    assert (118, "error") in [(s, level) for s, level, _ in found], found


def test_healthy_fixed_decimal_scale_control(tmp_path: Path) -> None:
    """Control: a healthy Megatron run at a settled scale of 1024 (non-default) and a loop
    printing ``:.1f`` at 512: silent (on the parent too)."""
    assert faults(tmp_path, [megatron_line(i, scale=1024.0) for i in range(10, 3001, 10)]) == []
    run = scaler_loop(200, "step {step} loss_scale={scale:.1f}", init_scale=512.0)
    assert faults(tmp_path, run.lines) == []


# -- 2. AMP003's step: the streak's first skipped step, as the live monitor -------------------

@pytest.mark.parametrize("fmt", ["step {step} loss_scale={scale}",
                                 "{{'loss': {loss:.4f}, 'loss_scale': {scale}, 'step': {step}}}"])
def test_skip_streak_is_found_where_it_began(tmp_path: Path, fmt: str) -> None:
    """A real loop whose steps 301-320 overflow (init 65536, growth 2000: non-default). The
    live monitor says AMP003 at its iteration 300 (0-based), the log's step 301: the doctor
    says 301, the first skipped step, not a row later (a control: the same on the parent)."""
    run = scaler_loop(400, fmt, init_scale=65536.0, overflow=frozenset(range(301, 321)))
    assert run.live[0] == ("AMP003", 300)
    assert faults(tmp_path, run.lines)[0] == ("AMP003", 301)


# -- 3. start-up back-off in a window ---------------------------------------------------------

def test_deepspeed_excerpt_cut_after_its_first_overflow_is_quiet(tmp_path: Path) -> None:
    """A healthy DeepSpeed run (``steps_per_print`` 1, a back-off of 8 from 65536) pasted
    from its second line, ``step=1, skipped=1``, onwards (and from ``step=2, skipped=2``).
    Before: AMP003 at 2 (and 3)."""
    run = _ds_run(600, every=1)
    assert faults(tmp_path, run[1:]) == []
    assert faults(tmp_path, run[3:]) == []


def test_deepspeed_old_wording_cut_between_its_two_lines_is_quiet(tmp_path: Path) -> None:
    """The 0.3-0.16 wording pasted from ``Reducing dynamic loss scale from 65536 to 32768``
    (its ``Grad overflow on iteration 1`` above the cut), and from the third iteration's
    ``Reducing`` line. Before: AMP003 at 2 and 3."""
    run = _ds_older_run(300, "iteration")
    assert faults(tmp_path, run[1:]) == []
    assert faults(tmp_path, run[3:]) == []


def test_two_deepspeed_runs_first_cut_to_its_last_rows_is_quiet(tmp_path: Path) -> None:
    """A file holding a run's last rows (``step=600``, no scale shown) and a new healthy run
    after it, whose counter went back to ``step=1, skipped=1``. Before: AMP003 at 601."""
    for tail in (3, 30):
        run = _ds_run(600, every=1)
        assert faults(tmp_path, run[-tail:] + run) == [], tail


def test_two_old_wording_runs_first_cut_is_quiet(tmp_path: Path) -> None:
    """The same in 0.3-0.16's wording, ``Grad overflow on iteration 1`` after the first run's
    rows at 300. Before: AMP003 at 1."""
    run = _ds_older_run(300, "iteration")
    assert faults(tmp_path, run[-3:] + run) == []


def test_second_run_that_never_settles_stays_flagged(tmp_path: Path) -> None:
    """Twin: the new run after the cut one backs off from 65536 and never stops (every step
    overflows): its collapse is found from its first step (601 counted on), as the parent
    says, and the scale near zero (AMP004)."""
    found = faults(tmp_path, _ds_run(600, every=1)[-3:] + _ds_run(60, backoff=59, every=1))
    assert found[0] == ("AMP003", 601), found


def test_cascade_mid_run_with_counters_stays_flagged(tmp_path: Path) -> None:
    """Twin: one run, counters each step, every step overflowing from step 9001 after its
    scale regrew to 65536: mid-way, not a start (as on the parent)."""
    found = faults(tmp_path, _ds_run(9100, every=1, cascade_at=9001)[-400:])
    assert found[0] == ("AMP003", 9001), found


@pytest.mark.xfail(strict=True, reason="the second run's counter (steps_per_print 10) comes "
                   "after its back-off, when AMP003 is said already; the first run's rows "
                   "show no scale to compare its 65536 with")
def test_two_runs_counter_after_back_off(tmp_path: Path) -> None:
    """Right answer: silent, two healthy runs."""
    run = _ds_run(600, every=10)
    assert faults(tmp_path, run[-3:] + run) == []


# -- 4. a bf16 configuration cut --------------------------------------------------------------

@pytest.mark.parametrize("start", [66, 100, 155, 159, 185])
def test_deepspeed_bf16_run_cut_after_its_config(tmp_path: Path, start: int) -> None:
    """The recorded bf16 run, cut after its ``bfloat16_config`` line (line 66) at several
    places (mid-dump, mid-JSON, at its first rows), and cut at its end: AMP006 at 12, as the
    whole log. Before: AMP006 and AMP003 at 12."""
    lines = (_CORPUS / "deepspeed_zero2_bf16_nonfinite.log").read_text().splitlines()
    assert faults(tmp_path, lines[start:]) == [("AMP006", 12)]
    assert faults(tmp_path, lines[start:215]) == [("AMP006", 12)]


def test_deepspeed_bf16_healthy_window_control(tmp_path: Path) -> None:
    """Control: the same run's healthy head (to step 11), cut after its config: silent."""
    lines = (_CORPUS / "deepspeed_zero2_bf16_nonfinite.log").read_text().splitlines()
    assert faults(tmp_path, lines[100:189]) == []


def _ds_min_scale_run(steps: int, collapse_at: int) -> list[str]:
    """DeepSpeed's DynamicLossScaler under ``"min_loss_scale": 1e-4`` (below its default 1),
    every step overflowing from ``collapse_at``: ``deepspeed/runtime/fp16/loss_scaler.py``
    (0.19.8) prints ``f" Attempted loss scale: {int(self.cur_scale)}, reducing to
    {int(next_scale)}"``, so 0.5 prints ``0``; ``engine.py``'s progress line each step."""
    lines: list[str] = []
    scale, skipped = 1024.0, 0
    head = ("[2026-01-01 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
            "OVERFLOW! Rank 0 Skipping step.")
    for step in range(1, steps + 1):
        if step >= collapse_at:
            after = max(scale / 2, 1e-4)
            lines.append(f"{head} Attempted loss scale: {int(scale)}, reducing to {int(after)}")
            scale, skipped = after, skipped + 1
        lines.append("[2026-01-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] "
                     f"step={step}, skipped={skipped}, lr=[5e-05], mom=[(0.9, 0.999)]")
    return lines


def test_deepspeed_int_printed_scale_below_one(tmp_path: Path) -> None:
    """``reducing to 0`` after ``Attempted loss scale: 1`` is 0.5 printed by ``int()``; the
    attempts after it print ``0`` too. Before: AMP004 at error at 311, "exactly 0.0". After:
    the collapse (AMP003 at 301) and AMP004 at warning, "below 1 (printed as 0 at that
    precision)": an integer column's zero (deepspeed.parse gives it SCALE_BELOW)."""
    lines = _ds_min_scale_run(340, 301)
    assert faults(tmp_path, lines) == [("AMP003", 301), ("AMP004", 311)]
    found = _amp004(tmp_path, lines)
    assert [(s, level) for s, level, _ in found] == [(311, "warning")], found
    assert "below 1 (printed as 0 at that precision)" in found[0][2]


def test_deepspeed_int_printed_scale_control(tmp_path: Path) -> None:
    """Control: the default floor of 1 (``Attempted loss scale: 1, reducing to 1``, every step
    overflowing) never prints 0: no AMP004 below 1 (on the parent too)."""
    lines = [line.replace("reducing to 0", "reducing to 1").replace(
        "Attempted loss scale: 0", "Attempted loss scale: 1")
        for line in _ds_min_scale_run(340, 301)]
    assert _amp004(tmp_path, lines) == []
