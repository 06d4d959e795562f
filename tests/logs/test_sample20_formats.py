"""A third random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 21 scripts, drawn from the code index's listing of ``train_ddp.py``,
``train_gan.py``, ``pretrain.py``, ``train_lightning.py`` and ``src/train.py`` in the order it
gives them, none named by another test (``src/train.py``'s first ones train no network:
sklearn pipelines, skipped; 01pooja10/Variational-Autoencoder's calls an undefined
``pprint`` before printing anything). Skipped, and why: those that run no loop of their own
or print nothing of it (0xIbra/RobustSAM, 16srivarshitha/Transformer_final,
Asatrox/CameraLocalization and Bahareh527/cpu-distributed-training-benchmarks hand over to
another module; 23AIBox/scMamba, 2024ad05227-svg/mlsysopt-distributed-sgd and Afchis/Atss-Net
print no metric; AllenPu/groupwise_imbalance_regression prints the test's scores alone;
1ush3n/APALs-202608 hands over to its Lightning module), one whose logger's format is not in
the index (BboyHanat/TransCG's ``ColoredLogger``), one that prints through ``tflib.plot`` (666-bit/
PCFG-DDPM-PASS) and one whose prints lie past what was read in time (CHENHUI-X/RocWeather).
Each excerpt is built from the script's own print and logging format strings (one builder a
script below, the repository and file in its docstring): a healthy run with settings other
than the defaults, and a faulty one (a NaN loss from step N, or at epoch E where the script
prints per epoch), pasted from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer on the parent (3e8fe97)
-> the right one ("=": the same):

- 1210SaltwaterFish/VDT_add_train_unofficial ``train_ddp.py`` (DiT's loop): ``[\033[34m{time}
  \033[0m] (step=0002000) Train Loss: nan, Train Steps/Sec: 2.41``; AMP006 2000 =, also from
  epoch 2.
- 142f/lip-kaggel ``train_ddp.py``: ``Step   1100 | loss RAL:      nan | loss CE: ... | Total
  loss: nan | Time: ...``, ``(Val @ epoch 1) acc: ...``; AMP006 1100 =, also from the middle.
- AI-4-atmosphere-remote-sensing/cloud-phase-prediction ``train_ddp.py``: ``[GPU0] Epoch 3 |
  Batchsize: 2048 | Steps: 40``, ``DA Train Epoch:  3 [41/40]\tLambda: ..., Total_Loss: nan``,
  ``DA epoch:   4 sum loss: nan`` ... ``DA epoch:   4 valid sum loss: nan``; AMP006 40, AMP013
  52 -> AMP006 3, AMP013 3 (strict xfail), from start and middle.
- AhmedShakr/CVproject1 ``train_ddp.py`` (GradScaler, autocast): ``Epoch [5/8] -> Time:
  216.4s`` over ``    ↳ Train Loss: nan | Train Acc: 0.83%`` and ``    ↳ Val Loss:   nan |
  ...``; AMP006 3, AMP013 3 =; pasted from epoch 3, AMP006 3, AMP013 3 (rows) -> 5, 5.
- Alicedyd/VAE_AIGC_detection ``train_ddp.py``: ``Train loss: tensor(nan, device='cuda:0',
  grad_fn=<...>) at step: 1300``, ``(Val @ epoch 1) acc: ...; ap: ...``; AMP006 1300 =, also
  from the middle.
- Aykhan-sh/Minecraft_skin_generator ``train_ddp.py`` (GradScaler, autocast): two ranks' bars
  ``Epoch 2: 100%|...| 250/250``, then ``Epoch 2``, ``Loss: nan``, ``Lr: ...``; AMP006 2 =;
  from epoch 3, AMP006 4 =.
- Blaizzy/pytorch-ddp ``train_ddp.py``: ``[Epoch 2/2] loss: nan``; AMP006 2 =; 7 = from the
  middle.
- 007prateekd/fruit-quality-classification-wgan ``train_gan.py``: tf.keras 2 ``fit`` of a
  custom ``train_step`` (``- g_loss: nan - d_loss: nan``); AMP006 48 = (the bars' count), 108
  = from epoch 6.
- 0825pm/T2P ``train_gan.py``: ``Epoch 6/8 | Adv Weight: 0.01``, a ``Training`` bar with
  ``G_Recon=nan, G_Adv=nan``, ``TRAIN | G_Total: nan (Recon: nan) | D: nan``, ``VALID | MPJPE:
  nanmm | DTW: nan``; AMP013 None -> AMP006 6, AMP013 6 (strict xfail, also from the middle:
  read now as AMP006 120, AMP013 121, the bar's count); healthy: "nothing to diagnose" -> silent
  (fixed on h50-left12: gan_terms reads ``G_Total``/``G_Recon``/``G_Adv`` as loss terms).
- 404reese/XWormNet ``train_gan.py``: ``Epoch 17/30 - D Loss: nan - G Loss: nan``; AMP006 17
  =, also from epoch 9.
- 3324446899/ProteinDesign ``train_gan.py`` (WGAN-GP): ``Epoch[3/4], Batch[40/50], loss_G:nan,
  loss_D:nan`` and ``====Epoch: 3   loss G: nan   loss D: nan====``; AMP006 140 =, also from
  epoch 3.
- 4G0NYY/Project-EVA ``train_gan.py`` (TF1): ``Step=1299 D_loss=nan, G_loss=nan``; AMP006 1299
  =, also from the middle.
- 00-Abhishek/roberta-from-scratch ``pretrain.py``: HF ``Trainer`` (fp16) dicts; AMP006 8 =
  (rows), 4 = from the middle (the excerpt's rows).
- 0xStick1/Transformer-based-Sentiment-Classification ``pretrain.py``: ``Pre-train Epoch
  6/100: 100%|...| 1563/1563 [..., loss=nan, lr=4.99e-5]``, ``Epoch 6/100 - Loss: nan, MLM
  Accuracy: 0.0000``; AMP006 4689 = (the bars' count); pasted from epoch 4, AMP006 4689 ->
  9378.
- 072jiajia/SampleNet-Experiment ``pretrain.py``: its ``run.log``, ``Epoch [6]`` over `` *
  Train * Loss: nan  Acc@0.5: 0.000000`` and `` * Test * Loss: nan ...``; AMP006 4, AMP013 4 =;
  pasted from epoch 3, AMP006 4, AMP013 4 (rows) -> 6, 6.
- 0Xero7/slm_training ``train_lightning.py``: Lightning's bar ``Epoch 2: 100%|...|
  1050/1050 [..., v_num=0, train_loss_step=nan, ..., val_loss=nan, ...]``; AMP006 3150, AMP013
  3150 =; 6300, 6300 = from epoch 3.
- Abhishek242001/head-detection-colab-kaggle-lightning ``train_lightning.py``: Ultralytics'
  ``      4/150      21.3G        nan ...: 100%|...| 200/200`` rows; AMP006 800 =, 1400 = from
  epoch 5.
- Calvin-Pang/NExpR ``train_ddp.py`` (LIIF's ``log``): ``iter 300/800 lr=1.000e-04 , train
  loss = nan`` and ``epoch 3/1000, train loss = nan, val_x2: psnr = nan, ...``; AMP006 1900 =;
  pasted from epoch 3, AMP006 1300 -> 2900 (fixed on h50-left12: ``_pass_step`` goes on from
  the summary's epoch).
- 00-Abhishek/mnist-mlp-pytorch ``src/train.py``: ``Epoch [4/10] | Loss: nan | Train Accuracy:
  10.80% | Validation Accuracy: 9.80%``; AMP013 4 -> AMP006 4 (the training loss, read as the
  validation's); from epoch 9, AMP013 14 -> AMP006 14.
- 001-s001/MLProject_viT ``src/train.py``: ``epoch=33 train_loss=nan val_loss=nan val_acc=10.00
  best_acc=62.00``; AMP006 33, AMP013 33 =, also from epoch 21.
- CaptainKai/HE_MFR ``train_ddp.py`` through its ``'%(asctime)s: %(message)s'`` logger:
  ``Epoch 3/40 Batch 1000/2000 eta: 1 day, 2:03:04\tTraining Loss nan (nan)\t...`` between
  rules, ``Epoch: 3/40 eta: ...`` after the epoch; AMP006 5000 =, also from epoch 2.

Healthy, with settings other than the defaults (29 excerpts, 8 of them pasted from the middle):
no false alarm on any, before or after; right (silent, read without error) on 28 before and
after: T2P's reads no metric ("nothing to diagnose", an error; a strict xfail).
Faulty (42 excerpts): right on 32 before, 37 after; the 5 left wrong are held by strict xfails
(cloud-phase-prediction twice, T2P twice, NExpR pasted from epoch 3). "Right": the ids, and the
step as the log prints it (an epoch, a step or batch counter, a bar's count).

Fixed here, each by a rule of layout:

- An epoch in brackets alone on its line, of how many or not, an elapsed time after it at most
  (``Epoch [5/8] -> Time: 216.4s``, ``Epoch [6]``), is an epoch line over the rows below it
  (reader.py ``_EPOCH_END``): an excerpt pasted from the middle reads the epoch printed.
- A tqdm bar first seen with ``Epoch {e}/{n}`` in its label counts the epochs before it as
  passes of the bar (metric_reader.py ``_tqdm_step``), as Keras' first bar under ``Epoch
  30/40`` already did.
- An epoch in brackets before the loss (``Epoch [4/10] | Loss: nan | ... | Validation
  Accuracy: 9.80%``) is an epoch too where a held-out split's name keys a score of its own
  after the loss (metric_reader.py ``_EPOCH_KEY``): the line is training's, not evaluation's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def vdt(bad: int | None = None, epochs: int = 2, batches: int = 1500, every: int = 500,
        shown_bar: bool = False) -> list[str]:
    """1210SaltwaterFish/VDT_add_train_unofficial ``train_ddp.py`` (the DiT loop): the logger's
    ``'[\\033[34m%(asctime)s\\033[0m] %(message)s'`` (colour codes kept, as a file handler
    writes them) with ``f"(step={train_steps:07d}) Train Loss: {avg_loss:.4f}, Train
    Steps/Sec: {steps_per_sec:.2f}"`` every ``log_every`` steps, ``Beginning epoch {epoch}...``;
    ``bad`` counts steps over the run."""
    def log(msg: str) -> str:
        return f"[\033[34m2026-03-01 10:{len(out) % 60:02d}:00\033[0m] {msg}"
    out: list[str] = []
    out.append(log("Experiment directory created at results/000-VDT-S-2"))
    out.append(log("DiT Parameters: 32,871,456"))
    out.append(log("Dataset contains 9,537 images (/data/UCF-101)"))
    out.append(log(f"Training for {epochs} epochs..."))
    step = 0
    for e in range(epochs):
        out.append(log(f"Beginning epoch {e}..."))
        for _ in range(batches):
            step += 1
            if step % every == 0:
                loss = _loss(bad, step, 0.31 - step / 100000)
                out.append(log(f"(step={step:07d}) Train Loss: {loss:.4f}, Train Steps/Sec: 2.41"))
    out.append(log("Done!"))
    return out


def lip(bad: int | None = None, epochs: int = 3, batches: int = 600, every: int = 100,
        bias: int = 0) -> list[str]:
    """142f/lip-kaggel ``train_ddp.py``: ``"开始 epoch: ", epoch + step_bias``, every ``loss_freq``
    steps ``"Step {:6d} | loss RAL: {:8.4f} | loss CE: {:8.4f} | Total loss: {:8.4f} | Time:
    {:6.2f}s"``, after each epoch ``"(Val @ epoch {}) acc: {} ap: {} fpr: {} fnr: {}"`` and
    the best-model line; ``bad`` counts ``total_steps``."""
    out = ["----------------- Options ---------------", "                    batch_size: 32",
           "----------------- End -------------------", "", "训练集长度: 600", "验证集长度: 50"]
    step = 0
    for e in range(epochs):
        out.append(f"开始 epoch:  {e + bias}")
        for _ in range(batches):
            step += 1
            if step % every == 0:
                ral = _loss(bad, step, 0.2 - step / 100000)
                ce = _loss(bad, step, 0.5 - step / 50000)
                out.append(f"Step {step:6d} | loss RAL: {ral:8.4f} | loss CE: {ce:8.4f} | "
                           f"Total loss: {ral + ce:8.4f} | Time: {31.27:6.2f}s")
        broken = bad is not None and step >= bad
        acc = 0.5 if broken else 0.91 + e / 100
        ap = 0.5 if broken else 0.95
        out.append(f"(Val @ epoch {e + bias}) acc: {acc} ap: {ap} fpr: 0.08 fnr: 0.07")
        out.append(f"发现新的最佳模型 (epoch {e + bias}): acc={acc:.4f}, ap={ap:.4f}"
                   if not broken or e == 0 else
                   f"当前性能未超过最佳 (最佳: acc=0.9100, ap=0.9500 @ epoch {bias})")
    return out


def cloud_phase(bad: int | None = None, epochs: int = 6, steps: int = 40,
                lambda_: float = 0.5) -> list[str]:
    """AI-4-atmosphere-remote-sensing/cloud-phase-prediction ``train_ddp.py``: per epoch
    ``"DA train_steps:"``, ``f"[GPU{dev}] Epoch {epoch} | Batchsize: {b_sz} | Steps: {n}"``,
    ``'DA Train Epoch: {:2d} [{:2d}/{:2d}]\\tLambda: {:.4f}, Class: {:.6f}, CORAL: {:.6f},
    l2_loss: {:.6f}, Total_Loss: {:.6f}'``, the accuracies ``'DA train_acc: %.3f'`` ...,
    ``f'DA epoch: {j:3} sum loss: {epoch_loss:6.4f}'`` and its siblings (``j`` from 1), the
    validation's ``DA train_steps:`` and ``f'DA epoch: {j:3} valid sum loss: ...'``; ``bad``
    is the epoch (``epoch``, from 0) whose losses are NaN on."""
    out = []
    for epoch in range(epochs):
        j = epoch + 1
        v = _loss(bad, epoch, 0.9 - epoch / 50)
        out += ["DA train_steps: 40",
                f"[GPU0] Epoch {epoch} | Batchsize: 2048 | Steps: {steps}",
                f"DA Train Epoch: {epoch:2d} [{steps + 1:2d}/{steps:2d}]\tLambda: {lambda_:.4f}, "
                f"Class: {v / 2:.6f}, CORAL: {v / 90:.6f}, l2_loss: {v / 10:.6f}, "
                f"Total_Loss: {v:.6f}",
                f"DA Train ith Epoch {epoch} result:",
                f"DA train_acc: {0.3 if v != v else 0.8 + epoch / 100:.3f}",
                f"DA train_tgt_acc: {0.3 if v != v else 0.7 + epoch / 100:.3f}",
                f"DA valid_tgt_acc: {0.3 if v != v else 0.69 + epoch / 100:.3f}",
                f"DA epoch: {j:3} sum loss: {v:6.4f}",
                f"DA epoch: {j:3} l2 loss: {v / 10:6.4f}",
                f"DA epoch: {j:3} classifier src loss: {v / 2:6.4f}",
                f"DA epoch: {j:3} classifier tgt loss: {v / 3:6.4f}",
                f"DA epoch: {j:3} coral loss: {v / 90:6.4f}",
                "DA train_steps: 10",
                f"DA epoch: {j:3} valid sum loss: {v * 1.1:6.4f}",
                f"DA epoch: {j:3} valid l2 loss: {v / 9:6.4f}",
                f"DA epoch: {j:3} valid classifier loss: {v / 2:6.4f}",
                f"DA epoch: {j:3} valid tgt classifier loss: {v / 3:6.4f}",
                f"DA epoch: {j:3} valid coral loss: {v / 80:6.4f}"]
        if v != v:
            out.append("Early Stopping Criteria Met!")
            break
    return out


def dogs_resnet(bad: int | None = None, epochs: int = 5, time_s: float = 212.4) -> list[str]:
    """AhmedShakr/CVproject1 ``train_ddp.py`` (GradScaler, autocast): a banner, then per epoch
    ``f"Epoch [{epoch+1}/{EPOCHS}] -> Time: {elapsed:.1f}s"``, ``f"    ↳ Train Loss:
    {epoch_loss:.4f} | Train Acc: {epoch_acc:.2f}%"``, ``f"    ↳ Val Loss:   {epoch_v_loss:.4f}
    | Val Acc:   {epoch_v_acc:.2f}%"`` and a rule; ``bad`` is the (1-based) epoch."""
    out = ["=" * 60, "🚀 INITIALIZING FILE-SYSTEM DDP WITH VALIDATION (World Size: 2)", "=" * 60]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 2.1 - e / 5)
        acc = 0.83 if loss != loss else 40 + e * 5
        out += [f"Epoch [{e}/{epochs}] -> Time: {time_s + e:.1f}s",
                f"    ↳ Train Loss: {loss:.4f} | Train Acc: {acc:.2f}%",
                f"    ↳ Val Loss:   {loss * 1.1:.4f} | Val Acc:   {acc - 3:.2f}%",
                "-" * 60]
    return [*out, "💾 Model weights saved successfully!"]


