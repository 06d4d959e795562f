"""The non-finite locator on real fp16 autocast + GradScaler loops (CPU), through AmpMonitor."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from locate_models import (
    FAULT_STEP,
    TinyT5,
    backward_only_overflow,
    hooks_on,
    nan_in_batches,
    nan_in_one_batch,
    overflow_block2,
    run,
)
from torch.utils._python_dispatch import TorchDispatchMode

from denpex_callbacks import MonitorConfig, Severity, read_report
from denpex_callbacks.core import catalog
from denpex_callbacks.locate.locator import NonFiniteLocator

# These tests watch the locator armed for the step after a fault: the failing-step re-run
# (tests/locate/test_rerun_torch.py) is switched off so that the next step is what is located.
NEXT_STEP = {"config": MonitorConfig(report_dir=None, rerun=False)}


def scale_up_block2(model: TinyT5, step: int, x: torch.Tensor) -> torch.Tensor:
    """From FAULT_STEP the 3rd block's activations exceed 65504 (its weights scaled up)."""
    if step == FAULT_STEP:
        overflow_block2(model)
    return x


def diagnosis(result, code):
    return next(d for d in result.monitor.diagnoses if d.code == code)


def test_activation_overflow_in_third_block_amends_amp006():
    result = run(10, fault=scale_up_block2, scaler_kwargs={"init_scale": 2.0**10},
                 monitor_kwargs=NEXT_STEP)
    nan_loss = diagnosis(result, "AMP006")
    assert (nan_loss.step, nan_loss.reported_step) == (FAULT_STEP, FAULT_STEP)
    origin = nan_loss.evidence["origin"]
    assert origin["verdict"] == "activation-overflow"
    assert origin["located_step"] == FAULT_STEP + 1
    assert (origin["module"], origin["module_type"]) == ("blocks.2.wo", "Linear")
    assert origin["exceeded_fp16"] is True
    assert origin["output_absmax"] == float("inf")
    assert 0 < origin["input_absmax"] < 65504.0  # the input was fine: wo itself overflowed
    assert nan_loss.root_cause.startswith("activation overflow in blocks.2.wo (Linear)")
    assert nan_loss.root_cause != catalog.entry("AMP006").root_cause
    assert "Keep blocks.2.wo in fp32" in nan_loss.fix and "bf16" in nan_loss.fix
    assert "located at step 6" in nan_loss.summary
    # Hooked from the end of the faulty step to the end of the next one only.
    assert [i for i, n in enumerate(result.hooks_mid_step) if n] == [FAULT_STEP + 1]
    assert [i for i, n in enumerate(result.hooks_after_step) if n] == [FAULT_STEP]
    assert result.hooks_after_close == 0


def test_nan_in_the_batch_is_a_data_problem():
    result = run(9, fault=nan_in_batches)
    nan_loss = diagnosis(result, "AMP006")
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    assert origin["verdict"] == "input-data"
    assert origin["module"] == "embed"  # the first module to receive the batch
    assert origin["inputs_nonfinite"] is True and origin["backward_overflow"] is False
    assert origin["inputs_absmax"] != origin["inputs_absmax"]  # NaN
    assert nan_loss.root_cause.startswith("non-finite values in the input batch: a data problem")
    assert "not AMP" in nan_loss.root_cause and "isfinite(batch)" in nan_loss.fix


def test_one_bad_batch_that_does_not_recur_points_to_that_batch():
    # Was: the catalog's cause kept. The next step ran finite at the same weights (the scaler
    # skipped the bad one): nothing but that step's batch can have held the NaN.
    result = run(9, fault=nan_in_one_batch, monitor_kwargs=NEXT_STEP)
    nan_loss = diagnosis(result, "AMP006")
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"]) == ("not-reproduced", FAULT_STEP + 1)
    assert nan_loss.evidence["cause"] == "bad-data"
    assert nan_loss.root_cause.startswith("bad input data, not AMP")
    assert f"the batch of step {FAULT_STEP}" in nan_loss.fix
    assert "did not recur" in nan_loss.summary and origin["loss_finite"] is True


def test_gradient_overflow_in_backward_with_finite_loss_amends_amp003(tmp_path):
    result = run(13, fault=backward_only_overflow, monitor_kwargs={"report_dir": str(tmp_path)})
    assert all(loss == loss and abs(loss) < 1e3 for loss in result.losses)  # loss finite
    assert "AMP006" not in [d.code for d in result.monitor.diagnoses]
    collapse = diagnosis(result, "AMP003")
    assert (collapse.step, collapse.reported_step) == (FAULT_STEP, FAULT_STEP + 5)
    origin = collapse.evidence["origin"]
    assert origin["verdict"] == "backward-overflow"
    assert (origin["backward_module"], origin["backward_role"]) == ("blocks.2.wo", "input")
    assert origin["loss_finite"] is True and origin["grads_finite"] is False
    assert origin["backward_overflow"] is True and origin["inputs_nonfinite"] is False
    assert "module" not in origin  # no forward origin: every activation was finite
    assert collapse.root_cause.startswith("gradient overflow in the backward of blocks.2.wo")
    # The run report holds the amended diagnosis in place of the original.
    on_disk = [d for d in read_report(tmp_path / "rank0.jsonl").diagnoses if d.code == "AMP003"]
    assert len(on_disk) == 1 and on_disk[0].root_cause == collapse.root_cause


