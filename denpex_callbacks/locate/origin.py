"""Where a non-finite value was born, and what that changes in a diagnosis: the public door.

Framework-free. The record lives in :mod:`denpex_callbacks.locate.origin_report` (what the
locator saw: :class:`OriginReport`, :class:`ModuleCall`, :class:`GradientOrigin`), the reading
of it in :mod:`denpex_callbacks.locate.origin_explanation` (:func:`explain_origin`,
:class:`OriginExplanation`); both are imported from here.

Example:
    >>> report = OriginReport(step=9, inputs_absmax=float("nan"))
    >>> explain_origin(report).verdict
    'input-data'
"""

from __future__ import annotations

from denpex_callbacks.locate.origin_explanation import (
    DIVERGED_WEIGHT,
    OriginExplanation,
    explain_origin,
    origin_facts,
)
from denpex_callbacks.locate.origin_report import (
    FP16_MAX,
    MODEL_LABEL,
    GradientOrigin,
    ModuleCall,
    OriginReport,
    label,
    parent_name,
)

__all__ = [
    "DIVERGED_WEIGHT",
    "FP16_MAX",
    "MODEL_LABEL",
    "GradientOrigin",
    "ModuleCall",
    "OriginExplanation",
    "OriginReport",
    "explain_origin",
    "label",
    "origin_facts",
    "parent_name",
]
