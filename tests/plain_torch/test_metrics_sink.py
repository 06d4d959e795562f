"""AmpMonitor's metrics sink: a TensorBoard SummaryWriter or a callable, only where news is."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from denpex_callbacks.torch import AmpMonitor


def loop(monitor: AmpMonitor, steps: int, *, inf_at: tuple[int, ...] = ()) -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    monitor.attach(scaler=scaler, optimizer=opt, model=model)
    for step in range(steps):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = model(torch.randn(16, 8)).float().pow(2).mean()
        if step in inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()


def test_a_callable_gets_the_scale_when_it_changes_and_a_heartbeat(tmp_path: Path) -> None:
    sent: list[tuple[int, dict[str, float]]] = []
    monitor = AmpMonitor(report_dir=None, metrics=lambda values, step: sent.append((step, values)),
                         record_every=10, locate=False)
    loop(monitor, 25, inf_at=(14,))
    assert [step for step, _ in sent] == [0, 10, 14, 20]  # first, heartbeat, skip, heartbeat
    assert sent[0][1] == {"amp/loss_scale": 1024.0, "amp/skipped_steps": 0.0}
    assert sent[2][1]["amp/loss_scale"] == 512.0 and sent[2][1]["amp/skipped_steps"] == 1.0


def test_a_summary_writer_gets_scalars(tmp_path: Path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path / "tb"))
    loop(AmpMonitor(report_dir=None, metrics=writer, record_every=5), 12)
    writer.close()
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    scale = [(e.step, e.value) for e in events.Scalars("amp/loss_scale")]
    assert scale == [(0, 1024.0), (5, 1024.0), (10, 1024.0)]
    assert "amp/diagnoses" not in events.Tags()["scalars"]  # a healthy run has none


def test_a_target_that_is_neither_is_refused() -> None:
    with pytest.raises(TypeError, match="SummaryWriter"):
        AmpMonitor(report_dir=None, metrics=42)
    assert isinstance(AmpMonitor(report_dir=None, metrics=print), AmpMonitor)


