"""False alarms, round five: healthy loss curves whose shapes look like faults, each excerpt
written from the tool's own format string (each test names it), beside the fault twin its
rule must still catch.

- eriklindernoren/PyTorch-GAN (``implementations/*/*.py``, e.g. ``implementations/ebgan/
  ebgan.py``: ``print("[Epoch %d/%d] [Batch %d/%d] [D loss: %f] [G loss: %f]" % ...)``): the
  line prints two objectives under one name, the discriminator's and the generator's. The
  reader kept the first ``loss`` and dropped the second, so a generator gone NaN was silence
  and a discriminator at exactly 0 (a hinge objective past its margin) beside a moving
  generator was AMP007. Now both are the row's terms (``metric_pairs._objectives``).
- Controls (pass on the parent b9d95c6 too): stable-baselines3's value losses of 1e3-1e6
  jumping 100-fold beside negative policy and entropy losses, a Megatron-LM pretraining
  spike that recovers (2.3 -> 7.9 -> 2.4), the PyTorch examples' VAE with a negative loss (a
  continuous likelihood), a WGAN critic swinging around -1e3 and a discriminator whose loss
  decays to 0 as it wins.

- lucidrains' stylegan2-pytorch and lightweight-gan: their ``NaN detected for generator or
  discriminator. Loading from checkpoint #3`` is a ``messages.py`` row (AMP006); their ``G:
  1.23 | D: 0.00 | GP: 0.00`` lines stay unread (a documented miss: single-letter keys).

The first two tests and the last failed on the parent commit (b9d95c6); the others (controls
and the AMP007 twin) pass there too.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from excerpts import faults, megatron_line, sb3_record

NAN = float("nan")
BATCHES = 938  # MNIST at PyTorch-GAN's default batch size of 64


def _pytorch_gan(d_loss: list[float], g_loss: list[float]) -> list[str]:
    """PyTorch-GAN's line every tenth batch of epochs 0 and 1 (``%f``: six places, ``nan``);
    ``d_loss`` and ``g_loss`` hold one value a line."""
    lines = []
    for row, (d, g) in enumerate(zip(d_loss, g_loss, strict=True)):
        epoch, batch = divmod(row * 10, BATCHES - BATCHES % 10)
        lines.append(f"[Epoch {epoch}/200] [Batch {batch}/{BATCHES}] [D loss: {d:f}] "
                     f"[G loss: {g:f}]")
    return lines


def _moving(rows: int, low: float, high: float, seed: int) -> list[float]:
    draw = random.Random(seed)
    return [draw.uniform(low, high) for _ in range(rows)]


ROWS = 2 * (BATCHES // 10)  # two epochs, a line every ten batches: 186 lines
FROM = 124  # the row where the curves below change: batch 310 of epoch 1: step 938 + 310 = 1248


def test_gan_generator_nan_is_the_runs(tmp_path: Path) -> None:
    """Before: silence (``nothing wrong``): the reader kept ``D loss`` and dropped ``G loss``,
    whose NaN from epoch 1, batch 310 (step 1248: 938 batches an epoch) it never saw. The
    discriminator's NaN was caught already."""
    d, g = _moving(ROWS, 0.1, 0.7, 1), _moving(ROWS, 0.7, 3.0, 2)
    assert faults(tmp_path, _pytorch_gan(d, g[:FROM] + [NAN] * (ROWS - FROM))) == [
        ("AMP006", 1248)]
    assert faults(tmp_path, _pytorch_gan(d[:FROM] + [NAN] * (ROWS - FROM), g)) == [
        ("AMP006", 1248)]


def test_gan_discriminator_at_zero_beside_a_moving_generator_is_quiet(tmp_path: Path) -> None:
    """A discriminator whose hinge objective (``relu(1 - real) + relu(1 + fake)``, lucidrains'
    stylegan2-pytorch ``stylegan2_pytorch.py``) is past its margin on every sample prints
    ``D loss: 0.000000`` for a stretch while the generator's loss moves: the row's objectives
    are not 0. Before: AMP007 at the first zero (the drop from 0.1-1.5 was abrupt)."""
    d = _moving(ROWS, 0.1, 1.5, 3)
    d[30:70] = [0.0] * 40
    assert faults(tmp_path, _pytorch_gan(d, _moving(ROWS, 0.5, 3.0, 4))) == []


def test_gan_both_objectives_at_zero_stay_amp007(tmp_path: Path) -> None:
    """The twin: both losses at exactly 0 from step 1248 (the whole row's objective is 0)
    stays AMP007 there. Passes on the parent too: it guards the rule's edge."""
    d, g = _moving(ROWS, 0.1, 1.5, 5), _moving(ROWS, 0.5, 3.0, 6)
    zeros = [0.0] * (ROWS - FROM)
    assert faults(tmp_path, _pytorch_gan(d[:FROM] + zeros, g[:FROM] + zeros)) == [
        ("AMP007", 1248)]


