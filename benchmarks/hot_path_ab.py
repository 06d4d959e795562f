"""One module's hot path, before and after a change, side by side in one process.

Two benchmark runs minutes apart differ by up to 2x on a shared machine (the hooks run with
cold caches, and a busy neighbour changes what "cold" costs), far more than most changes to
the hot path save. This runs one framework's variant-b benchmark (:mod:`benchmarks.frameworks`)
alternately with a git revision's version of one denpex module and with the working tree's,
in the same process (the same memory layout for everything else), and reports the paired
difference of the time inside the adapter's hooks, net of the timer's cost.

Only the named module differs: it is loaded from ``git show REV:PATH`` under another name,
and the name the framework's runner uses (``AmpDiagnosticCallback``, ``AmpMonitor`` or
``attach``; for Lightning's ``lightning_callback.py``, a callback built from its
``AmpDiagnosticHooks``) is taken from it. Every other module is the working tree's, so this
compares a change to an adapter module, not one spread over several.

Its noise: the same code on both sides measured +1.7 µs (pairs from -3.7 to +8.3) over 8
pairs of 200 steps in a Trainer. A median difference under about 2 µs, or one that does not
hold in a second run, is not a result.

Usage::

    python -m benchmarks.hot_path_ab hf denpex_callbacks/integrations/hf_trainer.py \\
        --against HEAD --pairs 12 --steps 200
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# framework -> (runner module, the name the runner calls the adapter by)
RUNNERS = {
    "torch": ("benchmarks.frameworks.torch_loop", "AmpMonitor"),
    "hf": ("benchmarks.frameworks.hf_trainer", "AmpDiagnosticCallback"),
    "lightning": ("benchmarks.frameworks.lightning_trainer", "AmpDiagnosticCallback"),
    "deepspeed": ("benchmarks.frameworks.deepspeed_engine", "attach"),
}


def module_at(revision: str, path: str) -> ModuleType:
    """``path`` (a module of this repository) as it is at git ``revision``, imported under
    its dotted name plus ``_at_revision`` (its own imports are the working tree's)."""
    source = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=REPO, check=True,
                            capture_output=True, text=True).stdout
    name = path.removesuffix(".py").replace("/", ".") + "_at_revision"
    module = ModuleType(name)
    module.__file__ = f"{revision}:{path}"  # (what tracebacks name; no file is written)
    sys.modules[name] = module  # (dataclasses and typing look the module up by name)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def adapter_of(module: ModuleType, attribute: str) -> Any:
    """What the runner calls ``attribute``, from ``module``: the name itself, or for
    Lightning's hooks module (``lightning_callback.py``, whose callback class is built in
    ``lightning_entry.py``) the class built from its ``AmpDiagnosticHooks`` the same way."""
    found = getattr(module, attribute, None)
    if found is not None:
        return found
    from lightning.pytorch.callbacks import Callback

    return type(attribute, (module.AmpDiagnosticHooks, Callback),
                {"__module__": "denpex_callbacks.lightning"})


def compare(framework: str, path: str, revision: str, pairs: int, steps: int) -> dict[str, Any]:
    """Alternate the two versions ``pairs`` times (the order flipped every pair); net hook
    µs per step of each run, their medians and the median paired difference (now - then)."""
    import torch

    from benchmarks.frameworks.base import RunSpec
    from benchmarks.workloads import MLP_CPU

    torch.set_num_threads(1)
    runner_name, attribute = RUNNERS[framework]
    runner = importlib.import_module(runner_name)
    now = importlib.import_module(path.removesuffix(".py").replace("/", "."))
    versions = {"then": adapter_of(module_at(revision, path), attribute),
                "now": adapter_of(now, attribute)}
    samples: dict[str, list[float]] = {"then": [], "now": []}
    for index in range(pairs):
        for label in ("then", "now") if index % 2 == 0 else ("now", "then"):
            setattr(runner, attribute, versions[label])
            with tempfile.TemporaryDirectory() as workdir:
                result = runner.run(RunSpec("b", MLP_CPU, steps, workdir=workdir))
            samples[label].append((result.hook_net_s_per_step or 0.0) * 1e6)
    diffs = [b - a for a, b in zip(samples["then"], samples["now"], strict=True)]
    return {"then_us": statistics.median(samples["then"]),
            "now_us": statistics.median(samples["now"]),
            "paired_diff_us": statistics.median(diffs), "diffs_us": diffs,
            "now_lower_in": sum(d < 0 for d in diffs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("framework", choices=sorted(RUNNERS))
    parser.add_argument("module", help="the changed module, a path from the repository root")
    parser.add_argument("--against", default="HEAD", help="git revision to compare with")
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args(argv)
    out = compare(args.framework, args.module, args.against, args.pairs, args.steps)
    print(f"{args.framework}: {args.against} {out['then_us']:.1f} µs, working tree "
          f"{out['now_us']:.1f} µs; paired difference {out['paired_diff_us']:+.1f} µs "
          f"(lower in {out['now_lower_in']} of {args.pairs} pairs: "
          f"{[round(d, 1) for d in out['diffs_us']]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
