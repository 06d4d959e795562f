"""Hand-written loops as people write them: accelerate and Fabric objects handed over as they
are, fp16 asked for and not run, several optimizers, gradient accumulation."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from denpex_callbacks.torch import AmpMonitor


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def _batch(step: int, micro: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(100 * step + micro)
    return torch.randn(8, 8, generator=gen), torch.randn(8, 1, generator=gen)


def _faults(monitor: AmpMonitor) -> list[tuple[str, int | None]]:
    return [(d.code, d.step) for d in monitor.diagnoses if d.severity.value != "info"]


def _train(monitor: AmpMonitor, model: Any, opt: Any, backward: Any, steps: int = 6) -> None:
    """A wrapped loop: the framework's ``backward``, the prepared optimizer, then close."""
    for step in range(steps):
        x, y = _batch(step)
        loss = (model(x).float() - y).pow(2).mean()
        backward(loss)
        opt.step()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()


# -- accelerate and Fabric: what fp16 asked for on a CPU really runs ----------------------------


def test_accelerate_fp16_on_a_cpu_is_fp32_and_said_so(fresh_accelerate: Any) -> None:
    # Was: AmpMonitor(optimizer=<AcceleratedOptimizer>) raised AttributeError at construction,
    # and nothing could tell that fp16 was asked for.
    accelerator = fresh_accelerate.Accelerator(mixed_precision="fp16", cpu=True)
    model = _model()
    model, opt = accelerator.prepare(model, torch.optim.SGD(model.parameters(), lr=0.01))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    _train(monitor, model, opt, accelerator.backward)
    (swap,) = [d for d in monitor.diagnoses if d.code == "AMP010"]
    assert (swap.step, swap.severity.value) == (0, "warning")
    assert swap.evidence["requested"] == "fp16" and swap.evidence["active"] == "fp32"
    assert _faults(monitor) == [("AMP010", 0)]
    assert monitor.monitor.summary()["steps"] == 6


@pytest.mark.parametrize(("asked", "active"), [("bf16", "bf16-mixed"), ("no", "fp32")])
def test_accelerate_bf16_on_a_cpu_is_read_from_its_forward_wrapper(
        fresh_accelerate: Any, asked: str, active: str) -> None:
    # Was: bf16 read as "fp32 (requested bf16)" and an AMP010 for a healthy run: accelerate's
    # wrapper enters bf16 autocast inside forward, after the probe's pre-hook. Control: "no"
    # wraps nothing and stays fp32, silent too.
    accelerator = fresh_accelerate.Accelerator(mixed_precision=asked, cpu=True)
    model = _model()
    model, opt = accelerator.prepare(model, torch.optim.AdamW(model.parameters(), lr=3e-4))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    _train(monitor, model, opt, accelerator.backward)
    assert monitor.monitor.setup.active_precision == active
    assert monitor.diagnoses == []


def test_fabric_16_mixed_on_a_cpu_is_bf16_and_said_so() -> None:
    fabric_module = pytest.importorskip("lightning.fabric")
    with pytest.warns(UserWarning, match="Using `precision='bf16-mixed'` instead"):
        fabric = fabric_module.Fabric(accelerator="cpu", devices=1, precision="16-mixed")
    model = _model()
    model, opt = fabric.setup(model, torch.optim.SGD(model.parameters(), lr=0.01))
    monitor = AmpMonitor(optimizer=opt, model=model, precision="16-mixed", report_dir=None)
    _train(monitor, model, opt, fabric.backward)
    assert _faults(monitor) == [("AMP010", 0)]
    (swap,) = monitor.diagnoses
    assert swap.evidence["active"] == "bf16-mixed"


@pytest.mark.parametrize(("flag", "requested", "faults"), [
    ("16-true", "fp16-true", [("AMP001", 0)]),  # fp16 weights, no scaler: fp16 asked, runs
    ("bf16-true", "bf16-true", []),  # healthy controls: silent
    ("32-true", "fp32", []),
])
def test_a_fabric_loop_says_what_precision_it_asked_for(
    flag: str, requested: str, faults: list[tuple[str, int]]
) -> None:
    # Fabric's precision plugin keeps its flag: "16-true" (fp16 weights, no scaler) is fp16
    # asked for, so that AMP010 can fire when the run does not compute in fp16 after all.
    fabric_module = pytest.importorskip("lightning.fabric")
    fabric = fabric_module.Fabric(accelerator="cpu", devices=1, precision=flag)
    model = _model()
    model, opt = fabric.setup(model, torch.optim.SGD(model.parameters(), lr=0.01))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    _train(monitor, model, opt, fabric.backward)
    setup = monitor.monitor.setup
    assert setup.requested_precision == requested
    assert setup.fp16_requested is (flag == "16-true")
    assert _faults(monitor) == faults


@pytest.mark.parametrize("asked", ["16-true", "half"])
def test_fp16_weights_asked_for_but_fp32_weights_trained_is_amp010(asked: str) -> None:
    # A loop that says it trains in fp16 weights and never converts its model: fp32 runs.
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    monitor = AmpMonitor(optimizer=opt, model=model, precision=asked, report_dir=None)
    _train(monitor, model, opt, lambda loss: loss.backward())
    assert _faults(monitor) == [("AMP010", 0)]
    (asked_for,) = monitor.diagnoses
    assert asked_for.evidence["active"] == "fp32"


