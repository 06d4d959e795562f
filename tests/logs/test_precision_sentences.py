"""A run that says it switched its mixed precision off, in wordings no table row knows (a
custom loop's guard, a toolkit nobody described): AMP010, fp16 asked for and not active, at the
step the line names. A setting, a condition and a flag's name stay quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

from denpex_callbacks.logs import precision_sentences

HEALTHY = [f"step {i} | loss {2.3 - i * 0.001:.4f} | lr 1.0e-04" for i in range(1, 60)]

SWITCHED_OFF = [
    "AMP disabled: NaN detected in the first steps, falling back to fp32",
    "Automatic mixed precision turned off because the loss overflowed",
    "Disabling AMP after repeated overflows",
    "WARNING: fp16 produced inf gradients 5 times in a row, switching to fp32",
    "mixed precision has been disabled (non-finite loss), reverting to full precision",
]


@pytest.mark.parametrize("line", SWITCHED_OFF)
def test_a_switch_to_fp32_for_a_cause_is_amp010(tmp_path: Path, line: str) -> None:
    """Each was "no fault found": no table row holds these wordings."""
    assert faults(tmp_path, [*HEALTHY, line, *HEALTHY[:5]]) == [("AMP010", 59)]


def test_the_switch_takes_the_step_its_line_names(tmp_path: Path) -> None:
    line = "step 40: AMP disabled after repeated overflows, training in fp32"
    assert faults(tmp_path, [*HEALTHY, line]) == [("AMP010", 40)]


QUIET = [
    "amp: disabled",
    "Mixed precision: disabled (fp32 run)",
    "disable_amp_on_nan: True",
    "Will disable AMP if the loss becomes NaN",
    "--fp16-fallback: switch to fp32 when overflows persist",
    "AMP enabled: dynamic loss scale, init 65536, skips steps with inf/nan gradients",
]


@pytest.mark.parametrize("line", QUIET)
def test_a_setting_or_a_condition_is_none(tmp_path: Path, line: str) -> None:
    assert precision_sentences.parse(line) == []
    assert faults(tmp_path, [line, *HEALTHY]) == []
