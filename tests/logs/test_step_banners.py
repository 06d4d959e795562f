"""A step printed on a line of its own, its metrics below it: the banner a hand-written loop
prints (``==== Step 100 ====``, ``[Step 100]``, ``--- Iteration 100 ---``, ``global step
100``), over ``loss: x`` lines or over an indented mapping (``    loss: x`` / ``    lr: y``,
as ``print(f"  {k}: {v}")`` over a dict writes it); and a CSV whose step column is not
Lightning's ``step`` (``Step``, ``global_step``, ``iteration``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose

STEPS = range(100, 2000, 100)
BANNERS = ("==== Step {s} ====", "[Step {s}]", "*** step {s} ***", "### Step {s}",
           "--- Iteration {s} ---", "Iteration {s}", "global step {s}", ">> step {s}",
           "step: {s}", "Step {s}/2000")


def _loss(step: int, nan_from: int | None) -> str:
    return "nan" if nan_from is not None and step >= nan_from else f"{2.3 - step / 1e4:.4f}"


def _blocks(banner: str, nan_from: int | None = None, *, indent: str = "") -> list[str]:
    rows: list[str] = []
    for step in STEPS:
        rows += [banner.format(s=step), f"{indent}loss: {_loss(step, nan_from)}",
                 f"{indent}lr: 0.0001"]
    return rows


@pytest.mark.parametrize("banner", BANNERS)
def test_banner_over_its_metric_lines(tmp_path: Path, banner: str) -> None:
    """Before: step 12 (the rows counted) for every banner but ``step: N`` and ``Step
    N/M``: the banner holds no keyword and was not handed to the reader."""
    assert faults(tmp_path, _blocks(banner, 1200)) == [("AMP006", 1200)]


@pytest.mark.parametrize("banner", BANNERS)
def test_banner_over_an_indented_mapping(tmp_path: Path, banner: str) -> None:
    """Before: step 12, or the step a record too late: the indented rows were read as a YAML
    mapping numbered by rows, and an unindented ``step: N`` line went on the mapping above
    it as one of its rows."""
    assert faults(tmp_path, _blocks(banner, 1200, indent="    ")) == [("AMP006", 1200)]


def test_healthy_blocks_are_quiet(tmp_path: Path) -> None:
    """Controls (silent before too): every banner over healthy metric lines, indented or
    not."""
    for banner in BANNERS:
        for indent in ("", "    "):
            assert faults(tmp_path, _blocks(banner, indent=indent)) == [], (banner, indent)


@pytest.mark.parametrize("sort_keys", [False, True])
def test_yaml_dump_of_each_steps_metrics(tmp_path: Path, sort_keys: bool) -> None:
    """``print(yaml.dump({"train": {"loss": ..., "lr": ...}, "step": N}))`` (drawn by PyYAML
    here): sorted, ``step: N`` opens each record; in the dict's order (``sort_keys=False``)
    it closes it. Before: step 12 both ways (a ``step: N`` row that closes a record was read
    as a step line and left the mapping above it unnumbered; one that opens it numbered
    nothing below)."""
    yaml = pytest.importorskip("yaml")
    dump: list[str] = []
    for step in STEPS:
        loss = float("nan") if step >= 1200 else 2.3 - step / 1e4
        dump += yaml.dump({"train": {"loss": loss, "lr": 0.0001}, "step": step},
                          sort_keys=sort_keys).splitlines()
    assert faults(tmp_path, dump) == [("AMP006", 1200)]


@pytest.mark.parametrize("column", ["Step", "global_step", "iteration"])
def test_csv_step_column_by_its_role(tmp_path: Path, column: str) -> None:
    """Before: step 60 (the CSV's row): only a column named ``step`` was read as the step."""
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join([f"{column},loss,lr"] + [
        f"{s},{_loss(s, 1200)},0.0001" for s in range(20, 2000, 20)]) + "\n")
    result = diagnose(str(path))
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 1200)]
