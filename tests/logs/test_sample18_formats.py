"""A random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 25 scripts (the repositories that hold a ``train.py``, in the order the
code index lists them from ``Chat-SBD/network`` on, none named by another test; skipped: those
whose ``train.py`` runs no loop of its own or prints nothing of it (Chat-SBD/network,
Chateaubriand-g/Mysr3, Chebawca21/translating-idioms-en-pl) and, by name, those plainly no
neural training or left for time (a Flask chatbot, MLOps and scikit-learn projects, a DDQN, a
splatting pipeline, Chazak-dev's, CheZiLi-rgb's, CheanBotum's)), each excerpt built from
the script's own print and logging format strings (one builder a script below, the repository
and file in its docstring): a healthy run with settings other than the script's defaults,
and a faulty one (a NaN loss from step N, or at epoch E where the script prints per epoch;
apex's own overflow lines where the script trains with apex and the scale collapses).

Each script as repository ``file``: the format; the doctor's answer on the parent (17511bc)
-> the right one ("=": the same):

- Chatchanan-V/PRiDAN ``train.py``: ``Epoch 4/11``, a rule, ``train Loss: nan Reg: ...``;
  AMP006 5 -> AMP006 4. From epoch 4 on: AMP006 4 -> AMP006 7 (NaN at epoch 7).
- the same with ``--fp16`` (apex ``amp/scaler.py``: ``Gradient overflow.  Skipping step, ...``
  24 times in epoch 5); AMP003 7, AMP004 22 -> AMP003 5, AMP004 20.
- Chathurvedhi/Deep-Learning-CS6910 ``train.py``: ``Epoch: 4 Train Loss: nan ... Val Loss:
  nan ...``; AMP006 4, AMP013 4 =.
- Chatonz/Resnet ``train.py``: ``Epoch: 4 <tab>Training Loss: nan <tab>Validation Loss: nan``;
  AMP006 4, AMP013 4 =.
- ChatterMonkey/MNIST-test-neural-net ``train.py``: ``Training batch 15``, ``Train Epoch:
  [480/60000 (1%)]<tab>Loss: nan``; AMP006 6 -> AMP006 15 (strict xfail).
- ChatterjeeAyan/fm4tlp ``train.py``: ``Epoch: 04, Loss: nan, Training elapsed ...``; AMP006 4 =.
- Chaudhary-IIT/SilentSpeaker ``train.py``: Keras 2 ``fit``, ``25/25 [===...] - 41s 2s/step -
  loss: nan``; AMP006 75 =.
- Chauhanjay0912/MediClassify ``utils.py``: ``Epoch 4/7``, ``Train Loss: nan Acc: ...``;
  AMP006 4, AMP013 4 =. Pasted from epoch 4 on, NaN at 6: AMP006 3, AMP013 3 -> 6, 6.
- ChauhdryAhmad/CNN_classifier ``train.py``: ``Batch N``, ``Epoch 3/5``, ``Train Loss: nan |
  Train Acc: ...``; AMP006 3 =.
- ChavezAILabs/sedenion-transformer-tinystories ``train.py``: ``step  1000 | lr ... | train
  nan | val nan | 400s``; AMP013 1000 -> AMP006 1000, AMP013 1000. Its ``train_log.csv``
  (``step,lr,train_loss``): AMP006 600 =.
- ChawDoe/LeNet5-MNIST-PyTorch ``train.py``: ``idx: 70, loss: nan`` (from 0 each epoch);
  AMP006 32 -> AMP006 70.
- ChawinKatpark/thai-gpt ``train.py``'s ``training_log.jsonl``: ``{"time": ..., "step": N,
  "train_loss": NaN}``; AMP006 20000 =.
- ChayanBanga/cifar10-cnn ``train.py``: tqdm ``Epoch 03: 100%|...| 196/196 [..., acc=...,
  loss=nan]``; AMP006 784 -> AMP006 588 (NaN in epoch 01: 392 -> 196).
- ChawlaAvi/Question_Answering_on_SQuAD ``train.py``'s results file: ``Training Loss Epoch
  4--> nan``; AMP006 4, AMP013 4 =.
- Chcltms/DeepGrabCut_Davis_finetune ``train.py``: ``[Epoch: 3, numImages:  1176]`` over
  ``Loss: nan``; AMP006 4 -> AMP006 3.
- Che1ry-X/rscl4dc ``train.py``: ``Epoch 003/60: train loss=nan, ...; val loss=nan, ...``;
  AMP006 3, AMP013 3 =.
- CheChc/WiFi_CSI ``train.py``'s ``training.log``: ``... - Epoch [3/4], Step [10/57], Loss:
  nan``; AMP006 124, AMP013 165 -> 164 (h51-steps52).
- ChayutWo/license-plate-recogition ``utils/train_test_step.py``: ``19_Apr_2020@13:03:12 <3
  Train(3): Loss: nan``; AMP006 3, AMP013 3 =.
- CheKaiWei/Auto-spikformer ``train.py`` (timm's): ``Train: 1 [ 150/391 ( 39%)]  Loss:
  nan (   nan)``; AMP006 541 =.
- CheNgH826/Conversation_MLfinal ``train.py``: Keras 2 ``fit`` on arrays, ``95000/95000
  [===...] ... loss: nan``; AMP006 285000, AMP013 285000 = (samples: no batch size printed).
- CheMiJu/fruit_object_detect ``train.py`` (keras-yolo3's): ``fit_generator``, ``56/56 [===...]
  ... loss: nan``; AMP006 168, AMP013 168 =.
- CheRryLeit/MetricSum ``module/trainer.py``: ``epoch:   0 | step:   30 | loss: nan, ...``
  joined by carriage returns; AMP006 30 =.
- CheSauRie/ADD ``src/training/engine.py``: ``[Epoch 2] Step 120/398 Loss: nan LR: ...``;
  AMP006 518, AMP013 759 -> 758 (h51-steps52).
- Chechgm/causal_effect_estimation_using_nade ``train.py``: ``trange(..., ascii=True)``
  redrawn every 10 epochs, ``Loss=nan`` in its postfix, one line of carriage returns;
  AMP006 240 =.
- CheddarChoi/super-resolution ``train.py``: ``12000/300000: loss = nan, PSNR = ...``
  (``Trainer``), ``1000/200000, perceptual loss = nan, discriminator loss = nan``
  (``SrganTrainer``); AMP006 12000 =, AMP006 1000 =.
- Chebart/Transformer-Based-OCR ``train.py``: ``progress_bar.write(str(loss.item()))``, ``nan``
  alone on its line; silent -> AMP006 30 (strict xfail).

Healthy, with settings other than the defaults: silent on all 29 before and after (29/29; the
OCR script's healthy losses are "nothing to diagnose", no false alarm either, as the
sedenion script's healthy log was on the parent, its ``val`` read alone).
Faulty: right on 20 of 31 before, 29 of 31 after (the two strict xfails are left). "Right":
the ids, and the step as the log prints it (an epoch, a step or batch counter, a bar's count).

Fixed here, each by a rule of layout:

- An ``Epoch N/M`` line alone (PRiDAN's and MediClassify's heading of an epoch) numbers a
  step-less summary row below it with its epoch, also with a rule between (reader.py
  ``_EPOCH_END``; metric_reader.py ``_fit_header``): before, the row was numbered as a row
  (off by one from 0, and from 1 in an excerpt that starts later).
- A bracketed epoch and its counts alone on a line (``[Epoch: 3, numImages:  1176]``) hands its
  epoch to the ``Loss:`` line below it (reader.py ``_EPOCH_END``).
- A tqdm bar whose epoch is zero-padded (``Epoch 03:``) is a loop's own, numbered from 1 unless
  ``Epoch 00`` opens it; Lightning never pads its ``Epoch 3:`` (lightning.py ``Bars``).
- The training split's name keying its value beside a held-out split's (``train 4.2 | val
  4.3``) is the training loss, as ``val`` keys the evaluation's (metric_pairs.py
  ``training_split_value``).
- ``idx`` alone keys a batch counter, as ``batch`` and ``batch_idx`` do (lexicon.py); a named
  index (``class idx``) stays none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def pridan(bad: int | None = None, epochs: int = 12, margin: float = 0.45) -> list[str]:
    """Chatchanan-V/PRiDAN ``train.py`` (apex amp O1 with ``--fp16``): per epoch
    ``'Epoch {}/{}'``, ``'-' * 10``, ``'now_margin: %.4f'``, ``'{} Loss: {:.4f} Reg: {:.4f}
    Acc: {:.4f} MeanMargin: {:.4f}'`` for the phase ``train``, then ``print()``; NaN from
    epoch ``bad`` (0-based, as printed) on."""
    out: list[str] = []
    for e in range(epochs):
        loss = _loss(bad, e, 0.31 - e / 100)
        out += [f"Epoch {e}/{epochs - 1}", "-" * 10, f"now_margin: {margin:.4f}",
                "{} Loss: {:.4f} Reg: {:.4f} Acc: {:.4f} MeanMargin: {:.4f}".format(
                    "train", loss, 0.0, 0.52 + e / 100, loss if loss != loss else 0.2), ""]
    return [*out, "Training complete in 41m 7s"]


def cs6910(bad: int | None = None, epochs: int = 8) -> list[str]:
    """Chathurvedhi/Deep-Learning-CS6910 ``train.py`` (a numpy network):
    ``f"Epoch: {ep} Train Loss: {train_loss} Train Acc: {train_acc} Val Loss: {val_loss} Val
    Acc: {val_acc}"`` (floats as repr), epochs from 1, then ``"Model trained :)"``; once the
    training loss is NaN the weights are, and so is the validation loss."""
    out = [f"{128 // 2}"]  # ``print(args.batch_size)``, here 64
    for ep in range(1, epochs + 1):
        tl, vl = _loss(bad, ep, 0.61 / ep ** 0.5), _loss(bad, ep, 0.66 / ep ** 0.5)
        out.append(f"Epoch: {ep} Train Loss: {tl} Train Acc: {0.78 + ep / 100} Val Loss: {vl}"
                   f" Val Acc: {0.1 if tl != tl else 0.77 + ep / 100}")
    return [*out, "Model trained :)"]


def chatonz_resnet(bad: int | None = None, epochs: int = 9) -> list[str]:
    """Chatonz/Resnet ``train.py``: per epoch ``print("Accuracy:", 100*right/total, "%")``,
    ``'Epoch: {} \\tTraining Loss: {:.6f} \\tValidation Loss: {:.6f}'`` and, when the
    validation loss fell, ``'Validation loss decreased ({:.6f} --> {:.6f}).  Saving model
    ...'`` (the minimum starts at ``np.Inf``)."""
    out: list[str] = []
    best = float("inf")
    for e in range(1, epochs + 1):
        tl, vl = _loss(bad, e, 1.6 / e), _loss(bad, e, 1.5 / e + 0.1)
        acc = 10.0 if tl != tl else 40 + e * 3.125
        out += [f"Accuracy: {acc} %", f"Epoch: {e} \tTraining Loss: {tl:.6f} \tValidation Loss: "
                f"{vl:.6f}"]
        if vl <= best:
            out.append(f"Validation loss decreased ({best:.6f} --> {vl:.6f}).  Saving model ..."
                       )
            best = vl
    return out


