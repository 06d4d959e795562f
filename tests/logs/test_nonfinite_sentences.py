"""A non-finite training loss announced in a sentence no family and no table row knows (a
custom loop's warning, a toolkit nobody described): read as a NaN/inf loss at the step the
line names, so that a log holding only such warnings is AMP006, not "no fault found".
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs import nonfinite_sentences
from denpex_callbacks.logs.events import METRICS
from denpex_callbacks.logs.parsers import KEYWORDS, parse_line

# wording -> (step, loss is inf rather than NaN)
WORDINGS = {
    "WARNING:root:NaN detected in loss at iteration 1200": (1200, False),
    "Detected NaN loss, skipping batch": (None, False),
    "[W] step 7: loss became inf": (7, True),
    "Non-finite loss encountered at step 88, skipping this batch": (88, False),
    "nan loss detected at global_step 300": (300, False),
    "Inf found in the training loss (iter 42)": (42, True),
    "2026-11-30 10:00:00 | WARNING | trainer | NaN/Inf found in loss_ctc at update 9": (9, False),
    "the loss has become NaN at epoch 3": (None, False),
    # the value placed in the loss, a verb of being, "went to" (each was none)
    "step 200: NaN in loss, abort": (200, False),
    "Early stopping at step 200: loss is not finite": (200, False),
    "the training loss went to NaN at step 200": (200, False),
}


@pytest.mark.parametrize("line", WORDINGS)
def test_a_free_worded_nan_loss_is_read_at_its_step(line: str) -> None:
    assert any(keyword.decode() in line for keyword in KEYWORDS), line  # the prefilter
    events = [e for e in parse_line(line) if e.kind == METRICS]
    assert len(events) == 1, (line, events)
    step, inf = WORDINGS[line]
    assert events[0].step == step
    assert events[0].loss is not None and not math.isfinite(events[0].loss)
    assert math.isinf(events[0].loss) is inf


NOT_NAN_LOSSES = [
    "nan loss check enabled",
    "No NaN loss in the last 1000 steps",
    "--skip-nan-loss: True",
    "NaN detected in val loss at step 5",  # evaluation: not the training loss
    "nan_loss_count: 0 | loss 2.31",
    "Loss: 2.3412 | INFO: checking for nan in loss",
    "Infinity loss guard: off",
    # a check or a condition, printed by healthy runs' set-up (was AMP006): a loop's
    # print("Checking for NaN loss at every step"), print(f"Will stop training if the loss
    # becomes NaN"), a trainer flag's help text, a scaler's description
    "Checking for NaN loss at every step",
    "Will stop training if the loss becomes NaN",
    "terminate_on_nan=True: training stops when the loss becomes NaN or inf",
    "If the loss becomes inf the scaler will skip the step",
    # an evaluation batch's loss, named after the loss (was AMP006, the training loss's)
    "Got inf loss on eval batch 3, ignoring",
    "the loss is finite again after 3 steps",
    "Stop if the loss is not finite",
    "checking for NaN in loss at every step",
]


@pytest.mark.parametrize("line", NOT_NAN_LOSSES)
def test_lines_that_announce_no_nan_loss_are_none(line: str) -> None:
    assert nonfinite_sentences.parse(line) == []
    assert not any(e.kind == METRICS and e.loss is not None and not math.isfinite(e.loss)
                   for e in parse_line(line))


def _steps(first: int, last: int) -> list[str]:
    return [f"step {i} | loss {2.3 - i * 0.001:.4f} | lr 1.0e-04" for i in range(first, last)]


def test_a_nan_loss_warning_after_healthy_steps_is_amp006_at_its_step(tmp_path: Path) -> None:
    lines = [*_steps(100, 110), *[f"WARNING:root:NaN detected in loss at iteration {i}"
                                  for i in range(110, 122)]]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 110)]
    assert result.faults[0].evidence["last_finite_loss"] == pytest.approx(2.191)


def test_healthy_steps_with_finite_warnings_stay_quiet(tmp_path: Path) -> None:
    lines = [*_steps(100, 150), "INFO: nan loss check enabled", *_steps(150, 200)]
    assert faults(tmp_path, lines) == []


def test_set_up_sentences_about_nan_losses_stay_quiet(tmp_path: Path) -> None:
    # a healthy loop that prints its guards before training (each was AMP006 at its line)
    lines = [*_steps(1, 30), "Checking for NaN loss at every step",
             "Will stop training if the loss becomes NaN",
             "If the loss becomes inf the scaler will skip the step", *_steps(30, 60)]
    assert faults(tmp_path, lines) == []
    # and the finding itself, without a condition, is still one
    assert [code for code, _ in faults(tmp_path, [*lines, "step 60: the loss became NaN"])] \
        == ["AMP006"]


def test_a_table_message_takes_the_step_its_line_names(tmp_path: Path) -> None:
    """allennlp's ``nan loss encountered`` (a row of the message table, which prints no step)
    with the step a loop printed around it: AMP006 at that step (was the step after the last
    counted one, 199)."""
    lines = [*_steps(100, 200), "WARNING: nan loss encountered at iteration 200"]
    assert faults(tmp_path, lines) == [("AMP006", 200)]


def test_a_check_that_found_no_nan_in_the_outputs_is_quiet(tmp_path: Path) -> None:
    """Controls: a sanity check's report that found nothing in the model's outputs."""
    healthy = [f"step {s} loss {2.3 - s / 100:.4f}" for s in range(1, 31)]
    for line in ("sanity check: NaN in model outputs: False, inf in model outputs: False",
                 "[debug] NaN values in model outputs: 0",
                 "checked for NaN in model outputs at step 10: none found"):
        assert faults(tmp_path, [*healthy[:10], line, *healthy[10:]]) == [], line
