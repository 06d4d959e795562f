"""Detection and 3D-perception trainers: excerpts written from each tool's own format strings
(each builder names its source), a fault at a known step beside healthy controls
(other print intervals and epoch lengths, resumed runs, warm-up losses, evaluations whose
tables print NaN or -nan where a metric is undefined, which is healthy).

- darknet (AlexeyAB/darknet ``src/detector.c`` ``train_detector``): ``printf("\\n %d: %f, %f
  avg loss, %f rate, %lf seconds, %d images, %f hours left\\n", iteration, loss, avg_loss,
  ...)``, C's ``-nan``; the YOLO layer's ``v3 (iou loss, Normalizer: ...) Region 139 Avg
  (IOU: ...), count: 1, class_loss = ..., iou_loss = ..., total_loss = ...`` (``src/
  yolo_layer.c``); ``-map``'s ``validate_detector_map`` block, whose ``precision = -nan``
  and ``F1-score = -nan`` are 0/0 while nothing is detected yet; ``Tensor Cores are disabled
  until the first %d iterations are reached.``;
- DAMO-YOLO (tinyvision/DAMO-YOLO ``damo/apis/detector_trainer.py`` ``train``): loguru's
  ``epoch: {}/{}, iter: {}/{}, mem: {:.0f}Mb, {time_str}, {loss_str}, lr: {:.3e}, size: ({:d},
  {:d}), {eta}``, the count printed as ``(cur_iter + 1) % self.iters_per_epoch``;
- mmdet3d under BEVFormer and UniAD (fundamentalvision/BEVFormer, OpenDriveLab/UniAD, on
  mmcv 1.x's ``TextLoggerHook``: ``Epoch [1][50/3517]\\tlr: ..., loss_cls: ..., d0.loss_cls:
  ..., loss: ..., grad_norm: ...``), nuscenes-devkit's ``detection/evaluate.py`` ``main``
  print and mmdet3d's ``Epoch(val)`` line of ``NuScenesDataset._evaluate_single``'s detail;
- CenterNet (xingyizhou/CenterNet ``src/lib/trains/base_trainer.py`` ``run_epoch``: the
  progress bar's suffix ``'{phase}: [{0}][{1}/{2}]|Tot: {total:} |ETA: {eta:} '`` then
  ``'|{} {:.4f} '`` per loss, printed ``'{}/{}| {}'.format(opt.task, opt.exp_id, suffix)``
  every ``print_iter``; ``src/main.py`` writes ``log.txt`` through ``src/lib/logger.py``);
- super-gradients (Deci-AI/super-gradients ``src/super_gradients/training/sg_trainer/
  sg_trainer.py`` ``_train_epoch``: ``Train epoch {epoch}`` bars, ``set_postfix`` of the loss
  meter's averages; ``training/utils/sg_trainer_utils.py`` ``display_epoch_summary``: the
  ``SUMMARY OF EPOCH`` tree, a ``Train`` then a ``Validation`` branch under the same keys);
- read right before this change (kept here as they are): EfficientDet (zylo117/Yet-Another-
  EfficientDet-Pytorch ``train.py``: the bar's ``Step: {}. Epoch: {}/{}. Iteration: {}/{}. Cls
  loss: ... Total loss: ...``, which skips a non-finite loss, and ``Val. Epoch: {}/{}.
  Classification loss: ...``), detrex's and detectron2's ``CommonMetricPrinter`` (facebook
  research/detectron2 ``detectron2/utils/events.py``: `` {eta}iter: {iter}  {losses}  {time}
  {data_time}lr: {lr}  {memory}``) and COCOEvaluator's tables.

Tried and right before, not kept (their families' tests cover them): RT-DETR's and MOTR's
MetricLogger and ``Loss is nan, stopping training`` (lyuwenyu/RT-DETR ``src/solver/
det_engine.py``, megvii-research/MOTR ``engine.py``: the DETR family's), ByteTrack's YOLOX
trainer, mmrotate's DOTA table. Left wrong: pjreddie/darknet's ``"%ld: %f, %f avg, %f rate,
..."`` holds no keyword where finite (only its NaN lines are read, their ``N: `` then a
launcher's rank, and the YOLO layers' ``Obj: -nan`` rows counted as steps of their own): the
step of its NaN is not known; the keyword budget is spent.

Each fault test failed on the parent commit (0e374e2); the tests that pass there say so.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults

# -- darknet: src/detector.c, src/yolo_layer.c ----------------------------------------------


def _darknet(nan_from: int | None = None, *, iterations: int = 300, sign: str = "-",
             map_at: int | None = None, burn_in: int = 0) -> list[str]:
    """Each iteration: the three YOLO layers' lines, ``total_bbox``, the iteration line (the
    average reset to the loss where it was negative, then ``avg*.9 + loss*.1``), the next
    batch's ``Loaded:``; ``map_at``: ``-map``'s block after that iteration, before anything
    is detected; ``burn_in``: ``cudnn_half``'s Tensor Cores line before each iteration."""
    nan = f"{sign}nan"
    lines = [" Prepare additional network for mAP calculation...", "yolov4",
             "net.optimized_memory = 0", "mini_batch = 4, batch = 64, time_steps = 1, train = 1",
             "Learning Rate: 0.0013, Momentum: 0.949, Decay: 0.0005"]
    average = -1.0
    for i in range(1, iterations + 1):
        bad = nan_from is not None and i >= nan_from
        loss = 900.0 / (1 + i / 10) + 2  # a warm-up's large, finite loss
        if average < 0:
            average = loss
        average = average * 0.9 + loss * 0.1
        for layer in (139, 150, 161):
            value = nan if bad else f"{loss / 3:.6f}"
            lines.append(f"v3 (iou loss, Normalizer: (iou: 0.07, obj: 1.00, cls: 1.00) Region "
                         f"{layer} Avg (IOU: 0.000000), count: 1, class_loss = {value}, "
                         f"iou_loss = {value}, total_loss = {value} ")
        lines.append(f" total_bbox = {i * 30}, rewritten_bbox = 0.000000 % ")
        if burn_in:
            lines.append(f" Tensor Cores are disabled until the first {3 * burn_in} iterations "
                         "are reached.")
        shown = (nan, nan) if bad else (f"{loss:.6f}", f"{average:.6f}")
        lines += ["", f" {i}: {shown[0]}, {shown[1]} avg loss, 0.001300 rate, 5.391000 seconds, "
                  f"{i * 64} images, -1.000000 hours left", "Loaded: 0.000036 seconds"]
        if i == map_at:
            lines += ["", " calculation mAP (mean average precision)...", "4952",
                      " detections_count = 0, unique_truth_count = 120  ",
                      "class_id = 0, name = person, ap = 0.00%   \t (TP = 0, FP = 0) ", "",
                      " for conf_thresh = 0.25, precision = -nan, recall = 0.00, "
                      "F1-score = -nan ",
                      " for conf_thresh = 0.25, TP = 0, FP = 0, FN = 120, average IoU = 0.00 % ",
                      "", " IoU threshold = 50 %, used Area-Under-Curve for each unique Recall ",
                      " mean average precision (mAP@0.50) = 0.000000, or 0.00 % ",
                      "Total Detection Time: 3 Seconds"]
    return lines


