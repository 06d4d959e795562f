"""Detection, segmentation, pose, OCR and self-supervised trainers: excerpts written from each
tool's own format strings (each builder names its source), a fault at a known step beside
healthy controls (other print intervals, resumed epochs, several loss terms).

- YOLOv6 (meituan/YOLOv6 ``yolov6/core/engine.py``): ``('%10s' * 5) % ('Epoch', 'lr',
  'iou_loss', 'dfl_loss', 'cls_loss')`` (``cwd_loss`` too when distilling; 0.1.0:
  ``'Epoch', 'iou_loss', 'l1_loss', 'obj_loss', 'cls_loss'``) over tqdm rows
  ``('%10s' + ' %10.4g' + '%10.4g' * 3) % (f'{epoch}/{max_epoch - 1}', lr, *mean_loss)``;
- PaddleOCR (``tools/program.py`` ``train``): ``epoch: [{}/{}], global_step: {}, {},
  avg_reader_cost: ...``, the stats through ``ppocr/utils/stats.py`` ``TrainingStats.log``:
  ``'{}: {:x<6f}'`` (a NaN prints ``nanxxx``) or, before, ``str(dict({x: y})).strip('{}')``;
- mmengine's runners under mmsegmentation, mmpose, mmdet 3, mmocr, mmaction2, mmpretrain
  (``mmengine/runner/log_processor.py``): ``Iter(train) [  50/160000]`` or ``Epoch(train)
  [1][ 50/586]``, then ``Iter(val) [500/500]`` with the metrics and, since mmengine 0.10
  (``mmengine/runner/loops.py`` ``_parse_losses``), the validation losses and ``val_loss``;
- open_clip (mlfoundations/open_clip ``src/open_clip_train/train.py``, ``legacy_train.py``):
  ``Train Epoch: {epoch} [{num_samples:>{sample_digits}}/{samples_per_epoch}
  ({percent_complete:.0f}%)] Data (t): ... Batch (t): ... LR: ... Logit Scale: ... `` then
  ``{name.capitalize()}: {val:#.5g} ({avg:#.5g})`` for each loss; the first line of an epoch
  at batch 1, the count in samples;
- VISSL (facebookresearch/vissl ``vissl/hooks/log_hooks.py`` ``_log_training_epoch``):
  ``Rank: 0; [ep: 0] iter: 50; lr: 0.3; loss: ...;``, and its own checks' messages;
- read right before this change (kept here as they are): YOLOX's loguru line
  (``yolox/core/trainer.py`` ``after_iter``), YOLOv7's tqdm rows (``train.py``),
  PaddleDetection's ``Epoch: [0] [  20/7329] learning_rate: ...`` (``ppdet/engine/
  callbacks.py`` ``LogPrinter``), the DETR family's MetricLogger and its ``Loss is nan,
  stopping training`` (facebookresearch/detr ``engine.py``), BEiT's ``loss_scale`` and
  ``grad_norm`` meters (unilm/beit ``engine_for_pretraining.py``), MoCo v3's ProgressMeter
  (facebookresearch/moco-v3 ``main_moco.py``).

Each fault test failed on the parent commit (f42b11f); the tests that pass there say so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults


def _bar(done: int, total: int) -> str:
    """tqdm's ``{l_bar}{bar:10}{r_bar}`` after the description."""
    filled = done * 10 // total
    return (f": {done * 100 // total:3d}%|{'█' * filled}{' ' * (10 - filled)}| {done}/{total} "
            f"[00:{done % 60:02d}<01:00,  7.66it/s]")


def _yolov6(nan_from: int | None = None, *, epochs: range = range(3), batches: int = 500,
            every: int = 50, old: bool = False, distill: bool = False) -> list[str]:
    """engine.py's header row each epoch, the bar's description every ``every`` batches (a
    pasted log keeps some of its redraws), the evaluation's ``Epoch: {epoch} | mAP@0.5``."""
    names = (["Epoch", "iou_loss", "l1_loss", "obj_loss", "cls_loss"] if old
             else ["Epoch", "lr", "iou_loss", "dfl_loss", "cls_loss"] + ["cwd_loss"] * distill)
    lines = ["Training start..."]
    for epoch in epochs:
        lines += ["", ("%10s" * len(names)) % tuple(names)]
        for done in range(every, batches + 1, every):
            step = epoch * batches + done
            iou = math.nan if nan_from is not None and step >= nan_from else 0.8 - step / 1e5
            terms = [iou, 1.2, 0.9] + [0.3] * (distill or old)
            cells = (("%10s" + "%10.4g" * 4) % (f"{epoch}/399", *terms) if old else
                     ("%10s" + " %10.4g" + "%10.4g" * len(terms)) % (f"{epoch}/399", 0.0032,
                                                                    *terms))
            lines.append(cells + _bar(done, batches))
        lines.append(f"Epoch: {epoch} | mAP@0.5: 0.512 | mAP@0.50:0.95: 0.334")
    return lines


