"""Two ranks (ddp_spawn, gloo, CPU fp16 plugin); NaN on rank 1 only; policy "stop"."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from lightning.pytorch.strategies import DDPStrategy

from denpex_callbacks.core.report import initiating_rank, read_report_dir
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import TinyModule

FAULT_STEP = 3


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_nan_on_rank_1_stops_both_ranks_at_the_same_step(
    tmp_path: Path, new_trainer: Any
) -> None:
    callback = AmpDiagnosticCallback(on_fault="stop", report_dir="reports")
    trainer = new_trainer(
        callbacks=[callback],
        devices=2,
        # "ddp_spawn" with a collective timeout, so a rank left waiting fails instead of hanging
        strategy=DDPStrategy(start_method="spawn", timeout=timedelta(seconds=120)),
        steps=20,
    )
    # A rank left waiting fails at the collective timeout above: no wall-clock assert needed.
    trainer.fit(TinyModule(fault="nan", fault_step=FAULT_STEP, fault_rank=1))

    reports = read_report_dir(tmp_path / "reports")
    assert [r.rank for r in reports] == [0, 1]
    by_rank = {r.rank: r for r in reports}
    # only rank 1's loss went non-finite; both ranks skip (gradients are all-reduced)
    assert [(d.code, d.step) for d in by_rank[1].diagnoses][:1] == [("AMP006", FAULT_STEP)]
    assert "AMP006" not in {d.code for d in by_rank[0].diagnoses}
    assert initiating_rank(reports) == (1, FAULT_STEP)
    # "stop" was decided on all ranks together: both stopped after the same step
    for report in reports:
        assert report.summary is not None
        # NaN from FAULT_STEP on: absorbed there, persistent (escalated) one step later.
        assert report.summary["steps"] == FAULT_STEP + 2
        assert report.summary["skipped_steps"] == 2
        assert report.header["setup"]["world_size"] == 2
