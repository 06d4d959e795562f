"""A thirteenth random sample of training scripts from public repositories, read as the
held-out measure of #27 reads, at first sight (the doctor as it is at 0d43ce6): 10 scripts (a
numpy MLP, an MAE-style peptide generator, a Qwen2.5 fine-tune under the HF Trainer, a
MaskFormer under detectron2, a news-and-prices CLIP, a GNN surrogate and explainer, a BERT
GlobalPointer, a TF CTC speech recogniser, a VQ-VAE, a BERT intent and slot tagger), drawn
from the code index's listing of ``trainer.py``, ``engine.py``, ``solver.py``,
``train_net.py``, ``finetune.py``, ``pretrain.py``, ``train_model.py``, ``train_main.py``,
``learner.py`` and ``tools/train.py`` in the order it gives them. Skipped, and why: those
named in tests/logs already (000994/PDG, 02alexander/autocar, 0417keito/JEN-1-pytorch
``trainer.py``; 006jawad/EFT-LR ``finetune.py``; 00-Abhishek/roberta-from-scratch,
072jiajia/SampleNet-Experiment ``pretrain.py``; 01057150/project, 106-/DBM-tensorflow
``train_main.py``; 01-lzx-05/GeoFracture ``tools/train.py``), those that train nothing or
print no loss (0-Aurea/Project-Auto-BETA ``trainer.py``: a stub; 000aar0n/AARON-1: an RL
pair game printing accuracy; 0-chris2pher-0/CATDS ``engine.py``: a scheduling app;
00dhkim/semantle-ko-solver: a word game; 00dbgpdnjs/Real-time_stt ``finetune.py``: stubs,
it prints its dataset; 01xianyi/HRCH ``finetune.py``: a checkpoint loader; 041028/gpt2
``trainer.py``: minGPT's, it prints nothing itself; 1490780232/Face-recognition-on-video
``train_main.py``: an SVM on embeddings; 100th/AjouStock, 116014/countOR ``learner.py``:
imports only, constraint learning), those passed over by their names as apps or tabular
models without reading (0000111scm/Project-Universe-, 000krouli/Labarabot-1,
001453/autopublishernews ``engine.py``; 0-0Dibakar/Breast_Cancer_Detection_ML and the
``train_model.py`` rows before 01-vyom; 0xzein-eth/crypto-strategy-lab ``learner.py``) and
those not read in time (0417keito/JEN-1-COMPOSER-pytorch (its author's JEN-1 is named),
0417keito/UTAUTAI, 0425Ning/AdvTabDDPM ``trainer.py``; 106-/Deep-Boltzmann-Machine
``train_main.py``; 0Miquel/OpenPCDet-video-surveillance and 0Miquel/Pytorch-project-template
``tools/train.py``: they hand over to code elsewhere).

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring): a healthy run with settings other than the defaults,
and a faulty one (a NaN loss from step N, or at epoch E where the script prints per epoch),
pasted from the start and from the middle. None prints a loss scale.

Each script as repository ``file``: the format; the doctor's answer at first sight (0d43ce6)
-> the right one ("=": the same):

- 09rohanchopra/MLP ``solver.py`` (a neural-network course's numpy solver, copied widely):
  ``Epoch [3][20]\t Batch [150][550]\t Training Loss nan\t Accuracy ...`` (each count's total
  in a bracket of its own; epochs and batches from 0), ``Epoch [3]\t Average validation loss
  nan ...``; AMP006 80, AMP013 3 -> AMP006 1800, AMP013 2150 (the validation at the last row
  read); from the middle 20, 20 -> 4200, 4350. Fixed here from the start for the training
  NaN (1800: ``Key [i][N]`` read as a count and its total); the validation's step (3: the
  epoch of its summary line) and the from-the-middle epochs (counted from 1: 3650) are left
  (strict xfails).
- 007whoami/DualFlow-AMP ``engine.py`` (MAE's loop, its own ``util/misc.py`` MetricLogger):
  ``Epoch: [2]  [120/312]  eta: ...  lr: 0.000150  loss: 0.4123 (0.4567)  ...``, then ``Loss
  is nan, stopping training``; AMP006 745 = (one step after the last row); from the middle
  (the paste opens in epoch 1) 665 -> 977: its epochs were counted from 1. Fixed here: the
  MetricLogger headed ``Epoch: [E]`` counts its epochs from 0 (``LOGGER_EPOCH``).
- 01xianyi/Qwen2.5-3B-ChID- ``trainer.py`` (HF Trainer subclass, fp16): ``Step 130, Loss:
  nan`` beside ``{'loss': nan, 'grad_norm': nan, ...}``; AMP006 130 =; 620 = from the middle.
- 1106HaNa/PagSeg ``train_net.py`` (detectron2 ``DefaultTrainer``): ``CommonMetricPrinter``
  rows, then ``FloatingPointError: Loss became infinite or NaN at iteration=1234!``; AMP006
  1234 =; 1777 = from the middle.
- 030helios/MS-swing ``finetune.py``: a bar an epoch (``Epoch: 7: 100%|...| 52/52 [...,
  Epoch=7, Loss=nan]``) and its ``[Eval]`` bar; AMP006 416, AMP013 416 = (counted in
  batches to the bar's end); from the middle 884, 884 -> 1248, 1248 (strict xfail).
- 0lai0/RCAEval ``pretrain.py``: ``Surrogate Epoch 12/100 | Loss: ... | LR: 1.00e-03 | Best:
  ...``, then ``Explainer Epoch 40/150 | Loss: nan | ...`` counted from 1 again; AMP006 141
  -> 40 (strict xfail: counters that restart); from the middle (phase 2 only) 90 =.
- 02hyc/CIMD ``trainer.py``: ``10:17:21 Epoch: 3/10, Batch: 201/500, loss: nan, precision:
  ..., f1:..., lr: 2e-05`` (a running mean); AMP006 1201 =; 3101 = from the middle.
- 01-vyom/End_2_End_Automatic_Speech_Recognition_For_Gujarati ``train_model.py`` (TF 2):
  ``Epoch: 11,Train Loss: tf.Tensor(21.07, shape=(), dtype=float32), Val Loss: ...``, the
  NaN epoch never printed: ``int(loss)`` raises ``ValueError: cannot convert float NaN to
  integer``; silent -> AMP006 12; silent -> 25 from the middle (strict xfails).
- 02hyc/VQ-VAE ``trainer.py`` (wandb): ``Epoch 4/10 - Training: 100%|...| 2533/2533 [...,
  loss=nan]``, ``Epoch 4/10 - Validation Loss: nan``, wandb's ``Run summary:``; AMP006 10132,
  AMP013 10132 =; from the middle 20264, 20264 =.
- 06rajesh/intent-slot-classification-nlu ``trainer.py``: the bar's description is the row
  (``Epoch [6]: loss = nan, accuracy (intent = ..., slots =  ...): 100%|...| 140/140``),
  ``Total ... trained with a total loss of nan from 140 items``, the ``Validation: loss =
  nan`` bar; AMP006 980, AMP013 980 =; from the middle 1540, 1540 -> 2240, 2240 (strict
  xfail).

Healthy, with settings other than the defaults (20 excerpts, 10 of them pasted from the
middle): no false alarm, silent on 20 of 20, before and after. Faulty (20 excerpts): right
at first sight on 12 (60%: DualFlow from the start, Qwen ChID, PagSeg and CIMD from the start
and the middle, RCAEval from the middle, and the three bars an epoch from the start and
VQ-VAE's from the middle); the 8 wrong: 6 wrong steps (1 of them with the validation's step
wrong beside), 2 silent (the ASR's ``int(nan)``), no wrong id, no false alarm. Fixed here:
DualFlow from the middle (13 of 20 now) and the MLP's training NaN from the start (its
validation's step still wrong: the excerpt stays a strict xfail).
"Right": the ids, and the step as the log prints it (a step counter; the run's count of
batches where the log prints the batch of each epoch or a bar's count an epoch, the doctor's
convention for Keras and tqdm bars; an epoch where the log prints only epochs). The helper
who drew the sample first counted the bars' epochs (7, 4, 6) as right; on merge the doctor's
convention for bars was kept and those four excerpts counted right (their expectations as
above): 8 of 20 at first sight by the helper's count, 12 by the doctor's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def _mean(values: list[float]) -> float:
    """The arithmetic mean (NaN as soon as one value is)."""
    return sum(values) / len(values)


def mlp(bad: int | None = None, epochs: int = 20, n_train: int = 55000, batch: int = 100,
        disp: int = 50, n_val: int = 5000) -> list[str]:
    """09rohanchopra/MLP ``solver.py`` (a numpy MLP on MNIST): every ``disp_freq`` batches
    ``"Epoch [{}][{}]\\t Batch [{}][{}]\\t Training Loss {:.4f}\\t Accuracy
    {:.4f}".format(epoch, max_epoch, iteration, max_train_iteration, np.mean(batch_train_loss),
    ...)`` (epochs and batches from 0, the mean over the epoch so far), after each epoch
    ``'Epoch [{}]\\t Average training loss {:.4f}\\t Average training accuracy {:.4f}'`` and
    ``'Epoch [{}]\\t Average validation loss {:.4f}\\t Average validation accuracy
    {:.4f}\\n'``; ``bad`` is the first NaN batch of the run (``epoch * iterations + batch``)."""
    out: list[str] = []
    iters = n_train // batch
    for e in range(epochs):
        losses: list[float] = []
        accs: list[float] = []
        for i in range(iters):
            g = e * iters + i
            loss = nan_from(bad, g, 2.3 / (1 + g / 400) + 0.05)
            losses.append(loss)
            accs.append(0.098 if loss != loss else min(0.99, 0.3 + g / 3000))
            if i % disp == 0:
                out.append(f"Epoch [{e}][{epochs}]\t Batch [{i}][{iters}]\t Training Loss "
                           f"{_mean(losses):.4f}\t Accuracy {_mean(accs):.4f}")
        g = (e + 1) * iters
        vl = nan_from(bad, g - 1, 2.3 / (1 + g / 400) + 0.08)
        va = 0.098 if vl != vl else min(0.98, 0.3 + g / 3100)
        out += [f"Epoch [{e}]\t Average training loss {_mean(losses):.4f}\t Average training "
                f"accuracy {_mean(accs):.4f}",
                f"Epoch [{e}]\t Average validation loss {vl:.4f}\t Average validation accuracy "
                f"{va:.4f}", ""]
    return out


