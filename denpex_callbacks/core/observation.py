"""The plain record every adapter and log parser produces: one optimizer step on one rank."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# ``extra`` key: the step comes from a log row that prints no step counter (an HF Trainer dict
# printed every ``logging_steps``), so how many applied steps the row stands for is not known;
# its skips are real, but no share of skipped steps can be read from such rows.
SPAN_UNKNOWN = "span_unknown"
# ``extra`` key: the step begins a run in a log (a resumed run appended to its log, a log that
# starts at an epoch's first batch): its scaler may be a fresh one, backing off from its
# initial scale again (a start-up, not a collapse).
RESTARTED = "restarted"
# ``extra`` key beside ``RESTARTED``: the run began earlier, at this step (a log that says so
# only after the fact: a counter gone back to ``step=10, skipped=10`` below overflow lines
# already read); the skips since it are the new run's start-up back-off, not a collapse.
RESTARTED_AT = "restarted_at"
# ``extra`` key: the scale was printed as 0 at a fixed precision (Swin-Transformer's
# ``loss_scale 0.0000``) after a scale above 0: it is below this value (the print's last
# digit), not 0; ``scale_after`` holds half of it.
SCALE_BELOW = "scale_below"


@dataclass(frozen=True, init=False)
class Observation:
    """One optimizer step on one rank, in plain Python numbers.

    Adapters and log parsers build these; detectors judge them. Every field but ``step`` is
    optional because no framework exposes all of them (a log line may carry only the scale).

    Attributes:
        step: The step as the framework counts it (see each adapter's docs).
        rank: Global rank that observed the step.
        world_size: Number of ranks in the run.
        scale_before: Loss scale used for this step's backward (None: no scaler).
        scale_after: Loss scale after the scaler's update (None: unknown).
        skipped: True when the optimizer update was skipped for non-finite gradients,
            False when applied, None when the framework does not say (see ``was_skipped``).
        loss: Unscaled loss of the step (None: unknown).
        grad_norm: Gradient norm, if the framework computed one.
        lr: Learning rate of the first parameter group.
        growth_tracker: Consecutive clean steps counted by the scaler (torch GradScaler).
        hysteresis: Remaining overflow tolerance (DeepSpeed ``cur_hysteresis``).
        time: Wall-clock time (``time.time()``) when the step was observed.
        line: Line number in a log file the observation came from.
        text: The log line(s) the observation came from, quoted as evidence.

    Example:
        >>> obs = Observation(step=3, scale_before=1024.0, scale_after=512.0)
        >>> obs.was_skipped
        True
    """

    step: int
    rank: int = 0
    world_size: int = 1
    scale_before: float | None = None
    scale_after: float | None = None
    skipped: bool | None = None
    loss: float | None = None
    grad_norm: float | None = None
    lr: float | None = None
    growth_tracker: int | None = None
    hysteresis: int | None = None
    time: float | None = None
    line: int | None = None
    text: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __init__(
        self,
        step: int,
        rank: int = 0,
        world_size: int = 1,
        scale_before: float | None = None,
        scale_after: float | None = None,
        skipped: bool | None = None,
        loss: float | None = None,
        grad_norm: float | None = None,
        lr: float | None = None,
        growth_tracker: int | None = None,
        hysteresis: int | None = None,
        time: float | None = None,
        line: int | None = None,
        text: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        # Adapters build one per optimizer step: the fields go in with one dict update, a
        # third of the time of the generated frozen __init__ (an object.__setattr__ per field).
        # Still frozen: assigning a field afterwards raises FrozenInstanceError.
        self.__dict__.update(
            step=step, rank=rank, world_size=world_size, scale_before=scale_before,
            scale_after=scale_after, skipped=skipped, loss=loss, grad_norm=grad_norm, lr=lr,
            growth_tracker=growth_tracker, hysteresis=hysteresis, time=time, line=line,
            text=text, extra={} if extra is None else extra,
        )

    @property
    def was_skipped(self) -> bool | None:
        """Whether the step was skipped, inferred from a scale decrease when not reported.

        A scale of exactly 0.0 halves to 0.0: a skip there shows no decrease, so nothing can
        be inferred (None).

        Example:
            >>> Observation(9, scale_before=0.0, scale_after=0.0).was_skipped is None
            True
        """
        if self.skipped is not None:
            return self.skipped
        if self.scale_before is not None and self.scale_after is not None:
            if self.scale_before == 0.0:
                return None
            return self.scale_after < self.scale_before
        return None

    @property
    def scale(self) -> float | None:
        """The scale in force after this step (falls back to the scale before it)."""
        return self.scale_after if self.scale_after is not None else self.scale_before

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict without the None fields."""
        out: dict[str, Any] = {}
        for key in _FIELDS:
            value = getattr(self, key)
            if value is not None:
                out[key] = json_number(value)
        if self.extra:
            out["extra"] = self.extra
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Observation:
        """Inverse of :meth:`to_dict` (unknown keys ignored)."""
        kwargs = {k: _fromjson_number(data[k]) for k in _FIELDS if k in data}
        return cls(**kwargs, extra=dict(data.get("extra") or {}))


_FIELDS = (
    "step", "rank", "world_size", "scale_before", "scale_after", "skipped", "loss",
    "grad_norm", "lr", "growth_tracker", "hysteresis", "time", "line", "text",
)


def json_number(value: Any) -> Any:
    """A number as strict JSON holds it: NaN/inf become the strings ``"nan"``/``"inf"``.

    Example:
        >>> json_number(float("inf")), json_number(2.5)
        ('inf', 2.5)
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _fromjson_number(value: Any) -> Any:
    if value in ("nan", "inf", "-inf"):
        return float(value)
    return value
