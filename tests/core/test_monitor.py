"""Monitor behaviour: de-duplication, policy, guard, bounded memory, config validation."""

from __future__ import annotations

import logging
import subprocess
import sys
import tracemalloc

import pytest
from streams import scaler_stream

from denpex_callbacks import (
    AmpDiagnosisError,
    Diagnosis,
    Finding,
    Monitor,
    MonitorConfig,
    Observation,
    RunSetup,
    Thresholds,
)
from denpex_callbacks.core.config import build_config

FP16 = RunSetup(active_precision="fp16-mixed", scaler="dynamic")


def monitor(**config):
    m = Monitor(MonitorConfig(report_dir=None, **config))
    m.start(FP16)
    return m


def test_one_report_per_condition_not_one_per_step():
    m = monitor()
    nans = {s: float("nan") for s in range(100, 400)}
    for obs in scaler_stream(range(100, 400), 400, losses=nans):
        m.observe(obs)
    assert [d.code for d in m.diagnoses].count("AMP006") == 1
    assert [d.code for d in m.diagnoses].count("AMP003") == 1


def test_repeats_are_capped():
    m = monitor(max_repeats=2)
    for k in range(10):  # NaN, then enough finite losses to clear, ten times
        for step in range(k * 20, k * 20 + 20):
            m.observe(Observation(step, loss=float("nan") if step % 20 == 0 else 1.0))
    assert [d.code for d in m.diagnoses].count("AMP006") == 3


def test_raise_policy_acts_on_errors_only_by_default():
    m = monitor(on_fault="raise")
    for step in range(30):  # AMP007 is a warning: no raise
        m.act(m.observe(Observation(step, loss=0.0)))
    found = m.observe(Observation(30, loss=float("inf")))  # the engine itself never raises
    with pytest.raises(AmpDiagnosisError) as info:
        m.act(found)
    assert info.value.diagnosis.code == "AMP006"


def test_fault_severity_warning_makes_warnings_count():
    m = monitor(on_fault="stop", fault_severity="warning")
    for step in range(25):
        m.act(m.observe(Observation(step, loss=0.0)))
    assert m.stop_requested


def test_internal_error_logs_once_and_disables(caplog):
    class Broken:
        code = "AMP006"

        def configure(self, setup):
            pass

        def observe(self, obs, run):
            raise RuntimeError("bug")

    m = Monitor(MonitorConfig(report_dir=None), detectors=[Broken()])  # type: ignore[list-item]
    with caplog.at_level(logging.ERROR, logger="denpex_callbacks"):
        for step in range(5):
            assert m.observe(Observation(step, loss=1.0)) == []
    assert m.disabled
    assert sum("internal error" in r.getMessage() for r in caplog.records) == 1


def test_flag_reports_adapter_findings_with_catalog_text():
    m = monitor()
    [d] = m.flag(Finding("AMP002", 4, "update() missing"), reported_step=5)
    assert (d.code, d.step, d.reported_step, d.slug) == ("AMP002", 4, 5, "scaler-protocol-misuse")
    assert "scaler.update()" in d.fix


def test_framework_specific_fix():
    m = Monitor(MonitorConfig(report_dir=None), framework="deepspeed")
    m.start(RunSetup(framework="deepspeed", active_precision="fp16-mixed", scaler="static"))
    for step in range(10):
        m.observe(Observation(step, scale_before=128.0, scale_after=128.0, skipped=True))
    assert '"loss_scale": 0' in m.diagnoses[0].fix


def test_metrics_for_framework_loggers():
    m = monitor()
    for obs in scaler_stream([3, 4], 10):
        m.observe(obs)
    metrics = m.metrics()
    assert metrics["amp/skipped_steps"] == 2.0
    assert metrics["amp/loss_scale"] == 2.0**14
    # Three keys on a healthy run (issue 25, item 9): no skip rate, no fault key before its
    # fault; the fault count at 0 tells "healthy" from "not logging".
    assert metrics == {"amp/loss_scale": 2.0**14, "amp/skipped_steps": 2.0,
                       "amp/diagnoses": 0.0}


def test_a_fault_key_appears_once_it_fired_and_stays():
    m = monitor(thresholds=Thresholds(nonfinite_persist_losses=1))
    rows = []
    for obs in scaler_stream([], 30, losses={12: float("nan")}, growth_interval=100):
        m.observe(obs)
        rows.append(m.metrics())
    assert all(len(row) == 3 and not any(k.startswith("amp/fault/") for k in row)
               for row in rows[:12])
    assert all(row["amp/fault/AMP006"] == 1.0 and row["amp/diagnoses"] == 1.0
               for row in rows[12:])
    assert {k for row in rows for k in row} == {"amp/loss_scale", "amp/skipped_steps",
                                                "amp/diagnoses", "amp/fault/AMP006"}


