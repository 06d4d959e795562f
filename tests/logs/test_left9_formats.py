"""Small misreadings of plain layouts, fixed by rules for the kind of layout.

Each case, its source, what the doctor said before and what it says now:

- A plain loop's ``print(f"train_loss = {loss}")``, one row a step and no step printed: the
  rows were read as HF's closing ``  train_loss = ...`` block (transformers
  ``trainer_pt_utils.py`` ``log_metrics``, whose every key is indented): AMP006 at no step.
  Now the rows count as ``loss = v`` rows do (AMP006 at the NaN's row, steps read as rows);
  the indented block stays a summary.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults

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
