"""torch's anomaly mode stops a run at the first NaN a backward produces (torch/csrc/autograd/
engine.cpp: ``Function '{name}' returned nan values in its {i}th output.``). The doctor reads
it as AMP006 and, where the run's losses decide nothing, says why a backward makes a NaN: an
operation whose gradient is undefined at finite inputs, or an inf flowing in, and under fp16
with a loss scaler an overflow the scaler would have skipped.

The errors are raised here by running torch (2.13, CPU) with ``set_detect_anomaly(True)``, and
the traceback written as Python prints it. Before: the catalog's AMP006 text, "the value was
already NaN/inf in the forward pass", for a NaN that only the backward made.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from pathlib import Path

import torch
from excerpts import diagnose_lines

from denpex_callbacks.core.diagnosis import Diagnosis


def _sqrt_at_zero() -> None:
    # a distance of a point to itself: sqrt's gradient at 0 is inf, times the 0 flowing in, NaN
    x = torch.zeros(3, requires_grad=True)
    (torch.sqrt(x) * 0).sum().backward()


def _inf_flowing_into_a_product() -> None:
    # a scaled fp16 gradient past 65504 is inf; inf * 0 in a product's backward is NaN
    w = torch.ones(3, dtype=torch.float16, requires_grad=True)
    h = w * torch.tensor([0.0, 1.0, 1.0], dtype=torch.float16)
    (h * 60000).sum().mul(4).backward()


def _raised(make: Callable[[], None]) -> list[str]:
    with torch.autograd.set_detect_anomaly(True, check_nan=True):
        try:
            make()
        except RuntimeError:
            return traceback.format_exc().splitlines()
    raise AssertionError("anomaly mode raised nothing")


def _loop_then(error: list[str], setup: list[str]) -> list[str]:
    return [*setup, *(f"step {s} loss {2.3 - s / 100:.4f}" for s in range(1, 31)), *error]


def _diagnosis(tmp_path: Path, lines: list[str]) -> Diagnosis:
    found = diagnose_lines(tmp_path, lines).faults
    assert [d.code for d in found] == ["AMP006"]
    return found[0]


def test_a_gradient_undefined_at_finite_inputs_is_named(tmp_path: Path) -> None:
    error = _raised(_sqrt_at_zero)
    assert "Function 'SqrtBackward0' returned nan values in its 0th output." in error[-1]
    found = _diagnosis(tmp_path, _loop_then(error, []))
    assert found.evidence["cause"] == "backward-nan"
    assert found.evidence["anomaly_op"] == "SqrtBackward0"
    assert "Sqrt's gradient is undefined at some finite inputs" in (found.root_cause or "")
    assert "torch.sqrt(x + 1e-12)" in (found.fix or "")


def test_an_inf_flowing_in_reads_as_a_possible_overflow_under_fp16(tmp_path: Path) -> None:
    error = _raised(_inf_flowing_into_a_product)
    assert "returned nan values" in error[-1]
    found = _diagnosis(tmp_path, _loop_then(error, []))
    assert found.evidence["cause"] == "backward-nan"
    root = found.root_cause or ""
    assert "an inf in the gradient flowing into" in root
    assert "the scaler would have skipped that step" in root
    assert "set_detect_anomaly(False)" in (found.fix or "")


def test_a_run_in_bf16_is_not_told_about_a_loss_scaler(tmp_path: Path) -> None:
    """Control: Lightning's precision notice says bf16 (no scaler to blame)."""
    error = _raised(_inf_flowing_into_a_product)
    bf16 = ["Using bfloat16 Automatic Mixed Precision (AMP)"]
    found = _diagnosis(tmp_path, _loop_then(error, bf16))
    assert found.evidence["cause"] == "backward-nan"
    assert "loss scaler" not in (found.root_cause or "")



def test_a_loss_that_rose_before_the_error_says_divergence(tmp_path: Path) -> None:
    """A plain loop's lines say nothing of skipped steps: that is no "no update applied yet"
    (which ruled the optimizer out), so a loss that rose a million-fold before the NaN, or
    before anomaly mode's error, is the optimizer diverging. Before: the catalog's text, no
    cause, for both."""
    rising = [f"step {s} loss {2.0 if s < 35 else 2.0 * 4 ** (s - 34):.4f}" for s in range(1, 46)]
    found = diagnose_lines(tmp_path, [*rising, "step 46 loss nan", "step 47 loss nan"]).faults
    assert [(d.code, d.step, d.evidence.get("cause")) for d in found] == [
        ("AMP006", 46, "divergence")]
    found = diagnose_lines(tmp_path, [*rising, *_raised(_sqrt_at_zero)]).faults
    assert [(d.code, d.evidence.get("cause")) for d in found] == [("AMP006", "divergence")]
    steady = [f"step {s} loss {2.3 - s / 100:.4f}" for s in range(1, 46)]
    found = diagnose_lines(tmp_path, [*steady, "step 46 loss nan", "step 47 loss nan"]).faults
    assert [(d.code, d.evidence.get("cause")) for d in found] == [("AMP006", None)]
