"""The floors pyproject.toml declares are the releases the minimum-versions job installs, and a
job runs on the releases its constraints file pins."""

from __future__ import annotations

import os
import re
from importlib import metadata
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("torch", "transformers", "accelerate", "lightning", "pytorch-lightning",
              "deepspeed")


def pins(path: Path) -> dict[str, Version]:
    """``name==version`` lines of a constraints file, by normalised name."""
    found: dict[str, Version] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{path.name}: {line} is not a pin"
            found[canonical(requirement.name)] = Version(spec.version)
    return found


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_floors() -> dict[str, set[Version]]:
    """The ``>=`` floor of each framework in every extra that names it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floors: dict[str, set[Version]] = {}
    for requirements in project["optional-dependencies"].values():
        for text in requirements:
            requirement = Requirement(text)
            name = canonical(requirement.name)
            if name in FRAMEWORKS:
                (spec,) = requirement.specifier
                assert spec.operator == ">=", f"pyproject.toml: {text} is not a floor"
                floors.setdefault(name, set()).add(Version(spec.version))
    return floors


def test_each_framework_has_one_floor_and_the_minimum_job_installs_it() -> None:
    floors = declared_floors()
    minimum = pins(ROOT / "constraints-min.txt")
    assert sorted(floors) == sorted(FRAMEWORKS)
    for name, versions in floors.items():
        assert len(versions) == 1, f"{name}: the extras disagree on its floor: {versions}"
        assert minimum[name] == next(iter(versions)), (
            f"{name}: pyproject.toml says >= {next(iter(versions))}, constraints-min.txt pins "
            f"{minimum[name]}")


def test_both_jobs_run_the_projects_torch() -> None:
    assert pins(ROOT / "constraints.txt")["torch"] == pins(ROOT / "constraints-min.txt")["torch"]


def test_the_installed_releases_are_the_ones_this_job_pins() -> None:
    # The Makefile exports PIP_CONSTRAINT (constraints.txt, or constraints-min.txt for
    # `make test-min`): what runs here must be what that file says runs.
    named = os.environ.get("PIP_CONSTRAINT")
    if not named:
        pytest.skip("PIP_CONSTRAINT is not set: run through make")
    wrong = {}
    for name, pinned in pins(Path(named)).items():
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            installed = None
        if installed is None or installed.release != pinned.release:
            wrong[name] = (str(pinned), str(installed))
    assert not wrong, f"pinned vs installed under {Path(named).name}: {wrong}"
