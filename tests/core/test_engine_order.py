"""Issue 26, the engine's part: the policy acts after locating (``Monitor.act``), the located
origin is a field of the diagnosis (not prose parsed back), the run report gets its summary
after an internal error, and a misplaced monitor call is never called a scaler fault."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from streams import scaler_stream

from denpex_callbacks import (
    AmpDiagnosisError,
    Diagnosis,
    Finding,
    Monitor,
    MonitorConfig,
    Observation,
    RunSetup,
    Severity,
    read_report,
)

FP16 = RunSetup(active_precision="fp16-mixed", scaler="dynamic")
NAN = float("nan")
LOCATED = "located at step 21: body.0 (Linear) overflowed fp16 (max |output| = inf)"


def started(**config: object) -> Monitor:
    m = Monitor(MonitorConfig(report_dir=None, **config))  # type: ignore[arg-type]
    m.start(FP16)
    return m


# -- the policy acts when told, on the diagnosis as amended ------------------------------------

@pytest.mark.parametrize("policy", ["stop", "raise"])
def test_observe_and_flag_never_act(policy: str) -> None:
    m = started(on_fault=policy)
    found = m.observe(Observation(3, loss=NAN))  # no scaler skipped it: an error at once
    found += m.flag(Finding("AMP002", 4, "scaler.step() twice", severity=Severity.ERROR))
    assert [d.code for d in found] == ["AMP006", "AMP002"]
    assert not m.stop_requested  # nothing acted yet: the adapter locates first


def test_raise_carries_the_located_origin() -> None:
    m = started(on_fault="raise")
    for obs in scaler_stream([], 20):
        m.act(m.observe(obs))
    found = m.observe(Observation(20, scale_before=65536.0, scale_after=32768.0, loss=NAN))
    found += m.observe(Observation(21, scale_before=32768.0, scale_after=16384.0, loss=NAN))
    warning, escalated = found  # the absorbed NaN, then the same diagnosis escalated
    assert (warning.severity, escalated.severity) == (Severity.WARNING, Severity.ERROR)
    assert escalated.located is None
    m.amend("AMP006", step=20, located=LOCATED, root_cause="the located cause")
    with pytest.raises(AmpDiagnosisError) as raised:
        m.act(found)
    assert raised.value.diagnosis.located == LOCATED
    assert raised.value.diagnosis.root_cause == "the located cause"
    assert LOCATED in str(raised.value)  # the message people read carries it too


def test_stop_is_marked_by_act_and_warnings_wait_for_their_threshold() -> None:
    m = started(on_fault="stop")
    found = m.observe(Observation(0, scale_before=8.0, scale_after=4.0, loss=NAN))
    assert [(d.code, d.severity.value) for d in found] == [("AMP006", "warning")]
    m.act(found)
    assert not m.stop_requested  # an absorbed NaN is a warning: never acted on by default
    m.act(m.observe(Observation(1, scale_before=4.0, scale_after=2.0, loss=NAN)))
    assert m.stop_requested


def test_a_lint_at_start_is_acted_on_through_act() -> None:
    m = Monitor(MonitorConfig(report_dir=None, on_fault="raise"))
    linted = m.start(RunSetup(active_precision="fp16-mixed", fp16_parameters=True,
                              scaler="dynamic"))
    errors = [d for d in linted if d.severity is Severity.ERROR]
    assert errors, [d.code for d in linted]
    with pytest.raises(AmpDiagnosisError):
        m.act(linted)


def test_a_monitor_started_by_its_first_step_returns_the_lints_with_it() -> None:
    m = Monitor(MonitorConfig(report_dir=None))
    m.setup = RunSetup(active_precision="fp16-pure")  # fp16 without a scaler: AMP001
    found = m.observe(Observation(0, loss=1.0))
    assert "AMP001" in [d.code for d in found]


# -- the located origin is structured evidence ---------------------------------------------------

def test_amend_sets_the_located_clause_and_an_escalation_keeps_it() -> None:
    m = started()
    [warning] = m.observe(Observation(20, scale_before=8.0, scale_after=4.0, loss=NAN))
    amended = m.amend("AMP006", step=20, located=LOCATED,
                      evidence={"origin": {"verdict": "activation-overflow"}},
                      fix="Keep body.0 in fp32")
    assert amended is not None and amended.located == LOCATED
    assert amended.summary == f"{warning.summary}; {LOCATED}"
    [escalated] = m.observe(Observation(21, scale_before=4.0, scale_after=2.0, loss=NAN))
    assert escalated.severity is Severity.ERROR
    assert escalated.located == LOCATED and escalated.summary.endswith(f"; {LOCATED}")
    assert escalated.summary.startswith("loss is nan again at step 21")
    assert escalated.fix == "Keep body.0 in fp32"


def test_a_located_clause_that_reads_like_none_is_kept_verbatim() -> None:
    # The old way parsed "; located at " back out of the summary; a clause without those
    # words (the locator armed a step the model never ran) was lost by an escalation.
    m = started()
    m.observe(Observation(20, scale_before=8.0, scale_after=4.0, loss=NAN))
    clause = "locator armed for step 21 but the model ran no forward pass"
    m.amend("AMP006", step=20, located=clause, evidence={"origin": {"verdict": "not-observed"}})
    [escalated] = m.observe(Observation(21, scale_before=4.0, scale_after=2.0, loss=NAN))
    assert escalated.located == clause and escalated.summary.endswith(clause)


def test_the_escalation_line_leaves_the_located_clause_to_the_amendment(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = started()
    m.observe(Observation(20, scale_before=8.0, scale_after=4.0, loss=NAN))
    m.amend("AMP006", step=20, located=LOCATED,
            evidence={"origin": {"verdict": "activation-overflow"}})
    with caplog.at_level(logging.INFO, logger="denpex_callbacks"):
        m.observe(Observation(21, scale_before=4.0, scale_after=2.0, loss=NAN))
    [line] = [r.getMessage() for r in caplog.records if "escalated" in r.getMessage()]
    assert "located at" not in line and "the fault persists" in line


def test_located_goes_to_the_report_and_old_reports_still_load(tmp_path: Path) -> None:
    m = Monitor(MonitorConfig(report_dir=str(tmp_path)))
    m.start(FP16)
    m.observe(Observation(5, loss=NAN))
    m.amend("AMP006", step=5, located=LOCATED)
    m.close()
    [diagnosis] = read_report(tmp_path / "rank0.jsonl").diagnoses
    assert diagnosis.located == LOCATED
    old = Diagnosis.from_finding(Finding("AMP006", 5, "loss is nan")).to_dict()
    del old["located"]  # a report written before the field existed
    assert Diagnosis.from_dict(old).located is None


# -- one lifecycle: the summary after an internal error ------------------------------------------

class _Broken:
    """A detector with a bug that shows on its fifth step."""

    code = "AMP006"

    def configure(self, setup: RunSetup) -> None:
        pass

    def observe(self, obs: Observation, run: object) -> None:
        if obs.step == 4:
            raise RuntimeError("bug")

    def quiet_horizon(self, run: object) -> int:
        return 0


def test_close_after_an_internal_error_writes_the_summary(tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture
                                                          ) -> None:
    m = Monitor(MonitorConfig(report_dir=str(tmp_path)),
                detectors=[_Broken()])  # type: ignore[list-item]
    m.start(FP16)
    with caplog.at_level(logging.ERROR, logger="denpex_callbacks"):
        for step in range(8):
            assert m.observe(Observation(step, loss=1.0, scale_before=8.0,
                                         scale_after=8.0)) == []
        m.close()
        m.close()  # safe twice
    assert m.disabled
    assert sum("internal error" in r.getMessage() for r in caplog.records) == 1
    report = read_report(tmp_path / "rank0.jsonl")
    assert report.summary is not None and report.summary["disabled"] is True
    assert report.summary["steps"] == 5  # steps 0..4 were folded in before the error
    kinds = [json.loads(line).get("type") for line in
             (tmp_path / "rank0.jsonl").read_text().splitlines()]
    assert kinds.count("summary") == 1, kinds


def test_act_passes_the_users_raise_through_and_nothing_else() -> None:
    m = started(on_fault="raise")
    found = m.observe(Observation(0, loss=NAN))
    with pytest.raises(AmpDiagnosisError):
        m.act(found)
    m.act([])  # nothing to act on: nothing happens


# -- item 4 of issue 28: a misplaced monitor call is not a scaler fault ------------------------

MISUSE = Finding(
    "AMP002", 0, "monitor.step() was called before scaler.update(): the loop itself is correct",
    evidence={"call": "monitor.step() before update()", "monitor_misuse": True},
    severity=Severity.WARNING, root_cause="a misuse of the denpex monitor",
    fix="Call monitor.step(loss) after scaler.update(), once per iteration.")


def test_a_monitor_misuse_is_never_the_primary_nor_a_fault(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = started(on_fault="raise", fault_severity="warning")
    m.act(m.flag(MISUSE))
    assert m.primary is None and m.faults() == [] and not m.stop_requested
    assert m.metrics() == {"amp/skipped_steps": 0.0, "amp/diagnoses": 0.0}
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        m.close()
    assert not [r for r in caplog.records if "run summary" in r.getMessage()]
    assert m.summary()["primary"] is None


def test_beside_a_real_fault_the_summary_does_not_list_the_misuse(
    caplog: pytest.LogCaptureFixture,
) -> None:
    m = started()
    m.flag(MISUSE)
    m.observe(Observation(10, loss=NAN))
    with caplog.at_level(logging.WARNING, logger="denpex_callbacks"):
        m.close()
    [summary] = [r.getMessage() for r in caplog.records if "run summary" in r.getMessage()]
    assert "fix AMP006 first" in summary and "AMP002" not in summary
    nan = next(d for d in m.diagnoses if d.code == "AMP006")
    assert nan.caused_by is None  # the misplaced call explains nothing