def dualflow(bad: int | None = None, epochs: int = 4, batches: int = 312, every: int = 20,
             lr: float = 1.5e-4) -> list[str]:
    """007whoami/DualFlow-AMP ``engine.py`` ``train_one_epoch`` with its ``util/misc.py``
    ``MetricLogger(delimiter="  ")``: every ``print_freq`` (20) batches and the last
    ``'Epoch: [{}]'``, ``'[{0:3d}/{1}]'``, ``'eta: {eta}'``, the meters (``lr`` at
    ``{value:.6f}``, ``loss`` as ``{median:.4f} ({global_avg:.4f})``), ``'time: {time}'``,
    ``'data: {data}'``, ``'max mem: {memory:.0f}'``; ``'{} Total time: {} ({:.4f} s / it)'``,
    ``"Averaged stats:"``; on a non-finite loss ``f"Loss is {loss_value}, stopping
    training"`` and ``sys.exit(1)`` (the NaN is never a meter); ``bad`` counts batches over the
    run from 0."""
    out = ["log_dir: ./output_dir/log"]
    width = len(str(batches))
    for e in range(epochs):
        total = 0.0
        for i in range(batches):
            g = e * batches + i
            loss = nan_from(bad, g, 0.92 / (1 + g / 500))
            if loss != loss:
                return [*out, "Loss is nan, stopping training"]
            total += loss
            if i % every == 0 or i == batches - 1:
                out.append(f"Epoch: [{e}]  [{i:{width}d}/{batches}]  eta: 0:01:"
                           f"{(batches - i) % 60:02d}  lr: {lr:.6f}  loss: {loss:.4f} "
                           f"({total / (i + 1):.4f})  time: 0.2012  data: 0.0031  max mem: 2345")
        out += [f"Epoch: [{e}] Total time: 0:01:03 (0.2019 s / it)",
                f"Averaged stats: lr: {lr:.6f}  loss: {total / batches:.4f} "
                f"({total / batches:.4f})"]
    return out


