"""Lightning's DeepSpeedStrategy: the scale is read from the engine's optimizer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from denpex_callbacks.core.report import read_report
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import TinyModule

CPU_REFUSAL = "The DeepSpeed strategy is only supported on CUDA GPUs"


def _fit_or_skip(trainer: Any) -> None:
    """Fit a TinyModule whose loss is NaN from step 4; skip where Lightning refuses DeepSpeed
    on this machine's accelerator (any other error goes on)."""
    try:
        trainer.fit(TinyModule(fault="nan", fault_step=4))
    except RuntimeError as error:
        if CPU_REFUSAL not in str(error):
            raise
        pytest.skip(f"Lightning refuses DeepSpeed on CPU: {error}")


def test_deepspeed_strategy_fp16_nan(tmp_path: Path, new_trainer: Any) -> None:
    pytest.importorskip("deepspeed")
    accelerator = "cuda" if torch.cuda.is_available() else "cpu"
    trainer = new_trainer(
        callbacks=[AmpDiagnosticCallback(report_dir="reports")],
        accelerator=accelerator,
        strategy="deepspeed_stage_2",
        precision="16-mixed",
        steps=12,
    )
    _fit_or_skip(trainer)
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    assert report.header["setup"]["extra"]["scale_reader"] == "deepspeed"
    assert report.header["setup"]["scaler"] == "dynamic"
    assert (report.diagnoses[0].code, report.diagnoses[0].step) == ("AMP006", 4)
    assert report.summary is not None and report.summary["skipped_steps"] >= 1


def test_deepspeed_strategy_exit_at_the_minimum_scale_is_judged_before_its_error(
    tmp_path: Path, new_trainer: Any
) -> None:
    # The DeepSpeed adapter's exit watch (DeepSpeedReader.attached), under Lightning's strategy:
    # a NaN loss from step 4 drives the scale 16 -> 1, DeepSpeed raises at the floor, and the
    # collapse is in the report, closed with its summary, before DeepSpeed's error goes on.
    pytest.importorskip("deepspeed")
    from lightning.pytorch.strategies import DeepSpeedStrategy

    from denpex_callbacks.core.framework_exits import DEEPSPEED_MIN_SCALE

    accelerator = "cuda" if torch.cuda.is_available() else "cpu"
    trainer = new_trainer(
        callbacks=[AmpDiagnosticCallback(report_dir="reports")],
        accelerator=accelerator,
        strategy=DeepSpeedStrategy(stage=2, initial_scale_power=4, hysteresis=2),
        precision="16-mixed",
        steps=30,
    )
    with pytest.raises(Exception, match=DEEPSPEED_MIN_SCALE):
        _fit_or_skip(trainer)
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    found = {d.code: d for d in report.diagnoses}
    assert found["AMP006"].step == 4
    assert DEEPSPEED_MIN_SCALE in found["AMP003"].evidence["framework_exit"]
    assert report.summary is not None
