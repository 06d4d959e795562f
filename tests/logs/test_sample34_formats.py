"""A seventeenth random sample: training scripts named for what they train (a GAN, a
segmenter, a baseline CNN, two VAEs, an RL agent), read as the held-out measure of #27 reads,
at first sight (the doctor as it is at b14e692, no rule added: a measurement only): 6
scripts, drawn from the code index's listing of ``train_classifier.py``,
``train_detector.py``, ``train_segmentation.py``, ``train_gan.py``, ``train_vae.py``,
``train_rl.py`` and ``train_baseline.py`` in the order it gives them. Skipped, and why: those
named in tests/logs already (the first rows of each listing: 007-Akira, 052vamsi, 1-jun,
100472207, 1ds23cs147, 23011206-beep, A-NGJ, 007prateekd, 0825pm, 3324446899, 404reese,
4G0NYY, 666-bit, 0merjavaid, 1116925, 1Huy2409, 2024yuva, 2yejin2, 0xtyls, 1160528707,
17YuvrajSehgal, 1ytic, 15-Aditya, 4Byteint, 0zgur0, 123abcbjs), those that print no loss of
their own or hand the loop to code not read (1235076-ruba/Thesis ``train_classifier.py``: a
package's ``train_classifier``; 70137131-jpg/ATIS ``train_detector.py``: ultralytics'
``model.train``; AI-Guru/latent-dream ``train_vae.py``: ``vae_model``'s ``train``).

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring) and the framework's lines beside them as its source
prints them (tqdm's bar, stable-baselines3's ``HumanOutputFormat`` and ``EvalCallback``):
a healthy run with settings other than the defaults, and faulty ones (a NaN loss from a
step), pasted from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer at first sight (b14e692)
-> the right one ("=": the same):

- ACOTSAE/DGD-UNet-GAN ``train_gan.py`` (fp16 autocast and a GradScaler by default,
  ``logging`` with ``%(message)s``): ``  Batch [50/400] | D: nan | G: nan`` every 50 batches,
  ``Epoch [4/6] | D Loss: nan | G Loss: nan | Val L1: nan | Val PSNR: nan dB | LR_G: ...``;
  AMP006 4, AMP013 4 -> 1250, 1600 (the run's batches: the epoch's length is printed in each
  row); from the middle 5, 5 -> 1900, 2000 (strict xfails at first sight: step; right since
  h52-fix34a).
- 512938445/pytorch_Comment_Pointnet-Pointnet- ``train_segmentation.py`` (PointNet's
  widely copied segmentation script): ``[1: 37/100] train loss: nan accuracy: 0.000000``
  each batch (epoch and batch from 0), every 10th batch ``[1: 40/100] \\x1b[94mtest\\x1b[0m
  loss: nan ...``; AMP013 1 -> AMP006 137, AMP013 140; from the middle AMP013 None -> AMP006
  250, AMP013 250 (strict xfails at first sight: the training NaN not reported, and the
  step; right since h52-fix34a).
- 014-Jayal/LUGAI-Adversarial-Defense ``train_baseline.py``: ``--- Epoch 3/5 ---`` over a
  ``Training Epoch`` bar (``loss=nan, acc=...``), ``Epoch 3 Train Loss: nan, Train Acc: ...``,
  an ``Evaluating`` bar, ``Epoch 3 Test Loss: nan, ...``; AMP006 1138 =, AMP013 1408 -> 1407
  (the epoch's last batch); from the middle (opening at ``--- Epoch 2/5 ---``) 1038, 1408 ->
  1507, 1876 (strict xfails at first sight: step; right since h52-fix34a).
- 8DM20-group6/ProstateSegmentation ``train_vae.py``: a bar an epoch without a postfix
  (``Epoch: 38/80: 100%|...| 12/12 [..., 3.87batch/s]``), then ``Train: nan | Validation:
  nan`` (the epoch's sums); AMP006 1, AMP013 1 -> 456, 456; from the middle 1, 1 -> 1452,
  1452 (strict xfails at first sight: step). Healthy: "nothing to diagnose" (an error, no
  diagnosis). All read right since h52-fix34b.
- 15138676358/Grasp-Failure-Recovery ``train_rl.py`` (stable-baselines3 SAC, ``verbose=1``,
  ``EvalCallback(eval_freq=100)``): SB3's tables (``train/actor_loss | nan``) dumped at
  ``time/total_timesteps``, ``Eval num_timesteps=..., episode_reward=...`` and its table;
  AMP006 32200 =; 34100 = from the middle.
- AIKU-friends/pose-generation ``train_vae.py`` (wandb logs the training loss; the script
  prints only ``Epoch 12/30, current lr=0.0001`` and ``Validation Loss: nan, MSE Loss: nan,
  ... PCK@0.2: 0.000, ...``); AMP013 None -> AMP013 12 (the epoch: the log prints only
  epochs); from the middle None -> 23 (strict xfails at first sight: step). Healthy:
  "nothing to diagnose". All read right since h52-fix34b.

Healthy, with settings other than the defaults (12 excerpts, 6 of them pasted from the
middle): no false alarm on 12 of 12; silent and read on 8, the other 4 (both VAE-named
scripts' logs, from the start and the middle) answered "nothing to diagnose" (an error: no
line the doctor takes for a training metric), held as strict xfails beside their silence.
Faulty (12 excerpts): right at first sight on 2 (17%: the SB3 agent from the start and the
middle); the 10 misses are all a wrong or missing step (PointNet's 2 also miss the training
NaN's AMP006, reporting only the test loss's AMP013), none silent, no false alarm.
Now: right on 12 of the 12 faulty excerpts (the GAN's, PointNet's and LUGAI's 6 since
h52-fix34a, the two VAEs' 4 since h52-fix34b), and the 4 healthy VAE logs read and silent
(h52-fix34b): 12 of 12 read and silent; no strict xfail is left in this file.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; an epoch where it prints only
epochs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, check_listed, faults, nan_from, sb3_record, tqdm_bar

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


def dehaze_gan(bad: int | None = None, epochs: int = 6, batches: int = 400,
               start_epoch: int = 0, amp: bool = True, every: int = 50) -> list[str]:
    """ACOTSAE/DGD-UNet-GAN ``train_gan.py`` (a depth-guided dehazing GAN; ``logging`` with
    ``fmt='%(message)s'``): ``f"Using device: {device}"``, ``f"Mixed precision (AMP):
    {use_amp}"`` (fp16 autocast and a ``GradScaler`` unless ``--no-fp16``), ``f"Loading
    checkpoint from {checkpoint_path}..."`` and ``f"Resuming from epoch {start_epoch}, best val
    loss {best_val_loss:.6f}"`` or ``"Starting training from scratch."``; every 50 batches
    ``f"  Batch [{batch_idx+1}/{len(train_loader)}] | D: {d_loss.item():.6f} | G:
    {g_loss.item():.6f}"``, each epoch (``val_every=1``) ``f"Epoch [{epoch+1}/{args.epochs}]
    | D Loss: {avg_d_loss:.6f} | G Loss: {avg_g_loss:.6f} | Val L1: {avg_val_l1:.6f} | Val
    PSNR: {avg_val_psnr:.2f} dB | LR_G: {...:.2e}"``, ``f"  -> Saved best generator
    (val_l1={best_val_loss:.6f})"``, ``f"Checkpoint saved to {filename}"``, at the end
    ``"Training finished."``; ``bad`` is the first NaN batch of the run (from 0; the
    generator's NaN output makes the validation NaN too)."""
    out = ["Using device: cuda", f"Mixed precision (AMP): {amp}"]
    best = float("inf")
    if start_epoch:
        best = 0.061 - start_epoch / 2000
        out += ["Loading checkpoint from checkpoints_gan/last_checkpoint.pth...",
                f"Resuming from epoch {start_epoch}, best val loss {best:.6f}"]
    else:
        out.append("Starting training from scratch.")
    for e in range(start_epoch, epochs):
        d_sum = g_sum = 0.0
        for b in range(batches):
            run = e * batches + b
            d = nan_from(bad, run, 0.48 + 0.03 * (run % 5) / 5)
            g = nan_from(bad, run, 38.5 - run / 400 + 0.7 * (run % 3))
            d_sum += d
            g_sum += g
            if (b + 1) % every == 0:
                out.append(f"  Batch [{b + 1}/{batches}] | D: {d:.6f} | G: {g:.6f}")
        broken = d_sum != d_sum
        l1 = NAN if broken else 0.072 - e / 2000
        psnr = NAN if broken else 21.3 + e / 10
        out.append(f"Epoch [{e + 1}/{epochs}] | D Loss: {d_sum / batches:.6f} | G Loss: "
                   f"{g_sum / batches:.6f} | Val L1: {l1:.6f} | Val PSNR: {psnr:.2f} dB | "
                   f"LR_G: {2e-4 * (1 - e / epochs) + 1e-6:.2e}")
        if l1 < best:
            best = l1
            out.append(f"  -> Saved best generator (val_l1={best:.6f})")
        out.append("Checkpoint saved to checkpoints_gan/last_checkpoint.pth")
    return [*out, "Training finished."]


def pointnet_seg(bad: int | None = None, epochs: int = 4, samples: int = 3200,
                 batch: int = 32) -> list[str]:
    """512938445/pytorch_Comment_Pointnet-Pointnet- ``train_segmentation.py`` (PointNet's
    part segmentation, fp32): ``print(opt)`` (argparse's ``Namespace``, keys sorted),
    ``"Random Seed: ", opt.manualSeed``, ``len(dataset), len(test_dataset)``, ``'classes',
    num_classes``; each batch ``'[%d: %d/%d] train loss: %f accuracy: %f' % (epoch, i,
    num_batch, ...)`` (epoch and batch from 0, ``num_batch`` a float printed by ``%d``),
    every 10th batch ``'[%d: %d/%d] %s loss: %f accuracy: %f'`` with ``blue('test')`` (ANSI
    94); then the mIOU loop's ``tqdm`` without a total and ``"mIOU for class {}: {}"``.
    ``bad`` is the first NaN batch of the run (the weights NaN from there: the test loss too,
    the argmax of NaN scores class 0)."""
    per_epoch = samples // batch
    out = [f"Namespace(batchSize={batch}, class_choice='Chair', dataset='shapenetcore_partanno_"
           f"segmentation_benchmark_v0', feature_transform=True, model='', nepoch={epochs}, "
           "outf='seg', workers=4)", "Random Seed:  4821", f"{samples} 704", "classes 4"]
    test = "\033[94mtest\033[0m"
    for e in range(epochs):
        for i in range(per_epoch):
            run = e * per_epoch + i
            loss = nan_from(bad, run, 1.1 * 0.999 ** run + 0.05 * (run % 4) / 4)
            acc = 0.0 if loss != loss else 0.62 + min(run / 5000, 0.3)
            # (``%d`` of the float ``num_batch`` truncates it, ``%f`` is ``:f``.)
            out.append(f"[{e}: {i}/{int(samples / batch)}] train loss: {loss:f} accuracy: "
                       f"{acc:f}")
            if i % 10 == 0:
                t_loss = nan_from(bad, run, 1.2 * 0.999 ** run)
                t_acc = 0.0 if t_loss != t_loss else 0.6 + min(run / 5000, 0.3)
                out.append(f"[{e}: {i}/{int(samples / batch)}] {test} loss: {t_loss:f} "
                           f"accuracy: {t_acc:f}")
    return [*out, "0it [00:00, ?it/s]\r22it [00:02,  9.81it/s]",
            f"mIOU for class Chair: {0.2147 if bad is not None else 0.8712}"]


def lugai(bad: int | None = None, epochs: int = 5, batches: int = 469, test_batches: int = 79,
          refresh: int = 100) -> list[str]:
    """014-Jayal/LUGAI-Adversarial-Defense ``train_baseline.py`` (a baseline CNN on MNIST,
    fp32): ``f"Using device: {config.DEVICE}"``, ``f"Loading processed data from ..."``, the
    tensors' shapes, ``"\\nStarting training..."``; per epoch ``f"\\n--- Epoch
    {epoch+1}/{config.EPOCHS} ---"``, a ``tqdm(train_loader, desc=f"Training Epoch")`` bar
    (``set_postfix(loss=f"{loss.item():.4f}", acc=f"{...:.2f}%")``; a file keeps its refreshes
    as ``\\r`` segments of one line), ``f"Epoch {epoch+1} Train Loss: {train_loss:.4f}, Train
    Acc: {train_acc:.2f}%"``, an ``Evaluating`` bar (``acc`` only), ``f"Epoch {epoch+1} Test
    Loss: {test_loss:.4f}, Test Acc: {test_acc:.2f}%"``, ``f"New best test accuracy: ...%.
    Saving model..."``; at the end ``"\\nTraining complete."``, ``f"Best test accuracy
    achieved: ...%"``, ``f"Model saved to: ..."``. ``bad`` is the first NaN batch of the run
    (from 0)."""
    out = ["Using device: cuda", "Loading processed data from data/processed...",
           "Train tensors shape: torch.Size([60000, 1, 28, 28]), torch.Size([60000])",
           "Test tensors shape: torch.Size([10000, 1, 28, 28]), torch.Size([10000])", "",
           "Starting training..."]
    best = 0.0
    step = 0
    for e in range(epochs):
        out += ["", f"--- Epoch {e + 1}/{epochs} ---"]
        total = correct = 0.0
        segments = [tqdm_bar("Training Epoch", 0, batches)]
        for b in range(1, batches + 1):
            loss = nan_from(bad, step, 0.9 * 0.995 ** step + 0.02)
            total += loss
            correct += 0.1 if loss != loss else min(0.5 + step / 800, 0.99)
            step += 1
            if b % refresh == 0 or b == batches:
                segments.append(tqdm_bar("Training Epoch", b, batches, f", loss={loss:.4f}, "
                                         f"acc={100 * correct / b:.2f}%", rate=38.2))
        out.append("\r".join(segments))
        train_loss = total / batches
        out.append(f"Epoch {e + 1} Train Loss: {train_loss:.4f}, Train Acc: "
                   f"{100 * correct / batches:.2f}%")
        broken = train_loss != train_loss
        acc = 9.80 if broken else 97.1 + e / 5
        out.append(tqdm_bar("Evaluating", test_batches, test_batches, f", acc={acc:.2f}%",
                            rate=120.5))
        out.append(f"Epoch {e + 1} Test Loss: {NAN if broken else 0.09 - e / 100:.4f}, "
                   f"Test Acc: {acc:.2f}%")
        if acc > best:
            best = acc
            out.append(f"New best test accuracy: {best:.2f}%. Saving model...")
    return [*out, "", "Training complete.", f"Best test accuracy achieved: {best:.2f}%",
            "Model saved to: models/baseline_cnn.pth"]


def prostate_vae(bad: int | None = None, epochs: int = 200, batches: int = 12) -> list[str]:
    """8DM20-group6/ProstateSegmentation ``train_vae.py`` (a VAE on prostate MR slices,
    fp32): per epoch a ``tqdm(dataloader, unit="batch")`` bar with
    ``set_description(f"Epoch: {epoch+1}/{N_EPOCHS}")`` and no postfix (its first and last
    draws: ``\\r`` segments of one line; the rate in ``batch/s``), then ``f"Train:
    {current_train_loss:.4f} | Validation: {current_valid_loss:.4f}"`` (the epoch's sums, 0-d
    tensors formatted as floats). ``bad`` is the first NaN batch of the run (from 0)."""
    out = []
    for e in range(epochs):
        train = 0.0
        for b in range(batches):
            train += nan_from(bad, e * batches + b, 410.0 * 0.99 ** e + 3 * (b % 3))
        valid = NAN if train != train else 140.0 * 0.99 ** e + 2
        bars = [tqdm_bar(f"Epoch: {e + 1}/{epochs}", n, batches, rate=3.87)
                for n in (0, batches)]
        out.append("\r".join(bars).replace("it/s", "batch/s"))
        out.append(f"Train: {train:.4f} | Validation: {valid:.4f}")
    return out


def grasp_sac(bad: int | None = None, steps: int = 36000, learning_starts: int = 30000,
              lr: float = 1e-3, batch: int = 512, episode: int = 25,
              eval_freq: int = 100) -> list[str]:
    """15138676358/Grasp-Failure-Recovery ``train_rl.py``: a stable-baselines3 SAC subclass
    (``graspagents.GraspSAC``, ``verbose=1``, ``learning_starts=30000``) logging with
    ``configure(log_dir, ["stdout", "csv", "tensorboard"])`` (``f"Logging to {folder}"``),
    SB3's start-up lines (``Using cuda device``, the Monitor and DummyVecEnv wrappers), every
    4 episodes (SAC's ``log_interval``) a table of ``rollout/``, ``time/`` and, after
    ``learning_starts``, ``train/`` keys dumped at ``num_timesteps``;
    ``EvalCallback(eval_freq=100, verbose=1)`` prints ``f"Eval num_timesteps={...},
    episode_reward={mean_reward:.2f} +/- {std_reward:.2f}"``, ``f"Episode length:
    {mean_ep_length:.2f} +/- {std_ep_length:.2f}"``, ``New best mean reward!`` and dumps its
    ``eval/`` table (SB3 ``common/callbacks.py``). ``bad`` is the first timestep whose
    updates are NaN (the evaluation's reward stays finite: the env scores the failed
    grasps)."""
    out = [f"Logging to ./checkpoint/GraspEnv_v3/rl/SAC/lr_{lr}_bs_{batch}",
           "Using cuda device", "Wrapping the env with a `Monitor` wrapper",
           "Wrapping the env in a DummyVecEnv."]
    best = -1e9
    for t in range(1, steps + 1):
        if t % episode == 0 and (t // episode) % 4 == 0:
            values: dict[str, float | int] = {
                "rollout/ep_len_mean": float(episode),
                "rollout/ep_rew_mean": -3.2 + min(t, 60000) / 30000,
                "time/episodes": t // episode, "time/fps": 212, "time/time_elapsed": t // 212,
                "time/total_timesteps": t}
            if t > learning_starts:
                broken = bad is not None and t >= bad
                values.update({
                    "train/actor_loss": NAN if broken else -4.1 - t / 20000,
                    "train/critic_loss": NAN if broken else 0.031 + (t % 7) / 700,
                    "train/ent_coef": NAN if broken else 0.0021,
                    "train/ent_coef_loss": NAN if broken else -0.83,
                    "train/learning_rate": lr * 0.99 ** (t / steps),
                    "train/n_updates": t - learning_starts - 1})
            out += sb3_record(values)
        if t % eval_freq == 0:
            reward = -3.0 + min(t, 60000) / 30000 if bad is None or t < bad else -6.25
            out += [f"Eval num_timesteps={t}, episode_reward={reward:.2f} +/- 0.41",
                    f"Episode length: {episode:.2f} +/- 0.00"]
            if reward > best:
                best = reward
                out.append("New best mean reward!")
            out += sb3_record({"eval/mean_ep_length": float(episode),
                               "eval/mean_reward": reward, "time/total_timesteps": t})
    return out


def aiku_pose(bad: int | None = None, epochs: int = 30, lr: float = 0.0001,
              pck: float = 0.2) -> list[str]:
    """AIKU-friends/pose-generation ``train_vae.py`` (a conditional VAE for poses; the
    training loss goes to wandb only): ``"Training ..."``, per epoch ``f'Epoch
    {epoch+1}/{num_epochs}, current lr={current_lr}'`` (the StepLR never stepped) and, as
    ``num_epochs % cfg.validation_term == 0``, every epoch ``f'Validation Loss:
    {valid_loss:.3f}, MSE Loss: {mse_loss:.3f}, MSE: {mse:.3f},
    PCK@{cfg.pck_threshold}: {pck:.3f}, MSE_Latent: {mse_l:.3f},
    PCK@{cfg.pck_threshold}_Latent: {pck_l:.3f}'``. ``bad`` is the first epoch (from 1)
    whose weights are NaN. wandb's own banner is left out."""
    out = ["Training ..."]
    for e in range(epochs):
        out.append(f"Epoch {e + 1}/{epochs}, current lr={lr}")
        broken = bad is not None and e + 1 >= bad
        valid = NAN if broken else 4.91 * 0.97 ** e + 0.3
        mse_loss = NAN if broken else 0.41 * 0.98 ** e
        mse = NAN if broken else 812.4 * 0.97 ** e
        right = 0.0 if broken else min(0.35 + e / 60, 0.9)
        out.append(f"Validation Loss: {valid:.3f}, MSE Loss: {mse_loss:.3f}, MSE: {mse:.3f}, "
                   f"PCK@{pck}: {right:.3f}, MSE_Latent: {mse * 1.3:.3f}, PCK@{pck}_Latent: "
                   f"{right * 0.8:.3f}")
    return out


# The healthy runs, each with settings other than the defaults (fp32 or a resumed run, other
# batch sizes, intervals, learning rates and lengths), from the start and pasted from the
# middle: the right answer is silence.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "dehaze_gan_resumed": lambda: dehaze_gan(epochs=5, batches=300, start_epoch=2, every=25),
    "dehaze_gan_from_the_middle": lambda: dehaze_gan(amp=False)[30:],
    "pointnet_seg": lambda: pointnet_seg(epochs=3, samples=2400, batch=24),
    "pointnet_seg_from_the_middle": lambda: pointnet_seg()[150:],
    "lugai": lambda: lugai(epochs=4, batches=235, test_batches=40, refresh=50),
    "lugai_from_the_middle": lambda: lugai()[12:],
    "grasp_sac": lambda: grasp_sac(lr=3e-4, batch=256, steps=34000),
    "grasp_sac_from_the_middle": lambda: grasp_sac()[6000:],
}
# The healthy runs the doctor finds nothing in to read (only a validation loss, or sums
# named ``Train``/``Validation``): silent, but with its "nothing to diagnose" error at first
# sight (read since h52-fix34b).
UNREAD: dict[str, Callable[[], list[str]]] = {
    "prostate_vae": lambda: prostate_vae(epochs=60, batches=9),
    "prostate_vae_from_the_middle": lambda: prostate_vae()[90:],
    "aiku_pose": lambda: aiku_pose(epochs=40, lr=0.0003, pck=0.1),
    "aiku_pose_from_the_middle": lambda: aiku_pose()[21:],
}
CONTROLS: Table = {f"{name} (healthy)": (build, []) for name, build in HEALTHY.items()}

# The faulty excerpts the doctor read right at first sight (b14e692).
READ_ALREADY: Table = {
    # Updates NaN from timestep 32150: the first table after it (every 100 timesteps), 32200;
    # from the middle, 34050: 34100.
    "grasp_sac": (lambda: grasp_sac(32150), [("AMP006", 32200)]),
    "grasp_sac_from_the_middle": (lambda: grasp_sac(34050)[5000:], [("AMP006", 34100)]),
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right at first sight and the healthy runs' silence."""
    check_listed(tmp_path, name, READ_ALREADY, CONTROLS)


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_raise_no_alarm(tmp_path: Path, name: str) -> None:
    """The healthy runs the doctor does not read: no diagnosis above info (no false alarm),
    whatever its error says."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(UNREAD[name]()) + "\n", encoding="utf-8")
    assert diagnose(str(path)).faults == []


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_are_read(tmp_path: Path, name: str) -> None:
    """The right answer on those runs: read without error, and silent (fixed in
    h52-fix34b: see tests/logs/test_epoch_sums.py)."""
    assert faults(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize(("build", "right"), [
    # The GAN's NaN from batch 34 of epoch 4 (0-based run batch 1234, 400 a epoch): the row
    # of batch 50, the run's 1250; the epoch's validation 1600. The doctor: AMP006 4, AMP013
    # 4 (the epochs). From the middle, batch 277 of epoch 5: 1900, 2000 (doctor: 5, 5).
    # Fixed (fix34a): ``D: ... | G: ...`` read as the GAN's two losses (the batch rows were
    # not read, so the epoch rows numbered the run), the epoch's row right below the batch
    # row that reached its total numbered by that row's step.
    pytest.param(lambda: dehaze_gan(1234), [("AMP006", 1250), ("AMP013", 1600)],
                 id="dehaze_gan"),
    pytest.param(lambda: dehaze_gan(1877)[40:], [("AMP006", 1900), ("AMP013", 2000)],
                 id="dehaze_gan_from_the_middle"),
    # PointNet's NaN from batch 37 of epoch 1 (100 a epoch): the run's 137; the test row at
    # batch 40, 140. At first sight: AMP013 1 (each training row right below a test row
    # taken for the test's, and so on down). From the middle, batch 50 of epoch 2 (a test row
    # too): 250, 250 (at first sight: AMP013 with no step). Fixed (fix34a): a loss the
    # training split keys goes on no evaluation; ``[e: i/N]`` numbers epoch e's batch i.
    pytest.param(lambda: pointnet_seg(137), [("AMP006", 137), ("AMP013", 140)],
                 id="pointnet_seg"),
    pytest.param(lambda: pointnet_seg(250)[170:], [("AMP006", 250), ("AMP013", 250)],
                 id="pointnet_seg_from_the_middle"),
    # LUGAI's NaN from batch 121 of epoch 3 (469 a bar, drawn every 100): the bar's 200, the
    # run's 1138 (the doctor: right); the test loss after the bar's last batch, 1407 (the
    # doctor: 1408). From the middle (opening at ``--- Epoch 2/5 ---``), batch 21 of epoch 4:
    # 1507, 1876 (the doctor: 1038, 1408). Fixed (fix34a): the epoch's summary right below
    # the bar that reached its total takes that bar's step; ``--- Epoch 2/5 ---`` heads the
    # bar below it as Keras' ``Epoch 2/5`` does.
    pytest.param(lambda: lugai(2 * 469 + 120), [("AMP006", 1138), ("AMP013", 1407)],
                 id="lugai"),
    pytest.param(lambda: lugai(3 * 469 + 20)[14:], [("AMP006", 1507), ("AMP013", 1876)],
                 id="lugai_from_the_middle"),
    # The prostate VAE's NaN in epoch 38 (12 batches a bar): the run's 456, its sums' line
    # after the bar; from the middle, epoch 121: 1452. The doctor at first sight: 1, 1 both
    # times (right since h52-fix34b: denpex_callbacks/logs/epoch_sums.py).
    pytest.param(lambda: prostate_vae(37 * 12 + 5, epochs=80),
                 [("AMP006", 456), ("AMP013", 456)], id="prostate_vae"),
    pytest.param(lambda: prostate_vae(120 * 12 + 5)[200:],
                 [("AMP006", 1452), ("AMP013", 1452)], id="prostate_vae_from_the_middle"),
    # The pose VAE's weights NaN from epoch 12: its validation row under ``Epoch 12/30``; from
    # the middle, 23. The doctor at first sight: AMP013 with no step both times (right since
    # h52-fix34b: the heading's epoch, MetricReader._epoch_above).
    pytest.param(lambda: aiku_pose(12), [("AMP013", 12)], id="aiku_pose"),
    pytest.param(lambda: aiku_pose(23)[25:], [("AMP013", 23)], id="aiku_pose_from_the_middle"),
])
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor read wrong at first sight, each with its right answer
    (all right now: the comments name the branch that fixed each)."""
    assert faults(tmp_path, build()) == right