def aigc_detect(bad: int | None = None, epochs: int = 3, batches: int = 700, every: int = 100,
                per_step: float = 0.31) -> list[str]:
    """Alicedyd/VAE_AIGC_detection ``train_ddp.py``: every ``loss_freq`` steps
    ``f"Train loss: {model.loss} at step: {model.total_steps}"`` (``model.loss`` a CUDA tensor
    with its ``grad_fn``, as the CNNDetection trainer keeps it) and ``f"Iter time: ..."``; after
    each epoch ``f'保存第 {epoch} 个epoch结束时的模型'`` and ``f"(Val @ epoch {epoch}) acc: {acc};
    ap: {ap}"`` with EarlyStopping's verbose line; ``bad`` counts steps."""
    out = ["总GPU数: 2, 每GPU批量大小: 32"]
    step = 0
    for e in range(epochs):
        for _ in range(batches):
            step += 1
            if step % every == 0:
                loss = _loss(bad, step, 0.69 - step / 10000)
                out += [f"Train loss: tensor({loss:.4f}, device='cuda:0', "
                        "grad_fn=<BinaryCrossEntropyWithLogitsBackward0>) at step: " f"{step}",
                        f"Iter time: {per_step + step / 1e6}"]
        broken = bad is not None and step >= bad
        acc = 0.5 if broken else 0.9 + e / 100
        out += [f"保存第 {e} 个epoch结束时的模型",
                f"(Val @ epoch {e}) acc: {acc}; ap: {acc + 0.03}"]
        if not broken:
            out.append(f"Validation accuracy increased ({acc - 0.01:.6f} --> {acc:.6f}).  "
                       "Saving model ...")
        else:
            out.append("EarlyStopping counter: 1 out of 5")
    return out


