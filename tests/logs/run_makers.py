"""Real runs on CPU that leave their files in a folder, with a loss fault from a given step on:
HF Trainer and Lightning Trainer (``factor``: NaN, 0, or 1.0 for a healthy run), and two ranks
of a plain loop under torchrun (``ranked_loop.py``)."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn


class Regressor(nn.Module):
    """Returns ``{"loss", "logits"}``; the training loss is multiplied by ``factor`` from
    optimizer step ``start`` on."""

    def __init__(self, factor: float, start: int) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 1)
        self.factor, self.start, self.calls = factor, start, 0

    def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
        out = self.lin(x).squeeze(-1)
        loss = ((out - labels) ** 2).mean()
        if self.training:
            self.calls += 1
            if self.calls >= self.start:
                loss = loss * self.factor
        return {"loss": loss, "logits": out}


def hf_run(root: Path, factor: float, *, nan_filter: bool, save_steps: int | None = None,
           report_to: str = "none", log: Path | None = None) -> Path:
    """An HF Trainer of 24 steps into ``root``; the loss times ``factor`` from step 6 on.
    ``save_steps``: checkpoints (each with its trainer_state.json); ``log``: where its
    stdout goes (the log dicts HF prints)."""
    transformers = pytest.importorskip("transformers")
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(96, 4, generator=gen), torch.randn(96, generator=gen)
    data = [{"x": x[i], "labels": y[i]} for i in range(len(x))]
    args = transformers.TrainingArguments(
        output_dir=str(root), max_steps=24, per_device_train_batch_size=4, logging_steps=1,
        use_cpu=True, report_to=report_to,  # tensorboard: output_dir/runs/<date>_<host>
        save_strategy="steps" if save_steps else "no", save_steps=save_steps or 500,
        disable_tqdm=True, logging_nan_inf_filter=nan_filter, learning_rate=1e-2)
    trainer = transformers.Trainer(model=Regressor(factor, 6), args=args, train_dataset=data)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        trainer.train()
    if log is not None:
        log.write_text(printed.getvalue())
    if save_steps is None:
        trainer.save_state()
    return root / "trainer_state.json"


def lightning_run(root: Path, factor: float, loggers: tuple[str, ...]) -> Path:
    """A Lightning Trainer of 30 steps logging into ``root`` (``csv``, ``tensorboard``); the
    loss times ``factor`` from global step 5 on. Returns the first file a logger wrote."""
    lightning = pytest.importorskip("lightning.pytorch")
    made_loggers = pytest.importorskip("lightning.pytorch.loggers")

    class Module(lightning.LightningModule):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Linear(4, 1)

        def training_step(self, batch: Any, _index: int) -> Any:
            x, y = batch
            loss = nn.functional.mse_loss(self.net(x), y)
            if self.global_step >= 5:
                loss = loss * factor
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.01)

        def train_dataloader(self) -> Any:
            gen = torch.Generator().manual_seed(0)
            x = torch.randn(120, 4, generator=gen)
            return torch.utils.data.DataLoader(
                torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True)), batch_size=4)

    kinds = {"csv": made_loggers.CSVLogger, "tensorboard": made_loggers.TensorBoardLogger}
    trainer = lightning.Trainer(
        accelerator="cpu", max_steps=30, logger=[kinds[k](str(root)) for k in loggers],
        log_every_n_steps=1, enable_checkpointing=False, enable_progress_bar=False,
        enable_model_summary=False)
    trainer.fit(Module())
    wanted = "metrics.csv" if loggers[0] == "csv" else "events.out.tfevents.*"
    found = sorted(root.rglob(wanted), key=lambda p: p.stat().st_mtime)
    assert found, "the logger wrote no file"
    return found[-1]


def torchrun_loop(fault: str, fault_step: int, steps: int, *options: str) -> str:
    """Two ranks of ``ranked_loop.py`` under torchrun with ``options`` (``--tee 3``,
    ``--log-dir D --redirects 3``); returns what torchrun printed."""
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2]), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        # --standalone: torchrun's own rendezvous on a port the OS picks (port 0)
        [torchrun, "--standalone", "--nproc_per_node", "2", *options,
         str(Path(__file__).with_name("ranked_loop.py")), fault, str(fault_step), str(steps)],
        env=env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr
