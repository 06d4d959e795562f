"""The re-run verdict from plain numbers: what the failing step showed, what its re-run gave."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import pytest

from denpex_callbacks.core.diagnosis import Diagnosis, Finding
from denpex_callbacks.core.rerun_verdict import (
    NOT_REPRODUCED,
    NOT_RERUNNABLE,
    REPRODUCED,
    FailingStep,
    RankVerdict,
    RerunOutcome,
    across_ranks,
    judge,
    rank_verdicts,
)

NAN, INF = math.nan, math.inf
LOSS = FailingStep("AMP006", 7, loss=NAN)
GRADS = FailingStep("AMP003", 7, loss=2.5, scale=1024.0)
BOTH = "forward+backward"


@pytest.mark.parametrize(("failing", "outcome", "verdict", "reason"), [
    (LOSS, RerunOutcome(loss=INF), REPRODUCED, "the re-run's loss is inf again"),
    (LOSS, RerunOutcome(loss=0.5), NOT_REPRODUCED,
     "the re-run of step 7 gave a finite loss (0.5); the original was nan"),
    (LOSS, RerunOutcome(outputs_finite=False), REPRODUCED,
     "the model's output is non-finite again"),
    (LOSS, RerunOutcome(outputs_finite=True), NOT_RERUNNABLE,
     "the model's output is finite on re-run, but the loss is computed outside the model and "
     "was not re-run (hand the monitor its loss_fn, or a rerun= closure)"),
    # The output the failing step had (kept on the device) places the fault without the loss.
    (replace(LOSS, output_finite=False), RerunOutcome(outputs_finite=True), NOT_REPRODUCED,
     "the model's output was non-finite in step 7 and is finite on re-run (the loss, computed "
     "outside the model, was not re-run: the output alone differs)"),
    (replace(LOSS, output_finite=True), RerunOutcome(outputs_finite=True), NOT_RERUNNABLE,
     "the model's output was finite in step 7, as on re-run: the loss computation or the "
     "targets made the non-finite loss (the loss is computed outside the model and was not "
     "re-run: hand the monitor its loss_fn to re-run it)"),
    (replace(LOSS, output_finite=True), RerunOutcome(outputs_finite=False), REPRODUCED,
     "the model's output is non-finite again"),
    (GRADS, RerunOutcome(loss=2.5, why_forward_only="no loss"), NOT_RERUNNABLE,
     "the overflow was in the gradients and the re-run covered the forward only (no loss)"),
    (GRADS, RerunOutcome(loss=2.5, grads_finite=False, covers=BOTH), REPRODUCED,
     "the gradients overflow again at loss scale 1024"),
    (GRADS, RerunOutcome(loss=NAN, covers=BOTH), REPRODUCED, "the re-run's loss is nan again"),
    (GRADS, RerunOutcome(loss=2.5, grads_finite=True, covers=BOTH), NOT_REPRODUCED,
     "the re-run of step 7 gave finite gradients at loss scale 1024, same loss bit for bit"),
    (GRADS, RerunOutcome(loss=2.4, grads_finite=True, covers=BOTH), NOT_REPRODUCED,
     "the re-run of step 7 gave finite gradients at loss scale 1024, and the loss differs "
     "(2.4 vs 2.5)"),
    (FailingStep("AMP003", 7, loss=2.5, scale=1024.0, world_size=4),
     RerunOutcome(loss=2.5, grads_finite=True, covers=BOTH), NOT_RERUNNABLE,
     "this rank's own gradients are finite at loss scale 1024, but the step's gradients are "
     "all-reduced over 4 ranks: the overflow may come from another rank (see their verdicts)"),
    (LOSS, RerunOutcome(loss=0.5, partial="only the last micro-batch was kept"), NOT_RERUNNABLE,
     "the re-run of step 7 gave a finite loss (0.5); the original was nan; only the last "
     "micro-batch was kept"),
    (LOSS, RerunOutcome(loss=NAN, partial="only the last micro-batch was kept"), REPRODUCED,
     "the re-run's loss is nan again"),
])
def test_judge(failing, outcome, verdict, reason):
    judged = judge(failing, outcome, rank=3, host="node-9")
    assert (judged.verdict, judged.reason) == (verdict, reason)
    assert judged.evidence()["rerun"] == verdict
    assert judged.evidence()["rerun_detail"]["host"] == "node-9"


def test_a_finite_output_in_the_failing_step_places_the_fault_in_the_loss():
    placed = judge(replace(LOSS, output_finite=True), RerunOutcome(outputs_finite=True))
    assert placed.placed == "loss-computation"
    assert placed.evidence()["rerun_detail"]["placed"] == "loss-computation"
    assert judge(LOSS, RerunOutcome(outputs_finite=True)).placed is None  # output unknown


def test_only_a_step_that_did_not_reproduce_changes_cause_and_fix():
    quiet = judge(LOSS, RerunOutcome(loss=0.5), rank=3, host="node-9")
    assert "rank 3 (host node-9)" in (quiet.root_cause() or "")
    assert "exclude host node-9" in (quiet.fix() or "")
    assert "did NOT reproduce it on rank 3, host node-9" in quiet.summary_clause()
    loud = judge(LOSS, RerunOutcome(loss=NAN), host="node-9")
    assert loud.root_cause() is None and loud.fix() is None
    assert "not the hardware" in loud.summary_clause()


def _report(rank: int, *verdicts: tuple[str, int, str]) -> SimpleNamespace:
    diagnoses = [Diagnosis.from_finding(Finding(code, step, "x", evidence={
        "rerun": verdict, "rerun_reason": "why", "rerun_detail": {"host": f"h{rank}"}}),
        rank=rank) for code, step, verdict in verdicts]
    return SimpleNamespace(rank=rank, diagnoses=diagnoses, header={})


def test_verdicts_per_rank_and_across_ranks():
    reports = [_report(1, ("AMP006", 5, REPRODUCED)), _report(0, ("AMP003", 5, NOT_RERUNNABLE)),
               _report(2)]
    verdicts = rank_verdicts(reports)
    assert verdicts == [RankVerdict(0, "h0", "AMP003", 5, NOT_RERUNNABLE, "why"),
                        RankVerdict(1, "h1", "AMP006", 5, REPRODUCED, "why")]
    assert across_ranks(verdicts, [0, 1, 2]) == (
        "reproduced on rank 1; not re-runnable on rank 0; no re-run on rank 2")
    assert across_ranks(verdicts[:1], [0]) is None  # one rank: its line says it all
    assert rank_verdicts([_report(0)]) == []
