"""The message table audited against more tools' own source, with their history: the rows it
lacked, each on the line as the tool prints it (its logger's prefix, its exception's form)
inside an excerpt built from the tool's format strings, beside healthy controls that use
settings other than the defaults.

Read for the audit: NVIDIA/apex's whole history (``git log -S`` and ``git grep`` on 1 commit in
15 of ``apex/amp``, ``apex/fp16_utils``, ``apex/optimizers``, ``apex/contrib/optimizers``,
2018-04 to 2026-07); hpcaitech/ColossalAI's tags v0.1.0-v0.5.1 (``git grep`` per tag);
apache/mxnet's tags 1.5.0-2.0 (``python/mxnet/contrib/amp/``, ``python/mxnet/amp/``); open-
mmlab/mmcv's v1.0.0-v2.0.0 (``mmcv/runner``); microsoft/DeepSpeed's v0.3.0-v0.8.0; pytorch/
xla's ``torch_xla/amp`` history; horovod/horovod, google/flax and OneFlow at HEAD;
PaddlePaddle's ``nan_inf_utils_detail.cc``/``.cu`` and ``operator.cc`` at several points of its
history, PaddleNLP's trainer, onnxruntime's ``orttraining/.../amp/loss_scaler.py``,
NVIDIA/NeMo's tags v0.8.1-v1.23.0 (its 0.x ``Loss is NaN or inf`` wordings were rows already),
google-deepmind's jmp and optax at HEAD, mindspore-lab/mindformers' ``MFLossMonitor`` and
mindcv's ``trainer_factory.py`` (search index: the Paddle and MindSpore repositories are too
large to fetch here).

Added (each fault test failed on the parent commit 20e3164, where the doctor said nothing):
PaddlePaddle's older ``FLAGS_check_nan_inf`` wordings (2.0-2.4's ``There are `nan` or `inf` in
tensor (...) of operator (...).``, 1.7-2.4's ``===ERROR: in ... find nan or inf===``, 1.x's
``Operator ... output Tensor ... contains NAN/Inf``, 2.1-2.4's NPU ``Operator ... contains
Nan/Inf.``), its scaler's ``The incr_ratio must be > 1.0.``/``The decr_ratio must be < 1.0.``
and 2.0's ``Auto Mixed Precision can only be enabled with Paddle compiled with CUDA.``;
ColossalAI 0.1-0.5's ``found inf during ShardedOptimV2 step`` (a skipped step);
MXNet 1.5-2.0's ``AMP: increasing loss scale to ...`` (a growth; its ``decreasing`` line was
read already, by the overflow sentences, and is now a row too); mindcv's refusal of an
overflow-dropping loss scale on CPU; TensorFlow 1.15-2.x's refusal of its fp16 graph rewrite
after a Keras mixed policy (both wordings); ONNX Runtime training's refusal of an integer loss
scale (its ``DynamicLossScaler`` prints nothing else); fla-org/flame's ``Skipping optimizer step -
detected invalid gradient norm: nan`` (a skipped step; was read only as a metric row, a NaN
gradient norm, which counts where the rows print one: not beside torchtitan's lines before
2025-07).

Already read, no row added: apex's every overflow wording (2018-2025: ``OVERFLOW! Skipping
step[.,] ...``, ``OVERFLOW within closure! ...``, ``Gradient overflow. Skipping step, ...``,
``Grad overflow on iteration``, ``Using dynamic/static loss scale of``), ``Cannot use fp16
without CUDA.``; mmcv 1.x's ``Check overflow, downscale loss scale to``; PaddleNLP's ``optimizer
not run, scale_before: ..., scale_after: ...``; Paddle's ``Found inf or nan, current scale is:
...`` at any ``decr_ratio``; mindformers' ``MFLossMonitor`` rows (``overflow cond: True,
loss_scale: ...``, read as metric rows: a cascade is AMP003). NeMo 1.20-1.23's ``ctc_loss is not
finite`` drops that batch's loss term (short audio), and its ``Dropping %d batches because of
overflow`` is a data shard's: neither is a numerics fault.

Left out, with why: Horovod, flax's ``DynamicScale`` and optax print nothing about scaling or
overflow (Horovod's one ``Loss Scale: {}`` is its MNIST example's metric column, which the
metric reader reads), jmp only ``Expected floating type for loss_scale, got {dtype}`` (jax
promotes the scale's arithmetic to float: no fault by itself); Paddle 2.4's GPU ``===[PRECISION]
[ERROR] in ..., find_nan= ..., find_inf=...`` is printed without stopping where
``check_nan_inf_level`` is above 0, also on the overflowed steps a scaler handles; apex's
``Warning: multi_tensor_applier fused downscale kernel is unavailable`` is printed by healthy
runs (a slower path, no fault); mindcv's ``Loss scale cannot be less than 1.0!`` and
``DynamicLossScale ALWAYS drop overflow!``, and TensorFlow 1.14-2.x grappler's ``Converted
{n}/{m} nodes to float16 precision using {k} cast(s) to float16 (excluding Const and Variable
casts)`` (the fp16 graph rewrite ran: a setup fact) hold no prefilter keyword; torch_xla
2.1-2.9's ``Warning: AMP only supported for XLA:TPU[ and XLA:GPU]. Ignoring autocast.`` is
printed whatever dtype autocast asks (bfloat16 by default on TPU) and those runs print no other
line that shows fp16 (its ``In XLA:TPU autocast, but the target dtype is not supported.
Disabling autocast.`` was read); ColossalAI's ``verbose`` scaler lines were in the table. Also
read, nothing to add: DeepSpeed's tags v0.3.0-v0.8.0 (every overflow and loss-scale wording is
the DeepSpeed family parser's), Oneflow-Inc/oneflow's ``python/oneflow/amp`` at HEAD (no
message). Not read here (left to the next audit): ONNX Runtime's ORTModule optimizers,
TensorFlow 1.14-2.3's ``training/experimental/loss_scale*.py``, the MindSpore and Paddle
repositories' tags (too large to fetch; read through the search index at one version).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults
from test_detect_formats import _ppdet
from test_messages_audit import _traceback
from test_trainers_formats import _falling, _titan

from denpex_callbacks.logs.events import GROWTH
from denpex_callbacks.logs.parsers import parse_line

# --- PaddlePaddle: FLAGS_check_nan_inf's older wordings ------------------------------------


def _paddle_nan_inf(last: list[str]) -> list[str]:
    """A PaddleDetection run (test_detect_formats' ``_ppdet``: its LogPrinter, here every 50
    iterations, not the default 20) stopped by ``FLAGS_check_nan_inf=1`` in iteration 400's
    forward: PaddlePaddle ``paddle/fluid/framework/details/nan_inf_utils_detail.cc``
    (``PrintNanInf``: ``printf("numel:%lu index:%lu value:%f\\n", ...)`` for the first
    values, ``"In cpu, there has %lu,%lu,%lu nan,inf,num. And in num, min_value is %f,
    max_value is %f\\n"``), then the traceback and ``last``, the exception's lines."""
    lines = _ppdet(epochs=range(1), log_iter=50, upto=400)
    lines += [f"numel:4096 index:{i} value:nan" for i in range(3)]
    lines.append("In cpu, there has 12,0,4084 nan,inf,num. And in num, min_value is -3.402100, "
                 "max_value is 4.187500")
    return [*lines, *_traceback("trainer.train(validate=FLAGS.eval)",
                                [("/x/ppdet/engine/trainer.py", 527, "train",
                                  "outputs = model(data)")], last[0]), *last[1:]]


def test_paddle_2_x_check_nan_inf_stops_the_run(tmp_path: Path) -> None:
    """PaddlePaddle 2.0-2.4 ``nan_inf_utils_detail.cc`` (``PADDLE_THROW(platform::errors::
    PreconditionNotMet("There are `nan` or `inf` in tensor (%s) of operator (%s).", var_name,
    op_type))``), as Python raises it (``(PreconditionNotMet) ...``, then enforce's ``(at
    file:line)``), and as 2.0's ``ErrorSummary::ToString`` writes it (``{error_name}: ...``)."""
    lines = _paddle_nan_inf([
        "RuntimeError: (PreconditionNotMet) There are `nan` or `inf` in tensor (conv2d_53.tmp_0)"
        " of operator (conv2d).",
        "  [operator < conv2d > error]"])
    # (the exception prints no iteration: the run stopped after the last one logged)
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]
    summary = _paddle_nan_inf(["PreconditionNotMetError: There are `nan` or `inf` in tensor "
                               "(conv2d_53.tmp_0) of operator (conv2d). (at /paddle/paddle/"
                               "fluid/framework/details/nan_inf_utils_detail.cc:106)"])
    assert [code for code, _ in faults(tmp_path, summary)] == ["AMP006"]


