"""Plain number streams that imitate a dynamic loss scaler, for detector tests."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

from denpex_callbacks.core.observation import Observation


def scaler_stream(
    overflow_steps: Iterable[int],
    steps: int,
    *,
    init_scale: float = 2.0**16,
    growth_interval: int = 2000,
    losses: dict[int, float] | None = None,
    static: bool = False,
) -> Iterator[Observation]:
    """Observations a torch GradScaler would produce with overflows at ``overflow_steps``."""
    overflows = set(overflow_steps)
    scale, tracker = init_scale, 0
    for step in range(steps):
        before = scale
        skipped = step in overflows
        if not static:
            if skipped:
                scale, tracker = scale * 0.5, 0
            else:
                tracker += 1
                if tracker == growth_interval:
                    scale, tracker = scale * 2.0, 0
        loss = (losses or {}).get(step, 1.0 / math.sqrt(step + 1))
        yield Observation(
            step, scale_before=before, scale_after=scale, skipped=skipped if static else None,
            loss=loss, growth_tracker=None if static else tracker,
        )
