"""What every adapter takes around one optimizer step, whatever keeps the scale.

The adapters differ in *when* their framework lets them look (hooks, wrappers); what they take
is the same: the scale before the step and found_inf (copied, since ``update()`` changes the
scale in place and drops found_inf), the scale and growth tracker after it, and the mean loss of
the step's micro-batches. Values stay on the device; :class:`DeferredValues` reads them late,
and :func:`observation_from_values` turns what it hands back into an Observation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from denpex_callbacks.core.observation import Observation
from denpex_callbacks.readers.deepspeed_optimizer import (
    DeepSpeedScaleState,
    read_scale_state,
    scale_state_reader,
)
from denpex_callbacks.readers.grad_scaler import (
    found_inf_tensor,
    growth_tracker_tensor,
    is_grad_scaler,
    scale_tensor,
    scaler_enabled,
)


class LossAccumulator:
    """The mean loss of one optimizer step's micro-batches, kept on the device.

    Device losses are summed in float32 (an fp16 sum of fp16 losses can overflow to inf by
    itself); CPU losses are read at once and summed as Python floats (no sync to avoid there).

    Example:
        >>> import torch
        >>> acc = LossAccumulator()
        >>> acc.add(torch.tensor(1.0, dtype=torch.float16)); acc.add(torch.tensor(3.0))
        >>> float(acc.take()), acc.take()
        (2.0, None)
        >>> loss = torch.tensor(0.5); acc.add(loss); loss *= 4  # in place, after it was added
        >>> float(acc.take())
        0.5
    """

    def __init__(self) -> None:
        # The sum so far (a Python float for CPU losses; an adapter's hot path adds a CPU
        # loss's value to it itself, and counts it).
        self.total: torch.Tensor | float | None = None
        self.count = 0  # losses added since the last take()

    def add(self, loss: Any) -> None:
        """Add one micro-batch's loss (a tensor, any shape: its mean is taken; or a number)."""
        value: torch.Tensor | float
        if isinstance(loss, torch.Tensor):
            numel = loss.numel()
            if numel == 0:
                return
            if numel == 1 and loss.is_cpu:
                # A CPU value is read at once: item() waits for nothing and costs a fraction of
                # the tensor ops below (each several µs of dispatch inside a training loop).
                value = loss.item()
            else:
                # Each tensor op costs microseconds: only those needed, but always one, so that
                # the sum never shares memory with the caller's loss (HF's compute_loss scales
                # the loss in place after the forward this was taken from).
                tensor = loss.detach()
                if numel != 1:
                    tensor = tensor.float().mean()
                elif tensor.dtype != torch.float32:
                    tensor = tensor.float()
                else:
                    tensor = tensor.clone()
                value = tensor
        elif isinstance(loss, (int, float)):
            value = float(loss)
        else:
            return
        total = self.total
        if total is None:
            self.total = value
        elif isinstance(total, torch.Tensor) and isinstance(value, torch.Tensor):
            self.total = total + value.to(total.device)
        else:  # a Python float on either side: no device to move to
            self.total = total + value
        self.count += 1

    def take(self, *, mean: bool = True) -> torch.Tensor | float | None:
        """The mean (or, with ``mean=False``, the sum) so far, and start the next step.

        The sum serves frameworks that already divide each micro-batch's loss by the number
        of accumulation steps (Lightning's automatic optimization). None when nothing was added.
        """
        if self.total is None:
            return None
        total = self.total / self.count if mean and self.count > 1 else self.total
        self.total, self.count = None, 0
        return total


def _scaler_or_state(source: Any) -> tuple[Any, DeepSpeedScaleState | None]:
    """The enabled torch GradScaler behind ``source`` (itself, or DeepSpeed's torch_autocast
    one), else None and, for a DeepSpeed source, its scale state (read once: it is called on
    every step)."""
    if is_grad_scaler(source):
        return (source if scaler_enabled(source) else None), None
    state = read_scale_state(source)
    return (state.grad_scaler, None) if state.grad_scaler is not None else (None, state)


