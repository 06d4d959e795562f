"""The callback's contract with the Trainer: skips, accumulation, policies, resume, sinks."""

from __future__ import annotations

import inspect
import logging
from pathlib import Path
from typing import Any

import pytest
from transformers import TrainerCallback

from denpex_callbacks import AmpDiagnosisError, read_report_dir
from denpex_callbacks.hf import AmpDiagnosticCallback
from denpex_callbacks.readers.grad_scaler import GradScalerReader


@pytest.mark.parametrize("max_grad_norm", [1.0, 0.0], ids=["found_inf", "scale_decrease"])
def test_fused_adamw_skips_are_seen_where_step_was_skipped_is_wrong(
    hf: Any, max_grad_norm: float
) -> None:
    k = 4
    spy = hf.StepSpy()
    trainer = hf.trainer(fault="inf", from_step=k, steps=10, optim="adamw_torch_fused",
                         fp16_scaler={"init_scale": 1024.0}, max_grad_norm=max_grad_norm,
                         extra_callbacks=[spy], callback=AmpDiagnosticCallback(
                             report_dir=str(hf.tmp_path / "reports"), record_every=1))
    trainer.train()
    # accelerate says no step was skipped, while the scale halved at every step from k
    assert not any(spy.was_skipped.values())
    assert [spy.scale_after[s] for s in range(k - 1, 11)] == [1024.0 / 2**i for i in range(8)]
    steps = read_report_dir(hf.tmp_path / "reports")[0].steps
    assert [(o.step, o.was_skipped) for o in steps] == [(s, s >= k) for s in range(1, 11)]
    assert hf.first(hf.monitor_of(trainer), "AMP003").step == k


def test_gradient_accumulation_averages_micro_batch_losses(hf: Any) -> None:
    k = 3
    trainer = hf.trainer(fault="nan", from_step=k, steps=6, fp16_scaler={},
                         gradient_accumulation_steps=4, logging_nan_inf_filter=False,
                         callback=AmpDiagnosticCallback(report_dir=str(hf.tmp_path / "r"),
                                                        record_every=1))
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert hf.first(monitor, "AMP006").step == k
    assert monitor.run.steps_seen == 6  # one observation per optimizer step, not per micro-batch
    observed = {o.step: o.loss for o in read_report_dir(hf.tmp_path / "r")[0].steps}
    logged = {row["step"]: row["loss"] for row in trainer.state.log_history if "loss" in row}
    for step in range(1, k):  # HF logs the mean of the 4 micro-batch losses, as we do
        assert observed[step] == pytest.approx(logged[step], abs=1e-4)  # 4.x rounds it


def test_stop_policy_ends_training_after_the_faulty_step(hf: Any) -> None:
    k = 4
    trainer = hf.trainer(fault="inf", from_step=k, steps=20, fp16_scaler={},
                         callback=AmpDiagnosticCallback(on_fault="stop", report_dir=None))
    trainer.train()
    # inf from step k on: k is absorbed (a warning), k + 1 makes it persistent: stop there.
    assert trainer.state.global_step == k + 1
    assert hf.first(hf.monitor_of(trainer), "AMP006").step == k


def test_raise_policy_raises_out_of_train(hf: Any) -> None:
    k = 4
    trainer = hf.trainer(fault="nan", from_step=k, steps=20, fp16_scaler={},
                         callback=AmpDiagnosticCallback(on_fault="raise",
                                                        report_dir=str(hf.tmp_path / "r")))
    with pytest.raises(AmpDiagnosisError) as caught:
        trainer.train()
    assert (caught.value.diagnosis.code, caught.value.diagnosis.step) == ("AMP006", k)
    assert trainer.state.global_step == k + 1  # the NaN persisted at k + 1
    report = read_report_dir(hf.tmp_path / "r")[0]
    assert report.summary is not None  # closed on the way out: on_train_end never ran
    assert [(d.code, d.step) for d in report.diagnoses if d.code == "AMP006"] == [("AMP006", k)]
    assert not trainer.model._forward_hooks  # the loss hook is gone too


@pytest.mark.parametrize("restore", [False, True], ids=["default", "restore_callback_states"])
def test_resume_from_checkpoint_keeps_the_history(hf: Any, restore: bool) -> None:
    k = 3
    common: dict[str, Any] = dict(steps=10, save_strategy="steps", save_steps=5,
                                  fp16_scaler={"init_scale": 1024.0},
                                  restore_callback_states_from_checkpoint=restore)
    reports = hf.tmp_path / "reports"
    hf.trainer(fault="inf", from_step=k, callback=AmpDiagnosticCallback(report_dir=str(reports)),
               **common).train()
    # a fresh process: the model's step counter restarts, its loss is inf from the first step
    resumed = hf.trainer(fault="inf", from_step=1,
                         callback=AmpDiagnosticCallback(report_dir=str(reports)), **common)
    resumed.train(resume_from_checkpoint=str(hf.tmp_path / "out" / "checkpoint-5"))
    monitor = hf.monitor_of(resumed)
    assert monitor.run.steps_seen == 10  # 5 restored + 5 after the resume
    assert monitor.run.skipped_total == 10 - k + 1
    assert [(d.code, d.step) for d in monitor.diagnoses if d.code == "AMP006"] == [("AMP006", k)]
    assert hf.first(monitor, "AMP003").step == k  # the streak began before the checkpoint
    # the amp/ metrics were checkpointed with log_history
    assert resumed.state.log_history[0]["amp/loss_scale"] == 1024.0
    # the resumed run appends to its report: the diagnoses from before the resume stay there
    written = [(d.code, d.step) for d in read_report_dir(reports)[0].diagnoses]
    assert written.count(("AMP006", k)) == 1
    assert ("AMP003", k) in written


