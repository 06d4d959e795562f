"""A log Windows PowerShell 5.1 wrote: ``python train.py > train.log`` (and ``Out-File``,
``Tee-Object``) write the program's output as UTF-16LE with a byte-order mark. It is read as
text (it was refused as binary: a NUL byte after every ASCII character).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from denpex_callbacks.logs.doctor import diagnose


def _lines(nan_from: int | None = None) -> list[str]:
    def loss(step: int) -> str:
        return "nan" if nan_from is not None and step >= nan_from else f"{2.3 - step / 1e4:.4f}"
    return [f"epoch 1 step {s} loss {loss(s)}" for s in range(10, 3000, 10)]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_log_with_a_bom(tmp_path: Path, encoding: str) -> None:
    """Before: "binary file (NUL bytes), not a text log", exit 2."""
    path = tmp_path / "train.log"
    bom = "" if encoding == "utf-16" else "\ufeff"  # (the plain codec writes its own)
    path.write_text(bom + "\r\n".join(_lines(1500)) + "\r\n", encoding=encoding)
    result = diagnose(str(path))
    assert result.error is None, result.error
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 1500)]


def test_utf16_on_stdin_and_the_controls(tmp_path: Path) -> None:
    """Controls: a healthy UTF-16 log is quiet (it was refused as binary before), one piped to
    ``denpex diagnose -`` is read alike, and a file of NUL bytes with no BOM is still refused
    (as before)."""
    healthy = tmp_path / "healthy.log"
    healthy.write_text("\n".join(_lines()) + "\n", encoding="utf-16")
    result = diagnose(str(healthy))
    assert result.error is None and result.faults == []
    faulty = tmp_path / "faulty.log"
    faulty.write_text("\n".join(_lines(1500)) + "\n", encoding="utf-16")
    piped = subprocess.run([sys.executable, "-m", "denpex_callbacks.cli", "diagnose", "-"],
                           input=faulty.read_bytes(), capture_output=True, check=False)
    assert b"AMP006" in piped.stdout and b"step 1500" in piped.stdout
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x00\x01\x02loss nan\x00" * 100)
    assert "binary" in (diagnose(str(binary)).error or "")