def test_darknet_iteration_line_names_its_values_after_them(tmp_path: Path) -> None:
    """Before: ``-nan, -nan avg loss`` went unread (a name after its value was read only of
    one word; ``avg loss`` is two) and the YOLO layers' lines held no loss but the
    Normalizer's ``obj: 1.00``: "no fault found" on every excerpt."""
    assert faults(tmp_path, _darknet(150)) == [("AMP006", 150)]
    assert faults(tmp_path, _darknet(150, sign="")) == [("AMP006", 150)]
    assert faults(tmp_path, _darknet(150, map_at=100, burn_in=1000)) == [("AMP006", 150)]


def test_darknet_controls(tmp_path: Path) -> None:
    """Healthy runs: warm-up losses near 900, ``-map``'s ``precision = -nan`` before the first
    detection, the Tensor Cores line (pass on the parent too)."""
    assert faults(tmp_path, _darknet()) == []
    assert faults(tmp_path, _darknet(map_at=100, burn_in=1000)) == []
    assert faults(tmp_path, _darknet(iterations=120, map_at=100)) == []


# -- DAMO-YOLO: damo/apis/detector_trainer.py --------------------------------------------------


def _damo(nan_at: int | None = None, *, epochs: range = range(3), iters: int = 1000,
          every: int = 20) -> list[str]:
    """``(cur_iter + 1) % print_interval_iters == 0`` lines; the epoch goes up after the
    epoch's last iteration is printed, its count as ``0``; the loss meters' averages as
    ``{:.1f}``."""
    lines = ["2023-03-01 10:00:00.000 | INFO     | damo.apis.detector_trainer:train:253 - "
             "Training start..."]
    for current in range(epochs.start * iters, epochs.stop * iters):
        if (current + 1) % every:
            continue
        bad = nan_at is not None and current + 1 >= nan_at
        losses = ", ".join(f"{name}: {'nan' if bad else f'{value:.1f}'}" for name, value in (
            ("total_loss", 3.2), ("loss_cls", 1.1), ("loss_bbox", 1.5), ("loss_dfl", 0.6)))
        lines.append(
            f"2023-03-01 10:{current // 60 % 60:02d}:{current % 60:02d}.123 | INFO     | "
            f"damo.apis.detector_trainer:train:330 - epoch: {current // iters + 1}/300, iter: "
            f"{(current + 1) % iters}/{iters}, mem: 10432Mb, iter_time: 0.512s, model_time: "
            f"0.301s, {losses}, lr: 1.000e-02, size: (640, 640), ETA: 1 day, 2:03:04")
    return lines


