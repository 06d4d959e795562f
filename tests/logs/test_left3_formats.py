"""Misses left by earlier rounds, re-created from each tool's own format strings (each test
names its source) and fixed by a general rule, each beside healthy controls.

- lucidrains/DALLE2-pytorch (``train_decoder.py``): its validation pass prints ``Epoch
  {epoch}/{epochs} Val Step {i} -  Sample {n} - {rate:.2f} samples/sec`` over ``Loss:
  {tensor}``; the step line holds no prefilter keyword, so the ``Loss:`` lines were read alone
  as training's. An evaluation pass's step line right above a candidate is now handed over
  with it (``reader._EVAL_STEP``), and a loss alone right below an evaluation line that
  measured nothing is that evaluation's (``metric_reader.MetricReader._goes_on``).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults

NAN = math.nan


# -- lucidrains/DALLE2-pytorch: train_decoder.py (ConsoleLogger prints each dict) ------------

def _ribbon(text: str) -> str:
    """dalle2_pytorch/utils.py ``print_ribbon(s, repeat=40)``."""
    return f"{'=' * 40} {text} {'=' * 40}"


def _dalle2(val_nan_epoch: int | None = None, train_nan: int | None = None,
            unets: int = 1) -> list[str]:
    """Two epochs of ``train_decoder.py``'s ``train``: a training dict every
    ``TRAIN_CALC_LOSS_EVERY_ITERS`` (100) steps, then the validation pass's step lines and
    its ``average_val_loss_tensor`` (shape ``(1, num_unets)``), then the validation dict."""
    lines = ["Logging to console"]
    sample = 0
    for epoch in range(2):
        lines.append(_ribbon(f"Starting epoch {epoch}"))
        for i in range(0, 1000, 100):
            sample += 3200
            step = epoch * 1000 + i
            losses = {f"Unet {u} Training Loss": NAN if train_nan is not None
                      and step >= train_nan else 0.0123 - i * 1e-6 + u * 0.01
                      for u in range(unets)}
            lines.append(str({"Epoch": epoch, "Sample": sample, "Step": i,
                              "Samples per second": 812.43, "Samples Seen": sample,
                              **{f"Unet {u} EMA Decay": 0.9999 for u in range(unets)},
                              **losses}))
        lines.append(_ribbon(f"Starting Validation {epoch}"))
        bad = epoch == val_nan_epoch
        val_sample = 0
        for i in range(0, 300, 100):
            val_sample += 3200
            lines.append(f"Epoch {epoch}/2 Val Step {i} -  Sample {val_sample} - "
                         f"{840.12:.2f} samples/sec")
            cells = ", ".join("nan" if bad and u == 0 else f"{0.0154 + u * 0.01:.4f}"
                              for u in range(unets))
            lines += [f"Loss: tensor([[{cells}]], device='cuda:0')", ""]
        lines.append("Rank 0 finished validation after 299 steps")
        lines.append(str({f"Unet {u} Validation Loss": NAN if bad and u == 0 else 0.0151
                          for u in range(unets)}))
        lines.append(_ribbon(f"Starting Saving {epoch}"))
    return lines


def test_dalle2_validation_nan_is_evaluations(tmp_path: Path) -> None:
    """Before: AMP006 at step 1901 (the first ``Loss: tensor([[nan]], ...)`` read alone as a
    training loss) beside AMP013 at 1903 (the ``Unet 0 Validation Loss`` dict)."""
    assert faults(tmp_path, _dalle2(val_nan_epoch=1)) == [("AMP013", 1900)]
    assert faults(tmp_path, _dalle2(val_nan_epoch=1, unets=2)) == [("AMP013", 1900)]


def test_dalle2_controls(tmp_path: Path) -> None:
    """Healthy runs, one UNet and two (pass on the parent too); a training NaN is still the
    training loss's (AMP006 at its step)."""
    assert faults(tmp_path, _dalle2()) == []
    assert faults(tmp_path, _dalle2(unets=2)) == []
    assert faults(tmp_path, _dalle2(train_nan=1300))[0] == ("AMP006", 1300)
