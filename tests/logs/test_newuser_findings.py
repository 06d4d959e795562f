"""Wrong answers a new user met running small trainings on CPU and diagnosing their logs.

Each case is written from the tools' own format strings, as the real run printed it (the run:
a tiny model under transformers 5.24's Trainer on CPU, ``logging_steps=7``, a NaN loss from
step 60, its stdout and stderr in one file). Each held the right answer as a strict xfail
until the doctor got it (fixed in the same stop).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

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


_ROW_STEP = ("a fast bar (over 5 it/s) is not read, so the doctor numbers the rows and says 'steps "
             "are counted by the log's rows'; the bar redrawn after each row, at the start of "
             "the next line, prints the row's step, whatever the rate")


@pytest.mark.parametrize(("hide_nan", "expected"), [
    # The NaN row (the 9th) is step 63; the doctor said 9 (a strict xfail until fixed).
    (False, [("AMP006", 63)]),
    # The Trainer's default logging_nan_inf_filter: the first row with loss 0 beside a NaN
    # grad_norm (the 10th) is step 70; the doctor said 10.
    (True, [("AMP009", 70)]),
])
def test_trainer_nan_row_step_from_the_bar_redrawn_after_it(
        tmp_path: Path, hide_nan: bool, expected: list[tuple[str, int]]) -> None:
    """Fixed (``parsers.LineParser._redrawn_step``): """ + _ROW_STEP + """."""
    assert faults(tmp_path, trainer_stdout(hide_nan=hide_nan)) == expected


def test_trainer_healthy_fast_bar_control(tmp_path: Path) -> None:
    """Control: the same run without the NaN, a row every 7 steps, is silent."""
    assert faults(tmp_path, trainer_stdout(nan_from=None)) == []


_REPORT = "out/denpex_reports/run-2/rank0.jsonl"


def _denpex(code: str, slug: str, severity: str, tail: str) -> str:
    """A denpex callback's diagnosis line as a watched Trainer prints it: this repository's
    ``denpex_callbacks/core/log_line.py`` ``render_line`` (``{id} {slug} [{severity}] step
    {step}, rank {rank}: {summary}. Fix: {fix}. Details: {report}``, ``denpex: `` before it)
    through transformers' logger (huggingface/transformers ``src/transformers/utils/logging.py``:
    ``f"[{lib_name}] %(message)s"``)."""
    return f"[transformers] denpex: {code} {slug} [{severity}] step {tail} Details: {_REPORT}"


def watched_trainer_stdout(nan_from: int | None = 60, every: int = 7) -> list[str]:
    """The stdout of a Trainer watched by denpex's callback (``denpex_callbacks/hf``), NaN
    losses from step ``nan_from``: its rows carry ``amp/loss_scale`` and ``amp/skipped_steps``
    (printed as ProgressCallback prints floats, ``f"{v:.4g}"``), its diagnosis lines name
    their step, and the fast bar (tqdm ``tqdm/std.py``) is drawn between them as the real run
    drew it."""
    said = {60: [_denpex("AMP006", "non-finite-loss", "warning",
                         "60, rank 0: loss is nan at step 60 (last finite loss: 0.513); the loss "
                         "scaler skipped the step. Fix: Check the batch for NaN/inf.")],
            61: [_denpex("AMP006", "non-finite-loss", "error",
                         "60, rank 0, escalated: loss is nan again at step 61: 2 non-finite "
                         "losses since step 60 (last finite loss: 0.513); the fault persists. "
                         "Fix: Check the batch for NaN/inf.")],
            64: [_denpex("AMP003", "loss-scale-collapse", "error",
                         "60, rank 0: consequence of AMP006, fix that first: 6 consecutive "
                         "skipped steps from step 60 (after training was stable); loss scale "
                         "16384 -> 256.")],
            74: [_denpex("AMP004", "loss-scale-underflow", "warning",
                         "74, rank 0: consequence of AMP006, fix that first: loss scale fell to "
                         "0.5 (< 1) at step 74.")]} if nan_from == 60 else {}
    lines, pending = [], _bar(0, 100, 38.31)
    for step in range(1, 101):
        bar = _bar(step - 1, 100, 38.31)
        for text in said.get(step, []):
            lines.append(pending + bar + text)
            pending = ""
        if step % every:
            continue
        nan = nan_from is not None and step >= nan_from
        skipped = 2 + (step - nan_from + 1 if nan and nan_from is not None else 0)
        scale = 16384 / 2 ** (skipped - 2)
        row = str({"loss": "nan" if nan else f"{1.3 - step / 200:.4g}",
                   "grad_norm": "nan" if nan else f"{3 + step / 100:.4g}",
                   "learning_rate": f"{1e-3 * (1 - step / 100):.4g}", "epoch": f"{step / 100:.4g}",
                   "amp/loss_scale": f"{scale:.4g}", "amp/skipped_steps": str(skipped)})
        lines.append(pending + "\r" + " " * _WIDTH + "\r" + row)
        pending = _bar(step, 100, 38.31)
    return lines


def test_watched_trainer_step_printed_by_denpex_is_not_a_span(tmp_path: Path) -> None:
    """The callback's own lines print step 60; the doctor, counting the Trainer's rows, said
    "the log prints no step between 10 and 64, so this began at a step within 11-64" (a
    strict xfail until ``doctor._placed`` left the step a denpex line printed as it is, and
    the rows took their steps from the bar redrawn after each)."""
    result = diagnose_lines(tmp_path, watched_trainer_stdout())
    assert [(d.code, d.step) for d in result.faults] == [
        ("AMP006", 60), ("AMP003", 60), ("AMP004", 74)]
    assert [d.code for d in result.faults if "step_within" in d.evidence] == []


def test_watched_trainer_healthy_control(tmp_path: Path) -> None:
    """Control: the watched run without the NaN (rows every 7 steps, two start-up skips) is
    silent."""
    assert faults(tmp_path, watched_trainer_stdout(nan_from=None)) == []
