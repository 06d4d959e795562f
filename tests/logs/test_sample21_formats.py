"""A fourth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 14 scripts, drawn from the code index's listing of ``run_train.py``,
``train_main.py``, ``main_train.py``, ``train_eval.py`` and ``run.py``/``main.py`` in the order it
gives them, none named by another test. Skipped, and why: those whose file runs no loop of its
own or prints nothing of it (0scarJ1ang/HierarchicalProbabilistic3DHuman, 1170500820/DLtools,
13520505/bigdataproj, 269652/neuroslm, 2runo/shh-it, 01057150/project, 106-/DBM-tensorflow,
106-/NeuralNet, 0-693/paligemma, 0Lu-cy0/Xu_Ly_Anh, 0RLAND0-AV/Clasificador-de-Nubes,
0WEN-Lang/target-detection-wolfberry-study (Ultralytics' own loop), 1160528707/HF-SSIRNet and
1846659840/HAES hand over to a trainer module; 3XJuli/compressive_sensing prints nothing),
those that train no network (24darrenz/vol-forecaster, 421ye/TSME: sklearn and XGBoost), one
that prints rewards only (52dyd/graduation_design, DDPG), one that prints the validation's
precision, recall and F1 only (123-hyy/hyy1: a NaN run prints no NaN), and those whose loop
lies past what was read in time (1931840268/KG-MixNet, 63 kB;
7hestral/Forecasting_pregnant_symtom; 2655398311/bert- and weibo_bert_predict). The
first ``run.py`` and ``main.py`` rows are web apps and tools: none trains. Each excerpt is
built from the script's own print and logging format strings (one builder a script below, the
repository and file in its docstring): a healthy run with settings other than the defaults,
and a faulty one (a NaN loss from step N, or at epoch E where the script prints per epoch),
pasted from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer on the parent (3e9872d)
-> the right one ("=": the same):

- 10srav/A-Diffusion-Based-Approach-for-Multimodal-Image-Fusion ``run_train.py``
  (GradScaler, autocast): ``Epoch 3/500: 100%|...| 50/50 [..., loss=nan]`` and ``  Epoch 3:
  loss=nan, lr=6.00e-05``; AMP006 150 = (the bar's count), 250 = from epoch 4.
- 20matthewji/ComputerVision ``run_train.py`` (Theano, Python 2): ``('training @ iter = ',
  200)``, ``minibatch @ iter = 200 \\/ 50, costs: nan`` each batch, ``epoch 2, minibatch
  150/150, validation error 50.000000 %``; AMP006 200 =, 320 = from the middle.
- 000-user17/zero-shot-KD-in-NLP ``train_eval.py``: per epoch (from 0) the validation set's
  ``第3的验证集失为：nan`` (its "loss" misspelt ``失``) and ``第3的验证集精度为：0.1``; "nothing
  to diagnose" -> AMP013 3 (strict xfail, also from the middle); healthy: "nothing to
  diagnose" (strict xfail).
- 2655398311/Bert_new_predict_labels ``train_eval.py`` (BERT's TF1 ``Estimator``): its hooks'
  ``INFO:tensorflow:loss = 1.8, step = 600 (31.097 sec)``, then ``ERROR:tensorflow:Model
  diverged with loss = NaN.`` and ``NanLossDuringTrainingError``; AMP006 601 = (the first step
  after the last logged finite: the NaN's own step is never logged), also from the middle.
- 0ethel0zhang/ipa_aesthetics ``train_eval.py``: ``Epoch 4/10: Train Loss: nan, Val Loss: nan,
  Val MAE: nan``; AMP006 4, AMP013 4 =; 7, 7 = from epoch 5.
- 0hrj0/-Bert-IPC- ``train_eval.py``: ``Epoch 2/3, Step 300/500, Training Loss: nan`` every
  100 steps, ``avg_train_loss= nan`` and its ``'[%(asctime)s][line: %(lineno)d] ==>
  %(message)s'`` logger's ``====Epoch:[2/3] avg_train_loss=nan====``; AMP006 800 =, 1300 =
  from the middle.
- 1094701018/KETM ``train_eval.py``: ``Epoch [2/3]``, ``Iter:    700,  Train Loss:   nan,
  Train Acc: 10.00%,  Val Loss:   nan, ...,dev_best acc:...`` printed and logged through
  ``"[%(asctime)s][%(filename)s][line:%(lineno)d][%(levelname)s] %(message)s"``; AMP006 700,
  AMP013 700 =; 1100, 1100 = from the middle.
- 1146976048qq/ASAP_Meituan ``train_eval.py`` (Chinese-Text-Classification-Pytorch's loop):
  the same ``Iter:`` line, printed only; AMP006 700, AMP013 700 =; 1100, 1100 = from the middle.
- 356255531/foldnn_pytorch ``train_eval.py``: bars described ``epoch: 3, train acc: 0.500,
  train loss: nan: 100%|...| 120/120`` and ``epoch: 3, eval acc: ..., eval loss: nan: ...``;
  AMP006 360, AMP013 360 =; pasted from epoch 4, NaN at 6: 360, 360 -> 720, 720.
- 3Vikram-K/Seq2Seq-Chatbot-using-Pytorch ``train_eval.py`` (the PyTorch chatbot tutorial):
  ``Iteration: 1300; Percent complete: 32.5%; Average loss: nan``; AMP006 1300 =, 2600 = from
  the middle.
- 3200701576/Deep-learning-based-functional-visual-field-prediction-through-retinal-nerve-
  fiber-layer-damage ``train_main.py``: every ``disp_gap`` epochs ``Epoch 4/8, lr:
  1.000000e-04`` and ``Attn Entropy Weight: 0.0000`` over the ``Training`` and ``Validating``
  bars, then ``Train Loss: nan`` and ``Val Loss: nan, RMSE: nan, ...``; AMP013 1 -> AMP006 4,
  AMP013 4 (the training loss was read as the validation bar's); from the middle, NaN at 6,
  AMP013 1 -> AMP006 6, AMP013 6 (healthy from the middle: "nothing to diagnose" -> silent).
  Its ``train_log.csv`` (``epoch,lr,pos_type,train_loss,valid_loss,...``): AMP006 4, AMP013
  4 =; 6, 6 =.
- 666haiwen/lstm-fcn-eevis ``train_eval.py``: Keras 2 ``fit(verbose=1)`` over samples, with
  ``ModelCheckpoint(verbose=1)``'s ``Epoch 00003: val_acc did not improve from 0.73000``;
  AMP006 42000, AMP013 42000 = (the bars' count); 70000, 70000 = from epoch 3.
- 12121236767678/A-lightweight-volumetric-ConvNet ``main_train.py`` (MONAI's UNETR tutorial
  loop): ``print(x.shape)`` each batch between the bar's states ``Training (700 / 1200 Steps)
  (loss=nan):  17%|...| 5/24``, ``Test (500 / 10 Steps) (dice=...)``, ``Model Was Saved !
  ...``; AMP006 701 -> 700 (the bar's count, not the label's step); from the middle, 509 ->
  700.
- 17LiQi/MultimodalSignal ``main_train.py``: ``Epoch 3/100 [Train]: 100%|...| 120/120 [...,
  loss=nan]``, a ``Validating`` bar, ``Epoch 3 Summary: Train Loss: nan | Val Loss: nan | Val
  Acc: 33.33%`` and EarlyStopping's ``Validation loss decreased (1.066667 --> nan).  Saving
  model ...``; AMP006 360, AMP013 361 -> 360, 360 (a strict xfail until h51-steps52's
  epoch_summaries: the summary line prints no count, and was numbered one past the bar); from
  epoch 3, 600, 601 -> 600, 600 (the same).

Healthy, with settings other than the defaults (15 excerpts, 1 of them pasted from the
middle): no false alarm on any, before or after; right (silent, read without error) on 13
before, 14 after: the visual-field excerpt pasted from the middle read no training metric on
the parent ("nothing to diagnose", an error: each ``Train Loss`` read as the validation
bar's); zero-shot-KD's reads none before or after (a strict xfail).
Faulty (30 excerpts): right on 21 before, 26 after; the 4 left wrong are held by strict
xfails (zero-shot-KD twice, MultimodalSignal twice). "Right": the ids, and the step as the log
prints it (an epoch, a step or batch counter, a bar's count).

Fixed here, each by a rule of layout:

- A loss keyed by the training split right below an evaluation line that measured nothing
  (``Train Loss: nan`` below a ``Validating: 100%|...|`` bar's last state) is training's:
  only an unnamed loss there is the evaluation's (metric_reader.py ``_goes_on``).
- An epoch of how many with the learning rate after it and nothing else (``Epoch 4/8, lr:
  1.000000e-04``) is an epoch line over the rows below it, as far as four lines down (reader.py
  ``_EPOCH_END``, ``EPOCH_REACH``; metric_reader.py ``_EPOCH_HEADING_KINDS``).
- A tqdm bar first seen with ``epoch: {e},`` in its label counts the epochs before it as
  passes of the bar, as ``Epoch {e}/{n}`` already did (metric_reader.py ``_BAR_LABEL_EPOCH``).
- A bar whose label counts the run's steps (``Training (700 / 1200 Steps) (loss=...)``) is
  numbered by the label, not by its own count of the pass's batches (metric_reader.py
  ``_LABEL_STEPS``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def fusion(bad: int | None = None, epochs: int = 6, batches: int = 50, total: int = 500,
           lr: float = 2e-4, sample_every: int = 10) -> list[str]:
    """10srav/A-Diffusion-Based-Approach-for-Multimodal-Image-Fusion ``run_train.py``
    (``torch.amp.GradScaler``, autocast): its banner (``f"  Device:     {device}"`` ...,
    ``f"  AMP:        {'enabled' if use_amp else 'disabled'}"``), per epoch the last state of
    ``tqdm(dataloader, desc=f"Epoch {epoch+1}/{epochs}")`` with ``set_postfix(loss=
    f"{loss.item():.4f}")``, then ``f"  Epoch {epoch+1}: loss={avg_loss:.6f}, lr=
    {current_lr:.2e}"`` and every ``sample_every`` epochs ``"  Generating samples..."``;
    ``bad`` is the (1-based) epoch."""
    out = ["=" * 60, "ADAPTIVE DIFFUSION FUSION - TRAINING", "=" * 60,
           "  Device:     cuda", f"  Epochs:     {total}", "  Batch size: 4",
           f"  LR:         {lr}", "  Data:       /work/data/m3fd/train", "=" * 60,
           "  Model params: 31,245,123 (31.2M)", "  AMP:        enabled", "",
           "Starting training..."]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.21 - e / 200)
        out.append(f"Epoch {e}/{total}: 100%|██████████| {batches}/{batches} "
                   f"[00:1{e % 10}<00:00,  4.0{e % 10}it/s, loss={loss:.4f}]")
        out.append(f"  Epoch {e}: loss={loss:.6f}, lr={lr * min(1, e / 10):.2e}")
        if e % sample_every == 0:
            out.append("  Generating samples...")
    return out


def lenet(bad: int | None = None, epochs: int = 3, batches: int = 150,
          valid_every: int = 150) -> list[str]:
    """20matthewji/ComputerVision ``run_train.py`` (Theano, Python 2, whose ``print(a, b)``
    prints the tuple): ``print('... training')``, every 100 iterations ``print('training @
    iter = ', iter)``, each batch ``print('minibatch @ iter = %s \\/ %s, costs: %s' % (iter,
    minibatch_index, cost))`` (``\\/`` printed as written), every ``validation_frequency``
    iterations ``'epoch %i, minibatch %i/%i, validation error %f %%'``; ``bad`` counts
    iterations (from 0)."""
    out = ["... building the model", "... training"]
    for e in range(1, epochs + 1):
        for b in range(batches):
            it = (e - 1) * batches + b
            cost = _loss(bad, it, 0.6931471805599453 - it / 10000)
            if it % 100 == 0:
                out.append(f"('training @ iter = ', {it})")
            out.append(f"minibatch @ iter = {it} \\/ {b}, costs: {cost!r}")
            if (it + 1) % valid_every == 0:
                err = 50.0 if cost != cost else 20.0 - e
                out.append(f"epoch {e}, minibatch {b + 1}/{batches}, validation error {err:f} %")
    return out


def zero_shot_kd(bad: int | None = None, epochs: int = 8) -> list[str]:
    """000-user17/zero-shot-KD-in-NLP ``train_eval.py`` ``Model_Train.my_train``: after each
    epoch (from 0) the validation set's summed loss and accuracy, ``print('第'+str(epoch)+
    '的验证集失为：'+str(loss_eval))`` and ``print('第'+str(epoch)+'的验证集精度为：'+
    str(accuracy_eval))``; ``bad`` is the epoch."""
    out = []
    for e in range(epochs):
        loss = _loss(bad, e, 41.3 - e)
        acc = 0.1 if loss != loss else 0.8 + e / 100
        out += [f"第{e}的验证集失为：{loss}", f"第{e}的验证集精度为：{acc}"]
    return out


def bert_estimator(bad: int | None = None, steps: int = 1000, every: int = 100) -> list[str]:
    """2655398311/Bert_new_predict_labels ``train_eval.py``: BERT's TF1 ``Estimator``, whose
    hooks print the loop (tensorflow/python/training/basic_session_run_hooks.py):
    ``LoggingTensorHook``'s ``loss = {loss}, step = {step} ({sec:.3f} sec)`` every
    ``log_step_count_steps`` with ``global_step/sec: ...``, and ``NanTensorHook``'s
    ``logging.error("Model diverged with loss = NaN.")`` before it raises
    ``NanLossDuringTrainingError`` (``NaN loss during training.``) at the first NaN step, the
    NaN's own step never logged; ``bad`` is that step."""
    out = ["INFO:tensorflow:Calling model_fn.", "INFO:tensorflow:Done calling model_fn.",
           "INFO:tensorflow:Create CheckpointSaverHook.", "INFO:tensorflow:Graph was finalized.",
           "INFO:tensorflow:Running local_init_op.", "INFO:tensorflow:Done running local_init_op.",
           "INFO:tensorflow:Saving checkpoints for 0 into ./output/model.ckpt."]
    for s in range(0, steps, every):
        if bad is not None and s >= bad:
            return [*out, "ERROR:tensorflow:Model diverged with loss = NaN.",
                    "Traceback (most recent call last):",
                    '  File "train_eval.py", line 512, in <module>',
                    "    estimator.train(input_fn=train_input_fn, max_steps=num_train_steps)",
                    "tensorflow.python.training.basic_session_run_hooks."
                    "NanLossDuringTrainingError: NaN loss during training."]
        out.append(f"INFO:tensorflow:loss = {3.0 - s / 500:.7g}, step = {s}"
                   + (" (31.097 sec)" if s else ""))
        if s:
            out.append("INFO:tensorflow:global_step/sec: 3.21576")
    return [*out, f"INFO:tensorflow:Saving checkpoints for {steps} into ./output/model.ckpt.",
            "INFO:tensorflow:Loss for final step: 1.0."]


