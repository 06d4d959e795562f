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


# --- a stuck scale inside quiet runs (AMP005) ------------------------------------------------
def _loop_line(step: int, scale: float) -> str:
    # A custom PyTorch loop: print(f"step {step} | loss {loss:.4f} | loss_scale
    # {scaler.get_scale():.1f}") after every optimizer step
    return f"step {step} | loss {2.5 - step / 100000:.4f} | loss_scale {scale:.1f}"


def _stuck_after_sawtooth(interval: int, stuck: int) -> list[str]:
    """GradScaler(growth_interval=interval) at its ceiling for three intervals (each growth
    overflows on the next step and is halved back: the doctor learns the interval from the
    doublings), then its growth stops (a resume with growth_factor=1.0): ``stuck`` clean
    steps at 32768 with no overflow and no growth."""
    lines, scale, tracker, step = [], 65536.0, 0, 0
    step += 1
    scale /= 2  # the first step overflows: the start-up back-off
    lines.append(_loop_line(step, scale))
    for _ in range(3):
        for _ in range(interval):
            step += 1
            tracker += 1
            if tracker == interval:
                scale, tracker = scale * 2, 0
            lines.append(_loop_line(step, scale))
        step += 1
        scale /= 2  # above the ceiling: overflows at once
        lines.append(_loop_line(step, scale))
    for _ in range(stuck):
        step += 1
        lines.append(_loop_line(step, scale))
    return lines


def test_a_stuck_scale_in_a_per_step_log_is_found_either_way(tmp_path: Path) -> None:
    # Growth interval 100 (learnt), 3 x 100 clean steps at 32768 from step 305: AMP005 there,
    # also when the 400 identical-shape lines are counted as quiet runs
    path = tmp_path / "loop.log"
    path.write_text("\n".join(_stuck_after_sawtooth(100, 400)) + "\n", encoding="utf-8")
    counted, one_by_one = _both(path)
    assert [(d.code, d.step) for d in counted.faults] == [("AMP005", 305)]
    assert _verdict(counted) == _verdict(one_by_one)
    # the limit reached inside a run is judged on its own line: the same words either way
    assert [(d.summary, d.evidence, d.reported_step) for d in counted.diagnoses] == [
        (d.summary, d.evidence, d.reported_step) for d in one_by_one.diagnoses]
    assert counted.faults[0].evidence["clean_steps"] == 300


def test_a_scale_stuck_after_the_start_up_back_off_is_found_either_way(
        tmp_path: Path) -> None:
    # No growth interval known: GradScaler(init_scale=65536) backs off to 1024 in its first
    # six steps, then never grows in 60,000 clean steps (growth disabled): the scale moved,
    # so the scaler is dynamic, and Thresholds.stuck_clean_steps (49,152) makes it a warning
    lines = [_loop_line(step, 65536.0 / 2 ** step) for step in range(1, 7)]
    lines += [_loop_line(step, 1024.0) for step in range(7, 60_007)]
    path = tmp_path / "backoff.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counted, one_by_one = _both(path)
    assert [(d.code, d.step, d.severity.value) for d in counted.faults] == [
        ("AMP005", 7, "warning")]
    assert _verdict(counted) == _verdict(one_by_one)
    assert counted.faults[0].evidence["clean_steps"] == 49_152


def test_a_static_scale_that_never_moves_is_info_either_way(tmp_path: Path) -> None:
    # The control: a scale never moved, never overflowed, no growth interval known, past
    # 49,152 clean steps: a static scale that works is a choice, info at most, in both modes
    path = tmp_path / "static.log"
    path.write_text("\n".join(_loop_line(step, 65536.0) for step in range(1, 50_001)) + "\n",
                    encoding="utf-8")
    counted, one_by_one = _both(path)
    assert counted.faults == [] == one_by_one.faults
    assert _verdict(counted) == _verdict(one_by_one)
    assert [(d.code, d.severity.value) for d in counted.diagnoses] == [("AMP005", "info")]


def test_a_collapse_after_a_long_quiet_stretch_is_measured_the_same_either_way(
        tmp_path: Path) -> None:
    # The loop of _loop_line: one growth above the ceiling halved back at once (a peak of
    # 131072 at step 101), 400 clean steps at 65536, then a collapse with a clean step between
    # the skips (8 halvings in 16 steps). AMP003's trajectory window holds the last 200 steps
    # observed: the 131072 peak has left it, whether the 400 lines were read or counted.
    lines, scale = [], 65536.0
    factors = [1.0] * 100 + [2.0, 0.5] + [1.0] * 400 + [0.5, 1.0] * 8 + [1.0] * 100
    for step, factor in enumerate(factors, 1):
        scale *= factor
        lines.append(_loop_line(step, scale))
    path = tmp_path / "collapse.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counted, one_by_one = _both(path)
    assert [(d.code, d.step) for d in counted.faults] == [("AMP003", 503)]
    assert _verdict(counted) == _verdict(one_by_one)
    assert counted.faults[0].summary == one_by_one.faults[0].summary
    assert counted.faults[0].evidence["scale_peak"] == 65536.0
