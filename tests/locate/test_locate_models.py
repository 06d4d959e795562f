"""Several models and wrapped models: every model passed is captured and hooked, and module
names carry no wrapper attribute. A real GAN loop (two optimizers, one GradScaler stepped twice
before one update, fp16 autocast on CPU) and a real Lightning Fabric loop."""

from __future__ import annotations

import functools
from typing import Any

import pytest
import torch
from locate_models import FAULT_STEP, FEATURES, hooks_on

from denpex_callbacks import MonitorConfig
from denpex_callbacks.torch import AmpMonitor

bce = torch.nn.functional.binary_cross_entropy_with_logits


def gan() -> tuple[torch.nn.Module, torch.nn.Module]:
    torch.manual_seed(0)
    gen = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(),
                              torch.nn.Linear(16, FEATURES))
    disc = torch.nn.Sequential(torch.nn.Linear(FEATURES, 16), torch.nn.ReLU(),
                               torch.nn.Linear(16, 1))
    return gen, disc


def losses(gen: torch.nn.Module, disc: torch.nn.Module, z: torch.Tensor, real: torch.Tensor
           ) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.autocast("cpu", dtype=torch.float16):
        fake = gen(z)
        d_real, d_fake = disc(real), disc(fake.detach())
        g_fake = disc(fake)
    ones, zeros = torch.ones_like(d_real.float()), torch.zeros_like(d_real.float())
    d_loss = bce(d_real.float(), ones) + bce(d_fake.float(), zeros)
    return d_loss, bce(g_fake.float(), ones)


def train_gan(models: Any, *, corrupt: str | None = "real", closure: bool = False,
              steps: int = 9) -> tuple[AmpMonitor, list[int]]:
    """``models(gen, disc)``: what the monitor is given. From FAULT_STEP the real data holds a
    NaN (``corrupt="real"``: a corrupt shard), or the generator's noise does (``"noise"``)."""
    gen, disc = gan()
    opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
    opt_d = torch.optim.Adam(disc.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    monitor = AmpMonitor(scaler=scaler, optimizer=[opt_d, opt_g], model=models(gen, disc),
                         config=MonitorConfig(report_dir=None))
    hooks = []
    data = torch.Generator().manual_seed(1)
    for step in range(steps):
        z, real = torch.randn(16, 4, generator=data), torch.randn(16, FEATURES, generator=data)
        if corrupt is not None and step >= FAULT_STEP:
            (real if corrupt == "real" else z)[2, 3] = float("nan")
        d_loss, g_loss = losses(gen, disc, z, real)
        hooks.append(hooks_on(gen) + hooks_on(disc))
        scaler.scale(d_loss).backward(retain_graph=True)
        scaler.step(opt_d)
        opt_g.zero_grad()  # the generator learns from its own loss only
        scaler.scale(g_loss).backward()
        scaler.step(opt_g)
        scaler.update()  # one update after both steps: the GAN pattern
        opt_d.zero_grad()
        opt_g.zero_grad()
        rerun = functools.partial(lambda *a: sum(losses(*a)), gen, disc, z, real) if (
            closure) else None
        monitor.step(d_loss.detach() + g_loss.detach(), rerun=rerun)
    monitor.close()
    return monitor, hooks


GIVEN = {
    "dict": lambda gen, disc: {"gen": gen, "disc": disc},
    "ModuleDict": lambda gen, disc: torch.nn.ModuleDict({"gen": gen, "disc": disc}),
    "list": lambda gen, disc: [gen, disc],
}
DISC = {"dict": "disc", "ModuleDict": "disc", "list": "[1]"}


@pytest.mark.parametrize("given", list(GIVEN))
def test_every_model_is_hooked_and_named_by_its_key(given):
    monitor, hooks = train_gan(GIVEN[given])
    nan_loss = next(d for d in monitor.diagnoses if d.code == "AMP006")
    assert nan_loss.step == FAULT_STEP
    # GradScaler checks each optimizer's own gradients: the discriminator's step was skipped,
    # the generator's (finite gradients) applied. Its parameters changed: no re-run.
    assert nan_loss.evidence["rerun"] == "not-rerunnable"
    assert nan_loss.evidence["rerun_reason"].startswith(
        f"an optimizer step was applied after step {FAULT_STEP}'s forward")
    origin = nan_loss.evidence["origin"]  # the next step, both models hooked
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP + 1, f"{DISC[given]}.0")
    assert hooks[0] == 4  # a capture pre-hook and an output hook on each model


@pytest.mark.parametrize("closure", [True, False])
def test_a_failing_step_of_both_models_is_re_run_and_reproduced(closure):
    # NaN noise: both losses non-finite, both steps skipped, the parameters unchanged. With the
    # closure the whole step is re-run; without, each model on its own last inputs.
    monitor, _hooks = train_gan(GIVEN["dict"], corrupt="noise", closure=closure)
    nan_loss = next(d for d in monitor.diagnoses if d.code == "AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP, "gen.0")


def test_a_healthy_gan_loop_is_silent():
    monitor, _hooks = train_gan(GIVEN["ModuleDict"], corrupt=None, steps=20)
    assert [d.code for d in monitor.diagnoses if d.severity.rank >= 1] == []
    assert monitor.pipeline.locate.rerun is not None
    assert monitor.pipeline.locate.rerun.reruns == 0


def test_fabric_module_names_carry_no_wrapper_attribute():
    fabric_module = pytest.importorskip("lightning.fabric")
    from lightning.fabric.plugins.precision import MixedPrecision
    from locate_models import TinyT5, overflow_block2

    fabric = fabric_module.Fabric(accelerator="cpu", devices=1, plugins=[MixedPrecision(
        "16-mixed", "cpu", scaler=torch.amp.GradScaler("cpu", init_scale=2.0**10))])
    model = TinyT5()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    wrapped, wrapped_opt = fabric.setup(model, opt)
    assert any("_forward_module." in name for name, _m in wrapped.named_modules())
    monitor = AmpMonitor(scaler=fabric._precision.scaler, optimizer=wrapped_opt, model=wrapped,
                         config=MonitorConfig(report_dir=None))
    data = torch.Generator().manual_seed(1)
    for step in range(FAULT_STEP + 3):
        x = torch.randn(32, FEATURES, generator=data)
        y = x[:, :1] * 2.0 + 0.5
        if step == FAULT_STEP:
            overflow_block2(model)
        loss = torch.nn.functional.mse_loss(wrapped(x).float(), y)
        fabric.backward(loss)
        wrapped_opt.step()
        wrapped_opt.zero_grad()
        monitor.step(loss)
    monitor.close()
    nan_loss = next(d for d in monitor.diagnoses if d.code == "AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["module"]) == ("activation-overflow", "blocks.2.wo")
    assert nan_loss.root_cause.startswith("activation overflow in blocks.2.wo (Linear)")
