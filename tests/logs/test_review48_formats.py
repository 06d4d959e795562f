"""Stop 48's review of the rules merged on 2026-12-07 (20e3164..8a66528): excerpts written from
real tools' format strings (each builder names its source) where a new rule answers wrong or
slowly. Each problem is a strict xfail holding the right answer (it fails on 8a66528); each
control passes there.

What the review found:

- ``metric_reader._BARE`` (73c63d9: "no number after the value") became quadratic: its new
  ``[^A-Za-z\\d]*`` and the ``[\\s,)]`` alternative after it match the same blanks and commas,
  and ``$`` fails at the digit that ends the line, so every split is tried. A CSV row with a
  long run of empty cells (``7,nan,,,...,0.5``) or a padded ``0 nan   ...   1`` takes 0.2 s
  per 2 KB line: 200 lines of 3 KB took 47 s against 0.5 s on 20e3164.
- ``deepspeed.parse`` reads ``{int(next_scale)}``'s ``reducing to 0`` as a scale below 1, but
  not the hysteresis branch of the same scaler: at 0.5 with ``consecutive_hysteresis``
  (hysteresis restored after each clean step), DynamicLossScaler prints ``Attempted loss
  scale: 0, but hysteresis is 2`` (``int(0.5)``), read as an exact 0: AMP003 "fell from 1 to 0
  (inf halvings)" and AMP004 at error "exactly 0.0" on a run that holds its scale at 0.5.
- ``MetricReader._epoch_count_step`` (3e06520) and ``_pass_step`` (6658027) read a second run
  appended to the log (its count back to its first print after the first run's last epoch
  summary, or its MetricLogger count back to 0) as the next epoch of the first: the second
  run's NaN is placed after the first run's steps (SAM-HQ: 1850 for 650), or, where its
  epochs never rise above the first run's, at its count as printed (DeepLabCut 3: 40 for
  1960).
- ``MetricReader._tagged_step`` (730f7d6): torch_xla's Colab MNIST loop counts ``x`` afresh
  each epoch (``[xla:0](0) Loss=...``), so a device's own count goes back at each epoch's
  start; the tagged steps stop there and the rows after are counted on from the last one: a
  NaN of epoch 3, batch 100 (step 580 over epochs of 240) is claimed at 238 (one core) or 357
  (eight), neither the printed count nor the step.
- ``metric_pairs._ARGUMENT_CALL`` (7bff791) asks ``lexicon.is_evaluation`` of each argument,
  which wants the split's word first: ``loss(x_test, y_test) = NaN32`` (Flux's documented
  ``@show`` callback over data named as MLDatasets' scripts name it) is read as the training
  loss, AMP006 at error where the test loss's NaN is AMP013.
- ``_BARE``'s "no number after the value" (73c63d9) also drops the bare print of a loop,
  ``print(step, loss.item(), lr)``: ``600 nan 0.001`` was AMP006 at 600 on 20e3164, now
  "nothing to diagnose".
- ``SCALE_KEPT`` (65628e8) loses to a setup that names a scaler: a recorded fp16 DeepSpeed run
  followed by the recorded bf16 run cut after its ``bfloat16_config`` line keeps the first
  run's ``scaler``, so the bf16 skips are AMP003 at 41 beside the right AMP006 at 12.
- Not from these rules (the same on 20e3164): DeepSpeed resumed with
  ``load_optimizer_states=False`` numbers ``Grad overflow on iteration N`` by the optimizer's
  fresh ``cur_iter``; a cascade at step 5401 is AMP003 at 400.

Tried and held (no test kept beyond the controls below):
- guided-diffusion's ``loading model from checkpoint:`` run start: twenty ``Found NaN`` right
  after the resume line are judged as the same twenty at a fresh run's start (quiet; forty are
  AMP003 at the first, resumed or fresh), and a streak 30 steps after it stays AMP003.
- ``SCALE_KEPT``: DeepSpeed 0.19.8's ``loss_scaler.py`` prints ``Gradients are non-finite,
  weights were not updated`` only in ``LossScalerBase.update_scale``, which
  ``DynamicLossScaler`` overrides: no dynamic fp16 run prints it.
- ``scale_prints.rounded_zero``: a ``repr`` column reaches ``0.0`` only after exponent prints
  (exact 0), and a ``{:.4f}`` column's ``0.0000`` after ``0.0001`` is rounded; the ambiguous
  ``65536.0`` then ``0.0`` is a fault either way (AMP004, only the severity differs).
- The prefilter keyword ``checkpoint``: on 5 MB where every line holds it, about 13% more CPU
  than 20e3164 (a line without it: the same).
- Run starts against real collapses: a Megatron collapse right after ``successfully loaded
  checkpoint ... at iteration 3000`` is AMP003 at its first row, as without the line; a
  DeepSpeed run whose every step is skipped (``step=N, skipped=N``, at the minimum scale) stays
  AMP003.
- ``_pass_step`` keyed by the total: SAM-HQ with 400 training batches, its validation's count
  of 400 too, still places a NaN at its run step (1650).
- The refactors read diff by diff: ``_new_pass`` (the four conditions, ``done == total`` kept
  for ``_bar_step``), ``_NOT_RUN_COUNT`` (the union of the two word sets, one check),
  ``lexicon.held_out_heading`` (``_SPLITS`` plus ``evaluation``: the old set), ``_doublings``
  in ``read_change`` (the same rounding and tolerance): no behaviour changed.
- The new regexes ``_ARGUMENT_CALL`` (searched in the last 120 characters),
  ``BRACKET_STEP``'s tag (``{0,39}``) and ``IOU_RANGE`` (only after ``@``) stay linear on
  2 KB lines built to hit them.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, diagnose_within, faults
from test_untried12_formats import _sam_hq
from test_untried13_formats import _julia_float32
from test_untried14_formats import _dlc3

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.reader import MAX_TEXT

# --- 1. metric_reader._BARE: quadratic on long blank or comma runs -------------------------


def _wide_rows(rows: int, width: int, *, padded: bool) -> list[str]:
    """Rows a wide table writes with most cells empty: Python's ``csv.writer`` of a row whose
    step and first value are set and the rest left ``''`` up to a last column
    (``7,nan,,,,...,0.5``), or the same row space-padded as a fixed-width print pads it
    (``f"{step} {value}{'':{width}}{last}"``)."""
    if padded:
        return [f"{row} nan{' ' * width}1" for row in range(rows)]
    return [f"{row},nan{',' * width}0.5" for row in range(rows)]


@pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="signal.alarm is POSIX's")
@pytest.mark.parametrize("padded", [False, True])
def test_wide_rows_do_not_hang_the_reader(tmp_path: Path, padded: bool) -> None:
    """A guard against a hang, not a measure of speed: 40 rows as wide as the parsers are
    handed (``reader.MAX_TEXT``), shaped to make a backtracking ``_BARE`` try every split of
    their blanks. Read in linear time they take a fraction of a second; quadratically
    (8a66528: 0.8 s for one row of 8 KB) minutes, so the alarm ends the read at 60 s and the
    test fails."""
    path = tmp_path / "wide.log"
    rows = _wide_rows(40, MAX_TEXT - 16, padded=padded)
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = diagnose_within(path, 60)
    assert result is not None, "the reader hung"
    if padded:  # blank-split columns: ``print``'s, the NaN read at its step
        assert [(d.code, d.step) for d in result.faults] == [("AMP006", 0)]
    else:  # a delimited table's rows without their header: nothing read
        assert result.error is not None and "nothing to diagnose" in result.error


# --- 2. DeepSpeed: the hysteresis line of a scale printed by int() -------------------------

_DS_HEAD = "[2026-01-01 10:00:00,000] [INFO] "


def _ds_consecutive_hysteresis(*, later_overflows: tuple[int, ...]) -> list[str]:
    """DeepSpeed 0.19.8's DynamicLossScaler (``deepspeed/runtime/fp16/loss_scaler.py``
    ``update_scale``) under ``"min_loss_scale": 1e-4``, ``"hysteresis": 2`` and
    ``"consecutive_hysteresis": true``: ``f" Attempted loss scale: {int(self.cur_scale)}, but
    hysteresis is {self.cur_hysteresis}. Reducing hysteresis to {self.cur_hysteresis-1}"`` and
    ``f" Attempted loss scale: {int(self.cur_scale)}, reducing to {int(next_scale)}"`` after
    ``[deepspeed] OVERFLOW! Rank 0 Skipping step.``; each clean step ``Consecutive hysteresis
    is enabled. Restoring hysteresis to {self.delayed_shift}``; the engine's ``step={step},
    skipped={n}, lr=..., mom=...`` every 10 steps. The scale goes from 1 to 0.5 at step 302
    and stays there; the isolated overflows ``later_overflows`` at 0.5 only spend hysteresis
    (``int(0.5)`` prints ``0``)."""
    overflow = (f"{_DS_HEAD}[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                "Skipping step.")
    restore = (f"{_DS_HEAD}[loss_scaler.py:197:update_scale] Consecutive hysteresis is enabled."
               " Restoring hysteresis to 2")
    lines, skipped = [], 0
    for step in range(1, 601):
        if step == 301:
            lines.append(f"{overflow} Attempted loss scale: 1, but hysteresis is 2. Reducing "
                         "hysteresis to 1")
        elif step == 302:
            lines.append(f"{overflow} Attempted loss scale: 1, reducing to 0")
        elif step in later_overflows:
            lines.append(f"{overflow} Attempted loss scale: 0, but hysteresis is 2. Reducing "
                         "hysteresis to 1")
        else:
            lines.append(restore)
        skipped += step in (301, 302, *later_overflows)
        if step % 10 == 0:
            lines.append(f"{_DS_HEAD}[logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[5e-05], mom=[(0.9, 0.999)]")
    return lines


def test_deepspeed_hysteresis_line_at_int_zero(tmp_path: Path) -> None:
    """Two overflows at 0.5 that only spend hysteresis: the same verdict as without them,
    AMP004 below 1 at 302. 8a66528: AMP003 at 302, AMP004 at error at 341 and at 302."""
    assert faults(tmp_path, _ds_consecutive_hysteresis(later_overflows=(350, 450))) == [
        ("AMP004", 302)]


def test_deepspeed_hysteresis_int_zero_control(tmp_path: Path) -> None:
    """Control: the same run without the later overflows is AMP004 at warning, below 1."""
    result = diagnose_lines(tmp_path, _ds_consecutive_hysteresis(later_overflows=()))
    assert [(d.code, d.step, d.severity.value) for d in result.faults] == [
        ("AMP004", 302, "warning")]


def _ds_hysteresis_at_one(*, overflows: tuple[int, ...]) -> list[str]:
    """The scaler of ``_ds_consecutive_hysteresis`` at its default ``min_loss_scale`` of 1
    and ``"initial_scale_power": 1``: one halving from 2 to 1 at step 101 (after a spent
    hysteresis at 100), then the overflows ``overflows`` at 1. Each one after a clean step
    only spends the restored hysteresis (``Attempted loss scale: 1, but hysteresis is 2``);
    one right after another halves to the floor (``reducing to 1``)."""
    overflow = (f"{_DS_HEAD}[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                "Skipping step.")
    restore = (f"{_DS_HEAD}[loss_scaler.py:197:update_scale] Consecutive hysteresis is enabled."
               " Restoring hysteresis to 2")
    lines, skipped, hysteresis = [], 0, 2
    for step in range(1, 601):
        if step in (100, 101, *overflows):
            scale = 2 if step <= 101 else 1
            if hysteresis == 2:
                lines.append(f"{overflow} Attempted loss scale: {scale}, but hysteresis is 2. "
                             "Reducing hysteresis to 1")
                hysteresis = 1
            else:
                lines.append(f"{overflow} Attempted loss scale: {scale}, reducing to 1")
            skipped += 1
        else:
            lines.append(restore)
            hysteresis = 2
        if step % 10 == 0:
            lines.append(f"{_DS_HEAD}[logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[5e-05], mom=[(0.9, 0.999)]")
    return lines


def test_deepspeed_hysteresis_spent_at_the_floor(tmp_path: Path) -> None:
    """Three isolated overflows at the floor of 1 that only spend hysteresis: the scaler
    absorbed each by design, no floor held the scale; the verdict is that of the run
    without them. 8d4e872: AMP003 ("3 overflows with the loss scale pinned at its floor")."""
    isolated = faults(tmp_path, _ds_hysteresis_at_one(overflows=(300, 400, 500)))
    assert isolated == faults(tmp_path, _ds_hysteresis_at_one(overflows=()))
    assert "AMP003" not in [code for code, _ in isolated]


def test_deepspeed_overflows_at_the_floor_control(tmp_path: Path) -> None:
    """Control: overflows on every step from 300 at the floor (a spent hysteresis, then
    ``reducing to 1`` each step) are still AMP003."""
    codes = [code for code, _ in faults(
        tmp_path, _ds_hysteresis_at_one(overflows=tuple(range(300, 321))))]
    assert "AMP003" in codes


# --- 3. a second run read as the next epochs of the first ----------------------------------


def test_deeplabcut3_second_run_in_the_log(tmp_path: Path) -> None:
    """Two DeepLabCut 3 trainings in one log (a second shuffle trained after the first), the
    second NaN from epoch 17: the same steps as the run alone (1960, its evaluation 2400).
    8a66528: AMP006 at 40, AMP013 at 121."""
    assert faults(tmp_path, _dlc3(30) + _dlc3(30, nan_from=17)) == [
        ("AMP006", 1960), ("AMP013", 2400)]


def test_sam_hq_second_run_in_the_log(tmp_path: Path) -> None:
    """Two SAM-HQ trainings in one log, the second NaN from its batch 650 (epoch 2, batch
    50): 650, as alone. 8a66528: 1850 (the first run's 1200 added)."""
    first = _sam_hq(4, batches=300, every=50)
    assert faults(tmp_path, first + _sam_hq(4, batches=300, every=50, nan_at=650)) == [
        ("AMP006", 650)]


def test_second_runs_controls(tmp_path: Path) -> None:
    """Controls: each run alone is placed right, and two healthy runs are quiet."""
    assert faults(tmp_path, _dlc3(30, nan_from=17)) == [("AMP006", 1960), ("AMP013", 2400)]
    assert faults(tmp_path, _sam_hq(4, batches=300, every=50, nan_at=650)) == [("AMP006", 650)]
    assert faults(tmp_path, _dlc3(30, batches=90, display_iters=30) + _dlc3(30)) == []
    assert faults(tmp_path, _sam_hq(3, batches=200, every=40) * 2) == []


# --- 4. torch_xla's tagged count, counted afresh each epoch ---------------------------------


def _xla_colab(epochs: int, cores: int, *, batches: int = 240, log_steps: int = 20,
               nan_from: int | None = None) -> list[str]:
    """pytorch/xla's Colab MNIST loop (``contrib/colab/mnist-training.ipynb``, the
    ``train_loop_fn`` of 2019-2020): ``for x, (data, target) in enumerate(loader)`` and every
    ``log_steps`` batches ``print('[xla:{}]({}) Loss={:.5f} Rate={:.2f} GlobalRate={:.2f}
    Time={}'.format(xm.get_ordinal(), x, loss.item(), tracker.rate(), tracker.global_rate(),
    time.asctime()), flush=True)`` on every core, then ``xm.master_print("Finished training
    epoch {}".format(epoch))`` and each core's ``'[xla:{}] Accuracy={:.2f}%'``. The loss NaN
    from the run's step ``nan_from`` on (epochs of ``batches``)."""
    lines, second = [], 0
    for epoch in range(1, epochs + 1):
        for x in range(0, batches, log_steps):
            for core in range(cores):
                step = (epoch - 1) * batches + x
                bad = nan_from is not None and step >= nan_from
                loss = math.nan if bad else 2.3 - step / 1000 + core * 0.001
                second += 1
                lines.append(f"[xla:{core}]({x}) Loss={loss:.5f} Rate={412.37 + second % 7:.2f}"
                             f" GlobalRate={398.12:.2f} Time=Mon Dec  7 07:"
                             f"{10 + second // 60 % 50:02d}:{second % 60:02d} 2026")
        lines.append(f"Finished training epoch {epoch}")
        lines += [f"[xla:{core}] Accuracy={97.31:.2f}%" for core in range(cores)]
    return lines


@pytest.mark.parametrize("cores", [1, 8])
def test_torch_xla_count_per_epoch(tmp_path: Path, cores: int) -> None:
    """NaN from epoch 3, batch 100 of 240: step 580, as the doctor numbers other counts that
    start over each epoch (DeepLabCut 3, SAM-HQ). 8a66528: 238 (one core), 357 (eight)."""
    assert faults(tmp_path, _xla_colab(3, cores, nan_from=580)) == [("AMP006", 580)]


def test_torch_xla_count_per_epoch_flushed_out_of_order(tmp_path: Path) -> None:
    """Eight cores whose lines come a line late now and then, across the epochs' starts too
    (a core's ``(0)`` of the next epoch before another's last count of this one)."""
    lines = _xla_colab(3, 8, nan_from=580)
    for at in range(6, len(lines) - 1, 11):
        lines[at], lines[at + 1] = lines[at + 1], lines[at]
    assert faults(tmp_path, lines) == [("AMP006", 580)]


def test_torch_xla_count_per_epoch_control(tmp_path: Path) -> None:
    """Control: the same loop healthy over four epochs on eight cores, every 40 batches."""
    assert faults(tmp_path, _xla_colab(4, 8, log_steps=40)) == []


# --- 5. metric_pairs._ARGUMENT_CALL: held-out data named with its split last ---------------


def _flux_show_test_loss(epochs: int, *, nan_from: int,
                         data: tuple[str, str] = ("x_test", "y_test")) -> list[str]:
    """The callback of FluxML/Flux.jl ``docs/src/training/training.md`` (``evalcb() =
    @show(loss(test_x, test_y))``) with the data named as MLDatasets' scripts name it
    (``x_test, y_test = MNIST.testdata()``), shown once per epoch under ``@epochs``' ``[ Info:
    Epoch {i}`` with ``@show(acc(x_test, y_test))``. Julia's ``show`` of a Float32
    (``0.4711f0``, ``NaN32``)."""
    lines = []
    for epoch in range(1, epochs + 1):
        bad = epoch >= nan_from
        loss = _julia_float32(math.nan if bad else 2.3 * 0.8 ** epoch)
        x, y = data
        lines += [f"[ Info: Epoch {epoch}", f"loss({x}, {y}) = {loss}",
                  f"acc({x}, {y}) = {0.098 if bad else 0.9 - 0.5 * 0.8 ** epoch:.4f}"]
    return lines


def test_flux_show_of_the_test_loss_is_evaluation(tmp_path: Path) -> None:
    """``loss(x_test, y_test) = NaN32``: the test set's loss, an evaluation's NaN (AMP013).
    8a66528: AMP006 at 7, a training-loss error; 20e3164: nothing to diagnose."""
    result = diagnose_lines(tmp_path, _flux_show_test_loss(10, nan_from=7))
    assert [d.code for d in result.diagnoses] == ["AMP013"]


@pytest.mark.parametrize("data", [("X_val", "Y_val"), ("x_valid", "y_valid"),
                                  ("x_holdout", "y_holdout"), ("xTest", "yTest")])
def test_flux_show_of_a_held_out_split_named_last(tmp_path: Path,
                                                  data: tuple[str, str]) -> None:
    """The split as any word of the data's name (``X_val``, ``x_valid``, camel case too):
    the held-out set's loss, AMP013."""
    result = diagnose_lines(tmp_path, _flux_show_test_loss(10, nan_from=7, data=data))
    assert [d.code for d in result.diagnoses] == ["AMP013"]


@pytest.mark.parametrize("data", [("x_latest", "y_latest"), ("x_interval", "device"),
                                  ("evaluate_every", "batch")])
def test_flux_show_of_data_named_without_a_split_control(tmp_path: Path,
                                                         data: tuple[str, str]) -> None:
    """Controls: names that hold a split's letters but no split word (``latest``,
    ``interval``, ``device``, ``evaluate_every``) keep the loss a training loss (AMP006), and
    the same run healthy is quiet."""
    assert faults(tmp_path, _flux_show_test_loss(10, nan_from=7, data=data)) == [("AMP006", 7)]
    assert faults(tmp_path, _flux_show_test_loss(10, nan_from=11, data=data)) == []


# --- 6. metric_reader._BARE: a print of step, loss and one more number -----------------------


def _print_step_loss_lr(nan_from: int | None, *, lr: float = 0.001,
                        sep: str = " ") -> list[str]:
    """``print(step, loss.item(), lr)`` every 10 steps: CPython's ``print`` (``Python/
    bltinmodule.c`` ``builtin_print``, ``sep=' '``) of an int and two floats' ``repr``
    (``nan`` for a NaN loss, ``5e-05`` for a small learning rate), the bare print public
    training scripts write beside ``print(step, loss.item())``. NaN from step ``nan_from``;
    ``sep=","`` writes the rows a ``csv.writer`` would, without their header."""
    return [sep.join([str(step), repr(math.nan if nan_from is not None and step >= nan_from
                                      else 2.3 - step / 1000), repr(lr)])
            for step in range(10, 1010, 10)]


def test_bare_print_of_step_loss_and_lr(tmp_path: Path) -> None:
    """20e3164: AMP006 at 600; 8a66528: nothing to diagnose."""
    assert faults(tmp_path, _print_step_loss_lr(600)) == [("AMP006", 600)]


def test_bare_print_with_a_learning_rate_in_exponent_notation(tmp_path: Path) -> None:
    """``repr(5e-05)`` is ``5e-05``: a number after the value, as ``0.001`` is. 8d4e872:
    nothing to diagnose (the row refused)."""
    assert faults(tmp_path, _print_step_loss_lr(450, lr=5e-05)) == [("AMP006", 450)]


def test_delimited_rows_after_the_value_controls(tmp_path: Path) -> None:
    """Controls: the same columns split by commas or semicolons, without a header, stay a
    delimited table's rows (73c63d9's rule: nothing read), and the healthy print raises no
    alarm (its finite rows hold no keyword: nothing read either)."""
    for sep in (",", ";"):
        result = diagnose(_write(tmp_path, _print_step_loss_lr(600, lr=5e-05, sep=sep)))
        assert result.error is not None and "nothing to diagnose" in result.error
    result = diagnose(_write(tmp_path, _print_step_loss_lr(None, lr=3e-4)))
    assert not result.diagnoses and "nothing to diagnose" in (result.error or "")


def _write(tmp_path: Path, lines: list[str]) -> str:
    path = tmp_path / "rows.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


# --- 7. DeepSpeed resumed without its optimizer states (not from these rules) ---------------


def _ds_resumed_without_optimizer(cascade_at: int | None, *, resumed: int = 5000) -> list[str]:
    """DeepSpeed 0.3-0.16's FP16_Optimizer (``deepspeed/runtime/fp16/fused_optimizer.py``
    ``_update_scale``: ``"\\nGrad overflow on iteration {cur_iter}"`` then ``"Reducing dynamic
    loss scale from {prev_scale} to {cur_scale}"``) after ``engine.load_checkpoint(...,
    load_optimizer_states=False)``: the engine's ``global_steps`` and ``skipped_steps`` come
    back (``step=5010, skipped=8``), the optimizer's ``cur_iter`` and scale start afresh
    (eight back-offs from 65536). Every step overflows from ``cascade_at`` on. ``resumed=0``:
    a fresh run, the two counts the same."""
    head = "[2026-01-01 10:00:00,000] [INFO] [fused_optimizer.py:290:_update_scale] "
    lines, scale, skipped = [], 65536.0, 8 if resumed else 0
    for step in range(resumed + 1, resumed + 501):
        iteration = step - resumed - 1
        overflow = iteration < 8 or (cascade_at is not None and step >= cascade_at)
        if overflow:
            lines += [head, f"{head}Grad overflow on iteration {iteration}",
                      f"{head}Reducing dynamic loss scale from {scale} to {max(scale / 2, 1.0)}"]
            scale, skipped = max(scale / 2, 1.0), skipped + 1
        if step % 10 == 0:
            lines.append(f"{_DS_HEAD}[logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[5e-05], mom=[(0.9, 0.999)]")
            if not overflow:
                lines.append(str({"loss": round(2.5 * 0.9995 ** (step / 10), 4),
                                  "learning_rate": 5e-05, "epoch": round(step / 1000, 2)}))
    return lines


def test_deepspeed_resumed_without_optimizer_states(tmp_path: Path) -> None:
    """The cascade from step 5401 (iteration 400) is AMP003 there. 8a66528: AMP003 at 400."""
    assert faults(tmp_path, _ds_resumed_without_optimizer(5401)) == [("AMP003", 5401)]


def test_deepspeed_resumed_without_optimizer_states_control(tmp_path: Path) -> None:
    """Control: the resumed run's fresh back-off alone is quiet."""
    assert faults(tmp_path, _ds_resumed_without_optimizer(None)) == []


def test_deepspeed_optimizer_count_of_a_fresh_run_control(tmp_path: Path) -> None:
    """Controls: where the optimizer's count is the engine's (a fresh run, alone or appended
    after the resumed one, whose counter goes back) the cascade is placed at its count as
    printed (``cur_iter`` 200 at the engine's step 201), and the two runs without a cascade
    are quiet."""
    fresh = _ds_resumed_without_optimizer(201, resumed=0)
    assert faults(tmp_path, fresh)[0] == ("AMP003", 200)  # (then AMP008: 91% skipped)
    assert faults(tmp_path, _ds_resumed_without_optimizer(None) + fresh) == faults(
        tmp_path, fresh)
    assert faults(tmp_path, _ds_resumed_without_optimizer(None)
                  + _ds_resumed_without_optimizer(None, resumed=0)) == []


# --- 8. SCALE_KEPT behind an earlier run's fp16 setup ---------------------------------------

_CORPUS = Path(__file__).parent / "corpus"


def _fp16_run_then_bf16_cut(start: int) -> list[str]:
    """Two recorded DeepSpeed 0.19.8 ZeRO-2 runs in one file (tests/logs/corpus, made by
    running DeepSpeed here): the healthy fp16 run (``deepspeed_zero2_healthy.log``, dynamic
    scale, 40 steps), then the bf16 run whose loss turns inf at step 12
    (``deepspeed_zero2_bf16_nonfinite.log``) pasted from its line ``start`` on (its
    configuration dump cut from above ``bfloat16_config``)."""
    healthy = (_CORPUS / "deepspeed_zero2_healthy.log").read_text().splitlines()
    bf16 = (_CORPUS / "deepspeed_zero2_bf16_nonfinite.log").read_text().splitlines()
    return healthy + bf16[start:]


@pytest.mark.parametrize("start", [66, 159])
def test_bf16_cut_after_an_fp16_run(tmp_path: Path, start: int) -> None:
    """``Gradients are non-finite, weights were not updated`` (a scaler that keeps its scale)
    after an fp16 run's rows: AMP006 at 12, as for the bf16 run cut alone. 8a66528: AMP006 at
    12 and AMP003 at 41 ("6 consecutive skipped steps ... loss scale now None")."""
    assert faults(tmp_path, _fp16_run_then_bf16_cut(start)) == [("AMP006", 12)]


def test_bf16_cut_alone_control(tmp_path: Path) -> None:
    """Control: the bf16 run cut the same way, alone, is AMP006 at 12."""
    bf16 = (_CORPUS / "deepspeed_zero2_bf16_nonfinite.log").read_text().splitlines()
    assert faults(tmp_path, bf16[66:]) == [("AMP006", 12)]


def test_fp16_cut_after_an_fp16_run_control(tmp_path: Path) -> None:
    """Control: the recorded fp16 collapse (a dynamic scaler's ``reducing to`` lines) cut the
    same way after the healthy fp16 run keeps the dynamic setup: still AMP003 beside AMP006."""
    healthy = (_CORPUS / "deepspeed_zero2_healthy.log").read_text().splitlines()
    collapse = (_CORPUS / "deepspeed_zero2_collapse.log").read_text().splitlines()
    assert [code for code, _ in faults(tmp_path, healthy + collapse[90:])] == [
        "AMP006", "AMP003"]


def _counters(last: int, skipped: Callable[[int], int]) -> list[str]:
    """DeepSpeed's engine every 10 steps (``step={step}, skipped={n}, ...``, the counter of
    ``_ds_consecutive_hysteresis``) up to ``last``, ``skipped(step)`` skipped by then."""
    return [f"{_DS_HEAD}[logging.py:96:log_dist] [Rank 0] step={step}, skipped={skipped(step)},"
            " lr=[5e-05], mom=[(0.9, 0.999)]" for step in range(10, last + 1, 10)]


def test_counters_of_a_second_run_are_their_own_window(tmp_path: Path) -> None:
    """A healthy run of 300 steps, then a second run appended whose fresh scaler backed off
    10 times by its step 10 and once each 10 steps after: its counters went back, and the
    skips between them and the first run's (13 of 30 steps) are no window's. The verdict of
    the second run alone. 8d4e872: AMP008 at 40."""
    second = _counters(40, lambda step: 9 + step // 10)
    assert faults(tmp_path, _counters(300, lambda step: 0) + second) == faults(
        tmp_path, second) == []


def test_counters_of_a_second_run_control(tmp_path: Path) -> None:
    """Control: a second run skipping half its steps is AMP003 after the first run too."""
    second = _counters(200, lambda step: 10 + (step - 10) // 2)
    assert [code for code, _ in faults(tmp_path, _counters(300, lambda step: 0) + second)] == [
        "AMP003"]