def test_memory_stays_flat_on_a_long_run(tmp_path):
    m = Monitor(MonitorConfig(report_dir=str(tmp_path)))
    m.start(FP16)
    overflows = [k * 997 for k in range(1, 121)]
    stream = scaler_stream(overflows, 120_000, growth_interval=500,
                           losses={s: float("nan") for s in range(0, 120_000, 5000)})
    tracemalloc.start()
    for index, obs in enumerate(stream):
        m.observe(obs)
        if index == 50_000:
            early, _ = tracemalloc.get_traced_memory()
    late, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    m.close()
    assert late - early < 256 * 1024
    lines = (tmp_path / "rank0.jsonl").read_text().count("\n")
    # Sampled every 50 steps plus eventful steps, far from one line per step.
    assert lines < 120_000 / 50 + 3 * 1000 + 100


def test_config_rejects_unknown_keys_and_bad_values():
    with pytest.raises(ValueError, match="unknown denpex option"):
        MonitorConfig.from_dict({"on_falt": "stop"})
    with pytest.raises(ValueError, match="on_fault must be one of"):
        MonitorConfig(on_fault="explode")
    with pytest.raises(ValueError, match="unknown threshold"):
        MonitorConfig.from_dict({"thresholds": {"collapse": 3}})
    with pytest.raises(ValueError, match="unknown diagnosis id"):
        MonitorConfig(disable=("AMP999",))
    config = MonitorConfig.from_dict({"disable": ["AMP008"], "thresholds": {"zero_loss_steps": 5}})
    assert config.disable == ("AMP008",) and config.thresholds == Thresholds(zero_loss_steps=5)


def test_build_config_keeps_unset_and_applies_none():
    base = MonitorConfig(on_fault="stop")
    assert build_config(base, report_dir=None).on_fault == "stop"
    assert build_config(base, report_dir=None).report_dir is None


def test_disabled_ids_are_silent():
    m = monitor(disable=("AMP006",))
    m.observe(Observation(0, loss=float("nan")))
    assert m.diagnoses == []


def test_diagnosis_json_round_trip_and_renderings():
    d = Diagnosis.from_finding(
        Finding("AMP006", 7, "loss is nan", evidence={"loss": float("nan")}, lines=(12,),
                quotes=("{'loss': nan}",)),
        rank=1,
    )
    again = Diagnosis.from_dict(d.to_dict())
    assert again.to_dict() == d.to_dict()
    assert d.to_dict()["evidence"]["loss"] == "nan"
    text = d.render_text()
    assert text.startswith("AMP006 non-finite-loss [error]") and "rank 1" in text
    assert "### AMP006" in d.render_markdown()


def test_core_imports_no_torch_or_framework():
    code = (
        "import sys, denpex_callbacks, denpex_callbacks.core.monitor, denpex_callbacks.core.report;"
        "bad = [m for m in ('torch', 'transformers', 'lightning', 'deepspeed', 'accelerate')"
        " if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def _nan_then_collapse(
    collapse_from: int, **config: object
) -> list[tuple[str, int | None, str | None]]:
    """A NaN loss at step 100, healthy steps, then a persistent-overflow collapse."""
    m = monitor(**config)
    scale = 2.0**16
    steps = [(s, 1.0, False) for s in range(90, 110)]
    steps[10] = (100, float("nan"), True)  # one inf/NaN loss, skipped, at step 100
    steps += [(s, 1.0, False) for s in range(collapse_from - 20, collapse_from)]
    steps += [(s, 1.0, True) for s in range(collapse_from, collapse_from + 10)]
    for step, loss, skipped in steps:
        after = scale / 2 if skipped else scale
        m.observe(Observation(step, scale_before=scale, scale_after=after, skipped=skipped,
                              loss=loss))
        scale = after
    return [(d.code, d.step, d.caused_by) for d in m.faults()]


def test_a_consequence_must_begin_within_the_cause_window():
    # Default window (1000 steps): a collapse at 90,000 is not the NaN at 100's consequence.
    assert _nan_then_collapse(90_000) == [("AMP006", 100, None), ("AMP003", 90_000, None)]
    # Within the window it is.
    assert _nan_then_collapse(500) == [("AMP006", 100, None), ("AMP003", 500, "AMP006")]
    # The window is a threshold.
    wide = Thresholds(cause_window_steps=100_000)
    assert _nan_then_collapse(90_000, thresholds=wide)[1] == ("AMP003", 90_000, "AMP006")
