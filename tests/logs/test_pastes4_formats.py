"""What web pages, chat tools and editors do to the characters of a pasted log: the doctor's
answer (ids and steps) does not change. A metamorphic check over every excerpt the log tests
hand the doctor (replayed outside the repo, one transform at a time) found the shapes below;
each is built here from another test file's builder, changed the way a paste changes it.

Taken back for the whole paste (paste.py's ``plain_characters``, where its first bytes hold
one): no-break and other Unicode spaces, zero-width characters, curly quotes (Slack, Word, a
forum's editor), a number's minus as U+2212 or an en dash (rendered Markdown, a math font),
full-width digits (a CJK input method), HTML's character references (``&#39;``, ``&gt;``). Per
line (paste.py's ``strip_paste``) for a larger log. A line number before every line (``cat
-n``'s ``%6d\\t``, an editor's ``12 | ``) is taken off the whole paste (paste_margins.py), and
a line that marks a cut (``[... 300 lines omitted ...]``) or a CI fold (``##[group]``) breaks
no margin the paste's other lines share.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from excerpts import faults, hf_rows
from run_makers import hf_run, lightning_run
from test_logging_interval import _arguments, _rows
from test_pastes_formats import KINDS, PASTES
from test_science_formats import _lcurve
from test_trainers_formats import _composer
from test_vision_formats import _diffusion

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")
_MINUS = re.compile(r"(?<![\w.])-(?=\.?\d)|(?<=\d[eE])-(?=\d)")


def _curly(line: str) -> str:
    """Straight quotes made curly as a chat tool or a word processor makes them: an opening
    quote after a blank or an opening bracket, a closing one elsewhere."""
    def one(found: re.Match[str]) -> str:
        before = line[found.start() - 1] if found.start() else " "
        opening = before.isspace() or before in "([{=:,"
        if found[0] == "'":
            return "\u2018" if opening else "\u2019"
        return "\u201c" if opening else "\u201d"
    return re.sub(r"['\"]", one, line)


def _composer_run(nan_from: int | None = None) -> list[str]:
    """llm-foundry's Composer records (test_trainers_formats' builder), a record every 10
    batches, 30 records, the loss NaN from record ``nan_from`` on."""
    losses = [7.5 - i / 10 for i in range(30)]
    return _composer([NAN if nan_from and i + 1 >= nan_from else loss
                      for i, loss in enumerate(losses)], 10)


def test_curly_quotes_in_hf_rows(tmp_path: Path) -> None:
    """HF Trainer's dict rows with curly quotes (``{‘loss’: nan, ...}``)."""
    assert faults(tmp_path, [_curly(row) for row in hf_rows(12)]) == [("AMP006", 12)]
    closing = [row.replace("'", "\u2019") for row in hf_rows(12)]
    assert faults(tmp_path, closing) == [("AMP006", 12)]


def test_no_break_spaces_in_composer_records(tmp_path: Path) -> None:
    """Composer's records with no-break spaces (a rendered page's ``&nbsp;``): the record's
    progress line over its metric lines numbers them, as in the plain log."""
    plain = _composer_run(13)
    assert faults(tmp_path, plain)[:1] == [("AMP006", 130)]
    assert faults(tmp_path, [line.replace(" ", "\u00a0") for line in plain])[:1] == [
        ("AMP006", 130)]


def test_zero_width_spaces_in_composer_records(tmp_path: Path) -> None:
    """The same with a page's word-break hints (U+200B after each blank, ``=``, ``:``, ``/``)."""
    lines = [re.sub(r"([ =:/])", "\\1\u200b", line) for line in _composer_run(13)]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 130)]


def test_minus_signs_in_log_scale_records(tmp_path: Path) -> None:
    """improved-diffusion's records (``lg_loss_scale``, its logarithm, negative once the scale
    falls below 1) with the minus as U+2212 or an en dash: the fall below 1 is still read."""
    plain = _diffusion(80, overflow=frozenset(range(37, 80)))
    expected = [("AMP003", 31), ("AMP004", 57)]
    assert faults(tmp_path, plain) == expected
    for dash in ("\u2212", "\u2013"):
        assert faults(tmp_path, [_MINUS.sub(dash, line) for line in plain]) == expected, dash


def test_full_width_digits_and_colons(tmp_path: Path) -> None:
    """Composer's records with a CJK input method's full-width digits and colons
    (``[batch=１３０/４８００]：``, ``Train loss/train/total： nan``)."""
    wide = str.maketrans({**{str(d): chr(0xFF10 + d) for d in range(10)}, ":": "\uff1a"})
    lines = [line.translate(wide) for line in _composer_run(13)]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 130)]


def test_web_spaces_in_a_launch_line(tmp_path: Path) -> None:
    """HF Trainer's rows under the launch line that sets ``--logging_steps 25``
    (test_logging_interval's), its blanks no-break or zero-width-hinted: the rows are
    numbered every 25 steps, as in the plain log (the interval is read from the whole paste)."""
    lines = ["+ torchrun --nproc_per_node 1 run_clm.py --model_name_or_path gpt2 --fp16 "
             "--logging_steps 25 --output_dir out", *_rows(10)]
    assert faults(tmp_path, lines) == [("AMP006", 250)]
    for space in ("\u00a0", " \u200b"):
        webbed = [line.replace(" ", space) for line in lines]
        assert faults(tmp_path, webbed) == [("AMP006", 250)], repr(space)


