"""The amp_smoke fixture used directly (this session loads the plugin from its entry point):
what it finds, at which step, and what it leaves alone."""

from __future__ import annotations

import math

import pytest
import torch
from inner_models import (
    FAULT_STEP,
    Regressor,
    exploding_grad_batch,
    overflowing_batch,
    regression_batch,
)

from denpex_callbacks import MonitorConfig, Severity, read_report
from denpex_callbacks.testing.smoke import run_amp_smoke


def found(diagnoses):
    return [(d.code, d.step) for d in diagnoses]


def faults(diagnoses):
    return [d for d in diagnoses if d.severity.rank >= Severity.WARNING.rank]


def test_healthy_model_is_quiet_and_trains(amp_smoke):
    diagnoses = amp_smoke(Regressor(), regression_batch, steps=50)
    assert faults(diagnoses) == []
    result = amp_smoke.results[-1]
    assert result.steps_run == 50
    # The CPU start-up back-off happened (the scale moved) and was not reported.
    assert result.final_scale is not None and result.final_scale < result.init_scale


def test_fp16_activation_overflow_is_amp006_then_collapse(amp_smoke):
    diagnoses = amp_smoke(Regressor(gain=10.0), overflowing_batch, fail_on="never")
    assert found(diagnoses)[:2] == [("AMP006", FAULT_STEP), ("AMP003", FAULT_STEP)]
    assert diagnoses[0].is_primary and diagnoses[1].caused_by == "AMP006"
    assert diagnoses[1].reported_step == FAULT_STEP + 5


def test_gradient_overflow_with_finite_loss_is_amp003(amp_smoke):
    diagnoses = amp_smoke(Regressor(), exploding_grad_batch, fail_on="never")
    assert found(diagnoses) == [("AMP003", FAULT_STEP)]
    assert diagnoses[0].evidence["consecutive_skipped"] == 6


def test_growth_disabled_is_amp005_at_start(amp_smoke):
    diagnoses = amp_smoke(Regressor(), regression_batch, growth_interval=10**9, fail_on="never")
    assert found(diagnoses) == [("AMP005", 0)]
    assert diagnoses[0].evidence["pattern"] == "growth-disabled"


def test_thresholds_are_passed_to_the_detectors(amp_smoke):
    # A shorter streak reports the same collapse sooner: the thresholds reach the monitor.
    diagnoses = amp_smoke(Regressor(), exploding_grad_batch, fail_on="never",
                          thresholds={"collapse_skip_streak": 3})
    assert [(d.code, d.step, d.reported_step) for d in diagnoses] == [
        ("AMP003", FAULT_STEP, FAULT_STEP + 2)
    ]


@pytest.mark.denpex(disable=("AMP005",))
def test_marker_disables_a_diagnosis(amp_smoke):
    assert amp_smoke(Regressor(), regression_batch, steps=5, growth_interval=10**9) == []


def test_users_model_rng_and_mode_are_untouched(amp_smoke):
    model = Regressor(gain=10.0).eval()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    pointers = {name: p.data_ptr() for name, p in model.named_parameters()}
    rng = torch.get_rng_state()
    # A faulty run: the copy is trained into NaN and collapse, the original must not care.
    amp_smoke(model, overflowing_batch, fail_on="never")
    assert not model.training
    assert torch.equal(torch.get_rng_state(), rng)
    for name, param in model.named_parameters():
        assert torch.equal(param, before[name]), name
        assert param.data_ptr() == pointers[name] and param.grad is None
    assert not model._forward_pre_hooks


def test_same_seed_same_run(amp_smoke):
    first = amp_smoke(Regressor(), exploding_grad_batch, fail_on="never", seed=3)
    second = amp_smoke(Regressor(), exploding_grad_batch, fail_on="never", seed=3)
    assert found(first) == found(second)
    assert amp_smoke.results[0].final_scale == amp_smoke.results[1].final_scale


class DictModel(torch.nn.Module):
    """Hugging Face style: keyword inputs, a mapping output with "loss"."""

    def __init__(self) -> None:
        super().__init__()
        self.net = Regressor()

    def forward(self, x, y):
        return {"loss": self.net(x, y), "logits": None}


class TupleModel(DictModel):
    def forward(self, x, y):
        return self.net(x, y), None


class LogitsModel(torch.nn.Module):
    """Returns predictions; the loss comes from loss_fn(output, batch)."""

    def __init__(self) -> None:
        super().__init__()
        self.net = Regressor()

    def forward(self, batch):
        return self.net.head(torch.relu(self.net.hidden(batch[0])))


def mse(output, batch):
    return torch.nn.functional.mse_loss(output.float(), batch[1])


def dict_batch(step):
    x, y = regression_batch(step)
    return {"x": x, "y": y}


