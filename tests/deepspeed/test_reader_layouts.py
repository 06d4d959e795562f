"""read_scale_state against the attribute layouts that real DeepSpeed releases produced.

Each ``layouts/deepspeed-<version>.json`` was written by ``record_layouts.py`` running that
release on CPU (three training steps per optimizer kind, the middle one overflowing). Here
plain objects with exactly the recorded attributes stand in for the optimizer, and the reader
must agree with what DeepSpeed itself reported: its live scale (the value it writes to its
monitor as ``Train/Samples/loss_scale``) and whether the step was applied.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch

from denpex_callbacks.core.run_setup import RunSetup
from denpex_callbacks.readers.deepspeed_optimizer import (
    DeepSpeedReader,
    deepspeed_setup,
    read_scale_state,
)

LAYOUTS = Path(__file__).with_name("layouts")
RAISES = "<raises AttributeError>"
CONFIG_SPLIT = (0, 18, 6)  # FP16 optimizers moved cur_scale into loss_scale_config here


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("+")[0].split(".")[:3])


def _records() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(LAYOUTS.glob("deepspeed-*.json"))]


def _snapshots() -> list[Any]:
    params = []
    for record in _records():
        for case, data in record["cases"].items():
            for index, snap in enumerate(data["steps"]):
                params.append(pytest.param(
                    record["deepspeed"], case, data["config"], snap,
                    id=f"{record['deepspeed']}-{case}-step{index + 1}",
                ))
    return params


def _raising(name: str) -> property:
    def getter(self: Any) -> Any:
        raise AttributeError(name)

    return property(getter)


def _rebuild(snap: dict[str, Any]) -> Any:
    """An engine-like object whose optimizer has exactly the recorded attributes."""
    properties = {
        name: _raising(name) if value == RAISES else property(lambda self, v=value: v)
        for name, value in snap["properties"].items()
    }
    optimizer_type = type(snap["optimizer_class"].rsplit(".", 1)[-1], (), properties)
    optimizer = optimizer_type()
    for name, value in snap["optimizer"].items():
        if name not in properties:
            setattr(optimizer, name, value)
    for part in ("loss_scaler", "loss_scale_config"):
        if snap[part] is not None:
            fields = {k: v for k, v in snap[part].items() if k != "class"}
            setattr(optimizer, part, SimpleNamespace(**fields))
    engine = SimpleNamespace(optimizer=optimizer)
    if snap["grad_scaler"] is not None:
        scaler = torch.amp.GradScaler("cpu", init_scale=snap["grad_scaler"]["scale"])
        scaler.scale(torch.ones(()))  # the scale tensor exists once training has begun
        engine.torch_autocast_z0_gradscaler = scaler
    return engine


def test_recorded_releases_straddle_the_loss_scale_config_change() -> None:
    versions = [_version(record["deepspeed"]) for record in _records()]
    assert len([v for v in versions if v < CONFIG_SPLIT]) >= 2
    assert len([v for v in versions if v >= CONFIG_SPLIT]) >= 2


@pytest.mark.parametrize(("version", "case", "config", "snap"), _snapshots())
def test_reader_matches_deepspeeds_own_view(
    version: str, case: str, config: dict[str, Any], snap: dict[str, Any]
) -> None:
    state = read_scale_state(_rebuild(snap))
    truth = snap["engine"]
    fp16 = config.get("fp16", {})
    if "torch_autocast" in config:
        if snap["grad_scaler"] is None:  # before 0.18: fp16 autocast ran with no scaler at all
            assert (state.scale, state.dynamic) == (None, None)
            return
        assert state.layout == "torch_autocast" and state.scale is None
        assert state.grad_scaler.get_scale() == snap["grad_scaler"]["scale"]
        assert state.dynamic is True
        return
    assert state.overflow is (not truth["was_step_applied"])
    if not fp16:  # bf16: nothing is scaled (0.17.6 still shows a cur_scale of 1.0 there)
        assert (state.scale, state.dynamic) == (None, None)
        return
    assert state.scale == truth["live_scale"]
    assert state.dynamic is ("loss_scale" not in fp16)
    if case.startswith("zero0"):
        expected = "loss_scale_config" if _version(version) >= CONFIG_SPLIT else "cur_scale"
        assert state.layout == expected
    else:
        assert state.layout == "loss_scaler"
        if state.dynamic:
            assert state.hysteresis == snap["loss_scaler"]["cur_hysteresis"]
            assert state.min_scale == snap["loss_scaler"]["min_scale"]


@pytest.mark.parametrize(("version", "case", "config", "snap"), _snapshots())
def test_setup_reads_the_configured_scaler(
    version: str, case: str, config: dict[str, Any], snap: dict[str, Any]
) -> None:
    setup = deepspeed_setup(_rebuild(snap), RunSetup(framework="deepspeed"))
    fp16 = config.get("fp16", {})
    if "torch_autocast" in config:
        if snap["grad_scaler"] is None:
            assert setup.scaler is None
            return
        assert setup.scaler == "dynamic" and setup.growth_interval == 2000
    elif not fp16:
        assert setup.scaler is None
    elif "loss_scale" in fp16:
        assert (setup.scaler, setup.init_scale) == ("static", fp16["loss_scale"])
    else:
        assert setup.scaler == "dynamic" and setup.min_scale == 1


@pytest.mark.parametrize(("version", "case", "config", "snap"), _snapshots())
def test_the_readers_step_reads_agree_with_the_whole_state(
    version: str, case: str, config: dict[str, Any], snap: dict[str, Any]
) -> None:
    # The reader finds the layout once and then reads only the scale's holder each step.
    engine = _rebuild(snap)
    state, reader = read_scale_state(engine), DeepSpeedReader(engine)
    reader.step_begins()
    [reading] = reader.take()
    assert (reading.scale_before, reading.scale_after) == (state.scale, state.scale)
    assert (reading.overflow, reading.hysteresis) == (state.overflow, state.hysteresis)


def _zero_optimizer(scale: float) -> Any:
    scaler = SimpleNamespace(cur_scale=scale, dynamic=True, cur_hysteresis=2, min_scale=1.0,
                             scale_window=1000)
    return SimpleNamespace(loss_scaler=scaler, overflow=False, dtype=torch.float16)


def test_a_loss_scaler_replaced_by_a_checkpoint_load_is_read() -> None:
    optimizer = _zero_optimizer(1024.0)
    reader = DeepSpeedReader(optimizer)
    reader.step_begins()
    assert reader.take()[0].scale_before == 1024.0
    # ZeRO's load_state_dict puts the checkpoint's loss scaler in place of its own.
    optimizer.loss_scaler = SimpleNamespace(cur_scale=64.0, dynamic=True, cur_hysteresis=1,
                                            min_scale=1.0, scale_window=1000)
    reader.step_begins()
    [reading] = reader.take()
    assert (reading.scale_before, reading.scale_after, reading.hysteresis) == (64.0, 64.0, 1)


def test_an_override_of_the_loss_scale_is_read() -> None:
    optimizer = _zero_optimizer(1024.0)
    reader = DeepSpeedReader(optimizer)
    optimizer.custom_loss_scaler, optimizer.external_loss_scale = True, 8.0  # override_loss_scale
    reader.step_begins()
    [reading] = reader.take()
    assert (reading.scale_before, reading.scale_after) == (8.0, 8.0)


def test_several_steps_in_one_batch_chain_their_scales() -> None:
    # Manual optimization stepping twice in a batch: the first step's scale after is the
    # second's before (an overflow there halved it); the last one is read from the holder.
    optimizer = _zero_optimizer(1024.0)
    reader = DeepSpeedReader(optimizer)
    reader.step_begins()
    optimizer.loss_scaler.cur_scale = 512.0
    reader.step_begins()
    readings = reader.take()
    assert [(r.scale_before, r.scale_after) for r in readings] == [(1024.0, 512.0),
                                                                    (512.0, 512.0)]
    assert reader.take() == []