def test_damo_yolo_count_modulo_the_epoch(tmp_path: Path) -> None:
    """Before: the epoch's last line, ``epoch: 1/300, iter: 0/1000``, made the count look like
    the run's own (the epoch went up with no count going back), so each step was the count
    alone: a NaN from step 1500 reported at 500, one at the end of epoch 2 (``iter: 0``)
    at 0, a resumed run's at 0."""
    assert faults(tmp_path, _damo(1500)) == [("AMP006", 1500)]
    assert faults(tmp_path, _damo(2000)) == [("AMP006", 2000)]
    assert faults(tmp_path, _damo(12000, epochs=range(10, 13))) == [("AMP006", 12000)]


def test_damo_yolo_controls(tmp_path: Path) -> None:
    """Healthy runs; an epoch that is no multiple of the interval never prints ``iter: 0``
    (its NaN was right before too: pass on the parent)."""
    assert faults(tmp_path, _damo()) == []
    assert faults(tmp_path, _damo(iters=1848, every=50)) == []
    assert faults(tmp_path, _damo(2000, iters=1848, every=50)) == [("AMP006", 2000)]


# -- BEVFormer / UniAD: mmcv 1.x TextLoggerHook, nuscenes-devkit, mmdet3d ----------------------

_MMDET = "2022-06-01 10:00:00,000 - mmdet - INFO - "