def list_batch(step):
    return list(regression_batch(step))  # a list is spread too: model(*batch)


class Pair:
    """Neither a tuple, a list nor a mapping: passed as ``model(batch)`` unchanged."""

    def __init__(self, step):
        self.x, self.y = regression_batch(step)

    def __getitem__(self, index):
        return (self.x, self.y)[index]


@pytest.mark.parametrize(
    ("model", "make_batch", "loss_fn"),
    [
        (Regressor, regression_batch, None),  # model(*batch) -> loss tensor
        (DictModel, dict_batch, None),  # model(**batch) -> output["loss"]
        (TupleModel, list_batch, None),  # -> output[0]
        (LogitsModel, Pair, mse),  # model(batch) -> loss_fn(output, batch)
    ],
    ids=["tensor", "mapping", "tuple", "loss_fn"],
)
def test_batch_and_loss_contracts(amp_smoke, model, make_batch, loss_fn):
    diagnoses = amp_smoke(model(), make_batch, steps=8, loss_fn=loss_fn)
    assert faults(diagnoses) == [] and amp_smoke.results[-1].steps_run == 8


def test_model_without_a_scalar_loss_is_a_clear_error(amp_smoke):
    with pytest.raises(TypeError, match=r"not a scalar loss tensor \(got \(32, 1\)\).*loss_fn="):
        amp_smoke(LogitsModel(), Pair, steps=2)


def test_optimizer_factory_and_lr_are_used(amp_smoke):
    made = []

    def sgd(params, lr):
        made.append(lr)
        return torch.optim.SGD(params, lr=lr)

    amp_smoke(Regressor(), regression_batch, steps=3, optimizer=sgd, lr=0.05)
    assert made == [0.05]
    amp_smoke(Regressor(), regression_batch, steps=3, optimizer=torch.optim.SGD, lr=0.05)


def test_gradient_clipping_hands_the_norm_to_the_monitor(tmp_path):
    result = run_amp_smoke(Regressor(), exploding_grad_batch, max_grad_norm=1.0,
                           report_dir=str(tmp_path), device="cpu")
    # Clipping happens after unscale_: overflowing gradients are still skipped.
    assert found(result.diagnoses) == [("AMP003", FAULT_STEP)]
    steps = read_report(tmp_path / "rank0.jsonl").steps
    norms = {obs.step: obs.grad_norm for obs in steps}
    assert norms[0] is not None and norms[0] > 0
    assert not math.isfinite(norms[FAULT_STEP])  # the overflowing step, as clip_grad_norm_ saw it


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(),
                    reason="needs a CUDA device (this torch build or machine has none)")
def test_cuda_run_finds_what_the_cpu_run_finds(amp_smoke):
    # On CUDA the monitor reads the scale and loss one step late; the steps it names must not move.
    on_cuda = amp_smoke(Regressor(gain=10.0), overflowing_batch, device="cuda", fail_on="never")
    on_cpu = amp_smoke(Regressor(gain=10.0), overflowing_batch, device="cpu", fail_on="never")
    assert found(on_cuda)[:2] == found(on_cpu)[:2] == [("AMP006", FAULT_STEP),
                                                       ("AMP003", FAULT_STEP)]
    assert amp_smoke.results[0].device.startswith("cuda:")
    assert faults(amp_smoke(Regressor(), regression_batch, device="cuda")) == []


def test_fp16_parameters_fail_with_amp012_and_torchs_error(amp_smoke):
    with pytest.raises(pytest.fail.Exception) as failure:
        amp_smoke(Regressor().half(), regression_batch)
    text = str(failure.value)
    assert "AMP012 fp16-master-weights [error]" in text and "(step 0, rank 0)" in text
    assert "for 0 steps" in text
    assert "then the training raised ValueError: Attempting to unscale FP16 gradients." in text
    result = amp_smoke.results[-1]
    assert isinstance(result.error, ValueError) and found(result.diagnoses) == [("AMP012", 0)]


def test_a_crash_nothing_explains_is_raised_as_is(amp_smoke):
    def broken_batch(step):
        if step == 3:
            raise KeyError("the data loader broke")
        return regression_batch(step)

    with pytest.raises(KeyError, match="the data loader broke"):
        amp_smoke(Regressor(), broken_batch)
    assert amp_smoke.results[-1].steps_run == 3


def test_config_policy_stop_ends_the_run_at_the_fault(amp_smoke):
    diagnoses = amp_smoke(Regressor(gain=10.0), overflowing_batch, fail_on="never",
                          config=MonitorConfig(on_fault="stop"))
    assert found(diagnoses) == [("AMP006", FAULT_STEP)]
    # The first NaN is absorbed by the scaler (a warning); the next one makes the fault
    # persistent (an error) and the run stops right after it.
    assert amp_smoke.results[-1].steps_run == FAULT_STEP + 2
