"""A fifth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 18 scripts, drawn from the code index's listing of
``train_classifier.py``, ``train_vae.py``, ``train_lm.py``, ``train_gpt.py``,
``train_diffusion.py``, ``train_seg.py``, ``train_detector.py``, ``train_rl.py``,
``train_agent.py``, ``train_bert.py``, ``train_unet.py``, ``train_asr.py`` and ``train_tts.py``
in the order it gives them (the first few of each), none named by another test. Skipped, and
why (besides 23011206-beep/final-deep-learning's ``train_detector.py``, Ultralytics behind a
wrapper, and AnimeshBasak-14/nllb-translation's ``train_asr.py``, HF's Seq2SeqTrainer, whose
dicts the sentiment classifier's builder already shows): those that train no network
(052vamsi/gesture_recognition: a random forest; 010404/Semantic-Segmentation's
``train_unet.py`` only predicts), those that hand over to a
module or trainer whose prints are not in the index or not their own (1116925/GRA41522-OOP-
Final-project, 1390051650/WaveDiffDecloud, 0xtyls/s_ai, 12190143/IE (evaluation lines only),
A-ges/NewsReader (Coqui's Trainer), ASR-studio/LAS-ASR (its ``core/solver.py`` is not
stored), 1ds23cs147-del/major_project (Ultralytics, read in sample20)), and 0825pm/T2P (named
in sample20). Each excerpt is built from the script's own print and logging format strings
(one builder a script below, the repository and file in its docstring): a healthy run with
settings other than the defaults, and a faulty one (a NaN loss from step N, or at epoch E
where the script prints per epoch), pasted from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer on the parent (3e9872d)
-> the right one ("=": the same):

- 007-Akira/malayalam-extractive-summarizer ``train_classifier.py``: ``   Epoch 4/10 | Loss:
  nan | Accuracy: 50.00%``; AMP006 4 =, 7 = from epoch 4.
- 1-jun/pnp ``train_classifier.py``: unlabelled tqdm bars (``loss=nan`` postfix), then
  ``Epoch: 4``, ``Train loss: nan Train_acc: ...``, ``Valid loss: nan ...``; AMP006 295, AMP013
  296 -> 295, 295 (strict xfail); from epoch 3: 413, 414 -> 590, 590 (strict xfail).
- 0merjavaid/Egocentric_3D_pose ``train_vae.py``: its log file, ``Epoch: 8 Phase train: loss
  = nan Step = 120`` and ``l2 pose nan hmp loss nan ..., KLD: tensor(nan, device='cuda:0',
  grad_fn=<MeanBackward1>) LR: [3e-05]``; AMP006 120 =; 60 = from epoch 10 (the step as
  printed: each epoch counts from 0 and prints no length).
- 1Huy2409/network-traffic-prediction ``train_vae.py`` (GradScaler, autocast): a banner with
  ``Epochs: 30, Patience: 15``, ``Epoch 6/30 (β=0.1667)`` over ``  Train - Loss: nan, Recon:
  nan, ...`` and a finite ``  Val   - Loss: ...``; AMP006 35 -> 6; from epoch 5, 8 -> 12.
- 1ytic/open_stt_e2e ``train_lm.py``: a tqdm over an iterator (no length) described ``epoch 3
  lr 0.000300 loss nan±nan gradient nan±nan: 2000it [...]``, the evaluation's ``epoch 3 loss
  nan±nan: 300it``; AMP006 6000 = (the evaluation's bar names no phase: read as training's);
  from epoch 3, AMP006 6000 -> 10000 (strict xfail).
- 21lahari/Neural-Language-Model-Training-PyTorch- ``train_lm.py``: ``Epoch 004 | train_loss
  nan | val_loss nan | train_ppl inf | val_ppl inf | time 38.6s``; AMP006 4, AMP013 4 =; 7, 7 =
  from epoch 4.
- 02noDarling/Chatgpt ``train_gpt.py``: ``mean_loss:tensor(nan, grad_fn=<DivBackward0>)`` every
  batch; AMP006 57 = (rows); 28 = from the middle (the excerpt's rows).
- 0xbyteptr/shinrai ``train_gpt.py``: ``Epoch 6/20 | Avg Loss: nan | LR: 2.14e-04`` and, after
  an epoch that improved, ``[BEST] loss=4.6750``; AMP006 11 -> 6; from epoch 5, 14 -> 9.
- 1644heihei/3D-VAE ``train_diffusion.py``: the bar ``Epoch 3/100: 100%|...| 250/250 [...,
  Loss=nan]`` and ``Epoch 3 Summary: Train Loss=nan``; AMP006 750 =, 1000 = from epoch 2; its
  log file's ``Epoch 8, Step 2000: Loss=nan``: AMP006 2000 =, also from the middle.
- 1991yuyang/pointnet ``train_seg.py``: ``epoch:2/200, step:260/500, train_loss:nan,
  train_iou:0.30000``, ``#################valid epoch:2/200 result#################``,
  ``valid_loss:nan, valid_iou:0.30000``; AMP006 760, AMP013 1000 =, also from the middle.
- 278261631/SiameseNetwork_fits_diff ``train_seg.py``: ``[005/30] loss=nan val_pixel_acc=0.612
  val_mIoU=0.204 (12.8s)``; AMP006 5 =, 14 = from epoch 7.
- 1112z-c/IOTVulD ``train_bert.py``: bars ``epoch: 2: 100%|...| 500/500 [..., index=499,
  loss=nan]`` (from 0) and the evaluation's bare bar; AMP006 1500 =; from epoch 1, 1500 ->
  2000 (strict xfail: the label does not say it counts from 0).
- 123abcbjs/sentiment-classifier ``train_bert.py``: HF ``Trainer`` (fp16) dicts, ``'loss':
  nan, 'grad_norm': nan``, the epoch's ``'eval_loss': nan``; AMP006 12, AMP013 20 = (training
  rows), also from the middle (the excerpt's rows).
- 25thDivision/KCS ``train_unet.py``: ``Epoch [6/20] Loss: nan | ECR: 0.00% | Acc: 91.23%``
  and ``>>> Early Stopping``; AMP006 6 =, 9 = from epoch 3.
- 315charlie-lzy/Medical-Image-Segmentation-of-Colorectal-Histopathology-Slices-Based-on-U-Net
  ``train_unet.py`` (KiU-Net): ``epoch [7/100], loss:nan`` (from 0), ``Fsc: 0.0`` ...; AMP006
  7 =, 23 = from epoch 14.
- 0zgur0/STAckable-Recurrent-network ``train_agent.py`` (TF1): ``pmnist_bn_8: Epoch 6/100  |
  best epoch: 6  |  epoch duration: 41.9`` over ``print_metrics``' columns (``   Train Loss
  Train Acc ...   Valid Loss ...`` over ``'{:13.4}'`` cells), then ``'!'*70`` and ``Nan loss
  value``; "nothing to diagnose" -> AMP006 7 (now AMP006 8, and 6 from epoch 2: strict xfail);
  healthy: "nothing to diagnose" -> silent.
- 1160528707/HF-SSIRNet ``train_rl.py`` (SCST) through its logger: ``01/05/2026 10:20:00 -
  INFO - __main__ -   [3/10] Step 300/500, loss=nan, rl=nan, ce=nan, reward=0.440, ...``;
  AMP006 1300 =; from epoch 2, 800 -> 1300 (strict xfail: the bracketed epoch is not read).
- 1505-Ak/trading-bot ``train_agent.py`` (RLlib PPO), a control only: ``  Episode reward mean:
  nan`` until an episode ends; "nothing to diagnose" (it prints no loss) =, no fault.

Healthy, with settings other than the defaults (27 excerpts, 8 of them pasted from the
middle): no false alarm on any, before or after; right on 25 before, 27 after (read without
error, silent; STAckable's table, twice, was "nothing to diagnose"; RLlib's twice prints no
loss: "nothing to diagnose" is its right answer).
Faulty (36 excerpts): right on 25 before, 29 after; the 7 left wrong are held by strict
xfails (open_stt, IOTVulD and HF-SSIRNet pasted from the middle, STAckable twice, pnp
twice). "Right": the
ids, and the step as the log prints it (an epoch, a step or batch counter, a bar's count, the
rows where it prints no step).

Fixed here, each by a rule of layout or wording:

- A line that opens with a bracketed extreme word (``[BEST] loss=4.6750``) is the best so far,
  no loss (``best_tags.best_tag_end`` through ``metric_pairs.tracked_from``).
- An epoch of how many with one note in parentheses and nothing after it (``Epoch 6/30
  (β=0.1667)``) is an epoch line over the rows below it (``reader._EPOCH_END``).
- A header row's one training column beside evaluation columns (``Train Loss ... Valid
  Loss``) makes it a header row (``metric_reader.header_cells``).
- A non-finite loss named alone on its line (``Nan loss value``) is the training loss gone
  non-finite (``nonfinite_sentences._BARE_LOSS``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def _bar(n: int, total: int | None, post: str = "", secs: int = 41) -> str:
    """A tqdm bar's last state (``{n}/{total}`` with its ``█`` run, or ``{n}it`` where the
    iterable has no length), ``post`` its postfix."""
    rate = f"{n / secs:5.2f}it/s"
    tail = f", {post}" if post else ""
    if total is None:
        return f"{n}it [00:{secs:02d}, {rate}{tail}]"
    return f"100%|██████████| {n}/{total} [00:{secs:02d}<00:00, {rate}{tail}]"


def malayalam(bad: int | None = None, epochs: int = 10, rows: int = 41870) -> list[str]:
    """007-Akira/malayalam-extractive-summarizer ``train_classifier.py``: its numbered stages
    (``f"1. Hardware Engine Activated: {device}"`` ...), then per epoch ``f"   Epoch
    {epoch+1}/{epochs} | Loss: {avg_loss:.4f} | Accuracy: {accuracy:.2f}%"``; ``bad`` is the
    (1-based) epoch."""
    out = ["1. Hardware Engine Activated: mps", "", "2. Loading Training Data...", "",
           "3. Loading LaBSE to extract features...",
           f"   Generating vectors for {rows} sentences on mps...",
           f"Batches: 100%|██████████| {rows // 64 + 1}/{rows // 64 + 1} [03:12<00:00,  3.41it/s]",
           "   Saved vectors to cache.", "", "4. Prepping PyTorch DataLoader...", "",
           "5. Initializing the Neural Network...", "",
           f"6. Beginning Training Loop ({epochs} Epochs)..."]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.52 - e / 100)
        acc = 50.0 if loss != loss else 71 + e / 2
        out.append(f"   Epoch {e}/{epochs} | Loss: {loss:.4f} | Accuracy: {acc:.2f}%")
    return [*out, "", "7. Saving the trained model...", "✅ Model Trained and Saved Successfully!"]


def egopose(bad: tuple[int, int] | None = None, first: int = 8, epochs: int = 18,
            batches: int = 300, lr: float = 3e-5) -> list[str]:
    """0merjavaid/Egocentric_3D_pose ``train_vae.py``: its log file
    (``logging.basicConfig(filename=..., format='%(message)s')``), every 10 batches
    ``f"Epoch: {epoch} Phase {phase}: loss = {loss.item()} Step = {i}"`` and ``f"l2 pose
    {p_loss.item()} hmp loss {hmp_loss.item()} hmp2 {hmp_emb_loss.item()}, KLD: {KLD} LR:
    {scheduler.get_last_lr()}"`` (``KLD`` a CUDA tensor, the rate a list); the epochs run from
    ``first`` (a resumed run), the step from 0 in each; ``bad`` is (epoch, step)."""
    out = []
    for e in range(first, epochs):
        rate = lr * 0.95 ** (e - first)
        for i in range(0, batches, 10):
            broken = bad is not None and (e, i) >= bad
            pose = NAN if broken else 0.00071 - i / 1e7
            hm = NAN if broken else 0.0123 - i / 1e6
            loss = pose + hm / 25
            kld = "nan" if broken else f"{1.5 - i / 1000:.4f}"
            out += [f"Epoch: {e} Phase train: loss = {loss!r} Step = {i}",
                    f"l2 pose {pose!r} hmp loss {hm!r} hmp2 {hm / 3!r}, KLD: tensor({kld}, "
                    f"device='cuda:0', grad_fn=<MeanBackward1>) LR: [{rate!r}]"]
    return out


def open_stt(bad: int | None = None, epochs: int = 4, batches: int = 2000, lr: float = 3e-4,
             valid: int = 300) -> list[str]:
    """1ytic/open_stt_e2e ``train_lm.py``: ``DataLoaderCuda`` wraps the loader's iterator in a
    ``tqdm`` (no length: ``{n}it``) described by ``'epoch %d lr %.6f %s %s' % (epoch + 1, lr,
    err, grd)``, each ``AverageMeter`` printing ``'%s %.4f\\u00B1%.2f'`` (a running mean: NaN
    for good once a batch is); the evaluation's bar ``'epoch %d %s'``; ``bad`` is the (1-based)
    epoch whose batches turn NaN."""
    out = []
    for e in range(1, epochs + 1):
        broken = bad is not None and e >= bad
        loss = "nan±nan" if broken else f"{4.2 - e / 10:.4f}±{0.5 - e / 100:.2f}"
        grad = "nan±nan" if broken else f"{0.9 - e / 50:.4f}±0.21"
        rate = lr * 0.99 ** (e * batches // 10000)
        out.append(f"epoch {e} lr {rate:.6f} loss {loss} gradient {grad}: "
                   + _bar(batches, None, secs=50))
        val = "nan±nan" if broken else f"{4.0 - e / 10:.4f}±0.30"
        out.append(f"epoch {e} loss {val}: " + _bar(valid, None, secs=9))
    return out


def lahari_lm(bad: int | None = None, epochs: int = 10, patience: int | None = None,
              secs: float = 38.2) -> list[str]:
    """21lahari/Neural-Language-Model-Training-PyTorch- ``train_lm.py``: per epoch ``f"Epoch
    {epoch:03d} | train_loss {t_loss:.4f} | val_loss {v_loss:.4f} | train_ppl
    {perplexity(t_loss):.3f} | val_ppl {perplexity(v_loss):.3f} | time {t_time:.1f}s"`` (the
    perplexity ``inf`` where the loss is not below 100: a NaN too), ``"Early stopping
    triggered."``, the test's line from the best checkpoint; ``bad`` is the (1-based) epoch."""
    def ppl(loss: float) -> float:
        return math.exp(loss) if loss < 100 else float("inf")

    out = []
    best = (1e9, 0)
    for e in range(1, epochs + 1):
        t = _loss(bad, e, 6.1 - e / 5)
        v = _loss(bad, e, 6.0 - e / 6)
        out.append(f"Epoch {e:03d} | train_loss {t:.4f} | val_loss {v:.4f} | train_ppl "
                   f"{ppl(t):.3f} | val_ppl {ppl(v):.3f} | time {secs + e / 10:.1f}s")
        if v < best[0]:
            best = (v, e)
        if (patience is not None and e - best[1] >= patience) or (v != v and e - best[1] >= 3):
            out.append("Early stopping triggered.")
            break
    return [*out, f"Test loss: {best[0] + 0.05:.4f} | Test perplexity: {ppl(best[0] + 0.05):.3f}",
            "Saved plots and model to runs/exp1", "Done."]


