"""A twenty-second random sample: training scripts named for what they train (audio, speech,
video, 3D, a PointNet, a NeRF), read as the held-out measure of #27 reads, at first sight
(the doctor as it is at 8226626, no rule added: a measurement only): 6 scripts, drawn from
the code index's listing of ``train_audio.py``, ``train_speech.py``, ``train_video.py``,
``train_3d.py``, ``train_pointnet.py`` and ``train_nerf.py`` in the order it gives them, the
first of each that is not skipped. Skipped, and why: those named in tests/logs already
(0xKushwaha/mamba_comparision, 582383982/FAST-MRI, AgapeDsky/Fish_Appetite_Detector,
AndreiDiaconu97/GrowNeRF, Animankhandelwal/CV-_HW4), those that train nothing or print no
loss (25RA/AirShield-Aerial-Threat-Detection: a random forest; Adithya2406/MazeMaster-QL
``train_3d.py``: replays a Q-table; AnimatedRNG/nerf-jax: its loop is commented out) or hand
the loop to code not read (Applied-IAS/DDMS ``train_video.py``: ``modules.trainer``'s
``Trainer.train``).

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring) and tqdm's bar as its source prints it: a healthy run
with settings other than the defaults, from the start and from the middle, and two faulty
ones (a NaN loss from a step), pasted from the start and from the middle. None of the six
prints a loss scale or skipped steps (all fp32): no scale fault.

Each script as repository ``file``: the format; the doctor's answer at first sight (8226626)
-> the right one ("=": the same):

- 2Ahmedsquared2/Multi-Modal_Recognition ``train_audio.py`` (its PyTorch stage): ``Epoch  23/60
  | Train: nan /  16.7% | Val: nan /  16.7% | LR: 0.000...| 1.42s``, an epoch a row;
  AMP013 None -> AMP006 23, AMP013 23; from the middle the same at 31 (strict xfails: id and
  step). Healthy (both): "nothing to diagnose" (an error, no false alarm), held as strict
  xfails beside their silence.
- BartsMRIPhysics/Speech_MRI_2D_PRORED ``train_speech.py``: ``Fold 0``, ``epoch 17 average
  loss: nan``, ``Best dice [0.0] at epoch --- 12``; AMP006 17 =; 29 = from the middle.
- Arthi-V22/Deep-fake-Detection ``train_video.py``: an ``Epoch 3`` bar without a postfix,
  then ``Epoch [3/6], Loss: nan, Time: 30.80 sec``; AMP006 3 -> 111 (the run's batches: the
  bar reached 37/37); from the middle 5 -> 185 (strict xfails: step).
- AhmedKElshahed/INR ``train_3d.py``: ``Training SIREN on 3D Occupancy`` between rules,
  ``Epoch 7/12 | Loss: nan | Train IoU: 0.0000``; AMP006 7 =; 9 = from the middle.
- AJaxRUN/RADAR_LiDAR_SLAM ``train_pointnet.py``: ``Epoch 44/80, (Loss: nan)``; AMP006 44 =;
  61 = from the middle.
- Aokiji996/2d-gaussian-splatting-nerf ``train_nerf.py`` (the Inria Gaussian-splatting
  layout): a ``Training progress`` bar with ``Loss=nan, distort=..., normal=..., Points=...``,
  ``[ITER 4000] Evaluating test: L1 nan PSNR nan``; AMP006 2350, AMP013 4000 =; 3550, 4000 =
  from the middle.

Healthy, with settings other than the defaults (12 excerpts, 6 of them pasted from the
middle): no false alarm on 12 of 12; silent and read on 10, the audio script's 2 answered
"nothing to diagnose" (its ``Train: x / y%`` row not read).
Faulty (12 excerpts): right at first sight on 8 (67%); the 4 misses: the audio script's 2
(id: the training NaN not reported, and step: the validation's AMP013 with none), the video
script's 2 (step: the epoch where the run's batches are right); none silent, no false alarm.
Now (h53-sample39's rule, denpex_callbacks/logs/epoch_split_rows.py): the audio script's 4
excerpts read right (faulty AMP006 and AMP013 at the row's epoch; healthy read and silent):
10 of 12 faulty right, 12 of 12 healthy read and silent; the video script's 2 stayed strict
xfails until h56-handover56 (a bar at its total labelled with its epoch alone ends the pass the
summary below it names: closing_bars.py): 12 of 12 faulty right.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; an epoch where it prints only
epochs).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, alarms, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def multimodal_audio(bad: int | None = None, epochs: int = 60, patience: int = 6,
                     lr: float = 0.005, decay: float = 0.9) -> list[str]:
    """2Ahmedsquared2/Multi-Modal_Recognition ``train_audio.py`` (its PyTorch stage, fp32):
    ``"=" * 70``, ``"STAGE 3: PYTORCH MODEL TRAINING"``, ``f"Device: {device}"``, ``f"\\n🔥
    Building PyTorch model: {input_size} → {' → '.join(map(str, hidden))} → {num_classes}"``,
    ``f"Training: {len(train_ds)} samples, Validation: {len(val_ds)} samples"``; each epoch
    (from 1) ``f"Epoch {epoch:>3}/{args.epochs} | Train: {train_loss:.4f} /
    {train_acc*100:>5.1f}% | Val: {val_loss:.4f} / {val_acc*100:>5.1f}% | LR:
    {current_lr:.6f} | {epoch_time:.2f}s"``; ``f"\\n⏹️  Early stopping at epoch {epoch}
    (patience {args.patience})"`` (a NaN validation loss is never below the best: patience
    runs out); ``f"PyTorch Training Complete — {total_time:.1f}s"``, ``f"  Best val loss:
    {best_val_loss:.4f} (epoch {best_epoch})"``, ``f"  Test accuracy:   ...%"``. ``bad`` is
    the first NaN epoch (from 1)."""
    out = ["", "=" * 70, "STAGE 3: PYTORCH MODEL TRAINING", "=" * 70, "Device: cuda", "",
           "🔥 Building PyTorch model: 16384 → 512 → 128 → 6", "", "=" * 70,
           "Training: 1890 samples, Validation: 405 samples", "=" * 70]
    best, best_epoch, waited, current = float("inf"), 0, 0, lr
    for epoch in range(1, epochs + 1):
        tl = nan_from(bad, epoch, 1.7 * 0.93 ** epoch + 0.08 + 0.01 * (epoch % 3))
        vl = nan_from(bad, epoch, 1.6 * 0.94 ** epoch + 0.21 + 0.02 * (epoch % 4))
        ta = 0.1667 if tl != tl else min(0.35 + epoch / 70, 0.97)
        va = 0.1667 if vl != vl else min(0.33 + epoch / 80, 0.9)
        out.append(f"Epoch {epoch:>3}/{epochs} | Train: {tl:.4f} / {ta * 100:>5.1f}% | "
                   f"Val: {vl:.4f} / {va * 100:>5.1f}% | LR: {current:.6f} | "
                   f"{1.37 + 0.05 * (epoch % 3):.2f}s")
        current *= decay
        if vl < best:
            best, best_epoch, waited = vl, epoch, 0
        else:
            waited += 1
        if waited >= patience:
            out += ["", f"⏹️  Early stopping at epoch {epoch} (patience {patience})"]
            break
    return [*out, "", "=" * 70, "PyTorch Training Complete — 84.2s",
            f"  Best val loss:   {best:.4f} (epoch {best_epoch})",
            "  Test accuracy:   81.3%", "=" * 70]


def speech_mri(bad: int | None = None, folds: int = 2, epochs: int = 40) -> list[str]:
    """BartsMRIPhysics/Speech_MRI_2D_PRORED ``train_speech.py`` (a ViT segmenter of speech
    MRI, five-fold, fp32): ``f"Total parameters: {total_params}"``, ``f"Trainable parameters:
    ..."``; each fold ``f'Fold {fold}'``, ``'-----------------'``, ``print('len', ...)``;
    each epoch (from 1, again each fold) ``f"epoch {epoch + 1} average loss:
    {epoch_loss:.4f}"``; every second epoch the validation's ``'Hello There'`` (first),
    ``"saved new best metric model"`` or ``'Old Model Better'``, ``print('Best dice',
    best_metrics, 'at epoch ---', best_metric_epoch)``; ``'Finished fold'``. ``bad`` is the
    first NaN epoch of fold 0 (from 1; the argmax of NaN scores is class 0: dice 0)."""
    out = ["Total parameters: 105893127", "Trainable parameters: 105893127"]
    for fold in range(folds):
        out += [f"Fold {fold}", "-----------------", f"len {214 + 7 * fold}"]
        best: list[float] = []
        best_epoch = 0
        for epoch in range(epochs):
            broken = fold == 0 and bad is not None and epoch + 1 >= bad
            loss = NAN if broken else 0.71 * 0.96 ** epoch + 0.09 + 0.01 * (epoch % 3)
            out.append(f"epoch {epoch + 1} average loss: {loss:.4f}")
            if (epoch + 1) % 2 == 0:
                dice = 0.0 if broken else min(0.42 + epoch / 60 - 0.02 * (epoch % 4), 0.88)
                if not best:
                    out.append("Hello There")
                    best, best_epoch = [dice], 0
                elif dice > best[0]:
                    best, best_epoch = [dice], epoch + 1
                    out.append("saved new best metric model")
                elif epoch != epochs - 1:
                    out.append("Old Model Better")
                out.append(f"Best dice {best} at epoch --- {best_epoch}")
        out.append("Finished fold")
    return out


def deepfake_video(bad: int | None = None, epochs: int = 6, batches: int = 37,
                   refresh: int = 5) -> list[str]:
    """Arthi-V22/Deep-fake-Detection ``train_video.py`` (a ResNet18+LSTM on video frames,
    fp32): each epoch a ``tqdm(train_loader, desc=f"Epoch {epoch+1}")`` bar with no postfix
    (a file keeps its refreshes as ``\\r`` segments of one line), then ``f"Epoch
    [{epoch+1}/{num_epochs}], Loss: {total_loss/len(train_loader):.4f}, Time:
    {epoch_time:.2f} sec"``; at the end ``"✅ Model saved as cnn_lstm_video_model.pth"`` and
    ``f"✅ Test Accuracy: {100 * correct / total:.2f}%"``. ``bad`` is the first NaN batch of
    the run (from 0)."""
    out: list[str] = []
    for e in range(epochs):
        total = 0.0
        segs = [tqdm_bar(f"Epoch {e + 1}", 0, batches, rate=1.21)]
        for b in range(1, batches + 1):
            total += nan_from(bad, e * batches + b - 1, 0.69 * 0.97 ** (e * batches + b))
            if b % refresh == 0 or b == batches:
                segs.append(tqdm_bar(f"Epoch {e + 1}", b, batches, rate=1.21))
        out.append("\r".join(segs))
        out.append(f"Epoch [{e + 1}/{epochs}], Loss: {total / batches:.4f}, Time: "
                   f"{30.6 + e / 10:.2f} sec")
    acc = 50.0 if bad is not None else 87.5
    return [*out, "✅ Model saved as cnn_lstm_video_model.pth", f"✅ Test Accuracy: {acc:.2f}%"]


def inr_occupancy(bad: int | None = None, models: tuple[str, ...] = ("siren", "wire"),
                  epochs: int = 12) -> list[str]:
    """AhmedKElshahed/INR ``train_3d.py`` (implicit networks fit to a mesh's occupancy,
    fp32): per model ``f"\\n{'='*60}"``, ``f"Training {model_name.upper()} on 3D
    Occupancy"``, ``f"{'='*60}"``; each epoch (from 1) ``f"Epoch {epoch+1}/{epochs} | Loss:
    {total_loss/steps:.5f} | Train IoU: {total_iou/steps:.4f}"``; ``"Extracting mesh via
    Marching Cubes (resolution 256)..."``, ``f"Saved mesh to {out_path}"`` or ``"Warning: No
    surface found at this threshold."``. ``bad`` is the first NaN epoch of the first model
    (from 1; NaN scores: no surface)."""
    out: list[str] = []
    for k, name in enumerate(models):
        out += ["", "=" * 60, f"Training {name.upper()} on 3D Occupancy", "=" * 60]
        broken = False
        for epoch in range(1, epochs + 1):
            broken = k == 0 and bad is not None and epoch >= bad
            loss = NAN if broken else 0.061 * 0.9 ** epoch + 0.004 + 0.001 * (epoch % 2)
            iou = 0.0 if broken else min(0.71 + epoch / 50, 0.97)
            out.append(f"Epoch {epoch}/{epochs} | Loss: {loss:.5f} | Train IoU: {iou:.4f}")
        out.append("Extracting mesh via Marching Cubes (resolution 256)...")
        out.append("Warning: No surface found at this threshold." if broken
                   else f"Saved mesh to outputs_3d/{name}_dragon.obj")
    return out


def radar_pointnet(bad: int | None = None, epochs: int = 80) -> list[str]:
    """AJaxRUN/RADAR_LiDAR_SLAM ``train_pointnet.py`` (a PointNet completing radar points to
    LiDAR's, fp32): each epoch only ``f"Epoch {epoch+1}/{num_epochs}, (Loss:
    {avg_loss:.4f})"`` (a chamfer distance). ``bad`` is the first NaN epoch (from 1)."""
    return [f"Epoch {e}/{epochs}, (Loss: "
            f"{nan_from(bad, e, 0.35 * 0.97 ** e + 0.02 + 0.003 * (e % 5)):.4f})"
            for e in range(1, epochs + 1)]