def test_paddle_1_x_check_nan_inf_stops_the_run(tmp_path: Path) -> None:
    """PaddlePaddle 1.7-2.4 ``nan_inf_utils_detail.cc``/``.cu`` (``CheckNanInf``:
    ``PADDLE_ENFORCE(..., "===ERROR: in [op=%s] [tensor=%s] find nan or inf===", ...)``), and
    the check before it, ``paddle/fluid/framework/operator.cc`` (``CheckTensorNANOrInf``:
    ``"Operator %s output Tensor %s contains NAN"``, ``... contains Inf``; the XPU path's
    ``errors::Fatal`` to 2.4) and 2.1-2.4's NPU ``"Operator %s contains Nan/Inf."``."""
    for last in ("===ERROR: in [op=elementwise_add] [tensor=fc_0.tmp_1] find nan or inf===",
                 "FatalError: Operator elementwise_add output Tensor fc_0.tmp_1 contains NAN.",
                 "SystemError: (Fatal) Operator matmul_v2 output Tensor linear_3.tmp_0 contains "
                 "Inf.",
                 "RuntimeError: (PreconditionNotMet) Operator conv2d contains Nan/Inf."):
        assert [code for code, _ in faults(tmp_path, _paddle_nan_inf([last]))] == ["AMP006"], last


