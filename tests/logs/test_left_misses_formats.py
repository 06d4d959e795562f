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
from test_detect_formats import _yolov6

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


def _fast_neural_style(nan_from: tuple[int, int] | None = None, interval: int = 500,
                       batch: int = 4) -> list[str]:
    """pytorch/examples ``fast_neural_style/neural_style/neural_style.py`` ``train``:
    ``"{}\\tEpoch {}:\\t[{}/{}]\\tcontent: {:.6f}\\tstyle: {:.6f}\\ttotal: {:.6f}".format(
    time.ctime(), e + 1, count, len(train_dataset), ...)`` every ``log_interval`` batches,
    ``count`` the images done this epoch; the total is content plus style (the loss trained
    on), each averaged over the epoch's batches so far."""
    lines = ["Namespace(batch_size=4, checkpoint_interval=2000, content_weight=100000.0, "
             "cuda=1, dataset='coco', epochs=2, image_size=256, log_interval=500, lr=0.001, "
             "save_model_dir='models', seed=42, style_image='images/style-images/mosaic.jpg', "
             "style_size=None, style_weight=10000000000.0, subcommand='train')"]
    for epoch in (1, 2):
        for done in range(interval, 20001, interval):
            content, style = 400000 - done * 5.125, 300000 - done * 3.25
            total = f"{content + style:.6f}"
            style_text = f"{style:.6f}"
            if nan_from is not None and (epoch, done) >= nan_from:
                style_text = total = "nan"
            lines.append(f"Sun Jun  1 10:00:00 2024\tEpoch {epoch}:\t[{done * batch}/82783]\t"
                         f"content: {content:.6f}\tstyle: {style_text}\ttotal: {total}")
    return lines


def test_fast_neural_style_total_is_the_loss(tmp_path: Path) -> None:
    """Before: nothing to diagnose (``total`` named no loss; ``content`` and ``style`` no
    term): the NaN lines were read as nothing. The step is the images done, as printed (the
    batch size is not on the line)."""
    assert faults(tmp_path, _fast_neural_style((1, 6000))) == [("AMP006", 24000)]
    assert faults(tmp_path, _fast_neural_style((2, 1000))) == [("AMP006", 82783 + 4000)]
    assert faults(tmp_path, _fast_neural_style((1, 1000), interval=100, batch=8)) == [
        ("AMP006", 8000)]


def test_fast_neural_style_controls(tmp_path: Path) -> None:
    """A healthy run (read on the second pass, every line a candidate: nothing to diagnose on
    the parent, which fails this control); counts beside a ``total`` that is not their sum
    are no loss."""
    assert faults(tmp_path, _fast_neural_style()) == []
    assert faults(tmp_path, _fast_neural_style(interval=100, batch=8)) == []
    # a split's counts that sum to their total are no loss beside the loop's own
    counts = [f"iter {i}: loss {2.3 - i / 100:.4f}" for i in range(20)]
    counts[5:5] = ["examples: train: 800 val: 100 test: 100 total: 1000"]
    assert faults(tmp_path, counts) == []


def _time_sequence(nan_step: int | None = None, evaluations: int = 20) -> list[str]:
    """pytorch/examples ``time_sequence_prediction/train.py``: ``print('STEP: ', i)`` each
    LBFGS step, ``print('loss:', loss.item())`` in the closure (one line an evaluation,
    ``max_iter=20`` of them a step), ``print('test loss:', loss.item())`` after it."""
    lines = []
    for i in range(15):
        lines.append(f"STEP:  {i}")
        for k in range(evaluations):
            value = "nan" if nan_step is not None and i >= nan_step else repr(
                0.5 / (i * evaluations + k + 1))
            lines.append(f"loss: {value}")
        finite = nan_step is None or i < nan_step
        lines.append(f"test loss: {repr(0.01 / (i + 1)) if finite else 'nan'}")
    return lines


def test_time_sequence_prediction_step_lines(tmp_path: Path) -> None:
    """Before: AMP006 at step 161 (each closure call's ``loss:`` line a step; ``STEP:  8``,
    upper case and two blanks, no step line). The test loss's AMP013 stays after the clock
    the first step's lines advanced (19: see the report), so only the first finding is
    asserted."""
    assert faults(tmp_path, _time_sequence(8))[:1] == [("AMP006", 8)]
    assert faults(tmp_path, _time_sequence(5, evaluations=25))[:1] == [("AMP006", 5)]


def test_time_sequence_prediction_controls(tmp_path: Path) -> None:
    """A healthy run; a stray step line over a loop's own lines stays one record (the rule
    needs step lines that recur, one more each)."""
    assert faults(tmp_path, _time_sequence()) == []
    stray = [f"training loss: {2.0 - i / 100}" for i in range(5)]
    stray += ["step: 100", *(f"training loss: {1.9 - i / 100}" for i in range(3)), "training "
              "loss: nan", "training loss: nan"]
    assert faults(tmp_path, stray)[:1] == [("AMP006", 103)]


