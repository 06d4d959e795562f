"""Where the doctor puts the STEP, by rules the log itself justifies (h51-steps51).

The seven random samples (tests/logs/test_sample18_formats.py ... test_sample24_formats.py)
found the doctor right at first sight on about 73% of faulty excerpts, most misses the step it
named, not the id. Their misses (the 'before' column, the strict xfails left), by kind:

- an epoch line over the rows not read as the rows' epoch, so an excerpt pasted from the
  middle counts its rows or bars from its own start (PRiDAN, MediClassify, DeepGrabCut,
  CVproject1, SampleNet, traffic VAE, pretrain, foldnn, drone, ASD Keras, T2P, STAckable,
  mimic_edema): 13;
- two counters on one line, the epoch and the batch of the epoch, the second read alone or
  the first not read (LeNet5's ``idx``, PSMNet's ``Iter``, DetNet, NExpR, KGNet, Silksong's
  record, HF-SSIRNet's ``[3/10] Step 300/500``, DeepSpeed's optimizer steps under the loop's
  micro-batches, ChatterMonkey's batch line): 9;
- 0- vs 1-based epochs, a label that does not say which (cifar10's bars, open_stt, IOTVulD,
  Computer_Vision_Project's ``Epoch 2:`` bar beside its logger's ``Epoch 2/3``, cloud-phase's
  training line from 0 and summary from 1): 5;
- a progress bar's own count against the run's (MedSRGAN's glued print, MONAI's label steps,
  an open ``200it`` bar's epoch length, the MNIST quickstart's sample count, autocar's second
  ``fit``): 5;
- evaluation rows numbered as training's (MultimodalSignal's and mimic_edema's summary one
  past the bar, E2E-ASR's validation batches in the training format): 3;
- shinrai's ``[BEST]`` lines counted as rows: 1.

The rules here (each in its own module, each tested on formats beside the one that showed it):

- ``epoch_brackets``: an epoch of how many in brackets with no word for it, then a keyed step
  of how many (``[3/10] Step 300/500``, ``[3/6] batch 40/95``), is the epoch and the batch of
  that epoch, read as ``Epoch 3/10, Iter 300/500`` is: an excerpt pasted from a later epoch
  reads the epochs before it.
- ``bar_epochs``: a bar labelled ``Epoch E:`` whose epoch a later line repeats as ``Epoch E/N``
  is the loop's own count of epochs (from 1 unless an ``Epoch 0`` bar was seen), not
  Lightning's from 0.
- ``eval_passes``: rows that key an epoch and a count, read after a line said that epoch
  ended (``End of Epoch 2``), of the same epoch and a count started over below the
  training's, are an evaluation pass in the training's format: evaluation's, their count
  numbering no step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults
from test_sample22_formats import ssir_rl
from test_sample23_formats import e2e_asr, reid_bars

NAN = math.nan


def trivima(bad: int | None = None, epochs: int = 6, batches: int = 95,
            every: int = 10) -> list[str]:
    """Harishmelvic/trivima ``trivima/multiview/train.py`` (the multi-view DiT's loop): the
    banner ``"Model: %.1fM parameters"``, ``"Views: %d, img_size: %d, embed_dim: %d, depth:
    %d"`` and ``"\\nTraining on %d pairs, %d batches/epoch"``; every 10 batches ``"  [%d/%d]
    batch %d/%d loss=%.4f" % (epoch+1, args.epochs, batch_idx+1, len(loader), avg)`` (the mean
    of the last 10 losses), then ``"Epoch %d/%d: loss=%.4f (%.1fs)"`` and, when it improved,
    ``"  -> New best: %.4f"``; ``bad`` counts batches over the run (from 1), NaN from it on."""
    out = ["Model: 212.4M parameters", "Views: 4, img_size: 96, embed_dim: 384, depth: 6", "",
           f"Training on {batches * 2} pairs, {batches} batches/epoch"]
    best = math.inf
    for e in range(epochs):
        losses: list[float] = []
        for b in range(batches):
            step = e * batches + b + 1
            losses.append(NAN if bad is not None and step >= bad else 0.9 - step / 2000)
            if (b + 1) % every == 0:
                avg = sum(losses[-every:]) / every
                out.append(f"  [{e + 1}/{epochs}] batch {b + 1}/{batches} loss={avg:.4f}")
        avg = sum(losses) / len(losses)
        out.append(f"Epoch {e + 1}/{epochs}: loss={avg:.4f} ({41.3:.1f}s)")
        if avg < best:
            best = avg
            out.append(f"  -> New best: {best:.4f}")
    return out


def lightning_bars(bad: int | None = None, epochs: int = 4, batches: int = 60,
                   every: int = 15) -> list[str]:
    """Lightning's TQDMProgressBar (lightning/pytorch/callbacks/progress/tqdm_progress.py:
    ``f"Epoch {trainer.current_epoch}"`` before ``BAR_FORMAT``'s ``{n_fmt}/{total_fmt} [...
    {postfix}]``, epochs from 0) under a LightningModule that prints its own summary in
    ``on_train_epoch_end``, ``f"Epoch {self.current_epoch}/{self.trainer.max_epochs}
    train_loss={...:.4f}"`` (the same count, from 0); ``bad`` counts batches over the run
    (from 1)."""
    out: list[str] = []
    for e in range(epochs):
        for b in range(every, batches + 1, every):
            step = e * batches + b
            loss = NAN if bad is not None and step >= bad else 2.1 - step / 500
            pct = 100 * b // batches
            out.append(f"Epoch {e}: {pct:3d}%|{'#' * (pct // 10):<10}| {b}/{batches} "
                       f"[00:{b // 10:02d}<00:05, 9.80it/s, v_num=7, train_loss={loss:.3f}]")
        last = NAN if bad is not None and (e + 1) * batches >= bad else 2.0 - e / 10
        out.append(f"Epoch {e}/{epochs} train_loss={last:.4f}")
    return out


def conv_tasnet(bad: int | None = None, epochs: int = 4, iters: int = 500, cv_iters: int = 120,
                print_freq: int = 100, checkpoint: bool = True) -> list[str]:
    """kaituoxu/Conv-TasNet ``src/solver.py`` (``Solver.train`` and ``_run_one_epoch``):
    ``"Training..."``, every ``print_freq`` batches ``'Epoch {0} | Iter {1} | Average Loss
    {2:.3f} | Current Loss {3:.6f} | {4:.1f} ms/batch'`` (``epoch + 1, i + 1``; the loss is
    the negative SI-SNR), ``'Train Summary | End of Epoch {0} | Time {1:.2f}s | Train Loss
    {2:.3f}'`` between rules of 85 dashes, ``'Saving checkpoint model to %s'`` with
    ``--checkpoint``, then ``'Cross validation...'``, the validation's batches in the very
    same format, ``'Valid Summary | End of Epoch ...'`` and ``"Find better validated model,
    saving to %s"``; ``bad`` counts training batches over the run (from 1), NaN from it on
    (the validation NaN from the epoch it reached)."""
    out: list[str] = []
    best = math.inf
    row = ("Epoch {0} | Iter {1} | Average Loss {2:.3f} | Current Loss {3:.6f} | {4:.1f} "
           "ms/batch")
    for e in range(epochs):
        out.append("Training...")
        total = 0.0
        for i in range(iters):
            step = e * iters + i + 1
            loss = NAN if bad is not None and step >= bad else -8.5 - step / 400
            total += loss
            if i % print_freq == 0:
                out.append(row.format(e + 1, i + 1, total / (i + 1), loss, 412.7))
        out += ["-" * 85, f"Train Summary | End of Epoch {e + 1} | Time {206.35:.2f}s | Train "
                f"Loss {total / iters:.3f}", "-" * 85]
        if checkpoint:
            out.append(f"Saving checkpoint model to exp/temp/epoch{e + 1}.pth.tar")
        out.append("Cross validation...")
        broken = bad is not None and (e + 1) * iters >= bad
        valid = 0.0
        for i in range(cv_iters):
            value = NAN if broken else -9.0 - e / 10
            valid += value
            if i % print_freq == 0:
                out.append(row.format(e + 1, i + 1, valid / (i + 1), value, 131.2))
        out += ["-" * 85, f"Valid Summary | End of Epoch {e + 1} | Time {240.1:.2f}s | Valid "
                f"Loss {valid / cv_iters:.3f}", "-" * 85]
        if valid / cv_iters < best:
            best = valid / cv_iters
            out.append("Find better validated model, saving to exp/temp/final.pth.tar")
    return out


# -- epoch_brackets: ``[E/N] <step key> i/M`` ----------------------------------------------

@pytest.mark.parametrize(("settings", "cut", "bad", "right"), [
    # epoch 3's batch 60 (from 1), pasted from its fifth print: the NaN in its mean of 51-60
    ({}, 2 * 11 + 5, 2 * 95 + 55, 2 * 95 + 60),
    # 8 epochs of 120, a print every 20: epoch 5's batch 100, pasted from its third print
    ({"epochs": 8, "batches": 120, "every": 20}, 4 + 4 * 8 + 2, 4 * 120 + 85, 4 * 120 + 100)])
def test_bracketed_epoch_before_batch(tmp_path: Path, settings: dict[str, int], cut: int,
                                      bad: int, right: int) -> None:
    """``  [3/6] batch 60/95 loss=nan``: the bracket counts epochs, the batch those of the
    epoch. Pasted from within the NaN's epoch, the parent counted the excerpt's own passes
    (60, 100); the epochs before it are read now."""
    assert faults(tmp_path, trivima(bad, **settings)[cut:]) == [("AMP006", right)]


@pytest.mark.parametrize(("cut", "bad", "right"), [(2 * 11 + 5, 3 * 95 + 15, 3 * 95 + 20),
                                                   (0, 2 * 95 + 55, 2 * 95 + 60)])
def test_bracketed_epoch_read_already(tmp_path: Path, cut: int, bad: int, right: int) -> None:
    """Guards the parent read right already: pasted from the start, or with an ``Epoch 3/6:``
    summary between the excerpt's start and the NaN (the summary's epoch numbers the rows
    after it)."""
    assert faults(tmp_path, trivima(bad)[cut:]) == [("AMP006", right)]


def test_bracketed_epoch_before_step(tmp_path: Path) -> None:
    """HF-SSIRNet's ``[3/10] Step 300/500, loss=nan`` behind its logger's prefix, pasted from
    epoch 2's batch 150 (the parent: 800, the excerpt's own passes)."""
    assert faults(tmp_path, ssir_rl(1300)[15:]) == [("AMP006", 2 * 500 + 300)]


def test_bracketed_epoch_run_wide_step(tmp_path: Path) -> None:
    """A control: a keyed count that goes on rising as the bracket goes up counts the run
    (``[2/10] Step 650/5000``): read as printed, no epochs added."""
    lines = []
    for line in ssir_rl(1300, epochs=4):
        if "] Step " in line:
            head, rest = line.split("] Step ", 1)
            epoch = int(head.rsplit("[", 1)[1].split("/")[0])
            batch = int(rest.split("/", 1)[0])
            rest = f"{(epoch - 1) * 500 + batch}/2000" + rest.split("/500", 1)[1]
            line = f"{head}] Step {rest}"
        lines.append(line)
    assert faults(tmp_path, lines) == [("AMP006", 1300)]
    assert faults(tmp_path, lines[25:]) == [("AMP006", 1300)]


@pytest.mark.parametrize("cut", [0, 3 * 6 + 2])
def test_bracketed_epoch_healthy(tmp_path: Path, cut: int) -> None:
    """Healthy controls, settings other than the script's defaults (5 epochs of 57 batches,
    a print every 5; SSIR's 6 epochs of 300, every 25, no CE term), whole and from the
    middle: silent."""
    assert faults(tmp_path, trivima(epochs=5, batches=57, every=5)[cut:]) == []
    assert faults(tmp_path, ssir_rl(epochs=6, steps=300, every=25, ce=0.0)[cut:]) == []


def test_bracket_over_its_total_is_no_epoch(tmp_path: Path) -> None:
    """A control: a bracket whose count passes its total (``[12/8]``) counts no epochs of
    the run; the keyed count is read as the parent read it, its passes from the excerpt's
    start (the trivima excerpt from epoch 3: the NaN at 60 again, not 250)."""
    lines = [line.replace("  [3/6] ", "  [13/6] ").replace("  [4/6] ", "  [14/6] ")
             .replace("  [5/6] ", "  [15/6] ").replace("  [6/6] ", "  [16/6] ")
             for line in trivima(2 * 95 + 55)[2 * 11 + 5:]]
    assert faults(tmp_path, lines) == [("AMP006", 60)]


# -- bar_epochs: a bar's ``Epoch E:`` repeated as ``Epoch E/N`` ---------------------------

@pytest.mark.parametrize(("cut", "bad", "right"), [(0, 520, 550), (2, 1000, 1000),
                                                   (4, 1310, 1350)])
def test_bar_label_repeated_as_epoch_of_epochs(tmp_path: Path, cut: int, bad: int,
                                               right: int) -> None:
    """Computer_Vision_Project's ``Epoch 2:`` bar then its logger's ``Epoch 2/4 | loss=...``:
    the label is the loop's own count, from 1 (the parent read it as Lightning's from 0: one
    epoch of 400 too many: 950, 1400, 1750)."""
    assert faults(tmp_path, reid_bars(bad, epochs=4)[cut:]) == [("AMP006", right)]


def test_lightning_bars_with_their_own_summary(tmp_path: Path) -> None:
    """A control: Lightning's bars from ``Epoch 0`` with a module's own ``Epoch 0/4`` print
    count from 0 as before (the epoch 0 bar was seen): epoch 2's batch 45 is step 165."""
    assert faults(tmp_path, lightning_bars(2 * 60 + 40)) == [("AMP006", 2 * 60 + 45)]
    assert faults(tmp_path, lightning_bars(epochs=5, batches=80, every=20)) == []


