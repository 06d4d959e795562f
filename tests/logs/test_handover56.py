"""An excerpt reads the same wherever the reader's chunks (or the worker scan's spans) begin.

The reader hands a line without a keyword over with the candidate below it when that line
numbers it (a step line, an epoch's heading, an evaluation's opening line...). It asked that in
two places: of the line above a candidate after a gap (``reader._step_line``), and of the line
before a chunk's first candidate (the chunk start, ``candidate_lines``' ``before``), and the
second knew only step lines, epoch lines and a bare bar's end. So the same excerpt gave another
answer when its heading was the last line of a 4 MiB chunk or of a worker's 16 MiB span.
Each test here reads an excerpt in one chunk, then with the first chunk ending just after the
heading, and asserts the same faults (id, step and the step's basis).

Missed on the parent commit (0a269ab) with the cut, right in one chunk, now the same:

- Caffe's ``Iteration 1500, Testing net (#0)`` over the test net's outputs: AMP013 1401 (rows).
- DALLE2-pytorch's ``Epoch 1/2 Val Step 0 - ...`` over its ``Loss: tensor(...)``: AMP006 1901
  beside AMP013 1901 (the validation loss read as training's).
- SAM-HQ's ``epoch:    0   learning rate:   0.0005`` heading a second run: AMP006 1350.
- ClassyVision's ``Rank: 0, train phase: 0, processed batches: 400`` over its loss line:
  both faults an epoch late.
- NequIP's ``validation`` over its batch table's header: AMP013 37 for 35.

And at the reader (``test_a_line_before_a_piece_is_read_as_a_line_above``: the line handed over
or not, a heading and its tool's candidate): on the parent the chunk start also missed the
counters named in words, framed epochs (``--- Epoch 2/5 ---``), an open bar's end
(``200it [01:11, 2.82it/s]``) and pix2pixHD's ``End of epoch 3 / 200``, and it took an epoch
that says it ended (``Epoch 5 finished``) over the next epoch's first row, which the one-piece
read leaves (the loop's excerpt here reads the same faults either way: a guard).

Now one predicate (``reader.numbers_below``) answers for both places.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from excerpts import diagnose_lines, tqdm_bar
from test_left3_formats import _dalle2
from test_left4_formats import _caffe, _classy
from test_science_formats import _nequip
from test_untried12_formats import _sam_hq

from denpex_callbacks.logs import reader
from denpex_callbacks.logs.parsers import KEYWORDS
from denpex_callbacks.logs.reader import ReadStats, candidate_lines

NAN = float("nan")
Fault = tuple[str, int | None, object]


def _read(tmp_path: Path, lines: list[str]) -> list[Fault]:
    """(id, step, step's basis) of each diagnosis above info."""
    return [(d.code, d.step, d.evidence.get("step_basis"))
            for d in diagnose_lines(tmp_path, lines).faults]


def _cut_after(monkeypatch: pytest.MonkeyPatch, lines: list[str], index: int) -> None:
    """Make every read of the excerpt's file end its first chunk just after line ``index``
    (from 0) of ``lines``, as a 4 MiB chunk (or a worker's span) may end anywhere."""
    offset = sum(len(line.encode()) + 1 for line in lines[:index + 1])
    real = reader._read_block

    def first_chunk_ends_there(stream: reader.Readable, stats: ReadStats) -> tuple[bytes, bool]:
        at = stream.tell()  # type: ignore[attr-defined]
        return (stream.read(offset - at), False) if at < offset else real(stream, stats)

    monkeypatch.setattr(reader, "_read_block", first_chunk_ends_there)


def _same_with_cuts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str],
                    heading: str, right: list[tuple[str, int | None]]) -> None:
    """Assert the one-chunk read's (id, step) pairs, then the same faults (basis too) with the
    first chunk ending after each line that holds ``heading`` (one at least)."""
    whole = _read(tmp_path, lines)
    assert [(code, step) for code, step, _ in whole] == right
    headings = [index for index, line in enumerate(lines) if heading in line]
    assert headings
    for index in headings:
        with monkeypatch.context() as patch:
            _cut_after(patch, lines, index)
            assert _read(tmp_path, lines) == whole, lines[index]