def chatgpt(bad: int | None = None, epochs: int = 3, batches: int = 40, start: int = 0
            ) -> list[str]:
    """02noDarling/Chatgpt ``train_gpt.py``: ``f'共加载{len(dataset)}条数据'``, a resumed
    ``f"iter:{iter}"``, every batch ``print(f"mean_loss:{mean_loss}")`` (a CPU tensor with its
    ``grad_fn``) and ``"权重已经保存成功"`` every 10th epoch; ``bad`` counts batches over the
    run (the rows printed)."""
    out = [f"共加载{batches * 8}条数据"]
    if start:
        out.append(f"iter:{start}")
    row = 0
    for e in range(start, start + epochs):
        for _ in range(batches):
            row += 1
            loss = _loss(bad, row, 6.2 - row / 100)
            out.append(f"mean_loss:tensor({loss:.4f}, grad_fn=<DivBackward0>)")
        if e % 10 == 0:
            out.append("权重已经保存成功")
    return out


def shinrai(bad: int | None = None, epochs: int = 20, vocab: int = 8192) -> list[str]:
    """0xbyteptr/shinrai ``train_gpt.py``: ``f"[INFO] Vocab size: {vocab_size} | Tokens:
    {len(tokenized_data)}"``, ``f"[INFO] Device: {device}"``, the epoch's bar left out
    (``leave=False``), per epoch ``f"Epoch {epoch}/{EPOCHS} | Avg Loss: {avg_loss:.4f} | LR:
    {lr:.2e}"`` and ``f"[BEST] loss={best_loss:.4f}"``; ``bad`` is the (1-based) epoch."""
    out = [f"[INFO] Vocab size: {vocab} | Tokens: 1843021", "[INFO] Device: cuda"]
    best = 1e9
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 5.3 - e / 8)
        out.append(f"Epoch {e}/{epochs} | Avg Loss: {loss:.4f} | LR: "
                   f"{3e-4 * (1 - e / (epochs + 1)):.2e}")
        if loss < best:
            best = loss
            out.append(f"[BEST] loss={best:.4f}")
    return [*out, "[INFO] Loss curve saved to loss_curve.png", "[DONE] Training complete"]