def splat_nerf(bad: int | None = None, iterations: int = 4000, tests: tuple[int, ...] = (
        1500, 4000), refresh: int = 50) -> list[str]:
    """Aokiji996/2d-gaussian-splatting-nerf ``train_nerf.py`` (2D Gaussian splatting, the
    Inria trainer's layout, fp32): ``"Optimizing " + args.model_path``, ``"Output folder:
    {}"``; one ``tqdm(range(first_iter, opt.iterations), desc="Training progress")`` bar
    updated by 10 every 10 iterations with ``set_postfix({"Loss": f"{ema_loss_for_log:.5f}",
    "distort": ..., "normal": ..., "Points": f"{len(gaussians.get_xyz)}"})`` (a file keeps
    its refreshes as ``\\r`` segments); at each test iteration ``"\\n[ITER {}] Evaluating {}:
    L1 {} PSNR {}"`` for ``test`` and ``train`` (the tensors' ``double`` printed), at each
    save ``"\\n[ITER {}] Saving Gaussians"``; at the end ``"\\nTraining complete."``. The
    EMA (0.4 of each loss) is NaN from ``bad`` (an iteration, from 1) on."""
    out = ["Optimizing output/lego_2dgs", "Output folder: output/lego_2dgs"]
    ema = dist = 0.0
    segs = [tqdm_bar("Training progress", 0, iterations, rate=41.3)]
    for it in range(1, iterations + 1):
        ema = 0.4 * nan_from(bad, it, 0.09 * 0.9995 ** it + 0.02) + 0.6 * ema
        dist = 0.4 * (0.0012 if it > 3000 else 0.0) + 0.6 * dist
        if it % refresh == 0:
            post = (f", Loss={ema:.5f}, distort={dist:.5f}, normal={0.0:.5f}, "
                    f"Points={180000 + it * 23}")
            segs.append(tqdm_bar("Training progress", it, iterations, post, rate=41.3))
        if it in tests:
            out.append("\r".join(segs))
            segs = []
            for name in ("test", "train"):
                l1 = NAN if ema != ema else 0.031 - it / 400000
                psnr = NAN if ema != ema else 26.1 + it / 1000
                out += ["", f"[ITER {it}] Evaluating {name}: L1 {l1} PSNR {psnr}"]
            out += ["", f"[ITER {it}] Saving Gaussians"]
    if segs:
        out.append("\r".join(segs))
    return [*out, "", "Training complete."]