def test_yolov6_rows_count_the_epochs_batches(tmp_path: Path) -> None:
    """Before: the rows under YOLOv6's header (it holds ``lr`` and ``*_loss``: read as a
    table) took no step from their ``0/399`` cell and the bar after them: the NaN of step
    1150 (epoch 2, batch 150 of 500) was reported at step 23, the rows' count."""
    assert faults(tmp_path, _yolov6(1150)) == [("AMP006", 1150)]
    assert faults(tmp_path, _yolov6(1150, old=True)) == [("AMP006", 1150)]
    assert faults(tmp_path, _yolov6(700, batches=300, every=20, distill=True)) == [
        ("AMP006", 700)]


def test_yolov6_rows_without_their_header(tmp_path: Path) -> None:
    """Before: an excerpt of rows without the header above them (no memory cell, no counts
    before the bar: YOLOv5's header-less row pattern did not fit) was silent."""
    rows = [line for line in _yolov6(1150) if "Epoch" not in line]
    assert faults(tmp_path, rows) == [("AMP006", 1150)]


def test_yolov6_controls(tmp_path: Path) -> None:
    """Healthy runs: from epoch 0, resumed at epoch 37 (1833 batches, a row every 100), with
    the distillation column (pass on the parent too)."""
    for lines in (_yolov6(), _yolov6(epochs=range(37, 40), batches=1833, every=100),
                  _yolov6(batches=300, every=20, distill=True), _yolov6(old=True)):
        assert faults(tmp_path, lines) == []


def _paddleocr(nan_from: int | None = None, *, epochs: range = range(1, 4), batches: int = 250,
               every: int = 10, old: bool = False, keys: tuple[str, ...] = (
                   "loss", "loss_ctc", "loss_sar"), metrics: bool = True) -> list[str]:
    """program.py's line every ``print_batch_step`` global steps and at each epoch's last
    batch; the stats in TrainingStats' order: ``lr`` first, the losses, the metrics of
    ``cal_metric_during_train``."""
    head = "[2022/08/18 10:00:00] ppocr INFO: "
    lines = [head + f"train dataloader has {batches} iters",
             head + "valid dataloader has 20 iters"]
    global_step = (epochs[0] - 1) * batches
    for epoch in epochs:
        for idx in range(batches):
            global_step += 1
            if global_step % every and idx < batches - 1:
                continue
            bad = nan_from is not None and global_step >= nan_from
            stats: dict[str, float] = {"lr": 0.000125}
            stats.update({k: math.nan if bad else round(12.5 - global_step / 1000, 6)
                          for k in keys})
            if metrics:
                stats.update({"acc": 0.453125, "norm_edit_dis": 0.801234})
            logs = ", ".join(str({k: v}).strip("{}") if old else f"{k}: {v:x<6f}"
                             for k, v in stats.items())
            lines.append(head + f"epoch: [{epoch}/500], global_step: {global_step}, {logs}, "
                         "avg_reader_cost: 0.01234 s, avg_batch_cost: 0.45670 s, avg_samples: "
                         "128.0, ips: 280.28025 samples/s, eta: 1 day, 2:03:04")
    return lines


def test_paddleocr_nan_padded_by_its_format(tmp_path: Path) -> None:
    """Before: ``'{:x<6f}'`` pads a NaN to ``loss: nanxxx`` (six decimals for a number,
    ``x`` to the width for ``nan``): no value was read there (silence)."""
    assert faults(tmp_path, _paddleocr(420)) == [("AMP006", 420)]
    det = ("loss", "loss_shrink_maps", "loss_threshold_maps", "loss_binary_maps")
    assert faults(tmp_path, _paddleocr(330, keys=det, metrics=False, every=20)) == [
        ("AMP006", 340)]


