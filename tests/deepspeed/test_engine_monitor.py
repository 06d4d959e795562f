"""The DeepSpeed adapter on a real DeepSpeedEngine (CPU, gloo, one process)."""

from __future__ import annotations

import csv
import inspect
import logging
from typing import Any

import pytest
import torch

deepspeed = pytest.importorskip("deepspeed")

from deepspeed.utils import logger as deepspeed_logger  # noqa: E402

from denpex_callbacks import AmpDiagnosisError, read_report  # noqa: E402
from denpex_callbacks.core.framework_exits import (  # noqa: E402
    DEEPSPEED_MIN_SCALE as MIN_SCALE_MESSAGE,
)
from denpex_callbacks.core.report import report_path  # noqa: E402
from denpex_callbacks.core.severity import Severity  # noqa: E402
from denpex_callbacks.integrations.deepspeed_engine import (  # noqa: E402
    DeepSpeedMonitor,
    attach,
    initialize,
)


def _loud(watcher: DeepSpeedMonitor) -> list[str]:
    return [d.code for d in watcher.monitor.faults(Severity.WARNING)]


def _by_code(watcher: DeepSpeedMonitor) -> dict[str, Any]:
    return {d.code: d for d in reversed(watcher.monitor.diagnoses)}


@pytest.mark.parametrize(
    ("stage", "accumulation"), [(1, 1), (2, 2)], ids=["zero1", "zero2-accumulation2"]
)
def test_healthy_fp16_run_is_quiet(kit: Any, stage: int, accumulation: int) -> None:
    engine, watcher = kit.watched(kit.config(
        zero_optimization={"stage": stage}, gradient_accumulation_steps=accumulation,
        train_batch_size=4 * accumulation,
    ))
    kit.train(engine, 8 * accumulation)
    watcher.close()
    assert _loud(watcher) == []
    assert watcher.monitor.run.steps_seen == 8 == engine.global_steps  # optimizer steps only
    assert watcher.monitor.run.skipped_total == 0
    report = read_report(report_path(kit.report_dir, 0))
    assert report.header["setup"]["scaler"] == "dynamic"
    assert report.header["setup"]["hysteresis"] == 2
    assert report.header["setup"]["extra"]["zero_stage"] == stage
    assert report.summary is not None and report.summary["steps"] == 8


@pytest.mark.parametrize("stage", [1, 2], ids=["zero1", "zero2"])
def test_inf_loss_collapses_scale_until_deepspeed_exits(kit: Any, stage: int) -> None:
    # initial scale 2**4, hysteresis 2: the first overflow only spends hysteresis, then
    # 16 -> 8 -> 4 -> 2 -> 1, and the next overflow at the floor makes DeepSpeed raise.
    engine, watcher = kit.watched(kit.config(
        zero_optimization={"stage": stage},
        fp16={"enabled": True, "initial_scale_power": 4, "hysteresis": 2},
    ))
    with pytest.raises(Exception, match=MIN_SCALE_MESSAGE) as raised:
        kit.train(engine, 20, inf_from=3)  # the 4th optimizer step: global step 4
    assert type(raised.value) is Exception  # DeepSpeed's own exception, unchanged
    found = _by_code(watcher)
    assert found["AMP006"].step == 4 and found["AMP006"].reported_step == 4
    assert found["AMP003"].step == 4  # where the streak of skipped steps began
    assert found["AMP003"].reported_step == 9  # the step DeepSpeed refused to take
    assert found["AMP003"].caused_by == "AMP006"
    # DeepSpeed's own words confirm the collapse (the diagnosis already reported, amended).
    assert MIN_SCALE_MESSAGE in found["AMP003"].evidence["framework_exit"]
    assert "the framework ended the run: " + MIN_SCALE_MESSAGE in found["AMP003"].summary
    # Written, flushed and summarised before DeepSpeed's exception went on.
    report = read_report(report_path(kit.report_dir, 0))
    on_disk = {d.code: d for d in report.diagnoses}
    assert on_disk["AMP003"].step == 4
    assert MIN_SCALE_MESSAGE in on_disk["AMP003"].evidence["framework_exit"]
    history = on_disk["AMP003"].evidence["history"]
    assert [h["scale"] for h in history if h["skipped"]] == [16, 8, 4, 2, 1, 1]
    assert report.summary is not None
    hysteresis_step = next(o for o in report.steps if o.step == 4)
    assert hysteresis_step.skipped is True
    assert hysteresis_step.scale_before == hysteresis_step.scale_after == 16
    assert hysteresis_step.hysteresis == 1