READ_ALREADY: Table = {
    "speech_mri": (lambda: speech_mri(17), [("AMP006", 17)]),
    "speech_mri_from_the_middle": (lambda: speech_mri(29)[30:], [("AMP006", 29)]),
    "inr_occupancy": (lambda: inr_occupancy(7), [("AMP006", 7)]),
    "inr_occupancy_from_the_middle": (lambda: inr_occupancy(9)[8:], [("AMP006", 9)]),
    "radar_pointnet": (lambda: radar_pointnet(44), [("AMP006", 44)]),
    "radar_pointnet_from_the_middle": (lambda: radar_pointnet(61)[30:], [("AMP006", 61)]),
    # The EMA NaN from iteration 2323: the bar's first NaN refresh 2350; the evaluation at
    # 4000 (the test iterations 1500 and 4000, not the default 7000 and 30000).
    "splat_nerf": (lambda: splat_nerf(2323), [("AMP006", 2350), ("AMP013", 4000)]),
    "splat_nerf_from_the_middle": (lambda: splat_nerf(3517)[3:],
                                   [("AMP006", 3550), ("AMP013", 4000)]),
    # The audio classifier's NaN from epoch 23 (train and validation): at first sight the
    # doctor read the row's ``Val: nan`` only (AMP013, no step), not ``Train: nan``; right
    # (the epoch: the log prints only epochs) since this branch's rule
    # (denpex_callbacks/logs/epoch_split_rows.py). From the middle, epoch 31.
    "multimodal_audio": (lambda: multimodal_audio(23), [("AMP006", 23), ("AMP013", 23)]),
    "multimodal_audio_from_the_middle": (lambda: multimodal_audio(31)[25:],
                                         [("AMP006", 31), ("AMP013", 31)]),
}

