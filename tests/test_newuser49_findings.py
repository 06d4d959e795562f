"""What a new user saw adding the live callbacks to CPU runs no earlier tryout covered: DDP
and FSDP on two ranks, optimizers other than Adam/SGD, torch.compile, the T5-style overflow.

Each xfail test trains for real on CPU and holds the answer the user needed; its reason says
what the package answered instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from two_rank_worker import FAULT_STEP, train  # noqa: E402 (tests/ranks, on sys.path by conftest)

from denpex_callbacks.core.report import read_report_dir  # noqa: E402
from denpex_callbacks.logs.doctor import diagnose  # noqa: E402


def _train(out: Path, kind: str = "ddp") -> Path:
    """The report dir of one two-rank run (rank 1's data NaN from FAULT_STEP on)."""
    return train(out, "nan1", kind=kind)


@pytest.fixture(scope="module")  # two processes importing torch: about 10 s on two cores
def ddp_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report dir of one two-rank DDP run."""
    return _train(tmp_path_factory.mktemp("ddp"))


# denpex diagnose on the report dir names rank 1 as initiating (AMP006 at step 12); rank 0's
# AMP003 (skips caused by rank 1's NaN gradients, all-reduced by DDP) is its consequence, listed
# after it (core/other_rank.linked_across_ranks), and its fix is not 'lower the learning rate'.
def test_ddp_nan_on_rank_1_makes_rank_0s_collapse_a_consequence(ddp_reports: Path) -> None:
    result = diagnose(str(ddp_reports))
    assert result.initiating == (1, FAULT_STEP)
    first = result.diagnoses[0]
    assert (first.code, first.step, first.rank) == ("AMP006", FAULT_STEP, 1)
    collapse = [d for d in result.diagnoses if d.code == "AMP003"]
    assert collapse and all(d.caused_by for d in collapse)
    assert not any("learning rate" in d.fix.lower() for d in collapse)


def test_ddp_nan_on_rank_1_is_reported_there_and_nobody_hangs(ddp_reports: Path) -> None:
    """The part that is right today (a control): both ranks finish, AMP006 on rank 1 only."""
    result = diagnose(str(ddp_reports))
    nan_losses = [(d.step, d.rank) for d in result.diagnoses if d.code == "AMP006"]
    assert nan_losses == [(FAULT_STEP, 1)]


# Rank 0's own losses and gradients are finite (its skips are rank 1's NaN, all-reduced by DDP):
# its live AMP003 says the overflow may come from another rank and sends the user there, on the
# forward-only re-run of the plain-loop AmpMonitor as on Lightning's forward+backward one.
def test_ddp_rank_0_collapse_points_at_the_other_rank(ddp_reports: Path) -> None:
    rank0 = next(r for r in read_report_dir(ddp_reports) if r.rank == 0)
    collapse = next(d for d in rank0.diagnoses if d.code == "AMP003")
    assert "another rank" in str(collapse.evidence.get("rerun_reason", ""))
    assert "learning rate" not in collapse.fix.lower()


@pytest.mark.slow  # two more two-rank runs: about 20 s on two cores
@pytest.mark.parametrize("kind", ["fsdp1", "fsdp2"])
def test_sharded_rank_0_collapse_is_the_other_ranks_consequence(tmp_path: Path,
                                                                kind: str) -> None:
    """FSDP refuses the re-run (sharded parameters): the armed next step, finite on rank 0,
    says the overflow may come from another rank, and the doctor links it to rank 1."""
    reports = _train(tmp_path, kind)
    rank0 = next(r for r in read_report_dir(reports) if r.rank == 0)
    collapse = next(d for d in rank0.diagnoses if d.code == "AMP003")
    assert collapse.evidence["origin"]["verdict"] == "other-rank"
    assert "learning rate" not in collapse.fix.lower()
    assert "recurred_step" not in collapse.evidence  # (no "did not recur", then "recurred")
    result = diagnose(str(reports))
    assert (result.diagnoses[0].code, result.diagnoses[0].rank) == ("AMP006", 1)
    assert all(d.caused_by == "AMP006" for d in result.diagnoses if d.code == "AMP003")