# -- the excerpts: each from its tool's own format strings. The builders of the tests that
# first read each tool are reused (test_left4_formats' Caffe and ClassyVision, test_left3's
# DALLE2-pytorch, test_untried12's SAM-HQ, test_science's NequIP: each names its source),
# so that the excerpt cut here is the excerpt those tests read whole.


def _ended(nan_epoch: int | None = None, *, epochs: int = 6, batches: int = 300) -> list[str]:
    """A plain loop's ``print(f"Epoch {epoch} batch {i} loss {loss:.4f}")`` every 100 batches
    and ``print(f"Epoch {epoch} done")`` after its last (the wording stanfordnlp/stanza's
    ``iterate_training`` ends an epoch with, ``"Epoch %d finished"``, over its own indented
    summary: here no summary follows, the next epoch's first row does)."""
    lines = []
    for epoch in range(1, epochs + 1):
        bad = nan_epoch is not None and epoch >= nan_epoch
        for batch in range(100, batches + 1, 100):
            loss = "nan" if bad else f"{3.0 - epoch / 10 - batch / 1e4:.4f}"
            lines.append(f"Epoch {epoch} batch {batch} loss {loss}")
        lines.append(f"Epoch {epoch} done")
    return lines


@pytest.mark.parametrize(("build", "heading", "right"), [
    pytest.param(lambda: _caffe(test_nan=1500), "Testing net", [("AMP013", 1500)],
                 id="caffe_eval_at"),
    pytest.param(lambda: _dalle2(val_nan_epoch=1), "Val Step", [("AMP013", 1900)],
                 id="dalle2_eval_step"),
    pytest.param(lambda: _sam_hq(4, batches=300, every=50) + _sam_hq(
        4, batches=300, every=50, nan_at=150), "epoch:    0", [("AMP006", 150)],
        id="sam_hq_epoch_heading"),
    pytest.param(lambda: _classy((2, 300)), "processed batches", [
        ("AMP006", 1300), ("AMP013", 1500)], id="classy_phase_line"),
    pytest.param(lambda: _nequip(val_nan_from=(7, 1)), "validation", [("AMP013", 35)],
                 id="nequip_split_line"),
    pytest.param(lambda: _ended(4), " done", [("AMP006", 1000)], id="epoch_ended"),
])
def test_a_heading_at_a_chunk_end_reads_as_in_one_chunk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: object, heading: str,
        right: list[tuple[str, int | None]]) -> None:
    """Each kind of heading the gap's look-up accepts, the first chunk ending after it."""
    assert callable(build)
    _same_with_cuts(tmp_path, monkeypatch, build(), heading, right)


@pytest.mark.parametrize(("build", "heading"), [
    pytest.param(lambda: _caffe(newer=False, test_interval=1000, display=50), "Testing net",
                 id="caffe"),
    pytest.param(lambda: _dalle2(unets=2), "Val Step", id="dalle2"),
    pytest.param(lambda: _sam_hq(3, batches=240, every=30) + _sam_hq(2, batches=240, every=60),
                 "epoch:", id="sam_hq"),
    pytest.param(lambda: _classy(batches=400, log_freq=50), "processed batches", id="classy"),
    pytest.param(_nequip, "training", id="nequip"),
    pytest.param(lambda: _ended(epochs=4, batches=500), " done", id="epoch_ended"),
])
def test_healthy_runs_silent_wherever_cut(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: object, heading: str) -> None:
    """Controls, settings other than the defaults: silent in one chunk and with each cut."""
    assert callable(build)
    _same_with_cuts(tmp_path, monkeypatch, build(), heading, [])