def ipa(bad: int | None = None, epochs: int = 10, images: int = 812) -> list[str]:
    """0ethel0zhang/ipa_aesthetics ``train_eval.py``: ``f"Found {len(all_files)} images.
    Extracting ratings..."`` and its ``Ratings`` bar, then per epoch (its ``Training`` and
    ``Evaluating`` bars ``leave=False``) ``f"Epoch {epoch+1}/{args.epochs}: Train Loss:
    {train_loss:.4f}, Val Loss: {val_loss:.4f}, Val MAE: {val_mae:.4f}"`` and, when lower,
    ``f"  --> Saved new best model with MAE: {best_mae:.4f}"``; ``bad`` is the (1-based)
    epoch."""
    out = ["Using device: cuda", "Collecting images from /photos/rated...",
           f"Found {images} images. Extracting ratings...",
           f"Ratings: 100%|██████████| {images}/{images} [01:12<00:00, 11.21it/s]",
           "Starting training..."]
    best = 9.0
    for e in range(1, epochs + 1):
        t = _loss(bad, e, 1.9 - e / 10)
        v = _loss(bad, e, 2.0 - e / 12)
        mae = _loss(bad, e, 1.1 - e / 30)
        out.append(f"Epoch {e}/{epochs}: Train Loss: {t:.4f}, Val Loss: {v:.4f}, "
                   f"Val MAE: {mae:.4f}")
        if mae < best:
            best = mae
            out.append(f"  --> Saved new best model with MAE: {best:.4f}")
    return out


