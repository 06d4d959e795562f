"""Real Lightning Trainers on CPU with a real fp16 GradScaler, for the adapter's tests."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("lightning")

HERE = Path(__file__).resolve().parent
# On sys.path (also in ddp_spawn children, which inherit it) so the modules pickle by name.
sys.path.insert(0, str(HERE))

import lightning.pytorch as L  # noqa: E402

from denpex_callbacks.core.report import RunReport, read_report  # noqa: E402


def make_trainer(root: Path, *, namespace: Any = L, fp16: str | None = "none",
                 steps: int = 30, **kwargs: Any) -> Any:
    """A quiet CPU Trainer; ``fp16`` names the fault for the fp16 plugin (None: no plugin)."""
    from denpex_callbacks.testing.tiny_lightning import fp16_plugin

    options: dict[str, Any] = {
        "accelerator": "cpu",
        "devices": 1,
        "max_steps": steps,
        "logger": False,
        "enable_checkpointing": False,
        "enable_progress_bar": False,
        "enable_model_summary": False,
        "default_root_dir": str(root),
    }
    if fp16 is not None and "precision" not in kwargs:
        options["plugins"] = [fp16_plugin("cpu", fp16, namespace)]
    options.update(kwargs)
    return namespace.Trainer(**options)


@pytest.fixture
def new_trainer(tmp_path: Path) -> Callable[..., Any]:
    """``make_trainer`` rooted in the test's tmp_path."""
    return functools.partial(make_trainer, tmp_path)


@pytest.fixture
def fit(tmp_path: Path) -> Callable[..., tuple[Any, RunReport]]:
    """Train ``module`` with ``callback`` and return (trainer, rank-0 report)."""

    def run(module: Any, callback: Any, **kwargs: Any) -> tuple[Any, RunReport]:
        trainer = make_trainer(tmp_path, callbacks=[callback], **kwargs)
        trainer.fit(module)
        return trainer, read_report(tmp_path / "reports" / "rank0.jsonl")

    return run


@pytest.fixture(autouse=True)
def _auto_registration_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # The package is installed in the venv, so its entry point runs in every Trainer here;
    # start each test from the default (auto-registration on) whatever the shell says.
    monkeypatch.delenv("DENPEX_AUTO", raising=False)
