"""The misses the last rounds left: formats the doctor read wrong, each fixed by a general
rule, each excerpt written from the tool's own format strings (each test names its source), a
fault beside healthy controls. Each fault test failed on the parent commit (c9ca303); the
controls pass there too unless their docstring says otherwise.

- an evaluator's scores under names of their own on a line about evaluation: mmengine's
  ``Epoch(val) [3][500/500]    aAcc: ...  mIoU: nan`` (mmseg's ``IoUMetric``), mmcv's
  ``Epoch(val) [3][625]\\tbbox_mAP: nan, ...`` (mmdet 2.x's ``CocoMetric`` through
  ``TextLoggerHook``): AMP013 after the training step reached, never AMP006. mmseg's per-class
  table prints ``nan`` for a class absent from both labels and predictions (its summary is a
  ``nanmean``): a table row is no line about evaluation, and stays silent. TF Estimator's
  ``Saving dict for global step 2000: accuracy = nan, ...`` is read by the same rule.
"""

from __future__ import annotations

import json
from pathlib import Path

from excerpts import faults

_MMENGINE = "2024/06/01 10:00:00 - mmengine - INFO - "


def _mmseg(nan_epoch: int | None = None, empty_class: bool = True) -> list[str]:
    """mmengine's ``LogProcessor.get_log_after_iter`` / ``get_log_after_epoch``
    (open-mmlab/mmengine ``mmengine/runner/log_processor.py``: ``f'Epoch({mode})
    [{cur_epoch}][{cur_iter}/{dataloader_len}]  '``, then ``'  '.join(f'{name}: {val}')``,
    floats ``f'{val:.{num_digits}f}'``), mmseg's ``IoUMetric.compute_metrics``
    (open-mmlab/mmsegmentation ``mmseg/evaluation/metrics/iou_metric.py``: ``print_log('per
    class results:')``, then ``'\\n' + class_table_data.get_string()``, a PrettyTable of
    ``np.round(v * 100, 2)`` per class; the summary ``aAcc mIoU mAcc`` is their nanmean).
    500 iterations an epoch."""
    lines = []
    for epoch in range(1, 5):
        for it in range(50, 501, 50):
            lines.append(f"{_MMENGINE}Epoch(train)  [{epoch}][{it:>3}/500]  base_lr: 1.0000e-02 "
                         f"lr: 1.0000e-02  eta: 1:00:00  time: 0.3000  data_time: 0.0100  "
                         f"memory: 3000  loss: {1.5 - epoch / 10:.4f}  decode.loss_ce: "
                         f"{1.5 - epoch / 10:.4f}  decode.acc_seg: 80.0000")
        empty = "  nan  |  nan " if empty_class else " 40.12 | 51.30"
        lines += [f"{_MMENGINE}per class results:", f"{_MMENGINE}",
                  "+------------+-------+-------+",
                  "|   Class    |  IoU  |  Acc  |",
                  "+------------+-------+-------+",
                  "|    road    | 97.72 | 98.84 |",
                  f"|    wall    |{empty}|",
                  "+------------+-------+-------+"]
        miou = "nan" if epoch == nan_epoch else "70.1000"
        lines.append(f"{_MMENGINE}Epoch(val) [{epoch}][500/500]    aAcc: 95.1000  mIoU: {miou}  "
                     "mAcc: 80.1000  data_time: 0.0036  time: 0.0801")
    return lines


def _mmdet2(nan_epoch: int | None = None) -> list[str]:
    """mmcv's ``TextLoggerHook._log_info`` (open-mmlab/mmcv ``mmcv/runner/hooks/logger/
    text.py``: ``f'Epoch [{epoch}][{iter}/{len(data_loader)}]\\t'`` then ``lr: ..., eta: ...,
    time: ..., data_time: ..., memory: ...,``; evaluation ``f'Epoch({mode})
    [{epoch}][{iter}]\\t'`` then ``', '.join(f'{name}: {val}')``, floats ``f'{val:.4f}'``),
    mmdet 2.x's ``CocoDataset.evaluate`` keys (``bbox_mAP``... ``bbox_mAP_copypaste``)."""
    prefix = "2021-06-01 10:00:00,000 - mmdet - INFO - "
    lines = []
    for epoch in range(1, 5):
        for it in range(50, 501, 50):
            lines.append(f"{prefix}Epoch [{epoch}][{it}/500]\tlr: 2.000e-02, eta: 1:00:00, "
                         "time: 0.500, data_time: 0.010, memory: 3000, loss_rpn_cls: 0.0100, "
                         "loss_rpn_bbox: 0.0200, loss_cls: 0.3000, acc: 90.0000, loss_bbox: "
                         f"0.2000, loss: {0.6 - epoch / 100:.4f}, grad_norm: 3.0000")
        v = "nan" if epoch == nan_epoch else "0.3710"
        lines.append(f"{prefix}Epoch(val) [{epoch}][625]\tbbox_mAP: {v}, bbox_mAP_50: {v}, "
                     f"bbox_mAP_75: {v}, bbox_mAP_s: {v}, bbox_mAP_m: {v}, bbox_mAP_l: {v}, "
                     f"bbox_mAP_copypaste: {v} {v} {v} {v} {v} {v}")
    return lines


