"""Small misreadings of plain layouts, fixed by rules for the kind of layout.

Each case, its source, what the doctor said before and what it says now:

- A plain loop's ``print(f"train_loss = {loss}")``, one row a step and no step printed: the
  rows were read as HF's closing ``  train_loss = ...`` block (transformers
  ``trainer_pt_utils.py`` ``log_metrics``, whose every key is indented): AMP006 at no step.
  Now the rows count as ``loss = v`` rows do (AMP006 at the NaN's row, steps read as rows);
  the indented block stays a summary.
- An error of a property printed in its unit (``RMSE (kcal/mol) = nan``, as aiqm/torchani
  ``examples/training.py`` prints ``Validation RMSE (kcal/mol) {rmse}`` and chemprop
  ``chemprop/train/run_training.py`` ``Validation {metric} = {score}`` beside its training
  ``Loss = {loss_avg:.4e}, PNorm = ...`` lines): read as the training loss (AMP006). Now an
  evaluation's value (AMP013); a ``train`` word keeps it the training loss.
- HF Trainer's dict rows without step (transformers ``trainer.py`` ``log``: ``{'loss': ...,
  'grad_norm': nan, 'learning_rate': ..., 'epoch': ...}`` every ``logging_steps``), NaN grad
  norms under a finite loss (``logging_nan_inf_filter``): said to miss AMP003 where the same
  rows behind the Trainer's tqdm bar get it. Read closely it does not: AMP003 at the first NaN
  row, the steps read as rows (the epoch fractions do not give the interval: ``epoch`` is the
  step over the steps an epoch, both unknown); behind the bar, at the bar's step. Held as is.
- openai/guided-diffusion ``guided_diffusion/fp16_util.py``: ``Found NaN, decreased
  lg_loss_scale to {x}`` comes before its step's logger table (``| step | 9e+03 |`` every
  ``log_interval``): a run of NaN from 9000 was AMP003 at 9001 (the line read as the step
  after the table before, 8991, and the table's step applied). The table below the line
  whose ``lg_loss_scale`` is still the one the line lowered was logged at the line's step
  (the scaler's update comes after the logging): AMP003 at 9000. A NaN inside the interval
  leaves the table a lower mean: the step is not known, read as before.
- huggingface/candle ``candle-examples/examples/llama2-c/training.rs``: ``println!("{batch_index}
  {loss}")`` every 100 batches, the loss a validation loss (``valid_loss``) and Rust's ``f64``
  printing NaN as ``NaN``: the bare-column reader left ``NaN`` alone (pandas' missing value):
  "nothing to diagnose". Now, where the rows before it prove bare columns (no header, rising
  steps, finite values, not a 0, 1, 2... index), AMP006 at the NaN's step, as ``{step} nan``
  is read: a bare row names no split, and the model whose held-out loss is NaN went NaN.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults
from test_false_alarms10 import _guided_diffusion

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


# --- 1. a plain loop's keyless ``train_loss = v`` rows ----------------------------------------


def _plain_rows(key: str, nan_from: int | None = None, rows: int = 30,
                decimals: int = 4) -> list[str]:
    """A plain loop's ``print(f"{key} = {loss:.{decimals}f}")`` once a step, no step printed."""
    return [f"{key} = {NAN if nan_from and row >= nan_from else 2.5 - row / 50:.{decimals}f}"
            for row in range(1, rows + 1)]


def test_keyless_train_loss_rows_are_counted_as_rows(tmp_path: Path) -> None:
    """Before: ``train_loss = nan`` rows were AMP006 at no step (a closing summary); the same
    rows keyed ``loss`` were AMP006 at 15. Now both at 15, their steps the rows'."""
    for key in ("train_loss", "loss"):
        lines = _plain_rows(key, nan_from=15)
        assert faults(tmp_path, lines) == [("AMP006", 15)], key
        assert diagnose_lines(tmp_path, lines).steps_are_rows, key


def test_keyless_rows_controls(tmp_path: Path) -> None:
    """Healthy rows (two decimals, 200 of them) are quiet; HF's indented closing block
    (``log_metrics``: ``  {key: <{k_width}} = {value:>{v_width}}``) is still no step."""
    assert faults(tmp_path, _plain_rows("train_loss", rows=200, decimals=2)) == []
    block = ["***** train metrics *****", "  epoch                    =        3.0",
             "  train_loss               =        nan", "  train_runtime            = 0:01:02"]
    assert faults(tmp_path, block) == [("AMP006", None)]


