"""Pastes that add something around every line (``paste_margins.py``): a blank line after
each line (a double-spaced paste: ``\\r\\n`` doubled by an editor or a web form), an indent
(a Markdown code block indented by four spaces or a tab), a quote mark (``> `` in a reply) or
one container's name (``docker compose logs``), rank 0's launcher prefix (torchrun's
``[default0]:``, torch's ``[rank0]: ``), or a terminal's colour codes around each line
(``uncoloured``). ``kubectl logs --prefix``' ``[pod/NAME/C] ``
is taken off line by line with the other collectors' prefixes (paste.py), where the pod's
name may say the rank; Composer's records behind it are a known miss (their header is looked
for in the bytes above a row, prefix and all).
Found by re-reading the suite's own excerpts in those shapes, each of which must give what
the excerpt gives as printed.

Before: DETR's evaluation (``Test:`` rows, then ``Averaged stats: ... loss: nan``) read as
training, double-spaced (AMP006 at 392 and 7785 beside the AMP013) and indented (AMP006 at
step 0, twice: the ``key: value`` lines read as a YAML mapping's rows); CoCa's ``Generative
Loss: nan`` below its evaluation line, double-spaced, read as the training loss (AMP006 at
1955); Composer's console records (``[batch=N/M]:`` over tab-indented metrics) in every
shape, CRLF line ends included (SYS001 at 122, not 600: the records' header unread). The
fault tests fail on 00ce8bf in those shapes, and so does the report's test; DETR and CoCa
tab-indented or quoted alone were read right there, and the controls pass there too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults, loop_lines
from test_classic_formats import _fastai
from test_detect_formats import _detr, _open_clip, _open_clip_eval
from test_false_alarms2_formats import _composer
from test_step_banners import _blocks


def _spaced(lines: list[str]) -> list[str]:
    return [part for line in lines for part in (line, "")]


def _indented(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _tabbed(lines: list[str]) -> list[str]:
    return [f"\t{line}" for line in lines]


def _quoted(lines: list[str]) -> list[str]:
    return [f"> {line}" if line else ">" for line in lines]


SHAPES: dict[str, Callable[[list[str]], list[str]]] = {
    "double-spaced": _spaced, "indented": _indented, "tab-indented": _tabbed,
    "quoted": _quoted, "quoted and double-spaced": lambda lines: _quoted(_spaced(lines)),
    "CRLF": lambda lines: [f"{line}\r" for line in lines],
    "docker compose": lambda lines: [f"trainer-1  | {line}" for line in lines],
    "coloured": lambda lines: [f"\x1b[32m{line}\x1b[0m" for line in lines],
    "torchrun --tee": lambda lines: [f"[default0]:{line}" for line in lines],
    "torch's rank prefix": lambda lines: [f"[rank0]: {line}" for line in lines]}


@pytest.mark.parametrize("shape", SHAPES)
def test_detr_evaluation_stays_evaluation_in_every_paste_shape(tmp_path: Path,
                                                                shape: str) -> None:
    """DETR's NaN evaluation after epoch 0 (test_detect_formats): AMP013 at 391 alone."""
    assert faults(tmp_path, SHAPES[shape](_detr(test_nan=True))) == [("AMP013", 391)]


@pytest.mark.parametrize("shape", SHAPES)
def test_coca_generative_loss_stays_evaluation_in_every_paste_shape(tmp_path: Path,
                                                                     shape: str) -> None:
    """CoCa's ``Generative Loss: nan`` on the line below its evaluation line."""
    coca = ("contrastive_loss", "caption_loss", "loss")
    lines = _open_clip_eval(_open_clip(names=coca), 1, generative=True)
    assert faults(tmp_path, SHAPES[shape](lines)) == [("AMP013", 1954)]


def test_the_report_says_how_the_paste_was_read(tmp_path: Path) -> None:
    """The reading says what was taken off, and that line numbers count the lines read."""
    result = diagnose_lines(tmp_path, _indented(_spaced(loop_lines(nan_from=20))))
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 20)]
    said = " ".join(result.problems)
    assert "every line opened with '    '" in said and "double-spaced" in said
    assert "line numbers count those" in said