def _bevformer(nan_at: int | None = None, *, epochs: range = range(1, 3), iters: int = 3517,
               every: int = 50, overflow_at: tuple[int, ...] = (), val_nan: bool = False,
               ) -> list[str]:
    """TextLoggerHook's training lines (the decoder layers' ``d0.`` ... ``d4.`` losses, the
    fp16 hook's ``grad_norm``: ``inf`` on a step the static loss scale overflowed and the
    scaler skipped); after each epoch nuscenes-devkit's print (``'%s\\t%.3f\\t...'`` per class:
    a traffic cone has no orientation, velocity or attribute error, a barrier no velocity or
    attribute error: ``nan``) and the ``Epoch(val)`` line of mmdet3d's detail dict
    (``'{}/{}_{}'.format(metric_prefix, name, k)``, then ``mATE`` ..., ``NDS``, ``mAP``)."""
    lines = [_MMDET + "workflow: [('train', 1)], max: 24 epochs"]
    for epoch in epochs:
        for i in range(every, iters + 1, every):
            step = (epoch - 1) * iters + i
            bad = nan_at is not None and step >= nan_at

            def value(v: float, bad: bool = bad) -> str:
                return "nan" if bad else f"{v:.4f}"

            layers = ", ".join(f"d{d}.loss_cls: {value(1.2)}, d{d}.loss_bbox: {value(1.6)}"
                               for d in range(5))
            norm = "inf" if step in overflow_at else value(45.1 - step / 1e4)
            lines.append(_MMDET + f"Epoch [{epoch}][{i}/{iters}]\tlr: 2.000e-04, eta: 1 day, "
                         f"10:35:23, time: 1.456, data_time: 0.123, memory: 18000, loss_cls: "
                         f"{value(1.1)}, loss_bbox: {value(1.5)}, {layers}, loss: "
                         f"{value(15.2 - step / 1e5)}, grad_norm: {norm}")
        mean_ap, nds = ("nan", "nan") if val_nan else ("0.4163", "0.5174")
        lines += [_MMDET + f"Saving checkpoint at {epoch} epochs",
                  "[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>] 6019/6019, 10.5 task/s, elapsed: 573s, ETA:  0s",
                  "Evaluating bboxes of pts_bbox", f"mAP: {mean_ap}", "mATE: 0.6722",
                  "mASE: 0.2740", "mAOE: 0.3720", "mAVE: 0.3940", "mAAE: 0.1980",
                  f"NDS: {nds}", "Eval time: 120.5s", "", "Per-class results:",
                  "Object Class\tAP\tATE\tASE\tAOE\tAVE\tAAE",
                  "car\t0.607\t0.479\t0.151\t0.077\t0.364\t0.198",
                  "traffic_cone\t0.610\t0.405\t0.323\tnan\tnan\tnan",
                  "barrier\t0.512\t0.612\t0.282\t0.124\tnan\tnan"]
        detail = [("car_AP_dist_0.5", "0.1940"), ("car_trans_err", "0.4790"),
                  ("traffic_cone_AP_dist_0.5", "0.3100"), ("traffic_cone_orient_err", "nan"),
                  ("traffic_cone_vel_err", "nan"), ("traffic_cone_attr_err", "nan"),
                  ("barrier_vel_err", "nan"), ("barrier_attr_err", "nan"),
                  ("mATE", "0.6722"), ("mAOE", "0.3720"), ("NDS", nds), ("mAP", mean_ap)]
        lines.append(_MMDET + f"Epoch(val) [{epoch}][6019]\t" + ", ".join(
            f"pts_bbox_NuScenes/{name}: {shown}" for name, shown in detail))
    return lines


def test_nuscenes_undefined_errors_are_healthy(tmp_path: Path) -> None:
    """Before: the ``Epoch(val)`` line's ``traffic_cone_vel_err: nan`` (a metric a traffic
    cone does not have) beside ``mAP: 0.4163`` was AMP013 on every healthy run. A NaN mean
    over the classes is still one, and the training NaN is found where it began."""
    assert faults(tmp_path, _bevformer()) == []
    assert faults(tmp_path, _bevformer(overflow_at=(500, 3000))) == []
    assert faults(tmp_path, _bevformer(val_nan=True)) == [("AMP013", 3500)]
    assert faults(tmp_path, _bevformer(2000)) == [("AMP006", 2000)]


# -- CenterNet: src/lib/trains/base_trainer.py, src/main.py, src/lib/logger.py -----------------


