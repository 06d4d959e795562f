"""The rules of a run that need torch: which rank this is, and the stop vote over
``torch.distributed``.

- **rank** (:func:`rank_and_world`): ``torch.distributed`` when initialised, else rank 0 of 1.
- **the stop vote** (:func:`all_reduce_vote`): one rank's wish to stop, agreed over ranks by an
  all_reduce, for the frameworks without a reduce of their own (plain loops, HF, DeepSpeed);
  :class:`~denpex_callbacks.core.policy.StopDecision` asks it.

The rules that need no torch are the engine's (the pipeline's text names them).
"""

from __future__ import annotations

from typing import Any

import torch

from denpex_callbacks.core.policy import StopVote

__all__ = ["all_reduce_vote", "rank_and_world"]


def rank_and_world() -> tuple[int, int]:
    """This process's global rank and the number of ranks (0 and 1 without a process group).

    Example:
        >>> rank_and_world()
        (0, 1)
    """
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def all_reduce_vote(device: Any = None) -> StopVote:
    """The stop vote over ``torch.distributed`` (plain loops, HF, DeepSpeed).

    A one-element all_reduce(MAX) and its ``item()``: a sync, made only under
    ``on_fault="stop"`` with several ranks. ``device`` defaults to the current CUDA device
    under NCCL and to the CPU otherwise (gloo).
    """

    def vote(wanted: bool) -> bool:
        where = device
        if where is None:
            nccl = torch.distributed.get_backend() == "nccl"
            where = torch.device("cuda", torch.cuda.current_device()) if nccl else "cpu"
        flag = torch.tensor([1.0 if wanted else 0.0], device=where)
        torch.distributed.all_reduce(flag, op=torch.distributed.ReduceOp.MAX)
        return bool(flag.item() > 0)

    return vote
