"""A ninth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 20 vision scripts, drawn from the code index's listing of
``train_imagenet.py``, ``train_cifar.py``, ``train_resnet.py``, ``train_vit.py``,
``train_seg.py``, ``train_segmentation.py``, ``train_detector.py``, ``train_yolo.py``,
``train_mnist.py``, ``train_classification.py``, ``train_clip.py`` and ``train_mae.py`` in the
order it gives them, none named by another test. Skipped, and why: those named in tests/logs
already (0merjavaid/Egocentric_3D_pose, 1991yuyang/pointnet, 278261631/SiameseNetwork_fits_diff,
1ds23cs147-del/major_project), those that hand over to a module not read here
(106-/DRBM-tensorflow's ``LearningLog``, 564612540/DiceSGD's trainers, 23011206-beep/
final-deep-learning's ``DefectDetector``, AhmedRafid023/ViT-image-classification's
LightningModule), those that print no loss (1981672112/pointnet2_LH: accuracies only;
AI-imp/Deeplearning: nothing), one that trains nothing (AlvardBarseghyan/mae
``train_clip.py``: its ``configure_optimizers`` names an attribute the module lacks). Each
excerpt is built from the script's own print and logging format strings (one builder a script
below, the repository and file in its docstring): a healthy run with settings other than the
defaults, and a faulty one (a NaN loss from step N, or at epoch E where the script prints per
epoch), pasted from the start and from the middle. None prints a scaler's scale (two use a
``GradScaler``: med_condition_seg, hiera_finetune).

Each script as repository ``file``: the format; the doctor's answer on the parent (ff74fba)
-> the right one ("=": the same). Bars count the run's batches (a bar's count plus the
epochs' before it); where no epoch is printed, the excerpt's:

- 2BH/NAS_K49 ``train_imagenet.py`` (PC-DARTS): ``%m/%d %I:%M:%S %p TRAIN Step: 300 Objs:
  nan R1: ...`` (the step restarts each epoch) and ``VALID Step: 000 Objs: nan ...``; AMP013
  (no step) -> AMP006 800, AMP013 900 (strict xfail: AMP006 300, AMP013 400 now; right since
  h52-restarts), also from the middle (1300, 1400: still 800 and 900, no epoch 0 read).
- 5663015/pdarts ``train_cifar.py``: ``Train Step: 150 Objs: nan Acc: ...``; the same:
  AMP013 -> AMP006 541, AMP013 741 (strict xfail), 932, 1132 from the middle (550 and 750
  since h52-restarts: 391 batches an epoch printed nowhere).
- ANinjaRabbit/Mytorch ``train_imagenet.py``: a bar ``Epoch 3 - Training: 100%|...`` and
  ``[3] loss: nan``; AMP006 3 =, 4 = from epoch 3.
- 1653109/stylegan-encoder ``train_resnet.py`` (Keras 2, fp16 possible): ``Epoch 2/2``,
  ``2048/2048 [====] - 95s 46ms/step - loss: nan``, ``Test loss : nan``; AMP006 8192, AMP013
  8192 = (samples; the rounds' epochs restart), 6144, 8192 = from round 2.
- 0x-khalil/fashion-mnist-classifier ``train_vit.py``: ``Epoch 3/5``, ``Training Loss:
  nan``; AMP006 3 =, 4 =.
- 10258392511/ModelFusion ``train_vit.py``: Lightning 1.x's bar ``Epoch 2: 100%|...|
  783/783 [..., loss=nan, v_num=0]``; AMP006 2349 =, 3132 = from epoch 1.
- 173787247/chapter4-image-classification-retrieval ``train_resnet.py``: ``训练 Loss: nan,
  Acc: ...`` and ``验证 Loss: nan, ...``; AMP006 4, AMP013 4 =; 6, 6 =.
- 68888090/med_condition_seg ``train_seg.py`` (GradScaler, autocast): ``Epoch 1 | Step 60 |
  Loss: ...`` (the run's step) then ``Epoch 1 Step 25: Loss is NaN! Skipping...`` (the
  epoch's batch); AMP006 25 -> 70 (strict xfail), 10 -> 100 from the middle.
- 15-Aditya/counting_jewelry ``train_segmentation.py``: Ultralytics' segmentation rows
  ``4/30  5.81G  nan  nan  nan  nan  17  960: 100%|...| 120/120``; AMP006 480 =, 600 =.
- 04nik/Crop-and-Weed-Detection ``train_yolo.py``: Ultralytics' detection rows (AutoBatch);
  AMP006 183 =, 244 =.
- 4Byteint/my-cam ``train_segmentation.py``: plain bars, ``train Loss: nan | Accuracy:
  ...``, ``val Loss: nan | ...``; AMP006 4, AMP013 4 =; 5, 5 = (the epoch then; the run's
  batches since h56-convention56: 160, 160; 200, 200).
- 118020020/self-contained-python-repo ``train_mnist.py`` (DDPM): a bar whose description is
  ``loss: nan``, no epoch printed; AMP006 938 =, 938 = from epoch 2 (the excerpt's bars).
- 2002jan/put-mp-2025 ``train_classification.py``: bars ``Epoch 3/40 [Train]: ...,
  Loss=nan]`` and ``Epoch 3/40 [Val]: ..., Loss=nan]``, ``Train Loss: nan, Val Loss: nan``;
  AMP006 750, AMP013 151 -> AMP006 750, AMP013 750; 1000, 201 -> 1000, 1000 from epoch 2.
- 22048123S/CDS540-GP-Documents ``train_clip.py``: ``Epoch 3/30``, bars, ``Train Loss: nan``,
  ``Eval Accuracy: {...}``; AMP006 3 =, 4 =.
- Aorunfa/hiera_finetune ``train_mae.py`` (GradScaler, bf16 autocast): ``step: 00001200
  loss: nan lr: ...`` and ``val loss ------ nan``; AMP006 1200, AMP013 2000 =, also from the
  middle.
- 100472207/Prompt-stealing-in-LLMs.-Detection-tool ``train_detector.py`` (fp16 HF
  ``Trainer``): dicts, ``eval_loss`` per epoch; AMP006 8, AMP013 10 = (rows); 4, 6 =.
- AngelSky123/CLIP ``train_mae.py``: ``[...][Stage1A-MAE][INFO] [Ep   1 It  100/600]
  loss=nan mask=0.750 lr=...``; AMP006 700 =, 1300 = from epoch 1.
- A-NGJ/deeplearning2022-footandball ``train_detector.py``: ``train Avg. loss total / ball
  conf. / player conf. / player loc.: nan / nan / nan / nan`` and the ``val`` row, no epoch
  printed; AMP013 (no step) -> AMP006 3, AMP013 3 (rows), also from epoch 2.
- 127t6937/chainer-mnist ``train_mnist.py``: Chainer's ``PrintReport`` table and
  ``ProgressBar`` lines; AMP006 4, AMP013 4 =; from epoch 3's lines (no header): "nothing to
  diagnose" -> AMP006 6, AMP013 6 (strict xfail).
- 12v/mnist-encoder ``train_mnist.py``: ``Epoch 3/40: 100%|...| 120/120 [..., loss=nan]``,
  ``Validation loss: nan``; AMP006 360, AMP013 360 =; 480, 480 =.

Healthy, with settings other than the defaults (27 excerpts, 7 of them pasted from the
middle): no false alarm on any, before or after; read without error on 22 before (the DARTS
rows and FootAndBall's: "nothing to diagnose"), on all 27 after.
Faulty (40 excerpts): right on 29 before (72.5%), 33 after (82.5%); the 7 left wrong are held
by strict xfails (the DARTS rows' restarting steps four times, the skip message's epoch
count twice, Chainer's headerless rows).
"Right": the ids, and the step as the log prints it (an epoch, a step or batch counter, a
bar's count; HF dicts' and other step-less rows counted).

Fixed here, each by a rule of layout or message:

- ``objs``, the plural of the loss noun ``obj``, is a loss (the DARTS family's running mean
  of the objective, ``objs = utils.AvgrageMeter()``) (lexicon.py).
- A bar whose description tags its pass ``[Val]`` is the held-out pass's: its loss an
  evaluation metric, its count no step (metric_reader's ``_EVAL_CONTEXT``).
- Names then their values, each list joined by `` / `` after one ``: ``, are paired in order
  (slash_pairs.py).
- A line that repeats a line of the paste's widest width after its first word (a ``val`` row
  under a ``train`` row) is a record, not the rest of a hard-wrapped line (hard_wraps.py).
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


def _clock(i: int) -> str:
    """A ``'%m/%d %I:%M:%S %p'`` stamp, as ``logging.basicConfig(datefmt=...)`` writes it."""
    return f"12/07 {1 + i // 3600 % 12:02d}:{i // 60 % 60:02d}:{i % 60:02d} PM"


def _bar(done: int, total: int, secs: int = 60) -> str:
    """tqdm's default bar body ``{percentage:3.0f}%|{bar}| {n}/{total} [{elapsed}<{remaining},
    {rate}it/s]`` (tqdm/std.py ``format_meter``, ten cells)."""
    cells = done * 10 // total
    rest = "" if cells == 10 else " " * (10 - cells)
    return (f"{100 * done // total:3d}%|{'█' * cells}{rest}| {done}/{total} "
            f"[00:{secs % 60:02d}<00:00, {total / max(secs, 1):.2f}it/s")


def _stamper(every: int) -> Callable[[str], str]:
    """``logging``'s ``'%(asctime)s %(message)s'`` with ``datefmt='%m/%d %I:%M:%S %p'`` (the
    DARTS family's set-up), each message ``every`` seconds after the last."""
    seconds = iter(range(every, 1 << 30, every))
    return lambda msg: f"{_clock(next(seconds))} {msg}"


