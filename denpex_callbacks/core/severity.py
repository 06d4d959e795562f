"""Severity levels of a diagnosis, ordered."""

from __future__ import annotations

from enum import Enum


class Severity(str, Enum):
    """How bad a diagnosis is. ``info`` never changes a run; policies act on the others."""

    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        """0 for info, 1 for warning, 2 for error."""
        return _ORDER[self]

    def __str__(self) -> str:
        return self.value


_ORDER = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}
