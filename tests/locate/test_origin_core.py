"""The framework-free half: origin reports turned into causes, and Monitor.amend."""

from __future__ import annotations

import logging
import math

import pytest

from denpex_callbacks import Monitor, MonitorConfig, Observation, read_report
from denpex_callbacks.core import catalog
from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.locate.origin_explanation import explain_origin
from denpex_callbacks.locate.origin_report import GradientOrigin, ModuleCall, OriginReport

NAN, INF = math.nan, math.inf
WO = "encoder.block.3.layer.1.DenseReluDense.wo"


def call(name=WO, inputs=2.1e3, outputs=INF, params=0.8, kind="Linear"):
    return ModuleCall(name, kind, inputs, outputs, params, "torch.float16")


@pytest.mark.parametrize(
    ("report", "verdict", "cause_starts"),
    [
        (OriginReport(1, forward=call(), inputs_absmax=1.0), "activation-overflow",
         f"activation overflow in {WO} (Linear)"),
        (OriginReport(1, forward=call(params=NAN), inputs_absmax=1.0), "nonfinite-weights",
         f"the weights of {WO} (Linear) are already NaN/inf"),
        (OriginReport(1, forward=call(inputs=3.0, outputs=NAN), inputs_absmax=1.0),
         "invalid-operation", f"an invalid operation in the forward of {WO}"),
        (OriginReport(1, forward=call(inputs=NAN, outputs=NAN), inputs_absmax=1.0),
         "between-modules", "the non-finite value was produced by code in the forward of "
         "encoder.block.3.layer.1.DenseReluDense outside"),
        (OriginReport(1, forward=call("embed", NAN, NAN), inputs_absmax=NAN), "input-data",
         "non-finite values in the input batch: a data problem, not AMP"),
        (OriginReport(1, inputs_absmax=1.0, loss_absmax=INF, calls_seen=9, gradients_seen=9,
                      backward=GradientOrigin("", "Net", "output", NAN)),
         "loss-computation", "the loss computation produced the non-finite value"),
        (OriginReport(1, forward=call("", 3.0, NAN, None, "T5Model"), inputs_absmax=3.0),
         "loss-computation", "the forward code of <model> (T5Model) itself"),
        (OriginReport(1, inputs_absmax=1.0, loss_absmax=2.0, calls_seen=9, gradients_seen=9,
                      backward=GradientOrigin(WO, "Linear", "input", INF)),
         "backward-overflow", f"gradient overflow in the backward of {WO} (Linear)"),
        (OriginReport(1, inputs_absmax=1.0, loss_absmax=2.0, calls_seen=9, gradients_seen=9,
                      backward=GradientOrigin("", "Net", "output", INF)),
         "backward-overflow", "gradient overflow in the loss backward"),
    ],
)
def test_each_verdict_changes_the_root_cause(report, verdict, cause_starts):
    explanation = explain_origin(report, "torch")
    assert explanation.verdict == verdict
    assert explanation.root_cause is not None and explanation.root_cause.startswith(cause_starts)
    assert explanation.fix and explanation.fix[0].isupper()
    assert explanation.summary.startswith("located at step 1")


def test_nothing_non_finite_keeps_the_catalog_cause():
    peak = ModuleCall("blocks.1", "Block", 2.0, 3.5e4, 0.5, "torch.float16")
    explanation = explain_origin(OriginReport(4, calls_seen=12, gradients_seen=12,
                                              inputs_absmax=1.0, loss_absmax=0.3, peak=peak))
    assert (explanation.verdict, explanation.root_cause, explanation.fix) == (
        "not-reproduced", None, None)
    assert "did not recur" in explanation.summary and "blocks.1" in explanation.summary
    no_forward = explain_origin(OriginReport(4))
    assert (no_forward.verdict, no_forward.root_cause) == ("not-observed", None)


def test_a_finite_armed_step_of_a_collapse_on_several_ranks_points_at_the_other_ranks():
    """The hooks see this rank's values before the all-reduce: finite there does not mean
    the step's reduced gradients were (the step may be skipped anyway), so no 'did not
    recur', which a skipped step would then contradict."""
    report = OriginReport(18, calls_seen=3, gradients_seen=6, inputs_absmax=1.0, loss_absmax=0.3)
    ranks = explain_origin(report, "torch", setup=RunSetup(world_size=2), code="AMP003")
    assert ranks.verdict == "other-rank" and "did not recur" not in ranks.summary
    assert "all-reduced over 2 ranks" in ranks.summary
    assert ranks.fix is not None and "learning rate" not in ranks.fix.lower()
    # One rank, or the rank's own loss (AMP006): its finite values do say it did not recur.
    for setup, code in ((RunSetup(), "AMP003"), (RunSetup(world_size=2), "AMP006")):
        assert explain_origin(report, setup=setup, code=code).verdict == "not-reproduced"