def mnist_monkey(bad: int | None = None, batches: int = 30, every: int = 5,
                 size: int = 32) -> list[str]:
    """ChatterMonkey/MNIST-test-neural-net ``train.py``: every ``log_interval`` batches
    ``print("LOSS IS {}".format(loss))`` (the tensor's repr), ``"Training batch {}"`` and
    ``'Train Epoch:  [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'`` (no epoch printed)."""
    out: list[str] = []
    for b in range(0, batches, every):
        loss = _loss(bad, b, 2.3 - b / 40)
        shown = "nan" if loss != loss else f"{loss:.4f}"
        out += [f"LOSS IS tensor({shown}, grad_fn=<NllLossBackward0>)", f"Training batch {b}",
                f"Train Epoch:  [{b * size}/{60000} ({100.0 * b / 1875:.0f}%)]\tLoss: {loss:.6f}"]
    return out


def fm4tlp(bad: int | None = None, epochs: int = 6, metric: str = "mrr") -> list[str]:
    """ChatterjeeAyan/fm4tlp ``train.py``: per epoch ``f'INFO: Epoch {epoch}.'``, ``f'Epoch:
    {epoch:02d}, Loss: {loss:.4f}, Training elapsed Time (s): {t: .4f}'``, ``'INFO: Starting
    validation.'``, ``f'\\tValidation {metric}: {v: .4f}'``, ``f'\\tValidation AUC: {auc:
    .4f}'``, ``f'\\tValidation: Elapsed time (s): {t: .4f}'``."""
    out = ["INFO: done setting up early stopping."]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.92 - e / 20)
        v = 0.0 if loss != loss else 0.31 + e / 50
        out += [f"INFO: Epoch {e}.", f"Epoch: {e:02d}, Loss: {loss:.4f}, Training elapsed "
                f"Time (s): {61.25 + e: .4f}", "INFO: Starting validation.",
                f"\tValidation {metric}: {v: .4f}", f"\tValidation AUC: {0.5 + v / 2: .4f}",
                f"\tValidation: Elapsed time (s): {12.5: .4f}"]
    return out