# --- 2. an error metric printed in its property's unit ----------------------------------------


def _property_scores(key: str = "RMSE (kcal/mol)", nan_from: int | None = None,
                     loss_nan_from: int | None = None, epochs: int = 6) -> list[str]:
    """chemprop ``chemprop/train/train.py``'s ``debug(f'Loss = {loss_avg:.4e}, PNorm =
    {pnorm:.4f}, GNorm = {gnorm:.4f}, {lrs_str}')`` (``lr_{i} = {lr:.4e}``) three times an
    epoch after ``Epoch {epoch}``, and the epoch's score ``{key} = {score:.6f}`` as
    ``run_training.py`` logs ``Validation {metric} = {score:.6f}``, the metric named with its
    unit as aiqm/torchani ``examples/training.py`` names it (``RMSE (kcal/mol)``)."""
    lines = []
    for epoch in range(epochs):
        lines.append(f"Epoch {epoch}")
        loss = NAN if loss_nan_from is not None and epoch >= loss_nan_from else 0.5 / (epoch + 1)
        lines += [f"Loss = {loss:.4e}, PNorm = 35.1234, GNorm = 1.2345, lr_0 = 1.0000e-04"] * 3
        score = NAN if nan_from is not None and epoch >= nan_from else 1.5 / (epoch + 1)
        lines.append(f"{key} = {score:.6f}")
    return lines


def test_error_in_its_unit_is_an_evaluation_value(tmp_path: Path) -> None:
    """Before: AMP006 (at 1 alone; at the score's row beside finite training losses). Now
    AMP013: the score of a model measured on data, the training loss finite beside it."""
    assert faults(tmp_path, ["RMSE (kcal/mol) = nan"]) == [("AMP013", None)]
    assert [code for code, _step in faults(tmp_path, _property_scores(nan_from=3))] == [
        "AMP013"]
    assert [code for code, _step in faults(tmp_path, _property_scores(
        "energy MAE (meV/atom)", nan_from=3))] == ["AMP013"]  # (before: silent)
    # beside a finite training loss on its line (MACE's ``Epoch {epoch}: loss={loss},
    # RMSE_E_per_atom=...`` spelt with a unit): the evaluation's, not the loss (before: silent)
    beside = [f"Epoch {epoch}: loss = {0.5 / (epoch + 1):.4f}, RMSE (kcal/mol) = "
              f"{NAN if epoch >= 4 else 1.5 / (epoch + 1):.4f}" for epoch in range(8)]
    assert faults(tmp_path, beside) == [("AMP013", 4)]


def test_error_in_its_unit_twins_and_controls(tmp_path: Path) -> None:
    """A ``Train`` word keeps the error the training loss (AMP006); the loss itself going
    NaN is AMP006; finite scores (a unit per atom, six decimals) are quiet."""
    assert [code for code, _step in faults(tmp_path, _property_scores(
        "Train RMSE (kcal/mol)", nan_from=3))] == ["AMP006"]
    assert [code for code, _step in faults(tmp_path, _property_scores(loss_nan_from=3))] == [
        "AMP006"]
    assert faults(tmp_path, _property_scores("RMSE (meV/atom)", epochs=12)) == []


# --- 5. bare ``{step} {loss}`` rows of a language that prints ``NaN`` ------------------------


def _candle(nan_from: int | None = None, rows: int = 12, every: int = 100) -> list[str]:
    """huggingface/candle ``candle-examples/examples/llama2-c/training.rs`` ``run``: ``println!(
    "loaded dataset, train: {} files, valid: {} files", ...)``, then ``println!("{batch_index}
    {loss}")`` every 100 batches (``valid_loss``: the mean cross entropy of 50 validation
    batches), Rust's ``f64`` ``Display``: the shortest digits that round-trip, ``NaN``."""
    lines = ["loaded dataset, train: 4 files, valid: 1 files"]
    for row in range(1, rows + 1):
        step = row * every
        loss = NAN if nan_from is not None and step >= nan_from else 10.374219131469727 - row / 3
        lines.append(f"{step} {'NaN' if math.isnan(loss) else repr(loss)}")
    return lines