def bert_ipc(bad: int | None = None, epochs: int = 3, steps: int = 500) -> list[str]:
    """0hrj0/-Bert-IPC- ``train_eval.py``: its ``log_creater`` logger (``'[%(asctime)s][line:
    %(lineno)d] ==> %(message)s'``, to the console too), every 100 steps ``f'Epoch {epoch +
    1}/{EPOCHS}, Step {step + 1}/{len(train_dataloader)}, Training Loss: {total_train_loss /
    (step + 1)}'`` (the epoch's running mean), ``print("avg_train_loss=", ...)``, ``'====Epoch:
    [{}/{}] avg_train_loss={:.5f}===='``, the validation's ``avg_val_loss=``/``avg_val_acc=``
    and ``'====Epoch:[{}/{}] avg_val_loss={:.5f} avg_val_acc={:.5f}===='``; ``bad`` counts
    steps over the run."""
    def log(line: int, msg: str) -> str:
        return f"[2026-02-03 10:00:00,123][line: {line}] ==> {msg}"
    out = [log(125, "creating ./cache/logs/2026-02-03-10-00.log"),
           log(49, "   Train batch size = 2"), log(50, f"   Total steps = {steps * epochs}"),
           log(51, "   Training Start!")]
    g = 0
    for e in range(1, epochs + 1):
        total = 0.0
        for s in range(1, steps + 1):
            g += 1
            total += _loss(bad, g, 0.7 - g / 10000)
            if s % 100 == 0:
                out.append(f"Epoch {e}/{epochs}, Step {s}/{steps}, Training Loss: {total / s}")
        avg = total / steps
        out += [f"avg_train_loss= {avg}",
                log(83, f"====Epoch:[{e}/{epochs}] avg_train_loss={avg:.5f}===="),
                log(84, "====Training epoch took: 0:05:12===="), log(85, "Running Validation...")]
        vl = avg * 1.1
        va = 0.5 if vl != vl else 0.7 + e / 50
        out += [f"avg_val_loss= {vl}", f"avg_val_acc= {va}",
                log(90, f"====Epoch:[{e}/{epochs}] avg_val_loss={vl:.5f} avg_val_acc={va:.5f}"
                    "===="),
                log(91, "====Validation epoch took: 0:05:40===="), log(92, "")]
    return out


