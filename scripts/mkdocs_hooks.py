"""mkdocs hook: expands the reference markers of scripts/docs_reference.py at build time."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_reference import expand


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace ``<!-- denpex:NAME -->`` markers with the generated reference."""
    return expand(markdown)
