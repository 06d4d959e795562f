"""An inpainting loop's losses named by the region of the frame they are measured on.

Image and video inpainting trainers weigh an L1 loss inside the mask (the ``hole``) and one
outside it (the ``valid`` pixels) and print each under the region's name alone: STTN
(researchmm/STTN ``core/trainer.py``: ``f"d: ...; g: ...;hole: {hole_loss.item():.3f}; valid:
{valid_loss.item():.3f}"``), E2FGVI (MCG-NKU/E2FGVI ``core/trainer.py``: ``f"[Iter
{self.iteration}] flow: ...; d: ...; hole: ...; valid: ..."``) and ProPainter, which copied
it. There ``valid`` is no held-out split: it is printed beside ``hole``, its complement, and
both are terms of the generator's loss. ``valid`` alone (or beside any other key) stays the
validation split's.
"""

from __future__ import annotations

import re

# The hole's value, then the valid region's (``hole: 0.4100; valid: 0.0520``), each key bare
# or with ``_loss``; the value's spelling is a plain number or a non-finite word (what
# ``f"{x:.4f}"`` prints), so the pattern is linear (no nested repeats).
_NUMBER = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:nan|inf))"
_PAIR = re.compile(r"(?<![\w./-])hole(?:_loss)?[ \t]*[:=][ \t]*" + _NUMBER
                   + r"[ \t]*[;,|]?[ \t]*valid(?:_loss)?[ \t]*[:=][ \t]*" + _NUMBER
                   + r"(?![\w.])")
# The keys a ``valid`` region's loss is printed under (see lexicon.words)
_VALID = frozenset({("valid",), ("valid", "loss")})


def region_pair(text: str) -> tuple[str, str] | None:
    """The hole's and the valid region's values as printed, where ``text`` keys them side by
    side (hole first, as the inpainting trainers print them); else None. Cheap where the
    line names no hole (``in`` first).

    Example:
        >>> region_pair("[Iter 1600] d: nan; hole: nan; valid: 0.0520")
        ('nan', '0.0520')
        >>> region_pair("hole: 3 | val: 0.5"), region_pair("valid: 0.5") is None
        (None, True)
    """
    if "hole" not in text:
        return None
    found = _PAIR.search(text)
    return None if found is None else (found.group(1), found.group(2))


def valid_region(words: tuple[str, ...]) -> bool:
    """Whether a key's words (lexicon.words) are the valid region's, which a held-out split's
    are too: ``valid`` or ``valid_loss``.

    Example:
        >>> valid_region(("valid",)), valid_region(("valid", "acc"))
        (True, False)
    """
    return words in _VALID