def test_accumulation_reads_the_scale_once_per_optimizer_step(
    kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Accumulation 4: DeepSpeed's scale can change only in the 4th step() call of each
    # optimizer step, so the reader reads it there only (before and after), not at each call.
    from denpex_callbacks.readers.deepspeed_optimizer import DeepSpeedReader

    reads = {"before": 0, "after": 0}
    for name, key in (("_scale_now", "before"), ("_reading", "after")):
        original = getattr(DeepSpeedReader, name)

        def counted(self: Any, *args: Any, _original: Any = original, _key: str = key) -> Any:
            reads[_key] += 1
            return _original(self, *args)

        monkeypatch.setattr(DeepSpeedReader, name, counted)
    engine, watcher = kit.watched(kit.config(
        gradient_accumulation_steps=4, train_batch_size=16,
        fp16={"enabled": True, "initial_scale_power": 4, "hysteresis": 2},
    ))
    # inf from the first micro-batch of the 4th optimizer step on (micro-batch 12, 0-based).
    with pytest.raises(Exception, match=MIN_SCALE_MESSAGE):
        kit.train(engine, 80, inf_from=12)
    assert engine.micro_steps == 4 * 8 + 3  # the 9th step: DeepSpeed refused its 4th call
    assert reads == {"before": 9, "after": 8}  # once per optimizer step, not per micro-step
    found = _by_code(watcher)
    # Numbered in optimizer steps (engine.global_steps), as DeepSpeed prints step=N.
    assert found["AMP006"].step == 4 and found["AMP006"].reported_step == 4
    assert found["AMP003"].step == 4 and found["AMP003"].reported_step == 9
    assert MIN_SCALE_MESSAGE in found["AMP003"].evidence["framework_exit"]
    assert watcher.monitor.run.steps_seen == 9  # 8 taken, the 9th refused
    assert read_report(report_path(kit.report_dir, 0)).summary is not None


def test_static_scale_that_overflows_every_step_is_amp005(kit: Any) -> None:
    # A static scale of 2**24 overflows fp16 in backward on every step.
    engine, watcher = kit.watched(kit.config(
        zero_optimization={"stage": 2}, fp16={"enabled": True, "loss_scale": 2**24},
    ))
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    deepspeed_logger.addHandler(handler)  # DeepSpeed's logger does not propagate to caplog
    try:
        kit.train(engine, 8)
    finally:
        deepspeed_logger.removeHandler(handler)
    ours = [r for r in records if r.getMessage().startswith("denpex: ")]
    assert [(r.levelno, r.getMessage().split()[1]) for r in ours] == [(logging.WARNING, "AMP005")]
    assert engine.skipped_steps == 8
    found = _by_code(watcher)
    assert "AMP003" not in found  # a constant scale is stuck, not collapsing
    assert found["AMP005"].step == 1 and found["AMP005"].reported_step == 4
    assert found["AMP005"].evidence["scaler"] == "static"
    assert watcher.monitor.setup.scaler == "static"


def test_torch_autocast_skips_are_seen_although_deepspeed_counts_none(
    kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepspeed.runtime import torch_autocast

    # torch_autocast is process-global in DeepSpeed: once an engine turned it on, later ZeRO
    # engines in the process get a GradScaler too. Restore it for the tests that follow.
    for name in ("TORCH_AUTOCAST_INITIALIZED", "TORCH_AUTOCAST_DTYPE"):
        monkeypatch.setattr(torch_autocast, name, getattr(torch_autocast, name))
    config = kit.config(torch_autocast={"enabled": True, "dtype": "torch.float16"})
    del config["fp16"], config["zero_optimization"]
    engine, watcher = kit.watched(config)
    assert watcher.monitor.setup.extra["deepspeed_scale_layout"] == "torch_autocast"
    kit.train(engine, 14, inf_from=2, autocast=True)
    watcher.close()  # the end of training (on a device the last step is judged then)
    assert engine.skipped_steps == 0 and engine.was_step_applied()
    assert watcher.monitor.run.skipped_total == 12  # seen in the GradScaler's backoffs
    found = _by_code(watcher)
    assert found["AMP006"].step == 3
    assert found["AMP003"].step == 3 and found["AMP003"].reported_step == 8
    assert watcher.monitor.run.last_scale == 65536.0 / 2**12


def test_metrics_reach_deepspeeds_csv_monitor(kit: Any, tmp_path: Any) -> None:
    engine = kit.build(kit.config(
        csv_monitor={"enabled": True, "output_path": str(tmp_path / "csv"), "job_name": "run"},
    ))
    watcher = attach(engine)
    assert watcher is not None
    kit.train(engine, 5, inf_from=4)  # one overflow, on the 5th step (hysteresis: no backoff)
    watcher.close()  # the end of training (on a device the last step is judged then)
    folder = tmp_path / "csv" / "run"
    with open(folder / "Train_Samples_amp_skipped_steps.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["step", "amp_skipped_steps"]
    assert [(int(s), float(v)) for s, v in rows[1:]] == [
        (4, 0.0), (8, 0.0), (12, 0.0), (16, 0.0), (20, 1.0)
    ]
    with open(folder / "Train_Samples_amp_loss_scale.csv", newline="") as handle:
        assert [float(v) for _s, v in list(csv.reader(handle))[1:]] == [256.0] * 5


def test_raise_policy_raises_amp_diagnosis_error_at_the_step(kit: Any) -> None:
    engine, watcher = kit.watched(kit.config(denpex={"on_fault": "raise"}))
    with pytest.raises(AmpDiagnosisError) as raised:
        kit.train(engine, 10, inf_from=2)
    assert raised.value.diagnosis.code == "AMP006"
    # inf from step 3 on: step 3 is absorbed (a warning), step 4 makes it persistent (an
    # error on the same diagnosis, first step 3), raised after step 4 completed.
    assert raised.value.diagnosis.step == 3 and engine.global_steps == 4
    assert raised.value.diagnosis.severity.value == "error"
    assert watcher.monitor.stop_requested


def test_stop_policy_sets_should_stop_after_the_step(kit: Any) -> None:
    engine, watcher = kit.watched(kit.config(denpex={"on_fault": "stop"}))
    for step in range(10):
        kit.train(engine, 1, inf_from=0 if step >= 2 else None)
        if watcher.should_stop:
            break
    # Stopped after step 4: the second non-finite loss shows the fault persists.
    assert engine.global_steps == 4
    assert [(d.code, d.step, d.severity.value) for d in watcher.monitor.diagnoses] == [
        ("AMP006", 3, "error")]


def test_config_section_is_validated(kit: Any) -> None:
    config = kit.config(denpex={"on_falt": "warn"})
    engine = kit.build(config)  # DeepSpeed itself accepts any top-level section
    expected = r'"denpex": unknown key\(s\) on_falt; known keys: .*enabled'
    with pytest.raises(ValueError, match=expected):
        attach(engine)
    config["denpex"] = {"enabled": True, "on_fault": "explode"}
    with pytest.raises(ValueError, match="on_fault must be one of warn, stop, raise"):
        attach(kit.build(config))


def test_disabled_section_attaches_nothing(kit: Any) -> None:
    engine = kit.build(kit.config(denpex={"enabled": False}))
    assert attach(engine) is None
    assert "step" not in vars(engine)  # the engine's own step, untouched
    assert not kit.report_dir.exists()


def test_initialize_is_a_drop_in_wrapper(kit: Any) -> None:
    assert inspect.signature(initialize) == inspect.signature(deepspeed.initialize)
    model = kit.model()
    result = initialize(model=model, model_parameters=model.parameters(), config=kit.config())
    assert isinstance(result, tuple) and len(result) == 4
    engine, optimizer, dataloader, scheduler = result
    assert optimizer is engine.optimizer and dataloader is None and scheduler is None
    assert attach(engine) is engine.__dict__["_denpex_monitor"]  # attached once, reused
    kit.train(engine, 2)
    engine.__dict__["_denpex_monitor"].close()  # (on a device the last step is judged then)
    assert engine.__dict__["_denpex_monitor"].monitor.run.steps_seen == 2
    assert report_path(kit.report_dir, 0).exists()
    bad = kit.config(denpex={"thresholds": {"collapse_streak": 3}})
    with pytest.raises(ValueError, match=r"unknown threshold\(s\) collapse_streak"):
        initialize(model=model, model_parameters=model.parameters(), config=bad)


def test_internal_error_turns_monitoring_off_not_training(
    kit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, watcher = kit.watched(kit.config())

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("reader bug")

    # What every step reads (the scale of the optimizer found at attach) breaks.
    for name in ("_scale_now", "_reading"):
        monkeypatch.setattr(f"denpex_callbacks.readers.deepspeed_optimizer.DeepSpeedReader.{name}",
                            broken)
    kit.train(engine, 3)
    assert engine.global_steps == 3
    assert watcher.monitor.disabled


def test_detach_restores_the_engine(kit: Any) -> None:
    engine = kit.build(kit.config())
    watcher = attach(engine)
    assert watcher is not None and "step" in vars(engine)
    watcher.detach()
    assert "step" not in vars(engine) and "backward" not in vars(engine)
    kit.train(engine, 1)
    assert watcher.monitor.run.steps_seen == 0


def test_wrappers_put_on_the_engine_before_are_watched_through_and_given_back(kit: Any) -> None:
    # A profiler or timer that wraps the engine's methods on the instance (the benchmarks'
    # sync counter does) was taken for "already watched": the loss was never seen, and a NaN
    # loss read as AMP003 only.
    engine = kit.build(kit.config())
    calls: list[str] = []

    def counted(name: str, original: Any) -> Any:
        return lambda *args, **kwargs: (calls.append(name), original(*args, **kwargs))[1]

    theirs = {name: counted(name, getattr(engine, name)) for name in ("backward", "step")}
    engine.__dict__.update(theirs)
    watcher = attach(engine)
    assert watcher is not None
    kit.train(engine, 6, inf_from=3)
    found = _by_code(watcher)
    assert found["AMP006"].step == 4
    assert calls.count("backward") == calls.count("step") == 6  # theirs still ran
    watcher.detach()
    assert {name: vars(engine)[name] for name in theirs} == theirs


def test_pipeline_engine_is_refused_with_the_reason(kit: Any) -> None:
    from deepspeed.pipe import PipelineModule

    layers = [torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)]
    model = PipelineModule(layers=layers, num_stages=1, loss_fn=torch.nn.MSELoss())
    config = kit.config()
    del config["zero_optimization"]
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    with pytest.raises(ValueError, match=r"PipelineEngine.*train_batch\(\)"):
        attach(engine)
    assert "step" not in vars(engine)
