"""What a DeepSpeed engine tells denpex: its config's ``"denpex"`` section (what it may hold and
how it is read), the run's setup (:func:`engine_setup`), an engine it cannot watch
(:func:`refuse_pipeline_engine`).

Every key of the section but ``enabled`` is a
:class:`~denpex_callbacks.core.config.MonitorConfig` field, resolved by the one resolver every
adapter's options go through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import deepspeed

from denpex_callbacks.core.config import MonitorConfig, build_config
from denpex_callbacks.core.run_setup import RunSetup, active_precision, dtype_name
from denpex_callbacks.readers.deepspeed_optimizer import deepspeed_setup, scales_fp16

__all__ = [
    "ENABLED_KEY",
    "SECTION",
    "engine_config_section",
    "engine_setup",
    "monitor_config",
    "refuse_pipeline_engine",
]

SECTION = "denpex"
ENABLED_KEY = "enabled"


def monitor_config(section: Mapping[str, Any] | None) -> MonitorConfig | None:
    """The MonitorConfig a ``"denpex"`` config section asks for; None when it disables it.

    A missing section means the defaults. Keys: ``enabled`` (default true) and every
    :class:`~denpex_callbacks.core.config.MonitorConfig` field.

    Raises:
        ValueError: On an unknown key or a bad value, naming the section and the key.

    Example:
        >>> monitor_config({"on_falt": "warn"})
        Traceback (most recent call last):
        ...
        ValueError: DeepSpeed config section "denpex": unknown key(s) on_falt; known keys: ...
    """
    if section is None:
        return MonitorConfig()
    where = f'DeepSpeed config section "{SECTION}"'
    if not isinstance(section, Mapping):
        raise ValueError(f"{where} must be a JSON object, not {type(section).__name__}")
    known = sorted({f.name for f in fields(MonitorConfig)} | {ENABLED_KEY})
    unknown = sorted(str(key) for key in section if key not in known)
    if unknown:
        raise ValueError(
            f"{where}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(known)}"
        )
    if section.get("alert_webhook") is not None:
        # DeepSpeed logs its whole config (json = {...}) at start-up on rank 0.
        raise ValueError(
            f'{where}: "alert_webhook" would be printed with the config by DeepSpeed at '
            "start-up; set DENPEX_ALERT_WEBHOOK in the environment instead"
        )
    options = dict(section)
    enabled = options.pop(ENABLED_KEY, True)
    if not isinstance(enabled, bool):
        raise ValueError(f'{where}: "{ENABLED_KEY}" must be true or false, not {enabled!r}')
    try:  # the one resolver every adapter's options go through
        config = build_config(options)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {exc}") from exc
    return config if enabled else None


def engine_config_section(engine: Any) -> Any:
    """The raw ``"denpex"`` section of the engine's config (None when absent)."""
    config = getattr(engine, "config", None)
    if not isinstance(config, Mapping):  # older engines: the parsed config keeps the dict
        config = getattr(getattr(engine, "_config", None), "_param_dict", None) or {}
    return config.get(SECTION)


def engine_setup(engine: Any) -> RunSetup:
    """The run's setup as the engine gives it: the precision asked for and the one computed
    in, the loss scaler (DeepSpeed's own, or torch_autocast's GradScaler), ZeRO, accumulation.
    """
    autocast = bool(getattr(engine, "torch_autocast_enabled", lambda: False)())
    if engine.fp16_enabled():
        requested, compute = "fp16", "float16"
    elif engine.bfloat16_enabled():
        requested, compute = "bf16", "bfloat16"
    elif autocast:
        compute = dtype_name(engine.torch_autocast_dtype())
        requested = f"torch_autocast {compute}"
    else:
        requested, compute = None, "float32"
    setup = RunSetup(
        framework="deepspeed",
        framework_version=deepspeed.__version__,
        requested_precision=requested,
    )
    setup.extra["zero_stage"] = engine.zero_optimization_stage()
    setup.extra["gradient_accumulation_steps"] = engine.gradient_accumulation_steps()
    setup.extra["optimizer"] = type(engine.optimizer).__name__
    setup.extra["device"] = str(getattr(engine, "device", "unknown"))
    setup.extra["gradient_clipping"] = float(engine.gradient_clipping() or 0) or None
    deepspeed_setup(engine, setup)
    # DeepSpeed's bf16 keeps fp32 master weights (mixed); its torch_autocast fp16 had no
    # GradScaler before 0.18 (pure fp16 then; tests/versions/test_facts_deepspeed.py).
    setup.active_precision = active_precision(
        compute, has_scaler=setup.has_scaler or scales_fp16(engine), autocast=True)
    return setup


def refuse_pipeline_engine(engine: Any) -> None:
    """Refuse a PipelineEngine, whose ``train_batch()`` steps without ``engine.step()``.

    Raises:
        ValueError: ``engine`` is a PipelineEngine.
    """
    from deepspeed.runtime.pipe.engine import PipelineEngine

    if isinstance(engine, PipelineEngine):
        raise ValueError(
            "denpex_callbacks.deepspeed does not watch a PipelineEngine yet: train_batch() "
            "runs its optimizer step without engine.step(). Remove the \"denpex\" section "
            "(or set \"enabled\": false) for pipeline-parallel runs, and use "
            "`denpex diagnose` on the training log instead."
        )