def skins(bad: int | None = None, epochs: int = 4, batches: int = 250,
          lr: float = 2e-4) -> list[str]:
    """Aykhan-sh/Minecraft_skin_generator ``train_ddp.py`` (GradScaler, autocast, two ranks):
    each rank's ``tqdm(total=len(dataloader), desc=f"Epoch {epoch}")`` at its end (the bars
    never closed), then rank 0's ``print()``, ``f"Epoch {epoch}"``, ``f"Loss: {mean.item()}"``,
    ``f"Lr: {lr}"``; ``bad`` is the epoch (from 0)."""
    out: list[str] = []
    for e in range(epochs):
        out += [f"Epoch {e}: 100%|██████████| {batches}/{batches} [01:0{e}<00:00,  4.0{e}it/s]"] * 2
        loss = _loss(bad, e, 0.0412 - e / 1000)
        out += ["", f"Epoch {e}", f"Loss: {loss!r}" if loss != loss else f"Loss: {loss}",
                f"Lr: {lr * (1 - e / (epochs + 1))}"]
    return out


def cifar_ddp(bad: int | None = None, epochs: int = 2, acc: int = 41) -> list[str]:
    """Blaizzy/pytorch-ddp ``train_ddp.py``: ``"Start training..."``, per epoch
    ``f'[Epoch {epoch + 1}/{epochs}] loss: {epoch_loss:.3f}'``, ``'Finished Training'``,
    ``f'Accuracy of the network on the 10000 test images: {acc} %'`` and the elapsed times
    (neptune's own lines left out); ``bad`` is the (1-based) epoch."""
    out = ["Start training..."]
    for e in range(1, epochs + 1):
        out.append(f"[Epoch {e}/{epochs}] loss: {_loss(bad, e, 2.2 - e / 10):.3f}")
    done = bad is not None and bad <= epochs
    return [*out, "Finished Training",
            f"Accuracy of the network on the 10000 test images: {10 if done else acc} %",
            "Total elapsed time: 392.17 seconds,      Train 1 epoch 371.80 seconds"]