def _running_means(bad: int | None, epoch: int, steps: int, report: int, first: float,
                   slope: float) -> list[tuple[int, float]]:
    """(step, the epoch's running mean of the loss) at each ``report``-th step of ``epoch``
    (``utils.AvgrageMeter``: NaN from the run's batch ``bad`` on, to the epoch's end)."""
    total, out = 0.0, []
    for s in range(steps):
        total += _loss(bad, epoch * steps + s, first - (epoch * steps + s) / slope)
        if s % report == 0:
            out.append((s, total / (s + 1)))
    return out


def nas_k49(bad: int | None = None, epochs: int = 3, steps: int = 500, report: int = 100,
            lr: float = 0.1, valid: int = 196) -> list[str]:
    """2BH/NAS_K49 ``train_imagenet.py`` (PC-DARTS' ImageNet loop): ``logging.basicConfig``
    with ``'%(asctime)s %(message)s'`` and ``datefmt='%m/%d %I:%M:%S %p'``; per epoch
    ``'Epoch: %d lr %e'`` (from 0), every ``report_freq`` steps ``'TRAIN Step: %03d Objs: %e
    R1: %f R5: %f Duration: %ds BTime: %.3fs'`` (``objs.avg``, the epoch's running mean; the
    step restarts each epoch), ``'Train_acc: %f'``, the evaluation's ``'VALID Step: %03d Objs:
    %e R1: %f R5: %f Duration: %ds'`` in the same shape, ``'Valid_acc_top1: %f'``,
    ``'Valid_acc_top5: %f'`` and ``'Epoch time: %ds.'``; ``bad`` counts batches over the
    run."""
    log = _stamper(7)
    out = [log(f"args = Namespace(workers=32, batch_size=256, learning_rate={lr}, momentum=0.9, "
               "report_freq=100, epochs=250, arch='PCDARTS')"), log("unparsed_args = []"),
           "---------Genotype---------",
           log("Genotype(normal=[('sep_conv_3x3', 1), ('skip_connect', 0)], normal_concat="
               "range(2, 6), reduce=[('sep_conv_3x3', 0)], reduce_concat=range(2, 6))"),
           "--------------------------", log("param size = 5.296248MB")]
    for e in range(epochs):
        out.append(log(f"Epoch: {e} lr {lr * (1 - e / 245):e}"))
        for s, avg in _running_means(bad, e, steps, report, 6.9, 400):
            top = 0.1 if avg != avg else 2.0 + e * 8 + s / 100
            out.append(log(f"TRAIN Step: {s:03d} Objs: {avg:e} R1: {top:f} R5: "
                           f"{top * 3 if top > 0.1 else 0.5:f} Duration: "
                           f"{0 if s == 0 else 41}s BTime: 0.412s"))
        broken = bad is not None and bad < (e + 1) * steps
        out.append(log(f"Train_acc: {0.1 if broken else 2.0 + e * 8:f}"))
        for s in range(0, valid, report):
            obj = NAN if broken else 5.1 - e / 2
            out.append(log(f"VALID Step: {s:03d} Objs: {obj:e} R1: {0.1 if broken else 5 + e:f} "
                           f"R5: {0.5 if broken else 15 + e:f} Duration: {0 if s == 0 else 9}s"))
        out += [log(f"Valid_acc_top1: {0.1 if broken else 5 + e:f}"),
                log(f"Valid_acc_top5: {0.5 if broken else 15 + e:f}"), log("Epoch time: 2118s.")]
    return out


