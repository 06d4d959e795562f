"""A multi-rank log is judged per rank: one rank's zeros or NaNs are not diluted by the healthy
ranks printed between them, and the diagnosis names the rank where the condition began.

The slow tests run two real ranks under torchrun (``ranked_loop.py``, gloo on CPU, torchrun's
own ``--tee`` prefixes). The fast ones write the same kind of log from the format strings:
torchrun's ``[{role}{local_rank}]:`` header (torch/distributed/elastic/multiprocessing/
tail_log.py, role ``default``) or srun -l's ``{rank}: `` in front of a plain loop's ``print``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from run_makers import torchrun_loop

from denpex_callbacks.logs.doctor import diagnose

STEPS, FAULT_STEP = 14, 6


TEE, SRUN = "[default{rank}]:", "{rank}: "


def _tee_line(rank: int, step: int, loss: float, prefix: str = TEE) -> str:
    return prefix.format(rank=rank) + f"step {step} loss {loss} loss_scale 1024.0"


def _two_ranks(rank1_loss: list[float], *, blocks: bool = False,
               prefix: str = TEE) -> list[str]:
    """Rank 0 trains normally; rank 1 prints ``rank1_loss``; lines interleaved step by step
    (or, ``blocks``: rank 1's lines after rank 0's, as a flushed buffer prints them)."""
    rank0 = [_tee_line(0, s, 4.0 / s, prefix) for s in range(1, len(rank1_loss) + 1)]
    rank1 = [_tee_line(1, s, loss, prefix) for s, loss in enumerate(rank1_loss, 1)]
    if blocks:
        return rank0 + rank1
    return [line for pair in zip(rank0, rank1, strict=True) for line in pair]


def _diagnose_lines(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None, int]]:
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    result = diagnose(str(log))
    assert result.error is None, result.error
    return [(d.code, d.step, d.rank) for d in result.faults]


@pytest.mark.parametrize("prefix", [TEE, SRUN])
@pytest.mark.parametrize("blocks", [False, True])
def test_zeros_on_one_rank_are_not_diluted_by_the_healthy_rank(
        tmp_path: Path, blocks: bool, prefix: str) -> None:
    losses = [3.0, 2.5, 2.2, 2.0, 1.9] + [0.0] * 5  # exactly 0 from step 6 on
    assert _diagnose_lines(tmp_path, _two_ranks(losses, blocks=blocks, prefix=prefix)) == [
        ("AMP007", FAULT_STEP, 1)]


def test_zeros_on_one_rank_name_its_first_zero_line(tmp_path: Path) -> None:
    lines = _two_ranks([3.0, 2.5, 2.2, 2.0, 1.9] + [0.0] * 5)
    log = tmp_path / "train.log"
    log.write_text("\n".join(lines) + "\n")
    (found,) = diagnose(str(log)).faults
    assert found.quotes[0] == _tee_line(1, FAULT_STEP, 0.0)
    assert found.evidence["basis"] == "excerpt"


def test_healthy_ranks_at_different_loss_levels_stay_silent(tmp_path: Path) -> None:
    # Rank 1's shard is easier: its loss decays to a printed 0.0 gradually (not abruptly).
    decaying = [0.5 / 4**s for s in range(9)] + [0.0]
    assert _diagnose_lines(tmp_path, _two_ranks(decaying)) == []
    assert _diagnose_lines(tmp_path, _two_ranks(decaying, blocks=True)) == []


def _torchrun(tmp_path: Path, fault: str) -> Path:
    log = tmp_path / f"{fault}.log"
    # --tee 3: each rank's stdout and stderr on the console, prefixed "[default<rank>]:"
    log.write_text(torchrun_loop(fault, FAULT_STEP, STEPS, "--tee", "3"))
    assert "[default1]:step 1 loss" in log.read_text()
    return log


@pytest.mark.slow  # two torchrun launches, ~7 s each on two cores
@pytest.mark.parametrize(("fault", "expected"), [
    ("zero", [("AMP007", FAULT_STEP, 1)]),
    ("nan", [("AMP006", FAULT_STEP, 1)]),
])
def test_a_real_two_rank_run_is_judged_per_rank(
        tmp_path: Path, fault: str, expected: list[tuple[str, int, int]]) -> None:
    result = diagnose(str(_torchrun(tmp_path, fault)))
    assert result.error is None, result.error
    assert [(d.code, d.step, d.rank) for d in result.faults][:1] == expected
    assert all(d.rank == 1 for d in result.faults if d.code in {"AMP006", "AMP007"})
    if fault == "nan":
        assert result.initiating == (1, FAULT_STEP)


@pytest.mark.slow
def test_a_real_healthy_two_rank_run_stays_silent(tmp_path: Path) -> None:
    result = diagnose(str(_torchrun(tmp_path, "none")))
    assert result.error is None and result.faults == []
    assert result.reading.lines == 2 * STEPS
