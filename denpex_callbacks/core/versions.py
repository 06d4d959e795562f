"""Versions of the packages that matter for a report header, without importing them."""

from __future__ import annotations

import platform

_PACKAGES = {
    "torch": ("torch",),
    "hf": ("torch", "transformers", "accelerate", "deepspeed"),
    "lightning": ("torch", "lightning", "pytorch-lightning", "deepspeed"),
    "deepspeed": ("torch", "deepspeed"),
    "log": (),
}


def package_versions(framework: str) -> dict[str, str]:
    """Installed versions of denpex, Python and the framework's packages (missing: skipped).

    Example:
        >>> "python" in package_versions("log")
        True
    """
    # imported here: importlib.metadata pulls in email, zipfile and csv (~15 ms), which every
    # ``denpex diagnose`` start-up paid for a header only a run report writes
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in ("denpex-callbacks", *_PACKAGES.get(framework, ("torch",))):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out