def fruit_wgan(bad: int | None = None, epochs: int = 6, batches: int = 12) -> list[str]:
    """007prateekd/fruit-quality-classification-wgan ``train_gan.py``: a tf.keras 2 ``fit`` of a
    ``Model`` whose ``train_step`` returns ``{"g_loss": ..., "d_loss": ...}`` (each epoch's
    ``Epoch {e}/{epochs}`` and its bar's last state, ``- g_loss: ... - d_loss: ...``); ``bad``
    is the (1-based) epoch."""
    out = []
    for e in range(1, epochs + 1):
        g = _loss(bad, e, 0.7 + e / 100)
        d = _loss(bad, e, 1.2 - e / 100)
        out += [f"Epoch {e}/{epochs}",
                f"{batches}/{batches} [==============================] - 3s 251ms/step - "
                f"g_loss: {g:.4f} - d_loss: {d:.4f}"]
    return out


def t2p(bad: int | None = None, epochs: int = 8, batches: int = 120, lr: float = 2e-4
        ) -> list[str]:
    """0825pm/T2P ``train_gan.py``: ``f"\\nEpoch {epoch}/{epochs} | Adv Weight: {adv_weight}"``,
    ``f"Current LR: {lr:.8f}"``, the last state of ``tqdm(dataloader, desc="Training")`` with
    its ``G_Recon``/``G_Adv`` postfix, ``f"TRAIN | G_Total: {...:.4f} (Recon: {...:.4f}) | D:
    {...:.4f}"``, ``tqdm(desc="Evaluating")`` and ``f"VALID | MPJPE: {mpjpe:.2f}mm | DTW:
    {dtw:.4f}"``, ``f"Saved best model (MPJPE: {best:.2f})"``; ``bad`` is the epoch."""
    out = ["Loading Data...", "Initializing Models...", "Loading QAE weights from runs/qae...",
           "Start Training..."]
    best = 1e9
    for e in range(1, epochs + 1):
        adv = 0.01 if e > 5 else 0.0
        r = _loss(bad, e, 0.05 - e / 1000)
        a = _loss(bad, e, 0.25 if e > 5 else 0.9)
        out += ["", f"Epoch {e}/{epochs} | Adv Weight: {adv}",
                f"Current LR: {lr * (1 - e / (epochs + 2)):.8f}",
                f"Training: 100%|██████████| {batches}/{batches} [00:41<00:00,  2.91it/s, "
                f"G_Recon={r:.4f}, G_Adv={a:.4f}]",
                f"TRAIN | G_Total: {r + adv * a:.4f} (Recon: {r:.4f}) | D: {a / 2:.4f}",
                "Evaluating: 100%|██████████| 14/14 [00:05<00:00,  2.80it/s]"]
        mpjpe = r * 1000 + 40
        out.append(f"VALID | MPJPE: {mpjpe:.2f}mm | DTW: {r * 300:.4f}")
        if mpjpe < best:
            best = mpjpe
            out.append(f"Saved best model (MPJPE: {best:.2f})")
    return out


def xworm(bad: int | None = None, epochs: int = 30) -> list[str]:
    """404reese/XWormNet ``train_gan.py``: ``f"Epoch {epoch+1:02d}/{epochs} - D Loss:
    {d:.6f} - G Loss: {g:.6f}"`` then ``f"Training completed in {t:.2f} seconds."`` and the
    evaluation's scores; ``bad`` is the (1-based) epoch."""
    out = ["Loading data for GAN...", "", "Initializing AnomalyGAN model...",
           f"Training for {epochs} epochs on NORMAL traffic only..."]
    for e in range(1, epochs + 1):
        out.append(f"Epoch {e:02d}/{epochs} - D Loss: {_loss(bad, e, 1.38 - e / 100):.6f} - "
                   f"G Loss: {_loss(bad, e, 0.69 + e / 100):.6f}")
    return [*out, "Training completed in 84.12 seconds.", "",
            "Evaluating model on full test set (normal + attacks)...",
            "  Precision:        0.91234", "  Recall:           0.88012",
            "  F1 Score:         0.89594", "  ROC AUC:          0.95011",
            "  Avg Latency (ms): 0.00121", "", "Model saved to models/gan_model.pth"]


def protein_wgan(bad: int | None = None, epochs: int = 4, batches: int = 50,
                 every: int = 20) -> list[str]:
    """3324446899/ProteinDesign ``train_gan.py`` (WGAN-GP: the critic's loss is negative):
    every 20 batches ``"Epoch[{}/{}], Batch[{}/{}], loss_G:{:.3f}, loss_D:{:.3f}"``, after each
    epoch ``"===================Epoch: {}   loss G: {:.3f}   loss D: {:.3f}====..."``; ``bad``
    counts batches over the run (epochs from 1, batches from 0)."""
    out = ["生成器模型架构：", "Generator(", "  (fc): Linear(in_features=100, out_features=512)",
           ")", ""]
    for e in range(1, epochs + 1):
        tg = td = 0.0
        for b in range(batches):
            g = (e - 1) * batches + b
            lg = _loss(bad, g, -1.5 - g / 500)
            ld = _loss(bad, g, -3.2 + g / 400)
            tg, td = tg + (lg if b % 5 == 0 else 0.0), td + ld
            if b % every == 0:
                out.append(f"Epoch[{e}/{epochs}], Batch[{b}/{batches}], loss_G:{lg:.3f}, "
                           f"loss_D:{ld:.3f}")
        out.append(f"===================Epoch: {e}   loss G: {tg:.3f}   loss D: {td:.3f}"
                   "=====================")
    return out


