"""Known misreadings, part 2 (issue #27): each excerpt built from the tool's own format
strings, the doctor's ids and steps asserted, and healthy controls in non-default settings."""

from __future__ import annotations

import re
from pathlib import Path

from excerpts import faults
from test_trainers_formats import _composer

NAN = float("nan")


def _collapsed(lines: list[str]) -> list[str]:
    """Lines as a chat tool shows them: a tab as blanks, a run of blanks as one."""
    return [re.sub(r" {2,}", " ", line.replace("\t", "    ")) for line in lines]


def test_collapsed_composer_records_by_epoch(tmp_path: Path) -> None:
    """Composer's records (mosaicml/composer ``composer/loggers/console_logger.py``, the
    ``\\t Train {name}: {value}`` rows under ``[epoch=2][batch=5/32]:``) collapsed by a chat
    tool: the rows are still read as their record's (the NaN at batch 130 of 32-batch epochs is
    the record's own batch count, not the row count), and a healthy run stays silent."""
    losses = [7.5 - i / 10 for i in range(30)]
    sick = _composer([NAN if i >= 12 else loss for i, loss in enumerate(losses)], 10,
                     epoch_length=40, eval_every=40)
    assert faults(tmp_path, _collapsed(sick))[:1] == [("AMP006", 130)]
    healthy = _composer(losses, 10, epoch_length=40, eval_every=40, eval_loss=3.25)
    assert faults(tmp_path, _collapsed(healthy)) == []
