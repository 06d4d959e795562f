"""Entry-point auto-registration (package installed in the venv) and the hook contract."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from denpex_callbacks.core.report import read_report
from denpex_callbacks.integrations.lightning_callback import AmpDiagnosticHooks
from denpex_callbacks.lightning import AmpDiagnosticCallback, auto_callbacks
from denpex_callbacks.testing.tiny_lightning import TinyModule

GROUPS = {
    "lightning.pytorch.callbacks_factory": "denpex_callbacks.lightning",
    "pytorch_lightning.callbacks_factory": "denpex_callbacks.pytorch_lightning",
}
DOORS = {"lightning.pytorch": "denpex_callbacks.lightning",
         "pytorch_lightning": "denpex_callbacks.pytorch_lightning"}


def namespaces() -> list[Any]:
    import lightning.pytorch as L

    found = [L]
    try:
        import pytorch_lightning as pl
    except ImportError:
        return found
    return [*found, pl]


def door_of(namespace: Any) -> Any:
    """The denpex door of a Lightning namespace (its own AmpDiagnosticCallback)."""
    return importlib.import_module(DOORS[namespace.__name__])


def ours(trainer: Any) -> list[AmpDiagnosticHooks]:
    return [cb for cb in trainer.callbacks if isinstance(cb, AmpDiagnosticHooks)]


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_entry_points_are_installed(group: str) -> None:
    if group.startswith("pytorch_lightning"):
        pytest.importorskip("pytorch_lightning")
    (point,) = [ep for ep in entry_points(group=group) if ep.name == "denpex"]
    assert point.load() is importlib.import_module(GROUPS[group]).auto_callbacks


@pytest.mark.parametrize(("door", "other"), [
    ("denpex_callbacks.lightning", "pytorch_lightning"),
    ("denpex_callbacks.pytorch_lightning", "lightning.pytorch"),
])
def test_each_door_imports_only_its_own_namespace(door: str, other: str) -> None:
    pytest.importorskip("pytorch_lightning" if door.endswith("pytorch_lightning") else "lightning")
    # A fresh interpreter: the entry points of both namespaces stay unloaded there.
    code = f"import sys, {door}; print({other!r} in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize("index", [0, 1])
def test_every_trainer_gets_one_callback(index: int, new_trainer: Any) -> None:
    if index >= len(namespaces()):
        pytest.skip("pytorch_lightning is not installed")
    namespace = namespaces()[index]
    trainer = new_trainer(namespace=namespace)
    (callback,) = ours(trainer)
    assert callback.auto
    assert isinstance(callback, door_of(namespace).AmpDiagnosticCallback)


def test_auto_callback_watches_and_reports(tmp_path: Path, new_trainer: Any) -> None:
    trainer = new_trainer(steps=8)
    trainer.fit(TinyModule(fault="nan", fault_step=3))
    report = read_report(tmp_path / "denpex_reports" / "rank0.jsonl")  # default_root_dir
    assert (report.diagnoses[0].code, report.diagnoses[0].step) == ("AMP006", 3)


def test_explicit_callback_is_the_only_one(new_trainer: Any) -> None:
    explicit = AmpDiagnosticCallback(report_dir=None)
    trainer = new_trainer(callbacks=[explicit], steps=2)  # no duplicate state_key error
    assert ours(trainer) == [explicit]
    trainer.fit(TinyModule())
    assert ours(trainer) == [explicit]


def test_single_callback_argument_works_in_both_namespaces(new_trainer: Any) -> None:
    for namespace in namespaces():
        explicit = door_of(namespace).AmpDiagnosticCallback(report_dir=None)
        trainer = new_trainer(namespace=namespace, callbacks=explicit)  # not in a list
        assert ours(trainer) == [explicit]


def test_denpex_auto_0_turns_it_off(monkeypatch: pytest.MonkeyPatch, new_trainer: Any) -> None:
    monkeypatch.setenv("DENPEX_AUTO", "0")
    for namespace in namespaces():
        assert ours(new_trainer(namespace=namespace)) == []


def test_factory_outside_a_trainer_adds_nothing() -> None:
    assert auto_callbacks() == []


@pytest.mark.parametrize("index", [0, 1])
def test_every_overridden_hook_exists_on_the_installed_callback(index: int) -> None:
    if index >= len(namespaces()):
        pytest.skip("pytorch_lightning is not installed")
    base = namespaces()[index].Callback
    assert issubclass(door_of(namespaces()[index]).AmpDiagnosticCallback, base)
    overridden = {
        name: member for name, member in vars(AmpDiagnosticHooks).items()
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    }
    assert {"on_fit_start", "on_before_optimizer_step", "on_train_batch_end", "teardown",
            "on_exception", "state_dict", "load_state_dict", "state_key"} <= set(overridden)
    for name, member in overridden.items():
        assert hasattr(base, name), f"{base.__module__}.Callback has no {name}"
        if callable(member):
            ours_params = list(inspect.signature(member).parameters)
            theirs = list(inspect.signature(getattr(base, name)).parameters)
            assert ours_params == theirs, name
