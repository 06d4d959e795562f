"""Every corpus log gives exactly the diagnoses its sidecar ``.expected.json`` states.

The logs were printed by DeepSpeed 0.19.8, transformers 5.24, Lightning 2.6.6 and torch 2.13
running on CPU with injected faults, or formatted from fairseq / apex / Megatron-LM / NCCL /
old-DeepSpeed source strings (``corpus/make_corpus.py`` and ``corpus/synthetic.py`` say how).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from denpex_callbacks.logs.doctor import diagnose

CORPUS = Path(__file__).parent / "corpus"
LOGS = sorted(CORPUS.glob("*.log"))


def test_every_log_states_its_expectation() -> None:
    assert len(LOGS) >= 20
    for log in LOGS:
        assert (CORPUS / f"{log.stem}.expected.json").exists(), log.name


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_corpus_log(log: Path) -> None:
    expected = json.loads((CORPUS / f"{log.stem}.expected.json").read_text())
    result = diagnose(str(log))
    assert result.error is None and not result.problems
    found = [{"id": d.code, "step": d.step, "line": d.lines[0] if d.lines else None,
              "rank": d.rank} for d in result.faults]
    assert found == expected["faults"]
    assert (not found) == expected["healthy"]
    if expected["healthy"]:
        assert all(d.severity.value == "info" for d in result.diagnoses)


def test_per_rank_duplicates_are_one_event() -> None:
    result = diagnose(str(CORPUS / "deepspeed_legacy_two_ranks.log"))
    # 12 overflow lines: 6 overflows, each printed by ranks 0 and 1
    assert result.timeline.skipped == 6
    assert result.families["deepspeed"] >= 12


def test_deepspeed_steps_follow_the_engine_counter() -> None:
    result = diagnose(str(CORPUS / "deepspeed_zero2_collapse.log"))
    skipped_steps = [p[0] for p in result.timeline.points if p[2]]
    assert skipped_steps == list(range(12, 22))  # DeepSpeed's step=12..21, skipped=1..10


def test_non_amp_failures_are_named_as_such() -> None:
    for name, code in (("torch_cpu_oom", "SYS001"), ("nccl_timeout_after_overflow", "SYS002")):
        result = diagnose(str(CORPUS / f"{name}.log"))
        assert [d.code for d in result.faults] == [code]
        assert "not an AMP fault" in result.faults[0].title
