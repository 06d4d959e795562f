"""The device boundary: how one step's scalars leave the device without a host-device sync.

One small object with three verbs: :meth:`DeviceBoundary.copy` starts one packed non-blocking
copy of a step's device scalars into a pre-allocated host ring and records an event,
:meth:`Slot.ready` says whether it has landed, :meth:`Slot.values` reads it. The engine sees
a step once its copy is ready, on CUDA usually at the next step.

Two boundaries, chosen once per run by :func:`boundary_for` from where the values live:

- :class:`CudaBoundary`: a pinned ring and CUDA events (the GPU run);
- :class:`StandInBoundary`: the same ring on the CPU, whose readiness is delayed the way a
  stream's is: a copy has not landed when it is first asked about (right after it was
  started, as the adapter's hook that started it looks), and has landed when asked again (the
  next hook, at the latest before the next optimizer step) or waited for. So the path a GPU
  run takes is the path the CPU tests take (``DENPEX_DEVICE_STANDIN=1``).

Without either (a CPU run), CPU tensors are host numbers, read at once: ``item()`` waits for
nothing there. Only :class:`CudaBoundary` calls ``torch.cuda``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import torch

__all__ = [
    "RING_SLOTS",
    "STANDIN_ENV",
    "CudaBoundary",
    "DeviceBoundary",
    "Slot",
    "StandInBoundary",
    "boundary_for",
    "standin_selected",
]

STANDIN_ENV = "DENPEX_DEVICE_STANDIN"  # "1": CPU tensors take the device path (tests)
RING_SLOTS = 64  # steps in flight at most; past this the oldest copy is waited for
RING_WIDTH = 8  # values per step at most (scale before/after, found_inf, tracker, loss...)


class Slot:
    """One step's copy in the ring: landed or not, and its values once read.

    Example:
        >>> boundary = StandInBoundary()
        >>> slot = boundary.copy([torch.tensor(2.0), torch.tensor(3)])
        >>> slot.ready(), slot.values(wait=True)
        (False, [2.0, 3.0])
    """

    __slots__ = ("_boundary", "_index", "_numbers", "_width")

    def __init__(self, boundary: DeviceBoundary, index: int, width: int) -> None:
        self._boundary, self._index, self._width = boundary, index, width
        self._numbers: list[float] | None = None

    def ready(self) -> bool:
        """The copy has landed (reading it waits for nothing)."""
        return self._numbers is not None or self._boundary.landed(self._index)

    def values(self, *, wait: bool = False) -> list[float]:
        """The copied values, in the order given to :meth:`DeviceBoundary.copy`.

        Raises:
            RuntimeError: Not ready and ``wait`` is False.
        """
        if self._numbers is None:
            boundary = self._boundary
            if not boundary.landed(self._index):
                if not wait:
                    raise RuntimeError("denpex: read of a device copy that has not landed")
                boundary.wait(self._index)
            self._numbers = boundary.read(self._index, self._width)
        return self._numbers


class DeviceBoundary:
    """The ring every step's copy goes into; subclasses say how a copy lands.

    Example (the stand-in: a copy lands by the second look at it):
        >>> boundary = StandInBoundary()
        >>> first = boundary.copy([torch.tensor(1.0)])
        >>> first.ready()
        False
        >>> first.ready(), first.values()
        (True, [1.0])
    """

    def __init__(self, slots: int = RING_SLOTS, *, pin_memory: bool = False) -> None:
        self._ring = torch.empty((slots, RING_WIDTH), dtype=torch.float64, pin_memory=pin_memory)
        self._rows: dict[tuple[int, int], torch.Tensor] = {}  # (row, width) -> its view
        self._slots = slots
        self._next = 0
        self._live: list[Slot | None] = [None] * slots

    def takes(self, tensor: torch.Tensor) -> bool:
        """Whether ``tensor`` crosses this boundary (else it is a host number, read at once)."""
        raise NotImplementedError

    def copy(self, tensors: Sequence[torch.Tensor]) -> Slot:
        """Start one packed non-blocking copy of ``tensors`` (one value each: the first
        element) into the next ring slot. The oldest copy still in flight is waited for when
        the ring is full (it finished long ago)."""
        if len(tensors) > RING_WIDTH:
            raise ValueError(f"denpex: {len(tensors)} values in one step copy "
                             f"(at most {RING_WIDTH})")
        index = self._next
        self._next = (index + 1) % self._slots
        old = self._live[index]
        if old is not None:
            old.values(wait=True)  # read before its slot is written again
        # One op where every value is a scalar (stack promotes their dtypes; the ring's row
        # takes float64), else each one's first element.
        scalars = [t.detach() if t.dim() == 0 else t.detach().reshape(-1)[0] for t in tensors]
        self.start(index, torch.stack(scalars))
        slot = Slot(self, index, len(tensors))
        self._live[index] = slot
        return slot

    def row(self, index: int, width: int) -> torch.Tensor:
        """The first ``width`` values of ring row ``index`` (a view, made once)."""
        view = self._rows.get((index, width))
        if view is None:
            view = self._rows[(index, width)] = self._ring[index, :width]
        return view

    def read(self, index: int, width: int) -> list[float]:
        """The values of a landed slot (and the slot is free again)."""
        self._live[index] = None
        return self.row(index, width).tolist()  # type: ignore[no-any-return]

    # -- how a copy lands (the boundary's own part) ------------------------------------------

    def start(self, index: int, packed: torch.Tensor) -> None:
        """Copy ``packed`` into ring row ``index`` without blocking and mark its landing."""
        raise NotImplementedError

    def landed(self, index: int) -> bool:
        """Whether the copy into row ``index`` has finished."""
        raise NotImplementedError

    def wait(self, index: int) -> None:
        """Block until the copy into row ``index`` has finished."""
        raise NotImplementedError


class CudaBoundary(DeviceBoundary):
    """A pinned host ring filled by non-blocking copies, each followed by a CUDA event."""

    def __init__(self, slots: int = RING_SLOTS) -> None:
        super().__init__(slots, pin_memory=True)
        self._events: list[Any] = [torch.cuda.Event() for _ in range(slots)]

    def takes(self, tensor: torch.Tensor) -> bool:
        return bool(tensor.is_cuda)

    def start(self, index: int, packed: torch.Tensor) -> None:
        # In the ring's dtype on the device first: the copy itself is then a plain
        # device-to-pinned-host transfer, which is what runs without blocking.
        self.row(index, packed.numel()).copy_(packed.to(torch.float64), non_blocking=True)
        self._events[index].record()

    def landed(self, index: int) -> bool:
        return bool(self._events[index].query())

    def wait(self, index: int) -> None:
        self._events[index].synchronize()


class StandInBoundary(DeviceBoundary):
    """The CPU stand-in of :class:`CudaBoundary`: a copy has not landed when first asked about
    (a stream is still busy right after the copy was queued) and has landed when asked again
    (by the next hook a stream has finished it) or when waited for."""

    def __init__(self, slots: int = RING_SLOTS) -> None:
        super().__init__(slots)
        self._asked = [0] * slots  # how often each row's copy was asked about

    def takes(self, tensor: torch.Tensor) -> bool:
        return True  # every tensor, as if it lived on the device

    def start(self, index: int, packed: torch.Tensor) -> None:
        self.row(index, packed.numel()).copy_(packed)
        self._asked[index] = 0

    def landed(self, index: int) -> bool:
        self._asked[index] += 1
        return self._asked[index] > 1

    def wait(self, index: int) -> None:
        self._asked[index] = 2


def standin_selected() -> bool:
    """``DENPEX_DEVICE_STANDIN=1``: CPU tensors take the device path."""
    return os.environ.get(STANDIN_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def boundary_for(device: torch.device) -> DeviceBoundary | None:
    """The boundary of a run whose step values live on ``device`` (None: a CPU run without
    the stand-in, whose tensors are host numbers).

    Example:
        >>> boundary = boundary_for(torch.device("cpu"))
        >>> boundary is None or type(boundary).__name__ == "StandInBoundary"
        True
    """
    if device.type == "cuda":
        return CudaBoundary()
    return StandInBoundary() if standin_selected() else None
