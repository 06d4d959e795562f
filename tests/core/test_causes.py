"""The root-cause engine: run evidence in, cause and fix for this run out (no torch)."""

from __future__ import annotations

import pytest

from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup, Thresholds
from denpex_callbacks.core import causes
from denpex_callbacks.core.causes import OriginFacts, RunEvidence, judge
from denpex_callbacks.core.lints import lint_setup
from denpex_callbacks.core.monitor import Monitor as EngineMonitor

INF, NAN = float("inf"), float("nan")


def observe(setup: RunSetup, rows) -> Monitor:
    """rows: (loss, skipped, grad_norm) per step from 0."""
    # One absorbed NaN tolerated: the second makes it persistent and is judged then.
    m = Monitor(MonitorConfig(report_dir=None, thresholds=Thresholds(nonfinite_persist_losses=2)))
    m.start(setup)
    scale = 2.0**16
    for step, (loss, skipped, norm) in enumerate(rows):
        after = scale / 2 if skipped else scale
        m.observe(Observation(step, scale_before=scale, scale_after=after, loss=loss,
                              grad_norm=norm, lr=10.0))
        scale = after
    return m


def torch_cpu() -> RunSetup:
    return RunSetup(framework="torch", active_precision="fp16-mixed", scaler="dynamic",
                    growth_interval=2000, extra={"device": "cpu"})


def test_lr_ten_times_too_high_is_divergence_not_activation_overflow():
    # Plain loop, lr 10: loss 22 at step 0, inf from step 1 (every step skipped from there).
    m = observe(torch_cpu(), [(22.0, False, 5.0)] + [(INF, True, INF)] * 8)
    nan_loss = next(d for d in m.diagnoses if d.code == "AMP006")
    assert (nan_loss.step, nan_loss.severity.value) == (1, "error")
    assert nan_loss.evidence["cause"] == "divergence"
    assert nan_loss.root_cause.startswith("the optimizer diverged")
    assert nan_loss.fix.startswith("Lower the learning rate")
    assert "clip_grad_norm_" in nan_loss.fix and "LinearLR" in nan_loss.fix
    collapse = next(d for d in m.diagnoses if d.code == "AMP003")
    assert collapse.evidence["cause"] == "divergence"
    assert "after training was stable" not in collapse.summary


def test_divergence_needs_no_huge_weights_once_the_locator_points_at_a_module():
    run_evidence = RunEvidence(
        "AMP006", 1, updates_before=1, losses_before=(22.0,), first_loss=22.0, persistent=True,
        origin=OriginFacts("activation-overflow", module="<model>.4", exceeded_fp16=True,
                           module_weight=35.0, inputs_finite=True),
        setup=RunSetup(framework="lightning"))
    cause = judge(run_evidence)
    assert cause.kind == "divergence"
    assert "gradient_clip_val=1.0" in cause.fix and "keep" not in cause.fix.lower()[:40]
    assert "activation overflow in" not in cause.root_cause


def test_rising_loss_before_the_fault_is_divergence_after_many_updates():
    losses = (2.1, 2.0, 1.9, 1.8, 1.9, 1.8, 1.7, 2.6, 5.0, 11.0)
    ev = RunEvidence("AMP006", 300, updates_before=300, losses_before=losses, persistent=False,
                     setup=RunSetup(framework="hf", extra={"gradient_clipping": 1.0,
                                                           "warmup_steps": 100}))
    cause = judge(ev)
    assert cause.kind == "divergence"
    assert "the loss rose from about 1.9 to 11" in cause.root_cause
    # Already configured: lengthen the warm-up, do not ask for clipping again.
    assert "max_grad_norm=1.0" not in cause.fix and "clipping is already on" in cause.fix
    assert "lengthen the warm-up (now 100 steps)" in cause.fix


def test_growing_gradient_norm_is_divergence():
    ev = RunEvidence("AMP003", 500, updates_before=500, losses_before=(1.0,) * 6,
                     grad_norms_before=(1.0, 1.2, 0.9, 1.1, 40.0), persistent=True)
    assert judge(ev).kind == "divergence"


def test_large_update_to_weight_ratio_is_divergence():
    ev = RunEvidence("AMP006", 80, updates_before=80, losses_before=(1.0,) * 6,
                     update_ratios=(1e-3, 2e-3, 0.4))
    assert "0.4 of the weights' size" in judge(ev).root_cause


def test_activation_overflow_before_any_update_is_a_real_fp16_overflow():
    ev = RunEvidence("AMP006", 0, updates_before=0, persistent=True,
                     origin=OriginFacts("activation-overflow", module="ffn.wo",
                                        exceeded_fp16=True, module_weight=30.0,
                                        inputs_finite=True),
                     setup=RunSetup(framework="hf"))
    cause = judge(ev)
    assert cause.kind == "activation-overflow"
    assert "_keep_in_fp32_modules" in cause.fix and "bf16=True" in cause.fix


def test_activation_overflow_in_deepspeed_fp16_does_not_suggest_autocast():
    ev = RunEvidence("AMP006", 0, updates_before=0, persistent=True,
                     origin=OriginFacts("activation-overflow", module="ffn.wo",
                                        exceeded_fp16=True, inputs_finite=True),
                     setup=RunSetup(framework="deepspeed"))
    fix = judge(ev).fix
    assert "autocast" not in fix.replace("autocast cannot", "") and '"bf16"' in fix