def test_yolov6_resumed_excerpt(tmp_path: Path) -> None:
    """YOLOv6's rows (meituan/YOLOv6 ``yolov6/core/engine.py`` ``print_details``: ``('%10s' +
    ' %10.4g' + '%10.4g' * 3) % (f'{epoch}/{max_epoch - 1}', lr, *mean_loss)`` before the
    bar; the builder is test_detect_formats' ``_yolov6``) in an excerpt that never shows
    epoch 0. Before: one epoch low (66488 for 68321, 650 for 1150): the epochs were taken to
    count from 1. ``37/399`` says they count from 0: the last is one below a round count."""
    assert faults(tmp_path, _yolov6(37 * 1833 + 500, epochs=range(37, 40), batches=1833,
                                    every=100)) == [("AMP006", 37 * 1833 + 500)]
    assert faults(tmp_path, _yolov6(1150, epochs=range(1, 3))) == [("AMP006", 1150)]
    assert faults(tmp_path, _yolov6(1150, epochs=range(1, 3), old=True)) == [("AMP006", 1150)]


def test_yolov6_resumed_controls(tmp_path: Path) -> None:
    """Healthy resumed runs (pass on the parent too); a loop whose epochs count from 1 (a
    ``3/10`` cell over a bar, no epoch 0) keeps its count."""
    assert faults(tmp_path, _yolov6(epochs=range(37, 40), batches=1833, every=100)) == []
    assert faults(tmp_path, _yolov6(epochs=range(1, 3))) == []
    from_one = [line.replace("/399", "/10") for line in _yolov6(1150 + 500, epochs=range(1, 4))]
    assert faults(tmp_path, from_one) == [("AMP006", 1150)]


def _scenic(last: int, *, every: int = 100, train_nan: bool = False) -> list[str]:
    """scenic's classification trainer (google-research/scenic
    ``scenic/train_lib/classification_trainer.py``: ``log_train_summary`` at ``step %
    log_summary_steps == 1``; ``train_utils.py`` ``normalize_metrics_summary`` raises
    ``TrainingDivergedError(f'NaN detected in {split}_{key} (Unnormalized values: {val})')``
    before the summary is written) through CLU's ``LoggingWriter.write_scalars``
    (google/CommonLoopUtils ``clu/metric_writers/logging_writer.py``: ``"[%d]%s %s"``,
    ``f"{k}={v:.6g}"`` sorted by key)."""
    lines = ["I0601 10:00:00.000000 139871 classification_trainer.py:328] Starting training "
             "loop at step 1."]
    for step in range(1, last + 1, every):
        head = f"I0601 10:00:00.000000 139871 logging_writer.py:48] [{step}] "
        lines += [f"{head}core_hours=0.1, epoch={step / 500:.6g}, examples_seen={step * 512}, "
                  "img/sec=5012.3, img/sec/core=626.54, uptime=120.5",
                  f"{head}train_accuracy={0.1 + step / 1e4:.6g}, train_loss={2.3 - step / 5e3:.6g}",
                  f"{head}learning_rate=0.001"]
    if train_nan:
        lines += ["Traceback (most recent call last):",
                  '  File "/root/scenic/scenic/train_lib/train_utils.py", line 770, in '
                  "normalize_metrics_summary",
                  "    raise TrainingDivergedError(msg)",
                  "scenic.train_lib.train_utils.TrainingDivergedError: NaN detected in "
                  "train_loss (Unnormalized values: (nan, 51200))"]
    return lines


def test_scenic_divergence_after_the_last_summary(tmp_path: Path) -> None:
    """Before: AMP006 at 3001, the last summary written (finite): the NaN came in the steps
    after it, the first of which is 3002 (the failing summary's own row is never written)."""
    assert faults(tmp_path, _scenic(3001, train_nan=True)) == [("AMP006", 3002)]
    assert faults(tmp_path, _scenic(1001, every=50, train_nan=True)) == [("AMP006", 1002)]


def test_scenic_controls(tmp_path: Path) -> None:
    """A healthy run (passes on the parent too)."""
    assert faults(tmp_path, _scenic(3001)) == []


def test_an_announcement_far_above_a_bar_is_not_its_pass(tmp_path: Path) -> None:
    """A script's own ``Evaluating`` line, an evaluation bar without values below it (HF's
    ``tqdm`` in ``evaluation_loop``) or none, then the training bar with its dict glued to it
    (a bar's total not seen before, its values after it): the training NaN stays AMP006
    (passes on the parent)."""
    lines = ["03/01/2024 10:00:00 - INFO - __main__ - Evaluating"]
    lines += [f"{done * 2}%|{'#' * (done // 5):<10}| {done}/50 [00:0{done // 10}<00:05, "
              "10.00it/s]" for done in range(5, 51, 5)]
    lines += ["{'eval_loss': 2.31, 'eval_runtime': 5.1, 'epoch': 1.0}"]
    # a bar whose values follow it (tqdm's ``set_postfix``)
    assert faults(tmp_path, [*lines[:1], *(
        f"{done // 10}%|#         | {done}/1000 [01:00<10:00, 1.50it/s, loss="
        f"{'nan' if done >= 400 else '2.2'}, lr=5e-05]" for done in range(100, 700, 100))]) == [
        ("AMP006", 400)]
    lines += [f"{done // 10}%|#         | {done}/1000 [01:00<10:00, 1.50it/s]{{'loss': "
              f"{'nan' if done >= 400 else '2.2'}, 'learning_rate': 5e-05, 'epoch': 1.2}}"
              for done in range(100, 700, 100)]
    assert faults(tmp_path, lines) == [("AMP006", 400)]
