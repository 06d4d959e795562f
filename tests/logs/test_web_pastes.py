"""Logs copied from a web page, a notebook's rendered output or an API's escaped text: the
characters those turn a log's own into (HTML character references, non-breaking and other
Unicode spaces, zero-width characters) are turned back before the lines are read, so the
fault is found where it is in the plain log, and a healthy run stays silent.
"""

from __future__ import annotations

import html
from pathlib import Path

from excerpts import faults


def _hf_rows(nan_from: int | None = None) -> list[str]:
    """HF Trainer's ``self.log`` dict rows (transformers trainer.py prints ``str(logs)``),
    one each ``logging_steps``."""
    rows = []
    for row in range(1, 41):
        bad = nan_from is not None and row >= nan_from
        loss, norm = ("nan", "nan") if bad else (f"{2.5 - row / 100:.4f}", "1.2345")
        rows.append(f"{{'loss': {loss}, 'grad_norm': {norm}, 'learning_rate': 4.8e-05, "
                    f"'epoch': {row / 100:.2f}}}")
    return rows


def _loop(nan_from: int | None = None) -> list[str]:
    """A hand-written loop's ``print(f"epoch {e} step {s} loss {loss:.4f}")``."""
    return [f"epoch 1 step {step} loss "
            f"{'nan' if nan_from is not None and step >= nan_from else f'{2.5 - step / 1e3:.4f}'}"
            for step in range(1, 60)]


def test_html_character_references(tmp_path: Path) -> None:
    """Before: ``{&#39;loss&#39;: nan, ...}`` (and ``&#x27;``) was "nothing to diagnose"."""
    assert faults(tmp_path, [html.escape(row) for row in _hf_rows(25)]) == [("AMP006", 25)]
    hex_quotes = [row.replace("'", "&#x27;") for row in _hf_rows(25)]
    assert faults(tmp_path, hex_quotes) == [("AMP006", 25)]


def test_web_spaces(tmp_path: Path) -> None:
    """Before: a loop's lines with their spaces as no-break spaces (a rendered page's
    ``&nbsp;``) or narrow ones were "nothing to diagnose"."""
    for space in ("\u00a0", "\u202f", "\u2009"):
        lines = [line.replace(" ", space) for line in _loop(30)]
        assert faults(tmp_path, lines) == [("AMP006", 30)], repr(space)


def test_zero_width_characters(tmp_path: Path) -> None:
    """A zero-width space or a byte-order mark before each line changes nothing (passed on
    the parent too: a control for the characters taken out)."""
    assert faults(tmp_path, ["\ufeff" + line for line in _loop(30)]) == [("AMP006", 30)]
    assert faults(tmp_path, ["\u200b" + line for line in _loop(30)]) == [("AMP006", 30)]


def test_pasted_healthy_runs_stay_silent(tmp_path: Path) -> None:
    """Healthy runs pasted the same ways: read, and silent (on the parent they were not
    read at all: "nothing to diagnose")."""
    assert faults(tmp_path, [html.escape(row) for row in _hf_rows()]) == []
    assert faults(tmp_path, [line.replace(" ", "\u00a0") for line in _loop()]) == []
    assert faults(tmp_path, ["a &amp; b: loss 0.5 &lt; 1 at step 3", *_loop()]) == []
