"""Reference training scripts and the research repositories many runs copy: excerpts written
from each one's own format strings (each builder names its source), a fault at a known step
beside healthy controls with non-default settings.

- the meters that print ``{val} ({avg})``, the value then its running average over the epoch:
  Swin-Transformer's ``AverageMeter`` lines (microsoft/Swin-Transformer ``main.py``
  ``train_one_epoch`` and ``validate``, through its ``logger.py`` ``create_logger``), the
  PyTorch examples' ``ProgressMeter`` (facebookresearch/moco ``main_moco.py``, copied from
  pytorch/examples ``imagenet/main.py``, and that file's older ``'Loss {loss.val:.4f}
  ({loss.avg:.4f})'``), the MetricLogger's ``{median:.4f} ({global_avg:.4f})`` (pytorch/vision
  ``references/classification/train.py`` and ``utils.py``). A NaN loss between two prints
  shows only in the average (the value printed is the batch's at the print; a GradScaler run
  skips the bad step and goes on);
- read right before this change (kept here as they are): torchvision's detection and
  segmentation references, ConvNeXt's and DINO's MetricLogger and ``Loss is nan, stopping
  training``, Barlow Twins' and VICReg's JSON stats, MAE's ``log.txt``, Deformable DETR,
  mmdetection3d (mmcv 1.x and mmengine), pytorch/examples ``language_translation``, lightly's
  examples.

Each fault test failed on the parent commit (3eedced); the tests that pass there say so.

Left as they are (documented, not tested): pytorch/examples ``mnist``, ``vae`` and
``siamese_network`` print ``Train Epoch: 2 [25600/60000 (43%)]``, samples counted from 0
(``batch_idx * len(data)``): no batch size is printed, so their NaN is found at the print's
ordinal (summary lines counted), not at a batch; an excerpt resumed past epoch 0 (Swin's
``Train: [30/300]``, MoCo's ``Epoch: [100]``) counts its epochs from 1 (nothing in it says
from 0); Swin's ``loss_scale 0.0000`` (``:.4f``) after ``0.0001`` is read as a scale of
exactly 0 (AMP004's error), where it is only below the print's last digit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from excerpts import faults

_SWIN = "[2026-12-06 10:00:00 swin_tiny_patch4_window7_224] (main.py {line}): INFO "


def _meter(epoch: int, batches: int, counts: range, avg_nan_from: int | None,
           spec: str = ".4f") -> Iterator[tuple[int, str, str]]:
    """(batch, value, average) of a loss meter's prints over one epoch, the average NaN from
    the print at or after ``avg_nan_from`` (a batch's NaN loss, the value printed finite)."""
    for i in counts:
        step = epoch * batches + i
        val = avg = format(6.9 - step / 1e5, spec)
        if avg_nan_from is not None and epoch * batches <= avg_nan_from <= step:
            avg = "nan"
        yield i, val, avg


def _swin(batches: int = 1251, *, epochs: range = range(2), every: int = 10,
          nan_from: int | None = None, avg_nan_from: int | None = None,
          test_avg_nan_epoch: int | None = None) -> list[str]:
    """Swin-Transformer ``train_one_epoch`` every ``PRINT_FREQ`` batches: ``f'Train:
    [{epoch}/{EPOCHS}][{idx}/{num_steps}]\\teta ... lr {lr:.6f}\\t wd {wd:.4f}\\ttime ...\\tloss
    {loss_meter.val:.4f} ({loss_meter.avg:.4f})\\tgrad_norm ...\\tloss_scale ...\\tmem
    {memory_used:.0f}MB'``, its meters reset each epoch; ``validate``'s ``Test: [{idx}/{n}]``
    lines and `` * Acc@1`` after each epoch. ``nan_from``: the batch's loss is NaN from that
    step; ``avg_nan_from``: one batch's loss was NaN just before that step (its epoch's
    average stays NaN, the GradScaler skipped it and halved its scale)."""
    lines = [_SWIN.format(line=133) + "Start training"]
    for epoch in epochs:
        for idx, val, avg in _meter(epoch, batches, range(0, batches, every), avg_nan_from):
            scale = 32768.0 if avg == "nan" else 65536.0  # the NaN step skipped, halved
            if nan_from is not None and epoch * batches + idx >= nan_from:
                val = avg = "nan"
            lines.append(_SWIN.format(line=227) + (
                f"Train: [{epoch}/300][{idx}/{batches}]\teta 0:08:20 lr 0.000125\t wd 0.0500\t"
                f"time 0.4012 (0.4133)\tloss {val} ({avg})\tgrad_norm 3.1234 (inf)\t"
                f"loss_scale {scale:.4f} ({scale:.4f})\tmem 9123MB"))
        lines.append(_SWIN.format(line=236) + f"EPOCH {epoch} training takes 0:08:31")
        bad = test_avg_nan_epoch is not None and epoch >= test_avg_nan_epoch
        for idx in range(0, 49, 10):
            lines.append(_SWIN.format(line=271) + (
                f"Test: [{idx}/49]\tTime 1.012 (1.103)\tLoss 6.8123 ({'nan' if bad else '6.8123'})"
                "\tAcc@1 0.100 (0.100)\tAcc@5 0.500 (0.500)\tMem 9123MB"))
        lines.append(_SWIN.format(line=278) + " * Acc@1 0.100 Acc@5 0.500")
        lines.append(_SWIN.format(line=160) + "Accuracy of the network on the 50000 test "
                     "images: 0.1%")
    return lines


def test_swin_average_turns_nan_between_prints(tmp_path: Path) -> None:
    """Before: silence. A NaN loss on a batch between two prints (the GradScaler skipped it,
    the scale halved) shows only as ``loss 6.8850 (nan)``: the average was not read."""
    assert faults(tmp_path, _swin(avg_nan_from=1251 + 500)) == [("AMP006", 1751)]
    # ``PRINT_FREQ`` 50, in the first epoch: the first row after the NaN
    assert faults(tmp_path, _swin(every=50, avg_nan_from=620)) == [("AMP006", 650)]


def test_swin_evaluation_average_turns_nan(tmp_path: Path) -> None:
    """Before: silence. Swin's ``validate`` ``Loss 6.8123 (nan)``, torchvision's ``Test: EMA
    ...  loss: 6.8000 (nan)``: one evaluation batch's loss was NaN, the average of the
    epoch's evaluation says so (an evaluation's fault, at the epoch's last training row)."""
    assert faults(tmp_path, _swin(epochs=range(3), test_avg_nan_epoch=1)) == [("AMP013", 2501)]
    # torchvision's ``--model-ema`` evaluation (``Test: EMA``), printing every 50
    assert faults(tmp_path, _vision_classification(epochs=range(3), every=50, ema=True,
                                                   ema_avg_nan_epoch=1)) == [("AMP013", 10005)]


def _progress_meter(batches: int = 5004, *, epochs: range = range(2), every: int = 10,
                    avg_nan_from: int | None = None) -> list[str]:
    """MoCo's ``ProgressMeter`` (facebookresearch/moco ``main_moco.py``, from pytorch/examples
    ``imagenet/main.py``): ``'\\t'.join([prefix + '[{:4d}/5004]', str(meter)...])``, each
    ``AverageMeter.__str__`` ``'{name} {val' + fmt + '} ({avg' + fmt + '})'``, the loss's fmt
    ``':.4e'``, ``prefix="Epoch: [{}]".format(epoch)``."""
    lines = []
    width = len(str(batches))
    for epoch in epochs:
        for i, val, avg in _meter(epoch, batches, range(0, batches, every), avg_nan_from, ".4e"):
            lines.append(f"Epoch: [{epoch}][{i:{width}d}/{batches}]\tTime  0.512 ( 0.612)\t"
                         f"Data  0.001 ( 0.101)\tLoss {val} ({avg})\tAcc@1   0.00 (  0.10)\t"
                         "Acc@5   0.78 (  0.50)")
    return lines


def _imagenet_2018(batches: int = 5005, *, avg_nan_from: int | None = None) -> list[str]:
    """pytorch/examples ``imagenet/main.py`` before its ProgressMeter (with its ``--fp16`` and
    static ``--loss-scale``): ``'Epoch: [{0}][{1}/{2}]\\tTime ... \\tLoss {loss.val:.4f}
    ({loss.avg:.4f})\\tPrec@1 ...'`` when ``i % args.print_freq == 0 and i > 0``."""
    lines: list[str] = []
    for epoch in range(2):
        lines += [f"Epoch: [{epoch}][{i}/{batches}]\tTime 0.512 (0.612)\tData 0.001 (0.101)\t"
                  f"Loss {val} ({avg})\tPrec@1 0.000 (0.100)\tPrec@5 0.781 (0.500)"
                  for i, val, avg in _meter(epoch, batches, range(10, batches, 10), avg_nan_from)]
        lines.append(" * Prec@1 0.100 Prec@5 0.500")
    return lines


def test_progress_meter_average_turns_nan(tmp_path: Path) -> None:
    """Before: silence on ``Loss 6.8495e+00 (nan)`` (MoCo) and ``Loss 6.8495 (nan)`` (the
    older ImageNet example): the value printed was finite, the NaN only in the average."""
    assert faults(tmp_path, _progress_meter(avg_nan_from=5004 + 505)) == [("AMP006", 5514)]
    assert faults(tmp_path, _progress_meter(every=100, avg_nan_from=5004 + 250)) == [
        ("AMP006", 5004 + 300)]
    assert faults(tmp_path, _imagenet_2018(avg_nan_from=5005 + 495)) == [("AMP006", 5505)]


def _vision_classification(batches: int = 5005, *, epochs: range = range(2), every: int = 10,
                           median_nan: tuple[int, int] | None = None,
                           avg_nan_from: int | None = None, ema: bool = False,
                           ema_avg_nan_epoch: int | None = None) -> list[str]:
    """pytorch/vision ``references/classification/train.py`` ``train_one_epoch``:
    ``MetricLogger(delimiter="  ")`` with ``lr`` and ``img/s`` meters (``fmt="{value}"``)
    added first, then ``loss``, ``acc1``, ``acc5`` (``SmoothedValue``'s ``{median:.4f}
    ({global_avg:.4f})``); ``utils.py`` ``log_every``: ``header  [{i:4d}/N]  eta: ...
    {meters}  time: ...  data: ...  max mem: ...``; ``evaluate``'s ``Test:`` (and ``Test: EMA``
    with ``--model-ema``) lines and ``f"{header} Acc@1 ... Acc@5 ..."``. ``median_nan``: the
    steps whose window's median is NaN too; ``ema_avg_nan_epoch``: from that epoch, one batch
    of the EMA model's evaluation has a NaN loss (the average says so, the value printed
    not)."""
    lines = []
    width = len(str(batches))
    for epoch in epochs:
        for i, median, avg in _meter(epoch, batches, range(0, batches, every), avg_nan_from):
            if median_nan is not None and median_nan[0] <= epoch * batches + i < median_nan[1]:
                median = "nan"
            lines.append(f"Epoch: [{epoch}]  [{i:{width}d}/{batches}]  eta: 0:40:31  lr: 0.5  "
                         f"img/s: 1234.5678901234  loss: {median} ({avg})  acc1: 0.0000 "
                         "(0.1000)  acc5: 0.7812 (0.5000)  time: 0.4876  data: 0.0123  max mem: "
                         "8123")
        lines.append(f"Epoch: [{epoch}] Total time: 0:40:41")
        for header in ("Test:", "Test: EMA") if ema else ("Test:",):
            bad = "EMA" in header and ema_avg_nan_epoch is not None and epoch >= ema_avg_nan_epoch
            for i in range(0, 196, 100):
                avg = "nan" if bad and i else "6.8000"
                lines.append(f"{header}  [{i:3d}/196]  eta: 0:00:31  loss: 6.8000 ({avg})  "
                             "acc1: 0.0000 (0.1000)  acc5: 0.5000 (0.5000)  time: 0.1000  data: "
                             "0.0500  max mem: 8123")
            lines.append(f"{header} Total time: 0:00:41")
            lines.append(f"{header} Acc@1 0.100 Acc@5 0.500")
    return lines


def test_metric_logger_global_avg_turns_nan(tmp_path: Path) -> None:
    """Before: silence when the NaN left the window's median before the next print (``loss:
    6.8495 (nan)``: only ``global_avg``); with the median NaN too it was found (kept)."""
    assert faults(tmp_path, _vision_classification(every=50, avg_nan_from=5005 + 480)) == [
        ("AMP006", 5505)]
    assert faults(tmp_path, _vision_classification(avg_nan_from=5005 + 495,
                                                   median_nan=(5505, 5525))) == [
        ("AMP006", 5505)]


def test_average_controls(tmp_path: Path) -> None:
    """Healthy runs (pass on the parent too): fp16 Swin with ``grad_norm ... (inf)`` (an
    overflow the scaler skipped: no loss), resumed, printing every 50; MoCo resumed at epoch
    100; the older ImageNet example; torchvision with ``--model-ema`` and ``--print-freq 50``.
    A finite average beside a NaN value leaves it NaN (found on the parent too)."""
    for lines in (_swin(), _swin(epochs=range(30, 32), every=50), _progress_meter(),
                  _progress_meter(epochs=range(100, 102), every=100), _imagenet_2018(),
                  _vision_classification(ema=True, every=50)):
        assert faults(tmp_path, lines) == []
    assert faults(tmp_path, _swin(nan_from=1251 + 500)) == [("AMP006", 1751)]


def _metric_logger(header: str, epoch: int, batches: int, meters: str, *, every: int = 10,
                   nan_from: int | None = None, stop: bool = False,
                   delimiter: str = "  ") -> tuple[list[str], bool]:
    """The MetricLogger's ``log_every`` over one epoch (pytorch/vision ``references/*/
    utils.py``, facebookresearch/detr ``util/misc.py``, ConvNeXt's and DINO's ``utils.py``):
    ``meters`` holds ``{v}`` where the loss goes. ``stop``: the script checks the loss and
    stops at the first batch from ``nan_from``; the second item says it stopped."""
    lines = []
    width = len(str(batches))
    for i in range(0, batches, every):
        step = epoch * batches + i
        bad = nan_from is not None and step >= nan_from
        if bad and stop:
            lines.append("Loss is nan, stopping training")
            return lines, True
        value = "nan" if bad else f"{6.9 - step / 1e5:.4f}"
        lines.append(delimiter.join([header, f"[{i:{width}d}/{batches}]", "eta: 0:40:31",
                                     meters.format(v=value), "time: 0.4876", "data: 0.0123",
                                     "max mem: 8123"]))
    return lines, False


def _epochs(header: str, batches: int, meters: str, *, after: tuple[str, ...] = (),
            every: int = 10, nan_from: int | None = None, stop: bool = False,
            delimiter: str = "  ") -> list[str]:
    """``_metric_logger`` over two epochs, the header formatted with the epoch, ``after``
    each epoch's lines."""
    lines: list[str] = []
    for epoch in range(2):
        rows, stopped = _metric_logger(header.format(epoch), epoch, batches, meters,
                                       every=every, nan_from=nan_from, stop=stop,
                                       delimiter=delimiter)
        lines += rows
        if stopped:
            break
        lines += [line.format(epoch) for line in after]
    return lines


_DETECTION = ("lr: 0.020000  loss: {v} ({v})  loss_classifier: 0.5123 (0.5123)  loss_box_reg: "
              "0.3123 (0.3123)  loss_objectness: 0.2123 (0.2123)  loss_rpn_box_reg: 0.1123 "
              "(0.1123)")
_COCO = ("Averaged stats: model_time: 0.0541 (0.0593)  evaluator_time: 0.0049 (0.0089)",
         "IoU metric: bbox",
         " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.012",
         " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000",
         " Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000")


def _torchvision_detection(nan_from: int | None = None, delimiter: str = "  ") -> list[str]:
    """pytorch/vision ``references/detection/engine.py`` ``train_one_epoch``: ``header =
    f"Epoch: [{epoch}]"``, the ``lr`` meter then the loss and its terms; on a non-finite loss
    ``print(f"Loss is {loss_value}, stopping training")``, ``print(loss_dict_reduced)``,
    ``sys.exit(1)``; ``evaluate``'s ``Averaged stats:`` and pycocotools' summary."""
    lines = _epochs("Epoch: [{}]", 7329, _DETECTION, every=20, nan_from=nan_from,
                    stop=True, after=("Epoch: [{}] Total time: 1:20:00 (0.6551 s / it)",
                                      *_COCO), delimiter=delimiter)
    if nan_from is not None:
        lines.append("{'loss_classifier': tensor(nan, device='cuda:0'), 'loss_box_reg': "
                     "tensor(nan, device='cuda:0'), 'loss_objectness': tensor(0.6912, "
                     "device='cuda:0'), 'loss_rpn_box_reg': tensor(0.0623, device='cuda:0')}")
    return lines


def _segmentation(nan_from: int | None = None, *, absent_class: bool = False) -> list[str]:
    """pytorch/vision ``references/segmentation/train.py``: ``Epoch: [{epoch}]`` with ``lr``
    and ``loss``, ``evaluate``'s meterless ``Test:`` lines, then ``print(confmat)``
    (``utils.ConfusionMatrix.__str__``: ``global correct``, per-class ``average row
    correct`` and ``IoU`` lists, ``mean IoU``); a class absent from the validation set
    prints ``nan`` there (0/0), a healthy run's."""
    row = ["95.1", "nan" if absent_class else "40.2", *["30.5"] * 19]
    iou = ["90.1", "nan" if absent_class else "20.2", *["25.5"] * 19]
    confmat = (f"global correct: 91.2\naverage row correct: {row}\nIoU: {iou}\nmean IoU: "
               f"{'nan' if absent_class else '30.1'}")
    return _epochs("Epoch: [{}]", 1464, "lr: 0.019987  loss: {v} ({v})", nan_from=nan_from,
                   after=("Epoch: [{}] Total time: 0:10:41",
                          "Test:  [   0/1449]  eta: 0:01:31    time: 0.1000  data: 0.0500  "
                          "max mem: 8123", "Test: Total time: 0:02:00", confmat))


def _convnext(nan_from: int | None = None, *, amp: bool = True) -> list[str]:
    """facebookresearch/ConvNeXt ``engine.py``: ``lr``, ``min_lr`` then ``loss``,
    ``class_acc``, ``weight_decay`` and (``--use_amp``) ``grad_norm`` meters; on a non-finite
    loss ``print("Loss is {}, stopping training")`` then ``assert math.isfinite``."""
    meters = ("lr: 0.000400  min_lr: 0.000400  loss: {v} ({v})  class_acc: 0.0010 (0.0010)  "
              "weight_decay: 0.0500 (0.0500)") + ("  grad_norm: 3.1234 (inf)" if amp else "")
    lines = _epochs("Epoch: [{}]", 1251, meters, nan_from=nan_from, stop=True,
                    after=("Epoch: [{}] Total time: 0:12:00 (0.5755 s / it)",
                           "* Acc@1 0.100 Acc@5 0.500 loss 6.900"))
    if nan_from is not None:
        lines += ["Traceback (most recent call last):", "    assert math.isfinite(loss_value)",
                  "AssertionError"]
    return lines


def _dino(nan_from: int | None = None, *, stop: bool = True) -> list[str]:
    """facebookresearch/dino ``main_dino.py``: ``header = 'Epoch: [{}/{}]'.format(epoch,
    args.epochs)`` (the epoch and the run's total before the batch count), ``loss``, ``lr``,
    ``wd`` meters; ``print("Loss is {}, stopping training".format(loss.item()),
    force=True)``."""
    return _epochs("Epoch: [{}/100]", 2502, "loss: {v} ({v})  lr: 0.000047 (0.000023)  wd: "
                   "0.040000 (0.040000)", nan_from=nan_from, stop=stop,
                   after=("Averaged stats: loss: 10.8 (10.8)  lr: 0.000047 (0.000023)",))


def _deformable_detr(nan_from: int | None = None) -> list[str]:
    """fundamentalvision/Deformable-DETR ``engine.py``: DETR's meters with ``grad_norm``
    (``fmt='{value:.2f}'``) added before the loss and its scaled and unscaled terms."""
    return _epochs("Epoch: [{}]", 7329, "lr: 0.000200  class_error: 100.00  grad_norm: 37.83  "
                   "loss: {v} ({v})  loss_bbox: 0.9 (0.9)  loss_ce: 1.1 (1.1)  loss_giou: 1.4 "
                   "(1.4)  loss_ce_unscaled: 0.55 (0.55)  class_error_unscaled: 100.0 (100.0)",
                   nan_from=nan_from)


def _json_stats(keys: str, batches: int, every: int, nan_from: int | None = None) -> list[str]:
    """facebookresearch/barlowtwins ``main.py`` (``dict(epoch=epoch, step=step,
    lr_weights=..., lr_biases=..., loss=loss.item(), time=...)``) and facebookresearch/vicreg
    ``main_vicreg.py`` (``dict(epoch=epoch, step=step, loss=loss.item(), time=..., lr=lr)``):
    ``print(json.dumps(stats))``, the step counted over the run (``enumerate(loader,
    start=epoch * len(loader))``); json writes a NaN ``NaN``."""
    lines = ["main.py /datasets/imagenet --epochs 1000 --batch-size 2048"]
    for step in range(0, 2 * batches, every):
        loss = float("nan") if nan_from is not None and step >= nan_from else 8000.0 - step
        stats: dict[str, float] = {"epoch": step // batches, "step": step}
        if keys == "barlow":
            stats |= {"lr_weights": 0.2, "lr_biases": 0.0048, "loss": loss, "time": step}
        else:
            stats |= {"loss": loss, "time": step // 3, "lr": 0.04}
        lines.append(json.dumps(stats))
    return lines


def _mae_log(nan_epoch: int | None = None) -> list[str]:
    """facebookresearch/mae ``main_pretrain.py``'s ``log.txt``: ``json.dumps(log_stats)`` of
    ``train_lr``, ``train_loss`` and ``epoch`` each epoch."""
    return [json.dumps({"train_lr": 1e-4 * epoch, "train_loss": float("nan") if (
        nan_epoch is not None and epoch >= nan_epoch) else 0.9 - epoch / 100, "epoch": epoch})
        for epoch in range(10)]


def _translation(nan_epoch: int | None = None, *, prefix: str = "") -> list[str]:
    """pytorch/examples ``language_translation/main.py``: tqdm bars (``ascii=True``), then
    ``logger.info(f"Epoch: {epoch}\\n\\tTrain loss: {train_loss:.3f}\\n\\tVal loss:
    {val_loss:.3f}\\n\\tEpoch time = ...\\n\\tETA = ...")``, epochs from 1 (``prefix``: its
    ``log.txt``, ``basicConfig``'s ``INFO:__main__:``)."""
    lines = []
    for epoch in range(1, 7):
        bad = nan_epoch is not None and epoch >= nan_epoch
        if not prefix:
            lines.append("100%|##########| 227/227 [00:30<00:00,  7.41it/s]")
        train, val = ("nan", "nan") if bad else (f"{5.2 - epoch / 3:.3f}", f"{4.9 - epoch / 3:.3f}")
        lines.append(f"{prefix}Epoch: {epoch}\n\tTrain loss: {train}\n\tVal loss: {val}\n\t"
                     f"Epoch time = 30.1 seconds\n\tETA = {30.1 * (6 - epoch):.1f} seconds")
    return lines


def _mmdet3d(nan_from: int | None = None, *, mmengine: bool = True) -> list[str]:
    """open-mmlab/mmdetection3d: mmengine's ``Epoch(train)  [1][  50/3862]  lr: ...  loss:
    ...  task0.loss_heatmap: ...`` (CenterPoint's per-task terms) and, before 1.x, mmcv's
    ``Epoch [1][50/3712]\\tlr: ..., loss_cls: ..., loss: ..., grad_norm: ...``."""
    lines = []
    batches = 3862 if mmengine else 3712
    for epoch in range(1, 3):
        for i in range(50, batches + 1, 50):
            step = (epoch - 1) * batches + i
            bad = nan_from is not None and step >= nan_from
            value = "nan" if bad else f"{10.2 - step / 1e4:.4f}"
            if mmengine:
                lines.append(f"06/01 10:00:00 - mmengine - INFO - Epoch(train)  [{epoch}][{i:4d}/"
                             f"{batches}]  lr: 1.0000e-04  eta: 1 day, 2:03:04  time: 0.9810  "
                             f"data_time: 0.1010  memory: 9012  grad_norm: 35.2000  loss: {value}"
                             f"  task0.loss_heatmap: {value}  task0.loss_bbox: 0.8000")
            else:
                lines.append(f"2022-06-01 10:00:00,000 - mmdet - INFO - Epoch [{epoch}][{i}/"
                             f"{batches}]\tlr: 1.000e-04, eta: 1 day, 2:03:04, time: 0.981, "
                             f"data_time: 0.101, memory: 9012, loss_cls: {value}, loss_bbox: 2.0,"
                             f" loss_dir: 0.1, loss: {value}, grad_norm: 35.2")
    return lines


def _lightly(nan_epoch: int | None = None) -> list[str]:
    """lightly-ai/lightly ``examples/pytorch/*.py``: ``print(f"epoch: {epoch:>02}, loss:
    {avg_loss:.5f}")`` after ``print("Starting Training")``."""
    return ["Starting Training", *(
        f"epoch: {epoch:>02}, loss: "
        f"{'nan' if nan_epoch is not None and epoch >= nan_epoch else f'{6.9 - epoch / 10:.5f}'}"
        for epoch in range(10))]


def test_read_right_before(tmp_path: Path) -> None:
    """Faults these tools print, each at its step, found right on the parent too (kept here
    as they are): a stop's ``Loss is nan`` at the step after the last row printed."""
    assert faults(tmp_path, _torchvision_detection(7329 + 505)) == [("AMP006", 7830)]
    assert faults(tmp_path, _segmentation(1464 + 500)) == [("AMP006", 1964)]
    assert faults(tmp_path, _convnext(1251 + 505)) == [("AMP006", 1752)]
    assert faults(tmp_path, _dino(2502 + 505)) == [("AMP006", 3003)]
    assert faults(tmp_path, _dino(2502 + 500, stop=False)) == [("AMP006", 3002)]
    assert faults(tmp_path, _deformable_detr(7329 + 500)) == [("AMP006", 7829)]
    assert faults(tmp_path, _json_stats("barlow", 2502, 100, 3000)) == [("AMP006", 3000)]
    assert faults(tmp_path, _json_stats("vicreg", 5004, 37, 6000)) == [("AMP006", 6031)]
    assert faults(tmp_path, _mae_log(5)) == [("AMP006", 5)]
    assert faults(tmp_path, _translation(4)) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _translation(4, prefix="INFO:__main__:")) == [
        ("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, _mmdet3d(3862 + 500)) == [("AMP006", 4362)]
    assert faults(tmp_path, _mmdet3d(3712 + 500, mmengine=False)) == [("AMP006", 4212)]
    assert faults(tmp_path, _lightly(4)) == [("AMP006", 4)]


def test_references_controls(tmp_path: Path) -> None:
    """Healthy runs with non-default settings (pass on the parent too): a tab-delimited
    MetricLogger (the references' older ``utils.py``), pycocotools' ``-1.000`` for an area
    without objects, a class absent from segmentation's validation set (``nan`` in its
    confusion matrix), ConvNeXt without AMP, the JSON stats printed every so often."""
    for lines in (_torchvision_detection(), _torchvision_detection(delimiter="\t"),
                  _segmentation(), _segmentation(absent_class=True), _convnext(),
                  _convnext(amp=False), _dino(), _deformable_detr(),
                  _json_stats("barlow", 2502, 100), _json_stats("vicreg", 5004, 37), _mae_log(),
                  _translation(), _translation(prefix="INFO:__main__:"), _mmdet3d(),
                  _mmdet3d(mmengine=False), _lightly()):
        assert faults(tmp_path, lines) == []
