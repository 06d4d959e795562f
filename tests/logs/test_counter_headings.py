"""A line of counters alone, named in words, numbers the metric rows below it
(denpex_callbacks/logs/counter_headings.py): variants the sample (AljazBozic/NeuralGraph
``train_graph.py``'s ``Epoch number {0}, Iteration number {1}`` over a column of
``"{:<50} {}"`` rows, tests/logs/test_sample38_formats.py) did not show: other separators,
filler words, counter names and row shapes, and healthy controls that stay silent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")

Row = Callable[[str, float], str]


def padded(name: str, value: float) -> str:
    """NeuralGraph's row: ``"{:<50} {}".format(name, value)`` (the value's ``str``)."""
    return "{:<50} {}".format(f"Current Train Loss   {name}", value)


def keyed(name: str, value: float) -> str:
    """An indented ``key: value`` row, the value as ``{:.5f}`` prints it."""
    return f"  {name.lower()}_loss: {value:.5f}"


def spaced(name: str, value: float) -> str:
    """A tensorboard-like tag and the value after a blank (``{:.4f}``)."""
    return f"Loss/{name.title()} {value:.4f}"


def headed(heading: str, row: Row, bad: int | None = None, every: int = 250,
           iterations: int = 2000, per_epoch: int = 700) -> list[str]:
    """A loop that every ``every`` iterations prints ``heading`` (``{e}``: the epoch, ``{n}``:
    the iteration) over three loss terms a row, each NaN from iteration ``bad`` on; a line
    of its own between evaluations (a checkpoint saved)."""
    out = ["Will train from scratch", ""]
    for n in range(0, iterations, every):
        out += ["", heading.format(e=n // per_epoch, n=n)]
        for k, name in enumerate(("TOTAL", "DEPTH", "NORMAL")):
            out.append(row(name, nan_after(bad, n, 1.3 - k / 5 - n / 9000)))
        out += ["", f"Saved checkpoint {n:08d}_model.pt"]
    return [*out, "I'm done"]


def nan_after(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN where the weights went NaN at ``bad`` or before."""
    return NAN if bad is not None and at >= bad else value


@pytest.mark.parametrize(("heading", "row", "bad", "right"), [
    pytest.param("Epoch number {e}, Iteration number {n}", spaced, 1111, 1250,
                 id="numbered-spaced"),
    pytest.param("Iteration no. {n}", padded, 620, 750, id="no-dot"),
    pytest.param("== Epoch #{e} | Step #{n} ==", keyed, 1, 250, id="hashes-piped"),
    pytest.param("[epoch: {e}; update: {n}]", spaced, 1760, 1750 + 250, id="update"),
    pytest.param("Epoch {e} - Iteration {n}/2000", padded, 300, 500, id="dashed-total"),
])
def test_heading_numbers_rows(tmp_path: Path, heading: str, row: Row, bad: int,
                              right: int) -> None:
    """The first NaN row is placed at the iteration its heading prints."""
    lines = headed(heading, row, bad=bad, iterations=2250)
    assert faults(tmp_path, lines) == [("AMP006", right)]


@pytest.mark.parametrize(("heading", "row"), [
    pytest.param("Epoch number {e}, Iteration number {n}", padded, id="numbered"),
    pytest.param("Iteration no. {n}", keyed, id="no-dot"),
    pytest.param("Epoch number {e}", spaced, id="epoch-alone"),
    pytest.param("Evaluating at iteration number {n} of 2000", padded, id="sentence"),
])
def test_healthy_headings_silent(tmp_path: Path, heading: str, row: Row) -> None:
    """Healthy runs under such headings (and under lines that are no heading) stay
    silent, at other intervals and lengths than the faulty ones."""
    assert faults(tmp_path, headed(heading, row, every=300, iterations=3300,
                                   per_epoch=900)) == []
