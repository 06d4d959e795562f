"""Controls from the second audit of the log doctor's format rules: healthy excerpts and texts
that are no training log, in the formats the latest rules read, each with the verdict that
the rule got wrong before its fix (a false alarm, or 'no fault found' on a text that is no
log)."""

from __future__ import annotations

import math

from excerpts import diagnose_lines, faults


def _loss(i: int) -> str:
    return f"{2.5 * math.exp(-i / 8) + 0.1:.4f}"


def test_epoch_rows_with_a_healthy_sawtooth_are_no_stuck_scale(tmp_path) -> None:
    # One row an epoch with its fp16 scale (a loop printing ``scaler.get_scale()`` at each
    # epoch's end): the rows are numbered by their epoch, but each stands for an epoch's
    # steps. A scale that halved once and grew back at the next epoch shows no growth
    # interval of one step, and staying put for five epochs is no stuck scale (AMP005 at
    # step 15 when the epochs were taken for consecutive steps).
    lines = []
    scale = 65536.0
    for epoch in range(30):
        if epoch % 7 == 6:
            scale /= 2
        elif epoch % 7 == 0 and epoch:
            scale *= 2
        lines.append(f"Epoch {epoch} | loss {_loss(epoch)} | loss_scale {scale:.1f} "
                     f"| grad_norm 1.{epoch % 10}21")
    result = diagnose_lines(tmp_path, lines)
    assert result.error is None and result.faults == []
    # ...and a NaN loss is still found at its epoch
    lines[23] = "Epoch 23 | loss nan | loss_scale 65536.0 | grad_norm nan"
    assert ("AMP006", 23) in faults(tmp_path, lines)
