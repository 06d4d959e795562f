"""torch internals the package reads, each checked on the installed release.

Every test names the code that relies on the fact; ``CHECKED`` is the range of releases a job
has run these checks on. A release outside it fails here first: check the facts on it (this
file), then widen the range (and the table in docs/versions.md).
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

torch = pytest.importorskip("torch")

CHECKED = SpecifierSet(">=2.13.0,<=2.13.0")


def test_the_installed_torch_is_in_the_checked_range() -> None:
    assert Version(metadata.version("torch")).base_version in CHECKED


def scaled_step(scaler: torch.amp.GradScaler, optimizer: torch.optim.Optimizer,
                loss_factor: float) -> None:
    model_param = optimizer.param_groups[0]["params"][0]
    optimizer.zero_grad()
    scaler.scale((model_param * loss_factor).sum()).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()


def test_grad_scaler_keeps_scale_and_tracker_in_tensors_written_in_place() -> None:
    # readers/grad_scaler.py (scale_tensor, growth_tracker_tensor, host_views) and the hot
    # paths of the torch, HF and Lightning adapters: `_scale` and `_growth_tracker` are CPU
    # tensors made at the first scale(), and update() writes them in place (the memoryviews
    # taken once stay right).
    scaler = torch.amp.GradScaler("cpu", init_scale=256.0, growth_interval=2)
    assert scaler._scale is None and scaler._growth_tracker is None
    param = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([param], lr=0.1)
    scaled_step(scaler, optimizer, 1.0)
    scale, tracker = scaler._scale, scaler._growth_tracker
    assert isinstance(scale, torch.Tensor) and isinstance(tracker, torch.Tensor)
    assert (scale.item(), tracker.item()) == (256.0, 1)
    scaled_step(scaler, optimizer, 1.0)  # the second clean step grows the scale
    scaled_step(scaler, optimizer, float("inf"))  # an overflow halves it
    assert scaler._scale is scale and scaler._growth_tracker is tracker
    assert (scale.item(), tracker.item()) == (256.0, 0)
    assert scaler._init_scale == 256.0  # readers/grad_scaler.scaler_setup


def test_grad_scaler_per_optimizer_state_holds_the_stage_and_found_inf() -> None:
    # readers/grad_scaler.py (found_inf_tensor, optimizer_stage), integrations/torch_protocol.py
    # and the Lightning adapter's batch end: `_per_optimizer_states[id(optimizer)]` is a
    # defaultdict entry with "stage" (an OptState) and "found_inf_per_device" after unscale_().
    from torch.amp.grad_scaler import OptState

    scaler = torch.amp.GradScaler("cpu")
    param = torch.nn.Parameter(torch.ones(2))
    optimizer = torch.optim.SGD([param], lr=0.1)
    scaler.scale((param * float("inf")).sum()).backward()
    assert scaler._per_optimizer_states.get(id(optimizer)) is None  # (.get: a defaultdict)
    scaler.unscale_(optimizer)
    state = scaler._per_optimizer_states[id(optimizer)]
    assert state["stage"] is OptState.UNSCALED
    (found_inf,) = state["found_inf_per_device"].values()
    assert found_inf.item() == 1.0
    scaler.step(optimizer)
    assert scaler._per_optimizer_states[id(optimizer)]["stage"] is OptState.STEPPED
    scaler.update()
    assert id(optimizer) not in scaler._per_optimizer_states  # update() starts afresh


def test_grad_scaler_methods_can_be_wrapped_on_the_instance() -> None:
    # integrations/torch_protocol.py (ScalerProtocol.wrap_scaler): GradScaler has no hooks of
    # its own; its protocol methods are plain Python methods, so an instance attribute of the
    # same name is what a call finds, and deleting it restores the class's.
    scaler = torch.amp.GradScaler("cpu")
    assert not any(name.startswith("register_") for name in dir(scaler))
    calls: list[str] = []

    def wrapped(name: str) -> Any:
        original = getattr(scaler, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return original(*args, **kwargs)

        return call

    for name in ("scale", "unscale_", "step", "update"):
        scaler.__dict__[name] = wrapped(name)
    param = torch.nn.Parameter(torch.ones(2))
    scaled_step(scaler, torch.optim.SGD([param], lr=0.1), 1.0)
    assert calls == ["scale", "unscale_", "step", "update"]


def test_the_rng_and_autocast_reads_of_the_rerun_capture_exist() -> None:
    # locate/capture.py and locate/rerun.py: the CPU generator is cloned with `clone_state` (a
    # Generator whose get_state() torch.set_rng_state takes back), autocast is asked with
    # `torch._C._is_any_autocast_enabled` (a fallback says "on" without it), and a tensor's
    # `_version` counts its in-place writes.
    clone = torch.default_generator.clone_state()
    assert torch.equal(clone.get_state(), torch.get_rng_state())
    first = torch.rand(1)
    torch.set_rng_state(clone.get_state())
    assert torch.rand(1).item() == first.item()
    assert torch._C._is_any_autocast_enabled() is False
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch._C._is_any_autocast_enabled() is True
    tensor = torch.zeros(2)
    before = tensor._version
    tensor.add_(1)
    assert tensor._version == before + 1