def test_paddleocr_controls(tmp_path: Path) -> None:
    """Healthy runs in both layouts, resumed at epoch 40 (pass on the parent too); the older
    ``'loss': nan`` layout's fault was read right before too."""
    assert faults(tmp_path, _paddleocr(420, old=True)) == [("AMP006", 420)]
    for lines in (_paddleocr(), _paddleocr(old=True), _paddleocr(epochs=range(40, 42), every=50)):
        assert faults(tmp_path, lines) == []


_MMENGINE = "06/01 10:00:00 - mmengine - INFO - "


def _mmseg(nan_from: int | None = None, *, val_nan: int | None = None, end: int = 2000,
           every: int = 50) -> list[str]:
    """An iteration-based mmsegmentation run: ``Iter(train) [{i}/160000]`` every ``every``
    iterations with its ``decode.``/``aux.`` terms, ``Iter(val) [500/500]`` every 1000 with
    the metrics and the validation losses."""
    lines = [_MMENGINE + "Checkpoints will be saved to /work_dirs/seg."]
    for it in range(every, end + 1, every):
        value = "nan" if nan_from is not None and it >= nan_from else f"{1.2 - it / 1e5:.4f}"
        lines.append(_MMENGINE + f"Iter(train) [{it:>6}/160000]  base_lr: 1.0000e-02 lr: "
                     f"9.9994e-03  eta: 1 day, 0:12:00  time: 0.5123  data_time: 0.0110  "
                     f"memory: 5012  loss: {value}  decode.loss_ce: {value}  decode.acc_seg: "
                     "88.1234  aux.loss_ce: 0.3012  aux.acc_seg: 85.0123")
        if it % 1000 == 0:
            loss = "nan" if val_nan is not None and it >= val_nan else "0.3012"
            lines.append(_MMENGINE + f"Iter(val) [500/500]    aAcc: 92.1000  mIoU: 62.3400  "
                         f"mAcc: 72.1000  decode.loss_ce: {loss}  aux.loss_ce: 0.1500  "
                         f"val_loss: {loss}  data_time: 0.0030  time: 0.1200")
    return lines


def test_mmengine_iter_val_is_evaluation(tmp_path: Path) -> None:
    """Before: ``Iter(val)`` (an iteration-based runner's validation) was not known as
    evaluation as ``Epoch(val)`` was: its ``val_loss: nan`` was read as the training loss,
    AMP006 at step 2001 beside AMP013."""
    assert faults(tmp_path, _mmseg(val_nan=2000)) == [("AMP013", 2000)]


def _mm_epochs(meters: str, nan_from: int | None = None, *, epochs: range = range(1, 4),
               batches: int = 586, every: int = 50) -> list[str]:
    """An epoch-based mmengine run: ``Epoch(train)  [{e}][{i}/{n}]`` (the epoch from 1), each
    epoch's last batch printed too; ``meters`` holds ``{v}`` where the loss goes."""
    lines = [_MMENGINE + "Checkpoints will be saved to /work_dirs/run."]
    width = len(str(batches))
    for epoch in epochs:
        for done in sorted({*range(every, batches + 1, every), batches}):
            step = (epoch - 1) * batches + done
            value = "nan" if nan_from is not None and step >= nan_from else (
                f"{0.9 - step / 1e6:.4f}")
            lines.append(_MMENGINE + f"Epoch(train)  [{epoch}][{done:>{width}}/{batches}]  "
                         "base_lr: 5.0000e-04 lr: 5.0000e-04  eta: 2:00:00  time: 0.4012  "
                         f"data_time: 0.0500  memory: 3012  " + meters.format(v=value))
        lines.append(_MMENGINE + f"Saving checkpoint at {epoch} epochs")
    return lines


_MMPOSE = "loss: {v}  loss_kpt: {v}  acc_pose: 0.1234"
_MMDET = ("grad_norm: 5.1234  loss: {v}  loss_rpn_cls: 0.0512  loss_rpn_bbox: 0.0312  "
          "loss_cls: {v}  acc: 96.1234  loss_bbox: 0.2134")
_MMOCR = "loss: {v}  loss_prob: {v}  loss_thr: 0.3012  loss_db: 0.1123"
_MMACTION = "loss: {v}  top1_acc: 0.5000  top5_acc: 0.7500  loss_cls: {v}"