# Every kind of line that numbers the candidate below it by itself (``reader._step_line``'s
# tests of one line), over a candidate of its tool's, and whether it is handed over: the first
# as a gap's line above the candidate in one piece, then as the line before a piece's first.
_HEADINGS = [
    ("step: 700", "loss: nan", True),  # foundation-model-stack/fms-fsdp's record
    ("Iteration 1500, Testing net (#0)", "    Test net output #1: loss = nan", True),  # Caffe
    ("Epoch 1/2 Val Step 0 -  Sample 3200 - 840.12 samples/sec",
     "Loss: tensor([[nan]], device='cuda:0')", True),  # DALLE2-pytorch
    ("epoch:    0   learning rate:   0.0005",
     "  [  0/300]  eta: 0:01:00  training_loss: nan (nan)", True),  # SAM-HQ
    ("Epoch number 0, Iteration number 400", "train loss: nan", True),  # counters in words
    ("INFO:root:Rank: 0, train phase: 2, processed batches: 300",
     "train loss: nan, LR rate: 0.1", True),  # ClassyVision
    ("Epoch 3/10", "120/120 [==============================] - 3s 25ms/step - loss: nan",
     True),  # Keras
    ("--- Epoch 2/5 ---", "Train: 100%|####| 50/50 [00:10<00:00, loss=nan]", True),
    ("200it [01:11, 2.82it/s]", "Epoch 3 train loss: nan", True),  # an open bar's end
    ("End of epoch 3 / 200 \t Time Taken: 250 sec", "learning rate = 0.0002000 loss nan",
     True),  # pix2pixHD
    ("training", "# Epoch batch         loss", True),  # NequIP
    ("2023-05-01 10:00:00.123456: Epoch 12 ", "2023-05-01 10:00:01.0: train_loss nan",
     True),  # nnU-Net
    ("Epoch 5 finished", "  Total loss for epoch: nan", True),  # Stanza, its own summary
    ("Epoch 5 finished", "Epoch 6 batch 100 loss nan", False),  # not its summary
    ("100%|##########| 300/300 [01:00<00:00,  5.00it/s]", "Epoch 3 loss nan", True),
    ("Wrote model_400.pt", "loss nan", False),
    ("ready", "train loss: nan", False),
]


@pytest.mark.parametrize(("heading", "row", "handed"), _HEADINGS)
def test_a_line_before_a_piece_is_read_as_a_line_above(heading: str, row: str,
                                                       handed: bool) -> None:
    """The line before a piece's first candidate is handed over where, above the candidate
    in one piece, it is (and only there)."""
    assert not any(keyword in heading.encode() for keyword in KEYWORDS)
    one = list(candidate_lines(io.BytesIO(f"{heading}\n{row}\n".encode()), KEYWORDS,
                               ReadStats()))
    assert one == ([(1, heading)] if handed else []) + [(2, row)]
    cut = list(candidate_lines(io.BytesIO(f"{row}\n".encode()), KEYWORDS, ReadStats(),
                               before=heading.encode()))
    assert [(number + 1, text) for number, text in cut] == one


# -- a bar at its total labelled with its epoch alone, over the epoch's summary -------------


def _labelled_bars(bad: int | None = None, *, label: str = "Epoch {e}", epochs: int = 6,
                   batches: int = 37, stop: int | None = None, every: int = 5) -> list[str]:
    """A loop laid out as Arthi-V22/Deep-fake-Detection ``train_video.py``: each epoch a
    ``tqdm(train_loader, desc=f"Epoch {epoch+1}")`` bar with no postfix (tqdm/std.py
    ``format_meter``; a file keeps its refreshes as ``\\r`` segments of one line), then
    ``f"Epoch [{epoch+1}/{num_epochs}], Loss: {total_loss/len(train_loader):.4f}, Time:
    {epoch_time:.2f} sec"``. ``label``: the description (``{e}`` the epoch from 1, ``{n}``
    the epochs); ``stop``: the batch after which each epoch's loop breaks (its bar never
    closes); ``bad``: the run's first NaN batch (from 0)."""
    out: list[str] = []
    last = batches if stop is None else stop
    for e in range(1, epochs + 1):
        desc = label.format(e=e, n=epochs)
        total, segments = 0.0, [tqdm_bar(desc, 0, batches, rate=1.21)]
        for b in range(1, last + 1):
            run = (e - 1) * batches + b - 1
            total += NAN if bad is not None and run >= bad else 0.69 * 0.97 ** (run / 10)
            if b % every == 0 or b == last:
                segments.append(tqdm_bar(desc, b, batches, rate=1.21))
        out += ["\r".join(segments),
                f"Epoch [{e}/{epochs}], Loss: {total / last:.4f}, Time: {30.6 + e / 10:.2f} sec"]
    return [*out, "✅ Model saved as cnn_lstm_video_model.pth"]