def stock_gan(bad: int | None = None, steps: int = 3000, every: int = 100) -> list[str]:
    """4G0NYY/Project-EVA ``train_gan.py`` (TF1): the data files it reads, then every
    ``print_steps`` ``'Step={} D_loss={}, G_loss={}'.format(i, ...)`` with ``i`` from 0 (so
    99, 199, ...) and the values' full ``repr``; ``bad`` counts ``i``."""
    out = ["./stock_data/AAPL.csv", "./stock_data/MSFT.csv"]
    for i in range(every - 1, steps, every):
        d = _loss(bad, i, 0.6931471805599453 - i / 1e5)
        g = _loss(bad, i, 0.7213475204444817 + i / 1e5)
        out.append(f"Step={i} D_loss={d}, G_loss={g}")
    return out


def roberta_mlm(bad: int | None = None, steps: int = 1200, every: int = 100,
                lr: float = 5e-4) -> list[str]:
    """00-Abhishek/roberta-from-scratch ``pretrain.py``: its prints, then HF ``Trainer``'s
    (``fp16=True``, ``logging_steps=100``, ``warmup_steps=500``) log dicts ``{'loss': ...,
    'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}`` and the closing ``train_runtime``
    dict; ``bad`` counts optimizer steps (the row printed at the first multiple of ``every``
    at or after it holds the NaN)."""
    out = ["Tokenizer vocab size: 30000", "Dataset tokenized successfully", "Model initialized",
           "Total parameters: 40960000", "Starting training..."]
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 7.9 - s / 400)
        rate = lr * min(1.0, s / 500) * (1 - max(0, s - 500) / steps)
        norm = "nan" if loss != loss else f"{2.1 - s / 2000}"
        out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {norm}, 'learning_rate': {rate:.3e}, "
                   f"'epoch': {s / steps:.2f}}}")
    return [*out, "{'train_runtime': 612.3, 'train_samples_per_second': 196.1, "
            "'train_steps_per_second': 1.96, 'train_loss': 5.37, 'epoch': 1.0}"]


def mlm_sentiment(bad: int | None = None, epochs: int = 5, batches: int = 1563,
                  total: int = 100) -> list[str]:
    """0xStick1/Transformer-based-Sentiment-Classification ``pretrain.py``: the last state of
    ``tqdm(desc=f'Pre-train Epoch {epoch + 1}/{EPOCHS}')`` with its ``loss``/``lr`` postfix,
    then ``f'Epoch {epoch+1}/{EPOCHS} - Loss: {loss:.4f}, MLM Accuracy: {acc:.4f}'`` and, when
    lower, ``f"New best loss: {best_loss:.4f}. Encoder checkpoint updated."``; ``bad`` is the
    (1-based) epoch (run for ``epochs`` of ``total``)."""
    out = ["Using device: cuda", "Loaded 100000 reviews",
           "Retraining BPE Tokenizer for higher quality subwords...", "Vocab size: 5000",
           "Initializing TransformerMLM for extended pre-training..."]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 6.2 - e / 5)
        out += [f"Pre-train Epoch {e}/{total}: 100%|██████████| {batches}/{batches} "
                f"[02:11<00:00, 11.89it/s, loss={loss:.3g}, lr=4.99e-5]",
                f"Epoch {e}/{total} - Loss: {loss:.4f}, MLM Accuracy: "
                f"{0.0 if loss != loss else 0.1 + e / 50:.4f}"]
        if loss == loss:
            out.append(f"New best loss: {loss:.4f}. Encoder checkpoint updated.")
    return out


def samplenet(bad: int | None = None, epochs: int = 6, lr: float = 0.005) -> list[str]:
    """072jiajia/SampleNet-Experiment ``pretrain.py``: its ``run.log`` (``IOStream.cprint``
    lines only: the ``\\r`` batch lines reach the console alone): ``str(args)``, the GPU line,
    then per epoch ``'Epoch [%d]' % (epoch + 1)``, ``' * Train * Loss: %.6f  Acc@0.5: %.6f'``
    and ``' * Test * Loss: %.6f  Acc@0.5: %.6f'``; ``bad`` is the (1-based) epoch."""
    out = [f"Namespace(batch_size=8, dropout=0.5, emb_dims=1024, epochs={epochs}, "
           f"exp_name='pretrained', k=20, lr={lr}, num_points=4096, test_area='5')",
           "Using GPU : 0 from 1 devices"]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.31 - e / 100)
        acc = 0.0 if loss != loss else 0.6 + e / 100
        out += [f"Epoch [{e}]", f" * Train * Loss: {loss:.6f}  Acc@0.5: {acc:.6f}",
                f" * Test * Loss: {loss * 1.2:.6f}  Acc@0.5: {acc - 0.05:.6f}"]
    return out


def slm_lightning(bad: int | None = None, epochs: int = 4, batches: int = 1000,
                  val: int = 50) -> list[str]:
    """0Xero7/slm_training ``train_lightning.py``: Lightning's ``TQDMProgressBar`` (``Epoch
    {e}`` from 0, tqdm's ``.3g`` postfix) with ``self.log(..., prog_bar=True)``'s
    ``train_loss_step``/``train_perplexity_step``, the epoch aggregates and ``val_loss``,
    ``val_perplexity``, ``val_epoch_perplexity``, ``train_epoch_perplexity``, ``epoch_time``
    (the epoch's own: its validation runs within its bar), each epoch's validation bar and its
    bar's last state; ``bad`` is the epoch (from 0)."""
    out = ["GPU available: True (cuda), used: True", "TPU available: False, using: 0 TPU cores",
           "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]",
           "  | Name      | Type             | Params", "0 | model     | LanguageModel    | 61.2 M",
           "1 | criterion | CrossEntropyLoss | 0     "]
    for e in range(epochs):
        loss = _loss(bad, e, 5.1 - e / 5)
        ppl = math.exp(loss) if loss == loss else NAN
        post = (f"v_num=0, train_loss_step={loss:.3g}, train_perplexity_step={ppl:.3g}, "
                f"val_loss={loss + 0.1:.3g}, val_perplexity={ppl * 1.1:.3g}, "
                f"val_epoch_perplexity={ppl * 1.1:.3g}, train_loss_epoch={loss:.3g}, "
                f"train_perplexity_epoch={ppl:.3g}, train_epoch_perplexity={ppl:.3g}, "
                "epoch_time=312.0")
        out += [f"Validation DataLoader 0: 100%|██████████| {val}/{val} [00:04<00:00, "
                "11.21it/s]",
                f"Epoch {e}: 100%|██████████| {batches + val}/{batches + val} [05:16<00:00,  "
                f"3.32it/s, {post}]"]
    return out


