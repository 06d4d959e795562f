"""An excerpt cut out with ``grep -n``: each line opens with its number in the log file
(``1235:``), which reads as srun's ``--label`` rank prefix (``3: ``) where the line itself
opens with a blank, as Megatron-LM's iteration lines do (`` [2024-...] iteration ...``).
Before, each line was a rank of its own (``rank 1235``), and the collapse was split over
them (AMP003 at step 51, not 41). Ranks print from 0 below their line's number in the
excerpt, so srun's labels stay ranks (control).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from denpex_callbacks.logs.doctor import diagnose

CORPUS = Path(__file__).parent / "corpus"


def _found(path: Path) -> list[tuple[str, int | None, int]]:
    return sorted((d.code, d.step, d.rank) for d in diagnose(str(path)).faults)


@pytest.mark.parametrize("name", ["megatron_collapse", "megatron_nan_rank3"])
@pytest.mark.parametrize("numbers", ["whole file", "matches only"])
def test_a_grep_numbered_excerpt_reads_as_the_log(tmp_path: Path, name: str,
                                                  numbers: str) -> None:
    log = CORPUS / f"{name}.log"
    lines = log.read_text().splitlines()
    # ``grep -n '' train.log`` numbers every line; ``grep -n iteration train.log`` only the
    # matches, at their lines in a longer file
    first, every = (1, 1) if numbers == "whole file" else (1200, 7)
    excerpt = tmp_path / "excerpt.log"
    excerpt.write_text("".join(f"{first + every * index}:{line}\n"
                               for index, line in enumerate(lines)))
    assert _found(excerpt) == _found(log)


def test_srun_labels_stay_ranks(tmp_path: Path) -> None:
    """Eight ranks label their lines (``srun -l``), rank 3's loss goes NaN at step 40: the
    fault is rank 3's (control: right before too)."""
    lines = []
    for step in range(10, 60, 10):
        for rank in range(8):
            loss = "nan" if rank == 3 and step >= 40 else f"{2.0 - step / 100:.4f}"
            lines.append(f"{rank}:  step {step} | loss {loss} | lr 1.0e-04")
    log = tmp_path / "srun.log"
    log.write_text("\n".join(lines) + "\n")
    assert _found(log) == [("AMP006", 40, 3)]
