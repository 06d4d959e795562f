"""Review 49c: this morning's 'the overflow may come from another rank' (core/other_rank.py)
attacked with real two-rank CPU runs (gloo, DDP, a CPU GradScaler, AmpMonitor as a user writes
it; tests/ranks/two_rank_worker.py).

Both findings came from the same gap: a rank whose forward-only re-run was finite was read as
finite in everything, though the locator's armed step had found the overflow in that rank's
own backward. So a rank that overflowed itself said 'it may come from another rank: see their
reports', and the doctor treated it as nobody's root (the other rank's collapse, first in the
folder, sent the user to 'look at the other rank').
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from two_rank_worker import train as _train  # noqa: E402 (tests/ranks, on sys.path by conftest)

from denpex_callbacks.core.other_rank import linked_across_ranks, may_be_another_ranks  # noqa: E402
from denpex_callbacks.core.report import read_report_dir  # noqa: E402
from denpex_callbacks.logs.doctor import diagnose  # noqa: E402


@pytest.fixture(scope="module")  # two processes importing torch: about 10 s on two cores
def backward_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Rank 1's gradients overflow in <model>.1's backward from step 12 (forward finite)."""
    return _train(tmp_path_factory.mktemp("backward"), "backward")


@pytest.fixture(scope="module")
def lr_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The learning rate too high on every rank from step 10."""
    return _train(tmp_path_factory.mktemp("lr10"), "lr10")


def test_backward_overflow_on_rank_1_is_the_root_the_doctor_names(
        backward_reports: Path) -> None:
    """Was: the doctor's only AMP003 was rank 0's, fix 'Look at the other rank first', and
    rank 1's located <model>.1 was dropped; rank 1's collapse was linked to nothing."""
    result = diagnose(str(backward_reports))
    collapse = [d for d in result.diagnoses if d.code == "AMP003"]
    assert [(d.rank, d.caused_by) for d in collapse] == [(1, None)]
    assert "<model>.1" in collapse[0].fix
    linked = linked_across_ranks([d for r in read_report_dir(backward_reports)
                                  for d in r.diagnoses if d.code == "AMP003"])
    assert sorted((d.rank, d.caused_by, d.evidence.get("caused_on_rank")) for d in linked) == [
        (0, "AMP003", 1), (1, None, None)]


def test_backward_overflow_rank_1_is_not_sent_to_the_other_rank(backward_reports: Path) -> None:
    """Rank 1's locator found its own gradients inf: its summary does not say 'it may come from
    another rank' (rank 0, finite everywhere, still does)."""
    by_rank = {r.rank: next(d for d in r.diagnoses if d.code == "AMP003")
               for r in read_report_dir(backward_reports)}
    assert not may_be_another_ranks(by_rank[1])
    assert may_be_another_ranks(by_rank[0])


def test_learning_rate_too_high_on_every_rank_is_every_ranks_own(lr_reports: Path) -> None:
    """Was: rank 0's run summary said 'it may come from another rank: see their reports',
    though on both ranks the locator found the overflow in this rank's own backward."""
    collapses = [next(d for d in r.diagnoses if d.code == "AMP003")
                 for r in read_report_dir(lr_reports)]
    assert len(collapses) == 2
    assert not any(may_be_another_ranks(d) for d in collapses)
    assert all("learning rate" in d.fix.lower() for d in collapses)
    result = diagnose(str(lr_reports))
    first = result.diagnoses[0]
    assert (first.code, first.caused_by) == ("AMP003", None)
    assert "learning rate" in first.fix.lower()


def test_one_ranks_report_missing_still_points_at_the_other_rank(
        backward_reports: Path, tmp_path: Path) -> None:
    """A control: rank 1's report gone, rank 0's collapse (finite here) is linked to nothing
    and still sends the user to the other rank."""
    (tmp_path / "rank0.jsonl").write_bytes((backward_reports / "rank0.jsonl").read_bytes())
    result = diagnose(str(tmp_path))
    collapse = next(d for d in result.diagnoses if d.code == "AMP003")
    assert collapse.caused_by is None and "other rank" in collapse.fix


def test_stop_on_two_ranks_stops_both_after_the_same_step(tmp_path: Path) -> None:
    """A control for slim26 (the loop's stop vote now asked at every call, False off "stop"):
    under on_fault="stop" rank 1's NaN stops both ranks after the same step, nobody waits."""
    _train(tmp_path, "stop")
    stopped = [(tmp_path / f"stopped{r}").read_text() for r in (0, 1)]
    assert stopped[0] == stopped[1] and int(stopped[0]) < 29  # (STEPS - 1: not stopped)


def test_nan_on_both_ranks_at_different_steps_lists_both_roots(tmp_path: Path) -> None:
    """Rank 0's data NaN from step 8, rank 1's from step 16: two bad shards, two roots. Was:
    the doctor kept the first diagnosis of each id and severity across ranks, so rank 1's own
    bad batch (AMP006 at 16, located in its inputs; its live monitor linked it to its collapse
    at 8, rank 0's all-reduced) showed only in the per-rank re-run lines."""
    result = diagnose(str(_train(tmp_path, "nan2")))
    assert result.initiating == (0, 8)
    assert [(d.step, d.rank) for d in result.diagnoses if d.code == "AMP006"] == [(8, 0), (16, 1)]