def yolo11_heads(bad: int | None = None, epochs: int = 150, shown: int = 6,
                 batches: int = 200, size: int = 1280) -> list[str]:
    """Abhishek242001/head-detection-colab-kaggle-lightning ``train_lightning.py``: Ultralytics'
    ``model.train`` (ultralytics/engine/trainer.py: ``("\\n" + "%11s" * 7) % ("Epoch",
    "GPU_mem", "box_loss", "cls_loss", "dfl_loss", "Instances", "Size")``, then each epoch's
    last bar row ``("%11s" * 2 + "%11.4g" * 5) % (f"{epoch + 1}/{epochs}", ...)`` and the
    validator's ``Class Images Instances Box(P R mAP50 mAP50-95)`` rows); ``shown`` epochs of
    ``epochs``; ``bad`` is the (1-based) epoch."""
    out = ["=" * 60, "  YOLOv11m Head Detection — Lightning AI Studio", "=" * 60,
           f"  Config → imgsz={size}  batch=32  GPU=L40S"]
    for e in range(1, shown + 1):
        box = _loss(bad, e, 1.5 - e / 100)
        out += ["", ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "cls_loss", "dfl_loss",
                                    "Instances", "Size"),
                ("%11s" * 2 + "%11.4g" * 5) % (f"{e}/{epochs}", "21.3G", box, box / 1.7,
                                               box / 1.4, 45, size)
                + f": 100%|██████████| {batches}/{batches} [01:23<00:00,  2.40it/s]",
                ("%22s" + "%11s" * 6) % ("Class", "Images", "Instances", "Box(P", "R", "mAP50",
                                         "mAP50-95)")
                + ": 100%|██████████| 13/13 [00:06<00:00,  2.11it/s]",
                ("%22s" + "%11i" * 2 + "%11.3g" * 4) % (
                    "all", 400, 3012, 0.0 if box != box else 0.7,
                    0.0 if box != box else 0.6, 0.0 if box != box else 0.65,
                    0.0 if box != box else 0.4)]
    return out


def nexpr(bad: int | None = None, epochs: int = 4, iters: int = 800, total: int = 1000,
          lr: float = 1e-4) -> list[str]:
    """Calvin-Pang/NExpR ``train_ddp.py`` through LIIF's ``utils.log``: every 100 iterations
    ``', '.join([f'iter {i+1}/{num_iter} lr={lr:.3e} ', 'train loss = {:.6f}'])``, after each
    epoch ``'epoch {}/{}'``, ``'train loss = {:.6f}'``, ``'val_x2: psnr = {:.5f}'``,
    ``'val_x4: psnr = {:.5f}'`` and the times, joined by ``', '`` (epochs from 1); ``bad``
    counts iterations over the run."""
    out = ["train dataset: size=800", "  inp: shape=(3, 48, 48)", "  gt: shape=(2304, 3)",
           "val_x2 dataset: size=100", "0 model: #params=1.6M"]
    for e in range(1, epochs + 1):
        for i in range(100, iters + 1, 100):
            g = (e - 1) * iters + i
            out.append(f"iter {i}/{iters} lr={lr:.3e} , train loss = "
                       f"{_loss(bad, g, 0.04 - g / 1e6):.6f}")
        mean = _loss(bad, e * iters, 0.041 - e / 1e4)
        psnr = NAN if mean != mean else 34.1 + e / 10
        out.append(f"epoch {e}/{total}, train loss = {mean:.6f}, val_x2: psnr = {psnr:.5f}, "
                   f"val_x4: psnr = {psnr - 6:.5f}, 5.2m {5.2 * e:.1f}m/86.7h")
    return out



def mnist_mlp(bad: int | None = None, epochs: int = 10) -> list[str]:
    """00-Abhishek/mnist-mlp-pytorch ``src/train.py``: ``f"Epoch [{epoch + 1}/{EPOCHS}] |
    Loss: {average_loss:.4f} | Train Accuracy: {...:.2f}% | Validation Accuracy: {...:.2f}%"``
    and, on a better accuracy, ``"Best model saved.\\n"``; ``bad`` is the (1-based) epoch."""
    out = ["Using Device: cuda", "", "Starting Training...", ""]
    best = 0.0
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.4 - e / 50)
        acc = 9.8 if loss != loss else 90 + e / 2
        out.append(f"Epoch [{e}/{epochs}] | Loss: {loss:.4f} | Train Accuracy: {acc + 1:.2f}% | "
                   f"Validation Accuracy: {acc:.2f}%")
        if acc > best:
            best = acc
            out += ["Best model saved.", ""]
    return [*out, "=" * 60, f"Best Validation Accuracy: {best:.2f}%", "=" * 60]


def vit_cifar(bad: int | None = None, epochs: int = 50) -> list[str]:
    """001-s001/MLProject_viT ``src/train.py``: ``f"epoch={epoch} train_loss={train_loss:.4f}
    val_loss={val_loss:.4f} val_acc={val_acc:.2f} best_acc={best_acc:.2f}"`` (epochs from 1);
    ``bad`` is the epoch."""
    out, best = [], 0.0
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 2.0 - e / 40)
        acc = 10.0 if loss != loss else 30 + e
        best = max(best, acc)
        out.append(f"epoch={e} train_loss={loss:.4f} val_loss={loss * 1.05:.4f} "
                   f"val_acc={acc:.2f} best_acc={best:.2f}")
    return out


