"""The rules added for sample36's step misses (``tests/logs/test_sample36_formats.py``), each on
variants the sample did not show (other separators, names, numbers, intervals) and on healthy
controls it must stay silent on:

- a held-out split's name alone before a step key (``eval step=001500``, ``val iter 3000``)
  tags the line: the count is the training step the evaluation ran at
  (``metric_pairs._split_tagged``), not a step after the training row of the same count;
- a ``global`` step key after a step that printed its total (``STEP: 10/320 -- GLOBAL_STEP:
  650``) is the run's step (``metric_pairs._global_after_share``), read from the middle of a
  run too;
- a bare sized bar (no description, no postfix) at its total, right above an epoch's summary,
  numbers it as the run's batches by the epoch it names (``closing_bars.finished_total``,
  ``MetricReader.bare_end``); a loss sentence keyed as the loop's finite rows were (``Epoch 2:
  Average train loss was nan``) is that row, not a finding in words
  (``MetricReader.keyed_as_rows``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, nan_from, tqdm_bar
from test_sample36_formats import cs336_lm, text_to_sql_t5, vi_glow


def split_tagged(bad: int | None = None, steps: int = 6000, every: int = 200,
                 eval_every: int = 1000, split: str = "val", counter: str = "iter") -> list[str]:
    """A loop printing ``f"{counter} {i} | loss {loss:.4f} | lr 3e-4"`` every ``every`` steps
    and, every ``eval_every``, ``f"{split} {counter} {i} | train loss {t:.4f} | {split} loss
    {v:.4f}"`` right below the training row of the same count; NaN from step ``bad``."""
    out = []
    for i in range(every, steps + 1, every):
        out.append(f"{counter} {i} | loss {nan_from(bad, i, 4.1 - i / 4000):.4f} | lr 3e-4")
        if i % eval_every == 0:
            out.append(f"{split} {counter} {i} | train loss {nan_from(bad, i, 4.0 - i / 4000):.4f}"
                       f" | {split} loss {nan_from(bad, i, 4.2 - i / 4000):.4f}")
    return out


@pytest.mark.parametrize(("build", "right"), [
    # sample36's LM with other intervals and a later NaN: rows every 250, evaluations every
    # 1000; NaN from 2600: the row of 2750, the evaluation of 3000
    pytest.param(lambda: cs336_lm(2600, steps=4000, log_every=250, eval_every=1000),
                 [("AMP006", 2750), ("AMP013", 3000)], id="cs336_other_intervals"),
    # ``val iter 3000 | ...`` and ``test step 4000 | ...``, pipes between the fields
    pytest.param(lambda: split_tagged(2900), [("AMP006", 3000), ("AMP013", 3000)],
                 id="val_iter_pipes"),
    pytest.param(lambda: split_tagged(3300, split="test", counter="step"),
                 [("AMP006", 3400), ("AMP013", 4000)], id="test_step"),
    # pasted from the middle
    pytest.param(lambda: split_tagged(4500, eval_every=600)[12:],
                 [("AMP006", 4600), ("AMP013", 4800)], id="val_iter_from_the_middle"),
])
def test_split_tagged_step(tmp_path: Path, build: Callable[[], list[str]],
                           right: list[tuple[str, int]]) -> None:
    """The evaluation at the step its split-tagged count prints (was one step late)."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    lambda: cs336_lm(steps=2500, log_every=100, eval_every=300, lr=3e-4),
    lambda: split_tagged(),
    lambda: split_tagged(split="dev", counter="step")[7:],
    # an evaluation's own counter below the training step reached (DARTS-style ``VALID Step:
    # 000``, restarting each evaluation): no step going back, no alarm
    lambda: [*split_tagged(steps=2000), *(f"VALID Step: {s:03d} Objs: {1.9 - s / 1000:e}"
                                          for s in range(0, 150, 50))],
], ids=["cs336", "val_iter", "dev_step_from_the_middle", "own_counter_below"])
def test_split_tagged_healthy(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy runs with split-tagged evaluation rows stay silent."""
    assert faults(tmp_path, build()) == []


def shared_steps(bad: int | None = None, batches: int = 250, every: int = 45,
                 epochs: int = 6) -> list[str]:
    """A row that prints the epoch's share and the run's count before its values, ``Epoch {e}
    | step {i}/{batches} | global_step {g} | loss {loss:.4f} | lr 0.0002`` (``|``-separated,
    snake-case); NaN from global step ``bad``."""
    return [f"Epoch {g // batches} | step {g % batches}/{batches} | global_step {g} | loss "
            f"{nan_from(bad, g, 2.9 - g / 2000):.4f} | lr 0.0002"
            for g in range(every, epochs * batches, every)]


