"""Sample 37, a random sample of training scripts named for what they train (a diffusion model,
a UNet, an MAE, a CLIP head) or for starting it (``main_train.py``, ``run_train.py``), read
as the held-out measure of #27 reads, at first sight (the doctor as it is at 317ca79, no rule
added: a measurement only): 6 scripts, the first of each listing the code index gives for
``train_diffusion.py``, ``train_unet.py``, ``train_mae.py``, ``train_clip.py``,
``main_train.py`` and ``run_train.py`` that no test names and that trains and prints a loss.
Skipped, and why: those named in tests/logs already (0825pm, 1390051650, 1644heihei, 1755kdd,
3365538768; 010404, 25thDivision, 315charlie-lzy, 614happy; AngelSky123, Aorunfa;
22048123S, AlvardBarseghyan; 0-693; 0scarJ1ang, 10srav, 1170500820, 13520505, 20matthewji)
and 1wenjinjie/Fish-Detection-YOLOv8 ``run_train.py`` (ultralytics' ``model.train``: no loop
or print of its own). Three scripts hand the loop to their own repository's code, read there
(WeatherDiffusion's ``models/ddm.py``, DiffRGenNet's ``modules/trainer.py``,
UAS-KecerdasanBuatan's ``src/train.py`` and ``src/model.py``).

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring) and the framework's lines beside them as its source
prints them (tqdm's bar, Keras 3's progress bar and callbacks, ``logging``'s format): a
healthy run with settings other than the defaults, and faulty ones (a NaN loss from a step),
pasted from the start and from the middle. None of the six prints a loss scale or skipped
steps (my-jepa's MAE runs a ``GradScaler`` but prints nothing of it): no scale fault.

Each script as repository ``file``: the format; the doctor's answer at first sight (317ca79)
-> the right one ("=": the same):

- 41enthusiast/WeatherDiffusion_mod ``train_diffusion.py`` (-> ``models/ddm.py``):
  ``epoch:  3``, every 10 steps ``step: 540, loss: nan, data time: 0.0043`` (the loss an
  unformatted ``item()``, in the thousands and noisy); AMP006 540 =; from the middle 1010 =.
- 657671238/RAFT ``train_unet.py``: ``===> Epoch[2](81/120): Loss: nan || Timer: 0.0422
  sec.`` each batch, ``===> Epoch 2 Complete: Avg. Loss: nan``, ``===> Avg. PSNR: nan dB``
  (the test set's), then a second UNet's loop from epoch 1 again; AMP006 201 -> AMP006 201,
  AMP013 240 (strict xfail: the evaluation's NaN PSNR silent); from the middle AMP006 331 ->
  AMP006 331, AMP013 360 (alike).
- Arata-Stu/my-jepa ``train_mae.py`` (fp16 autocast, a GradScaler): a bar an epoch
  (``Epoch [3]: ...| 600/1848 [..., mse_loss=nan]``), ``Summary -> Epoch 3: Avg Loss=nan,
  LR=0.300000``; AMP006 4296 =; from the middle 6744 =.
- AndresPMD/FSL_CLIP ``train_clip.py``: one bar over 10000 episodes whose postfix is a
  sliding ``loss=`` every 10 and ``acc=`` after each validation, the validation's ``Model
  tested on 100 tasks. Accuracy: 12.50%`` glued to the bar's line; AMP006 4330 =; from the
  middle 7780 =.
- 1benv/DiffRGenNet ``main_train.py`` (-> ``modules/trainer.py``): ``1240/2300 loss: nan,
  loss_lm: nan, loss_cls: 1.63..., loss_cpc: 0.16...`` every 10 batches (no epoch on the
  row), each epoch's log as ``\tepoch          : 2`` / ``\ttrain_loss     : nan`` rows;
  AMP006 3540 =; from the middle (pasted from epoch 2's batch 480) 2650 -> 4950 (strict
  xfail: step; the pasted epoch counted as the first).
- 2406079-NabilFS/UAS-KecerdasanBuatan ``run_train.py`` (-> ``src/train.py``, Keras 3
  ``model.fit`` with ModelCheckpoint, EarlyStopping, ReduceLROnPlateau): AMP006 675, AMP013
  675 =; from the middle 1575, 1575 =.

Healthy, with settings other than the defaults (12 excerpts, 6 of them pasted from the
middle): no false alarm on 12 of 12, all read without error (RAFT's second UNet starting
over at a high loss included).
Faulty (12 excerpts): right at first sight on 9 (75%); the 3 misses: 2 silence (RAFT's NaN
test PSNR, an evaluation metric, not reported; the training NaN is), 1 step (DiffRGenNet
from the middle); no false alarm.
After this branch's two rules (h53-sample37: image-quality scores printed alone are the
evaluation's, ``quality_scores``; a padded ``epoch`` row of an epoch's log says which epoch
ended, ``epoch_ends.summary_epoch``): right on 12 of 12 faulty, silent on 12 of 12 healthy.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; an epoch where it prints only
epochs).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def item(value: float) -> str:
    """``f"{tensor.item()}"`` of a float32 tensor: the Python float's repr of the float32
    nearest ``value`` (``1523.4423828125``, ``nan``), as a script printing ``loss.item()``
    unformatted shows it."""
    return repr(struct.unpack("f", struct.pack("f", value))[0])


def weather_ddpm(bad: int | None = None, epochs: int = 3, batches: int = 400,
                 start_epoch: int = 0, every_val: int = 1000, dataset: str = "Snow100K",
                 snapshot: int = 1000) -> list[str]:
    """41enthusiast/WeatherDiffusion_mod ``train_diffusion.py`` (a patch-based denoising
    diffusion model, fp32) and the loop it hands to, ``models/ddm.py``
    ``DenoisingDiffusion.train`` (the commit the script's ``diffusion.train(DATASET)`` calls,
    cf043a7): ``"Using device: {}".format(device)``, ``"=> using dataset '{}'"``, ``"=>
    creating denoising-diffusion model..."``, on a resume ``"=> loaded checkpoint '{}' (epoch
    {}, step {})"``; per epoch ``print('epoch: ', epoch)`` (two blanks: print's separator),
    every 10 steps ``f"step: {self.step}, loss: {loss.item()}, data time: {data_time /
    (i+1)}"`` (the step counts the run, from 1; the loss unformatted: the sum of squared noise
    errors over a patch, in the thousands), every ``validation_freq`` steps ``f"Processing a
    single batch of validation images at step: {step}"``. ``bad`` is the first NaN step
    (from 1)."""
    out = ["Using device: cuda", f"=> using dataset '{dataset}'",
           "=> creating denoising-diffusion model..."]
    step = start_epoch * batches
    if start_epoch:
        out.append(f"=> loaded checkpoint 'data/ckpts/{dataset}_ddpm.pth.tar' (epoch "
                   f"{start_epoch}, step {step})")
    for epoch in range(start_epoch, epochs):
        out.append(f"epoch:  {epoch}")
        for i in range(batches):
            step += 1
            if step % 10 == 0:
                # (noisy as diffusion losses are: the timestep is drawn each batch)
                loss = nan_from(bad, step, 2400.0 * 0.9995 ** step + 180 * ((step * 7) % 11))
                out.append(f"step: {step}, loss: {item(loss)}, data time: "
                           f"{0.0031 + 0.5 / (i + 1)}")
            if step % every_val == 0:
                out.append(f"Processing a single batch of validation images at step: {step}")
    return out


def raft_unet(bad: int | None = None, epochs: int = 4, batches: int = 120, batch: int = 1,
              lr: float = 0.001, start: int = 1) -> list[str]:
    """657671238/RAFT ``train_unet.py`` (two UNets trained one after the other, fp32):
    ``print(opt)`` (argparse's ``Namespace``, keys sorted), ``'===> Loading datasets'``,
    ``'===> Building model ', opt.model_type``, the network's ``print`` between rules of
    dashes and ``'Total number of parameters: %d'``; each batch ``"===> Epoch[{}]({}/{}):
    Loss: {:.4f} || Timer: {:.4f} sec."`` (epochs from ``start_iter``, batches from 1), each
    epoch ``"===> Epoch {} Complete: Avg. Loss: {:.4f}"`` and ``"===> Avg. PSNR: {:.4f} dB"``,
    ``'Learning rate decay: lr={}'`` where ``(epoch + 1) % (nEpochs / 2) == 0``; then the
    second UNet's loop alike, its epochs from ``start_iter`` again. ``bad`` is the first NaN
    batch of the first UNet's run (from 0; its PSNR NaN from that epoch)."""
    out = [f"Namespace(Isreal=True, Ispretrained=False, batchSize={batch}, csvfile='hello.csv', "
           "data_augmentation=False, data_dir='/data/SIDD_Medium_Srgb', gpus=1, hr_train_dataset="
           f"'DIV2K_train_HR', lr={lr}, model_type='CURTransformer', nEpochs={epochs}, "
           "noiseL=50, pretrained='./checkpoint/', pretrained_sr='noise25.pth', "
           "save_folder_u='./checkpoint_u/', save_folder_v='./checkpoint_v/', seed=123, "
           f"start_iter={start}, statistics_u='./statistics_u/', statistics_v='./statistics_v/',"
           " testBatchSize=1, test_dataset='Set12', threads=4, upscale_factor=1, "
           "val_noiseL=25)", "===> Loading datasets", "===> Building model  CURTransformer",
           "---------- Networks architecture -------------", "DataParallel(",
           "  (module): UNet(", "    (inc): DoubleConv(", "    )", "  )", ")",
           "Total number of parameters: 7763041",
           "----------------------------------------------"]
    for phase in range(2):
        rate = lr
        for epoch in range(start, epochs + 1):
            total = 0.0
            for it in range(1, batches + 1):
                run = (epoch - start) * batches + it - 1
                base = 0.21 * 0.97 ** (run / 10) + 0.01 * (it % 5) + 0.015
                loss = nan_from(bad if phase == 0 else None, run, base)
                total += loss
                out.append(f"===> Epoch[{epoch}]({it}/{batches}): Loss: {loss:.4f} || Timer: "
                           f"{0.0412 + 0.001 * (it % 3):.4f} sec.")
            out.append(f"===> Epoch {epoch} Complete: Avg. Loss: {total / batches:.4f}")
            psnr = NAN if total != total else 27.5 + epoch / 10
            out.append(f"===> Avg. PSNR: {psnr:.4f} dB")
            if (epoch + 1) % (epochs / 2) == 0:
                rate /= 10
                out.append(f"Learning rate decay: lr={rate}")
    return out


def jepa_mae(bad: int | None = None, epochs: int = 4, batches: int = 1848, batch: int = 64,
             lr: float = 0.3, refresh: int = 200) -> list[str]:
    """Arata-Stu/my-jepa ``train_mae.py`` (a masked-image-modelling ResNet on COCO under
    ``torch.amp.autocast`` and a ``GradScaler``; hydra): ``print(OmegaConf.to_yaml(cfg))``
    (``config/train_mae.yaml``), ``src/utils/logging.py``'s ``logging`` lines (``"[%(levelname)
    -8s][%(asctime)s][%(name)-20s][%(funcName)-25s] %(message)s"``: ``f"📦 Data:
    {dataset_name} | {num_batches} batches x {batch_size} samples"``, the model's print, ``f"🔢
    Parameters: {param_str}"``); per epoch a ``tqdm(dataloader, desc=f"Epoch [{epoch+1}]",
    leave=True)`` bar with ``set_postfix({"mse_loss": f"{current_loss:.4f}"})`` (a file keeps
    its refreshes as ``\\r`` segments of one line), then ``f"Summary -> Epoch {epoch+1}: Avg
    Loss={avg_loss:.4f}, LR={lr:.6f}"``. ``bad`` is the first NaN batch of the run (from 0)."""
    stamp = "[INFO    ][2026-03-02 14:07:11][src.utils.logging   ]"
    out = ["log_dir: ./logs/train/${now:%Y-%m-%d}/${now:%H-%M-%S}", "model:", "  backbone:",
           "    type: cnn", "    name: resnet50", "    out_features:", "    - c2", "    - c3",
           "    - c4", "    - c5", "  decoder_dim: 256", "data:", "  dataset_path: /data/coco",
           f"  batch_size: {batch}", "  num_workers: 12", "  size:", "  - 224", "  - 224",
           "  num_crops: 1", "  use_labels: true", "training:", f"  epoch: {epochs}",
           "  mask_ratio: 0.6", "  patch_size: 32", "  optim:", f"    lr: {lr}",
           "    weight_decay: 0.0001", "    warmup_epochs: 1", "    epoch: ${training.epoch}",
           "    min_lr: 1.0e-06", "    warmup_start_lr: 3.0e-05", "",
           f"{stamp}[log_data_info            ] 📦 Data: COCO | {batches} batches x {batch} "
           "samples",
           f"{stamp}[log_model_info           ] 🧠 Model:", "ImageMIM(",
           "  (backbone): ResNetBackbone(", "  )", ")",
           f"{stamp}[log_model_info           ] 🔢 Parameters: total_params=27,818,368"]
    for epoch in range(epochs):
        total = 0.0
        segments = [tqdm_bar(f"Epoch [{epoch + 1}]", 0, batches)]
        loss = 0.0
        for b in range(1, batches + 1):
            run = epoch * batches + b - 1
            loss = nan_from(bad, run, 0.92 * 0.9996 ** run + 0.03 * (run % 4) / 4 + 0.21)
            total += loss
            if b % refresh == 0 or b == batches:
                segments.append(tqdm_bar(f"Epoch [{epoch + 1}]", b, batches,
                                         f", mse_loss={loss:.4f}", rate=9.71))
        out.append("\r".join(segments))
        rate = lr * min(1.0, (epoch + 1) / 2)
        out.append(f"Summary -> Epoch {epoch + 1}: Avg Loss={total / batches:.4f}, "
                   f"LR={rate:.6f}")
    return out


def clip_protonet(bad: int | None = None, episodes: int = 10000, every: int = 10,
                  val_episode: int = 1000, tasks: int = 100) -> list[str]:
    """AndresPMD/FSL_CLIP ``train_clip.py`` (prototypical networks over a frozen CLIP image
    encoder, fp32 head): ``print("Model Created... Running on: ", device)``; one
    ``tqdm(enumerate(train_loader), total=len(train_loader))`` bar (no description) whose
    postfix is ``set_postfix(loss=sliding_average(all_loss, 10))`` every 10 episodes (tqdm's
    ``format_num``: ``'{0:.3g}'``, or ``str`` where shorter; each ``set_postfix`` redraws: a
    ``\\r`` segment at ``n`` = the episode's index) and, every ``val_episode`` episodes,
    ``evaluate``'s ``f"Model tested on {len(data_loader)} tasks. Accuracy: {...:.2f}%"``
    (printed on stdout, right after the bar's last segment on the same terminal line) and
    ``set_postfix(acc=accuracy)``; at the end ``"\\nTraining Complete\\n!"``, the test's
    ``Model tested on ...`` line, ``"\\nAccuracy Per Classes\\n!"``, a ``tqdm(range(50))`` bar
    and ``"Accuracy per class {} is {:2f}%"``. ``bad`` is the first NaN episode (from 0; the
    sliding average of the last 10 NaN from there, the head's scores too: the accuracy falls to
    chance, 1/8)."""
    def fmt(value: float) -> str:
        short = f"{value:.3g}".replace("+0", "+").replace("-0", "-")
        return short if len(short) < len(str(value)) else str(value)

    out = ["Model Created... Running on:  cuda"]
    losses: list[float] = []
    line = [tqdm_bar("", 0, episodes, rate=3.41)]
    best = 0.0
    for i in range(episodes):
        losses.append(nan_from(bad, i, 2.08 * 0.9997 ** i + 0.12 * ((i * 5) % 7) / 7))
        if i % every == 0:
            window = losses[-every:]
            line.append(tqdm_bar("", i, episodes, f", loss={fmt(sum(window) / len(window))}",
                                 rate=3.41))
        if i % val_episode == 0 and i != 0:
            acc = 12.5 if bad is not None and i >= bad else min(61.2 + i / 400, 88.9)
            out.append("\r".join(line) + f"Model tested on {tasks} tasks. Accuracy: {acc:.2f}%")
            line = [tqdm_bar("", i, episodes, f", acc={fmt(acc)}", rate=3.41)]
            best = max(best, acc)
    line.append(tqdm_bar("", episodes, episodes, line[-1].split("it/s")[-1][:-1], rate=3.41))
    out += ["\r".join(line), "", "Training Complete", "!",
            f"Model tested on {tasks} tasks. Accuracy: {best - 0.6:.2f}%", "",
            "Accuracy Per Classes", "!", tqdm_bar("", 50, 50, rate=2.2)]
    for name in ("bicycle", "bus", "cat", "dog", "horse", "person", "train", "truck"):
        out.append(f"Accuracy per class {name} is {best - 3 + len(name):2f}%")
    return out


def promptmrg(bad: int | None = None, epochs: int = 3, batches: int = 2300,
              batch: int = 16, start: int = 1) -> list[str]:
    """1benv/DiffRGenNet ``main_train.py`` (a BLIP report generator for chest X-rays, fp32)
    and its ``modules/trainer.py``: ``"number of trainable parameters: {}"``, ``"Creating
    dataset..."``, ``'number of training samples: %d'`` (validation, testing alike); every 10
    batches ``"{}/{} loss: {}, loss_lm: {}, loss_cls: {}, loss_cpc: {}"`` (the batch from 0,
    the losses unformatted ``item()`` floats); per epoch, ``"Saving current best to {}"``
    where the monitored ``val_ce_f1`` is the best, then each key of the epoch's log
    (``epoch``, ``train_loss``, the validation's and the test's BLEU, METEOR, ROUGE_L and
    CheXbert ``ce_`` scores) as ``'\\t{:15s}: {}'``; at the end ``'Best results w.r.t {}:'``
    and the best epoch's keys alike. ``bad`` is the first NaN batch of the run (from 0; the
    generated reports then score 0)."""
    out = ["number of trainable parameters: 247781383", "Creating dataset...",
           f"number of training samples: {batches * batch}", "number of validation samples: "
           "1151", "number of testing samples: 2210"]
    best: dict[str, float | int] = {}
    for epoch in range(start, epochs + 1):
        total = 0.0
        broken = False
        for i in range(batches):
            run = (epoch - start) * batches + i
            lm = nan_from(bad, run, 2.9 * 0.9998 ** run + 0.3 * ((run * 3) % 5) / 5)
            cls = 4 * (0.41 * 0.9999 ** run + 0.02 * (run % 3))
            cpc = 0.1 * (1.7 - run / 20000)
            loss = lm + cls + cpc
            broken = broken or loss != loss
            total += loss
            if i % 10 == 0:
                out.append(f"{i}/{batches} loss: {item(loss)}, loss_lm: {item(lm)}, loss_cls: "
                           f"{item(cls)}, loss_cpc: {item(cpc)}")
        score = 0.0 if broken else 0.1
        log: dict[str, float | int] = {"epoch": epoch, "train_loss": total / batches}
        for split in ("val", "test"):
            log.update({f"{split}_BLEU_1": 0.0 if broken else 0.38 + epoch / 100,
                        f"{split}_BLEU_4": 0.0 if broken else 0.098 + epoch / 500,
                        f"{split}_METEOR": 0.0 if broken else 0.151 + epoch / 400,
                        f"{split}_ROUGE_L": 0.0 if broken else 0.267 + epoch / 300,
                        f"{split}_ce_precision": score * 5 + epoch / 90,
                        f"{split}_ce_recall": score * 4 + epoch / 80,
                        f"{split}_ce_f1": score * 4.5 + epoch / 85})
        if not best or float(log["val_ce_f1"]) >= float(best["val_ce_f1"]):
            best = dict(log)
            out.append("Saving current best to results/promptmrg/model_best.pth")
        out += [f"\t{key:15s}: {value}" for key, value in log.items()]
    out.append("Best results w.r.t val_ce_f1:")
    return out + [f"\t{key:15s}: {value}" for key, value in best.items()]


def flower_keras(bad: int | None = None, epochs: int = 50, steps: int = 75,
                 val_steps: int = 19, patience: int = 15, lr_patience: int = 5,
                 stop_at: int | None = None) -> list[str]:
    """2406079-NabilFS/UAS-KecerdasanBuatan ``run_train.py`` -> ``src/train.py`` (a Keras 3
    MobileNetV2 transfer classifier: the model saved as ``.keras``; ``model.fit(verbose=1)``,
    its callbacks from ``src/model.py``: ``ModelCheckpoint(monitor='val_accuracy',
    mode='max', verbose=1)``, ``EarlyStopping(monitor='val_loss', patience=15,
    restore_best_weights=True, verbose=1)``, ``ReduceLROnPlateau(monitor='val_loss',
    factor=0.5, patience=5, verbose=1)``): ``'Loading data generators...'``, Keras'
    ``flow_from_directory`` ``"Found {} images belonging to {} classes."``, ``f'\\nBuilding
    Transfer Learning model (MobileNetV2)...'``, ``f'\\nStarting training for {EPOCHS}
    epochs...'``, ``f'Steps per epoch: {steps_per_epoch}, Validation steps:
    {validation_steps}'``; per epoch Keras 3's ``f"Epoch {epoch + 1}/{self.epochs}"``
    (keras-team/keras ``keras/src/callbacks/progbar_logger.py``), the callbacks' lines
    (``keras/src/callbacks/model_checkpoint.py``: ``f"\\nEpoch {epoch + 1}: {self.monitor}
    improved from {self.best:.5f} to {current:.5f}, saving model to {filepath}"`` or ``did
    not improve from``; ``reduce_lr_on_plateau.py``: ``f"\\nEpoch {epoch + 1}:
    ReduceLROnPlateau reducing learning rate to {new_lr}."``; ``early_stopping.py``:
    ``f"Epoch {self.stopped_epoch + 1}: early stopping"``, ``"Restoring model weights from the
    end of the best epoch: {self.best_epoch + 1}."``) and the epoch's finished bar (a log
    file: ``keras/src/utils/progbar.py`` prints only the final state: ``f"{count}/{target}"``,
    20 ``━`` cells, the time, ``f" - {k}: {avg:.4f}"`` per metric); at the end the script's
    ``'Training plot saved to: ...'``, ``'\\nTraining Complete!'``, ``'Best epoch: ...'``,
    ``'Best Validation Accuracy: {:.4f}'``, ``'Best Validation Loss: {:.4f}'``. ``bad`` is
    the first NaN epoch (from 1; the validation loss NaN too, the accuracy at chance)."""
    out = ["Loading data generators...", f"Found {steps * 32 - 13} images belonging to 4 "
           "classes.", f"Found {val_steps * 32 - 21} images belonging to 4 classes.", "",
           "Building Transfer Learning model (MobileNetV2)...", "", f"Starting training for "
           f"{epochs} epochs...", f"Steps per epoch: {steps}, Validation steps: {val_steps}"]
    best_acc, best_loss, best_epoch, wait, lr_wait = -float("inf"), float("inf"), 0, 0, 0
    lr = 0.001
    last = stop_at or epochs
    for e in range(1, last + 1):
        broken = bad is not None and e >= bad
        loss = NAN if broken else 0.92 * 0.93 ** e + 0.11 + 0.02 * (e % 3)
        acc = 0.25 if broken else min(0.62 + e / 40, 0.93)
        val_loss = NAN if broken else 0.71 * 0.94 ** e + 0.19 + 0.03 * (e % 4)
        val_acc = 0.2667 if broken else min(0.66 + e / 45, 0.91)
        out.append(f"Epoch {e}/{epochs}")
        if val_acc > best_acc:
            out += ["", f"Epoch {e}: val_accuracy improved from {best_acc:.5f} to "
                    f"{val_acc:.5f}, saving model to models/flower_cnn.keras"]
            best_acc = val_acc
        else:
            out += ["", f"Epoch {e}: val_accuracy did not improve from {best_acc:.5f}"]
        if val_loss < best_loss:
            best_loss, best_epoch, wait, lr_wait = val_loss, e, 0, 0
        else:
            wait += 1
            lr_wait += 1
            if lr_wait >= lr_patience and lr > 1e-6:
                lr, lr_wait = max(lr / 2, 1e-6), 0
                out += ["", f"Epoch {e}: ReduceLROnPlateau reducing learning rate to {lr}."]
        if wait >= patience:
            out.append(f"Restoring model weights from the end of the best epoch: {best_epoch}.")
        shown = " - ".join(f"{k}: {v:.4f}" if abs(v) > 1e-3 else f"{k}: {v:.4e}" for k, v in (
            ("accuracy", acc), ("loss", loss), ("val_accuracy", val_acc),
            ("val_loss", val_loss), ("learning_rate", lr)))
        out.append(f"{steps}/{steps} {'━' * 20} 38s 498ms/step - {shown}")
        if wait >= patience:
            out.append(f"Epoch {e}: early stopping")
            break
    return [*out, "Training plot saved to: /content/UAS/training_history.png", "",
                  "Training Complete!", f"Best epoch: {best_epoch}",
                  f"Best Validation Accuracy: {best_acc:.4f}",
                  f"Best Validation Loss: {best_loss:.4f}",
                  "Model saved to: /content/UAS/models/flower_cnn.keras"]


# The healthy runs, each with settings other than the defaults (a resumed run, other batch
# sizes, intervals, learning rates, lengths, patiences), from the start and pasted from the
# middle: the right answer is silence.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "weather_ddpm_resumed": lambda: weather_ddpm(epochs=5, batches=250, start_epoch=2,
                                                 every_val=500, dataset="RainDrop"),
    "weather_ddpm_from_the_middle": lambda: weather_ddpm()[50:],
    "raft_unet": lambda: raft_unet(epochs=6, batches=60, batch=4, lr=0.0005),
    "raft_unet_from_the_middle": lambda: raft_unet()[300:],
    "jepa_mae": lambda: jepa_mae(epochs=6, batches=924, batch=128, lr=0.15, refresh=100),
    "jepa_mae_from_the_middle": lambda: jepa_mae()[36:],
    "clip_protonet": lambda: clip_protonet(episodes=6000, every=20, val_episode=500, tasks=200),
    "clip_protonet_from_the_middle": lambda: clip_protonet()[3:],
    "promptmrg": lambda: promptmrg(epochs=4, batches=1150, batch=32),
    "promptmrg_from_the_middle": lambda: promptmrg()[200:],
    "flower_keras": lambda: flower_keras(epochs=30, steps=38, val_steps=10, patience=8,
                                         lr_patience=3),
    "flower_keras_from_the_middle": lambda: flower_keras()[60:],
}
CONTROLS: Table = {f"{name} (healthy)": (build, []) for name, build in HEALTHY.items()}

