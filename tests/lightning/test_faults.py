"""One real CPU fp16 Lightning run per fault: the id and the step where it began."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

from denpex_callbacks import MonitorConfig, Severity
from denpex_callbacks.core.report import RunReport
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import ManualTinyModule, TinyModule

Fit = Callable[..., tuple[Any, RunReport]]
FAULT_STEP = 5


def callback(**kwargs: Any) -> AmpDiagnosticCallback:
    return AmpDiagnosticCallback(report_dir="reports", **kwargs)


def above_info(report: RunReport) -> list[str]:
    return [d.code for d in report.diagnoses if d.severity is not Severity.INFO]


def test_inf_loss_from_step_k_is_amp006_at_k(fit: Fit) -> None:
    trainer, report = fit(TinyModule(fault="nan", fault_step=FAULT_STEP), callback())
    first = report.diagnoses[0]
    assert (first.code, first.step, first.reported_step) == ("AMP006", FAULT_STEP, FAULT_STEP)
    collapse = next(d for d in report.diagnoses if d.code == "AMP003")
    # every step from k is skipped: a collapse that began at k, seen after the skip streak
    assert collapse.step == FAULT_STEP
    assert collapse.reported_step == FAULT_STEP + 5
    assert collapse.caused_by == "AMP006"
    assert report.summary is not None
    assert report.summary["steps"] == trainer.global_step == 30
    assert report.summary["skipped_steps"] == 30 - FAULT_STEP


def test_huge_lr_overflows_after_the_first_update(fit: Fit) -> None:
    _, report = fit(TinyModule(fault="overflow"), callback())
    first = report.diagnoses[0]
    # step 0 applies the 1e6 LR; from step 1 the fp16 forward overflows
    assert (first.code, first.step) == ("AMP006", 1)
    assert [d.code for d in report.diagnoses][:2] == ["AMP006", "AMP003"]


def test_growth_interval_huge_is_amp005_at_start(fit: Fit) -> None:
    _, report = fit(TinyModule(), callback(), fp16="stuck")
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP005", 0)]
    assert report.diagnoses[0].evidence["pattern"] == "growth-disabled"


def test_loss_forced_to_zero_is_amp007_from_k(fit: Fit) -> None:
    _, report = fit(TinyModule(fault="zero", fault_step=FAULT_STEP), callback())
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP007", FAULT_STEP)]
    # reported after zero_loss_steps (20) zero losses
    assert report.diagnoses[0].reported_step == FAULT_STEP + 19


def test_healthy_run_is_quiet(fit: Fit) -> None:
    _, report = fit(TinyModule(), callback(), steps=200)
    assert above_info(report) == []
    assert report.summary is not None
    assert report.summary["steps"] == 200
    assert report.summary["last_scale"] == 2.0**16
    assert report.header["setup"]["active_precision"] == "fp16-mixed"
    assert report.header["setup"]["requested_precision"] == "16-mixed"


def test_gradient_accumulation_observes_optimizer_steps(fit: Fit) -> None:
    module = TinyModule(fault="nan", fault_step=3)
    config = MonitorConfig(record_every=1)
    trainer, report = fit(module, callback(config=config), steps=10, accumulate_grad_batches=4)
    assert trainer.global_step == 10
    assert [obs.step for obs in report.steps] == list(range(10))
    first = report.diagnoses[0]
    assert (first.code, first.step) == ("AMP006", 3)
    # the step's loss is the mean of its 4 micro-batch losses (finite before the fault)
    assert all(obs.loss is not None and obs.loss < 10 for obs in report.steps[:3])


def test_manual_optimization(fit: Fit) -> None:
    trainer, report = fit(ManualTinyModule(fault="nan", fault_step=FAULT_STEP), callback())
    assert trainer.global_step == 30
    assert report.summary is not None and report.summary["steps"] == 30
    first = report.diagnoses[0]
    assert (first.code, first.step) == ("AMP006", FAULT_STEP)
    assert report.summary["skipped_steps"] == 30 - FAULT_STEP


def test_fused_optimizer_skips_are_read_from_the_scale(fit: Fit) -> None:
    module = TinyModule(fault="nan", fault_step=FAULT_STEP, lr=1e-3, fused=True)
    _, report = fit(module, callback(config=MonitorConfig(record_every=1)))
    # Lightning does not unscale_ for fused optimizers, but GradScaler.step() records found_inf
    # for them too, and the reader takes it at update(): every step's skip is known outright.
    assert [obs.skipped for obs in report.steps] == [step >= FAULT_STEP for step in range(30)]
    assert report.summary is not None and report.summary["skipped_steps"] == 30 - FAULT_STEP
    assert [(d.code, d.step) for d in report.diagnoses[:2]] == [
        ("AMP006", FAULT_STEP), ("AMP003", FAULT_STEP)
    ]


def test_pure_fp16_is_amp001(fit: Fit) -> None:
    _, report = fit(TinyModule(), callback(), precision="16-true", steps=3)
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP001", 0)]
    assert report.header["setup"]["active_precision"] == "fp16-pure"
    assert report.header["setup"]["fp16_parameters"] is True


@pytest.mark.parametrize("auto", ["1", "0"])
def test_plain_16_mixed_on_cpu_is_amp010(
    fit: Fit, auto: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the entry-point factory records the Trainer's precision argument even when it adds
    # no callback of its own (DENPEX_AUTO=0)
    monkeypatch.setenv("DENPEX_AUTO", auto)
    with pytest.warns(UserWarning, match="Using `precision='bf16-mixed'` instead"):
        _, report = fit(TinyModule(), callback(), precision="16-mixed", steps=3)
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP010", 0)]
    setup = report.header["setup"]
    assert (setup["requested_precision"], setup["active_precision"]) == ("16-mixed", "bf16-mixed")
    assert setup["scaler"] is None


def test_explicit_bf16_is_not_amp010_and_nan_is_still_caught(fit: Fit) -> None:
    module = TinyModule(fault="nan", fault_step=2)
    _, report = fit(module, callback(), precision="bf16-mixed", steps=12)
    # no scaler: scale detectors off, only the loss speaks
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP006", 2)]


class NaNSampleModule(TinyModule):  # type: ignore[misc]
    """One NaN sample in the batch of FAULT_STEP; ``guarded``: on_before_optimizer_step drops
    non-finite gradients, the guard the fix for poisoned bf16 weights gives Lightning users
    (safe on several ranks: the gradients are synchronised by then)."""

    def __init__(self, guarded: bool) -> None:
        super().__init__(lr=0.05)
        self.guarded = guarded

    def on_before_optimizer_step(self, optimizer: Any) -> None:
        if self.guarded and any(not torch.isfinite(p.grad).all() for p in self.parameters()
                                if p.grad is not None):
            optimizer.zero_grad(set_to_none=True)

    def train_dataloader(self) -> Any:
        loader = super().train_dataloader()
        x, y = loader.dataset.tensors
        x = x.clone()
        x[8 * FAULT_STEP + 2, 4] = float("nan")
        return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)


@pytest.mark.parametrize("guarded", [False, True], ids=["unguarded", "guarded"])
def test_bf16_nan_sample_applied_to_the_weights_names_its_batch(fit: Fit, guarded: bool) -> None:
    module = NaNSampleModule(guarded)
    _, report = fit(module, callback(), precision="bf16-mixed", steps=12)
    first = report.diagnoses[0]
    assert (first.code, first.step) == ("AMP006", FAULT_STEP)
    if guarded:  # the update was dropped: the weights stay finite, the batch is the cause
        assert all(torch.isfinite(p).all() for p in module.parameters())
        assert first.evidence["origin"]["verdict"] != "nonfinite-weights"
        return
    assert first.evidence["origin"]["verdict"] == "nonfinite-weights"
    assert f"skip the batch of step {FAULT_STEP}" in first.fix
    assert "on_before_optimizer_step" in first.fix and "scaler.step" not in first.fix


def test_pytorch_lightning_namespace(fit: Fit, tmp_path: Any) -> None:
    pl = pytest.importorskip("pytorch_lightning")
    from denpex_callbacks.testing.tiny_lightning import TinyLogic

    class PLTinyModule(TinyLogic, pl.LightningModule):
        def training_step(self, batch: Any, batch_idx: int) -> torch.Tensor:
            return self.faulty_loss(batch)

    from denpex_callbacks.pytorch_lightning import AmpDiagnosticCallback as PLCallback

    cb = PLCallback(report_dir="reports")
    assert isinstance(cb, pl.Callback)
    trainer, report = fit(PLTinyModule(fault="nan", fault_step=FAULT_STEP), cb, namespace=pl)
    assert type(trainer).__module__.startswith("pytorch_lightning")
    assert (report.diagnoses[0].code, report.diagnoses[0].step) == ("AMP006", FAULT_STEP)
    assert report.header["versions"]["pytorch-lightning"] == pl.__version__


def test_disabled_scaler_with_fp16_autocast_is_amp001(fit: Fit) -> None:
    from lightning.pytorch.plugins import MixedPrecision

    plugin = MixedPrecision("16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu", enabled=False))
    _, report = fit(TinyModule(), callback(), fp16=None, plugins=[plugin], steps=3)
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP001", 0)]
    assert report.header["setup"]["scaler"] is None


class _PerSampleLossModule(ManualTinyModule):  # type: ignore[misc]
    """Manual optimization whose training_step returns each sample's loss (a vector)."""

    def training_step(self, batch: Any, batch_idx: int) -> Any:
        optimizer = self.optimizers()
        x, y = batch
        per_sample = ((self.net(x).float() - y) ** 2).squeeze(-1)
        if self.fault == "nan" and self.global_step >= self.fault_step:
            per_sample = per_sample * float("inf")
        self.manual_backward(per_sample.mean())
        optimizer.step()
        optimizer.zero_grad()
        return per_sample.detach()


@pytest.mark.parametrize("fault", ["none", "nan"])
def test_manual_optimization_returning_per_sample_losses(fit: Fit, fault: str) -> None:
    # The hot path reads a scalar loss; a vector goes the full way (its mean), and
    # monitoring stays on.
    cb = callback()
    trainer, report = fit(_PerSampleLossModule(fault=fault, fault_step=FAULT_STEP), cb)
    assert cb.monitor is not None and not cb.monitor.disabled
    assert report.summary is not None and report.summary["steps"] == trainer.global_step == 30
    if fault == "none":
        assert above_info(report) == []
    else:
        first = report.diagnoses[0]
        assert (first.code, first.step) == ("AMP006", FAULT_STEP)
