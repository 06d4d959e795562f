"""Layouts a training script writes for itself, copied everywhere: the step is the one the
log prints, where the count of an epoch's batches names what it counts after it, or where a
run's own JSON record nests its metrics under their split.

- pytorch/examples ``word_language_model/main.py`` (and the PyTorch transformer tutorial
  after it): ``'| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | loss
  {:5.2f} | ppl {:8.2f}'`` every ``log_interval`` batches (``batch % log_interval == 0 and
  batch > 0``), epochs from 1, then ``'| end of epoch {:3d} | time: {:5.2f}s | valid loss
  {:5.2f} | valid ppl {:8.2f}'`` between rules of 89 dashes;
- a JSON-lines record ``json.dumps({"iter": i, "train": {"loss": ..., "lr": ...}})``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults

_BATCHES = 2983
_RULE = "-" * 89


def _word_language_model(nan_from: tuple[int, int] | None = None, epochs: int = 2,
                         interval: int = 200) -> list[str]:
    lines = []
    for epoch in range(1, epochs + 1):
        for batch in range(interval, _BATCHES, interval):
            bad = nan_from is not None and (epoch, batch) >= nan_from
            loss = math.nan if bad else 7.6 - epoch * 0.8 - batch / 5000
            lines.append(f"| epoch {epoch:3d} | {batch:5d}/{_BATCHES:5d} batches | lr 20.00 | "
                         f"ms/batch 45.47 | loss {loss:5.2f} | ppl {math.exp(loss):8.2f}")
        valid = math.nan if nan_from is not None and epoch >= nan_from[0] else 5.5 - epoch / 10
        lines += [_RULE, f"| end of epoch {epoch:3d} | time: 140.59s | valid loss {valid:5.2f} "
                  f"| valid ppl {math.exp(valid):8.2f}", _RULE]
    return lines


def test_word_language_model_counts_the_epochs_batches(tmp_path: Path) -> None:
    """Before: the batch count before ``batches`` was not read (the step was the row's
    number, 22). The epoch's closing NaN validation loss is evaluation's, after the epoch's
    last row (batch 2800)."""
    assert faults(tmp_path, _word_language_model((2, 1000))) == [
        ("AMP006", _BATCHES + 1000), ("AMP013", _BATCHES + 2800)]


def _nested_records(nan_from: int | None = None, key: str = "iter") -> list[str]:
    return [json.dumps({key: step, "train": {
        "loss": math.nan if nan_from is not None and step >= nan_from else 2.5 - step / 1e4,
        "lr": 1e-4}}) for step in range(10, 610, 10)]


def test_nested_record_keeps_its_counter(tmp_path: Path) -> None:
    """Before: the metrics' dict was read as HF Trainer's row, without the outer record's
    counter (step 40, the row's number)."""
    assert faults(tmp_path, _nested_records(400)) == [("AMP006", 400)]
    assert faults(tmp_path, _nested_records(400, key="global_step")) == [("AMP006", 400)]


def test_controls(tmp_path: Path) -> None:
    """Healthy runs, with another print interval (silent on the parent too)."""
    assert faults(tmp_path, _word_language_model()) == []
    assert faults(tmp_path, _word_language_model(interval=50, epochs=3)) == []
    assert faults(tmp_path, _nested_records()) == []