def _centernet_bar(nan_from: int | None = None, *, epochs: range = range(1, 3),
                   iters: int = 1000, every: int = 50) -> list[str]:
    """``print_iter`` lines: the bar's suffix (the epoch's running averages) behind
    ``{task}/{exp_id}| ``."""
    lines = []
    for epoch in epochs:
        for i in range(0, iters, every):
            bad = nan_from is not None and (epoch - 1) * iters + i >= nan_from
            losses = "".join(f"|{name} {'nan' if bad else f'{v:.4f}'} " for name, v in (
                ("loss", 2.5 - i / 1e4), ("hm_loss", 1.5), ("wh_loss", 2.1), ("off_loss", 0.23)))
            lines.append(f"ctdet/coco_dla| train: [{epoch}][{i}/{iters}]|Tot: 0:01:02 |ETA: "
                         f"0:10:00 {losses}|Data 0.005s(0.010s) |Net 0.301s")
    return lines


def _centernet_log(nan_epoch: int | None = None, *, val_nan_epoch: int | None = None,
                   val_intervals: int = 5) -> list[str]:
    """``log.txt``: ``'{}: {}'.format(time.strftime('%Y-%m-%d-%H-%M'), 'epoch: {} |')``, then
    ``'{} {:8f} | '`` for each key of the training epoch's dict and, every ``val_intervals``
    epochs, of the validation's (the same keys), then the newline."""
    lines = []
    keys = (("loss", 2.5), ("hm_loss", 1.5), ("wh_loss", 2.1), ("off_loss", 0.23),
            ("time", 12.5))
    for epoch in range(1, 8):
        bad = nan_epoch is not None and epoch >= nan_epoch
        line = f"2019-04-10-12-{epoch:02d}: epoch: {epoch} |" + "".join(
            f"{k} {'nan' if bad and k != 'time' else f'{v / epoch:8f}'} | " for k, v in keys)
        if val_intervals and epoch % val_intervals == 0:
            bad = val_nan_epoch is not None and epoch >= val_nan_epoch
            line += "".join(f"{k} {'nan' if bad and k != 'time' else f'{v / epoch:8f}'} | "
                            for k, v in keys)
        lines.append(line)
    return lines


def test_centernet_log_validation_after_training(tmp_path: Path) -> None:
    """Before: the validation dict's ``loss nan | hm_loss nan`` after the training dict's
    finite values on the same ``log.txt`` line went unread (the first key of each role won):
    silence. The training NaN was right before."""
    assert faults(tmp_path, _centernet_log(val_nan_epoch=5)) == [("AMP013", 5)]
    assert faults(tmp_path, _centernet_log(3)) == [("AMP006", 3)]


def test_centernet_controls(tmp_path: Path) -> None:
    """Healthy ``log.txt`` (validation every 5 epochs and every epoch) and console bars
    (pass on the parent too); the bar's NaN was right before too."""
    assert faults(tmp_path, _centernet_log()) == []
    assert faults(tmp_path, _centernet_log(val_intervals=1)) == []
    assert faults(tmp_path, _centernet_bar()) == []
    assert faults(tmp_path, _centernet_bar(iters=100, every=1)) == []
    assert faults(tmp_path, _centernet_bar(1300)) == [("AMP006", 1300)]


# -- super-gradients (YOLO-NAS): sg_trainer.py, sg_trainer_utils.py; EfficientDet, detrex -------


def _tqdm(done: int, total: int) -> str:
    filled = done * 10 // total
    return (f": {done * 100 // total:3d}%|{'█' * filled}{' ' * (10 - filled)}| {done}/{total} "
            f"[00:{done % 60:02d}<01:00,  3.20it/s")


