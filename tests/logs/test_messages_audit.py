"""The message table audited against the tools' own source, newest and oldest releases: the
rows it lacked, each on the line as the tool prints it (its logger's prefix, its traceback's
last line), inside an excerpt built from the tool's format strings, beside healthy controls.

Read for the audit: torch 2.13 (``torch/amp/grad_scaler.py``, ``torch/amp/autocast_mode.py``,
``torch/distributed/fsdp/sharded_grad_scaler.py``, ``torch/nn/utils/clip_grad.py``, installed
here) and the 1.6-2.2 ``torch/cuda/amp/grad_scaler.py`` (search index); Lightning-AI/pytorch-
lightning's tags 0.5.0-2.6.0 (``git grep`` per tag); transformers 4.0, 4.2, 4.9, 4.12, 4.20,
4.46 (``trainer.py``, ``training_args.py`` from the wheels) and 5.24 (installed: mixed
precision is accelerate's there); accelerate 1.15 and DeepSpeed 0.19.8 (installed);
NVIDIA/apex before 25.05 removed ``apex/amp``; fairseq's v0.6.0-v0.12.3 tags; Megatron-LM,
ColossalAI, mmengine, detectron2 and timm at two to four points of their history each;
keras 3's ``loss_scale_optimizer.py`` (search index).

Each fault test failed on the parent commit (cdac682): the doctor said nothing of these lines.

Left out of the table, with why: torch 1.9-1.x's ``FutureWarning: Non-finite norm encountered
in torch.nn.utils.clip_grad_norm_; continuing anyway...``, Lightning 2.x's ``precision=16 is
supported for historical reasons ...``, apex's ``Selected optimization level O1: ...`` and
DeepSpeed 0.19's ``Creating torch.float16 ZeRO stage 2 optimizer`` hold no prefilter keyword
(each would cost one more pass over every log; Lightning's and DeepSpeed's facts are said by
lines the doctor reads). apex's ``Warning:  unscaling grads that are not FP32 ...`` is also
printed by a healthy O3 run with a dynamic scale; fairseq 0.10-0.12's ``your device does NOT
support faster training with --fp16`` and DeepSpeed's older ``Creating fp16 ZeRO stage N
optimizer`` are printed for bf16 runs too; PaddlePaddle's ``For float16, amp only support
NVIDIA GPU with Compute Capability 7.0 or higher ...`` switches AMP off in some releases, not
in others; fairseq's ``overflow in param {name}`` follows an overflow already counted; timm
1.0's ``float16 is not recommended for training`` is a pure fp16 model, which no setup says.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, hf_rows, megatron_line
from test_detect2_formats import _detectron2
from test_lightning_bars_formats import _bar, _v1

from denpex_callbacks.logs.events import FP16_SHOWN, SETUP
from denpex_callbacks.logs.parsers import parse_line

_DEEPSPEED = "[2026-11-30 10:00:00,000] [{level}] [{where}] "


def _traceback(call: str, frames: list[tuple[str, int, str, str]], last: str) -> list[str]:
    """A Python traceback as the interpreter prints it (``Traceback (most recent call
    last):``, ``  File "{file}", line {n}, in {function}`` over each frame's source line),
    ``last`` its closing ``Error: message`` line."""
    lines = ["Traceback (most recent call last):",
             '  File "train.py", line 97, in <module>', f"    {call}"]
    for path, number, function, source in frames:
        lines += [f'  File "{path}", line {number}, in {function}', f"    {source}"]
    return [*lines, last]


# --- torch: GradScaler's argument checks ---------------------------------------------------


def test_torch_growth_factor_refused_is_scaler_misuse(tmp_path: Path) -> None:
    """pytorch/pytorch ``torch/amp/grad_scaler.py`` (``GradScaler.__init__``: ``raise
    AssertionError("The growth factor must be > 1.0.")``; an ``assert`` with the same text in
    ``torch/cuda/amp/grad_scaler.py`` 1.6-2.2): ``GradScaler(growth_factor=1.0)``."""
    lines = _traceback("scaler = torch.amp.GradScaler('cuda', growth_factor=1.0)",
                       [("/x/torch/amp/grad_scaler.py", 144, "__init__",
                         'raise AssertionError("The growth factor must be > 1.0.")')],
                       "AssertionError: The growth factor must be > 1.0.")
    assert faults(tmp_path, lines) == [("AMP002", None)]


def test_torch_backoff_factor_refused_is_scaler_misuse(tmp_path: Path) -> None:
    """The same ``__init__``'s ``"The backoff factor must be < 1.0."``: ``backoff_factor=2``
    (a growth factor given to the wrong argument)."""
    lines = _traceback("scaler = torch.cuda.amp.GradScaler(backoff_factor=2.0)",
                       [("/x/torch/cuda/amp/grad_scaler.py", 118, "__init__",
                         'assert backoff_factor < 1.0, "The backoff factor must be < 1.0."')],
                       "AssertionError: The backoff factor must be < 1.0.")
    assert faults(tmp_path, lines) == [("AMP002", None)]


# --- transformers 4.x: the Trainer's fp16 notes -----------------------------------------------
_HF = "12/07/2026 10:00:00 - {level} - {logger} - "  # the examples' logging.basicConfig format


def test_transformers_fp16_backend_is_an_fp16_setup() -> None:
    """transformers 4.2-4.12 ``src/transformers/trainer.py`` (``Trainer.__init__``:
    ``logger.info(f"Using {self.fp16_backend} fp16 backend")``), before 4.13's ``Using
    {args.half_precision_backend} half precision backend``."""
    line = _HF.format(level="INFO", logger="transformers.trainer") + "Using amp fp16 backend"
    assert [e.setup for e in parse_line(line) if e.kind == SETUP] == [
        {"active_precision": "fp16-mixed", "scaler": "dynamic"}]


def test_transformers_apex_fp16_backend_healthy_run_is_silent(tmp_path: Path) -> None:
    """Control: ``--fp16 --fp16_backend apex`` (not the default ``auto``), then the
    Trainer's ``log()`` rows of a healthy run."""
    lines = [_HF.format(level="INFO", logger="transformers.trainer") + "Using apex fp16 backend",
             *hf_rows()]
    assert faults(tmp_path, lines) == []


def test_transformers_fp16_on_cpu_refused(tmp_path: Path) -> None:
    """transformers 4.20-4.46 ``src/transformers/trainer.py`` (``Trainer.__init__``: ``raise
    ValueError("Tried to use `fp16` but it is not supported on cpu")``, 4.46 only with torch
    before 2.3): ``--fp16`` on a machine without a GPU."""
    lines = [_HF.format(level="WARNING", logger="__main__") + "Process rank: 0, device: cpu, "
             "n_gpu: 0, distributed training: False, 16-bits training: True",
             *_traceback("trainer = Trainer(model=model, args=training_args)",
                         [("/x/transformers/trainer.py", 695, "__init__",
                           'raise ValueError("Tried to use `fp16` but it is not supported on '
                           'cpu")')],
                         "ValueError: Tried to use `fp16` but it is not supported on cpu")]
    assert faults(tmp_path, lines) == [("AMP010", None)]


# --- pytorch_lightning 0.8-1.6: Trainer(terminate_on_nan=True) ---------------------------------


def _v1_until(batch: int) -> list[str]:
    """A 1.x fit's first epoch (test_lightning_bars_formats' builder: 500 training batches,
    50 validation, ``val_check_interval=0.5``, a line every 25 batches) up to ``batch``."""
    lines = _v1(train=500, val=50, runs=2, epochs=1, every=25)
    return lines[:next(i for i, line in enumerate(lines) if f"| {batch}/600 " in line) + 1]


def test_lightning_terminate_on_nan_loss_stops_the_run(tmp_path: Path) -> None:
    """Lightning-AI/pytorch-lightning 1.4-1.6 ``pytorch_lightning/loops/`` (``raise
    ValueError(f"The loss returned in `training_step` is {loss}.")``; 0.8-1.3 ``trainer/
    training_tricks.py``: ``... is nan or inf.``): the loss of the step after the bar's last
    line is NaN."""
    lines = [*_v1_until(200),
             *_traceback("trainer.fit(model, datamodule=dm)",
                         [("/x/pytorch_lightning/loops/utilities.py", 44, "check_finite_loss",
                           'raise ValueError(f"The loss returned in `training_step` is '
                           '{loss}.")')],
                         "ValueError: The loss returned in `training_step` is tensor(nan, "
                         "device='cuda:0', grad_fn=<DivBackward0>).")]
    assert faults(tmp_path, lines) == [("AMP006", 201)]
    older = [*_v1_until(200), "ValueError: The loss returned in `training_step` is nan or inf."]
    assert faults(tmp_path, older) == [("AMP006", 201)]


def test_lightning_terminate_on_nan_parameters_stop_the_run(tmp_path: Path) -> None:
    """The same releases' ``detect_nan_parameters`` (``utilities/finite_checks.py``: ``raise
    ValueError(f"Detected nan and/or inf values in `{name}`." " Check your forward pass for
    numerically unstable operations.")``), after the step's loss passed."""
    lines = [*_v1_until(300),
             *_traceback("trainer.fit(model)",
                         [("/x/pytorch_lightning/utilities/finite_checks.py", 42,
                           "detect_nan_parameters", "raise ValueError(")],
                         "ValueError: Detected nan and/or inf values in `decoder.proj.bias`. "
                         "Check your forward pass for numerically unstable operations.")]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


def test_lightning_terminate_on_nan_healthy_run_is_silent(tmp_path: Path) -> None:
    """Control: the same fit (two validation runs an epoch, not the default one), healthy to
    its last batch: ``terminate_on_nan`` prints nothing then."""
    assert faults(tmp_path, _v1_until(600)) == []


# --- Lightning: AMP with LBFGS, clipping with a fused optimizer -------------------------------


def test_lightning_amp_with_lbfgs_is_scaler_misuse(tmp_path: Path) -> None:
    """Lightning-AI/pytorch-lightning 2.x ``src/lightning/pytorch/plugins/precision/amp.py``
    (``MixedPrecision.optimizer_step``: ``raise MisconfigurationException("AMP and the LBFGS
    optimizer are not compatible.")``) after its ``Using 16-bit Automatic Mixed Precision
    (AMP)`` (``accelerator_connector.py``)."""
    lines = ["Using 16-bit Automatic Mixed Precision (AMP)",
             "GPU available: True (cuda), used: True",
             *_traceback("trainer.fit(model)",
                         [("/x/lightning/pytorch/plugins/precision/amp.py", 78,
                           "optimizer_step", 'raise MisconfigurationException("AMP and the LBFGS '
                           'optimizer are not compatible.")')],
                         "lightning.fabric.utilities.exceptions.MisconfigurationException: AMP "
                         "and the LBFGS optimizer are not compatible.")]
    assert faults(tmp_path, lines) == [("AMP002", None)]
    # 1.5-1.9: pytorch_lightning/plugins/precision/native_amp.py, the optimizer's index said
    native = ["Using 16bit native Automatic Mixed Precision (AMP)",
              "pytorch_lightning.utilities.exceptions.MisconfigurationException: Native AMP and "
              "the LBFGS optimizer are not compatible (optimizer 1)."]
    assert faults(tmp_path, native) == [("AMP002", None)]


def test_lightning_clipping_a_fused_optimizer_under_amp(tmp_path: Path) -> None:
    """2.x ``plugins/precision/amp.py`` (``MixedPrecision.clip_gradients``: ``f"The current
    optimizer, {type(optimizer).__qualname__}, does not allow for gradient clipping because it
    performs unscaling of gradients internally. HINT: Are you using a 'fused' optimizer?"``):
    ``gradient_clip_val=1.0`` with ``Adam(fused=True)``."""
    lines = ["Using 16-bit Automatic Mixed Precision (AMP)",
             _bar("Epoch 0", 0, 400, "v_num=7"),
             "RuntimeError: The current optimizer, Adam, does not allow for gradient clipping "
             "because it performs unscaling of gradients internally. HINT: Are you using a "
             "'fused' optimizer?"]
    assert faults(tmp_path, lines) == [("AMP002", None)]


# --- DeepSpeed 0.19: the dtype named when no accelerator is found -------------------------------


def _ds(level: str, where: str, message: str) -> str:
    """deepspeed/utils/logging.py's ``[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:
    %(funcName)s] %(message)s``."""
    return _DEEPSPEED.format(level=level, where=where) + message


def test_deepspeed_fp16_without_accelerator(tmp_path: Path) -> None:
    """microsoft/DeepSpeed 0.19 ``deepspeed/runtime/fp16/fused_optimizer.py`` (``raise
    SystemError(f"Cannot use {low_precision_dtype} without accelerator.")``; 0.16-0.18 said
    ``fp16``, the table's older row)."""
    lines = [_ds("INFO", "logging.py:107:log_dist", "[Rank 0] DeepSpeed Basic Optimizer = "
                 "FusedAdam"),
             _ds("INFO", "logging.py:107:log_dist", "[Rank 0] Creating fp16 optimizer with "
                 "dynamic loss scale"),
             *_traceback("engine, *_ = deepspeed.initialize(model=model, config=cfg)",
                         [("/x/deepspeed/runtime/fp16/fused_optimizer.py", 76, "__init__",
                           'raise SystemError(f"Cannot use {low_precision_dtype} without '
                           'accelerator.")')],
                         "SystemError: Cannot use torch.float16 without accelerator.")]
    assert faults(tmp_path, lines) == [("AMP010", None)]


_ZERO_FAILS = ("SystemError: Accelerator is not detected, cannot perform low precision "
               "training (e.g., fp16, bf16).")


def test_deepspeed_zero_without_accelerator_counts_where_fp16_is_shown() -> None:
    """0.19 ``deepspeed/runtime/zero/stage_1_and_2.py`` (``DeepSpeedZeroOptimizer.__init__``)
    says fp16 or bf16: its AMP010 is held until the log shows fp16 asked for."""
    flags = [e for e in parse_line(_ZERO_FAILS) if e.code == "AMP010"]
    assert len(flags) == 1 and (flags[0].evidence or {}).get(FP16_SHOWN) is True


def test_deepspeed_bf16_zero_without_accelerator_is_no_fp16_fault(tmp_path: Path) -> None:
    """Control: a bf16 ZeRO-2 config (``"bf16": {"enabled": true}``, not the fp16 default of
    the examples): 0.19's ``engine.py`` (``_configure_zero_optimizer``: ``log_dist(f'Creating
    {model_dtype} ZeRO stage {zero_stage} optimizer')``), then the same error: no fp16 fault."""
    lines = [_ds("INFO", "logging.py:107:log_dist", "[Rank 0] Creating torch.bfloat16 ZeRO "
                 "stage 2 optimizer"),
             *_traceback("engine, *_ = deepspeed.initialize(model=model, config=cfg)",
                         [("/x/deepspeed/runtime/zero/stage_1_and_2.py", 259, "__init__",
                           'raise SystemError("Accelerator is not detected, cannot perform low '
                           'precision training (e.g., fp16, bf16).")')],
                         _ZERO_FAILS)]
    assert faults(tmp_path, lines) == []


# --- fairseq: its device notes and its OOM, 0.6-0.12 ------------------------------------------
_FAIRSEQ_0_12 = "2026-12-07 10:00:00 | INFO | {logger} | "  # fairseq_cli/train.py basicConfig


def _fairseq_0_9(updates: int) -> list[str]:
    """fairseq 0.6-0.9's simple progress bar (``fairseq/progress_bar.py``: ``print('{}:
    {:5d} / {:d} {}'.format(self.prefix, i, size, stats))``, prefix ``| epoch 001``), every 50
    updates, under ``--fp16`` at a scale of 64."""
    return [f"| epoch 001:  {n:5d} / 3000 loss={9 - n / 1000:.3f}, nll_loss={8.5 - n / 1000:.3f}, "
            f"ppl={2 ** (8.5 - n / 1000):.2f}, wps=9000, ups=2, wpb=4000, bsz=128, "
            f"num_updates={n}, lr=0.0007, gnorm=0.9, clip=0.000, oom=0.000, loss_scale=64.000, "
            f"wall={n}, train_wall={n}" for n in range(50, updates + 1, 50)]


def test_fairseq_oom_in_all_workers_is_no_amp_fault(tmp_path: Path) -> None:
    """facebookresearch/fairseq 0.6-0.9 ``fairseq/trainer.py`` (``train_step``: ``print("|
    WARNING: OOM in all workers, skipping update")``): a memory fault, said as such, not an
    overflow."""
    lines = [*_fairseq_0_9(400), *["| WARNING: OOM in all workers, skipping update"] * 3]
    assert faults(tmp_path, lines) == [("SYS001", 400)]


def test_fairseq_device_notes_are_setups() -> None:
    """fairseq ``trainer.py`` (``_build_optimizer``): without --fp16/--bf16/--amp, 0.10's
    ``logger.info("NOTE: your device may support faster training with --fp16")`` (0.12: ``...
    or --amp``); with --fp16 on a GPU before compute capability 7, 0.6-0.9's ``print("|
    WARNING: your device does NOT support faster training with --fp16, please switch to FP32
    which is likely to be faster")``."""
    fp32 = (_FAIRSEQ_0_12.format(logger="fairseq.trainer")
            + "NOTE: your device may support faster training with --fp16 or --amp")
    fp16 = ("| WARNING: your device does NOT support faster training with --fp16, please switch "
            "to FP32 which is likely to be faster")
    assert [e.setup for e in parse_line(fp32) if e.kind == SETUP] == [
        {"active_precision": "fp32", "scaler": None}]
    assert [e.setup for e in parse_line(fp16) if e.kind == SETUP] == [
        {"active_precision": "fp16-mixed", "scaler": "dynamic"}]


def test_fairseq_fp16_on_an_old_gpu_healthy_run_is_silent(tmp_path: Path) -> None:
    """Control: the 0.9 note, then a healthy --fp16 run at ``--fp16-init-scale 64``."""
    lines = ["| WARNING: your device does NOT support faster training with --fp16, please switch "
             "to FP32 which is likely to be faster", *_fairseq_0_9(1500)]
    assert faults(tmp_path, lines) == []


def test_fairseq_fp16_on_tpu_refused(tmp_path: Path) -> None:
    """fairseq 0.10-0.12 ``fairseq/trainer.py`` (``Trainer.__init__``: ``raise
    ValueError("Cannot combine --fp16 and --tpu, use --bf16 on TPUs")``)."""
    lines = [_FAIRSEQ_0_12.format(logger="fairseq_cli.train") + "Namespace(fp16=True, tpu=True)",
             *_traceback("cli_main()", [("/x/fairseq/trainer.py", 80, "__init__",
                                         'raise ValueError("Cannot combine --fp16 and --tpu, '
                                         'use --bf16 on TPUs")')],
                         "ValueError: Cannot combine --fp16 and --tpu, use --bf16 on TPUs")]
    assert faults(tmp_path, lines) == [("AMP010", None)]


# --- Megatron-LM: its dynamic-scaling notice, Megatron-FSDP's and the NaN debug hook's raises ---
_DYNAMIC = ("Setting args.check_for_nan_in_loss_and_grad to False since dynamic loss scaling is "
            "being used")


def test_megatron_dynamic_scaling_notice_is_an_fp16_setup() -> None:
    """NVIDIA/Megatron-LM ``megatron/training/arguments.py`` (``validate_args``: 2023-12's
    ``print('WARNING: Setting args.check_for_nan_in_loss_and_grad to False since ' 'dynamic loss
    scaling is being used')``, later ``warn_rank_0`` through ``warnings.warn``)."""
    for line in ("WARNING: " + _DYNAMIC,
                 "/x/megatron/training/arguments.py:1202: UserWarning: " + _DYNAMIC):
        assert [e.setup for e in parse_line(line) if e.kind == SETUP] == [
            {"active_precision": "fp16-mixed", "scaler": "dynamic"}], line


def test_megatron_dynamic_scaling_healthy_run_is_silent(tmp_path: Path) -> None:
    """Control: the notice, then iterations whose scale grows from 4096 (``--initial-loss-scale
    4096``, not 2**32) with no skipped or NaN iteration."""
    lines = ["WARNING: " + _DYNAMIC,
             *[megatron_line(i, loss=3.0 - i / 1e4, scale=4096.0 * 2 ** (i // 1000))
               for i in range(100, 3001, 100)]]
    assert faults(tmp_path, lines) == []


def test_megatron_fsdp_nan_wgrad_stops_the_run(tmp_path: Path) -> None:
    """Megatron-LM 2026-03 on ``megatron/core/distributed/fsdp/src/megatron_fsdp/
    param_and_grad_buffer.py`` (``raise ValueError(f"[Megatron-FSDP](check_for_nan_in_grad=True)
    Detected NaN or Inf in wgrad: {grad}")``)."""
    lines = [*[megatron_line(i, loss=3.0 - i / 1e4, scale=1.0) for i in range(10, 201, 10)],
             "[rank5]: ValueError: [Megatron-FSDP](check_for_nan_in_grad=True) Detected NaN or "
             "Inf in wgrad: tensor([nan, nan, nan], device='cuda:5', dtype=torch.bfloat16)"]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


def test_megatron_nan_debug_hook_stops_the_run(tmp_path: Path) -> None:
    """Megatron-LM 2026-07 on ``megatron/core/models/audio/nemo_transformer_encoder.py``
    (``raise RuntimeError(f"[NaN DEBUG] NaN/Inf detected at '{name}'. Stopping training.")``,
    after its ``logger`` line of counts)."""
    lines = [*[megatron_line(i, loss=4.0 - i / 1e4, scale=1.0) for i in range(10, 101, 10)],
             "RuntimeError: [NaN DEBUG] NaN/Inf detected at 'encoder.layers.7'. Stopping "
             "training."]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


# --- detectron2: the geometry checks that stop a diverged run ----------------------------------


def test_detectron2_non_finite_proposals_stop_the_run(tmp_path: Path) -> None:
    """facebookresearch/detectron2 0.2-0.6 ``detectron2/modeling/proposal_generator/
    proposal_utils.py`` (``find_top_rpn_proposals``: ``raise FloatingPointError("Predicted
    boxes or scores contain Inf/NaN. Training has diverged.")``), after
    test_detect2_formats' ``CommonMetricPrinter`` lines (every 20 iterations)."""
    lines = [*_detectron2(end=400),
             *_traceback("trainer.train()", [("/x/detectron2/modeling/proposal_generator/"
                                              "proposal_utils.py", 109, "find_top_rpn_proposals",
                                              "raise FloatingPointError(")],
                         "FloatingPointError: Predicted boxes or scores contain Inf/NaN. Training "
                         "has diverged.")]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]
    clipped = [*_detectron2(end=400), "AssertionError: Box tensor contains infinite or NaN!"]
    assert [code for code, _ in faults(tmp_path, clipped)] == ["AMP006"]


# --- timm 0.1-0.3: apex amp switched off under DataParallel ------------------------------------


def test_timm_apex_amp_disabled_under_data_parallel(tmp_path: Path) -> None:
    """huggingface/pytorch-image-models 2019-04 to 2020-11 ``train.py`` (``main``:
    ``logging.warning('Apex AMP does not work well with nn.DataParallel, disabling. Use DDP or
    Torch AMP.')``) with ``--amp --num-gpu 2``, then its ``Train:`` lines (``'Train: {} [{:>4d}/
    {} ({:>3.0f}%)]  Loss: {loss.val:>9.6f} ({loss.avg:>6.4f})'``)."""
    lines = ["Apex AMP does not work well with nn.DataParallel, disabling. Use DDP or Torch AMP.",
             *[f"Train: 0 [{b:>4d}/1251 ({100 * b / 1251:>3.0f}%)]  Loss: {6.9 - b / 1e3:>9.6f} "
               f"({6.9 - b / 2e3:>6.4f})  Time: 0.512s,  500.00/s  (0.520s,  492.31/s)  LR: "
               "1.000e-04  Data: 0.010 (0.012)" for b in range(0, 1251, 50)]]
    assert faults(tmp_path, lines) == [("AMP010", None)]


# --- keras 3: the loss scale wrapper refuses keras 2's arguments --------------------------------


def test_keras3_static_loss_scale_refused(tmp_path: Path) -> None:
    """keras-team/keras 3 ``keras/src/optimizers/loss_scale_optimizer.py``
    (``LossScaleOptimizer.__init__``: ``raise ValueError("LossScaleOptimizer no longer supports
    `dynamic=False`. " "Instead, simply set `loss_scale_factor` directly on the "
    "`inner_optimizer`.")``): keras 2 code asking for a static scale; and its refusal of an
    inner optimizer's argument (``f"LossScaleOptimizer does not support `{arg_name}`. "
    f"Instead, set `{arg_name}` on the `inner_optimizer`."``)."""
    lines = _traceback("opt = keras.mixed_precision.LossScaleOptimizer(inner, dynamic=False)",
                       [("/x/keras/src/optimizers/loss_scale_optimizer.py", 52, "__init__",
                         "raise ValueError(")],
                       "ValueError: LossScaleOptimizer no longer supports `dynamic=False`. "
                       "Instead, simply set `loss_scale_factor` directly on the "
                       "`inner_optimizer`.")
    assert faults(tmp_path, lines) == [("AMP002", None)]
    clipped = ["ValueError: LossScaleOptimizer does not support `clipnorm`. Instead, set "
               "`clipnorm` on the `inner_optimizer`."]
    assert faults(tmp_path, clipped) == [("AMP002", None)]
