"""An overflow that may come from another rank: the rank's own verdict (plain numbers), and the
doctor's link between several ranks' diagnoses (core/other_rank.py)."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.ordering import order
from denpex_callbacks.core.other_rank import (
    linked_across_ranks,
    may_be_another_ranks,
    other_ranks_bad_batches,
)
from denpex_callbacks.core.rerun_verdict import (
    NOT_RERUNNABLE,
    FailingStep,
    RerunOutcome,
    judge,
)
from denpex_callbacks.core.sinks import LogSink

RANKS = FailingStep("AMP003", 12, loss=2.5, scale=4096.0, world_size=2)
ONE_RANK = FailingStep("AMP003", 12, loss=2.5, scale=4096.0)


def _d(code: str, step: int, rank: int, **evidence: object) -> Diagnosis:
    return Diagnosis.from_finding(Finding(code, step, "x", evidence=dict(evidence)), rank=rank)


@pytest.mark.parametrize("outcome", [
    RerunOutcome(loss=2.5, why_forward_only="no loss to differentiate"),  # a forward-only re-run
    RerunOutcome(outputs_finite=True, why_forward_only="no loss to differentiate"),
    RerunOutcome(loss=2.5, grads_finite=True, covers="forward+backward"),
])
def test_a_rank_whose_own_values_are_finite_points_at_the_other_ranks(outcome):
    verdict = judge(RANKS, outcome, host="node-1")
    assert verdict.verdict == NOT_RERUNNABLE and "another rank" in verdict.reason
    assert verdict.evidence()["rerun_detail"]["reduced_over"] == 2
    assert "denpex diagnose" in (verdict.fix() or "")
    assert "learning rate" not in (verdict.fix() or "").lower()
    assert "all-reduced over 2 ranks" in (verdict.root_cause() or "")


@pytest.mark.parametrize(("failing", "outcome"), [
    (ONE_RANK, RerunOutcome(loss=2.5, why_forward_only="no loss")),  # one rank: as before
    (RANKS, RerunOutcome(why_forward_only="no loss")),  # nothing of its own known finite
    (RANKS, RerunOutcome(loss=2.5, grads_finite=False, covers="forward+backward")),
    (RANKS, RerunOutcome(outputs_finite=False)),  # its own forward overflows: its own fault
])
def test_a_rank_without_finite_values_of_its_own_keeps_its_fix(failing, outcome):
    verdict = judge(failing, outcome, host="node-1")
    assert "another rank" not in verdict.reason
    assert verdict.fix() is None or "denpex diagnose" not in verdict.fix()
    assert "reduced_over" not in verdict.evidence()["rerun_detail"]


def test_a_collapse_after_another_ranks_nan_is_its_consequence():
    nan, skips = _d("AMP006", 12, 1), _d("AMP003", 12, 0)
    linked = order(linked_across_ranks([skips, nan, _d("AMP003", 12, 1)]))
    assert (linked[0].code, linked[0].rank) == ("AMP006", 1)
    collapse = next(d for d in linked if (d.code, d.rank) == ("AMP003", 0))
    assert collapse.caused_by == "AMP006" and collapse.evidence["caused_on_rank"] == 1
    # A collapse whose re-run reproduced on its rank spreads too; a later one follows it.
    own = _d("AMP003", 5, 1, rerun="reproduced")
    [later] = [d for d in linked_across_ranks([own, _d("AMP003", 7, 0)]) if d.rank == 0]
    assert later.caused_by == "AMP003" and later.evidence["caused_on_rank"] == 1


@pytest.mark.parametrize("diagnoses", [
    [_d("AMP003", 12, 0), _d("AMP003", 12, 1)],  # every rank overflows (a high LR): roots
    [_d("AMP003", 12, 0, rerun="not-rerunnable"), _d("AMP003", 12, 1, rerun="not-rerunnable")],
    [_d("AMP003", 5, 0), _d("AMP006", 12, 1)],  # the collapse began first
    [_d("AMP003", 12, 0, rerun="reproduced"), _d("AMP006", 12, 1)],  # its own overflow too
    [_d("AMP006", 12, 0), _d("AMP003", 12, 0)],  # one rank: its ledger links them, not this
])
def test_a_collapse_with_no_earlier_root_on_another_rank_stays_a_root(diagnoses):
    assert linked_across_ranks(diagnoses) == diagnoses


def test_the_summary_says_the_primary_may_come_from_another_rank(caplog):
    sink = LogSink(logging.getLogger("denpex_test_other_rank"))
    elsewhere = _d("AMP003", 12, 0, rerun_detail={"reduced_over": 2})
    with caplog.at_level(logging.WARNING, logger="denpex_test_other_rank"):
        sink.summary(0, elsewhere, [])
        sink.summary(0, _d("AMP003", 12, 0, rerun_detail={"covers": "forward"}), [])
    lines = [r.getMessage() for r in caplog.records]
    assert "it may come from another rank" in lines[0]
    assert "another rank" not in lines[1]
    assert may_be_another_ranks(_d("AMP003", 12, 0, origin={"verdict": "other-rank"}))


def _nan(step: int, rank: int, verdict: str, caused_by: str | None = None) -> Diagnosis:
    nan = _d("AMP006", step, rank, origin={"verdict": verdict})
    return nan if caused_by is None else replace(nan, caused_by=caused_by)


def test_each_ranks_own_bad_batch_at_its_own_step_is_a_root() -> None:
    """Rank 1's NaN input at 16, which its live monitor linked to its earlier collapse (rank
    0's NaN at 8, all-reduced), is kept beside rank 0's, as a root."""
    first, second = _nan(8, 0, "input-data"), _nan(16, 1, "input-data", caused_by="AMP003")
    merged = other_ranks_bad_batches([first], [first, second])
    assert [(d.step, d.rank, d.caused_by) for d in merged] == [(8, 0, None), (16, 1, None)]


@pytest.mark.parametrize("second", [
    _nan(9, 1, "nonfinite-weights"),  # the weights rank 0's NaN poisoned: merged
    _nan(8, 1, "input-data"),  # the same step: one NaN loss to show
    _nan(16, 0, "input-data"),  # the same rank: its first is shown
])
def test_other_nan_losses_stay_merged(second: Diagnosis) -> None:
    first = _nan(8, 0, "input-data")
    assert other_ranks_bad_batches([first], [first, second]) == [first]
