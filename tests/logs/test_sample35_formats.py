"""An eighteenth random sample: training scripts named for the network they train (a
CIFAR and an ImageNet NAS network, a ResNet, a ViT, a MobileNet, an EfficientNet), read as the
held-out measure of #27 reads, at first sight (the doctor as it is at 317ca79, no rule added:
a measurement only): 6 scripts, the first of each listing of the code index for
``train_cifar.py``, ``train_imagenet.py``, ``train_resnet.py``, ``train_vit.py``,
``train_mobilenet.py`` and ``train_efficientnet.py`` in the order it gives them. Skipped, and
why: those named in tests/logs already (106-/DRBM-tensorflow, 564612540/DiceSGD,
5663015/pdarts; 2BH/NAS_K49, ANinjaRabbit/Mytorch, AhmedRafid023/ViT-image-classification;
0merjavaid/Egocentric_3D_pose, 1653109/stylegan-encoder, 173787247/chapter4-...;
0x-khalil/fashion-mnist-classifier, 10258392511/ModelFusion) and one that trains nothing
(20Fall-CVFinalProject/CVFinal ``train_resnet.py``: its ``optimizer.step()`` is commented
out).

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring) and tqdm's bar as its source draws it: a healthy run
with settings other than the defaults, and faulty ones (a NaN loss from a step), pasted from
the start and from the middle. None of the six prints a loss scale or skipped steps (all
train in fp32), so there is no scale fault to build.

Each script as repository ``file``: the format; the doctor's answer at first sight (317ca79)
-> the right one ("=": the same):

- AI-Tech-Research-Lab/CNAS ``train_cifar.py`` (``%m/%d %I:%M:%S %p`` logging): ``epoch 0
  lr 1.000000e-02``, every 50 batches ``train 150 nan 34.738631`` (step restarting each
  epoch), ``train acc``, ``valid 000 nan 10.000000``, ``valid acc``; AMP013 0 -> AMP006 150,
  AMP013 500 (the last training row); from the middle 0 -> 350, 500 (strict xfails: id, the
  training NaN not reported, and step). Healthy: "nothing to diagnose" (no row read).
- Aravinda27/Image-classification-using-DARTS-with-Involution ``train_imagenet.py``: the same
  shape with two accuracies (``train 2400 nan 0.100000 0.300000``, ``valid_acc_top1``);
  AMP013 0 -> AMP006 2400, AMP013 10000; from the middle 0 -> 7800, 10000 (strict xfails: id
  and step). Healthy: "nothing to diagnose".
- 3dem/relion-classranker ``train_resnet.py``: ``Epoch: 17\tTrain loss: nan\tValid loss:
  nan\tTime: 41.47\t`` (from 0), ``Final valid loss: ...``; AMP006 17, AMP013 17 =; 33, 33
  = from the middle. Healthy with ``--no_valid``: ``Valid loss: 0.0000`` each epoch and
  ``Final valid loss: nan`` below numpy's "Mean of empty slice." warning; AMP013 19 -> silence
  (a FALSE ALARM: the mean of no validation loss; strict xfail).
- 121140119Qaessar/TubesDL_okgas ``train_vit.py``: a bar an epoch ``Epoch 4/10: 45%|...|
  40/88 [..., loss=nan]``, ``Validation accuracy: 0.1429``; AMP006 304 =; 608 = from the
  middle.
- 1337Eddy/MobileBirdNet ``train_mobilenet.py``: ``epoch: 9 `` over ``train loss avg: nan,
  accuracy avg: ...`` and ``test loss avg: nan, ...``; AMP006 9, AMP013 9 =; 21, 21 = from
  the middle.
- 31pineapplebun/ai-food-explorer ``train_efficientnet.py`` (prints in Chinese): ``Epoch
  2/5``, a ``train Phase`` bar (``loss=nan``), ``train Loss: nan Acc: ...``, a ``val Phase``
  bar, ``val Loss: nan Acc: ...``, EarlyStopping's lines (the first ``(-inf --> 0.5200)``);
  AMP006 3131 =, AMP013 4263 -> 4262 (the epoch's last batch); from the middle 7193 =, 8525 ->
  8524 (strict xfails: step).

Healthy, with settings other than the defaults (13 excerpts, 6 of them pasted from the
middle): ONE FALSE ALARM (the class ranker without validation, AMP013 on numpy's mean of an
empty slice); silent and read on 8; silent but "nothing to diagnose" on the 4 DARTS-shaped
ones (CNAS and DARTS-with-involution, from the start and the middle), held as strict xfails
beside their silence.
Faulty (12 excerpts): right at first sight on 6 (50%: the class ranker, the ViT and
MobileBirdNet, each from the start and the middle); the 6 misses: 4 a missing id (the DARTS
rows' training NaN unreported) with a wrong step (the evaluation's AMP013 at 0), 2 a wrong
step (the food run's validation one batch late); none silent.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; an epoch where it prints only
epochs).

After h53-sample35's rules (no xfail left here): faulty right on 12 of 12; healthy, no false
alarm, all 13 read and silent. The false alarm: numpy's empty mean explains the NaN right
below it (tests/logs/test_empty_means.py); the DARTS-shaped rows: ``train %03d %e %f [%f]``
read as the training loss at its counter (tests/logs/test_counter_rows.py); the food run's
step: a training phase's summary right below its bar at the total is that epoch's last batch
(tests/logs/test_phase_summaries.py). Left, beyond the 13 measured: the class ranker's run
as its ``Logger``'s file holds it (stdout only, no numpy warning), still AMP013 19 (a strict
xfail: nothing there says the mean had nothing to average).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, alarms, check_listed, faults, nan_from, running_means, tqdm_bar

NAN = float("nan")


def _stamper(minute: int) -> Callable[[str], str]:
    """``logging``'s ``'%(asctime)s %(message)s'`` with ``datefmt='%m/%d %I:%M:%S %p'`` (the
    DARTS family's format): each call a line some seconds after the last."""
    clock = [minute * 60]

    def log(message: str) -> str:
        clock[0] += 7
        hours, rest = divmod(clock[0] // 60 % 720, 60)
        return (f"12/07 {hours or 12:02d}:{rest:02d}:{clock[0] % 60:02d} "
                f"{'PM' if clock[0] // 43200 % 2 else 'AM'} {message}")

    return log


def cnas_cifar(bad: int | None = None, epochs: int = 3, batches: int = 521, report: int = 50,
               lr: float = 0.01, batch: int = 96, valid: int = 50) -> list[str]:
    """AI-Tech-Research-Lab/CNAS ``train_cifar.py`` (fine-tunes a found network on CIFAR,
    fp32): ``print('Experiment dir : {}'.format(save))``, then ``logging`` to stdout with
    ``'%(asctime)s %(message)s'`` (``datefmt='%m/%d %I:%M:%S %p'``): ``"args = %s"``,
    ``'#params {:.2f}M, #flops {:.0f}M'``, per epoch ``'epoch %d lr %e'`` (from 0), every
    ``report_freq`` batches ``'train %03d %e %f'`` (the step restarting each epoch; the loss
    ``train_loss/total``: the summed batch means over the samples seen), ``'train acc %f'``,
    the evaluation's ``'valid %03d %e %f'`` rows and ``'valid acc %f'``, and ``print('Network
    model dump to %s' % model_path)`` for each checkpoint kept. ``bad`` is the first NaN batch
    of the run (from 0)."""
    log = _stamper(3)
    save = "runs/20261207-221503cifar10resnet101224"
    out = [f"Experiment dir : {save}",
           log(f"args = Namespace(seed=None, data='../data', dataset='cifar10', batch_size="
               f"{batch}, num_workers=2, n_gpus=1, lr={lr}, momentum=0.9, weight_decay=4e-05, "
               f"report_freq={report}, epochs=150, grad_clip=5, save='runs', topk=10)"),
           log("#params 4.21M, #flops 232M")]
    best = 0.0
    for e in range(epochs):
        out.append(log(f"epoch {e} lr {lr * (1 + math.cos(e / 150 * math.pi)) / 2:e}"))
        total = seen = correct = 0.0
        for s in range(batches):
            run = e * batches + s
            total += nan_from(bad, run, 2.3 * 0.9995 ** run + 0.01 * (s % 3))
            seen += batch
            correct += batch * (0.1 if total != total else min(0.35 + run / 3000, 0.95))
            if s % report == 0:
                out.append(log(f"train {s:03d} {total / seen:e} {100 * correct / seen:f}"))
        out.append(log(f"train acc {100 * correct / seen:f}"))
        broken = total != total
        acc = 10.0 if broken else 60.0 + 8 * e
        for s in range(0, valid, report):
            out.append(log(f"valid {s:03d} {NAN if broken else (1.2 - e / 10) / 200:e} "
                           f"{acc:f}"))
        out.append(log(f"valid acc {acc:f}"))
        out.append(f"Network model dump to {save}/net_flops@232.ckpt{e}")
        if acc > best:
            best = acc
            out.append(f"Network model dump to {save}/net_flops@232.best")
    return out


def darts_involution(bad: int | None = None, epochs: int = 3, batches: int = 10010,
                     report: int = 100, lr: float = 0.1, valid: int = 391) -> list[str]:
    """Aravinda27/Image-classification-using-DARTS-with-Involution ``train_imagenet.py``
    (DARTS' ImageNet evaluation loop, fp32): ``logging`` with ``'%(asctime)s %(message)s'``
    (``datefmt='%m/%d %I:%M:%S %p'``): ``'gpu device = %d'``, ``"args = %s"``, ``"param size
    = %fMB"``, per epoch ``'epoch %d lr %e'`` (from 0), every ``report_freq`` batches ``'train
    %03d %e %f %f'`` (``objs.avg``: the epoch's running mean; the step restarting each
    epoch), ``'train_acc %f'``, the evaluation's ``'valid %03d %e %f %f'`` rows,
    ``'valid_acc_top1 %f'`` and ``'valid_acc_top5 %f'``. ``bad`` is the first NaN batch of the
    run (from 0)."""
    log = _stamper(40)
    out = [log("gpu device = 0"),
           log(f"args = Namespace(data='/data/imagenet/', batch_size=128, learning_rate={lr}, "
               "momentum=0.9, weight_decay=3e-05, report_freq=100, gpu=0, epochs=250, "
               "init_channels=48, layers=14, auxiliary=True, arch='DARTS_INV')"),
           log("param size = 4.718752MB")]
    for e in range(epochs):
        out.append(log(f"epoch {e} lr {lr * 0.97 ** e:e}"))
        for s, avg in running_means(bad, e, batches, report,
                                    lambda run, s: 6.9 * 0.9999 ** run + 0.05 * (s % 4)):
            top = 0.1 if avg != avg else 1.0 + (e * batches + s) / 600
            out.append(log(f"train {s:03d} {avg:e} {top:f} {min(top * 3, 99):f}"))
        broken = bad is not None and bad < (e + 1) * batches
        top1 = 0.1 if broken else 1.0 + (e + 1) * batches / 600
        out.append(log(f"train_acc {top1:f}"))
        for s in range(0, valid, report):
            out.append(log(f"valid {s:03d} {NAN if broken else 5.2 - e / 2:e} {top1:f} "
                           f"{min(top1 * 3, 99):f}"))
        out += [log(f"valid_acc_top1 {top1:f}"), log(f"valid_acc_top5 {min(top1 * 3, 99):f}")]
    return out


def classranker(bad: int | None = None, epochs: int = 50, no_valid: bool = False,
                lr: float = 5e-05, batch: int = 32, stderr: bool = True) -> list[str]:
    """3dem/relion-classranker ``train_resnet.py`` (RELION's 2D class ranker, a small ResNet
    with an MSE loss, fp32; stdout teed to a file by its ``Logger``): ``print('DEVICE',
    device)``, ``'Loading previously saved tensors from their .pt files...'``, the settings'
    ``print('P_DROPOUT= ', ..., ' N_EPOCHS= ', N_EPOCHS)``, ``print(model)`` (its first
    lines here), per epoch ``f'Epoch: {epoch}\\tTrain loss: {train_loss:.4f}\\tValid loss:
    {valid_loss:.4f}\\tTime: {dt:.2f}\\t'`` (from 0), at the end ``f'Final valid loss:
    {mean_late_loss}'`` and ``'Written out model as: '``. With ``--no_valid`` the valid loss
    stays ``0`` and the final mean is numpy's mean of an empty slice: ``nan``, with numpy's
    two ``RuntimeWarning``s on stderr (``numpy/core/fromnumeric.py`` ``_mean``'s "Mean of
    empty slice." and ``numpy/core/_methods.py``'s "invalid value encountered in scalar
    divide"), the terminal's paste keeping them (``stderr=False``: the ``Logger``'s own file,
    which tees stdout only). ``bad`` is the first NaN epoch (from 0)."""
    out = ["DEVICE cuda:0", "Loading previously saved tensors from their .pt files...",
           f"P_DROPOUT=  0.3  LEARNING_RATE= {lr}  BATCH_SIZE=  {batch}  USE_IMAGES=  True  "
           f"USE_FEATURES=  True  N_EPOCHS=  {epochs}",
           "Model(", "  (cnn): ResNet(",
           "    (conv): Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), "
           "bias=False)",
           "    (bn): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, "
           "track_running_stats=True)", "    (relu): ReLU(inplace=True)", "  )",
           "  (feature_extractor): Sequential(",
           "    (0): Linear(in_features=16384, out_features=512, bias=True)", "  )", ")"]
    valids = []
    for e in range(epochs):
        train = nan_from(bad, e, 0.061 * 0.97 ** e + 0.004)
        valid = 0.0 if no_valid else nan_from(bad, e, 0.066 * 0.98 ** e + 0.006)
        if not no_valid:
            valids.append(valid)
        out.append(f"Epoch: {e}\tTrain loss: {train:.4f}\tValid loss: {valid:.4f}\t"
                   f"Time: {41.37 + e % 3 / 10:.2f}\t")
    late = valids[-min(len(valids) - 1, 10):] if len(valids) > 1 else []
    if not late and stderr:
        out += ["/opt/conda/lib/python3.10/site-packages/numpy/core/fromnumeric.py:3504: "
                "RuntimeWarning: Mean of empty slice.",
                "  return _methods._mean(a, axis=axis, dtype=dtype,",
                "/opt/conda/lib/python3.10/site-packages/numpy/core/_methods.py:129: "
                "RuntimeWarning: invalid value encountered in scalar divide",
                "  ret = ret.dtype.type(ret / rcount)"]
    mean = sum(late) / len(late) if late else NAN
    return [*out, f"Final valid loss: {mean}",
            f"Written out model as:  train_out_images_features_batch{batch}_rate{lr}_drop0.3_"
            f"epoch{epochs}_model.pt"]


def tubes_vit(bad: int | None = None, epochs: int = 10, batches: int = 88,
              refresh: int = 8) -> list[str]:
    """121140119Qaessar/TubesDL_okgas ``train_vit.py`` (a timm ViT on faces, fp32): per
    epoch ``tqdm(train_loader, desc=f"Epoch {epoch+1}/{args.epochs}")`` with
    ``loop.set_postfix(loss=loss.item())`` (tqdm's ``format_num``: ``'{0:.3g}'`` where
    shorter), its refreshes ``\\r`` segments of one line in a file, then ``f"Validation
    accuracy: {acc:.4f}"``; at the end ``print("Training finished. Best val acc:",
    best_acc)``. ``bad`` is the first NaN batch of the run (from 0; NaN scores' argmax is class
    0, so the accuracy falls, finite)."""
    out = []
    best = 0.0
    for e in range(epochs):
        desc = f"Epoch {e + 1}/{epochs}"
        segments = [tqdm_bar(desc, 0, batches)]
        for b in range(1, batches + 1):
            loss = nan_from(bad, e * batches + b - 1, 1.9 * 0.996 ** (e * batches + b))
            if b % refresh == 0 or b == batches:
                shown = f"{loss:.3g}"
                segments.append(tqdm_bar(desc, b, batches, f", loss={shown}", rate=2.41))
        out.append("\r".join(segments))
        broken = bad is not None and bad < (e + 1) * batches
        acc = 0.1429 if broken else min(0.41 + e * 0.05, 0.93)
        out.append(f"Validation accuracy: {acc:.4f}")
        best = max(best, acc)
    return [*out, f"Training finished. Best val acc: {best}"]


def mobile_birdnet(bad: int | None = None, epochs: int = 30,
                   save: str = "models/mobile_birdnet/") -> list[str]:
    """1337Eddy/MobileBirdNet ``train_mobilenet.py`` (``AnalyzeMobileBirdnet``, fp32):
    ``"Start training process"``, per epoch (from 0) ``'epoch: {:d} \\ntrain loss avg:
    {train_loss.avg:.4f}, accuracy avg: {train_top1.avg:.4f}\\t' '\\ntest loss avg:
    {test_loss.avg:.4f}, accuracy avg: {test_top1.avg:.4f}'`` (three lines), every 5th epoch
    ``"Save checkpoint: " + save_path + "birdnet_v" + str(version) + ".pt"``, at the end
    ``"Saved Model!"``. (Its ``Monitor``'s module is not in the index: anything it prints is
    left out.) ``bad`` is the first NaN epoch (from 0)."""
    out = ["Start training process"]
    version = 0
    for e in range(epochs):
        train = nan_from(bad, e, 0.083 * 0.95 ** e + 0.011)
        test = nan_from(bad, e, 0.091 * 0.96 ** e + 0.014)
        acc = 0.0 if train != train else min(0.21 + e / 40, 0.88)
        out += [f"epoch: {e:d} ", f"train loss avg: {train:.4f}, accuracy avg: {acc:.4f}\t",
                f"test loss avg: {test:.4f}, accuracy avg: {acc * 0.93:.4f}"]
        if e % 5 == 0:
            out.append(f"Save checkpoint: {save}birdnet_v{version}.pt")
            version += 1
    return [*out, "Saved Model!"]


def food_effnet(bad: int | None = None, epochs: int = 5, batches: int = 2131, val: int = 237,
                refresh: int = 200, patience: int = 5) -> list[str]:
    """31pineapplebun/ai-food-explorer ``train_efficientnet.py`` (EfficientNet-B3 on
    Food-101, fp32; its prints in Chinese): the GPU's lines, ``f"当前使用设备: {DEVICE}"``,
    the data's sizes, ``"正在加载预训练的 EfficientNet-B3 模型..."``, ``"开始训练..."``; per
    epoch ``f'Epoch {epoch + 1}/{num_epochs}'``, ``'-' * 10``, a ``tqdm(..., desc=f'{phase}
    Phase')`` bar per phase with ``set_postfix({'loss': f'{loss.item():.4f}'})``, ``f'{phase}
    Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}'``, ``EarlyStopping(verbose=True)``'s
    ``f'验证集准确率提升 ({self.val_acc_max:.4f} --> {val_acc:.4f}).  正在保存模型...'`` (the
    first from ``-inf``) or ``f'EarlyStopping counter: {self.counter} out of
    {self.patience}'``, a blank line; at the end ``"早停触发 (Early Stopping)"`` where it
    stops, ``f'训练完成，耗时: ...分 ...秒'`` and ``f'最佳验证集准确率: ...'``. ``bad`` is the
    first NaN batch of the run (from 0)."""
    out = ["✅ 检测到 GPU: NVIDIA GeForce RTX 4090", "   CUDA Version: 12.1", "当前使用设备: cuda",
           "正在准备数据加载器...", f"训练集大小: {batches * 32 - 17}",
           f"验证集大小: {val * 32 - 9}", "类别数量: 101",
           "正在加载预训练的 EfficientNet-B3 模型...", "开始训练..."]
    best, counter, stopped = -float("inf"), 0, False
    for e in range(epochs):
        out += [f"Epoch {e + 1}/{epochs}", "-" * 10]
        segments = [tqdm_bar("train Phase", 0, batches)]
        total = 0.0
        for b in range(1, batches + 1):
            run = e * batches + b - 1
            loss = nan_from(bad, run, 4.6 * 0.9993 ** run + 0.3)
            total += loss
            if b % refresh == 0 or b == batches:
                segments.append(tqdm_bar("train Phase", b, batches, f", loss={loss:.4f}",
                                         rate=6.12))
        out.append("\r".join(segments))
        broken = total != total
        acc = 0.0099 if broken else min(0.52 + e * 0.07, 0.86)
        out.append(f"train Loss: {total / batches:.4f} Acc: {acc - 0.03:.4f}")
        v_loss = NAN if broken else 1.6 - e * 0.15
        out.append(tqdm_bar("val Phase", val, val, f", loss={v_loss:.4f}", rate=14.3))
        out.append(f"val Loss: {v_loss:.4f} Acc: {acc:.4f}")
        if acc > best:
            out.append(f"验证集准确率提升 ({best:.4f} --> {acc:.4f}).  正在保存模型...")
            best, counter = acc, 0
        else:
            counter += 1
            out.append(f"EarlyStopping counter: {counter} out of {patience}")
            if counter >= patience:
                out.append("早停触发 (Early Stopping)")
                stopped = True
                break
        out.append("")
    del stopped
    return [*out, "训练完成，耗时: 47分 12秒", f"最佳验证集准确率: {best:.4f}"]


# The healthy runs, each with settings other than the defaults (other lengths, intervals,
# batch sizes, learning rates, save paths), from the start and pasted from the middle: the
# right answer is silence.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "classranker": lambda: classranker(epochs=30, lr=1e-4, batch=64),
    "classranker_from_the_middle": lambda: classranker()[30:],
    "tubes_vit": lambda: tubes_vit(epochs=6, batches=57, refresh=5),
    "tubes_vit_from_the_middle": lambda: tubes_vit()[5:],
    "mobile_birdnet": lambda: mobile_birdnet(epochs=12, save="ckpt/"),
    "mobile_birdnet_from_the_middle": lambda: mobile_birdnet()[40:],
    "food_effnet": lambda: food_effnet(epochs=3, batches=1066, val=119, refresh=100),
    "food_effnet_from_the_middle": lambda: food_effnet()[15:],
}
# The healthy runs whose ``train %03d %e %f`` rows the doctor does not read: silent, but with
# its "nothing to diagnose" error at first sight.
UNREAD: dict[str, Callable[[], list[str]]] = {
    "cnas_cifar": lambda: cnas_cifar(epochs=4, batches=391, report=25, lr=0.025, batch=128),
    "cnas_cifar_from_the_middle": lambda: cnas_cifar()[20:],
    "darts_involution": lambda: darts_involution(epochs=2, batches=5005, report=50, lr=0.05),
    "darts_involution_from_the_middle": lambda: darts_involution()[60:],
}
CONTROLS: Table = {f"{name} (healthy)": (build, []) for name, build in HEALTHY.items()}

