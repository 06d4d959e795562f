"""An open bar's last state, alone on its line, between an epoch's rows and the next's: the
epoch's length.

A loop that draws ``tqdm(enumerate(loader))`` with no total (tqdm's ``format_meter`` with
``total=None``: ``{n}it [{elapsed}, {rate}it/s]``) and prints its own rows every N batches
(1252187392/diffusion_for_fun ``finetune_lora.py``: ``f'epoch:{epoch}, step:{step},
loss:{...}'`` every 30 steps, the bar left at ``200it [01:11, 2.82it/s]`` as each epoch
ends) shows the epoch's length only in the bar: its rows tell it to within an interval
(180 of 200). The bar holds no keyword; the reader hands it over as the line just above the
next epoch's first row, and the batches it counts are the epoch's.
"""

from __future__ import annotations

import re

# the bar alone: no description, no postfix (a Lightning ``Epoch 0: 1777it [...]`` bar, or
# one with a postfix, numbers its own rows)
_CLOSING = r"\s*(\d{1,9})it \[(?:\d+:)?\d+:\d\d, *\d+(?:\.\d+)?it/s\]\s*"
_CLOSING_TEXT = re.compile(_CLOSING)
_CLOSING_BYTES = re.compile(_CLOSING.encode())


def closes_epoch(line: bytes) -> bool:
    """Whether a line that holds no keyword is an open bar's last state alone (cheap first:
    the reader asks of each line above a keyword line after a gap).

    Example:
        >>> closes_epoch(b"200it [01:11, 2.82it/s]"), closes_epoch(b"Epoch 0: 200it [01:11, 5it/s]")
        (True, False)
        >>> closes_epoch(b"200it [01:11, 2.82it/s, loss=0.1]")
        False
    """
    return line[-3:] == b"/s]" and _CLOSING_BYTES.fullmatch(line) is not None


def closed_length(text: str) -> int:
    """The batches an open bar alone on ``text`` counted (its epoch's length), or 0.

    Example:
        >>> closed_length("200it [01:11, 2.82it/s]"), closed_length("loss: 0.5 [200/300]")
        (200, 0)
    """
    if not text.endswith("/s]"):  # (cheap: most lines)
        return 0
    found = _CLOSING_TEXT.fullmatch(text)
    return int(found.group(1)) if found is not None else 0


# A sized bar's last state with no description and no postfix, at its total: tqdm's bare
# ``{percentage:3.0f}%|{bar}| {n}/{total} [{elapsed}<{remaining}, {rate}it/s]`` (a bare
# ``tqdm(train_loader)``); a file keeps the earlier states before it as ``\r`` segments of the
# same line, so the last segment is matched. Each part one character class. Its description
# may be the epoch's label alone (Arthi-V22/Deep-fake-Detection ``train_video.py``'s
# ``tqdm(train_loader, desc=f"Epoch {epoch+1}")`` over ``f"Epoch [{epoch+1}/{num_epochs}],
# Loss: ..."``): it names the epoch the summary below names, no pass of another kind
# (``Train:``, ``Validation:`` are not read so); an epoch of how many too (``Epoch 4/10:``,
# storyline11_2's AudioLDM in tests/logs/test_sample25_formats.py): the summary below it is
# numbered by the run's batches, as under an epoch heading (tests/logs/test_convention56.py).
_EPOCH_LABEL = r"(?:[Ee]poch:? ?(\d{1,7})(?:/\d{1,7})?:? )?"
_FINISHED = (r"\s*" + _EPOCH_LABEL + r"100%\|[^|\r]{0,200}\| *(\d{1,9})/(\d{1,9}) "
             r"\[[^\]=,\r]{0,40},"
             r"[^\]=,\r]{0,24}/s\]\s*")
_FINISHED_TEXT = re.compile(_FINISHED)
_FINISHED_BYTES = re.compile(_FINISHED.encode())


def finishes_bare_bar(line: bytes) -> bool:
    """Whether a line that holds no keyword ends in a bare sized bar's state at its total
    (cheap first: the reader asks of each line above a keyword line after a gap).

    Example:
        >>> finishes_bare_bar(b"  0%|   | 0/268 [00:00<?, ?it/s]"
        ...                   b"\\r100%|###| 268/268 [01:16<00:00,  3.52it/s]")
        True
        >>> finishes_bare_bar(b"100%|###| 268/268 [01:16<00:00,  3.52it/s, loss=1]")
        False
        >>> finishes_bare_bar(b"Train: 100%|###| 268/268 [01:16<00:00,  3.52it/s]")
        False
        >>> finishes_bare_bar(b"Epoch 3: 100%|###| 37/37 [00:30<00:00,  1.21it/s]")
        True
    """
    if line[-3:] != b"/s]":
        return False
    last = line[line.rfind(b"\r") + 1:]
    found = _FINISHED_BYTES.fullmatch(last)
    return found is not None and found.group(2) == found.group(3)


def finished_total(text: str) -> int:
    """The total of a bare sized bar whose last state on ``text`` reached it (the batches of
    the pass it finished: see :func:`finishes_bare_bar`), or 0.

    Example:
        >>> finished_total("100%|##########| 268/268 [01:16<00:00,  3.52it/s]")
        268
        >>> finished_total(" 50%|#####     | 134/268 [00:38<00:38,  3.52it/s]")
        0
    """
    found = _finished(text)
    return 0 if found is None else int(found.group(2))


def finished_epoch(text: str) -> int | None:
    """The epoch a bare sized bar at its total on ``text`` is labelled with (``Epoch 3:
    100%|...| 37/37 [...]``), or None (no label, or no such bar): the epoch whose summary
    below it the bar's total numbers by the run's batches.

    Example:
        >>> finished_epoch("Epoch 4/10: 100%|##########| 268/268 [01:16<00:00,  3.52it/s]")
        4
        >>> finished_epoch("100%|##########| 268/268 [01:16<00:00,  3.52it/s]") is None
        True
    """
    found = _finished(text)
    return None if found is None or found.group(1) is None else int(found.group(1))


def _finished(text: str) -> re.Match[str] | None:
    """The last state of a bare sized bar at its total on ``text`` (groups: its epoch's
    label, its count, its total), or None."""
    if not text.endswith("/s]"):
        return None
    found = _FINISHED_TEXT.fullmatch(text, text.rfind("\r") + 1)
    return None if found is None or found.group(2) != found.group(3) else found
