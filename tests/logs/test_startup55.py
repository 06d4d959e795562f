"""``denpex`` start-up (startup55): what the CLI imports before the first line, and the same
answers from the patterns that are now compiled on first use.

The cut is measured in docs/benchmarks.md; these tests hold what must not come back (the
process pool and ``importlib.metadata`` at import) and that the lazily compiled families
(the message table, the overflow and non-finite sentences, the CJK rewrite) still answer.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import denpex_callbacks
from denpex_callbacks.logs import known_messages
from tests.logs.excerpts import faults

# the checkout whose denpex the tests import (the shared venv's editable install is another's)
ROOT = str(Path(denpex_callbacks.__file__).resolve().parents[1])
HEAVY = ("multiprocessing", "concurrent.futures.process", "importlib.metadata", "email")


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=120)


def plain_lines(steps: int, nan_at: int | None = None) -> list[str]:
    """``step N | loss X`` lines, as a hand-written loop prints them
    (``print(f"step {step} | loss {loss:.4f}")``)."""
    return [f"step {s} | loss {'nan' if s == nan_at else f'{2.5 - s * 0.001:.4f}'}"
            for s in range(1, steps + 1)]


def chinese_lines(steps: int, scale: float, nan_at: int | None = None) -> list[str]:
    """A Chinese training loop's line: the step as ``第 N 步``, full-width colons, the loss
    scale by its Chinese name (the words denpex_callbacks/logs/cjk.py maps), as
    ``print(f"第 {step} 步 | 训练损失：{loss:.4f} | 损失缩放：{scale:.1f}")`` writes it."""
    return [f"第 {s} 步 | 训练损失：{'nan' if s == nan_at else f'{2.5 - s * 0.001:.4f}'} | "
            f"损失缩放：{scale:.1f}" for s in range(1, steps + 1)]


def colossalai_overflow(after: float) -> str:
    """ColossalAI's overflow message (colossalai/amp/naive_amp/grad_scaler/
    dynamic_grad_scaler.py ``update``: ``Overflow occurs, the loss scale is adjusted to
    {self.scale.item()}``), behind its logger's prefix."""
    return f"colossalai - INFO: Overflow occurs, the loss scale is adjusted to {after}"


def test_cli_import_leaves_the_process_pool_and_package_metadata(tmp_path: Path) -> None:
    """Neither the scan's process pool (only logs of 64 MiB or more use one) nor
    ``importlib.metadata`` (only a run report's header) is imported by ``denpex`` itself."""
    code = ("import sys, denpex_callbacks.cli; "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    done = _python("-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_cli_on_a_tiny_log_says_what_it_said(tmp_path: Path) -> None:
    """Control: ``denpex diagnose`` on a pasted excerpt prints the verdict it printed before
    the start-up cut (recorded from 8226626)."""
    log = tmp_path / "small.log"
    log.write_text("Epoch 1 step 10 loss 2.31\nEpoch 1 step 20 loss 2.10\n", encoding="utf-8")
    done = _python("-m", "denpex_callbacks.cli", "diagnose", str(log), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        f"{log}: no fault found (read 2 lines: 2 as metrics (Epoch, step, loss) in an "
        "unrecognised key value format; 20 step(s) reconstructed, 0 skipped by overflow)\n")


def test_message_table_row_compiled_on_first_use_reads_the_same() -> None:
    """Control: a table row's regex compiled at its first line reads the scale it names."""
    known_messages._regex.cache_clear()
    events = known_messages.parse(colossalai_overflow(1024.0))
    assert [(e.kind, e.scale_after) for e in events] == [("overflow", 1024.0)]


def test_nan_loss_through_the_lazy_families(tmp_path: Path) -> None:
    """Control: the NaN loss of a plain loop and of a Chinese one, beside an overflow
    message, at the step of the NaN."""
    lines = plain_lines(199, nan_at=150)
    lines.insert(120, colossalai_overflow(1024.0))
    assert faults(tmp_path, lines) == [("AMP006", 150)]
    assert faults(tmp_path, chinese_lines(99, 4096.0, nan_at=61)) == [("AMP006", 61)]


def test_healthy_chinese_log_at_a_lowered_initial_scale_is_silent(tmp_path: Path) -> None:
    """Control: a healthy Chinese loop at an initial scale of 4096 (not the default 65536)."""
    assert faults(tmp_path, chinese_lines(99, 4096.0)) == []