def text_classification(bad: int | None = None, epochs: int = 3, batches: int = 450,
                        logged: bool = True) -> list[str]:
    """The Chinese-Text-Classification-Pytorch loop: 1146976048qq/ASAP_Meituan
    ``train_eval.py`` (``logged=False``) prints ``'Epoch [{}/{}]'`` and every 100 batches
    ``'Iter: {0:>6},  Train Loss: {1:>5.2},  Train Acc: {2:>6.2%},  Val Loss: {3:>5.2},  Val
    Acc: {4:>6.2%},  Time: {5} {6}'``; 1094701018/KETM ``train_eval.py`` appends
    ``',dev_best acc:{7}'`` and logs the line too through ``"[%(asctime)s][%(filename)s]
    [line:%(lineno)d][%(levelname)s] %(message)s"`` (its ``start training!`` first); ``bad``
    counts batches (``total_batch``, from 0)."""
    stamp = "[2026-02-03 10:00:00,123][train_eval.py]"
    out = [f"{stamp}[line:66][INFO] start training!"] if logged else []
    it = 0
    best = 0.0
    for e in range(1, epochs + 1):
        out.append(f"Epoch [{e}/{epochs}]")
        for _ in range(batches):
            if it % 100 == 0:
                loss = _loss(bad, it, 1.2 - it / 2000)
                acc = 0.1 if loss != loss else 0.6 + it / 10000
                vacc = 0.1 if loss != loss else 0.6 + it / 11000
                improve = ""
                if vacc > best:
                    best, improve = vacc, "*"
                secs = it // 10
                msg = (f"Iter: {it:>6},  Train Loss: {loss:>5.2},  Train Acc: {acc:>6.2%},  Val "
                       f"Loss: {loss * 1.1:>5.2},  Val Acc: {vacc:>6.2%},  Time: 0:{secs // 60:02d}"
                       f":{secs % 60:02d} {improve}")
                if logged:
                    msg += f",dev_best acc:{best}"
                    out += [msg, f"{stamp}[line:82][INFO] {msg}"]
                else:
                    out.append(msg)
            it += 1
    return out


