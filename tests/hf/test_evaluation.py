"""Evaluation as its own stream in a real Trainer: a NaN in the evaluation set is AMP013 at the
step of the evaluation, live and in the doctor, although from transformers 5.23
logging_nan_inf_filter leaves the NaN batches out of eval_loss; healthy evaluations are silent."""

from __future__ import annotations

import math
from importlib import metadata
from typing import Any

import pytest
from packaging.version import Version

from denpex_callbacks import MonitorConfig
from denpex_callbacks.cli import main
from denpex_callbacks.hf import AmpDiagnosticCallback
from denpex_callbacks.logs.doctor import diagnose

# transformers/trainer.py evaluation_loop: `if self.args.logging_nan_inf_filter and
# finite.any(): losses = losses[finite]` first ships in 5.23.0 (not in 5.22.2).
FILTERS_EVAL_LOSS = Version(metadata.version("transformers")) >= Version("5.23.0")


def run(hf: Any, tmp_path: Any, nan_at: tuple[int, ...], **args: Any) -> Any:
    callback = AmpDiagnosticCallback(config=MonitorConfig(report_dir=str(tmp_path / "r")))
    trainer = hf.trainer(steps=10, callback=callback, fp16_scaler={}, eval_strategy="steps",
                         eval_steps=5, per_device_eval_batch_size=4,
                         eval_dataset=hf.RandomRegression(16, seed=1, nonfinite_at=nan_at), **args)
    trainer.train()
    return trainer


def eval_losses(trainer: Any) -> dict[int, float]:
    return {e["step"]: e["eval_loss"] for e in trainer.state.log_history if "eval_loss" in e}


def test_a_nan_evaluation_sample_is_amp013_at_the_evaluation_step(hf, tmp_path):
    # Was: with half the evaluation forwards NaN, eval_loss read finite (the filter drops the
    # NaN batches), the callback said nothing and `denpex diagnose` found no fault.
    trainer = run(hf, tmp_path, nan_at=(5,))
    # What HF shows: from 5.23 logging_nan_inf_filter (on by default) leaves the NaN batches
    # out of eval_loss, which reads finite; before, eval_loss is NaN.
    filters = FILTERS_EVAL_LOSS
    assert all(math.isfinite(loss) is filters for loss in eval_losses(trainer).values())
    monitor = hf.monitor_of(trainer)
    assert hf.fault_codes(monitor) == ["AMP013"]  # once, not per batch nor per evaluation
    found = hf.first(monitor, "AMP013")
    assert found.step == 5
    assert found.evidence["phase"] == "evaluation"
    assert (found.evidence["metric"], found.evidence["value"]) == ("eval_loss", "nan")
    assert (found.evidence["nonfinite_batches"], found.evidence["batches"]) == (1, 4)
    assert ("logging_nan_inf_filter leaves non-finite batches out" in found.summary) is filters
    # The training loss was never touched: no AMP006, no AMP009 escalation.
    assert not [d for d in monitor.diagnoses if d.code == "AMP006"]
    # The doctor reads it from the run report.
    report = tmp_path / "r"
    assert [(d.code, d.step) for d in diagnose(str(report / "rank0.jsonl")).diagnoses
            if d.code == "AMP013"] == [("AMP013", 5)]
    assert main(["diagnose", str(report)]) == 1


def test_with_the_filter_off_the_nan_eval_loss_itself_is_quoted(hf, tmp_path):
    trainer = run(hf, tmp_path, nan_at=(0, 9), logging_nan_inf_filter=False)
    assert all(math.isnan(loss) for loss in eval_losses(trainer).values())
    found = hf.first(hf.monitor_of(trainer), "AMP013")
    assert found.step == 5
    assert (found.evidence["nonfinite_batches"], found.evidence["batches"]) == (2, 4)
    assert found.evidence["nonfinite_metrics"] == {"eval_loss": "nan"}
    assert "leaves non-finite batches out" not in found.summary


