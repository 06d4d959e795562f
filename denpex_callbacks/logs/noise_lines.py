"""Lines that other sources interleave between a training loop's own lines.

A training process shares its terminal with others: Python's warnings (``warnings.py``
``formatwarning``: ``/path/x.py:12: UserWarning: ...`` over the source line, indented two
spaces: ``  warnings.warn(``), c10's warnings (``[W reducer.cpp:1300] Warning: ...``), the
Hugging Face ``Trainer._save``'s ``Saving model checkpoint to ...``, wandb's terminal output
(``wandb: Syncing run ...``), NCCL's ``host:pid:tid [0] NCCL INFO ...``. Such a line, between
an evaluation's heading and its values or a split's name and its table, is no line of the
loop's: the heading still heads what comes right below it, past the interleaved line.

Only lines already handed to the metric reader are asked (candidates, or lines within a
table's reach): a line that holds no keyword is never handed over, and counts as one between
(see :meth:`~denpex_callbacks.logs.metric_reader.MetricReader.right_below`).
"""

from __future__ import annotations

import re

# Lines interleaved between a heading and what it heads, at most (a Python warning's two).
NOISE_BETWEEN = 2

# The openings of interleaved lines: the source line that ``formatwarning`` prints below a
# warning, c10's ``[W file.cpp:N]`` (``[W1207 01:02:03.456 ...]`` in torch 2.4 on), HF's
# checkpoint saver
_OPENINGS = ("  warnings.warn(", "[W ", "Saving model checkpoint to ")
# formatwarning's first line: ``{filename}:{lineno}: {category}: {message}``; NCCL's and
# gloo's info lines; c10's warning stamped with its date (``[W1207 ...]``)
_SHAPES = re.compile(r"\S+\.py:\d+: \w*Warning: |\S+:\d+:\d+ \[\d+\] NCCL (?:INFO|WARN) |"
                     r"\[W\d{4} ")


def is_noise(text: str) -> bool:
    """Whether a line is one that another source interleaved (see the module's docstring).
    wandb's terminal lines count; not its run summary's rows (``wandb:       loss nan``: its
    keys padded with spaces), which are the run's metrics.

    Example:
        >>> [is_noise(x) for x in ("wandb: Syncing run vivid-sun-12", "wandb:   loss nan",
        ...  "/x/y.py:12: UserWarning: Detected call", "  warnings.warn(", "loss: nan")]
        [True, False, True, True, False]
    """
    if text.startswith("wandb: "):
        return text[7:8] not in (" ", "")
    return text.startswith(_OPENINGS) or (
        ": " in text and _SHAPES.match(text) is not None)



def warning_line(text: str) -> bool:
    """Whether a line is ``formatwarning``'s first (its file's path and line number, not a
    metric: ``.../torch/nn/modules/loss.py:535: UserWarning: ...`` holds no loss of 535).

    Example:
        >>> warning_line("/t/loss.py:535: UserWarning: Using a target size"), warning_line(
        ...     "loss.py:535: loss 3.2")
        (True, False)
    """
    found = _SHAPES.match(text)
    return found is not None and found.group(0).endswith("Warning: ")


def all_noise(lines: list[str]) -> bool:
    """Whether each of consecutive lines is another source's: ``is_noise``, or the source
    line that ``formatwarning`` prints below a warning's first line, whatever it holds
    (``  return F.mse_loss(input, target, ...)`` below torch's size warning names a loss).

    Example:
        >>> all_noise(["/t/loss.py:535: UserWarning: Using a target size",
        ...            "  return F.mse_loss(input, target, reduction=self.reduction)"])
        True
        >>> all_noise(["  return F.mse_loss(input, target, reduction=self.reduction)"])
        False
    """
    return all(is_noise(text) or (index and text[:2] == "  " and _SHAPES.match(lines[index - 1])
                                  is not None)
               for index, text in enumerate(lines))


# what every line of a shape above holds (the scanner's test before decoding)
_MARKS = (b"arning", b"wandb: ", b"Saving model checkpoint to ", b" NCCL ")


def noise_bytes(line: bytes) -> bool:
    """``is_noise`` of a line the scanner has as bytes (one without a keyword: looked at only
    where it lies between a candidate and the line above it).

    Example:
        >>> noise_bytes(b"[W reducer.cpp:1300] Warning: find_unused_parameters=True")
        True
        >>> noise_bytes(b"  3/100 [00:01<00:30, step=3]")
        False
    """
    return any(mark in line for mark in _MARKS) and is_noise(line.decode("utf-8", "replace"))
