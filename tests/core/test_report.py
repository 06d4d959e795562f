"""Per-rank JSONL run reports: round trip, crash safety, merging ranks."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from dataclasses import replace

from streams import scaler_stream

from denpex_callbacks import Monitor, MonitorConfig, RunSetup, read_report
from denpex_callbacks.core.report import initiating_rank, is_report_file, read_report_dir


def write_run(directory, rank, nan_from=None, steps=30):
    m = Monitor(MonitorConfig(report_dir=str(directory), record_every=10), rank=rank,
                world_size=2)
    m.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic", init_scale=65536.0))
    losses = {s: float("nan") for s in range(nan_from, steps)} if nan_from is not None else {}
    for obs in scaler_stream([], steps, losses=losses):
        m.observe(replace(obs, rank=rank, time=1000.0 + obs.step))
    m.close()
    return m


def test_report_round_trip(tmp_path):
    m = write_run(tmp_path, 0, nan_from=12)
    report = read_report(tmp_path / "rank0.jsonl")
    assert report.header["setup"]["active_precision"] == "fp16-mixed"
    assert "python" in report.header["versions"]
    assert [d.to_dict() for d in report.diagnoses] == [d.to_dict() for d in m.diagnoses]
    assert report.summary["diagnoses"] == 1
    assert any(o.step == 12 for o in report.steps)  # the eventful step is recorded
    assert all(json.loads(line) for line in (tmp_path / "rank0.jsonl").read_text().splitlines())
    assert is_report_file(tmp_path / "rank0.jsonl")


def test_initiating_rank_is_the_first_to_go_nonfinite(tmp_path):
    write_run(tmp_path, 0, nan_from=9)
    write_run(tmp_path, 1, nan_from=5)
    reports = read_report_dir(tmp_path)
    assert [r.rank for r in reports] == [0, 1]
    assert initiating_rank(reports) == (1, 5)


def test_kill_9_right_after_a_diagnosis_leaves_it_on_disk(tmp_path):
    script = textwrap.dedent(f"""
        import os, signal, torch
        from denpex_callbacks.torch import AmpMonitor
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu")
        monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model,
                             report_dir={str(tmp_path)!r})
        for step in range(10):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = model(torch.randn(8, 4)).float().pow(2).mean()
            if step == 3:
                loss = loss * float("nan")
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            if monitor.step(loss):
                os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    report = read_report(tmp_path / "rank0.jsonl")
    assert [(d.code, d.step) for d in report.diagnoses] == [("AMP006", 3)]
    assert report.summary is None  # the process never got to close()


def test_torn_last_line_is_tolerated(tmp_path):
    write_run(tmp_path, 0, nan_from=12)
    path = tmp_path / "rank0.jsonl"
    path.write_text(path.read_text() + '{"type": "step", "ste')
    report = read_report(path)
    assert report.truncated and report.diagnoses[0].code == "AMP006"


def test_two_monitors_of_one_rank_in_one_process_write_two_reports(tmp_path):
    # Two scalers, two AmpMonitors, one report folder: the second must not truncate the first.
    from denpex_callbacks import Monitor, MonitorConfig, Observation, RunSetup
    from denpex_callbacks.core.report import read_report

    monitors = [Monitor(MonitorConfig(report_dir=str(tmp_path))) for _ in range(2)]
    for index, monitor in enumerate(monitors):
        monitor.start(RunSetup(active_precision="fp16-mixed", scaler="dynamic"))
        monitor.observe(Observation(3, loss=float("nan") if index else 1.0))
    for monitor in monitors:
        monitor.close()
    paths = sorted(tmp_path.rglob("rank0.jsonl"))
    assert len(paths) == 2
    reports = [read_report(p) for p in paths]
    assert sorted(len(r.diagnoses) for r in reports) == [0, 1]
    assert all(r.summary for r in reports)
