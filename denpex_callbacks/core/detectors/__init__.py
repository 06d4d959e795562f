"""One detector per condition; ``default_detectors`` builds the standard set."""

from __future__ import annotations

from denpex_callbacks.core.detectors.base import Detector
from denpex_callbacks.core.detectors.hidden_nonfinite import HiddenNonFiniteDetector
from denpex_callbacks.core.detectors.loss_zero import LossZeroDetector
from denpex_callbacks.core.detectors.nonfinite_loss import NonFiniteLossDetector
from denpex_callbacks.core.detectors.scale_collapse import ScaleCollapseDetector
from denpex_callbacks.core.detectors.scale_stuck import ScaleStuckDetector
from denpex_callbacks.core.detectors.scale_underflow import ScaleUnderflowDetector
from denpex_callbacks.core.detectors.skip_rate import SkipRateDetector
from denpex_callbacks.core.thresholds import Thresholds

DETECTOR_TYPES: tuple[type[Detector], ...] = (
    NonFiniteLossDetector,
    HiddenNonFiniteDetector,
    ScaleCollapseDetector,
    ScaleUnderflowDetector,
    ScaleStuckDetector,
    LossZeroDetector,
    SkipRateDetector,
)


def default_detectors(
    thresholds: Thresholds | None = None, disabled: frozenset[str] = frozenset()
) -> list[Detector]:
    """The standard detectors, minus the ids in ``disabled``.

    Example:
        >>> [d.code for d in default_detectors(disabled=frozenset({"AMP008"}))]
        ['AMP006', 'AMP009', 'AMP003', 'AMP004', 'AMP005', 'AMP007']
    """
    return [kind(thresholds) for kind in DETECTOR_TYPES if kind.code not in disabled]


__all__ = ["DETECTOR_TYPES", "default_detectors"]
