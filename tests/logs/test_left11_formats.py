"""Known misreadings, part 2 (issue #27): each excerpt built from the tool's own format
strings, the doctor's ids and steps asserted, and healthy controls in non-default settings."""

from __future__ import annotations

import re
from pathlib import Path

from excerpts import faults
from test_trainers_formats import _composer

NAN = float("nan")


def _collapsed(lines: list[str]) -> list[str]:
    """Lines as a chat tool shows them: a tab as blanks, a run of blanks as one."""
    return [re.sub(r" {2,}", " ", line.replace("\t", "    ")) for line in lines]


def test_collapsed_composer_records_by_epoch(tmp_path: Path) -> None:
    """Composer's records (mosaicml/composer ``composer/loggers/console_logger.py``, the
    ``\\t Train {name}: {value}`` rows under ``[epoch=2][batch=5/32]:``) collapsed by a chat
    tool: the rows are still read as their record's (the NaN at batch 130 of 32-batch epochs is
    the record's own batch count, not the row count), and a healthy run stays silent."""
    losses = [7.5 - i / 10 for i in range(30)]
    sick = _composer([NAN if i >= 12 else loss for i, loss in enumerate(losses)], 10,
                     epoch_length=40, eval_every=40)
    assert faults(tmp_path, _collapsed(sick))[:1] == [("AMP006", 130)]
    healthy = _composer(losses, 10, epoch_length=40, eval_every=40, eval_loss=3.25)
    assert faults(tmp_path, _collapsed(healthy)) == []


def _t2t_run(scaler_line: str, steps: int = 30) -> list[str]:
    """tensor2tensor's start (tensorflow/tensor2tensor ``tensor2tensor/utils/optimize.py``,
    ``ConditionalOptimizer.__init__``: ``tf.logging.info("Using optimizer %s", ...)`` and,
    with fp16 activations over fp32 weights, its loss scaler line) behind TF1's
    ``WARNING:tensorflow:``/``INFO:tensorflow:`` prefix, then tf.estimator's
    ``loss = %s, step = %s (%.3f sec)`` lines every 100 steps, the loss finite."""
    lines = ["INFO:tensorflow:Using optimizer adam", scaler_line]
    for i in range(1, steps + 1):
        lines += [f"INFO:tensorflow:global_step/sec: {3.9 + i / 1000:.4f}",
                  f"INFO:tensorflow:loss = {6.5 - i / 20:.4f}, step = {i * 100} (25.{i:03d} sec)"]
    return lines


def test_t2t_mixed_precision_without_a_loss_scaler(tmp_path: Path) -> None:
    """tensor2tensor's ``tf.logging.warning("Using mixed precision without a loss scaler will
    likely cause numerical errors.")`` (optimize.py, ``mixed_precision_optimizer_loss_scaler``
    unset): AMP001, fp16 without a loss scaler, though every loss is finite. Control: the
    same run with the exponential scaler at a non-default initial scale, whose ``info`` call
    hands a tuple to the logger (printed as the tuple): silent."""
    warned = "WARNING:tensorflow:Using mixed precision without a loss scaler will likely cause " \
        "numerical errors."
    assert faults(tmp_path, _t2t_run(warned)) == [("AMP001", None)]
    scaled = ("INFO:tensorflow:('Using Exponential Update Loss Scaler with', "
              "'init loss scale of 1024')")
    assert faults(tmp_path, _t2t_run(scaled)) == []