def test_fix_is_phrased_for_the_framework():
    report = OriginReport(1, forward=call(), inputs_absmax=1.0)
    fix = explain_origin(report, "hf").fix
    assert '"wo" in the model\'s _keep_in_fp32_modules' in fix and "enabled=False" in fix
    assert "bf16=True" in explain_origin(report, "hf").fix
    assert 'precision="bf16-mixed"' in explain_origin(report, "lightning").fix
    assert '"bf16": {"enabled": true}' in explain_origin(report, "deepspeed").fix


def test_weights_beyond_fp16_count_as_overflow():
    assert call(inputs=1.0, outputs=NAN, params=1e5).exceeded_fp16
    assert not call(inputs=1.0, outputs=NAN, params=1.0).exceeded_fp16


def test_amend_replaces_in_memory_logs_once_and_writes_the_report(tmp_path, caplog):
    monitor = Monitor(MonitorConfig(report_dir=str(tmp_path)))
    for step in range(4):
        monitor.observe(Observation(step, loss=NAN if step == 2 else 1.0))
    original = monitor.diagnoses[0]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="denpex_callbacks"):
        amended = monitor.amend("AMP006", step=2, evidence={"origin": {"verdict": "x"}},
                                summary="s2", root_cause="rc2", fix="fx2")
    monitor.close()
    assert amended is not None and monitor.diagnoses == [amended]
    assert (amended.summary, amended.root_cause, amended.fix) == ("s2", "rc2", "fx2")
    assert amended.evidence["loss"] != amended.evidence["loss"]  # old evidence kept (NaN)
    assert amended.evidence["origin"] == {"verdict": "x"}
    assert monitor.primary is amended and original.root_cause == catalog.entry(
        "AMP006").root_cause
    amended_lines = [r for r in caplog.records if "amended" in r.getMessage()]
    assert [r.getMessage() for r in amended_lines] == [
        "denpex: AMP006 non-finite-loss [error] step 2, rank 0, amended: s2. Fix now: fx2 "
        f"(before: Check the batch for NaN/inf). Details: {tmp_path / 'rank0.jsonl'}"]
    on_disk = read_report(tmp_path / "rank0.jsonl").diagnoses
    assert [(d.code, d.step, d.root_cause) for d in on_disk] == [("AMP006", 2, "rc2")]


def test_amend_of_an_unknown_diagnosis_is_a_no_op():
    monitor = Monitor(MonitorConfig(report_dir=None))
    monitor.observe(Observation(0, loss=1.0))
    assert monitor.amend("AMP006", root_cause="x") is None
    assert monitor.diagnoses == []


def test_overflow_from_huge_weights_blames_the_optimizer_not_precision():
    diverged = ModuleCall("0", "Linear", input_absmax=3.9, output_absmax=float("inf"),
                          param_absmax=7127.0, output_dtype="torch.float16")
    e = explain_origin(OriginReport(step=62, forward=diverged, inputs_absmax=3.9), "torch")
    assert e.verdict == "diverged-weights"
    assert "optimizer diverged" in e.root_cause and "Lower the learning rate" in e.fix
    healthy_weights = ModuleCall("0", "Linear", input_absmax=3.9e3, output_absmax=float("inf"),
                                 param_absmax=20.0, output_dtype="torch.float16")
    e = explain_origin(OriginReport(step=62, forward=healthy_weights, inputs_absmax=3.9), "torch")
    assert e.verdict == "activation-overflow"


def test_huge_weights_before_any_update_blame_the_init_not_the_learning_rate():
    huge = ModuleCall("0", "Linear", input_absmax=3.3, output_absmax=float("inf"),
                      param_absmax=1.8e4, output_dtype="torch.float16")
    report = OriginReport(step=0, forward=huge, inputs_absmax=3.3)
    e = explain_origin(report, "lightning", updates_before=0)
    assert e.verdict == "initial-weights" and e.evidence["updates_before"] == 0
    assert "initialised" in e.fix and "learning rate" not in e.fix.lower()
    assert "grown" not in e.summary and "bf16" in e.fix
    # Control: the same weights after updates were applied are the optimizer's doing.
    assert explain_origin(report, "lightning", updates_before=3).verdict == "diverged-weights"


def test_huge_weights_passed_on_before_any_update_blame_the_init():
    gelu = ModuleCall("1", "GELU", input_absmax=6.0e4, output_absmax=float("inf"),
                      output_dtype="torch.float16")
    linear = ModuleCall("0", "Linear", input_absmax=3.3, output_absmax=6.0e4,
                        param_absmax=1.8e4, output_dtype="torch.float16")
    report = OriginReport(step=0, forward=gelu, origin=linear, inputs_absmax=3.3)
    e = explain_origin(report, "torch", updates_before=0)
    assert (e.verdict, e.module) == ("initial-weights", "0")
    assert "learning rate" not in e.fix.lower()
    assert explain_origin(report, "torch", updates_before=None).verdict == "diverged-weights"