def chid(bad: int | None = None, steps: int = 900, every: int = 10, accumulate: int = 1,
         steps_per_epoch: int = 300, fp16: bool = True) -> list[str]:
    """01xianyi/Qwen2.5-3B-ChID- ``trainer.py`` (Qwen2.5-3B on ChID under an HF ``Trainer``
    subclass, transformers 4.38-4.45: ``compute_loss`` without ``num_items_in_batch``): its
    set-up prints (``"正在加载训练数据..."``, ``f"训练集大小: {n}"``, the ``=== 训练配置 ===``
    block), ``print(f"Step {self.total_steps}, Loss: {loss.item():.4f}")`` every
    ``logging_steps`` calls of ``compute_loss`` (one a micro-batch: with gradient accumulation
    the count runs ahead of the optimizer's), the Trainer's own ``{'loss': ..., 'grad_norm':
    ..., 'learning_rate': ..., 'epoch': ...}`` every ``logging_steps`` optimizer steps, its
    closing dict and ``log_metrics``' ``***** train metrics *****`` block; ``bad`` is the
    first NaN optimizer step."""
    out = ["正在加载训练数据...", f"训练集大小: {steps_per_epoch * 8 * accumulate}",
           "正在配置训练器...", "", "=== 训练配置 ===", "GPU数量: 1", "批次大小: 8",
           f"梯度累积步数: {accumulate}", f"有效批次大小: {8 * accumulate}",
           f"训练轮数: {steps // steps_per_epoch}", "学习率: 2e-05",
           f"FP16: {'开启' if fp16 else '关闭'}", "===============", "", "开始训练..."]
    for s in range(1, steps + 1):
        loss = nan_from(bad, s, 2.1 / (1 + s / 200) + 0.3)
        for m in range(1, accumulate + 1):
            calls = (s - 1) * accumulate + m
            if calls % every == 0:
                out.append(f"Step {calls}, Loss: {loss + m / 1000:.4f}")
        if s % every == 0:
            grad = "nan" if loss != loss else f"{1.2 + s / 1000:.4f}"
            out.append(f"{{'loss': {round(loss, 4)}, 'grad_norm': {grad}, 'learning_rate': "
                       f"{2e-05 * (1 - s / steps):.4e}, 'epoch': {round(s / steps_per_epoch, 2)}}}")
    final = NAN if bad is not None else 0.71
    epochs = round(steps / steps_per_epoch, 1)
    return [*out, f"{{'train_runtime': 5321.4, 'train_samples_per_second': 13.53, "
            f"'train_steps_per_second': 0.169, 'train_loss': {final}, 'epoch': {epochs}}}",
            "训练完成，保存最终模型...", "***** train metrics *****",
            f"  epoch                    = {epochs:10}", "  total_flos               = 184532GF",
            f"  train_loss               = {final:10.4f}",
            "  train_runtime            = 1:28:41.40",
            "  train_samples_per_second =     13.53", "  train_steps_per_second   =     0.169"]


