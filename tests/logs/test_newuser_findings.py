"""Wrong answers a new user met running small trainings on CPU and diagnosing their logs.

Each case is written from the tools' own format strings, as the real run printed it (the run:
a tiny model under transformers 5.24's Trainer on CPU, ``logging_steps=7``, a NaN loss from
step 60, its stdout and stderr in one file). A strict xfail holds the right answer: it fails
once the doctor gets it, so the mark must then come off.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import faults

_WIDTH = 49  # the blanks tqdm's ``clear`` writes over a bar of this width


def _bar(count: int, total: int, rate: float) -> str:
    """One draw of tqdm's bar in a file (tqdm ``tqdm/std.py``: ``format_meter``'s default
    ``'{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}{postfix}]'``, with
    ``l_bar = '{percentage:3.0f}%|'`` and a 10-cell bar; ``status_printer`` writes ``'\\r' +
    s``)."""
    filled = count * 10 // total
    return (f"\r{100 * count / total:3.0f}%|{'█' * filled}{' ' * (10 - filled)}| "
            f"{count}/{total} [00:00<00:00, {rate:.2f}it/s]")


def _row(loss: str, grad_norm: str, lr: float, epoch: float) -> str:
    """The Trainer's row as its ProgressCallback prints it (huggingface/transformers
    ``src/transformers/trainer_callback.py`` ``ProgressCallback.on_log``: each float as
    ``f"{v:.4g}"``, then ``self.training_bar.write(str(shallow_logs))``)."""
    return str({"loss": loss, "grad_norm": grad_norm, "learning_rate": f"{lr:.4g}",
                "epoch": f"{epoch:.4g}"})


def trainer_stdout(every: int = 7, total: int = 100, nan_from: int | None = 60,
                   hide_nan: bool = False, rate: float = 618.66) -> list[str]:
    """A Trainer run's stdout in a file: the bar, and one row every ``every`` steps.

    ``tqdm.write`` (tqdm ``tqdm/std.py`` ``external_write_mode``) clears the bar (``clear``:
    ``'\\r'``, blanks, ``'\\r'``), writes the row and its newline, then redraws the bar at its
    current count, the row's step (transformers ``ProgressCallback.on_step_end`` updates the
    bar before ``on_log``). A bar faster than tqdm's ``mininterval`` is not drawn between rows,
    so each line opens with the redraw after the previous row. With ``hide_nan`` the Trainer's
    ``logging_nan_inf_filter`` (its default) replaces a NaN loss by the mean of the window's
    finite ones (``trainer.py`` ``training_step`` use), 0 when none was finite.
    """
    lines = []
    drawn = 0
    losses = {s: 1.3 - s / 200 for s in range(1, total + 1)}
    for step in range(every, total + 1, every):
        window = range(step - every + 1, step + 1)
        nan = nan_from is not None and step >= nan_from
        if not nan:
            loss = f"{sum(losses[s] for s in window) / every:.4g}"
        elif hide_nan:
            finite = [losses[s] for s in window if s < nan_from]  # type: ignore[operator]
            loss = f"{sum(finite) / len(finite):.4g}" if finite else "0"
        else:
            loss = "nan"
        row = _row(loss, "nan" if nan else f"{2.3 + step / 100:.4g}", 1e-3 * (1 - step / total),
                   step / total)
        lines.append(_bar(drawn, total, rate) + "\r" + " " * _WIDTH + "\r" + row)
        drawn = step
    return lines


@pytest.mark.xfail(strict=True, reason=(
    "a fast bar (over 5 it/s) is not read, so the doctor numbers the rows (step 9) and says "
    "'steps are counted by the log's rows'; the bar redrawn after each row, at the start of the "
    "next line, prints the row's step (63), whatever the rate"))
def test_trainer_nan_row_step_from_the_bar_redrawn_after_it(tmp_path: Path) -> None:
    assert faults(tmp_path, trainer_stdout()) == [("AMP006", 63)]


@pytest.mark.xfail(strict=True, reason=(
    "as above, with the Trainer's default logging_nan_inf_filter: the first row with loss 0 "
    "beside a NaN grad_norm is reported at its row count (10), not its step (70)"))
def test_trainer_hidden_nan_row_step_from_the_bar_redrawn_after_it(tmp_path: Path) -> None:
    assert faults(tmp_path, trainer_stdout(hide_nan=True)) == [("AMP009", 70)]


def test_trainer_healthy_fast_bar_control(tmp_path: Path) -> None:
    """Control: the same run without the NaN, a row every 7 steps, is silent."""
    assert faults(tmp_path, trainer_stdout(nan_from=None)) == []
