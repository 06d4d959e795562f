"""Reference pages generated from the code, so the docs cannot drift from it.

The mkdocs hook (``scripts/mkdocs_hooks.py``) replaces a marker such as
``<!-- denpex:catalog -->`` in a page with the matching function's Markdown: the diagnosis
catalog from ``core/catalog.py``, the CLI from its argparse parser, every configuration key
from the dataclasses' docstrings. (The benchmark tables are written by ``benchmarks/render.py``;
a test checks they match the latest results.)
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import re
from collections.abc import Callable
from typing import Any


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def catalog_markdown() -> str:
    """Every catalog entry: a summary table, then one section per id."""
    from denpex_callbacks.core.catalog import CATALOG

    out = ["| id | slug | severity | title |", "|---|---|---|---|"]
    out += [f"| [{e.code}](#{e.code.lower()}) | `{e.slug}` | {e.severity.value} | "
            f"{_cell(e.title)} |" for e in CATALOG.values()]
    for e in CATALOG.values():
        out += ["", f"## {e.code}", "", f"**`{e.slug}`**: {e.title} (default severity "
                f"{e.severity.value})", "", f"**Root cause.** {e.root_cause}", "",
                f"**Fix.** {_code_safe(e.fix)}", ""]
        for framework, fix in e.fix_by_framework.items():
            out += [f"- *{framework}*: {_code_safe(fix)}"]
        if e.fix_by_framework:
            out.append("")
        out += ["**Confirm by hand.**", ""] + [f"- {_code_safe(c)}" for c in e.confirm]
        out += ["", f"**Prevent it.** {_code_safe(e.prevent)}", ""]
        out += ["**References.** " + ", ".join(f"<{r}>" for r in e.references)]
    return "\n".join(out) + "\n"


def _code_safe(text: str) -> str:
    """Catalog prose holds code with ``*`` and ``_``: keep Markdown from reading them."""
    return re.sub(r"([*_<>])", r"\\\1", text)


def cli_markdown() -> str:
    """``denpex --help`` and each command's help, from the argparse parser."""
    from denpex_callbacks.cli import build_parser

    parser = build_parser()
    out = ["```text", "$ denpex --help", _help(parser), "```"]
    for action in parser._actions:  # argparse keeps subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += ["", f"## `denpex {name}`", "", "```text", f"$ denpex {name} --help",
                        _help(sub), "```"]
    return "\n".join(out) + "\n"


def _help(parser: argparse.ArgumentParser) -> str:
    # A fixed width: the page must not change with the terminal that built it.
    formatter = parser.formatter_class
    parser.formatter_class = lambda prog: formatter(prog, width=90)  # type: ignore[misc,assignment]
    try:
        return parser.format_help().rstrip()
    finally:
        parser.formatter_class = formatter


def _attributes(cls: type) -> dict[str, str]:
    """``name: description`` from a Google-style ``Attributes:`` docstring section."""
    doc = inspect.getdoc(cls) or ""
    section = doc.split("Attributes:", 1)[1].split("\n\n", 1)[0] if "Attributes:" in doc else ""
    found: dict[str, str] = {}
    name = ""
    for line in section.splitlines():
        head = re.match(r"^    (\w+): (.*)$", line)
        if head:
            name = head.group(1)
            found[name] = head.group(2)
        elif name and line.startswith("        "):
            found[name] += " " + line.strip()
    return found


def _default(field: dataclasses.Field[Any]) -> str:
    if field.default is not dataclasses.MISSING:
        return f"`{field.default!r}`"
    if field.default_factory is not dataclasses.MISSING:
        return f"`{type(field.default_factory()).__name__}()`"
    return "required"


def fields_markdown(cls: type) -> str:
    """A table of every field of a config dataclass: key, default, meaning."""
    described = _attributes(cls)
    out = ["| key | default | meaning |", "|---|---|---|"]
    for field in dataclasses.fields(cls):
        meaning = described.get(field.name, "")
        if not meaning:
            raise ValueError(f"{cls.__name__}.{field.name} has no docstring description")
        out.append(f"| `{field.name}` | {_default(field)} | {_cell(meaning)} |")
    return "\n".join(out) + "\n"


def config_markdown() -> str:
    """Every MonitorConfig key."""
    from denpex_callbacks.core.config import MonitorConfig

    return fields_markdown(MonitorConfig)


def thresholds_markdown() -> str:
    """Every threshold."""
    from denpex_callbacks.core.thresholds import Thresholds

    return fields_markdown(Thresholds)


def changelog_markdown() -> str:
    """CHANGELOG.md at the repository root (one file, shown on the site too)."""
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "CHANGELOG.md").read_text(encoding="utf-8")


def messages_markdown() -> str:
    """The log doctor's message table: one section per tool, a row per message."""
    from denpex_callbacks.logs.messages import MESSAGES

    out: list[str] = []
    tools: dict[str, list[Any]] = {}
    for row in MESSAGES:
        tools.setdefault(row.tool, []).append(row)
    for tool, rows in tools.items():
        out += ["", f"## {tool}", "", "| message | versions | source | means | read as | by |",
                "|---|---|---|---|---|---|"]
        for row in rows:
            read = row.event + (f" {row.code}" if row.code else "") + (
                " (where other lines show fp16 asked for)" if row.fp16_shown else "") + (
                " (where no other line shows a loss scaler)" if row.no_scaler_shown else "") + (
                f" (as {row.metric})" if row.metric else "")
            out.append(f"| `{_cell(row.message).replace('`', chr(39))}` | {_cell(row.versions)} | "
                       f"{_code_safe(_cell(row.source))} | {_code_safe(_cell(row.means))} | "
                       f"{read} | {row.reader} |")
    return "\n".join(out).lstrip() + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "changelog": changelog_markdown,
    "messages": messages_markdown,
    "catalog": catalog_markdown,
    "cli": cli_markdown,
    "config": config_markdown,
    "thresholds": thresholds_markdown,
}
MARKER = re.compile(r"<!-- denpex:(\w+) -->")


def expand(markdown: str) -> str:
    """``markdown`` with every ``<!-- denpex:NAME -->`` marker replaced by its generator."""

    def generate(found: re.Match[str]) -> str:
        name = found.group(1)
        if name not in GENERATORS:
            raise KeyError(f"unknown docs marker {found.group(0)}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(generate, markdown)
