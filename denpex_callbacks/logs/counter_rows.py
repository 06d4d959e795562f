"""A split's row that names nothing but the split: its batch counter, then its values.

DARTS' training loop logs ``logging.info('train %03d %e %f %f', step, objs.avg, top1.avg,
top5.avg)`` every ``report_freq`` batches and its evaluation ``'valid %03d %e %f %f'``
(quark0/darts ``cnn/train.py``, ``cnn/train_imagenet.py``), and the many scripts built on it
keep the shape (Aravinda27/Image-classification-using-DARTS-with-Involution
``train_imagenet.py``; AI-Tech-Research-Lab/CNAS ``train_cifar.py``: ``'train %03d %e %f'``
with one accuracy): the split's name, the batch within the epoch (restarting each epoch), the
objective's running mean in ``%e``, then the accuracies in ``%f``. No word names the loss; the
split's name keys the row. A training row is read as ``train Step: N Loss: V ...``, so that
the generic reader numbers it as it numbers any row that counts batches within an epoch
(restarts and all).

A line is one only when, behind a log prefix that holds no lowercase letter (a date, a time,
``AM``/``PM``, a level) but a logger's name beside its level (``INFO:root:``, ``- root - INFO
-``: the standard library's logging formats), it holds the training split's name
(``train``), an integer, a value in ``%e`` (``2.395833e-02``; or ``nan``/``inf`` as Python
prints them, lowercase: pandas' missing ``NaN`` is none) and one to three numbers with a
decimal point, nothing else. The
held-out split's rows are left to the reader as before (their count is the evaluation's own
batch).
"""

from __future__ import annotations

import re

# A logger's name beside its level, the one lowercase piece a logging prefix may hold: the
# standard library's ``BASIC_FORMAT`` ``%(levelname)s:%(name)s:%(message)s`` (``INFO:root:``,
# ``logging.basicConfig()`` with no format) and ``%(asctime)s - %(name)s - %(levelname)s -
# %(message)s`` (`` - root - INFO - ``, the logging cookbook's and pytorch-template's file
# format): a script built on DARTS that logs so prints the same rows behind it
_LOGGER = r"[A-Z]{4,8}:[\w.]{1,40}:| - [\w.]{1,40} - [A-Z]{4,8} - "
# The training split, its counter, the objective in %e (or Python's nan/inf), then the
# accuracies in %f: each piece a bounded class, anchored at both ends (no backtracking
# to speak of).
_ROW = re.compile(
    r"([^a-z=]{0,48}?(?:" + _LOGGER + r")?)"
    r"\btrain[ \t]+(\d{1,9})[ \t]+(\d\.\d{1,12}e[-+]\d{2,3}|-?nan|-?inf)"
    r"((?:[ \t]+-?\d{1,9}\.\d{1,12}){1,3})[ \t]*")


def named_row(text: str) -> tuple[str, bool] | None:
    """The row ``text`` with its counter and its objective named (``train Step: N Loss: V``,
    then its accuracies as ``acc: A``), and whether its objective is finite, where it is a
    bare training row of a split's counter and values (see the module's docstring); else
    None. A non-finite row is the only one of its run that holds a keyword of the prefilter:
    the rows that tell where its epoch began are read on a reading of every line.

    Example:
        >>> named_row("12/07 12:03:49 AM train 150 2.395833e-02 34.738631 51.0")
        ('12/07 12:03:49 AM train Step: 150 Loss: 2.395833e-02 acc: 34.738631 acc5: 51.0', True)
        >>> named_row("2026-12-07 22:15:03,123 train\t2400\tnan\t0.100000")
        ('2026-12-07 22:15:03,123 train Step: 2400 Loss: nan acc: 0.100000', False)
        >>> named_row("INFO:root:train 050 1.5e+00 30.0")
        ('INFO:root:train Step: 050 Loss: 1.5e+00 acc: 30.0', True)
        >>> [named_row(x) for x in ("train 150 0.0239 34.7", "epoch 3 train 150 nan 3.4",
        ...                         "train 150 NaN 34.7", "train 150 2.4e-02")]
        [None, None, None, None]
    """
    found = _ROW.fullmatch(text)
    if found is None:
        return None
    prefix, step, objective, rest = found.groups()
    accuracies = rest.split()
    names = ("acc", "acc5", "acc10")
    shown = " ".join(f"{name}: {value}" for name, value in zip(names, accuracies, strict=False))
    return f"{prefix}train Step: {step} Loss: {objective} {shown}", objective[-1:].isdigit()
