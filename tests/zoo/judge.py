"""Scoring one run of a scenario against its ground truth."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scenarios import FROM_RECORD, Scenario
from workload import Outcome


@dataclass(frozen=True)
class Verdict:
    """id, step and cause right (None: not judged for this scenario), healthy silence."""

    scenario: str
    adapter: str
    expected: tuple[str | None, int | None, str | None]
    got: tuple[str | None, int | None, str | None]
    id_ok: bool
    step_ok: bool
    cause_ok: bool | None
    loud: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.id_ok and self.step_ok and self.cause_ok is not False

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "adapter": self.adapter,
                "expected": list(self.expected), "got": list(self.got), "id_ok": self.id_ok,
                "step_ok": self.step_ok, "cause_ok": self.cause_ok, "loud": list(self.loud)}


def judge(s: Scenario, adapter: str, outcome: Outcome, step_offset: int = 0) -> Verdict:
    """Compare a run with its truth. ``step_offset``: the adapter's first step number."""
    loud = [d for d in outcome.diagnoses if d.severity.value != "info"]
    if s.truth is None:
        names = tuple(f"{d.code}@{d.step}" for d in loud)
        return Verdict(s.name, adapter, (None, None, None), (None, None, None),
                       not loud, not loud, None, names)
    code, step = s.truth.code, s.truth.step
    if code is None or step == FROM_RECORD:
        code, step = outcome.record.first_fault()
    expected_step = None if step is None else step + step_offset
    hit = next((d for d in outcome.diagnoses if d.code == code), None)
    # Another fault found earlier in training (start-up lints about the configuration, at
    # step 0 before a 1-based adapter's first step, are not "earlier").
    earlier = [d for d in loud if hit is not None and d.step is not None and hit.step is not None
               and step_offset <= d.step < hit.step]
    got = hit or (loud[0] if loud else None)
    cause = None if got is None else got.evidence.get("cause")
    return Verdict(
        s.name, adapter, (code, expected_step, s.truth.cause),
        (None, None, None) if got is None else (got.code, got.step, cause),
        id_ok=hit is not None and not earlier,
        step_ok=hit is not None and hit.step == expected_step,
        cause_ok=None if s.truth.cause is None else cause == s.truth.cause,
        loud=tuple(f"{d.code}@{d.step}" for d in loud),
    )
