"""What a Hugging Face Trainer run asked for and what really runs, and the loss its model returns.

Read once, at ``on_train_begin`` (no sync): the requested precision from ``TrainingArguments``,
the active one from what is really there (a live loss scaler, accelerate's autocast wrapper,
the parameters' dtype), the scaler's settings, and what the fix texts must not ask for again.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import torch
from transformers.training_args import TrainingArguments

from denpex_callbacks.core.run_setup import RunSetup, active_precision
from denpex_callbacks.core.versions import package_versions
from denpex_callbacks.readers import deepspeed_optimizer as ds_reader
from denpex_callbacks.readers import grad_scaler as torch_scaler
from denpex_callbacks.readers.step_values import after_step_reader, before_step_reader

__all__ = ["StepReaders", "model_loss", "read_setup", "step_readers"]


class StepReaders(NamedTuple):
    """How one optimizer's steps are read, found once (Trainer passes the same optimizer at
    every step)."""

    optimizer: Any
    before: Callable[[], dict[str, Any]]  # the scale the backward used, found_inf
    after: Callable[[], dict[str, Any]]  # the scale and growth tracker after the step
    host: tuple[Any, Any, Any] | None  # (optimizer, its CPU GradScaler, the raw optimizer)


def step_readers(optimizer: Any, *, deepspeed: bool) -> StepReaders:
    """The readers of ``optimizer`` (accelerate's wrapper, or DeepSpeed's engine optimizer),
    and, for a GradScaler on the CPU, what the adapter's hot path reads as plain numbers.

    Example:
        >>> readers = step_readers(None, deepspeed=False)
        >>> readers.before(), readers.after(), readers.host
        ({}, {}, None)
    """
    if deepspeed:
        source, raw = optimizer, None
    else:
        source, raw = getattr(optimizer, "scaler", None), getattr(optimizer, "optimizer", None)
    cpu_scaler = (source is not None and torch_scaler.is_grad_scaler(source)
                  and torch_scaler.scaler_enabled(source)
                  and getattr(source, "_device", None) == "cpu")
    return StepReaders(
        optimizer,
        before_step_reader(source, raw) if source is not None else dict,
        after_step_reader(source) if source is not None else dict,
        (optimizer, source, raw) if cpu_scaler and not deepspeed else None,
    )


def model_loss(output: Any) -> torch.Tensor | None:
    """The loss a model's forward returned: ``output["loss"]`` (a ModelOutput or dict), or
    the first element of a tuple (``return_dict=False`` with labels) when it is a scalar.

    Example:
        >>> import torch
        >>> loss = torch.tensor(2.0)
        >>> model_loss({"loss": loss}) is loss, model_loss((loss, torch.ones(4, 3))) is loss
        (True, True)
        >>> model_loss((torch.ones(4, 3),)) is None
        True
    """
    if isinstance(output, (dict, Mapping)):  # a ModelOutput is a dict: no ABC check per step
        loss = output.get("loss")
    elif isinstance(output, (tuple, list)) and output:
        loss = output[0]
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            return None
    else:
        return None
    return loss if isinstance(loss, torch.Tensor) and loss.is_floating_point() else None


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
    params = _param_dtype(model)
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
        compute = {torch.float16: "float16", torch.bfloat16: "bfloat16"}.get(params, "float32")
    setup.active_precision = active_precision(
        compute, has_scaler=setup.has_scaler, autocast=autocast)
    return setup


def _config_dtype(model: Any) -> str | None:
    config = getattr(model, "config", None)
    dtype = getattr(config, "dtype", None) or getattr(config, "torch_dtype", None)
    return str(dtype).replace("torch.", "") if dtype is not None else None


def _param_dtype(model: Any) -> torch.dtype | None:
    parameters = getattr(model, "parameters", None)
    if parameters is None:
        return None
    first = next(iter(parameters()), None)
    return first.dtype if first is not None else None
