"""A bare ``scale`` column (a loop's ``scale: {scaler.get_scale():.1f}``, read as a loss scale
where its values are a scaler's) that prints a scale below its last digit as ``0.0`` shows a
rounded scale, not an exact 0: one AMP004 (a warning) where the scale fell below 1, no second
"exactly 0.0" one (metric_reader's bare scale through ``scale_prints.rounded_zero``, as a
``loss_scale`` column already was). A column that prints full precision, or one whose last
scale could not have halved to what prints as 0 in the steps between, still shows an exact
0 (an error). Rows made up in layouts the samples did not show."""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines


def rows(scales: list[str], every: int = 25, loss: str = "0.4312") -> list[str]:
    """``it 25 | mse 0.4312 | scale 16384.0`` every ``every`` iterations, the scale as
    ``scales`` spells it."""
    return [f"it {every * (i + 1)} | mse {loss} | scale {x}" for i, x in enumerate(scales)]


def severities(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, str]]:
    """(id, step, severity) of each diagnosis above info."""
    return [(d.code, d.step, str(d.severity)) for d in diagnose_lines(tmp_path, lines).faults]


@pytest.mark.parametrize(("scales", "right"), [
    pytest.param(["16384.0"] * 8 + ["0.1", "0.0", "0.0"], [("AMP004", 225, "warning")],
                 id="one_decimal"),
    pytest.param(["2048.00"] * 8 + ["0.25", "0.00", "0.00"], [("AMP004", 225, "warning")],
                 id="two_decimals"),
])
def test_a_rounded_zero_is_a_scale_below_the_last_digit(
        tmp_path: Path, scales: list[str], right: list[tuple[str, int, str]]) -> None:
    """The fall below 1 is said once, a warning: the 0 that follows is the print's."""
    assert [f for f in severities(tmp_path, rows(scales)) if f[0] == "AMP004"] == right


@pytest.mark.parametrize(("scales", "every"), [
    pytest.param(["16384.0"] * 8 + ["1.52587890625e-05", "0.0"], 25, id="full_precision"),
    pytest.param(["16384.0"] * 8 + ["0.0"], 1, id="too_few_steps_to_halve_there"),
])
def test_an_exact_zero_stays_an_error(tmp_path: Path, scales: list[str], every: int) -> None:
    """A column that printed digits a fixed precision would cut, or a 0 one step after
    16384 (``update(new_scale=0.0)``: one halving cannot print 0): exact, an error."""
    found = severities(tmp_path, rows(scales, every=every))
    assert ("AMP004", "error") in [(code, severity) for code, _step, severity in found]


def test_a_healthy_bare_scale_stays_silent(tmp_path: Path) -> None:
    """Back-offs and regrowth of a bare scale printed with one decimal raise nothing."""
    scales = ["1024.0", "512.0", "256.0", "256.0", "512.0", "512.0", "1024.0", "1024.0"]
    assert severities(tmp_path, rows(scales, every=500)) == []
