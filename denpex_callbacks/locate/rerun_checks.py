"""Whether a re-run of a failing step would be faithful, before it runs and after.

A re-run proves something only when it computes what the failing step computed: the same
parameters (no optimizer step applied since the step's forward), the same inputs (not modified
in place, and the ones a re-run closure actually feeds the model), and a forward one rank can
run alone: no SyncBatchNorm under several ranks, no sharded parameters (FSDP1, FSDP2
``fully_shard``, tensor-parallel DTensors, ZeRO-3), whose forward gathers them from every
rank. :class:`~denpex_callbacks.locate.rerun.FailingStepRerun` asks these questions; each
answer is a sentence saying why not, or None. Torch only.
"""

from __future__ import annotations

import torch

from denpex_callbacks.locate.capture import StepCapture, StepCaptures
from denpex_callbacks.locate.step_inputs import input_tensors

__all__ = [
    "NotRerunnable",
    "check_same_inputs",
    "collective_in_forward",
    "same_tensor",
    "sharded",
    "why_not_rerunnable",
]

COMPILED = ("its forward ran inside torch.compile, where a capture cannot be taken without "
            "graph breaks (denpex was given the module that a torch.compile wrapper calls, or "
            "one compiled in place with module.compile()): give the monitor what "
            "torch.compile returned to re-run failing steps")


class NotRerunnable(Exception):
    """The re-run turned out not to be faithful; the message says why."""


def why_not_rerunnable(
    step: int | None, capture: StepCapture | None, captures: StepCaptures
) -> str | None:
    """Why step ``step`` cannot be re-run from ``capture`` (None: its inputs and parameters
    are still the ones it used)."""
    if capture is None:
        upto = captures.released_upto
        if captures.compiled_forwards:
            return f"the inputs of step {step} were not captured: {COMPILED}"
        if step is not None and upto is not None and step <= upto:
            return (f"the inputs of step {step} are no longer kept (a step's inputs are "
                    "released once it is judged healthy)")
        return (f"the inputs of step {step} were not captured (no training forward of "
                "the watched model was seen in that step)")
    if captures.counter.applied_since(capture.applied_mark):
        return (f"an optimizer step was applied after step {step}'s forward (no loss scaler "
                "skipped its update, or a later step's update went through): a re-run would "
                "not use the same parameters")
    for forward in capture.models.values():
        if any(t._version != v for t, v in forward.inputs or ()):
            return f"the inputs of step {step} were modified in place after its forward"
    return None


def sharded(model: torch.nn.Module) -> str | None:
    """Why ``model``'s parameters are sharded across ranks (None: they are not).

    Example:
        >>> sharded(torch.nn.Linear(2, 2)) is None
        True
    """
    for module in model.modules():
        kinds = {kind.__name__ for kind in type(module).__mro__}
        if "FullyShardedDataParallel" in kinds:
            return ("the model is sharded by FSDP (FullyShardedDataParallel): its forward "
                    "gathers parameters from every rank")
        if "FSDPModule" in kinds:
            return ("the model is sharded by FSDP2 (fully_shard): its forward gathers the "
                    "parameters, DTensors, from every rank")
    for param in model.parameters():
        if callable(getattr(param, "to_local", None)):
            return ("the model's parameters are DTensors (tensor or sequence parallel): its "
                    "forward communicates with the other ranks")
        if hasattr(param, "ds_status"):
            return ("DeepSpeed ZeRO stage 3 partitions the parameters: the forward gathers "
                    "them from every rank")
    return None


def collective_in_forward(model: torch.nn.Module, world_size: int) -> str | None:
    """Why ``model``'s forward cannot run on one rank alone (None: it can).

    Example:
        >>> collective_in_forward(torch.nn.Linear(2, 2), world_size=8) is None
        True
        >>> collective_in_forward(torch.nn.SyncBatchNorm(2), world_size=2)[:40]
        'the forward holds SyncBatchNorm, which w'
    """
    why = sharded(model)
    if why is not None:
        return f"{why}, which one rank cannot do alone"
    if world_size > 1 and any(type(m).__name__ == "SyncBatchNorm" for m in model.modules()):
        return ("the forward holds SyncBatchNorm, which would enter a collective on this "
                "rank alone")
    return None


def check_same_inputs(captures: StepCaptures, capture: StepCapture) -> None:
    """A closure must feed the models the failing step's inputs (each model's last forward
    is compared); one that reads loop variables late (``lambda: loss_fn(model(x), y)``
    re-run a step later) feeds the next batch's: that re-run proves nothing.

    Raises:
        NotRerunnable: The closure called none of the watched models, or fed one other
            inputs.
    """
    seen, captures.rerun_inputs = captures.rerun_inputs, {}
    if not seen:
        raise NotRerunnable("the re-run closure did not call the watched model")
    for name, (args, kwargs) in seen.items():
        forward = capture.models.get(name)
        if forward is None:
            continue  # (a model the step did not call in training mode)
        now, then = input_tensors(args, kwargs), [t for t, _v in forward.inputs or ()]
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