def test_bar_label_healthy(tmp_path: Path) -> None:
    """Healthy controls (3 epochs of 300 batches, a state every 60), whole and from epoch
    2: silent."""
    assert faults(tmp_path, reid_bars(epochs=3, batches=300, every=60)) == []
    assert faults(tmp_path, reid_bars(epochs=3, batches=300, every=60)[2:]) == []


# -- eval_passes: the validation's batches in the training's format ------------------------

@pytest.mark.parametrize(("build", "right"), [
    # epoch 3's batch 151 (from 1) of 500, printed at its 201st
    (lambda: conv_tasnet(2 * 500 + 151), 2 * 500 + 201),
    (lambda: conv_tasnet(2 * 500 + 151, checkpoint=False), 2 * 500 + 201),
    # E2E-ASR's (the speech-transformer Solver): epoch 2's first batch, epochs of 1200
    (lambda: e2e_asr(2, epochs=6), 1200 + 1)])
def test_validation_rows_after_the_epoch_ended(tmp_path: Path, build: Callable[[], list[str]],
                                                right: int) -> None:
    """After ``Train Summary | End of Epoch 3 | ...`` the ``Epoch 3 | Iter 1 | ...`` rows
    below ``Cross validation...`` start over: the validation's. The training NaN reads at the
    training count, its epochs of 500 (1200) learnt from the rows (the parent: 601, 201,
    1201 with the validation's count read as the training's), and the validation's NaN is
    evaluation's (AMP013), after it."""
    found = faults(tmp_path, build())
    assert found[0] == ("AMP006", right)
    assert [code for code, _ in found] == ["AMP006", "AMP013"]
    assert found[1][1] is not None and found[1][1] > right


