"""A tqdm bar whose postfix was given as a list of one dict, glued to the rate as its ``str``.

``tqdm(total=n, postfix=[dict(loss=0, avg_loss=0)])`` is tqdm's documented idiom for a custom
``bar_format`` (``{postfix[0][loss]}``); without one, tqdm cannot ``set_postfix(**postfix)``
a list, keeps it as it is and prints its ``str`` right after the rate, with no comma:
``100%|██████████| 250/250 [01:40<00:00,  2.49it/s[{'loss': '0.1234', 'avg_loss':
'0.1301'}]]`` (582383982/FAST-MRI ``train_3d.py``, which sets ``t.postfix[0]["loss"] =
'%.4f' % loss.item()``: the values are quoted strings). The bar is no bar to the reader then
(its rate is not followed by ``,`` or ``]``) and the values sit in a dict's repr.

Such a bar is rewritten as the bar tqdm prints for ``set_postfix(loss=..., avg_loss=...)``:
``...,  2.49it/s, loss=0.1234, avg_loss=0.1301]``, and read as any bar is. Only a list of one
dict whose keys are quoted names and whose values are numbers (quoted or not; ``nan`` and
``inf`` among them) is one: any other list is left as it is. A bar at its count 0 still shows
the postfix it was opened with (``dict(loss=0, avg_loss=0)``, before any batch): its values
are dropped, not read as a loss of 0.
"""

from __future__ import annotations

import re

# The bar's count and status up to its rate, then the list of one dict and the bar's own
# closing bracket. Each piece bounded, the dict's body without a brace or a bracket: no
# backtracking beyond a piece's length.
_GLUED = re.compile(r"(\|\s{0,3}(\d{1,12})/\d{1,12} \[[^\[\]|]{1,80}?(?:/s|/it))"
                    r"\[\{([^{}\[\]]{1,400})\}\]\]")
# One item: a quoted name, then a number, quoted or not.
_ITEM = re.compile(r"""\s*'([A-Za-z_][\w./ -]{0,40})': '?([-+]?(?:\d[\d.eE+-]{0,24}|nan|inf|"""
                   r"""-inf))'?\s*""")


def spread(text: str) -> str:
    """``text`` with a list postfix glued to its rate spread as ``, key=value`` pairs, or
    ``text`` itself where it holds none.

    Example:
        >>> spread("100%|##########| 250/250 [01:40<00:00,  2.49it/s[{'loss': 'nan', "
        ...        "'avg_loss': 'nan'}]]")
        '100%|##########| 250/250 [01:40<00:00,  2.49it/s, loss=nan, avg_loss=nan]'
        >>> spread("  0%|          | 0/250 [00:00<?, ?it/s[{'loss': 0, 'avg_loss': 0}]]")
        '  0%|          | 0/250 [00:00<?, ?it/s]'
        >>> spread("| 5/9 [00:01<00:01,  2.49it/s[{'mode': 'train'}]]")
        "| 5/9 [00:01<00:01,  2.49it/s[{'mode': 'train'}]]"
    """
    return _GLUED.sub(_spread_one, text) if "[{" in text else text


def _spread_one(found: re.Match[str]) -> str:
    """One glued list postfix as ``, key=value`` pairs, or as it was where an item is no
    name and number. At the count 0 the postfix is the one the bar was opened with
    (``dict(loss=0, avg_loss=0)``: no batch measured yet): the bar is kept, its values not."""
    if found.group(2) == "0":
        return f"{found.group(1)}]"
    pairs = []
    for item in found.group(3).split(","):
        matched = _ITEM.fullmatch(item)
        if matched is None:
            return found.group(0)  # (a value that is no number: not a postfix of values)
        pairs.append(f"{matched.group(1)}={matched.group(2)}")
    return f"{found.group(1)}, {', '.join(pairs)}]"
