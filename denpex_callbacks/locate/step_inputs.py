"""A step's inputs as a re-run keeps them: the tensors among them and their version counters,
and the module a re-run calls (around a DistributedDataParallel wrapper).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

__all__ = ["input_tensors", "input_versions", "unwrapped"]

_MAX_INPUT_TENSORS = 16  # input tensors whose version counters are watched
_TENSOR = torch.Tensor  # (a module global: not looked up on the torch module every step)


def input_tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[torch.Tensor]:
    """Tensors among the inputs, one level into containers (a dict batch, a tuple).

    Example:
        >>> len(input_tensors((torch.ones(2), {"labels": torch.zeros(2)}), {"n": 3}))
        2
    """
    found: list[torch.Tensor] = []
    tensor = torch.Tensor
    for value in (*args, *kwargs.values()):
        if isinstance(value, tensor):  # the common case first: the Mapping ABC check is slow
            found.append(value)
            continue
        items = value if isinstance(value, (tuple, list)) else (
            value.values() if isinstance(value, (dict, Mapping)) else ())
        found += [item for item in items if isinstance(item, tensor)]
    return found[:_MAX_INPUT_TENSORS]


def input_versions(args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> list[tuple[torch.Tensor, int]]:
    """:func:`input_tensors` with each one's version counter now, in one pass (every step,
    from cold caches: no tuple built to chain the inputs, no copy of the list at the end).

    Example:
        >>> x = torch.ones(2)
        >>> input_versions(([x, 3],), {"labels": torch.zeros(2)})[0] == (x, x._version)
        True
    """
    found: list[tuple[torch.Tensor, int]] = []
    for value in (args if not kwargs else kwargs.values() if not args
                  else (*args, *kwargs.values())):
        if isinstance(value, _TENSOR):
            found.append((value, value._version))
            continue
        kind = value.__class__
        if kind is list or kind is tuple:  # a batch as Lightning hands it: [x, y]
            items: Any = value
        elif kind is dict or isinstance(value, (tuple, list, dict, Mapping)):
            items = value.values() if isinstance(value, (dict, Mapping)) else value
        else:
            continue
        for item in items:
            if isinstance(item, _TENSOR):
                found.append((item, item._version))
    return found if len(found) <= _MAX_INPUT_TENSORS else found[:_MAX_INPUT_TENSORS]


def unwrapped(model: torch.nn.Module) -> tuple[torch.nn.Module | None, torch.nn.Module]:
    """(the DistributedDataParallel wrapper or None, the module that computes).

    DDP's own forward may enter collectives (bucket rebuilds, buffer broadcasts) and prepares
    its reducer for a backward: a re-run on one rank goes around it, to the module it wraps,
    whose inputs (already moved to the device) are the ones captured.

    Example:
        >>> layer = torch.nn.Linear(2, 2)
        >>> unwrapped(layer) == (None, layer)
        True
    """
    inner = getattr(model, "module", None)
    if type(model).__name__ == "DistributedDataParallel" and isinstance(inner, torch.nn.Module):
        return model, inner
    return None, model
