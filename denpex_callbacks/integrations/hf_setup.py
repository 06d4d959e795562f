"""What a Hugging Face Trainer run asked for and runs, and the Trainer's ways the callback
lives with: where its callback list puts it, how a checkpoint resume rebuilds it.

- :func:`read_setup`, read once at ``on_train_begin`` (no sync): the requested precision from
  ``TrainingArguments``, the active one from what is really there (a live loss scaler,
  accelerate's autocast wrapper, the parameters' dtype), the scaler's settings, and what the
  fix texts must not ask for again.
- :func:`scale_readers`, the run's scale reader, chosen and attached: DeepSpeed's optimizer
  under DeepSpeed, else the GradScaler behind accelerate's optimizer.
- the workarounds on HF's internals, each with its reason and the release it was checked on:
  :func:`run_before_integrations` (and :func:`add_to_row`, which it makes work) and
  :func:`trained_module` (the torch.compile wrapper the Trainer trains through), both found
  through the frames that called the callback.

Checkpoint resume is :mod:`~denpex_callbacks.integrations.hf_resume`'s.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

from transformers import TrainerCallback
from transformers.trainer_callback import CallbackHandler, DefaultFlowCallback, TrainerState
from transformers.training_args import TrainingArguments
from transformers.utils import logging as hf_logging

from denpex_callbacks.core.run_setup import (
    RunSetup,
    active_precision,
    dtype_name,
    parameter_dtype,
)
from denpex_callbacks.core.versions import package_versions
from denpex_callbacks.readers import deepspeed_optimizer as ds_reader
from denpex_callbacks.readers import grad_scaler as torch_scaler
from denpex_callbacks.readers.scale_reading import NoScaler, StepReader

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = [
    "NO_LOSS_NOTE",
    "add_to_row",
    "deepspeed_engine",
    "read_setup",
    "run_before_integrations",
    "scale_readers",
    "trained_module",
    "trains_under_deepspeed",
    "wrapped_model",
]

LOGGER = hf_logging.get_logger("transformers.denpex")
NO_LOSS_NOTE = (
    "denpex: the model's forward returned no loss (a custom compute_loss, or no labels in the "
    "batch): the loss detectors (AMP006 non-finite loss, AMP007 loss at zero) cannot see it; "
    "the loss-scale detectors still run. Return the loss from the model's forward (first in a "
    "tuple, or as \"loss\") to watch it.")


def trains_under_deepspeed(args: TrainingArguments) -> bool:
    """Whether the Trainer's arguments put it under DeepSpeed (a config, or a plugin)."""
    return bool(getattr(args, "deepspeed", None)) or (
        getattr(args, "deepspeed_plugin", None) is not None)


def scale_readers(
    optimizer: Any, pipeline: StepPipeline, *, deepspeed: bool,
    on_exit: Callable[[BaseException], Any],
) -> tuple[StepReader, ds_reader.DeepSpeedReader | None]:
    """The run's scale reader, and DeepSpeed's (its refused step, the loss its engine
    backpropagates) under DeepSpeed, attached, their removal registered with ``pipeline``.

    Under DeepSpeed: its optimizer behind accelerate's wrapper (``on_exit`` hears DeepSpeed's
    own end of the run), and the GradScaler of its torch_autocast mode if it keeps one; else
    the GradScaler behind accelerate's optimizer, when one is enabled. A GradScaler is read
    over DeepSpeed's optimizer; with neither, :class:`NoScaler`.
    """
    deepspeed_reader = None
    if deepspeed:
        deepspeed_reader, scaler = ds_reader.DeepSpeedReader.attached(
            optimizer, on_exit=on_exit, on_error=pipeline.fail, on_close=pipeline.on_close)
    else:
        scaler = torch_scaler.GradScalerReader.attached(
            getattr(optimizer, "scaler", None), on_error=pipeline.fail, on_close=pipeline.on_close)
    return scaler or deepspeed_reader or NoScaler(), deepspeed_reader


def _warmup_steps(args: TrainingArguments) -> int | None:
    """Configured warm-up steps (``warmup_steps``, or ``warmup_ratio`` of ``max_steps``)."""
    steps = getattr(args, "warmup_steps", 0) or 0
    ratio = getattr(args, "warmup_ratio", 0) or 0
    if not steps and ratio and args.max_steps and args.max_steps > 0:
        steps = math.ceil(ratio * args.max_steps)
    return int(steps) or None


def read_setup(
    args: TrainingArguments, model: Any, optimizer: Any, deepspeed: bool = False
) -> RunSetup:
    """What the run asked for and what really runs, read at ``on_train_begin`` (no sync).

    Active precision comes from what is really there: a live loss scaler (GradScaler behind
    accelerate, or DeepSpeed's), accelerate's autocast wrapper on the model (it keeps the
    original as ``model._original_forward``), else the parameters' dtype. So
    ``fp16=True`` on CPU, which accelerate quietly runs in fp32, reads as fp32 (AMP010).

    Example:
        >>> import torch
        >>> args = TrainingArguments("out", fp16=True, use_cpu=True, report_to=[])
        >>> model = torch.nn.Linear(2, 1)
        >>> setup = read_setup(args, model, torch.optim.SGD(model.parameters(), lr=0.1))
        >>> setup.requested_precision, setup.active_precision, setup.scaler
        ('fp16', 'fp32', None)
    """
    requested = "fp16" if args.fp16 else "bf16" if args.bf16 else "fp32"
    setup = RunSetup(
        framework="hf",
        framework_version=package_versions("hf").get("transformers"),
        requested_precision=requested,
        nan_inf_filter=bool(args.logging_nan_inf_filter),
        pretrained_dtype=_config_dtype(model),
        rank=args.process_index,
        world_size=args.world_size,
        extra={"device": str(args.device), "optim": str(args.optim),
               "max_grad_norm": args.max_grad_norm,
               # What the fix texts must not ask for again (core/fixes.py).
               "gradient_clipping": args.max_grad_norm or None,
               "warmup_steps": _warmup_steps(args),
               "gradient_accumulation_steps": args.gradient_accumulation_steps},
    )
    if deepspeed:
        ds_reader.deepspeed_setup(optimizer, setup)
        setup.extra["deepspeed"] = True
    else:
        torch_scaler.scaler_setup(getattr(optimizer, "scaler", None), setup)
        raw = getattr(optimizer, "optimizer", optimizer)
        setup.fp16_parameters = torch_scaler.optimizer_has_fp16_params(raw)
    autocast = model is not None and hasattr(model, "_original_forward")
    if autocast:
        compute = "bfloat16" if args.bf16 else "float16"
    else:  # no autocast wrapper: the parameters' dtype is what runs
        params = parameter_dtype([model])
        compute = params if params in ("float16", "bfloat16") else "float32"
    setup.active_precision = active_precision(
        compute, has_scaler=setup.has_scaler, autocast=autocast)
    return setup