def _yolox(nan_from: int | None = None, *, epochs: range = range(1, 3), iters: int = 200,
           every: int = 10, overflow_from: int | None = None) -> list[str]:
    """YOLOX's loguru line (``{time} | {level: <8} | {name}:{line} - {message}``); its
    StreamToLoguru sends apex's prints through loguru too (``caller_names=("apex",
    "pycocotools")``, yolox/utils/logger.py)."""
    head = "2021-07-20 10:00:03 | INFO     | "
    lines, scale = [head + "yolox.core.trainer:190 - Training start..."], 65536.0
    for epoch in epochs:
        lines.append(head + f"yolox.core.trainer:203 - ---> start train epoch{epoch}")
        for it in range(every, iters + 1, every):
            step = (epoch - 1) * iters + it
            if overflow_from is not None and step >= overflow_from:
                for _ in range(every):
                    scale /= 2
                    lines.append(head + "apex.amp.handle:138 - Gradient overflow.  Skipping "
                                 f"step, loss scaler 0 reducing loss scale to {scale}")
            bad = nan_from is not None and step >= nan_from
            total = "nan" if bad else f"{8.3 - step / 1000:.1f}"
            lines.append(head + f"yolox.core.trainer:261 - epoch: {epoch}/300, iter: {it}/"
                         f"{iters}, gpu mem: 7012Mb, mem: 12.3Gb, iter_time: 0.512s, data_time: "
                         f"0.002s, total_loss: {total}, iou_loss: 2.8, l1_loss: 0.0, conf_loss: "
                         "3.9, cls_loss: 1.6, lr: 1.250e-04, size: 640, ETA: 1 day, 2:03:04")
    return lines


def _yolov7(nan_from: int | None = None, *, epochs: range = range(3), batches: int = 500,
            every: int = 50) -> list[str]:
    """YOLOv7 train.py: ``('%10s' * 8) % ('Epoch', 'gpu_mem', 'box', 'obj', 'cls', 'total',
    'labels', 'img_size')`` over ``('%10s' * 2 + '%10.4g' * 6)`` rows, test.py's ``all`` row."""
    lines = []
    for epoch in epochs:
        lines += ["", ("%10s" * 8) % ("Epoch", "gpu_mem", "box", "obj", "cls", "total",
                                     "labels", "img_size")]
        for done in range(every, batches + 1, every):
            step = epoch * batches + done
            terms = [math.nan] * 3 if nan_from is not None and step >= nan_from else [
                0.05, 0.07, 0.04]
            row = ("%10s" * 2 + "%10.4g" * 6) % (f"{epoch}/299", "9.12G", *terms, sum(terms),
                                                 37, 640)
            lines.append(row + _bar(done, batches))
        lines.append(("%20s" + "%12i" * 2 + "%12.3g" * 4) % ("all", 500, 3000, 0.6, 0.5, 0.55,
                                                            0.33))
    return lines


def _ppdet(nan_from: int | None = None, *, epochs: range = range(3), batches: int = 7329,
           log_iter: int = 20, upto: int = 400) -> list[str]:
    """PaddleDetection's LogPrinter (``[%(asctime)s] %(name)s %(levelname)s:``, datefmt
    ``%m/%d %H:%M:%S``; TrainingStats' medians ``'.6f'``), the first ``upto`` batches of each
    epoch."""
    head = "[06/01 10:00:00] ppdet.engine INFO: "
    lines = [head + "Init Model from pretrained weights"]
    width = len(str(batches))
    for epoch in epochs:
        for done in range(0, min(batches, upto), log_iter):
            step = epoch * batches + done
            value = "nan" if nan_from is not None and step >= nan_from else (
                f"{2.1 - step / 1e5:.6f}")
            lines.append(head + f"Epoch: [{epoch}] [{done:{width}d}/{batches}] learning_rate: "
                         f"0.000125 loss: {value} loss_cls: {value} loss_iou: 0.412345 "
                         "loss_dfl: 0.512345 loss_l1: 0.123456 eta: 1 day, 2:03:04 batch_cost: "
                         "0.4920 data_cost: 0.0010 ips: 16.2601 images/s")
    return lines


