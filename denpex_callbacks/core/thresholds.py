"""Every detection threshold, with its default, in one place.

Detection delay is part of each threshold: a collapse starting at step k is reported at step
``k + collapse_skip_streak - 1`` (the diagnosis still names step k as where it began).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Thresholds:
    """Detection thresholds. Defaults keep healthy runs (start-up back-off, sawtooth) quiet.

    Attributes:
        collapse_skip_streak: Consecutive skipped steps, after the first clean step, that make
            an AMP003 collapse (detection delay: this many steps minus one). A skip that only
            spent the scaler's hysteresis (the scale kept, DeepSpeed's ``but hysteresis is
            8``) is not counted, here or in ``stuck_skip_streak``.
        startup_halvings: How far below 2**16, in halvings, the scale may fall before the
            first clean step (of the run, a resume or a restart): to 16 by default, so a
            back-off from 2**32 may take 28 halvings, from 2**16 12; from a lower initial
            scale at least 3. A healthy back-off ends there; one that goes on is AMP003.
        startup_skip_allowance: Consecutive skipped steps tolerated before the first clean
            step where the scale is not known (a log that prints skips only; DeepSpeed's
            back-off from 2**32 takes up to ~30).
        underflow_scale: AMP004 fires when the scale falls below this (exactly 0.0: error).
        stuck_skip_streak: Consecutive skipped steps at a never-changing scale: AMP005.
        stuck_clean_factor: AMP005 when the scale has not grown for this many growth
            intervals of clean steps (needs a known growth interval).
        stuck_clean_steps: Same, in steps, when the growth interval is unknown: three of the
            longest default interval (fairseq's ``2**14 / world_size / update_freq``, 16384
            on one GPU; torch 2000, DeepSpeed and Megatron 1000), so no healthy scaler's
            stretch without growth reaches it.
        tracker_frozen_steps: Clean steps with a GradScaler growth tracker that never
            advances (update() not called): AMP005.
        max_growth_interval: A dynamic scaler configured with a larger growth interval (or a
            growth factor <= 1) cannot grow in a run of practical length: AMP005 at start.
        collapse_net_halvings: AMP003 also fires when the scale fell this many times (net)
            within ``collapse_trend_window`` steps, clean steps between the skips or not.
        collapse_trend_window: Steps over which the scale's trajectory is judged.
        zero_loss_steps: Consecutive steps with a loss of exactly 0.0: AMP007.
        skip_rate_window: Steps in the sliding window of AMP008.
        skip_rate_threshold: Share of skipped steps in the window that makes AMP008.
        skip_rate_sawtooth_factor: AMP008 needs this many times the skip rate the scaler's
            growth interval implies (a scaler with growth_interval=10 skips 1 step in 11).
        nonfinite_clear_steps: Finite losses in a row after which AMP006 may fire again (the
            end of an episode).
        repeat_rearm_steps: A condition reported again this many steps after its last
            report begins a new episode: ``max_repeats`` counts afresh.
        nonfinite_persist_losses: Non-finite losses within one episode that make AMP006 a
            persistent fault (an error); fewer, on steps the scaler skipped, are a warning.
            2 (the default): one NaN the scaler absorbed is a warning and never ends a run
            under stop/raise; 1: every non-finite loss is an error at once.
        cause_window_steps: A condition is reported as the consequence of an earlier event
            (a NaN loss, a collapse) only when it begins within this many steps of it.

    Example:
        >>> Thresholds(collapse_skip_streak=4).collapse_skip_streak
        4
    """

    collapse_skip_streak: int = 6
    collapse_net_halvings: int = 8
    collapse_trend_window: int = 200
    startup_halvings: int = 12
    startup_skip_allowance: int = 40
    underflow_scale: float = 1.0
    stuck_skip_streak: int = 4
    stuck_clean_factor: float = 3.0
    stuck_clean_steps: int = 49_152
    tracker_frozen_steps: int = 8
    max_growth_interval: int = 100_000
    zero_loss_steps: int = 20
    skip_rate_window: int = 200
    skip_rate_threshold: float = 0.05
    skip_rate_sawtooth_factor: float = 2.0
    nonfinite_clear_steps: int = 10
    nonfinite_persist_losses: int = 2
    repeat_rearm_steps: int = 1000
    cause_window_steps: int = 1000

    def to_dict(self) -> dict[str, Any]:
        """Plain dict of the thresholds."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Thresholds:
        """Build from a dict, rejecting unknown keys with a clear message."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"unknown threshold(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**data)
