"""HF: a checkpoint before a stop, the user's settings after a resume, healthy output exits 0."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from denpex_callbacks import AmpDiagnosisError, read_report_dir
from denpex_callbacks.cli import main
from denpex_callbacks.hf import AmpDiagnosticCallback


@pytest.mark.parametrize("checkpoint", [True, False])
def test_stop_saves_a_checkpoint_through_the_trainer_first(hf: Any, checkpoint: bool) -> None:
    callback = AmpDiagnosticCallback(on_fault="stop", report_dir=None,
                                     checkpoint_on_stop=checkpoint)
    trainer = hf.trainer(fault="nan", from_step=4, steps=12, callback=callback,
                         fp16_scaler={"init_scale": 1024.0})  # save_strategy="no"
    trainer.train()
    assert trainer.state.global_step == 5  # NaN from step 4: persistent at step 5, stop
    saved = sorted(p.name for p in (hf.tmp_path / "out").glob("checkpoint-*"))
    assert saved == (["checkpoint-5"] if checkpoint else [])
    if checkpoint:  # a real HF checkpoint: weights, optimizer, trainer state with our history
        state = json.loads((hf.tmp_path / "out" / "checkpoint-5" / "trainer_state.json")
                           .read_text())
        assert state["global_step"] == 5
        assert "AmpDiagnosticCallback" in state["stateful_callbacks"]


def test_a_restored_callback_keeps_the_users_settings_and_object(hf: Any) -> None:
    common: dict[str, Any] = dict(steps=10, save_strategy="steps", save_steps=5,
                                  fp16_scaler={"init_scale": 1024.0},
                                  restore_callback_states_from_checkpoint=True)
    reports = hf.tmp_path / "reports"
    hf.trainer(callback=AmpDiagnosticCallback(report_dir=str(reports)), **common).train()
    # Resumed (in a new process, as it were) with other settings: "raise" must hold.
    mine = AmpDiagnosticCallback(on_fault="raise", report_dir=str(reports))
    resumed = hf.trainer(fault="nan", from_step=2, callback=mine, **common)
    with pytest.raises(AmpDiagnosisError) as raised:
        resumed.train(resume_from_checkpoint=str(hf.tmp_path / "out" / "checkpoint-5"))
    assert (raised.value.diagnosis.code, raised.value.diagnosis.step) == ("AMP006", 7)
    assert hf.monitor_of(resumed) is mine.monitor  # the user's object is the one that ran
    assert mine.config.on_fault == "raise" and mine.monitor is not None
    assert mine.monitor.run.steps_seen >= 7  # 5 restored + the steps after the resume
    # AMP009 at start (info: the logging filter is on) once, not again after the resume; the
    # NaN it then hid makes it a warning once.
    found = [(d.code, d.severity.value) for d in mine.monitor.diagnoses if d.code == "AMP009"]
    assert found == [("AMP009", "info"), ("AMP009", "warning")]
    written = [(d.code, d.severity.value) for d in read_report_dir(reports)[0].diagnoses]
    assert written.count(("AMP009", "info")) == 1  # appended to the same report


def test_the_stdout_of_a_healthy_run_exits_0_and_its_rows_are_read(
    hf: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hf.trainer(steps=8, fp16_scaler={"init_scale": 1024.0}).train()
    printed = capsys.readouterr().out
    rows = [line for line in printed.splitlines() if line.startswith("{'loss'")]
    assert rows and all("'amp/loss_scale': '1024'" in row for row in rows)  # sign of life
    assert all("amp/skip_rate" not in row for row in rows)
    log = tmp_path / "healthy.log"
    log.write_text(printed)
    assert main(["diagnose", str(log)]) == 0


def test_skip_counts_in_hf_rows_are_read_as_skipped_steps(
    hf: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trainer = hf.trainer(fault="inf", from_step=3, steps=10, fp16_scaler={"init_scale": 1024.0},
                         logging_steps=2)
    trainer.train()
    skipped = hf.monitor_of(trainer).run.skipped_total
    log = tmp_path / "train.log"
    log.write_text(capsys.readouterr().out)
    assert main(["diagnose", "--format", "json", str(log)]) == 1
    (entry,) = json.loads(capsys.readouterr().out)["inputs"]
    assert skipped == 8 and entry["skipped"] == skipped