def _detr(stop_at: int | None = None, *, epochs: range = range(2), batches: int = 7393,
          upto: int = 400, test_nan: bool | None = None) -> list[str]:
    """DETR's ``log_every`` (``Epoch: [0]  [  10/7393]  eta: ...  {meters}  time: ...``, the
    meters ``{median:.4f} ({global_avg:.4f})``); on a non-finite loss it prints ``Loss is
    nan, stopping training`` and the loss dict, then exits: the NaN is never a meter."""
    lines = ["Start training"]
    width = len(str(batches))
    for epoch in epochs:
        for done in range(0, upto, 10):
            step = epoch * batches + done
            if stop_at is not None and step >= stop_at:
                return [*lines, "Loss is nan, stopping training",
                        "{'loss_ce': tensor(nan, device='cuda:0'), 'class_error': "
                        "tensor(100., device='cuda:0'), 'loss_bbox': tensor(0.4123, "
                        "device='cuda:0')}"]
            loss = 43.0 - step / 1000
            lines.append(f"Epoch: [{epoch}]  [{done:>{width}}/{batches}]  eta: 9:18:38  lr: "
                         f"0.000100  class_error: 81.25  loss: {loss:.4f} ({loss + 0.5:.4f})  "
                         "loss_ce: 2.4345 (2.4512)  loss_bbox: 3.7066 (3.7101)  loss_giou: "
                         "1.6123 (1.6234)  loss_ce_unscaled: 2.4345 (2.4512)  "
                         "class_error_unscaled: 81.2500 (85.1234)  cardinality_error_unscaled: "
                         "92.5000 (92.5000)  time: 0.4536  data: 0.0401  max mem: 5169")
        lines += [f"Epoch: [{epoch}] Total time: 1:02:03 (0.5036 s / it)",
                  "Averaged stats: lr: 0.000100  class_error: 81.25  loss: 30.1234 (31.2345)"]
        if test_nan is not None:
            lines += _detr_evaluate(test_nan)
    return lines


def _detr_evaluate(nan: bool) -> list[str]:
    """``evaluate``: ``log_every`` under the header ``Test:`` every 10 batches, its ``Test:
    Total time``, then ``print("Averaged stats:", metric_logger)`` as training does, and
    the COCO summary."""
    value = "nan" if nan else "0.5123"
    return [*(f"Test:  [{done:>3}/625]  eta: 0:01:12  class_error: 0.00  loss: {value} "
              f"({value})  loss_ce: 0.1234 (0.1345)  loss_bbox: 0.0512 (0.0623)  time: 0.1123"
              "  data: 0.0101  max mem: 5169" for done in range(0, 625, 10)),
            "Test: Total time: 0:01:10 (0.1120 s / it)",
            f"Averaged stats: class_error: 0.00  loss: {value} ({value})",
            "Accumulating evaluation results...",
            " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.420"]


def test_detr_evaluation_summary_is_evaluation(tmp_path: Path) -> None:
    """Before: DETR's ``Averaged stats: class_error: 0.00  loss: nan (nan)`` after its
    ``Test:`` lines (engine.py ``evaluate`` prints the summary as ``train_one_epoch`` does)
    was read as the training loss: AMP006 at steps 392 and 7785 beside the evaluation's
    AMP013 at 391 (the end of the 40 rows of epoch 0 read)."""
    assert faults(tmp_path, _detr(test_nan=True)) == [("AMP013", 391)]