def _config_dtype(model: Any) -> str | None:
    config = getattr(model, "config", None)
    dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    return dtype_name(dtype) if dtype is not None else None


def run_before_integrations(callback: TrainerCallback) -> None:
    """Move ``callback`` right after DefaultFlowCallback in the Trainer's callback list.

    Why (no public way; checked on transformers 4.50-5.24, tests/versions/test_facts_hf.py):
    Trainer builds ``logs`` inside ``_maybe_log_save_evaluate`` and calls ``on_log`` on
    DefaultFlowCallback, then the report_to integrations, then user callbacks; no earlier event
    sees that dict, so metrics added by a callback placed last never reach TensorBoard/W&B.
    Callbacks are not given the Trainer, but ``CallbackHandler.call_event`` (our caller) holds
    the handler as ``self``. A checkpoint resume re-adds stateful callbacks at the end, so this
    runs at every ``on_train_begin``. Reordering the list while ``call_event`` iterates it is
    safe here: only entries before our index move, so the iteration continues with the same
    next callback. If the handler is not found, the metrics reach only ``log_history``.
    """
    for handler in _callers(sys._getframe(1), 6):
        if isinstance(handler, CallbackHandler) and callback in handler.callbacks:
            order = [cb for cb in handler.callbacks if cb is not callback]
            flow = [i for i, cb in enumerate(order) if isinstance(cb, DefaultFlowCallback)]
            order.insert(flow[0] + 1 if flow else 0, callback)
            handler.callbacks[:] = order
            return
    LOGGER.info("denpex: callback handler not found; amp/ metrics go to log_history only")


def wrapped_model() -> Any:
    """The Trainer's ``model_wrapped`` (what it calls in a training step: a torch.compile
    wrapper, the DeepSpeed engine...), or None when the Trainer is not found. Call it from
    ``on_train_begin``.

    Why (no public way; checked on transformers 5.24): callbacks are given ``model=`` the
    Trainer's ``self.model``, the module inside the ``OptimizedModule`` that accelerate's
    ``prepare`` returned under ``torch_compile=True``, and never the DeepSpeed engine; the
    Trainer keeps what it calls as ``model_wrapped`` (set before ``on_train_begin``) and is the
    ``self`` of a frame above the callback handler's.
    """
    for owner in _callers(sys._getframe(1), 8):
        wrapped = getattr(owner, "model_wrapped", None)
        if wrapped is not None and hasattr(owner, "callback_handler"):
            return wrapped
    return None


def trained_module(model: Any, wrapped: Any) -> Any:
    """What the locator and the re-run watch: the torch.compile wrapper around ``model`` when
    the Trainer calls one (hooks on it run in eager Python outside the compiled graph, where a
    step's inputs can be captured), else ``model``. Without the wrapper a failing step is
    located but not re-run (the diagnosis says why).

    Example:
        >>> import torch
        >>> model = torch.nn.Linear(2, 1)
        >>> trained_module(model, None) is model
        True
    """
    compiled = type(wrapped).__name__ == "OptimizedModule"
    return wrapped if compiled and getattr(wrapped, "_orig_mod", None) is model else model


def deepspeed_engine(wrapped: Any) -> Any:
    """The DeepSpeed engine the Trainer trains through, or None.

    Example:
        >>> import torch
        >>> deepspeed_engine(torch.nn.Linear(2, 1)) is None
        True
    """
    is_engine = callable(getattr(wrapped, "backward", None)) and hasattr(wrapped, "global_steps")
    return wrapped if is_engine else None


def _callers(frame: FrameType | None, depth: int) -> Iterator[Any]:
    """The ``self`` of ``frame`` and of up to ``depth - 1`` frames above it."""
    for _ in range(depth):
        if frame is None:
            return
        yield frame.f_locals.get("self")
        frame = frame.f_back


def add_to_row(logs: dict[str, Any], state: TrainerState, metrics: dict[str, float]) -> None:
    """Add ``metrics`` to a training log row, for the report_to sinks and ``log_history``.

    The callback's on_log runs before the report_to integrations (see
    :func:`run_before_integrations`), so keys added to ``logs`` reach TensorBoard/W&B/...;
    ``log_history`` already holds a copy of logs (``Trainer.log`` copies before on_log), so
    that entry is updated as well.
    """
    logs.update(metrics)
    history = state.log_history
    if history and history[-1].get("step") == state.global_step and "loss" in history[-1]:
        history[-1].update(metrics)
