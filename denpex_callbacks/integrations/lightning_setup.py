"""What a Lightning Trainer tells the callback, from its public attributes: the run's setup,
the logger namespace, whether a batch writes a logger row, the batch's loss, where a stop
checkpoint goes. Shared by both namespaces
(``lightning.pytorch`` and ``pytorch_lightning``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import torch

from denpex_callbacks.core.run_setup import PRECISION_WORDS, RunSetup, active_precision
from denpex_callbacks.core.versions import package_versions
from denpex_callbacks.readers.deepspeed_optimizer import (
    DeepSpeedReader,
    deepspeed_setup,
    scales_fp16,
)
from denpex_callbacks.readers.grad_scaler import (
    GradScalerReader,
    optimizer_has_fp16_params,
    scaler_enabled,
    scaler_setup,
)
from denpex_callbacks.readers.scale_reading import NoScaler, StepReader

if TYPE_CHECKING:
    from denpex_callbacks.integrations.pipeline import StepPipeline

__all__ = [
    "computes_in_fp16",
    "logs_this_step",
    "loss_of",
    "namespace_of",
    "run_setup",
    "save_stop_checkpoint",
    "scale_readers",
    "user_logs",
]

def run_setup(trainer: Any, requested_precision: str | None = None) -> RunSetup:
    """The run's setup as the Trainer gives it: the precision flag and plugin, the loss scaler
(the plugin's GradScaler or DeepSpeed's), the strategy and device, gradient clipping.

Args:
    trainer: The Lightning Trainer (either namespace), past its setup.
    requested_precision: The Trainer's ``precision`` argument when known.
"""
    plugin = trainer.precision_plugin
    flag = str(getattr(plugin, "precision", "") or "")
    # The version of the package whose Trainer runs, read as HF's and the header's are.
    package = "pytorch-lightning" if namespace_of(trainer) == "pytorch_lightning" else "lightning"
    setup = RunSetup(
        framework="lightning",
        framework_version=package_versions("lightning").get(package),
        requested_precision=requested_precision or flag or None,
        extra={
            "precision_plugin": type(plugin).__name__,
            "strategy": type(trainer.strategy).__name__,
            "device": str(getattr(trainer.strategy, "root_device", "unknown")),
            "precision_flag": flag,
            "gradient_clipping": getattr(trainer, "gradient_clip_val", None) or None,
        },
    )
    scaler = getattr(plugin, "scaler", None)
    engine = getattr(trainer.strategy, "deepspeed_engine", None)
    optimizer = trainer.optimizers[0] if trainer.optimizers else None
    if scaler_enabled(scaler):
        scaler_setup(scaler, setup)
        setup.extra["scale_reader"] = "torch"
        setup.fp16_parameters = optimizer_has_fp16_params(optimizer)
    elif engine is not None:
        deepspeed_setup(engine, setup)
        if setup.scaler is not None:
            setup.extra["scale_reader"] = "deepspeed"
    else:
        setup.fp16_parameters = optimizer_has_fp16_params(optimizer)
    # 16-mixed with a disabled scaler is fp16 autocast without one: pure fp16.
    word = PRECISION_WORDS.get(flag)
    setup.active_precision = active_precision(
        word.compute if word is not None else None,
        has_scaler=setup.has_scaler or scales_fp16(engine),
        autocast=word is not None and word.mixed)
    return setup


def scale_readers(trainer: Any, setup: RunSetup, pipeline: StepPipeline) -> StepReader:
    """The run's scale reader (``setup.extra["scale_reader"]``, from :func:`run_setup`),
    attached (removed when ``pipeline`` closes): the precision plugin's GradScaler, or the
    DeepSpeed engine's, its exit watched as the DeepSpeed adapter's, else :class:`NoScaler`."""
    reader = setup.extra.get("scale_reader")
    if reader == "torch":
        scaler = getattr(trainer.precision_plugin, "scaler", None)
        return GradScalerReader.attached(scaler, on_error=pipeline.fail,
                                         on_close=pipeline.on_close) or NoScaler()
    if reader == "deepspeed":
        def ended(error: BaseException) -> None:  # (numbered before the step, as Lightning)
            pipeline.framework_ended(int(trainer.global_step), deepspeed.refused(), error)

        deepspeed, scaler_reader = DeepSpeedReader.attached(
            trainer.strategy.deepspeed_engine, on_exit=ended, on_error=pipeline.fail,
            on_close=pipeline.on_close)
        return scaler_reader or deepspeed
    return NoScaler()


def computes_in_fp16(trainer: Any, requested_precision: str | None = None) -> bool:
    """Whether the run computes in fp16 (mixed, or pure: then AMP001 applies)."""
    try:
        precision = run_setup(trainer, requested_precision).active_precision
    except Exception:  # unreadable: watch it; the guarded start reports what breaks
        return True
    return precision.startswith("fp16")


def user_logs(trainer: Any) -> bool:
    """Whether the user's module logs step metrics (seen in the last row sent to loggers)."""
    return any(not str(name).startswith("amp/") and name != "epoch"
               for name in trainer.logged_metrics)


def save_stop_checkpoint(trainer: Any) -> None:
    """Save through Lightning (``trainer.save_checkpoint``) beside the ModelCheckpoint's
    files, or in ``default_root_dir/checkpoints``; any fsspec URL works."""
    keeper = trainer.checkpoint_callback
    folder = getattr(keeper, "dirpath", None) or os.path.join(
        str(trainer.default_root_dir), "checkpoints")
    name = f"denpex-stop-step={trainer.global_step}.ckpt"
    trainer.save_checkpoint(os.path.join(str(folder), name))


def namespace_of(trainer: Any) -> str:
    module = type(trainer).__module__
    return "pytorch_lightning" if module.startswith("pytorch_lightning") else "lightning.pytorch"


def logs_this_step(trainer: Any, global_step: int) -> bool:
    """Whether Lightning writes a logger row after this batch (every ``log_every_n_steps``).

    From public attributes: at ``on_train_batch_end`` of a batch that stepped, the optimizer
    steps so far (``global_step``) are the batches that stepped, counting this one, which is
    what Lightning's logger connector tests right after the hook.
    """
    every = int(getattr(trainer, "log_every_n_steps", 1) or 0)
    if every <= 0:
        return False
    return global_step % every == 0 or bool(trainer.should_stop) or bool(trainer.fast_dev_run)


def loss_of(outputs: Any) -> torch.Tensor | None:
    """The batch's loss tensor from ``training_step``'s output (still on its device; the
    LossAccumulator keeps a detached copy, or reads a CPU value at once)."""
    # Lightning hands a dict: checked first, the Mapping ABC check is slow for every batch.
    loss = outputs.get("loss") if isinstance(outputs, (dict, Mapping)) else outputs
    return loss if isinstance(loss, torch.Tensor) else None
