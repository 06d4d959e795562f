"""The live Monitor and the log doctor put the same diagnoses in the same order: one
function (core.ordering) decides what is primary in both."""

from __future__ import annotations

import itertools
from pathlib import Path

from denpex_callbacks.core.config import MonitorConfig
from denpex_callbacks.core.diagnosis import Finding
from denpex_callbacks.core.monitor import Monitor
from denpex_callbacks.core.ordering import order
from denpex_callbacks.logs.doctor import diagnose

CORPUS = Path(__file__).resolve().parents[1] / "logs" / "corpus"
# A warning early (high skip rate), an error later (fp16 master weights), an info, and an
# error that the catalog lists as a consequence of an earlier one (collapse after a NaN).
FINDINGS = (Finding("AMP008", 2, "skips"), Finding("AMP012", 9, "fp16 params"),
            Finding("AMP006", 5, "nan loss"), Finding("AMP003", 6, "collapse"))


def _live(findings: tuple[Finding, ...]) -> Monitor:
    monitor = Monitor(MonitorConfig(report_dir=None))
    for finding in findings:
        monitor.flag(finding)
    monitor.close()
    return monitor


def test_the_live_primary_is_the_first_in_the_doctors_order() -> None:
    for findings in itertools.permutations(FINDINGS):
        monitor = _live(findings)
        ranked = order(monitor.faults())
        assert monitor.primary is ranked[0], [f.code for f in findings]
        assert monitor.summary()["primary"] == ranked[0].code
        assert ranked[0].caused_by is None and ranked[0].severity.value == "error"
    # not merely the first one found: the warning found first yields to a later error (the
    # NaN and the collapse, found after AMP012, count as its consequences)
    assert _live(FINDINGS).primary.code == "AMP012"  # type: ignore[union-attr]


def test_a_log_read_afterwards_names_the_live_primary() -> None:
    """Every corpus log with two or more faults: replaying the doctor's diagnoses into a
    live Monitor, in the order they began, names the doctor's first one primary."""
    logs = [log for log in sorted(CORPUS.glob("*.log")) if len(diagnose(str(log)).faults) > 1]
    assert len(logs) >= 3
    for log in logs:
        faults = diagnose(str(log)).faults
        began = sorted(faults, key=lambda d: d.step if d.step is not None else -1)
        monitor = _live(tuple(Finding(d.code, d.step, d.summary, severity=d.severity,
                                      rank=d.rank) for d in began))
        assert monitor.primary is not None and monitor.primary.code == faults[0].code, log.name
