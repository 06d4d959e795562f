"""The stacks that are not PyTorch: excerpts written from each tool's own format strings
(each names its source), a fault at a known step beside healthy controls.

- TensorFlow's Estimator logs an evaluation's results without naming the split
  (tensorflow_estimator/python/estimator/estimator.py ``_write_dict_to_summary``:
  ``logging.info('Saving dict for global step %d: %s', ...)``): evaluation's (AMP013);
- values printed as their type's repr: numpy 2's ``np.float32(nan)`` in the dict TF Model
  Garden's orbit Controller logs (tensorflow/models orbit/controller.py ``_train_n_steps``:
  ``_log(f"train | step: {current_step: 6d} | steps/sec: {steps_per_second: 6.1f} | output:
  {_format_output(train_output)}")``, ``_format_output`` pprints the dict, indented on the
  lines below when it is longer than a line), JAX's ``Array(nan, dtype=float32)`` in
  EasyLM's ``tqdm.write("\\n" + pprint.pformat(log_metrics) + "\\n")`` (young-geng/EasyLM
  EasyLM/models/llama/llama_train.py; the step is the dict's last row, pprint sorts keys);
- Paxml's ``logging.info('step_i: %d, training loss: %s', step_i, loss)``
  (google/paxml paxml/trainer_lib.py, programs.py);
- an epoch and the batch of that epoch with no count of the epoch's batches: MindSpore's
  LossMonitor (mindspore/python/mindspore/train/callback/_loss_monitor.py: ``print("epoch:
  %s step: %s, loss is %s" % (cb_params.cur_epoch_num, cur_step_in_epoch, loss))``, and its
  ``ValueError("epoch: {} step: {}. Invalid loss, terminating training.")``), MXNet's
  Speedometer (apache/mxnet python/mxnet/callback.py: ``'Epoch[%d] Batch [%d-%d]\\tSpeed:
  %.2f samples/sec' + '\\t%s=%f'``);
- the same counts where the epoch's are printed from 0 every N batches: DGL's GraphSAGE
  example (dmlc/dgl examples/pytorch/graphsage/train_sampling.py: ``'Epoch {:05d} | Step
  {:05d} | Loss {:.4f} | Train Acc {:.4f} | Speed (samples/sec) {:.4f} | GPU {:.1f} MB'``);
  GluonCV's detection scripts (dmlc/gluon-cv scripts/detection/yolo/train_yolo3.py:
  ``'[Epoch {}][Batch {}], LR: {:.2E}, Speed: {:.3f} samples/sec, {}={:.3f}, ...'`` at
  ``(i + 1) % log_interval == 0``, ``i`` from 0);
  and a count that goes on rising as the epoch goes up, the run's iterations: PaddleSeg
  (PaddlePaddle/PaddleSeg paddleseg/core/train.py: ``"[TRAIN] epoch: {}, iter: {}/{}, loss:
  {:.4f}, lr: {:.6f}, batch_cost: {:.4f}, reader_cost: {:.5f}, ips: {:.4f} samples/sec |
  ETA {}"``), not MONAI's count of the epoch's batches;
- TensorFlow's check_numerics error (tensorflow/core/kernels/check_numerics_op.cc:
  ``errors::InvalidArgument(message_, " : Tensor had ", status, " values")``), as
  tf.clip_by_global_norm raises it;
- PaddlePaddle's FLAGS_check_nan_inf error (paddle/phi/kernels/funcs/check_numerics_utils.h:
  ``PADDLE_THROW(... "There are NAN or INF (num_nan=%lld, num_inf=%lld, num_zero=%lld) in
  %s.")``) under hapi's ``Model.fit`` bar (python/paddle/hapi/progressbar.py: ``step
  {}/{} - loss: ... - {}ms/step``): AMP006 after the last step printed;
- TensorFlow's fp16 graph rewrite without a GPU for it
  (tensorflow/core/grappler/optimizers/auto_mixed_precision.cc: ``LOG(WARNING) << "No
  (suitable) GPUs detected, skipping " << name() << " graph optimizer"``): AMP010;
- the TensorFlow mixed precision guide's custom loop (tensorflow/docs site/en/guide/
  mixed_precision.ipynb: ``'Epoch {}: loss={}, test accuracy={}'``): the test split keys its
  accuracy, the loss is training's;
- MindCV's callback (mindspore-lab/mindcv mindcv/utils/callbacks.py: ``Epoch: [{}/{}],
  batch: [{}/{}], loss: ...``); PaddlePaddle's v2 and fluid examples (PaddlePaddle/book:
  ``"Pass %d, Batch %d, Cost %f"``): a pass is an epoch;
- the TF Object Detection API's TF2 loop (tensorflow/models research/object_detection/
  model_lib_v2.py: ``'Step {} per-step time {:.3f}s'`` then ``pprint.pformat(logged_dict_np,
  width=40)``, behind tf.compat.v1.logging's ``INFO:tensorflow:`` or absl's prefix);
- trax's Loop (google/trax trax/supervised/training.py: ``'Step % 6d: %s' % (step, '%s %s |
  % .8f' % (prefix.ljust(5), name.rjust(n), value))``): the key before ``|``;
- MindSpore's PanGu-alpha LossCallBack and its copies (mindspore models
  official/nlp/Pangu_alpha/src/callbacks.py: ``"time: {} local_rank: {}, epoch: {}, step: {},
  loss is {}, overflow is {}, loss scale is {}, lr is {:.5f}. cost time is {:.4f}s"``): its
  ``overflow is True`` is a skipped step;
- Chainer's LogReport file, JSON indented 4 (chainer/training/extensions/log_report.py:
  ``json.dump(self._log, f, indent=4)``), one record an epoch: its ``iteration`` row, after
  the loss, is the step;
- MindSpore's model zoo LossCallBack printing TrainOneStepWithLossScaleCell's unnamed
  (loss, overflow, scale) (mindspore models official/nlp/Bert/src/utils.py: ``print("epoch:
  {}, step: {}, outputs are {}".format(cb_params.cur_epoch_num, cb_params.cur_step_num,
  str(cb_params.net_outputs)))``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.parsers import parse_line

NAN = float("nan")


def _quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], [(d.code, d.step) for d in result.faults]


def _loss(step: int, scale: float = 300.0) -> float:
    return 2.3 * math.exp(-step / scale) + 0.1


# --- TensorFlow 1.x Estimator (basic_session_run_hooks.py, estimator.py) ---------------------
def _estimator(nan_from: int | None = None, steps: int = 1000) -> list[str]:
    """LoggingTensorHook's ``loss = ..., step = ... (... sec)`` every 100 steps, the
    StepCounterHook's rate, then the evaluation's ``Saving dict for global step`` (its loss
    NaN from ``nan_from``)."""
    eval_loss = NAN if nan_from is not None and steps >= nan_from else 0.31
    lines = ["INFO:tensorflow:Calling model_fn.", "INFO:tensorflow:Done calling model_fn.",
             "INFO:tensorflow:Saving checkpoints for 0 into /tmp/model/model.ckpt.",
             f"INFO:tensorflow:loss = {_loss(0):.5f}, step = 0"]
    for step in range(100, steps + 1, 100):
        lines += ["INFO:tensorflow:global_step/sec: 8.51234",
                  f"INFO:tensorflow:loss = {_loss(step):.5f}, step = {step} (11.751 sec)"]
    lines += [f"INFO:tensorflow:Saving checkpoints for {steps} into /tmp/model/model.ckpt.",
              f"INFO:tensorflow:Loss for final step: {_loss(steps):.5f}.",
              "INFO:tensorflow:Starting evaluation at 2026-12-06T08:00:00Z",
              "INFO:tensorflow:Finished evaluation at 2026-12-06-08:00:10",
              f"INFO:tensorflow:Saving dict for global step {steps}: accuracy = 0.9123, "
              f"global_step = {steps}, loss = {eval_loss}",
              f"INFO:tensorflow:Saving 'checkpoint_path' summary for global step {steps}: "
              f"/tmp/model/model.ckpt-{steps}"]
    return lines



# --- TF Model Garden: orbit Controller ----------------------------------------------------
def _orbit(nan_from: int | None = None, *, multi: bool, steps: int = 5000,
           every: int = 500) -> list[str]:
    """``train | step: ... | output: {...}`` with numpy 2 scalars, an evaluation every 2500
    steps; ``multi``: the detection task's five outputs, pprint'd over lines."""
    lines = [f"train | step:      0 | training until step {steps}..."]
    for step in range(every, steps + 1, every):
        loss = NAN if nan_from and step >= nan_from else _loss(step, 3000)
        outputs = {"cls_loss": loss * 0.7, "learning_rate": 0.08 * (1 - step / steps),
                   "model_loss": loss * 1.1, "total_loss": loss * 1.3, "training_loss": loss}
        if multi:
            rows = [f"'{k}': np.float32({v})" for k, v in sorted(outputs.items())]
            lines.append(f"train | step: {step: 6d} | steps/sec: {5.2: 6.1f} | output: ")
            lines += ["    {" + rows[0] + ","] + [f"     {r}," for r in rows[1:-1]]
            lines.append(f"     {rows[-1]}}}")
        else:
            lines.append(f"train | step: {step: 6d} | steps/sec: {5.2: 6.1f} | output: "
                         f"{{'learning_rate': np.float32({outputs['learning_rate']}), "
                         f"'training_loss': np.float32({loss})}}")
        if step % 2500 == 0:
            lines += [f" eval | step: {step: 6d} | running complete evaluation...",
                      f" eval | step: {step: 6d} | eval time: {12.3: 6.1f} sec | output: ",
                      "    {'AP': np.float32(0.31),", "     'AP50': np.float32(0.52),",
                      "     'total_loss': np.float32(0.93),",
                      "     'validation_loss': np.float32(0.93)}"]
    return lines




# --- EasyLM -------------------------------------------------------------------------------
def _easylm(nan_from: int | None = None, steps: int = 2000, every: int = 100) -> list[str]:
    """The trange bar, then each ``log_freq`` step's pprint'd metrics (jax Arrays)."""
    lines = []
    for step in range(0, steps, every):
        loss = "nan" if nan_from is not None and step >= nan_from else f"{_loss(step, 800):.4f}"
        norm = "nan" if loss == "nan" else "1.2345"
        lines += [f" {100 * step // steps:2d}%|{'█' * (step * 10 // steps):10s}| "
                  f"{step}/{steps} [00:30<09:00,  3.50it/s]", "",
                  f"{{'accuracy': Array(0.{step % 90 + 10}, dtype=float32),",
                  f" 'gradient_norm': Array({norm}, dtype=float32),",
                  " 'learning_rate': Array(0.0003, dtype=float32),",
                  f" 'loss': Array({loss}, dtype=float32),",
                  " 'param_norm': Array(123.45, dtype=float32),",
                  f" 'step': {step}}}", ""]
    return lines



# --- Paxml ---------------------------------------------------------------------------------
def _pax(nan_from: int | None = None, steps: int = 2000) -> list[str]:
    lines = []
    for step in range(99, steps, 100):  # step_i % summary_every_n_steps == n - 1
        loss = "nan" if nan_from and step >= nan_from else f"{_loss(step, 800):.6f}"
        lines += [f"I1206 08:00:00.123456 139872 trainer_lib.py:907] step_i: {step}, training "
                  f"loss: {loss}",
                  f"I1206 08:00:00.123456 139872 trainer_lib.py:908] metrics: {{'loss': "
                  f"({loss}, 1.0), 'fraction_of_correct_next_step_preds': (0.5, 1.0)}}"]
    return lines



# --- MXNet Speedometer ---------------------------------------------------------------------
def _mxnet(nan_from: int | None = None, epochs: int = 3, batches: int = 500) -> list[str]:
    """Module.fit's Speedometer every 50 batches (epochs from 0), the epoch's summary."""
    lines = ["INFO:root:start with arguments Namespace(batch_size=128, num_epochs=3)"]
    for epoch in range(epochs):
        for batch in range(50, batches + 1, 50):
            step = epoch * batches + batch
            loss = "nan" if nan_from and step >= nan_from else f"{_loss(step, 800):.6f}"
            lines.append(f"INFO:root:Epoch[{epoch}] Batch [{batch - 50}-{batch}]\tSpeed: "
                         f"1234.56 samples/sec\taccuracy=0.{batch % 90 + 10}0000\t"
                         f"cross-entropy={loss}")
        lines += [f"INFO:root:Epoch[{epoch}] Train-accuracy=0.512345",
                  f"INFO:root:Epoch[{epoch}] Train-cross-entropy={loss}",
                  f"INFO:root:Epoch[{epoch}] Time cost=45.678",
                  f"INFO:root:Epoch[{epoch}] Validation-accuracy=0.612345"]
    return lines



# --- MindSpore -------------------------------------------------------------------------------
def _loss_monitor(nan_from: int | None = None, epochs: int = 3, batches: int = 100,
                  every: int = 1) -> list[str]:
    """LossMonitor(per_print_times=every) and TimeMonitor; a NaN raises before it is
    printed. Every ``every`` steps of the run: the count of the epoch's batches it prints does
    not start at the interval in every epoch (1875 batches, every 100: 1800, then 25)."""
    lines, printed = [], 0
    for epoch in range(1, epochs + 1):
        for batch in range(1, batches + 1):
            step = (epoch - 1) * batches + batch
            if nan_from and step >= nan_from:
                return [*lines, "Traceback (most recent call last):",
                        f"ValueError: epoch: {epoch} step: {batch}. Invalid loss, terminating "
                        "training."]
            if step - printed >= every:
                printed = step
                lines.append(f"epoch: {epoch} step: {batch}, loss is {_loss(step):.7f}")
        lines.append("epoch time: 12345.678 ms, per step time: 123.457 ms")
    return lines



def _net_outputs(overflow_from: int | None = None, steps: int = 300) -> list[str]:
    """The model zoo's LossCallBack over a loss-scaled cell: a sawtooth (overflows at 20 and
    21, none after; the scale window is 1000 steps), or a cascade of overflows from
    ``overflow_from`` with the loss still finite."""
    overflows = [step in (20, 21) or (overflow_from is not None and step >= overflow_from)
                 for step in range(steps + 1)]
    halvings = [sum(overflows[:step + 1]) for step in range(steps + 1)]
    tensor = "Tensor(shape=[{}], dtype={}, value= {})"
    return [f"epoch: {1 + (step - 1) // 100}, step: {step}, outputs are ("
            + ", ".join((tensor.format(1, "Float32", f"[ {_loss(step):.8e}]"),
                         tensor.format("", "Bool", overflows[step]),
                         tensor.format("", "Float32", 65536.0 / 2 ** halvings[step]))) + ")"
            for step in range(1, steps + 1)]



# --- DGL GraphSAGE, PaddleSeg ---------------------------------------------------------------
def _graphsage(nan_from: int | None = None, epochs: int = 3, batches: int = 100) -> list[str]:
    """Every 20 batches of 100 (counted from 0, epochs from 0), the epoch's time and
    evaluation."""
    lines = []
    for epoch in range(epochs):
        for batch in range(0, batches, 20):
            step = epoch * batches + batch
            loss = "nan" if nan_from and step >= nan_from else f"{_loss(step):.4f}"
            lines.append(f"Epoch {epoch:05d} | Step {batch:05d} | Loss {loss} | Train Acc "
                         "0.5123 | Speed (samples/sec) 12345.6789 | GPU 1234.5 MB")
        lines += ["Epoch Time(s): 12.3456", "Eval Acc 0.8123"]
    return lines



def _gluoncv_yolo(nan_from: int | None = None, epochs: int = 3, batches: int = 1000) -> list[str]:
    lines = []
    for epoch in range(epochs):
        for i in range(99, batches, 100):
            step = epoch * batches + i  # the batch's index from the run's start
            loss = "nan" if nan_from and step >= nan_from else f"{_loss(step, 900):.3f}"
            lines.append(f"INFO:root:[Epoch {epoch}][Batch {i}], LR: 1.00E-03, Speed: 12.345 "
                         f"samples/sec, ObjLoss={loss}, BoxCenterLoss={loss}, BoxScaleLoss="
                         f"{loss}, ClassLoss={loss}")
        lines.append(f"INFO:root:[Epoch {epoch}] Training cost: 123.456, ObjLoss={loss}")
    return lines


def _paddleseg(nan_from: int | None = None, iters: int = 1000, per_epoch: int = 300) -> list[str]:
    lines = []
    for it in range(10, iters + 1, 10):
        loss = "nan" if nan_from and it >= nan_from else f"{_loss(it):.4f}"
        lines.append(f"2026-12-06 08:00:00 [INFO]\t[TRAIN] epoch: {(it - 1) // per_epoch + 1}, "
                     f"iter: {it}/{iters}, loss: {loss}, lr: 0.009910, batch_cost: 0.2345, "
                     "reader_cost: 0.01234, ips: 34.1234 samples/sec | ETA 00:10:00")
        if it % 500 == 0:
            lines.append("2026-12-06 08:00:00 [INFO]\t[EVAL] #Images: 500 mIoU: 0.3456 Acc: "
                         "0.8765 Kappa: 0.7654 Dice: 0.4567")
    return lines



# --- TensorFlow check_numerics ------------------------------------------------------------
def test_tensorflow_check_numerics_error(tmp_path: Path) -> None:
    lines = [
        *_estimator()[:-4], "Traceback (most recent call last):",
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Found Inf or NaN global "
        "norm. : Tensor had NaN values",
        "\t [[node VerifyFinite/CheckNumerics (defined at train.py:120) ]]"]
    assert faults(tmp_path, lines) == [("AMP006", 1000)]


def test_tensorflow_graph_rewrite_without_a_gpu(tmp_path: Path) -> None:
    lines = [
        "2026-12-06 08:00:00.123456: W tensorflow/core/grappler/optimizers/auto_mixed_precision"
        ".cc:1981] No (suitable) GPUs detected, skipping auto_mixed_precision graph optimizer",
        *_estimator()]
    assert faults(tmp_path, lines) == [("AMP010", None)]


def test_a_table_cell_before_a_bar_is_no_key() -> None:
    """``|`` between a key and its value (trax), not between a table's cells: Lightning's
    model summary (lightning/pytorch/utilities/model_summary/model_summary.py
    ``_format_summary_table``) prints its loss module's Params in the cell after its Type.
    (A control: the parent did not read it either.)"""
    assert parse_line("1 | loss_fn | CrossEntropyLoss | 0      | train") == []
    assert [e.loss for e in parse_line(
        "Step    100: train WeightedCategoryCrossEntropy |  4.12345678")] == [4.12345678]


def _pangu(overflow_from: int | None = None, steps: int = 300) -> list[str]:
    """One overflow at step 20 (the scale window is 100 steps here), or a cascade."""
    lines, scale = [], 65536.0
    for step in range(1, steps + 1):
        overflow = step == 20 or (overflow_from is not None and step >= overflow_from)
        scale = scale / 2 if overflow else scale * 2 if step % 100 == 0 else scale
        lines.append(f"time: 2026-12-06 08:00:{step % 60:02d} local_rank: 0, epoch: 0, step: "
                     f"{step}, loss is {_loss(step, 200):.6f}, overflow is {overflow}, loss "
                     f"scale is {scale}, lr is 0.00010. cost time is 1.2345s")
    return lines


def test_mindspore_overflow_is_true_is_a_skipped_step(tmp_path: Path) -> None:
    result = diagnose_lines(tmp_path, _pangu())
    assert result.faults == [] and result.timeline.skipped == 1
    assert faults(tmp_path, _pangu(150))[:1] == [("AMP003", 150)]


def test_paddle_check_nan_inf_error(tmp_path: Path) -> None:
    lines = ["Epoch 1/2"]
    lines += [f"step {step:3d}/100 - loss: {_loss(step):.4f} - acc: 0.5000 - 12ms/step"
              for step in range(10, 101, 10)]
    lines += ["Epoch 2/2", "step  10/100 - loss: 1.2345 - acc: 0.5000 - 12ms/step",
              "Traceback (most recent call last):",
              "RuntimeError: (PreconditionNotMet) There are NAN or INF (num_nan=12, num_inf=0, "
              "num_zero=0) in [device=gpu:0, op=matmul_v2, tensor=linear_3.tmp_0, dtype=fp16].",
              "  [Hint: Expected false == true, but received false:0 != true:1.] (at "
              "/paddle/paddle/phi/kernels/funcs/check_numerics_utils.h:412)"]
    assert faults(tmp_path, lines) == [("AMP006", 110)]


# --- TensorFlow mixed precision guide, MindCV, PaddlePaddle fluid -----------------------------
def _tf_guide(nan_from: int | None = None, epochs: int = 5) -> list[str]:
    losses = [NAN if nan_from is not None and epoch >= nan_from else _loss(epoch, 3)
              for epoch in range(epochs)]
    return [f"Epoch {epoch}: loss={loss}, test accuracy={0.9 + epoch / 100}"
            for epoch, loss in enumerate(losses)]


def _mindcv(nan_from: int | None = None, epochs: int = 3, batches: int = 1000) -> list[str]:
    lines = []
    for epoch in range(1, epochs + 1):
        for batch in range(100, batches + 1, 100):
            step = (epoch - 1) * batches + batch
            loss = "nan" if nan_from and step >= nan_from else f"{_loss(step, 900):.6f}"
            lines.append(f"[2026-12-06 08:00:00] mindcv.utils.callbacks INFO - Epoch: [{epoch}/90]"
                         f", batch: [{batch}/{batches}], loss: {loss}, lr: 0.100000, time: "
                         "12.345678s")
        lines.append("[2026-12-06 08:00:00] mindcv.utils.callbacks INFO - Validation Top_1_"
                     "Accuracy: 50.0000%, Top_5_Accuracy: 80.0000%, time: 12.345678s")
    return lines


def _fluid(nan_from: int | None = None, passes: int = 3, batches: int = 500) -> list[str]:
    lines = []
    for pass_id in range(passes):
        for batch in range(0, batches, 100):
            step = pass_id * batches + batch
            cost = "nan" if nan_from and step >= nan_from else f"{_loss(step, 900):.6f}"
            lines.append(f"Pass {pass_id}, Batch {batch}, Cost {cost}")
        lines.append(f"Test with Pass {pass_id}, Loss 0.5, Acc 0.9")
    return lines


# --- TF Object Detection API (TF2), trax ------------------------------------------------------
def _od_api(nan_from: int | None = None, steps: int = 2000, *, absl: bool) -> list[str]:
    """Every 100 steps; ``absl``: absl's prefix, else tf.compat.v1.logging's."""
    lines = []
    for step in range(100, steps + 1, 100):
        loss = NAN if nan_from and step >= nan_from else _loss(step, 800)
        rows = [f"'Loss/classification_loss': {loss * 0.5}", f"'Loss/localization_loss': "
                f"{loss * 0.3}", "'Loss/regularization_loss': 0.1",
                f"'Loss/total_loss': {loss}", "'learning_rate': 0.01"]
        prefix = ("I1206 08:00:00.123456 139872 model_lib_v2.py:{}] " if absl
                  else "INFO:tensorflow:")
        lines += [prefix.format(705) + f"Step {step} per-step time 0.123s",
                  prefix.format(708) + "{" + ",\n ".join(rows) + "}"]
    return "\n".join(lines).split("\n")


def _trax(nan_from: int | None = None, steps: int = 2000) -> list[str]:
    lines = []
    for step in range(100, steps + 1, 100):
        loss = NAN if nan_from and step >= nan_from else _loss(step, 800)
        lines += [f"Step {step:6d}: Ran 100 train steps in 12.34 secs",
                  f"Step {step:6d}: train WeightedCategoryCrossEntropy | {loss: .8f}",
                  f"Step {step:6d}: eval  WeightedCategoryCrossEntropy | {loss: .8f}",
                  f"Step {step:6d}: eval      WeightedCategoryAccuracy |  0.12345678", ""]
    return lines


def _chainer_log(nan_from: int | None = None, epochs: int = 10) -> list[str]:
    records = [{"main/loss": NAN if nan_from and epoch >= nan_from else _loss(epoch, 5),
                "main/accuracy": 0.9, "validation/main/loss": _loss(epoch, 5),
                "validation/main/accuracy": 0.91, "epoch": epoch, "iteration": epoch * 600,
                "elapsed_time": epoch * 5.87} for epoch in range(1, epochs + 1)]
    return json.dumps(records, indent=4).split("\n")


# Each excerpt with its fault, and the first diagnoses it must give; the same excerpt without
# the fault is the control (quiet; on the parent commit, a control that was read at all was
# quiet too, the others were "nothing to diagnose").
Build = Callable[[int | None], list[str]]
_CASES: dict[str, tuple[Build, int, list[tuple[str, int]]]] = {
    "Estimator: the evaluation's dict": (_estimator, 1000, [("AMP013", 1000)]),
    "orbit: numpy scalars on one line": (
        lambda at: _orbit(at, multi=False), 3000, [("AMP006", 3000)]),
    "orbit: a dict over the lines below its step": (
        lambda at: _orbit(at, multi=True), 3000, [("AMP006", 3000)]),
    "EasyLM: pprinted Arrays, the step last": (_easylm, 1000, [("AMP006", 1000)]),
    "Paxml: step_i": (_pax, 1099, [("AMP006", 1099)]),
    "MXNet Speedometer: the batches of the epoch": (_mxnet, 700, [("AMP006", 700)]),
    "MindSpore LossMonitor: the batches of the epoch": (_loss_monitor, 150, [("AMP006", 150)]),
    "MindSpore LossMonitor every 100 of 1875 batches": (
        lambda at: _loss_monitor(at, batches=1875, every=100), 4800, [("AMP006", 4800)]),
    "MindSpore: unnamed (loss, overflow, scale)": (
        _net_outputs, 150, [("AMP003", 150), ("AMP004", 164)]),
    "DGL GraphSAGE: counted from 0 every 20 batches": (_graphsage, 140, [("AMP006", 140)]),
    "PaddleSeg: the run's iterations beside the epoch": (_paddleseg, 600, [("AMP006", 600)]),
    "TF guide: a test accuracy after the loss": (_tf_guide, 2, [("AMP006", 2)]),
    "MindCV: Epoch: [E/N], batch: [b/n]": (_mindcv, 1300, [("AMP006", 1300)]),
    "PaddlePaddle fluid: Pass, Batch": (_fluid, 700, [("AMP006", 700)]),
    "Object Detection API: its step over its dict (tf.logging)": (
        lambda at: _od_api(at, absl=False), 1000, [("AMP006", 1000)]),
    "Object Detection API: its step over its dict (absl)": (
        lambda at: _od_api(at, absl=True), 1000, [("AMP006", 1000)]),
    "trax: the key before |": (_trax, 1000, [("AMP006", 1000), ("AMP013", 1000)]),
    "Chainer LogReport: JSON records, the iteration after the loss": (
        _chainer_log, 5, [("AMP006", 3000)]),
    "EasyLM: the first record, from its loss row": (_easylm, 0, [("AMP006", 0)]),
    "GluonCV: [Epoch E][Batch i], i from 0 at (i + 1) % 100 == 0": (
        _gluoncv_yolo, 1299, [("AMP006", 1299)]),
}


@pytest.mark.parametrize("name", list(_CASES))
def test_the_fault_at_its_step_and_the_control_quiet(tmp_path: Path, name: str) -> None:
    build, at, expected = _CASES[name]
    assert faults(tmp_path, build(at)) == expected
    _quiet(tmp_path, build(None))