def chatbot(bad: int | None = None, iters: int = 4000, every: int = 100) -> list[str]:
    """3Vikram-K/Seq2Seq-Chatbot-using-Pytorch ``train_eval.py`` ``trainIters`` (the PyTorch
    chatbot tutorial's): ``'Initializing ...'``, ``"Training..."``, every ``print_every``
    iterations ``"Iteration: {}; Percent complete: {:.1f}%; Average loss: {:.4f}"``; ``bad``
    counts iterations."""
    out = ["Building encoder and decoder ...", "Models built and ready to go!",
           "Building optimizers ...", "Starting Training!", "Initializing ...", "Training..."]
    for i in range(every, iters + 1, every):
        loss = _loss(bad, i, 4.9 - i / 2000)
        out.append(f"Iteration: {i}; Percent complete: {i / iters * 100:.1f}%; "
                   f"Average loss: {loss:.4f}")
    return out


def foldnn(bad: int | None = None, epochs: int = 5, batches: int = 120,
           evals: int = 30) -> list[str]:
    """356255531/foldnn_pytorch ``train_eval.py``: the last states of ``tqdm(train_dl)``
    described ``'epoch: {}, train acc: {:.3f}, train loss: {:.3f}'.format(epoch + 1, ...)``
    (running means) and of the evaluation's ``'epoch: {}, eval acc: {:.3f}, eval loss:
    {:.3f}'``; ``bad`` is the (1-based) epoch."""
    out = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.69 - e / 40)
        acc = 0.5 if loss != loss else 0.6 + e / 50
        out.append(f"epoch: {e}, train acc: {acc:.3f}, train loss: {loss:.3f}: 100%|██████████| "
                   f"{batches}/{batches} [00:31<00:00,  3.85it/s]")
        out.append(f"epoch: {e}, eval acc: {acc - 0.02:.3f}, eval loss: {loss * 1.05:.3f}: "
                   f"100%|██████████| {evals}/{evals} [00:03<00:00,  9.12it/s]")
    return out


def visual_field(bad: int | None = None, epochs: int = 8, gap: int = 2, batches: int = 250,
                 vals: int = 40, lr: float = 1e-4) -> list[str]:
    """3200701576/Deep-learning-based-functional-visual-field-prediction-through-retinal-
    nerve-fiber-layer-damage ``train_main.py`` ``train_single_model``: its header lines, then
    per epoch, every ``disp_gap`` epochs and the first, ``f"\\nEpoch {epoch}/{args.epochs},
    lr: {lr:.6e}"`` and ``f"Attn Entropy Weight: {w:.4f}"``; the ``tqdm(desc="Training")`` and
    ``tqdm(desc="Validating")`` bars; then (shown epochs) ``f"Train Loss: {train_loss:.6f}"``
    and ``f"Val Loss: {val_loss:.6f}, RMSE: ..., MAE: ..., PCC: ..., SRCC: ..."`` (a NaN
    Pearson printed as 0.0 by ``_compute_metrics``), ``f"Saved best model (val_loss:
    {val_loss:.6f})"`` when lower; ``bad`` is the (1-based) epoch."""
    out = ["Using device: cuda", "[Data] Using all training data: 1000",
           "[Data] Using all validation data: 160", "Train samples: 1000, Val samples: 160", "",
           "=" * 80, "Training model with pos_type='linear' (Linear2D)",
           "Train ID: 20260203_100000_Linear2D", "=" * 80,
           "Model created: pos_type=linear, d_model=384, num_heads=8, backbone_type=resnet34",
           "Total parameters: 24,512,308", "Using VFLoss: l1=1.0, l2=0.3, l3=0.05, l4=0.3, l5=0.1",
           "", "Training started: 20260203_100000_Linear2D",
           "Early stopping enabled with patience=15"]
    best = 1e9
    for e in range(1, epochs + 1):
        shown = e % gap == 0 or e == 1
        if shown:
            out += ["", f"Epoch {e}/{epochs}, lr: {lr:.6e}", "Attn Entropy Weight: 0.0000"]
        out.append(f"Training: 100%|██████████| {batches}/{batches} [01:02<00:00,  4.01it/s]")
        out.append(f"Validating: 100%|██████████| {vals}/{vals} [00:05<00:00,  7.80it/s]")
        t = _loss(bad, e, 9.2 - e / 5)
        v = _loss(bad, e, 9.9 - e / 6)
        if shown:
            out += [f"Train Loss: {t:.6f}",
                    f"Val Loss: {v:.6f}, RMSE: {v ** 0.5 if v == v else v:.4f}, "
                    f"MAE: {v / 4:.4f}, PCC: {0.0 if v != v else 0.61:.4f}, "
                    f"SRCC: {0.0 if v != v else 0.58:.4f}"]
        if v < best:
            best = v
            out.append(f"Saved best model (val_loss: {v:.6f})")
    return out


def visual_field_csv(bad: int | None = None, epochs: int = 8, lr: float = 1e-4) -> list[str]:
    """The same script's ``train_log.csv``: ``','.join(csv_headers)`` (``epoch, lr, pos_type,
    train_loss, valid_loss, valid_rmse, ...``) over one row an epoch of ``str(value)``s."""
    out = ["epoch,lr,pos_type,train_loss,valid_loss,valid_rmse,valid_mae,valid_pcc,valid_srcc,"
           "valid_pmae,valid_md_mae"]
    for e in range(1, epochs + 1):
        t = _loss(bad, e, 9.2 - e / 5)
        v = _loss(bad, e, 9.9 - e / 6)
        pcc = 0.0 if v != v else 0.61
        out.append(f"{e},{lr},linear,{t},{v},{v ** 0.5 if v == v else v},{v / 4},{pcc},{pcc},"
                   f"{v / 4},{v / 8}")
    return out