def latent_diffusion(bad: int | None = None, epochs: int = 100, batches: int = 250,
                     shown: int = 5) -> list[str]:
    """1644heihei/3D-VAE ``train_diffusion.py`` on the console: ``f"Training Diffusion Model on
    {n} latent pairs."``, per epoch the bar ``tqdm(train_loader, desc=f"Epoch
    {epoch+1}/{epochs}")`` with ``set_postfix({"Loss": loss.item()})``, ``f"Epoch {epoch+1}
    Summary: Train Loss={avg_loss:.6f}"`` and every 10th ``f"Saved checkpoint: {path}"``; the
    first ``shown`` epochs; ``bad`` is the (1-based) epoch."""
    out = [f"Training Diffusion Model on {batches * 64} latent pairs."]
    for e in range(1, shown + 1):
        loss = _loss(bad, e, 0.31 - e / 100)
        post = f"Loss={loss:.3g}" if loss == loss else "Loss=nan"
        out += [f"Epoch {e}/{epochs}: " + _bar(batches, batches, post),
                f"Epoch {e} Summary: Train Loss={loss:.6f}"]
        if e % 10 == 0:
            out.append(f"Saved checkpoint: ./checkpoint/diffusion/diffusion_epoch_{e}.pt")
    return out


def latent_diffusion_file(bad: int | None = None, epochs: int = 12, batches: int = 250,
                          every: int = 500) -> list[str]:
    """1644heihei/3D-VAE ``train_diffusion.py``'s ``train_diffusion_log.txt``: every 500 steps
    ``f"Epoch {epoch+1}, Step {step}: Loss={loss.item():.6f}\\n"``; ``bad`` counts steps."""
    out = []
    step = 0
    for e in range(1, epochs + 1):
        for _ in range(batches):
            step += 1
            if step % every == 0:
                out.append(f"Epoch {e}, Step {step}: Loss={_loss(bad, step, 0.3 - step / 1e5):.6f}")
    return out