def _efficientdet(val_nan_epoch: int | None = None, *, iters: int = 400,
                  every: int = 40) -> list[str]:
    """The bar's description (a non-finite loss is skipped before it: ``if loss == 0 or not
    torch.isfinite(loss): continue``), then the validation's print after each epoch."""
    lines = ["loading annotations into memory...", "Done (t=0.52s)"]
    for epoch in range(3):
        for i in range(every, iters + 1, every):
            lines.append(f"Step: {epoch * iters + i}. Epoch: {epoch}/500. Iteration: {i}/{iters}. "
                         f"Cls loss: 0.{31234 + i}. Reg loss: 0.{21234 + i}. Total loss: "
                         f"0.{52468 + i}" + _tqdm(i, iters) + "]")
        shown = "nan" if val_nan_epoch is not None and epoch >= val_nan_epoch else "0.41234"
        lines.append(f"Val. Epoch: {epoch}/500. Classification loss: {shown}. Regression loss: "
                     f"0.23456. Total loss: {shown}")
    return lines


def _detectron2(nan_from: int | None = None, *, every: int = 20, end: int = 2000,
                evaluate: bool = False) -> list[str]:
    """``CommonMetricPrinter`` every ``period`` iterations (medians over 20: a NaN shows from
    the first print after it), detrex's DETR losses; then COCOEvaluator's table and
    ``copypaste`` lines, a metric with nothing to measure (no small object) shown as NaN."""
    lines = ["[12/06 10:00:00 d2.engine.train_loop]: Starting training from iteration 0"]
    for it in range(every - 1, end, every):
        bad = nan_from is not None and it >= nan_from

        def value(v: float, bad: bool = bad) -> str:
            return "nan" if bad else f"{v:.4g}"

        losses = "  ".join(f"{name}: {value(1.2345 - it / 1e5)}"
                           for name in ("loss_class", "loss_bbox", "loss_giou", "loss_class_0"))
        lines.append(f"[12/06 10:{it // 60 % 60:02d}:{it % 60:02d} d2.utils.events]:  eta: 1 day, "
                     f"2:03:04  iter: {it}  total_loss: {value(3.21 - it / 1e5)}  {losses}  "
                     "time: 0.5123  data_time: 0.0123  lr: 0.0001  max_mem: 12345M")
    if evaluate:
        head = "[12/06 11:00:00 d2.evaluation.coco_evaluation]: "
        lines += [head + "Evaluation results for bbox: ",
                  "|   AP   |  AP50  |  AP75  |  APs  |  APm   |  APl   |",
                  "|:------:|:------:|:------:|:-----:|:------:|:------:|",
                  "| 41.234 | 60.123 | 44.321 |  nan  | 45.678 | 55.432 |",
                  head + "Some metrics cannot be computed and is shown as NaN.",
                  "[12/06 11:00:00 d2.evaluation.testing]: copypaste: Task: bbox",
                  "[12/06 11:00:00 d2.evaluation.testing]: copypaste: AP,AP50,AP75,APs,APm,APl",
                  "[12/06 11:00:00 d2.evaluation.testing]: copypaste: "
                  "41.2340,60.1230,44.3210,nan,45.6780,55.4320"]
    return lines


def _sg_tree(epoch: int, splits: dict[str, dict[str, float]],
             previous: dict[str, dict[str, float]] | None) -> list[str]:
    """``display_epoch_summary``: treelib's ``Tree.show`` of ``SUMMARY OF EPOCH {epoch}``,
    a branch per split (``Train``, ``Validation``), a node ``{name.capitalize()} =
    {round(value, 4)}`` per value, under it (from the second epoch) ``Epoch N-1      =
    {previous:6} ({symbol} {change:8})`` and ``Best until now = ...`` (colours off: a file)."""
    lines = ["===========================================================",
             f"SUMMARY OF EPOCH {epoch}"]
    names = list(splits)
    for s, split in enumerate(names):
        last_split = s == len(names) - 1
        lines.append(("└── " if last_split else "├── ") + split)
        indent = "    " if last_split else "│   "
        values = list(splits[split].items())
        for v, (name, value) in enumerate(values):
            last = v == len(values) - 1
            lines.append(f"{indent}{'└── ' if last else '├── '}{name.capitalize()} = "
                         f"{round(value, 4)}")
            if previous is not None:
                before = previous[split][name]
                change = f"{'↗' if value >= before else '↘'} {round(value - before, 4)}"
                under = indent + ("    " if last else "│   ")
                lines += [f"{under}├── Epoch N-1      = {round(before, 4)!s:6} ({change:8})",
                          f"{under}└── Best until now = {round(before, 4)!s:6} ({change:8})"]
    return [*lines, "==========================================================="]


