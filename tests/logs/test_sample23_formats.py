"""A sixth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 17 scripts, drawn from the code index's listing of
``trainer/trainer.py``, ``engine/trainer.py``, ``lib/core/function.py``,
``utils/train_utils.py``, ``solver/solver.py``, ``trainers/trainer.py``, ``core/trainer.py``
and ``engine.py`` in the order it gives them, none named by another test. Skipped, and why:
those that print nothing of a loop (0618FSQ/muti-agent-trajectory-prediction's base
``Trainer``, 007frankenstein/TORCH's and 120L010916/epilepsy's ``utils/train_utils.py``:
optimizers, metrics), one that prints no loss (2004-0813/HMDRN-main: accuracies alone), a copy
of Ultralytics' ``BaseTrainer`` (1243939737/GSY: test_sample20's ``yolo11_heads`` builds its
rows), ``solver/solver.py``'s and ``engine.py``'s many that train nothing (puzzle solvers,
chess and trading engines).
The builders below (one a script, its repository and file named in its docstring) print
what the script's own format strings print: a run that stays healthy under settings the
script does not default to, and one whose loss turns NaN at a step N (at an epoch E where
only epochs are printed), each pasted whole and cut from the middle.

Per script, repository ``file``, the layout, then what the doctor answered at the parent
(3e9872d) and the right answer ("=" where they agree):

- 0Dema0/Adversarial_Sonar_Placement ``trainer/trainer.py``: ``  5 train=nan val=nan
  val_mse=nan val_cvar=nan lambda=0.5000 alpha=0.1000``; AMP013 None -> AMP006 5, AMP013 5,
  also from the middle; healthy: "nothing to diagnose" -> silent.
- 0merjavaid/Microscopic-segmentation ``trainer/trainer.py``: ``Epoch" 3, Iter: 0,TRAINING__
  loss :tensor(nan, device='cuda:0', grad_fn=<...>), , smooth_loss: nan`` over tqdm bars;
  AMP006 0 -> AMP006 3 (strict xfail), also from the middle.
- 12345fengce/crnn.pytorch ``trainer/trainer.py`` (logger ``%(asctime)s %(name)s
  %(levelname)s: %(message)s``): ``[2/3], [500/3000], global_step: 3500, Speed: ...,
  acc:0.0000, loss:nan, ...``; AMP006 3500 =, 6500 = from the middle.
- 1392309506/long-ENSO ``trainer/trainer.py`` (HF ``Trainer``, ``loss`` and
  ``learning_rate`` only): ``{'loss': nan, 'learning_rate': ..., 'epoch': 2.6}``; AMP006 13 =
  (rows), 7 = from the middle (the excerpt's rows).
- 1234quan1234/Computer_Vision_Project ``engine/trainer.py`` (bf16 autocast): ``Epoch 2:
  37%|...| 150/400 [..., loss=nan, loss_ce=nan, loss_supcon=nan]`` updates joined by carriage
  returns, ``... | INFO | Epoch 2/3 | loss=nan | mAP=0.0000``; AMP006 950 -> 550 (its
  epochs count from 1, the bar read as Lightning's from 0; strict xfail), 1400 -> 1000.
- 14aprows/drone-object-detection ``engine/trainer.py``: ``Epoch 3/5``, ``100%|...| 250/250
  [..., loss=nan]``, ``Loss: nan``; AMP006 750 =; pasted from epoch 4, AMP006 750 -> 1500.
- 1582795529/KGNet ``engine/trainer.py`` (reid-strong-baseline's ignite loop): ``Epoch[2]
  Iteration[100/300] Loss: nan, LR_Acc: 0.000, ...``; AMP006 400 =; pasted from epoch 3,
  AMP006 400 -> 1000.
- 1271258153/ddrnet ``lib/core/function.py`` (HRNet's logger): ``Epoch: [1/484]
  Iter:[0/372], Time: 0.52, lr: [...], Loss: nan, Acc:0.000000``; AMP006 372 =; pasted from
  epoch 2, AMP006 1116 = (epoch 4 read from 1: the excerpt shows no epoch 0; the script
  counts from 0, which no line says).
- 410011max/YOLOP-custom ``lib/core/function.py`` (GradScaler): ``Epoch: [2][0/4375]\tTime
  ...\tLoss nan (nan)``; AMP006 4375 =, 13125 = from the middle.
- 08212849/E2E-ASR ``solver/solver.py``: ``Epoch 2 | Iter 1 | Average Loss nan | Current Loss
  nan | 311.2 ms/batch``, the ``Train Summary`` and, after ``Cross validation...``, the
  validation's batches in the same format and ``Valid Summary``; AMP006 201, AMP013 301 ->
  AMP006 1201, AMP013 2101 (1200 iterations an epoch; a strict xfail until h51-steps52), also
  from the middle (3601, 4501).
- 111wukong/VisionDistillGC ``utils/train_utils.py`` (PaddlePaddle): ``Epoch [3/4], Step
  [0/30], Loss: nan, Acc: 0.2500``, ``Train Loss: nan, ...``, ``Val Loss: nan, ...``;
  AMP006 60, AMP013 86 =; 120, 146 = from the middle.
- 1adrianb/binary-networks-pytorch ``trainers/trainer.py``: `` Epoch 2/3``, a bar, ``TRAIN
  top1:0.100 | loss:nan`` and ``VALIDATION ...``; AMP006 2, AMP013 2 =; 4, 4 = from the middle
  (the epoch then; the run's batches since h56-convention56: 1173, 1173; 1564, 1564).
- 17766096682/PredRNN ``core/trainer.py``: ``itr: 1500 training L1 loss: nan training L2 loss:
  nan``; AMP006 1500 =, 2500 = from the middle.
- 1406428260/ProPainter ``core/trainer.py`` (its log file): ``Mon, 02 Mar 2026 10:08:41
  trainer.py[line:384]INFO [Iter 1600] d: nan; hole: nan; valid: nan`` (``valid``: the loss
  outside the holes); AMP013 1600 -> AMP006 1600 (strict xfail until h51-left13's
  region_losses read ``hole``/``valid`` as the loss's terms), also from the middle; healthy:
  "nothing to diagnose" (an error, no alarm) until then, silent now.
- 0taj/LeViT ``engine.py`` (DeiT's loop, timm's loss scaler): MetricLogger rows ``Epoch: [2]
  [   0/1251]  eta: ...  loss: 5.6485 (5.6985) ...``, then ``Loss is nan, stopping
  training``; AMP006 2503 = (one step after the last row), also from the middle.
- 101AoiKoori/Adaconv-ONNX ``trainers/trainer.py``: ``2026-03-01 10:05:07.512301 step
  2500/6000 (41.7%), loss=nan, style_loss=nan, content_loss=nan, 13.11 ex/s``; AMP006 2500 =,
  also from the middle.
- 1311523821/Mlops-Me ``core/trainer.py``: ``Epoch   4/8 | train_loss: nan | val_loss: nan |
  val_acc: 0.1000``; AMP006 4, AMP013 4 =; 9, 9 = from the middle.

Healthy, with settings other than the defaults (21 excerpts, 4 of them pasted from the
middle): no false alarm on any, before or after; right (silent, read without error) on 19
before, 20 after: Adversarial_Sonar_Placement's was "nothing to diagnose" (an error) before;
ProPainter's still is (a strict xfail).
Faulty (34 excerpts): right on 22 before, 26 after; the 8 left wrong are held by strict
xfails (Microscopic-segmentation, Computer_Vision_Project, E2E-ASR and ProPainter, each from
the start and from the middle). "Right": the ids, and the step as the log prints it (an
epoch, a step or batch counter, a bar's count).

Fixed here, each by a rule of layout:

- A count padded to its width that opens the line, blanks after it and two ``key=value``s at
  least (``  5 train=nan val=nan ...``), numbers the line (step_layouts.py
  ``LEADING_PADDED_COUNT``, read in metric_reader.py ``_pairs``), so that the training
  split's value is read as its loss: the line is training's, not evaluation's alone.
- A tqdm bar first seen right below an ``Epoch 6/9`` header of its own (the header within
  ``_FIT_HEADER_GAP`` lines) counts the epochs before it as passes of the bar
  (metric_reader.py ``_tqdm_step``), as Keras' first bar under its header did.
- A bracketed epoch may print no total before a keyed bracket of the epoch's batches
  (``Epoch[4] Iteration[100/300]``, step_layouts.py ``EPOCH_STEP``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults
from excerpts import nan_from as _loss


def sonar(bad: int | None = None, epochs: int = 12, lam: float = 0.5) -> list[str]:
    """0Dema0/Adversarial_Sonar_Placement ``trainer/trainer.py`` (``Trainer.fit``): per epoch
    ``f"{epoch+1:3d} train={train_loss:.6f} val={val_loss:.6f} val_mse={...:.6f}"`` with the
    annealed loss' ``f" val_cvar={...:.6f}"``, ``f" lambda={...:.4f}"`` and ``f" alpha={...:.4f}"``
    after it, then ``f"Saved best model to {save_path}"`` when the validation improves; ``bad``
    is the (1-based) epoch."""
    out: list[str] = []
    best = float("inf")
    for e in range(1, epochs + 1):
        t = _loss(bad, e, 0.042 - e / 1000)
        v = _loss(bad, e, 0.051 - e / 1000)
        out.append(f"{e:3d} train={t:.6f} val={v:.6f} val_mse={v * 0.9:.6f} "
                   f"val_cvar={v * 3:.6f} lambda={lam:.4f} alpha={0.1:.4f}")
        if v < best:
            best = v
            out.append("Saved best model to checkpoints/best_model.pt")
    return [*out, "Saved last model to checkpoints/last_model.pt"]


def microscopic(bad: int | None = None, epochs: int = 6, batches: int = 84) -> list[str]:
    """0merjavaid/Microscopic-segmentation ``trainer/trainer.py`` (``train_unet``): the last
    state of ``tqdm(data_iterator)`` per epoch and, at its first batch only,
    ``f'Epoch" {epoch}, Iter: {i},TRAINING__   loss :{loss}, , smooth_loss: {avg_loss}'`` with
    ``loss`` the CUDA tensor itself; ``bad`` is the epoch (from 0) whose loss is NaN on."""
    out: list[str] = []
    for e in range(epochs):
        loss = _loss(bad, e, 0.693 - e / 50)
        out.append(f'Epoch" {e}, Iter: 0,TRAINING__   loss :tensor({loss:.4f}, device=\'cuda:0\', '
                   f"grad_fn=<BinaryCrossEntropyBackward0>), , smooth_loss: {loss}")
        out.append(f"100%|██████████| {batches}/{batches} [00:3{e % 10}<00:00,  2.41it/s]")
    return out


def crnn(bad: int | None = None, epochs: int = 3, batches: int = 3000, every: int = 500,
         lr: float = 0.001) -> list[str]:
    """12345fengce/crnn.pytorch ``trainer/trainer.py`` through ``utils/util.py``'s
    ``setup_logger`` (``'%(asctime)s %(name)s %(levelname)s: %(message)s'``, name
    ``crnn.pytorch``): every ``display_interval`` batches ``'[{}/{}], [{}/{}], global_step: {},
    Speed: {:.1f} samples/sec, acc:{:.4f}, loss:{:.4f}, edit_dis:{:.4f} lr:{}, time:{:.2f}'``,
    after each epoch ``'[{}/{}], train_loss: {:.4f}, time: {:.4f}, lr: {}'`` and ``'[{}/{}],
    val_acc: {:.6f}'``, the checkpoint's line; ``bad`` counts ``global_step``."""
    out: list[str] = []

    def log(msg: str) -> None:
        out.append(f"2026-03-01 10:{len(out) % 60:02d}:07,311 crnn.pytorch INFO: {msg}")

    log("logger init finished")
    log(f"train dataset has 96000 samples,{batches} in dataloader, validate dataset has 2000 "
        "samples,63 in dataloader")
    step = 0
    for e in range(1, epochs + 1):
        for i in range(1, batches + 1):
            step += 1
            if i % every == 0:
                loss = _loss(bad, step, 2.1 - step / 10000)
                acc = 0.0 if loss != loss else 0.3 + step / 30000
                log(f"[{e}/{epochs}], [{i}/{batches}], global_step: {step}, Speed: 1520.3 "
                    f"samples/sec, acc:{acc:.4f}, loss:{loss:.4f}, edit_dis:{9 * (1 - acc):.4f} "
                    f"lr:{lr}, time:{10.52:.2f}")
        loss = _loss(bad, step, 2.2 - step / 10000)
        log(f"[{e}/{epochs}], train_loss: {loss:.4f}, time: {1052.3101:.4f}, lr: {lr}")
        log(f"[{e}/{epochs}], val_acc: {0.0 if loss != loss else 0.3 + e / 10:.6f}")
        saved = "output/crnn_CRNN/checkpoint/model_latest.pth"
        log(f"Saving current best: {saved}" if loss == loss else f"Saving checkpoint: {saved}")
    return out


def enso_hf(bad: int | None = None, steps: int = 2000, every: int = 100,
            lr: float = 5e-5) -> list[str]:
    """1392309506/long-ENSO ``trainer/trainer.py`` (a ``transformers.Trainer`` whose
    ``_maybe_log_save_evaluate`` logs ``loss`` and ``learning_rate`` alone; ``Trainer.log``
    adds ``epoch`` and prints the dict); ``bad`` counts steps."""
    out = []
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 1.2 - s / 5000)
        shown = "nan" if loss != loss else f"{round(loss, 4)}"
        out.append(f"{{'loss': {shown}, 'learning_rate': {lr * (1 - s / steps):.4e}, "
                   f"'epoch': {round(s / 500, 2)}}}")
    return out


def reid_bars(bad: int | None = None, epochs: int = 3, batches: int = 400,
              every: int = 50) -> list[str]:
    """1234quan1234/Computer_Vision_Project ``engine/trainer.py`` (bf16 autocast): the
    ``tqdm(dataloader, desc=f"Epoch {epoch}", leave=False)`` bar with ``set_postfix(loss=...,
    loss_ce=..., loss_supcon=...)`` every ``log_interval`` steps, each epoch's updates on one
    line joined by carriage returns as a redirected stderr keeps them, then ``scripts/
    train.py``'s logger (``"%(asctime)s | %(levelname)s | %(message)s"``, epochs from 1) with
    ``f"Epoch {epoch}/{epochs} | loss={...:.4f} | mAP={best_map:.4f}"``; ``bad`` counts steps
    over the run, the postfix the running means."""
    out = []
    step = 0
    for e in range(1, epochs + 1):
        states = []
        total = 0.0
        for i in range(1, batches + 1):
            step += 1
            loss = _loss(bad, step, 5.9 - step / 1000)
            total += loss
            if i % every == 0:
                mean = total / i
                pct = 100 * i // batches
                states.append(f"Epoch {e}:  {pct:2d}%|{'█' * (pct // 10):<10}| {i}/{batches} "
                              f"[00:{i // 10:02d}<00:30,  6.61it/s, loss={mean:.3g}, "
                              f"loss_ce={mean * 0.8:.3g}, loss_supcon={mean * 0.2:.3g}]")
        out.append("\r" + "\r".join(states))
        mean = total / batches
        out.append(f"2026-03-01 10:{e:02d}:41,220 | INFO | Epoch {e}/{epochs} | "
                   f"loss={mean:.4f} | mAP={0.0 if mean != mean else 0.41 + e / 100:.4f}")
    return out


def drone(bad: int | None = None, epochs: int = 5, batches: int = 250) -> list[str]:
    """14aprows/drone-object-detection ``engine/trainer.py``: ``f"Epoch {epoch+1}/{EPOCHS}"``,
    ``tqdm(train_loader, leave=True)``'s last state with ``set_postfix(loss=loss.item())``, and
    ``f"Loss: {loss}"`` (the epoch's mean, unformatted); ``bad`` is the (1-based) epoch."""
    out = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 18.4 - e)
        out += [f"Epoch {e}/{epochs}",
                f"100%|██████████| {batches}/{batches} [01:02<00:00,  4.01it/s, loss={loss:.3g}]",
                f"Loss: {loss}"]
    return out


