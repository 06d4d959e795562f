"""Which loss the HF adapter reads: the one the Trainer trains on and logs (issue 14, items 2
and 3): shares of a step under gradient accumulation, a loss first in a tuple, and saying so
when the model returns none (a custom compute_loss)."""

from __future__ import annotations

import logging
import math
from typing import Any

import pytest
from torch import nn
from transformers import Trainer

from denpex_callbacks import MonitorConfig, read_report
from denpex_callbacks.hf import AmpDiagnosticCallback


class TokenNormalisedRegressor(nn.Module):
    """Accepts loss kwargs (``**kwargs``), as GPT-2 does: its loss is the sum of squared
    errors over ``num_items_in_batch``, the item count of the whole accumulated batch."""

    def __init__(self, features: int = 8) -> None:
        super().__init__()
        self.lin = nn.Linear(features, 1)

    def forward(self, x: Any, labels: Any = None, **kwargs: Any) -> dict[str, Any]:
        out = self.lin(x).squeeze(-1)
        errors = (out.float() - labels) ** 2
        count = kwargs.get("num_items_in_batch")
        loss = errors.sum() / count if count is not None else errors.mean()
        return {"loss": loss, "logits": out}


class TupleRegressor(nn.Module):
    """``return_dict=False`` style: ``(loss, logits)``; the loss turns NaN from step k."""

    def __init__(self, nan_from: int, features: int = 8) -> None:
        super().__init__()
        self.lin, self.nan_from, self.calls = nn.Linear(features, 1), nan_from, 0

    def forward(self, x: Any, labels: Any = None) -> tuple[Any, Any]:
        out = self.lin(x).squeeze(-1)
        loss = ((out.float() - labels) ** 2).mean()
        if self.training:
            self.calls += 1
            if self.calls >= self.nan_from:
                loss = loss * math.nan
        return loss, out


class LogitsOnly(nn.Module):
    def __init__(self, features: int = 8) -> None:
        super().__init__()
        self.lin = nn.Linear(features, 1)

    def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
        return {"logits": self.lin(x).squeeze(-1)}


class CustomLossTrainer(Trainer):  # type: ignore[misc]
    def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False,
                     num_items_in_batch: Any = None) -> Any:
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = ((outputs["logits"].float() - labels) ** 2).mean()
        if model.training and self.state.global_step + 1 == getattr(self, "nan_at", None):
            loss = loss * float("nan")  # born in the subclass's own loss code
        return (loss, outputs) if return_outputs else loss


def test_accumulated_shares_are_summed_like_the_trainer_logs_them(hf, tmp_path):
    # Was: denpex averaged the 4 shares (HF logged 6.055, denpex recorded 1.514).
    callback = AmpDiagnosticCallback(config=MonitorConfig(report_dir=str(tmp_path / "r"),
                                                          record_every=1))
    trainer = hf.trainer(model=TokenNormalisedRegressor(), steps=6, callback=callback,
                         gradient_accumulation_steps=4, fp16_scaler={})
    trainer.train()
    logged = {e["step"]: e["loss"] for e in trainer.state.log_history if "loss" in e}
    recorded = {o.step: o.loss for o in read_report(tmp_path / "r" / "rank0.jsonl").steps}
    assert sorted(logged) == list(range(1, 7))
    for step, loss in logged.items():
        assert recorded[step] == pytest.approx(loss, rel=1e-3)


def test_without_loss_kwargs_the_micro_batch_losses_are_averaged(hf, tmp_path):
    callback = AmpDiagnosticCallback(config=MonitorConfig(report_dir=str(tmp_path / "r"),
                                                          record_every=1))
    trainer = hf.trainer(steps=4, callback=callback, gradient_accumulation_steps=4,
                         fp16_scaler={})
    trainer.train()
    logged = {e["step"]: e["loss"] for e in trainer.state.log_history if "loss" in e}
    recorded = {o.step: o.loss for o in read_report(tmp_path / "r" / "rank0.jsonl").steps}
    for step, loss in logged.items():
        assert recorded[step] == pytest.approx(loss, rel=1e-3)


def test_a_nan_loss_first_in_a_tuple_is_seen(hf):
    # Was: missed (the adapter read only output["loss"]).
    trainer = hf.trainer(model=TupleRegressor(nan_from=5), steps=10, fp16_scaler={})
    trainer.train()
    assert hf.first(hf.monitor_of(trainer), "AMP006").step == 5


def test_a_custom_compute_loss_is_the_loss_judged(hf, caplog, tmp_path):
    # Was: the loss of a Trainer subclass's compute_loss never left the model, so the loss
    # detectors were blind (said once at info). The loss is read where it is backpropagated
    # (the GradScaler's scale()): a NaN born in compute_loss is AMP006 at its step, and the
    # loss recorded is the one HF logs.
    def run(nan_at: int | None, report: str | None):
        trainer = hf.trainer(model=LogitsOnly(), steps=8, fp16_scaler={},
                             logging_nan_inf_filter=False)
        custom = CustomLossTrainer(model=trainer.model, args=trainer.args,
                                   train_dataset=trainer.train_dataset,
                                   callbacks=[AmpDiagnosticCallback(config=MonitorConfig(
                                       report_dir=report, record_every=1))])
        custom.nan_at = nan_at
        custom.accelerator.scaler = trainer.accelerator.scaler
        custom.accelerator.native_amp = True
        with caplog.at_level(logging.INFO, logger="transformers.denpex"):
            custom.train()
        return custom

    healthy = run(None, str(tmp_path / "r"))
    assert not [r for r in caplog.records if "returned no loss" in r.getMessage()]
    assert hf.fault_codes(hf.monitor_of(healthy)) == []
    logged = {e["step"]: e["loss"] for e in healthy.state.log_history if "loss" in e}
    recorded = {o.step: o.loss for o in read_report(tmp_path / "r" / "rank0.jsonl").steps}
    assert len(logged) == 8
    for step, loss in logged.items():
        assert recorded[step] == pytest.approx(loss, rel=1e-3)
    faulty = run(4, None)
    assert hf.first(hf.monitor_of(faulty), "AMP006").step == 4


