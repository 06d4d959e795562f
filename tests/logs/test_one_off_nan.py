"""A non-finite loss that the log, read to its end, shows to be a one-off: the run's only
one, finite losses after it. A NaN update would have made every later loss NaN, so the model
was not broken and that step's batch held or produced the bad values: the root cause says
so (``cause: bad-data``), where before it was the catalog's list of every possible cause.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import diagnose_lines


def _loop(bad: set[int]) -> list[str]:
    """A loop's ``print(f"epoch {e} step {s} loss {loss:.4f}")`` every 10 steps."""
    return [f"epoch 1 step {s} loss {'nan' if s in bad else f'{2.3 - s / 1e4:.4f}'}"
            for s in range(10, 3000, 10)]


def _nanogpt(bad: set[int]) -> list[str]:
    """nanoGPT's ``iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu ...``: its
    quiet lines are counted in runs, not read one by one."""
    return [f"iter {s}: loss {'nan' if s in bad else f'{2.3 - s / 1e4:.4f}'}, time 123.45ms, "
            "mfu 30.12%" for s in range(0, 3000)]


def test_one_non_finite_loss_among_finite_ones(tmp_path: Path) -> None:
    """Before: ``persistent=True`` and the catalog's root cause (bad data, divergence, log of
    zero, activation overflow: "the evidence says which"). Two one-offs far apart are two."""
    for lines, steps in ((_loop({1500}), [1500]), (_nanogpt({1500}), [1500]),
                         (_loop({1500, 2500}), [1500, 2500])):
        faults = diagnose_lines(tmp_path, lines).faults
        assert [(f.code, f.step) for f in faults] == [("AMP006", s) for s in steps]
        for fault, step in zip(faults, steps, strict=True):
            assert fault.evidence["cause"] == "bad-data"
            assert fault.evidence["persistent"] is False
            assert "one-off" in (fault.root_cause or "")
            assert f"step {step}" in (fault.fix or "")


def test_what_is_no_one_off_keeps_its_cause(tmp_path: Path) -> None:
    """Controls (as before): two non-finite losses close together, a NaN that persists to the
    end, and one with too few losses after it to tell are not called a one-off."""
    for bad in ({1500, 1520}, set(range(1500, 3000)), {2960}):
        [fault] = diagnose_lines(tmp_path, _loop(bad)).faults
        assert fault.code == "AMP006"
        assert fault.evidence.get("cause") != "bad-data", bad
        assert "finite_losses_after" not in fault.evidence