def _mmdet3(nan_epoch: int | None = None) -> list[str]:
    """mmengine's evaluation line (as ``_mmseg``) with mmdet 3.x's ``CocoMetric`` keys
    (open-mmlab/mmdetection ``mmdet/evaluation/metrics/coco_metric.py``:
    ``f'{self.prefix}/{metric}_{metric_item}'``, prefix ``coco``)."""
    lines = []
    for epoch in range(1, 4):
        for it in range(50, 301, 50):
            lines.append(f"{_MMENGINE}Epoch(train) [{epoch}][{it:>3}/300]  base_lr: 2.0000e-02 "
                         "lr: 2.0000e-02  eta: 1:00:00  time: 0.4000  data_time: 0.0100  "
                         "memory: 4000  grad_norm: 3.0000  loss: 0.6000  loss_cls: 0.3000  "
                         "loss_bbox: 0.3000")
        v = "nan" if epoch == nan_epoch else "0.3710"
        lines.append(f"{_MMENGINE}Epoch(val) [{epoch}][625/625]    coco/bbox_mAP: {v}  "
                     f"coco/bbox_mAP_50: {v}  coco/bbox_mAP_75: {v}  data_time: 0.0021  "
                     "time: 0.0610")
    return lines


def _tf_estimator(nan_step: int | None = None) -> list[str]:
    """TF Estimator's training hook and evaluation summary (tensorflow/estimator
    ``tensorflow_estimator/python/estimator/estimator.py``: ``'Saving dict for global step
    %d: %s'`` with ``dict_to_str``, ``', '.join('%s = %s' % (k, v) for k, v in
    sorted(...))``; ``basic_session_run_hooks.py`` ``LoggingTensorHook``'s ``loss = ...,
    step = ... (... sec)``)."""
    lines = []
    for step in range(100, 2001, 100):
        lines += ["INFO:tensorflow:global_step/sec: 43.2",
                  f"INFO:tensorflow:loss = 0.31, step = {step} (2.315 sec)"]
        if step % 1000 == 0:
            accuracy = "nan" if step == nan_step else "0.91"
            lines.append(f"INFO:tensorflow:Saving dict for global step {step}: accuracy = "
                         f"{accuracy}, global_step = {step}, loss = 0.31")
    return lines


def test_evaluator_scores_on_a_validation_line(tmp_path: Path) -> None:
    """Before: silence (``mIoU``, ``bbox_mAP``, ``coco/bbox_mAP`` name no role the lexicon
    knows, so the ``Epoch(val)`` line held nothing to read)."""
    assert faults(tmp_path, _mmseg(3)) == [("AMP013", 1500)]
    assert faults(tmp_path, _mmdet2(3)) == [("AMP013", 1500)]
    assert faults(tmp_path, _mmdet3(2)) == [("AMP013", 600)]
    assert faults(tmp_path, _tf_estimator(2000)) == [("AMP013", 2000)]


def test_evaluator_scores_controls(tmp_path: Path) -> None:
    """Healthy runs: an empty class's ``nan`` in mmseg's per-class table is no fault (pass on
    the parent too)."""
    for lines in (_mmseg(), _mmseg(empty_class=False), _mmdet2(), _mmdet3(), _tf_estimator()):
        assert faults(tmp_path, lines) == []