def _beit(*, overflows: tuple[int, ...] = (3, 4, 5, 6, 900, 1800),
          collapse_from: int | None = None, batches: int = 1251) -> list[str]:
    """BEiT's pretraining MetricLogger: ``loss_scale`` (the GradScaler's scale) and
    ``grad_norm`` meters, ``{median:.4f} ({global_avg:.4f})`` over a window of 20: an
    overflow's inf norm holds the global average at ``(inf)`` for good."""
    meters: dict[str, list[float]] = {"loss": [], "mlm_acc": [], "loss_scale": [],
                                      "weight_decay": [], "grad_norm": []}
    lines, scale, clean = ["Start training for 300 epochs"], 65536.0, 0
    for epoch in range(2):
        for done in range(batches):
            step = epoch * batches + done
            if step in overflows or (collapse_from is not None and step >= collapse_from):
                scale, clean, norm = scale / 2, 0, math.inf
            else:
                clean, norm = clean + 1, 1.5 + 0.1 * math.sin(step)
                if clean == 2000:
                    scale, clean = scale * 2, 0
            for key, value in zip(meters, (9.0 - step / 1e4, 0.03, scale, 0.05, norm),
                                  strict=True):
                meters[key].append(value)
            if done % 10 == 0:
                shown = "  ".join(f"{k}: {_median(v[-20:]):.4f} ({sum(v) / len(v):.4f})"
                                  for k, v in meters.items())
                lines.append(f"Epoch: [{epoch}]  [{done:>4}/{batches}]  eta: 2:10:11  lr: "
                             f"0.000150  min_lr: 0.000150  {shown}  time: 0.4123  data: 0.0012"
                             "  max mem: 15012")
    return lines


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _moco_v3(nan_from: int | None = None, *, batches: int = 2502) -> list[str]:
    """MoCo v3's ProgressMeter: ``Epoch: [0][  10/2502]`` then ``{name} {val} ({avg})``
    meters, tab-separated, every ``print_freq`` (10) batches."""
    lines = ["=> creating model 'vit_small'"]
    for epoch in range(2):
        for done in range(0, 500, 10):
            step = epoch * batches + done
            loss = "nan" if nan_from is not None and step >= nan_from else (
                f"{27.1 - step / 1e4:.4e}")
            lines.append(f"Epoch: [{epoch}][{done:4d}/{batches}]\tTime  0.512 ( 0.600)\tData  "
                         f"0.010 ( 0.100)\tLoss {loss} ({loss})\tAcc@1  12.50 ( 11.20)\tAcc@5 "
                         " 40.62 ( 38.10)")
    return lines


def test_read_right_before_this_change(tmp_path: Path) -> None:
    """Faults these tools' layouts gave right on the parent too (they pass there), kept so
    that they stay right: NaN losses at their step, apex's overflow cascade through YOLOX's
    loguru, BEiT's ``loss_scale`` meter collapsing (its median lags the overflows by half a
    window), DETR's ``Loss is nan`` at the step after the last row (now a table row too)."""
    assert faults(tmp_path, _yolox(250)) == [("AMP006", 250)]
    assert faults(tmp_path, _yolox(overflow_from=250)) == [("AMP003", 241), ("AMP004", 257)]
    assert faults(tmp_path, _yolov7(1150)) == [("AMP006", 1150)]
    assert faults(tmp_path, _ppdet(7329 + 100)) == [("AMP006", 7429)]
    assert faults(tmp_path, _mmseg(1250)) == [("AMP006", 1250)]
    assert faults(tmp_path, _mm_epochs(_MMPOSE, 586 + 300)) == [("AMP006", 886)]
    for meters in (_MMDET, _MMOCR, _MMACTION):
        assert faults(tmp_path, _mm_epochs(meters, 1500, batches=1000, every=20)) == [
            ("AMP006", 1500)]
    assert faults(tmp_path, _detr(7393 + 205)) == [("AMP006", 7594)]
    assert faults(tmp_path, _beit(overflows=(3, 4, 5), collapse_from=1500))[0] == (
        "AMP003", 1512)
    assert faults(tmp_path, _moco_v3(2502 + 200)) == [("AMP006", 2702)]


def test_healthy_detection_and_self_supervised_runs(tmp_path: Path) -> None:
    """Healthy runs of each (pass on the parent too): a resumed YOLOX at another print
    interval, YOLOv7 resumed, PaddleDetection resumed at epoch 40, mmengine's runners
    (validation losses included, a resumed mmpose), DETR, BEiT with early overflows and its
    ``grad_norm: 1.5 (inf)`` meters, MoCo v3."""
    for lines in (_yolox(), _yolox(epochs=range(5, 7), every=50), _yolov7(),
                  _yolov7(epochs=range(120, 123), batches=1479, every=100), _ppdet(),
                  _ppdet(epochs=range(40, 42), log_iter=100), _mmseg(),
                  _mm_epochs(_MMPOSE), _mm_epochs(_MMPOSE, epochs=range(101, 104), batches=1171,
                                                  every=100),
                  _mm_epochs(_MMDET, batches=1000), _mm_epochs(_MMOCR, batches=1000),
                  _detr(), _detr(test_nan=False), _beit(), _moco_v3()):
        assert faults(tmp_path, lines) == []