def test_candle_bare_nan_rows(tmp_path: Path) -> None:
    """Before: "nothing to diagnose". Now AMP006 at the first NaN row's step; the row
    before it is read as its last finite loss."""
    assert faults(tmp_path, _candle(700)) == [("AMP006", 700)]
    assert faults(tmp_path, _candle(70, every=10)[1:]) == [("AMP006", 70)]


def _nothing(tmp_path: Path, lines: list[str]) -> bool:
    path = tmp_path / "bare.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = diagnose(str(path))
    return not result.faults and "nothing to diagnose" in (result.error or "")


def test_bare_nan_controls(tmp_path: Path) -> None:
    """Healthy candle rows (every 50) read nothing, as before; a pandas frame's ``NaN`` under
    its header, a Series' (index 0, 1, 2..., its ``Name:`` after) and a NaN after two rows
    only stay unread."""
    assert _nothing(tmp_path, _candle(every=50, rows=30))
    frame = ["        loss", *(f"{i}  {2.5 - i / 10:.6f}" for i in range(5)), "5       NaN"]
    assert _nothing(tmp_path, frame)
    series = [*(f"{i}    {2.5 - i / 10:.6f}" for i in range(5)), "5         NaN",
              "Name: val_loss, dtype: float64"]
    assert _nothing(tmp_path, series)
    assert _nothing(tmp_path, _candle(300, rows=3)[1:])


# --- 3. HF Trainer's rows without a step, NaN grad norms under a finite loss -----------------


def _trainer_rows(nan_from: int | None = 30, rows: int = 60, every: int = 5,
                  bar: bool = False) -> list[str]:
    """transformers ``trainer.py`` ``log``: ``print`` of ``{'loss': ..., 'grad_norm': ...,
    'learning_rate': ..., 'epoch': ...}`` every ``logging_steps`` (5), 40 steps an epoch; from
    row ``nan_from`` the gradient norm NaN and the loss finite (``logging_nan_inf_filter``
    adds the average of the logged losses for a NaN step's); ``bar``: behind the Trainer's
    tqdm bar (``{n}/{total}``), which ``tqdm.write`` clears to print the row."""
    total = rows * every
    lines = []
    for row in range(1, rows + 1):
        step, bad = row * every, nan_from is not None and row >= nan_from
        text = (f"{{'loss': {2.5 - row / 100:.4f}, 'grad_norm': "
                f"{'nan' if bad else f'{1 + row / 50:.4f}'}, 'learning_rate': "
                f"{5e-05 * (1 - step / total):.4e}, 'epoch': {step / 40:.2f}}}")
        if bar:
            drawn = f" {step * 100 // total}%|█         | {step}/{total} [01:00<10:00,  3.1s/it]"
            text = f"{drawn}\r{' ' * len(drawn)}\r{text}"
        lines.append(text)
    return lines


def test_trainer_rows_without_step_already_get_amp003(tmp_path: Path) -> None:
    """Held as it stands (a control on the parent too): AMP003 at the first NaN row, the
    steps the rows' places; at the bar's step behind the bar."""
    result = diagnose_lines(tmp_path, _trainer_rows())
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", 30)]
    assert result.steps_are_rows
    assert faults(tmp_path, _trainer_rows(bar=True)) == [("AMP003", 150)]
    assert faults(tmp_path, _trainer_rows(None)) == []
    assert faults(tmp_path, _trainer_rows(None, bar=True)) == []


# --- 4. an overflow line printed before its step's block -------------------------------------


def test_guided_diffusion_nan_before_its_table(tmp_path: Path) -> None:
    """Before: AMP003 at 2001 (log_interval 10, the NaN run from 2000). Now at 2000."""
    lines = _guided_diffusion(range(0, 4001), nan_at=range(2000, 2020))
    assert faults(tmp_path, lines) == [("AMP003", 2000)]


def test_guided_diffusion_block_controls(tmp_path: Path) -> None:
    """A NaN run from inside the interval (1995) leaves the table at 2000 a lower
    ``lg_loss_scale`` mean: its first line keeps the step after the table before (1991, as
    on the parent); isolated NaNs at a table's step or inside the interval stay quiet."""
    assert [step for _code, step in faults(tmp_path, _guided_diffusion(
        range(0, 4001), nan_at=range(1995, 2015)))][:1] == [1991]
    assert faults(tmp_path, _guided_diffusion(range(0, 4001), nan_at=(1000, 2000, 3000))) == []
    assert faults(tmp_path, _guided_diffusion(range(0, 4001), nan_at=(1005, 2005, 3005))) == []
