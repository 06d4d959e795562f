"""Untried tools, group three: excerpts written from each tool's own format strings (each
names its source), a fault beside healthy controls with non-default settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
DDSP's absl ``Step:%d Loss:%.2f`` (magenta/ddsp ``ddsp/training/train_util.py``), Magenta's
``LoggingTensorHook`` line and ``Model diverged with loss = NaN.`` (magenta/magenta
``magenta/models/shared/events_rnn_train.py``), EasyOCR's ``[i/N] Train loss: ..., Valid loss:
...`` and its CRAFT trainer's ``training_step: i|N, ..., training_loss: ...`` (JaidedAI/EasyOCR
``trainer/train.py``, ``trainer/craft/train.py``), docTR's ``Epoch e/N - Training loss: ... |
LR: ...`` (mindee/doctr ``references/recognition/train_pytorch.py``), Stanza's tagger, parser,
lemmatizer and MWT lines (stanfordnlp/stanza ``Finished STEP {}/{}, loss = {:.6f} ...`` and
``{}: step {}/{} (epoch {}/{}), loss = ...``).

Missed before: Stanza's constituency parser, which prints no step and no loss a batch: each
epoch ends with a multi-line summary, ``Epoch 5 finished`` over ``  Total loss for epoch:
...``, and a NaN batch is left out of the update with ``Had to ignore {n} batches with NaN``
said before that summary (stanfordnlp/stanza ``stanza/models/constituency/parser_training.py``
``iterate_training``, ``train_model_one_batch``; its logger's format, ``%(asctime)s
%(levelname)s: %(message)s``, from ``stanza/__init__.py``); and its sentiment classifier's
``[%d, %5d] average loss: %.3f`` (the PyTorch tutorial's bracket, epoch and count) behind that
logger's prefix (stanza/models/classifier.py ``train_model``).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults


def _stanza_line(message: str, level: str = "INFO") -> list[str]:
    """One record of Stanza's logger (``stanza/__init__.py``: ``%(asctime)s %(levelname)s:
    %(message)s``, ``%Y-%m-%d %H:%M:%S``), a multi-line message on lines of their own."""
    return f"2024-06-01 10:00:00 {level}: {message}".split("\n")


def _constituency(nan_from: int | None = None, epochs: int = 12, batches: int = 500,
                  scale: float = 150000.0, silver: bool = False) -> list[str]:
    """``iterate_training``'s lines each epoch: ``Starting epoch %d``, the dev pass, ``New
    best dev score``, the NaN batches ignored (every batch's from epoch ``nan_from``: the
    epoch's loss is then 0.0, as a NaN batch adds 0.0), the transitions and the summary."""
    lines = _stanza_line("Building CrossEntropyLoss(sum)")
    best, best_epoch = 0.0, 0
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        loss = 0.0 if bad else scale / epoch
        f1 = 0.0 if bad else 0.80 + epoch / 100
        lines += _stanza_line(f"Starting epoch {epoch}")
        if silver:
            lines += _stanza_line("Setting bert_model finetuning rate from 0.000000 to "
                                  "0.000045")
        lines += _stanza_line("Processing 1700 trees from data/constituency/en_wsj_dev.mrg")
        if f1 > best or (best_epoch == 0 and best == 0.0):
            lines += _stanza_line(f"New best dev score: {f1:.5f} > {best:.5f}")
            best, best_epoch = f1, epoch
        if bad:
            lines += _stanza_line(f"Had to ignore {batches} batches with NaN", "WARNING")
        lines += _stanza_line("Transitions correct: 900000\n  Shift: 500000\n"
                              "  CloseConstituent: 400000")
        lines += _stanza_line("Transitions incorrect: 20000\n  Shift, CloseConstituent: 20000")
        stats = [f"Epoch {epoch} finished", "Transitions correct:   900000",
                 "Transitions incorrect: 20000", f"Total loss for epoch: {loss:.5f}",
                 f"Dev score      ({epoch:5d}): {f1:8f}",
                 f"Best dev score ({best_epoch:5d}): {best:8f}"]
        lines += _stanza_line("\n  ".join(stats))
    return lines


def test_stanza_constituency_nan_batches(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" (``Total loss for epoch`` named no loss, the ignored NaN
    batches were no known message); with the loss read, the summary rows were counted one a
    row and the NaN epoch's went unnoticed (``AMP007`` only). Now the NaN batches are the
    epoch's NaN loss, at the epoch its ``Epoch 5 finished`` summary names; the epoch's loss of
    exactly 0 (every batch left out) follows from it."""
    assert faults(tmp_path, _constituency(5)) == [("AMP006", 5), ("AMP007", 5)]
    assert faults(tmp_path, _constituency(9, epochs=20, batches=12, scale=3.5)) == [
        ("AMP006", 9), ("AMP007", 9)]


def _constituency_2021(nan_from: int | None = None, epochs: int = 10) -> list[str]:
    """The first release's summary (stanza/models/constituency/trainer.py, 2021: ``"Epoch {}
    finished\nTransitions correct: {}  Transitions incorrect: {}\n  Total loss for epoch: {}\n
    Dev score: {}\n  Best dev score: {}".format(...)``): no NaN batch left out then, the
    epoch's loss printed as it is."""
    lines: list[str] = []
    best = 0.0
    for epoch in range(1, epochs + 1):
        bad = nan_from is not None and epoch >= nan_from
        loss, f1 = (float("nan"), 0.0) if bad else (123456.789 / epoch, 0.8 + epoch / 100)
        lines += _stanza_line("Processing 1700 dev trees")
        if f1 > best:
            lines += _stanza_line(f"New best dev score: {f1} > {best}")
            best = f1
        lines += _stanza_line(f"Epoch {epoch} finished\nTransitions correct: 900000  "
                              f"Transitions incorrect: 20000\n  Total loss for epoch: {loss}\n"
                              f"  Dev score: {f1}\n  Best dev score: {best}")
    return lines


def test_stanza_constituency_2021_summary(tmp_path: Path) -> None:
    """Before: "nothing to diagnose" (``Total loss for epoch`` named no loss)."""
    assert faults(tmp_path, _constituency_2021(4)) == [("AMP006", 4)]
    assert faults(tmp_path, _constituency_2021()) == []


def test_epoch_done_after_its_rows(tmp_path: Path) -> None:
    """A loop's ``Epoch 5 done`` after the epoch's row heads no row below it but its own
    indented summary's: the next row is the next epoch's (passes on the parent too)."""
    lines = []
    for epoch in range(1, 9):
        loss = "nan" if epoch >= 5 else f"{1.0 / epoch:.4f}"
        lines += [f"2024-06-01 10:00:00 INFO: train_loss: {loss}",
                  f"2024-06-01 10:00:00 INFO: Epoch {epoch} done"]
    assert faults(tmp_path, lines) == [("AMP006", 5)]


def test_stanza_constituency_controls(tmp_path: Path) -> None:
    """Healthy runs, the default summed loss and a small one, a BERT finetuning rate line
    each epoch (on the parent: "nothing to diagnose", an error, not a finding)."""
    for lines in (_constituency(), _constituency(epochs=30, scale=2.5, silver=True)):
        assert faults(tmp_path, lines) == []


def _classifier(nan_at: tuple[int, int] | None = None, epochs: int = 5,
                items: int = 20000) -> list[str]:
    """``train_model``'s ``'[%d, %5d] average loss: %.3f' % (epoch + 1, (batch_num + 1) *
    args.batch_size, running_loss / 2000)`` every 2000 items, then ``Finished epoch %d.  Dev
    set: %d correct of %d examples.  Accuracy: %f  Total loss: %f``; NaN from ``nan_at``
    (epoch, items) on."""
    lines: list[str] = []
    for epoch in range(1, epochs + 1):
        total, bad = 0.0, False
        for done in range(2000, items + 1, 2000):
            bad = bad or (nan_at is not None and (epoch, done) >= nan_at)
            loss = float("nan") if bad else 0.7 - epoch * 0.05
            total += loss * 2000
            lines += _stanza_line(f"[{epoch}, {done:5d}] average loss: {loss:.3f}")
        correct = 0 if bad else 800
        lines += _stanza_line(f"Finished epoch {epoch}.  Dev set: {correct} correct of 1100 "
                              f"examples.  Accuracy: {correct / 1100:f}  Total loss: {total:f}")
    return lines


def test_stanza_classifier_bracket_behind_logger(tmp_path: Path) -> None:
    """Before: the bracket was read only where it opens the line or follows ``basicConfig``'s
    ``INFO:root:``; behind Stanza's ``... INFO: `` the rows were counted one a line (step 26,
    the summaries counted too). Now it is the epoch and the count of that epoch, as without
    the prefix: epoch 3's count 8000 after two epochs of 20000 (the count is Stanza's items,
    the units the log prints)."""
    assert faults(tmp_path, _classifier((3, 8000))) == [("AMP006", 48000)]


def test_stanza_classifier_controls(tmp_path: Path) -> None:
    """Healthy runs, a short epoch among them (pass on the parent too)."""
    for lines in (_classifier(), _classifier(epochs=12, items=6000)):
        assert faults(tmp_path, lines) == []