def keras_fit(bad: int | None = None, epochs: int = 6, batches: int = 25) -> list[str]:
    """Chaudhary-IIT/SilentSpeaker ``train.py``: ``model.train_model.fit(data_gen,
    epochs=...)``, so tf.keras 2's ``ProgbarLogger`` (keras ``utils/generic_utils.py``
    ``Progbar``: ``'Epoch %d/%d'``, then at the epoch's end ``'%d/%d [%s] - %ds %dms/step -
    loss: %.4f'``; a CTC loss, so tens)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 96.5 - e * 7.25)
        out += [f"Epoch {e}/{epochs}", f"{batches}/{batches} [==============================]"
                f" - 41s 2s/step - loss: {loss:.4f}"]
    return out


def card_cnn(bad: int | None = None, epochs: int = 5, batches: int = 3) -> list[str]:
    """ChauhdryAhmad/CNN_classifier ``train.py`` (a numpy network): ``f"Batch {batch}"``
    per batch, then ``f"Epoch {epoch + 1}/{config['epochs']}"``, ``f"Train Loss:
    {epoch_loss:.4f} | Train Acc: {epoch_acc:.4f}"``, ``f"Val Acc: {val_acc:.4f}"``,
    ``"Saved new best weights!"`` when it rose, ``"---------------------"``."""
    out = ["Using CPU"]
    best = 0.0
    for e in range(epochs):
        out += [f"Batch {b}" for b in range(batches)]
        loss = _loss(bad, e + 1, 1.5 - e / 10)
        acc = 0.2 if loss != loss else 0.4 + e / 20
        out += [f"Epoch {e + 1}/{epochs}", f"Train Loss: {loss:.4f} | Train Acc: {acc:.4f}",
                f"Val Acc: {acc - 0.01:.4f}"]
        if acc - 0.01 > best:
            best = acc - 0.01
            out.append("Saved new best weights!")
        out.append("---------------------")
    return out


def sedenion(bad: int | None = None, steps: int = 3000, every: int = 250) -> list[str]:
    """ChavezAILabs/sedenion-transformer-tinystories ``train.py``: every ``eval_interval``
    steps ``f"step {step:5d} | lr {lr:.2e} | train {ev['train']:.4f} | val {ev['val']:.4f}
    | {rec['elapsed_s']:.0f}s"``, the losses under the names of their splits."""
    out = ["variant=V2 d_model=256 mlp=1024 params=3,214,080 flops/tok=19,284,480"]
    for s in range(0, steps + 1, every):
        tr, va = _loss(bad, s, 4.2 - s / 1000), _loss(bad, s, 4.25 - s / 1000)
        out.append(f"step {s:5d} | lr {6e-4 * min(1, (s + 1) / 200):.2e} | train {tr:.4f} "
                   f"| val {va:.4f} | {s * 0.4:.0f}s")
    return out


def sedenion_csv(bad: int | None = None, steps: int = 1200, every: int = 20) -> list[str]:
    """The same script's ``train_log.csv`` (``csv_w.writerow(["step", "lr", "train_loss"])``,
    then every ``log_interval`` steps ``[step, f"{lr:.6e}", f"{loss.item():.6f}"]``)."""
    return ["step,lr,train_loss"] + [
        f"{s},{6e-4 * min(1, (s + 1) / 200):.6e},{_loss(bad, s, 4.2 - s / 1000):.6f}"
        for s in range(0, steps, every)]


def lenet(bad: int | None = None, epochs: int = 3, batches: int = 235,
          every: int = 10) -> list[str]:
    """ChawDoe/LeNet5-MNIST-PyTorch ``train.py``: every 10 batches ``'idx: {}, loss:
    {}'.format(idx, loss.sum().item())`` (the index starts again each epoch), then
    ``'accuracy: {:.2f}'``; ``bad`` counts batches over the whole run."""
    out: list[str] = []
    for e in range(epochs):
        for idx in range(0, batches, every):
            loss = _loss(bad, e * batches + idx, 2.3 / (1 + (e * batches + idx) / 50))
            out.append(f"idx: {idx}, loss: {loss}")
        out.append("accuracy: {:.2f}".format(0.1 if bad is not None and (e + 1) * batches
                                               > bad else 0.91 + e / 100))
    return out