def test_a_non_finite_batch_is_bad_data_whatever_else_the_run_shows():
    ev = RunEvidence("AMP006", 1, updates_before=1, losses_before=(22.0,), persistent=True,
                     origin=OriginFacts("input-data", inputs_finite=False))
    assert judge(ev).kind == "bad-data"


def test_a_one_off_that_does_not_recur_points_to_the_batch():
    ev = RunEvidence("AMP006", 400, updates_before=400, losses_before=(0.5,) * 10,
                     origin=OriginFacts("not-reproduced", inputs_finite=True, loss_finite=True))
    cause = judge(ev)
    assert cause.kind == "bad-data" and "batch of step 400" in cause.fix


def test_loss_computation_with_moderate_outputs_is_the_loss_code():
    ev = RunEvidence("AMP006", 0, updates_before=0, persistent=True,
                     origin=OriginFacts("loss-computation", peak_activation=7.5,
                                        inputs_finite=True, loss_finite=False))
    cause = judge(ev)
    assert cause.kind == "loss-computation" and "epsilon" in cause.fix


def test_huge_model_outputs_after_updates_are_divergence_not_a_loss_bug():
    ev = RunEvidence("AMP006", 6, updates_before=6, losses_before=(3.0,) * 3,
                     origin=OriginFacts("loss-computation", peak_activation=3e9,
                                        inputs_finite=True, loss_finite=False))
    assert judge(ev).kind == "divergence"


def test_static_scale_below_one_is_gradient_underflow():
    setup = RunSetup(framework="deepspeed", active_precision="fp16-mixed", scaler="static",
                     init_scale=2.0**-8)
    m = Monitor(MonitorConfig(report_dir=None))
    m.start(setup)
    for step in range(5):
        m.observe(Observation(step, scale_before=2.0**-8, scale_after=2.0**-8, loss=1.0))
    (underflow,) = [d for d in m.diagnoses if d.code == "AMP004"]
    assert underflow.step == 0 and underflow.evidence["cause"] == "gradient-underflow"
    assert '"loss_scale": 0' in underflow.fix


def test_minibatch_noise_is_not_a_rising_loss():
    losses = (2.1, 2.0, 1.9, 1.8, 1.9, 1.8, 1.7, 3.5, 1.2, 2.9)
    ev = RunEvidence("AMP006", 300, updates_before=300, losses_before=losses,
                     origin=OriginFacts("activation-overflow", module="ffn.wo",
                                        exceeded_fp16=True, inputs_finite=True))
    assert judge(ev).kind == "activation-overflow"


def test_without_evidence_the_catalog_text_stays():
    ev = RunEvidence("AMP006", 400, updates_before=400, losses_before=(0.5,) * 10)
    assert judge(ev).kind == "undetermined"


# -- fix texts follow the run (item 14) ----------------------------------------------------

@pytest.mark.parametrize("code", ["AMP001", "AMP002"])
def test_cpu_runs_are_not_told_to_autocast_on_cuda(code):
    m = EngineMonitor(MonitorConfig(report_dir=None))
    m.start(RunSetup(framework="torch", active_precision="fp16-mixed", scaler="dynamic",
                     extra={"device": "cpu"}))
    from denpex_callbacks import Finding

    (d,) = m.flag(Finding(code, 3, "seen"))
    assert "'cuda'" not in d.fix and "torch.autocast('cpu'" in d.fix


def test_cuda_runs_keep_cuda():
    m = EngineMonitor(MonitorConfig(report_dir=None))
    m.start(RunSetup(framework="torch", active_precision="fp16-pure", extra={"device": "cuda"}))
    (d,) = [d for d in m.diagnoses if d.code == "AMP001"]
    assert "torch.amp.GradScaler('cuda')" in d.fix


def test_deepspeed_collapse_with_clipping_set_does_not_ask_for_it():
    setup = RunSetup(framework="deepspeed", active_precision="fp16-mixed", scaler="dynamic",
                     extra={"gradient_clipping": 1.0})
    m = Monitor(MonitorConfig(report_dir=None))
    m.start(setup)
    scale = 2.0**10
    for step in range(400):  # stable for 300 steps, then a streak with a flat loss
        skipped = step >= 300
        m.observe(Observation(step, scale_before=scale,
                              scale_after=scale / 2 if skipped else scale, loss=1.0))
        scale = scale / 2 if skipped else scale
    collapse = next(d for d in m.diagnoses if d.code == "AMP003")
    assert '"gradient_clipping": 1.0' not in collapse.fix
    assert "clipping is already on (max norm 1)" in collapse.fix


@pytest.mark.parametrize("framework,recipe", [
    ("lightning", "MixedPrecision('16-mixed', 'cpu'"),
    ("hf", "torch.amp.GradScaler('cpu')"),
])
def test_fp16_requested_on_cpu_points_to_the_cpu_recipe(framework, recipe):
    m = EngineMonitor(MonitorConfig(report_dir=None), framework=framework)
    found = m.start(RunSetup(framework=framework, requested_precision="16-mixed",
                             active_precision="bf16-mixed", extra={"device": "cpu"}))
    (d,) = [d for d in found if d.code == "AMP010"]
    assert recipe in d.fix and "fp16 on CPU" in d.fix


def test_lints_bring_no_cause_of_their_own():
    assert all(f.fix is None for f in lint_setup(RunSetup(active_precision="fp16-pure")))


def test_every_cause_class_has_a_text():
    for kind in causes.CAUSES[:6]:  # (the classes with texts of their own)
        root, fix = causes.fixes.text_for(kind, "AMP006", RunSetup(), reasons=["x"])
        assert root and fix
