"""A loss scale printed as 0: a print that rounded a small scale, or a scale of exactly 0.

A dynamic scale only halves, and an fp32 scale reaches an exact 0 some 150 halvings below 1.
A column that prints the scale in full (Python's ``repr``: ``1.52587890625e-05``) or in
exponent notation (``{:.2g}``) shows a small scale as such, so its ``0.0`` is the scale,
exactly 0 (set so, or a bug). A column that prints a fixed number of decimals (Megatron's
``{:.1f}``, Swin-Transformer's ``{:.4f}``, ``{:.0f}``) shows every scale below half its last
digit as ``0``: the column shows it is one where the last scale above 0 it printed had no more
decimals than the zero (``0.1`` then ``0.0``, ``1`` then ``0``): no room for the halvings'
digits.
"""

from __future__ import annotations

from denpex_callbacks.logs.metric_pairs import decimals


def rounded_zero(zero: str, previous: str | None) -> float | None:
    """The bound a scale printed as ``zero`` is below, where its column rounds to a fixed
    number of decimals; None where the print says the scale is exactly 0, or where nothing
    printed before it says otherwise.

    Args:
        zero: The zero as printed (``"0.0"``, ``"0"``, ``"0.0000"``).
        previous: How the same column printed the last scale above 0 (None: none seen).

    Returns:
        ``10 ** -decimals(zero)`` (the print's last digit), or None.

    Example:
        >>> rounded_zero("0.0", "0.1"), rounded_zero("0", "1"), rounded_zero("0.0000", "0.0001")
        (0.1, 1.0, 0.0001)
        >>> rounded_zero("0.0", "1.52587890625e-05"), rounded_zero("0", "6.1e-05")
        (None, None)
        >>> rounded_zero("0.0", "0.0078125"), rounded_zero("0.0", None)
        (None, None)
    """
    if previous is None or "e" in previous or "E" in previous:
        return None
    places = decimals(zero)
    if decimals(previous) > places:
        return None  # the column printed digits a fixed precision would have cut
    return 10.0 ** -places
