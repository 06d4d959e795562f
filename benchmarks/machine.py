"""What a results file records about where and with what it was measured."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("denpex-callbacks", "torch", "transformers", "accelerate", "lightning",
            "pytorch-lightning", "deepspeed")
REPO = Path(__file__).resolve().parents[1]


def cpu_model() -> str:
    """The CPU's model name (Linux), else the platform's processor string."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gb() -> float | None:
    """Total memory in GB (Linux)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1e6, 1)
    except OSError:
        pass
    return None


def load_average() -> list[float]:
    """1, 5 and 15 minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def machine() -> dict[str, Any]:
    """CPU, memory, OS, Python and the load at the time of the call."""
    return {
        "cpu": cpu_model(),
        "cpus": usable_cpus(),
        "memory_gb": memory_gb(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "load_average": load_average(),
    }


def versions() -> dict[str, str]:
    """Installed versions of the packages that matter, and the repo's git commit."""
    out: dict[str, str] = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    out["git_commit"] = git_commit()
    return out


def git_commit() -> str:
    """Short commit of the working tree (``+dirty`` when it has changes), or ``unknown``."""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty.strip() else "")


def now() -> str:
    """UTC time, ISO 8601, to the second."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def load_note(loads: list[float], cpus: int) -> str | None:
    """A warning when the machine was busy with other work (ratios less reliable).

    Example:
        >>> load_note([7.0, 6.0, 5.0], 2).split(";")[0]
        'machine loaded: 1-minute load average 7.0 on 2 CPUs'
        >>> load_note([0.5, 0.4, 0.3], 2) is None
        True
    """
    if loads and loads[0] > 0.75 * cpus:
        return (f"machine loaded: 1-minute load average {loads[0]} on {cpus} CPUs; "
                "timings are noisy, ratios less reliable")
    return None