def pagseg(bad: int | None = None, end: int = 2000, period: int = 20,
           layers: int = 3) -> list[str]:
    """1106HaNa/PagSeg ``train_net.py`` (a MaskFormer-style segmenter under detectron2's
    ``DefaultTrainer``): detectron2's ``CommonMetricPrinter`` every ``period`` iterations
    (``" {eta}iter: {iter}  {losses}  time: ...  data_time: ...  lr: {lr}  max_mem: ...M"``,
    the losses ``f"{k}: {v.median(20):.4g}"``, ``iter`` from 0: 19, 39, ...), the logger's
    ``[%m/%d %H:%M:%S d2.utils.events]:`` prefix; on a non-finite total the train loop's
    ``FloatingPointError(f"Loss became infinite or NaN at iteration={storage.iter}!\\n
    loss_dict = {metrics_dict}")`` under ``Exception during training:`` and the hooks'
    closing lines (``detectron2/engine/train_loop.py``, ``hooks.py``); ``bad`` is the first
    NaN iteration."""
    out = ["[03/02 10:00:01 d2.engine.defaults]: Model:", "[03/02 10:00:09 d2.engine.train_loop]: "
           "Starting training from iteration 0"]
    names = ["loss_ce", "loss_mask", "loss_dice"] + [f"loss_{k}_{j}" for j in range(layers)
                                                     for k in ("ce", "mask", "dice")]
    for it in range(end):
        if bad is not None and it >= bad:
            terms = ", ".join(f"'{n}': {'nan' if n == 'loss_ce' else 0.4123}" for n in names[:3])
            return [*out, "[03/02 10:12:40 d2.engine.train_loop]: Exception during training:",
                    "Traceback (most recent call last):",
                    '  File "/opt/detectron2/detectron2/engine/train_loop.py", line 155, in '
                    "train", "    self.run_step()",
                    '  File "/opt/detectron2/detectron2/engine/train_loop.py", line 345, in '
                    "_write_metrics",
                    "    raise FloatingPointError(",
                    f"FloatingPointError: Loss became infinite or NaN at iteration={it}!",
                    f"loss_dict = {{{terms}}}",
                    f"[03/02 10:12:40 d2.engine.hooks]: Overall training speed: {it - 2} "
                    "iterations in 0:09:58 (0.4870 s / it)",
                    "[03/02 10:12:40 d2.engine.hooks]: Total training time: 0:10:03 "
                    "(0:00:05 on hooks)"]
        if (it + 1) % period == 0:
            v = 1.0 / (1 + it / 700)
            losses = "  ".join(f"{n}: {v * (0.6 + k / 20):.4g}" for k, n in enumerate(names))
            total = sum(v * (0.6 + k / 20) for k in range(len(names)))
            out.append(f"[03/02 10:{it // 100 % 60:02d}:{it % 60:02d} d2.utils.events]:  "
                       f"eta: 0:16:{(end - it) % 60:02d}  iter: {it}  total_loss: {total:.4g}  "
                       f"{losses}  time: 0.4871  data_time: 0.0102  lr: 0.0001  "
                       "max_mem: 10213M")
    return out


def ms_swing(bad: int | None = None, epochs: int = 30, batches: int = 52,
             val_batches: int = 10, device: str = "cuda:0") -> list[str]:
    """030helios/MS-swing ``finetune.py`` (a CLIP-style model of news and prices under
    ``torch.cuda.amp``): each epoch's ``tqdm(..., desc="Epoch: {}".format(cur_epc))`` with
    ``set_postfix(Epoch=cur_epc, Loss=training_loss/(step+1))`` (tqdm's ``format_num``: 3
    significant digits), the evaluation's ``desc="[Eval]"`` with ``Loss=``, as a terminal
    leaves each bar (its last state), and ``print(f'save at {model_save_path}')`` where the
    path holds the evaluation loss as a tensor's ``repr`` (saved when it is the best so far or
    every tenth epoch); epochs from 0; ``bad`` is the first NaN epoch."""
    out: list[str] = []
    best = 100000.0
    for e in range(epochs):
        tr = nan_from(bad, e, 0.6931 - e / 400)
        ev = nan_from(bad, e, 0.7012 - e / 500)
        out += [tqdm_bar(f"Epoch: {e}", batches, batches, f", Epoch={e}, Loss={tr:.3g}", 9.87),
                tqdm_bar("[Eval]", val_batches, val_batches, f", Loss={ev:.3g}", 21.3)]
        if ev <= best or e % 10 == 9:
            out.append(f"save at ./output/finetune/tensor({ev:.4f}, device='{device}')_"
                       f"{tr}_epoch{e}")
        best = min(best, ev) if ev == ev else best
    return out


def _plateau(losses: list[float], lr: float, patience: int = 5,
             factor: float = 0.5) -> list[tuple[float, float, float]]:
    """(loss, lr after ``ReduceLROnPlateau.step``, best) per epoch: a NaN is never better,
    so it counts as a bad epoch (``torch/optim/lr_scheduler.py``)."""
    rows = []
    best, bad_epochs, best_seen = float("inf"), 0, float("inf")
    for loss in losses:
        if loss < best:
            best, bad_epochs = loss, 0
        else:
            bad_epochs += 1
        if bad_epochs > patience:
            lr, bad_epochs = max(lr * factor, 1e-6), 0
        best_seen = min(best_seen, loss) if loss == loss else best_seen
        rows.append((loss, lr, best_seen))
    return rows