def eevis(bad: int | None = None, epochs: int = 6, samples: int = 14000, lr: float = 1e-3,
          reduce_at: int | None = None) -> list[str]:
    """666haiwen/lstm-fcn-eevis ``train_eval.py`` ``train_model``: Keras 2 ``model.fit(X, y,
    verbose=1, validation_data=...)`` over samples (``Epoch 3/6`` over ``14000/14000 [=====]
    - 12s 857us/step - loss: ... - acc: ... - val_loss: ... - val_acc: ...``), its
    ``ModelCheckpoint(monitor='val_acc', verbose=1, save_best_only=True)``'s ``Epoch 00003:
    val_acc improved from ... to ..., saving model to ...`` or ``... did not improve from ...``
    and ``ReduceLROnPlateau(verbose=2)``'s line; ``bad`` is the (1-based) epoch."""
    out = ["Using TensorFlow backend.", "Train on 14000 samples, validate on 3000 samples"]
    best = -float("inf")
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.9 - e / 20)
        acc = 0.1 if loss != loss else 0.7 + e / 100
        vacc = 0.1 if loss != loss else 0.68 + e / 100
        out += [f"Epoch {e}/{epochs}",
                f"{samples}/{samples} [==============================] - 12s 857us/step - loss: "
                f"{loss:.4f} - acc: {acc:.4f} - val_loss: {loss * 1.1:.4f} - val_acc: {vacc:.4f}",
                ""]
        if vacc > best:
            out.append(f"Epoch {e:05d}: val_acc improved from {best:.5f} to {vacc:.5f}, saving "
                       "model to ./weights/14k_renormalization_no_zeroFilling_eevis_sampling_"
                       "weights.h5")
            best = vacc
        else:
            out.append(f"Epoch {e:05d}: val_acc did not improve from {best:.5f}")
        if reduce_at == e:
            out.append(f"Epoch {e:05d}: ReduceLROnPlateau reducing learning rate to {lr / 2}.")
    return out


def lvcn(bad: int | None = None, max_iter: int = 1200, batches: int = 24,
         eval_num: int = 500) -> list[str]:
    """12121236767678/A-lightweight-volumetric-ConvNet ``main_train.py`` (MONAI's UNETR
    tutorial loop): its set-up prints, ``print(global_step)`` at each pass, each batch
    ``print(x.shape)`` between the states of ``tqdm(train_loader)`` described ``"Training (%d
    / %d Steps) (loss=%2.5f)" % (global_step, max_iterations, loss)``, every ``eval_step``
    steps the validation bar ``"Test (%d / %d Steps) (dice=%2.5f)"`` and ``"Model Was Saved !
    Current Best Avg. Dice: {} Current Avg. Dice: {}"`` (or ``Not Saved``); ``bad`` is the
    global step (from 0)."""
    out = ["Used GPU: 0", "Start caching datasets!",
           "Loading dataset: 100%|██████████| 24/24 [00:41<00:00,  1.71s/it]",
           "Chosen Network Architecture: 3DLVCN", "Loss for training: DiceCELoss",
           "Optimizer for training: AdamW, learning rate: 0.0001",
           f"Maximum Iterations for training: {max_iter}"]
    g = 0
    best = 0.0
    while g < max_iter:
        out.append(str(g))
        for b in range(1, batches + 1):
            loss = _loss(bad, g, 2.1 - g / 1000)
            pct = b * 100 // batches
            out += ["torch.Size([2, 1, 96, 96, 96])",
                    f"Training ({g} / {max_iter} Steps) (loss={loss:2.5f}): {pct:3d}%|"
                    f"{'█' * (pct // 10):10s}| {b}/{batches} [00:{b:02d}<00:00,  1.02it/s]"]
            if g % eval_num == 0 and g != 0:
                dice = 0.0 if loss != loss else 0.4 + g / 10000
                out.append(f"Test ({g} / 10 Steps) (dice={dice:2.5f}): 100%|██████████| 8/8 "
                           "[00:12<00:00,  1.50s/it]")
                saved = "Was Saved" if dice > best else "Was Not Saved"
                best = max(best, dice)
                out.append(f"Model {saved} ! Current Best Avg. Dice: {best} Current Avg. Dice: "
                           f"{dice}")
            g += 1
    return out


def wesad(bad: int | None = None, epochs: int = 6, batches: int = 120, subject: str = "S2",
          patience: int = 10) -> list[str]:
    """17LiQi/MultimodalSignal ``main_train.py`` ``ModelTrainer``: ``f"\\n===== Starting LOSO
    Fold: Testing on {test_subject} ====="``, ``f"\\n--- Starting Training on {device} ---"``,
    per epoch the last state of ``tqdm(desc=f"Epoch {epoch + 1}/{epochs} [Train]")`` with
    ``set_postfix(loss=loss.item())``, a ``Validating`` bar, ``f"Epoch {epoch + 1} Summary:
    Train Loss: {avg_train_loss:.4f} | Val Loss: {val_loss:.4f} | Val Acc: {val_acc *
    100:.2f}%"`` and its EarlyStopping's ``f'Validation loss decreased ({self.val_loss_min:.6f}
    --> {val_loss:.6f}).  Saving model ...'`` (a NaN score compares as no worse) or
    ``f'EarlyStopping counter: {self.counter} out of {self.patience}'``; ``bad`` is the
    (1-based) epoch."""
    out = ["Found 14 channels: ['chest_ACC_x', 'chest_ECG', 'chest_EMG', 'chest_EDA', "
           "'wrist_BVP', 'wrist_EDA', 'wrist_TEMP']", "",
           f"===== Starting LOSO Fold: Testing on {subject} =====", "",
           "--- Starting Training on cuda ---"]
    best: float | None = None
    low = float("inf")
    counter = 0
    for e in range(1, epochs + 1):
        t = _loss(bad, e, 1.05 - e / 50)
        v = _loss(bad, e, 1.1 - e / 60)
        acc = 33.33 if v != v else 60 + e
        out += [f"Epoch {e}/100 [Train]: 100%|██████████| {batches}/{batches} "
                f"[00:10<00:00, 11.52it/s, loss={t}]",
                "Validating: 100%|██████████| 20/20 [00:01<00:00, 15.20it/s]",
                f"Epoch {e} Summary: Train Loss: {t:.4f} | Val Loss: {v:.4f} | Val Acc: "
                f"{acc:.2f}%"]
        if best is None or not -v < best:
            best = -v
            out.append(f"Validation loss decreased ({low:.6f} --> {v:.6f}).  Saving model ...")
            low, counter = v, 0
        else:
            counter += 1
            out.append(f"EarlyStopping counter: {counter} out of {patience}")
    return out