def test_gan_controls(tmp_path: Path) -> None:
    """Controls: PyTorch-GAN's ``implementations/wgan/wgan.py`` line (the critic's loss of
    -1.5e3 to 200, sign flips, the generator's -300 to 900), and a BCE discriminator that
    wins: its loss decays towards 0.000000 while the generator's climbs (a decay, not a
    drop). Pass on the parent too."""
    assert faults(tmp_path, _pytorch_gan(_moving(ROWS, -1500, 200, 7),
                                         _moving(ROWS, -300, 900, 8))) == []
    decayed = [0.69 * math.exp(-row / 6) if row < 90 else 0.0 for row in range(ROWS)]
    climbing = [min(100.0, 0.7 + row / 3) for row in range(ROWS)]
    assert faults(tmp_path, _pytorch_gan(decayed, climbing)) == []


def test_sb3_large_jumping_value_loss_control(tmp_path: Path) -> None:
    """Control, stable-baselines3 PPO (DLR-RM/stable-baselines3 ``stable_baselines3/common/
    logger.py`` ``HumanOutputFormat.write``, keys of ``ppo/ppo.py``): ``value_loss`` of 1e3
    to 1e6 jumping 100-fold between updates (unnormalised returns), ``loss`` at half of it
    or negative, ``policy_gradient_loss`` -0.02, ``entropy_loss`` -1.3, a negative
    ``explained_variance``. Passes on the parent too."""
    draw = random.Random(9)
    lines = []
    for it in range(1, 40):
        values: dict[str, float | int] = {
            "rollout/ep_len_mean": 200.0, "rollout/ep_rew_mean": -1500.0 + it,
            "time/fps": 1234, "time/iterations": it, "time/time_elapsed": it * 2,
            "time/total_timesteps": it * 2048}
        if it > 1:
            value_loss = 10 ** draw.uniform(3, 6)
            values.update({
                "train/approx_kl": 0.0087, "train/clip_fraction": 0.1, "train/clip_range": 0.2,
                "train/entropy_loss": -1.3 + it / 100, "train/explained_variance": -0.02,
                "train/learning_rate": 0.0003,
                "train/loss": value_loss / 2 if it % 3 else -0.02,
                "train/n_updates": (it - 1) * 10, "train/policy_gradient_loss": -0.02,
                "train/value_loss": value_loss})
        lines += sb3_record(values)
    assert faults(tmp_path, lines) == []


def test_megatron_spike_that_recovers_control(tmp_path: Path) -> None:
    """Control, Megatron-LM's iteration line (``megatron/training/training.py``
    ``training_log``, see ``excerpts.megatron_line``): ``lm loss`` 2.3, a spike to 7.9 at
    iteration 2500, 4.0 at the next print, back to 2.3: finite and recovering, no fault in the
    catalog (AMP006 is non-finite, AMP007 exactly 0). Passes on the parent too."""
    spike = {2500: 7.9, 2600: 4.0}
    lines = [megatron_line(it, loss=spike.get(it, 2.3)) for it in range(100, 5001, 100)]
    assert faults(tmp_path, lines) == []


def test_vae_negative_loss_control(tmp_path: Path) -> None:
    """Control, pytorch/examples ``vae/main.py`` (``'Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss:
    {:.6f}'``, ``'====> Epoch: {} Average loss: {:.4f}'``, ``'====> Test set loss: {:.4f}'``)
    with a Gaussian likelihood: the negative ELBO below 0 and falling. Passes on the parent
    too."""
    lines = []
    for epoch in range(1, 6):
        for batch in range(0, 469, 10):
            loss = (-500.0 - epoch * 30 - batch / 10) / 128
            lines.append(f"Train Epoch: {epoch} [{batch * 128}/60000 "
                         f"({100.0 * batch / 469:.0f}%)]\tLoss: {loss:.6f}")
        lines += [f"====> Epoch: {epoch} Average loss: {-4.2 - epoch / 10:.4f}",
                  f"====> Test set loss: {-4.1 - epoch / 10:.4f}"]
    assert faults(tmp_path, lines) == []


def _lucidrains_gan(nan_at: int | None = None) -> list[str]:
    """lucidrains' stylegan2-pytorch (``stylegan2_pytorch/stylegan2_pytorch.py``
    ``Trainer.print_log``: ``' | '.join(map(lambda n: f'{n[0]}: {n[1]:.2f}', data))`` over
    ``G``, ``D``, ``GP``, ``PL``, every 50 steps from ``cli.py``) with its hinge
    discriminator at ``D: 0.00``; ``nan_at``: the print where ``Trainer.train`` found a NaN
    (``print(f'NaN detected for generator or discriminator. Loading from checkpoint
    #{self.checkpoint_num}')``, then ``raise NanException``, retried by the cli)."""
    lines = []
    for k in range(60):
        if k == nan_at:
            lines.append("NaN detected for generator or discriminator. Loading from checkpoint #3")
        lines.append(f"G: {1.2 + k % 7 / 10:.2f} | D: {0.0 if 20 < k < 40 else 0.42:.2f} | "
                     f"GP: 0.00 | PL: {0.31 + k % 3 / 10:.2f}")
    return lines


def test_lucidrains_gan_nan_message(tmp_path: Path) -> None:
    """Before: nothing to diagnose (its ``G: | D:`` lines name no loss the reader knows, and
    the message was not in the table): now a ``messages.py`` row, AMP006. The lines print no
    step, so the message is the first step counted."""
    assert faults(tmp_path, _lucidrains_gan(45)) == [("AMP006", 1)]
