"""Untried tools, group seven (trainer libraries and non-PyTorch frameworks): excerpts written
from each tool's own format strings (each names its source), a fault beside healthy controls
with non-default settings.

Checked first and skipped, as the suite had tried them already: pytorch-ignite, catalyst, skorch,
allennlp, flair, sentence-transformers, spaCy, PaddlePaddle and its suites, MindSpore, MXNet
Gluon, Chainer, TensorFlow Estimator, orbit, trax, Haiku.

Tried and already right before any change here (no test kept: the suite covers their layouts):
OneFlow's LiBai (Oneflow-Inc/libai ``libai/utils/events.py`` ``CommonMetricPrinter``: `` eta:
...  iteration: 99/100000  consumed samples: 12800  total_loss: nan  ...  lr: 1.00e-04``
behind ``libai/utils/logger.py``'s ``[%(asctime)s] %(name)s %(levelname)s: `` and its coloured
``[%(asctime)s %(name)s]: ``); elegy's ProgbarLogger, Keras's bar (poets-ai/elegy
``elegy/callbacks/progbar_logger.py``: ``250/250 - 3s - loss: nan - crossentropy_loss: nan -
l2_loss: 0.0042 ...``); Sonnet's relational memory example (google-deepmind/sonnet
``sonnet/examples/rmc_learn_to_execute.py``: ``iter: {:2d}, train loss {:3f}; train acc ...``)
and Sonnet 2's ``examples/simple_mnist.py`` (``"[Epoch %d] train loss: %.05f, test acc:
%.02f%% (%d wrong)"``, epochs from 0). None of these tools prints a loss scale or an overflow
(pytorch-accelerated leaves fp16 to accelerate, Sonnet's example to TensorFlow's graph
rewrite, LiBai to OneFlow's graph): NaN losses are the faults their logs can show.

Missed before: pytorch-accelerated's TerminateOnNaNCallback, its default, stops the run on a NaN
loss before the epoch's ``train_loss_epoch`` is printed, so its only trace is the sentence
``Stopping training due to NaN loss in training step`` (then ``Exiting due to NaN loss``):
"nothing to diagnose" (no wording of the sentence reader gave a cause, ``due to``); its EMA
model's evaluation loss, ``ema_model_eval_loss_epoch`` (ModelEmaCallback prefixes the metric
names), was a training loss term, its NaN ``AMP006`` and its rows counted as steps. And Sonnet's
Shakespeare example (``sonnet/examples/rnn_shakespeare.py``: ``"%d: Training loss %f."``, the
iteration bare before a colon, behind ``tf.logging``'s ``INFO:tensorflow:``): its NaN was found,
but at the row's count, not the printed iteration (off by one from 0, by the whole start on a
resumed run).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults


def _accelerated(nan_epoch: int | None = None, epochs: int = 6, batches: int = 391,
                 early_stopping: bool = False, ema: bool = False, nan_in: str = "training",
                 ema_nan_epoch: int | None = None) -> list[str]:
    """pytorch-accelerated's default callbacks' prints (Chris-hughes10/pytorch-accelerated
    ``pytorch_accelerated/callbacks.py``): PrintProgressCallback's ``\\nStarting training run``,
    ``\\nStarting epoch {current_epoch}``, ``\\nStarting eval epoch`` and ``Finishing training
    run``; ProgressBarCallback's tqdm bars; LogMetricsCallback's ``\\n{metric_name}:
    {metric_value}`` (the value's repr); TerminateOnNaNCallback's ``StopTrainingError(f"Stopping
    training due to NaN loss in {step} step")``, printed by the trainer
    (``pytorch_accelerated/trainer.py`` ``_run_training``: ``self._accelerator.print(e)``),
    then ``sys.exit("Exiting due to NaN loss")``. ``early_stopping`` adds EarlyStoppingCallback's
    lines, ``ema`` ModelEmaCallback's ``Running evaluation on EMA model`` and its metric
    (prefixed ``ema_model_``; its evaluation runs without TerminateOnNaNCallback, so a NaN
    there is printed: from ``ema_nan_epoch`` on). ``nan_in`` is the step the NaN stops."""
    bar = "100%|██████████| {0}/{0} [00:11<00:00, 34.21it/s]"
    stop = [f"Stopping training due to NaN loss in {nan_in} step", "Finishing training run",
            "Exiting due to NaN loss"]
    lines = ["", "Starting training run"]
    for epoch in range(1, epochs + 1):
        nan = nan_epoch is not None and epoch >= nan_epoch
        lines += ["", f"Starting epoch {epoch}"]
        if nan and nan_in == "training":
            return [*lines, f" 37%|███▋      | 145/{batches} [00:04<00:07, 33.10it/s]", *stop]
        lines += [bar.format(batches), "", f"train_loss_epoch: {2.3 / epoch + 0.0123456789!r}",
                  "", "Starting eval epoch"]
        if nan:
            return [*lines, " 52%|█████▏    | 41/79 [00:01<00:01, 80.50it/s]", *stop]
        lines += [bar.format(79), "", f"eval_loss_epoch: {2.1 / epoch + 0.0234!r}", "",
                  f"accuracy: {0.5 + epoch / 20!r}"]
        ema_nan = ema_nan_epoch is not None and epoch >= ema_nan_epoch
        if ema:
            lines += ["Running evaluation on EMA model", "", "Starting eval epoch", bar.format(79),
                      "", f"ema_model_eval_loss_epoch: {math.nan if ema_nan else 2 / epoch!r}"]
        if early_stopping and epoch > 1:
            lines += ["", f"Improvement of {0.1 / epoch!r} observed, resetting counter. ",
                      "Early stopping counter: 0/3"]
    return [*lines, "Loading checkpoint with eval_loss_epoch: 0.37 from epoch 6",
            "Finishing training run"]


def test_pytorch_accelerated_nan_stop(tmp_path: Path) -> None:
    """Before: "nothing to diagnose". Now the stop's sentence, a NaN loss given as its cause,
    is the NaN loss, one step after the last epoch's bar. Until h56-convention56 the rows
    counted epochs (4; 2); an epoch heading (``Starting epoch 4``) over a bare bar at its
    total now numbers the run's batches (docs/doctor-reading.md): 3 x 391 + 1, 1 x 1200 + 1."""
    assert faults(tmp_path, _accelerated(4)) == [("AMP006", 3 * 391 + 1)]
    assert faults(tmp_path, _accelerated(2, batches=1200, early_stopping=True, ema=True)) == [
        ("AMP006", 1201)]


def test_pytorch_accelerated_evaluation_nan(tmp_path: Path) -> None:
    """Before: the EMA model's NaN evaluation loss (``ema_model_eval_loss_epoch``, the split
    after the model's name) was read as a training loss term (``AMP006`` at 10, its rows
    counted as the training's); now it is the evaluation's (``AMP013`` at the epoch). The stop
    in the validation step was already ``AMP013`` (the metric reader reads the line): kept as
    the guard that the ``Exiting due to NaN loss`` after it, now a NaN sentence, repeats it
    and adds no training NaN. The step held the epoch (3; 5) until h56-convention56: the run's
    batches now, 3 x 391 and 5 x 391 (an epoch heading over a bare bar at its total)."""
    assert faults(tmp_path, _accelerated(3, nan_in="validation")) == [("AMP013", 3 * 391)]
    assert faults(tmp_path, _accelerated(None, epochs=8, ema=True, ema_nan_epoch=5)) == [
        ("AMP013", 5 * 391)]


def test_pytorch_accelerated_healthy_controls(tmp_path: Path) -> None:
    """Control: early stopping and an EMA model's evaluation, nine epochs of 1,200 batches."""
    assert faults(tmp_path, _accelerated(None, epochs=9, batches=1200, early_stopping=True,
                                         ema=True)) == []
    assert faults(tmp_path, _accelerated(None, epochs=2)) == []


def _shakespeare(nan_from: int | None = None, start: int = 0, iterations: int = 60,
                 report_interval: int = 10, prefix: str = "INFO:tensorflow:") -> list[str]:
    """Sonnet's Shakespeare example's lines (google-deepmind/sonnet
    ``sonnet/examples/rnn_shakespeare.py`` ``train``: ``tf.logging.info("%d: Training loss
    %f.", ...)``; every ``report_interval`` iterations ``"%d: Training loss %f. Validation loss
    %f. Sample = %s"``; ``"Reducing learning rate."`` every 25, ``"Test loss %f"`` at the end),
    behind ``tf.logging``'s ``INFO:tensorflow:`` (or absl's ``prefix``); from ``start``, the
    global step a resumed run restores; NaN from iteration ``nan_from``."""
    lines: list[str] = []
    for iteration in range(start, iterations):
        bad = nan_from is not None and iteration >= nan_from
        loss = math.nan if bad else 4.1 - (iteration - start) / 40
        if (iteration + 1) % report_interval == 0:
            lines.append(f"{prefix}{iteration:d}: Training loss {loss:f}. Validation loss "
                         f"{loss + 0.1:f}. Sample = ROMEO: thou art")
        else:
            lines.append(f"{prefix}{iteration:d}: Training loss {loss:f}.")
        if (iteration + 1) % 25 == 0:
            lines.append(f"{prefix}Reducing learning rate.")
    return [*lines, f"{prefix}Test loss {math.nan if nan_from is not None else 2.5:f}"]


def test_sonnet_iteration_before_colon(tmp_path: Path) -> None:
    """Before: the NaN at the row's count (``AMP006`` at 34 for iteration 33; at 34 again for
    iteration 1033 of a run resumed at 1000). Now the iteration before the colon numbers the
    line, behind ``tf.logging``'s prefix or absl's; the validation loss's NaN is the
    evaluation's, at the report's iteration."""
    assert faults(tmp_path, _shakespeare(33)) == [("AMP006", 33), ("AMP013", 39)]
    assert faults(tmp_path, _shakespeare(1033, start=1000, iterations=1060)) == [
        ("AMP006", 1033), ("AMP013", 1039)]
    absl = "I0601 10:00:00.123456 140123 rnn_shakespeare.py:215] "
    assert faults(tmp_path, _shakespeare(2047, start=2000, iterations=2100, report_interval=50,
                                         prefix=absl)) == [("AMP006", 2047), ("AMP013", 2049)]


def test_sonnet_healthy_controls(tmp_path: Path) -> None:
    """Control: a resumed run reporting every 7 iterations, and absl's prefix."""
    assert faults(tmp_path, _shakespeare(None, start=500, iterations=640, report_interval=7)) == []
    assert faults(tmp_path, _shakespeare(None, prefix="I0601 10:00:00.1 1 a.py:2] ")) == []
