"""An exception whose message names a non-finite loss (``FloatingPointError: Non-finite
training loss on ...``, ``RuntimeError: non-finite LOSS ep18: ...``, ``ValueError: NaN total
loss``) is AMP006 where the loop raised it, as one that says a NaN was found is
(denpex_callbacks/logs/raised_nonfinite.py); a validation loss's, a negated one and the
``raise`` echoed in the traceback are none, and a healthy run that ends without one stays
silent. Rows and messages made up in layouts the samples did not show."""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults


def rows(epochs: int, message: str | None) -> list[str]:
    """``epoch E/20 - loss: 0.0123 - psnr: 31.2`` an epoch (from 1), then the traceback of
    ``message`` raised in the next epoch (none: the run ends)."""
    out = [f"epoch {e}/20 - loss: {0.02 * 0.9 ** e:.4f} - psnr: {30 + e / 10:.1f}"
           for e in range(1, epochs + 1)]
    if message is None:
        return [*out, "done."]
    return [*out, "Traceback (most recent call last):", '  File "fit.py", line 88, in <module>',
            f"    raise {message.split(':')[0]}(msg)", message]


@pytest.mark.parametrize("message", [
    "FloatingPointError: Non-finite training loss on at least one rank at epoch=7 batch=12",
    "RuntimeError: non-finite LOSS ep7: input range [-1.2,3.4]",
    "ValueError: NaN total loss",
    "AssertionError: inf reconstruction losses in this batch",
    "my_pkg.errors.TrainingError: nan loss, aborting",
])
def test_a_raised_non_finite_loss_is_amp006(tmp_path: Path, message: str) -> None:
    """The epoch after the last row printed is where the run raised it."""
    assert faults(tmp_path, rows(6, message)) == [("AMP006", 7)]


@pytest.mark.parametrize("message", [
    None,
    "RuntimeError: non-finite validation loss at epoch 7",
    "AssertionError: no non-finite loss may reach the optimizer",
    "ValueError: loss weights must be finite",
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
])
def test_other_endings_raise_no_non_finite_loss(tmp_path: Path, message: str | None) -> None:
    """A run that ends, an evaluation's loss, a negation and other errors: no AMP006."""
    assert ("AMP006", 7) not in faults(tmp_path, rows(6, message))