def values_before_step(source: Any, optimizer: Any = None) -> dict[str, Any]:
    """The scale the step's backward used, and found_inf for ``optimizer`` when known.

    Args:
        source: A torch GradScaler (also accelerate's or Lightning's), or any DeepSpeed
            engine, optimizer or wrapper.
        optimizer: The raw optimizer the GradScaler steps (for found_inf).

    Example:
        >>> import torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
        >>> _ = scaler.scale(torch.tensor(1.0))
        >>> values_before_step(scaler)["scale_before"]  # a number on the CPU, a copy on a device
        256.0
    """
    scaler, state = _scaler_or_state(source)
    if scaler is None:  # DeepSpeed's own scaler, or a disabled GradScaler (nothing to read)
        return {"scale_before": state.scale} if state is not None else {}
    return {
        "scale_before": _kept(scale_tensor(scaler)),
        "found_inf": _kept(found_inf_tensor(scaler, optimizer)),
    }


def _kept(tensor: torch.Tensor | None) -> torch.Tensor | float | None:
    """``tensor``'s value as it is now: ``update()`` changes the scale in place.

    On a device a clone (a device op, no sync); on the CPU the number itself (``item()``
    waits for nothing there and costs less than a clone).
    """
    if tensor is None:
        return None
    return tensor.item() if tensor.is_cpu else tensor.detach().clone()


def values_after_step(source: Any) -> dict[str, Any]:
    """The scale after the scaler's update, the growth tracker or hysteresis, and overflow.

    Example:
        >>> import torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
        >>> _ = scaler.scale(torch.tensor(1.0))
        >>> sorted(values_after_step(scaler))
        ['growth_tracker', 'scale_after']
    """
    scaler, state = _scaler_or_state(source)
    if scaler is not None:
        tracker = growth_tracker_tensor(scaler)
        return {"scale_after": scale_tensor(scaler), "growth_tracker": tracker}
    if state is None:
        return {}  # a disabled GradScaler
    return {"scale_after": state.scale, "overflow": state.overflow, "hysteresis": state.hysteresis}


def before_step_reader(source: Any, optimizer: Any = None) -> Callable[[], dict[str, Any]]:
    """:func:`values_before_step` of ``source`` (and ``optimizer``) with where its scale
    lives found once (see :func:`after_step_reader`).

    Example:
        >>> import torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
        >>> read = before_step_reader(scaler)
        >>> _ = scaler.scale(torch.tensor(1.0))
        >>> read()
        {'scale_before': 256.0, 'found_inf': None}
    """
    if is_grad_scaler(source) and scaler_enabled(source):
        scaler = source

        def read_grad_scaler() -> dict[str, Any]:
            return {"scale_before": _kept(scale_tensor(scaler)),
                    "found_inf": _kept(found_inf_tensor(scaler, optimizer))}

        return read_grad_scaler
    if is_grad_scaler(source):
        return dict  # a disabled GradScaler: nothing to read
    read_state = scale_state_reader(source)
    if read_state().grad_scaler is not None:  # DeepSpeed's torch_autocast keeps a GradScaler
        return before_step_reader(read_state().grad_scaler, optimizer)
    return lambda: {"scale_before": read_state().scale}


def after_step_reader(source: Any) -> Callable[[], dict[str, Any]]:
    """:func:`values_after_step` of ``source`` with where its scale lives found once.

    For a run whose scale holder does not change (a GradScaler's enabled flag is fixed at
    construction): each step then only reads the values, without asking again what the source
    is (several attribute lookups and calls every step).

    Example:
        >>> import torch
        >>> scaler = torch.amp.GradScaler("cpu", init_scale=256.0)
        >>> read = after_step_reader(scaler)
        >>> _ = scaler.scale(torch.tensor(1.0))
        >>> sorted(read()), float(read()["scale_after"])
        (['growth_tracker', 'scale_after'], 256.0)
    """
    if is_grad_scaler(source) and scaler_enabled(source):
        scaler = source

        def read_grad_scaler() -> dict[str, Any]:
            return {"scale_after": scale_tensor(scaler),
                    "growth_tracker": growth_tracker_tensor(scaler)}

        return read_grad_scaler
    if is_grad_scaler(source):
        return dict  # a disabled GradScaler: nothing to read
    read_state = scale_state_reader(source)
    if read_state().grad_scaler is not None:  # DeepSpeed's torch_autocast keeps a GradScaler
        return after_step_reader(read_state().grad_scaler)

    def read_deepspeed() -> dict[str, Any]:
        state = read_state()
        return {"scale_after": state.scale, "overflow": state.overflow,
                "hysteresis": state.hysteresis}

    return read_deepspeed


