"""A fifteenth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads, at first sight (the doctor as it is at 8c2ac27, no rule added here):
6 scripts that train with fp16 and a loss scaler. Drawn from the code index's listing of
``train_amp.py`` (its first four rows, in order: AI-MD/stomach_dl, Ariande1/MS-ResNet,
FRAOTIAC/pytorch-cifar skipped, its rows from a ``progress_bar`` in ``utils/utils.py`` not read
in time, Harkool/SCALE-AMP), of ``main_amp.py`` (its first row, ARCCA/benchmarks-machine-
learning) and of ``train_fp16.py`` NOT in its order: the rows whose names promised an fp16
loop of their own were read (RedSafir/Visformer-FP16, richardbaihe/robustLM; raotnameh/
Robust_ASR read, its loop past the part read in time, not built). Also skipped: the hits of
``find_string`` on ``scaler.get_scale()`` and ``optimizer.cur_scale`` (scripts that print the
scale, but the index names no repository for them, and a builder must name its source).

Each excerpt is built from the script's own print format strings (one builder a script below,
the repository and file in its docstring): a healthy run with settings other than the
defaults (a scale that overflows now and then and regrows is healthy), a NaN loss from a step
(or an epoch where the script prints per epoch), the scale collapsing where the script prints
the scale, and a paste from the middle.

Each script as repository ``file``: the format; the doctor's answer at first sight (8c2ac27)
-> the right one ("=": the same):

- AI-MD/stomach_dl ``train_amp.py``: ``Epoch 12/29`` over ``train Loss: nan Acc: 0.3333``
  and ``valid Loss: nan ...`` (0-based epochs, no scale); AMP006 12, AMP013 12 =; 20 = from
  the middle.
- Ariande1/MS-ResNet ``train_amp.py``: ``Training Epoch: 3 [6400/15360]\tLoss: nan\tLR:
  ...`` (samples within the epoch), ``Test set: Average loss: nan, ...``; AMP006 29, AMP013
  36 -> 37120, 46080 (the run's samples); from the middle 21, 25 -> 71680, 76800 (strict
  xfail: the rows are counted, as for the MNIST layout in test_sample29).
- richardbaihe/robustLM ``train_fp16.py`` (Transformer-XL's ``| epoch   1 step     2400 |
  ... | loss   nan | ppl       nan``, ``| Eval   3 at step     3000 | ... | valid loss
  nan``); AMP006 2400, AMP013 3000 =; 4200, 5000 = from the middle.
- RedSafir/Visformer-FP16 ``train_fp16.py`` (its own scaler, printed in the bar's postfix):
  NaN from epoch 4: AMP006 3124, AMP013 3125, AMP007 3906 -> 3124, 3124, 3905 (the rows
  under a bar placed one step after it; the zero train losses of the all-skipped epochs are
  a true AMP007); from the middle 5467, 5468 -> 5467, 5467. The scale collapsing
  (``loss=GradNaN, scale=1, skipped=781``): AMP007 3905 -> AMP003 3124, AMP007 3905; from
  the middle silence -> AMP003 5467 (strict xfails at first sight; read right since
  h53-floor54: a scale at its floor while a printed skip counter climbs, floor_skips.py).
- Harkool/SCALE-AMP ``train_amp.py`` (``❌ [Epoch 3 | Step 17] Loss is NaN! Skipping batch.``
  glued to the running bar, ``[Fold 1 | Epoch 3] Loss: ... | Acc: ...``): AMP006 17, AMP007 4
  -> AMP006 297, AMP007 560 (the run's batches; the all-skipped epochs print a loss of 0.0);
  from the middle 40, 7 -> 740, 980 (strict xfails).
- ARCCA/benchmarks-machine-learning ``main_amp.py`` (apex's ImageNet example with apex's
  ``Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to ...``): NaN from
  iteration 551: AMP003 541, AMP006 560, AMP008 441, AMP004 563, AMP013 800 -> AMP003 551,
  AMP006 560, AMP004 563, AMP013 800; from the middle AMP003 541, AMP006 560, AMP008 541,
  AMP004 563, AMP013 800 -> 951, 960, 963, 1200. The collapse alone: AMP003 541, AMP008 441,
  AMP004 563 -> AMP003 551, AMP004 563; from the middle 541, AMP008 541, 563 -> 951, 963
  (strict xfails). Since h52-scales52 the excerpts from the start are read right (the lines
  of a run of overflows across a row are the last steps up to it: row_overflows.py); from
  the middle the AMP008 is gone, the steps still those of a count from the paste's epoch.

Healthy, with settings other than the defaults (12 excerpts, 6 of them pasted from the
middle; Visformer's and apex's with overflows that back the scale off and regrow it): no
false alarm, silent on 12 of 12. Faulty (16 excerpts): right on 4 (25%: stomach_dl and
robustLM, each from the start and the middle, none of them printing a scale); the 12 left
wrong are held by strict xfails: 10 with a wrong step (4 of them with an extra id beside:
AMP008 next to apex's collapse, its window filled by the collapse's own overflow lines,
numbered from the row before them so that the steps up to the next row count as clean and the
skip streak restarts), 1 with an id missed (AMP003 in Visformer's postfix: only the AMP007 that
follows), 1 silent (Visformer's collapse from the middle). Every wrong step is one of four
layouts: samples counted within an epoch (MS-ResNet), a step counted within an epoch whose
length is a bar's total (SCALE-AMP), rows under an epoch's bar placed one step after it
(Visformer), step-less overflow lines between rows and an ``[E][i/N]`` paste from the middle
(apex). Now: right on 8 of the 16 (apex's NaN and collapse from the start since h52-scales52,
Visformer's collapse from the start and the middle since h53-floor54), 8 still strict xfails.
"Right": the ids, and the step as the log prints it (an epoch, a step counter, the run's
batches for a bar an epoch, the run's count in samples where the log counts samples).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, apex_step, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def stomach(bad: int | None = None, epochs: int = 30, train_n: int = 4200,
            valid_n: int = 900) -> list[str]:
    """AI-MD/stomach_dl ``train_amp.py`` (a ResNet-34 under ``torch.cuda.amp``, a
    ``GradScaler`` named ``scheduler``, no scale printed): ``"Classes:"``, ``"Training-set
    size:"``, the device, ``"\\nTraining:-\\n"``, per epoch ``'Epoch {}/{}'.format(epoch,
    num_epochs - 1)`` (from 0), ``'-' * 10``, for each phase ``'{} Loss: {:.4f} Acc:
    {:.4f}'.format(phase, epoch_loss, epoch_acc)`` (``train``, ``valid``), a blank line, at the
    end ``'Training complete in {:.0f}m {:.0f}s'`` and ``'Best val Acc: {:4f}'``; ``bad`` is
    the first NaN epoch (a NaN prediction is class 0: the accuracy falls to its share)."""
    out = ["Classes: ['cancer', 'normal', 'ulcer']", f"Training-set size: {train_n} ",
           f"Validation-set size: {valid_n}", "cuda:0", "", "Training:-", ""]
    best = 0.0
    for e in range(epochs):
        tr, va = nan_from(bad, e, 0.98 / (1 + e / 6)), nan_from(bad, e, 1.02 / (1 + e / 7))
        ta = 0.3333 if tr != tr else min(0.99, 0.52 + e / 60)
        vacc = 0.3344 if va != va else min(0.97, 0.50 + e / 65)
        best = max(best, vacc)
        out += [f"Epoch {e}/{epochs - 1}", "-" * 10, f"train Loss: {tr:.4f} Acc: {ta:.4f}",
                f"valid Loss: {va:.4f} Acc: {vacc:.4f}", ""]
    out += ["Training complete in 84m 12s", f"Best val Acc: {best:4f}"]
    return out


def ms_resnet(bad: int | None = None, epochs: int = 6, batches: int = 120, b: int = 128,
              test_n: int = 5000) -> list[str]:
    """Ariande1/MS-ResNet ``train_amp.py`` (ImageNet under DDP and a ``GradScaler``, no scale
    printed): ``print(args.local_rank)``, ``"Let's use", n, "GPUs!"``, every 10 batches
    ``'Training Epoch: {epoch} [{trained_samples}/{total_samples}]\\tLoss: {:0.4f}\\tLR:
    {:0.6f}'`` (epochs from 1, ``batch_index * args.b + len(images)`` samples within the
    epoch, the loss a mean of the last 10 batches) and ``'training time consumed:
    {:.2f}s'``, after the epoch ``"Training accuracy: {:.2f} of epoch {}"``, ``'epoch {}
    training time consumed: {:.2f}s'``, ``'Evaluating Network.....'`` and ``'Test set:
    Average loss: {:.4f}, Accuracy: {:.4f}%, Time consumed:{:.2f}s'``; ``bad`` is the first
    NaN batch of the run (``(epoch - 1) * batches + batch_index``, from 0)."""
    out = ["0", "Let's use 4 GPUs!"]
    total = batches * b
    for e in range(1, epochs + 1):
        loss = 0.0
        for i in range(batches):
            g = (e - 1) * batches + i
            loss = nan_from(bad, g, 6.9 / (1 + g / 200))
            if i % 10 == 9:
                out += [f"Training Epoch: {e} [{i * b + b}/{total}]\tLoss: {loss:0.4f}\tLR: "
                        f"{0.4 * (1 - g / (epochs * batches)):0.6f}",
                        f"training time consumed: {0.71 * (i + 1):.2f}s"]
        acc = 0.1 if loss != loss else 20 + 9 * e
        out += [f"Training accuracy: {acc:.2f} of epoch {e}",
                f"epoch {e} training time consumed: {0.71 * batches:.2f}s",
                "Evaluating Network.....",
                f"Test set: Average loss: {NAN if loss != loss else 5.2 / (1 + e / 3):.4f}, "
                f"Accuracy: {acc + 1:.4f}%, Time consumed:{12.31:.2f}s"]
    return out


def robust_lm(bad: int | None = None, max_step: int = 6000, log: int = 100,
              evals: int = 1000, batches: int = 2500) -> list[str]:
    """richardbaihe/robustLM ``train_fp16.py`` (Transformer-XL on wikitext-103 under its
    ``fp16`` package's ``FP16_Optimizer``, dynamic loss scaling; the package is not in the
    index: no overflow line built): ``'using world size: {} and model-parallel size: {} '``,
    ``' > using dynamic loss scaling'``, ``'#non emb params = {}'``, every ``log_interval``
    steps ``'| epoch {:3d} step {:>8d} | {:>6d} batches | lr {:.3g} | ms/batch {:5.2f} | loss
    {:5.2f}'`` and ``' | ppl {:9.3f}'`` (``math.exp``), every ``eval_interval`` ``'-' * 100``,
    ``'| Eval {:3d} at step {:>8d} | time: {:5.2f}s | valid loss {:5.2f} | valid ppl
    {:9.3f}'``, ``'-' * 100``, at the end ``'End of training'``; epochs from 1, the batch
    count restarting each epoch; ``bad`` is the first NaN step."""
    out = ["using world size: 1 and model-parallel size: 1 ", " > using dynamic loss scaling",
           "#params = 151107538", "#non emb params = 41066400"]
    for step in range(1, max_step + 1):
        epoch, batch = (step - 1) // batches + 1, (step - 1) % batches + 1
        if step % log == 0:
            loss = nan_from(bad, step, 7.2 / (1 + step / 3000) + 2.1)
            out.append(f"| epoch {epoch:3d} step {step:>8d} | {batch:>6d} batches | lr "
                       f"{0.00025 * (1 - step / max_step / 2):.3g} | ms/batch {412.37:5.2f} | "
                       f"loss {loss:5.2f} | ppl {_ppl(loss):9.3f}")
        if step % evals == 0:
            val = nan_from(bad, step, 6.9 / (1 + step / 3000) + 2.2)
            out += ["-" * 100,
                    f"| Eval {step // evals:3d} at step {step:>8d} | time: {437.12:5.2f}s | valid "
                    f"loss {val:5.2f} | valid ppl {_ppl(val):9.3f}",
                    "-" * 100]
    return [*out, "-" * 100, "End of training"]


def _ppl(loss: float) -> float:
    """``math.exp(loss)`` as the script prints it (NaN stays NaN)."""
    return math.exp(loss) if loss == loss else NAN


def _fmt(scale: float) -> str:
    """tqdm's ``format_num`` as ``set_postfix`` applies it to a number: ``'{0:.3g}'`` where
    that is shorter than ``str``."""
    short = f"{scale:.3g}".replace("+0", "+").replace("-0", "-")
    return short if len(short) < len(str(scale)) else str(scale)


def visformer(bad: int | None = None, collapse: int | None = None, epochs: int = 8,
              batches: int = 781, growth: int = 500) -> list[str]:
    """RedSafir/Visformer-FP16 ``train_fp16.py`` (pure fp16 with its own ``DynamicLossScaler``:
    from 128, halved on a bad step down to 1.0, doubled after ``growth_interval`` good ones;
    here 500, not 2000): the run's set-up prints, per epoch ``f"\\n--- Epoch {epoch+1}/{args.
    epochs} --- (LR: {current_lr:.6f})"``, the bar ``tqdm(..., desc=f"Train Epoch
    {epoch+1}/{total_epochs}", leave=True)`` as it ends, its postfix the last ``set_postfix``:
    ``{'loss': f"{loss.item():.4f}", 'top1': ..., 'scale': f"{loss_scaler.scale:.0f}"}`` on a
    good step, ``{'loss': 'NaN/Inf', 'scale': loss_scaler.scale, 'skipped': n}`` when the loss
    is not finite (the step skipped before backward), ``{'loss': 'GradNaN', ...}`` when the
    gradients are not; ``f"[INFO] Total batch dilewati pada Epoch {epoch+1} karena NaN/Inf:
    {skipped_steps}"``, ``f"Hasil Epoch {epoch+1} ({epoch_time:.1f}s):"``, ``f"  Train ->
    Loss: {train_loss:.4f} | Top-1: ..."`` (the mean over the good steps; 0.0 where none was),
    ``f"  Val   -> Loss: ..."``, the JSON and checkpoint lines. ``bad``: the loss NaN from that
    step of the run (0-based; the weights then unchanged, so every later step too), the
    validation NaN from that epoch; ``collapse``: the gradients overflow on every step from
    there, the loss finite."""
    out = ["=== Pelatihan VisFormer FP16 ===", "Device: cuda",
           "Dataset: IMNET100 | Path: /data/imagenet100", "Model: visformer_tiny_fp16",
           f"Batch Size: 160 | Epochs: {epochs}", "", "Memuat dataset...",
           f"Jumlah sampel Train: {batches * 160} | Val: 5000 | Kelas: 100",
           "Total Parameter: 9,804,388"]
    scale, good, best = 128.0, 0, 0.0
    path = "./checkpoints_fp16/visformer_tiny_fp16"
    for e in range(epochs):
        out += ["", f"--- Epoch {e + 1}/{epochs} --- (LR: {0.0008 * (e + 1) / 5:.6f})"
                if e < 5 else f"--- Epoch {e + 1}/{epochs} --- (LR: {0.0008 / (e - 3):.6f})"]
        skipped, total, postfix = 0, 0.0, ""
        n_good = 0
        for s in range(batches):
            g = e * batches + s
            loss = 4.6 / (1 + g / 900)
            if bad is not None and g >= bad:
                scale, good, skipped = max(1.0, scale / 2), 0, skipped + 1
                postfix = f", loss=NaN/Inf, scale={_fmt(scale)}, skipped={skipped}"
                continue
            # a healthy run's rare overflow: one in 700 steps, the scale halved and regrown
            if (collapse is not None and g >= collapse) or g % 700 == 350:
                scale, good, skipped = max(1.0, scale / 2), 0, skipped + 1
                postfix = f", loss=GradNaN, scale={_fmt(scale)}, skipped={skipped}"
                continue
            good += 1
            if good >= growth:
                scale, good = scale * 2, 0
            n_good += 1
            total += loss
            postfix = f", loss={loss:.4f}, top1={min(90.0, 8 + g / 60):.1f}%, scale={scale:.0f}"
        out.append(tqdm_bar(f"Train Epoch {e + 1}/{epochs}", batches, batches, postfix,
                            rate=6.12))
        if skipped:
            out.append(f"[INFO] Total batch dilewati pada Epoch {e + 1} karena NaN/Inf: "
                       f"{skipped}")
        tr = total / n_good if n_good else 0.0
        t1 = 0.0 if not n_good else min(90.0, 8 + e * batches / 60)
        val = nan_from(None if bad is None else bad // batches, e, 4.4 / (1 + e * batches / 900))
        v1 = 1.0 if val != val else min(88.0, 7 + e * batches / 62)
        out += [f"Hasil Epoch {e + 1} ({127.6:.1f}s):",
                f"  Train -> Loss: {tr:.4f} | Top-1: {t1:.2f}% | Top-5: "
                f"{min(99.0, t1 * 1.6):.2f}%",
                f"  Val   -> Loss: {val:.4f} | Top-1: {v1:.2f}% | Top-5: "
                f"{min(99.0, v1 * 1.6):.2f}%",
                f"  [✓] Log riwayat pelatihan diperbarui di: {path}_history.json"]
        if v1 > best:
            best = v1
            out.append(f"  [✓] Checkpoint terbaik disimpan di: {path}_imagenet100_best.pth "
                       f"(Val Top-1: {best:.2f}%)")
    out += ["", f"=== Pelatihan Selesai! Top-1 Akurasi Terbaik: {best:.2f}% ===",
            f"File log JSON lengkap untuk analisis: {path}_history.json"]
    return out


def apex_imagenet(bad: int | None = None, collapse: int | None = None, epochs: int = 3,
                  batches: int = 400, freq: int = 20, val_batches: int = 40) -> list[str]:
    """ARCCA/benchmarks-machine-learning ``main_amp.py`` (apex's ImageNet example, amp O1,
    dynamic loss scale): ``"opt_level = {}"``, ``"keep_batchnorm_fp32 = {}"`` and
    ``"loss_scale = {}"`` each beside its ``type``, ``"\\nCUDNN VERSION: {}\\n"``, ``"=>
    creating model '{}'"``, every ``print_freq`` iterations (from 1) ``'Epoch:
    [{0}][{1}/{2}]\\tTime {batch_time.val:.3f} ({batch_time.avg:.3f})\\tSpeed {3:.3f}
    ({4:.3f})\\tLoss {loss.val:.10f} ({loss.avg:.4f})\\tPrec@1 ... \\tPrec@5 ...'`` (epochs
    from 0; the meter updated at the printed iterations only), the validation's ``'Test:
    [{0}/{1}]\\t...Loss {loss.val:.4f} ({loss.avg:.4f})...'`` and ``' * Prec@1 {top1.avg:.3f}
    Prec@5 {top5.avg:.3f}'``; apex's own ``"Gradient overflow.  Skipping step, loss scaler {}
    reducing loss scale to {}"`` (NVIDIA/apex ``apex/amp/handle.py``) on each overflow, the
    scale from 2**16, doubled after 2000 clean steps. ``bad``: the loss NaN from that
    iteration of the run (0-based, ``epoch * batches + i - 1``), each such step overflowing;
    ``collapse``: every step overflowing from there, the loss finite."""
    out = ["opt_level = O1 <class 'str'>", "keep_batchnorm_fp32 = None <class 'NoneType'>",
           "loss_scale = None <class 'NoneType'>", "", "CUDNN VERSION: 8902", "",
           "=> creating model 'resnet50'"]
    scale, clean = 65536.0, 0
    for e in range(epochs):
        n = s = 0.0
        for i in range(1, batches + 1):
            g = e * batches + i - 1
            loss = nan_from(bad, g, 6.9 / (1 + g / 300))
            # the first steps overflow (the scale too high), then one in 900: healthy
            over = g < 3 or g % 900 == 450 or loss != loss or (collapse is not None
                                                                and g >= collapse)
            scale, clean, said = apex_step(scale, clean, over)
            out += [said] if said else []
            if i % freq == 0:
                n, s = n + 1, s + loss
                out.append(f"Epoch: [{e}][{i}/{batches}]\tTime 0.412 (0.415)\tSpeed 621.359 "
                           f"(616.870)\tLoss {loss:.10f} ({s / n:.4f})\tPrec@1 "
                           f"{min(75.0, g / 20):.3f} ({min(70.0, g / 22):.3f})\tPrec@5 "
                           f"{min(92.0, g / 9):.3f} ({min(90.0, g / 10):.3f})")
        v = nan_from(bad, (e + 1) * batches - 1, 6.5 / (1 + (e + 1) * batches / 300))
        for i in range(10, val_batches + 1, 10):
            out.append(f"Test: [{i}/{val_batches}]\tTime 0.201 (0.230)\tSpeed 1273.612 "
                       f"(1113.043)\tLoss {v:.4f} ({v:.4f})\tPrec@1 41.406 (40.117)\tPrec@5 "
                       "67.969 (66.504)")
        out.append(f" * Prec@1 {0.1 if v != v else 40.117:.3f} Prec@5 "
                   f"{0.5 if v != v else 66.504:.3f}")
    return out



def scale_amp(bad: int | None = None, epochs: int = 15, batches: int = 140,
              val_batches: int = 35, folds: int = 1) -> list[str]:
    """Harkool/SCALE-AMP ``train_amp.py`` (an ESM classifier of antimicrobial peptides under
    a ``GradScaler``, 5-fold CV; no scale printed): ``f"[INFO] Using device: {device}"``, per
    fold ``f"\\n========== Fold {fold + 1}/{args.folds} =========="``, per epoch the bars
    ``tqdm(dataloader, desc=f"Training Epoch {epoch}")`` and ``f"Evaluating Epoch {epoch}"``
    (as a screen shows them at their end), on a NaN loss ``f"❌ [Epoch {epoch} | Step
    {step}] Loss is NaN! Skipping batch."`` (``print`` beside the running bar: glued to its
    state; the step from 0 within the epoch, the batch skipped before backward), then
    ``f"[Fold {fold+1} | Epoch {epoch}] Loss: {loss:.4f} | Acc: {acc:.4f} | F1: {f1:.4f} |
    AUC: {auc:.4f}"`` (the loss summed over the good batches, divided by all of them; the
    metrics 0.0 when every prediction is NaN) and ``f"✅ Saved best model to {ckpt_path}"``;
    ``bad``: the first NaN batch of the run (``(epoch - 1) * batches + step``), the weights
    unchanged by the skips, so every later batch too."""
    out = ["[INFO] Using device: cuda:0"]
    for f in range(folds):
        out += ["", f"========== Fold {f + 1}/5 =========="]
        best = 0.0
        for e in range(1, epochs + 1):
            total, good = 0.0, 0
            for s in range(batches):
                g = (e - 1) * batches + s
                if bad is not None and g >= bad:
                    out.append(tqdm_bar(f"Training Epoch {e}", s, batches)
                               + f"❌ [Epoch {e} | Step {s}] Loss is NaN! Skipping batch.")
                    continue
                total, good = total + 0.69 / (1 + g / 400), good + 1
            out += [tqdm_bar(f"Training Epoch {e}", batches, batches),
                    tqdm_bar(f"Evaluating Epoch {e}", val_batches, val_batches, rate=14.2)]
            nan_all = bad is not None and (e - 1) * batches >= bad
            f1 = 0.0 if nan_all else min(0.93, 0.71 + e / 80)
            out.append(f"[Fold {f + 1} | Epoch {e}] Loss: {total / batches:.4f} | Acc: "
                       f"{0.0 if nan_all else f1 + 0.01:.4f} | F1: {f1:.4f} | AUC: "
                       f"{0.0 if nan_all else f1 + 0.04:.4f}")
            if f1 > best:
                best = f1
                out.append(f"✅ Saved best model to checkpoints_amp_cv/fold{f + 1}_best.pt")
    return out

# The healthy runs, with settings other than the defaults, from the start and the middle.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "stomach": lambda: stomach(epochs=40, train_n=5000),
    "stomach_from_the_middle": lambda: stomach(epochs=45)[60:],
    "ms_resnet": lambda: ms_resnet(epochs=8, batches=150),
    "ms_resnet_from_the_middle": lambda: ms_resnet(epochs=8)[100:],
    "robust_lm": lambda: robust_lm(max_step=8000, log=200, evals=2000),
    "robust_lm_from_the_middle": lambda: robust_lm()[25:],
    "visformer": lambda: visformer(epochs=10, batches=640, growth=300),
    "visformer_from_the_middle": lambda: visformer(epochs=12)[30:],
    "apex_imagenet": lambda: apex_imagenet(epochs=4, batches=500, freq=25),
    "apex_imagenet_from_the_middle": lambda: apex_imagenet(epochs=4)[60:],
    "scale_amp": lambda: scale_amp(epochs=20, batches=120, folds=2),
    "scale_amp_from_the_middle": lambda: scale_amp(folds=3)[30:],
}

# The healthy runs as excerpts whose right answer is silence.
CONTROLS: Table = {f"{name} (healthy)": (build, []) for name, build in HEALTHY.items()}

# The faulty excerpts the doctor read right at first sight (8c2ac27), with that answer.
READ_ALREADY: Table = {
    # stomach_dl's NaN from epoch 12 (0-based, as printed): the train and valid rows.
    "stomach_nan": (lambda: stomach(12), [("AMP006", 12), ("AMP013", 12)]),
    "stomach_nan_from_the_middle": (lambda: stomach(20)[40:], [("AMP006", 20), ("AMP013", 20)]),
    # robustLM's NaN from step 2350: the row of 2400, the evaluation at 3000; from the middle,
    # 4150: 4200 and 5000.
    "robust_lm_nan": (lambda: robust_lm(2350), [("AMP006", 2400), ("AMP013", 3000)]),
    "robust_lm_nan_from_the_middle": (lambda: robust_lm(4150)[30:],
                                      [("AMP006", 4200), ("AMP013", 5000)]),
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """Guards on the faulty excerpts read right at first sight, and the healthy runs'
    silence (controls: they pass on the parent too)."""
    check_listed(tmp_path, name, READ_ALREADY, CONTROLS)


_SAMPLE_COUNTS = pytest.mark.xfail(strict=True, reason="not fixed here: ``Training Epoch: 3 "
                                   "[6400/15360]`` counts samples within the epoch (the "
                                   "PyTorch MNIST example's layout, left unnumbered on "
                                   "purpose, as in test_sample29): the rows are counted "
                                   "instead (29, 36; from the middle 21, 25)")
_AFTER_THE_BAR = pytest.mark.xfail(strict=True, reason="not fixed here (the step's basis, "
                                   "another branch's work): the rows under an epoch's bar "
                                   "(``  Val   -> Loss: nan``, ``  Train -> Loss: 0.0000``) "
                                   "are placed one step after the bar's count, at the start "
                                   "of the span up to the next bar (3125 and 3906, not 3124 "
                                   "and 3905; from the middle 5468)")
_APEX_MIDDLE = pytest.mark.xfail(strict=True, reason="not fixed here (counters that restart, "
                                 "another branch's work): a paste opening in epoch 1 counts "
                                 "``Epoch: [2][160/400]`` from its own first epoch (560, not "
                                 "960), the overflow lines numbered as from the start (551, "
                                 "563; the AMP008 beside the collapse gone since h52-scales52)")
_STEP_IN_EPOCH = pytest.mark.xfail(strict=True, reason="not fixed here (counters that "
                                   "restart, another branch's work): ``[Epoch 3 | Step 17]`` "
                                   "names the batch within the epoch, whose length is the "
                                   "bar's total (140): read as the run's step 17 (from the "
                                   "middle 40), and the zero losses of the all-skipped epochs "
                                   "dated by their epoch (4; 7) where the bars count batches")


@pytest.mark.parametrize(("build", "right"), [
    # MS-ResNet's NaN from batch 45 of epoch 3 (1-based, 120 batches of 128, a row every 10):
    # the row of 50 batches, 6400 samples: the run's 2 * 15360 + 6400; the test after the
    # epoch at its last row (46080). From the middle: batch 75 of epoch 5: 71680, 76800.
    pytest.param(lambda: ms_resnet(2 * 120 + 45), [("AMP006", 37120), ("AMP013", 46080)],
                 marks=_SAMPLE_COUNTS, id="ms_resnet"),
    pytest.param(lambda: ms_resnet(4 * 120 + 75)[90:], [("AMP006", 71680), ("AMP013", 76800)],
                 marks=_SAMPLE_COUNTS, id="ms_resnet_from_the_middle"),
    # Visformer's NaN from step 200 of epoch 4 (781 batches): the bar of epoch 4 ends at the
    # run's 3124 (``loss=NaN/Inf``), the validation beside it; every step of epochs 5-8
    # skipped: their train loss printed 0.0 (AMP007 from the bar of epoch 5, 3905). From the
    # middle, epoch 7: 5467 (epoch 8's one zero row is no run of zeros).
    pytest.param(lambda: visformer(3 * 781 + 200),
                 [("AMP006", 3124), ("AMP013", 3124), ("AMP007", 3905)],
                 marks=_AFTER_THE_BAR, id="visformer_nan"),
    pytest.param(lambda: visformer(6 * 781 + 100)[25:], [("AMP006", 5467), ("AMP013", 5467)],
                 marks=_AFTER_THE_BAR, id="visformer_nan_from_the_middle"),
    # Visformer's gradients overflowing on every step from step 200 of epoch 4, the loss
    # finite: the postfix's scale at its floor, 1, from the bar of epoch 4 (AMP003 3124), the
    # zero train losses from epoch 5 (AMP007 3905); from the middle, epoch 7: 5467.
    # (fixed by h53-floor54: floor_skips.py)
    pytest.param(lambda: visformer(collapse=3 * 781 + 200), [("AMP003", 3124), ("AMP007", 3905)],
                 id="visformer_collapse"),
    pytest.param(lambda: visformer(collapse=6 * 781 + 100)[25:], [("AMP003", 5467)],
                 id="visformer_collapse_from_the_middle"),
    # apex's ImageNet example, its loss NaN from iteration 551 (epoch 1, 400 batches, a row
    # every 20): the row of 560; every step overflows from 551, the scale from 4096 below 1
    # at 563; the validation after epoch 1 at its last row, 800. From the middle (the paste
    # opens at epoch 1's end), the same in epoch 2: 960, 951, 963, 1200.
    pytest.param(lambda: apex_imagenet(400 + 150),
                 [("AMP003", 551), ("AMP004", 563), ("AMP006", 560), ("AMP013", 800)],
                 id="apex_nan"),
    pytest.param(lambda: apex_imagenet(800 + 150, epochs=4)[60:],
                 [("AMP003", 951), ("AMP004", 963), ("AMP006", 960), ("AMP013", 1200)],
                 marks=_APEX_MIDDLE, id="apex_nan_from_the_middle"),
    # The same with the loss finite: every step overflowing from 551 (from the middle, 951).
    pytest.param(lambda: apex_imagenet(collapse=400 + 150), [("AMP003", 551), ("AMP004", 563)],
                 id="apex_collapse"),
    pytest.param(lambda: apex_imagenet(collapse=800 + 150, epochs=4)[60:],
                 [("AMP003", 951), ("AMP004", 963)], marks=_APEX_MIDDLE,
                 id="apex_collapse_from_the_middle"),
    # SCALE-AMP's NaN from step 17 of epoch 3 (140 batches): the run's 297; every batch of
    # epochs 4-6 skipped: their loss printed 0.0 (AMP007 from the bar of epoch 4, 560). From
    # the middle, step 40 of epoch 6: 740, the zeros from epoch 7's bar, 980.
    pytest.param(lambda: scale_amp(2 * 140 + 17, epochs=6), [("AMP006", 297), ("AMP007", 560)],
                 marks=_STEP_IN_EPOCH, id="scale_amp_nan"),
    pytest.param(lambda: scale_amp(5 * 140 + 40, epochs=9)[12:],
                 [("AMP006", 740), ("AMP007", 980)], marks=_STEP_IN_EPOCH,
                 id="scale_amp_nan_from_the_middle")])
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor read wrong at first sight, each with its right answer
    (strict xfails: the reasons say what the doctor does instead); compared as sets, the
    order of the diagnoses aside."""
    assert sorted(faults(tmp_path, build())) == sorted(right)
