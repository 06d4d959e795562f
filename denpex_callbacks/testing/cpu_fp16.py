"""fp16 with a real loss scaler on a CPU: for tests and CI machines without a GPU.

Hugging Face Trainer ignores ``fp16=True`` on CPU (accelerate builds a GradScaler only off
the CPU) and DeepSpeed refuses fp16 on CPUs whose oneDNN lacks fp16, although torch's CPU fp16
kernels run. These helpers give each framework its real fp16 path on CPU, so a CI job can test
what a GPU run does (``denpex_callbacks`` itself never needs them).

Example:
    >>> torch_runs_fp16_on_cpu()
    True
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from typing import Any

import torch

__all__ = [
    "DEEPSPEED_CPU_FP16_CONFIG",
    "accelerate_fp16_on_cpu",
    "deepspeed_cpu_fp16_config",
    "deepspeed_fp16_on_cpu",
    "hf_fp16_on_cpu",
    "torch_runs_fp16_on_cpu",
]

# A ds_config whose fp16 path runs on CPU with DeepSpeed 0.19: ZeRO 1/2 with torch's Adam (no
# compiled fused Adam), no clipping (DeepSpeed's CPU clip path is fp32-only), a small start scale.
DEEPSPEED_CPU_FP16_CONFIG: dict[str, Any] = {
    "train_micro_batch_size_per_gpu": 4,
    "gradient_accumulation_steps": 1,
    "gradient_clipping": 0,
    "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
    "fp16": {"enabled": True, "initial_scale_power": 8},
    "zero_optimization": {"stage": 2},
}


def torch_runs_fp16_on_cpu() -> bool:
    """Whether torch runs an fp16 matmul and its backward on this CPU.

    Example:
        >>> isinstance(torch_runs_fp16_on_cpu(), bool)
        True
    """
    try:
        layer = torch.nn.Linear(4, 4).half()
        layer(torch.randn(2, 4, dtype=torch.float16)).float().sum().backward()
    except RuntimeError:
        return False
    return layer.weight.grad is not None and layer.weight.grad.dtype == torch.float16


def accelerate_fp16_on_cpu(accelerator: Any, **scaler_kwargs: Any) -> torch.amp.GradScaler:
    """Give an ``Accelerator(mixed_precision="fp16", cpu=True)`` a real fp16 path.

    accelerate builds no scaler and no autocast on a CPU and trains in fp32 (checked with
    accelerate 1.15). Call this before ``accelerator.prepare``: the accelerator gets a
    ``torch.amp.GradScaler("cpu", **scaler_kwargs)`` and fp16 autocast; the rest is
    accelerate's own path (``accelerator.backward`` scales, the prepared optimizer steps through
    the scaler and updates it).

    Args:
        accelerator: An ``accelerate.Accelerator`` asked for ``mixed_precision="fp16"``.
        **scaler_kwargs: ``init_scale``, ``growth_interval``... of the GradScaler.

    Returns:
        The scaler, to read or assert on in a test.

    Raises:
        ValueError: When the accelerator was not asked for fp16.

    Example:
        >>> from accelerate import Accelerator
        >>> accelerator = Accelerator(mixed_precision="fp16", cpu=True)
        >>> accelerate_fp16_on_cpu(accelerator, init_scale=1024.0).get_scale()
        1024.0
    """
    if str(getattr(accelerator, "mixed_precision", "")) != "fp16":
        raise ValueError("accelerate_fp16_on_cpu: the Accelerator was not asked for "
                         "mixed_precision='fp16'")
    scaler = torch.amp.GradScaler("cpu", **scaler_kwargs)
    accelerator.scaler = scaler
    accelerator.native_amp = True  # accelerate's switch for autocast + the scaler
    return scaler


def hf_fp16_on_cpu(trainer: Any, **scaler_kwargs: Any) -> torch.amp.GradScaler:
    """Give a Hugging Face Trainer built with ``fp16=True, use_cpu=True`` a real fp16 path.

    Call it after building the Trainer and before ``train()``: its accelerator gets a CPU
    GradScaler and fp16 autocast (:func:`accelerate_fp16_on_cpu`); the rest is the Trainer's own
    path (``scaler.scale(loss).backward()``, ``unscale_`` before clipping, the
    AcceleratedOptimizer's ``scaler.step`` and ``update``). Checked with transformers 4.50-5.24 and
    accelerate 1.15. Under DeepSpeed the loss scale is DeepSpeed's own: wrap ``train()`` in
    :func:`deepspeed_fp16_on_cpu` instead.

    Args:
        trainer: A ``transformers.Trainer`` whose arguments ask for ``fp16=True``.
        **scaler_kwargs: ``init_scale``, ``growth_interval``... of the GradScaler.

    Returns:
        The scaler, to read or assert on in a test.

    Raises:
        ValueError: When the Trainer was not asked for fp16, or trains under DeepSpeed.

    Example:
        >>> import torch
        >>> from transformers import Trainer, TrainingArguments
        >>> args = TrainingArguments("/tmp/denpex-doc", fp16=True, use_cpu=True, report_to=[])
        >>> trainer = Trainer(torch.nn.Linear(2, 1), args)
        >>> hf_fp16_on_cpu(trainer, init_scale=1024.0).get_scale()
        1024.0
    """
    if not getattr(trainer.args, "fp16", False):
        raise ValueError("hf_fp16_on_cpu: the Trainer's arguments do not ask for fp16=True")
    if getattr(trainer.args, "deepspeed", None) or getattr(trainer, "is_deepspeed_enabled", False):
        raise ValueError(
            "hf_fp16_on_cpu: this Trainer trains under DeepSpeed, whose fp16 optimizer keeps "
            "its own loss scale (a GradScaler would never be used); run "
            "`with deepspeed_fp16_on_cpu(): trainer.train()` instead "
            "(from denpex_callbacks.testing.cpu_fp16)")
    return accelerate_fp16_on_cpu(trainer.accelerator, **scaler_kwargs)


@contextlib.contextmanager
def deepspeed_fp16_on_cpu() -> Iterator[None]:
    """Let ``deepspeed.initialize`` build fp16 engines on a CPU that torch runs fp16 on.

    DeepSpeed's CPU accelerator answers ``is_fp16_supported()`` from oneDNN's fp16 support
    (``torch.ops.mkldnn._is_mkldnn_fp16_supported()``), false on many x86 CPUs although torch's
    CPU fp16 kernels work. Inside the block only that answer is replaced; the engine, its
    optimizer and its loss scaler are DeepSpeed's own. Use it with
    :data:`DEEPSPEED_CPU_FP16_CONFIG` (see :func:`deepspeed_cpu_fp16_config`).

    Raises:
        RuntimeError: When torch itself cannot run fp16 on this CPU.

    Example (DeepSpeed prints its accelerator line on first use, so the doctest is not run;
    ``tests/deepspeed/test_cpu_fp16.py`` runs it)::

        import deepspeed
        with deepspeed_fp16_on_cpu():
            engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                              config=deepspeed_cpu_fp16_config())
    """
    from deepspeed.accelerator import get_accelerator

    accelerator = type(get_accelerator())
    original = accelerator.is_fp16_supported
    if not get_accelerator().is_fp16_supported():
        if not torch_runs_fp16_on_cpu():
            raise RuntimeError("torch cannot run fp16 matmul/backward on this CPU")
        accelerator.is_fp16_supported = lambda self: True
    try:
        yield
    finally:
        accelerator.is_fp16_supported = original


def deepspeed_cpu_fp16_config(**overrides: Any) -> dict[str, Any]:
    """A copy of :data:`DEEPSPEED_CPU_FP16_CONFIG` with top-level keys replaced.

    Example:
        >>> deepspeed_cpu_fp16_config(zero_optimization={"stage": 1})["zero_optimization"]
        {'stage': 1}
    """
    config = copy.deepcopy(DEEPSPEED_CPU_FP16_CONFIG)
    config.update(overrides)
    return config