# The faulty excerpts the doctor read right at first sight (317ca79).
READ_ALREADY: Table = {
    # The diffusion's NaN from step 537: the next row (every 10 steps), 540; from the middle,
    # 1003: 1010.
    "weather_ddpm": (lambda: weather_ddpm(537), [("AMP006", 540)]),
    "weather_ddpm_from_the_middle": (lambda: weather_ddpm(1003, epochs=4)[60:],
                                     [("AMP006", 1010)]),
    # The MAE's NaN from batch 458 of epoch 3 (1848 a bar, redrawn every 200): the bar's 600,
    # the run's 4296; from the middle, batch 1112 of epoch 4: 6744.
    "jepa_mae": (lambda: jepa_mae(2 * 1848 + 457), [("AMP006", 4296)]),
    "jepa_mae_from_the_middle": (lambda: jepa_mae(3 * 1848 + 1111)[35:], [("AMP006", 6744)]),
    # The few-shot head's NaN from episode 4321: the postfix's next redraw (every 10), 4330;
    # from the middle, 7777: 7780.
    "clip_protonet": (lambda: clip_protonet(4321), [("AMP006", 4330)]),
    "clip_protonet_from_the_middle": (lambda: clip_protonet(7777)[1:], [("AMP006", 7780)]),
    # The report generator's NaN from batch 1234 of epoch 2 (2300 a epoch, rows every 10,
    # batches from 0): the run's 3540.
    "promptmrg": (lambda: promptmrg(2300 + 1234), [("AMP006", 3540)]),
    # The Keras classifier NaN from epoch 9 (75 steps an epoch): 675, its validation too;
    # from the middle, epoch 21: 1575.
    "flower_keras": (lambda: flower_keras(9), [("AMP006", 675), ("AMP013", 675)]),
    "flower_keras_from_the_middle": (lambda: flower_keras(21)[40:],
                                     [("AMP006", 1575), ("AMP013", 1575)]),
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right at first sight and the healthy runs' silence."""
    check_listed(tmp_path, name, READ_ALREADY, CONTROLS)




@pytest.mark.parametrize(("build", "right"), [
    # The first UNet's NaN from batch 81 of epoch 2 (120 a epoch, batches from 1): the run's
    # 201; its test PSNR NaN at the epoch's end, 240. At first sight: AMP006 201 only (the
    # ``===> Avg. PSNR: nan dB`` line, an evaluation metric, silent). From the middle, batch
    # 91 of epoch 3: 331, 360 (AMP006 331 only). Fixed (h53-sample37): image-quality scores
    # printed alone are the evaluation's (denpex_callbacks/logs/quality_scores.py).
    pytest.param(lambda: raft_unet(200), [("AMP006", 201), ("AMP013", 240)], id="raft_unet"),
    pytest.param(lambda: raft_unet(330)[150:], [("AMP006", 331), ("AMP013", 360)],
                 id="raft_unet_from_the_middle"),
    # The report generator's NaN from batch 345 of epoch 3, pasted from epoch 2's batch 480
    # on (its rows carry no epoch; the epoch's ``epoch          : 2`` row closes it): the
    # run's 2 * 2300 + 350 = 4950. At first sight: 2650 (the pasted epoch counted as the
    # first). Fixed (h53-sample37): an epoch's log printed a key a row, its key padded into a
    # column, says which epoch ended (denpex_callbacks/logs/epoch_ends.py summary_epoch).
    pytest.param(lambda: promptmrg(2 * 2300 + 345)[300:], [("AMP006", 4950)],
                 id="promptmrg_from_the_middle"),
])
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor reads wrong at first sight, each with its right answer
    (strict xfails where still wrong)."""
    assert faults(tmp_path, build()) == right
