"""One real Trainer run per fault: the id and the step where it began."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import TrainerCallback  # noqa: E402

from denpex_callbacks import Severity  # noqa: E402
from denpex_callbacks.hf import AmpDiagnosticCallback  # noqa: E402


@pytest.mark.parametrize("optim", ["adamw_torch", "adamw_torch_fused"])
def test_inf_loss_from_step_k_is_amp006_then_collapse(hf: Any, optim: str) -> None:
    k = 5
    trainer = hf.trainer(fault="inf", from_step=k, steps=16, fp16_scaler={"init_scale": 1024.0},
                         optim=optim)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    nonfinite = hf.first(monitor, "AMP006")
    assert (nonfinite.step, nonfinite.reported_step) == (k, k)
    collapse = hf.first(monitor, "AMP003")
    assert collapse.step == k
    assert collapse.caused_by == "AMP006"
    assert hf.fault_codes(monitor)[0] == "AMP006"
    # every step from k on was skipped (found_inf), none before
    assert monitor.run.skipped_total == 16 - k + 1


def test_nan_inf_filter_info_at_start_warning_when_a_nonfinite_loss_happens(hf: Any) -> None:
    k = 4
    trainer = hf.trainer(fault="inf", from_step=k, steps=8, fp16_scaler={})
    trainer.train()
    hidden = [d for d in hf.monitor_of(trainer).diagnoses if d.code == "AMP009"]
    assert [(d.severity, d.step) for d in hidden] == [(Severity.INFO, 0), (Severity.WARNING, k)]
    # HF itself logs the inf loss as 0: the reason for the warning
    logged = {row["step"]: row["loss"] for row in trainer.state.log_history if "loss" in row}
    assert logged[k] == 0.0


def test_huge_lr_overflows_fp16_activations(hf: Any) -> None:
    spy = hf.StepSpy()
    trainer = hf.trainer(steps=20, fp16_scaler={"init_scale": 1024.0}, learning_rate=1e5,
                         optim="adamw_torch", extra_callbacks=[spy], logging_nan_inf_filter=False)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    # independent evidence: HF's own log of the loss (filter off) and accelerate's skip flag
    # (right for a non-fused optimizer)
    logged = {row["step"]: row["loss"] for row in trainer.state.log_history if "loss" in row}
    first_nonfinite = min(s for s, loss in logged.items() if not math.isfinite(loss))
    first_skip = min(s for s, skipped in spy.was_skipped.items() if skipped)
    assert hf.first(monitor, "AMP006").step == first_nonfinite
    assert hf.first(monitor, "AMP003").step == first_skip
    assert hf.first(monitor, "AMP003").caused_by == "AMP006"


def test_growth_interval_that_never_grows_is_amp005_at_start(hf: Any) -> None:
    trainer = hf.trainer(steps=5, fp16_scaler={"growth_interval": 10**9})
    trainer.train()
    stuck = hf.first(hf.monitor_of(trainer), "AMP005")
    assert stuck.step == 0
    assert stuck.evidence["growth_interval"] == 10**9


def test_loss_forced_to_zero_is_amp007(hf: Any) -> None:
    k = 3
    trainer = hf.trainer(fault="zero", from_step=k, steps=k + 25, fp16_scaler={})
    trainer.train()
    monitor = hf.monitor_of(trainer)
    zero = hf.first(monitor, "AMP007")
    assert zero.step == k
    assert zero.reported_step == k + 19  # zero_loss_steps (20) in a row
    assert hf.fault_codes(monitor) == ["AMP007"]


def test_bf16_nan_loss_is_amp006_only(hf: Any) -> None:
    k = 3
    trainer = hf.trainer(fault="nan", from_step=k, steps=10, bf16=True,
                         logging_nan_inf_filter=False)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert monitor.setup.active_precision == "bf16-mixed"
    assert monitor.setup.scaler is None
    assert "scale detectors off" in monitor.header_line()
    assert hf.fault_codes(monitor) == ["AMP006"]
    assert hf.first(monitor, "AMP006").step == k
    assert "amp/loss_scale" not in trainer.state.log_history[0]


class SkipNonFiniteUpdate(TrainerCallback):  # type: ignore[misc]
    """The guard the fix for poisoned bf16 weights gives HF users, as written there."""

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, model: Any = None,
                              optimizer: Any = None, **kwargs: Any) -> None:
        if any(not torch.isfinite(p.grad).all() for p in model.parameters()
               if p.grad is not None):
            optimizer.zero_grad(set_to_none=True)


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "guarded"])
def test_bf16_nan_sample_applied_to_the_weights_names_its_batch(hf: Any, guarded: bool) -> None:
    # No scaler in bf16: the NaN sample's update is applied and every later loss is NaN. The
    # located fix names that batch and HF's guard; with the guard the weights stay finite.
    k = 3
    data = hf.RandomRegression(nonfinite_at=(8 * (k - 1) + 5,))
    trainer = hf.trainer(steps=8, bf16=True, in_order=True, train_dataset=data,
                         learning_rate=3e-3, logging_nan_inf_filter=False,
                         extra_callbacks=[SkipNonFiniteUpdate()] if guarded else [])
    trainer.train()
    first = hf.first(hf.monitor_of(trainer), "AMP006")
    assert first.step == k
    if guarded:
        assert all(torch.isfinite(p).all() for p in trainer.model.parameters())
        assert first.evidence["origin"]["verdict"] != "nonfinite-weights"
        return
    assert first.evidence["origin"]["verdict"] == "nonfinite-weights"
    assert f"skip the batch of step {k}" in first.fix
    assert "on_pre_optimizer_step" in first.fix and "scaler.step" not in first.fix


def test_fp16_requested_on_cpu_without_a_scaler_is_amp010(hf: Any) -> None:
    trainer = hf.trainer(steps=3, fp16=True)  # plain Trainer: accelerate runs fp32 on CPU
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert hf.fault_codes(monitor) == ["AMP010"]
    assert hf.first(monitor, "AMP010").step == 0
    assert monitor.setup.active_precision == "fp32"


def test_bf16_checkpoint_trained_in_fp16_is_amp011(hf: Any) -> None:
    from transformers import PretrainedConfig

    model = hf.FaultyRegressor()
    model.config = PretrainedConfig(dtype="bfloat16")
    trainer = hf.trainer(steps=2, fp16_scaler={}, model=model)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert monitor.setup.active_precision == "fp16-mixed"
    assert hf.first(monitor, "AMP011").step == 0


def test_healthy_200_steps_with_sawtooth_are_quiet(hf: Any) -> None:
    spy = hf.StepSpy()
    trainer = hf.trainer(steps=200, fp16_scaler={"init_scale": 2.0**16, "growth_interval": 50},
                         extra_callbacks=[spy], logging_steps=10)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert monitor.faults() == []
    assert not monitor.disabled
    assert monitor.run.steps_seen == 200
    # the run did see the normal overflow sawtooth (the default optimizer is fused AdamW, so
    # count skips as scale decreases), and the callback counted each of them
    scales = [2.0**16] + [spy.scale_after[s] for s in sorted(spy.scale_after)]
    decreases = sum(after < before for before, after in itertools.pairwise(scales))
    assert 0 < monitor.run.skipped_total == decreases


def test_fp16_parameters_with_a_scaler_is_amp012_before_torch_raises(hf: Any) -> None:
    cb = AmpDiagnosticCallback(report_dir=None)
    trainer = hf.trainer(steps=3, fp16_scaler={}, model=hf.FaultyRegressor().half(), callback=cb)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        trainer.train()
    assert cb.monitor is not None
    assert [(d.code, d.step) for d in cb.monitor.faults()] == [("AMP012", 0)]
