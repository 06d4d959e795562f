"""Tables behind a launcher's rank prefix: a header row and its value rows as torchrun
``--tee`` (``[default0]:``, torch ``distributed/elastic/multiprocessing/tail_log.py``),
mpirun ``--tag-output`` (``[1,0]<stdout>:``, Open MPI ``iof_base_output.c``), srun ``-l``
(``0: ``) and Lightning's ``[rank: 0] `` write them: the prefix is taken off before the cells
are lined up, as the table stands in a plain log.

- fastai's progress table as its ``ProgressCallback`` prints it to a console
  (``fastai/callback/progress.py``: the names, then each epoch's values, ``time`` last);
- YOLOv5's header and each epoch's last bar (``train.py``: ``('\\n' + '%10s' * 7) % ('Epoch',
  'gpu_mem', 'box', 'obj', 'cls', 'labels', 'img_size')``), its healthy rows holding no
  keyword at all.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults

_PREFIXES = ["[default0]:", "[1,0]<stdout>:", "0: ", "[rank: 0] "]


def _fastai(prefix: str, nan_from: int | None = None, epochs: int = 12) -> list[str]:
    rows = ["epoch     train_loss  valid_loss  accuracy  time"]
    for epoch in range(epochs):
        bad = nan_from is not None and epoch >= nan_from
        train, valid = ("nan", "nan") if bad else (f"{1.2 - epoch / 20:.6f}",
                                                  f"{1.0 - epoch / 30:.6f}")
        rows.append(f"{epoch:<9} {train:<11} {valid:<11} {0.5 + epoch / 100:.6f}  00:10")
    return [prefix + row for row in rows]


def _yolov5(prefix: str, nan_from: int | None = None, epochs: int = 12,
            batches: int = 296) -> list[str]:
    out = ["Starting training for 300 epochs..."]
    for epoch in range(epochs):
        out += ["", ("%10s" * 7) % ("Epoch", "gpu_mem", "box", "obj", "cls", "labels",
                                    "img_size")]
        losses = [0.1 * math.exp(-epoch / 50) + 0.02, 0.07, 0.04 * math.exp(-epoch / 30)]
        if nan_from is not None and epoch >= nan_from:
            losses = [math.nan] * 3
        row = ("%10s" * 2 + "%10.4g" * 5) % (f"{epoch}/299", "3.39G", *losses, 204, 640)
        out.append(f"{row}: 100%|##########| {batches}/{batches} [01:23<00:00,  3.55it/s]")
    return [prefix + line for line in out]


@pytest.mark.parametrize("prefix", _PREFIXES)
def test_table_behind_a_rank_prefix(tmp_path: Path, prefix: str) -> None:
    """Before: behind ``[default0]:``, ``[1,0]<stdout>:`` or ``0: `` the header's digits made
    it no header ("nothing to diagnose"), or the NaN row was read alone (step 1). The plain
    table's steps: fastai's epoch column (6), YOLOv5's epoch 7 of 296 batches."""
    assert faults(tmp_path, _fastai(prefix, nan_from=6)) == [("AMP006", 6), ("AMP013", 6)]
    assert faults(tmp_path, _yolov5(prefix, nan_from=7)) == [("AMP006", 7 * 296 + 296)]


@pytest.mark.parametrize("prefix", ["", *_PREFIXES])
def test_ranked_tables_of_healthy_runs(tmp_path: Path, prefix: str) -> None:
    """Healthy runs behind each prefix, longer: read and silent (on the parent, behind a
    prefix: "nothing to diagnose"; the plain table passed there too)."""
    assert faults(tmp_path, _fastai(prefix, epochs=30)) == []
    assert faults(tmp_path, _yolov5(prefix, epochs=20)) == []
