"""An epoch heading that prints this run's count of epochs, then the loop's epoch of how many
in parentheses: which epoch the bar and the summary below it are.

PointNet++'s PyTorch trainers (yanx27/Pointnet_Pointnet2_pytorch ``train_classification.py``,
``train_partseg.py``, ``train_semseg.py``) and the many loops copied from them (Bobby645/
Noise2Score3D ``train_denoise.py``) head each epoch with ``log_string('Epoch %d (%d/%s):' %
(global_epoch + 1, epoch + 1, args.epoch))``, then draw a bare ``tqdm(enumerate(loader),
total=len(loader))`` bar and print the epoch's mean (``Train Instance Accuracy: ...``,
``Train Instance Loss: ...``). The first number counts this run's epochs (from 1 again after a
resume); the one in parentheses is the loop's epoch, which goes on from the checkpoint's: the
epoch is that one. The heading was not read as one (its parentheses end no known heading), so
the rows below were counted.

PointNet++'s semantic segmentation frames the same heading in stars (``train_semseg.py``:
``'**** Epoch %d (%d/%s) ****'``).

Rule: a line that ends in ``Epoch``, a number, and in parentheses a number ``/`` a number,
then a colon, or the same between two runs of marks (``*``, ``=``, ``-``, ``#``), the first
number not above the parenthesised one, is the heading of the parenthesised epoch; it is read
as ``Epoch E`` (E that epoch), what stands before it (a logging prefix) kept. A line with
anything after it, or without the colon or the marks (``Epoch 2 (100/200)``: a batch's
progress, perhaps), is no such heading. The reader hands the bare bar at its
total between such a heading and the row below it over with the heading: the row's step is
then the run's batches (the bar's total times the epochs to the heading's), as below a bare
bar with no heading, and as under every epoch heading the reader finds over such a bar
(reader._bar_under: one convention, tests/logs/test_convention56.py).
"""

from __future__ import annotations

import re

# (the reader's tail of an epoch line: after ``poch``, see reader._EPOCH_END)
COUNTED_TAIL = rb":? +\d{1,7} +\(\d{1,7}/\d{1,7}\)(?::| +[-=*#]{2,})"
_HEADING = re.compile(r"[Ee]poch:? +(\d{1,7}) +\((\d{1,7})/\d{1,7}\)(?::| +[-=*#]{2,})\s*")
_MARKS = "-=*#"
_COUNTED_LINE = re.compile(rb"(?:poch|POCH)" + COUNTED_TAIL + rb" *\r?")


def counted_heading(line: bytes) -> bool:
    """Whether a line (an epoch line the reader found) ends in such a heading.

    Example:
        >>> counted_heading(b"Epoch 4 (4/8):"), counted_heading(b"Epoch 4/8")
        (True, False)
    """
    at = max(line.rfind(b"poch"), line.rfind(b"POCH"))
    return at >= 0 and _COUNTED_LINE.fullmatch(line, at) is not None


def loop_epoch(text: str) -> str | None:
    """``text`` with its heading as the plain heading of the epoch its parentheses name (what
    stands before the heading kept, a framing rule dropped), or None where it ends in no such
    heading (cheap first: most lines hold no ``(`` after their last ``poch``).

    Example:
        >>> loop_epoch("Epoch 1 (31/200):")
        'Epoch 31'
        >>> loop_epoch("Epoch 4 (4/8):"), loop_epoch("**** Epoch 2 (7/32) ****")
        ('Epoch 4', 'Epoch 7')
        >>> loop_epoch("Epoch 2 (100/200)"), loop_epoch("Epoch 9 (3/8):")
        (None, None)
        >>> loop_epoch("2026-03-02 11:00:00,000 - Model - INFO - Epoch 1 (13/40):")
        '2026-03-02 11:00:00,000 - Model - INFO - Epoch 13'
        >>> loop_epoch("Epoch 4 (loss 0.5/8):"), loop_epoch("Epoch 4 (4/8): loss 0.5")
        (None, None)
    """
    at = text.rfind("poch ") - 1
    if at < 0 or "(" not in text[at:]:
        return None
    found = _HEADING.fullmatch(text, at)
    if found is None or int(found.group(1)) > int(found.group(2)):
        return None  # (this run's count is never past the loop's epoch)
    before = text[:at].rstrip(" ")
    if before.endswith(("--", "==", "**", "##")):
        before = before.rstrip(_MARKS).rstrip(" ")  # (the rule that frames it)
    return f"{before} Epoch {found.group(2)}" if before else f"Epoch {found.group(2)}"