def _super_gradients(nan_at: int | None = None, *, val_nan_epoch: int | None = None,
                     batches: int = 1000, every: int = 100) -> list[str]:
    """``Train epoch {epoch}`` bars (epochs from 0, ``bar_format="{l_bar}{bar:10}{r_bar}"``),
    their postfix the loss meter's running averages, sorted by tqdm's ``set_postfix``; the
    validation's bar; the epoch's summary tree (its training values are the bar's last)."""
    lines = []
    previous = None
    for epoch in range(4):
        train: dict[str, float] = {}
        for done in range(every, batches + 1, every):
            step = epoch * batches + done
            bad = nan_at is not None and step >= nan_at
            train = {name: math.nan if bad else value for name, value in (
                ("PPYoloELoss/loss", 2.5 - step / 1e5), ("PPYoloELoss/loss_cls", 1.2),
                ("PPYoloELoss/loss_dfl", 0.8), ("PPYoloELoss/loss_iou", 0.5))}
            postfix = ", ".join(f"{k}={v:.3g}" for k, v in train.items())
            lines.append(f"Train epoch {epoch}" + _tqdm(done, batches)
                         + f", {postfix}, gpu_mem=12.3]")
        lines.append(f"Validating epoch {epoch}: 100%|██████████| 50/50 [00:10<00:00,  4.80it/s]")
        bad = (val_nan_epoch is not None and epoch >= val_nan_epoch) or math.isnan(
            train["PPYoloELoss/loss"])
        valid = {"PPYoloELoss/loss_cls": 1.1, "PPYoloELoss/loss": math.nan if bad else 2.2,
                 "Precision@0.50": 0.0, "mAP@0.50": math.nan if bad else 0.1 * epoch,
                 "F1@0.50": 0.0}
        splits = {"Train": train, "Validation": valid}
        lines += _sg_tree(epoch, splits, previous)
        previous = splits
    return lines


def test_super_gradients_validation_branch_is_evaluation(tmp_path: Path) -> None:
    """Before: the summary tree's ``Validation`` branch (``Ppyoloeloss/loss = nan`` under
    its name, which holds no keyword) was read as training rows: AMP006 at 3008 and 4008
    for a NaN validation loss. Its bars' training NaN was right before."""
    assert faults(tmp_path, _super_gradients(val_nan_epoch=2)) == [("AMP013", 3000)]
    assert faults(tmp_path, _super_gradients(2450))[0] == ("AMP006", 2500)


def test_super_gradients_controls(tmp_path: Path) -> None:
    """Healthy runs, a bar line every 100 batches and every batch (pass on the parent too)."""
    assert faults(tmp_path, _super_gradients()) == []
    assert faults(tmp_path, _super_gradients(batches=50, every=1)) == []


def test_read_right_before_this_change(tmp_path: Path) -> None:
    """Right on the parent too (kept: their formats were in no test): EfficientDet's
    validation print, detrex's iteration line with detectron2's median window, detectron2's
    NaN shown for a metric with nothing to measure."""
    assert faults(tmp_path, _efficientdet()) == []
    assert faults(tmp_path, _efficientdet(1)) == [("AMP013", 800)]
    assert faults(tmp_path, _detectron2(evaluate=True)) == []
    assert faults(tmp_path, _detectron2(every=5, end=500)) == []
    assert faults(tmp_path, _detectron2(1000)) == [("AMP006", 1019)]
