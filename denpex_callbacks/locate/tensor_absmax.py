"""Largest absolute values of tensors, measured on their device and read back at once.

What the non-finite locator (:mod:`denpex_callbacks.locate.locator`) records: every value is a
0-d float32 tensor left on the tensor's device (``aminmax``, no sync), and
:class:`DeviceValues` brings all of a step's values to the host in one transfer per device.
A value is ``nan`` when the tensor held a NaN, ``inf`` when it held an infinity (and no NaN),
else the finite maximum. Torch only.

Only this rank's data is read (:func:`local_tensor`): a reduction over a DTensor (FSDP2's
parameters, tensor-parallel activations) is a collective, and one rank entering it alone hangs
the others. A DTensor is read as its local shard, a ZeRO-3 partitioned parameter as its own
partition, and any other wrapper subclass (whose reductions may not stay on this rank) not at
all.

Example:
    >>> import torch
    >>> values = DeviceValues()
    >>> at = values.put(absmax(float_tensors((torch.tensor([1.0, -3.0]), {"b": 2.0}), [])))
    >>> values.read()[at], values.host_reads
    (3.0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import torch
from torch.utils._python_dispatch import is_traceable_wrapper_subclass

__all__ = ["MAX_TENSORS_PER_SIDE", "DeviceValues", "absmax", "all_finite", "combine_absmax",
           "float_tensors", "local_tensor"]

MAX_TENSORS_PER_SIDE = 32  # tensors examined among one call's inputs, or its outputs
_NESTING = 4  # how deep tuples, lists and dicts are searched for tensors


class DeviceValues:
    """0-d float32 tensors kept on their devices, read back in one transfer per device."""

    def __init__(self) -> None:
        self._by_device: dict[torch.device, list[torch.Tensor]] = {}
        self._where: list[tuple[torch.device, int]] = []
        self.host_reads = 0

    def __len__(self) -> int:
        return len(self._where)

    def put(self, value: torch.Tensor) -> int:
        """Keep a 0-d tensor where it is; return its index in :meth:`read`'s list."""
        bucket = self._by_device.setdefault(value.device, [])
        bucket.append(value)
        self._where.append((value.device, len(bucket) - 1))
        return len(self._where) - 1

    def read(self) -> list[float]:
        """Every value kept so far, in :meth:`put` order: one host transfer per device."""
        host: dict[torch.device, list[float]] = {}
        for device, values in self._by_device.items():
            host[device] = torch.stack(values).cpu().tolist()  # the step's one sync
            self.host_reads += 1
        return [host[device][i] for device, i in self._where]


def local_tensor(tensor: torch.Tensor) -> torch.Tensor | None:
    """What this rank holds of ``tensor``: itself, a DTensor's local shard, a ZeRO-3
    parameter's own partition; None for another wrapper subclass (not read).

    Example:
        >>> t = torch.ones(2)
        >>> local_tensor(t) is t
        True
    """
    kind = type(tensor)
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        return tensor
    to_local = getattr(tensor, "to_local", None)
    if callable(to_local):  # a DTensor (FSDP2, tensor parallel)
        local = to_local()
        return local if isinstance(local, torch.Tensor) else None
    if is_traceable_wrapper_subclass(tensor):  # its reductions may not be local
        return None
    partition = getattr(tensor, "ds_tensor", None)  # DeepSpeed ZeRO-3: the data is elsewhere
    if tensor.numel() == 0 and isinstance(partition, torch.Tensor):
        return partition
    return tensor  # a plain subclass (FSDP1's FlatParameter): local


def float_tensors(value: Any, out: list[torch.Tensor], depth: int = 0) -> list[torch.Tensor]:
    """Non-empty floating-point tensors in ``value`` (nested tuples, lists, dicts), as this
    rank holds them (:func:`local_tensor`)."""
    if len(out) >= MAX_TENSORS_PER_SIDE:
        return out
    if isinstance(value, torch.Tensor):
        local = local_tensor(value)
        if local is not None and local.is_floating_point() and local.numel() > 0:
            out.append(local)
    elif value is None or depth >= _NESTING:
        pass
    elif isinstance(value, (tuple, list)):
        for item in value:
            float_tensors(item, out, depth + 1)
    # A dict (HF's ModelOutput is one) is tried first: it never reaches the slower abstract
    # Mapping check (this runs on every forward of a watched model).
    elif isinstance(value, (dict, Mapping)):
        for item in value.values():
            float_tensors(item, out, depth + 1)
    return out


def absmax(tensors: list[torch.Tensor]) -> torch.Tensor:
    """max |x| over non-empty tensors, as a 0-d float32 device tensor (nan if any NaN, inf if
    any inf). ``aminmax`` is one pass with no full-size temporary and no autocast cast.

    A tensor whose max |x| is exactly its dtype's largest finite value is an additive
    attention mask (``torch.finfo(dtype).min`` where masked, as transformers builds them),
    not an activation: it counts as 0 so it neither hides nor fakes an overflow.
    """
    values = []
    for tensor in tensors:
        low, high = torch.aminmax(tensor.detach())
        value = torch.maximum(high, -low)
        mask_like = value == torch.finfo(tensor.dtype).max
        values.append(torch.where(mask_like, torch.zeros_like(value), value).float())
    if len(values) == 1:
        return values[0]
    device = values[0].device
    return torch.stack([v.to(device, non_blocking=True) for v in values]).amax()


def all_finite(tensors: list[torch.Tensor]) -> torch.Tensor | None:
    """Whether every value in ``tensors`` is finite, as a 0-d bool tensor on the device (no
    sync; None without tensors). ``aminmax``: one pass, no full-size temporary.

    Example:
        >>> bool(all_finite([torch.ones(3), torch.tensor([1.0, float("inf")])]))
        False
    """
    if not tensors:
        return None
    flags = [torch.isfinite(torch.stack(torch.aminmax(t.detach()))).all() for t in tensors]
    device = flags[0].device
    return flags[0] if len(flags) == 1 else torch.stack(
        [f.to(device, non_blocking=True) for f in flags]).all()


def combine_absmax(values: Iterable[float | None]) -> float | None:
    """The worst of several |x| maxima: NaN beats inf beats the largest finite value."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return math.nan if any(math.isnan(v) for v in present) else max(present)