def pointnet(bad: int | None = None, epochs: int = 3, steps: int = 500, every: int = 10,
             total: int = 200, valid: int = 125) -> list[str]:
    """1991yuyang/pointnet ``train_seg.py``: ``"class name:"``, the class count, every
    ``print_loss_iou_every_step`` steps ``"epoch:%d/%d, step:%d/%d, train_loss:%.5f,
    train_iou:%.5f"``, the validation's bar, ``"#################valid epoch:%d/%d
    result#################"``, ``"valid_loss:%.5f, valid_iou:%.5f"`` and the saving lines;
    ``bad`` counts steps over the run."""
    out = ["class name: Guitar", "class number of Guitar segmentation:3"]
    g = 0
    best = 1e9
    for e in range(1, epochs + 1):
        for s in range(1, steps + 1):
            g += 1
            if s % every == 0:
                loss = _loss(bad, g, 0.4 - g / 1e4)
                iou = 0.3 if loss != loss else 0.6 + g / 1e4
                out.append(f"epoch:{e}/{total}, step:{s}/{steps}, train_loss:{loss:.5f}, "
                           f"train_iou:{iou:.5f}")
        broken = bad is not None and g >= bad
        v = NAN if broken else 0.35 - e / 100
        out += ["validation: " + _bar(valid, valid, secs=12),
                f"#################valid epoch:{e}/{total} result#################",
                f"valid_loss:{v:.5f}, valid_iou:{0.3 if broken else 0.7 + e / 100:.5f}"]
        if v < best:
            best = v
            out.append("saving best model.......")
        out.append("saving epoch model.......")
    return out


def siamese_seg(bad: int | None = None, epochs: int = 30, secs: float = 12.3) -> list[str]:
    """278261631/SiameseNetwork_fits_diff ``train_seg.py``: per epoch ``f"[{epoch:03d}/
    {args.epochs}] loss={train_loss:.4f} val_pixel_acc={val_pixel:.3f} val_mIoU={val_miou:.3f}
    ({dt:.1f}s)"``, then ``f"训练完成。best={best_path} last={last_path}"``; ``bad`` is the
    (1-based) epoch (the NaN logits' argmax is class 0: the scores stay finite)."""
    out = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.9 - e / 50)
        pix = 0.612 if loss != loss else 0.8 + e / 200
        miou = 0.204 if loss != loss else 0.4 + e / 100
        out.append(f"[{e:03d}/{epochs}] loss={loss:.4f} val_pixel_acc={pix:.3f} "
                   f"val_mIoU={miou:.3f} ({secs + e / 10:.1f}s)")
    return [*out, "训练完成。best=runs/siamese_unet/best.pt last=runs/siamese_unet/last.pt"]


def iotvuld(bad: int | None = None, epochs: int = 5, batches: int = 500, dev: int = 60
            ) -> list[str]:
    """1112z-c/IOTVulD ``train_bert.py`` (``BERTTrainer``): per epoch the bar described
    ``f'epoch: {epoch}'`` (from 0) with ``set_postfix(index=i, loss=loss.sum().item())``
    (tqdm's ``format_num``: three significant digits), and the evaluation's bare bar (its
    ``logger.info`` lines unshown: the root logger is left at WARNING); ``bad`` is the epoch
    (from 0)."""
    out = []
    for e in range(epochs):
        loss = _loss(bad, e, 0.61 - e / 20)
        shown = "nan" if loss != loss else f"{loss:.3g}"
        out += [f"epoch: {e}: " + _bar(batches, batches, f"index={batches - 1}, loss={shown}",
                                       secs=55),
                _bar(dev, dev, secs=6)]
    return out


def kcs_unet(bad: int | None = None, epochs: int = 20, patience: int = 3, distance: int = 3
             ) -> list[str]:
    """25thDivision/KCS ``train_unet.py``: ``f"=== {MODEL_NAME} Training (d={DISTANCE},
    p={ERROR_RATE}) ==="``, the checkpoint line, ``f">>> 학습 시작 ({start_epoch+1} ~
    {MAX_EPOCHS})..."``, per epoch ``f"Epoch [{epoch+1}/{MAX_EPOCHS}] Loss: {train_loss:.4f} |
    ECR: {val_ecr:.2%} | Acc: {val_acc:.2%}"``, ``f"    -> 👑 Best ECR Updated:
    {best_ecr:.2%}"`` or, after ``PATIENCE`` epochs without, ``">>> Early Stopping"`` (the
    training bars ``leave=False``); ``bad`` is the (1-based) epoch (NaN logits: no bit
    flagged, ECR 0)."""
    out = [f"=== UNet Training (d={distance}, p=0.05) ===",
           ">>> 🆕 체크포인트 없음. 새로 시작합니다.", f">>> 학습 시작 (1 ~ {epochs})..."]
    best, waited = 0.0, 0
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.52 - e / 100)
        ecr = 0.0 if loss != loss else min(0.99, 0.8 + e / 100)
        acc = 0.9123 if loss != loss else 0.95 + e / 1000
        out.append(f"Epoch [{e}/{epochs}] Loss: {loss:.4f} | ECR: {ecr:.2%} | Acc: {acc:.2%}")
        if ecr > best:
            best, waited = ecr, 0
            out.append(f"    -> 👑 Best ECR Updated: {best:.2%}")
        else:
            waited += 1
            if waited >= patience:
                out.append(">>> Early Stopping")
                break
    return [*out, "", ">>> 📝 결과 저장 완료: test_results/benchmark_results_UNet.csv"]