def test_healthy_run_hooks_the_model_only_to_capture_its_inputs():
    result = run(40, scaler_kwargs={"growth_interval": 10})
    assert [d for d in result.monitor.diagnoses if d.severity.rank >= Severity.WARNING.rank] == []
    # A forward pre-hook keeps the inputs and RNG state for a re-run, a forward hook whether
    # the output was finite; nothing else.
    assert set(result.hooks_mid_step) == {2} and set(result.hooks_after_step) == {2}
    assert result.hooks_after_close == 0
    assert result.monitor.pipeline.locate.rerun.held_steps == []  # released once judged healthy
    off = run(40, scaler_kwargs={"growth_interval": 10}, monitor_kwargs=NEXT_STEP)
    assert set(off.hooks_mid_step) == {0} and set(off.hooks_after_step) == {0}


def test_locate_false_never_arms():
    result = run(10, fault=scale_up_block2, scaler_kwargs={"init_scale": 2.0**10},
                 monitor_kwargs={"config": MonitorConfig(report_dir=None, locate=False)})
    assert "origin" not in diagnosis(result, "AMP006").evidence
    assert set(result.hooks_mid_step) == {0}


class _CountOps(TorchDispatchMode):
    def __init__(self, counts: Counter[str]) -> None:
        super().__init__()
        self.counts = counts

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.counts[str(func)] += 1
        return func(*args, **(kwargs or {}))


def test_armed_step_adds_one_host_read_and_no_item(monkeypatch):
    syncs: dict[int, Counter[str]] = {}
    original_tolist = torch.Tensor.tolist

    def counting_tolist(tensor):
        current["tolist"] += 1
        return original_tolist(tensor)

    current: Counter[str] = Counter()
    monkeypatch.setattr(torch.Tensor, "tolist", counting_tolist)

    @contextmanager
    def count(step: int) -> Iterator[None]:
        current.clear()
        with _CountOps(current):
            yield
        syncs[step] = Counter(current)

    result = run(9, fault=scale_up_block2, scaler_kwargs={"init_scale": 2.0**10},
                 around_step=count, monitor_kwargs=NEXT_STEP)
    armed, plain = FAULT_STEP + 1, FAULT_STEP + 2  # both overflow; only the first is armed
    assert result.hooks_mid_step[armed] > 0 and result.hooks_mid_step[plain] == 0
    item = "aten._local_scalar_dense.default"
    assert syncs[armed][item] == syncs[plain][item]  # no .item()/float()/bool() per module
    assert syncs[armed]["tolist"] == syncs[plain]["tolist"] + 1  # one read for the whole step
    # The hooks are bounded by the model: one per module and one per parameter.
    model = result.model
    assert result.hooks_mid_step[armed] == len(list(model.modules())) + len(
        list(model.parameters()))


def test_inplace_relu_and_tied_weights_are_located_without_breaking_the_step():
    torch.manual_seed(0)
    shared = torch.nn.Linear(8, 8)
    model = torch.nn.Sequential(shared, torch.nn.ReLU(inplace=True), torch.nn.Linear(8, 8),
                                torch.nn.ReLU(inplace=True), shared)
    with torch.no_grad():  # 8 * (8 * 0.5) * 2e4 > 65504
        shared.weight.fill_(0.5), shared.bias.zero_(), model[2].weight.fill_(2e4)
    before = hooks_on(model)
    locator = NonFiniteLocator(model)
    locator.arm()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(torch.ones(4, 8))
    loss = out.float().sum()
    loss.backward()
    report = locator.finish(loss, step=0)
    assert report.forward is not None
    assert (report.forward.name, report.forward.type) == ("2", "Linear")
    assert report.forward.exceeded_fp16 and report.calls_seen == 6  # shared runs twice
    assert locator.hooks == 0 and hooks_on(model) == before


def test_a_failing_hook_is_logged_once_and_training_goes_on(caplog, monkeypatch):
    import denpex_callbacks.locate.locator as locator_module

    def broken(tensors):
        raise RuntimeError("boom")

    monkeypatch.setattr(locator_module, "absmax", broken)
    with caplog.at_level(logging.ERROR, logger="denpex_callbacks"):
        result = run(10, fault=scale_up_block2, scaler_kwargs={"init_scale": 2.0**10})
    assert len(result.losses) == 10
    errors = [r for r in caplog.records if "non-finite locator" in r.getMessage()]
    assert len(errors) == 1
    assert "origin" not in diagnosis(result, "AMP006").evidence
    assert not result.monitor.monitor.disabled  # monitoring itself goes on
    assert result.hooks_after_step[FAULT_STEP + 1:] == [0] * 4  # removed, never re-armed
    assert result.hooks_after_close == 0


def test_stop_policy_ending_the_run_while_armed_leaves_no_hooks():
    # fault_severity="warning": stop at the first report, while the locator is armed (an
    # error comes a step later, once the overflow has recurred).
    result = run(10, fault=scale_up_block2, scaler_kwargs={"init_scale": 2.0**10},
                 monitor_kwargs={"config": MonitorConfig(report_dir=None, on_fault="stop",
                                                         fault_severity="warning")},
                 stop_on_request=True)
    assert len(result.losses) == FAULT_STEP + 1  # the loop broke out right after AMP006
    assert result.hooks_after_step[-1] > 0  # armed for a step that never came...
    assert result.hooks_after_close == 0  # ...and close() took the hooks off


class _MaskedScores(torch.nn.Module):
    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return (scores + mask).softmax(-1)


def test_an_additive_attention_mask_is_not_read_as_an_overflow():
    model = _MaskedScores()
    scores = torch.randn(2, 4)
    mask = torch.zeros(2, 4)
    mask[:, -1] = torch.finfo(torch.float32).min  # how transformers masks positions out
    locator = NonFiniteLocator(model)
    locator.arm()
    model(scores, mask=mask)
    report = locator.finish(step=0)
    assert report.forward is None
    assert report.inputs_absmax == scores.abs().max().item()
    assert not report.peak.exceeded_fp16