def kgnet(bad: int | None = None, epochs: int = 3, batches: int = 300, period: int = 100,
          eval_period: int = 1) -> list[str]:
    """1582795529/KGNet ``engine/trainer.py`` (reid-strong-baseline's ignite loop) through its
    ``reid_baseline`` logger (``"%(asctime)s %(name)s %(levelname)s: %(message)s"``): every
    ``LOG_PERIOD`` iterations ``"Epoch[{}] Iteration[{}/{}] Loss: {:.3f}, LR_Acc: {:.3f},
    HR_Acc: {:.3f}, Base Lr: {:.2e}"``, after each epoch ``'Epoch {} done. Time per batch:
    {:.3f}[s] Speed: {:.1f}[samples/s]'`` and a rule, then ``"Validation Results - Epoch:
    {}"``, ``"mAP: {:.1%}"`` and the CMC ranks; ``bad`` is the (1-based) epoch."""
    out: list[str] = []

    def log(msg: str) -> None:
        out.append(f"2026-03-01 10:{len(out) % 60:02d}:11,402 reid_baseline.train INFO: {msg}")

    log("Start training")
    for e in range(1, epochs + 1):
        for it in range(period, batches + 1, period):
            loss = _loss(bad, e, 9.1 - e - it / 1000)
            acc = 0.0 if loss != loss else 0.2 + e / 20
            log(f"Epoch[{e}] Iteration[{it}/{batches}] Loss: {loss:.3f}, LR_Acc: {acc:.3f}, "
                f"HR_Acc: {acc + 0.1:.3f}, Base Lr: {3.5e-4:.2e}")
        log(f"Epoch {e} done. Time per batch: {181.220:.3f}[s] Speed: {211.9:.1f}[samples/s]")
        log("-" * 10)
        if e % eval_period == 0:
            broken = bad is not None and e >= bad
            log(f"Validation Results - Epoch: {e}")
            log(f"mAP: {0.001 if broken else 0.3 + e / 50:.1%}")
            for r in (1, 5, 10):
                log(f"CMC curve, Rank-{r:<3}:{0.001 if broken else 0.5 + r / 100:.1%}")
    return out


