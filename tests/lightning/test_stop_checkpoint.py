"""Lightning: under on_fault="stop" a checkpoint is saved through the Trainer before stopping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch

from denpex_callbacks.lightning import AmpDiagnosticCallback
from denpex_callbacks.testing.tiny_lightning import TinyModule

FAULT_STEP = 3
# NaN from FAULT_STEP on: the scaler absorbs the first (a warning), the second makes the fault
# persistent (an error), and the run stops after it: Lightning's global_step counts it.
STOP_STEP = FAULT_STEP + 2


@pytest.mark.parametrize("checkpoint", [True, False])
def test_stop_saves_a_checkpoint_first(tmp_path: Path, new_trainer: Any,
                                       checkpoint: bool) -> None:
    callback = AmpDiagnosticCallback(on_fault="stop", report_dir=None,
                                     checkpoint_on_stop=checkpoint)
    trainer = new_trainer(callbacks=[callback], steps=20)  # enable_checkpointing=False
    trainer.fit(TinyModule(fault="nan", fault_step=FAULT_STEP))
    assert trainer.global_step == STOP_STEP
    saved = sorted(p.name for p in (tmp_path / "checkpoints").glob("*.ckpt"))
    assert saved == ([f"denpex-stop-step={STOP_STEP}.ckpt"] if checkpoint else [])
    if checkpoint:  # Lightning's own format: weights, optimizer, loops, callback state
        state = torch.load(tmp_path / "checkpoints" / saved[0], weights_only=False)
        assert state["global_step"] == STOP_STEP
        assert "AmpDiagnosticCallback" in state["callbacks"]


def test_the_checkpoint_goes_beside_the_model_checkpoints(tmp_path: Path,
                                                         new_trainer: Any) -> None:
    from lightning.pytorch.callbacks import ModelCheckpoint

    keeper = ModelCheckpoint(dirpath=str(tmp_path / "mine"))
    trainer = new_trainer(callbacks=[AmpDiagnosticCallback(on_fault="stop", report_dir=None),
                                     keeper], steps=20, enable_checkpointing=True)
    trainer.fit(TinyModule(fault="nan", fault_step=FAULT_STEP))
    assert (tmp_path / "mine" / f"denpex-stop-step={STOP_STEP}.ckpt").exists()