def test_line_numbers_before_every_line(tmp_path: Path) -> None:
    """Composer's records with ``cat -n``'s numbers and an editor's gutter, from line 1 or
    from line 120 (an excerpt of a file)."""
    plain = _composer_run(13)
    assert faults(tmp_path, [f"{i:6d}\t{line}" for i, line in enumerate(plain, 1)])[:1] == [
        ("AMP006", 130)]
    gutter = [f"{i:>4} | {line}" for i, line in enumerate(plain, 120)]
    assert faults(tmp_path, gutter)[:1] == [("AMP006", 130)]


def test_html_quoted_paste(tmp_path: Path) -> None:
    """A quoted reply's ``> `` as a page's source holds it (``&gt; ``) on every line."""
    assert faults(tmp_path, ["&gt; " + line for line in _composer_run(13)])[:1] == [
        ("AMP006", 130)]


def test_a_cut_or_a_fold_in_an_indented_paste(tmp_path: Path) -> None:
    """An indented paste (a Markdown code block) with a line where it was cut, written
    without the indent, or inside a GitHub Actions fold."""
    indented = ["    " + line for line in _composer_run(13)]
    for cut in ("...", "[... 300 lines omitted ...]", "<truncated 2000 lines>"):
        lines = [*indented[:40], cut, *indented[40:]]
        assert faults(tmp_path, lines)[:1] == [("AMP006", 130)], cut
    folded = ["##[group]Run python train.py", *indented, "##[endgroup]"]
    assert faults(tmp_path, folded)[:1] == [("AMP006", 130)]


def _with_bom(path: Path) -> str:
    """``path`` saved again with a byte-order mark first (Excel's "CSV UTF-8", PowerShell's
    ``Out-File -Encoding utf8``, Notepad's older "UTF-8")."""
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    return str(path)


def test_run_files_with_a_byte_order_mark(tmp_path: Path) -> None:
    """HF's ``trainer_state.json`` and Lightning's ``metrics.csv`` (run_makers' runs) saved
    with a byte-order mark: read as without one. Before: the JSON was an error (``Unexpected
    UTF-8 BOM``); a CSV's first column took the mark into its name (here ``epoch``, which
    moved nothing: the CSV is a control; a step column first, as in test_step_banners'
    ``iteration`` CSV, was no step column, and the NaN was at the row)."""
    state = diagnose(_with_bom(hf_run(tmp_path / "hf", math.nan, nan_filter=False)))
    assert state.error is None and [(d.code, d.step) for d in state.faults] == [("AMP006", 6)]
    table = diagnose(_with_bom(lightning_run(tmp_path / "pl", math.inf * 0, ("csv",))))
    assert table.error is None, table.error
    assert [(d.code, d.step) for d in table.faults][:1] == [("AMP006", 5)]
    healthy = diagnose(_with_bom(lightning_run(tmp_path / "ok", 1.0, ("csv",))))
    assert healthy.error is None and healthy.faults == []


def test_chat_collapsed_composer_records(tmp_path: Path) -> None:
    """Composer's records through a chat tool: each ``\\t Train ...`` line as `` Train ...``."""
    lines = [re.sub(r" {2,}", " ", line.replace("\t", "    ")) for line in _composer_run(13)]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 130)]


def test_a_cut_in_a_hard_wrapped_paste(tmp_path: Path) -> None:
    """DeepSpeed's cascade (test_pastes_formats' ``deepspeed`` excerpt) hard-wrapped at 120
    columns, with ``[... 300 lines omitted ...]`` where the paste was cut."""
    wrapped = PASTES["wrap120"](KINDS["deepspeed"][0]()).decode().splitlines()
    middle = len(wrapped) // 2
    lines = [*wrapped[:middle], "[... 300 lines omitted ...]", *wrapped[middle:]]
    assert faults(tmp_path, lines) == [("AMP003", 501), ("AMP004", 517)]


def test_healthy_pastes_stay_silent(tmp_path: Path) -> None:
    """Controls, healthy runs in non-default settings changed the same ways: silent (DeePMD's
    lcurve with an unmeasured virial, its columns' minus signs as U+2212)."""
    lcurve = _lcurve(rows=300, unmeasured=("rmse_v",))
    assert faults(tmp_path, [_MINUS.sub("\u2212", line) for line in lcurve]) == []
    assert faults(tmp_path, [line.replace(" ", "\u00a0") for line in _composer_run()]) == []
    assert faults(tmp_path, [_curly(row) for row in hf_rows()]) == []
    numbered = [f"{i:6d}\t{line}" for i, line in enumerate(_composer_run(), 1)]
    assert faults(tmp_path, numbered) == []
    rows = [*_arguments(logging_steps=20), *_rows()]
    assert faults(tmp_path, [line.replace(" ", "\u00a0") for line in rows]) == []
