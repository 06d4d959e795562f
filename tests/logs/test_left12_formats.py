"""Fixes of the doctor's strict xfails left on main (#27), each by a rule of layout, with the
healthy controls (settings other than the defaults) beside each.

- A GAN's losses keyed by the network and the term, with no loss noun (0825pm/T2P
  ``train_gan.py``: ``TRAIN | G_Total: ... (Recon: ...) | D: ...``, the bar's ``G_Recon=`` /
  ``G_Adv=``): read as loss terms (``gan_terms``); a bare ``G`` or ``D`` and a term's word
  alone stay unread.
- A count of a total that starts over each pass, pasted from the middle, with an epoch's
  summary after its passes (Calvin-Pang/NExpR ``train_ddp.py``, LIIF's ``iter {i}/{n}`` lines
  and ``epoch 3/1000, train loss = ...``): the passes go on from the summary's epoch
  (``metric_reader._pass_step``), 2900 where the parent read 1300.
- A record's step line handed over with no keyword, its counter keyed ``Steps`` (AlvinYeeeeee/
  Silksong_RL ``run_training.py``: ``Episode 57``, ``  Steps: 100277, Updates: ..., ε: ...``,
  ``  Reward: ..., Loss: nan, LR: ...``): numbers the loss line below it
  (``metric_reader._counters_line``); the parent counted the rows (7, 8).
- An epoch and its batch of the epoch's total, each in brackets of its own (faster-rcnn.pytorch's
  ``[session 1][epoch  2][iter  300/2505]``, 2427795956/DetNet_pytorch ``train_net.py``):
  read as ``Epoch 2, iter 300/2505`` is (``step_layouts.EPOCH_STEP``), so that an excerpt
  pasted from epoch 2 reads the epoch before it (2805, was 300).
"""

from __future__ import annotations

from pathlib import Path

from tests.logs.excerpts import faults
from tests.logs.test_sample19_formats import detnet, silksong
from tests.logs.test_sample20_formats import nexpr, t2p


def nan_from(step: int, bad: int, value: float) -> float:
    """``value``, or NaN from step ``bad`` on."""
    return float("nan") if step >= bad else value


def test_gan_terms_on_a_step_line(tmp_path: Path) -> None:
    """T2P's keys on a loop's step line: the generator's total and terms are read as the
    run's losses, NaN from step 500 on (the parent read no metric: 'nothing to diagnose')."""
    lines = [f"step {s} | G_Total: {nan_from(s, 500, 0.05):.4f} "
             f"(Recon: {nan_from(s, 500, 0.04):.4f}) | D: {nan_from(s, 500, 0.45):.4f}"
             for s in range(100, 1100, 100)]
    assert faults(tmp_path, lines) == [("AMP006", 500)]


def test_t2p_healthy_controls(tmp_path: Path) -> None:
    """Silence on healthy runs with other settings, whole, pasted from the middle and without
    the bars."""
    run = t2p(epochs=10, batches=64, lr=1e-4)
    assert faults(tmp_path, run) == []
    assert faults(tmp_path, run[4 + 7 * 4:]) == []
    assert faults(tmp_path, [line for line in run if not line.startswith("Training:")]) == []


def test_a_bare_network_letter_or_term_is_no_loss(tmp_path: Path) -> None:
    """The rule is narrow: a ``D`` alone (a dimension), a term's word alone (``total``) and a
    network's output (``D_real``) are read as no loss, so a NaN there raises nothing beside a
    healthy loss."""
    lines = [f"step {s} | loss: {2.0 - s / 1000:.4f} | D: nan | total: nan | D_real: nan"
             for s in range(100, 1100, 100)]
    assert faults(tmp_path, lines) == []


def test_nexpr_healthy_from_the_middle(tmp_path: Path) -> None:
    """Silence on healthy LIIF-style runs with other settings (600 iterations an epoch of a
    300-epoch run, printed every 100), whole and pasted from epoch 2 and from epoch 4's
    middle: the jump the summary makes is no gap the doctor reports."""
    run = nexpr(epochs=7, iters=600, total=300, lr=2e-4)
    assert faults(tmp_path, run) == []
    assert faults(tmp_path, run[5 + 7:]) == []
    assert faults(tmp_path, run[5 + 7 * 3 + 3:]) == []


def test_nexpr_pasted_later_other_lengths(tmp_path: Path) -> None:
    """The rule on other settings: 600 iterations an epoch, pasted from epoch 4's first line,
    NaN from epoch 6's iteration 200 (5 * 600 + 200)."""
    assert faults(tmp_path, nexpr(3200, epochs=7, iters=600, total=300)[5 + 7 * 3:]) == [
        ("AMP006", 3200)]


def test_silksong_other_settings(tmp_path: Path) -> None:
    """Episodes of 900 steps from episode 120, NaN from episode 125: the step line above its
    loss (75 * 900 + sum of 900 + e for e in 120..125)."""
    steps = 75 * 900 + sum(900 + e for e in range(120, 126))
    assert faults(tmp_path, silksong(125, start=120, steps=900)) == [("AMP006", steps)]


def test_silksong_healthy_controls(tmp_path: Path) -> None:
    """Silence on healthy runs with other settings, whole and pasted from the middle."""
    run = silksong(episodes=30, start=200, steps=700, lr=2e-5)
    assert faults(tmp_path, run) == []
    assert faults(tmp_path, run[3 + 5 * 7 + 2:]) == []


def test_a_counters_line_numbers_only_its_record(tmp_path: Path) -> None:
    """A settings line with a step count (``  max steps: 5000, warmup steps: 100``) before a
    loop that numbers its own lines changes nothing: the NaN at the step its line prints."""
    lines = ["Config:", "  max_steps: 5000, warmup: 100",
             *(f"step {s}: loss {nan_from(s, 700, 2.0 - s / 1000):.4f}"
               for s in range(100, 1100, 100))]
    assert faults(tmp_path, lines) == [("AMP006", 700)]


def test_detnet_later_epoch_other_settings(tmp_path: Path) -> None:
    """Session 2, 1500 iterations an epoch printed every 50, pasted from epoch 3's first line:
    NaN from epoch 4's iteration 250 (3 * 1500 + 250)."""
    lines = detnet(3 * 1500 + 250, epochs=6, iters=1500, every=50, session=2, lr=2e-3)
    assert faults(tmp_path, lines[3 + 3 * 30 * 2:]) == [("AMP006", 3 * 1500 + 250)]


def test_detnet_healthy_controls(tmp_path: Path) -> None:
    """Silence on healthy runs with other settings, whole and pasted from epochs 2 and 3."""
    run = detnet(epochs=5, iters=1500, every=50, session=3, lr=5e-4)
    assert faults(tmp_path, run) == []
    assert faults(tmp_path, run[3 + 3 * 30:]) == []
    assert faults(tmp_path, run[3 + 3 * 30 * 2 + 3 * 7:]) == []