def pdarts(bad: int | None = None, epochs: int = 3, steps: int = 391, report: int = 50,
           lr: float = 0.025) -> list[str]:
    """5663015/pdarts ``train_cifar.py``: ``print(args)``, then through ``'%(asctime)s
    %(message)s'`` (``datefmt='%m/%d %I:%M:%S %p'``) ``'Epoch: %d lr %e'`` (from 0), every
    ``report_freq`` steps ``'Train Step: %03d Objs: %e Acc: %f'`` (running means, the step
    restarting each epoch), ``'Train_acc: %f'``, ``'Valid Step: %03d Objs: %e Acc: %f'`` rows,
    ``'Valid_acc: %f'`` and a bare ``print('Epoch time: %ds.')``; ``bad`` counts batches."""
    log = _stamper(5)
    out = [f"Namespace(workers=8, batch_size=128, learning_rate={lr}, momentum=0.9, "
           "weight_decay=0.0003, report_freq=50, epochs=600, init_channels=36, layers=20, "
           "auxiliary=True, cutout=True, arch='PDARTS', cifar100=False, gpu=0)",
           log("args = Namespace(workers=8, batch_size=128)"), log("unparsed args = []"),
           "---------Genotype---------", log("Genotype(normal=[('skip_connect', 0)])"),
           "--------------------------", log("param size = 3.433030MB")]
    for e in range(epochs):
        out.append(log(f"Epoch: {e} lr {lr * (1 - e / 600):e}"))
        for s, avg in _running_means(bad, e, steps, report, 2.9, 900):
            out.append(log(f"Train Step: {s:03d} Objs: {avg:e} Acc: "
                           f"{10.0 if avg != avg else 30 + e * 9 + s / 50:f}"))
        broken = bad is not None and bad < (e + 1) * steps
        out.append(log(f"Train_acc: {10.0 if broken else 30 + e * 9:f}"))
        for s in range(0, 79, report):
            out.append(log(f"Valid Step: {s:03d} Objs: {NAN if broken else 1.8 - e / 5:e} Acc: "
                           f"{10.0 if broken else 40 + e * 9:f}"))
        out += [log(f"Valid_acc: {10.0 if broken else 40 + e * 9:f}"), "Epoch time: 47s."]
    return out


def mytorch(bad: int | None = None, epochs: int = 5, batches: int = 2500) -> list[str]:
    """ANinjaRabbit/Mytorch ``train_imagenet.py`` (its own CUDA tensors; TinyImageNet): each
    epoch a tqdm bar ``desc=f"Epoch {epoch+1} - Training"`` (its closing state as pasted),
    ``f'[{epoch + 1}] loss: {avg_loss:.3f}'`` and ``f'Accuracy: {accuracy:.4f}'``; ``bad`` is
    the (1-based) epoch."""
    out = []
    for e in range(1, epochs + 1):
        avg = _loss(bad, e, 4.8 - e / 4)
        out += [f"Epoch {e} - Training: {_bar(batches, batches, 52)}]",
                f"[{e}] loss: {avg:.3f}", f"Accuracy: {0.005 if avg != avg else 0.1 + e / 30:.4f}"]
    return [*out, "Finished Training"]


def stylegan_encoder(bad: int | None = None, rounds: int = 3, epochs: int = 2,
                     samples: int = 2048, test: int = 512) -> list[str]:
    """1653109/stylegan-encoder ``train_resnet.py`` (Keras 2, ``--use_fp16`` sets
    ``K.set_floatx('float16')``): ``Building model``, ``Creating test set:``, ``Generating
    training set:``, then each round ``model.fit(..., epochs=n_epochs, verbose=True)``'s
    ``Epoch 1/2`` and ``2048/2048 [==============================] - 95s 46ms/step - loss:
    0.0412`` (standalone Keras counts samples; its epochs restart each round), the
    evaluation's bar, ``'New best test loss : {:.5f}'`` or ``'Test loss : {:.5f}'`` and
    ``Saving model.``; ``bad`` counts epochs over the run (from 1)."""
    out = ["Using TensorFlow backend.", "Building model", "Creating test set:",
           "Generating training set:"]
    best, n = float("inf"), 0
    for _ in range(rounds):
        for e in range(1, epochs + 1):
            n += 1
            loss = _loss(bad, n, 0.06 - n / 1000)
            out += [f"Epoch {e}/{epochs}",
                    f"{samples}/{samples} [==============================] - 95s 46ms/step - "
                    f"loss: {loss:.4f}"]
        test_loss = _loss(bad, n, 0.061 - n / 1000)
        out.append(f"{test}/{test} [==============================] - 8s 16ms/step")
        if test_loss < best:
            best = test_loss
            out.append(f"New best test loss : {test_loss:.5f}")
        else:
            out.append(f"Test loss : {test_loss:.5f}")
        out += ["Saving model.", "Generating training set:"]
    return out[:-1]


def fashion_vit(bad: int | None = None, epochs: int = 5) -> list[str]:
    """0x-khalil/fashion-mnist-classifier ``train_vit.py``: per epoch ``print(f"\\nEpoch
    {epoch+1}/{epochs}")``, ``print("Training Loss:", running_loss / len(train_loader))``
    (a float's repr) and ``print("Test Accuracy:", accuracy)``; ``bad`` is the (1-based)
    epoch."""
    out = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.61 / e)
        out += ["", f"Epoch {e}/{epochs}", f"Training Loss: {loss!r}",
                f"Test Accuracy: {10.0 if loss != loss else 84.3 + e}"]
    return [*out, "Model saved!"]


def model_fusion(bad: int | None = None, epochs: int = 4, batches: int = 704,
                 val: int = 79) -> list[str]:
    """10258392511/ModelFusion ``train_vit.py``: ``pl.Trainer(max_epochs=200,
    num_sanity_val_steps=-1)``, Lightning 1.x's own lines and bar (``Epoch {n}:`` from 0,
    training and validation batches in one count, ``loss=`` the running mean and ``v_num``
    in the postfix: pytorch_lightning/callbacks/progress/tqdm_progress.py), each epoch's
    closing state as pasted; ``bad`` is the epoch (from 0) whose loss is NaN."""
    total = batches + val
    out = ["GPU available: True (cuda), used: True", "TPU available: False, using: 0 TPU cores",
           "IPU available: False, using: 0 IPUs", "HPU available: False, using: 0 HPUs",
           "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]", "",
           "  | Name  | Type              | Params", "--------------------------------------------",
           "0 | model | VisionTransformer | 9.6 M ", "1 | loss  | CrossEntropyLoss  | 0     ",
           "--------------------------------------------", "9.6 M     Trainable params",
           "0         Non-trainable params", "9.6 M     Total params",
           "38.398    Total estimated model params size (MB)",
           f"Sanity Checking DataLoader 0: {_bar(val, val, 9)}]"]
    for e in range(epochs):
        loss = _loss(bad, e, 1.9 - e / 5)
        out.append(f"Epoch {e}: {_bar(total, total, 48)}, loss={loss:.3g}, v_num=0]")
    return out


