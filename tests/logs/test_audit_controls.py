"""Controls for the reading rules added together (the second read with every line a
candidate, the VITS family's bare list rows, steps in brackets, ``cv`` as an evaluation
word): texts that are no training log stay "nothing to diagnose", and a real fault keeps its
id. Each input is what a tool prints (named beside it), not a pasted log.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose


def _refused(tmp_path: Path, lines: list[str]) -> str:
    """The error of an input that holds nothing to diagnose."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error
    return error


def _python_lists(rows: int) -> list[str]:
    """``print(values + [i, 0.001])``: lists of finite numbers that end with an integer and a
    fraction, as VITS' loss rows do, printed by a program that trains nothing."""
    draw = random.Random(4)
    return [str([round(draw.uniform(0, 3), 3) for _ in range(4)] + [i, 0.001])
            for i in range(1, rows)]


@pytest.mark.parametrize("lines", [
    # pytest's short summary: "SKIPPED [{count}] {location}: {reason}"; the reason names CUDA
    # (a keyword), so the line is read on the first pass: the count is no step
    ["============================= test session starts ==============================",
     "collected 10 items",
     "tests/test_a.py ..........                                             [100%]",
     "=========================== short test summary info ============================",
     "SKIPPED [2] tests/test_gpu.py:10: CUDA not available",
     "================== 8 passed, 2 skipped in 1.23s =================="],
    # a program's lists of numbers (no progress line announced them as a row of losses)
    _python_lists(30),
    # a cross-validated regression's report (scikit-learn style): RMSE is a loss noun, but
    # no line says a step or an epoch
    [*(f"Fold {k}: RMSE={1 + k / 10:.3f} MAE={0.5 + k / 20:.3f} R2=0.{k}1" for k in range(1, 6)),
     "Mean RMSE: 1.300"],
    # a YAML configuration: a "step" over a loss noun's setting is one record at most
    ["train:", "  step: 0", "  mse: 0.0", "  epochs: 10", "eval:", "  step: 500"],
], ids=["pytest-skipped-cuda", "python-lists", "regression-report", "yaml-config"])
def test_a_text_that_is_no_training_log_is_refused(tmp_path: Path, lines: list[str]) -> None:
    _refused(tmp_path, lines)


def test_a_list_row_that_no_progress_line_announced_keeps_its_nan(tmp_path: Path) -> None:
    # a NaN term still says the loss went non-finite, announced or not
    lines = [str([2.6, 2.4, 5.7, 45.2, 2.1, 4.05, step, 0.0002]) for step in range(0, 600, 200)]
    lines.append(str([2.6, 2.4, float("nan"), 45.2, 2.1, 4.05, 600, 0.0002]))
    assert faults(tmp_path, lines) == [("AMP006", 600)]


def test_keyword_free_rows_numbered_by_epoch_are_still_read(tmp_path: Path) -> None:
    # "epoch {e} mse {v}": a loop's line without a keyword, read on the second pass
    result = diagnose_lines(tmp_path, [f"epoch {e} mse {0.5 / (e + 1):.4f}" for e in range(20)])
    assert result.faults == [] and result.families


def test_wenet_epoch_summary_cv_loss_is_evaluation(tmp_path: Path) -> None:
    # wenet's older train.py: logger.info('Epoch {} CV info cv_loss {}'.format(epoch, cv_loss))
    # ("CV info cv_loss" before the value: the key is cv_loss, an evaluation metric)
    train = [f"2024-01-01 10:00:00,000 DEBUG TRAIN Batch 0/{b} loss {2.5 - b / 1e4:.6f} "
             "lr 0.00100000 rank 0" for b in range(0, 2000, 100)]
    found = faults(tmp_path, [*train, "2024-01-01 10:00:00,000 INFO Epoch 0 CV info cv_loss nan"])
    assert [code for code, _step in found] == ["AMP013"]
    assert faults(tmp_path, [*train, "2024-01-01 10:00:00,000 INFO Epoch 0 CV info cv_loss 2.3"]
                  ) == []


@pytest.mark.parametrize("after", ["min {low:.3f} max {high:.3f}", "h {low:.2f}"])
def test_a_unit_word_followed_by_its_own_value_is_a_key(tmp_path: Path, after: str) -> None:
    # a loop that prints its loss's statistics after it ("loss nan min 1.9 max 3.1"): "min"
    # there is a key, not minutes, and the NaN loss is still the loss
    def row(step: int, loss: float) -> str:
        return f"step {step} loss {loss:.4f} " + after.format(low=1.9, high=3.1)
    lines = [row(s, 2 + 6 / (1 + s / 300)) for s in range(0, 500, 20)]
    lines += [row(s, float("nan")) for s in range(500, 800, 20)]
    assert faults(tmp_path, lines) == [("AMP006", 500)]
    # a time is still no loss: "cost 123.45 s" at a line's end or before a comma
    lines = [f"====> Epoch: {e}, cost {120 + e:.2f} s, lr 0.0002" for e in range(1, 20)]
    _refused(tmp_path, lines)


def test_one_ranks_bracket_on_every_line_is_no_step(tmp_path: Path) -> None:
    # print(f"[{rank}] loss: {loss:.4f}") from one rank: the bracket repeats on every line,
    # a step prints its loss once; the loss dropping to an exact 0 is still AMP007 there
    lines = [f"[3] loss: {2 + 6 / (1 + s / 300) if s < 200 else 0.0:.4f}" for s in range(300)]
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP007"]
    # CLU's bracket still numbers the steps (one loss a step)
    lines = [f"[{s}] collection=train accuracy=0.5, loss={2 + 6 / (1 + s / 300):.4f}"
             for s in range(100, 4000, 100)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [] and result.timeline.steps == 3900


def test_a_table_of_settings_printed_as_a_record_is_no_step(tmp_path: Path) -> None:
    # a run's hyperparameters in the baselines logger's layout: a scale among settings,
    # nothing measured; a text that is no training log
    _refused(tmp_path, ["-----------------------------", "| batch_size    | 256      |",
                        "| fp16          | 1        |", "| learning_rate | 0.0003   |",
                        "| loss_scale    | 1024     |", "| seed          | 42       |",
                        "| warmup_steps  | 500      |", "-----------------------------"])