def ddrnet(bad: int | None = None, epochs: int = 3, iters: int = 372, every: int = 100,
           base_lr: float = 0.01) -> list[str]:
    """1271258153/ddrnet ``lib/core/function.py`` (HRNet-Semantic-Segmentation's ``train``)
    through the HRNet ``create_logger`` file format ``'%(asctime)-15s %(message)s'``: every
    ``PRINT_FREQ`` iterations ``'Epoch: [{}/{}] Iter:[{}/{}], Time: {:.2f}, lr: {}, Loss:
    {:.6f}, Acc:{:.6f}'`` (``lr`` a list), the validation's ``'{} {} {}'`` (index, IoU array,
    mean IoU) after each epoch; ``bad`` is the epoch (from 0)."""
    out: list[str] = []

    def log(msg: str) -> None:
        out.append(f"2026-03-01 10:{len(out) % 60:02d}:11,402 {msg}")

    total = 484
    for e in range(epochs):
        for i in range(0, iters, every):
            loss = _loss(bad, e, 1.1 - e / 10 - i / 10000)
            acc = 0.0 if loss != loss else 0.7 + e / 100
            lr = base_lr * (1 - (e * iters + i) / (total * iters)) ** 0.9
            log(f"Epoch: [{e}/{total}] Iter:[{i}/{iters}], Time: 0.52, lr: [{lr}], "
                f"Loss: {loss:.6f}, Acc:{acc:.6f}")
        broken = bad is not None and e >= bad
        iou = "[0. 0. 0.]" if broken else "[0.9412 0.7121 0.8533]"
        log(f"0 {iou} {0.0 if broken else 0.8355}")
    return out


