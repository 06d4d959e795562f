"""Where the doctor puts the STEP, second round (h51-steps52).

h51-steps51 left these kinds of step miss (its module docstring classifies 36 across seven
samples); this round takes the two widest, each by a rule of layout in its own module:

- an evaluation (or an epoch's summary) that prints no step, numbered one past the last
  training step read: the epoch's summary row (``Train Summary | End of Epoch 3 | ...``,
  ``Epoch 3 Summary: Train Loss: ...``) printed no step and was counted as a step of its own,
  so everything after it until the next printed step sat one step on (Conv-TasNet 1402 for
  1401, E2E-ASR 2102 for 2101, MultimodalSignal 361 for 360; and, pinned by earlier samples
  at the one-past number, WiFi_CSI 165, ADD 759, FibLDM 191, whose own comments said the last
  step printed). ``epoch_summaries``: a row that prints no step right below a row that printed
  one, both naming the same epoch, is that epoch's summary, at the step of the row above it.
  The convention the tests hold for an evaluation that prints no step (the last training step
  read) is then one rule: the evaluation takes the step reached, and the summary no longer
  moves it.
- an excerpt pasted from the middle whose epochs' length no line prints read its first epoch
  as the run's first even once the length was learnt (E2E-ASR from epoch 3: 1201 for 3601;
  MindSpore's ``LossMonitor`` from epoch 3: 165 for 405). ``step_layouts.EpochBatches``: once
  the length L is learnt, the epochs before the excerpt's first (E0, from 1 unless an epoch 0
  is read) are ``(E0 - 1) * L`` steps; the rows of the excerpt's first epoch, read before L
  was known, keep their count from 0.

Left (strict xfails in their samples, reasons there): per-epoch bars pasted from the middle
whose epoch shows only after the bar or in a label with no total (CAESynth, mamba_comparision,
multi-crop's batches under a later ``Epoch 2/5`` summary), unlabelled bars' base (open_stt,
IOTVulD), a bar restarting after ``Resuming from checkpoint`` (DiffusionSat), a bar described
``train@300`` (Phy-Tac) and DeepSpeed's optimizer steps under accumulation.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults

NAN = math.nan

_BOLD, _PLAIN = "\033[1m", "\033[0m"  # denoiser's ``bold()`` (utils.colorize)


def denoiser(bad: int | None = None, epochs: int = 5, batches: int = 200, valid: int = 50,
             prints: int = 5) -> list[str]:
    """facebookresearch/denoiser ``denoiser/solver.py`` and ``denoiser/utils.py``, its hydra
    file log ``[%(asctime)s][%(name)s][%(levelname)s] - %(message)s``: ``'-' * 70``,
    ``"Training..."``, ``LogProgress`` rows ``f"{self.name} | {self._index}/{self.total} |
    {speed}"`` + ``" | " + infos`` (the name ``label + f" | Epoch {epoch + 1}"``, ``speed``
    ``f"{self._speed:.1f} it/sec"``, ``infos`` ``Loss`` the epoch's running mean, logged every
    ``total // updates``), ``bold(f'Train Summary | End of Epoch {epoch + 1} | Time
    {...:.2f}s | Train Loss {train_loss:.5f}')``, ``'Cross validation...'``, the ``Valid``
    rows, ``bold(f'Valid Summary | End of Epoch ... | Valid Loss {valid_loss:.5f}')``,
    ``bold('New best valid loss %.4f')`` and ``bold(f"Overall Summary | Epoch {epoch + 1} |
    {info}")``; ``bad`` counts batches over the run (from 1), NaN from it on."""
    out: list[str] = []
    best = math.inf
    every = max(1, batches // prints)
    for e in range(1, epochs + 1):
        head = f"[2021-03-04 10:{e:02d}:00,123][__main__][INFO] - "
        rows = head.replace("__main__", "denoiser.utils")
        out += [head + "-" * 70, head + "Training..."]
        total = 0.0
        for k in range(1, batches + 1):
            step = (e - 1) * batches + k
            total += NAN if bad is not None and step >= bad else 0.05 - step / 1e5
            if k % every == 0 and k < batches:
                out.append(rows + f"Train | Epoch {e} | {k}/{batches} | {5.2:.1f} it/sec | Loss "
                                  f"{total / k:.5f}")
        train = total / batches
        out += [head + f"{_BOLD}Train Summary | End of Epoch {e} | Time {412.33:.2f}s | Train "
                       f"Loss {train:.5f}{_PLAIN}", head + "-" * 70, head + "Cross validation..."]
        held = train + 0.01
        for k in range(max(1, valid // prints), valid, max(1, valid // prints)):
            out.append(rows + f"Valid | Epoch {e} | {k}/{valid} | {12.1:.1f} it/sec | Loss "
                              f"{held:.5f}")
        out.append(head + f"{_BOLD}Valid Summary | End of Epoch {e} | Time {431.02:.2f}s | "
                          f"Valid Loss {held:.5f}{_PLAIN}")
        if held < best:
            best = held
            out.append(head + f"{_BOLD}New best valid loss {best:.4f}{_PLAIN}")
        out += [head + "-" * 70, head + f"{_BOLD}Overall Summary | Epoch {e} | Train {train:.5f} "
                                        f"| Valid {held:.5f} | Best {best:.5f}{_PLAIN}"]
    return out


def mindspore(bad: int | None = None, epochs: int = 6, batches: int = 120,
              every: int = 30) -> list[str]:
    """mindspore-ai/mindspore ``mindspore/python/mindspore/train/callback/_loss_monitor.py``
    (``LossMonitor(per_print_times)``): ``print("epoch: %s step: %s, loss is %s" %
    (cb_params.cur_epoch_num, cur_step_in_epoch, loss))``, the epoch from 1 and the step of
    the epoch (``(cur_step_num - 1) % batch_num + 1``); a NaN loss raises ``ValueError("epoch:
    {} step: {}. Invalid loss, terminating training.")`` before it prints, the traceback
    ending the log; ``TimeMonitor``'s ``"epoch time: {:5.3f} ms, per step time: {:5.3f} ms"``
    after each epoch. ``bad`` counts steps over the run (from 1)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        for s in range(1, batches + 1):
            step = (e - 1) * batches + s
            if bad is not None and step >= bad:
                return [*out, "Traceback (most recent call last):",
                        '  File "train.py", line 88, in <module>',
                        "    model.train(config.epoch_size, dataset, callbacks=cb)",
                        f"ValueError: epoch: {e} step: {s}. Invalid loss, terminating training."]
            if step % every == 0:
                out.append(f"epoch: {e} step: {s}, loss is {2.3 - step / 1000:.7f}")
        out.append(f"epoch time: {41234.567:5.3f} ms, per step time: {343.621:5.3f} ms")
    return out


# -- epoch_summaries: an epoch's summary is the step of the row above it -------------------

@pytest.mark.parametrize("cut", [0, 14, 16])
def test_denoiser_validation_at_the_last_step(tmp_path: Path, cut: int) -> None:
    """denoiser's epoch 3 (200 batches, a row every 40): the NaN from its 150th batch shows at
    the row of 160 (step 560); the validation after ``Train Summary | End of Epoch 3`` is at
    the last training step read, 560 (the parent: 561, the summary counted as a step), whole
    and pasted from epoch 2."""
    assert faults(tmp_path, denoiser(2 * 200 + 150)[cut:]) == [("AMP006", 560),
                                                              ("AMP013", 560)]


def test_denoiser_healthy(tmp_path: Path) -> None:
    """Healthy controls, settings other than the defaults (6 epochs of 300, 3 prints an
    epoch, 40 validation batches), whole and from the middle: silent."""
    lines = denoiser(epochs=6, batches=300, valid=40, prints=3)
    assert faults(tmp_path, lines) == []
    assert faults(tmp_path, lines[20:]) == []


def test_a_summary_that_names_no_epoch_is_a_row(tmp_path: Path) -> None:
    """A control: a summary line that names no epoch (``Train Summary | Time ...``) is not
    told from a row: counted as before, the validation one past the last row (561, as the
    parent read it)."""
    lines = [line.replace("End of Epoch 3 | ", "") for line in denoiser(2 * 200 + 150)]
    assert faults(tmp_path, lines) == [("AMP006", 560), ("AMP013", 561)]


# -- EpochBatches: the epochs before an excerpt's first, once their length is learnt --------

@pytest.mark.parametrize("cut", [0, 2 * 5, 2 * 5 + 2])
def test_mindspore_from_the_middle(tmp_path: Path, cut: int) -> None:
    """MindSpore's ``epoch: 4 step: 45. Invalid loss`` (120 steps an epoch, from 1) is step
    405, whole and pasted from epoch 3 (the parent: 165, the excerpt's first epoch read as the
    run's first though the epoch's length was learnt from its rows)."""
    assert faults(tmp_path, mindspore(3 * 120 + 45)[cut:]) == [("AMP006", 405)]


def test_mindspore_healthy(tmp_path: Path) -> None:
    """Healthy controls (5 epochs of 200, a print every 40), whole and from epoch 3: silent."""
    lines = mindspore(epochs=5, batches=200, every=40)
    assert faults(tmp_path, lines) == []
    assert faults(tmp_path, lines[12:]) == []