@pytest.mark.parametrize("shape", SHAPES)
def test_controls_in_every_paste_shape(tmp_path: Path, shape: str) -> None:
    """Healthy runs stay quiet and a plain loop's NaN keeps its step, in every shape (pass on
    the parent too)."""
    assert faults(tmp_path, SHAPES[shape](_detr(test_nan=False))) == []
    assert faults(tmp_path, SHAPES[shape](loop_lines())) == []
    assert faults(tmp_path, SHAPES[shape](loop_lines(nan_from=20))) == [("AMP006", 20)]


def test_a_log_with_some_blank_lines_or_some_indented_lines_is_read_as_it_is(
        tmp_path: Path) -> None:
    """Blank lines between some records, and indented lines under others (a traceback, a
    config): no margin is taken off (pass on the parent too)."""
    lines = loop_lines(nan_from=20)
    some_blank = [part for i, line in enumerate(lines)
                  for part in ((line, "") if i % 5 == 0 else (line,))]
    result = diagnose_lines(tmp_path, some_blank)
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 20)]
    assert not any("paste" in problem for problem in result.problems)
    some_indented = [*lines[:10], '  File "train.py", line 12, in <module>', "    main()",
                     *lines[10:]]
    result = diagnose_lines(tmp_path, some_indented)
    assert not any("paste" in problem for problem in result.problems)


@pytest.mark.parametrize("shape", SHAPES)
def test_composer_records_in_every_paste_shape(tmp_path: Path, shape: str) -> None:
    """Composer's console records (``[batch=600/600]:`` over its tab-indented metrics) and
    the OOM that ended the run, at the last record's batch. Before, with CRLF line ends (a log
    saved on Windows): SYS001 at 122, the records' header unread (its ``\\r`` before the
    line's end); double-spaced, indented or quoted: the same."""
    fatal = "CUDA out of memory. Tried to allocate 2.00 GiB."
    assert faults(tmp_path, SHAPES[shape](_composer(None, fatal=fatal))) == [("SYS001", 600)]


@pytest.mark.parametrize("shape", SHAPES)
def test_fastai_table_in_every_paste_shape(tmp_path: Path, shape: str) -> None:
    """fastai's table (test_classic_formats' ``_fastai``): its header must line up with its
    rows. Before, behind ``docker compose logs``' ``trainer-1  | `` on every line: "nothing
    to diagnose"."""
    assert faults(tmp_path, SHAPES[shape](_fastai(4))) == [("AMP006", 4), ("AMP013", 4)]
    assert faults(tmp_path, SHAPES[shape](_fastai())) == []


def test_a_table_padded_to_one_width_is_no_hard_wrap(tmp_path: Path) -> None:
    """ultralytics' header and rows (``'%11s' * 7``, ``'%11s' * 2 + '%11.4g' * 5``: every
    line 77 wide) with the padding its first column opens with taken off (an indented paste's
    margin, or a paste that dropped it): every line 71 wide. Before: read as one record
    hard-wrapped at 71 ("read 1 line(s) ... nothing to diagnose"); lines all of the widest
    width, no shorter rest after them, are no wrap."""
    rows = [("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "cls_loss", "dfl_loss",
                            "Instances", "Size"),
            *[("%11s" * 2 + "%11.4g" * 5) % (f"{e}/100", "3.2G", v, v, v, 16, 640)
              for e, v in ((1, 1.2), (2, 1.1), (3, float("nan")), (4, float("nan")))]]
    for lines in ([row[6:] for row in rows], _indented(rows)):
        assert faults(tmp_path, lines) == [("AMP006", 3)]


@pytest.mark.parametrize("shape", SHAPES)
def test_a_step_banner_over_its_rows_in_every_paste_shape(tmp_path: Path, shape: str) -> None:
    """``==== Step 1200 ====`` over its ``loss:`` and ``lr:`` lines (test_step_banners). Before,
    each line coloured (a log saved from a coloured terminal, a CI runner's raw log): step 12,
    the banner unread (its colour codes before the line's words)."""
    assert faults(tmp_path, SHAPES[shape](_blocks("==== Step {s} ====", 1200))) == [
        ("AMP006", 1200)]
    assert faults(tmp_path, SHAPES[shape](_blocks("==== Step {s} ===="))) == []


def test_another_ranks_prefix_is_kept(tmp_path: Path) -> None:
    """Control: rank 1's ``[default1]:`` on every line says the rank: taken off as a margin
    (test_pastes3_formats), the NaN is still rank 1's (passes on the parent too)."""
    result = diagnose_lines(tmp_path, [f"[default1]:{line}" for line in loop_lines(nan_from=20)])
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 20, 1)]