def mediclassify(bad: int | None = None, epochs: int = 7) -> list[str]:
    """Chauhanjay0912/MediClassify ``utils.py`` ``train_model``: ``f'Epoch
    {epoch+1}/{num_epochs}'``, ``f'Train Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}'``,
    ``f'Val Loss: {epoch_val_loss:.4f} Acc: {epoch_val_acc:.4f}\\n'``; ``train.py`` opens with
    ``f"Using device: {DEVICE}"`` and ``"\\n--- Training Baseline Model ---"``."""
    out = ["Using device: cuda", "", "--- Training Baseline Model ---"]
    for e in range(1, epochs + 1):
        tl, vl = _loss(bad, e, 1.4 - e / 10), _loss(bad, e, 1.3 - e / 12)
        acc = 0.05 if tl != tl else 0.5 + e / 25
        out += [f"Epoch {e}/{epochs}", f"Train Loss: {tl:.4f} Acc: {acc:.4f}",
                f"Val Loss: {vl:.4f} Acc: {acc - 0.03:.4f}", ""]
    return out


def thai_gpt_jsonl(bad: int | None = None, steps: int = 60000, every: int = 4000) -> list[str]:
    """ChawinKatpark/thai-gpt ``train.py``'s ``training_log.jsonl``: every
    ``checkpoint_interval`` steps ``json.dumps({"time": ..., "step": step, "train_loss":
    float(loss.item())})`` (a NaN as ``NaN``)."""
    return [json.dumps({"time": f"2025-03-0{1 + s // 30000}T{10 + s // 8000:02d}:12:31.00"
                                f"{s % 9}123", "step": s,
                        "train_loss": _loss(bad, s, 6.1 - s / 20000)})
            for s in range(every, steps, every)]


def cifar_tqdm(bad: int | None = None, epochs: int = 6, batches: int = 196) -> list[str]:
    """ChayanBanga/cifar10-cnn ``train.py``: per epoch the final state of ``tqdm(train_loader,
    desc=f"Epoch {epoch+1:02d}")`` with ``set_postfix(loss=f"{loss.item():.4f}",
    acc=f"{...:.2f}%")`` (tqdm sorts the keyword postfix: ``acc`` first), then ``f"Epoch
    {epoch+1:02d} done | Acc: {...:.2f}%"``."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 1.45 - e / 10)
        acc = 10.0 if loss != loss else 48.0 + e * 4.5
        out += [f"Epoch {e:02d}: 100%|██████████| {batches}/{batches} [00:31<00:00,  6.21it/s,"
                f" acc={acc:.2f}%, loss={loss:.4f}]", f"Epoch {e:02d} done | Acc: {acc:.2f}%"]
    return out


def squad_results(bad: int | None = None, epochs: int = 6, lr: float = 0.001) -> list[str]:
    """ChawlaAvi/Question_Answering_on_SQuAD ``train.py``'s ``results/result_N.txt``: per
    epoch ``"Epoch->" + str(i)``, ``"learning_rate-> " + str(lr)``, then ``"\\nTraining Loss
    Epoch " + str(i) + "--> " + str(loss)``, ``"Dev Loss Epoch ...--> "``, ``"F1 ...--> "``,
    ``"Exact ...--> "`` and a blank line."""
    out: list[str] = []
    for i in range(1, epochs + 1):
        tl, dl = _loss(bad, i, 9.8 - i * 0.7), _loss(bad, i, 10.1 - i * 0.6)
        f1 = 0.0 if tl != tl else 31.2 + i * 3
        out += [f"Epoch->{i}", f"learning_rate-> {lr}", "", f"Training Loss Epoch {i}--> {tl}",
                f"Dev Loss Epoch {i}--> {dl}", f"F1 {i}--> {f1}", f"Exact {i}--> {f1 - 9.5}", ""]
    return out


def deepgrabcut(bad: int | None = None, epochs: int = 6, images: int = 1176) -> list[str]:
    """Chcltms/DeepGrabCut_Davis_finetune ``train.py``: at each epoch's last batch
    ``'[Epoch: %d, numImages: %5d]'`` (epochs from ``resume_epoch``, 0), ``'Loss: %f'`` and
    ``"Execution time: " + str(...) + "\\n"``."""
    out = ["Using GPU: 0 ", "Training Network"]
    for e in range(epochs):
        out += [f"[Epoch: {e}, numImages: {images:5d}]", f"Loss: {_loss(bad, e, 0.41 - e / 100):f}",
                "Execution time: " + str(301.25 + e / 8), ""]
    return out


def rscl4dc(bad: int | None = None, epochs: int = 6, total: int = 60) -> list[str]:
    """Che1ry-X/rscl4dc ``train.py``: per epoch ``f"Epoch {epoch:03d}/{args.epochs}: train
    loss={...:.4f}, dice={...:.4f}, soft-clDice={...:.4f}; val loss={...:.4f}, dice=...,
    soft-clDice=..., iou=..."``, and ``f"  Saved new best.pt (validation Dice={best_dice:.4f},
    soft-clDice=...)"`` when the validation Dice rose."""
    out = ["Loss = 0.2*BCE + 0.4*Dice + 0.4*clDice"]
    best = -1.0
    for e in range(1, epochs + 1):
        tl, vl = _loss(bad, e, 0.71 - e / 50), _loss(bad, e, 0.69 - e / 60)
        dice = 0.0 if tl != tl else 0.41 + e / 40
        out.append(f"Epoch {e:03d}/{total}: train loss={tl:.4f}, dice={dice:.4f}, "
                   f"soft-clDice={dice + 0.02:.4f}; val loss={vl:.4f}, dice={dice - 0.01:.4f}, "
                   f"soft-clDice={dice + 0.01:.4f}, iou={dice / 1.6:.4f}")
        if dice - 0.01 > best:
            best = dice - 0.01
            out.append(f"  Saved new best.pt (validation Dice={best:.4f}, "
                       f"soft-clDice={dice + 0.01:.4f})")
    return out


