"""The README documents every public name, config key and diagnosis id."""

from __future__ import annotations

import importlib
import re
from dataclasses import fields
from pathlib import Path

import pytest

from denpex_callbacks import CATALOG, MonitorConfig, Thresholds
from denpex_callbacks import __all__ as core_names

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
PUBLIC_MODULES = [
    "denpex_callbacks.torch",
    "denpex_callbacks.hf",
    "denpex_callbacks.lightning",
    "denpex_callbacks.deepspeed",
    "denpex_callbacks.testing.pytest_plugin",
    "denpex_callbacks.testing.smoke",
    "denpex_callbacks.locate.locator",
]


def public_names(module: str) -> list[str]:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:  # a module not written yet has nothing to document
        if exc.name == module:
            return []
        raise
    return [n for n in getattr(mod, "__all__", []) if not n.startswith("_")]


def test_two_setup_commands_are_shown():
    assert "make demo" in README and "make test" in README


@pytest.mark.parametrize("code", sorted(CATALOG))
def test_every_diagnosis_id_is_documented(code):
    assert f"| {code} |" in README


@pytest.mark.parametrize("key", [f.name for f in fields(MonitorConfig)])
def test_every_config_key_is_documented(key):
    assert f"`{key}`" in README


@pytest.mark.parametrize("key", [f.name for f in fields(Thresholds)])
def test_every_threshold_is_documented(key):
    assert f"`{key}`" in README


@pytest.mark.parametrize(
    "name",
    [n for n in core_names if n != "__version__"]
    + [n for m in PUBLIC_MODULES for n in public_names(m)],
)
def test_every_public_name_is_documented(name):
    # Named in code: `name...` or `module.name...`.
    assert re.search(rf"[`.]{re.escape(name)}\b", README), f"{name} is public but undocumented"