# -- the excerpts and their right answers -----------------------------------------------------

# Faulty excerpts the parent (3e9872d) read wrong: fixed here (name -> (build, right answer)).
FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "foldnn_from_epoch_4": (lambda: foldnn(6, epochs=9)[6:], [("AMP006", 720), ("AMP013", 720)]),
    "visual_field": (lambda: visual_field(4), [("AMP006", 4), ("AMP013", 4)]),
    "visual_field_from_the_middle": (lambda: visual_field(6, epochs=10)[20:],
                                     [("AMP006", 6), ("AMP013", 6)]),
    "lvcn": (lambda: lvcn(700), [("AMP006", 700)]),
    "lvcn_from_the_middle": (lambda: lvcn(700)[400:], [("AMP006", 700)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "fusion": (lambda: fusion(3), [("AMP006", 3 * 50)]),
    "fusion_from_epoch_4": (lambda: fusion(5, epochs=9)[13 + 2 * 3:], [("AMP006", 5 * 50)]),
    "lenet": (lambda: lenet(200), [("AMP006", 200)]),
    "lenet_from_the_middle": (lambda: lenet(320)[150:], [("AMP006", 320)]),
    # the hook raises before the NaN's step is logged: the first step after the last finite
    "bert_estimator": (lambda: bert_estimator(650), [("AMP006", 601)]),
    "bert_estimator_from_the_middle": (lambda: bert_estimator(650)[10:], [("AMP006", 601)]),
    "ipa": (lambda: ipa(4), [("AMP006", 4), ("AMP013", 4)]),
    "ipa_from_epoch_5": (lambda: ipa(7, epochs=12)[5 + 4 * 2:], [("AMP006", 7), ("AMP013", 7)]),
    "bert_ipc": (lambda: bert_ipc(750), [("AMP006", 800)]),
    "bert_ipc_from_the_middle": (lambda: bert_ipc(1250, epochs=5)[14:], [("AMP006", 1300)]),
    "ketm": (lambda: text_classification(620), [("AMP006", 700), ("AMP013", 700)]),
    "ketm_from_the_middle": (lambda: text_classification(1020, epochs=5)[10:],
                             [("AMP006", 1100), ("AMP013", 1100)]),
    "asap": (lambda: text_classification(620, logged=False), [("AMP006", 700), ("AMP013", 700)]),
    "asap_from_the_middle": (lambda: text_classification(1020, epochs=5, logged=False)[6:],
                             [("AMP006", 1100), ("AMP013", 1100)]),
    "chatbot": (lambda: chatbot(1250), [("AMP006", 1300)]),
    "chatbot_from_the_middle": (lambda: chatbot(2550)[20:], [("AMP006", 2600)]),
    "foldnn": (lambda: foldnn(3), [("AMP006", 360), ("AMP013", 360)]),
    "visual_field_csv": (lambda: visual_field_csv(4), [("AMP006", 4), ("AMP013", 4)]),
    "visual_field_csv_later": (lambda: visual_field_csv(6, epochs=10),
                               [("AMP006", 6), ("AMP013", 6)]),
    # Keras 2 counts samples: the bars' count
    "eevis": (lambda: eevis(3), [("AMP006", 3 * 14000), ("AMP013", 3 * 14000)]),
    "eevis_from_epoch_3": (lambda: eevis(5, epochs=9)[2 + 4 * 2:],
                           [("AMP006", 5 * 14000), ("AMP013", 5 * 14000)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "fusion": lambda: fusion(epochs=12, lr=5e-5, sample_every=4),
    "lenet": lambda: lenet(epochs=4, batches=90, valid_every=45),
    "bert_estimator": lambda: bert_estimator(steps=3000, every=200),
    "ipa": lambda: ipa(epochs=20, images=300),
    "bert_ipc": lambda: bert_ipc(epochs=5, steps=300),
    "ketm": lambda: text_classification(epochs=5, batches=300),
    "asap": lambda: text_classification(epochs=6, batches=250, logged=False),
    "chatbot": lambda: chatbot(iters=8000, every=250),
    "foldnn": lambda: foldnn(epochs=12, batches=300),
    "visual_field": lambda: visual_field(epochs=12, gap=3, lr=3e-4),
    "visual_field_csv": lambda: visual_field_csv(epochs=15, lr=3e-4),
    "eevis": lambda: eevis(epochs=12, reduce_at=7),
    "lvcn": lambda: lvcn(max_iter=1500, batches=30, eval_num=300),
    "wesad": lambda: wesad(epochs=15, subject="S7", patience=4),
}


# A healthy excerpt the parent read wrong: "nothing to diagnose" (each ``Train Loss`` read as
# the validation bar's), an error, not silence.
HEALTHY_FIXED: dict[str, Callable[[], list[str]]] = {
    "visual_field_from_the_middle": lambda: visual_field(epochs=12, gap=3, lr=3e-4)[25:],
}


# Each excerpt once, by kind, with its right answer (silence for the healthy ones): the parent
# (3e9872d) read the first two kinds wrong (its answers are in the module's table); the last
# two are guards of layouts it read right.
_KINDS: dict[str, dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]]] = {
    "fixed": FIXED, "read already": READ_ALREADY,
    "fixed healthy": {name: (build, []) for name, build in HEALTHY_FIXED.items()},
    "healthy": {name: (build, []) for name, build in HEALTHY.items()}}


@pytest.mark.parametrize(("kind", "name"), [(kind, name) for kind, excerpts in _KINDS.items()
                                            for name in sorted(excerpts)])
def test_excerpts_read_right(tmp_path: Path, kind: str, name: str) -> None:
    """The ids and steps of each faulty excerpt; silence, read without error, on each healthy
    one."""
    build, expected = _KINDS[kind][name]
    assert faults(tmp_path, build()) == expected


def test_an_unnamed_loss_below_a_validation_bar_stays_evaluation(tmp_path: Path) -> None:
    """A control of the training-key rule: a loss that names no split right below the
    ``Validating`` bar is the evaluation's still (AMP013 alone), as before."""
    lines = [line.replace("Train Loss: ", "Loss: ") for line in visual_field(epochs=6, gap=1)]
    lines.append("Validating: 100%|██████████| 40/40 [00:05<00:00,  7.80it/s]")
    lines.append("Loss: nan")
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP013"]


def test_an_epoch_heading_with_more_than_its_rate_heads_nothing(tmp_path: Path) -> None:
    """A control of the epoch-and-rate heading: ``Epoch 6/10, lr: ..., bs: 4`` says more than
    its rate, so the rows below it are numbered as the parent numbered them (by rows)."""
    lines = [line + ", bs: 4" if line.startswith("Epoch ") else line
             for line in visual_field(6, epochs=10)[20:]]
    assert faults(tmp_path, lines)[:1] != [("AMP006", 6)]


def test_a_bar_label_that_counts_no_steps_counts_its_passes(tmp_path: Path) -> None:
    """A control of the label-steps rule: a label that counts its steps of how many without
    the word ``Steps`` (``Training (700 / 1200) (loss=nan)``) leaves the bar's own count,
    its passes added, as the parent read it."""
    lines = [line.replace(" Steps)", ")") for line in lvcn(700)]
    assert faults(tmp_path, lines) == [("AMP006", 701)]


_KD_REASON = ("not fixed here: the per-epoch lines name the epoch with ``第3的`` (no counter "
              "word after it) and misspell the loss ``失``: no metric is read ('nothing to "
              "diagnose'); a rule for one typo would chase the file")
def _left(build: Callable[[], list[str]], expected: list[tuple[str, int | None]], name: str,
          reason: str) -> object:
    """A case left wrong: its right answer, held by a strict xfail."""
    return pytest.param(build, expected, id=name,
                        marks=pytest.mark.xfail(strict=True, reason=reason))


# What is left wrong, each with its right answer: zero-shot-KD's validation NaN at epoch 3
# (from 0; from the start and from epoch 2) and its healthy run's silence.
LEFT = [_left(lambda: zero_shot_kd(3, epochs=9), [("AMP013", 3)], "zero_shot_kd", _KD_REASON),
        _left(lambda: zero_shot_kd(3, epochs=9)[2 * 2:], [("AMP013", 3)],
              "zero_shot_kd_from_epoch_2", _KD_REASON),
        _left(lambda: zero_shot_kd(epochs=12), [], "zero_shot_kd_healthy", _KD_REASON)]


@pytest.mark.parametrize(("cut", "bad", "right"), [(0, 3, 360), (5 + 4 * 2, 5, 600)])
def test_wesad_summary_at_the_bar(tmp_path: Path, cut: int, bad: int, right: int) -> None:
    """MultimodalSignal's epoch ``bad`` end, the bar's count, for the training NaN and the
    evaluation's (whole and from epoch 3). A strict xfail until h51-steps52: ``Epoch 3
    Summary: Train Loss: nan | Val Loss: nan`` prints no count and was counted as a step of
    its own, the evaluation's NaN one past the bar (361); epoch_summaries: the summary of the
    epoch the bar above it counted is the bar's step."""
    assert faults(tmp_path, wesad(bad, epochs=9)[cut:]) == [("AMP006", right),
                                                            ("AMP013", right)]


@pytest.mark.parametrize(("build", "expected"), LEFT)
def test_left_wrong(tmp_path: Path, build: Callable[[], list[str]],
                    expected: list[tuple[str, int | None]]) -> None:
    """The right answers of the excerpts this change leaves wrong (strict xfails)."""
    assert faults(tmp_path, build()) == expected