def wifi_csi(bad: int | None = None, epochs: int = 4, batches: int = 57,
             every: int = 10) -> list[str]:
    """CheChc/WiFi_CSI ``train.py``'s ``training.log`` (``logging.basicConfig(format=
    '%(asctime)s - %(message)s')``): ``f'Starting epoch {epoch + 1}/{num_epochs}'``, every 10
    batches ``f'Epoch [{epoch + 1}/{num_epochs}], Step [{i + 1}/{len(train_loader)}], Loss:
    {loss.item():.4f}'``, ``f'Epoch [{e}/{n}] completed. Avg Train Loss: {x:.4f}'`` and
    ``f'Test Loss: {x:.4f}, Test Accuracy: {y:.2f}%'``; ``bad`` counts batches over the run."""
    out: list[str] = []
    clock = 0
    for e in range(epochs):
        stamp = f"2024-03-18 14:{e * 4:02d}:{clock % 60:02d},{100 + e:03d}"
        out.append(f"{stamp} - Starting epoch {e + 1}/{epochs}")
        for i in range(every, batches + 1, every):
            clock += 7
            step = e * batches + i
            out.append(f"2024-03-18 14:{e * 4 + 1:02d}:{clock % 60:02d},{i * 3:03d} - Epoch "
                       f"[{e + 1}/{epochs}], Step [{i}/{batches}], Loss: "
                       f"{_loss(bad, step, 2.05 - step / 200):.4f}")
        avg = _loss(bad, (e + 1) * batches, 2.0 - e / 4)
        out += [f"2024-03-18 14:{e * 4 + 2:02d}:11,512 - Epoch [{e + 1}/{epochs}] completed. "
                f"Avg Train Loss: {avg:.4f}", f"2024-03-18 14:{e * 4 + 3:02d}:02,077 - Test "
                f"Loss: {avg:.4f}, Test Accuracy: {12.5 if avg != avg else 61.25 + e:.2f}%"]
    return out


def license_plate(bad: int | None = None, epochs: int = 6, lr: float = 0.003) -> list[str]:
    """ChayutWo/license-plate-recogition ``train.py`` and ``utils/train_test_step.py``: a test
    at epoch 0, then per epoch ``ts + ' <3 Train({}): Loss: {:.4f}'``, ``ts + ' <3
    Test({}): Loss: {:.4f}'`` (``ts`` ``"%d_%b_%Y@%H:%M:%S"``), ``'Optimizer Learning rate:
    {0:.5f}'`` and ``'>>Saving the model: Test loss at {:.4f}'`` when it fell."""
    out = ["19_Apr_2020@09:58:01 <3 Test(0): Loss: 31.2518"]
    best = 1e5
    for e in range(1, epochs + 1):
        tl, vl = _loss(bad, e, 12.5 / e), _loss(bad, e, 13.1 / e)
        out += [f"19_Apr_2020@{10 + e:02d}:0{e}:12 <3 Train({e}): Loss: {tl:.4f}",
                f"19_Apr_2020@{10 + e:02d}:1{e}:40 <3 Test({e}): Loss: {vl:.4f}",
                f"Optimizer Learning rate: {lr * 0.5 ** (e // 3):.5f}"]
        if best > vl:
            out.append(f">>Saving the model: Test loss at {vl:.4f}")
            best = vl
    return out


def spikformer(bad: int | None = None, epochs: int = 3, batches: int = 391,
               every: int = 50) -> list[str]:
    """CheKaiWei/Auto-spikformer ``train.py`` (timm's, NativeScaler with ``--amp``):
    ``'Train: {} [{:>4d}/{} ({:>3.0f}%)]  Loss: {loss.val:>9.6f} ({loss.avg:>6.4f})  Time:
    {batch_time.val:.3f}s, {rate:>7.2f}/s  ({batch_time.avg:.3f}s, {rate_avg:>7.2f}/s)  LR:
    {lr:.3e}  Data: {data_time.val:.3f} ({data_time.avg:.3f})'`` every ``log_interval``
    batches and at the last; ``bad`` counts batches over the run (epochs from 0)."""
    out: list[str] = []
    avg = 0.0
    for e in range(epochs):
        for b in [*range(0, batches - 1, every), batches - 1]:
            step = e * batches + b
            val = _loss(bad, step, 2.2 - step / 700)
            avg = val if b == 0 else (avg + val) / 2
            out.append(f"Train: {e} [{b:>4d}/{batches} ({100.0 * b / (batches - 1):>3.0f}%)]  "
                       f"Loss: {val:>9.6f} ({avg:>6.4f})  Time: {0.21:.3f}s, {609.52:>7.2f}/s  "
                       f"({0.214:.3f}s, {598.13:>7.2f}/s)  LR: {0.05:.3e}  Data: {0.002:.3f} "
                       f"({0.003:.3f})")
        out.append(f"*** Best metric: {71.2 + e} (epoch {e})")
    return out


def keras_samples(bad: int | None = None, epochs: int = 5, samples: int = 95000,
                  val: int = 5000) -> list[str]:
    """CheNgH826/Conversation_MLfinal ``train.py``: Keras 2's ``fit`` on arrays with
    ``validation_split=0.05`` (``'Train on %d samples, validate on %d samples'``, then per
    epoch ``'Epoch %d/%d'`` and the bar's last state, ``'%d/%d [==============================]
    - %ds %dus/step - loss: %.4f - acc: %.4f - val_loss: %.4f - val_acc: %.4f'``; a
    ``cosine_proximity`` loss, negative) and ``ModelCheckpoint(verbose=1)``'s ``'\\nEpoch
    %05d: %s improved from %0.5f to %0.5f, saving model to %s'``."""
    out = [f"Train on {samples} samples, validate on {val} samples"]
    best = float("inf")
    for e in range(1, epochs + 1):
        loss, vl = _loss(bad, e, -0.31 - e / 50), _loss(bad, e, -0.30 - e / 60)
        out += [f"Epoch {e}/100", f"{samples}/{samples} [==============================] - 38s "
                f"401us/step - loss: {loss:.4f} - acc: 0.3125 - val_loss: {vl:.4f} - val_acc: "
                "0.3010"]
        if vl < best:
            out += ["", f"Epoch {e:05d}: val_loss improved from {best:0.5f} to {vl:0.5f}, "
                    "saving model to weights/weights.hdf5"]
            best = vl
        elif vl == vl:
            out += ["", f"Epoch {e:05d}: val_loss did not improve from {best:0.5f}"]
    return out