def yolop(bad: int | None = None, epochs: int = 3, batches: int = 4375,
          every: int = 1000) -> list[str]:
    """410011max/YOLOP-custom ``lib/core/function.py`` (``amp.autocast`` and a GradScaler)
    through YOLOP's ``create_logger`` (``'%(asctime)-15s %(message)s'``): every ``PRINT_FREQ``
    batches ``'Epoch: [{0}][{1}/{2}]\\tTime {:.3f}s ({:.3f}s)\\tSpeed {:.1f} samples/s\\tData
    {:.3f}s ({:.3f}s)\\tLoss {loss.val:.5f} ({loss.avg:.5f})'``; epochs from 1, ``bad`` the
    epoch."""
    out: list[str] = []

    def log(msg: str) -> None:
        out.append(f"2026-03-01 10:{len(out) % 60:02d}:11,402 {msg}")

    for e in range(1, epochs + 1):
        for i in range(0, batches, every):
            val = _loss(bad, e, 0.91 - e / 20 - i / 100000)
            avg = _loss(bad, e, 0.93 - e / 20 - i / 100000)
            log(f"Epoch: [{e}][{i}/{batches}]\tTime 0.512s (0.530s)\tSpeed 46.9 samples/s\t"
                f"Data 0.010s (0.012s)\tLoss {val:.5f} ({avg:.5f})")
    return out


