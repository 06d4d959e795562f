"""Whether a re-run of a failing step would be faithful, before it runs and after.

A re-run proves something only when it computes what the failing step computed: the same
parameters (the step's update was skipped, or nothing changed them since), the same inputs (not
modified in place, and the ones a re-run closure actually feeds the model), and a forward one
rank can run alone (no SyncBatchNorm under several ranks, no FSDP or ZeRO-3 gather).
:class:`~denpex_callbacks.locate.rerun.FailingStepRerun` asks these questions; each answer is
a sentence saying why not, or None. Torch only.
"""

from __future__ import annotations

import torch

from denpex_callbacks.core.run_state import RunState
from denpex_callbacks.locate.capture import StepCapture, StepCaptures
from denpex_callbacks.locate.step_inputs import input_tensors

__all__ = [
    "NotRerunnable",
    "check_same_inputs",
    "collective_in_forward",
    "same_tensor",
    "why_not_rerunnable",
]

_COLLECTIVE_MODULES = ("SyncBatchNorm",)  # forward enters a collective under several ranks
_SHARDED_WRAPPERS = ("FullyShardedDataParallel", "FSDPModule")


class NotRerunnable(Exception):
    """The re-run turned out not to be faithful; the message says why."""


def why_not_rerunnable(
    step: int | None, capture: StepCapture | None, captures: StepCaptures, run: RunState
) -> str | None:
    """Why step ``step`` cannot be re-run from ``capture`` (None: its inputs and parameters
    are still the ones it used)."""
    if capture is None:
        upto = captures.released_upto
        if step is not None and upto is not None and step <= upto:
            return (f"the inputs of step {step} are no longer kept (a step's inputs are "
                    "released once it is judged healthy)")
        return (f"the inputs of step {step} were not captured (no training forward of "
                "the watched model was seen in that step)")
    changed = captures.param_version(capture.params) != capture.param_version
    if changed and not _only_skipped_since(step, captures, run):
        return (f"the parameters changed after step {step}'s forward (its update was "
                "applied: no loss scaler skipped it, or a later step or an in-place edit "
                "changed them): a re-run would not use the same parameters")
    if any(t._version != v for t, v in capture.inputs):
        return f"the inputs of step {step} were modified in place after its forward"
    return None


def _only_skipped_since(step: int | None, captures: StepCaptures, run: RunState) -> bool:
    # A skipped update leaves the values as they were even where a fused optimizer
    # bumped the version counters writing them in place; every step since, all of them
    # judged already, must have been skipped.
    finished = captures.last_finished
    if step is None or run.last_step is None or (
            finished is not None and run.last_step < finished):
        return False
    recent = [r for r in run.recent if r[0] >= step]
    return bool(recent) and recent[0][0] == step and all(r[2] is True for r in recent)


def collective_in_forward(model: torch.nn.Module, world_size: int) -> str | None:
    """Why ``model``'s forward cannot run on one rank alone (None: it can).

    Example:
        >>> collective_in_forward(torch.nn.Linear(2, 2), world_size=8) is None
        True
        >>> collective_in_forward(torch.nn.SyncBatchNorm(2), world_size=2)[:40]
        'the forward holds SyncBatchNorm, which w'
    """
    names = {type(m).__name__ for m in model.modules()}
    if world_size > 1 and names & set(_COLLECTIVE_MODULES):
        return ("the forward holds SyncBatchNorm, which would enter a collective on this "
                "rank alone")
    if names & set(_SHARDED_WRAPPERS):
        return ("the model is sharded (FSDP): its forward gathers parameters from every "
                "rank, which one rank cannot do alone")
    if any(hasattr(p, "ds_status") for p in model.parameters()):
        return ("DeepSpeed ZeRO stage 3 partitions the parameters: the forward gathers "
                "them from every rank, which one rank cannot do alone")
    return None


def check_same_inputs(captures: StepCaptures, capture: StepCapture) -> None:
    """A closure must feed the model the failing step's inputs; one that reads loop
    variables late (``lambda: loss_fn(model(x), y)`` re-run a step later) feeds the next
    batch's: that re-run proves nothing.

    Raises:
        NotRerunnable: The closure did not call the model, or fed it other inputs.
    """
    seen = captures.rerun_inputs
    captures.rerun_inputs = None
    if seen is None:
        raise NotRerunnable("the re-run closure did not call the watched model")
    now, then = input_tensors(*seen), [t for t, _v in capture.inputs]
    if len(now) != len(then) or not all(
            same_tensor(a, b) for a, b in zip(now, then, strict=True)):
        raise NotRerunnable(
            "the re-run closure fed the model other inputs than the failing step's (a "
            "closure reading loop variables sees a later batch: bind them, e.g. "
            "functools.partial(compute_loss, x, y))")


def same_tensor(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Same shape, dtype and values (NaN equal to NaN): a re-run is only worth its inputs.

    Example:
        >>> nan = float("nan")
        >>> same_tensor(torch.tensor([1.0, nan]), torch.tensor([1.0, nan]))
        True
        >>> same_tensor(torch.tensor([1.0]), torch.tensor([1]))
        False
    """
    if a is b:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    b = b.to(a.device)
    if a.is_floating_point() or a.is_complex():
        return bool(torch.allclose(a, b, rtol=0.0, atol=0.0, equal_nan=True))
    return bool(torch.equal(a, b))
