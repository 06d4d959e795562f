"""Untried tools, group nine (science, graphs, time series): excerpts written from each tool's
own format strings (each names its source), a fault beside healthy controls with non-default
settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
chemprop v1's ``Epoch {epoch}`` over ``Loss = {loss_avg:.4e}, PNorm = {pnorm:.4f}, GNorm =
{gnorm:.4f}, lr_0 = ...`` rows and ``Validation {metric} = {score:.6f}`` (chemprop/chemprop
``chemprop/train/train.py``, ``chemprop/train/run_training.py``: a NaN row is AMP006 at the row
the steps are counted by, the validation's NaN AMP013 after it); neuraloperator's Trainer line
``[{epoch}] time=..., avg_loss=..., train_err=..., {resolution}_h1=..., {resolution}_l2=...``
(neuraloperator/neuraloperator ``neuralop/training/trainer.py``: AMP006 at the epoch);
DeepChem's ``Ending global_step %d: Average loss %g`` behind logging's ``INFO:name:`` prefix
and ValidationCallback's ``Step %d validation: name=%g`` (deepchem/deepchem
``deepchem/models/torch_models/torch_model.py`` ``fit_generator``, ``deepchem/models/
callbacks.py``: AMP006 at the step, AMP013 at the validation's).

Not tried in the time: pytorch-tabular, GraphCast, RFdiffusion.

Missed before (fixed):

- DeepXDE's table (lululxvi/deepxde ``deepxde/display.py`` ``TrainingDisplay``), whose loss
  cells print the list of the loss's terms, ``[1.23e-02, 4.56e-04]``: split at its blanks, a
  NaN row's terms fell under the wrong names and the training loss's NaN was read as the
  ``Test loss`` column's (AMP013 alone). A list of numbers in a table's cell is now one cell,
  the total of its terms (``denpex_callbacks.logs.list_cells``).
- NVIDIA Modulus Sym's ``loss went to Nans`` (``modulus/sym/trainer.py``): the sentence
  reader's cheap check looked for ``nan`` or ``NaN`` only, and ``Nans`` is neither: nothing was
  found. ``Nan`` is a cue now; the loss is NaN at the step after the last printed one.
- PhysicsNeMo's LaunchLogger (``physicsnemo/launch/logging/launch.py``): each epoch's ``Epoch
  N Metrics:`` averages were counted as a row beside the ``[20.00%] Mini-Batch Losses:`` rows
  above them, every later step one late (and the averages read as the loss rising before the
  fault). Below rows that say they are an epoch's batches (a bracketed percentage, or
  ``Mini-Batch Losses:``) such a summary is no row now.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults


def _terms(values: list[float]) -> str:
    """DeepXDE's ``list_to_str`` (``deepxde/display.py``): ``"[{:s}]".format(", ".join(
    ["{:.2e}".format(x) for x in nums]))``."""
    return "[{:s}]".format(", ".join(f"{x:.2e}" for x in values))


def _deepxde(nan_from: int | None = None, terms: int = 3, rows: int = 12, every: int = 1000,
             metrics: int = 1, variables: int = 0) -> list[str]:
    """DeepXDE's ``Model.compile``/``Model.train`` prints and ``TrainingDisplay``'s table
    (lululxvi/deepxde ``deepxde/display.py``: ``"{:{l1}s}{:{l2}s}{:{l3}s}{:{l4}s}"`` with
    ``l1=10`` and each list's width ``len(list) * 8 + 8``; the header ``Step``, ``Train
    loss``, ``Test loss``, ``Test metric``; a row every ``display_every`` steps), the losses
    NaN from step ``nan_from`` (where ``Model._test`` stops training on a NaN loss), then
    ``summary``'s ``Best model at step {:d}:`` block. ``variables``: an inverse problem's
    unknowns, printed by ``VariableValue`` to stdout below each row (``deepxde/callbacks.py``:
    ``print(self.model.train_state.epoch, list_to_str(self.value, ...))``)."""
    width, metric_width = terms * 8 + 8, metrics * 8 + 8
    lines = ["Compiling model...", "'compile' took 0.000412 s", "", "Training model...", ""]

    def row(step: str, train: str, test: str, metric: str) -> None:
        lines.append(f"{step:10s}{train:{width}s}{test:{width}s}{metric:{metric_width}s}")

    row("Step", "Train loss", "Test loss", "Test metric")
    best = 0
    for i in range(rows + 1):
        step = i * every
        bad = nan_from is not None and step >= nan_from
        losses = [math.nan if bad else 0.5 / (i + 1) / (k + 1) for k in range(terms)]
        scores = [math.nan if bad else 0.3 / (i + 1) for _ in range(metrics)]
        row(str(step), _terms(losses), _terms([x * 1.1 for x in losses]), _terms(scores))
        if variables:
            lines.append(f"{step} {_terms([1.0 + i / (k + 10) for k in range(variables)])}")
        if bad:
            break
        best = step
    lines += ["", f"Best model at step {best:d}:", "  train loss: 1.23e-03",
              "  test loss: 1.40e-03", f"  test metric: {_terms([0.021] * metrics)}", "",
              "'train' took 35.412345 s", ""]
    return lines


def test_deepxde_nan_terms(tmp_path: Path) -> None:
    """Before: ``AMP013`` alone (a term of the NaN training loss read as ``Test loss``). Now
    the training loss's NaN at the row's step, the test loss's after it."""
    assert faults(tmp_path, _deepxde(7000)) == [("AMP006", 7000), ("AMP013", 7000)]
    assert faults(tmp_path, _deepxde(2500, terms=5, every=500, metrics=0, variables=2)) == [
        ("AMP006", 2500), ("AMP013", 2500)]
    # a row more than 200 rows below its header: read where it lines up with it
    assert faults(tmp_path, _deepxde(25000, rows=300, every=100)) == [
        ("AMP006", 25000), ("AMP013", 25000)]


