"""A loss scale printed as 0: a print that rounded a small scale, or a scale of exactly 0.

A dynamic scale only halves, and an fp32 scale reaches an exact 0 some 150 halvings below 1.
A column that prints the scale in full (Python's ``repr``: ``1.52587890625e-05``) or in
exponent notation (``{:.2g}``) shows a small scale as such, so its ``0.0`` is the scale,
exactly 0 (set so, or a bug). A column that prints a fixed number of decimals (Megatron's
``{:.1f}``, Swin-Transformer's ``{:.4f}``, ``{:.0f}``) shows every scale below half its last
digit as ``0``: the column shows it is one where the last scale above 0 it printed had no more
decimals than the zero (``0.1`` then ``0.0``, ``1`` then ``0``): no room for the halvings'
digits. Nor is it one where the scale printed last could not have halved below what prints
as ``0`` in the steps between: ``8`` (at least 7.5) one step before ``0`` (below 0.5) is 4 at
the least after one halving, and Megatron's ``1.0`` over an interval that skipped no
iteration is still at least 0.95; that ``0`` is the scale, exactly 0.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.metric_pairs import decimals

_DECIMAL = re.compile(r"\d+(?:\.\d*)?")  # a print ``float()`` reads as it stands


def rounded_zero(zero: str, previous: str | None, halvings: int | None = None) -> float | None:
    """The bound a scale printed as ``zero`` is below, where its column rounds to a fixed
    number of decimals; None where the print says the scale is exactly 0, or where nothing
    printed before it says otherwise.

    Args:
        zero: The zero as printed (``"0.0"``, ``"0"``, ``"0.0000"``).
        previous: How the same column printed the last scale above 0 (None: none seen).
        halvings: The most times the scale can have halved since ``previous`` (the steps
            between, or the skipped iterations a line counts); None: not known.

    Returns:
        ``10 ** -decimals(zero)`` (the print's last digit), or None.

    Example:
        >>> rounded_zero("0.0", "0.1"), rounded_zero("0", "1"), rounded_zero("0.0000", "0.0001")
        (0.1, 1.0, 0.0001)
        >>> rounded_zero("0.0", "1.52587890625e-05"), rounded_zero("0", "6.1e-05")
        (None, None)
        >>> rounded_zero("0.0", "0.0078125"), rounded_zero("0.0", None)
        (None, None)
        >>> rounded_zero("0", "8", halvings=1), rounded_zero("0", "1", halvings=1)
        (None, 1.0)
        >>> rounded_zero("0.0", "1.0", halvings=0), rounded_zero("0.0", "0.1", halvings=0)
        (None, 0.1)
    """
    if previous is None or "e" in previous or "E" in previous:
        return None
    places = decimals(zero)
    if decimals(previous) > places:
        return None  # the column printed digits a fixed precision would have cut
    below = 10.0 ** -places
    if halvings is not None and 0 <= halvings < 64 and _DECIMAL.fullmatch(previous):
        # The least the previous print can have been (half its last digit less), halved as
        # often as the steps between allow, still prints above 0: the scale is 0.
        least = float(previous) - 0.5 * 10.0 ** -decimals(previous)
        if least / 2.0 ** halvings > 0.5 * below:
            return None
    return below