def rcaeval(bad: int | None = None, surr_epochs: int = 100, expl_epochs: int = 150,
            dataset: str = "online-boutique") -> list[str]:
    """0lai0/RCAEval ``pretrain.py`` (a surrogate GNN, then an explainer GNN, FastSHAP): ``f"Using
    device: {device}"``, ``"=== Phase 1: Pre-training Surrogate ==="``, per epoch ``f"Surrogate
    Epoch {epoch+1}/{surrogate_epochs} | Loss: {avg_loss:.4f} | LR: {current_lr:.2e} | Best:
    {best_surr_loss:.4f}"`` (``ReduceLROnPlateau``, factor 0.5, patience 5), ``f"Restored best
    surrogate (Loss: ...)"``, phase 2 the same with ``Explainer`` (its epochs counted from 1
    again), ``"Pre-training complete! Models saved to ..."``; a NaN surrogate would stop at
    ``binary_cross_entropy``'s range check, so ``bad`` is the explainer's first NaN epoch
    (1-based: its FastSHAP loss has no such check)."""
    out = ["Using device: cpu", "=== Phase 1: Pre-training Surrogate ==="]
    rows = _plateau([31.2 / (1 + e / 30) + 4.0 + (e % 7) / 50 for e in range(surr_epochs)],
                    1e-3)
    for e, (loss, lr, best) in enumerate(rows, 1):
        out.append(f"Surrogate Epoch {e}/{surr_epochs} | Loss: {loss:.4f} | LR: {lr:.2e} | "
                   f"Best: {best:.4f}")
    out += [f"Restored best surrogate (Loss: {rows[-1][2]:.4f})",
            "=== Phase 2: Pre-training Explainer ==="]
    rows = _plateau([nan_from(bad, e, 2.7 / (1 + e / 40) + 0.2 + (e % 5) / 100)
                     for e in range(1, expl_epochs + 1)], 1e-3)
    for e, (loss, lr, best) in enumerate(rows, 1):
        out.append(f"Explainer Epoch {e}/{expl_epochs} | Loss: {loss:.4f} | LR: {lr:.2e} | "
                   f"Best: {best:.4f}")
    return [*out, f"Restored best explainer (Loss: {rows[-1][2]:.4f})",
            f"Pre-training complete! Models saved to checkpoints/{dataset}_surrogate.pt and "
            f"checkpoints/{dataset}_explainer.pt"]


def cimd(bad: int | None = None, epochs: int = 10, batches: int = 500,
         interval: int = 100) -> list[str]:
    """02hyc/CIMD ``trainer.py`` (a BERT GlobalPointer for idiom definitions): the set-up
    prints (the model folder, ``f'train params : {config}'``, ``f'Set global seed to
    {seed}'``), every ``log_interval`` batches ``f'{time.strftime("%H:%M:%S")} Epoch: {epoch +
    1}/{config["epochs"]}, Batch: {batch_ind + 1}/{len(dataloader)}, loss: {avg_loss},
    precision: {avg_precision}, f1:{avg_f1}, lr: {lr}'`` (the loss a running mean over the
    epoch, Python's ``repr``), ``'train epoch time : '`` and the seconds on the next line, two
    validations (a ``Validating`` bar, ``'eval epoch time : '``, the starred ``avg_precision:
    X / Y = ...`` block; a NaN model predicts nothing: 0), ``f"Best ran F1: ..."``; ``bad``
    is the first NaN batch of the run (1-based: ``epoch * batches + batch_ind + 1``)."""
    out = ["./save_model/cross_6_03-02_10:00:00",
           f"train params : {{'run_type': 'train', 'epochs': {epochs}, 'batch_size': 16, "
           f"'log_interval': {interval}, 'lr': 2e-05, 'use_half': False}}",
           "Set global seed to 2321", "DEBERT训练程序, 使用可训练alpha"]
    best = 0.0
    for e in range(epochs):
        total = 0.0
        for b in range(batches):
            g = e * batches + b + 1
            total += nan_from(bad, g, 0.9 / (1 + g / 900) + 0.02)
            if b % interval == 0:
                out.append(f"10:{g // 60 % 60:02d}:{g % 60:02d} Epoch: {e + 1}/{epochs}, Batch: "
                           f"{b + 1}/{batches}, loss: {total / (b + 1)}, precision: "
                           f"{0.8 / (b + 1)}, f1:{0.7 / (b + 1)}, lr: 2e-05")
        out += ["train epoch time : ", "201.5512340068817"]
        f1 = 0.0 if total != total else 0.6 + e / 50
        for name in ("ran", "sim"):
            x, y = int(f1 * 1000), int(f1 * 1000 / 0.9)
            out += [tqdm_bar("Validating", 63, 63, rate=12.1), "eval epoch time : ",
                    "5.212345123", "*" * 42,
                    f"avg_precision: {x} / {y} = {x / (y + 1e-8) * 100:.4f}, avg_recall: {x} / "
                    f"{y} = {x / (y + 1e-8) * 100:.4f}, avg_f1: {f1 * 100:.4f}",
                    f"{x / (y + 1e-8) * 100:.4f}, {x / (y + 1e-8) * 100:.4f}, {f1 * 100:.4f}",
                    "*" * 42]
            if name == "ran" and f1 > best:
                best = f1
                out += [f"Best ran F1: {best}", "*" * 42]
    return out


