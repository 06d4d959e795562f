"""The README is a short landing page; the manual in docs/ documents every public name, config
key, diagnosis id and CLI option, and its reference pages are generated from the code."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path
from types import ModuleType

import pytest

from denpex_callbacks import CATALOG, MonitorConfig, Thresholds
from denpex_callbacks import __all__ as core_names
from denpex_callbacks.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = sorted((ROOT / "docs").rglob("*.md"))
MANUAL = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
PUBLIC_MODULES = [
    "denpex_callbacks.torch",
    "denpex_callbacks.hf",
    "denpex_callbacks.lightning",
    "denpex_callbacks.deepspeed",
    "denpex_callbacks.testing.pytest_plugin",
    "denpex_callbacks.testing.smoke",
    "denpex_callbacks.testing.cpu_fp16",
    "denpex_callbacks.testing.tiny_lightning",
    "denpex_callbacks.locate.locator",
]


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = load(ROOT / "scripts" / "docs_reference.py")


def public_names(module: str) -> list[str]:
    mod = importlib.import_module(module)
    return [n for n in getattr(mod, "__all__", []) if not n.startswith("_")]


# -- the README -------------------------------------------------------------------------------


def test_the_readme_is_a_short_landing_page() -> None:
    assert len(README.splitlines()) <= 250
    assert "make demo" in README and "make test" in README
    assert "## Install" in README and "pip install denpex-callbacks" in README


def _demo_block(text: str) -> str:
    return re.search(r"```text\n\$ make demo.*?```", text, re.S).group()  # type: ignore[union-attr]


def test_the_demo_output_is_the_same_on_the_landing_page_and_the_manuals_first_page() -> None:
    """The manual's first page showed an older demo output than the README (AMP006 as an
    error where the run says warning, a located module the run no longer names)."""
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert _demo_block(index) == _demo_block(README)


def test_the_log_output_example_is_the_demos_own_output() -> None:
    """docs/configuration.md showed an older demo run (AMP006 at error before any
    escalation, <model>.0 at step 62) beside the README's: each README demo line, its "..."
    elisions aside, is a line of the manual's example, in the same order."""
    manual = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = re.search(r"```text\n(denpex: AMP.*?)```", manual, re.S).group(1).splitlines()  # type: ignore[union-attr]
    shown = [line for line in _demo_block(README).splitlines() if line.startswith("denpex: ")]
    assert len(example) == len(shown)
    for full, elided in zip(example, shown, strict=True):
        at = 0
        for piece in elided.split("..."):
            found = full.find(piece.rstrip("(").lstrip(")"), at)
            assert found >= 0, (piece, full)
            at = found + len(piece.rstrip("(").lstrip(")"))


def quickstart_blocks() -> dict[str, list[str]]:
    part = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = {}
    for title, body in re.findall(r"### (.+?)\n+```python\n(.*?)```", part, re.S):
        blocks[title] = body.splitlines()
    return blocks


def test_one_quickstart_of_at_most_15_lines_per_framework() -> None:
    blocks = quickstart_blocks()
    assert sorted(blocks) == ["DeepSpeed", "Hugging Face Trainer", "Lightning", "Plain PyTorch"]
    assert all(len(lines) <= 15 for lines in blocks.values()), {
        k: len(v) for k, v in blocks.items()}


def test_the_log_doctor_fits_in_five_lines() -> None:
    part = README.split("## The log doctor", 1)[1].split("\n## ", 1)[0]
    commands = re.search(r"```bash\n(.*?)```", part, re.S)
    assert commands is not None and len(commands.group(1).splitlines()) <= 5


def test_every_readme_link_points_at_a_file() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    missing = [t for t in targets if not t.startswith("http") and not (ROOT / t).exists()]
    assert targets and not missing


def test_license_and_changelog_exist() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "END OF TERMS AND CONDITIONS" in license_text  # the full text, not a stub
    assert "## [Unreleased]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


# -- the manual -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [n for n in core_names if n != "__version__"]
    + [n for m in PUBLIC_MODULES for n in public_names(m)],
)
def test_every_public_name_is_documented(name: str) -> None:
    # Named in code: `name...` or `module.name...`.
    assert re.search(rf"[`.]{re.escape(name)}\b", MANUAL), f"{name} is public but undocumented"


def test_the_catalog_page_is_generated_from_the_catalog() -> None:
    page = (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8")
    assert "<!-- denpex:catalog -->" in page  # filled at build time: it cannot drift
    generated = reference.catalog_markdown()
    for code, info in CATALOG.items():
        assert f"## {code}" in generated and f"`{info.slug}`" in generated
        assert info.root_cause in generated


def test_the_configuration_page_has_every_key() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "<!-- denpex:config -->" in page and "<!-- denpex:thresholds -->" in page
    config, thresholds = reference.config_markdown(), reference.thresholds_markdown()
    assert all(f"| `{f.name}` |" in config for f in fields(MonitorConfig))
    assert all(f"| `{f.name}` |" in thresholds for f in fields(Thresholds))


def test_a_config_key_without_a_description_fails_the_build() -> None:
    from dataclasses import dataclass

    @dataclass
    class Undocumented:
        """A config.

        Attributes:
            known: Described.
        """

        known: int = 1
        unknown: int = 2

    with pytest.raises(ValueError, match=r"Undocumented\.unknown has no docstring description"):
        reference.fields_markdown(Undocumented)


def test_the_cli_page_has_every_command_and_option() -> None:
    assert "<!-- denpex:cli -->" in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    generated = reference.cli_markdown()
    options = [s for a in build_parser()._actions for s in a.option_strings]
    assert "## `denpex diagnose`" in generated and "## `denpex explain`" in generated
    for option in (*options, "--format", "--workers", "--plot", "--no-progress"):
        assert option in generated


def test_an_unknown_marker_is_refused() -> None:
    with pytest.raises(KeyError, match="unknown docs marker"):
        reference.expand("<!-- denpex:nothing -->")


def test_the_docs_build_strictly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
         "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    catalog = (tmp_path / "site" / "catalog" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="{code.lower()}"' in catalog for code in CATALOG)