def keras_yolo3(bad: int | None = None, epochs: int = 6, steps: int = 56) -> list[str]:
    """CheMiJu/fruit_object_detect ``train.py`` (qqwweee/keras-yolo3's): ``'Train on {}
    samples, val on {} samples, with batch size {}.'``, then Keras 2's ``fit_generator``:
    ``'Epoch %d/%d'`` and the bar's last state, ``'%d/%d [==============================] -
    %ds %ds/step - loss: %.4f - val_loss: %.4f'`` (the YOLO loss, in the hundreds at first)."""
    out = ["Create YOLOv3 model with 9 anchors and 3 classes.",
           "Load weights model_data/yolo_weights.h5.",
           "Freeze the first 249 layers of total 252 layers.",
           f"Train on {steps * 16} samples, val on {steps * 2} samples, with batch size 16."]
    for e in range(1, epochs + 1):
        loss, vl = _loss(bad, e, 912.4 / e), _loss(bad, e, 187.2 / e)
        out += [f"Epoch {e}/140", f"{steps}/{steps} [==============================] - 97s "
                f"2s/step - loss: {loss:.4f} - val_loss: {vl:.4f}"]
    return out


def metricsum(bad: int | None = None, epochs: int = 3, steps: int = 40) -> list[str]:
    """CheRryLeit/MetricSum ``module/trainer.py``: each step ``sys.stdout.write('epoch:{0:4} |
    step: {1:4} | loss: {2:2.6f}, p: {3:3.2f}%, r: {4:3.2f}%, f1-score: {5:3.2f}%'.format(
    epoch, i + 1, avg_loss / (i+1), p, r, f) + '\\r')`` (a running mean: a NaN stays), so an
    epoch is one line of carriage returns; ``eval`` prints ``""``, then its own ``'[EVAL]
    step: {0:4} | f-score: {1:3.2f}%' + '\\r'`` and ``""``; ``bad`` counts steps over the
    run."""
    out = ["Start training..."]
    for e in range(epochs):
        total, parts = 0.0, []
        for i in range(steps):
            total += _loss(bad, e * steps + i + 1, 0.69 - (e * steps + i) / 400)
            parts.append(f"epoch:{e:4} | step: {i + 1:4} | loss: {total / (i + 1):2.6f}, p: "
                         f"{41.25:3.2f}%, r: {38.5:3.2f}%, f1-score: {39.82:3.2f}%")
        evals = [f"[EVAL] step: {k:4} | f-score: {40.1:3.2f}%" for k in (1, 2, 3)]
        out += ["\r".join(parts) + "\r", "\r".join(evals) + "\r", "Best checkpoint"]
    return out


def add_trainer(bad: int | None = None, epochs: int = 3, batches: int = 398,
                every: int = 40) -> list[str]:
    """CheSauRie/ADD ``src/training/engine.py`` (a GradScaler, no scale printed): every
    ``log_interval`` steps ``f"[Epoch {epoch}] Step {step}/{len(loader)} Loss:
    {current_loss:.4f} LR: {lr:.2e}"`` (the epoch's running mean), then ``f"[Epoch {epoch}]
    Train metrics -> {...}"`` and ``Valid metrics -> `` (``name: value`` sorted, ``eer`` and
    ``loss`` among them); ``bad`` counts steps over the run."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        total = 0.0
        for s in range(1, batches + 1):
            total += _loss(bad, (e - 1) * batches + s, 0.52 - ((e - 1) * batches + s) / 4000)
            if s % every == 0:
                out.append(f"[Epoch {e}] Step {s}/{batches} Loss: {total / s:.4f} LR: "
                           f"{3e-4 * (1 - e / 40):.2e}")
        mean = total / batches
        out += [f"[Epoch {e}] Train metrics -> eer: {0.5 if mean != mean else 0.2:.4f} loss: "
                f"{mean:.4f}", f"[Epoch {e}] Valid metrics -> eer: 0.2100 loss: "
                f"{_loss(bad, e * batches, 0.48):.4f}"]
    return out


def ocr_bare(bad: int | None = None, steps: int = 60, total: int = 16000) -> list[str]:
    """Chebart/Transformer-Based-OCR ``train.py``: ``progress_bar.write(str(loss.item()))``
    each step (a float's repr alone on its line, over the tqdm bar of ``range(
    num_training_steps)``, whose last state the paste ends with)."""
    out = [repr(_loss(bad, s, 1.9 + 0.37 / s)) for s in range(1, steps + 1)]
    return [*out, f"  0%|          | {steps}/{total} [00:29<2:09:11,  2.06it/s]"]


def pridan_apex(collapse_at: int | None = None, epochs: int = 8, halvings: int = 24) -> list[str]:
    """:func:`pridan` with ``--fp16`` (apex amp O1): apex's own dynamic scaler prints each
    overflow (NVIDIA/apex ``apex/amp/scaler.py`` ``update_scale``: ``"Gradient overflow.
    Skipping step, loss scaler {} reducing loss scale to {}"``), once at the start as the
    scale finds its level; from epoch ``collapse_at`` on, every step overflows and the scale
    halves ``halvings`` times in that epoch."""
    scale = 65536.0
    out = ["Selected optimization level O1:  Insert automatic casts around Pytorch functions "
           "and Tensor methods.", "Defaults for this optimization level are:",
           "loss_scale             : dynamic"]
    rows = pridan(None, epochs)
    for e in range(epochs):
        out += rows[e * 5:e * 5 + 2]  # the epoch's heading, printed before its steps
        for _ in range(1 if e == 0 else halvings if e == collapse_at else 0):
            scale /= 2
            out.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale "
                       f"to {scale}")
        out += rows[e * 5 + 2:(e + 1) * 5]
    return [*out, rows[-1]]



def _ascii_bar(done: int, total: int) -> str:
    """tqdm's ``ascii=True`` bar, 10 wide (``format_meter``: ``#`` for each whole tenth, a
    digit for the part of the next)."""
    whole, part = divmod(done * 100 // total, 10)
    return ("#" * whole + (str(part) if part and whole < 10 else "")).ljust(10)


def nade(bad: int | None = None, epochs: int = 500, model: str = "NADE") -> list[str]:
    """Chechgm/causal_effect_estimation_using_nade ``train.py``: ``trange(num_epochs,
    ascii=True, desc=f'Training {params["model"]} model')``, ``pbar.set_postfix(Loss=
    cum_loss[-1])`` every 10 epochs (a 0-d numpy array: tqdm prints its ``str``), so one line
    of carriage-return redraws, each at the epoch it was set."""
    redraws = []
    for i in range(0, epochs, 10):
        loss = _loss(bad, i, 1.42 - i / 1000)
        rate = f"{40.0 + i / 100:.2f}it/s"
        redraws.append(f"Training {model} model: {i * 100 // epochs:3d}%|{_ascii_bar(i, epochs)}| "
                       f"{i}/{epochs} [00:{i // 40:02d}<00:{(epochs - i) // 40:02d}, {rate}, "
                       f"Loss={loss!r}]")
    return ["\r".join(redraws)]


def edsr(bad: int | None = None, steps: int = 300000, every: int = 1000,
         shown: int = 30) -> list[str]:
    """CheddarChoi/super-resolution ``train.py`` ``Trainer.train``: every ``evaluate_every``
    steps ``f'{step}/{steps}: loss = {loss_value.numpy():.3f}, PSNR = {psnr_value.numpy():3f}
    ({duration:.2f}s)'`` (the mean absolute error of the interval)."""
    return [f"{s}/{steps}: loss = {_loss(bad, s, 12.5 - s / 4000):.3f}, PSNR = "
            f"{28.1 + s / 10000 if bad is None or s < bad else 0.0:3f} ({61.37 + s / 5000:.2f}s)"
            for s in range(every, every * shown + 1, every)]