def _open_clip(nan_from: int | None = None, *, epochs: range = range(2), batch: int = 1024,
               batches: int = 977, every: int = 100,
               names: tuple[str, ...] = ("contrastive_loss",)) -> list[str]:
    """open_clip's console line at batch 1, every ``log_every_n_steps`` and at the epoch's
    last batch (``num_samples``: the batches done times the global batch), its ``End epoch``
    summary; the loss at the logged step is ``step = num_batches_per_epoch * epoch +
    i_accum``."""
    head = "2023-06-01,10:00:00 | INFO | "
    per_epoch = batch * batches
    lines = []
    for epoch in epochs:
        lines.append(head + f"Start epoch {epoch}")
        for i_accum in range(batches):
            count = i_accum + 1
            if i_accum % every and count != batches:
                continue
            step = batches * epoch + i_accum
            value = math.nan if nan_from is not None and step >= nan_from else 5.0 - step / 1e4
            losses = " ".join(f"{n.capitalize()}: {value:#.5g} ({value + 0.1:#.5g})"
                              for n in names)
            lines.append(head + f"Train Epoch: {epoch} [{count * batch:>{len(str(per_epoch))}}/"
                         f"{per_epoch} ({100.0 * count / batches:.0f}%)] Data (t): 0.123 Batch "
                         f"(t): 0.456, {2245.61:#g}/s, {280.701:#g}/s/gpu LR: {0.0005:5f} "
                         f"Logit Scale: {14.286 + step / 100:.3f} " + losses)
        lines.append(head + f"End epoch {epoch} | " + "  ".join(
            f"Avg {n.capitalize()}: {4.9:#.5g}" for n in names))
    return lines


def _open_clip_eval(lines: list[str], nan_epoch: int | None = None, *,
                    generative: bool = False) -> list[str]:
    """``evaluate`` after each epoch's last line: ``Eval Epoch: {epoch} [{num_samples} /
    {samples_per_val}]\tClip Loss: ...\t`` every 100 batches, CoCa's ``Generative Loss:
    ...\t`` on a line of its own below it, then the metrics ``{k}: {round(v, 4):.4f}``
    joined by tabs."""
    head = "2023-06-01,10:00:00 | INFO | "
    out = []
    for line in lines:
        out.append(line)
        if "(100%)]" not in line:
            continue
        epoch = int(line.split("Train Epoch: ")[1].split()[0])
        value = math.nan if epoch == nan_epoch else 1.234567
        for batch in (1, 101, 201):
            out.append(head + f"Eval Epoch: {epoch} [{batch * 256} / 50000]\tClip Loss: "
                       f"{value:.6f}\t")
            if generative:
                out.append(head + f"Generative Loss: {value:.6f}\t")
        metrics = {"image_to_text_mean_rank": 12.3, "image_to_text_R@1": 0.31,
                   "clip_val_loss": value, "epoch": epoch, "num_samples": 50000}
        if generative:
            metrics["val_generative_loss"] = value
        out.append(head + f"Eval Epoch: {epoch} " + "\t".join(
            f"{k}: {round(v, 4):.4f}" for k, v in metrics.items()))
    return out


def test_open_clip_generative_loss_below_its_evaluation_line(tmp_path: Path) -> None:
    """Before: CoCa's ``Generative Loss: nan`` (a line of its own right below ``Eval Epoch:
    1 [...]\tClip Loss: nan``) was read as the training loss: AMP006 beside the
    evaluation's AMP013 (at steps 26 and 25 there, the lines' count: see the next test);
    now AMP013 alone, at 1954, the end of epoch 1."""
    coca = ("contrastive_loss", "caption_loss", "loss")
    assert faults(tmp_path, _open_clip_eval(_open_clip(names=coca), 1, generative=True)) == [
        ("AMP013", 1954)]


def test_open_clip_sample_counts_are_steps(tmp_path: Path) -> None:
    """Before: ``Train Epoch: 1 [ 410624/1000448 (41%)]`` counts samples (no layout read it):
    the NaN logged at step 1377 (epoch 1, ``i_accum`` 400; batch 401 of 977) was reported at
    step 16, the lines' count. Now the first count (batch 1: one step's samples) divides the
    others into batches, the step 977 + 401."""
    assert faults(tmp_path, _open_clip(1300)) == [("AMP006", 1378)]
    coca = ("contrastive_loss", "caption_loss", "loss")
    assert faults(tmp_path, _open_clip(1300, names=coca, every=50, batch=512)) == [
        ("AMP006", 1328)]
    # the evaluation after epoch 1 (AMP013 at step 22 before)
    assert faults(tmp_path, _open_clip_eval(_open_clip(), 1)) == [("AMP013", 1954)]


