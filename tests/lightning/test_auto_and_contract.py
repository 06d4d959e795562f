"""Entry-point auto-registration (package installed in the venv) and the hook contract."""

from __future__ import annotations

import inspect
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from tiny_module import TinyModule

from denpex_callbacks.core.report import read_report
from denpex_callbacks.lightning import AmpDiagnosticCallback, auto_callbacks

GROUPS = ("lightning.pytorch.callbacks_factory", "pytorch_lightning.callbacks_factory")


def namespaces() -> list[Any]:
    import lightning.pytorch as L

    found = [L]
    try:
        import pytorch_lightning as pl
    except ImportError:
        return found
    return [*found, pl]


def ours(trainer: Any) -> list[AmpDiagnosticCallback]:
    return [cb for cb in trainer.callbacks if isinstance(cb, AmpDiagnosticCallback)]


@pytest.mark.parametrize("group", GROUPS)
def test_entry_points_are_installed(group: str) -> None:
    (point,) = [ep for ep in entry_points(group=group) if ep.name == "denpex"]
    assert point.load() is auto_callbacks


@pytest.mark.parametrize("index", [0, 1])
def test_every_trainer_gets_one_callback(index: int, new_trainer: Any) -> None:
    if index >= len(namespaces()):
        pytest.skip("pytorch_lightning is not installed")
    trainer = new_trainer(namespace=namespaces()[index])
    (callback,) = ours(trainer)
    assert callback.auto


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
        explicit = AmpDiagnosticCallback(report_dir=None)
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
    assert issubclass(AmpDiagnosticCallback, base)
    overridden = {
        name: member for name, member in vars(AmpDiagnosticCallback).items()
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