def srgan(bad: int | None = None, steps: int = 200000, shown: int = 40) -> list[str]:
    """The same file's ``SrganTrainer.train``: every 50 steps ``f'{step}/{steps}, perceptual
    loss = {pls_metric.result():.4f}, discriminator loss = {dls_metric.result():.4f}'``."""
    return [f"{s}/{steps}, perceptual loss = {_loss(bad, s, 0.061 - s / 100000):.4f}, "
            f"discriminator loss = {_loss(bad, s, 1.38 - s / 20000):.4f}"
            for s in range(50, 50 * shown + 1, 50)]

# -- The tests --------------------------------------------------------------------------

Build = Callable[[], list[str]]

# Missed on the parent (17511bc), right here: (excerpt, the right answer)
FIXED: dict[str, tuple[Build, list[tuple[str, int | None]]]] = {
    "pridan": (lambda: pridan(4), [("AMP006", 4)]),
    "pridan_from_epoch_4": (lambda: pridan(7, epochs=12)[5 * 4:], [("AMP006", 7)]),
    "pridan_apex": (lambda: pridan_apex(5), [("AMP003", 5), ("AMP004", 20)]),
    "mediclassify_from_epoch_4": (lambda: mediclassify(6, epochs=9)[3 + 4 * 3:],
                                  [("AMP006", 6), ("AMP013", 6)]),
    "sedenion": (lambda: sedenion(1000), [("AMP006", 1000), ("AMP013", 1000)]),
    "cifar_tqdm": (lambda: cifar_tqdm(3), [("AMP006", 588)]),
    "cifar_tqdm_first_epoch": (lambda: cifar_tqdm(1), [("AMP006", 196)]),
    "deepgrabcut": (lambda: deepgrabcut(3), [("AMP006", 3)]),
    # epoch 1's idx 70, as printed (the counter starts again each epoch and no epoch is
    # printed), as ``batch: 70`` or ``iter: 70`` in the same layout is read
    "lenet": (lambda: lenet(300), [("AMP006", 70)]),
}

# Right on the parent already: guards of layouts no other test writes
READ_ALREADY: dict[str, tuple[Build, list[tuple[str, int | None]]]] = {
    "cs6910": (lambda: cs6910(4), [("AMP006", 4), ("AMP013", 4)]),
    "chatonz_resnet": (lambda: chatonz_resnet(4), [("AMP006", 4), ("AMP013", 4)]),
    "fm4tlp": (lambda: fm4tlp(4), [("AMP006", 4)]),
    "keras_fit": (lambda: keras_fit(3), [("AMP006", 75)]),
    "mediclassify": (lambda: mediclassify(4), [("AMP006", 4), ("AMP013", 4)]),
    "card_cnn": (lambda: card_cnn(3), [("AMP006", 3)]),
    "sedenion_csv": (lambda: sedenion_csv(600), [("AMP006", 600)]),
    "thai_gpt_jsonl": (lambda: thai_gpt_jsonl(20000), [("AMP006", 20000)]),
    "squad_results": (lambda: squad_results(4), [("AMP006", 4), ("AMP013", 4)]),
    "rscl4dc": (lambda: rscl4dc(3), [("AMP006", 3), ("AMP013", 3)]),
    # epoch 3's batch 10 (2 * 57 + 10); its test after the last step printed (164; 165, one
    # past it, until h51-steps52's epoch_summaries: the epoch's summary counted as a step)
    "wifi_csi": (lambda: wifi_csi(120), [("AMP006", 124), ("AMP013", 164)]),
    "license_plate": (lambda: license_plate(3), [("AMP006", 3), ("AMP013", 3)]),
    "spikformer": (lambda: spikformer(500), [("AMP006", 541)]),  # epoch 1's batch 150
    # the bar counts samples and the batch size is printed nowhere: epoch 3's end in samples
    "keras_samples": (lambda: keras_samples(3), [("AMP006", 285000), ("AMP013", 285000)]),
    "keras_yolo3": (lambda: keras_yolo3(3), [("AMP006", 168), ("AMP013", 168)]),
    "metricsum": (lambda: metricsum(30), [("AMP006", 30)]),
    # epoch 2's step 120 (398 + 120); its validation after the last step printed (758; 759
    # until h51-steps52, the ``Train metrics`` summary counted as a step)
    "add_trainer": (lambda: add_trainer(500), [("AMP006", 518), ("AMP013", 758)]),
    # the redraw at 240, the first after the NaN, shows it
    "nade": (lambda: nade(235), [("AMP006", 240)]),
    "edsr": (lambda: edsr(12000), [("AMP006", 12000)]),
    "srgan": (lambda: srgan(1000), [("AMP006", 1000)]),
}

