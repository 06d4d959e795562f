"""Quiet runs across epoch boundaries (issue #27, speed54): where an epoch's end is followed
by ``KEEP`` quiet lines of the next epoch, only its last ``TAIL`` lines are read one by one
(not ``KEEP``), and a shape that prints an epoch is one shape for every epoch (its epoch
captured, a run's lines sharing its first line's), so that the PyTorch MNIST example's
``Train Epoch: E [n/N (p%)]\\tLoss: X`` and the tutorial's ``Epoch [e/E], Step [i/T], Loss: X``
are read at the speed of their runs. Each answer is the same as reading every line: each
fault's id, step, step basis and evidence, and the summary's counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from denpex_callbacks.logs import quiet_runs
from denpex_callbacks.logs.parsers import parse_line
from denpex_callbacks.logs.quiet_runs import KEEP, counted
from tests.logs.test_speed53_quiet import _both, _same, epochstep_line, mnist_line

# A place in a log: (epoch from 1, line of the epoch from 0) -> the loss printed there, or
# None for a finite one.
Fault = Callable[[int, int], str | None]


def _losses(epochs: int, per_epoch: int, fault: Fault) -> list[tuple[int, int, str]]:
    """(epoch, line of the epoch, loss printed) of every line: a loss that falls slowly
    (finite), or what ``fault`` prints there."""
    return [(epoch, b, fault(epoch, b) or f"{2.3 / (1 + 0.002 * (epoch * per_epoch + b)):.4f}")
            for epoch in range(1, epochs + 1) for b in range(per_epoch)]


def mnist_log(epochs: int, *, batch: int = 64, dataset: int = 60000, every: int = 1,
              fault: Fault = lambda e, b: None) -> list[str]:
    """pytorch/examples mnist/main.py ``train``'s lines (``log_interval`` = ``every``; see
    ``mnist_line``), ``len(train_loader)`` batches an epoch."""
    batches = -(-dataset // batch)
    return [mnist_line(epoch, b * every, loss, batch=batch, dataset=dataset)
            for epoch, b, loss in _losses(epochs, -(-batches // every), fault)]


def epochstep_log(epochs: int, *, total_step: int = 600, every: int = 1,
                  fault: Fault = lambda e, i: None) -> list[str]:
    """yunjey/pytorch-tutorial's lines (``if (i+1) % every == 0``; see ``epochstep_line``)."""
    return [epochstep_line(epoch - 1, (b + 1) * every - 1, loss, epochs=epochs,
                           total_step=total_step)
            for epoch, b, loss in _losses(epochs, total_step // every, fault)]


def _read_one_by_one(lines: list[str], quiet: int) -> int:
    return len(lines) - quiet


def _at(epoch: int, line: int, loss: str = "nan") -> Fault:
    return lambda e, b: loss if (e, b) == (epoch, line) else None


# --- healthy controls, non-default settings: silent, the quiet path taken at every epoch's end
@pytest.mark.parametrize(("lines", "epochs"), [
    pytest.param(mnist_log(6, batch=128, dataset=50000), 6, id="mnist-batch128"),
    pytest.param(mnist_log(5, batch=32, dataset=20000, every=3), 5, id="mnist-batch32-every3"),
    pytest.param(epochstep_log(6, total_step=300), 6, id="epochstep-300"),
    pytest.param(epochstep_log(5, total_step=1200, every=4), 5, id="epochstep-1200-every4"),
])
def test_healthy_epochs_are_counted_across_their_ends_and_stay_silent(
        tmp_path: Path, lines: list[str], epochs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert counted_.faults == [] == one_by_one.faults
    # two lines arm the first run; each epoch's end reads its last TAIL lines and the next
    # epoch's first two; the log's end its last KEEP (before: KEEP and two at each end)
    assert _read_one_by_one(lines, quiet) <= 2 + 4 * (epochs - 1) + KEEP
    _same(counted_, one_by_one)


# --- faults at several places: the same answer either way, the quiet path taken elsewhere ----
# (epoch, line of the epoch) of a NaN in a log of 6 epochs of 300 lines
PLACES = {
    "mid-epoch": (3, 150),
    "epoch-last-row": (3, 299),
    "epoch-first-row": (4, 0),
    "epoch-second-row": (4, 1),
    "within-keep-of-a-start": (4, KEEP - 2),  # the lines after an end are not KEEP quiet ones
    "keep-past-a-start": (4, KEEP),  # ...they are, just: the next run reads its own KEEP
    "past-keep-of-a-start": (4, KEEP + 3),
    "run-end": (6, 299),
}


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("shape", ["mnist", "epochstep"])
def test_a_nan_reads_the_same_either_way(
        tmp_path: Path, shape: str, place: str, monkeypatch: pytest.MonkeyPatch) -> None:
    epoch, line = PLACES[place]
    if shape == "mnist":  # 300 batches of 100 an epoch: the step counts samples
        lines = mnist_log(6, batch=100, dataset=30000, fault=_at(epoch, line))
        step = (epoch - 1) * 30000 + line * 100
    else:
        lines = epochstep_log(6, total_step=300, fault=_at(epoch, line))
        step = (epoch - 1) * 300 + line + 1
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", step)]
    # (the epochs' ends away from the NaN: TAIL lines each, two runs' last KEEP around it)
    assert _read_one_by_one(lines, quiet) <= 4 * 6 + 3 * KEEP
    _same(counted_, one_by_one)


@pytest.mark.parametrize("shape", ["mnist", "epochstep"])
def test_zero_losses_from_an_epochs_start_read_the_same_either_way(
        tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Zeros from an epoch's first row on (a quiet line's loss is not 0: the run before them
    keeps its KEEP lines)."""
    def zeros(e: int, b: int) -> str | None:
        return ("0.0000" if shape == "epochstep" else "0.000000") if e >= 4 else None

    lines = (mnist_log(5, batch=100, dataset=30000, fault=zeros) if shape == "mnist"
             else epochstep_log(5, total_step=300, fault=zeros))
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    step = 3 * 30000 if shape == "mnist" else 3 * 300 + 1
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP007", step)]
    # (the two epochs of zeros line by line, the run before them its KEEP; before: each
    # epoch's end KEEP more)
    assert _read_one_by_one(lines, quiet) <= 2 + 4 * 2 + KEEP + 2 * 300
    _same(counted_, one_by_one)


@pytest.mark.parametrize("shape", ["mnist", "epochstep"])
def test_a_paste_from_the_middle_reads_the_same_either_way(
        tmp_path: Path, shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if shape == "mnist":
        lines = mnist_log(8, batch=100, dataset=30000, fault=_at(7, 200))[2 * 300 + 111:]
        step = 6 * 30000 + 200 * 100  # the epoch printed says how many came before
    else:
        lines = epochstep_log(8, total_step=300, fault=_at(7, 200))[2 * 300 + 111:]
        step = 6 * 300 + 201
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", step)]
    assert _read_one_by_one(lines, quiet) <= 4 * 6 + 2 * KEEP + 2
    _same(counted_, one_by_one)


def test_a_counter_that_restarts_at_a_new_epoch_of_another_length_reads_the_same_either_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Three epochs of 300 steps, then three of 200 (``Step [i/200]``: a total that is matched
    as printed ends the run, KEEP lines read; the epochs after it are counted again)."""
    first = epochstep_log(6, total_step=300)[:3 * 300]
    then = epochstep_log(6, total_step=200, fault=_at(5, 120))[3 * 200:]
    lines = first + then
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    # (the epochs before times the total the line prints, as the reader reads it either way)
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", 4 * 200 + 121)]
    assert _read_one_by_one(lines, quiet) <= 4 * 6 + 4 * KEEP
    _same(counted_, one_by_one)


def test_a_run_begun_afresh_at_epoch_one_reads_the_same_either_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second run appended to the log (its epoch back to 1): a NaN in its second epoch."""
    lines = mnist_log(3, batch=100, dataset=30000) + mnist_log(
        3, batch=100, dataset=30000, fault=_at(2, 150))
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", 30000 + 150 * 100)]
    assert _read_one_by_one(lines, quiet) <= 4 * 6 + 3 * KEEP
    _same(counted_, one_by_one)


# --- the shape of a line that prints an epoch -------------------------------------------------
def test_one_shape_serves_every_epoch_and_captures_it() -> None:
    """A shape is built once per template, not once per epoch (compiling its patterns cost more
    than reading the epoch's end): the epoch is captured, and a run keeps to its first line's."""
    first = epochstep_line(2, 299, "0.4700", epochs=9, total_step=300)
    found = counted(first, parse_line(first))
    assert found is not None
    shape, counter, epoch = found
    assert (counter, epoch) == (300, b"3")
    later = epochstep_line(7, 199, "0.3100", epochs=9, total_step=300)  # (its template)
    again = counted(later, parse_line(later))
    assert again is not None and again[0] is shape and again[2] == b"8"
    text = "\n".join(epochstep_line(7, i, "0.3100", epochs=9, total_step=300)
                     for i in range(3)) + "\n" + epochstep_line(8, 0, "0.3", epochs=9,
                                                                total_step=300) + "\n"
    run = shape.run.match(text.encode())
    assert run is not None and run.group().count(b"\n") == 3  # not into epoch 9


@pytest.mark.parametrize("loss", ["0.0000", "0", "0.", ".000", "-0.00", "0e5", "+0.0E-3", "nan",
                                  "inf", "00.000"])
def test_a_quiet_line_is_no_zero_loss(loss: str) -> None:
    """(a control: the loss patterns rewritten without a lookahead, and in the form printed,
    refuse what the lookahead refused)"""
    line = "iter 120: loss 3.1234, time 35.21ms, mfu 12.34%"
    shape = quiet_runs.shape_of(line, parse_line(line))
    assert shape is not None
    assert shape.line.match(f"iter 121: loss {loss}, time 35.03ms, mfu 12.40%".encode()) is None
    assert re.fullmatch(quiet_runs._NONZERO, loss.encode()) is None
    for finite in ("0.0001", "10.5", "00.25", "-1.5"):  # (the form printed: a decimal)
        assert shape.line.match(
            f"iter 121: loss {finite}, time 35.03ms, mfu 12.40%".encode()) is not None, finite
    for finite in ("0.0001", "1", "10.", ".5", "00.25", "2e-3", "-1.5"):
        assert re.fullmatch(quiet_runs._NONZERO, finite.encode()) is not None, finite
    assert re.fullmatch(quiet_runs._NONZERO, b"0.0.5") is None


def test_values_printed_as_decimals_of_either_sign_are_counted_and_read_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(a control of the values' regexes in the form printed) nanoGPT's ``iter`` line
    (karpathy/nanoGPT train.py: ``print(f"iter {iter_num}: loss {lossf:.4f}, time
    {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")``), its mfu ``-100.00`` for the first
    iterations (``running_mfu = -1.0`` until ``local_iter_num >= 5``): one shape, a NaN
    late in the run read the same either way."""
    def line(i: int) -> str:
        loss = "nan" if i == 2900 else f"{2.5 / (1 + 0.001 * i):.4f}"
        mfu = -100.0 if i < 5 else 40 + (i % 7) / 10
        return f"iter {i}: loss {loss}, time {35 + (i % 5) / 10:.2f}ms, mfu {mfu:.2f}%"

    lines = [line(i) for i in range(3000)]
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", 2900)]
    assert quiet > len(lines) - 2 * KEEP - 10
    _same(counted_, one_by_one)


def dgl_lines(epochs: int, steps: int, *, log_every: int = 20,
              fault: Fault = lambda e, s: None) -> list[str]:
    """dmlc/dgl examples/pytorch/graphsage/train_sampling.py ``run``: ``'Epoch {:05d} | Step
    {:05d} | Loss {:.4f} | Train Acc {:.4f} | Speed (samples/sec) {:.4f} | GPU {:.1f}
    MiB'.format(epoch, step, ...)`` every ``log_every`` steps (epochs and steps from 0), then
    ``'Epoch Time(s): {:.4f}'`` at each epoch's end."""
    lines = []
    for epoch in range(epochs):
        for step in range(0, steps, log_every):
            loss = fault(epoch, step) or f"{2.3 / (1 + 0.001 * (epoch * steps + step)):.4f}"
            lines.append(f"Epoch {epoch:05d} | Step {step:05d} | Loss {loss} | Train Acc "
                         f"0.{500 + step % 400:04d} | Speed (samples/sec) 2718.2818 | GPU "
                         "1234.5 MiB")
        lines.append(f"Epoch Time(s): {12.3456 + epoch:.4f}")
    return lines


@pytest.mark.parametrize("fault", [None, (3, 2000)], ids=["healthy", "nan"])
def test_counters_printed_with_leading_zeros_read_the_same_either_way(
        tmp_path: Path, fault: tuple[int, int] | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """(a control of the stride check's text compare: ``00120`` is not the text of 120, and
    the run is still counted, by the counters' values)"""
    lines = dgl_lines(5, 4000, fault=_at(*fault) if fault else lambda e, s: None)
    counted_, one_by_one, quiet = _both(tmp_path, lines, monkeypatch)
    assert quiet > len(lines) // 2
    _same(counted_, one_by_one)
    if fault is None:
        assert counted_.faults == []
    else:
        # (the epochs before, each as long as its last count and the interval: 4000)
        assert [(d.code, d.step) for d in counted_.faults] == [("AMP006", 3 * 4000 + 2000)]


def test_a_run_of_one_line_is_at_its_own_step_not_the_buffers_first() -> None:
    """A run cut to one line by the KEEP lines after it (a NaN KEEP + 1 lines on): its step is
    its own line's, not the first line's of the buffer (``rfind``'s -1 plus one is 0), which
    put the run behind the clock and lost its row from the rows read."""
    from denpex_callbacks.logs.parsers import parse_line

    runs = quiet_runs.QuietRuns()
    lines = [f"iter {i}: loss {3 - i / 1000:.4f}" for i in range(1, 3 + KEEP + 1)]
    for number in (1, 2):
        runs.offer(number, lines[number - 1], parse_line(lines[number - 1]))
    data = ("\n".join(lines) + "\n").encode()
    start = data.index(b"iter 3:")
    # the lines from iter 3: KEEP + 1 of them, the last KEEP read one by one: a run of one
    end = runs.quiet_end(data, start, len(data))
    assert data.count(b"\n", start, end) == 1
    assert runs.last_step == 3
