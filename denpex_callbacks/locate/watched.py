"""The models a monitor watches, as the locator and the re-run see them.

Training code calls what a framework or the user built around a model: DDP, Lightning
Fabric's ``_FabricModule``, ``torch.compile``'s ``OptimizedModule``. Hooks on that outer
object run in eager Python, outside any compiled graph; the module inside it is the one whose
submodules compute. :func:`watched_models` takes what the user passed (a module, a
``ModuleDict``, a list, tuple or dict of modules) and gives each model both, with the name its
modules are reported under. :func:`module_names` names a model's submodules without the
attributes of those wrappers (``_orig_mod.``, ``_forward_module.``, ``_fsdp_wrapped_module.``,
DDP's ``module.``).

The workarounds on torch.compile internals live here, each with its reason (checked on torch
2.13): forward hooks on the submodules of a compiled module never run inside its graph, and
hooks on a module compiled in place (``model.compile()``) run under dynamo, where the RNG and
version-counter reads a capture makes are graph breaks. So a compiled model is hooked on its
wrapper, and the steps the locator watches run eagerly (:func:`eager`) whichever module the
monitor was given.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["WatchedModel", "eager", "module_names", "runs_compiled", "watched_models"]

# Wrappers whose one child is the wrapped module (the attribute named in their module names).
_WRAPPERS = frozenset({
    "OptimizedModule",  # torch.compile: _orig_mod
    "_FabricModule",  # Lightning Fabric: _forward_module (the strategy's wrapper or the module)
    "DistributedDataParallel",  # module
    "DataParallel",  # module
    "FullyShardedDataParallel",  # FSDP1: _fsdp_wrapped_module
    "CheckpointWrapper",  # activation checkpointing: _checkpoint_wrapped_module
})
# Unwrapped to find the computing module: torch.compile's, Fabric's and DDP's wrappers only
# (FSDP1 computes itself: it gathers its flat parameters in its own forward).
_UNWRAP = {"OptimizedModule": "_orig_mod", "_FabricModule": "_forward_module",
           "DistributedDataParallel": "module", "DataParallel": "module"}


@dataclass(frozen=True)
class WatchedModel:
    """One watched model.

    Attributes:
        name: How its modules are prefixed in reports (``""`` for a single model, the key or
            ``[index]`` for one of several).
        hooked: Where a re-run's capture hooks go: the ``torch.compile`` wrapper when the
            model is compiled (hooks on it run outside the compiled graph), else the module
            itself (inside DDP's and Fabric's wrappers, whose forward moves and casts the
            inputs and enters autocast first).
        module: The module that computes, inside every wrapper: the locator hooks its
            submodules, a re-run calls it.
        ddp: The DistributedDataParallel wrapper, if any (a re-run closure calling it is
            sent around its forward, which may enter collectives).
    """

    name: str
    hooked: torch.nn.Module
    module: torch.nn.Module
    ddp: torch.nn.Module | None = None

    @property
    def compiled_wrapper(self) -> bool:
        """The training code calls a ``torch.compile`` wrapper of this model."""
        return type(self.hooked).__name__ == "OptimizedModule"


def watched_models(models: Any) -> list[WatchedModel]:
    """The models in ``models``: a module, a ``ModuleDict``, or a list, tuple or dict of
    modules (anything else is left out; a list of :class:`WatchedModel` is taken as it is).
    Each model once.

    Example:
        >>> g, d = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
        >>> [m.name for m in watched_models({"gen": g, "disc": d})]
        ['gen', 'disc']
        >>> [m.name for m in watched_models([g, d, g])], watched_models(g)[0].module is g
        (['[0]', '[1]'], True)
    """
    if isinstance(models, list) and models and all(isinstance(m, WatchedModel) for m in models):
        return models
    if isinstance(models, torch.nn.ModuleDict):
        named: list[tuple[str, Any]] = list(models.items())
    elif isinstance(models, torch.nn.Module):
        named = [("", models)]
    elif isinstance(models, Mapping):
        named = [(str(key), value) for key, value in models.items()]
    elif isinstance(models, (list, tuple)):
        named = [(f"[{i}]", value) for i, value in enumerate(models)]
    else:
        named = []
    found: list[WatchedModel] = []
    seen: set[int] = set()
    for name, value in named:
        if not isinstance(value, torch.nn.Module) or id(value) in seen:
            continue
        seen.add(id(value))
        chain = _chain(value)
        ddp = next((m for m in chain if type(m).__name__ == "DistributedDataParallel"), None)
        hooked = next((m for m in chain if type(m).__name__ == "OptimizedModule"), chain[-1])
        found.append(WatchedModel(name, hooked, chain[-1], ddp))
    if len(found) == 1 and not isinstance(models, torch.nn.ModuleDict):
        found = [WatchedModel("", found[0].hooked, found[0].module, found[0].ddp)]
    return found


def _chain(model: torch.nn.Module) -> list[torch.nn.Module]:
    """``model`` and the modules wrapped inside it, outermost first."""
    chain = [model]
    while (attribute := _UNWRAP.get(type(chain[-1]).__name__)) is not None:
        inner = getattr(chain[-1], attribute, None)
        if not isinstance(inner, torch.nn.Module):
            break
        chain.append(inner)
    return chain


def module_names(model: torch.nn.Module, prefix: str = "") -> list[tuple[str, torch.nn.Module]]:
    """``model.named_modules()`` under ``prefix``, without the attributes of wrappers.

    Example:
        >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2))
        >>> [name for name, _m in module_names(net, "gen")]
        ['gen', 'gen.0']
    """
    named = list(model.named_modules())
    by_name = dict(named)
    found = []
    for name, module in named:
        parts = name.split(".") if name else []
        kept = [part for i, part in enumerate(parts)
                if type(by_name.get(".".join(parts[:i]))).__name__ not in _WRAPPERS]
        found.append((".".join([prefix, *kept] if prefix else kept), module))
    return found


def runs_compiled(model: torch.nn.Module) -> bool:
    """Some of ``model`` runs under torch.compile: a compiled submodule (``OptimizedModule``)
    or a module compiled in place (``module.compile()`` sets ``_compiled_call_impl``)."""
    return any(type(m).__name__ == "OptimizedModule"
               or getattr(m, "_compiled_call_impl", None) is not None for m in model.modules())


@contextlib.contextmanager
def eager() -> Iterator[None]:
    """Run compiled code eagerly while the context lasts (``torch.compiler.set_stance
    ("force_eager")``, torch 2.6+), so that hooks on the submodules of a compiled model run,
    whichever module the monitor was given. Compiled code cached before is used again
    afterwards: no recompile. Nothing is compiled before dynamo is imported: then nothing is
    done."""
    set_stance = getattr(torch.compiler, "set_stance", None)
    if set_stance is None or "torch._dynamo" not in sys.modules:
        yield
        return
    with set_stance("force_eager"):
        yield