def test_deepxde_healthy(tmp_path: Path) -> None:
    """Healthy tables with non-default settings: more terms, an inverse problem's unknowns
    printed between the rows, no metric, a short interval."""
    for lines in (_deepxde(terms=5, every=500, variables=3),
                  _deepxde(terms=2, metrics=0, every=100),
                  _deepxde(terms=1, metrics=3, rows=300, every=10)):
        assert faults(tmp_path, lines) == []


def _modulus(nan_after: int | None = None, last: int = 20000, every: int = 100,
             start: int = 0, checkpoints: int = 1000) -> list[str]:
    """NVIDIA Modulus Sym's trainer (NVIDIA/modulus-sym ``modulus/sym/trainer.py``
    ``_train_loop``) behind its Hydra logger's ``[%(asctime)s] - %(message)s`` (``%H:%M:%S``):
    ``f"{self.step_str} loss: {loss:10.3e}"`` with ``step_str = f"[step: {step:10d}]"`` every
    ``print_stats_freq`` steps, ``, time/iteration: ... ms`` after the first, ``saved checkpoint
    to ...`` every ``save_network_freq``; a NaN loss is caught before the step prints, by
    ``self.log.error("loss went to Nans")`` and ``break`` (at a step after ``nan_after``, the
    last printed)."""
    lines = ["[07:10:01] - JIT using the NVFuser TorchScript backend",
             "[07:10:04] - attempting to restore from: outputs/ldc_2d",
             "[07:10:04] - optimizer checkpoint not found",
             "[07:10:04] - model flow_network.0.pth not found"]
    for step in range(start, last + 1, every):
        if nan_after is not None and step > nan_after:
            lines.append("[07:16:49] - loss went to Nans")
            return lines
        if step % checkpoints == 0:
            lines.append(f"[07:12:00] - [step: {step:10d}] saved checkpoint to outputs/ldc_2d")
        line = f"[07:12:00] - [step: {step:10d}] loss: {1.0 / (step / every + 1):10.3e}"
        if step >= start + every:
            line += f", time/iteration: {12.34:10.3e} ms"
        lines.append(line)
    lines.append(f"[07:20:00] - [step: {last:10d}] reached maximum training steps, finished "
                 "training!")
    return lines