def test_amp_metrics_reach_tensorboard_and_log_history(hf: Any) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    k = 3
    trainer = hf.trainer(fault="inf", from_step=k, steps=6, fp16_scaler={"init_scale": 256.0},
                         report_to=["tensorboard"])
    trainer.train()
    rows = [row for row in trainer.state.log_history if "loss" in row]
    assert [row["amp/skipped_steps"] for row in rows] == [max(0, s - k + 1) for s in range(1, 7)]
    assert rows[-1]["amp/loss_scale"] == 256.0 / 2**4
    assert rows[-1]["amp/diagnoses"] >= 2
    events = list(Path(trainer.args.output_dir).rglob("events.out.tfevents.*"))
    assert events
    accumulator = EventAccumulator(str(events[0].parent))
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    for name in ("amp/loss_scale", "amp/skipped_steps", "amp/diagnoses"):
        assert f"train/{name}" in tags
    assert "train/amp/skip_rate" not in tags  # derivable: not logged
    scale = [(e.step, e.value) for e in accumulator.Scalars("train/amp/loss_scale")]
    assert scale == [(s, 256.0 / 2 ** max(0, s - k + 1)) for s in range(1, 7)]


def test_diagnoses_go_through_the_transformers_logger_once(hf: Any) -> None:
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(level=logging.WARNING)
    root = logging.getLogger("transformers")
    root.addHandler(handler)
    try:
        hf.trainer(fault="inf", from_step=3, steps=12, fp16_scaler={"init_scale": 1024.0}).train()
    finally:
        root.removeHandler(handler)
    ours = [r.getMessage() for r in records if r.name == "transformers.denpex"]
    codes = [m.split()[1] for m in ours
             if not m.startswith("denpex: run summary") and ", amended: " not in m
             and ", escalated: " not in m]
    assert codes == ["AMP006", "AMP009", "AMP003"]
    # The inf at step 3 was absorbed (a warning); at step 4 it persists: one escalated line.
    assert [m.split()[1] for m in ours if ", escalated: " in m] == ["AMP006"]
    # The non-finite locator completes AMP006 and AMP003 (the step after each); AMP003 is a
    # consequence of AMP006, so only AMP006's amendment is a line of its own at this level.
    amended = [m.split()[1] for m in ours if ", amended: " in m]
    assert amended == ["AMP006"]
    assert all("\n" not in m for m in ours)
    # ...and one closing line naming what to fix first.
    summaries = [m for m in ours if m.startswith("denpex: run summary")]
    assert len(summaries) == 1 and "fix AMP006 first" in summaries[0]


def test_internal_error_switches_monitoring_off_and_training_goes_on(
    hf: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(reader: Any) -> Any:
        raise RuntimeError("reader broke")

    monkeypatch.setattr(GradScalerReader, "_found_inf", broken)
    records: list[logging.LogRecord] = []
    handler = logging.Handler(level=logging.ERROR)
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("transformers").addHandler(handler)
    try:
        trainer = hf.trainer(fault="inf", from_step=2, steps=6, fp16_scaler={})
        trainer.train()
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    assert trainer.state.global_step == 6
    monitor = hf.monitor_of(trainer)
    assert monitor.disabled
    assert [r.getMessage().split(";")[0] for r in records] == [
        "denpex: internal error"
    ]


def test_every_overridden_hook_exists_on_the_installed_trainer_callback() -> None:
    from transformers import TrainerCallback

    hooks = [name for name in vars(AmpDiagnosticCallback) if name.startswith("on_")]
    assert len(hooks) >= 7
    for name in hooks:
        assert callable(getattr(TrainerCallback, name, None)), name
        ours = inspect.signature(getattr(AmpDiagnosticCallback, name))
        assert list(ours.parameters)[:4] == ["self", "args", "state", "control"]


def test_constructor_rejects_unknown_options_and_round_trips_its_state() -> None:
    with pytest.raises(TypeError, match="unknown option"):
        AmpDiagnosticCallback(zero_loss_steps=3)
    cb = AmpDiagnosticCallback(on_fault="raise", report_dir=None, disable=["AMP008"],
                               thresholds={"zero_loss_steps": 3})
    again = AmpDiagnosticCallback(**cb.state()["args"])
    assert again.config == cb.config
    assert again.config.report_dir is None


class _ScaleSetByHand(TrainerCallback):  # type: ignore[misc]
    """Sets the GradScaler's scale between two steps, as a user's own callback may."""

    def __init__(self, at_step: int) -> None:
        self.at_step = at_step

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step == self.at_step:
            scaler = kwargs["optimizer"].scaler
            scaler.update(scaler.get_scale() / 4)


def test_a_scale_set_by_hand_between_steps_is_not_taken_for_a_skip(hf: Any) -> None:
    # The hot path keeps the scale after a step as the next one's before; an update() in
    # between (here, a user's callback) must not make the next step look skipped.
    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = hf.trainer(steps=12, fp16_scaler={"init_scale": 1024.0}, logging_steps=50,
                         extra_callbacks=[_ScaleSetByHand(at_step=6)], callback=callback)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert trainer.accelerator.scaler.get_scale() == 256.0
    assert (monitor.run.skipped_total, monitor.run.last_step) == (0, 12)
    assert hf.fault_codes(monitor) == []