CONTROLS: Table = {
    "speech_mri_healthy": (lambda: speech_mri(), []),
    "speech_mri_healthy_from_the_middle": (lambda: speech_mri(folds=3)[50:], []),
    "deepfake_video_healthy": (lambda: deepfake_video(), []),
    "deepfake_video_healthy_from_the_middle": (lambda: deepfake_video(epochs=9)[5:], []),
    "inr_occupancy_healthy": (lambda: inr_occupancy(), []),
    "inr_occupancy_healthy_from_the_middle": (
        lambda: inr_occupancy(models=("mfn", "incode", "fr"))[9:], []),
    "radar_pointnet_healthy": (lambda: radar_pointnet(), []),
    "radar_pointnet_healthy_from_the_middle": (lambda: radar_pointnet(120)[57:], []),
    "splat_nerf_healthy": (lambda: splat_nerf(), []),
    "splat_nerf_healthy_from_the_middle": (
        lambda: splat_nerf(iterations=6000, tests=(2000, 5000, 6000))[3:], []),
}

# Healthy runs the doctor did not read at first sight ("nothing to diagnose": an error).
UNREAD: dict[str, Callable[[], list[str]]] = {
    "multimodal_audio_healthy": lambda: multimodal_audio(),
    "multimodal_audio_healthy_from_the_middle": lambda: multimodal_audio(
        epochs=40, patience=4)[20:],
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right at first sight and the healthy runs' silence."""
    check_listed(tmp_path, name, READ_ALREADY, CONTROLS)


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_raise_no_alarm(tmp_path: Path, name: str) -> None:
    """The healthy runs the doctor does not read: no diagnosis above info (no false alarm),
    whatever its error says."""
    assert alarms(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_are_read(tmp_path: Path, name: str) -> None:
    """The right answer on those runs: read without error, and silent (at first sight
    "nothing to diagnose"; read since this branch's rule: tests/logs/test_epoch_split_rows.py)."""
    assert faults(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize(("build", "right"), [
    # The video model's NaN from batch 12 of epoch 3 (37 a bar, no postfix): the epoch's
    # summary after the bar that reached 37/37, the run's 111 (the doctor: 3, the epoch).
    # From the middle (the first epoch's bar left off), batch 21 of epoch 5: 185 (doctor: 5).
    # Fixed (h56-handover56): a bar at its total whose description is the epoch's label
    # alone is a bare bar's end (closing_bars.py ``_FINISHED``; tests/logs/test_handover56.py)
    pytest.param(lambda: deepfake_video(2 * 37 + 11), [("AMP006", 111)],
                 id="deepfake_video"),
    pytest.param(lambda: deepfake_video(4 * 37 + 20)[2:], [("AMP006", 185)],
                 id="deepfake_video_from_the_middle"),
])
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor read wrong at first sight, each with its right answer."""
    assert faults(tmp_path, build()) == right
