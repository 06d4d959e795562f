"""Untried tools, group fourteen (the Keras ecosystem, medical imaging, pose and anomaly
detection, OCR): excerpts written from each tool's own format strings (each names its source),
a fault beside healthy controls with non-default settings.

Checked first and skipped, as the suite had tried their layouts already: Keras 3 ``fit`` under
``mixed_float16`` (keras-cv's and keras-hub's examples train through it: ``tests/logs/
recorded/keras``), TensorFlow Estimator's ``loss = ..., step = ...`` and ``global_step/sec``
(tensor2tensor's trainer logs through it), MONAI's StatsHandler, MedicalNet, nnU-Net v1 and
v2, mmengine (mmyolo, mmocr), PaddleOCR, EasyOCR's trainer, fairseq (TrOCR's unilm scripts),
Lightning's bars (anomalib, torchgeo).

Tried and already right before any change here (no test kept: the suite covers their layouts):
segmentation_models_pytorch's ``TrainEpoch``/``ValidEpoch`` bars (qubvel/segmentation_models.
pytorch ``segmentation_models_pytorch/utils/train.py``: ``tqdm(desc=stage_name)`` with the
postfix ``", ".join("{} - {:.4}".format(k, v))``, ``train: 100%|...| 46/46 [...,
dice_loss - nan, iou_score - nan]``, under the examples' ``Epoch: {}``: AMP006 at the bar's
end, and the ``valid`` bar's NaN AMP013); DeepLabCut's TensorFlow trainers
(``deeplabcut/pose_estimation_tensorflow/core/train.py`` and ``train_multianimal.py``:
``iteration: {} loss: {} lr: {}`` and ``... scmap loss: {} locref loss: {} limb loss: {}``,
a limb loss printed ``0.0000`` throughout where no part affinity field is trained: silent);
clovaai/deep-text-recognition-benchmark ``train.py`` in both wordings (``[{i}/{num_iter}]
Loss: ... elapsed_time: ...`` then ``valid loss: ... accuracy: ..., norm_ED: ...``, and the
later ``Train loss: ..., Valid loss: ..., Elapsed_time: ...`` with ``Current_accuracy``);
MONAI's tutorials (Project-MONAI/tutorials ``3d_segmentation/spleen_segmentation_3d``:
``{step}/{steps}, train_loss: {loss:.4f}`` under ``epoch {e}/{epochs}``, ``epoch {e} average
loss: ...``, ``current mean dice``). None of these prints a loss scale or an overflow: NaN
losses are the faults their logs can show.

Missed before: DeepLabCut 3's PyTorch runner (DeepLabCut/DeepLabCut ``deeplabcut/
pose_estimation_pytorch/runners/train.py``) prints ``Number of iterations: {i + 1}, loss:
{loss:.5f}, lr: {lr}`` every ``display_iters`` batches, ``i`` counted afresh each epoch and no
epoch on the line, then the epoch's summary ``Epoch {e}/{epochs} (lr={lr}), train loss
{loss:.5f}[, valid loss {loss:.5f}]``. "Number of iterations" named no step: the rows were
counted, so a NaN from epoch 17 was placed at row 65. Now the key is a step, and a keyed count
with no epoch and no total that goes back to within one printing interval of its start after a
summary row (a loss and an epoch above the last) counts the batches of an epoch
(``metric_reader._epoch_count_step``): the steps go on from the epochs before, whatever the key
(a plain loop's ``iter {i} loss ...`` under ``epoch {e} finished, ...`` was placed at the count
as printed, 50 for 1050). An epoch's header without a loss opens an epoch instead: Keras'
guide's ``Start of epoch 1`` keeps its counts as printed (``tests/logs/test_vision_formats.py``).

Missed too: DeepLabCut 3's detector CSV (``learning_stats_detector.csv``) pasted with its header,
whose ``metrics/test.mAP@50:95`` made the header a row of values (``:95``): its NaN rows were
read as bare ``step value`` columns, the evaluation's placeholder NaN taken for the training
loss (AMP006 at 5 on a healthy run). An IoU range after an AP's or AR's name is now part of the
name, and a bare row holds no number after its value. Not fixed: that placeholder, NaN in every
evaluation row by the tool's design, is still AMP013 (a strict xfail holds silence).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

_DLC_STAMP = "2024-11-02 10:00:00 "  # DeepLabCut's file logger: ``%(asctime)-15s %(message)s``


def _dlc3(epochs: int, *, nan_from: int | None = None, batches: int = 120,
          display_iters: int = 40, eval_interval: int = 5) -> list[str]:
    """DeepLabCut 3's training runner (DeepLabCut/DeepLabCut ``deeplabcut/
    pose_estimation_pytorch/runners/train.py`` ``TrainingRunner.fit`` and ``_epoch``): each
    ``display_iters`` batches ``Number of iterations: {i + 1}, loss: {loss:.5f}, lr: {lr}``
    (``i`` from 0 in each epoch), then ``Epoch {e}/{epochs} (lr={lr}), train loss
    {loss:.5f}``, with ``, valid loss {loss:.5f}`` and the ``Model performance:`` block every
    ``eval_interval`` epochs. Every loss NaN from epoch ``nan_from`` on."""
    lines = [_DLC_STAMP + "Training with configuration:", _DLC_STAMP + "data:",
             _DLC_STAMP + "  colormode: RGB", _DLC_STAMP + "Using 960 images and 240 for testing",
             _DLC_STAMP + "Starting pose model training...", "-" * 80]

    def shown(value: float, bad: bool) -> str:
        return "nan" if bad else f"{value:.5f}"

    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        loss = 0.02 / (1 + epoch / 10)
        for done in range(display_iters, batches + 1, display_iters):
            lines.append(_DLC_STAMP + f"Number of iterations: {done}, loss: "
                         f"{shown(loss * 1.05, bad)}, lr: 0.0005")
        summary = f"Epoch {epoch}/{epochs} (lr=0.0005), train loss {shown(loss, bad)}"
        if epoch % eval_interval == 0:
            lines.append(_DLC_STAMP + f"Training for epoch {epoch} done, starting evaluation")
            summary += f", valid loss {shown(loss * 1.2, bad)}"
        lines.append(_DLC_STAMP + summary)
        if epoch % eval_interval == 0:
            lines += [_DLC_STAMP + "Model performance:",
                      _DLC_STAMP + f"  metrics/test.rmse:          {12.34:6.2f}",
                      _DLC_STAMP + f"  metrics/test.rmse_pcutoff:  {8.76:6.2f}"]
    return lines


def test_deeplabcut3_nan_numbered_over_the_epochs(tmp_path: Path) -> None:
    """Before: AMP006 at 65 and AMP013 at 80 (rows counted). Now the epochs before count: NaN
    from epoch 17 of 120 batches printed every 40 is step 16 * 120 + 40, and the first
    evaluation after it (epoch 20's) is that epoch's end."""
    assert faults(tmp_path, _dlc3(30, nan_from=17)) == [("AMP006", 1960), ("AMP013", 2400)]


def test_deeplabcut3_nan_without_evaluation(tmp_path: Path) -> None:
    """No evaluation in the excerpt (an interval longer than the run), 200 batches printed
    every 50. Before: AMP006 at 41."""
    assert faults(tmp_path, _dlc3(20, nan_from=9, batches=200, display_iters=50,
                                  eval_interval=25)) == [("AMP006", 1650)]


def test_deeplabcut3_controls(tmp_path: Path) -> None:
    """Healthy runs with non-default ``display_iters`` and ``eval_interval`` (controls:
    silent on the parent too)."""
    assert faults(tmp_path, _dlc3(30, batches=90, display_iters=30, eval_interval=3)) == []
    assert faults(tmp_path, _dlc3(12, batches=500, display_iters=100, eval_interval=1)) == []


def _epoch_loop(epochs: int, *, nan_from: int | None = None, batches: int = 200,
                every: int = 50) -> list[str]:
    """A plain loop that prints ``print(f"iter {i} loss {loss:.4f}")`` every ``every``
    batches, ``i`` counted within the epoch, and ``print(f"epoch {e} finished, mean loss
    {mean:.4f}")`` after it: the layout of DeepLabCut 3's runner under other names. NaN from
    step ``nan_from`` on."""
    lines = []
    for epoch in range(1, epochs + 1):
        for done in range(every, batches + 1, every):
            step = (epoch - 1) * batches + done
            bad = nan_from is not None and step >= nan_from
            lines.append(f"iter {done} loss {'nan' if bad else f'{2.0 - step / 5000:.4f}'}")
        bad = nan_from is not None and epoch * batches >= nan_from
        lines.append(f"epoch {epoch} finished, mean loss "
                     f"{'nan' if bad else f'{2.0 - epoch * batches / 5000:.4f}'}")
    return lines


def test_epoch_counter_under_other_names(tmp_path: Path) -> None:
    """Before: AMP006 at 50 (the count as printed). Now 5 * 200 + 50."""
    assert faults(tmp_path, _epoch_loop(8, nan_from=1050)) == [("AMP006", 1050)]
    assert faults(tmp_path, _epoch_loop(8)) == []


def test_epoch_counter_from_zero(tmp_path: Path) -> None:
    """Counts from 0 (``iter 0``, ``iter 60``, ..., ``iter 240`` of 300 batches): an epoch
    holds its last count and the interval less the next epoch's first, as ``EpochBatches``
    learns it. Before: AMP006 at 120."""
    lines = []
    for epoch in range(1, 9):
        for done in range(0, 300, 60):
            step = (epoch - 1) * 300 + done
            loss = "nan" if step >= 1320 else f"{1.5 - step / 9000:.4f}"
            lines.append(f"iter {done} loss {loss}")
        lines.append(f"epoch {epoch} finished, mean loss "
                     f"{'nan' if epoch * 300 > 1320 else f'{1.5 - epoch / 30:.4f}'}")
    assert faults(tmp_path, lines) == [("AMP006", 1320)]


def test_count_that_goes_back_without_an_epoch_between(tmp_path: Path) -> None:
    """A run started over in the same log (no epoch row between the two counts) keeps its
    counts as printed: the second run's NaN at its own step (a control: the same on the
    parent)."""
    first = [f"iter {i} loss {2.0 - i / 5000:.4f}" for i in range(50, 1001, 50)]
    second = [f"iter {i} loss {'nan' if i >= 600 else f'{2.0 - i / 5000:.4f}'}"
              for i in range(50, 1001, 50)]
    assert faults(tmp_path, first + second) == [("AMP006", 600)]


_DETECTOR_LOSSES = ("loss_box_reg", "loss_classifier", "loss_objectness", "loss_rpn_box_reg")


def _dlc3_detector_csv(epochs: int, *, nan_from: int | None = None,
                       eval_interval: int = 5) -> list[str]:
    """DeepLabCut 3's detector runner's ``learning_stats_detector.csv`` (``deeplabcut/
    pose_estimation_pytorch/runners/logger.py`` ``CSVLogger._prepare_logs``: ``["step"] +
    sorted(metrics)``, a row an epoch, a cell left empty where the epoch did not log it), as
    pasted: torchvision's Faster R-CNN's training losses summed to ``total_loss``, and every
    ``eval_interval`` epochs the COCO metrics (``metrics/test.mAP@50:95``) beside
    ``losses/eval.total_loss``, which ``DetectorTrainingRunner.step`` sets to NaN in
    evaluation (the detector returns no loss there): a NaN in every healthy evaluation row.
    The training losses NaN from epoch ``nan_from`` on."""
    names = ([f"losses/train.{name}" for name in _DETECTOR_LOSSES]
             + ["losses/train.total_loss"])
    rows = [",".join(["step", "losses/eval.total_loss", *names, "metrics/test.mAP@50",
                      "metrics/test.mAP@50:95", "metrics/test.mAR@50:95"])]
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        terms = [weight / (1 + epoch / 10) for weight in (0.2, 0.3, 0.05, 0.02)]
        train = ["nan"] * 5 if bad else [f"{term!r}" for term in [*terms, sum(terms)]]
        evaluated = epoch % eval_interval == 0
        metrics = ([f"{40 + epoch * 0.5!r}", f"{25 + epoch * 0.4!r}", f"{35 + epoch * 0.3!r}"]
                   if evaluated else ["", "", ""])
        rows.append(",".join([str(epoch), "nan" if evaluated else "", *train, *metrics]))
    return rows


def test_deeplabcut3_detector_csv_training_nan(tmp_path: Path) -> None:
    """A header naming a COCO range (``mAP@50:95``) was refused as a header (``:95`` read
    as a value), and the rows whose first value is NaN were read as bare ``step value``
    columns: AMP006 at 5, the placeholder evaluation loss taken for the training loss. Now
    the header is read: the training loss's NaN at epoch 12 comes first."""
    assert faults(tmp_path, _dlc3_detector_csv(30, nan_from=12))[0] == ("AMP006", 12)


def test_deeplabcut3_detector_csv_healthy(tmp_path: Path) -> None:
    """Before: AMP006 at 5 (an error on a healthy run); then AMP013 at 5 (a warning); now
    AMP013 at info, "never finite in this excerpt" (evaluation.py's PLACEHOLDER: NaN in every
    evaluation row from the first, the training loss finite and falling), no fault."""
    assert faults(tmp_path, _dlc3_detector_csv(30)) == []


def _coco_table(epochs: int, nan_from: int | None = None) -> list[str]:
    """A loop's own CSV log (``print(f"{epoch},{train_loss:.4f},{val_loss:.4f},{ap50:.2f},
    {ap:.2f}")`` under its header), COCO's AP over an IoU range in the last column's name:
    the header rule above, not DeepLabCut's names."""
    rows = ["epoch,train_loss,val_loss,AP@50,AP@50:95"]
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        losses = ("nan", "nan") if bad else (f"{1.2 - epoch / 50:.4f}", f"{1.3 - epoch / 50:.4f}")
        rows.append(f"{epoch},{losses[0]},{losses[1]},{40 + epoch * 0.3:.2f},"
                    f"{25 + epoch * 0.2:.2f}")
    return rows


def test_table_headed_with_a_coco_range(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" (the header refused, no row read). Now the training
    NaN at epoch 9 and its evaluation's; the healthy table stays silent."""
    assert faults(tmp_path, _coco_table(20, nan_from=9)) == [("AMP006", 9), ("AMP013", 9)]
    assert faults(tmp_path, _coco_table(20)) == []