@pytest.mark.parametrize(("build", "right"), [
    # other labels and totals: the run's batches at the summary's epoch's end
    pytest.param(lambda: _labelled_bars(2 * 37 + 11, label="Epoch: {e}"), [("AMP006", 111)],
                 id="epoch_colon"),
    pytest.param(lambda: _labelled_bars(3 * 250 + 7, label="epoch: {e}", batches=250,
                                        every=50), [("AMP006", 1000)], id="colon_250"),
    pytest.param(lambda: _labelled_bars(120, label="Epoch {e}", batches=64, epochs=4),
                 [("AMP006", 128)], id="epoch_64"),
    # pasted from the middle (the first epoch's bar and summary left off)
    pytest.param(lambda: _labelled_bars(3 * 40 + 3, batches=40)[2:], [("AMP006", 160)],
                 id="from_the_middle"),
    # a label of how many (``Epoch 3/6``): held here as a guard of the epoch (3) until
    # h56-convention56, whose one convention reads it as the label alone (3 x 37; as
    # test_sample25's AudioLDM and test_evalsplit's TrAISformer fork now are)
    pytest.param(lambda: _labelled_bars(2 * 37 + 11, label="Epoch {e}/{n}"),
                 [("AMP006", 111)], id="of_how_many"),
])
def test_a_bar_labelled_with_its_epoch_ends_the_pass(
        tmp_path: Path, build: object, right: list[tuple[str, int | None]]) -> None:
    """The epoch's summary below a bar at its total labelled ``Epoch N`` alone: the run's
    batches at that epoch's end (before: the epoch, as the summary prints it)."""
    assert callable(build)
    assert [(code, step) for code, step, _ in _read(tmp_path, build())] == right


@pytest.mark.parametrize(("build", "right"), [
    # a bar that does not close (the loop breaks at batch 30 of 37): no pass's end, the
    # summary's epoch as printed
    pytest.param(lambda: _labelled_bars(2 * 37 + 11, stop=30), [("AMP006", 3)],
                 id="never_closes"),
    # a description that is no epoch's label: a pass of its own kind, not read as the epoch's
    pytest.param(lambda: _labelled_bars(2 * 37 + 11, label="Training"), [("AMP006", 3)],
                 id="other_description"),
])
def test_other_bars_leave_the_summary_its_epoch(
        tmp_path: Path, build: object, right: list[tuple[str, int | None]]) -> None:
    """Guards (as on the parent): the summary keeps its epoch."""
    assert callable(build)
    assert [(code, step) for code, step, _ in _read(tmp_path, build())] == right


@pytest.mark.parametrize("build", [
    pytest.param(lambda: _labelled_bars(label="Epoch {e}/{n}", epochs=9), id="of_how_many"),
    pytest.param(lambda: _labelled_bars(label="epoch: {e}", batches=250, every=50),
                 id="colon_250"),
    pytest.param(lambda: _labelled_bars(batches=40, epochs=8)[4:], id="from_the_middle"),
    pytest.param(lambda: _labelled_bars(stop=30), id="never_closes"),
])
def test_labelled_bars_healthy_silent(tmp_path: Path, build: object) -> None:
    """Controls, settings other than the defaults: silent."""
    assert callable(build)
    assert _read(tmp_path, build()) == []
