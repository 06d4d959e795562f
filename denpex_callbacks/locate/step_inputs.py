"""A step's inputs as a re-run keeps them: the tensors among them and their version counters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

__all__ = ["input_tensors", "input_versions"]

_MAX_INPUT_TENSORS = 16  # input tensors whose version counters are watched


def input_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """Tensors among the inputs, one level into containers (a dict batch, a tuple).

    Example:
        >>> len(input_tensors((torch.ones(2), {"labels": torch.zeros(2)}), {"n": 3}))
        2
    """
    found: list[torch.Tensor] = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, torch.Tensor):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found += [item for item in value if isinstance(item, torch.Tensor)]
        elif isinstance(value, Mapping):
            found += [item for item in value.values() if isinstance(item, torch.Tensor)]
    return found[:_MAX_INPUT_TENSORS]


def input_versions(args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> list[tuple[torch.Tensor, int]]:
    """:func:`input_tensors` with each one's version counter now (an in-place write bumps it).

    Example:
        >>> x = torch.ones(2)
        >>> input_versions(([x, 3],), {"labels": torch.zeros(2)})[0] == (x, x._version)
        True
    """
    return [(tensor, tensor._version) for tensor in input_tensors(args, kwargs)]
