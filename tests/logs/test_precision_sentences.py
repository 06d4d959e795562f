"""A run that says it switched its mixed precision off, in wordings no table row knows (a
custom loop's guard, a toolkit nobody described): AMP010, fp16 asked for and not active, at the
step the line names. A setting, a condition and a flag's name stay quiet.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs import precision_sentences

HEALTHY = [f"step {i} | loss {2.3 - i * 0.001:.4f} | lr 1.0e-04" for i in range(1, 60)]
# A line after 59 healthy steps, and what it gives: a switch to fp32 for a cause is AMP010 at
# the last step read (each was "no fault found": no table row holds these wordings); a
# setting, a condition and a flag's name are nothing.
LINES = {
    "AMP disabled: NaN detected in the first steps, falling back to fp32": True,
    "Automatic mixed precision turned off because the loss overflowed": True,
    "Disabling AMP after repeated overflows": True,
    "WARNING: fp16 produced inf gradients 5 times in a row, switching to fp32": True,
    "mixed precision has been disabled (non-finite loss), reverting to full precision": True,
    "amp: disabled": False,
    "Mixed precision: disabled (fp32 run)": False,
    "disable_amp_on_nan: True": False,
    "Will disable AMP if the loss becomes NaN": False,
    "--fp16-fallback: switch to fp32 when overflows persist": False,
    "AMP enabled: dynamic loss scale, init 65536, skips steps with inf/nan gradients": False,
}


@pytest.mark.parametrize("line", LINES)
def test_a_switch_to_fp32_for_a_cause_is_amp010(tmp_path: Path, line: str) -> None:
    switched = LINES[line]
    assert bool(precision_sentences.parse(line)) is switched
    assert faults(tmp_path, [*HEALTHY, line, *HEALTHY[:5]]) == ([("AMP010", 59)] if switched
                                                                else [])


def test_the_switch_takes_the_step_its_line_names(tmp_path: Path) -> None:
    line = "step 40: AMP disabled after repeated overflows, training in fp32"
    assert faults(tmp_path, [*HEALTHY, line]) == [("AMP010", 40)]


def test_the_cause_is_the_trouble_the_guard_reacted_to(tmp_path: Path) -> None:
    """Before: AMP010's catalog text ("the configuration asks for fp16 ... HF Trainer ignores
    fp16=True on CPU"), which fits a setup that never enabled fp16, not a guard that switched
    it off for a NaN or an overflow."""
    for line, why in (("step 40: AMP disabled after repeated overflows, training in fp32",
                       "an overflow"),
                      ("AMP disabled: NaN detected in the first steps, falling back to fp32",
                       "a NaN")):
        [found] = diagnose_lines(tmp_path, [*HEALTHY, line]).faults
        assert (found.code, found.evidence["cause"]) == ("AMP010", "switched-off")
        assert f"the run's own guard switched fp16 off after {why}" in (found.root_cause or "")
        assert "Find the first NaN or overflow before the switch" in (found.fix or "")