@pytest.mark.parametrize(("build", "right"), [
    # sample36's GlowTTS with other lengths, from the middle: 250 batches an epoch, NaN from
    # 1125 (``STEP: 125/250 -- GLOBAL_STEP: 1125``): 1125, 1125, 1150
    pytest.param(lambda: vi_glow(1125, batches=250, epochs=6)[300:],
                 [("AMP006", 1125), ("AMP003", 1125), ("AMP004", 1150)],
                 id="glow_250_from_the_middle"),
    pytest.param(lambda: shared_steps(800)[8:], [("AMP006", 810)],
                 id="snake_case_from_the_middle"),
])
def test_global_step_after_share(tmp_path: Path, build: Callable[[], list[str]],
                                 right: list[tuple[str, int]]) -> None:
    """The run's ``global`` step numbers the line, not the epoch's share of it."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    lambda: vi_glow(batches=250, epochs=6)[300:],
    lambda: shared_steps()[8:],
    lambda: shared_steps(batches=120, every=35),
], ids=["glow_from_the_middle", "snake_case_from_the_middle", "snake_case"])
def test_global_step_healthy(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy records with both counts stay silent."""
    assert faults(tmp_path, build()) == []


def bare_bar_epochs(bad: int | None = None, epochs: int = 6, batches: int = 150,
                    val_batches: int = 20, first: int = 1, verb: str = "is") -> list[str]:
    """A loop with bare ``tqdm(loader)`` bars (no description, no postfix) over training and
    validation, each epoch summarised below its bar in words: ``f"Epoch {e}: mean training
    loss {verb} {loss}"`` (epochs from ``first``), then ``f"Epoch {e}: validation loss
    {val:.3f}"``; ``bad`` is the first NaN epoch (as printed)."""
    out = []

    def bar(total: int) -> str:
        return "\r".join(tqdm_bar("", n, total, rate=6.1) for n in (0, total // 2, total))

    for e in range(first, first + epochs):
        loss = nan_from(bad, e, 1.2 - e / 20)
        out += [bar(batches), f"Epoch {e}: mean training loss {verb} {loss}", bar(val_batches),
                f"Epoch {e}: validation loss {nan_from(bad, e, 1.3 - e / 20):.3f}"]
    return out


@pytest.mark.parametrize(("build", "right"), [
    # sample36's T5 with another length: 134 batches an epoch, NaN in epoch 3 (from 0): 536
    pytest.param(lambda: text_to_sql_t5(3 * 134 + 5, batches=134, dev_batches=15),
                 [("AMP006", 536), ("AMP013", 536)], id="t5_134"),
    # epochs from 1, ``is``: NaN in epoch 4: the run's 600
    pytest.param(lambda: bare_bar_epochs(4), [("AMP006", 600), ("AMP013", 600)],
                 id="from_1"),
    # from 0, ``was``, pasted from epoch 2 on (0 unseen: counted from 1, as the reader's
    # convention is): NaN in epoch 5: 750
    pytest.param(lambda: bare_bar_epochs(5, first=0, verb="was")[8:],
                 [("AMP006", 750), ("AMP013", 750)], id="from_the_middle"),
])
def test_bare_bar_epoch_summary(tmp_path: Path, build: Callable[[], list[str]],
                                right: list[tuple[str, int]]) -> None:
    """An epoch's summary right below a bare bar at its total: the run's batches."""
    assert faults(tmp_path, build()) == right


@pytest.mark.parametrize("build", [
    lambda: text_to_sql_t5(epochs=5, batches=90, dev_batches=12, patience=2),
    lambda: bare_bar_epochs(epochs=8, batches=64, val_batches=9),
    lambda: bare_bar_epochs(first=0, verb="was")[6:],
], ids=["t5", "from_1", "from_the_middle"])
def test_bare_bar_healthy(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy runs summarised below bare bars stay silent."""
    assert faults(tmp_path, build()) == []


def test_sentence_still_a_finding(tmp_path: Path) -> None:
    """A loss sentence in wording no row of the log was keyed by is still a finding in words:
    rows ``loss: x`` numbered by their step, then ``Detected NaN loss, skipping batch``."""
    lines = [f"step {s}: loss: {2.5 - s / 100:.4f}" for s in range(1, 41)]
    assert faults(tmp_path, [*lines, "Detected NaN loss, skipping batch"]) == [("AMP006", 41)]


def test_bars_alone_read_nothing_new(tmp_path: Path) -> None:
    """A bare bar with no summary below it numbers nothing: a loop's ``step N loss X`` rows
    between bare evaluation bars keep their own steps."""
    lines: list[str] = []
    for s in range(100, 2001, 100):
        lines.append(f"step {s} loss {nan_from(1500, s, 3.0 - s / 1000):.4f}")
        if s % 500 == 0:
            lines.append(tqdm_bar("", 40, 40, rate=9.0))
    assert faults(tmp_path, lines) == [("AMP006", 1500)]
