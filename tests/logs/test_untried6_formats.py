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
%(levelname)s: %(message)s``, from ``stanza/__init__.py``).
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
            lines += _stanza_line("New best dev score: %.5f > %.5f" % (f1, best))
            best, best_epoch = f1, epoch
        if bad:
            lines += _stanza_line("Had to ignore %d batches with NaN" % batches, "WARNING")
        lines += _stanza_line("Transitions correct: %d\n  Shift: %d\n  CloseConstituent: %d"
                              % (900000, 500000, 400000))
        lines += _stanza_line("Transitions incorrect: %d\n  Shift, CloseConstituent: %d"
                              % (20000, 20000))
        stats = ["Epoch %d finished" % epoch, "Transitions correct:   %d" % 900000,
                 "Transitions incorrect: %d" % 20000, "Total loss for epoch: %.5f" % loss,
                 "Dev score      (%5d): %8f" % (epoch, f1),
                 "Best dev score (%5d): %8f" % (best_epoch, best)]
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


def test_stanza_constituency_controls(tmp_path: Path) -> None:
    """Healthy runs, the default summed loss and a small one, a BERT finetuning rate line
    each epoch (on the parent: "nothing to diagnose", an error, not a finding)."""
    for lines in (_constituency(), _constituency(epochs=30, scale=2.5, silver=True)):
        assert faults(tmp_path, lines) == []
