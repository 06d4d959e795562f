"""Metrics in Lightning's loggers, messages, policies, checkpoint resume, internal errors."""

from __future__ import annotations

import csv
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

from denpex_callbacks import AmpDiagnosisError
from denpex_callbacks.core.detectors.nonfinite_loss import NonFiniteLossDetector
from denpex_callbacks.core.report import RunReport, read_report
from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import TinyModule

Fit = Callable[..., tuple[Any, RunReport]]
FAULT_STEP = 5


def callback(**kwargs: Any) -> AmpDiagnosticCallback:
    return AmpDiagnosticCallback(report_dir="reports", **kwargs)


def test_metrics_reach_csv_and_tensorboard(tmp_path: Path, new_trainer: Any) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    class LoggingModule(TinyModule):  # the amp/ metrics ride on the module's own rows
        def training_step(self, batch: Any, batch_idx: int) -> Any:
            loss = super().training_step(batch, batch_idx)
            self.log("train_loss", loss.detach().float())
            return loss

    loggers = [CSVLogger(tmp_path, name="csv"), TensorBoardLogger(tmp_path, name="tb")]
    trainer = new_trainer(callbacks=[callback()], logger=loggers, steps=12,
                           log_every_n_steps=1)
    trainer.fit(LoggingModule(fault="nan", fault_step=FAULT_STEP))

    with open(Path(loggers[0].log_dir) / "metrics.csv", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r.get("amp/loss_scale")]
    assert len(rows) == 12
    assert float(rows[0]["amp/loss_scale"]) == 2.0**16
    assert float(rows[-1]["amp/skipped_steps"]) == 12 - FAULT_STEP
    assert "amp/skip_rate" not in rows[-1]  # derivable: not logged
    assert float(rows[-1]["amp/diagnoses"]) == 2  # AMP006, then AMP003

    events = EventAccumulator(loggers[1].log_dir)
    events.Reload()
    assert {"amp/loss_scale", "amp/skipped_steps", "amp/diagnoses"} <= set(
        events.Tags()["scalars"]
    )
    scales = [e.value for e in events.Scalars("amp/loss_scale")]
    assert scales[0] == 2.0**16 and scales[-1] == 2.0**16 / 2 ** (12 - FAULT_STEP)


def test_each_condition_is_logged_once(fit: Fit, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="lightning.pytorch.callbacks.amp_diagnostic"):
        fit(TinyModule(fault="nan", fault_step=FAULT_STEP), callback())
    lines = [r.getMessage() for r in caplog.records
             if r.name == "lightning.pytorch.callbacks.amp_diagnostic"]
    first = [line for line in lines if ", amended: " not in line and ", escalated: " not in line]
    assert sum(line.startswith("denpex: AMP006") for line in first) == 1  # 25 NaN steps
    # The absorbed first NaN is a warning; the second makes it persistent: one more line.
    escalated = [line for line in lines if ", escalated: " in line]
    assert len(escalated) == 1 and escalated[0].startswith(
        f"denpex: AMP006 non-finite-loss [error] step {FAULT_STEP}, rank 0, escalated: ")
    assert sum(line.startswith("denpex: AMP003") for line in first) == 1
    assert all("\n" not in line for line in lines)  # one line per record
    assert "fp16-mixed" in lines[0]  # the header says what is watched


def test_stop_policy_stops_after_the_faulty_step(fit: Fit) -> None:
    trainer, report = fit(TinyModule(fault="nan", fault_step=FAULT_STEP), callback(on_fault="stop"))
    # NaN from FAULT_STEP on: absorbed there (a warning), persistent one step later: stop.
    assert trainer.global_step == FAULT_STEP + 2
    assert report.summary is not None and report.summary["steps"] == FAULT_STEP + 2


def test_raise_policy_raises_at_the_faulty_step(fit: Fit) -> None:
    with pytest.raises(AmpDiagnosisError) as caught:
        fit(TinyModule(fault="nan", fault_step=FAULT_STEP), callback(on_fault="raise"))
    assert (caught.value.diagnosis.code, caught.value.diagnosis.step) == ("AMP006", FAULT_STEP)


