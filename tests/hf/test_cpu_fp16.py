"""The public HF CPU fp16 helper gives the Trainer its real fp16 path, like the override did."""

from __future__ import annotations

from typing import Any

import pytest
from transformers import TrainingArguments

from denpex_callbacks.hf import AmpDiagnosticCallback
from denpex_callbacks.testing.cpu_fp16 import hf_fp16_on_cpu


def test_the_helper_matches_the_override_step_for_step(hf: Any) -> None:
    # An overflowing loss from step 5: both trainers must skip and halve alike.
    spies = []
    for use_helper in (True, False):
        spy = hf.StepSpy()
        trainer = hf.trainer(fault="inf", from_step=5, steps=10, extra_callbacks=[spy],
                             fp16_scaler=None if use_helper else {"init_scale": 1024.0},
                             fp16=True)
        if use_helper:
            scaler = hf_fp16_on_cpu(trainer, init_scale=1024.0)
        trainer.train()
        spies.append(spy.scale_after)
    with_helper, with_override = spies
    assert with_helper == with_override
    assert with_helper[4] == 1024.0 and with_helper[5] == 512.0  # the real scaler skipped
    assert scaler.get_scale() == with_helper[10]


def test_denpex_watches_the_helpers_scaler(hf: Any) -> None:
    callback = AmpDiagnosticCallback(report_dir=None)
    trainer = hf.trainer(fault="nan", from_step=4, steps=8, callback=callback, fp16=True)
    hf_fp16_on_cpu(trainer)
    trainer.train()
    monitor = hf.monitor_of(trainer)
    assert monitor.setup.active_precision == "fp16-mixed"
    assert hf.first(monitor, "AMP006").step == 4


def test_a_trainer_not_asked_for_fp16_is_refused(hf: Any) -> None:
    trainer = hf.trainer(steps=1)
    assert isinstance(trainer.args, TrainingArguments) and not trainer.args.fp16
    with pytest.raises(ValueError, match="do not ask for fp16=True"):
        hf_fp16_on_cpu(trainer)
