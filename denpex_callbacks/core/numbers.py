"""Numbers as people read them in a log: 4 significant digits, never a raw float repr."""

from __future__ import annotations

import math
import re
from typing import Any

SIGNIFICANT_DIGITS = 4

# A decimal number standing alone: not part of a version ("2.6.6"), a module path ("h.0.mlp")
# or a word. Integers are left as they are.
_DECIMAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?(?![\w]|\.\d)")


def format_number(value: float | int) -> str:
    """``value`` with at most 4 significant digits; whole numbers (a loss scale) stay whole.

    Example:
        >>> [format_number(v) for v in (0.047142259776592255, 32768.0, 7127.3, 2.0**-24)]
        ['0.04714', '32768', '7127', '5.96e-08']
        >>> format_number(float("nan")), format_number(float("-inf")), format_number(12)
        ('nan', '-inf', '12')
    """
    if isinstance(value, int):  # bool is an int too
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{SIGNIFICANT_DIGITS}g}"


def round_numbers(text: str) -> str:
    """Every decimal number in ``text`` rewritten by :func:`format_number`.

    Example:
        >>> round_numbers("last finite loss: 0.047142259776592255; scale 32768.0 -> 512.0")
        'last finite loss: 0.04714; scale 32768 -> 512'
        >>> round_numbers("lightning 2.6.6, module h.0.mlp")
        'lightning 2.6.6, module h.0.mlp'
    """
    return _DECIMAL.sub(lambda m: format_number(float(m.group(0))), text)


def format_value(value: Any) -> str:
    """An evidence value for people: numbers rounded, lists and dicts spelled out briefly.

    Example:
        >>> format_value({"loss": float("nan"), "ranks": [0, 1], "lr": 0.00030000000000000003})
        '{loss: nan, ranks: [0, 1], lr: 0.0003}'
    """
    if isinstance(value, float | int) and not isinstance(value, bool):
        return format_number(value)
    if isinstance(value, dict):
        inner = ", ".join(f"{k}: {format_value(v)}" for k, v in value.items() if v is not None)
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return round_numbers(str(value))


def format_evidence(evidence: dict[str, Any], limit: int = 400) -> str:
    """``key=value`` pairs for one line; unknown values (None) are left out.

    Example:
        >>> format_evidence({"loss": float("nan"), "grad_norm": None, "scale": 16384.0})
        'loss=nan, scale=16384'
    """
    text = ", ".join(
        f"{key}={format_value(value)}" for key, value in evidence.items() if value is not None
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."