def test_modulus_loss_went_to_nans(tmp_path: Path) -> None:
    """Before: nothing (``Nans`` is no spelling the sentence reader's cheap check knew: it
    looked for ``nan`` or ``NaN``). Now the sentence's NaN loss, at the step after the last
    printed one (the first the loop may have stopped at)."""
    assert faults(tmp_path, _modulus(5100)) == [("AMP006", 5101)]
    assert faults(tmp_path, _modulus(12000, every=1000, start=3000)) == [("AMP006", 12001)]


def test_modulus_healthy(tmp_path: Path) -> None:
    """Healthy runs: a longer print interval, a run resumed from a checkpoint."""
    for lines in (_modulus(every=500, checkpoints=5000),
                  _modulus(every=1000, start=3000, last=40000)):
        assert faults(tmp_path, lines) == []


def _physicsnemo(nan_epoch: int | None = None, epochs: int = 10, batches: int = 500,
                 every: int = 100, *, percent: bool = True, coloured: bool = True,
                 keys: tuple[str, ...] = ("loss",)) -> list[str]:
    """PhysicsNeMo's LaunchLogger (NVIDIA/modulus ``physicsnemo/launch/logging/launch.py``)
    behind its PythonLogger (``modulus/launch/logging/console.py``: ``[%(asctime)s -
    %(name)s - %(levelname)s] %(message)s``, ``%H:%M:%S``; ``info`` colours its message
    light blue with termcolor, ``log`` does not): ``log_minibatch`` every
    ``mini_batch_log_freq`` batches, ``"Mini-Batch Losses:"`` and ``f" {name} =
    {value:10.3e},"`` for each key (the last comma cut), behind ``f"[{mbp:.02f}%] "`` where
    ``num_mini_batch`` is given; ``__exit__``'s ``f"Epoch {self.epoch} Metrics:"`` with the
    epoch's averages, then ``Epoch Execution Time: ...s, Time/Iter: ...ms``. Epochs count
    from 1; the losses NaN from epoch ``nan_epoch``."""
    def coloured_text(message: str) -> str:
        return f"\x1b[94m{message}\x1b[0m" if coloured else message

    def values(bad: bool, value: float) -> str:
        return ",".join(f" {key} = {math.nan if bad else value:10.3e}" for key in keys)

    lines = []
    for epoch in range(1, epochs + 1):
        bad = nan_epoch is not None and epoch >= nan_epoch
        for batch in range(every, batches + 1, every):
            message = "Mini-Batch Losses:" + values(bad, 1.0 / (epoch * batches + batch))
            if percent:
                message = f"[{100 * batch / batches:.02f}%] " + message
            lines.append(f"[10:00:00 - train - INFO] {message}")
        summary = f"Epoch {epoch} Metrics:" + values(bad, 1.0 / epoch)
        timing = f"Epoch Execution Time: {12.3:10.3e}s, Time/Iter: {24.6:10.3e}ms"
        lines += [f"[10:00:00 - train - INFO] {coloured_text(summary)}",
                  f"[10:00:00 - train - INFO] {coloured_text(timing)}"]
    return lines


def test_physicsnemo_epoch_metrics_summarise(tmp_path: Path) -> None:
    """Before: AMP006 at 19, each epoch's ``Epoch N Metrics:`` counted as a row beside its
    five mini-batch rows (and its average, far above the batches' losses, read as the loss
    rising before the fault). Now the summary is no row: the NaN is at the 16th batch row,
    with the percentage and without it."""
    assert faults(tmp_path, _physicsnemo(4)) == [("AMP006", 16)]
    assert faults(tmp_path, _physicsnemo(4, percent=False, coloured=False)) == [("AMP006", 16)]
    # a log interval longer than the epoch: no batch row, the summaries are the rows
    assert faults(tmp_path, _physicsnemo(4, every=1000)) == [("AMP006", 4)]


def test_physicsnemo_healthy(tmp_path: Path) -> None:
    """Healthy runs: two keys, a longer epoch, a shorter interval, no colour."""
    for lines in (_physicsnemo(batches=2000, every=250, keys=("loss", "Learning Rate")),
                  _physicsnemo(epochs=30, every=50, coloured=False, percent=False)):
        assert faults(tmp_path, lines) == []
