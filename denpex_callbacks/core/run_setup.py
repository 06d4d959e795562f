"""What a run is configured to do, as an adapter reads it at start (precision, scaler)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

# Names of the effective precision, as detectors and the report header use them.
FP16_MIXED = "fp16-mixed"  # fp16 autocast with a loss scaler
FP16_PURE = "fp16-pure"  # fp16 compute (autocast or .half()) without a scaler
BF16_MIXED = "bf16-mixed"
BF16_PURE = "bf16-pure"
FP32 = "fp32"
UNKNOWN = "unknown"


class Precision(NamedTuple):
    """What a precision word says: the engine's name for what was asked for, the dtype the
    math runs in, and whether it is mixed (autocast over fp32 weights) rather than pure."""

    name: str
    compute: str
    mixed: bool


_FP16 = Precision("fp16", "float16", True)
_BF16 = Precision("bf16", "bfloat16", True)
_FP32 = Precision("fp32", "float32", False)
_FP16_TRUE = Precision("fp16-true", "float16", False)  # fp16 weights, no autocast
_FP64 = Precision("fp64", "float64", False)

# The words users and frameworks write for a precision (Lightning's and Fabric's flags,
# accelerate's ``mixed_precision``, a plain loop's ``precision=``), in lower case; each
# Precision's own name is one of them too (a loop keeps the name: ``"16-true"`` is kept as
# ``"fp16-true"``, still fp16 asked for).
PRECISION_WORDS: dict[str, Precision] = {
    "fp16": _FP16, "16": _FP16, "16-mixed": _FP16, "float16": _FP16, "half": _FP16,
    "fp16-mixed": _FP16,
    "bf16": _BF16, "bf16-mixed": _BF16, "bfloat16": _BF16,
    "16-true": _FP16_TRUE, "fp16-true": _FP16_TRUE,
    "bf16-true": Precision("bf16-true", "bfloat16", False),
    "no": _FP32, "fp32": _FP32, "32": _FP32, "32-true": _FP32, "float32": _FP32,
    "64-true": _FP64, "fp64": _FP64,
}


def dtype_name(dtype: Any) -> str:
    """The name of a torch dtype without its module (``"float16"``)."""
    return str(dtype).replace("torch.", "")


def parameter_dtype(models: Iterable[Any]) -> str | None:
    """The name of the dtype of the first parameter ``models`` hold (None: they hold none):
    what a model computes in where nothing else says (no autocast, no scaler)."""
    for model in models:
        for param in getattr(model, "parameters", tuple)():
            return dtype_name(param.dtype)
    return None


def active_precision(compute: str | None, *, has_scaler: bool, autocast: bool) -> str:
    """What really runs, from the facts each adapter reads in its framework's own way.

    Args:
        compute: Name of the dtype the low-precision math runs in (``"float16"``,
            ``"bfloat16"``, ``"float32"``...); None when nothing says.
        has_scaler: An enabled loss scaler steps the optimizer: fp16 mixed precision, unless
            bf16 autocast is what runs (a scaler there is merely unneeded).
        autocast: The low precision comes from autocast or a master-weight optimizer (mixed),
            not from low-precision parameters alone (pure).

    Example:
        >>> active_precision("float16", has_scaler=False, autocast=True)  # no scaler
        'fp16-pure'
        >>> active_precision(None, has_scaler=True, autocast=True)
        'fp16-mixed'
        >>> active_precision("bfloat16", has_scaler=True, autocast=True)
        'bf16-mixed'
    """
    if has_scaler and not (compute == "bfloat16" and autocast):
        return FP16_MIXED  # a scaler outweighs an fp32 reading (a forward seen outside autocast)
    if compute == "float16":
        return FP16_PURE  # fp16 math without a scaler: small gradients flush to zero
    if compute == "bfloat16":
        return BF16_MIXED if autocast else BF16_PURE
    if compute in ("float32", "float64"):
        return FP32
    return UNKNOWN


@dataclass
class RunSetup:
    """The run's configuration as read at start; feeds the header and the start-up lints.

    Attributes:
        framework: ``"torch"``, ``"hf"``, ``"lightning"``, ``"deepspeed"`` or ``"log"``.
        framework_version: Version string of the framework.
        requested_precision: What the user asked for, in the framework's words
            (``"fp16"``, ``"16-mixed"``, ...), None when not stated.
        active_precision: What really runs: one of ``fp16-mixed``, ``fp16-pure``,
            ``bf16-mixed``, ``bf16-pure``, ``fp32``, ``unknown``.
        scaler: ``"dynamic"``, ``"static"`` or None (no loss scaler).
        init_scale: Initial (or static) loss scale.
        growth_interval: Clean steps between scale growths.
        growth_factor: Multiplier on growth.
        backoff_factor: Multiplier on overflow.
        min_scale: Floor of the scale (DeepSpeed min_loss_scale), None when there is none.
        hysteresis: Overflows tolerated before a backoff (DeepSpeed).
        fp16_parameters: True when the optimizer holds float16 parameters.
        nan_inf_filter: HF Trainer's logging_nan_inf_filter.
        pretrained_dtype: Dtype the checkpoint was trained in (model config), if known.
        rank: Global rank.
        world_size: Number of ranks.
        extra: Anything else worth writing in the report header.

    Example:
        >>> RunSetup(framework="torch", active_precision=FP16_MIXED, scaler="dynamic").scaler
        'dynamic'
    """

    framework: str = "torch"
    framework_version: str | None = None
    requested_precision: str | None = None
    active_precision: str = UNKNOWN
    scaler: str | None = None
    init_scale: float | None = None
    growth_interval: int | None = None
    growth_factor: float | None = None
    backoff_factor: float | None = None
    min_scale: float | None = None
    hysteresis: int | None = None
    fp16_parameters: bool | None = None
    nan_inf_filter: bool | None = None
    pretrained_dtype: str | None = None
    rank: int = 0
    world_size: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def has_scaler(self) -> bool:
        """True when a loss scaler is active (scale detectors apply)."""
        return self.scaler is not None

    @property
    def fp16_requested(self) -> bool:
        """True when the user's words ask for fp16 compute, mixed or in fp16 weights
        (``fp16``, ``16``, ``16-mixed``, ``float16``, ``half``, ``16-true``).

        Example:
            >>> RunSetup(requested_precision="fp16-true").fp16_requested
            True
            >>> RunSetup(requested_precision="bf16-true").fp16_requested
            False
        """
        word = PRECISION_WORDS.get((self.requested_precision or "").lower())
        return word is not None and word.compute == "float16"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for the report header."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSetup:
        """Inverse of :meth:`to_dict` (unknown keys go to ``extra``)."""
        known = set(cls.__dataclass_fields__)
        kwargs = {k: v for k, v in data.items() if k in known}
        extra = dict(kwargs.pop("extra", None) or {})
        extra.update({k: v for k, v in data.items() if k not in known})
        return cls(**kwargs, extra=extra)