def e2e_asr(bad: int | None = None, epochs: int = 3, iters: int = 1200, every: int = 300,
            smoothing: float = 0.1) -> list[str]:
    """08212849/E2E-ASR ``solver/solver.py`` (the speech-transformer ``Solver``):
    ``"Training..."``, every ``print_freq`` iterations ``'Epoch {0} | Iter {1} | Average Loss
    {2:.3f} | Current Loss {3:.6f} | {4:.1f} ms/batch'``, the ``'Train Summary | End of Epoch
    {0} | Time {1:.2f}s | Train Loss {2:.3f}'`` between rules of 85 dashes, the same for
    ``Cross validation...`` and ``Valid Summary``; ``bad`` is the (1-based) epoch."""
    out: list[str] = []
    best = float("inf")
    for e in range(1, epochs + 1):
        out.append("Training...")
        for i in range(0, iters, every):
            cur = _loss(bad, e, 4.2 - e / 3 - i / 5000 + smoothing)
            out.append(f"Epoch {e} | Iter {i + 1} | Average Loss {cur + 0.1:.3f} | Current "
                       f"Loss {cur:.6f} | {311.2:.1f} ms/batch")
        loss = _loss(bad, e, 4.0 - e / 3)
        out += ["-" * 85, f"Train Summary | End of Epoch {e} | Time {1302.44:.2f}s | Train Loss "
                f"{loss:.3f}", "-" * 85, "Cross validation..."]
        for i in range(0, iters // 10, every // 3):
            out.append(f"Epoch {e} | Iter {i + 1} | Average Loss {loss + 0.2:.3f} | Current "
                       f"Loss {loss + 0.1:.6f} | {101.5:.1f} ms/batch")
        out += ["-" * 85, f"Valid Summary | End of Epoch {e} | Time {1402.17:.2f}s | Valid Loss "
                f"{loss + 0.2:.3f}", "-" * 85]
        if loss + 0.2 < best:
            best = loss + 0.2
            out.append("Find better validated model, saving to exp/final.pth.tar")
    return out


def paddle_distill(bad: int | None = None, epochs: int = 4, batches: int = 30,
                   warmup: int = 5) -> list[str]:
    """111wukong/VisionDistillGC ``utils/train_utils.py`` (PaddlePaddle):
    ``f'Epoch [{epoch+1}/{num_epochs}], Learning Rate: {lr:.6f}'``, every five batches
    ``f'Epoch [..], Step [{batch_id}/{len(train_loader)}], Loss: {loss:.4f}, Acc: {acc:.4f}'``,
    then ``f'\\nEpoch [..]'``, ``f'Train Loss: {..:.4f}, Train Acc: {..:.4f}'``, ``f'Val Loss:
    {..:.4f}, Val Acc: {..:.4f}'``, sklearn's classification report and the best-model or
    patience line; ``bad`` is the (1-based) epoch."""
    out: list[str] = []
    best = 0.0
    wait = 0
    for e in range(1, epochs + 1):
        lr = 1e-4 * e / warmup if e <= warmup else 1e-4 * 0.5
        out.append(f"Epoch [{e}/{epochs}], Learning Rate: {lr:.6f}")
        for b in range(0, batches, 5):
            loss = _loss(bad, e, 1.3 - e / 10 - b / 1000)
            acc = 0.25 if loss != loss else 0.5 + e / 20
            out.append(f"Epoch [{e}/{epochs}], Step [{b}/{batches}], Loss: {loss:.4f}, "
                       f"Acc: {acc:.4f}")
        loss = _loss(bad, e, 1.25 - e / 10)
        acc = 0.25 if loss != loss else 0.5 + e / 20
        out += ["", f"Epoch [{e}/{epochs}]", f"Train Loss: {loss:.4f}, Train Acc: {acc:.4f}",
                f"Val Loss: {loss:.4f}, Val Acc: {acc:.4f}", "", "验证集分类报告:",
                "              precision    recall  f1-score   support", "",
                f"     Harmful       {acc:.2f}      {acc:.2f}      {acc:.2f}       120",
                f"     Kitchen       {acc:.2f}      {acc:.2f}      {acc:.2f}       130", "",
                f"    accuracy                           {acc:.2f}       250", ""]
        if acc > best:
            best = acc
            wait = 0
            out.append(f"最佳模型已保存 (Val Acc: {best:.4f})")
        else:
            wait += 1
            out.append(f"验证准确率未提升 ({wait}/10)")
    return out


def binary_nets(bad: int | None = None, epochs: int = 4, batches: int = 391,
                phases: tuple[str, ...] = ("train", "validation")) -> list[str]:
    """1adrianb/binary-networks-pytorch ``trainers/trainer.py`` (no logger: ``print``): per
    phase ``" Epoch {}/{}".format(epoch, num_epochs - 1)``, the phase's ``tqdm`` bar at its end,
    then ``f"{phase.upper()} {metric_string}"`` with ``" | ".join(f"{key}:{value:.3f}")`` over
    its metrics and the loss; ``bad`` is the epoch (from 0)."""
    out: list[str] = []
    for e in range(epochs):
        for phase in phases:
            n = batches if phase == "train" else batches // 4
            loss = _loss(bad, e, 2.1 - e / 5 + (0.1 if phase != "train" else 0))
            top1 = 0.1 if loss != loss else 0.4 + e / 20
            out += [f" Epoch {e}/{epochs - 1}", f"100%|██████████| {n}/{n} [00:31<00:00, "
                    "12.30it/s]", f"{phase.upper()} top1:{top1:.3f} | loss:{loss:.3f}"]
    m, s = divmod(epochs * 41, 60)
    return [*out, f"Training complete in {m:.0f}m {s:.0f}s"]


def predrnn(bad: int | None = None, iters: int = 3000, every: int = 100,
            test_every: int = 1000) -> list[str]:
    """17766096682/PredRNN ``core/trainer.py``: every ``display_interval`` iterations
    ``print('itr: ' + str(itr), 'training L1 loss: ' + str(loss_l1), 'training L2 loss: ' +
    str(loss_l2))`` (numpy floats, ``str`` as printed), and every ``test_interval`` the test's
    ``'test...'``, batch ids and ``'mse per frame: ' + str(avg_mse)`` with the frames' values;
    ``bad`` counts iterations."""
    out: list[str] = []
    for itr in range(1, iters + 1):
        if itr % every == 0:
            l1 = _loss(bad, itr, 0.0912 - itr / 100000)
            l2 = _loss(bad, itr, 0.0213 - itr / 500000)
            out.append(f"itr: {itr} training L1 loss: {l1!r} training L2 loss: {l2!r}")
        if itr % test_every == 0:
            broken = bad is not None and itr >= bad
            mse = "nan" if broken else repr(41.2 - itr / 1000)
            out += ["test...", "0", "1", "2", f"mse per frame: {mse}", mse, mse]
    return out


def propainter(bad: int | None = None, iters: int = 3000, every: int = 200,
               no_dis: bool = False) -> list[str]:
    """1406428260/ProPainter ``core/trainer.py``: its log file (``logging.basicConfig`` with
    ``"%(asctime)s %(filename)s[line:%(lineno)d]" "%(levelname)s %(message)s"`` and ``datefmt
    "%a, %d %b %Y %H:%M:%S"``), every ``log_freq`` iterations ``f"[Iter {self.iteration}] d:
    {dis_loss.item():.4f}; hole: {hole_loss.item():.4f}; valid: {valid_loss.item():.4f}"`` (no
    ``d:`` without the discriminator); ``bad`` counts iterations."""
    out = []
    for it in range(every, iters + 1, every):
        hole = _loss(bad, it, 0.41 - it / 100000)
        valid = _loss(bad, it, 0.052 - it / 1000000)
        d = "" if no_dis else f"d: {_loss(bad, it, 0.69):.4f}; "
        out.append(f"Mon, 02 Mar 2026 10:{it // every % 60:02d}:41 trainer.py[line:384]INFO "
                   f"[Iter {it}] {d}hole: {hole:.4f}; valid: {valid:.4f}")
    return out


def levit(bad: int | None = None, epochs: int = 3, batches: int = 1251, every: int = 100,
          lr: float = 5e-4) -> list[str]:
    """0taj/LeViT ``engine.py`` (DeiT's ``train_one_epoch`` with timm's loss scaler): the
    ``MetricLogger(delimiter="  ")`` rows every 100 batches under ``'Epoch: [{}]'`` (``eta``,
    ``lr`` at ``{value:.6f}``, ``loss`` as ``{median:.4f} ({global_avg:.4f})``, ``time``,
    ``data``, ``max mem``), ``"Averaged stats:"``, the evaluation's ``Test:`` rows and ``'*
    Acc@1 {:.3f} Acc@5 {:.3f} loss {:.3f}'``; on a non-finite loss ``"Loss is {}, stopping
    training"`` and the exit. ``bad`` counts batches over the run."""
    out: list[str] = []
    step = 0
    width = len(str(batches))
    for e in range(epochs):
        for i in range(batches):
            step += 1
            loss = _loss(bad, step, 6.9 - step / 2000)
            if loss != loss:
                return [*out, "Loss is nan, stopping training"]
            if i % every == 0 or i == batches - 1:
                out.append(f"Epoch: [{e}]  [{i:{width}d}/{batches}]  eta: 0:10:21  lr: {lr:.6f}  "
                           f"loss: {loss:.4f} ({loss + 0.05:.4f})  time: 0.4969  data: 0.0011  "
                           "max mem: 10240")
        out.append(f"Epoch: [{e}] Total time: 0:10:41 (0.5128 s / it)")
        out.append(f"Averaged stats: lr: {lr:.6f}  loss: {6.9 - step / 2000:.4f} "
                   f"({6.9 - step / 2000:.4f})")
        out.append(f"Test:  [ 0/66]  eta: 0:01:05  loss: 5.1221 (5.1221)  acc1: {10 + e:.4f} "
                   f"({10 + e:.4f})  acc5: 30.0000 (30.0000)  time: 0.9981  data: 0.8011  "
                   "max mem: 10240")
        out.append(f"* Acc@1 {10.0 + e:.3f} Acc@5 {30.0 + e:.3f} loss {5.1 - e / 10:.3f}")
    return out


def adaconv(bad: int | None = None, steps: int = 6000, every: int = 500,
            batch: int = 8) -> list[str]:
    """101AoiKoori/Adaconv-ONNX ``trainers/trainer.py``: ``f"Training Initialized -> device:
    {self.device}"``, then every ``log_step`` steps ``f"{datetime.datetime.now()} step
    {current_step}/{target_steps} ({...*100:.1f}%), loss={loss:.4f}, style_loss=
    {style_loss:.4f}, content_loss={content_loss:.4f}, {examples_per_sec:.2f} ex/s"`` (the
    losses 0-d tensors, formatted as numbers) and ``"Training Done."``; ``bad`` counts steps."""
    out = ["Training Initialized -> device: cuda"]
    for s in range(every, steps + 1, every):
        style = _loss(bad, s, 3.1 - s / 10000)
        content = _loss(bad, s, 1.9 - s / 20000)
        out.append(f"2026-03-01 10:{s // every % 60:02d}:07.512301 step {s}/{steps} "
                   f"({s / steps * 100:.1f}%), loss={style + content:.4f}, "
                   f"style_loss={style:.4f}, content_loss={content:.4f}, "
                   f"{batch / 0.61:.2f} ex/s")
    return [*out, "Training Done."]


def mlops(bad: int | None = None, epochs: int = 8, patience: int = 10) -> list[str]:
    """1311523821/Mlops-Me ``core/trainer.py``: per epoch ``f"Epoch {epoch:3d}/{self.epochs} |
    train_loss: {train_loss:.4f} | val_loss: {val_loss:.4f} | val_acc: {val_acc:.4f}"``, the
    best model's ``f"  -> 保存最佳模型 (val_acc={val_acc:.4f})"`` or, after ``patience``
    epochs without one, the early stop's line; the end's ``f"\\n训练完成! 最佳 val_accuracy:
    {...:.4f}"``; ``bad`` is the (1-based) epoch."""
    losses = [_loss(bad, e, 1.6 - e / 10) for e in range(1, epochs + 1)]
    out: list[str] = []
    best, since = 0.0, 0  # the best accuracy, the epochs since it
    for e, loss in enumerate(losses, 1):
        acc = 0.1 if loss != loss else 0.5 + e / 50
        out.append(f"Epoch {e:3d}/{epochs} | train_loss: {loss:.4f} | val_loss: "
                   f"{loss + 0.1:.4f} | val_acc: {acc:.4f}")
        since = 0 if acc > best else since + 1
        best = max(best, acc)
        out.append(f"  -> 保存最佳模型 (val_acc={acc:.4f})" if since == 0 else
                   f"  -> Early stopping, 最佳 val_acc={best:.4f}" if since >= patience else "")
        if since >= patience:
            break
    out = [line for line in out if line]
    return [*out, "", f"训练完成! 最佳 val_accuracy: {best:.4f}",
            "模型保存在: ./outputs/default/best_model.pth"]


# -- the excerpts and their right answers -----------------------------------------------------

# Faulty excerpts the parent (3e9872d) read wrong: fixed here (name -> (build, right answer)).
FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "sonar": (lambda: sonar(5), [("AMP006", 5), ("AMP013", 5)]),
    "sonar_from_the_middle": (lambda: sonar(8, epochs=14)[5:], [("AMP006", 8), ("AMP013", 8)]),
    "drone_from_epoch_4": (lambda: drone(6, epochs=9)[9:], [("AMP006", 6 * 250)]),
    "kgnet_from_epoch_3": (lambda: kgnet(4, epochs=6)[1 + 2 * 9:], [("AMP006", 3 * 300 + 100)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "crnn": (lambda: crnn(3200), [("AMP006", 3500)]),
    "crnn_from_the_middle": (lambda: crnn(6200, epochs=4)[10:], [("AMP006", 6500)]),
    # HF dicts print no step: their rows are counted, in the excerpt pasted
    "enso_hf": (lambda: enso_hf(1250), [("AMP006", 13)]),
    "enso_hf_from_the_middle": (lambda: enso_hf(1250)[6:], [("AMP006", 7)]),
    "drone": (lambda: drone(3), [("AMP006", 3 * 250)]),
    "kgnet": (lambda: kgnet(2), [("AMP006", 300 + 100)]),
    "ddrnet": (lambda: ddrnet(1), [("AMP006", 372)]),
    # epoch 4 read from 1 (see the module's table)
    "ddrnet_from_epoch_2": (lambda: ddrnet(4, epochs=6)[2 * 5:], [("AMP006", 3 * 372)]),
    "yolop": (lambda: yolop(2), [("AMP006", 4375)]),
    "yolop_from_epoch_3": (lambda: yolop(4, epochs=6)[2 * 5:], [("AMP006", 3 * 4375)]),
    "paddle_distill": (lambda: paddle_distill(3), [("AMP006", 60), ("AMP013", 86)]),
    "paddle_distill_from_epoch_3": (lambda: paddle_distill(5, epochs=7)[2 * 20:],
                                    [("AMP006", 120), ("AMP013", 146)]),
    # The step is the run's batches where a bar's total is known (h56-convention56: an epoch
    # heading over a bare bar at its total, whatever its wording; docs/doctor-reading.md).
    # These held the epoch (2; 4) before. Epochs from 0 (``Epoch 0/3`` seen): epoch 2 is
    # the third, 3 x 391 = 1173, the validation's after the same batches. From epoch 2 the
    # excerpt shows no epoch 0: epochs are counted from 1 there, 4 x 391.
    "binary_nets": (lambda: binary_nets(2), [("AMP006", 1173), ("AMP013", 1173)]),
    "binary_nets_from_epoch_2": (lambda: binary_nets(4, epochs=7)[2 * 6:],
                                 [("AMP006", 4 * 391), ("AMP013", 4 * 391)]),
    "predrnn": (lambda: predrnn(1450), [("AMP006", 1500)]),
    "predrnn_from_the_middle": (lambda: predrnn(2450)[12:], [("AMP006", 2500)]),
    "levit": (lambda: levit(2600), [("AMP006", 2503)]),
    "levit_from_the_middle": (lambda: levit(2600)[8:], [("AMP006", 2503)]),
    "adaconv": (lambda: adaconv(2200), [("AMP006", 2500)]),
    "adaconv_from_the_middle": (lambda: adaconv(2200)[4:], [("AMP006", 2500)]),
    "mlops": (lambda: mlops(4), [("AMP006", 4), ("AMP013", 4)]),
    "mlops_from_epoch_9": (lambda: mlops(9, epochs=14, patience=3)[8:],
                           [("AMP006", 9), ("AMP013", 9)]),
}

# Healthy runs the parent could not read ("nothing to diagnose", an error): read now.
HEALTHY_READ_NOW: dict[str, Callable[[], list[str]]] = {
    "sonar": lambda: sonar(epochs=20, lam=0.8),
    "sonar_from_the_middle": lambda: sonar(epochs=20, lam=0.8)[9:],
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "microscopic": lambda: microscopic(epochs=12, batches=40),
    "crnn": lambda: crnn(epochs=4, every=250, lr=0.0005),
    "enso_hf": lambda: enso_hf(steps=3000, every=50, lr=1e-4),
    "reid_bars": lambda: reid_bars(epochs=5, every=25),
    "drone": lambda: drone(epochs=9, batches=120),
    "drone_from_epoch_4": lambda: drone(epochs=9, batches=120)[9:],
    "kgnet": lambda: kgnet(epochs=6, period=50, eval_period=2),
    "kgnet_from_epoch_3": lambda: kgnet(epochs=6, period=50, eval_period=2)[1 + 2 * 9:],
    "ddrnet": lambda: ddrnet(epochs=6, every=50, base_lr=0.005),
    "yolop": lambda: yolop(epochs=6, every=500),
    "e2e_asr": lambda: e2e_asr(epochs=6, every=200, smoothing=0.0),
    "paddle_distill": lambda: paddle_distill(epochs=8, batches=60, warmup=3),
    "binary_nets": lambda: binary_nets(epochs=9, batches=196),
    "predrnn": lambda: predrnn(iters=5000, every=50, test_every=2500),
    "levit": lambda: levit(epochs=4, every=50, lr=1e-3),
    "adaconv": lambda: adaconv(steps=9000, every=300, batch=16),
    "mlops": lambda: mlops(epochs=30, patience=40),
    "mlops_from_epoch_11": lambda: mlops(epochs=30, patience=40)[20:],
}


# Every excerpt under its group's name, with its right answer: the healthy ones' is silence.
# The fixed and the newly read ones fail on the parent (3e9872d; its answers are in the
# module's table), the guards and controls pass there too.
ANSWERS: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    **{f"fixed: {name}": case for name, case in FIXED.items()},
    **{f"guard: {name}": case for name, case in READ_ALREADY.items()},
    **{f"read now: {name}": (build, []) for name, build in HEALTHY_READ_NOW.items()},
    **{f"healthy: {name}": (build, []) for name, build in HEALTHY.items()},
}


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """Each excerpt's ids and steps (none for a healthy run), read without error."""
    build, right = ANSWERS[name]
    assert faults(tmp_path, build()) == right


def test_a_padded_count_before_one_pair_numbers_nothing(tmp_path: Path) -> None:
    """A control of the padded-count rule: a count before a single ``key=value`` (a table's
    row number, a count of items) numbers nothing: the evaluation's NaN stays at no step, as
    the parent read it."""
    assert faults(tmp_path, ["  5 val=nan", "  6 val=nan"]) == [("AMP013", None)]


def test_a_bar_far_below_its_header_counts_as_before(tmp_path: Path) -> None:
    """A control of the header-above-a-bar rule: an ``Epoch 6/9`` header more lines above
    the bar than a header's reach heads nothing: the bars are counted from the excerpt's
    start, as the parent counted them."""
    lines: list[str] = []
    for line in drone(6, epochs=9)[9:]:
        lines.append(line)
        if line.startswith("Epoch "):
            lines += ["Loading batches...", "Augmenting...", "Shuffling...", "Ready."]
    assert faults(tmp_path, lines) == [("AMP006", 3 * 250)]


@pytest.mark.parametrize(("cut", "bad"), [(0, 3), (2 * 3, 5)])
def test_microscopic(tmp_path: Path, cut: int, bad: int) -> None:
    """The right answer: the epoch (from 0) whose first batch's loss is NaN. The ``Iter: 0``
    it prints each epoch (its first batch only) never moves while the epoch goes up: no batch
    counter, the epoch numbers the rows (h52-restarts, ``EpochBatches.still``; the parent read
    the count, every NaN row at step 0)."""
    assert faults(tmp_path, microscopic(bad, epochs=9)[cut:]) == [("AMP006", bad)]


@pytest.mark.parametrize(("cut", "bad", "right"), [(0, 520, 550), (2, 1000, 1000)])
def test_reid_bars(tmp_path: Path, cut: int, bad: int, right: int) -> None:
    """The right answer: the first bar state whose running mean is NaN, ``(epoch - 1) * 400 +
    n`` with the epochs from 1. A strict xfail until h51-steps51 (the bar's ``Epoch 2:`` label
    was read as Lightning's, from 0: 950, 1400); bar_epochs: the logger's ``Epoch 2/3 |
    loss=...`` repeats the last bar's label as a count of how many, the loop's own."""
    assert faults(tmp_path, reid_bars(bad, epochs=4)[cut:]) == [("AMP006", right)]


@pytest.mark.parametrize(("cut", "bad", "right"), [
    (0, 2, [("AMP006", 1201), ("AMP013", 2101)]),
    (2 * 16, 4, [("AMP006", 3601), ("AMP013", 4501)]),
])
def test_e2e_asr(tmp_path: Path, cut: int, bad: int, right: list[tuple[str, int]]) -> None:
    """The right answer: 1200 iterations an epoch (the builder's), the NaN at the bad epoch's
    first row, the validation's NaN at the last training step read before it (its 901st).
    A strict xfail until h51-steps52: the evaluation was one past the last training step
    (2102: the ``Train Summary | End of Epoch 2`` line counted as a step; epoch_summaries) and
    the excerpt pasted from epoch 3 counted its first epoch as the run's (1201, 2102: the
    epochs before it now counted once their length is learnt, ``EpochBatches``)."""
    assert faults(tmp_path, e2e_asr(bad, epochs=6)[cut:]) == right


@pytest.mark.parametrize(("cut", "bad", "right"), [(0, 1500, 1600), (6, 2500, 2600)])
def test_propainter(tmp_path: Path, cut: int, bad: int, right: int) -> None:
    """The right answer: the training loss NaN at the first ``[Iter N]`` that prints it."""
    assert faults(tmp_path, propainter(bad)[cut:]) == [("AMP006", right)]


def test_propainter_healthy(tmp_path: Path) -> None:
    """The right answer: silence, read without error."""
    assert faults(tmp_path, propainter(iters=6000, every=500, no_dis=True)) == []