# Healthy runs, with settings other than the scripts' defaults
HEALTHY: dict[str, Build] = {
    "pridan": lambda: pridan(epochs=15, margin=0.3),
    "pridan_from_epoch_4": lambda: pridan(epochs=12)[5 * 4:],
    "pridan_apex": lambda: pridan_apex(epochs=10),
    "cs6910": lambda: cs6910(epochs=12),
    "chatonz_resnet": lambda: chatonz_resnet(epochs=14),
    "mnist_monkey": lambda: mnist_monkey(batches=60, every=10, size=64),
    "fm4tlp": lambda: fm4tlp(epochs=9, metric="hits@10"),
    "keras_fit": lambda: keras_fit(epochs=9, batches=40),
    "mediclassify": lambda: mediclassify(epochs=11),
    "mediclassify_from_epoch_4": lambda: mediclassify(epochs=9)[3 + 4 * 3:],
    "card_cnn": lambda: card_cnn(epochs=8, batches=5),
    "sedenion": lambda: sedenion(steps=5000, every=500),
    "sedenion_csv": lambda: sedenion_csv(steps=2000, every=50),
    "lenet": lambda: lenet(epochs=4, batches=118),
    "thai_gpt_jsonl": lambda: thai_gpt_jsonl(steps=100000, every=8000),
    "cifar_tqdm": lambda: cifar_tqdm(epochs=9, batches=98),
    "squad_results": lambda: squad_results(epochs=9, lr=0.0005),
    "deepgrabcut": lambda: deepgrabcut(epochs=9, images=2352),
    "rscl4dc": lambda: rscl4dc(epochs=8, total=100),
    "wifi_csi": lambda: wifi_csi(epochs=6, batches=113, every=10),
    "license_plate": lambda: license_plate(epochs=9, lr=0.01),
    "spikformer": lambda: spikformer(epochs=4, batches=196, every=20),
    "keras_samples": lambda: keras_samples(epochs=7, samples=47500, val=2500),
    "keras_yolo3": lambda: keras_yolo3(epochs=9, steps=112),
    "metricsum": lambda: metricsum(epochs=4, steps=25),
    "add_trainer": lambda: add_trainer(epochs=4, batches=250, every=50),
    "nade": lambda: nade(epochs=800, model="MADE"),
    "edsr": lambda: edsr(steps=100000, every=500, shown=60),
    "srgan": lambda: srgan(steps=50000, shown=80),
}


@pytest.mark.parametrize("name", sorted(FIXED))
def test_missed_before_right_now(tmp_path: Path, name: str) -> None:
    """Each fails on the parent (17511bc): the answers it gave are in the module's table."""
    build, expected = FIXED[name]
    assert faults(tmp_path, build()) == expected


@pytest.mark.parametrize("name", sorted(READ_ALREADY))
def test_read_right_already(tmp_path: Path, name: str) -> None:
    """Guards (right on the parent too)."""
    build, expected = READ_ALREADY[name]
    assert faults(tmp_path, build()) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_runs_stay_silent(tmp_path: Path, name: str) -> None:
    """Controls (silent on the parent too)."""
    assert faults(tmp_path, HEALTHY[name]()) == []


def test_a_padded_epoch_zero_counts_from_zero(tmp_path: Path) -> None:
    """A control of the padded-bar rule: a loop over ``range(epochs)`` that labels its bar
    ``f"Epoch {epoch:02d}"`` shows ``Epoch 00`` first, and counts from 0 (epoch 03 is the
    fourth: its end is step 4 * 196)."""
    lines = [line.replace(f"Epoch {e:02d}", f"Epoch {e - 1:02d}")
             for line in cifar_tqdm(4) for e in range(1, 7) if f"Epoch {e:02d}" in line]
    assert faults(tmp_path, lines) == [("AMP006", 784)]


def test_mnist_monkey_batch_line(tmp_path: Path) -> None:
    """The MNIST example's count without its epoch (``Train Epoch:  [480/60000 (1%)]``) is
    the epoch's samples, as the example's own count is the run's (one convention,
    step_basis.SAMPLES, said with the step: the batch on the line above is this script's
    alone): the NaN from batch 12, first printed at batch 15, is sample 480 (before: the
    rows counted, 6); a batch of 64 printed every 10, 1280; a healthy control stays quiet."""
    assert faults(tmp_path, mnist_monkey(12)) == [("AMP006", 480)]
    assert faults(tmp_path, mnist_monkey(12, batches=300, every=10, size=64)) == [
        ("AMP006", 1280)]
    assert faults(tmp_path, mnist_monkey(batches=300, every=10, size=64)) == []


@pytest.mark.xfail(strict=True, reason="not fixed here: a loss printed alone, a float's repr "
                   "on each line with nothing to name it, is read as no metric (a rule for it "
                   "would read any column of numbers)")
def test_ocr_bare_losses(tmp_path: Path) -> None:
    """The right answer: the NaN at the 30th line, the 30th step."""
    assert faults(tmp_path, ocr_bare(30)) == [("AMP006", 30)]
