"""Regexes compiled on first use, so that ``denpex`` start-up pays only for what a log needs.

A module constant ``re.compile(...)`` runs at import, on every start-up, whether or not any
line of the log reaches it; the doctor's modules hold hundreds. Where a module's patterns sit
behind a cheap literal test (most lines never pass it), :func:`lazy_pattern` defers the
compile to the first line that does.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


def lazy_pattern(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that compiles ``pattern`` on its first call and returns that regex after.

    Args:
        pattern: The regex, as :func:`re.compile` takes it.
        flags: :mod:`re` flags.

    Returns:
        A function of no argument that returns the compiled regex (the same object each time).

    Example:
        >>> word = lazy_pattern(r"\\bnan\\b")
        >>> word().search("loss nan") is not None, word() is word()
        (True, True)
    """

    @functools.cache
    def compiled() -> re.Pattern[str]:
        return re.compile(pattern, flags)

    return compiled