def test_a_non_finite_metric_of_compute_metrics_is_amp013(hf, tmp_path):
    def perplexity(prediction: Any) -> dict[str, float]:
        return {"ratio": float("inf")}  # a metric dividing by zero

    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = hf.trainer(steps=6, callback=callback, fp16_scaler={}, eval_strategy="steps",
                         eval_steps=3, per_device_eval_batch_size=4,
                         eval_dataset=hf.RandomRegression(8, seed=1))
    trainer.compute_metrics = perplexity
    trainer.train()
    found = hf.first(hf.monitor_of(trainer), "AMP013")
    assert (found.step, found.evidence["metric"], found.evidence["value"]) == (3, "eval_ratio",
                                                                               "inf")


@pytest.mark.parametrize("settings", [
    {},
    # Non-default: evaluation before training, accumulation of eval outputs, an odd batch size,
    # no filter, gradient accumulation, evaluation of several sets.
    {"eval_on_start": True, "eval_accumulation_steps": 2, "per_device_eval_batch_size": 3,
     "logging_nan_inf_filter": False, "gradient_accumulation_steps": 2},
])
def test_a_healthy_evaluation_is_silent(hf, tmp_path, settings):
    callback = AmpDiagnosticCallback(report_dir=None)
    args = {"per_device_eval_batch_size": 4, **settings}
    one = hf.RandomRegression(16, seed=1)
    evaluated = {"a": one, "b": hf.RandomRegression(8, seed=2)} if settings else one
    trainer = hf.trainer(steps=10, callback=callback, fp16_scaler={}, eval_strategy="steps",
                         eval_steps=5, eval_dataset=evaluated, **args)
    trainer.train()
    assert len([e for e in trainer.state.log_history if any(k.endswith("_loss") and
                                                            k.startswith("eval") for k in e)]) >= 2
    assert hf.fault_codes(hf.monitor_of(trainer)) == []


def test_a_nan_training_loss_makes_the_evaluation_its_consequence(hf, tmp_path):
    # fp32 with SGD and no clipping: the NaN loss of step 3 makes every weight NaN, so the
    # evaluation at step 5 is NaN as its consequence, and says so.
    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = hf.trainer(fault="nan", from_step=3, steps=6, callback=callback, optim="sgd",
                         eval_strategy="steps", eval_steps=5, per_device_eval_batch_size=4,
                         max_grad_norm=0.0, eval_dataset=hf.RandomRegression(16, seed=1))
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert hf.first(monitor, "AMP006").step == 3
    evaluation = hf.first(monitor, "AMP013")
    assert (evaluation.step, evaluation.evidence["nonfinite_batches"]) == (5, 4)
    assert evaluation.caused_by == "AMP006"


class _Corrupts:
    """A TrainerCallback-like hook: before the evaluations at ``bad`` steps one evaluation
    sample holds a NaN; before the others it is finite again."""

    def __init__(self, data: Any, bad: set[int]) -> None:
        self.data, self.bad, self.clean = data, bad, data.x[3, 2].item()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self.data.x[3, 2] = math.nan if state.global_step in self.bad else self.clean


@pytest.mark.parametrize(("bad", "reported"), [({10, 20}, [10, 20]), ({10, 15, 20}, [10])],
                         ids=["cleared-between", "persistent"])
def test_one_amp013_per_run_of_non_finite_evaluations(hf, tmp_path, bad, reported):
    from transformers import TrainerCallback

    data = hf.RandomRegression(16, seed=1)
    corrupts = type("Corrupts", (_Corrupts, TrainerCallback), {})(data, bad)
    callback = AmpDiagnosticCallback(config=MonitorConfig(report_dir=None))
    trainer = hf.trainer(steps=20, callback=callback, fp16_scaler={}, eval_strategy="steps",
                         eval_steps=5, per_device_eval_batch_size=4, eval_dataset=data,
                         extra_callbacks=[corrupts])
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert [d.step for d in monitor.diagnoses if d.code == "AMP013"] == reported