def chapter4(bad: int | None = None, epochs: int = 10) -> list[str]:
    """173787247/chapter4-image-classification-retrieval ``train_resnet.py``: its dataset
    counts (``数据集加载完成: {n} 张图像``), then per epoch ``f"\\nEpoch {epoch+1}/{num_epochs}"``,
    ``f"训练 Loss: {train_loss:.4f}, Acc: {train_acc:.4f}"`` and the validation's ``f"验证 Loss:
    {val_loss:.4f}, Acc: {val_acc:.4f}"``; ``bad`` is the (1-based) epoch."""
    out = ["=== 开始ResNet二分类器训练 ===", "数据集加载完成: 400 张图像", "  猫: 200 张",
           "  狗: 200 张", "训练集: 320 张图像", "验证集: 80 张图像", "", "创建ResNet模型...",
           "模型创建完成！", "使用设备: cuda", "", "开始训练..."]
    for e in range(1, epochs + 1):
        tr = _loss(bad, e, 0.52 - e / 40)
        va = _loss(bad, e, 0.47 - e / 45)
        out += ["", f"Epoch {e}/{epochs}",
                f"训练 Loss: {tr:.4f}, Acc: {0.5 if tr != tr else 0.75 + e / 50:.4f}",
                f"验证 Loss: {va:.4f}, Acc: {0.5 if va != va else 0.8 + e / 60:.4f}"]
    return [*out, "", "训练完成！", "模型已保存到: models/resnet_classifier.pth"]


def med_seg(bad: int | None = None, epochs: int = 3, batches: int = 45, every: int = 10,
            eval_freq: int = 50) -> list[str]:
    """68888090/med_condition_seg ``train_seg.py`` (``GradScaler``, ``autocast``): its split
    lines, then ``f"Epoch {epoch} | Step {global_step} | Loss: {loss.item():.4f} | Time:
    {...:.2f}s"`` every 10 global steps, ``>>> Running Validation...`` and ``f">>> Val Dice:
    {val_dice:.4f} (Best: {best_dice:.4f})"`` every ``eval_freq``; a NaN or infinite loss
    prints ``f"Epoch {epoch} Step {step}: Loss is NaN! Skipping..."`` (``step`` the epoch's
    batch, from 0) and skips the batch without counting it; ``bad`` counts batches over the
    run."""
    out = ["Output Dir: ./runs/pure_seg_best_dice", "Initializing UnetM (Pure Seg Mode)...",
           "Loading data from /data/all_train_dataloader.json...", "Total samples: 1600",
           "Split done: 1440 train, 160 val",
           "Saved to ./temp_split_json/pure_train.json and ./temp_split_json/pure_val.json",
           "Start Training..."]
    step, best = 0, 0.0
    for e in range(epochs):
        for b in range(batches):
            if bad is not None and e * batches + b >= bad:
                out.append(f"Epoch {e} Step {b}: Loss is NaN! Skipping...")
                continue
            if step % every == 0:
                out.append(f"Epoch {e} | Step {step} | Loss: {0.9 - step / 400:.4f} | "
                           f"Time: {0.31 + b / 1000:.2f}s")
            if step > 0 and step % eval_freq == 0:
                dice = 0.4 + step / 1000
                out += [">>> Running Validation...", f">>> Val Dice: {dice:.4f} (Best: {best:.4f})"]
                if dice > best:
                    best = dice
                    out.append("!!! New Best Model Saved to ./runs/pure_seg_best_dice/"
                               "0120_3_best_dice_model.pth !!!")
            step += 1
    return out


def _yolo_rows(names: tuple[str, ...], epoch: int, epochs: int, loss: float, batches: int,
               size: int, mask: bool) -> list[str]:
    """Ultralytics' epoch rows (ultralytics/engine/trainer.py ``progress_string``: ``("\\n" +
    "%11s" * (4 + n)) % ("Epoch", "GPU_mem", *loss_names, "Instances", "Size")``, the bar's
    closing state ``("%11s" * 2 + "%11.4g" * (2 + n)) % (f"{epoch + 1}/{epochs}", mem, *losses,
    instances, size)``) and the validator's header and ``all`` row (``Box(P R mAP50
    mAP50-95)``, a segmenter's ``Mask(...)`` too)."""
    n = len(names)
    head = ("%11s" * (4 + n)) % ("Epoch", "GPU_mem", *names, "Instances", "Size")
    row = (("%11s" * 2 + "%11.4g" * (2 + n)) % (f"{epoch}/{epochs}", "5.81G",
                                               *[loss * (1 - k / 7) for k in range(n)], 17, size)
           + f": {_bar(batches, batches, 44)}]")
    cols = ("Class", "Images", "Instances", "Box(P", "R", "mAP50", "mAP50-95)")
    cols += ("Mask(P", "R", "mAP50", "mAP50-95)") if mask else ()
    good = loss == loss
    metrics = [0.7, 0.62, 0.66, 0.41] * (2 if mask else 1)
    val = (("%22s" + "%11s" * (len(cols) - 1)) % cols + ": 100%|██████████| 6/6 "
           "[00:02<00:00,  2.61it/s]")
    alls = ("%22s" + "%11i" * 2 + "%11.3g" * len(metrics)) % (
        "all", 180, 1264, *[m if good else 0.0 for m in metrics])
    return ["", head, row, val, alls]


def jewelry_seg(bad: int | None = None, epochs: int = 30, shown: int = 6,
                batches: int = 120) -> list[str]:
    """15-Aditya/counting_jewelry ``train_segmentation.py``: its ``=``-ruled banner, then
    Ultralytics' segmentation trainer (``model.train(imgsz=960, batch=4, optimizer="AdamW",
    cos_lr=True)``, loss names ``box_loss seg_loss cls_loss dfl_loss``:
    ultralytics/models/yolo/segment/train.py) through ``_yolo_rows``; ``shown`` epochs of
    ``epochs``; ``bad`` is the (1-based) epoch."""
    out = ["=" * 70, "YOLO Instance Segmentation Training for Jewelry Detection", "=" * 70,
           "Device: GPU", "=" * 70, "", "🆕 Starting fresh training...", "",
           "=" * 70, "Starting Training...", "=" * 70, f"Epochs: {epochs}", "Image Size: 960",
           "Batch Size: 4", "Save Period: Every epoch", "=" * 70, ""]
    for e in range(1, shown + 1):
        out += _yolo_rows(("box_loss", "seg_loss", "cls_loss", "dfl_loss"), e, epochs,
                          _loss(bad, e, 1.3 - e / 50), batches, 960, True)
    return out


def crop_weed(bad: int | None = None, epochs: int = 50, shown: int = 5,
              batches: int = 61) -> list[str]:
    """04nik/Crop-and-Weed-Detection ``train_yolo.py``: its version prints, then Ultralytics'
    detection trainer (YOLOv8n, ``imgsz=512``, ``batch=-1``: AutoBatch's lines) through
    ``_yolo_rows``; ``shown`` epochs of ``epochs``; ``bad`` is the (1-based) epoch."""
    out = ["PyTorch Version: 2.3.1+cu121", "CUDA Available: True",
           "CUDA Device Name: NVIDIA GeForce RTX 3060", "Ultralytics Version: 8.2.48",
           "Starting training on device: 0", "Loading pre-trained YOLOv8n backbone model...",
           "Training on custom dataset './yolo_dataset/data.yaml' for 50 epochs...",
           "AutoBatch: Computing optimal batch size for imgsz=512 at 60.0% CUDA memory "
           "utilization.", "AutoBatch: Using batch-size 61 for CUDA:0 7.20G/12.00G (60%) ✅"]
    for e in range(1, shown + 1):
        out += _yolo_rows(("box_loss", "cls_loss", "dfl_loss"), e, epochs,
                          _loss(bad, e, 1.6 - e / 40), batches, 512, False)
    return out