def test_paddle_check_nan_inf_healthy_run_is_silent(tmp_path: Path) -> None:
    """Control: the same run, healthy, with ``FLAGS_check_tensor_max_min=1`` (not the default
    0): 2.4's ``nan_inf_utils_detail.cu`` (``FindGlobalMaxMinAndPrint``: ``printf("[PRECISION]
    in %s, numel=%ld, max=%e, min=%e, mean=%e\\n", ...)``) for each op's output, beside the
    log; and the names the checks print (``op=``, ``tensor=``) in a line of the run's own."""
    lines = _ppdet(epochs=range(1), log_iter=50, upto=400)
    stats = [f"[PRECISION] in [op=conv2d] [tensor=conv2d_{i}.tmp_0] [dtype=float16], numel="
             f"{4096 * (i + 1)}, max=4.187500e+00, min=-3.402100e+00, mean=1.250000e-02"
             for i in range(8)]
    mixed = [line for pair in zip(lines, stats * 2, strict=False) for line in pair]
    assert faults(tmp_path, [*mixed, *lines[len(stats) * 2:]]) == []


def test_paddle_scaler_ratios_refused(tmp_path: Path) -> None:
    """PaddlePaddle 2.0-3.x ``python/paddle/amp/grad_scaler.py`` (``AmpScaler.__init__``:
    ``assert incr_ratio > 1.0, "The incr_ratio must be > 1.0."``, ``assert decr_ratio < 1.0,
    "The decr_ratio must be < 1.0."``; ``paddle/fluid/dygraph/amp/loss_scaler.py`` before):
    ``GradScaler(incr_ratio=0.5, decr_ratio=2.0)``, the two swapped, and each alone."""
    for name, bound in (("incr", "> 1.0"), ("decr", "< 1.0")):
        lines = _traceback("scaler = paddle.amp.GradScaler(init_loss_scaling=1024, "
                           "incr_ratio=0.5, decr_ratio=2.0)",
                           [("/x/paddle/amp/grad_scaler.py", 129, "__init__",
                             f'assert {name}_ratio {bound}, "The {name}_ratio must be {bound}."')],
                           f"AssertionError: The {name}_ratio must be {bound}.")
        assert faults(tmp_path, lines) == [("AMP002", None)], name


