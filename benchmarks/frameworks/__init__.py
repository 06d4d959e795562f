"""One runner module per framework; :data:`FRAMEWORKS` lists them.

A framework is benchmarked when its runner module imports, which needs the framework and the
denpex adapter for it (``denpex_callbacks.hf`` ...).
"""

from __future__ import annotations

import importlib
from types import ModuleType

# name -> runner module. Each defines VARIANTS, HEAVY_OPTION, FIRST_STEP, WATCHED_HOOKS (what
# of the adapter is timed on its own, or None) and run(spec).
FRAMEWORKS = {
    "torch": "benchmarks.frameworks.torch_loop",
    "hf": "benchmarks.frameworks.hf_trainer",
    "lightning": "benchmarks.frameworks.lightning_trainer",
    "deepspeed": "benchmarks.frameworks.deepspeed_engine",
}


def load(name: str) -> ModuleType:
    """The runner module of framework ``name``.

    Raises:
        ImportError: When the framework or its denpex adapter is not installed.
    """
    return importlib.import_module(FRAMEWORKS[name])


def available() -> dict[str, ModuleType | ImportError]:
    """Each framework's runner module, or the ImportError saying why it cannot run here."""
    out: dict[str, ModuleType | ImportError] = {}
    for name in FRAMEWORKS:
        try:
            out[name] = load(name)
        except ImportError as exc:
            out[name] = exc
    return out


def adapter_missing(error: ImportError) -> bool:
    """True when what is missing is the denpex adapter itself (this tree has none yet)."""
    return (error.name or "").startswith("denpex_callbacks.")