def test_a_fabric_loop_with_an_fp16_scaler_finds_its_scaler_and_names_modules_plainly() -> None:
    fabric_module = pytest.importorskip("lightning.fabric")
    from lightning.fabric.plugins import MixedPrecision

    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    fabric = fabric_module.Fabric(accelerator="cpu", devices=1,
                                  plugins=[MixedPrecision("16-mixed", "cpu", scaler=scaler)])
    model = _model()
    model, opt = fabric.setup(model, torch.optim.SGD(model.parameters(), lr=0.01))
    monitor = AmpMonitor(optimizer=opt, model=model, report_dir=None)
    assert monitor.scaler is scaler
    for step in range(10):
        x, y = _batch(step)
        loss = (model(x).float() - y).pow(2).mean()
        if step >= 6:
            loss = loss * float("nan")
        fabric.backward(loss)
        opt.step()
        opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    assert _faults(monitor)[0] == ("AMP006", 6)
    assert "_forward_module" not in " ".join(d.summary for d in monitor.diagnoses)


# -- several optimizers ---------------------------------------------------------------------------


def _gan(steps: int, *, direct_g_step_from: int | None = None) -> AmpMonitor:
    """A GAN-shaped loop: two models, two optimizers, one scaler, two scaler.step() before one
    update() (torch's documented pattern for several optimizers)."""
    torch.manual_seed(0)
    g, d = torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)
    opt_g = torch.optim.SGD(g.parameters(), lr=0.01)
    opt_d = torch.optim.SGD(d.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    monitor = AmpMonitor(scaler=scaler, optimizer=[opt_d, opt_g],
                         model=torch.nn.ModuleDict({"g": g, "d": d}), report_dir=None)
    for step in range(steps):
        z = torch.randn(16, 4)
        with torch.autocast("cpu", dtype=torch.float16):
            fake = g(z)
            loss_d = d(fake.detach()).float().pow(2).mean()
            loss_g = (d(fake).float() - 1).pow(2).mean()
        scaler.scale(loss_d).backward(retain_graph=True)
        scaler.scale(loss_g).backward()
        scaler.step(opt_d)
        if direct_g_step_from is not None and step >= direct_g_step_from:
            opt_g.step()  # around the scaler: the update is multiplied by the loss scale
        else:
            scaler.step(opt_g)
        scaler.update()
        opt_d.zero_grad()
        opt_g.zero_grad()
        monitor.step(loss_d + loss_g)
    monitor.close()
    return monitor


def test_two_optimizers_stepped_before_one_update_are_a_healthy_gan() -> None:
    monitor = _gan(30)
    assert _faults(monitor) == []
    assert monitor.monitor.summary()["steps"] == 30


def test_every_optimizer_handed_over_is_watched() -> None:
    # Was: optimizer=[optD, optG] watched optD only; optG stepped around the scaler went unseen.
    monitor = _gan(12, direct_g_step_from=5)
    (misuse,) = [d for d in monitor.diagnoses if d.code == "AMP002"]
    assert misuse.step == 5 and "directly on scaled gradients" in misuse.summary


# -- gradient accumulation in a custom loop -------------------------------------------------------


def _accumulating(steps: int, *, per_micro_batch: bool, nan_at: tuple[int, int] | None = None,
                  overflow_from: int | None = None, accumulation: int = 4) -> AmpMonitor:
    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)
    monitor = AmpMonitor(scaler=scaler, optimizer=opt, model=model, report_dir=None)
    for step in range(steps):
        for micro in range(accumulation):
            x, y = _batch(step, micro)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = (model(x).float() - y).pow(2).mean() / accumulation
            if nan_at == (step, micro):
                loss = loss * float("nan")
            if overflow_from is not None and step >= overflow_from:
                loss = loss * 1e38  # finite, its scaled gradients overflow
            scaler.scale(loss).backward()
            if per_micro_batch:
                monitor.step(loss)  # the natural place in many loops: once per micro-batch
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        if not per_micro_batch:
            monitor.step(loss)
    monitor.close()
    return monitor


@pytest.mark.parametrize("per_micro_batch", [False, True], ids=["per-step", "per-micro-batch"])
def test_accumulation_numbers_optimizer_steps_and_misses_no_micro_batch(
        per_micro_batch: bool) -> None:
    # Was: monitor.step per micro-batch doubled the step numbers; per optimizer step missed a
    # NaN in a micro-batch other than the last one.
    healthy = _accumulating(20, per_micro_batch=per_micro_batch)
    assert _faults(healthy) == [] and healthy.monitor.summary()["steps"] == 20
    one_nan = _accumulating(20, per_micro_batch=per_micro_batch, nan_at=(7, 1))
    assert _faults(one_nan) == [("AMP006", 7)]
    (nan,) = one_nan.diagnoses
    assert nan.severity.value == "warning"  # the scaler skipped that step: absorbed
    assert one_nan.monitor.summary()["steps"] == 20


@pytest.mark.parametrize("per_micro_batch", [False, True], ids=["per-step", "per-micro-batch"])
def test_accumulation_collapse_counts_optimizer_steps(per_micro_batch: bool) -> None:
    # Was: "8 of 18 steps skipped ... with clean steps between the skips" while every optimizer
    # step was skipped (micro-batch calls counted as clean steps).
    monitor = _accumulating(18, per_micro_batch=per_micro_batch, overflow_from=8)
    collapse = next(d for d in monitor.diagnoses if d.code == "AMP003")
    assert collapse.step == 8
    assert collapse.evidence["consecutive_skipped"] >= 6
    assert "clean steps between" not in collapse.summary
    assert monitor.monitor.summary() == {**monitor.monitor.summary(), "steps": 18,
                                         "skipped_steps": 10}
