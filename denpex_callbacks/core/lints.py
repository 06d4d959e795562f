"""Start-up checks on a run's configuration: wrong before the first step is taken."""

from __future__ import annotations

from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.run_setup import (
    BF16_MIXED,
    BF16_PURE,
    FP16_MIXED,
    FP16_PURE,
    FP32,
    RunSetup,
)
from denpex_callbacks.core.severity import Severity
from denpex_callbacks.core.thresholds import Thresholds

_FP16_ACTIVE = (FP16_MIXED, FP16_PURE)


def lint_setup(setup: RunSetup, thresholds: Thresholds | None = None) -> list[Finding]:
    """Findings about the configuration itself, reported at step 0.

    Example:
        >>> s = RunSetup(framework="hf", requested_precision="fp16", active_precision="fp32")
        >>> [f.code for f in lint_setup(s)]
        ['AMP010']
    """
    t = thresholds or Thresholds()
    found: list[Finding] = []
    active = setup.active_precision
    if setup.fp16_requested and active in (FP32, BF16_MIXED, BF16_PURE):
        found.append(Finding(
            "AMP010", 0,
            f"{setup.framework}: '{setup.requested_precision}' was requested but the run uses "
            f"{active} (no fp16 autocast, no loss scaler)",
            evidence={"requested": setup.requested_precision, "active": active,
                      **{k: v for k, v in setup.extra.items() if k.startswith("device")}},
        ))
    if setup.fp16_parameters and setup.has_scaler:
        found.append(Finding(
            "AMP012", 0,
            "the optimizer holds float16 parameters and a GradScaler is active: unscale_() will "
            "raise 'Attempting to unscale FP16 gradients.'",
            evidence={"fp16_parameters": True, "scaler": setup.scaler},
        ))
    elif active == FP16_PURE:
        found.append(Finding(
            "AMP001", 0,
            "fp16 compute with no active loss scaler"
            + (" (float16 parameters)" if setup.fp16_parameters else ""),
            evidence={"active": active, "scaler": setup.scaler,
                      "fp16_parameters": setup.fp16_parameters},
        ))
    if setup.nan_inf_filter:
        found.append(Finding(
            "AMP009", 0,
            "logging_nan_inf_filter=True: a NaN/inf training loss is logged as the mean of "
            "the finite ones, and (transformers 5.24) NaN/inf evaluation batches are left out "
            "of eval_loss; denpex still sees the training loss, and each evaluation batch's "
            "loss that the model's forward returns",
            evidence={"logging_nan_inf_filter": True},
            severity=Severity.INFO,
        ))
    pretrained = (setup.pretrained_dtype or "").replace("torch.", "")
    if pretrained == "bfloat16" and active in _FP16_ACTIVE:
        found.append(Finding(
            "AMP011", 0,
            f"the checkpoint was trained in bfloat16 and this run uses {active}",
            evidence={"pretrained_dtype": setup.pretrained_dtype, "active": active},
        ))
    if setup.scaler == "dynamic":
        interval, factor = setup.growth_interval, setup.growth_factor
        if (interval is not None and interval >= t.max_growth_interval) or (
            factor is not None and factor <= 1.0
        ):
            found.append(Finding(
                "AMP005", 0,
                f"the dynamic scaler cannot grow: growth_interval={interval}, "
                f"growth_factor={factor}; after any backoff the scale stays low for good",
                evidence={"pattern": "growth-disabled", "growth_interval": interval,
                          "growth_factor": factor, "max_growth_interval": t.max_growth_interval},
            ))
    return found
