"""Logs pasted with their long lines hard-wrapped at a terminal's width (``screen``, ``tmux``
copy mode, a Windows console, ``fold``): read as the lines they were.

The corpus logs (printed by the real frameworks, ``corpus/make_corpus.py``) are wrapped here
as a terminal shows them: each line cut into pieces of the width, a carriage-return bar shown
as its last state, tabs as spaces. Before, a wrapped DeepSpeed sawtooth lost the new scale of
its overflow lines and its ``step=`` counters' skip counts, and read as a cascade (AMP003 on a
healthy run); a wrapped Megatron collapse lost its losses and skip counts (no fault found).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import megatron_line

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.hard_wraps import unwrapped_log

CORPUS = Path(__file__).parent / "corpus"


def _as_a_terminal_wraps(text: str, width: int) -> str:
    shown = [line.rstrip("\r").split("\r")[-1].expandtabs(8) for line in text.split("\n")]
    return "\n".join(piece for line in shown
                     for piece in ([line[at:at + width] for at in range(0, len(line), width)]
                                   or [""]))


def _found(path: Path) -> list[tuple[str, int | None]]:
    return sorted((d.code, d.step) for d in diagnose(str(path)).faults)


@pytest.mark.parametrize("width", [80, 100, 120, 160])
@pytest.mark.parametrize("name", [
    "deepspeed_zero2_sawtooth",  # healthy: was AMP003 at 120 columns
    "deepspeed_zero2_bf16_nonfinite",  # AMP006 only: was AMP003 beside it
    "deepspeed_zero2_collapse",
    "megatron_collapse",  # AMP006 and AMP003: was no fault
    "megatron_nan_rank3",
    "fairseq_simple_collapse",  # AMP003 and AMP004: AMP004 was lost at 120 columns
])
def test_a_wrapped_log_reads_as_the_log(tmp_path: Path, name: str, width: int) -> None:
    log = CORPUS / f"{name}.log"
    wrapped = tmp_path / f"{name}.log"
    wrapped.write_text(_as_a_terminal_wraps(log.read_text(), width))
    assert _found(wrapped) == _found(log)


def test_the_report_says_the_lines_were_joined(tmp_path: Path) -> None:
    wrapped = tmp_path / "wrapped.log"
    text = (CORPUS / "deepspeed_zero2_sawtooth.log").read_text()
    wrapped.write_text(_as_a_terminal_wraps(text, 120))
    result = diagnose(str(wrapped))
    assert result.faults == []
    assert any("lines hard-wrapped at 120 characters, joined again" in problem
               for problem in result.problems)


@pytest.mark.parametrize("lines", [
    # fixed-width lines, all of the longest length: each opens like the one before
    [megatron_line(i, loss=2.5 + i / 1e6) for i in range(10, 2000, 10)],
    # the same line again and again (apex's overflow line in a cascade)
    ["OVERFLOW! Skipping step. Attempted loss scale: 1024.0, reducing to 512.0"] * 40,
    # a table padded to one width whose longest rows end a word above a header (ALIGNN's
    # ``Val Loss:`` rows, ``Saving model`` every third epoch, then ``Train Loss:``)
    [line for epoch in range(12) for line in (
        f"{'Train Loss:':<12} {'Epoch':<8} {'Total':<10} {'Graph':<10} {'Atom':<10} "
        f"{'Grad':<10} {'Time':<10}",
        f"{'':<12} {epoch:<8} {0.9 - epoch / 100:<10.4f} {0.9:<10.4f} {0:<10.4f} "
        f"{0:<10.4f} {12.34:<10}",
        f"{'Val Loss:':<12} {'Epoch':<8} {'Total':<10} {'Graph':<10} {'Atom':<10} "
        f"{'Grad':<10} {'Time':<10}",
        f"{'':<12} {epoch:<8} {0.95 - epoch / 100:<10.4f} {0.95:<10.4f} {0:<10.4f} "
        f"{0:<10.4f} {1.23:<10} {'Saving model' if epoch % 3 == 0 else '':<10}")],
    # the longest line, of one length, after every few rows of a loop (apex's overflow line
    # at one scale): it ends as its kind ends, the row after it opens as rows do
    [line for i in range(40) for line in (
        *(f"loss {2.9 - i / 100 - j / 1000:.4f} | lr 0.0003 | loss_scale 65536"
          for j in range(5)),
        "Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to 65536.0")],
    # a record of one length (DeepSpeed-Chat's step 3 print) over a line that opens with a
    # capital (its ``Training   => Latency``): a record's start, not a word cut in two
    [line for step in range(20) for line in (
        f"Epoch: 0 | Step: {step:3d} | PPO Epoch: 1 | Actor Loss: {0.5 - step / 1000:.4f} | "
        f"Critic Loss: {0.25:.4f} | Unsupervised Loss: 0.0 | Total Seq. Length: 512",
        "Training   => Latency: 2.40s, TFLOPs: 12.34, Samples/sec: 26.67, Time/seq 0.04s")],
    # a progress bar at the width between log lines: cut between tokens, not inside one
    [line for i in range(1, 40) for line in (
        f"Epoch 1: {i:3d}/100 [{'#' * (i // 4):<25}] loss={2.0 - i / 100:.4f} | "
        f"lr=1.0e-04 | {'.' * 14}]", f"step {i} done")],
])
def test_logs_that_are_not_wrapped_stay_as_they_are(lines: list[str]) -> None:
    assert unwrapped_log("\n".join(lines).encode()) is None