def _allennlp(val_nan_epoch: int | None = None, train_nan: tuple[int, int] | None = None,
              rank: str = "") -> list[str]:
    """AllenNLP's ``out.log`` (allenai/allennlp: ``allennlp/common/logging.py``
    ``prepare_global_logging``, ``"%(asctime)s - %(levelname)s - %(name)s - %(message)s"``,
    ``f"{rank} | ..."`` with several workers, the ``tqdm`` logger on the same file;
    ``allennlp/common/tqdm.py`` ``TqdmToLogsWriter``: each bar line logged every 10 s and at
    100%; ``allennlp/training/gradient_descent_trainer.py``: ``Epoch %d/%d``, ``Training``,
    ``Validating``, both bars described by ``training/util.py`` ``description_from_metrics``,
    ``"%s: %.4f"`` joined by ``", "`` then ``" ||"``: the validation bar prints the training
    bar's keys). 1000 training batches an epoch, 313 validation batches."""
    head = f"{rank}2021-06-01 10:00:00,000 - INFO - "
    trainer = head + "allennlp.training.gradient_descent_trainer - "

    def bar(done: int, total: int, description: str) -> str:
        fill = "#" * (10 * done // total)
        return (f"{head}tqdm - {description} ||: {100 * done // total:3d}%|{fill:<10}| "
                f"{done}/{total} [00:10<00:30, 10.00it/s]")

    lines = []
    for epoch in range(4):
        lines += [f"{trainer}Epoch {epoch}/9", f"{trainer}Worker 0 memory usage: 3.1G",
                  f"{trainer}GPU 0 memory usage: 5.2G", f"{trainer}Training",
                  f"{head}tqdm -   0%|          | 0/1000 [00:00<?, ?it/s]"]
        for done in range(100, 1001, 100):
            bad = train_nan is not None and (epoch, done) >= train_nan
            loss = "nan" if bad else f"{0.5 - epoch / 100:.4f}"
            lines.append(bar(done, 1000, f"accuracy: 0.8000, batch_loss: {loss}, loss: {loss}"))
        lines += [f"{trainer}Validating", f"{head}tqdm -   0%|          | 0/313 [00:00<?, ?it/s]"]
        value = "nan" if epoch == val_nan_epoch else "0.6000"
        for done in (150, 313):
            lines.append(bar(done, 313, f"accuracy: 0.7000, batch_loss: {value}, loss: {value}"))
        lines.append(f"{trainer}Epoch duration: 0:01:43.123456")
    return lines


def test_allennlp_validation_bar(tmp_path: Path) -> None:
    """Before: AMP006 at step 776 (the validation bar read as a training bar: its counts
    added to the steps)."""
    assert faults(tmp_path, _allennlp(2)) == [("AMP013", 3000)]
    assert faults(tmp_path, _allennlp(0)) == [("AMP013", 1000)]
    assert faults(tmp_path, _allennlp(3, rank="0 | ")) == [("AMP013", 4000)]


def test_allennlp_controls(tmp_path: Path) -> None:
    """A healthy run, and a training NaN beside a validation line (AMP006 where the training
    bar went non-finite: the announcement does not reach the training bar after it)."""
    assert faults(tmp_path, _allennlp()) == []
    assert faults(tmp_path, _allennlp(train_nan=(2, 500))) == [("AMP006", 2500)]
    assert faults(tmp_path, _allennlp(train_nan=(1, 100))) == [("AMP006", 1100)]
    # An announced pass that printed no bar: the next bar is the training bar's total, read
    # as training's.
    silent = [line for line in _allennlp(train_nan=(1, 100))
              if "/313" not in line and "Epoch duration" not in line and "emory" not in line
              and not line.endswith("Training")]
    assert faults(tmp_path, silent) == [("AMP006", 1100)]


def _nanogpt(nan_from: int | None = None) -> str:
    """nanoGPT's lines (karpathy/nanoGPT ``train.py``: ``f"iter {iter_num}: loss
    {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%"``), as the text a
    notebook cell captured."""
    lines = []
    for it in range(0, 400, 10):
        loss = "nan" if nan_from is not None and it >= nan_from else f"{2.3 - it / 1000:.4f}"
        lines.append(f"iter {it}: loss {loss}, time 35.21ms, mfu 41.20%")
    return "\n".join(lines) + "\n"


def _hf_dicts(nan_from: int | None = None) -> str:
    """HF Trainer's logging dicts (huggingface/transformers ``trainer.py`` ``log``: ``print``
    of ``{**logs, **{"step": ...}}`` through the ``PrinterCallback``/``tqdm.write``)."""
    lines = []
    for step in range(10, 310, 10):
        loss = "nan" if nan_from is not None and step >= nan_from else f"{2.3 - step / 1000:.4f}"
        lines.append(f"{{'loss': {loss}, 'grad_norm': 1.2, 'learning_rate': 5e-05, "
                     f"'epoch': {step / 300:.2f}}}")
    return "\n".join(lines) + "\n"


def test_log_pasted_as_one_escaped_line(tmp_path: Path) -> None:
    """Before: the one line read as one (its first step, or nothing: ``iter 0: loss 2.3000
    ...\\niter 10: ...`` holds one step for the reader)."""
    assert faults(tmp_path, [json.dumps(_nanogpt(300))]) == [("AMP006", 300)]
    assert faults(tmp_path, [repr(_nanogpt(300))]) == [("AMP006", 300)]
    cell = {"name": "stdout", "output_type": "stream", "text": _nanogpt(300)}
    assert faults(tmp_path, [json.dumps(cell)]) == [("AMP006", 300)]
    # (HF's printed dicts hold no step: the 20th logging interval, as the lines themselves)
    plain = faults(tmp_path, _hf_dicts(200).splitlines())
    assert plain == [("AMP006", 20)]
    assert faults(tmp_path, [json.dumps(_hf_dicts(200))]) == plain


def test_escaped_line_controls(tmp_path: Path) -> None:
    """Healthy runs pasted as one escaped line; a log of many lines with an escaped newline
    inside a message now and then is read as it is (``\\n`` stays two characters)."""
    assert faults(tmp_path, [json.dumps(_nanogpt())]) == []
    assert faults(tmp_path, [repr(_hf_dicts())]) == []
    lines = _nanogpt(300).splitlines()
    lines[5:5] = ["prompt: 'Once upon a time\\nthere was\\n'", "sample: 'a\\nb\\nc\\nd\\n'"]
    assert faults(tmp_path, lines) == [("AMP006", 300)]