def stackable(bad: int | None = None, epochs: int = 100, name: str = "pmnist_bn_8",
              lr: float = 1e-3) -> list[str]:
    """0zgur0/STAckable-Recurrent-network ``train_agent.py`` (TF1): ``"Training model ..."``,
    ``print('Learning rate: ', learning_rate)`` (and its tenth every 50 epochs), per epoch a
    blank line, ``args.name + ": Epoch {}/{}  |  best epoch: {}  |  epoch duration: {:.1f}"``
    (from 0) and ``print_metrics``' columns (``tags[i].rjust(13)`` over ``'{:13.4}'``); a NaN
    batch loss prints ``'!'*70`` and ``'Nan loss value'`` and exits; ``bad`` is the epoch
    (from 0) whose batch turns NaN."""
    tags = ["Train Loss", "Train Acc", "Train F1", "Valid Loss", "Valid Acc", "Valid F1"]
    out = ["Training model ...", f"Learning rate:  {lr}"]
    best = 0
    for e in range(epochs):
        if e % 50 == 0 and e > 1:
            lr /= 10.
            out.append(f"Learning rate:  {lr}")
        if bad is not None and e >= bad:
            return [*out, "!" * 70, "Nan loss value"]
        values = [0.9 - e / 200, 0.7 + e / 400, 0.69 + e / 400, 0.92 - e / 210, 0.69 + e / 400,
                  0.68 + e / 400]
        best = e
        out += ["", f"{name}: Epoch {e}/{epochs}  |  best epoch: {best}  |  epoch duration: "
                f"{41.3 + e / 10:.1f}", "".join(t.rjust(13) for t in tags),
                "".join(f"{v:13.4}" for v in values)]
    return out


def rllib_trader(iterations: int = 10, unfinished: int = 2, freq: int = 5) -> list[str]:
    """1505-Ak/trading-bot ``train_agent.py`` (RLlib PPO): its banner lines, per iteration
    ``f"--- Iteration {i + 1}/{N_TRAINING_ITERATIONS} ---"``, ``f"  Episode reward mean:
    {result.get('episode_reward_mean', 'N/A')}"`` and the length's, the checkpoint lines; RLlib
    reports ``nan`` means while no episode has ended (the first ``unfinished`` iterations):
    a healthy run."""
    out = ["Initializing Ray...", "Using existing training data from: market_data_train.csv",
           "Environment 'TradingEnv-v0' registered with RLlib.",
           "Initializing Trading Agent (PPO)...", "Agent initialized. Using PPO with framework: "
           "torch", "Training on data with 475 steps.", "Starting training loop..."]
    for i in range(1, iterations + 1):
        done = i > unfinished
        out += [f"--- Iteration {i}/{iterations} ---",
                f"  Episode reward mean: {(-120.5 + i * 31.25) if done else NAN}",
                f"  Episode length mean: {464.0 if done else NAN}"]
        if i % freq == 0 or i == iterations:
            out.append(f"  Checkpoint saved at: ./rllib_checkpoints/checkpoint_{i:06d}")
    return [*out, "", "Training finished.", "Final agent checkpoint saved at: "
            f"./rllib_checkpoints/checkpoint_{iterations:06d}", "Shutting down Ray...", "Done."]


def mimic_edema(bad: int | None = None, epochs: int = 15, batches: int = 59, valid: int = 15
                ) -> list[str]:
    """1-jun/pnp ``train_classifier.py``: the two ``tabulate`` 2x2 tables, ``f"Training set:
    {n}"``, then per epoch the training bar (``set_postfix(loss=loss.item())``) and the
    validation's, ``f"Epoch: {epoch}"`` (from 0), ``f"Train loss: {train_loss:.4f} Train_acc:
    {train_acc:.4f}"``, ``f"Valid loss: {valid_loss:.4f} Valid_acc: {valid_acc:.4f}"``; ``bad``
    is the epoch (from 0)."""
    out = ["2x2 table for train_df", "------------------  -----------  -----------",
           "                    Edema(+)     Edema(-)", "Cardiac Devices(+)  937          0",
           "Cardiac Devices(-)  0            937", "------------------  -----------  -----------",
           "", f"Training set: {batches * 32}", f"Validation set: {valid * 32}"]
    for e in range(epochs):
        loss = _loss(bad, e, 0.69 - e / 40)
        shown = "nan" if loss != loss else f"{loss - 0.02:.3g}"
        acc = 0.5 if loss != loss else 0.55 + e / 50
        out += [_bar(batches, batches, f"loss={shown}", secs=30), _bar(valid, valid, secs=6),
                f"Epoch: {e}", f"Train loss: {loss:.4f} Train_acc: {acc:.4f}",
                f"Valid loss: {loss * 1.05:.4f} Valid_acc: {acc - 0.02:.4f}"]
    return out


def traffic_vae(bad: int | None = None, epochs: int = 30, patience: int = 15, beta: float = 0.5,
                warmup: int = 15) -> list[str]:
    """1Huy2409/network-traffic-prediction ``train_vae.py`` (``GradScaler``, ``autocast``):
    ``VAETrainer.train``'s banner (``f'Device: {self.device}'``, ``f'AMP: {self.use_amp}'``
    ...), per epoch ``f"Epoch {epoch+1}/{epochs} (β={beta_now:.4f})"``, ``f"  Train - Loss:
    {loss:.6f}, Recon: ..., KL: ..., Pred: ..."``, the ``  Val   - Loss: ...`` line, ``f"  LR:
    {current_lr:.6f}"``, ``"  ✓ Best model saved!"`` and a blank line; ``bad`` is the
    (1-based) epoch whose autocast forward overflows: the training loss is NaN, GradScaler
    skips the steps, the validation (fp32) stays finite."""
    out = ["", "=" * 60, "STAGE 1: Pre-training Encoder+Decoder", "=" * 60, "Device: cuda",
           "AMP: True", f"Epochs: {epochs}, Patience: {patience}",
           "Focus: Learning latent representation (recon + KL loss)",
           f"Beta (KL weight): {beta} (warmup: {warmup} epochs)", "=" * 60, ""]
    best, waited = 1e9, 0
    for e in range(1, epochs + 1):
        b = min(beta, beta * (e - 1) / max(1, warmup))
        recon = _loss(bad, e, 0.08 - e / 1000)
        kl = _loss(bad, e, 0.5 - e / 100)
        val = 0.0812 - (min(e, bad) if bad else e) / 1000
        out += [f"Epoch {e}/{epochs} (β={b:.4f})",
                f"  Train - Loss: {recon + b * kl:.6f}, Recon: {recon:.6f}, KL: {kl:.6f}, "
                f"Pred: {0.9 - e / 100 if recon == recon else NAN:.6f}",
                f"  Val   - Loss: {val:.6f}, Recon: {val - 0.001:.6f}, KL: 0.412000, "
                "Pred: 0.870000", "  LR: 0.001000"]
        if val < best:
            best, waited = val, 0
            out.append("  ✓ Best model saved!")
        else:
            waited += 1
            if waited >= patience:
                out += ["", f"✓ Early stopping at epoch {e}"]
                break
        out.append("")
    return out


