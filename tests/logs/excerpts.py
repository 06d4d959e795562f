"""Excerpts as a person pastes them: lines written to a file and diagnosed."""

from __future__ import annotations

from pathlib import Path

from denpex_callbacks.logs.doctor import Result, diagnose


def diagnose_lines(tmp_path: Path, lines: list[str]) -> Result:
    """The doctor's result on ``lines`` (read without error)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = diagnose(str(path))
    assert result.error is None, result.error
    return result


def faults(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info on ``lines``."""
    return [(d.code, d.step) for d in diagnose_lines(tmp_path, lines).faults]