def he_mfr(bad: int | None = None, epochs: int = 3, batches: int = 2000, every: int = 500,
           total: int = 40) -> list[str]:
    """CaptainKai/HE_MFR ``train_ddp.py`` through ``utils.py``'s ``Logger`` (``'%(asctime)s:
    %(message)s'``): every ``log_interval`` batches (``enumerate(train_loader, 1)``, printed at
    ``batch + 1``) the timers' line, a rule, ``'Epoch {}/{} Batch {}/{} eta: {}\\tTraining Loss
    {loss.val:.4f} ({loss.avg:.4f})\\tTraining Prec@1 ...\\t'``, a rule; after the epoch
    ``'Epoch: {}/{} eta: {}\\tTraining Loss ...'`` (epochs from 1); ``bad`` counts batches."""
    out: list[str] = []

    def log(msg: str) -> None:
        out.append(f"2026-03-01 10:{len(out) % 60:02d}:07,311: {msg}")

    avg = 0.0
    for e in range(1, epochs + 1):
        for b in range(every - 1, batches, every):
            g = (e - 1) * batches + b + 1
            val = _loss(bad, g, 14.0 - g / 1000)
            avg = _loss(bad, g, 14.2 - g / 1000)
            log("time cost, forward:0.0912, backward:0.1533, data cost:0.0031 ")
            log("=" * 60)
            log(f"Epoch {e}/{total} Batch {b + 1}/{batches} eta: 1 day, 2:03:04\tTraining Loss "
                f"{val:.4f} ({avg:.4f})\tTraining Prec@1 12.500 (10.100)\tTraining Prec@5 "
                "30.000 (28.000)\t")
            log("=" * 60)
        log(f"Epoch: {e}/{total} eta: 1 day, 1:00:00\tTraining Loss {avg:.4f} ({avg:.4f})\t"
            "Training Prec@1 12.500 (10.100)\tTraining Prec@5 30.000 (28.000)")
        log("=" * 60)
    return out

# -- the excerpts and their right answers -----------------------------------------------------