def hf_sentiment(bad: int | None = None, epochs: int = 3, steps: int = 200, every: int = 20,
                 lr: float = 2e-5) -> list[str]:
    """123abcbjs/sentiment-classifier ``train_bert.py``: HF ``Trainer`` (``fp16`` on CUDA,
    ``logging_steps=20``, ``eval_strategy="epoch"``): ``f"CUDA available: ..."``, the
    training dicts (``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}``),
    each epoch's evaluation dict, the summary, then ``f"Accuracy: {...:.4f}"``; ``bad``
    counts optimizer steps."""
    out = ["CUDA available: True"]
    total = epochs * steps
    for s in range(every, total + 1, every):
        loss = _loss(bad, s, 1.38 - s / (total * 1.5))
        norm = "nan" if loss != loss else f"{3.1 - s / total:.4f}"
        out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {norm}, 'learning_rate': "
                   f"{lr * (1 - s / total):.4e}, 'epoch': {s / steps:.2f}}}")
        if s % steps == 0:
            broken = bad is not None and s >= bad
            val = "nan" if broken else f"{0.95 - s / (total * 2):.4f}"
            out.append(f"{{'eval_loss': {val}, 'eval_accuracy': "
                       f"{0.25 if broken else 0.6 + s / total / 5:.4f}, 'eval_macro_f1': "
                       f"{0.1 if broken else 0.55 + s / total / 5:.4f}, 'eval_runtime': 3.21, "
                       "'eval_samples_per_second': 311.5, 'eval_steps_per_second': 9.7, "
                       f"'epoch': {s / steps:.1f}}}")
    return [*out, f"{{'train_runtime': 301.2, 'train_samples_per_second': 31.9, "
            f"'train_steps_per_second': {total / 301.2:.3f}, 'train_loss': 0.9, 'epoch': "
            f"{float(epochs)}}}", "Accuracy: 0.7012", "Macro-F1: 0.6788"]


def kiunet(bad: int | None = None, epochs: int = 100, save_freq: int = 5, params: int = 293732
           ) -> list[str]:
    """315charlie-lzy/Medical-Image-Segmentation-of-Colorectal-Histopathology-Slices-Based-on-
    U-Net ``train_unet.py`` (KiU-Net's loop): ``"Total_params: {}"``, ``"start training"``,
    per epoch ``'epoch [{}/{}], loss:{:.4f}'`` (from 0), every ``save_freq`` epochs
    ``print("Fsc:", ...)``, ``"MIU:"``, ``"PA:"`` and, where the F1 improved, ``'epoch:'`` and
    ``"bestdice = {}"``; ``bad`` is the epoch (from 0) (NaN outputs: nothing predicted, the
    scores at their floor)."""
    out = [f"Total_params: {params}", "start training"]
    best = 0.0
    for e in range(epochs):
        loss = _loss(bad, e, 0.61 - e / 300)
        out.append(f"epoch [{e}/{epochs}], loss:{loss:.4f}")
        if e % save_freq == 0 or e == epochs - 1:
            f1 = 0.0 if loss != loss else 0.52 + e / 400
            out += [f"Fsc: {f1}", f"MIU: {f1 * 0.8}", f"PA: {0.61 if loss != loss else 0.9}"]
            if best < f1:
                best = f1
                out += [f"epoch: {e}", f"bestdice = {best}"]
    return out


def ssir_rl(bad: int | None = None, epochs: int = 10, steps: int = 500, every: int = 50,
            ce: float = 0.5) -> list[str]:
    """1160528707/HF-SSIRNet ``train_rl.py`` (SCST fine-tuning) through its logger
    (``'%(asctime)s - %(levelname)s - %(name)s -   %(message)s'``): ``'[{}/{}] RL fine-tuning
    on train set.'``, every ``log_period`` batches ``'[{}/{}] Step {}/{}, loss={:.4f},
    rl={:.4f}, ce={:.4f}, reward={:.3f}, baseline={:.3f}, all_hit={:.3f}'`` (running means
    over the epoch's batches, the batch from 0: NaN for good once one is); ``bad`` counts
    batches over the run (from 0)."""
    def log(msg: str) -> str:
        return f"01/05/2026 10:{len(out) % 60:02d}:00 - INFO - __main__ -   {msg}"
    out: list[str] = []
    for e in range(1, epochs + 1):
        out.append(log(f"[{e}/{epochs}] RL fine-tuning on train set."))
        broken = False
        for b in range(0, steps, every):
            broken = broken or (bad is not None and (e - 1) * steps + b >= bad)
            rl = NAN if broken else -0.02 + b / 1e5
            ce_loss = NAN if broken else 1.9 - e / 20
            out.append(log(f"[{e}/{epochs}] Step {b}/{steps}, loss={rl + ce * ce_loss:.4f}, "
                           f"rl={rl:.4f}, ce={ce_loss:.4f}, reward={0.41 + e / 100:.3f}, "
                           f"baseline={0.4 + e / 100:.3f}, all_hit={0.12:.3f}"))
    return out

# -- the excerpts and their right answers -----------------------------------------------------

Excerpt = tuple[Callable[[], list[str]], list[tuple[str, int | None]]]

