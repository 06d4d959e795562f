"""What the non-finite locator saw in one armed step: the record, framework-free.

The locator (:mod:`denpex_callbacks.locate.locator`, torch) watches one armed step and fills an
:class:`OriginReport`; :mod:`denpex_callbacks.locate.origin_explanation` says what it means for
the diagnosis that armed it. Plain numbers only.

Values are largest absolute values (``max |x|``) as the locator read them: ``nan`` when the
tensor held a NaN, ``inf`` when it held an infinity (and no NaN), else the finite maximum.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

FP16_MAX = 65504.0
MODEL_LABEL = "<model>"  # how the model itself (qualified name "") is named in the text


def _finite(value: float | None) -> bool:
    return value is None or math.isfinite(value)


def _beyond_fp16(value: float | None) -> bool:
    # inf counts (the fp16 result overflowed); NaN does not say how large anything was.
    return value is not None and not math.isnan(value) and abs(value) > FP16_MAX


def label(name: str) -> str:
    """How a module's qualified name is shown (the model itself is ``<model>``).

    A name that starts with an index (a child of an ``nn.Sequential`` model) is shown under
    ``<model>`` so that it reads as a module, not a number.

    Example:
        >>> label(""), label("encoder.block.3"), label("0")
        ('<model>', 'encoder.block.3', '<model>.0')
    """
    if not name:
        return MODEL_LABEL
    return f"{MODEL_LABEL}.{name}" if name[0].isdigit() else name


def parent_name(name: str) -> str:
    """Qualified name of the module that owns ``name`` ("" for a top-level child).

    Example:
        >>> parent_name("encoder.block.3.layer.1"), parent_name("head")
        ('encoder.block.3.layer', '')
    """
    return name.rsplit(".", 1)[0] if "." in name else ""


@dataclass(frozen=True)
class ModuleCall:
    """One forward call of one module during the armed step.

    Attributes:
        name: Qualified name in the model (``""``: the model itself).
        type: Class name of the module.
        input_absmax: Largest |value| over its floating-point inputs (None: it had none).
        output_absmax: Largest |value| over its floating-point outputs (None: none).
        param_absmax: Largest |value| over its own (not its children's) parameters.
        output_dtype: dtype of its first floating-point output, e.g. ``"torch.float16"``.
    """

    name: str
    type: str
    input_absmax: float | None = None
    output_absmax: float | None = None
    param_absmax: float | None = None
    output_dtype: str | None = None

    @property
    def input_finite(self) -> bool:
        """True when every floating-point input was finite."""
        return _finite(self.input_absmax)

    @property
    def output_finite(self) -> bool:
        """True when every floating-point output was finite."""
        return _finite(self.output_absmax)

    @property
    def params_finite(self) -> bool:
        """True when the module's own parameters were finite."""
        return _finite(self.param_absmax)

    @property
    def exceeded_fp16(self) -> bool:
        """True when an input, output or weight went past the fp16 maximum (65504), inf
        included (weights beyond it turn into inf when autocast casts them to fp16).

        Example:
            >>> ModuleCall("wo", "Linear", 3.1e2, float("inf")).exceeded_fp16
            True
            >>> ModuleCall("wo", "Linear", 3.1e2, float("nan")).exceeded_fp16
            False
        """
        return any(_beyond_fp16(v) for v in (self.input_absmax, self.output_absmax,
                                             self.param_absmax))


@dataclass(frozen=True)
class GradientOrigin:
    """The first non-finite gradient seen in the armed step's backward pass.

    Attributes:
        name: Qualified name of the module it is attributed to.
        type: Class name of that module.
        role: ``"input"``: the module's backward turned finite gradients into a non-finite
            gradient for its input; ``"weight"``: for one of its parameters (``parameter``);
            ``"output"``: the gradient reaching the module's output was already non-finite,
            so the code consuming that output outside any submodule produced it (for the
            model itself: the loss).
        absmax: Largest |value| of that gradient (nan or inf). Gradients carry the loss
            scale.
        parameter: Parameter name for the ``"weight"`` role.
    """

    name: str
    type: str
    role: str
    absmax: float
    parameter: str | None = None


@dataclass(frozen=True)
class OriginReport:
    """What the locator saw in one armed step.

    Attributes:
        step: The armed step (as the adapter counts steps), if known.
        modules_watched: Modules that had a forward hook.
        calls_seen: Module forward calls recorded.
        modules_seen: Distinct modules among them (1 of many watched: only a model's own
            output was seen, not inside it).
        gradients_seen: Gradients recorded in backward (0: no backward ran while armed).
        forward: First module (in the order outputs were produced) whose output was
            non-finite; None when every output was finite.
        origin: The module whose own computation made the values ``forward`` only passed on
            (``forward`` returned an infinity from finite inputs and has no weights of its own:
            Dropout, an activation, a residual add); None when ``forward`` is the origin.
        backward: First non-finite gradient in backward; None when all were finite.
        inputs_absmax: Largest |value| of the model's floating-point inputs: those of the
            outermost module called (the model itself, or the first submodule a
            LightningModule's training_step calls), None when they had none.
        loss_absmax: |loss| as the adapter passed it (None: not passed).
        loss_dtype: The dtype of the loss a re-run computed (``"torch.float32"``; None: not
            re-run: the loss an adapter passes is its float32 sum, whatever it was computed
            in): a loss already in float32 is not helped by computing it in float32.
        peak: The call with the largest finite output (the nearest to overflow).
        truncated: The record cap was reached: later calls were not recorded.
        compiled: Some of the model runs under torch.compile (the armed step ran eagerly, so
            that the hooks saw inside).
        targets_finite: Whether the targets the loop handed over and every floating-point
            tensor among the step's inputs were finite (None: not checked).
        targets_given: The loop handed the step's targets over (else only the step's inputs
            were checked: the targets are among them in a batch that holds both).

    Example:
        >>> r = OriginReport(step=5, inputs_absmax=float("nan"))
        >>> r.inputs_nonfinite, r.backward_overflow
        (True, False)
    """

    step: int | None = None
    modules_watched: int = 0
    calls_seen: int = 0
    modules_seen: int = 0
    gradients_seen: int = 0
    forward: ModuleCall | None = None
    origin: ModuleCall | None = None
    backward: GradientOrigin | None = None
    inputs_absmax: float | None = None
    loss_absmax: float | None = None
    loss_dtype: str | None = None
    peak: ModuleCall | None = None
    truncated: bool = False
    compiled: bool = False
    targets_finite: bool | None = None
    targets_given: bool = False

    @property
    def inputs_nonfinite(self) -> bool:
        """The model's inputs were already NaN/inf: a data problem."""
        return not _finite(self.inputs_absmax)

    @property
    def loss_finite(self) -> bool | None:
        """Whether the loss was finite (None: the adapter did not pass it)."""
        return None if self.loss_absmax is None else math.isfinite(self.loss_absmax)

    @property
    def grads_finite(self) -> bool | None:
        """Whether every recorded gradient was finite (None: no backward ran while armed)."""
        return None if self.gradients_seen == 0 else self.backward is None

    @property
    def backward_overflow(self) -> bool:
        """Forward and loss finite, gradients not: the overflow happened in backward."""
        return self.forward is None and self.loss_finite is not False and (
            self.grads_finite is False
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (nested dataclasses as dicts), for the run report."""
        return asdict(self)