# The faulty excerpts the doctor read right at first sight (317ca79).
READ_ALREADY: Table = {
    # The class ranker's NaN from epoch 17 (from 0, as ``Epoch: 17`` prints it): both losses
    # on that row; from the middle, 33.
    "classranker": (lambda: classranker(17), [("AMP006", 17), ("AMP013", 17)]),
    "classranker_from_the_middle": (lambda: classranker(33)[35:],
                                    [("AMP006", 33), ("AMP013", 33)]),
    # The ViT's NaN from the run's batch 300 (epoch 4's 37th of 88, drawn every 8): the bar's
    # 40, the run's 304; from the middle (opening at ``Epoch 3/10``), 600: 608.
    "tubes_vit": (lambda: tubes_vit(300), [("AMP006", 304)]),
    "tubes_vit_from_the_middle": (lambda: tubes_vit(600)[4:], [("AMP006", 608)]),
    # MobileBirdNet's NaN from epoch 9 (from 0): its ``train loss avg`` and ``test loss avg``
    # under ``epoch: 9``; from the middle, 21.
    "mobile_birdnet": (lambda: mobile_birdnet(9), [("AMP006", 9), ("AMP013", 9)]),
    "mobile_birdnet_from_the_middle": (lambda: mobile_birdnet(21)[50:],
                                       [("AMP006", 21), ("AMP013", 21)]),
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right at first sight and the healthy runs' silence."""
    check_listed(tmp_path, name, READ_ALREADY, CONTROLS)


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_raise_no_alarm(tmp_path: Path, name: str) -> None:
    """The DARTS-shaped healthy runs: no diagnosis above info (no false alarm), whatever the
    result's error says."""
    assert alarms(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_are_read(tmp_path: Path, name: str) -> None:
    """The right answer on those runs: read without error, and silent (at first sight
    "nothing to diagnose"; read since h53-sample35: see tests/logs/test_counter_rows.py)."""
    assert faults(tmp_path, UNREAD[name]()) == []


def test_mean_of_nothing_is_no_fault(tmp_path: Path) -> None:
    """The class ranker run with ``--no_valid`` (20 epochs, healthy): its final mean of no
    validation loss is numpy's ``nan`` below numpy's "Mean of empty slice." warning. That
    NaN is a mean of nothing, not a value that diverged: the right answer is silence (at
    first sight: AMP013 19, a false alarm; silent since h53-sample35: see
    tests/logs/test_empty_means.py)."""
    assert faults(tmp_path, classranker(epochs=20, no_valid=True)) == []




@pytest.mark.xfail(strict=True, reason="not fixed: without numpy's warning (stderr, which "
                   "the script's Logger does not tee) nothing says the final mean had nothing "
                   "to average; a valid loss of 0.0000 on every row may be a placeholder or a "
                   "perfect fit, and a NaN after finite values is what AMP013 is for")
def test_mean_of_nothing_in_the_loggers_file(tmp_path: Path) -> None:
    """The same run as the Logger's file holds it (stdout only, no warning): the right
    answer is still silence (AMP013 19 now)."""
    assert faults(tmp_path, classranker(epochs=20, no_valid=True, stderr=False)) == []


@pytest.mark.parametrize(("build", "right"), [
    # The food run's NaN from the run's batch 3000 (epoch 2's 870th of 2131, drawn every
    # 200): the bar's 1000, the run's 3131 (right); the validation's NaN after that epoch's
    # training, its last batch 4262 (the doctor: 4263). From the middle (opening at ``Epoch
    # 2/5``), 7000: 7193 (right) and 8524 (the doctor: 8525). Right since h53-sample35
    # (tests/logs/test_phase_summaries.py).
    pytest.param(lambda: food_effnet(3000), [("AMP006", 3131), ("AMP013", 4262)],
                 id="food_effnet"),
    pytest.param(lambda: food_effnet(7000)[17:], [("AMP006", 7193), ("AMP013", 8524)],
                 id="food_effnet_from_the_middle"),
    # CNAS' NaN from batch 137 of epoch 0 (a row every 50): the row ``train 150``; the
    # validation's NaN after the epoch's last training row, ``train 500``. From the middle
    # (opening at ``train 200``), 333: 350 and 500. The doctor: AMP013 0 both times (right
    # since h53-sample35: tests/logs/test_counter_rows.py).
    pytest.param(lambda: cnas_cifar(137), [("AMP006", 150), ("AMP013", 500)],
                 id="cnas_cifar"),
    pytest.param(lambda: cnas_cifar(333)[8:], [("AMP006", 350), ("AMP013", 500)],
                 id="cnas_cifar_from_the_middle"),
    # The DARTS-with-involution NaN from batch 2345 of epoch 0 (a row every 100): ``train
    # 2400``; the validation's after the last training row, ``train 10000``. From the middle
    # (opening at ``train 4600``), 7777: 7800 and 10000. The doctor: AMP013 0 both times
    # (right since h53-sample35).
    pytest.param(lambda: darts_involution(2345), [("AMP006", 2400), ("AMP013", 10000)],
                 id="darts_involution"),
    pytest.param(lambda: darts_involution(7777)[50:], [("AMP006", 7800), ("AMP013", 10000)],
                 id="darts_involution_from_the_middle"),
])
def test_misses_at_first_sight(tmp_path: Path, build: Callable[[], list[str]],
                               right: list[tuple[str, int]]) -> None:
    """The faulty excerpts the doctor reads wrong at first sight, each with its right answer
    (strict xfails where still wrong)."""
    assert faults(tmp_path, build()) == right
