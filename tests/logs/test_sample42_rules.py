"""The rules sample42 added, on variants the sample did not show (other wordings, names,
numbers) and on healthy controls they must stay silent on:

- ``raised_nonfinite._STATED``: an exception whose message opens by calling what the loop
  found non-finite (``FloatingPointError: Non-finite tensor: L_task at step=617. {...}``).
- ``overflow_sentences._SCALE_FELL``: a skip and the scale's fall shown with an arrow, no
  overflow named (``[STEP] batch=400 AMP SKIPPED (scale 256.0→128.0)``), at the line's own
  batch counter where it names no step.
- ``nonfinite_sentences._BARE_AT_STEP``: a non-finite value announced at a step as the
  message's first words (``⚠ NaN at step 700, skipped 1``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults, loop_lines


def traceback_after(rows: list[str], message: str) -> list[str]:
    """``rows`` then the traceback a loop's own check raises, ending in ``message``."""
    return [*rows, "Traceback (most recent call last):", '  File "train.py", line 88, in <module>',
            "    check(loss)", message]


@pytest.mark.parametrize(("lines", "right"), [
    pytest.param(traceback_after(loop_lines(steps=30), "FloatingPointError: Non-finite tensor: "
                                 "logits[depth] at step=31. {'nan': 4096, 'inf': 0}"),
                 [("AMP006", 31)], id="tensor_at_step"),
    pytest.param(traceback_after(loop_lines(steps=25), "RuntimeError: non-finite loss value "
                                 "(got inf)"), [("AMP006", 26)], id="loss_value_no_step"),
    pytest.param(traceback_after(loop_lines(steps=40), "ValueError: Non-finite gradient norm at "
                                 "iteration 41"), [("AMP006", 41)], id="gradient_norm"),
])
def test_stated_nonfinite_exception(tmp_path: Path, lines: list[str],
                                    right: list[tuple[str, int]]) -> None:
    """An exception message that opens with what was found non-finite is a non-finite value of
    the run (AMP006), at the step it names, else the next one."""
    assert faults(tmp_path, lines) == right


@pytest.mark.parametrize("message", [
    "AssertionError: non-finite check disabled for bf16",
    "ValueError: finite difference step too small",
    "RuntimeError: expected a finite learning rate schedule, got 'cosine'",
])
def test_other_exceptions_stay_silent(tmp_path: Path, message: str) -> None:
    """A healthy loop that ends in another exception: no non-finite value."""
    assert faults(tmp_path, traceback_after(loop_lines(steps=30), message)) == []


def scaled_rows(collapse: int | None, word: str, arrow: str, steps: int = 600,
                every: int = 50) -> list[str]:
    """A loop's row every ``every`` steps (``it {i} | loss ...``) and, at each logged step
    that skipped, ``{word} (scale a{arrow}b)`` behind its batch counter; an fp16 scaler from
    2**14 that overflows at steps 1 and 2 and every step from ``collapse`` on."""
    out, scale = [], 16384.0
    for step in range(1, steps + 1):
        over = step in (1, 2) or (collapse is not None and step >= collapse)
        before, scale = scale, scale / 2 if over else scale
        if step % every == 0 or step == 1:
            out.append(f"it {step} | loss {2.2 - step / 1000:.4f}")
            if over:
                out.append(f"[opt] batch={step} {word} (scale {before:.2f}{arrow}{scale:.2f})")
    return out


@pytest.mark.parametrize(("word", "arrow"), [("STEP SKIPPED", " -> "), ("update skipped", "→"),
                                             ("skipping", "->")])
def test_skip_with_a_falling_scale(tmp_path: Path, word: str, arrow: str) -> None:
    """Skips whose scale falls to 0.00 (a tiny scale printed ``.2f``) from step 330: the
    collapse and its scale at 0 (AMP003 and AMP004 at the first row that shows the fall)."""
    assert sorted(faults(tmp_path, scaled_rows(330, word, arrow))) == [("AMP003", 350),
                                                                       ("AMP004", 350)]


@pytest.mark.parametrize(("word", "arrow"), [("STEP SKIPPED", " -> "), ("update skipped", "→")])
def test_early_skips_stay_silent(tmp_path: Path, word: str, arrow: str) -> None:
    """A healthy run's start-up skip (16384 -> 8192 -> 4096), then clean steps: silent."""
    assert faults(tmp_path, scaled_rows(None, word, arrow)) == []


def test_rising_scale_beside_a_skip_is_no_overflow(tmp_path: Path) -> None:
    """A scale that rises beside a skip word (``skipped 2 files, scale 1.0 -> 2.0``) is none."""
    rows = loop_lines(steps=40)
    assert faults(tmp_path, [*rows[:20], "skipped 2 files, scale 1.0 -> 2.0", *rows[20:]]) == []


@pytest.mark.parametrize(("line", "right"), [
    pytest.param("[WARN] NaN at iteration 21 - batch skipped", [("AMP006", 21)], id="iteration"),
    pytest.param("inf at step=22, skipping", [("AMP006", 22)], id="inf_step_equals"),
    pytest.param("!! nan detected at step 23", [("AMP006", 23)], id="detected"),
])
def test_value_at_a_step(tmp_path: Path, line: str, right: list[tuple[str, int]]) -> None:
    """A non-finite value announced at a step, the message's first words: the loop's loss."""
    rows = loop_lines(steps=40)
    assert faults(tmp_path, [*rows[:20], line, *rows[20:]]) == right


@pytest.mark.parametrize("line", ["grad_norm nan at step 21", "lr nan at step 21",
                                  "no NaN at step 21"])
def test_other_values_at_a_step_stay_silent(tmp_path: Path, line: str) -> None:
    """A named value's (a gradient norm, a learning rate) or a denial: none."""
    rows = loop_lines(steps=40)
    assert faults(tmp_path, [*rows[:20], line, *rows[20:]]) == []


@pytest.mark.parametrize(("line", "right"), [
    pytest.param("Aborting at step 31: 25 consecutive non-finite gradient updates",
                 [("AMP003", 31)], id="aborting_updates"),
    pytest.param("[guard] terminated training after 8 inf/nan steps (iter 44)", [("AMP003", 44)],
                 id="terminated_inf_nan"),
    pytest.param("STOP: 12 overflow batches in a row at step=29", [("AMP003", 29)],
                 id="stop_overflow_batches"),
])
def test_run_stopped_after_nonfinite_steps(tmp_path: Path, line: str,
                                           right: list[tuple[str, int]]) -> None:
    """A loop's guard that stopped the run after steps in a row whose gradients were not
    finite (``overflow_sentences._GAVE_UP``): the scale backed off each time and still
    overflowed (AMP003), at the step the line names."""
    assert faults(tmp_path, [*loop_lines(steps=30), line]) == right


@pytest.mark.parametrize("line", [
    "Fine-tune done. Best VAL exact = 41.00%   (skipped 4 non-finite steps)",
    "early stopping at epoch 9: 5 epochs without improvement",
    "stopped: 1 non-finite grad step",
])
def test_counts_of_nonfinite_steps_without_a_stop_stay_silent(tmp_path: Path, line: str) -> None:
    """A count of skipped steps in a summary, an early stop for no overflow, one step: none."""
    assert faults(tmp_path, [*loop_lines(steps=30), line]) == []