def gujarati(bad: int | None = None, epochs: int = 30) -> list[str]:
    """01-vyom/End_2_End_Automatic_Speech_Recognition_For_Gujarati ``train_model.py`` (a CTC
    conv-BiLSTM under TF 2, eager): per epoch (from 1) ``print("Epoch: {},Train Loss: {}, Val
    Loss: {}".format(e, loss, loss_v))``, the losses EagerTensors (``tf.Tensor(12.345678,
    shape=(), dtype=float32)``); before the print ``history["train_loss"].append(int(loss))``,
    which on a NaN raises ``ValueError: cannot convert float NaN to integer``: the NaN epoch
    is never printed; ``bad`` is the first NaN epoch."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        loss = nan_from(bad, e, 180.0 / (1 + e / 4) + 9)
        val = nan_from(bad, e, 190.0 / (1 + e / 5) + 12)
        if loss != loss:
            return [*out, "Traceback (most recent call last):",
                    '  File "main.py", line 61, in <module>',
                    "    model = train_model(train_dataset, validation_dataset, epochs=epochs)",
                    '  File "/content/train_model.py", line 217, in train_model',
                    "    train(model, optimizer, (_epochs_ + 1), train_dataset, "
                    "validation_dataset)",
                    '  File "/content/train_model.py", line 180, in train',
                    '    history["train_loss"].append(int(loss))',
                    "ValueError: cannot convert float NaN to integer"]
        out.append(f"Epoch: {e},Train Loss: tf.Tensor({loss:.6f}, shape=(), dtype=float32), Val "
                   f"Loss: tf.Tensor({val:.6f}, shape=(), dtype=float32)")
    return out



def vqvae(bad: int | None = None, epochs: int = 10, batches: int = 2533,
          val_batches: int = 634) -> list[str]:
    """02hyc/VQ-VAE ``trainer.py`` (a VQ-VAE on CelebA, wandb): wandb's opening lines, each
    epoch's ``tqdm(train_dataloader, desc=f"Epoch {epoch+1}/{num_epochs} - Training")`` with
    ``pbar.set_postfix(loss=loss.item())`` as a terminal leaves it (its last state), then
    ``print(f"Epoch {epoch+1}/{num_epochs} - Validation Loss: {val_loss:.4f}")``; at exit
    wandb's ``Run summary:`` of the last values logged (``train_loss``, ``val_loss``, ...,
    ``epoch``); ``bad`` is the first NaN epoch (1-based)."""
    out = ["wandb: Currently logged in as: yukino. Use `wandb login --relogin` to force relogin",
           "wandb: Tracking run with wandb version 0.16.6",
           "wandb: Run data is saved locally in ./wandb/run-20260302_100000-3k2j1h0g",
           "wandb: Syncing run glad-sun-12",
           "wandb: 🚀 View run at https://wandb.ai/yukino/VQVAE-Training/runs/3k2j1h0g"]
    tr = val = 0.0
    for e in range(1, epochs + 1):
        tr = nan_from(bad, e, 0.031 / (1 + e / 3))
        val = nan_from(bad, e, 0.033 / (1 + e / 3))
        out += [tqdm_bar(f"Epoch {e}/{epochs} - Training", batches, batches,
                         f", loss={tr:.3g}", 8.11),
                f"Epoch {e}/{epochs} - Validation Loss: {val:.4f}"]
    return [*out, "wandb: ", "wandb: Run summary:",
            f"wandb:                   epoch {epochs}",
            f"wandb:  train_commitment_loss {tr / 5:.5f}",
            f"wandb:             train_loss {tr:.5f}",
            f"wandb:               val_loss {val:.5f}",
            "wandb: 🚀 View run glad-sun-12 at: "
            "https://wandb.ai/yukino/VQVAE-Training/runs/3k2j1h0g"]


def intent_slot(bad: int | None = None, epochs: int = 20, batches: int = 140,
                val_batches: int = 35, batch: int = 32) -> list[str]:
    """06rajesh/intent-slot-classification-nlu ``trainer.py`` (a joint BERT intent and slot
    tagger): ``'number of params:'``, ``"Start training"``, each epoch's bar whose description
    is the line (``'Epoch [{:d}]: loss = {:.4f}, accuracy (intent = {:.4f}, slots =
    {:.4f})'``, set every second batch: the batch's own loss) as a terminal leaves it, ``'Total
    {}/{} correct intents, {}/{} correct slots trained with a total loss of {:.4f} from {}
    items'``, the validation's bar (``'Validation: loss = {:.4f}, ...'``) and ``'model saved on
    {} after {} epoch with validation loss {:.4f}'`` when the validation's mean beats the best
    (from 6.0); epochs from 0; ``bad`` is the first NaN epoch."""
    out = ["number of params: 110123522", "Start training"]
    best = 6.0
    tags = batch * 50
    for e in range(epochs):
        loss = nan_from(bad, e, 1.9 / (1 + e / 2) + 0.05)
        val = nan_from(bad, e, 2.0 / (1 + e / 2) + 0.08)
        ia = 0.04 if loss != loss else min(0.98, 0.7 + e / 40)
        sa = 0.61 if loss != loss else min(0.99, 0.8 + e / 60)
        n = batches * batch
        out += [tqdm_bar(f"Epoch [{e}]: loss = {loss:.4f}, accuracy (intent = {ia:.4f}, slots = "
                         f" {sa:.4f})", batches, batches, rate=11.2),
                f"Total {int(ia * n)}/{n} correct intents, {int(sa * n * 50)}/{tags * batches} "
                f"correct slots trained with a total loss of {loss * batches:.4f} from "
                f"{batches} items",
                tqdm_bar(f"Validation: loss = {val:.4f}, accuracy (intent = {ia:.4f}, slots =  "
                         f"{sa:.4f})", val_batches, val_batches, rate=30.4)]
        if val < best:
            best = val
            out.append(f"model saved on output/checkpoint.pth after {e} epoch with validation "
                       f"loss {best:.4f}")
    return out

# -- the excerpts and their right answers -----------------------------------------------------

# Faulty excerpts the doctor read right at first sight: guards.
READ_ALREADY: Table = {
    "dualflow": (lambda: dualflow(2 * 312 + 137), [("AMP006", 745)]),
    "chid": (lambda: chid(125), [("AMP006", 130)]),
    "chid_from_the_middle": (lambda: chid(615)[60:], [("AMP006", 620)]),
    "pagseg": (lambda: pagseg(1234), [("AMP006", 1234)]),
    "pagseg_from_the_middle": (lambda: pagseg(1777)[40:], [("AMP006", 1777)]),
    "rcaeval_from_the_middle": (lambda: rcaeval(90)[150:], [("AMP006", 90)]),
    "cimd": (lambda: cimd(2 * 500 + 150), [("AMP006", 1201)]),
    "cimd_from_the_middle": (lambda: cimd(6 * 500 + 20)[20:], [("AMP006", 3101)]),
    # A bar an epoch: its batch count is printed, so the step is the run's batch at the end
    # of the NaN epoch's bar (the doctor's convention for bars, Keras's as tqdm's): MS-swing's
    # epoch 7 (0-based) of 52, 8 * 52; VQ-VAE's epoch 4 (1-based) of 2533, and its paste
    # whose ``Epoch 8/12`` names the epoch; the tagger's epoch 6 (0-based) of 140.
    "ms_swing": (lambda: ms_swing(7), [("AMP006", 416), ("AMP013", 416)]),
    "vqvae": (lambda: vqvae(4), [("AMP006", 10132), ("AMP013", 10132)]),
    "vqvae_from_the_middle": (lambda: vqvae(8, epochs=12)[9:],
                              [("AMP006", 20264), ("AMP013", 20264)]),
    "intent_slot": (lambda: intent_slot(6), [("AMP006", 980), ("AMP013", 980)]),
}

# Faulty excerpts read wrong at first sight and right since the rules of this branch.
FIXED_HERE: Table = {
    # DualFlow's NaN at batch 50 of epoch 3 (0-based, 312 batches, a row every 20), the paste
    # opening in epoch 1: one step after the last row (epoch 3's batch 40), 3 * 312 + 41.
    "dualflow_from_the_middle": (lambda: dualflow(3 * 312 + 50)[25:], [("AMP006", 977)]),
}

HEALTHY: dict[str, Callable[[], list[str]]] = {
    "mlp": lambda: mlp(epochs=8, batch=50, disp=100),
    "mlp_from_the_middle": lambda: mlp(epochs=12, disp=25)[200:],
    "dualflow": lambda: dualflow(epochs=6, batches=500, every=50, lr=3e-4),
    "dualflow_from_the_middle": lambda: dualflow(epochs=5, every=10)[40:],
    "chid": lambda: chid(steps=1200, every=20, accumulate=2, steps_per_epoch=400),
    "chid_from_the_middle": lambda: chid(steps=600, every=5, fp16=False)[40:],
    "pagseg": lambda: pagseg(end=3000, period=50, layers=5),
    "pagseg_from_the_middle": lambda: pagseg(end=2500, period=10)[60:],
    "ms_swing": lambda: ms_swing(epochs=40, batches=80, val_batches=16),
    "ms_swing_from_the_middle": lambda: ms_swing(epochs=50, device="cuda:1")[30:],
    "rcaeval": lambda: rcaeval(surr_epochs=60, expl_epochs=90, dataset="sock-shop"),
    "rcaeval_from_the_middle": lambda: rcaeval(expl_epochs=200)[80:],
    "cimd": lambda: cimd(epochs=6, batches=800, interval=50),
    "cimd_from_the_middle": lambda: cimd(epochs=12, interval=200)[30:],
    "gujarati": lambda: gujarati(epochs=60),
    "gujarati_from_the_middle": lambda: gujarati(epochs=45)[10:],
    "vqvae": lambda: vqvae(epochs=20, batches=1266),
    "vqvae_from_the_middle": lambda: vqvae(epochs=15)[10:],
    "intent_slot": lambda: intent_slot(epochs=30, batches=220, batch=16),
    "intent_slot_from_the_middle": lambda: intent_slot(epochs=25, val_batches=50)[25:],
}

# The faulty excerpts read right at first sight beside the healthy runs, whose right answer
# is silence: both pass on the parent too.
LISTED: Table = {**READ_ALREADY, **{f"{name} (healthy)": (build, [])
                                    for name, build in HEALTHY.items()}}


@pytest.mark.parametrize("name", sorted(LISTED))
def test_listed(tmp_path: Path, name: str) -> None:
    """Guards on the faulty excerpts read right at first sight, and the healthy runs'
    silence (controls), each read without error."""
    check_listed(tmp_path, name, LISTED)


@pytest.mark.parametrize("name", sorted(FIXED_HERE))
def test_fixed_here(tmp_path: Path, name: str) -> None:
    """The faulty excerpts this branch's rules read right (wrong on the parent)."""
    check_listed(tmp_path, name, FIXED_HERE)


