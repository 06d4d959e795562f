"""Metric tables as people paste them: a Markdown table (a notebook's table retyped for a
README or a thread: ``| Step | Training Loss | Validation Loss |``), a table rich draws
(``┃ Step ┃ Train Loss ┃`` over ``│ 100 │ 2.29 │``, Lightning's results table among them),
and a pandas DataFrame printed with its index. The rich and pandas tables are drawn here by
rich and pandas themselves; Lightning's by its own ``_EvaluationLoop._print_results``.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose

STEPS = range(100, 2000, 100)


def _loss(step: int, nan_from: int | None) -> float:
    return math.nan if nan_from is not None and step >= nan_from else 2.3 - step / 1e4


def _markdown(nan_from: int | None = None, *, names: tuple[str, ...] = (
        "Step", "Training Loss", "Validation Loss")) -> list[str]:
    """A GitHub-flavoured Markdown table: the header row, the delimiter row, a row a step."""
    rows = ["| " + " | ".join(names) + " |", "|" + "|".join("-" * (len(n) + 2) for n in names)
            + "|"]
    for step in STEPS:
        loss = _loss(step, nan_from)
        rows.append(f"| {step} | {'nan' if math.isnan(loss) else f'{loss:.4f}'} | 1.9000 |")
    return rows


def _rich(nan_from: int | None = None) -> list[str]:
    """A table rich draws (``rich.table.Table``, its default box), as a script prints its
    history with ``Console().print(table)``."""
    table_mod = pytest.importorskip("rich.table")
    console_mod = pytest.importorskip("rich.console")
    table = table_mod.Table("Step", "Train Loss", "LR")
    for step in STEPS:
        table.add_row(str(step), f"{_loss(step, nan_from):.4f}", "0.0001")
    buffer = io.StringIO()
    console_mod.Console(file=buffer, width=100, color_system=None).print(table)
    return buffer.getvalue().splitlines()


def _dataframe(nan_from: int | None = None) -> list[str]:
    """``print(pd.DataFrame(history))``: the index printed under no name, a NaN as ``NaN``."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"step": list(STEPS), "loss": [_loss(s, nan_from) for s in STEPS],
                          "learning_rate": [1e-4] * len(STEPS)})
    return frame.to_string().splitlines()


def _lightning_results(value: float, *, with_rich: bool) -> list[str]:
    """Lightning's results table after ``trainer.validate`` (lightning/pytorch/loops/
    evaluation_loop.py ``_print_results``): rich's when rich is there, else its own rules."""
    evaluation = pytest.importorskip("lightning.pytorch.loops.evaluation_loop")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        if with_rich:
            console_mod = pytest.importorskip("rich.console")
            rich = pytest.importorskip("rich")
            kept = rich._console
            rich._console = console_mod.Console(file=buffer, width=120, color_system=None)
            try:
                evaluation._EvaluationLoop._print_results(
                    [{"val_loss": value, "val_acc": 0.5}], "validate")
            finally:
                rich._console = kept
        else:
            saved = evaluation._RICH_AVAILABLE
            evaluation._RICH_AVAILABLE = False
            try:
                evaluation._EvaluationLoop._print_results(
                    [{"val_loss": value, "val_acc": 0.5}], "validate")
            finally:
                evaluation._RICH_AVAILABLE = saved
    return buffer.getvalue().splitlines()


def _quiet(tmp_path: Path, lines: list[str]) -> bool:
    """No diagnosis on ``lines``, where "nothing to diagnose" (no training metric) is quiet."""
    path = tmp_path / "table.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return not diagnose(str(path)).diagnoses


def test_markdown_table_with_names_of_two_words(tmp_path: Path) -> None:
    """Before: "no fault found": the names were read word by word (``Training``, ``Loss``),
    so no row lined up with them."""
    assert faults(tmp_path, _markdown(1200)) == [("AMP006", 1200)]


def test_table_drawn_by_rich(tmp_path: Path) -> None:
    """Before: "no fault found": the rules between the cells were read as cells, and a row's
    first cell (``│ 100  │``) was taken off as an editor's line number."""
    assert faults(tmp_path, _rich(1200)) == [("AMP006", 1200)]


def test_dataframe_printed_with_its_index(tmp_path: Path) -> None:
    """Before: "no fault found": the index was read as the ``step`` column, the step as the
    loss."""
    assert faults(tmp_path, _dataframe(1200)) == [("AMP006", 1200)]


def test_lightning_results_table_with_a_nan_validation_loss(tmp_path: Path) -> None:
    """Before: rich's table was "none with a training metric"; Lightning's own rules (no
    rich) were read already. Both: the evaluation's NaN (AMP013)."""
    for with_rich in (True, False):
        result = diagnose_lines(tmp_path, _lightning_results(math.nan, with_rich=with_rich))
        assert [d.code for d in result.diagnoses] == ["AMP013"], with_rich


def test_healthy_tables_are_quiet(tmp_path: Path) -> None:
    """Controls (silent before too; the rich one was not read at all): the same tables of a
    healthy run, a results table of models (no step, every value finite), Lightning's
    results with a finite loss, and an editor's numbered lines, which stay a number and a
    line."""
    assert faults(tmp_path, _markdown()) == []
    assert faults(tmp_path, _rich()) == []
    assert faults(tmp_path, _dataframe()) == []
    models = ["| Model | Train Loss | Accuracy |", "|---|---|---|", "| bert-base | 0.4100 | 0.91 |",
              "| roberta-large | 0.3500 | 0.93 |"]
    assert _quiet(tmp_path, models)
    for with_rich in (True, False):
        assert _quiet(tmp_path, _lightning_results(0.71, with_rich=with_rich))
    numbered = [f"{n:>3} │ loss = criterion(out, y)  # step {n}" for n in range(1, 30)]
    assert _quiet(tmp_path, numbered)


def test_pipes_between_one_word_names_read_as_before(tmp_path: Path) -> None:
    """Control (read right before): pipes between names of one word each, and a loop's
    ``step 100 | loss 2.29 | lr 1e-4`` lines, are read by blanks as they were."""
    single = _markdown(1200, names=("step", "loss", "val_loss"))
    assert faults(tmp_path, single) == [("AMP006", 1200)]
    loop = [f"step {s} | loss {'nan' if s >= 1200 else f'{2.3 - s / 1e4:.4f}'} | lr 1e-4"
            for s in STEPS]
    assert faults(tmp_path, loop) == [("AMP006", 1200)]
