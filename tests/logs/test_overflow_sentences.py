"""Overflow sentences in wordings no family and no table row knows (a custom loop's print, a
toolkit nobody described), read by one rule: the overflow named, what the scaler did about it,
and the scale the line says it goes to. The rule is held to the families: on every overflow
line they read (the recorded corpus, the message table's rows) it must say what they say.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults
from test_messages import printed

from denpex_callbacks.logs import messages, overflow_sentences
from denpex_callbacks.logs.events import OVERFLOW
from denpex_callbacks.logs.parsers import KEYWORDS, parse_line

HERE = Path(__file__).parent

# wording -> (step, scale before, scale after)
WORDINGS = {
    "Gradient overflow detected. Reducing loss scale to 512.0": (None, None, 512.0),
    "step 301: found inf/nan in gradients, skipping update (scale=16384)": (301, None, 16384.0),
    "WARNING:root:Loss scale reduced from 65536 to 32768 due to overflow": (None, 65536.0, 32768.0),
    "Overflow detected, skipping step. Loss scale: 65536 -> 32768": (None, 65536.0, 32768.0),
    "[amp] inf/nan gradients at iteration 52: skipping optimizer step, loss scale halved to 2048":
        (52, None, 2048.0),
    "overflow! loss scale 1024.0 -> 512.0 (skipped step 300)": (300, 1024.0, 512.0),
    "Gradient overflow at step 1200": (1200, None, None),
    "The gradients are non-finite, skipping this step": (None, None, None),
    "iter 88 | grad norm is inf, skipping update | new loss scale: 256": (88, None, 256.0),
    "Found NaN or Inf in grads; lowering the grad scaler to 0.5": (None, None, 0.5),
    "Gradient overflow detected, optimizer step was skipped": (None, None, None),
    "[step 410] overflow! new scale = 512": (410, None, 512.0),
    "Overflow detected at step 77, new loss scale: 1024.0": (77, None, 1024.0),
    # the cause named before the gradients, the sentence's full stop after the scale
    "Detected inf grad at step 300. Decreasing loss scale to 32768.0.": (300, None, 32768.0),
    "NaN gradients in iteration 12, skipping update; scale reduced to 64.": (12, None, 64.0),
    # no overflow named: a loss scale lowered says it (was none)
    "loss scale decreased to 256": (None, None, 256.0),
    "[iter 52] Reducing grad scale from 1024 to 512": (52, 1024.0, 512.0),
    "step 7: lowered the fp16 loss scale to 0.5": (7, None, 0.5),
    # "skipping" that ends the clause, beside a gradient's overflow (was none)
    "nan grad detected at step 300, skipping": (300, None, None),
    # the scale after, with an arrow and no verb (was none)
    "overflow! scale -> 512": (None, None, 512.0),
    # a NaN said to be in the gradients; the steps named after a few words; the step thrown
    # out or its gradients dropped (h56-skipwords: none before)
    "[rank0] inf in the gradients at step 40, skipping both G and D updates": (40, None, None),
    "iteration 9: NaN found in grads. Throwing this step out.": (9, None, None),
    "step 12: Seen NaN in gradient, skipping update, resetting gradient": (12, None, None),
    "overflow in fp16 grads at step 5, resetting local gradients": (5, None, None),
    "detected inf or nan values in gradients at step 3! Setting gradients to zero.":
        (3, None, None),
}


@pytest.mark.parametrize("line", WORDINGS)
def test_a_free_worded_overflow_is_read_with_its_scales(line: str) -> None:
    assert any(keyword.decode() in line for keyword in KEYWORDS), line  # the prefilter
    events = [e for e in parse_line(line) if e.kind == OVERFLOW]
    assert len(events) == 1, (line, events)
    assert (events[0].step, events[0].scale_before, events[0].scale_after) == WORDINGS[line]


NOT_OVERFLOWS = [
    "OverflowError: cannot convert float infinity to integer",
    "Checking for inf/nan in gradients at step 100",
    "no gradient overflow, skipping nothing",
    "overflow: 0 | skipped: 0 | loss 2.3",
    "Skipped 3 steps due to overflow",  # a count, not one step
    "  loss_scale_window ............................... 1000",
    "skip_overflow=True, min_loss_scale=0.0001, fp16_scale_window=128",
    "Reducing learning rate to 1e-05 on plateau",
    "Setting the loss scale to 1024 (static)",
    "No overflow for 2000 steps, new loss scale: 131072",  # a growth
    "overflow count 0, new loss scale 131072",
    # the scale raised, an image's scale, a scale set: no backoff
    "Loss scale increased to 131072",
    "loss scale 32768 -> 65536 (growth)",
    "Loss scale decreased from 1024 to 2048",
    "image scale reduced to 0.5",
    "Set the loss scale to 1024",
    "reduce_scale_to=0.5 fp16 loss_scale=1024",
    # a loss's NaN and skip is the loss's (AMP006), not a skipped overflow
    "loss is nan, skipping",
    # a check, a count, gradients zeroed before a step, NaN words with no step dropped
    "Checking for NaN in gradients: none found",
    "zeroing grads before step 5",
    "overflow: skipped 4 steps so far",
    "NaN in gradient norm history cleared, skipping 2 plots",
]


@pytest.mark.parametrize("line", NOT_OVERFLOWS)
def test_lines_that_announce_no_overflow_are_none(line: str) -> None:
    assert overflow_sentences.parse(line) == []
    assert [e for e in parse_line(line) if e.kind == OVERFLOW] == []


def _known_overflow_lines() -> list[str]:
    lines = {printed(row) for row in messages.MESSAGES}
    for path in HERE.rglob("*.log"):  # the recorded runs and the corpus
        lines.update(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return sorted(line for line in lines if any(e.kind == OVERFLOW and e.family != "sentences"
                                                for e in parse_line(line)))


def _same(mine: float | None, theirs: float | None) -> bool:
    return mine is None or theirs is None or math.isclose(mine, theirs)


def test_the_rule_says_what_the_families_say_on_their_own_lines() -> None:
    known = _known_overflow_lines()
    assert len(known) > 150  # every known overflow wording, at many scales
    read = 0
    for line in known:
        theirs = next(e for e in parse_line(line) if e.kind == OVERFLOW)
        mine = overflow_sentences.parse(line)
        if not mine:
            continue
        read += 1
        assert _same(mine[0].scale_before, theirs.scale_before), line
        assert _same(mine[0].scale_after, theirs.scale_after), line
        assert mine[0].step in (None, theirs.step), line
    # The rule was written without these lines in view; it reads nearly all of them. (Not the
    # rows whose words name no skip, only a non-finite gradient, the skip known from the
    # source: Coqui's "Gradient is INF !!", LLaMA-Factory v1's "Gradient norm is not finite",
    # the Flux ControlNet script's "Gradient for {name} contains NaN!".)
    assert read >= 0.9 * len(known), (read, len(known))


HEALTHY = [f"step {i} loss {2.0 - 0.001 * i:.4f}" for i in range(0, 300, 10)]


def test_a_free_worded_cascade_after_healthy_steps_is_a_collapse(tmp_path: Path) -> None:
    cascade = [f"Gradient overflow detected. Reducing loss scale to {65536.0 / 2 ** (i + 1)}"
               for i in range(30)]
    found = faults(tmp_path, [*HEALTHY, *cascade])
    assert found[0] == ("AMP003", 291)  # the step after the last counted one
    unscaled = [f"step {300 + i}: found inf/nan in gradients, skipping update" for i in range(30)]
    assert [code for code, _ in faults(tmp_path, [*HEALTHY, *unscaled])][:1] == ["AMP003"]


def test_a_cascade_told_only_by_the_scale_it_lowers_is_a_collapse(tmp_path: Path) -> None:
    """A loop that prints only its scaler's backoffs, in words that name no overflow (was "no
    fault found": the lines were not read)."""
    cascade = [f"loss scale decreased to {65536.0 / 2 ** (i + 1)}" for i in range(30)]
    assert faults(tmp_path, [*HEALTHY, *cascade])[:2] == [("AMP003", 291), ("AMP004", 307)]