def test_course_brackets_from_the_start(tmp_path: Path) -> None:
    """The course solver's ``Epoch [3][20]\\t Batch [150][550]``: each count's total in a
    bracket of its own after the count (the batch of the epoch, epochs from 0): the row of
    batch 150 of epoch 3 is the run's 1800 (80 on the parent, which read ``[3][20]`` as
    epoch 3's batch 20). The validation below it is a strict xfail in the table below."""
    found = faults(tmp_path, mlp(3 * 550 + 120))
    assert found[0] == ("AMP006", 1800)


_SUMMARY_STEP = pytest.mark.xfail(strict=True, reason="not fixed here: the epoch's summary "
                                  "rows (``Epoch [3]\\t Average validation loss nan``) take "
                                  "the epoch as their step (3), not the last row's (2150); "
                                  "from the middle (the paste opens in epoch 7) the epochs "
                                  "are also counted from 1 (3650, not 4200): nothing in the "
                                  "excerpt says they count from 0")
_BAR_EPOCHS = pytest.mark.xfail(strict=True, reason="not fixed: a paste that opens past the "
                                "first epoch's bar, each bar naming its epoch in its "
                                "description (``Epoch: 7: 100%|...| 52/52 [..., Loss=nan]``, "
                                "``Epoch [6]: loss = nan, ...: 100%|...| 140/140``), is counted "
                                "from the paste's first bar (884, 1540); the right steps count "
                                "the epochs before it from 0, as these scripts do, which the "
                                "excerpt alone does not show (read from 1: 1196, 2100)")
