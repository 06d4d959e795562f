"""Tables copied as text from a notebook: the HF Trainer's notebook table
(``transformers/utils/notebook.py``: ``NotebookProgressCallback`` writes one row an
evaluation, its first column ``Step``, or ``Epoch`` under ``eval_strategy="epoch"``, then
``Training Loss`` and ``Validation Loss`` (``"No log"`` until a training loss was logged), then
each metric named from its key (``eval_rouge1`` -> ``Rouge1``); ``text_to_html_table`` prints a
float ``f"{elt:.6f}"``). Copied from the rendered table, its cells are parted by tabs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults


def _notebook(rows: int, *, first: str = "Step", every: int = 100,
              zero_from: int | None = None, nan_from: int | None = None,
              val_nan_from: int | None = None, no_log: int = 0,
              metrics: tuple[str, ...] = ("Rouge1", "Rouge2", "Rougel")) -> list[str]:
    """The table below its progress line; ``no_log`` first rows without a training loss."""
    out = [f"[{rows * every}/{rows * every * 2} 12:34 < 12:34, 2.00 it/s, Epoch 1.50/3]",
           "\t".join([first, "Training Loss", "Validation Loss", *metrics])]
    for row in range(1, rows + 1):
        at = row * every if first == "Step" else row
        train = f"{3.0 - row / 20:.6f}"
        if zero_from is not None and at >= zero_from:
            train = f"{0.0:.6f}"
        if nan_from is not None and at >= nan_from:
            train = "nan"
        valid = f"{3.1 - row / 20:.6f}"
        if (val_nan_from is not None and at >= val_nan_from) or train == "nan":
            valid = "nan"
        if row <= no_log:
            train = "No log"
        out.append("\t".join([str(at), train, valid, *(f"{0.2 + row / 100:.6f}" for _ in metrics)]))
    return out


def test_the_t5_overflow_in_a_notebook_table_is_read(tmp_path: Path) -> None:
    # t5 under fp16: the training loss logged as 0.0 and the validation loss NaN from step 600
    found = faults(tmp_path, _notebook(15, zero_from=600, val_nan_from=600))
    assert ("AMP007", 600) in found and ("AMP013", 600) in found, found


def test_a_nan_training_loss_in_an_epoch_table(tmp_path: Path) -> None:
    found = faults(tmp_path, _notebook(6, first="Epoch", nan_from=3, metrics=("Accuracy",)))
    assert found[0] == ("AMP006", 3), found


def test_no_log_cells_keep_the_columns_in_place(tmp_path: Path) -> None:
    # a "No log" training loss is two words: the cell still ends at its tab
    found = faults(tmp_path, _notebook(12, no_log=3, val_nan_from=800))
    assert found == [("AMP013", 800)], found


@pytest.mark.parametrize("lines", [
    _notebook(15),
    _notebook(15, no_log=4),
    _notebook(8, first="Epoch", metrics=("Accuracy", "F1")),
    _notebook(15, metrics=()),
], ids=["step", "no-log", "epoch", "no-metrics"])
def test_healthy_notebook_tables_are_read_and_quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], result.faults
    assert result.reading.keys, result.reading  # read as metrics, not "nothing to diagnose"
