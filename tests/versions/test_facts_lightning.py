"""Lightning internals the Lightning adapter relies on, in both packages (``lightning`` and
``pytorch-lightning``), checked on the installed releases (see test_facts_torch.py)."""

from __future__ import annotations

import importlib
import inspect
import warnings
from importlib import metadata
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

torch = pytest.importorskip("torch")

CHECKED = SpecifierSet(">=2.2.0,<=2.6.6")
# (the package's Trainer namespace, its entry-point group for callback factories)
NAMESPACES = {
    "lightning": ("lightning.pytorch", "lightning.pytorch.callbacks_factory"),
    "pytorch-lightning": ("pytorch_lightning", "pytorch_lightning.callbacks_factory"),
}


def namespace(distribution: str) -> Any:
    return pytest.importorskip(NAMESPACES[distribution][0])


@pytest.fixture(params=sorted(NAMESPACES))
def distribution(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    namespace(name)
    return name


def test_the_installed_release_is_in_the_checked_range(distribution: str) -> None:
    assert Version(metadata.version(distribution)).base_version in CHECKED


def quiet_trainer(L: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return L.Trainer(accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False, **kwargs)


def test_the_callbacks_factory_runs_inside_trainer_init(
    distribution: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # integrations/lightning_auto.py (_trainer_under_construction): the factory registered under
    # the package's entry-point group is called with no arguments from Trainer.__init__, whose
    # frame (at most 12 up: our walk's bound) has the Trainer as `self`, with
    # `_callback_connector` and `_accelerator_connector`, and the `precision` asked for.
    group = NAMESPACES[distribution][1]
    (entry,) = [ep for ep in metadata.entry_points(group=group) if ep.name == "denpex"]
    target, _, attribute = entry.value.partition(":")
    seen: list[tuple[int, Any]] = []

    def probe() -> list[Any]:
        frame = inspect.currentframe()
        for depth in range(12):
            if frame is None:
                break
            candidate = frame.f_locals.get("self")
            if (frame.f_code.co_name == "__init__"
                    and hasattr(candidate, "_callback_connector")
                    and hasattr(candidate, "_accelerator_connector")):
                seen.append((depth, frame.f_locals.get("precision")))
                break
            frame = frame.f_back
        return []

    monkeypatch.setattr(importlib.import_module(target), attribute, probe)
    quiet_trainer(namespace(distribution), precision="bf16-mixed", max_steps=1)
    assert len(seen) == 1 and seen[0][0] < 12
    assert seen[0][1] == "bf16-mixed"


def test_16_mixed_on_cpu_becomes_bf16_without_a_scaler(distribution: str) -> None:
    # AMP010 (fp16-requested-not-active) for Lightning: the swap leaves no scaler behind.
    trainer = quiet_trainer(namespace(distribution), precision="16-mixed", max_steps=1)
    assert trainer.precision_plugin.precision == "bf16-mixed"
    assert getattr(trainer.precision_plugin, "scaler", None) is None


def test_the_precision_plugin_holds_the_scaler_it_was_given(distribution: str) -> None:
    # integrations/lightning_setup.py, testing/tiny_lightning.fp16_plugin: a MixedPrecision
    # plugin built with a CPU GradScaler keeps it as `trainer.precision_plugin.scaler`; the
    # strategy reduces a stop vote with `reduce_boolean_decision`.
    L = namespace(distribution)
    scaler = torch.amp.GradScaler("cpu")
    trainer = quiet_trainer(L, plugins=[L.plugins.MixedPrecision("16-mixed", "cpu",
                                                                  scaler=scaler)])
    assert trainer.precision_plugin.scaler is scaler
    assert trainer.strategy.reduce_boolean_decision(True) is True


def test_the_step_counters_read_the_progress_records_a_rerun_sets(distribution: str) -> None:
    # integrations/lightning_rerun.py: a re-run sets these two records to the failing step's
    # counters for its duration; Trainer.global_step/current_epoch must read them.
    from denpex_callbacks.integrations.lightning_rerun import StepCounters, _counters_at

    trainer = quiet_trainer(namespace(distribution), max_steps=1)
    loop = trainer.fit_loop
    assert loop.epoch_loop.automatic_optimization.optim_progress.optimizer.step.total is not None
    with _counters_at(trainer, StepCounters(7, 2)) as restored:
        assert restored and (trainer.global_step, trainer.current_epoch) == (7, 2)
    assert (trainer.global_step, trainer.current_epoch) == (0, 0)
