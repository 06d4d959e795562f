"""A condition that began on a step the log numbers only by counting is placed in the span of
printed steps around it, not on the counted step.

DeepSpeed prints its step counter every ``steps_per_print`` steps (``deepspeed/runtime/
engine.py`` ``_report_progress``: ``step={self.global_steps}, skipped={self.skipped_steps},
lr=..., mom=...``) and an overflow line for each skipped step (``deepspeed/runtime/fp16/
loss_scaler.py`` ``update_scale``: ``[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted
loss scale: {prev}, reducing to {new}``). A cascade that begins between two counters shows
its overflow lines after ``step=100`` and before ``step=110``; which of the steps 101-110 they
were, the log does not say. Before, the diagnosis named step 101 (the overflow lines numbered
on from the last counter). Megatron-LM's interval summaries (``number of skipped iterations:
6`` over 10 iterations) are placed by a convention when the interval is partly skipped, and
are said the same way.
"""

from __future__ import annotations

from pathlib import Path

from denpex_callbacks.logs.result import Result
from tests.logs.excerpts import diagnose_lines, megatron_line

STAMP = "[2026-01-01 10:00:00,000] [INFO]"


def _counter(step: int, skipped: int) -> str:
    return (f"{STAMP} [logging.py:128:log_dist] [Rank 0] step={step}, skipped={skipped}, "
            "lr=[0.0001], mom=[(0.9, 0.999)]")


def _overflow(scale: float) -> str:
    return (f"{STAMP} [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping "
            f"step. Attempted loss scale: {int(scale)}, reducing to {int(max(scale / 2, 1))}")


def _row(step: int) -> str:
    return f"{{'loss': {2.0 - step / 1000:.4f}, 'grad_norm': 0.9, 'learning_rate': 0.0001}}"


def _deepspeed(overflows: dict[int, int], every: int = 10, last: int = 300) -> list[str]:
    """Counters every ``every`` steps to ``last``; before the counter of step ``s``,
    ``overflows[s]`` overflow lines (the scale halving from 2**16, down to 1)."""
    lines, scale, skipped = [], 65536.0, 0
    for step in range(every, last + 1, every):
        for _ in range(overflows.get(step, 0)):
            lines.append(_overflow(scale))
            scale, skipped = max(scale / 2, 1), skipped + 1
        lines += [_counter(step, skipped), _row(step)]
    return lines


def _collapse(result: Result) -> tuple[int | None, object, str]:
    (collapse,) = [d for d in result.faults if d.code == "AMP003"]
    return collapse.step, collapse.evidence.get("step_within"), collapse.where()


def test_a_deepspeed_cascade_between_two_counters_is_said_within_them(
    tmp_path: Path,
) -> None:
    """Six overflow lines between ``step=100`` and ``step=110`` (a 10-step print interval),
    ten before each counter after: the cascade began within 101-110."""
    cascade = {110: 6, **{step: 10 for step in range(120, 301, 10)}}
    result = diagnose_lines(tmp_path, _deepspeed(cascade))
    step, within, where = _collapse(result)
    assert (step, within) == (101, [101, 110])
    assert where.startswith("a step within 101-110, rank 0")
    (collapse,) = [d for d in result.faults if d.code == "AMP003"]
    assert "so this began at a step within 101-110" in collapse.summary
    assert not result.steps_are_rows  # the counters print the steps


def test_a_counter_every_step_places_the_cascade_exactly(tmp_path: Path) -> None:
    """``steps_per_print=1``: each overflow line sits between two counters one step apart,
    so its step is the log's own (control: exact before too)."""
    cascade = {step: 1 for step in range(101, 200)}
    step, within, where = _collapse(diagnose_lines(tmp_path, _deepspeed(cascade, 1, 200)))
    assert (step, within) == (101, None)
    assert where.startswith("step 101, rank 0")


def test_a_partly_skipped_megatron_interval_is_said_within_it(tmp_path: Path) -> None:
    """Clean to iteration 40; 6 of the iterations 41-50 skipped, then every one: the
    streak's first skip is somewhere in 41-50 (the log's count, not its places)."""
    lines = [megatron_line(i) for i in range(10, 41, 10)]
    lines.append(megatron_line(50, skipped=6, scale=1024.0))
    scale = 1024.0
    for i in range(60, 151, 10):
        scale = max(scale / 2 ** 10, 1.0)
        lines.append(megatron_line(i, skipped=10, scale=scale, loss=None))
    step, within, where = _collapse(diagnose_lines(tmp_path, lines))
    assert within == [41, 50] and step is not None and 41 <= step <= 50
    assert where.startswith("a step within 41-50")


def test_a_wholly_skipped_megatron_interval_is_placed_exactly(tmp_path: Path) -> None:
    """Every iteration of 41-50 skipped: the streak began at 41, which the count proves
    (control: exact before too)."""
    lines = [megatron_line(i) for i in range(10, 41, 10)]
    scale = 65536.0
    for i in range(50, 151, 10):
        scale = max(scale / 2 ** 10, 1.0)
        lines.append(megatron_line(i, skipped=10, scale=scale, loss=None))
    step, within, where = _collapse(diagnose_lines(tmp_path, lines))
    assert (step, within) == (41, None)
    assert where.startswith("step 41, rank 0")


def test_healthy_runs_with_a_sawtooth_stay_silent(tmp_path: Path) -> None:
    """The start-up back-off (12 overflows in the first steps, from 2**16 down to 16) and then
    one overflow every 2000 steps between two counters (the scale's growth probing): no fault,
    so nothing to place (control)."""
    overflows = {10: 9, 20: 3, **{step: 1 for step in range(2000, 12001, 2000)}}
    assert diagnose_lines(tmp_path, _deepspeed(overflows, 10, 12000)).faults == []
