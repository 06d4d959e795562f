"""GradScalerReader on a real CPU GradScaler: each update()'s reading, and the scale before a
step when something other than update() changed the scale in between."""

from __future__ import annotations

import torch

from denpex_callbacks.readers.grad_scaler import GradScalerReader


def _step(scaler: torch.amp.GradScaler, model: torch.nn.Module, opt: torch.optim.Optimizer,
          factor: float = 1.0) -> None:
    opt.zero_grad()
    scaler.scale(model(torch.ones(1, 2)).sum() * factor).backward()
    scaler.step(opt)
    scaler.update()


def _numbers(reader: GradScalerReader) -> list[tuple[float, float, float]]:
    return [(float(r.scale_before), float(r.scale_after), float(r.found_inf))
            for r in reader.take()]


def test_each_update_is_read_before_and_after() -> None:
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    reader = GradScalerReader(scaler)
    reader.attach()
    for factor in (1.0, 1.0, float("inf"), 1.0):
        _step(scaler, model, opt, factor)
    # grows after two clean steps, halves on the overflow
    assert _numbers(reader) == [(8.0, 8.0, 0.0), (8.0, 16.0, 0.0), (16.0, 8.0, 1.0),
                                (8.0, 8.0, 0.0)]
    reader.detach()


def test_a_scale_set_between_steps_is_the_next_steps_scale_before() -> None:
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    reader = GradScalerReader(scaler)
    reader.attach()
    _step(scaler, model, opt)
    scaler.update(1024.0)  # by hand, after no step: no reading of its own
    _step(scaler, model, opt)
    state = scaler.state_dict()
    state["scale"] = 32.0
    scaler.load_state_dict(state)  # a resume writes the scale in place
    _step(scaler, model, opt)
    assert _numbers(reader) == [(8.0, 8.0, 0.0), (1024.0, 1024.0, 0.0), (32.0, 32.0, 0.0)]
    reader.detach()


def test_a_wrapper_put_on_the_scaler_before_is_watched_through_and_given_back() -> None:
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    calls: list[str] = []
    own_update = scaler.update

    def timed_update(*args: object, **kwargs: object) -> None:  # a profiler's, say
        calls.append("update")
        own_update(*args, **kwargs)

    scaler.update = timed_update  # type: ignore[method-assign]
    reader = GradScalerReader(scaler)
    reader.attach()
    _step(scaler, model, opt, float("inf"))
    assert calls == ["update"]
    assert _numbers(reader) == [(8.0, 4.0, 1.0)]
    reader.detach()
    assert vars(scaler)["update"] is timed_update  # theirs, not dropped
    assert "scale" not in vars(scaler) and "step" not in vars(scaler)