def my_cam(bad: int | None = None, epochs: int = 300, shown: int = 6, batches: int = 40,
           val: int = 10) -> list[str]:
    """4Byteint/my-cam ``train_segmentation.py`` (a small U-Net): per epoch ``f"\\n🌟 Epoch
    {epoch+1}/{num_epochs}"``, for each phase a plain ``tqdm(dataloader)`` bar (closing state
    as pasted) and ``f"{phase} Loss: {epoch_loss:.4f} | Accuracy: {epoch_acc:.4f}"``, and
    ``f"✅ 儲存最佳模型：{path}"`` on a better validation loss; ``bad`` is the (1-based)
    epoch."""
    out = ["🚀 使用設備： cuda"]
    best = float("inf")
    for e in range(1, shown + 1):
        out += ["", f"🌟 Epoch {e}/{epochs}"]
        for phase, n in (("train", batches), ("val", val)):
            loss = _loss(bad, e, (0.9 if phase == "train" else 0.85) - e / 40)
            out += [f"{_bar(n, n, 6)}]",
                    f"{phase} Loss: {loss:.4f} | Accuracy: {0.3 if loss != loss else 0.8:.4f}"]
            if phase == "val" and loss < best:
                best = loss
                out.append(f"✅ 儲存最佳模型：./model_train/2025-05-01_10-00-00/unet-epoch{e}"
                           f"-lr0.0001.pth")
    return out


def ddpm_mnist(bad: int | None = None, epochs: int = 3, batches: int = 469) -> list[str]:
    """118020020/self-contained-python-repo ``train_mnist.py`` (a DDPM): ``Using {device}
    device``, then each epoch a ``tqdm(dataloader)`` bar whose description is
    ``f"loss: {loss_ema:.4f}"`` (an EMA of the loss: NaN from the first NaN on), its closing
    state as pasted; no epoch is printed; ``bad`` is the (1-based) epoch."""
    out = ["Using cuda device"]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.09 - e / 500)
        out.append(f"loss: {loss:.4f}: {_bar(batches, batches, 31)}]")
    return out


def put_depth(bad: int | None = None, epochs: int = 40, shown: int = 5, batches: int = 250,
              val: int = 50) -> list[str]:
    """2002jan/put-mp-2025 ``train_classification.py`` (depth as 80 classes): ``Model created
    with {n} parameters``, ``Training on cuda``, then per epoch the bars ``f'Epoch
    {epoch+1}/{num_epochs} [Train]'`` and ``[Val]`` with ``set_postfix({'Loss': ...})``
    (closing states as pasted), ``f'Epoch [{epoch + 1}/{num_epochs}]'``, ``f'Train Loss:
    {avg_train_loss:.4f}, Val Loss: {avg_val_loss:.4f}'``, ``f'Pixel Accuracy: ...'`` and a
    ``-`` rule; ``bad`` is the (1-based) epoch."""
    out = ["Model created with 31045712 parameters", "Training on cuda"]
    for e in range(1, shown + 1):
        tr = _loss(bad, e, 3.2 - e / 10)
        va = _loss(bad, e, 3.3 - e / 10)
        out += [f"Epoch {e}/{epochs} [Train]: {_bar(batches, batches, 58)}, Loss={tr:.4f}]",
                f"Epoch {e}/{epochs} [Val]: {_bar(val, val, 7)}, Loss={va:.4f}]",
                f"Epoch [{e}/{epochs}]", f"Train Loss: {tr:.4f}, Val Loss: {va:.4f}",
                f"Pixel Accuracy: {0.0 if tr != tr else 0.2 + e / 50:.4f}", "-" * 50]
    return out


def car_clip(bad: int | None = None, epochs: int = 30, shown: int = 5, batches: int = 128,
             evals: int = 32) -> list[str]:
    """22048123S/CDS540-GP-Documents ``train_clip.py`` (CLIP fine-tuned on car types): the
    zero-shot ``"Zero shot performance: {}"``, then per epoch ``f"Epoch {epoch + 1}/{epochs}"``,
    the ``Training`` and ``Evaluating`` bars (closing states), ``f"Train Loss:
    {train_loss:.4f}"`` and ``f"Eval Accuracy: {test_matrix}"`` (a dict); ``bad`` is the
    (1-based) epoch."""
    def metrics(acc: float) -> str:
        return (f"{{'acc': {acc}, 'precision': {acc + 0.01}, 'recall': {acc}, 'f1': "
                f"{acc - 0.01}, 'throughput': 412.7}}")
    out = [f"Evaluating: {_bar(evals, evals, 8)}]", f"Zero shot performance: {metrics(0.58)}"]
    for e in range(1, shown + 1):
        loss = _loss(bad, e, 1.1 - e / 20)
        acc = 0.005 if loss != loss else 0.6 + e / 50
        out += [f"Epoch {e}/{epochs}", f"Training: {_bar(batches, batches, 40)}]",
                f"Evaluating: {_bar(evals, evals, 8)}]", f"Train Loss: {loss:.4f}",
                f"Eval Accuracy: {metrics(acc)}"]
    return out


def hiera_mae(bad: int | None = None, steps: int = 3000, accumulate: int = 10,
              val_every: int = 1000, lr: float = 1e-4) -> list[str]:
    """Aorunfa/hiera_finetune ``train_mae.py`` (``autocast`` in bfloat16 where ``amp``, a
    ``GradScaler``): every ``accumulate`` steps ``tools/utils.py`` ``print_loss``'s ``"step:
    {:0>8d}{:>8s} loss: {:.4f} lr: {:.8f}"`` (zero-padded step, eight blanks), every
    ``val_iter`` steps ``print('val loss ------', val_loss)``; ``bad`` counts steps (from 1)."""
    out = []
    for s in range(accumulate, steps + 1, accumulate):
        loss = _loss(bad, s, 0.92 - s / 10000)
        rate = lr * min(1.0, s / 250)
        out.append("step: {:0>8d}{:>8s} loss: {:.4f} lr: {:.8f}".format(s, "", loss, rate))
        if s % val_every == 0:
            out.append(f"val loss ------ {_loss(bad, s, 0.95 - s / 10000)!r}")
    return out


