"""Runs of quiet lines counted instead of read one by one (denpex_callbacks/logs/quiet_runs.py):
the same diagnoses as reading every line, on every corpus log and on generated logs where
every line is a metric line (Megatron's and nanoGPT's shapes) with faults at random places.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from denpex_callbacks.logs.doctor import Result, diagnose
from denpex_callbacks.logs.quiet_runs import KEEP

HERE = Path(__file__).parent
LOGS = sorted([*HERE.glob("corpus/*.log"), *HERE.glob("recorded/*/*.log")])


def _verdict(result: Result) -> list[tuple[object, ...]]:
    return [(d.code, d.step, d.severity.value, d.rank, d.lines[:1]) for d in result.diagnoses]


def _both(path: Path) -> tuple[Result, Result]:
    counted = diagnose(str(path))
    one_by_one = diagnose(str(path), quiet_runs=False)
    assert counted.error is None and one_by_one.error is None
    return counted, one_by_one


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_corpus_logs_read_the_same_either_way(path: Path) -> None:
    counted, one_by_one = _both(path)
    assert _verdict(counted) == _verdict(one_by_one)
    assert counted.timeline.steps == one_by_one.timeline.steps


def _megatron(i: int, loss: str, scale: float, skipped: int = 0, nan: int = 0) -> str:
    return (f" [2026-11-30 10:00:00] iteration {i * 10:8d}/  500000 | consumed samples: "
            f"{i * 5120:12d} | learning rate: 3.000000E-04 | global batch size:   512 | lm loss: "
            f"{loss} | loss scale: {scale:.1f} | grad norm: 1.234 | number of skipped "
            f"iterations: {skipped:3d} | number of nan iterations: {nan:3d} |")


def _nanogpt(i: int, loss: str) -> str:
    return f"iter {i}: loss {loss}, time {30 + i % 7}.{i % 100:02d}ms, mfu {40 + i % 3}.12%"


def _faulty(kind: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    lines, scale = [], 65536.0
    fault_at = rng.randrange(KEEP // 2, 3000)
    for i in range(1, 3500):
        loss = f"{2.5 + rng.random():.6E}" if kind == "megatron" else f"{2.5 + rng.random():.4f}"
        if kind == "megatron":
            if i == fault_at:
                lines.append(_megatron(i, "nan", scale, nan=3))
            elif fault_at < i < fault_at + 8 and seed % 2:
                scale /= 2
                lines.append(_megatron(i, loss, scale, skipped=10))
            else:
                lines.append(_megatron(i, loss, scale))
        else:
            value = "nan" if i == fault_at else ("0.0000" if seed % 2 and i > fault_at
                                                 else loss)
            lines.append(_nanogpt(i, value))
        if rng.random() < 0.002:
            lines.append("some other line without a keyword")
    return lines


@pytest.mark.parametrize("kind", ["megatron", "nanogpt"])
@pytest.mark.parametrize("seed", range(6))
def test_generated_logs_read_the_same_either_way(tmp_path: Path, kind: str, seed: int) -> None:
    path = tmp_path / f"{kind}.log"
    path.write_text("\n".join(_faulty(kind, seed)) + "\n", encoding="utf-8")
    counted, one_by_one = _both(path)
    assert _verdict(counted) == _verdict(one_by_one)
    assert counted.faults, "the fault is found"
    assert counted.timeline.steps == one_by_one.timeline.steps
    assert counted.reading.parts == one_by_one.reading.parts


def test_a_healthy_every_line_log_is_counted_in_runs(tmp_path: Path) -> None:
    path = tmp_path / "nanogpt.log"
    path.write_text("\n".join(_nanogpt(i, f"{3 - i / 10000:.4f}") for i in range(1, 5000))
                    + "\n", encoding="utf-8")
    counted, one_by_one = _both(path)
    assert counted.faults == [] == one_by_one.faults
    assert counted.timeline.steps == 4999 == one_by_one.timeline.steps
    # the lines counted in runs are counted as read
    assert counted.stats is not None and one_by_one.stats is not None
    assert counted.stats.candidates == one_by_one.stats.candidates == 4999