def test_paddle_cpu_build_switches_the_scaler_off(tmp_path: Path) -> None:
    """PaddlePaddle 2.0 ``paddle/fluid/dygraph/amp/loss_scaler.py`` (``AmpScaler.__init__``:
    ``warnings.warn('Auto Mixed Precision can only be enabled with Paddle compiled with
    CUDA.')``, then ``self._enable = False``), through Python's warnings (``{file}:{line}:
    UserWarning: {message}``), before a PaddleDetection run asked for ``--amp``."""
    lines = ["/x/paddle/fluid/dygraph/amp/loss_scaler.py:91: UserWarning: Auto Mixed Precision "
             "can only be enabled with Paddle compiled with CUDA.",
             "  warnings.warn(", *_ppdet(epochs=range(1), log_iter=50, upto=400)]
    assert faults(tmp_path, lines) == [("AMP010", None)]


# --- ColossalAI 0.1-0.5: ShardedOptimizerV2's overflow ------------------------------------------
_COLOSSAL = "colossalai - {name} - {level}: "  # colossalai/logging/logger.py, without rich


def _colossal(name: str, level: str, message: str, where: str) -> list[str]:
    """``DistributedLogger``'s two lines a call: ``"{}:{} {}".format(file, line, function)``,
    then the message, each behind ``colossalai - %(name)s - %(levelname)s: ``."""
    prefix = _COLOSSAL.format(name=name, level=level)
    return [prefix + where, prefix + message]


def _colossal_epochs(epochs: int) -> list[str]:
    """The trainer's ``LogMetricByEpochHook`` (colossalai/trainer/hooks/_log_hook.py:
    ``f'[Epoch {trainer.cur_epoch} / Train]: {msg}'``, the metrics ``' | '``-joined, each
    ``f'{metric_name} = {_format_number(value)}'`` at ``.5g``), train and test, every epoch."""
    lines: list[str] = []
    for epoch in range(epochs):
        for mode, loss in (("Train", 4.2 - epoch * 0.3), ("Test", 4.0 - epoch * 0.25)):
            metrics = f"Loss = {loss:.5g} | LR = {1e-3:.5g}" if mode == "Train" else (
                f"Loss = {loss:.5g} | Accuracy = {0.2 + epoch * 0.05:.5g}")
            lines += _colossal("colossalai", "INFO", f"[Epoch {epoch} / {mode}]: {metrics}",
                               "/x/colossalai/trainer/hooks/_log_hook.py:97 after_train_epoch")
    return lines


_FOUND_INF = ("ShardedOptimizerV2", "WARNING", "found inf during ShardedOptimV2 step",
              "/x/colossalai/zero/sharded_optim/sharded_optim_v2.py:197 step")


def test_colossalai_sharded_optimizer_overflow_cascade(tmp_path: Path) -> None:
    """hpcaitech/ColossalAI 0.1.5-0.5 ``colossalai/[legacy/]zero/sharded_optim/
    sharded_optim_v2.py`` (``ShardedOptimizerV2.step``: ``self._logger.warning('found inf
    during ShardedOptimV2 step')``, then ``_zero_grad`` and return: the step is skipped; its
    scaler backs off silently): every step of epoch 6 after five finite epochs."""
    lines = [*_colossal_epochs(6), *[line for _ in range(12) for line in _colossal(*_FOUND_INF)]]
    # (no step printed: the sixth row, epoch 5's, is the last the cascade follows)
    assert faults(tmp_path, lines) == [("AMP003", 6)]


def test_colossalai_sharded_optimizer_settling_is_silent(tmp_path: Path) -> None:
    """Control: ``initial_scale=2**16`` (not the default 2**32): two overflows while the scale
    settles at start, then six healthy epochs."""
    lines = [*[line for _ in range(2) for line in _colossal(*_FOUND_INF)], *_colossal_epochs(6)]
    assert faults(tmp_path, lines) == []


# --- MXNet 1.5-2.0: its AMP's loss scaler ---------------------------------------------------


