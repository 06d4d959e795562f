"""The rules every adapter shares, once each: where reports go, which rank this is, what a
rank prints, how ranks agree to stop.

- **report folder** (:func:`resolve_report_dir`): a relative ``report_dir`` is taken inside the
  framework's output folder (HF ``args.output_dir``, Lightning ``default_root_dir``); the plain
  loop and DeepSpeed have none, so theirs is taken from the working directory.
  ``"{output_dir}"`` in the path is replaced by that folder.
- **rank** (:func:`rank_and_world`): ``torch.distributed`` when initialised, else rank 0 of 1.
- **printing per rank** (:func:`printed_on_rank`): a rank's own loss conditions (AMP006,
  AMP007) are printed by the rank that found them (the line names it); conditions every rank
  sees alike (the shared loss scale, the setup) are printed by rank 0 only. Every rank writes
  all of them to its own report.
- **stopping** (:class:`StopDecision`, :data:`StopVote`, :func:`all_reduce_vote`): one rank's
  wish, agreed over ranks by each framework's reduce, so the run stops after the same step
  everywhere.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any

import torch

from denpex_callbacks.core.diagnosis import Diagnosis

__all__ = [
    "OUTPUT_DIR_FIELD",
    "PER_RANK_CODES",
    "StopDecision",
    "StopVote",
    "all_reduce_vote",
    "printed_on_rank",
    "rank_and_world",
    "resolve_report_dir",
]

# Each rank computes its own loss: these are printed by the rank that sees them. Gradients are
# all-reduced before the scaler checks them, so scale conditions are alike on every rank.
PER_RANK_CODES = frozenset({"AMP006", "AMP007"})
OUTPUT_DIR_FIELD = "{output_dir}"

StopVote = Callable[[bool], bool]
"""One rank's wish to stop in, the ranks' joint decision (any rank wants it) out."""


def resolve_report_dir(report_dir: str | None, output_dir: str | None = None) -> str | None:
    """Where the run reports go: ``report_dir`` taken inside ``output_dir`` when relative.

    Args:
        report_dir: The configured folder (None: no report).
        output_dir: The framework's output folder (None: the working directory).

    Example:
        >>> resolve_report_dir("denpex_reports", "out")
        'out/denpex_reports'
        >>> resolve_report_dir("{output_dir}/r", "out"), resolve_report_dir("/abs", "out")
        ('out/r', '/abs')
        >>> resolve_report_dir("denpex_reports") is None, resolve_report_dir(None, "out")
        (False, None)
    """
    if report_dir is None:
        return None
    root = output_dir or "."
    if OUTPUT_DIR_FIELD in report_dir:
        return report_dir.replace(OUTPUT_DIR_FIELD, root)
    if os.path.isabs(report_dir) or output_dir is None:
        return report_dir
    return os.path.join(root, report_dir)


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


def printed_on_rank(rank: int) -> Callable[[Diagnosis], bool] | None:
    """Which diagnoses rank ``rank`` prints (None: all of them, on rank 0).

    Example:
        >>> from denpex_callbacks.core.diagnosis import Finding
        >>> on_1 = printed_on_rank(1)
        >>> [on_1(Diagnosis.from_finding(Finding(c, 1, ""))) for c in ("AMP006", "AMP003")]
        [True, False]
    """
    if rank == 0:
        return None
    return lambda diagnosis: diagnosis.code in PER_RANK_CODES


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


class StopDecision:
    """Whether to stop after a step under ``on_fault="stop"``: this rank's wish, agreed over
    ranks by the framework's reduce (every rank must ask at every step: a rank that skipped
    the collective would hang the others), announced once.

    Example:
        >>> decision = StopDecision(True, rank=0, world_size=1, logger=logging.getLogger("x"))
        >>> decision.decide(False, None, 3), decision.decide(True, None, 4)
        (False, True)
    """

    def __init__(self, stopping: bool, rank: int, world_size: int,
                 logger: logging.Logger) -> None:
        self.stopping, self.rank, self.world_size, self.logger = (
            stopping, rank, world_size, logger)
        self._announced = False

    def decide(self, wanted: bool, vote: StopVote | None, step: int | None) -> bool:
        """The ranks' joint decision on this rank's wish (``vote``: None for a single rank)."""
        if not self.stopping:
            return False
        decided = vote(wanted) if vote is not None and self.world_size > 1 else wanted
        if decided and not self._announced:
            self._announced = True
            if wanted or self.rank == 0:
                self.logger.warning(
                    "denpex: stopping training after step %s (on_fault='stop', diagnosis on %s)",
                    step, f"rank {self.rank}" if wanted else "another rank")
        return decided
