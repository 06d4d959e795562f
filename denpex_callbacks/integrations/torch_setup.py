"""What a hand-written loop hands the monitor, unwrapped, and what the run asked for and runs.

Users pass the objects they hold: a torch optimizer, or accelerate's ``AcceleratedOptimizer``
(``accelerator.prepare``), or Lightning Fabric's wrapped optimizer and module
(``fabric.setup``), a ``torch.compile`` module, a DDP/FSDP module, or several of each (a list,
a tuple, a dict, a ModuleDict). :func:`loop_objects` finds the raw optimizers and modules
behind them, the GradScaler the wrappers step through, and the precision the loop asked for
(accelerate keeps it in its state, Fabric in its precision plugin; a plain loop says it with
``precision=``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from denpex_callbacks.core.run_setup import (
    PRECISION_WORDS,
    RunSetup,
    active_precision,
    parameter_dtype,
)
from denpex_callbacks.readers.grad_scaler import (
    is_grad_scaler,
    optimizer_has_fp16_params,
    scaler_device,
    scaler_enabled,
    scaler_setup,
)

__all__ = ["AutocastProbe", "LoopObjects", "loop_objects", "loop_setup", "requested_precision"]

# The autocast dtype accelerate's forward wrapper enters for what its state asked for.
_WRAPPER_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


@dataclass
class LoopObjects:
    """The raw objects behind what a loop handed the monitor.

    Attributes:
        optimizers: The torch optimizers (inside accelerate's or Fabric's wrappers).
        models: For each module handed over, the one whose forward runs in the loop's autocast
            state (Fabric's ``_forward_module``; a compiled wrapper as it is).
        scaler: The GradScaler given, or the one a wrapper steps through.
        requested: The precision the loop asked for (``fp16``, ``bf16``, ``fp32``...), if known.
        framework: ``accelerate`` or ``fabric`` when a wrapper of theirs was handed over.
        autocast_wrapper: A model's forward enters autocast itself (accelerate's wrapper).
    """

    optimizers: list[Any] = field(default_factory=list)
    models: list[torch.nn.Module] = field(default_factory=list)
    scaler: Any = None
    requested: str | None = None
    framework: str | None = None
    autocast_wrapper: bool = False

    def add(self, given: LoopObjects) -> tuple[list[Any], bool]:
        """Take in what is new in ``given`` (objects handed over later: ``attach``, a
        ``step(optimizer=...)``): the optimizers new here, and whether its scaler is the first
        one here."""
        new = [raw for raw in given.optimizers if raw not in self.optimizers]
        self.optimizers += new
        self.requested = self.requested or given.requested
        self.framework = self.framework or given.framework
        self.autocast_wrapper |= given.autocast_wrapper
        first_scaler = self.scaler is None and given.scaler is not None
        if first_scaler:
            self.scaler = given.scaler
        return new, first_scaler


def _each(objects: Any) -> list[Any]:
    """The objects of a list, tuple, dict or ModuleDict, or the object itself."""
    if objects is None:
        return []
    if isinstance(objects, torch.nn.ModuleDict):
        return list(objects.values())
    if isinstance(objects, torch.nn.ModuleList):
        return list(objects)
    if isinstance(objects, Mapping):
        return list(objects.values())
    if isinstance(objects, (list, tuple)):
        return list(objects)
    return [objects]


def requested_precision(name: Any) -> str | None:
    """The engine's name of a precision as users write it (None when not known).

    Example:
        >>> requested_precision("16-mixed"), requested_precision("bf16"), requested_precision(None)
        ('fp16', 'bf16', None)
    """
    if name is None:
        return None
    text = str(getattr(name, "value", name)).strip().lower()
    word = PRECISION_WORDS.get(text)
    return word.name if word is not None else text or None


def loop_objects(scaler: Any = None, optimizer: Any = None, model: Any = None,
                 precision: Any = None) -> LoopObjects:
    """Unwrap what a loop handed over (see the module's text).

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> found = loop_objects(optimizer=[torch.optim.SGD(model.parameters(), lr=0.1)],
        ...                      model={"net": model}, precision="16-mixed")
        >>> len(found.optimizers), found.models == [model], found.requested
        (1, True, 'fp16')
    """
    found = LoopObjects(scaler=scaler, requested=requested_precision(precision))
    for given in _each(optimizer):
        raw = given
        # accelerate's AcceleratedOptimizer and Fabric's _FabricOptimizer keep the torch
        # optimizer as ``.optimizer`` (checked on accelerate 1.0-1.15, lightning 2.2-2.6.6).
        while hasattr(raw, "param_groups") and isinstance(getattr(raw, "optimizer", None),
                                                          torch.optim.Optimizer):
            _wrapper_facts(raw, found)
            raw = raw.optimizer
        if raw not in found.optimizers:
            found.optimizers.append(raw)
    for given in _each(model):
        module = _computing_module(given, found)
        if isinstance(module, torch.nn.Module) and module not in found.models:
            found.models.append(module)
    return found


def _wrapper_facts(wrapper: Any, found: LoopObjects) -> None:
    """What accelerate's or Fabric's optimizer wrapper tells: its scaler and the precision."""
    accelerate_state = getattr(wrapper, "accelerator_state", None)
    if accelerate_state is not None:  # accelerate: the scaler it steps through, if any
        found.framework = "accelerate"
        if found.scaler is None and is_grad_scaler(getattr(wrapper, "scaler", None)):
            found.scaler = wrapper.scaler
        if found.requested is None:  # what Accelerator(mixed_precision=...) was given
            found.requested = requested_precision(getattr(accelerate_state, "mixed_precision",
                                                          None))
        return
    plugin = getattr(getattr(wrapper, "_strategy", None), "precision", None)
    if plugin is not None:  # Fabric: its precision plugin holds the scaler
        found.framework = "fabric"
        if found.scaler is None and is_grad_scaler(getattr(plugin, "scaler", None)):
            found.scaler = plugin.scaler
        if found.requested is None:  # what Fabric runs (its flag, after its own CPU swaps)
            found.requested = requested_precision(getattr(plugin, "precision", None))


def _computing_module(given: Any, found: LoopObjects) -> Any:
    """The module whose forward runs in the loop's autocast state: Fabric's ``_forward_module``
    (``_FabricModule`` enters autocast and calls it, lightning 2.6.6), else the module itself
    (a compiled wrapper too: a hook on it runs outside the graph)."""
    module = given
    inner = getattr(module, "_forward_module", None)
    if isinstance(inner, torch.nn.Module):
        found.framework = found.framework or "fabric"
        module = inner
    if hasattr(module, "_original_forward"):  # accelerate's autocast wrapper of forward
        found.autocast_wrapper = True
    return module


def loop_setup(objects: LoopObjects, *, autocast_dtype: torch.dtype | None,
               loss: Any = None) -> RunSetup:
    """What the loop runs: the scaler, the dtype the forward computed in, what was asked for.

    Args:
        objects: The unwrapped objects.
        autocast_dtype: The autocast dtype seen at the first forward (None: none seen).
        loss: The first loss (its dtype says fp16 where nothing else does).
    """
    setup = RunSetup(framework="torch", framework_version=torch.__version__)
    if objects.framework is not None:
        setup.extra["loop"] = objects.framework
    scaler_setup(objects.scaler, setup)
    fp16_params = any(optimizer_has_fp16_params(opt) for opt in objects.optimizers)
    setup.fp16_parameters = fp16_params if objects.optimizers else None
    dtype = autocast_dtype
    if dtype is None and objects.autocast_wrapper:
        dtype = _wrapper_dtype(objects)
    if dtype is None and isinstance(loss, torch.Tensor) and loss.dtype == torch.float16:
        dtype = torch.float16
    params = parameter_dtype(objects.models)
    if dtype == torch.float16 or fp16_params or params == "float16":
        compute: str | None = "float16"
    elif dtype == torch.bfloat16 or params == "bfloat16":
        compute = "bfloat16"
    else:  # no autocast seen: fp32 if a model was watched, else nothing says
        compute = "float32" if objects.models else None
    setup.active_precision = active_precision(compute, has_scaler=setup.has_scaler,
                                              autocast=dtype is not None)
    setup.requested_precision = objects.requested
    setup.extra["autocast_dtype"] = str(dtype) if dtype is not None else None
    setup.extra["device"] = _device(objects)
    return setup


def _wrapper_dtype(objects: LoopObjects) -> torch.dtype | None:
    """The dtype accelerate's forward wrapper enters autocast in, inside forward (after the
    probe's pre-hook, which sees no autocast): float16 where it steps a scaler, else the one its
    state asked for (``get_mixed_precision_context_manager``, accelerate 1.0-1.15: bf16 on CPU
    too, where no scaler is built)."""
    if scaler_enabled(objects.scaler):
        return torch.float16
    return _WRAPPER_DTYPES.get(objects.requested or "")


def _device(objects: LoopObjects) -> str | None:
    """Where the loop computes: the scaler's device, else the models' parameters'."""
    device = scaler_device(objects.scaler)
    if device is not None:
        return device
    for model in objects.models:
        for param in model.parameters():
            return str(param.device.type)
    return None


class AutocastProbe:
    """The autocast dtype a loop's forward runs in, read at its first forward (a pre-hook that
    removes itself).

    Example:
        >>> model = torch.nn.Linear(2, 1)
        >>> probe = AutocastProbe()
        >>> probe.watch(model)
        >>> with torch.autocast("cpu", dtype=torch.bfloat16):
        ...     _ = model(torch.ones(1, 2))
        >>> probe.dtype
        torch.bfloat16
    """

    def __init__(self) -> None:
        self.dtype: torch.dtype | None = None
        self._hook: Any = None

    def watch(self, module: torch.nn.Module) -> None:
        """Read the autocast state at ``module``'s next forward."""
        if self._hook is None:
            # Kept out of dynamo: on a module compiled in place (or the one inside a compiled
            # wrapper) the hook runs inside the compiled call, and removing its own handle
            # there is a graph break.
            self._hook = module.register_forward_pre_hook(torch.compiler.disable(self._on_forward))

    def _on_forward(self, module: Any, args: Any) -> None:
        for device in ("cuda", "cpu"):
            if torch.is_autocast_enabled(device):
                self.dtype = torch.get_autocast_dtype(device)
                break
        self.close()

    def close(self) -> None:
        """Remove the hook (a probe that has read the dtype has removed it already)."""
        if self._hook is not None:
            self._hook.remove()
            self._hook = None