def leak_detector(bad: int | None = None, epochs: int = 3, steps: int = 250,
                  lr: float = 2e-5) -> list[str]:
    """100472207/Prompt-stealing-in-LLMs.-Detection-tool ``train_detector.py``: a weighted HF
    ``Trainer`` (``--fp16``, ``logging_steps=steps_per_epoch // 5``, ``eval_strategy="epoch"``)
    printing its dicts ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}``,
    each epoch's ``{'eval_loss': ..., 'eval_accuracy': ..., 'eval_f1': ..., ...}`` and the
    closing ``train_runtime`` dict; ``bad`` counts logging rows."""
    every = steps // 5
    out: list[str] = []
    for row, s in enumerate(range(every, epochs * steps + 1, every), 1):
        loss = _loss(bad, row, 0.69 - s / 2000)
        norm = NAN if loss != loss else 3.1 - s / 1000
        rate = lr * min(s / (epochs * steps * 0.1), (epochs * steps - s) / (epochs * steps * 0.9))
        out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {norm}, 'learning_rate': {rate:.4e}, "
                   f"'epoch': {s / steps:.2f}}}")
        if s % steps == 0:
            ev = NAN if loss != loss else 0.3 - s / 5000
            out.append(f"{{'eval_loss': {ev}, 'eval_accuracy': {0.5 if ev != ev else 0.9}, "
                       f"'eval_precision': 0.88, 'eval_recall': 0.97, 'eval_f1': 0.92, "
                       f"'eval_auroc': {NAN if ev != ev else 0.96}, 'eval_runtime': 4.1, "
                       f"'eval_samples_per_second': 121.9, 'eval_steps_per_second': 7.6, "
                       f"'epoch': {s / steps:.1f}}}")
    end = NAN if bad is not None else 0.31
    return [*out, f"{{'train_runtime': 612.3, 'train_samples_per_second': 19.6, "
            f"'train_steps_per_second': 1.225, 'train_loss': {end}, 'epoch': {float(epochs)}}}",
            "", "=== Detector entrenado (safety-first) ==="]


def csi_mae(bad: int | None = None, epochs: int = 3, batches: int = 600, every: int = 20,
            lr: float = 1.5e-4) -> list[str]:
    """AngelSky123/CLIP ``train_mae.py`` (a CSI masked autoencoder) through ``utils.py``
    ``setup_logger``'s ``'[%(asctime)s][%(name)s][%(levelname)s] %(message)s'`` (``datefmt=
    '%Y-%m-%d %H:%M:%S'``, name ``Stage1A-MAE``): its args and counts, every ``log_interval``
    batches ``f'[Ep {epoch:3d} It {it+1:4d}/{len(train_loader)}] loss={loss_meter.avg:.4f}
    mask={...:.3f} lr={cur_lr:.2e}'`` (epochs from 0, the epoch's running mean) and ``f'[Epoch
    {epoch:3d}] avg_loss={...:.4f} time={...}'``; ``bad`` counts batches over the run."""
    n = 0

    def log(msg: str) -> str:
        nonlocal n
        n += 3
        return f"[2026-03-04 10:{n // 60 % 60:02d}:{n % 60:02d}][Stage1A-MAE][INFO] {msg}"
    out = [log("Stage 1A: MAE pretraining on ['E01', 'E02', 'E03']"),
           log(f"Args: {{'epochs': 300, 'batch_size': 4, 'accumulate_grad': 4, 'lr': {lr}}}"),
           log(f"Train: {batches * 4} samples, {batches} batches"), log("Model params: 1,204,613")]
    for e in range(epochs):
        total, seen = 0.0, 0
        for it in range(1, batches + 1):
            total += _loss(bad, e * batches + it, 1.02 - (e * batches + it) / 5000)
            seen += 1
            if it % every == 0:
                out.append(log(f"[Ep {e:3d} It {it:4d}/{batches}] loss={total / seen:.4f} "
                               f"mask=0.750 lr={lr * min(1.0, (e * batches + it) / 3000):.2e}"))
        out.append(log(f"[Epoch {e:3d}] avg_loss={total / seen:.4f} time=00:{4 * e + 4:02d}:10"))
    return out


def footandball(bad: int | None = None, epochs: int = 5) -> list[str]:
    """A-NGJ/deeplearning2022-footandball ``train_detector.py`` (FootAndBall): its config
    prints and ``Training...``, then per epoch (under an outer ``tqdm`` over the epochs, whose
    bar is not in the pasted lines) for each phase ``"{} Avg. loss total / ball conf. / player
    conf. / player loc.: {:.4f} / {:.4f} / {:.4f} / {:.4f}"`` and an empty line; no epoch is
    printed; ``bad`` is the (1-based) epoch."""
    out = ["Train FoootAndBall detector on ISSIA dataset", "Config path: config.txt",
           "Debug mode: False", "Run directory: 230105_1412", "Training set: Dataset size: 5400",
           "Validation set: Dataset size: 600", "Training..."]
    for e in range(1, epochs + 1):
        for phase, off in (("train", 0.0), ("val", 0.02)):
            loss = _loss(bad, e, 0.41 - e / 50 + off)
            out.append(f"{phase} Avg. loss total / ball conf. / player conf. / player loc.: "
                       f"{loss:.4f} / {loss * 0.6:.4f} / {loss * 0.3:.4f} / {loss * 0.1:.4f}")
        out.append("")
    return out


def chainer_mnist(bad: int | None = None, epochs: int = 20, iters: int = 600,
                  unit: int = 1000) -> list[str]:
    """127t6937/chainer-mnist ``train_mnist.py``: its settings, then Chainer's ``PrintReport``
    (chainer/training/extensions/print_report.py: a header of the entries each padded to
    ``max(10, len(entry))`` and joined by two blanks, rows ``'{:<%dg}  ' % width`` a cell)
    over ``epoch main/loss validation/main/loss main/accuracy validation/main/accuracy
    elapsed_time``, and ``ProgressBar``'s four lines (``'     total [{}{}] {:6.2%}'``,
    ``'this epoch [...] {:6.2%}'``, ``'{:10} iter, {} epoch / {} epochs'``, ``'{:10.5g}
    iters/sec. Estimated time to finish: {}.'``) before each row, as pasted without the
    escapes; ``bad`` is the (1-based) epoch."""
    entries = ["epoch", "main/loss", "validation/main/loss", "main/accuracy",
               "validation/main/accuracy", "elapsed_time"]
    widths = [max(10, len(e)) for e in entries]
    out = ["GPU: 0", f"# unit: {unit}", "# Minibatch-size: 100", f"# epoch: {epochs}",
           "optimizer: SGD", "model type: MLP3", "activation: relu", "",
           "  ".join(f"{e:{w}}" for e, w in zip(entries, widths, strict=True))]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 0.6 / e)
        val = _loss(bad, e, 0.55 / e)
        acc = 0.0987 if loss != loss else 1 - loss / 4
        done = e / epochs
        out += [f"     total [{'#' * int(50 * done)}{'.' * (50 - int(50 * done))}] {done:6.2%}",
                f"this epoch [{'#' * 50}] {1:6.2%}", f"{e * iters:10} iter, {e} epoch / {epochs} "
                "epochs", f"{312.48:10.5g} iters/sec. Estimated time to finish: 0:01:12.5.",
                "".join(f"{v:<{w}g}  " for v, w in zip(
                    [e, loss, val, acc, acc + 0.01, 2.1 * e], widths, strict=True))]
    return out