@pytest.mark.parametrize(("build", "right"), [
    (lambda: conv_tasnet(2 * 500 + 151), [("AMP006", 1201), ("AMP013", 1401)]),
    (lambda: e2e_asr(2, epochs=6), [("AMP006", 1201), ("AMP013", 2101)]),
    (lambda: e2e_asr(4, epochs=6)[2 * 16:], [("AMP006", 3601), ("AMP013", 4501)])])
def test_validation_rows_at_the_training_step(tmp_path: Path, build: Callable[[], list[str]],
                                               right: list[tuple[str, int]]) -> None:
    """The right answer: the validation's NaN at the last training step read. A strict xfail
    until h51-steps52 (1402, 2102: the epoch's ``Train Summary`` counted as a step; from epoch
    3, 1201: the excerpt's first epoch read as the run's first)."""
    assert faults(tmp_path, build()) == right


def test_validation_rows_healthy(tmp_path: Path) -> None:
    """Healthy controls, settings other than the defaults (6 epochs of 300, a print every 50,
    no checkpoints; E2E-ASR's epochs of 900 every 150), whole and from the middle: silent."""
    lines = conv_tasnet(epochs=6, iters=300, cv_iters=80, print_freq=50, checkpoint=False)
    assert faults(tmp_path, lines) == []
    assert faults(tmp_path, lines[20:]) == []
    assert faults(tmp_path, e2e_asr(epochs=6, iters=900, every=150)) == []


def test_a_count_started_over_with_no_end_said_is_training(tmp_path: Path) -> None:
    """A control: without the summary that says the epoch ended, a count that starts over
    within its epoch is not taken for an evaluation pass (it may be a run resumed within its
    epoch): the rows stay training's, read as the parent read them (601)."""
    lines = [line for line in conv_tasnet(2 * 500 + 151) if "End of Epoch" not in line]
    assert faults(tmp_path, lines) == [("AMP006", 601)]