def observation_from_values(
    step: int, values: dict[str, Any], *, rank: int = 0, world_size: int = 1
) -> Observation:
    """Turn the values one step's snapshots handed back (plain numbers) into an Observation.

    Whether the step was skipped: an explicit ``skipped``, else found_inf > 0, else DeepSpeed's
    ``overflow``, else None (the Observation then infers it from a scale decrease).

    Example:
        >>> obs = observation_from_values(3, {"scale_before": 8.0, "scale_after": 4.0,
        ...                                   "found_inf": 1.0, "loss": float("nan")})
        >>> obs.skipped, math.isnan(obs.loss)
        (True, True)
    """
    get = values.get  # called on every step: one lookup, no helper call per field
    skipped = _skipped(get, get("found_inf"))
    scale_before, scale_after, loss = get("scale_before"), get("scale_after"), get("loss")
    grad_norm, lr, when = get("grad_norm"), get("lr"), get("time")
    return Observation(
        step=step,
        rank=rank,
        world_size=world_size,
        scale_before=None if scale_before is None else float(scale_before),
        scale_after=None if scale_after is None else float(scale_after),
        skipped=skipped,
        loss=None if loss is None else float(loss),
        grad_norm=None if grad_norm is None else float(grad_norm),
        lr=None if lr is None else float(lr),
        growth_tracker=None if (tracker := get("growth_tracker")) is None else _integer(tracker),
        hysteresis=None if (hysteresis := get("hysteresis")) is None else _integer(hysteresis),
        time=None if when is None else float(when),
    )


def _skipped(get: Callable[[str], Any], found_inf: Any) -> bool | None:
    """Whether a step was skipped: an explicit ``skipped``, else ``found_inf`` > 0, else
    DeepSpeed's ``overflow`` (a bool), else None (unknown: a fall of the scale tells)."""
    skipped: bool | None = get("skipped")
    if skipped is None and found_inf is not None:
        skipped = float(found_inf) > 0
    if skipped is None and (overflow := get("overflow")).__class__ is bool:
        skipped = overflow
    return skipped


def _integer(value: Any) -> int | None:
    # DeferredValues has turned device tensors into Python floats by now.
    if value is None:
        return None
    number = float(value)
    return int(number) if math.isfinite(number) else None


_TENSOR = torch.Tensor
_NUMBERS = (float, int)


def host_numbers(values: dict[str, Any]) -> tuple[Any, ...] | None:
    """(loss, scale_before, scale_after, skipped, growth_tracker, grad_norm) of one step's
    values, for :attr:`StepPipeline.take_quiet`, when every one of them is readable on the host
    now (a number, None, or a one-element CPU tensor: ``item()`` waits for nothing there); None
    when one is not (a device tensor: the step goes the full way, read a step late).

    Whether the step was skipped, as :func:`observation_from_values` says (``_skipped``).

    Example:
        >>> host_numbers({"loss": torch.tensor(0.5), "scale_after": 8.0, "found_inf": 0.0})
        (0.5, None, 8.0, False, None, None)
        >>> host_numbers({"loss": 0.5, "lr": 0.1, "scale_after": torch.ones(2)}) is None
        True
    """
    get = values.get
    out = []
    for name in ("loss", "scale_before", "scale_after", "found_inf", "growth_tracker",
                 "grad_norm"):
        value = get(name)
        if value is None or value.__class__ in _NUMBERS:
            out.append(value)
        elif value.__class__ is _TENSOR and value.is_cpu and value.numel() == 1:
            out.append(value.item())
        else:
            return None  # (a bool, a device tensor, anything else: the full way says)
    loss, before, after, found_inf, tracker, grad_norm = out
    skipped = _skipped(get, found_inf)
    if tracker is not None:
        tracker = int(tracker)
    return (loss, None if before is None else float(before),
            None if after is None else float(after), skipped, tracker,
            None if grad_norm is None else float(grad_norm))