def test_a_sawtooth_told_by_the_scale_it_lowers_stays_quiet(tmp_path: Path) -> None:
    """A healthy dynamic scale: lowered once in a while, grown back (growth interval 100)."""
    lines = []
    for i in range(1, 1500):
        lines.append(f"step {i} loss {2.0 - 0.0001 * i:.4f}")
        if i % 200 == 0:
            lines.append("loss scale decreased to 32768.0")
        elif i % 200 == 100:
            lines.append("loss scale increased to 65536.0")
    assert faults(tmp_path, lines) == []


def test_one_free_worded_start_up_overflow_stays_quiet(tmp_path: Path) -> None:
    lines = ["WARNING:root:Loss scale reduced from 65536 to 32768 due to overflow", *HEALTHY[1:]]
    assert faults(tmp_path, lines) == []


# a scale's state in words, and the id it gives: at its floor and still overflowing (AMP003);
# reported small, below 1 (AMP004: a loop's own warning, was "no fault found")
SCALE_STATES = {
    "WARNING: Loss scaling factor already at minimum (1.0), cannot decrease further": "AMP003",
    "[step 5120] minimum loss scale reached, gradients still overflow": "AMP003",
    "Overflow at iteration 88: cannot decrease the loss scale any further": "AMP003",
    "grad scale is already at its minimum of 0.0001": "AMP003",
    "loss scale is too small (1.2e-05)": "AMP004",
    "[step 120] Loss scale is very small: 0.0001": "AMP004",
    "WARNING: grad_scale too small: 6.103515625e-05": "AMP004",
}


@pytest.mark.parametrize("line", SCALE_STATES)
def test_a_scale_said_to_be_at_its_floor_or_small_is_its_id(tmp_path: Path, line: str) -> None:
    assert any(keyword.decode() in line for keyword in KEYWORDS), line  # the prefilter
    healthy = [f"step {i} | loss {2.3 - i * 0.001:.4f}" for i in range(1, 40)]
    assert [code for code, _ in faults(tmp_path, [*healthy, line])] == [SCALE_STATES[line]]


@pytest.mark.parametrize("line", ["  min_loss_scale ................ 1.0",
                                  "Setting the minimum loss scale to 1",
                                  "loss scale is not at its minimum (65536)",
                                  # a loop's status dump: print(f"loss scale at minimum: "
                                  # f"{scaler.get_scale() <= min_scale}") (was AMP003)
                                  "loss scale at minimum: False",
                                  # print(f"minimum loss scale reached = {int(at_floor)}")
                                  "minimum loss scale reached = 0"])
def test_a_floor_setting_is_none(tmp_path: Path, line: str) -> None:
    healthy = [f"step {i} | loss {2.3 - i * 0.001:.4f}" for i in range(1, 40)]
    assert faults(tmp_path, [*healthy, line]) == []


@pytest.mark.parametrize("line", ["loss scale is small: 2.0",  # not below 1
                                  "min loss scale (too small to be useful below): 1",
                                  "loss scale is not too small (0.5 is the floor)"])
def test_a_scale_reported_small_at_or_above_one_or_negated_is_none(line: str) -> None:
    assert overflow_sentences.parse(line) == []
