"""Every message the tools print about loss scaling, overflow, skipped steps, non-finite
values and mixed precision, learnt from their source with its history: the table.

Each row is one message as the tool's source writes it (``{name}`` where the source formats a
value in), the tool and releases that print it, the source file, what it means, and what the
doctor reads from it: an overflow (a skipped step, with the scale before and after where the
message says them), a skipped step without a scale, a scale growth, a flag (a catalog id by
itself), a setup fact, or a monitored metric that is not finite. ``reader`` names the parser
that reads the row: ``table`` (:mod:`~denpex_callbacks.logs.known_messages`, built from these
rows) or a family parser that knew the message before the table (its module holds the
regex; the row documents it and the tests hold the family to it). The docs page
"Messages the doctor knows" is generated from this table, and ``tests/logs/test_messages.py``
renders every row as the tool prints it (the format filled in, behind its logger's prefix)
and checks that the doctor reads it as the row says.

Placeholders: ``{before}`` ``{after}`` ``{scale}`` (a loss scale), ``{log2_after}`` (the new
scale's base-2 logarithm), ``{step}`` ``{rank}`` ``{n}`` (counts; ``{epoch}``: the epoch
whose batches ``{step}`` counts), ``{value}`` ``{norm}`` (numbers, possibly NaN/inf),
``{metric}`` (a metric's key), ``{op}`` ``{tensor}`` (an operator's and a tensor's name, as
Paddle's numerics checks print them), ``{text}`` (anything).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from denpex_callbacks.logs.events import RUN_START

# What a row means to the doctor.
OVERFLOW = "overflow"  # a step skipped by a gradient overflow (scales from the message)
SKIP = "skip"  # a step skipped for non-finite gradients, no scale said
GROWTH = "growth"  # the dynamic scale grew on a clean step
FLAG = "flag"  # a diagnosis by itself (``code``)
SETUP = "setup"  # a configuration fact (``setup``)
MONITORED = "monitored"  # ``{metric} = {value}`` not finite: evaluation's or training's
# (a row without ``{value}``: the message says itself that it is not)

# How the tools' loggers put a message on a line (tests render each row behind its prefix).
PY_LOGGING = "2026-11-30 10:00:00,000 - {logger} - {level} - "
DEEPSPEED = "[2026-11-30 10:00:00,000] [{level}] [{logger}:123:fn] "
FAIRSEQ = "2026-11-30 10:00:00 | {level} | {logger} | "
RANK_ZERO = ""  # print() / rank_zero_warn with the warning's own format


@dataclass(frozen=True)
class Message:
    """One row of the table.

    Attributes:
        tool: The project (``torch``, ``DeepSpeed``...).
        versions: The releases (or dates, for projects without releases) that print it.
        source: The file (and function) that prints or raises it.
        message: The text as the source formats it, ``{name}`` for a value.
        means: What it means, in words.
        event: What the doctor reads: ``overflow``, ``skip``, ``growth``, ``flag``,
            ``setup`` or ``monitored``.
        code: The catalog id of a ``flag``.
        setup: The facts of a ``setup`` row.
        reader: ``table``, or the family parser that reads it.
        logger: The logger's name and level as the tool prints them, for the line's prefix.
        prefix: The prefix format (one of the module's constants).
        values: Plausible values of the placeholders, for the tests and the docs.
        in_step: A ``flag`` the failing step prints before any line of its own (the DETR
            family's ``Loss is nan, stopping training``): where it names no step, its NaN
            loss is the step after the last one read, not that one. A ``skip`` the skipped
            step prints before its own row (hivemind's global step, then its ``Local loss``
            row): that row, printed without a step, is the skipped step's, not the next one;
            said again before it (a local batch's, then the global step's), the same step.
        fp16_shown: A ``flag`` that counts only where the log shows fp16 asked for by other
            lines too (an fp16 setup, a loss scale, an overflow): torch 1.10-2.2's autocast
            warning is printed whatever ``enabled`` says, so alone it may be an fp32 run's.
        no_scaler_shown: A ``flag`` saying the run makes no loss scaler that the tool prints
            whatever it makes: counts only where no other line shows one (a setup's scaler,
            a loss scale). open_clip warns of ``--precision fp16`` under ``--fsdp`` too, whose
            float16 policy makes a GradScaler (its ``FSDP2: MixedPrecisionPolicy`` line).
        metric: The metric a ``monitored`` row's message names in its words, not by a
            ``{metric}`` placeholder, as the tool's own metric lines name it (sockeye's
            "Last checkpoint's perplexity", its ``Validation-perplexity`` lines').
    """

    tool: str
    versions: str
    source: str
    message: str
    means: str
    event: str
    code: str | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    reader: str = "table"
    logger: tuple[str, str] = ("root", "WARNING")
    prefix: str = PY_LOGGING
    values: dict[str, Any] = field(default_factory=dict)
    in_step: bool = False
    fp16_shown: bool = False
    no_scaler_shown: bool = False
    metric: str | None = None


_FP16 = {"active_precision": "fp16-mixed", "scaler": "dynamic"}
_FP32 = {"active_precision": "fp32", "scaler": None}
_BF16 = {"active_precision": "bf16-mixed", "scaler": None}
_FP16_POLICY = {"active_precision": "fp16-mixed"}  # the scaler depends on the loop
_TF_WARNING = "WARNING:tensorflow:"  # tf_logging (absl) on stderr
_NEMO_WARNING = "[NeMo W 2026-11-30 10:00:00 asr_model:142] "
_NEPTUNE = "[neptune] [warning] /home/user/project/train.py:88: NeptuneUnsupportedValue: "
_COMPOSER = "2026-11-30 10:00:00,000: rank0[822018][MainThread]: {level}: {logger}: "
_TORCH_FIX = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier "
              "in the iteration.")

_MARIAN = "[2026-11-30 10:00:00] "  # spdlog's "[%Y-%m-%d %T] %v" (src/common/logging.cpp)
_MMF = "2026-11-30T10:00:00 | {level} | {logger} : "  # mmf/utils/logger.py, plain formatter
_MARIAN_DEV = "master 2021-01..2021-10 (between 1.10 and 1.11)"
_NEMO0 = "nemo/backends/pytorch/actions.py (PtActions.train)"
_PADDLENLP = "[2026-11-30 10:00:00,000] [{level:>8}] - "  # paddlenlp/utils/log.py
# InternLM / InternEvo's handler: "%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s in
# %(funcName)s -- %(message)s" (internlm/utils/logger.py); ``logger`` is "file:line in function"
_INTERNLM = "2026-11-30 10:00:00,000\t{level} {logger} -- "
# VISSL's handler: "%(levelname)s %(asctime)s %(filename)s:%(lineno)4d: %(message)s"
# (vissl/utils/logger.py); ``logger`` is the file's name
_VISSL = "{level} 2026-11-30 10:00:00,000 {logger}: 152: "

# hivemind's handler: "{asctime}.{msecs:03.0f} [{levelname}]{caller_block} {message}", datefmt
# "%b %d %H:%M:%S" (hivemind/utils/logging.py); the caller block ``[name.function:line]`` is
# printed for every level but INFO
_HIVEMIND = "Nov 30 10:00:00.000 [{level}] [{logger}] "
_HIVEMIND_INFO = "Nov 30 10:00:00.000 [{level}] "

_DSCHAT = "2023-07 on (DeepSpeedExamples master, read at 2025-02)"
_DSCHAT_PPO = ("applications/DeepSpeed-Chat/training/step3_rlhf_finetuning/ppo_trainer.py, "
               "dschat/rlhf/ppo_trainer.py from 2023-11 (DeepSpeedPPOTrainer.train_rlhf, "
               "--align_overflow)")

_FAIRSEQ2_HINT = ("Your loss is probably exploding. Try lowering the learning rate, using "
                  "gradient clipping, or increasing the batch size.")

# MONAI's RetinaNet checks (monai/apps/detection/networks/): where, and the words
_MONAI_CHECKS = (
    ("monai/apps/detection/networks/retinanet_network.py (RetinaNetClassificationHead.forward)",
     "cls_logits is NaN or Inf."),
    ("monai/apps/detection/networks/retinanet_network.py (RetinaNetRegressionHead.forward)",
     "box_regression is NaN or Inf."),
    ("monai/apps/detection/networks/retinanet_detector.py (RetinaNetDetector._reshape_maps)",
     "Concatenated result is NaN or Inf."),
    ("monai/apps/detection/networks/retinanet_detector.py (RetinaNetDetector"
     ".get_cls_train_sample_per_image)", "NaN or Inf in predicted classification logits."),
    ("monai/apps/detection/networks/retinanet_detector.py (RetinaNetDetector"
     ".get_box_train_sample_per_image)", "NaN or Inf in predicted box regression."),
)

MESSAGES: tuple[Message, ...] = (
    # -- torch: torch/cuda/amp/grad_scaler.py (1.6-2.2), torch/amp/grad_scaler.py (2.3-2.13) ---
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py, torch/cuda/amp/grad_scaler.py "
            "(GradScaler.__init__)",
            "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
            "the scaler asked for is switched off: the run trains unscaled", FLAG, "AMP010",
            reader="errors", prefix="/x/torch/amp/grad_scaler.py:136: UserWarning: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.step)",
            "step() has already been called since the last update().",
            "scaler.step() twice in one iteration", FLAG, "AMP002", reader="torch",
            prefix="RuntimeError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.unscale_)",
            "unscale_() has already been called on this optimizer since the last update().",
            "scaler.unscale_() twice in one iteration", FLAG, "AMP002", reader="torch",
            prefix="RuntimeError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.unscale_)",
            "unscale_() is being called after step().",
            "scaler.unscale_() after scaler.step()", FLAG, "AMP002", reader="torch",
            prefix="RuntimeError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.step)",
            "No inf checks were recorded for this optimizer.",
            "scaler.step() on an optimizer whose gradients were never scaled", FLAG, "AMP002",
            reader="torch", prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.update)",
            "No inf checks were recorded prior to update.",
            "scaler.update() without a scaler.step() before it", FLAG, "AMP002",
            prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (_check_scale_growth_tracker)",
            "Attempted {text} but _scale is None.  " + _TORCH_FIX,
            "the scaler was used before scaler.scale(loss)", FLAG, "AMP002",
            prefix="AssertionError: ", values={"text": "step"}),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (_check_scale_growth_tracker)",
            "Attempted {text} but _growth_tracker is None.  " + _TORCH_FIX,
            "the scaler was used before scaler.scale(loss)", FLAG, "AMP002",
            prefix="AssertionError: ", values={"text": "update"}),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.step)",
            "Closure use is not currently supported if GradScaler is enabled.",
            "scaler.step(optimizer, closure): not supported by the scaler", FLAG, "AMP002",
            prefix="RuntimeError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler.__getstate__)",
            "A GradScaler instance may only be pickled at the beginning of an iteration, or "
            "at the end after scaler.update().",
            "the scaler was saved mid-iteration (update() not reached)", FLAG, "AMP002",
            prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py, torch/cuda/amp/grad_scaler.py "
            "(GradScaler.__init__; an assert before 2.10, a raise since)",
            "The growth factor must be > 1.0.",
            "GradScaler(growth_factor=...) at 1 or below: the scaler is refused, the run does "
            "not start", FLAG, "AMP002", prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py, torch/cuda/amp/grad_scaler.py "
            "(GradScaler.__init__; an assert before 2.10, a raise since)",
            "The backoff factor must be < 1.0.",
            "GradScaler(backoff_factor=...) at 1 or above: the scaler is refused, the run does "
            "not start", FLAG, "AMP002", prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py (GradScaler._unscale_grads_)",
            "Attempting to unscale FP16 gradients.",
            "the optimizer holds float16 parameters (model.half() under a GradScaler)", FLAG,
            "AMP012", reader="torch", prefix="ValueError: "),
    Message("torch", "1.6-2.2", "torch/cuda/amp/grad_scaler.py (GradScaler.update)",
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor with "
            "requires_grad=False.",
            "scaler.update(new_scale) with a value it cannot take", FLAG, "AMP002",
            prefix="AssertionError: "),
    Message("torch", "2.3-2.13", "torch/amp/grad_scaler.py (GradScaler.update)",
            "new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
            "torch.FloatTensor with requires_grad=False.",
            "scaler.update(new_scale) with a value it cannot take", FLAG, "AMP002",
            prefix="AssertionError: "),
    Message("torch", "1.6-2.13", "torch/amp/grad_scaler.py, torch/cuda/amp/grad_scaler.py "
            "(GradScaler.load_state_dict)",
            "The source state dict is empty, possibly because it was saved from a disabled "
            "instance of GradScaler.",
            "a resume loads the state of a disabled scaler (the saved run trained unscaled) "
            "into an enabled one", FLAG, "AMP002", prefix="RuntimeError: "),
    Message("torch", "1.10-2.2", "torch/autocast_mode.py, torch/amp/autocast_mode.py "
            "(autocast.__init__)",
            "User provided device_type of 'cuda', but CUDA is not available. Disabling",
            "autocast asked for on CUDA is off: the run computes in fp32", FLAG, "AMP010",
            prefix="/x/torch/amp/autocast_mode.py:250: UserWarning: ", fp16_shown=True),
    Message("torch", "1.6-1.9", "torch/cuda/amp/autocast_mode.py (autocast.__init__)",
            "torch.cuda.amp.autocast only affects CUDA ops, but CUDA is not available.  "
            "Disabling.",
            "autocast asked for without a GPU is off: the run computes in fp32", FLAG, "AMP010",
            prefix="/x/torch/cuda/amp/autocast_mode.py:118: UserWarning: "),
    Message("torch", "2.3-2.13", "torch/amp/autocast_mode.py (autocast.__init__)",
            "CUDA is not available or torch_xla is imported. Disabling autocast.",
            "autocast asked for on CUDA is off: the run computes in fp32", FLAG, "AMP010",
            reader="errors", prefix="/x/torch/amp/autocast_mode.py:266: UserWarning: "),
    Message("torch", "1.10-2.13", "torch/amp/autocast_mode.py (autocast.__init__)",
            "In {text} autocast, but the target dtype is not supported. Disabling autocast.",
            "autocast with a dtype the device does not support (fp16 on CPU before torch "
            "2.4): off, the run computes in fp32", FLAG, "AMP010",
            prefix="/x/torch/amp/autocast_mode.py:300: UserWarning: ", values={"text": "CPU"}),
    Message("torch", "1.x-2.13", "torch/csrc/autograd (anomaly mode)",
            "Function '{text}' returned nan values in its {n}th output.",
            "anomaly mode found the first NaN in a backward", FLAG, "AMP006", reader="torch",
            prefix="RuntimeError: ", values={"text": "LogSoftmaxBackward0", "n": 0}),
    Message("torch", "1.9-2.13", "torch/nn/utils/clip_grad.py (clip_grad_norm_, "
            "error_if_nonfinite=True)",
            "The total norm of order {value} for gradients from `parameters` is non-finite, so "
            "it cannot be clipped. To disable this error and scale the gradients by the "
            "non-finite norm anyway, set `error_if_nonfinite=False`",
            "the gradients are NaN/inf and clip_grad_norm_(error_if_nonfinite=True) stopped the "
            "run (under a GradScaler, after unscale_(), such a step is one the scaler would "
            "have skipped)", FLAG, "AMP006", prefix="RuntimeError: ", values={"value": 2.0}),
    # -- torch's float16 dtype errors (AMP014; torch_errors.py reads them, evidence and all) --
    Message("torch", "1.x-2.x", "aten/src/ATen/Dispatch.h (the AT_DISPATCH default case)",
            "\"{text}\" not implemented for 'Half'",
            "an op ran in float16 where it has no float16 kernel: fp16 on the CPU, usually "
            "(model.half(), or fp16 CPU autocast in an older torch)", FLAG, "AMP014",
            reader="torch", prefix="RuntimeError: ", values={"text": "addmm_impl_cpu_"}),
    Message("torch", "2.x-2.13", "aten/src/ATen/Dispatch.h (AT_DISPATCH_DEFAULT: "
            "TORCH_CHECK_NOT_IMPLEMENTED)",
            "\"{text}\" not implemented for 'Half'",
            "an op ran in float16 where it has no float16 kernel (2.13 on CPU: cdist, pdist, "
            "ctc_loss, cholesky...)", FLAG, "AMP014", reader="torch",
            prefix="NotImplementedError: ", values={"text": "ctc_loss_cpu"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/templates/TensorMethods.cpp "
            "(Tensor::data_ptr<T>), aten/src/ATen/native/LinearAlgebra.cpp (bmm, baddbmm)",
            "expected scalar type {text} but found {value}",
            "float16 and float32 tensors in one op outside autocast (a .half() model fed "
            "float32, or the other way round)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ", values={"text": "Half", "value": "Float"}),
    Message("torch", "1.x-2.x (without the dtypes)", "aten/src/ATen/native/LinearAlgebra.cpp "
            "(ADDMM_META)",
            "mat1 and mat2 must have the same dtype",
            "two dtypes in one matrix multiply (nn.Linear): float16 against float32 under "
            "mixed precision, though the message does not say", FLAG, "AMP014",
            reader="torch", prefix="RuntimeError: "),
    Message("torch", "2.x-2.13", "aten/src/ATen/native/LinearAlgebra.cpp (ADDMM_META)",
            "mat1 and mat2 must have the same dtype, but got {text} and {value}",
            "float16 and float32 in one matrix multiply (nn.Linear) outside autocast", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "Half", "value": "Float"}),
    Message("torch", "2.x-2.13", "aten/src/ATen/native/LinearAlgebra.cpp (addmm_impl_cpu_)",
            "expected m1 and m2 to have the same dtype, but got: {text} != {value}",
            "float16 and float32 in one matrix multiply on the CPU (torch.mm, @)", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "c10::Half", "value": "float"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/Convolution.cpp "
            "(check_input_same_type_as_parameters)",
            "Input type ({text}) and weight type ({value}) should be the same",
            "a float16 input to a float32 convolution, or the other way round (also 'bias "
            "type'; 2.13 names c10::Half and float)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ",
            values={"text": "torch.cuda.HalfTensor", "value": "torch.cuda.FloatTensor"}),
    Message("torch", "1.0-1.x", "aten/src/ATen/Half.h, c10/Half.h, c10/util/TypeCast.h "
            "(checked_convert)",
            "value cannot be converted to type at::Half without overflow: {value}",
            "a constant beyond float16's range (65504) written into a float16 tensor: "
            "masked_fill(mask, -1e9) on fp16 scores", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ", values={"value": "-1e+09"}),
    Message("torch", "2.x-2.13", "c10/util/TypeCast.cpp (report_overflow)",
            "value cannot be converted to type c10::Half without overflow",
            "a constant beyond float16's range (65504) written into a float16 tensor (the "
            "value no longer printed)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: "),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/TensorAdvancedIndexing.cpp "
            "(index_put_ / x[idx] = v)",
            "Index put requires the source and destination dtypes match, got {text} for the "
            "destination and {value} for the source.",
            "a float16 value written by index into a float32 tensor, or the other way round "
            "(scores[idx] = v outside autocast)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ", values={"text": "Float", "value": "Half"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/Blas.cpp (dot, vdot)",
            "dot : expected both vectors to have same dtype, but found {text} and {value}",
            "float16 and float32 vectors in one dot product outside autocast", FLAG, "AMP014",
            reader="torch", prefix="RuntimeError: ", values={"text": "Float", "value": "Half"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/Lerp.cpp (lerp_meta)",
            "expected dtype {text} for `end` but got dtype {value}",
            "float16 and float32 in one lerp (an EMA of fp32 weights towards fp16 ones; also "
            "`weight`)", FLAG, "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "float", "value": "c10::Half"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/TensorIterator.cpp (compute_types)",
            "Found dtype {text} but expected {value}",
            "a float16 tensor in a float32 op that does not promote (a loss fed an fp16 "
            "target: binary_cross_entropy)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ", values={"text": "Half", "value": "Float"}),
    Message("torch", "2.x-2.13", "torch/nn/modules/rnn.py (RNNBase.forward)",
            "RNN input dtype ({text}) does not match weight dtype ({value}). Convert input: "
            "input.to({value}), or convert model: model.to({text})",
            "a float16 batch into a float32 LSTM/GRU/RNN outside autocast, or the other way "
            "round", FLAG, "AMP014", reader="torch", prefix="ValueError: ",
            values={"text": "torch.float16", "value": "torch.float32"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/TensorAdvancedIndexing.cpp "
            "(index_add, index_copy)",
            "index_add_(): self ({text}) and source ({value}) must have the same scalar type",
            "float16 and float32 in one index_add_ (also index_copy_'s 'self and source "
            "expected to have the same dtype, but got (self) ... and (source) ...')", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "Float", "value": "Half"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/native/TensorAdvancedIndexing.cpp "
            "(masked_scatter)",
            "masked_scatter: expected self and source to have same dtypes but got{text} and "
            "{value}",
            "float16 and float32 in one masked_scatter_ (no space after 'got': torch's)", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "Float", "value": "Half"}),
    Message("torch", "1.x-2.13", "aten/src/ATen/TensorUtils.cpp (checkSameType)",
            "Expected tensor for argument #1 'input' to have the same type as tensor for "
            "argument #2 'weight'; but type {text} does not equal {value} (while checking "
            "arguments for cudnn_convolution)",
            "a float16 input to a float32 layer (torch 1.x's cuDNN convolution; 2.13's "
            "embedding_bag per_sample_weights)", FLAG, "AMP014", reader="torch",
            prefix="RuntimeError: ",
            values={"text": "torch.cuda.HalfTensor", "value": "torch.cuda.FloatTensor"}),
    Message("torch", "2.0-2.13", "aten/src/ATen/native/transformers/attention.cpp "
            "(scaled_dot_product_attention)",
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            "{value} key.dtype: {text} and value.dtype: {text} instead.",
            "float16 keys and values beside a float32 query in attention (RoPE's float32 "
            "tables promote q and k, or a .half() cache meets a float32 model)", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "c10::Half", "value": "float"}),
    Message("torch", "2.x-2.13", "aten/src/ATen/native/Blas.cpp (addmv_out)",
            "addmv input tensors must have the same dtype, but got {text}, {value}, and {text}",
            "float16 and float32 in one matrix-vector product (torch.mv) outside autocast",
            FLAG, "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "Float", "value": "Half"}),
    Message("torch", "1.x-2.13", "torchgen/dest/register_dispatch_key.py "
            "(resize_out, a structured op's out=)",
            "Expected out tensor to have dtype {text}, but got {value} instead",
            "an out= tensor of float16 for a float32 result, or the other way round", FLAG,
            "AMP014", reader="torch", prefix="RuntimeError: ",
            values={"text": "float", "value": "c10::Half"}),
    # -- fp16 kernels outside torch's dispatcher that refuse a dtype (AMP014: the run stops) --
    Message("flash-attn", "2.0-2.8", "csrc/flash_attn/flash_api.cpp (mha_fwd, mha_varlen_fwd, "
            "mha_bwd, mha_fwd_kvcache; csrc/flash_attn_ck/ for ROCm)",
            "FlashAttention only support fp16 and bf16 data type",
            "float32 queries into FlashAttention's half-precision kernel: the model or the "
            "attention's inputs are float32 where autocast (or a fp16/bf16 model) was meant "
            "to run it", FLAG, "AMP014", prefix="RuntimeError: "),
    Message("flash-attn", "3.0b (hopper)", "hopper/flash_api.cpp (mha_fwd)",
            "FlashAttention only supports fp16, bf16, and fp8_e4m3 data type",
            "float32 queries into FlashAttention 3's kernel (also 'FlashAttention on "
            "Ampere/Ada cards only supports fp16 and bf16 data type')", FLAG, "AMP014",
            prefix="RuntimeError: "),
    Message("torch", "1.x-2.13", "aten/src/ATen/cuda/CUDABlas.cpp (gemm<at::Half>, "
            "TORCH_CUDABLAS_CHECK of aten/src/ATen/cuda/Exceptions.h)",
            "CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmEx( {text}, "
            "CUDA_R_16F",
            "cuBLAS refused a float16 matrix multiply: a GPU without fp16 GEMMs, or a CUDA "
            "build too old for the GPU", FLAG, "AMP014", prefix="RuntimeError: ",
            values={"text": "handle, opa, opb, m, n, k, &falpha, a"}),
    # -- transformers ------------------------------------------------------------------------
    Message("transformers", "4.20-4.41", "src/transformers/training_args.py "
            "(TrainingArguments.__post_init__)",
            "FP16 Mixed precision training with AMP or APEX (`--fp16`) and FP16 half precision "
            "evaluation (`--fp16_full_eval`) can only be used on {text}.",
            "fp16 was asked for on a device without it", FLAG, "AMP010", prefix="ValueError: ",
            values={"text": "CUDA or NPU devices or certain XPU devices (with IPEX)"}),
    Message("transformers", "4.13-4.46 (read in 4.20 and 4.46; 4.12 says fp16 backend)",
            "src/transformers/trainer.py (Trainer.__init__)",
            "Using {text} half precision backend",
            "the Trainer's mixed precision (cuda_amp, amp, apex; cpu_amp is bf16)", SETUP,
            setup=_FP16, logger=("transformers.trainer", "INFO"),
            values={"text": "cuda_amp"}),
    Message("transformers", "4.2-4.12 (read in 4.2, 4.9, 4.12; 4.0 prints none)",
            "src/transformers/trainer.py (Trainer.__init__)",
            "Using {text} fp16 backend",
            "the Trainer's fp16 (amp: torch's GradScaler; apex: amp's dynamic scaler)", SETUP,
            setup=_FP16, logger=("transformers.trainer", "INFO"), values={"text": "amp"}),
    Message("transformers", "4.20-4.46 (4.46: with torch before 2.3 only; not in 4.12)",
            "src/transformers/trainer.py (Trainer.__init__)",
            "Tried to use `fp16` but it is not supported on cpu",
            "--fp16 on a CPU: the Trainer refuses it, the run does not start", FLAG, "AMP010",
            prefix="ValueError: "),
    # -- accelerate -------------------------------------------------------------------------
    Message("accelerate", "0.28-1.10", "src/accelerate/accelerator.py (Accelerator.__init__)",
            "fp16 mixed precision requires a GPU (not {text}).",
            "fp16 was asked for on a device without it", FLAG, "AMP010", reader="errors",
            prefix="ValueError: ", values={"text": "'cpu'"}),
    Message("accelerate", "0.1-0.3", "src/accelerate/state.py (AcceleratorState.__init__)",
            "fp16 mixed precision requires a GPU.",
            "fp16 was asked for on a device without it", FLAG, "AMP010", reader="errors",
            prefix="ValueError: "),
    # -- Lightning (pytorch_lightning 0.x-1.x, lightning 2.x) --------------------------------
    Message("Lightning", "2.0-2.6", "src/lightning/pytorch/trainer/connectors/"
            "accelerator_connector.py (_check_and_init_precision)",
            "You passed `Trainer(accelerator='cpu', precision='16-mixed')` but AMP with fp16 "
            "is not supported on CPU. Using `precision='bf16-mixed'` instead.",
            "fp16 asked for on CPU runs as bf16", FLAG, "AMP010",
            logger=("lightning.pytorch.utilities.rank_zero", "WARNING"), prefix=RANK_ZERO),
    Message("Lightning", "2.0-2.6", "src/lightning/fabric/connector.py (_check_and_init_precision)",
            "You passed `Fabric(accelerator='cpu', precision='16-mixed')` but AMP with fp16 is "
            "not supported on CPU. Using `precision='bf16-mixed'` instead.",
            "fp16 asked for on CPU runs as bf16", FLAG, "AMP010", prefix=RANK_ZERO),
    Message("pytorch_lightning", "1.8-1.9", "src/pytorch_lightning/trainer/connectors/"
            "accelerator_connector.py",
            "You passed `Trainer(accelerator='cpu', precision=16)` but AMP is not supported on "
            "CPU. Using `precision='bf16'` instead.",
            "fp16 asked for on CPU runs as bf16", FLAG, "AMP010", prefix=RANK_ZERO),
    Message("pytorch_lightning", "1.5-1.7", "pytorch_lightning/trainer/connectors/"
            "accelerator_connector.py (_check_and_init_precision)",
            "You passed `Trainer(accelerator='cpu', precision=16)` but native AMP is not "
            "supported on CPU. Using `precision='bf16'` instead.",
            "fp16 asked for on CPU runs as bf16", FLAG, "AMP010", prefix=RANK_ZERO),
    Message("pytorch_lightning", "1.0-1.5", "pytorch_lightning/trainer/connectors/"
            "accelerator_connector.py, precision_connector.py",
            "You have asked for native AMP on CPU, but AMP is only available on GPU.",
            "AMP asked for on CPU: not active", FLAG, "AMP010", prefix=RANK_ZERO),
    Message("pytorch_lightning", "1.3-1.9 (native, apex; 1.9: None without amp_backend)",
            "pytorch_lightning/trainer/connectors/accelerator_connector.py",
            "Using 16bit {text} Automatic Mixed Precision (AMP)",
            "fp16 mixed precision with a dynamic scaler (native) or apex", SETUP, setup=_FP16,
            reader="lightning", prefix=RANK_ZERO, values={"text": "None"}),
    Message("lightning", "2.0-2.2", "src/lightning/pytorch/trainer/connectors/"
            "accelerator_connector.py",
            "Using 16bit Automatic Mixed Precision (AMP)",
            "fp16 mixed precision with a dynamic scaler", SETUP, setup=_FP16,
            reader="lightning", prefix=RANK_ZERO),
    Message("lightning", "2.3-2.6", "src/lightning/pytorch/trainer/connectors/"
            "accelerator_connector.py",
            "Using 16-bit Automatic Mixed Precision (AMP)",
            "fp16 mixed precision with a dynamic scaler", SETUP, setup=_FP16,
            reader="lightning", prefix=RANK_ZERO),
    Message("lightning", "1.10-2.6", "src/lightning/pytorch/trainer/connectors/"
            "accelerator_connector.py",
            "Using bfloat16 Automatic Mixed Precision (AMP)",
            "bf16 mixed precision: no loss scaler", SETUP, setup=_BF16, reader="lightning",
            prefix=RANK_ZERO),
    Message("pytorch_lightning", "0.5-0.6", "pytorch_lightning/trainer/trainer.py (0.5: "
            "print), trainer/auto_mix_precision.py (0.6: logging.info)",
            "using 16bit precision",
            "fp16 with apex amp", SETUP, setup=_FP16, prefix=RANK_ZERO),
    Message("pytorch_lightning", "0.7", "pytorch_lightning/trainer/auto_mix_precision.py",
            "Using 16bit precision.",
            "fp16 with native amp (torch 1.6) or apex", SETUP, setup=_FP16,
            logger=("lightning", "INFO")),
    Message("pytorch_lightning", "0.8-1.2", "pytorch_lightning/trainer/connectors/"
            "precision_connector.py",
            "Using native 16bit precision.",
            "fp16 mixed precision with a dynamic scaler", SETUP, setup=_FP16, prefix=RANK_ZERO),
    Message("pytorch_lightning", "0.8-1.2", "pytorch_lightning/trainer/connectors/"
            "precision_connector.py",
            "Using APEX 16bit precision.",
            "fp16 with apex amp", SETUP, setup=_FP16, prefix=RANK_ZERO),
    Message("Lightning", "1.0-2.6", "callbacks/early_stopping.py (EarlyStopping._evaluate_"
            "stopping_criteria)",
            "Monitored metric {metric} = {value} is not finite. Previous best value was "
            "{scale}. Signaling Trainer to stop.",
            "check_finite stopped the run: the monitored metric is NaN/inf", FLAG, "AMP006",
            reader="lightning", prefix=RANK_ZERO,
            values={"metric": "val_loss", "value": "nan", "scale": 0.512}),
    Message("pytorch_lightning", "0.8-1.6 (0.8-1.3: `is nan or inf.`; 1.4-1.6: the loss "
            "tensor; 1.7 on: check_finite_loss is no longer called)",
            "trainer/training_tricks.py (detect_nan_tensors, 0.8-1.3), loops/ (1.4-1.6), under "
            "Trainer(terminate_on_nan=True)",
            "The loss returned in `training_step` is {text}.",
            "the step's loss is NaN/inf: the run stops", FLAG, "AMP006", prefix="ValueError: ",
            values={"text": "tensor(nan, device='cuda:0', grad_fn=<AddBackward0>)"},
            in_step=True),
    Message("pytorch_lightning", "0.8-1.6 (1.7 on: detect_nan_parameters is no longer called)",
            "trainer/training_tricks.py, utilities/finite_checks.py (detect_nan_parameters, "
            "under Trainer(terminate_on_nan=True))",
            "Detected nan and/or inf values in `{text}`. Check your forward pass for "
            "numerically unstable operations.",
            "a parameter is NaN/inf after a step: the run stops", FLAG, "AMP006",
            prefix="ValueError: ", values={"text": "encoder.layer.3.weight"}),
    Message("lightning", "2.0-2.6 (and inside lite/fabric 1.8-1.9's \"Native AMP and ...\")",
            "src/lightning/pytorch/plugins/precision/amp.py, fabric/plugins/precision/amp.py "
            "(MixedPrecision.optimizer_step)",
            "AMP and the LBFGS optimizer are not compatible.",
            "fp16 AMP with LBFGS (a closure): the scaler cannot step it", FLAG, "AMP002",
            prefix="lightning.fabric.utilities.exceptions.MisconfigurationException: "),
    Message("pytorch_lightning", "1.5-1.9", "pytorch_lightning/plugins/precision/native_amp.py, "
            "apex_amp.py (optimizer_step; ``{text}`` is Native or apex)",
            "{text} AMP and the LBFGS optimizer are not compatible (optimizer {n}).",
            "fp16 AMP (native or apex) with LBFGS (a closure): the scaler cannot step it", FLAG,
            "AMP002", prefix="pytorch_lightning.utilities.exceptions.MisconfigurationException: ",
            values={"text": "Native", "n": 0}),
    Message("lightning", "2.0-2.6", "src/lightning/pytorch/plugins/precision/amp.py "
            "(MixedPrecision.clip_gradients)",
            "The current optimizer, {text}, does not allow for gradient clipping because it "
            "performs unscaling of gradients internally. HINT: Are you using a 'fused' "
            "optimizer?",
            "gradient clipping asked of a fused optimizer that unscales itself under fp16 AMP: "
            "the run stops", FLAG, "AMP002", prefix="RuntimeError: ",
            values={"text": "Adam"}),
    # -- DeepSpeed ---------------------------------------------------------------------------
    Message("DeepSpeed", "0.8-0.19", "deepspeed/runtime/fp16/loss_scaler.py "
            "(DynamicLossScaler.update_scale)",
            "[deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss scale: {before}, "
            "reducing to {after}",
            "an overflow: the step is skipped, the scale halves", OVERFLOW, reader="deepspeed",
            logger=("loss_scaler.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.8-0.19", "deepspeed/runtime/fp16/loss_scaler.py "
            "(DynamicLossScaler.update_scale)",
            "[deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss scale: {before}, "
            "but hysteresis is {n}. Reducing hysteresis to {text}",
            "an overflow spent on the hysteresis: skipped, the scale kept", OVERFLOW,
            reader="deepspeed", logger=("loss_scaler.py", "INFO"), prefix=DEEPSPEED,
            values={"n": 2, "text": 1}),
    Message("DeepSpeed", "0.1-0.7", "deepspeed/pt/deepspeed_zero_optimizer.py, "
            "fp16_optimizer.py",
            "[deepspeed] OVERFLOW! Skipping step. Attempted loss scale: {before}, reducing "
            "to {after}",
            "an overflow: the step is skipped, the scale halves", OVERFLOW, reader="deepspeed",
            prefix=""),
    Message("DeepSpeed", "0.3-0.16", "deepspeed/runtime/fp16/fused_optimizer.py, "
            "unfused_optimizer.py (step)",
            "[deepspeed] fp16 dynamic loss scale overflow! Skipping step. Attempted loss "
            "scale: {before}, reducing to {after}",
            "an overflow: the step is skipped, the scale halves", OVERFLOW, reader="deepspeed",
            logger=("fused_optimizer.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.3.1-0.16", "deepspeed/runtime/fp16/fused_optimizer.py (log_dist)",
            "Overflow detected. Skipping step. Attempted loss scale: {before}, reducing to "
            "{after}",
            "an overflow: the step is skipped, the scale halves", OVERFLOW, reader="deepspeed",
            logger=("logging.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.3-0.19", "deepspeed/runtime/fp16/fused_optimizer.py "
            "(_update_scale)",
            "Reducing dynamic loss scale from {before} to {after}",
            "an overflow: the scale halves", OVERFLOW, reader="deepspeed",
            logger=("fused_optimizer.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.3-0.19", "deepspeed/runtime/fp16/fused_optimizer.py "
            "(_update_scale)",
            "Increasing dynamic loss scale from {before} to {after}",
            "a growth after scale_window clean steps", GROWTH, reader="deepspeed",
            logger=("fused_optimizer.py", "INFO"), prefix=DEEPSPEED,
            values={"before": 1024, "after": 2048}),
    Message("DeepSpeed", "0.3-0.19", "deepspeed/runtime/fp16/fused_optimizer.py "
            "(_update_scale)",
            "Grad overflow on iteration {step}",
            "an overflow at that iteration", OVERFLOW, reader="deepspeed",
            logger=("fused_optimizer.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.1-0.3", "deepspeed/pt/fp16_optimizer.py (_update_scale)",
            "Using dynamic loss scale of {before}",
            "after 'Grad overflow on iteration': the scale halves", OVERFLOW,
            reader="deepspeed", prefix=""),
    Message("DeepSpeed", "0.1-0.19", "deepspeed/runtime/fp16/fused_optimizer.py "
            "(_update_scale)",
            "Using static loss scale of {before}",
            "an overflow at a static scale: skipped, the scale kept", OVERFLOW,
            reader="deepspeed", logger=("fused_optimizer.py", "INFO"), prefix=DEEPSPEED),
    Message("DeepSpeed", "0.3-0.19", "deepspeed/runtime/fp16/loss_scaler.py "
            "(DynamicLossScaler.update_scale)",
            "Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.",
            "the scale is at min_loss_scale and still overflows: the run stops", FLAG, "AMP003",
            reader="deepspeed", prefix="Exception: "),
    Message("DeepSpeed", "0.1-0.16", "deepspeed/runtime/fp16/fused_optimizer.py, "
            "zero/stage_1_and_2.py (__init__)",
            "Cannot use fp16 without CUDA.",
            "fp16 asked for without a GPU", FLAG, "AMP010", prefix="SystemError: "),
    Message("DeepSpeed", "0.16-0.19", "deepspeed/runtime/fp16/fused_optimizer.py (__init__)",
            "Cannot use fp16 without accelerator.",
            "fp16 asked for without an accelerator", FLAG, "AMP010", prefix="SystemError: "),
    Message("DeepSpeed", "0.19 (read in 0.19.8)", "deepspeed/runtime/fp16/fused_optimizer.py, "
            "unfused_optimizer.py (__init__; the dtype named)",
            "Cannot use torch.float16 without accelerator.",
            "fp16 asked for without an accelerator", FLAG, "AMP010", prefix="SystemError: "),
    Message("DeepSpeed", "0.19 (read in 0.19.8)", "deepspeed/runtime/zero/stage_1_and_2.py "
            "(DeepSpeedZeroOptimizer.__init__)",
            "Accelerator is not detected, cannot perform low precision training (e.g., fp16, "
            "bf16).",
            "ZeRO with fp16 (or bf16: it counts where the log shows fp16 asked for) asked for "
            "without an accelerator", FLAG, "AMP010", prefix="SystemError: ", fp16_shown=True),
    Message("DeepSpeed", "0.19 (read in 0.19.8)", "deepspeed/runtime/fp16/loss_scaler.py "
            "(LossScaler.update_scale: a static scale)",
            "[deepspeed] OVERFLOW! Skipping step. Gradients are non-finite, weights were not "
            "updated.",
            "an overflow at a static scale: the step is skipped, the scale kept", SKIP,
            reader="deepspeed", logger=("loss_scaler.py", "WARNING"), prefix=DEEPSPEED),
    # -- apex --------------------------------------------------------------------------------
    Message("apex", "2019-2025 (to 25.05)", "apex/amp/handle.py (scale_loss), apex/amp/scaler.py",
            "Gradient overflow.  Skipping step, loss scaler {n} reducing loss scale to {after}",
            "an overflow: skipped, the scale halves ({n} is the loss scaler's index)", OVERFLOW,
            reader="apex", logger=("apex.amp", "WARNING"), prefix="", values={"n": 0}),
    Message("apex", "2019-2025 (to 25.05)", "apex/amp/handle.py, apex/fp16_utils/fp16_optimizer.py",
            "Gradient overflow.  Skipping step, reducing loss scale to {after}",
            "an overflow: skipped, the scale halves", OVERFLOW, reader="apex", prefix=""),
    Message("apex", "2019-2025 (to 25.05)",
            "apex/fp16_utils/fp16_optimizer.py (step with a closure)",
            "OVERFLOW within closure! Skipping step, reducing loss scale to {after}",
            "an overflow: skipped, the scale halves", OVERFLOW, reader="apex", prefix=""),
    Message("apex", "2018-2019", "apex/fp16_utils/fp16_optimizer.py (step)",
            "OVERFLOW! Skipping step. Attempted loss scale: {before}, reducing to {after}",
            "an overflow: skipped, the scale halves", OVERFLOW, reader="apex", prefix=""),
    Message("apex", "2018-2019", "apex/amp/opt.py, apex/amp/handle.py (the first amp)",
            "Gradient overflow, skipping update",
            "an overflow: the step is skipped (no scale said)", SKIP,
            logger=("apex.amp", "WARNING")),
    # -- fairseq -----------------------------------------------------------------------------
    Message("fairseq", "0.6-0.9 (2018-2019)", "fairseq/trainer.py (train_step)",
            "| WARNING: overflow detected, setting loss scale to: {after}",
            "an overflow: skipped, the scale halves", OVERFLOW, prefix=""),
    Message("fairseq", "0.10 (2020)", "fairseq/trainer.py (train_step)",
            "NOTE: overflow detected, setting loss scale to: {after}",
            "an overflow: skipped, the scale halves", OVERFLOW,
            logger=("fairseq.trainer", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.12", "fairseq/trainer.py (train_step), "
            "fairseq/optim/dynamic_loss_scaler.py",
            "NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: "
            "{after}",
            "an overflow: skipped, the scale halves", OVERFLOW, reader="fairseq",
            logger=("fairseq.trainer", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.12", "fairseq/optim/amp_optimizer.py (clip_grad_norm)",
            "AMP: overflow detected, setting scale to to {after}",
            "an overflow under torch AMP: skipped, the scale halves", OVERFLOW,
            reader="fairseq", logger=("fairseq.optim.amp_optimizer", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.6-0.12", "fairseq/optim/dynamic_loss_scaler.py, fp16_optimizer.py "
            "(0.12 amp_optimizer.py: \"AMP: \" before it)",
            "Minimum loss scale reached ({scale}). Your loss is probably exploding. Try "
            "lowering the learning rate, using gradient clipping or increasing the batch size.",
            "the scale reached its floor and still overflows: the run stops", FLAG, "AMP003",
            reader="fairseq", prefix="FloatingPointError: ", values={"scale": 0.0001}),
    Message("fairseq", "0.10-0.12", "fairseq/trainer.py (train_step)",
            "gradients are Nan/Inf",
            "the gradient norm is not finite and no loss scaler skips the step", FLAG, "AMP006",
            prefix="FloatingPointError: "),
    Message("fairseq", "0.12", "fairseq/trainer.py (train_step, AMP)",
            "AMP: skipping this batch.",
            "under torch AMP, a batch whose gradient norm is not finite is skipped", SKIP,
            logger=("fairseq.trainer", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.10-0.12", "fairseq/nan_detector.py (NanDetector)",
            "Detected nan/inf grad norm, dumping norms...",
            "the gradient norm is not finite", FLAG, "AMP006",
            logger=("fairseq.nan_detector", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.4-0.6 (2018)", "fairseq/trainer.py (train_step)",
            "| WARNING: ran out of memory, skipping batch",
            "out of memory: not an AMP fault", FLAG, "SYS001", prefix=""),
    Message("fairseq", "0.6-0.9 (2018-2019)", "fairseq/trainer.py (train_step, print)",
            "| WARNING: OOM in all workers, skipping update",
            "out of memory on every worker: not an AMP fault", FLAG, "SYS001", prefix=""),
    Message("fairseq", "0.6-0.9 (2018-2019)", "fairseq/trainer.py (_build_optimizer, print)",
            "| WARNING: your device does NOT support faster training with --fp16, please switch "
            "to FP32 which is likely to be faster",
            "--fp16 on a GPU before compute capability 7: fp16 with fairseq's dynamic scaler "
            "(0.10 on says the same of --bf16 too: not a row)", SETUP, setup=_FP16, prefix=""),
    Message("fairseq", "0.6-0.12 (0.6-0.9: `| NOTICE: ` before it, printed; 0.12: ` or --amp` "
            "after it)", "fairseq/trainer.py (_build_optimizer)",
            "NOTE: your device may support faster training with --fp16",
            "neither --fp16, --bf16 nor --amp: the run trains in fp32", SETUP, setup=_FP32,
            logger=("fairseq.trainer", "INFO"), prefix=FAIRSEQ),
    Message("fairseq", "0.10-0.12", "fairseq/trainer.py (Trainer.__init__)",
            "Cannot combine --fp16 and --tpu, use --bf16 on TPUs",
            "--fp16 on a TPU: refused, the run does not start", FLAG, "AMP010",
            prefix="ValueError: "),
    # -- Megatron-LM, NeMo -------------------------------------------------------------------
    Message("Megatron-LM", "2023-2026", "megatron/core/rerun_state_machine.py "
            "(validate_result)",
            "Rank {rank}, node n0, device 0, iteration {step}: Unexpected result nan "
            "(message='found NaN in local forward loss calculation')",
            "the loss of one rank is NaN", FLAG, "AMP006", reader="megatron",
            prefix="RuntimeError: "),
    Message("Megatron-LM", "2023-2026", "megatron/core/rerun_state_machine.py (the loss check)",
            "Unexpected result {value} (message='loss is NaN')",
            "the loss is NaN", FLAG, "AMP006", prefix="RuntimeError: ",
            values={"value": "nan"}),
    Message("Megatron-LM", "2024-2026", "megatron/core/distributed/param_and_grad_buffer.py",
            "found NaN in local grad norm for bucket #{n} in backward pass before "
            "data-parallel communication collective",
            "a rank's gradients are NaN", FLAG, "AMP006", reader="megatron",
            prefix="RuntimeError: "),
    Message("Megatron-LM", "2025-2026", "megatron/core/optimizer/optimizer.py "
            "(grad_norm_skip_threshold)",
            "skipping grad norm because it's too large {norm}",
            "the update is skipped: the gradient norm is above the threshold (or not finite)",
            SKIP, logger=("megatron.core.optimizer.optimizer", "INFO"),
            values={"norm": "inf"}),
    Message("Megatron-LM", "2023-12-2026 (`WARNING: ` before it, printed, until warn_rank_0's "
            "warnings.warn)", "megatron/training/arguments.py (validate_args)",
            "Setting args.check_for_nan_in_loss_and_grad to False since dynamic loss scaling is "
            "being used",
            "--fp16 without --loss-scale: fp16 with the dynamic grad scaler", SETUP, setup=_FP16,
            prefix="/x/megatron/training/arguments.py:1202: UserWarning: "),
    Message("Megatron-LM", "2026-03-2026", "megatron/core/distributed/fsdp/src/megatron_fsdp/"
            "param_and_grad_buffer.py (check_for_nan_in_grad)",
            "[Megatron-FSDP](check_for_nan_in_grad=True) Detected NaN or Inf in wgrad: {text}",
            "a weight gradient is NaN/inf: the run stops", FLAG, "AMP006", prefix="ValueError: ",
            values={"text": "tensor([nan, nan], device='cuda:0')"}),
    Message("Megatron-LM", "2026-07-2026", "megatron/core/models/audio/nemo_transformer_encoder.py"
            " (its NaN debug hook)",
            "[NaN DEBUG] NaN/Inf detected at '{text}'. Stopping training.",
            "an activation is NaN/inf: the run stops", FLAG, "AMP006", prefix="RuntimeError: ",
            values={"text": "layers.3.self_attn"}),
    Message("NeMo", "1.x-2.x", "nemo/collections/tts/parts/utils/splines.py",
            "NaN detected in PWLinear bin indexing",
            "a NaN in the model's forward", FLAG, "AMP006", prefix="AvertedCUDARuntimeError: "),
    # -- InternLM / InternEvo ------------------------------------------------------------------
    Message("InternLM / InternEvo", "2023-07-2025",
            "internlm/solver/optimizer/hybrid_zero_optim.py (HybridZeroOptimizer.step, after "
            "grad_scaler.update(found_inf))",
            "Overflow occurs, please check it.",
            "an overflow: the step is skipped and the scale backs off (the new scale is the "
            "next metrics line's loss_scale)", SKIP,
            logger=("hybrid_zero_optim.py:618 in step", "WARNING"), prefix=_INTERNLM),
    # -- torchtitan ------------------------------------------------------------------------
    Message("torchtitan", "2026-08 (main, after #4226)", "torchtitan/trainer.py "
            "(Trainer.train_step: torch._assert_async before the optimizer step)",
            "Loss or gradient norm is not finite on at least one rank at step {step}. Stopping "
            "training before the optimizer update.",
            "the loss or the gradient norm is NaN/inf: the run stops before the update (the "
            "message is raised where the check runs on the host; a failed CUDA device "
            "assertion may print only the assertion)", FLAG, "AMP006",
            prefix="RuntimeError: "),
    # fla-org/flame, a trainer on torchtitan's components (flame/train.py, --training.skip_nan_inf)
    Message("flame (fla-org)", "2025-03 on (read at 623b845)", "flame/train.py (main: the "
            "optimizer step, ``grad_norm.isnan() or grad_norm.isinf()``)",
            "Skipping optimizer step - detected invalid gradient norm: {norm}",
            "a step whose gradient norm is NaN/inf is dropped (zero_grad, no update; counted in "
            "train_state.skipped_step)", SKIP, logger=("root", "WARNING"),
            prefix="[titan] 2026-11-30 10:00:00,000 - {logger} - {level} - "),
    # -- DeepSpeed-Chat (DeepSpeedExamples' RLHF step 3, --align_overflow) --------------------
    Message("DeepSpeed-Chat", _DSCHAT, _DSCHAT_PPO,
            "OVERFLOW: actor overflow, skipping both actor and critic steps",
            "the actor's fp16 gradients overflowed: the PPO step of both models is skipped "
            "(DeepSpeed backs the actor's scale off)", SKIP, prefix=RANK_ZERO),
    Message("DeepSpeed-Chat", _DSCHAT, _DSCHAT_PPO,
            "OVERFLOW: critic overflow, skipping both actor and critic steps",
            "the critic's fp16 gradients overflowed: the PPO step of both models is skipped",
            SKIP, prefix=RANK_ZERO),
    Message("DeepSpeed-Chat", _DSCHAT, _DSCHAT_PPO,
            "OVERFLOW: actor and critic overflow, skipping both actor and critic steps",
            "both models' fp16 gradients overflowed: the PPO step is skipped", SKIP,
            prefix=RANK_ZERO),
    # -- fairscale: optim/grad_scaler.py (ShardedGradScaler), experimental/optim/
    # dynamic_loss_scaler.py (a fairseq-style scaler for CPU-offloaded optimizers) -------------
    Message("fairscale", "0.1-0.4.13 (2020-11-2025)", "fairscale/optim/grad_scaler.py "
            "(ShardedGradScaler.__init__)",
            "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
            "the ShardedGradScaler asked for is switched off: the run trains unscaled", FLAG,
            "AMP010", reader="errors",
            prefix="/x/fairscale/optim/grad_scaler.py:95: UserWarning: "),
    Message("fairscale", "0.3.7-0.4.13 (2021-05-2025)", "fairscale/experimental/optim/"
            "dynamic_loss_scaler.py (DynamicLossScaler._check_overflow)",
            "setting loss scale to: {after}",
            "an overflow: the step is skipped and the scale backs off (raised as OverflowError "
            "for the loop to catch; uncaught, the run stops at its first overflow)", OVERFLOW,
            prefix="OverflowError: "),
    Message("fairscale", "0.3.7-0.4.13 (2021-05-2025)", "fairscale/experimental/optim/"
            "dynamic_loss_scaler.py (DynamicLossScaler._check_overflow)",
            "Minimum loss scale reached ({scale}). Your loss is probably exploding. Try "
            "lowering the learning rate, using gradient clipping or increasing the batch size.",
            "the scale reached min_loss_scale and still overflows: the run stops (fairseq's "
            "wording)", FLAG, "AMP003", reader="fairseq", prefix="FloatingPointError: ",
            values={"scale": 0.0001}),
    # -- unsloth ---------------------------------------------------------------------------------
    Message("unsloth", "2026.8", "unsloth/models/rl.py (the patched TRL trainers' __init__)",
            "Unsloth: Model is in float32 and this GPU has no bfloat16 support, so training "
            "stays in float32. Pass fp16 = True to force float16 mixed precision instead.",
            "a float32 model asked for on a GPU without bf16: fp32, no autocast and no loss "
            "scaler", SETUP, setup=_FP32, prefix=RANK_ZERO),
    # -- ColossalAI --------------------------------------------------------------------------
    Message("ColossalAI", "0.1-0.4", "colossalai/amp/naive_amp/grad_scaler/"
            "dynamic_grad_scaler.py (DynamicGradScaler.update)",
            "Overflow occurs, the loss scale is adjusted to {after}",
            "an overflow: skipped, the scale backs off", OVERFLOW,
            logger=("colossalai", "INFO")),
    Message("ColossalAI", "0.1-0.4", "colossalai/amp/naive_amp/grad_scaler/"
            "dynamic_grad_scaler.py (DynamicGradScaler.update)",
            "No overflow for consecutive {n} steps, the loss scale is adjusted to {after}",
            "a growth after growth_interval clean steps", GROWTH,
            logger=("colossalai", "INFO"), values={"n": 1000}),
    Message("ColossalAI", "0.2-0.4", "colossalai/zero/low_level/low_level_optim.py, "
            "gemini/gemini_optimizer.py (step)",
            "Found overflow. Skip step",
            "an overflow: the step is skipped", SKIP, logger=("colossalai", "INFO")),
    Message("ColossalAI", "0.1-0.5 (0.1.0 at INFO; colossalai/legacy/ from 0.3)",
            "colossalai/zero/sharded_optim/sharded_optim_v2.py (ShardedOptimizerV2.step)",
            "found inf during ShardedOptimV2 step",
            "an overflow: the step is skipped (the scaler backs off, silently unless verbose)",
            SKIP, reader="sentences", logger=("colossalai", "WARNING")),
    # -- audiocraft: audiocraft/solvers/musicgen.py, magnet.py, jasco.py (run_step) -----------
    Message("audiocraft", "1.0-1.3 (2023-09..2024)", "audiocraft/solvers/musicgen.py, "
            "magnet.py, jasco.py (run_step: ``if not loss.isfinite().all()``)",
            "Model probably diverged.",
            "the training loss went non-finite: the run stops", FLAG, "AMP006",
            prefix="RuntimeError: "),
    # -- detectron2, mmcv/mmdet, mmengine ------------------------------------------------------
    Message("detectron2", "0.1-0.6", "detectron2/engine/train_loop.py "
            "(SimpleTrainer._write_metrics)",
            "Loss became infinite or NaN at iteration={step}!",
            "the run stopped on a non-finite loss", FLAG, "AMP006", reader="errors",
            prefix="FloatingPointError: "),
    Message("detectron2", "0.1-0.6", "detectron2/structures/boxes.py (Boxes.clip)",
            "Box tensor contains infinite or NaN!",
            "non-finite boxes: the run stops", FLAG, "AMP006", prefix="AssertionError: "),
    Message("detectron2", "0.1-0.6", "detectron2/modeling/box_regression.py",
            "Box regression deltas become infinite or NaN!",
            "non-finite box regression outputs", FLAG, "AMP006", prefix="AssertionError: "),
    Message("detectron2", "0.2-0.6 (2020-03 on)", "detectron2/modeling/proposal_generator/"
            "proposal_utils.py, rrpn.py (find_top_rpn_proposals, training only)",
            "Predicted boxes or scores contain Inf/NaN. Training has diverged.",
            "non-finite proposals: the run stops", FLAG, "AMP006", prefix="FloatingPointError: "),
    Message("detectron2", "0.4-0.6", "detectron2/engine/train_loop.py (AMPTrainer.__init__)",
            "[AMPTrainer] CUDA is required for AMP training!",
            "AMP asked for without a GPU", FLAG, "AMP010", prefix="AssertionError: "),
    Message("mmcv / mmdet", "1.x-2.x", "mmdet/core/hook (CheckInvalidLossHook)",
            "loss become infinite or NaN!",
            "the loss is not finite", FLAG, "AMP006", reader="errors",
            prefix="AssertionError: "),
    # mmcv's own LossScaler (mmcv/runner/fp16_utils.py: 2**32 at first, halved on an
    # overflow down to a floor of 1), used where torch has no GradScaler (< 1.6) or parrots;
    # Fp16OptimizerHook logs after update_scale (the new scale), the gradient-cumulative
    # variant before it (the scale the step overflowed at): one halving apart.
    Message("mmcv / mmdet", "1.0-1.7", "mmcv/runner/hooks/optimizer.py "
            "(Fp16OptimizerHook.after_train_iter)",
            "Check overflow, downscale loss scale to {after}",
            "an overflow: the iteration is skipped, the scale halves (not below 1)", OVERFLOW,
            logger=("mmdet", "WARNING")),
    Message("mmengine", "0.4-0.10", "mmengine/hooks/early_stopping_hook.py",
            "Monitored metric {metric} = {value} is infinite. Previous best value was {scale}.",
            "the monitored metric is NaN/inf (evaluation's when it is an evaluation metric)",
            MONITORED, logger=("mmengine", "WARNING"),
            values={"metric": "val/loss", "value": "inf", "scale": 0.512}),
    # -- the DETR family's loop: facebookresearch/detr engine.py (train_one_epoch), copied
    # with its MetricLogger by Deformable-DETR, DINO-DETR, DeiT, MAE, BEiT, ConvNeXt, DINO --
    Message("DETR / DeiT / MAE family", "2020-05-2024 (detr, Deformable-DETR, DINO-DETR, "
            "deit, mae, unilm/beit, ConvNeXt, dino; torchvision's references/detection "
            "since 2019)",
            "engine.py (train_one_epoch: ``if not math.isfinite(loss_value)``, then "
            "``sys.exit(1)``; DINO's main_dino.py prints it with force=True)",
            "Loss is {value}, stopping training",
            "the training loss is not finite: the run stops before the step (the loss dict "
            "follows, the MetricLogger line never shows the NaN)", FLAG, "AMP006",
            prefix=RANK_ZERO, in_step=True),
    # -- VISSL (facebookresearch/vissl): its hooks and SwAV's losses ---------------------------
    Message("VISSL", "0.1.5-0.1.6 (2021-2022) and main",
            "vissl/hooks/state_update_hooks.py (CheckNanLossHook.on_loss_and_meter)",
            "Infinite Loss or NaN at iteration={step}. Loss value: {value}",
            "the all-reduced training loss is not finite: the run stops", FLAG, "AMP006",
            prefix="FloatingPointError: ", values={"value": "tensor(nan)"}),
    Message("VISSL", "0.1.5-0.1.6 (2021-2022) and main",
            "vissl/hooks/state_update_hooks.py (CheckNanModelOutputHook.on_forward), "
            "vissl/hooks/log_hooks.py (LogLossMetricsCheckpointHook.on_forward)",
            "Infinite Model output or NaN at iteration={step}.",
            "the model's output is not finite: a checkpoint and the batch are saved, then "
            "the run stops", FLAG, "AMP006", logger=("state_update_hooks.py", "INFO"),
            prefix=_VISSL),
    Message("VISSL", "0.1.5-0.1.6 (2021-2022) and main",
            "vissl/losses/swav_loss.py (SwAVCriterion.forward), "
            "vissl/losses/swav_distillation_loss.py",
            "Infinite Loss or NaN. Loss value: {text}, rank: {rank}",
            "SwAV's loss is NaN on a rank: its scores and assignments are saved, then the run "
            "stops", FLAG, "AMP006", logger=("swav_loss.py", "INFO"), prefix=_VISSL,
            values={"text": "tensor(nan, device='cuda:3', grad_fn=<AddBackward0>)"},
            in_step=True),
    # -- lucidrains' GAN trainers: the step's losses checked before its print_log line -----
    Message("lucidrains' stylegan2-pytorch / lightweight-gan", "2020-2024 (stylegan2-pytorch, "
            "lightweight-gan, and the trainers copied from them)",
            "stylegan2_pytorch/stylegan2_pytorch.py, lightweight_gan/lightweight_gan.py "
            "(Trainer.train: ``if any(torch.isnan(l) for l in (total_gen_loss, "
            "total_disc_loss))``, then ``raise NanException``, retried by the cli)",
            "NaN detected for generator or discriminator. Loading from checkpoint #{n}",
            "the generator's or the discriminator's loss is NaN: the last checkpoint is "
            "loaded and the step retried (its ``G: ... | D: ...`` line never shows the NaN)",
            FLAG, "AMP006", prefix=RANK_ZERO, values={"n": 3}, in_step=True),
    # -- SlowFast (facebookresearch/SlowFast) and the video trainers copied from it (its
    # check_nan_losses, called right after the loss, before the iteration's json_stats) ------
    Message("SlowFast family", "2019-10-2024 (SlowFast, pytorchvideo's trainers, MViT, "
            "TimeSformer, Video Swin's slowfast-based loops)",
            "slowfast/utils/misc.py (check_nan_losses, from tools/train_net.py train_epoch)",
            "ERROR: Got NaN losses {text}",
            "the training loss is NaN: the run stops before the step's json_stats line",
            FLAG, "AMP006", prefix="RuntimeError: ",
            values={"text": "2024-06-01 10:13:23.613248"}, in_step=True),
    # -- ParlAI: parlai/utils/fp16.py (its own fairseq-derived DynamicLossScaler: 2**17 at first,
    # lowered only once 5% of the steps since the last change overflowed) -------------------
    Message("ParlAI", "0.9-1.7 (2020-2022)", "parlai/utils/fp16.py "
            "(MemoryEfficientFP16Optimizer / SafeFP16Optimizer.clip_master_grads)",
            "Overflow: setting loss scale to {after}",
            "an overflow: the update is skipped; the scale is lowered once overflows pass the "
            "tolerance (else printed unchanged)", OVERFLOW, prefix="12:00:00 | "),
    # -- OpenAI improved-diffusion / guided-diffusion (and the loops copied from them) --------
    # Their fp16 loop keeps the scale's base-2 logarithm (20.0 at first), lowers it by 1 on
    # non-finite gradients (skipping the step) and raises it by fp16_scale_growth (1e-3) on
    # every clean step: the value printed is the new logarithm.
    Message("improved-diffusion / guided-diffusion", "2021-2022",
            "improved_diffusion/train_util.py (TrainLoop.optimize_fp16), "
            "guided_diffusion/fp16_util.py (MixedPrecisionTrainer._optimize_fp16)",
            "Found NaN, decreased lg_loss_scale to {log2_after}",
            "non-finite gradients: the step is skipped, the scale halves (log2 printed)",
            OVERFLOW, prefix="", values={"log2_after": 15.0}),
    # Their resume: the step counter goes on from the checkpoint's (``self.step +
    # self.resume_step``), but the scale's logarithm is no part of the checkpoint (model,
    # optimizer and EMA weights only): it starts at 20.0 again, below where the last run left
    # it, with no overflow. A run begins (its scales are not the last run's).
    Message("improved-diffusion / guided-diffusion", "2021-2022",
            "improved_diffusion/train_util.py, guided_diffusion/train_util.py "
            "(TrainLoop._load_and_sync_parameters)",
            "loading model from checkpoint: {text}...",
            "a resumed run begins: its lg_loss_scale starts again at 20.0 (not checkpointed)",
            SETUP, setup={RUN_START: True}, prefix="",
            values={"text": "/ckpt/model008000.pt"}),
    # -- timm ----------------------------------------------------------------------------------
    Message("timm", "0.3-1.0", "train.py (main)",
            "Using native Torch AMP. Training in mixed precision.",
            "fp16 mixed precision with a dynamic scaler", SETUP, setup=_FP16,
            logger=("train", "INFO")),
    Message("timm", "0.3-1.0", "train.py (main)",
            "Using NVIDIA APEX AMP. Training in mixed precision.",
            "fp16 with apex amp", SETUP, setup=_FP16, logger=("train", "INFO")),
    Message("timm", "0.3-0.9", "train.py (main)",
            "AMP not enabled. Training in float32.",
            "fp32: no autocast, no scaler", SETUP, setup=_FP32, logger=("train", "INFO")),
    Message("timm", "0.3-0.6", "train.py (main)",
            "Neither APEX or native Torch AMP is available, using float32. Install NVIDA apex "
            "or upgrade to PyTorch 1.6",
            "AMP asked for and not available: the run trains in fp32", FLAG, "AMP010"),
    Message("timm", "0.1-0.3 (2019-04-2020-11)", "train.py (main)",
            "Apex AMP does not work well with nn.DataParallel, disabling. Use DDP or Torch AMP.",
            "--amp with several GPUs in one process: apex amp switched off, the run trains in "
            "fp32", FLAG, "AMP010", logger=("train", "WARNING")),
    # -- speech toolkits -------------------------------------------------------------------------
    Message("ESPnet", "espnet2 0.9-202x", "espnet2/train/trainer.py (train_one_epoch)",
            "The grad norm is {norm}. Skipping updating the model.",
            "the update is skipped: the gradient norm is not finite", SKIP,
            values={"norm": "nan"}),
    Message("ESPnet", "espnet1 0.5-0.9", "espnet/asr/pytorch_backend/asr.py (CustomUpdater)",
            "The grad norm is nan. Skipping updating the model.",
            "the update is skipped: the gradient norm is NaN", SKIP),
    Message("Amphion", "snapshot 2025-05", "models/base/new_trainer.py (BaseTrainer._check_nan)",
            "Fatal Error: Training is down since loss has Nan!",
            "the training loss is NaN: the run stops (``loss = nan`` follows)", FLAG, "AMP006",
            logger=("amphion", "ERROR")),
    Message("Amphion", "snapshot 2025-05", "models/base/new_trainer.py (BaseTrainer._check_nan)",
            "Loss has Nan! See log for more info.",
            "the training loss is NaN: the run stops", FLAG, "AMP006", prefix="RuntimeError: "),
    # DL-Art-School (tortoise-tts' trainer): codes/trainer/steps.py (ConfigurableStep), print()
    Message("DL-Art-School", "2021-06..2022-10", "codes/trainer/steps.py "
            "(ConfigurableStep.do_step)",
            "NaN found in grads. Throwing this step out.",
            "the step is skipped (and the GradScaler not updated): a gradient is NaN", SKIP,
            prefix=RANK_ZERO),
    Message("DL-Art-School", "2022-02..2022-10", "codes/trainer/steps.py "
            "(ConfigurableStep.do_step)",
            "NaN found in clip_grad; zeroing grad and trying again.",
            "the step is skipped: the clipped gradient norm is NaN", SKIP, prefix=RANK_ZERO),
    Message("DL-Art-School", "2022-02..2022-10", "codes/trainer/steps.py "
            "(ConfigurableStep.do_forward_backward)",
            "Encountered 10 NaN losses in a row. Something is screwed up. Dumping model weights "
            "and exiting.",
            "the loss was non-finite on 10 steps in a row: the run stops", FLAG, "AMP006",
            prefix=RANK_ZERO),
    # deepspeech.pytorch (SeanNaren): train.py's loop before its Lightning port (2021-01):
    # the batch's CTC loss checked before the update, the warning then ``Skipping grad
    # update`` printed before the batch's own ``Epoch: [{e}][{i}/{n}] ... Loss 0.0000 (...)``
    Message("deepspeech.pytorch", "2019-01..2021-01", "utils.py, deepspeech_pytorch/utils.py "
            "(check_loss, from train.py / deepspeech_pytorch/training.py)",
            "WARNING: received a nan loss, setting loss value to 0",
            "the batch's loss is NaN: its update is skipped and its loss logged as 0", FLAG,
            "AMP006", prefix=RANK_ZERO, in_step=True),
    Message("deepspeech.pytorch", "2017-01..2021-01 (``, setting loss value to 0`` after it "
            "until 2019-01)", "train.py (2017-2019), then utils.py, deepspeech_pytorch/utils.py "
            "(check_loss)",
            "WARNING: received an inf loss",
            "the batch's loss is infinite: its update is skipped and its loss logged as 0",
            FLAG, "AMP006", prefix=RANK_ZERO, in_step=True),
    Message("SpeechBrain", "0.5-1.0", "speechbrain/core.py (Brain.check_loss_isfinite)",
            "Loss is not finite and patience is exhausted. To debug, wrap `fit()` with "
            "autograd's `detect_anomaly()`, e.g.",
            "the loss was non-finite more often than nonfinite_patience: the run stops", FLAG,
            "AMP006", prefix="ValueError: "),
    Message("SpeechBrain", "0.5-1.0", "speechbrain/core.py (Brain.check_loss_isfinite)",
            "Patience not yet exhausted.",
            "a non-finite loss, the batch skipped (within nonfinite_patience)", SKIP,
            logger=("speechbrain.core", "WARNING")),
    Message("SpeechBrain", "1.0", "speechbrain/core.py (Brain.check_gradients)",
            "Gradients {text} contain NaN or Inf. Setting to None.",
            "non-finite gradients: that parameter's update is dropped", SKIP,
            logger=("speechbrain.core", "WARNING"), values={"text": "encoder.weight"}),
    # -- YOLO families -------------------------------------------------------------------------
    Message("yolov5", "6.2-7.0", "utils/general.py (check_amp)",
            "AMP: checks failed, disabling Automatic Mixed Precision. See {text}",
            "an automatic check switched AMP off: the run trains in fp32", FLAG, "AMP010",
            logger=("yolov5", "WARNING"), prefix="",
            values={"text": "https://github.com/ultralytics/yolov5/issues/7908"}),
    Message("ultralytics", "8.0-8.4", "ultralytics/utils/checks.py (check_amp)",
            "AMP: checks failed ❌. Anomalies were detected with AMP on your system that may "
            "lead to NaN losses or zero-mAP results, so AMP will be disabled during training.",
            "an automatic check switched AMP off: the run trains in fp32", FLAG, "AMP010",
            prefix="WARNING ⚠️ "),
    Message("ultralytics", "8.1-8.4", "ultralytics/utils/checks.py (check_amp)",
            "AMP: checks failed ❌. AMP training on {text} GPU may cause NaN losses or zero-mAP "
            "results, so AMP will be disabled during training.",
            "an automatic check switched AMP off (a GPU with broken fp16): fp32", FLAG,
            "AMP010", prefix="WARNING ⚠️ ", values={"text": "NVIDIA GeForce GTX 1650"}),
    Message("yolov5 / ultralytics", "6.2-8.4", "utils/general.py, ultralytics/utils/checks.py "
            "(check_amp)",
            "AMP: checks passed ✅",
            "AMP is on: fp16 mixed precision with a dynamic scaler", SETUP, setup=_FP16,
            prefix=""),
    Message("yolov5", "5.0-7.0", "train.py (train)",
            "WARNING: non-finite loss, ending training {text}",
            "the run stopped on a non-finite loss", FLAG, "AMP006", prefix="",
            values={"text": "tensor([nan, nan, nan])"}),
    # -- Keras, PyTorch-Ignite, PaddlePaddle -------------------------------------------------------
    Message("Keras", "2.x-3.15", "keras/src/callbacks/terminate_on_nan.py",
            "Batch {n}: Invalid loss, terminating training",
            "TerminateOnNaN stopped the run: the loss is NaN/inf", FLAG, "AMP006",
            reader="errors", prefix=""),
    Message("fastai", "1.0.x", "fastai/callbacks/tracker.py (TerminateOnNaNCallback.on_batch_end)",
            "Epoch/Batch ({n}/{value}): Invalid loss, terminating training.",
            "TerminateOnNaNCallback stopped the run: the last batch's loss is NaN", FLAG,
            "AMP006", prefix="", values={"n": 3, "value": 118}),
    Message("Keras", "2.9-2.15 (tf.keras)", "keras/mixed_precision/loss_scale_optimizer.py "
            "(_maybe_warn_about_scaling)",
            "You forgot to call LossScaleOptimizer.get_scaled_loss() and "
            "LossScaleOptimizer.get_unscaled_gradients() before calling "
            "LossScaleOptimizer.apply_gradients(). This will likely result in worse model "
            "quality, so please call them in the correct places! For example:",
            "a custom loop under LossScaleOptimizer that neither scales the loss nor unscales "
            "the gradients", FLAG, "AMP002", prefix=_TF_WARNING),
    Message("Keras", "2.9-2.15 (tf.keras)", "keras/mixed_precision/loss_scale_optimizer.py "
            "(_maybe_warn_about_scaling)",
            "You forgot to call LossScaleOptimizer.get_scaled_loss() before calling "
            "LossScaleOptimizer.apply_gradients() (you did call get_unscaled_gradients() "
            "however).",
            "the gradients are unscaled but the loss was never scaled", FLAG, "AMP002",
            prefix=_TF_WARNING),
    Message("Keras", "2.9-2.15 (tf.keras)", "keras/mixed_precision/loss_scale_optimizer.py "
            "(_maybe_warn_about_scaling)",
            "You forgot to call LossScaleOptimizer.get_unscaled_gradients() before calling "
            "LossScaleOptimizer.apply_gradients() (you did call get_scaled_loss() however).",
            "the loss is scaled but the gradients are applied still scaled", FLAG, "AMP002",
            prefix=_TF_WARNING),
    Message("Keras", "3.0-3.x (read on keras master)", "keras/src/optimizers/"
            "loss_scale_optimizer.py (LossScaleOptimizer.__init__)",
            "LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
            "`loss_scale_factor` directly on the `inner_optimizer`.",
            "keras 2's static loss scale asked of keras 3: refused, the run does not start",
            FLAG, "AMP002", prefix="ValueError: "),
    Message("Keras", "3.0-3.x (read on keras master)",
            "keras/src/optimizers/loss_scale_optimizer.py (__init__; ``{text}``: the argument)",
            "LossScaleOptimizer does not support `{text}`. Instead, set `{text}` on the "
            "`inner_optimizer`.", "an argument of the inner optimizer (clipping...) given to "
            "the loss scale wrapper: refused, the run does not start", FLAG, "AMP002",
            prefix="ValueError: ", values={"text": "global_clipnorm"}),
    Message("Keras", "TF 2.2-2.5, keras 2.6-2.15", "keras/mixed_precision/"
            "device_compatibility_check.py, tensorflow/python/keras/mixed_precision/"
            "[experimental/]device_compatibility_check.py (_log_device_compatibility_check)",
            "Mixed precision compatibility check (mixed_float16): OK",
            "the mixed_float16 policy is set (model.compile wraps the optimizer in a "
            "LossScaleOptimizer; a custom loop must itself)", SETUP, setup=_FP16_POLICY,
            prefix="INFO:tensorflow:"),
    Message("Keras", "TF 2.2-2.5, keras 2.6-2.15", "keras/mixed_precision/"
            "device_compatibility_check.py, tensorflow/python/keras/mixed_precision/"
            "[experimental/]device_compatibility_check.py (_log_device_compatibility_check)",
            "Mixed precision compatibility check (mixed_float16): WARNING",
            "the mixed_float16 policy is set on a device that runs it slowly (a CPU, or a GPU "
            "below compute capability 7.0): fp16 all the same", SETUP, setup=_FP16_POLICY,
            prefix=_TF_WARNING),
    # -- TensorFlow: tf.debugging.check_numerics, and what calls it (tf.clip_by_global_norm's
    # "Found Inf or NaN global norm.", tf.compat.v1's add_check_numerics_ops) -------------
    Message("TensorFlow", "1.x-2.x", "tensorflow/core/kernels/check_numerics_op.cc "
            "(CheckNumericsOp: errors::InvalidArgument(message_, \" : Tensor had \", status, "
            "\" values\"))",
            "{text} : Tensor had NaN values",
            "check_numerics stopped the run: a tensor it checks (the loss, the gradients' "
            "global norm) is NaN", FLAG, "AMP006",
            prefix="tensorflow.python.framework.errors_impl.InvalidArgumentError: ",
            values={"text": "Found Inf or NaN global norm."}),
    Message("TensorFlow", "1.x-2.x", "tensorflow/core/kernels/check_numerics_op.cc "
            "(CheckNumericsOp)",
            "{text} : Tensor had Inf and NaN values",
            "check_numerics stopped the run: a tensor it checks holds Inf and NaN", FLAG,
            "AMP006", prefix="tensorflow.python.framework.errors_impl.InvalidArgumentError: ",
            values={"text": "loss"}),
    Message("TensorFlow", "1.14-2.x", "tensorflow/core/grappler/optimizers/"
            "auto_mixed_precision.cc (AutoMixedPrecision::Optimize)",
            "No (suitable) GPUs detected, skipping {text} graph optimizer",
            "the fp16 graph rewrite asked for (enable_mixed_precision_graph_rewrite, "
            "TF_ENABLE_AUTO_MIXED_PRECISION=1) found no GPU of compute capability 7.0 or more: "
            "off, the graph runs in fp32", FLAG, "AMP010",
            prefix="2026-11-30 10:00:00.000000: W tensorflow/core/grappler/optimizers/"
            "auto_mixed_precision.cc:1981] ", values={"text": "auto_mixed_precision"}),
    Message("tensor2tensor", "1.15 (read on master, its last release)",
            "tensor2tensor/utils/optimize.py (ConditionalOptimizer.__init__)",
            "Using mixed precision without a loss scaler will likely cause numerical errors.",
            "fp16 activations over fp32 weights (``activation_dtype=float16``) with "
            "``mixed_precision_optimizer_loss_scaler`` unset: the optimizer is not wrapped in a "
            "LossScaleOptimizer, fp16 trains unscaled", FLAG, "AMP001", prefix=_TF_WARNING),
    Message("TensorFlow", "1.15-2.x (``{text}``: ``a keras mixed precision Policy has been "
            "set``, later ``the global Keras dtype Policy has been set to a mixed precision "
            "policy``)", "tensorflow/python/training/experimental/mixed_precision.py "
            "(_enable_mixed_precision_graph_rewrite_base)",
            "The mixed precision graph rewrite cannot be enabled, because {text}",
            "both of TensorFlow's mixed precision APIs asked for (a Keras mixed policy, then "
            "enable_mixed_precision_graph_rewrite): refused, the run does not start", FLAG,
            "AMP002", prefix="ValueError: ",
            values={"text": "a keras mixed precision Policy has been set. At most, one of the "
                    "following functions can be called:"}),
    Message("poutyne", "0.1-1.17", "poutyne/framework/callbacks/terminate_on_nan.py "
            "(TerminateOnNaN.on_train_batch_end)",
            "Batch {n}: Invalid loss, terminating training",
            "TerminateOnNaN stopped the run: the loss of a batch (numbered from 1 in its "
            "epoch) is NaN/inf", FLAG, "AMP006", reader="errors", prefix=""),
    Message("torchbearer", "0.1.3-0.5.5", "torchbearer/callbacks/terminate_on_nan.py "
            "(TerminateOnNaN._check)",
            "Invalid {metric}, terminating",
            "TerminateOnNaN stopped the run: the metric it monitors (running_loss by default, "
            "or an evaluation's: val_loss) is NaN/inf", MONITORED, reader="errors", prefix="",
            values={"metric": "running_loss"}),
    Message("PyTorch-Ignite", "0.4-0.5", "ignite/handlers/terminate_on_nan.py",
            "TerminateOnNan: Output '{text}' contains NaN or Inf. Stop training",
            "TerminateOnNan stopped the run", FLAG, "AMP006", reader="errors",
            logger=("ignite.handlers.terminate_on_nan.TerminateOnNan", "WARNING"),
            values={"text": "tensor(nan)"}),
    Message("PaddlePaddle", "2.0-3.3", "python/paddle/amp/grad_scaler.py (AmpScaler._update)",
            "Found inf or nan, current scale is: {before}, decrease to: {before}*0.5",
            "an overflow: skipped, the scale backs off", OVERFLOW, reader="paddle", prefix=""),
    Message("PaddlePaddle", "2.0-3.3", "python/paddle/amp/grad_scaler.py (AmpScaler.__init__)",
            "AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, current "
            "place is {text}, so it makes no effect.",
            "the scaler asked for is off on this device", FLAG, "AMP010", reader="errors",
            prefix="UserWarning: ", values={"text": "Place(cpu)"}),
    Message("PaddlePaddle", "2.0-3.3", "python/paddle/amp/auto_cast.py (amp_guard)",
            "amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, current "
            "place is {text}, so it makes no effect.",
            "autocast asked for is off on this device", FLAG, "AMP010", reader="errors",
            prefix="UserWarning: ", values={"text": "Place(cpu)"}),
    Message("PaddlePaddle", "2.5-3.x", "paddle/phi/kernels/funcs/check_numerics_utils.h, "
            "paddle/fluid/framework/details/nan_inf_utils_detail.cc (FLAGS_check_nan_inf=1, "
            "check_nan_inf_level 0: PADDLE_THROW(\"There are NAN or INF (num_nan=%lld, num_inf="
            "%lld, num_zero=%lld) in %s.\"); 2.5 without num_zero)",
            "There are NAN or INF (num_nan={n}, num_inf={text}",
            "FLAGS_check_nan_inf stopped the run: an op's output holds NaN or Inf (the op, the "
            "tensor and its dtype follow)", FLAG, "AMP006",
            prefix="RuntimeError: (PreconditionNotMet) ",
            values={"n": 0, "text": "4, num_zero=0) in [device=gpu:0, op=divide, tensor=, "
                    "dtype=fp32]."}),
    # AmpScaler's argument checks, as torch's GradScaler's (python/paddle/amp/grad_scaler.py;
    # paddle/fluid/dygraph/amp/loss_scaler.py before 2.3), and its CPU-only build's refusal
    *(Message("PaddlePaddle", "2.0-3.x", "python/paddle/amp/grad_scaler.py, paddle/fluid/"
              "dygraph/amp/loss_scaler.py (AmpScaler.__init__)",
              f"The {name}_ratio must be {bound}.",
              f"GradScaler({name}_ratio=...) {wrong}: the scaler is refused, the run does not "
              "start", FLAG, "AMP002", prefix="AssertionError: ")
      for name, bound, wrong in (("incr", "> 1.0", "at 1 or below"),
                                 ("decr", "< 1.0", "at 1 or above"))),
    Message("PaddlePaddle", "2.0 (read at one version of fluid/dygraph/amp/loss_scaler.py)",
            "paddle/fluid/dygraph/amp/loss_scaler.py (AmpScaler.__init__)",
            "Auto Mixed Precision can only be enabled with Paddle compiled with CUDA.",
            "the scaler asked for is off: a CPU-only build trains unscaled", FLAG, "AMP010",
            prefix="UserWarning: "),
    # Its older wordings (the same check, FLAGS_check_nan_inf=1, before 2.5's counts): each
    # stops the run where an op's output holds NaN or Inf. (2.4's GPU ``===[PRECISION] [ERROR]
    # in ...`` line is left out: it is also printed without stopping, where a scaler handles
    # the overflow.)
    Message("PaddlePaddle", "2.0-2.4", "paddle/fluid/framework/details/nan_inf_utils_detail.cc "
            "(PrintNanInf, CPU tensors; its complex-number checks)",
            "There are `nan` or `inf` in tensor ({tensor}) of operator ({op}).",
            "FLAGS_check_nan_inf stopped the run: an op's output holds NaN or Inf", FLAG,
            "AMP006", prefix="RuntimeError: (PreconditionNotMet) ",
            values={"tensor": "fc_0.tmp_1", "op": "matmul_v2"}),
    Message("PaddlePaddle", "1.7-2.4", "paddle/fluid/framework/details/nan_inf_utils_detail.cc, "
            "nan_inf_utils_detail.cu (CheckNanInf: ``PADDLE_ENFORCE(..., \"===ERROR: in %s find "
            "nan or inf===\", ...)``; 1.7-1.8's CPU ``in [op=%s] [tensor=%s]``)",
            "===ERROR: in {text} find nan or inf===",
            "FLAGS_check_nan_inf stopped the run: an op's output holds NaN or Inf", FLAG,
            "AMP006", prefix="", values={"text": "[op=elementwise_add] [tensor=fc_0.tmp_1]"}),
    # (one check each for NaN and Inf, in that order; XPU and NPU tensors only Inf)
    *(Message("PaddlePaddle", "1.x-2.4", "paddle/fluid/framework/operator.cc "
              "(CheckTensorNANOrInf, FLAGS_check_nan_inf before 1.7; XPU and NPU tensors in "
              "nan_inf_utils_detail.cc to 2.4)",
              f"Operator {{op}} output Tensor {{tensor}} contains {held}",
              f"FLAGS_check_nan_inf stopped the run: an op's output holds {held}", FLAG,
              "AMP006", prefix="FatalError: ",
              values={"tensor": "fc_0.tmp_1", "op": "elementwise_add"})
      for held in ("NAN", "Inf")),
    Message("PaddlePaddle", "2.1-2.4", "paddle/fluid/framework/details/nan_inf_utils_detail.cc "
            "(NPUCheckOpHasNanOrInf, Ascend NPUs)",
            "Operator {op} contains Nan/Inf.", "FLAGS_check_nan_inf stopped the run: an op's "
            "output holds NaN or Inf", FLAG, "AMP006", prefix="RuntimeError: "
            "(PreconditionNotMet) ", values={"op": "elementwise_add"}),
    # -- MosaicML Composer ------------------------------------------------------------------
    Message("composer", "0.12-0.32", "composer/trainer/trainer.py (Trainer.__init__)",
            "Using precision Precision.AMP_FP16",
            "fp16 mixed precision: torch autocast with a GradScaler", SETUP, setup=_FP16,
            logger=("composer.trainer.trainer", "INFO"), prefix=_COMPOSER),
    Message("composer", "0.12-0.32", "composer/trainer/trainer.py (Trainer.__init__)",
            "Using precision Precision.AMP_BF16",
            "bf16 mixed precision: no loss scaler", SETUP, setup=_BF16,
            logger=("composer.trainer.trainer", "INFO"), prefix=_COMPOSER),
    Message("composer", "0.8-0.11", "composer/trainer/trainer.py (Trainer.__init__)",
            "Using precision Precision.AMP",
            "fp16 mixed precision (Precision.AMP, renamed AMP_FP16 in 0.12): autocast with a "
            "GradScaler", SETUP, setup=_FP16, logger=("composer.trainer.trainer", "INFO"),
            prefix=_COMPOSER),
    Message("composer", "0.12-0.32", "composer/core/precision.py, composer/trainer/trainer.py "
            "(_validate_precision)",
            "Precision.AMP_FP16 is not supported for CPU training.",
            "fp16 was asked for on a CPU", FLAG, "AMP010", prefix="ValueError: "),
    Message("composer", "0.11", "composer/trainer/trainer.py (_validate_precision)",
            "Precision.AMP is not supported for CPU training.",
            "fp16 (Precision.AMP) was asked for on a CPU", FLAG, "AMP010",
            prefix="ValueError: "),
    Message("composer", "0.3-0.32", "composer/trainer/trainer.py (_use_grad_scaling)",
            "Attempting to use grad scaling with {text}, but scaler is not enabled.Potentially "
            "your hardware does not support Precision {text}.",
            "fp16 asked for, but the GradScaler is off (no GPU): not active", FLAG, "AMP010",
            prefix="RuntimeError: ", values={"text": "Precision.AMP_FP16"}),
    Message("composer", "0.17-0.32", "composer/callbacks/nan_monitor.py (NaNMonitor.after_loss)",
            "Train loss contains a NaN.",
            "NaNMonitor stopped the run: the training loss is NaN", FLAG, "AMP006",
            prefix="RuntimeError: "),
    Message("composer", "0.17-0.32", "composer/callbacks/nan_monitor.py (NaNMonitor.after_loss)",
            "Train loss {text} contains a NaN.",
            "NaNMonitor stopped the run: a term of the training loss is NaN", FLAG, "AMP006",
            prefix="RuntimeError: ", values={"text": "loss_ce"}),
    # -- torchtune ---------------------------------------------------------------------------
    Message("torchtune", "0.1-0.6", "recipes/full_finetune_*.py, lora_finetune_distributed.py, "
            "qat_*.py, ppo_full_finetune_single_device.py (recipe __init__)",
            "full fp16 training is not supported with this recipe. Please use bf16 or fp32 "
            "instead.",
            "dtype=fp16 asked for: the recipe has no loss scaling and refuses it", FLAG,
            "AMP010", prefix="ValueError: "),
    Message("torchtune", "0.1-0.6", "recipes/lora_finetune_single_device.py, lora_dpo_*.py, "
            "knowledge_distillation_*.py (recipe __init__)",
            "fp16 precision is not supported in this recipe. Please use fp32 or bf16.",
            "dtype=fp16 asked for: the recipe has no loss scaling and refuses it", FLAG,
            "AMP010", prefix="ValueError: "),
    # -- NeMo --------------------------------------------------------------------------------
    Message("NeMo", "1.8-2.4", "nemo/collections/asr/models/asr_model.py "
            "(ASRModel.on_after_backward), audio_to_audio model",
            "detected inf or nan values in gradients! Setting gradients to zero.",
            "skip_nan_grad: a step whose gradients are not finite is dropped (zero gradients)",
            SKIP, prefix=_NEMO_WARNING),
    # -- MXNet: its AMP's dynamic loss scaler (python/mxnet/contrib/amp/loss_scaler.py 1.5-1.9,
    # python/mxnet/amp/loss_scaler.py 2.0), through the root logger: 2**16 at first, halved
    # on an overflow with no floor, doubled after 2000 clean steps up to 2**24 ---------------
    Message("MXNet", "1.5-2.0", "python/mxnet/contrib/amp/loss_scaler.py (LossScaler."
            "has_overflow), python/mxnet/amp/loss_scaler.py",
            "AMP: decreasing loss scale to {after}",
            "an overflow: the step is skipped, the scale halves (printed with ``%f``: a scale "
            "below 1e-6 reads 0.000000)", OVERFLOW, reader="sentences", logger=("root", "INFO"),
            prefix="{level}:{logger}:", values={"after": "32768.000000"}),
    Message("MXNet", "1.5-2.0", "python/mxnet/contrib/amp/loss_scaler.py (LossScaler."
            "has_overflow), python/mxnet/amp/loss_scaler.py",
            "AMP: increasing loss scale to {after}",
            "a growth after 2000 clean steps", GROWTH, logger=("root", "INFO"),
            prefix="{level}:{logger}:", values={"after": "65536.000000"}),
    # -- ONNX Runtime training: its ORTTrainer's loss scaler (the scaler prints nothing else) --
    Message("onnxruntime-training", "the ORTTrainer releases (read at one commit, 369de5c)",
            "orttraining/orttraining/python/training/amp/loss_scaler.py (LossScaler.loss_scale "
            "setter)",
            "'loss_scale' must be a positive float",
            "DynamicLossScaler(loss_scale=...) given an int (``1 << 16``, not ``float(1 << 16)``"
            "), zero or a negative number: refused at its first growth or reset, the run "
            "stops", FLAG,
            "AMP002", prefix="AssertionError: "),
    # -- GluonTS: the MXNet Trainer (gluonts/trainer/_base.py, later gluonts/mx/trainer/_base.py)
    Message("GluonTS", "0.x (the MXNet Trainer)", "gluonts/mx/trainer/_base.py (Trainer.__call__"
            " loop: ``if not np.isfinite(lv)``), gluonts/trainer/_base.py before",
            "Epoch[{n}] gave nan loss",
            "the epoch's running loss is not finite: the epoch stops", FLAG, "AMP006",
            logger=("gluonts.trainer", "WARNING")),
    # -- MindSpore ---------------------------------------------------------------------------
    Message("MindSpore", "1.x-2.x", "mindspore/train/callback/_loss_monitor.py "
            "(LossMonitor.step_end)",
            "epoch: {epoch} step: {step}. Invalid loss, terminating training.",
            "LossMonitor stopped the run: the loss is NaN/inf (``{step}`` counts the batches "
            "of the epoch)", FLAG, "AMP006", prefix="ValueError: ", values={"epoch": 1}),
    Message("MindSpore", "2.x", "mindspore/train/amp.py (build_train_network)",
            "Only `loss_scale_manager=None` or `loss_scale_manager=FixedLossScaleManager("
            "drop_overflow_update=False)`are supported on device `CPU`. ",
            "a dynamic (overflow-dropping) loss scale asked for on CPU: refused", FLAG,
            "AMP010", prefix="ValueError: "),
    Message("mindcv", "read on main (2023-2025)", "mindcv/utils/trainer_factory.py "
            "(create_trainer, the customised train step: EMA, clipping, accumulation)",
            "Only `loss_scale_type` is `fixed` and `drop_overflow_update` is `False`are "
            "supported on device `CPU`.",
            "a dynamic (overflow-dropping) loss scale asked for on CPU: refused", FLAG,
            "AMP010", prefix="ValueError: "),
    # -- icefall (k2-fsa): egs/*/ASR/*/train.py (zipformer recipes), icefall/err.py ------------
    Message("icefall", "2022-11-2026", "egs/*/ASR/zipformer*/train.py (train_one_epoch)",
            "Grad scale is small: {scale}",
            "the GradScaler's scale fell below 0.01 (icefall warns, saves the model, adds its "
            "inf-check hooks)", FLAG, "AMP004", logger=("root", "WARNING"),
            values={"scale": 0.0078125}),
    Message("icefall", "2022-11-2026", "egs/*/ASR/zipformer*/train.py (train_one_epoch), "
            "icefall/err.py (raise_grad_scale_is_too_small_error, 2024-03-2026)",
            "grad_scale is too small, exiting: {scale}",
            "the scale fell below 1e-05 under persistent overflow: the run stops", FLAG,
            "AMP003", prefix="RuntimeError: ", values={"scale": 5.960464477539063e-08}),
    # -- Coqui TTS (coqui-ai/TTS, mozilla/TTS before it) -----------------------------------------
    Message("Coqui TTS", "2020-05-0.22", "TTS/utils/training.py (check_update)",
            " | > Gradient is INF !!",
            "the gradient norm is inf: under AMP the scaler skips the step (fp32 applies it)",
            SKIP, prefix=""),
    Message("Coqui TTS", "0.0.9-0.2", "TTS/bin/train_tacotron.py, train_vocoder_wavegrad.py, "
            "TTS/trainer.py (train_step)",
            "Detected NaN loss at step {step}.",
            "the run stopped on a NaN loss", FLAG, "AMP006", prefix="RuntimeError: "),
    Message("Coqui TTS", "0.0.9-0.22", "TTS/tts/layers/losses.py (GlowTTSLoss, TacotronLoss)",
            " [!] NaN loss with {text}.",
            "the run stopped on a NaN loss term", FLAG, "AMP006", prefix="RuntimeError: ",
            values={"text": "log_mle"}),
    # -- SpeechBrain (older and newer wordings) --------------------------------------------------
    Message("SpeechBrain", "0.5", "speechbrain/core.py (Brain.check_gradients)",
            "Patience not yet exhausted, ignoring this batch.",
            "a non-finite loss, the batch skipped (within nonfinite_patience)", SKIP,
            logger=("speechbrain.core", "WARNING")),
    Message("SpeechBrain", "0.5", "speechbrain/core.py (Brain.check_gradients)",
            "Parameter is not finite: {text}",
            "after a non-finite loss, a parameter itself is NaN/inf: the weights are corrupt",
            FLAG, "AMP006", logger=("speechbrain.core", "WARNING"),
            values={"text": "Parameter containing:"}),
    Message("SpeechBrain", "1.0-1.1", "speechbrain/core.py (Brain.__init__)",
            "The option `--precision` or `--eval_precision` is set to fp16. This option is not "
            "yet supported on CPU. Please use `--precision=bf16` or `--eval_precision=bf16` "
            "instead to enable mixed precision on CPU.",
            "fp16 was asked for on CPU: the run does not start", FLAG, "AMP010",
            prefix="ValueError: "),
    Message("SpeechBrain", "1.0.3-1.1", "speechbrain/core.py (Brain.__init__)",
            "Using training precision: `--precision=fp16`",
            "fp16 mixed precision with a GradScaler (on CUDA)", SETUP, setup=_FP16,
            logger=("speechbrain.core", "INFO")),
    # -- apex (contrib), older wordings --------------------------------------------------------
    Message("apex", "2019-10-2026", "apex/contrib/optimizers/fp16_optimizer.py "
            "(FP16_Optimizer.step)",
            "Grad overflow on iteration {step}",
            "an overflow: the step is skipped, the scale backs off (printed with a leading "
            "newline)", OVERFLOW, reader="deepspeed", prefix=""),
    # -- mmengine: optim/optimizer/amp_optimizer_wrapper.py, runner/amp.py ---------------------
    Message("mmengine", "0.1-0.2", "mmengine/optim/optimizer/amp_optimizer_wrapper.py "
            "(AmpOptimWrapper.__init__)",
            "``AmpOptimizerWrapper`` is only available training on gpu",
            "the AMP optimizer wrapper (fp16 with a GradScaler) asked for without a GPU", FLAG,
            "AMP010", prefix="AssertionError: "),
    Message("mmengine", "0.3-0.7", "mmengine/optim/optimizer/amp_optimizer_wrapper.py "
            "(AmpOptimWrapper.__init__)",
            "``AmpOptimizerWrapper`` is only available training on gpu or npu",
            "the AMP optimizer wrapper asked for without a GPU or NPU", FLAG, "AMP010",
            prefix="AssertionError: "),
    Message("mmengine", "0.8-0.10.2", "mmengine/optim/optimizer/amp_optimizer_wrapper.py "
            "(AmpOptimWrapper.__init__)",
            "``AmpOptimizerWrapper`` is only available training on gpu, npu or mlu",
            "the AMP optimizer wrapper asked for without an accelerator", FLAG, "AMP010",
            prefix="AssertionError: "),
    Message("mmengine", "0.10.3-0.10.7", "mmengine/optim/optimizer/amp_optimizer_wrapper.py "
            "(AmpOptimWrapper.__init__)",
            "``AmpOptimizerWrapper`` is only available training on gpu, npu, mlu or musa",
            "the AMP optimizer wrapper asked for without an accelerator", FLAG, "AMP010",
            prefix="AssertionError: "),
    Message("mmengine", "0.1-0.10.7", "mmengine/runner/amp.py (autocast)",
            "In CPU autocast, only support `torch.bfloat16` dtype",
            "fp16 autocast asked for on CPU: the run does not start", FLAG, "AMP010",
            prefix="AssertionError: "),
    # -- ESPnet: espnet2/train/trainer.py (Trainer.run) ----------------------------------------
    Message("ESPnet", "espnet2 0.9-202x", "espnet2/train/trainer.py (Trainer.run)",
            "The gradients at all steps are invalid in this epoch. Something seems wrong. This "
            "training was stopped at {n}epoch",
            "every step of an epoch had a non-finite gradient norm (skipped): the run stops",
            FLAG, "AMP003", values={"n": 3}),
    Message("ESPnet", "espnet2 0.9-202x", "espnet2/train/trainer.py (Trainer.run)",
            "Require torch>=1.6.0 for  Automatic Mixed Precision",
            "--use_amp true with a torch without torch.cuda.amp: the run does not start", FLAG,
            "AMP010", prefix="RuntimeError: "),
    # -- accelerate, older and newer wordings: src/accelerate/accelerator.py (__init__) --------
    Message("accelerate", "0.11-0.27", "src/accelerate/accelerator.py (Accelerator.__init__: "
            "err.format(mode=\"fp16\", requirement=\"a GPU\"))",
            "fp16 mixed precision requires a GPU",
            "fp16 was asked for on a device without it", FLAG, "AMP010", reader="errors",
            prefix="ValueError: "),
    Message("accelerate", "0.6-0.12", "src/accelerate/accelerator.py (Accelerator.__init__)",
            "fp16 mixed precision requires PyTorch >= 1.6",
            "fp16 was asked for with a torch without torch.cuda.amp", FLAG, "AMP010",
            prefix="ValueError: "),
    Message("accelerate", "1.11-1.14", "src/accelerate/accelerator.py (Accelerator.__init__)",
            "fp16 mixed precision requires a device in {text} (not {value}).",
            "fp16 was asked for on a device without it", FLAG, "AMP010", prefix="ValueError: ",
            values={"text": "('xpu', 'cuda', 'npu', 'xla', 'mlu', 'musa', 'hpu', 'sdaa', 'mps')",
                    "value": "'xla'"}),
    Message("accelerate", "1.11-1.14", "src/accelerate/accelerator.py (Accelerator.__init__)",
            "fp16 mixed precision with MPS device requires a Pytorch >= 2.5.0",
            "fp16 was asked for on MPS with a torch that lacks it", FLAG, "AMP010",
            prefix="ValueError: "),
    # -- transformers, older wordings (read in the released wheels' training_args.py) ----------
    Message("transformers", "3.4-4.1", "src/transformers/training_args.py "
            "(TrainingArguments.__post_init__)",
            "AMP (`--fp16`) can only be used on CUDA devices.",
            "fp16 was asked for on a device without CUDA", FLAG, "AMP010",
            prefix="ValueError: "),
    Message("transformers", "4.2-4.3", "src/transformers/training_args.py "
            "(TrainingArguments.__post_init__)",
            "Mixed precision training with AMP or APEX (`--fp16`) can only be used on CUDA "
            "devices.",
            "fp16 was asked for on a device without CUDA", FLAG, "AMP010",
            prefix="ValueError: "),
    Message("transformers", "4.4-4.12", "src/transformers/training_args.py "
            "(TrainingArguments.__post_init__)",
            "Mixed precision training with AMP or APEX (`--fp16`) and FP16 evaluation can only "
            "be used on CUDA devices.",
            "fp16 (training or full evaluation) was asked for on a device without CUDA", FLAG,
            "AMP010", prefix="ValueError: "),
    Message("transformers", "4.13-4.19", "src/transformers/training_args.py "
            "(TrainingArguments.__post_init__)",
            "Mixed precision training with AMP or APEX (`--fp16` or `--bf16`) and half precision "
            "evaluation (`--fp16_full_eval` or `--bf16_full_eval`) can only be used on CUDA "
            "devices.",
            "fp16 or bf16 was asked for on a device without CUDA", FLAG, "AMP010",
            prefix="ValueError: "),
    # -- fairseq2: src/fairseq2/optim/dynamic_loss_scaler.py (0.1-0.2), trainer.py (0.3-) -------
    Message("fairseq2", "0.1-0.2", "src/fairseq2/optim/dynamic_loss_scaler.py "
            "(DynamicLossScaler._update_scale)",
            "Overflow detected, ignoring gradient, decreasing loss scale from {before} to "
            "{after}.",
            "an overflow: the step is skipped, the scale backs off", OVERFLOW,
            logger=("fairseq2", "INFO"), values={"before": 128.0, "after": 64.0}),
    Message("fairseq2", "0.1-0.2", "src/fairseq2/optim/dynamic_loss_scaler.py "
            "(DynamicLossScaler._update_scale)",
            "Overflow detected, ignoring gradient, decreasing loss scale from {before} to "
            "{after} (minimum). " + _FAIRSEQ2_HINT,
            "an overflow that brings the scale down to min_scale: skipped", OVERFLOW,
            logger=("fairseq2", "ERROR"), values={"before": 0.0002, "after": 0.0001}),
    Message("fairseq2", "0.1-0.2", "src/fairseq2/optim/dynamic_loss_scaler.py "
            "(DynamicLossScaler._update_scale)",
            "Overflow detected, ignoring gradient, loss scale is already at minimum ({scale}). "
            + _FAIRSEQ2_HINT,
            "the scale is at min_scale and still overflows", FLAG, "AMP003",
            logger=("fairseq2", "ERROR"), values={"scale": 0.0001}),
    Message("fairseq2", "0.1-0.2", "src/fairseq2/optim/dynamic_loss_scaler.py "
            "(DynamicLossScaler._update_scale)",
            "No gradient overflow detected in the last {n} step(s), increasing loss scale from "
            "{before} to {after}.",
            "a growth after scale_window clean steps", GROWTH, logger=("fairseq2", "INFO"),
            values={"n": 2000, "before": 64.0, "after": 128.0}),
    Message("fairseq2", "0.3-0.8 (2024-2026)", "src/fairseq2/optim/dynamic_loss_scaler.py, "
            "recipes/trainer.py, trainer.py (Trainer._run_optimizer_step)",
            "Overflow detected at step {step}, ignoring gradient, decreasing loss scale from "
            "{before} to {after}.",
            "an overflow at that step: skipped, the scale backs off", OVERFLOW,
            logger=("fairseq2", "INFO"), values={"before": 128, "after": 64}),
    Message("fairseq2", "0.3-0.4", "src/fairseq2/optim/dynamic_loss_scaler.py "
            "(DynamicLossScaler._update_scale)",
            "Overflow detected at step {step}, ignoring gradient, decreasing loss scale from "
            "{before} to {after} (minimum). " + _FAIRSEQ2_HINT,
            "an overflow that brings the scale down to min_scale: skipped", OVERFLOW,
            logger=("fairseq2", "ERROR"), values={"before": 0.0002, "after": 0.0001}),
    Message("fairseq2", "0.3-0.8 (2024-2026)", "src/fairseq2/optim/dynamic_loss_scaler.py, "
            "trainer.py (Trainer._run_optimizer_step)",
            "Overflow detected at step {step}, ignoring gradient, loss scale is already at "
            "minimum ({scale}). " + _FAIRSEQ2_HINT,
            "the scale is at min_scale and still overflows: the run stops "
            "(MinimumLossScaleReachedError from 0.5)", FLAG, "AMP003",
            logger=("fairseq2", "ERROR"), values={"scale": 0.0001}),
    Message("fairseq2", "0.3-0.8 (2024-2026)", "src/fairseq2/optim/dynamic_loss_scaler.py, "
            "trainer.py (Trainer._run_optimizer_step)",
            "No gradient overflow detected in the last {n} step(s) after step {step}, "
            "increasing loss scale from {before} to {after}.",
            "a growth after scale_window clean steps", GROWTH, logger=("fairseq2", "INFO"),
            values={"n": 2000, "before": 64, "after": 128}),
    Message("fairseq2", "0.3-0.4", "src/fairseq2/recipes/trainer.py (Trainer._run_optimizer_step)",
            "The gradients are scaled down to minimum at step {step}. Training cannot continue.",
            "the scale reached its minimum under persistent overflow: the run stops", FLAG,
            "AMP003", prefix="FloatingPointError: "),
    Message("fairseq2", "0.5-0.8 (2025-2026)", "src/fairseq2/recipe/cli.py "
            "(MinimumLossScaleReachedError)",
            "Loss is scaled down to minimum at step {step}. Training cannot continue.",
            "the scale reached its minimum under persistent overflow: the run stops", FLAG,
            "AMP003", logger=("fairseq2", "ERROR")),
    # -- Marian (C++): src/training/graph_group.cpp, graph_group_sync.cpp; --log-level debug --
    Message("Marian", "1.11-1.12 (2021-10-2025)", "src/training/graph_group.cpp "
            "(GraphGroup::decreaseCostScaleFactor)",
            "Seen NaN/Inf after {n} gradient updates. Reduced cost-scaling factor to {after}",
            "an fp16 overflow: the update is skipped and the cost-scaling factor (the loss "
            "scale) backs off", OVERFLOW, prefix=_MARIAN, values={"n": 1200}),
    Message("Marian", "1.11-1.12 (2021-10-2025)", "src/training/graph_group.cpp "
            "(GraphGroup::decreaseCostScaleFactor)",
            "Seen NaN/Inf after {n} gradient updates, Reduced cost-scaling factor to minimum "
            "{after}. Pruning NaNs now.",
            "an overflow that brings the cost-scaling factor to its minimum: from then on NaNs "
            "are zeroed and infs clipped instead of skipping", OVERFLOW, prefix=_MARIAN,
            values={"n": 40, "after": 1.0}),
    Message("Marian", "1.11-1.12 (2021-10-2025)", "src/training/graph_group.cpp "
            "(GraphGroup::increaseCostScaleFactor)",
            "No NaN/Inf after {n} gradient updates. Increasing cost-scaling factor to {after}",
            "a growth of the cost-scaling factor after the clean updates of its frequency",
            GROWTH, prefix=_MARIAN, values={"n": 1000}),
    Message("Marian", "1.11-1.12 (2021-01-2025)", "src/training/graph_group_sync.cpp "
            "(SyncGraphGroup::update)",
            "Seen NaN in gradient, skipping update, resetting gradient",
            "the gradient is not finite (cost scaling or --check-gradient-nan): the update is "
            "skipped", SKIP, prefix=_MARIAN),
    Message("Marian", _MARIAN_DEV, "src/training/graph_group.cpp "
            "(GraphGroup::decreaseCostScaleFactor)",
            "NaN/Inf percentage {value} in {n} gradient updates, reducing cost-scaling factor "
            "to {after}",
            "overflows above the tolerance in the range: the cost-scaling factor backs off",
            OVERFLOW, prefix=_MARIAN, values={"value": "0.06", "n": 50}),
    Message("Marian", _MARIAN_DEV, "src/training/graph_group.cpp "
            "(GraphGroup::decreaseCostScaleFactor)",
            "NaN/Inf percentage {value} in {n} gradient updates, but cost-scaling factor "
            "{scale} is already at minimum",
            "the cost-scaling factor is at its minimum and the gradients still overflow", FLAG,
            "AMP003", prefix=_MARIAN, values={"value": "0.50", "n": 50, "scale": 1.0}),
    Message("Marian", _MARIAN_DEV, "src/training/graph_group.cpp "
            "(GraphGroup::increaseCostScaleFactor)",
            "NaN/Inf percentage {value} after {n} gradient updates. Increasing cost-scaling "
            "factor to {after}",
            "a growth of the cost-scaling factor after the clean updates of its frequency",
            GROWTH, prefix=_MARIAN, values={"value": "0.00", "n": 1000}),
    # -- AllenNLP: allennlp/training/trainer.py (gradient_descent_trainer.py from 2.0) ----------
    Message("allennlp", "0.7.2-2.10 (2018-11-2022)", "allennlp/training/trainer.py, "
            "gradient_descent_trainer.py (GradientDescentTrainer._train_epoch)",
            "nan loss encountered",
            "the training loss is NaN: the run stops", FLAG, "AMP006", prefix="ValueError: "),
    Message("allennlp", "1.1-2.10 (2020-07-2022)", "allennlp/training/trainer.py, "
            "gradient_descent_trainer.py (GradientDescentTrainer.__init__)",
            "Using AMP requires a cuda device",
            "use_amp asked for on the CPU: the run does not start", FLAG, "AMP010",
            prefix="ValueError: "),
    # -- MMF: mmf/trainers/mmf_trainer.py (MMFTrainer.load_fp16_scaler) -------------------------
    Message("mmf", "2021-02-2026", "mmf/trainers/mmf_trainer.py (MMFTrainer.load_fp16_scaler)",
            "Using Pytorch AMP GradScaler",
            "training.fp16: torch autocast with a GradScaler (said on distributed runs without "
            "fairscale)", SETUP, setup=_FP16, logger=("mmf.trainers.mmf_trainer", "INFO"),
            prefix=_MMF),
    Message("mmf", "2020-10-2026", "mmf/trainers/mmf_trainer.py (MMFTrainer.load_fp16_scaler)",
            "fp16 cannot be used on cpu",
            "training.fp16 asked for on the CPU: the run does not start", FLAG, "AMP010",
            prefix="AssertionError: "),
    Message("mmf", "2020-10-2026", "mmf/trainers/mmf_trainer.py (MMFTrainer.load_fp16_scaler)",
            "Using fp16 requires torch version >- 1.6, found: {text}",
            "training.fp16 with a torch without torch.cuda.amp: the run does not start", FLAG,
            "AMP010", prefix="AssertionError: ", values={"text": "1.5.1"}),
    # -- nanotron: src/nanotron/trainer.py (2023), sanity_checks.py (2024-) --------------------
    Message("nanotron", "2023-09-2025-03", "src/nanotron/trainer.py, sanity_checks.py "
            "(after_optim_step_sanity_checks; with sanity checks on)",
            "Gradient is nan or inf",
            "a gradient is not finite: the run stops", FLAG, "AMP006", prefix="ValueError: "),
    Message("nanotron", "2025-03-2026", "src/nanotron/sanity_checks.py "
            "(after_optim_step_sanity_checks; with sanity checks on)",
            "Gradient is nan or inf for {text}",
            "a parameter's gradient is not finite: the run stops", FLAG, "AMP006",
            prefix="ValueError: ", values={"text": "model.decoder.0.pp_block.attn.qkv_proj"}),
    # -- kohya-ss/sd-scripts: train_network.py, train_db.py, fine_tune.py, sdxl_train*.py -------
    Message("sd-scripts", "2022-12-2026", "train_network.py, train_db.py, fine_tune.py, "
            "sdxl_train.py (--full_fp16)",
            "enable full fp16 training.",
            "--full_fp16: the weights themselves are float16, under accelerate's GradScaler "
            "(patched to unscale fp16 gradients)", SETUP, setup=_FP16, prefix=RANK_ZERO),
    # -- Nerogar/OneTrainer: modules/trainer/GenericTrainer.py (train) -------------------------
    Message("OneTrainer", "2025-2026", "modules/trainer/GenericTrainer.py (train, after the "
            "optimizer step, before step_tqdm.set_postfix)",
            "Training loss became NaN. This may be due to invalid parameters, precision issues, "
            "or a bug in the loss computation.",
            "the accumulated training loss is NaN: the run stops before the bar shows it; the "
            "bar (tqdm over the data loader) already counts the failing step's global_step, so "
            "the NaN step is the last one read", FLAG, "AMP006", prefix="RuntimeError: "),
    # -- VAR (FoundationVision): utils/amp_sc.py (AmpOptimizer.backward_clip_step) ------------
    Message("VAR", "2024-04-2026", "utils/amp_sc.py (AmpOptimizer.backward_clip_step)",
            "[scaler_sc = {scale}]",
            "printed 15 times when math.log2 of the GradScaler's scale fails (a ValueError "
            "follows): the scale has underflowed to 0.0 under persistent overflow", FLAG,
            "AMP004", prefix=RANK_ZERO, values={"scale": 0.0}),
    # -- OpenNMT-tf: opennmt/training.py (Trainer) ---------------------------------------------
    Message("OpenNMT-tf", "2.0-2.32 (2019-2023)", "opennmt/training.py (Trainer._steps)",
            "Model diverged with loss = NaN.",
            "the training loss is NaN: the run stops (tf.estimator's NanTensorHook says it "
            "too, as an error log); checked before the step's own log line, so the NaN step is "
            "past the last one logged", FLAG, "AMP006", prefix="RuntimeError: ", in_step=True),
    # -- NeMo 0.x: the neural-module actions' training loop ------------------------------------
    Message("NeMo", "0.10.0 (2020-01-2020-04)", _NEMO0,
            "WARNING: Loss is NaN or inf",
            "the loss is not finite: the step is dropped (and the run stops when "
            "stop_on_nan_loss)", FLAG, "AMP006", prefix=_NEMO_WARNING),
    Message("NeMo", "0.10.0-0.11.1 (2020)", _NEMO0,
            "Loss is NaN or inf - exiting",
            "the loss is not finite and stop_on_nan_loss is set: the run stops", FLAG,
            "AMP006", prefix="ValueError: "),
    Message("NeMo", "0.10.1 (2020-04)", _NEMO0,
            "Loss is NaN or inf at step {step}, will terminate within the next "
            "steps_per_nan_check steps",
            "the loss is not finite at that step: the run will stop", FLAG, "AMP006",
            prefix=_NEMO_WARNING),
    Message("NeMo", "0.10.1 (2020-04)", _NEMO0,
            "Loss is NaN or inf, continuing training",
            "the loss is not finite (stop_on_nan_loss off): training goes on", FLAG, "AMP006",
            prefix=_NEMO_WARNING),
    Message("NeMo", "0.11.0-0.11.1 (2020-07-2020-08)", _NEMO0,
            "Loss is NaN or inf. Skipping update.",
            "the loss is not finite in an fp32 run (no amp): the update is skipped", SKIP,
            prefix=_NEMO_WARNING),
    Message("NeMo", "0.11.0-0.11.1 (2020-07-2020-08)", _NEMO0,
            "Loss is NaN or inf.",
            "the loss is not finite under apex amp (O1-O3), which skips the step itself", FLAG,
            "AMP006", prefix=_NEMO_WARNING),
    # -- PaddleNLP: paddlenlp/trainer/trainer.py (Trainer: the GradScaler's step) --------------
    Message("PaddleNLP", "2022-2025 (after 2.3, whose trainer_base.py said nothing)",
            "paddlenlp/trainer/trainer.py (Trainer._inner_training_loop, optimizer_step)",
            "optimizer not run, scale_before: {before}, scale_after: {after}",
            "an overflow: the GradScaler skipped the step and backed the scale off", OVERFLOW,
            logger=("PaddleNLP", "WARNING"), prefix=_PADDLENLP),
    # -- big_vision: big_vision/train.py and the trainers after it (the training report) -------
    Message("big_vision", "2022-04-2024-12 (big_vision/train.py; trainers/proj/* to 2025)",
            "big_vision/train.py, trainers/proj/*/train.py (after ``mw.measure(\"training_loss\""
            ", ...)`` of a logging step)",
            "The loss became nan or inf somewhere within steps [{n}, {step}]",
            "the training loss measured at the second step is not finite (finite at the first, "
            "the report before): the run stops", FLAG, "AMP006", prefix="RuntimeError: ",
            values={"n": 1100}),
    Message("big_vision", "2024-12-2025 (big_vision/train.py)",
            "big_vision/train.py (``for k in (\"training_loss\", \"l2_grads\", "
            "\"l2_updates\", \"l2_params\")`` after a logging step's measurements)",
            "{metric} became nan or inf somewhere within steps [{n}, {step}]",
            "the training loss, the gradients', the updates' or the weights' norm measured at "
            "the second step is not finite: the run stops (no loss scaler skipped anything)", FLAG,
            "AMP006", prefix="RuntimeError: ", values={"metric": "l2_grads", "n": 1100}),
    # -- t5x: t5x/trainer.py (TerminateOnNanAction.run, an action on TRAIN_EVAL metrics) ------
    Message("t5x", "2021-11-2026", "t5x/trainer.py (TerminateOnNanAction.run: "
            "``logging.warning(\"Requested `stop_training` in training loop (Details below).\\n "
            "NaN encountered in metric for task : %s\", task)``)",
            "NaN encountered in metric for task : {text}",
            "the monitored metric (``loss`` by default) of a train-eval task is NaN or inf: "
            "the training loop stops", FLAG, "AMP013", prefix=" ",
            values={"text": "wmt_t2t_ende_v003"}),
    # -- scenic: scenic/train_lib/train_utils.py (normalize_metrics_summary) ------------------
    Message("scenic", "2021-07-2026", "scenic/train_lib/train_utils.py "
            "(normalize_metrics_summary, split 'train': raises TrainingDivergedError)",
            "NaN detected in train_{metric} (Unnormalized values: {text})",
            "a training metric summed over the summary's steps is NaN: the run stops before "
            "the summary is written", FLAG, "AMP006",
            prefix="scenic.train_lib.train_utils.TrainingDivergedError: ",
            values={"metric": "loss", "text": "(nan, 1024.0)"}, in_step=True),
    Message("scenic", "2021-07-2026 (raised before 2022-11, then logged as an error after "
            "\"WARNING: Split eval \")", "scenic/train_lib/train_utils.py "
            "(normalize_metrics_summary, split 'eval')",
            "NaN detected in eval_{metric} (Unnormalized values: {text})",
            "an evaluation metric is NaN", FLAG, "AMP013",
            prefix="E0601 10:00:00.000000 139 train_utils.py:772] WARNING: Split eval ",
            values={"metric": "loss", "text": "(nan, 10000.0)"}),
    Message("scenic", "2021-07-2026 (DETR, OWL-ViT, layout_denoise)",
            "scenic/projects/baselines/detr/train_utils.py, owl_vit/utils.py "
            "(normalize_metrics_summary)",
            "NaN detected in train_{metric}",
            "a training metric (a detection loss term) is NaN: the run stops", FLAG, "AMP006",
            prefix="scenic.train_lib.train_utils.TrainingDivergedError: ",
            values={"metric": "loss_bbox"}, in_step=True),
    # -- AutoGluon: its tabular network checks the validation score after each epoch -------
    Message("AutoGluon", "0.1-1.4 (2021-2026)",
            "tabular/src/autogluon/tabular/models/tabular_nn/torch/tabular_nn_torch.py "
            "(TabularNeuralNetTorchModel._assert_valid_metric, after an epoch with a best one)",
            "Warning: NaNs encountered in {text} training. Reverting model to last checkpoint "
            "without NaNs.",
            "the validation score after an epoch is NaN (the weights diverged): the epoch's "
            "model is dropped, the best one restored, training stops", FLAG, "AMP006",
            logger=("autogluon.tabular.models.tabular_nn.torch.tabular_nn_torch", "WARNING"),
            values={"text": "TabularNeuralNetTorchModel"}, in_step=True),
    Message("AutoGluon", "0.1-1.4 (2021-2026)",
            "tabular/src/autogluon/tabular/models/tabular_nn/torch/tabular_nn_torch.py "
            "(TabularNeuralNetTorchModel._assert_valid_metric, the first epoch)",
            "NaNs encountered in {text} training. Features/labels may be improperly "
            "formatted, or NN weights may have diverged.",
            "the validation score after the first epoch is NaN: the model fails (AutoGluon "
            "logs the error and skips it)", FLAG, "AMP006", prefix="RuntimeError: ",
            values={"text": "TabularNeuralNetTorchModel"}, in_step=True),
    # -- hivemind: its own GradScaler (hivemind.GradScaler) under hivemind.Optimizer -----------
    Message("hivemind", "2021-09 on (0.10 CollaborativeOptimizer, 1.0-1.1 Optimizer)",
            "hivemind/optim/grad_scaler.py (GradScaler.step, the collaboration's global step)",
            "Skipping global step due to gradient over/underflow",
            "the averaged fp16 gradients are not finite: the global optimizer step is skipped "
            "(the scale backs off at update())", SKIP,
            logger=("hivemind.optim.grad_scaler.step:93", "WARNING"), prefix=_HIVEMIND,
            in_step=True),
    Message("hivemind", "1.0-1.1 (2021-11 on)",
            "hivemind/optim/optimizer.py (Optimizer._check_and_accumulate_gradients, printed "
            "with verbose=True)",
            "Encountered incorrect value in fp16 grads, resetting local gradients",
            "a local batch's fp16 gradients are not finite: they are dropped, not accumulated, "
            "and the scale backs off", SKIP,
            logger=("hivemind.optim.optimizer", "INFO"), prefix=_HIVEMIND_INFO, in_step=True),
    # -- EveryDream2: optimizer/optimizers.py (EveryDreamOptimizer.__init__), train.py before --
    Message("EveryDream2", "2022-12-2025 (train.py; \" (amp mode)\" after it from 2023-01, "
            "in optimizer/optimizers.py from 2023-04)",
            "optimizer/optimizers.py, train.py (``logging.info(f\" Grad scaler enabled: "
            "{scaler.is_enabled()}\")``)",
            "Grad scaler enabled: True",
            "amp mode: fp16 autocast under a GradScaler (init_scale 2**17.5, growth_interval 25)",
            SETUP, setup=_FP16, prefix=" "),
    # -- H2O LLM Studio: llm_studio/train.py (run_train), raised past the epoch's 20th batch --
    Message("H2O LLM Studio", "2023-04 on (main, read at 2025)",
            "train.py, llm_studio/train.py from 2023-11 (run_train: ``if ~np.isfinite(loss."
            "item()) and (epoch > start_epoch or itr > 20): raise LLMTrainingException(...)``)",
            "NaN caught in loss during training. Please, reduce learning rate, change dtype, "
            "or disable mixed precision. Alternatively, gradient clipping may help to "
            "stabilize training.",
            "the batch's training loss is not finite: the run stops before the step (its "
            "progress bar, updated every 5% of the epoch, never shows it)", FLAG, "AMP006",
            prefix="llm_studio.src.utils.exceptions.LLMTrainingException: ", in_step=True),
    # -- Stanza: stanza/models/constituency/parser_training.py (iterate_training) ---------------
    Message("Stanza", "1.3 on (2021-2025; trainer.py before parser_training.py)",
            "stanza/models/constituency/parser_training.py (iterate_training: a batch whose "
            "loss is NaN adds 0.0 to the epoch's loss and skips optimizer.step())",
            "Had to ignore {n} batches with NaN",
            "batches of the epoch just trained had a NaN loss (left out of its update): said "
            "after the epoch, before its ``Epoch {n} finished`` summary", FLAG, "AMP006",
            logger=("stanza", "WARNING"), prefix="2026-11-30 10:00:00 {level}: ", in_step=True),
    # -- neptune-client 1.x: a NaN/inf logged is dropped, with a warning that names no field --
    # (neptune/internal/warnings.py ``warn_once``: ``[neptune] [warning] {filename}:{lineno}:
    # {category}: {message}``, the file and line the user's call; once per wording)
    Message("neptune-client", "1.x (read on master)", "src/neptune/types/series/"
            "float_series.py (FloatSeries.is_unsupported_float_with_warn: the value is "
            "filtered out of the series)",
            "WARNING: A value you're trying to log (`{value}`) will be skipped because it's a "
            "non-standard float value that is not currently supported.",
            "a value the run appended to a float series (``run[field].append``/``log``) is "
            "NaN/inf: Neptune dropped it from the series (its charts never show it); which "
            "field, the warning does not say (the run's own lines may: a loss, or an "
            "evaluation's metric)", FLAG, "AMP009", prefix=_NEPTUNE, values={"value": "nan"}),
    Message("neptune-client", "1.x (read on master)", "src/neptune/attributes/atoms/float.py "
            "(Float.assign: the value is not assigned)",
            "WARNING: The value you're trying to log is a nonstandard float value ({value}) "
            "that is not currently supported.",
            "a value the run assigned to a float field (``run[field] = value``) is NaN/inf: "
            "Neptune dropped it; which field, the warning does not say", FLAG, "AMP009",
            prefix=_NEPTUNE, values={"value": "inf"}),
    # -- open_clip: src/training/main.py, later src/open_clip_train/main.py (main) -------------
    # (the handler: "%(asctime)s | %(levelname)s | %(message)s", newer releases the logger's
    # name before the message: src/open_clip_train/logger.py)
    Message("open_clip", "2021-2026 (later releases add \" FP16 support needs further "
            "verification and tuning, especially for train.\")", "src/training/main.py, "
            "src/open_clip_train/main.py (main, ``--precision fp16``)",
            "It is recommended to use AMP mixed-precision instead of FP16.",
            "--precision fp16: the weights themselves are float16 (convert_weights_to_lp) and "
            "no GradScaler is made (only ``amp`` makes one; a ``--fsdp`` run's fp16 policy "
            "excepted, in the newest releases): fp16 trains unscaled", FLAG, "AMP001",
            logger=("open_clip_train.main", "WARNING"),
            prefix="2026-11-30,10:00:00 | {level} | {logger} | ", no_scaler_shown=True),
    # (6dc9461, 2026-02-19, on: under ``--fsdp``, ``amp``, ``fp16`` and ``pure_fp16`` all cast
    # the parameters to float16 and ``need_scaler = (fsdp_mp_dtype == torch.float16)``; only
    # the master rank prints it)
    Message("open_clip", "2026-02 on (6dc9461)", "src/open_clip_train/main.py (main, "
            "``--fsdp`` with ``--precision amp``, ``fp16`` or ``pure_fp16``)",
            "FSDP2: MixedPrecisionPolicy(param_dtype=torch.float16, reduce_dtype=torch.float32)."
            " Autocast disabled.",
            "FSDP2 computes in float16 and a GradScaler is made: fp16 with a dynamic scaler",
            SETUP, setup=_FP16, logger=("open_clip_train.main", "INFO"),
            prefix="2026-11-30,10:00:00 | {level} | {logger} | "),
    # -- MONAI: the RetinaNet detector's checks: raised while gradients are on (training), a
    # UserWarning under torch.no_grad() (validation, inference); the rows hold the exception's
    # or the warning's class, the one thing that tells the two apart on the line
    *(Message("MONAI", "0.9.0-1.5 (2022-06 on)", source,
              "ValueError: " + text,
              "the detector's outputs in a training step are NaN/inf (a diverged or fp16-"
              "overflowed forward pass): the run stops before the step's loss is logged",
              FLAG, "AMP006", prefix=RANK_ZERO, in_step=True)
      for source, text in _MONAI_CHECKS),
    *(Message("MONAI", "0.9.0-1.5 (2022-06 on)", source,
              "UserWarning: " + text,
              "the detector's outputs are NaN/inf where no gradient is taken: a validation's "
              "or an inference's (the predictions and their metrics are not finite)",
              FLAG, "AMP013", prefix="/opt/monai/apps/detection/networks/retinanet_detector.py:"
              "902: ")
      for source, text in _MONAI_CHECKS),
    Message("MONAI", "0.9.0-1.5 (2022-05 on)", "monai/data/box_utils.py (box_area, called by "
            "box_iou and box_giou: the matchers' and the losses')",
            "Box area is NaN or Inf. boxes is float16. Please change to float32 and test it "
            "again.",
            "float16 boxes whose area overflows float16's range (65504: a 3D box of 41 voxels a "
            "side) under autocast: refused, the run stops", FLAG, "AMP014",
            prefix="ValueError: "),
    # -- peft: merge(safe_merge=True) checks the merged weights (every tuner's layer.py) ------
    Message("peft", "0.6.0-0.18 (2023-10 on)", "src/peft/tuners/lora/layer.py and every "
            "tuner's layer.py (merge, ``safe_merge=True``)",
            "NaNs detected in the merged weights. The adapter {text} seems to be broken",
            "the trained adapter's weights are not finite (training diverged: a NaN loss or an "
            "fp16 overflow that reached the weights): the merge is refused", FLAG, "AMP006",
            prefix="ValueError: ", values={"text": "default"}),
    # -- sockeye 1.18 (MXNet): TensorboardLogger.log_metrics, at each checkpoint -------------
    # (gradients and parameters are logged as histograms; the source gives the ``%s`` no
    # argument, so logging prints it as it stands)
    Message("sockeye", "1.18.85-1.18.115 (2019-02 on; 2.x's wording at 2.1.7-3.1 is logged "
            "for no array)", "sockeye/training.py (TensorboardLogger.log_metrics, "
            "``--use-tensorboard``)",
            "Not adding the histogram of %s to tensorboard because some of its values are not "
            "finite.",
            "a gradient or a parameter is NaN/inf at the checkpoint (training diverged)", FLAG,
            "AMP006", logger=("sockeye.training", "WARNING"),
            prefix="[2026-11-30:10:00:00:{level}:{logger}:log_metrics] "),
    # -- nnU-Net 1.x: fp16 asked for (its default) without apex, before torch's amp (1.6) --
    # (1.0-1.1.1 logged the same words and trained in fp32: no keyword of the prefilter's)
    Message("nnU-Net", "v1.1.2-1.5.1 (2019-12-2020-08)", "nnunet/training/network_training/"
            "network_trainer.py, nnUNetTrainer.py (_maybe_init_amp)",
            "WARNING: FP16 training was requested but nvidia apex is not installed. Install it "
            "from https://github.com/NVIDIA/apex",
            "fp16 was asked for (nnU-Net's default) and apex is missing: the run is refused "
            "before it trains", FLAG, "AMP010", prefix="RuntimeError: "),
    # -- nnU-Net v2: sliding-window prediction sums its logits in float16 ---------------------
    Message("nnU-Net", "v2.3.1-2.8 (2023-12 on)", "nnunetv2/inference/predict_from_raw_data.py "
            "(predict_sliding_window_return_logits; the final validation after training runs "
            "it too)",
            "Encountered inf in predicted array. Aborting... If this problem persists, reduce "
            "value_scaling_factor in compute_gaussian or increase the dtype of predicted_logits "
            "to fp32",
            "the validation's or inference's summed logits overflowed float16 (nnU-Net keeps "
            "them in half on the GPU)", FLAG, "AMP013", prefix="RuntimeError: "),
    Message("sockeye", "1.18.85-3.1 (2019-02 on)", "sockeye/training.py (1.18: "
            "TrainingModel.fit, check (5); 2.x-3.x: EarlyStoppingTrainer._determine_divergence)",
            "Model optimization diverged. Last checkpoint's perplexity: {value}",
            "the checkpoint's validation perplexity is not finite (or above twice the target "
            "vocabulary's size: a finite blow-up, no finding here): the run is marked diverged "
            "and stops", MONITORED, logger=("sockeye.training", "WARNING"),
            prefix="[2026-11-30:10:00:00:{level}:{logger}:fit] ",
            metric="Validation-perplexity"),
    # -- diffusers' example training scripts (examples/*/train_*.py), before training starts --
    # (the source formats the model's dtype in: the row is its float16 case; a bfloat16 model
    # is refused by the same words and is no fp16 fault)
    Message("diffusers examples", "0.12.0-0.40 (2023-01 on; 15 scripts: dreambooth, "
            "controlnet, t2i_adapter, consistency_distillation, ...)",
            "examples/dreambooth/train_dreambooth.py and the others (main: ``if "
            "unwrap_model(unet).dtype != torch.float32: raise ValueError(...)``)",
            "{text} loaded as datatype torch.float16. Please make sure to always have all model "
            "weights in full float32 precision when starting training - even if doing mixed "
            "precision training. copy of the weights should still be float32.",
            "the model to train was loaded in float16 (``torch_dtype=torch.float16``, or a "
            "--mixed_precision fp16 cast before the check): fp16 weights under the GradScaler, "
            "refused before the first step", FLAG, "AMP012", prefix="ValueError: ",
            values={"text": "Unet"}),
    Message("diffusers examples", "0.31.0-0.40 (2024-09 on)", "examples/controlnet/"
            "train_controlnet_flux.py (main: after ``accelerator.backward(loss)``, one line per "
            "parameter whose gradient holds a NaN)",
            "Gradient for {text} contains NaN!",
            "the step's gradients hold NaNs: under fp16 the scaler skips the step (the lines "
            "before one bar update are that one step); under bf16 the update takes them in, and "
            "the loss the bar shows next says so", SKIP, logger=("__main__", "ERROR"),
            prefix="12/08/2026 10:00:00 - {level} - {logger} - ", in_step=True,
            values={"text": "controlnet_blocks.0.weight"}),
    Message("diffusers examples", "0.34.0-0.40 (2025-05 on)", "examples/research_projects/"
            "sana/train_sana_sprint_diffusers.py (main: the generator's and the "
            "discriminator's phases)",
            "NaN or Inf detected in grad_norm, skipping iteration...",
            "the clipped gradients' norm is not finite: the iteration's update is dropped "
            "(zero_grad, continue)", SKIP, logger=("__main__", "WARNING"),
            prefix="12/08/2026 10:00:00 - {level} - {logger} - "),
    # -- LLaMA-Factory's v1 trainer (src/llamafactory/v1/core/base_trainer.py) ---------------
    Message("LLaMA-Factory", "0.9.5- (v1 trainer, 2026-01 on)", "src/llamafactory/v1/core/"
            "base_trainer.py (BaseTrainer.fit: ``if not torch.isfinite(...grad_norm)``, "
            "else ``optimizer.step()``)",
            "Gradient norm is not finite: {norm}",
            "the step's gradient norm is NaN/inf: its optimizer step is skipped (the scheduler "
            "steps on)", SKIP, logger=("llamafactory.v1.core.base_trainer:317", "WARNING"),
            prefix="[{level}|2026-11-30 10:00:00] {logger} >> "),
    # -- icefall's zipformer ScaledAdam: egs/librispeech/ASR/zipformer/optim.py ---------------
    Message("icefall", "2023-11 on (zipformer recipes, read at 2026-06)",
            "egs/librispeech/ASR/zipformer/optim.py (ScaledAdam._get_clipping_scale: the "
            "median of the recent gradient norms is NaN)",
            "Too many grads were not finite",
            "the gradients' norms have been NaN/inf for many of the recent steps (past the "
            "scaler, or with none): the optimizer stops the run", FLAG, "AMP006",
            prefix="RuntimeError: "),
)