def test_checkpoint_resume_keeps_the_detector_history(tmp_path: Path, new_trainer: Any) -> None:
    # 10 zero losses before the checkpoint, 10 after: AMP007 (20 in a row) only fires if
    # the count survived, and then it names step 5, where the zeros began.
    first = new_trainer(callbacks=[callback()], steps=15)
    first.fit(TinyModule(fault="zero", fault_step=FAULT_STEP))
    assert read_report(tmp_path / "reports" / "rank0.jsonl").diagnoses == []
    checkpoint = tmp_path / "mid.ckpt"
    first.save_checkpoint(checkpoint)

    resumed_callback = callback()
    second = new_trainer(callbacks=[resumed_callback], steps=30)
    second.fit(TinyModule(fault="zero", fault_step=FAULT_STEP), ckpt_path=str(checkpoint))
    report = read_report(tmp_path / "reports" / "rank0.jsonl")
    assert [(d.code, d.step, d.reported_step) for d in report.diagnoses] == [
        ("AMP007", FAULT_STEP, FAULT_STEP + 19)
    ]
    assert resumed_callback.monitor is not None
    assert resumed_callback.monitor.run.steps_seen == 30


def test_reader_error_does_not_break_training(
    fit: Fit, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("reader bug")

    # The reader of every step (the scaler's update, where it reads found_inf).
    monkeypatch.setattr("denpex_callbacks.readers.grad_scaler.GradScalerReader._found_inf",
                        broken)
    cb = callback()
    with caplog.at_level(logging.ERROR):
        trainer, report = fit(TinyModule(fault="nan", fault_step=FAULT_STEP), cb)
    assert trainer.global_step == 30
    assert sum("internal error" in r.getMessage() for r in caplog.records) == 1
    assert report.diagnoses == []  # monitoring stopped at the first step


def test_monitor_error_does_not_break_training(
    fit: Fit, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Any, obs: Any, run: Any) -> None:
        raise ZeroDivisionError("detector bug")

    monkeypatch.setattr(NonFiniteLossDetector, "observe", broken)
    cb = callback(on_fault="raise")
    with caplog.at_level(logging.ERROR):
        trainer, _ = fit(TinyModule(fault="nan", fault_step=FAULT_STEP), cb)
    assert trainer.global_step == 30
    assert cb.monitor is not None and cb.monitor.disabled
    assert sum("internal error" in r.getMessage() for r in caplog.records) == 1


def test_other_ranks_print_only_their_own_loss_conditions(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from denpex_callbacks import Monitor, MonitorConfig, Observation
    from denpex_callbacks.core.sinks import printed_on_rank

    logger = logging.getLogger("lightning.pytorch.callbacks.amp_diagnostic")
    printed: dict[int, list[str]] = {}
    for rank in (0, 1):
        monitor = Monitor(MonitorConfig(report_dir=None), rank=rank, world_size=2,
                          logger=logger, log_filter=printed_on_rank(rank))
        caplog.clear()
        for step in range(12):  # the loss and the (shared) scale both go bad from step 2
            bad = step >= 2
            monitor.observe(Observation(
                step, rank=rank, world_size=2, scale_before=2.0 ** (16 - max(step - 2, 0)),
                scale_after=2.0 ** (16 - max(step - 1, 0)) if bad else 2.0**16,
                skipped=bad, loss=float("nan") if bad else 1.0,
            ))
        printed[rank] = [r.getMessage()[8:14] for r in caplog.records
                         if r.levelno >= logging.WARNING]
        assert [d.code for d in monitor.diagnoses] == ["AMP006", "AMP003"]
    # AMP006 twice: the absorbed NaN (a warning), then its escalation once it persists.
    assert printed == {0: ["AMP006", "AMP006", "AMP003"], 1: ["AMP006", "AMP006"]}