def test_open_clip_controls(tmp_path: Path) -> None:
    """Healthy runs, resumed at epoch 5, CoCa's two losses, with its evaluations (pass on the
    parent too); an excerpt that starts mid-epoch (its first count is no step's samples) and
    the PyTorch MNIST example's counts from 0 are numbered by the run's samples, said so
    (step_basis.SAMPLES, as test_sample29's dogs_cats and test_sample18's MNIST copy), and
    quiet."""
    coca = ("contrastive_loss", "caption_loss", "loss")
    mid_epoch = _open_clip()[5:]
    mnist = [f"Train Epoch: {e} [{b * 64}/60000 ({100. * b / 938:.0f}%)]\tLoss: "
             f"{2.3 / (e + b / 100):.6f}" for e in range(1, 3) for b in range(0, 938, 10)]
    for lines in (_open_clip(), _open_clip(epochs=range(5, 7)), _open_clip(names=coca),
                  mid_epoch, mnist, _open_clip_eval(_open_clip(names=coca), generative=True)):
        assert faults(tmp_path, lines) == []


def _vissl(nan_from: int | None = None, *, start: int = 1, end: int = 2000, freq: int = 10,
           as_json: bool = False) -> list[str]:
    """LogLossLrEtaHook: at iteration 1, every LOG_FREQUENCY and every 5 up to 100, ``key:
    value; `` with the phase as ``[ep: 0]``; ``stdout.json`` holds the same dicts."""
    head = "INFO 2021-03-01 10:00:00,123 log_hooks.py: 297: "
    lines = [head + "Starting phase 0 [train]"]
    for it in range(start, end + 1):
        if not (it == 1 or it % freq == 0 or (it <= 100 and it % 5 == 0)):
            continue
        loss = math.nan if nan_from is not None and it >= nan_from else round(8.0 - it / 1e4, 5)
        record = {"Rank": 0, "ep": (it - 1) // 500, "iter": it, "lr": 0.3, "loss": loss,
                  "btime(ms)": 512, "eta": "1 day, 2:03:04", "peak_mem(M)": 10123,
                  "weight_decay": 1e-06}
        if as_json:
            lines.append(json.dumps(record))
            continue
        lines.append(head + "".join(f"[{k}: {v}] " if k == "ep" else f"{k}: {v}; "
                                    for k, v in record.items()).strip())
    return lines


def test_vissl_model_output_check(tmp_path: Path) -> None:
    """Before: VISSL's ``Infinite Model output or NaN at iteration=1231.`` (its hooks'
    check of the forward's output, which then stops the run) was not read (silence); its
    SwAV loss's ``Infinite Loss or NaN. Loss value: tensor(nan, ...), rank: 3`` (no step)
    stays at the step after the last line read, as the loss line's NaN did."""
    head = "INFO 2021-03-01 10:00:00,123 state_update_hooks.py: 152: "
    assert faults(tmp_path, [*_vissl(end=1230),
                             head + "Infinite Model output or NaN at iteration=1231."]) == [
        ("AMP006", 1231)]
    swav = ("INFO 2021-03-01 10:00:00,123 swav_loss.py: 287: Infinite Loss or NaN. Loss value:"
            " tensor(nan, device='cuda:3', grad_fn=<AddBackward0>), rank: 3")
    assert faults(tmp_path, [*_vissl(end=1230), swav]) == [("AMP006", 1231)]


def test_vissl_controls(tmp_path: Path) -> None:
    """Its NaN loss lines, console and JSON, were read right before (pass on the parent
    too); healthy runs, resumed at iteration 250000 with LOG_FREQUENCY 100, stay quiet."""
    assert faults(tmp_path, _vissl(1230)) == [("AMP006", 1230)]
    assert faults(tmp_path, _vissl(1230, as_json=True)) == [("AMP006", 1230)]
    for lines in (_vissl(), _vissl(as_json=True), _vissl(start=250000, end=252000, freq=100)):
        assert faults(tmp_path, lines) == []