# Faulty excerpts the parent (3e9872d) read wrong: fixed here (name -> (build, right answer)).
FIXED: dict[str, Excerpt] = {
    "shinrai": (lambda: shinrai(6), [("AMP006", 6)]),
    "shinrai_from_epoch_5": (lambda: shinrai(9)[2 + 4 * 2:], [("AMP006", 9)]),
    "traffic_vae": (lambda: traffic_vae(6), [("AMP006", 6)]),
    "traffic_vae_from_epoch_5": (lambda: traffic_vae(12)[11 + 4 * 6:], [("AMP006", 12)]),
    # epoch 3's batch 300 of 500 (from 0), pasted from epoch 2's batch 150: a strict xfail
    # until h51-steps51 (epoch_brackets: ``[2/10] Step 150/500`` reads the bracket's epoch)
    "ssir_rl_from_epoch_2": (lambda: ssir_rl(1300)[15:], [("AMP006", 2 * 500 + 300)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, Excerpt] = {
    "malayalam": (lambda: malayalam(4), [("AMP006", 4)]),
    "malayalam_from_epoch_4": (lambda: malayalam(7, epochs=12)[14 + 3:], [("AMP006", 7)]),
    # the step counts from 0 in each epoch, which prints no length: the step printed
    "egopose": (lambda: egopose((8, 120)), [("AMP006", 120)]),
    "egopose_from_epoch_10": (lambda: egopose((10, 60))[2 * 30 * 2 + 10:], [("AMP006", 60)]),
    # (the evaluation's bar names no phase: read as the training's, after it)
    "open_stt": (lambda: open_stt(3), [("AMP006", 3 * 2000)]),
    "lahari_lm": (lambda: lahari_lm(4), [("AMP006", 4), ("AMP013", 4)]),
    "lahari_lm_from_epoch_4": (lambda: lahari_lm(7, epochs=12)[3:],
                               [("AMP006", 7), ("AMP013", 7)]),
    # a tensor printed every batch, no step: the rows, in the excerpt pasted
    "chatgpt": (lambda: chatgpt(57), [("AMP006", 57)]),
    "chatgpt_from_the_middle": (lambda: chatgpt(57)[30:], [("AMP006", 57 - 29)]),
    "latent_diffusion": (lambda: latent_diffusion(3), [("AMP006", 3 * 250)]),
    "latent_diffusion_from_epoch_2": (lambda: latent_diffusion(4, shown=6)[3:],
                                      [("AMP006", 4 * 250)]),
    "latent_diffusion_file": (lambda: latent_diffusion_file(1600), [("AMP006", 2000)]),
    "latent_diffusion_file_from_the_middle": (lambda: latent_diffusion_file(1600)[2:],
                                              [("AMP006", 2000)]),
    "pointnet": (lambda: pointnet(760), [("AMP006", 760), ("AMP013", 1000)]),
    "pointnet_from_the_middle": (lambda: pointnet(760)[40:], [("AMP006", 760), ("AMP013", 1000)]),
    "siamese_seg": (lambda: siamese_seg(5), [("AMP006", 5)]),
    "siamese_seg_from_epoch_7": (lambda: siamese_seg(14)[6:], [("AMP006", 14)]),
    "iotvuld": (lambda: iotvuld(2), [("AMP006", 3 * 500)]),
    "kcs_unet": (lambda: kcs_unet(6), [("AMP006", 6)]),
    "kcs_unet_from_epoch_3": (lambda: kcs_unet(9)[5:], [("AMP006", 9)]),
    # HF dicts print no step: the training rows, in the excerpt pasted
    "hf_sentiment": (lambda: hf_sentiment(230), [("AMP006", 12), ("AMP013", 20)]),
    "hf_sentiment_from_the_middle": (lambda: hf_sentiment(430)[12:],
                                     [("AMP006", 12), ("AMP013", 20)]),
    "kiunet": (lambda: kiunet(7), [("AMP006", 7)]),
    "kiunet_from_epoch_14": (lambda: kiunet(23)[2 + 14:], [("AMP006", 23)]),
    # ``[3/10] Step 300/500``: the epochs before it and the step, the batch counted from 0
    "ssir_rl": (lambda: ssir_rl(1300), [("AMP006", 2 * 500 + 300)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "malayalam": lambda: malayalam(epochs=25, rows=9000),
    "malayalam_from_epoch_9": lambda: malayalam(epochs=25, rows=9000)[14 + 8:],
    "egopose": lambda: egopose(first=3, epochs=9, batches=200, lr=1e-4),
    "open_stt": lambda: open_stt(epochs=9, batches=1500, lr=1e-3),
    "lahari_lm": lambda: lahari_lm(epochs=15, patience=3, secs=12.0),
    "chatgpt": lambda: chatgpt(epochs=4, batches=25, start=10),
    "shinrai": lambda: shinrai(epochs=30, vocab=32000),
    "latent_diffusion": lambda: latent_diffusion(epochs=50, batches=120, shown=12),
    "latent_diffusion_file": lambda: latent_diffusion_file(epochs=20, batches=400),
    "pointnet": lambda: pointnet(epochs=5, steps=300, every=20, total=60),
    "pointnet_from_the_middle": lambda: pointnet(epochs=5, steps=300, every=20, total=60)[30:],
    "siamese_seg": lambda: siamese_seg(epochs=12, secs=3.1),
    "iotvuld": lambda: iotvuld(epochs=8, batches=320, dev=40),
    "kcs_unet": lambda: kcs_unet(epochs=30, patience=5, distance=5),
    "mimic_edema": lambda: mimic_edema(epochs=20, batches=40, valid=10),
    "traffic_vae": lambda: traffic_vae(epochs=40, patience=5, beta=1.5, warmup=10),
    "traffic_vae_from_epoch_5": lambda: traffic_vae(epochs=40, patience=5, beta=1.5,
                                                    warmup=10)[11 + 4 * 6:],
    "hf_sentiment": lambda: hf_sentiment(epochs=4, steps=150, every=25, lr=5e-5),
    "hf_sentiment_from_the_middle": lambda: hf_sentiment(epochs=4, steps=150, every=25,
                                                         lr=5e-5)[9:],
    "kiunet": lambda: kiunet(epochs=60, save_freq=10, params=1000000),
    "kiunet_from_epoch_20": lambda: kiunet(epochs=60, save_freq=10, params=1000000)[22:],
    "ssir_rl": lambda: ssir_rl(epochs=6, steps=300, every=25, ce=0.0),
    "ssir_rl_from_epoch_2": lambda: ssir_rl(epochs=6, steps=300, every=25, ce=0.0)[20:],
}

# Healthy runs the parent could not read ("nothing to diagnose", an error): read now, silent.
READ_NOW: dict[str, Callable[[], list[str]]] = {
    "stackable": lambda: stackable(epochs=120, name="add_lstm", lr=1e-2),
    "stackable_from_epoch_30": lambda: stackable(epochs=120, name="add_lstm", lr=1e-2)[2 + 30 * 4:],
}


# Every excerpt with its right answer (a healthy one's: silence), keyed by its group.
CASES: dict[str, Excerpt] = {
    **{f"fixed/{name}": case for name, case in FIXED.items()},
    **{f"read_already/{name}": case for name, case in READ_ALREADY.items()},
    **{f"healthy/{name}": (build, []) for name, build in HEALTHY.items()},
    **{f"read_now/{name}": (build, []) for name, build in READ_NOW.items()},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The ids and steps of each excerpt, read without error: ``fixed/`` the parent (3e9872d)
    read wrong (its answers in the module's table), ``read_already/`` it read right (guards),
    ``healthy/`` silent on the parent too (controls), ``read_now/`` healthy tables the parent
    could not read ("nothing to diagnose"): STAckable's ``print_metrics``."""
    build, right = CASES[name]
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("cut", [0, 7])
def test_rllib_means_not_yet_measured_are_no_fault(tmp_path: Path, cut: int) -> None:
    """A control: RLlib's ``nan`` reward and length means before any episode ended are no
    fault; the run prints no loss, so the doctor has nothing to diagnose, and says so."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(rllib_trader(iterations=20, unfinished=3)[cut:]) + "\n",
                    encoding="utf-8")
    result = diagnose(str(path))
    assert result.faults == []
    assert result.error is not None and "nothing to diagnose" in result.error


def test_a_best_tag_reads_no_loss(tmp_path: Path) -> None:
    """A control of the best-tag rule: a tag that names no extreme (``[X] loss=...`` under
    each epoch line) is read as a loss as before, a second stream (the parent's rows); a
    ``best`` spelled without brackets is the lexicon's extreme already."""
    lines = shinrai(6)
    assert faults(tmp_path, [line.replace("[BEST]", "[X]") for line in lines]) == [("AMP006", 11)]
    assert faults(tmp_path, [line.replace("[BEST]", "BEST") for line in lines]) == [("AMP006", 6)]


def test_an_epoch_with_more_than_a_note_heads_nothing(tmp_path: Path) -> None:
    """A control of the epoch-with-a-note rule: ``Epoch 6/30 (β=0.1667) lr 0.001`` goes on
    after its note, so it is no epoch line, and the banner's ``Epochs: 30, Patience: 15``
    numbers the rows below as on the parent (30 on)."""
    lines = [line + " lr 0.001" if line.startswith("Epoch ") else line
             for line in traffic_vae(6)]
    assert faults(tmp_path, lines) == [("AMP006", 35)]


def test_a_sentence_of_a_nan_loss_value_alone(tmp_path: Path) -> None:
    """``Nan loss value`` alone on its line, after the table's rows, is the training loss
    gone NaN; the same words inside a longer line (a column, a setting) are not."""
    assert [code for code, _ in faults(tmp_path, stackable(7))] == ["AMP006"]
    healthy = stackable(epochs=12)
    assert faults(tmp_path, [*healthy, "nan loss values: 0"]) == []


def _left(name: str, build: Callable[[], list[str]], right: list[tuple[str, int | None]],
          reason: str) -> object:
    """An excerpt the doctor still reads wrong, with its right answer: a strict xfail."""
    return pytest.param(build, right, id=name,
                        marks=pytest.mark.xfail(strict=True, reason="not fixed here: " + reason))


_BAR_BASE = ("a bar's label that names its epoch without the count of epochs (``epoch 5 lr "
             "...``, ``epoch: 3``) does not say whether it counts from 0 or 1 (open_stt's from 1, "
             "iotvuld's from 0): an excerpt pasted from the middle counts its bars from its "
             "start (6000, 1500)")
_TABLE_EPOCH = ("the epoch line over the table goes on after its epoch (``pmnist_bn_8: Epoch "
                "6/100  |  best epoch: 6  |  epoch duration: 41.9``), so the table's rows are "
                "counted (the sentence after the seventh: 8; pasted from epoch 2: 6)")
_UNLABELLED = ("the training bar's NaN reads at its count (295), the ``Valid loss: nan`` line "
               "after ``Epoch: 4`` one row later (296); pasted from epoch 3, the unlabelled bars "
               "count from the excerpt's start (413, 414) though ``Epoch: 9`` is printed under "
               "them")

# Faulty excerpts read wrong before and after, each with its right answer.
LEFT = [
    # epoch 5 (from 1) of 2000 batches, pasted from epoch 3
    _left("open_stt_from_epoch_3", lambda: open_stt(5, epochs=8)[4:], [("AMP006", 5 * 2000)],
          _BAR_BASE),
    # epoch 3 (from 0) of 500 batches, pasted from epoch 1
    _left("iotvuld_from_epoch_1", lambda: iotvuld(3)[2:], [("AMP006", 4 * 500)], _BAR_BASE),
    # the epoch (from 0) after the last one printed
    _left("stackable", lambda: stackable(7), [("AMP006", 7)], _TABLE_EPOCH),
    _left("stackable_from_epoch_2", lambda: stackable(7)[2 + 2 * 4:], [("AMP006", 7)],
          _TABLE_EPOCH),
    # the NaN epoch's bar count from the start (59 batches, epochs from 0), the evaluation's
    # NaN at the same step
    _left("mimic_edema", lambda: mimic_edema(4), [("AMP006", 5 * 59), ("AMP013", 5 * 59)],
          _UNLABELLED),
    _left("mimic_edema_from_epoch_3", lambda: mimic_edema(9)[9 + 3 * 5:],
          [("AMP006", 10 * 59), ("AMP013", 10 * 59)], _UNLABELLED),
]


@pytest.mark.parametrize(("build", "right"), LEFT)
def test_left_wrong(tmp_path: Path, build: Callable[[], list[str]],
                    right: list[tuple[str, int | None]]) -> None:
    """The right answers the doctor does not give yet (strict xfails)."""
    assert faults(tmp_path, build()) == right