_PHASE_RESTART = pytest.mark.xfail(strict=True, reason="not fixed here (counters that "
                                   "restart are another helper's): phase 2's ``Explainer "
                                   "Epoch 40/150`` counts from 1 again after phase 1's 100 "
                                   "``Surrogate Epoch`` rows; the doctor counts on (141)")
_INT_OF_NAN = pytest.mark.xfail(strict=True, reason="not fixed here: the NaN epoch is never "
                                "printed; the run ends in Python's own ``ValueError: cannot "
                                "convert float NaN to integer`` raised by ``int(loss)`` (the "
                                "traceback's source line names the loss). The message alone "
                                "is also how a data-preparation script fails on a missing "
                                "value (``int(row['age'])``): read without the source line "
                                "above it, it would be a false alarm; the doctor reads each "
                                "exception line alone, so it stays silent")


def _miss(name: str, build: Callable[[], list[str]], right: list[tuple[str, int]],
          mark: pytest.MarkDecorator) -> object:
    """One excerpt the doctor still reads wrong: its builder and right answer, held by
    ``mark`` (a strict xfail whose reason says what the doctor answers instead)."""
    return pytest.param(build, right, marks=mark, id=name)


MISSES = [
    # The MLP's NaN from batch 120 of epoch 3 (0-based, 550 batches, a row every 50): the row
    # of batch 150, 1800; its validation after the epoch at the last row read (500: 2150).
    # From the middle: batch 320 of epoch 7, the row of 350 (4200), the validation 4350.
    _miss("mlp", lambda: mlp(3 * 550 + 120), [("AMP006", 1800), ("AMP013", 2150)],
          _SUMMARY_STEP),
    _miss("mlp_from_the_middle", lambda: mlp(7 * 550 + 320)[100:],
          [("AMP006", 4200), ("AMP013", 4350)], _SUMMARY_STEP),
    # MS-swing's NaN from epoch 23 (0-based), pasted from epoch 7's bar: 24 * 52.
    _miss("ms_swing_from_the_middle", lambda: ms_swing(23)[20:],
          [("AMP006", 1248), ("AMP013", 1248)], _BAR_EPOCHS),
    # RCAEval's explainer NaN from its epoch 40 (phase 2, counted from 1 again).
    # The tagger's NaN from epoch 15 (0-based), pasted from a later epoch's bar: 16 * 140.
    _miss("intent_slot_from_the_middle", lambda: intent_slot(15)[20:],
          [("AMP006", 2240), ("AMP013", 2240)], _BAR_EPOCHS),
    _miss("rcaeval", lambda: rcaeval(40), [("AMP006", 40)], _PHASE_RESTART),
    # The ASR's NaN at epoch 12 (from 1), never printed: the ValueError after epoch 11's row;
    # from the middle, 25.
    _miss("gujarati", lambda: gujarati(12), [("AMP006", 12)], _INT_OF_NAN),
    _miss("gujarati_from_the_middle", lambda: gujarati(25)[8:], [("AMP006", 25)], _INT_OF_NAN),
]


@pytest.mark.parametrize(("build", "right"), MISSES)
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor still reads wrong, each with its right answer (strict
    xfails: the reasons say what the doctor does instead)."""
    assert faults(tmp_path, build()) == right
