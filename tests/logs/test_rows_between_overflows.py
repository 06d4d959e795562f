"""HF Trainer's rows without a step between DeepSpeed's overflow lines (a file log of a
Trainer run under DeepSpeed: the dict rows that ``Trainer.log`` prints, and DeepSpeed's
``[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {prev_scale}, reducing to
{cur_scale}`` from ``runtime/fp16/loss_scaler.py``, which prints every skipped step).

A row that follows a row, no overflow line between, is a step that was applied: the start-up
back-off before it is over, and a later cascade is judged as one that began after clean
steps, at its own first overflow (the row just after an overflow line may be that skipped
step's own, and proves nothing).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines, faults


def _overflow(scale: int) -> str:
    return ("[2024-05-01 12:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
            f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {scale}, reducing to "
            f"{scale // 2}")


def _row(step: int) -> str:
    return (f"{{'loss': {2.5 - step / 1e4:.4f}, 'grad_norm': 1.2, 'learning_rate': 2e-05, "
            f"'epoch': {step / 3000:.2f}}}")


def _run(startup: int, cascade: int, every: int = 10, steps: int = 300) -> list[str]:
    """``startup`` overflows at the start, rows every ``every`` steps, then ``cascade``
    overflows in a row (rows still printed between them)."""
    lines, scale = [], 65536
    for _ in range(startup):
        lines.append(_overflow(scale))
        scale //= 2
    for step in range(startup + 1, steps):
        if step % every == 0:
            lines.append(_row(step))
    for step in range(steps, steps + cascade):
        lines.append(_overflow(scale))
        scale = max(scale // 2, 2)
        if step % every == 0:
            lines.append(_row(step))
    return lines


def test_cascade_after_a_startup_back_off_begins_where_it_begins(tmp_path: Path) -> None:
    """Before: the start-up's five halvings and the cascade's were one run of skips "before
    any clean step": AMP003 at step 1. The rows are the log's steps (no counter printed):
    five overflows, 29 rows, then the cascade's first overflow is step 35."""
    assert faults(tmp_path, _run(startup=5, cascade=12)) == [("AMP003", 35)]


def test_startup_back_off_then_healthy_rows_stay_quiet(tmp_path: Path) -> None:
    """Controls (quiet on the parent too): a start-up back-off, then rows only; and a longer
    run whose rows are printed every step."""
    assert faults(tmp_path, _run(startup=7, cascade=0, steps=3000)) == []
    assert faults(tmp_path, _run(startup=5, cascade=0, every=1)) == []


def test_a_row_printed_with_its_progress_line_is_one_step(tmp_path: Path) -> None:
    """DeepSpeed's ``step=N, skipped=K`` (engine.py ``_report_progress``) and the Trainer's row
    for that step after it, its bar's ``N/total`` before the dict: one step, not two (before:
    330 steps counted for a run of 300, every logging interval one step too long)."""
    lines = []
    for step in range(10, 310, 10):
        lines += ["[2024-05-01 12:00:00,000] [INFO] [logging.py:128:log_dist] [Rank 0] "
                  f"step={step}, skipped=0, lr=[2e-05], mom=[(0.9, 0.999)]",
                  f" {step // 10}%|#         | {step}/1000 [00:10<01:30, 9.1it/s]"
                  + _row(step)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [] and result.timeline.steps == 300