def _speedometer(batches: range, nan_after: int | None = None) -> list[str]:
    """apache/mxnet ``python/mxnet/callback.py`` (``Speedometer``: ``'Epoch[%d] Batch
    [%d-%d]\\tSpeed: %.2f samples/sec' + '\\t%s=%f'`` per metric) through the root logger's
    ``logging.basicConfig`` format (``%(levelname)s:%(name)s:%(message)s``), every 100
    batches (``frequent=100``, not 50)."""
    return [f"INFO:root:Epoch[0] Batch [{b - 100}-{b}]\tSpeed: 812.50 samples/sec\t"
            f"cross-entropy={'nan' if nan_after and b > nan_after else f'{6.9 - b / 2000:f}'}"
            for b in batches]


def _mxnet_amp(verb: str, scale: float) -> str:
    """``python/mxnet/contrib/amp/loss_scaler.py`` (``LossScaler.has_overflow``:
    ``logging.info("AMP: decreasing loss scale to %f", ...)``, ``"AMP: increasing loss scale
    to %f"`` after 2000 clean steps)."""
    return f"INFO:root:AMP: {verb} loss scale to {scale:f}"


def test_mxnet_amp_growth_is_a_scale_growth() -> None:
    """The growth line is read as the scaler's growth, with the new scale."""
    events = [e for e in parse_line(_mxnet_amp("increasing", 131072.0)) if e.kind == GROWTH]
    assert [e.scale_after for e in events] == [131072.0]


def test_mxnet_amp_sawtooth_is_silent(tmp_path: Path) -> None:
    """Control: a long healthy run's sawtooth (an overflow, 2000 clean steps, a growth back),
    at 2**17, the scale having grown once past its 2**16 start (a resumed run)."""
    lines: list[str] = []
    for cycle in range(8):
        lines.append(_mxnet_amp("decreasing", 65536.0))
        lines += _speedometer(range(cycle * 2000 + 100, cycle * 2000 + 2001, 100))
        lines.append(_mxnet_amp("increasing", 131072.0))
    assert faults(tmp_path, lines) == []


# --- mindcv: a dynamic loss scale refused on CPU ---------------------------------------------


def test_mindcv_overflow_dropping_scale_refused_on_cpu(tmp_path: Path) -> None:
    """mindspore-lab/mindcv ``mindcv/utils/trainer_factory.py`` (``create_trainer``, the
    customised train step: ``raise ValueError("Only `loss_scale_type` is `fixed` and
    `drop_overflow_update` is `False`" "are supported on device `CPU`.")``, the two strings
    joined without a blank): ``--loss_scale_type dynamic --ema True`` on CPU."""
    lines = _traceback("trainer = create_trainer(network, loss, optimizer, metrics, ...)",
                       [("/x/mindcv/utils/trainer_factory.py", 203, "create_trainer",
                         "raise ValueError(")],
                       "ValueError: Only `loss_scale_type` is `fixed` and `drop_overflow_update`"
                       " is `False`are supported on device `CPU`.")
    assert faults(tmp_path, lines) == [("AMP010", None)]


# --- TensorFlow 1.15-2.x: both mixed precision APIs at once ------------------------------------


def test_tensorflow_graph_rewrite_after_a_keras_policy_refused(tmp_path: Path) -> None:
    """tensorflow ``python/training/experimental/mixed_precision.py``
    (``_enable_mixed_precision_graph_rewrite_base``: ``raise ValueError('The mixed precision
    graph rewrite cannot be enabled, because the ' 'global Keras dtype Policy has been set to
    a mixed precision policy. ' 'At most, one of the following can be called:\\n\\n' ...)``;
    earlier ``because a keras ' 'mixed precision Policy has been set.``): ``set_global_policy(
    'mixed_float16')`` and then the graph rewrite, in one script."""
    call = "opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)"
    frames = [("/x/tensorflow/python/training/experimental/mixed_precision.py", 269,
               "_enable_mixed_precision_graph_rewrite_base", "raise ValueError(")]
    for because in ("the global Keras dtype Policy has been set to a mixed precision policy. "
                    "At most, one of the following can be called:",
                    "a keras mixed precision Policy has been set. At most, one of the following "
                    "functions can be called:"):
        lines = [*_traceback(call, frames, "ValueError: The mixed precision graph rewrite cannot "
                             f"be enabled, because {because}"),
                 "", "  1. tf.keras.mixed_precision.set_global_policy() with a mixed precision "
                 "policy (You called this first)", "",
                 "  2. tf.train.experimental.enable_mixed_precision_graph_rewrite() (You called "
                 "this second)"]
        assert faults(tmp_path, lines) == [("AMP002", None)], because