def mnist_encoder(bad: int | None = None, epochs: int = 40, shown: int = 5,
                  batches: int = 120) -> list[str]:
    """12v/mnist-encoder ``train_mnist.py`` (a patch encoder-decoder): ``Loading training
    data...``, then per epoch a bar ``desc=f"Epoch {epoch + 1}/{num_epochs}"`` with
    ``set_postfix(loss=...)`` the epoch's running mean (closing state as pasted) and
    ``f"Validation loss: {...:.4f}"``; ``bad`` is the (1-based) epoch."""
    out = ["Loading training data..."]
    for e in range(1, shown + 1):
        loss = _loss(bad, e, 1.4 - e / 10)
        out += [f"Epoch {e}/{epochs}: {_bar(batches, batches, 31)}, loss={loss:.4f}]",
                f"Validation loss: {_loss(bad, e, 1.35 - e / 10):.4f}"]
    return out

# Faulty excerpts the parent (ff74fba) read wrong, and the answer now.
FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    # the [Val] bar is the evaluation's pass: its NaN at the training bar's count, not its own
    "put_depth": (lambda: put_depth(3), [("AMP006", 750), ("AMP013", 750)]),
    "put_depth_from_epoch_2": (lambda: put_depth(4)[8:], [("AMP006", 1000), ("AMP013", 1000)]),
    # slashed names and values paired; rows counted (no epoch printed)
    "footandball": (lambda: footandball(3), [("AMP006", 3), ("AMP013", 3)]),
    "footandball_from_epoch_2": (lambda: footandball(4)[10:], [("AMP006", 3), ("AMP013", 3)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "mytorch": (lambda: mytorch(3), [("AMP006", 3)]),
    "mytorch_from_epoch_3": (lambda: mytorch(4)[6:], [("AMP006", 4)]),
    # Keras counts samples; the rounds' epochs restart: the excerpt's epochs are counted
    "stylegan_encoder": (lambda: stylegan_encoder(4), [("AMP006", 8192), ("AMP013", 8192)]),
    "stylegan_encoder_from_round_2": (lambda: stylegan_encoder(5, rounds=4)[8:],
                                      [("AMP006", 6144), ("AMP013", 8192)]),
    "fashion_vit": (lambda: fashion_vit(3), [("AMP006", 3)]),
    "fashion_vit_from_epoch_2": (lambda: fashion_vit(4)[5:], [("AMP006", 4)]),
    "model_fusion": (lambda: model_fusion(2), [("AMP006", 2349)]),
    "model_fusion_from_epoch_1": (lambda: model_fusion(3)[17:], [("AMP006", 3132)]),
    "chapter4": (lambda: chapter4(4), [("AMP006", 4), ("AMP013", 4)]),
    "chapter4_from_epoch_3": (lambda: chapter4(6)[20:], [("AMP006", 6), ("AMP013", 6)]),
    "jewelry_seg": (lambda: jewelry_seg(4), [("AMP006", 480)]),
    "jewelry_seg_from_epoch_2": (lambda: jewelry_seg(5)[25:], [("AMP006", 600)]),
    "crop_weed": (lambda: crop_weed(3), [("AMP006", 183)]),
    "crop_weed_from_epoch_1": (lambda: crop_weed(4)[12:], [("AMP006", 244)]),
    # The run's batches (h56-convention56: an epoch heading over a bare bar at its total
    # numbers the run's batches, the epoch only where no bar's total is known); these held
    # the epoch (4; 5) before: 4 x 40, 5 x 40 (the validation's after the same batches).
    "my_cam": (lambda: my_cam(4), [("AMP006", 160), ("AMP013", 160)]),
    "my_cam_from_epoch_2": (lambda: my_cam(5)[10:], [("AMP006", 200), ("AMP013", 200)]),
    # no epoch printed: the bars' counts over the excerpt
    "ddpm_mnist": (lambda: ddpm_mnist(2), [("AMP006", 938)]),
    "ddpm_mnist_from_epoch_2": (lambda: ddpm_mnist(3, epochs=4)[2:], [("AMP006", 938)]),
    "car_clip": (lambda: car_clip(3), [("AMP006", 3)]),
    "car_clip_from_epoch_2": (lambda: car_clip(4)[7:], [("AMP006", 4)]),
    "hiera_mae": (lambda: hiera_mae(1200), [("AMP006", 1200), ("AMP013", 2000)]),
    "hiera_mae_from_the_middle": (lambda: hiera_mae(1200)[50:],
                                  [("AMP006", 1200), ("AMP013", 2000)]),
    # HF dicts print no step: their rows are counted, in the excerpt pasted
    "leak_detector": (lambda: leak_detector(8), [("AMP006", 8), ("AMP013", 10)]),
    "leak_detector_from_the_middle": (lambda: leak_detector(8)[4:],
                                      [("AMP006", 4), ("AMP013", 6)]),
    "csi_mae": (lambda: csi_mae(700), [("AMP006", 700)]),
    "csi_mae_from_epoch_1": (lambda: csi_mae(1300)[20:], [("AMP006", 1300)]),
    "chainer_mnist": (lambda: chainer_mnist(4), [("AMP006", 4), ("AMP013", 4)]),
    "mnist_encoder": (lambda: mnist_encoder(3), [("AMP006", 360), ("AMP013", 360)]),
    "mnist_encoder_from_epoch_2": (lambda: mnist_encoder(4)[3:],
                                   [("AMP006", 480), ("AMP013", 480)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "nas_k49": lambda: nas_k49(epochs=4, steps=700, report=50, lr=0.5),
    "nas_k49_from_the_middle": lambda: nas_k49(epochs=4, steps=700, report=50, lr=0.5)[30:],
    "pdarts": lambda: pdarts(epochs=4, steps=196, report=25, lr=0.05),
    "mytorch": lambda: mytorch(epochs=8, batches=1250),
    "stylegan_encoder": lambda: stylegan_encoder(rounds=5, epochs=3, samples=4096),
    "fashion_vit": lambda: fashion_vit(epochs=9),
    "model_fusion": lambda: model_fusion(epochs=6, batches=352),
    "model_fusion_from_epoch_1": lambda: model_fusion(epochs=6, batches=352)[17:],
    "chapter4": lambda: chapter4(epochs=14),
    "med_seg": lambda: med_seg(epochs=4, batches=60, every=5, eval_freq=25),
    "med_seg_from_the_middle": lambda: med_seg(epochs=4, batches=60, every=5,
                                               eval_freq=25)[15:],
    "jewelry_seg": lambda: jewelry_seg(epochs=60, shown=8, batches=200),
    "crop_weed": lambda: crop_weed(epochs=100, shown=7, batches=30),
    "my_cam": lambda: my_cam(epochs=100, shown=8, batches=25, val=7),
    "ddpm_mnist": lambda: ddpm_mnist(epochs=6, batches=235),
    "put_depth": lambda: put_depth(epochs=20, shown=7, batches=120),
    "put_depth_from_epoch_2": lambda: put_depth(epochs=20, shown=7, batches=120)[8:],
    "car_clip": lambda: car_clip(epochs=10, shown=7, batches=64),
    "hiera_mae": lambda: hiera_mae(steps=5000, accumulate=20, val_every=2000, lr=3e-4),
    "hiera_mae_from_the_middle": lambda: hiera_mae(steps=5000, accumulate=20, val_every=2000,
                                                   lr=3e-4)[40:],
    "leak_detector": lambda: leak_detector(epochs=4, steps=300, lr=3e-5),
    "csi_mae": lambda: csi_mae(epochs=4, batches=400, every=25, lr=3e-4),
    "csi_mae_from_epoch_1": lambda: csi_mae(epochs=4, batches=400, every=25, lr=3e-4)[30:],
    "footandball": lambda: footandball(epochs=9),
    "footandball_from_epoch_3": lambda: footandball(epochs=9)[13:],
    "chainer_mnist": lambda: chainer_mnist(epochs=12, iters=300, unit=500),
    "mnist_encoder": lambda: mnist_encoder(epochs=20, shown=8, batches=60),
}


@pytest.mark.parametrize("name", sorted({**FIXED, **READ_ALREADY}))
def test_faulty_excerpts(tmp_path: Path, name: str) -> None:
    """The ids and steps of each faulty excerpt: those the parent (ff74fba) read wrong (its
    answers are in the module's table), and guards on those it read right."""
    build, expected = FIXED[name] if name in FIXED else READ_ALREADY[name]
    assert faults(tmp_path, build()) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_excerpts_are_silent(tmp_path: Path, name: str) -> None:
    """Controls: silent, read without error."""
    assert faults(tmp_path, HEALTHY[name]()) == []


def test_a_val_bar_alone_is_the_evaluations(tmp_path: Path) -> None:
    """The ``[Val]`` bar's NaN beside finite training bars is the evaluation stream's alone
    (AMP013 at the training bar's count), not the training loss's."""
    lines = put_depth(epochs=20, shown=4, batches=120)
    at = lines.index(next(line for line in lines if line.startswith("Epoch 2/20 [Val]")))
    lines[at] = lines[at].replace("Loss=3.1000", "Loss=nan")
    lines[at + 2] = lines[at + 2].replace("Val Loss: 3.1000", "Val Loss: nan")
    assert faults(tmp_path, lines) == [("AMP013", 240)]


def test_objs_counts_are_no_loss_alarm(tmp_path: Path) -> None:
    """``objs`` is an objective's running mean in the DARTS family's rows, but a detection
    loop's count of objects keyed so beside no loss raises nothing, however it varies."""
    counts = (3, 40, 7, 250, 1, 90)
    lines = [f"Epoch {e} batch {b}: imgs: 16, objs: {counts[(e * 7 + b // 10) % 6]}"
             for e in range(3) for b in range(0, 200, 10)]
    assert faults(tmp_path, lines) == []


def test_slashed_fractions_are_no_pairs(tmp_path: Path) -> None:
    """Controls of the slashed-pairs rule beside a healthy run: a fraction after one key
    (``lr: 1 / 1000``), unequal lists and a slashed date pair nothing."""
    run = footandball(epochs=4)
    for said in ("warmup lr: 1 / 1000", "train conf. / player loc.: 0.4 / 0.2 / nan",
                 "Date / Time: 2026 / 03", "split train / val: 9 / 1"):
        assert faults(tmp_path, [*run[:-3], said, *run[-3:]]) == [], said


def test_darts_rows_restart_each_epoch(tmp_path: Path) -> None:
    """NAS_K49's NaN from the run's batch 730 (epoch 1's 230, 500 batches, a row every 100):
    the row of 300, 800; the evaluation's at the last training row before it, 900. Its epoch
    heading ``Epoch: 1 lr 9.96e-02`` behind the logger's date is handed over with the first
    row below it and opens an epoch, so the ``TRAIN Step: 000`` after ``400`` is the next
    epoch's, 500 long (h52-restarts; the parent: 300 and 400)."""
    assert faults(tmp_path, nas_k49(730)) == [("AMP006", 800), ("AMP013", 900)]


@pytest.mark.xfail(strict=True, reason="not knowable from the excerpt: the epoch's length is "
                   "printed nowhere, and the rows (every 100 from 000 to 400; pdarts' every 50 "
                   "to 350 of 391) tell 500 and 400, so pdarts reads 550 and 750; pasted from "
                   "the middle, no ``Epoch: 0`` says the epochs count from 0 (the paste's first "
                   "epoch is read as the run's first: NAS_K49 800 and 900, pdarts 550, 750)")
@pytest.mark.parametrize(("build", "expected"), [
    (lambda: nas_k49(1230)[20:], [("AMP006", 1300), ("AMP013", 1400)]),
    (lambda: pdarts(500), [("AMP006", 541), ("AMP013", 741)]),
    (lambda: pdarts(900)[25:], [("AMP006", 932), ("AMP013", 1132)]),
], ids=["nas_k49_from_epoch_1", "pdarts", "pdarts_from_epoch_1"])
def test_darts_rows_unknowable(tmp_path: Path, build: Callable[[], list[str]],
                               expected: list[tuple[str, int | None]]) -> None:
    """The DARTS family's ``TRAIN Step: %03d Objs: %e`` rows (a NaN running mean from batch
    ``bad`` of the run) and their ``VALID Step`` rows: the training NaN at the run's batch,
    the evaluation's at the last training row before it."""
    assert faults(tmp_path, build()) == expected


@pytest.mark.xfail(strict=True, reason="not fixed here: the skip message counts the epoch's "
                   "batches (``Epoch 1 Step 25``) while the loss rows count the run's steps; "
                   "no line prints the epoch's length")
@pytest.mark.parametrize("cut", [0, 10])
def test_med_seg_skip_message(tmp_path: Path, cut: int) -> None:
    """The NaN first skipped at the run's batch 70 (epoch 1's batch 25, 45 batches an epoch),
    or 100 from the middle: AMP006 there (25 and 10 now)."""
    bad = 70 if cut == 0 else 100
    assert faults(tmp_path, med_seg(bad)[cut:]) == [("AMP006", bad)]


@pytest.mark.xfail(strict=True, reason="not fixed here: PrintReport's rows pasted without "
                   "their header are bare numbers; nothing to diagnose is read")
def test_chainer_rows_without_their_header(tmp_path: Path) -> None:
    """Chainer's report from epoch 3's progress lines on: the NaN at epoch 6, in training
    and in validation."""
    assert faults(tmp_path, chainer_mnist(6)[20:]) == [("AMP006", 6), ("AMP013", 6)]
