"""Read small device values one step late, so monitoring adds no host-device sync.

On CUDA, ``push`` packs the step's scalars into one tensor, starts a non-blocking copy into
pinned host memory and records an event; ``ready`` hands back the steps whose copy has
finished (by the next step it almost always has). A CPU tensor is read at once: that waits for
nothing, and one ``item()`` costs less than the ops that packing it would take (inside a
training loop each tensor op costs several microseconds of dispatch).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import torch

MAX_PENDING = 64  # past this the oldest copy is waited for (it finished long ago)


class DeferredValues:
    """A queue of per-step scalar snapshots taken without blocking the device.

    Example:
        >>> import torch
        >>> q = DeferredValues()
        >>> q.push(7, {"scale": torch.tensor(1024.0), "loss": torch.tensor(0.5), "lr": 0.1})
        >>> q.ready()
        [(7, {'scale': 1024.0, 'loss': 0.5, 'lr': 0.1})]
    """

    def __init__(self) -> None:
        # Snapshots not handed back yet, oldest first (empty: a step may be judged at once)
        self.pending: deque[
            tuple[Any, list[str], torch.Tensor | None, Any, dict[str, Any]]
        ] = deque()

    def __len__(self) -> int:
        return len(self.pending)

    def push(self, key: Any, values: Mapping[str, Any]) -> None:
        """Snapshot ``values`` (tensors, numbers or None) for step ``key``."""
        self._push(key, *_read_host_values(values))

    def _push(self, key: Any, plain: dict[str, Any],
              on_device: list[tuple[str, torch.Tensor]]) -> None:
        if not on_device:  # everything on the CPU: read already, nothing to copy
            self.pending.append((key, [], None, None, plain))
            return
        names = [name for name, _value in on_device]
        # float64 holds what a CPU item() gives: an int64 tracker, a float64 value
        tensors = [value.detach().reshape(-1)[:1].to(torch.float64) for _name, value in on_device]
        device = tensors[0].device
        packed = torch.cat([t.to(device, non_blocking=True) for t in tensors])
        event = None
        if packed.is_cuda:
            host = torch.empty(packed.shape, dtype=packed.dtype, pin_memory=True)
            host.copy_(packed, non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            packed = host
        self.pending.append((key, names, packed, event, plain))
        if len(self.pending) > MAX_PENDING and self.pending[0][3] is not None:
            self.pending[0][3].synchronize()

    def read_now_or_push(self, key: Any, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """``values`` read at once when that waits for nothing (numbers, CPU tensors) and no
        earlier snapshot is still queued (its step comes first); else they are snapshotted for
        step ``key`` as :meth:`push` does, and None is returned. Either way they are read once.

        Example:
            >>> q = DeferredValues()
            >>> q.read_now_or_push(3, {"loss": torch.tensor(0.5), "lr": 0.1})
            {'loss': 0.5, 'lr': 0.1}
            >>> len(q)
            0
        """
        plain, on_device = _read_host_values(values)
        if not on_device and not self.pending:
            return plain
        self._push(key, plain, on_device)  # a device value: copied, read a step late
        return None

    def ready(self, *, wait: bool = False) -> list[tuple[Any, dict[str, Any]]]:
        """Snapshots whose copy has finished, oldest first (``wait``: all of them)."""
        out: list[tuple[Any, dict[str, Any]]] = []
        while self.pending:
            key, names, host, event, plain = self.pending[0]
            if event is not None and not event.query():
                if not wait:
                    break
                event.synchronize()
            self.pending.popleft()
            if host is None:
                out.append((key, plain))
                continue
            values = dict(zip(names, host.tolist(), strict=True))
            out.append((key, {**values, **plain}))
        return out


def _read_host_values(
    values: Mapping[str, Any],
) -> tuple[dict[str, Any], list[tuple[str, torch.Tensor]]]:
    """The values readable now (numbers, CPU tensors read with ``item()``: it waits for
    nothing there), and the device tensors left to copy."""
    plain: dict[str, Any] = {}
    on_device: list[tuple[str, torch.Tensor]] = []
    tensor = torch.Tensor
    for name, value in values.items():
        if not isinstance(value, tensor):
            plain[name] = value
        elif value.is_cpu or value.numel() == 0:
            plain[name] = float(value.item()) if value.numel() == 1 else first_number(value)
        else:
            on_device.append((name, value))
    return plain, on_device


def first_number(tensor: torch.Tensor) -> float | None:
    """The (first) value of a tensor as a float; None for an empty one. On a CPU tensor this
    waits for nothing; on a device tensor it is a sync (callers use it on CPU ones only).

    Example:
        >>> first_number(torch.tensor([3, 4])), first_number(torch.tensor([]))
        (3.0, None)
    """
    if tensor.numel() == 1:
        return float(tensor.item())
    return float(tensor.reshape(-1)[0].item()) if tensor.numel() else None
