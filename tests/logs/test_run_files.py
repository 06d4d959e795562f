"""The files a failed run leaves, written by the real frameworks: HF ``trainer_state.json``,
Lightning CSVLogger ``metrics.csv`` and TensorBoard event files; each bad file is one line
and exit 2."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from denpex_callbacks.cli import main
from denpex_callbacks.logs.doctor import diagnose

torch = pytest.importorskip("torch")
nn = torch.nn


class _Regressor(nn.Module):
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


def _hf_trainer_state(root: Path, factor: float, *, nan_filter: bool) -> Path:
    transformers = pytest.importorskip("transformers")
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(96, 4, generator=gen), torch.randn(96, generator=gen)
    data = [{"x": x[i], "labels": y[i]} for i in range(len(x))]
    args = transformers.TrainingArguments(
        output_dir=str(root), max_steps=24, per_device_train_batch_size=4, logging_steps=1,
        use_cpu=True, report_to="none", save_strategy="no", disable_tqdm=True,
        logging_nan_inf_filter=nan_filter, learning_rate=1e-2)
    trainer = transformers.Trainer(model=_Regressor(factor, 6), args=args, train_dataset=data)
    trainer.train()
    trainer.save_state()
    return root / "trainer_state.json"


def test_hf_trainer_state_with_a_nan_loss(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, math.nan, nan_filter=False)))
    assert result.error is None and result.kind == "trainer_state"
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 6)]
    assert result.reading.parts[("trainer_state", "metrics")] == 24


def test_hf_trainer_state_with_the_nan_filter_on(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, math.nan, nan_filter=True)))
    assert [d.code for d in result.faults][:1] == ["AMP009"]


def test_hf_trainer_state_of_a_healthy_run_is_quiet(tmp_path: Path) -> None:
    result = diagnose(str(_hf_trainer_state(tmp_path, 1.0, nan_filter=True)))
    assert result.error is None and result.faults == []
    assert result.reading.lines > 24  # the eval-free records and the closing summary


def _lightning_run(root: Path, factor: float, logger: str) -> Path:
    lightning = pytest.importorskip("lightning.pytorch")
    loggers = pytest.importorskip("lightning.pytorch.loggers")

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

    made = (loggers.CSVLogger(str(root)) if logger == "csv"
            else loggers.TensorBoardLogger(str(root)))
    trainer = lightning.Trainer(
        accelerator="cpu", max_steps=30, logger=made, log_every_n_steps=1,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Module())
    found = sorted(root.rglob("metrics.csv" if logger == "csv" else "events.out.tfevents.*"))
    assert found, "the logger wrote no file"
    return found[0]


@pytest.mark.parametrize("logger", ["csv", "tensorboard"])
def test_lightning_logger_files_with_a_nan_loss(tmp_path: Path, logger: str) -> None:
    result = diagnose(str(_lightning_run(tmp_path, math.inf * 0, logger)))
    assert result.error is None, result.error
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 5)]


@pytest.mark.parametrize("logger", ["csv", "tensorboard"])
def test_lightning_logger_files_with_a_zero_loss(tmp_path: Path, logger: str) -> None:
    result = diagnose(str(_lightning_run(tmp_path, 0.0, logger)))
    assert [(d.code, d.step) for d in result.faults] == [("AMP007", 5)]


def test_lightning_csv_of_a_healthy_run_is_quiet(tmp_path: Path) -> None:
    result = diagnose(str(_lightning_run(tmp_path, 1.0, "csv")))
    assert result.error is None and result.faults == []


@pytest.mark.parametrize(("name", "content", "message"), [
    ("trainer_state.json", "{not json", "not valid JSON"),
    ("trainer_state.json", '{"global_step": 3}', "no 'log_history' list"),
    ("metrics.csv", "epoch,step,accuracy\n0,1,0.5\n", "without a loss, loss-scale or grad-norm"),
    ("events.out.tfevents.1.host", "garbage that is no record", "TensorBoard"),
])
def test_a_bad_run_file_is_one_line_and_exit_2(
    tmp_path: Path, name: str, content: str, message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"denpex: {path}") and message in err[0]