def test_tensorflow_keras_policy_alone_is_silent(tmp_path: Path) -> None:
    """Control: the Keras policy alone, as the refusal asks (``mixed_float16``, the compat
    check's ``INFO:tensorflow:`` line), then ``fit``'s Progbar lines at ``verbose=2`` (one a
    epoch: ``'%d/%d - %ds - loss: %.4f'`` ... in keras ``utils/generic_utils.py``), 8 epochs
    with validation (not the default none)."""
    lines = ["INFO:tensorflow:Mixed precision compatibility check (mixed_float16): OK"]
    for epoch in range(1, 9):
        lines += [f"Epoch {epoch}/8",
                  f"469/469 - 3s - loss: {0.5 / epoch:.4f} - accuracy: {0.9 + epoch / 100:.4f} - "
                  f"val_loss: {0.4 / epoch:.4f} - val_accuracy: {0.91 + epoch / 100:.4f}"]
    assert faults(tmp_path, lines) == []


# --- ONNX Runtime training: its loss scaler's argument check ----------------------------------


def test_onnxruntime_integer_loss_scale_refused(tmp_path: Path) -> None:
    """microsoft/onnxruntime ``orttraining/orttraining/python/training/amp/loss_scaler.py``
    (``LossScaler.loss_scale``'s setter: ``assert isinstance(loss_scale, float) and loss_scale
    > 0, "'loss_scale' must be a positive float"``): ``amp.DynamicLossScaler(loss_scale=1 <<
    12)``, an int: the constructor keeps it, the first growth (``min(self.max_loss_scale,
    self.loss_scale * 2)`` after 2000 clean steps: an int again) or ``reset()`` refuses it."""
    lines = _traceback("trainer.train_step(*batch)",
                       [("/x/onnxruntime/training/amp/loss_scaler.py", 93, "update",
                         "self.loss_scale = min(self.max_loss_scale, self.loss_scale * 2)"),
                        ("/x/onnxruntime/training/amp/loss_scaler.py", 34, "loss_scale",
                         'assert isinstance(loss_scale, float) and loss_scale > 0, '
                         '"\'loss_scale\' must be a positive float"')],
                       "AssertionError: 'loss_scale' must be a positive float")
    assert faults(tmp_path, lines) == [("AMP002", None)]


# --- flame (fla-org): a non-finite gradient norm skips the step ------------------------------
_FLAME_SKIP = ("[titan] 2026-11-30 10:00:00,000 - root - WARNING - Skipping optimizer step - "
               "detected invalid gradient norm: nan")


def test_flame_skipped_steps_cascade(tmp_path: Path) -> None:
    """fla-org/flame ``flame/train.py`` (``--training.skip_nan_inf``: ``logger.warning(f"Skipping
    optimizer step - detected invalid gradient norm: {grad_norm:.4f}")``, then ``zero_grad``),
    behind torchtitan's logger, after test_trainers_formats' torchtitan metric lines every 20
    steps (``--metrics.log_freq 20``, not 10) as torchtitan printed them from 2025-02 to its
    2025-07 ``grad_norm:`` column (flame's pinned torchtitan of 2025): every step from 161 on
    is skipped. (With the ``grad_norm:`` column the warning was read already, as a row of a
    NaN gradient norm.)"""
    lines = [*_titan(_falling(8, 11.0), 20, era="2025-02"), *[_FLAME_SKIP] * 12]
    assert faults(tmp_path, lines) == [("AMP003", 161)]


def test_flame_one_skipped_step_is_silent(tmp_path: Path) -> None:
    """Control: one skipped step in a healthy run (the option exists for such spikes)."""
    for era in ("2025-02", "2025-07"):
        rows = _titan(_falling(8, 11.0), 20, era=era)
        assert faults(tmp_path, [*rows[:4], _FLAME_SKIP, *rows[4:]]) == [], era