# Faulty excerpts the parent (3e8fe97) read wrong: fixed here (name -> (build, right answer)).
FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "dogs_resnet_from_epoch_3": (lambda: dogs_resnet(5, epochs=8)[3 + 4 * 2:],
                                 [("AMP006", 5), ("AMP013", 5)]),
    "samplenet_from_epoch_3": (lambda: samplenet(6, epochs=9)[2 + 3 * 2:],
                               [("AMP006", 6), ("AMP013", 6)]),
    "mlm_sentiment_from_epoch_4": (lambda: mlm_sentiment(6, epochs=9)[5 + 3 * 3:],
                                   [("AMP006", 6 * 1563)]),
    "mnist_mlp": (lambda: mnist_mlp(4), [("AMP006", 4)]),
    "mnist_mlp_from_epoch_9": (lambda: mnist_mlp(14, epochs=25)[4 + 8 * 3:],
                               [("AMP006", 14)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "vdt": (lambda: vdt(1800), [("AMP006", 2000)]),
    "vdt_from_epoch_2": (lambda: vdt(1800, epochs=4)[8:], [("AMP006", 2000)]),
    "lip": (lambda: lip(1050), [("AMP006", 1100)]),
    "lip_from_the_middle": (lambda: lip(1050)[20:], [("AMP006", 1100)]),
    "dogs_resnet": (lambda: dogs_resnet(3), [("AMP006", 3), ("AMP013", 3)]),
    "aigc_detect": (lambda: aigc_detect(1250), [("AMP006", 1300)]),
    "aigc_detect_from_the_middle": (lambda: aigc_detect(1250)[10:], [("AMP006", 1300)]),
    "skins": (lambda: skins(2), [("AMP006", 2)]),
    "skins_from_epoch_3": (lambda: skins(4, epochs=7)[18:], [("AMP006", 4)]),
    "cifar_ddp": (lambda: cifar_ddp(2), [("AMP006", 2)]),
    "cifar_ddp_from_epoch_4": (lambda: cifar_ddp(7, epochs=12)[4:], [("AMP006", 7)]),
    "fruit_wgan": (lambda: fruit_wgan(4), [("AMP006", 4 * 12)]),
    "fruit_wgan_from_epoch_6": (lambda: fruit_wgan(9, epochs=15)[10:], [("AMP006", 9 * 12)]),
    "xworm": (lambda: xworm(17), [("AMP006", 17)]),
    "xworm_from_epoch_9": (lambda: xworm(17, epochs=40)[12:], [("AMP006", 17)]),
    "protein_wgan": (lambda: protein_wgan(130), [("AMP006", 140)]),
    "protein_wgan_from_epoch_3": (lambda: protein_wgan(130, epochs=6)[13:], [("AMP006", 140)]),
    "stock_gan": (lambda: stock_gan(1250), [("AMP006", 1299)]),
    "stock_gan_from_the_middle": (lambda: stock_gan(1250)[8:], [("AMP006", 1299)]),
    # HF dicts print no step: their rows are counted, in the excerpt pasted
    "roberta_mlm": (lambda: roberta_mlm(750), [("AMP006", 8)]),
    "roberta_mlm_from_the_middle": (lambda: roberta_mlm(750)[9:], [("AMP006", 4)]),
    "mlm_sentiment": (lambda: mlm_sentiment(3), [("AMP006", 3 * 1563)]),
    "samplenet": (lambda: samplenet(4), [("AMP006", 4), ("AMP013", 4)]),
    "slm_lightning": (lambda: slm_lightning(2), [("AMP006", 3 * 1050), ("AMP013", 3 * 1050)]),
    "slm_lightning_from_epoch_3": (lambda: slm_lightning(5, epochs=8)[12:],
                                   [("AMP006", 6 * 1050), ("AMP013", 6 * 1050)]),
    "yolo11_heads": (lambda: yolo11_heads(4), [("AMP006", 4 * 200)]),
    "yolo11_heads_from_epoch_5": (lambda: yolo11_heads(7, shown=10)[4 + 5 * 4:],
                                  [("AMP006", 7 * 200)]),
    "nexpr": (lambda: nexpr(1850), [("AMP006", 1900)]),
    "vit_cifar": (lambda: vit_cifar(33), [("AMP006", 33), ("AMP013", 33)]),
    "vit_cifar_from_epoch_21": (lambda: vit_cifar(33)[20:], [("AMP006", 33), ("AMP013", 33)]),
    "he_mfr": (lambda: he_mfr(4700), [("AMP006", 5000)]),
    "he_mfr_from_epoch_2": (lambda: he_mfr(4700, epochs=4)[18:], [("AMP006", 5000)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "vdt": lambda: vdt(epochs=4, every=250),
    "vdt_from_epoch_2": lambda: vdt(epochs=4, every=250)[9:],
    "lip": lambda: lip(epochs=5, every=50, bias=3),
    "cloud_phase": lambda: cloud_phase(epochs=9, lambda_=0.8),
    "cloud_phase_from_epoch_4": lambda: cloud_phase(epochs=9, lambda_=0.8)[54:],
    "dogs_resnet": lambda: dogs_resnet(epochs=8, time_s=90),
    "dogs_resnet_from_epoch_3": lambda: dogs_resnet(epochs=8, time_s=90)[11:],
    "aigc_detect": lambda: aigc_detect(epochs=4, every=50, per_step=0.2),
    "skins": lambda: skins(epochs=6, lr=1e-4),
    "cifar_ddp": lambda: cifar_ddp(epochs=12, acc=63),
    "fruit_wgan": lambda: fruit_wgan(epochs=15, batches=40),
    "xworm": lambda: xworm(epochs=50),
    "protein_wgan": lambda: protein_wgan(epochs=6, batches=80, every=10),
    "stock_gan": lambda: stock_gan(steps=5000, every=250),
    "roberta_mlm": lambda: roberta_mlm(steps=3000, every=50, lr=1e-4),
    "mlm_sentiment": lambda: mlm_sentiment(epochs=9, batches=700, total=40),
    "mlm_sentiment_from_epoch_4": lambda: mlm_sentiment(epochs=9, batches=700, total=40)[14:],
    "samplenet": lambda: samplenet(epochs=10, lr=0.02),
    "samplenet_from_epoch_3": lambda: samplenet(epochs=10, lr=0.02)[8:],
    "slm_lightning": lambda: slm_lightning(epochs=7, batches=600, val=30),
    "yolo11_heads": lambda: yolo11_heads(epochs=80, shown=9, batches=150, size=960),
    "nexpr": lambda: nexpr(epochs=6, iters=500, lr=2e-4),
    "nexpr_from_epoch_3": lambda: nexpr(epochs=6, iters=500, lr=2e-4)[5 + 6 * 2:],
    "mnist_mlp": lambda: mnist_mlp(epochs=25),
    "mnist_mlp_from_epoch_9": lambda: mnist_mlp(epochs=25)[4 + 8 * 3:],
    "vit_cifar": lambda: vit_cifar(epochs=120),
    "vit_cifar_from_epoch_41": lambda: vit_cifar(epochs=120)[40:],
    "he_mfr": lambda: he_mfr(epochs=4, every=250, total=60),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_fixed_faulty_runs(tmp_path: Path, name: str) -> None:
    """The ids and steps of the faulty excerpts the parent (3e8fe97) read wrong (its answers
    are in the module's table)."""
    assert faults(tmp_path, FIXED[name][0]()) == FIXED[name][1]


@pytest.mark.parametrize("name", sorted(READ_ALREADY))
def test_faulty_runs_read_already(tmp_path: Path, name: str) -> None:
    """Guards: the faulty excerpts whose layouts the parent read right."""
    assert faults(tmp_path, READ_ALREADY[name][0]()) == READ_ALREADY[name][1]


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_runs_say_nothing(tmp_path: Path, name: str) -> None:
    """Controls: silent, read without error (on the parent too)."""
    assert not faults(tmp_path, HEALTHY[name]())


def test_a_bracketed_epoch_with_more_after_it_heads_nothing(tmp_path: Path) -> None:
    """A control of the bracketed-epoch rule: ``Epoch [3/8] -> ETA: 215.4s`` heads nothing
    (only the epoch's ``Time:`` may follow the brackets), so the rows below are counted as
    the parent counted them."""
    lines = [line.replace("-> Time:", "-> ETA:") for line in dogs_resnet(5, epochs=8)]
    assert faults(tmp_path, lines[3 + 4 * 2:]) == [("AMP006", 3), ("AMP013", 3)]


def test_a_bar_label_epoch_from_the_start_counts_as_before(tmp_path: Path) -> None:
    """A control of the bar-label rule: an excerpt whose first bar is ``Epoch 1/100`` counts
    from 0, and a bar whose label names no epoch counts its passes as before."""
    assert faults(tmp_path, mlm_sentiment(3)) == [("AMP006", 3 * 1563)]
    unlabelled = [line.replace("Pre-train Epoch 4/100: ", "Pre-train: ")
                  for line in mlm_sentiment(6, epochs=9)[14:]]
    assert faults(tmp_path, unlabelled)[:1] == [("AMP006", 3 * 1563)]


def test_an_evaluation_line_opening_with_its_phase_stays_evaluation(tmp_path: Path) -> None:
    """A control of the bracketed epoch before a loss: a line that opens with its phase
    (``Validation Epoch [4/10] | Loss: nan | Accuracy: 9.80%``) is evaluation's, and a loss
    keyed after the phase word is evaluation's too: AMP013 alone, no training NaN."""
    healthy = mnist_mlp(epochs=6)
    for line in ("Validation Epoch [7/10] | Loss: nan | Accuracy: 9.80%",
                 "Epoch [7/10] | Validation Loss: nan | Validation Accuracy: 9.80%"):
        assert [code for code, _ in faults(tmp_path, [*healthy, line])] == ["AMP013"], line


@pytest.mark.xfail(strict=True, reason="not fixed here: the training line's epoch counts from 0 "
                   "(``DA Train Epoch:  3``) and the summary lines' from 1 (``DA epoch:   4``), "
                   "and ``[GPU0] Epoch 3 | ... | Steps: 40`` prints the epoch's length as "
                   "``Steps``: the NaN reads at step 40, the evaluation's at 52")
@pytest.mark.parametrize("cut", [0, 2 * 18])
def test_cloud_phase(tmp_path: Path, cut: int) -> None:
    """The right answer: epoch 3 (from 0, as its training line prints it), the evaluation's
    NaN after it; the same pasted from epoch 2."""
    assert faults(tmp_path, cloud_phase(3, epochs=8)[cut:]) == [("AMP006", 3), ("AMP013", 3)]


@pytest.mark.xfail(strict=True, reason="not fixed here: the GAN's keys are read now (gan_terms), "
                   "but the ``Training`` bar's count, 120 in every epoch (it restarts), is "
                   "taken as the step over the ``Epoch 6/8 | Adv Weight: 0.01`` heading two "
                   "lines up: AMP006 120, AMP013 121 (h52-epochbars: the healthy bars hold no "
                   "keyword of the prefilter, ``G_Recon=0.0490``, and the heading is not "
                   "handed over, so the first NaN bar is the first pass the reader sees)")
@pytest.mark.parametrize("cut", [0, 4 + 7 * 3])
def test_t2p(tmp_path: Path, cut: int) -> None:
    """The right answer: epoch 6's NaN (its heading ``Epoch 6/8``) and the validation's after
    it; from the middle, the same."""
    assert faults(tmp_path, t2p(6)[cut:]) == [("AMP006", 6), ("AMP013", 6)]


def test_t2p_healthy(tmp_path: Path) -> None:
    """The right answer: silence, read without error."""
    assert faults(tmp_path, t2p(epochs=12, lr=5e-5)) == []


def test_nexpr_from_epoch_3(tmp_path: Path) -> None:
    """The right answer: epoch 4's iteration 500 after three epochs of 800 (epochs from 1)."""
    assert faults(tmp_path, nexpr(2850, epochs=6)[5 + 9 * 2:]) == [("AMP006", 2900)]
