"""AmpMonitor's metrics sink: a TensorBoard SummaryWriter or a callable, only where news is."""

from __future__ import annotations

from pathlib import Path

import pytest
from torch_loops import run_loop

from denpex_callbacks.torch import AmpMonitor


def test_a_callable_gets_the_scale_when_it_changes_and_a_heartbeat() -> None:
    sent: list[tuple[int, dict[str, float]]] = []
    run_loop(16, fault="inf", fault_step=14, scaler_kwargs={"init_scale": 1024.0},
             monitor_kwargs={"metrics": lambda values, step: sent.append((step, values)),
                             "record_every": 10, "locate": False})
    assert [step for step, _ in sent] == [0, 10, 14, 15]  # first, heartbeat, skips
    # Three keys while healthy; a fault's own key appears with it.
    assert sent[0][1] == {"amp/loss_scale": 1024.0, "amp/skipped_steps": 0.0,
                          "amp/diagnoses": 0.0}
    assert sent[2][1] == {"amp/loss_scale": 512.0, "amp/skipped_steps": 1.0,
                          "amp/diagnoses": 1.0, "amp/fault/AMP006": 1.0}


def test_a_summary_writer_gets_scalars(tmp_path: Path) -> None:
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(tmp_path / "tb"))
    run_loop(12, scaler_kwargs={"init_scale": 1024.0},
             monitor_kwargs={"metrics": writer, "record_every": 5})
    writer.close()
    events = EventAccumulator(str(tmp_path / "tb"))
    events.Reload()
    scale = [(e.step, e.value) for e in events.Scalars("amp/loss_scale")]
    assert scale == [(0, 1024.0), (5, 1024.0), (10, 1024.0)]
    # A healthy run: the fault count at 0, no fault key.
    assert [e.value for e in events.Scalars("amp/diagnoses")] == [0.0, 0.0, 0.0]
    assert not [tag for tag in events.Tags()["scalars"] if tag.startswith("amp/fault/")]


def test_a_target_that_is_neither_is_refused() -> None:
    with pytest.raises(TypeError, match="SummaryWriter"):
        AmpMonitor(report_dir=None, metrics=42)
    assert isinstance(AmpMonitor(report_dir=None, metrics=print), AmpMonitor)
