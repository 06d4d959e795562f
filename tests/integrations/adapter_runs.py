"""The contract's runs: each adapter trains a tiny model with a real fp16 loss scaler on CPU.

Plain loop: GradScaler; HF Trainer: its accelerator with a CPU GradScaler; Lightning: the fp16
MixedPrecision plugin; DeepSpeed: its own fp16 optimizer and loss scaler. A fault is injected at
the optimizer step the adapter itself numbers ``FAULT_STEP``. The settings are module globals,
read when a run starts, so that a test can vary them (monkeypatch).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

FAULT_STEP = 6
STEPS = 16
OVERFLOW = 1e38  # finite in fp32; times any loss scale above ~4: inf gradients
# The runners' settings other tests vary (tests/integrations/test_hot_path.py).
LOCATE = False
HF_LOGGING_STEPS = 1


def _inject(loss: Any, fault: str, step: int) -> Any:
    if step < FAULT_STEP or fault == "healthy":
        return loss
    return loss * (float("nan") if fault == "nan" else OVERFLOW)


def _model() -> Any:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))


def _batch(step: int) -> tuple[Any, Any]:
    generator = torch.Generator().manual_seed(step)
    return torch.randn(8, 8, generator=generator), torch.randn(8, 1, generator=generator)


# -- one runner per adapter: train STEPS optimizer steps, return the report folder ------------


def run_torch(tmp_path: Path, fault: str) -> Path:
    from denpex_callbacks.torch import AmpMonitor

    model = _model()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)
    with AmpMonitor(scaler=scaler, optimizer=opt, model=model, locate=LOCATE) as monitor:
        for step in range(STEPS):  # the plain loop's steps count from 0
            x, y = _batch(step)
            with torch.autocast("cpu", dtype=torch.float16):
                loss = _inject((model(x).float() - y).pow(2).mean(), fault, step)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            monitor.step(loss)
    return tmp_path / "denpex_reports"  # relative to the working directory


def run_hf(tmp_path: Path, fault: str) -> Path:
    from transformers import Trainer, TrainingArguments

    from denpex_callbacks.hf import AmpDiagnosticCallback

    class Regressor(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.net, self.steps = _model(), 0

        def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
            loss = (self.net(x).float().squeeze(-1) - labels).pow(2).mean()
            if self.training:
                self.steps += 1  # HF numbers optimizer steps from 1
                loss = _inject(loss, fault, self.steps)
            return {"loss": loss}

    class Data(torch.utils.data.Dataset):  # type: ignore[misc]
        def __len__(self) -> int:
            return 8 * STEPS

        def __getitem__(self, i: int) -> dict[str, Any]:
            x, y = _batch(i)
            return {"x": x[0], "labels": y[0, 0]}

    class CPUScalerTrainer(Trainer):  # type: ignore[misc]
        # HF runs fp16 on CPU without a scaler; give its accelerator a real CPU GradScaler.
        def create_accelerator_and_postprocess(self) -> None:
            super().create_accelerator_and_postprocess()
            self.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)
            self.accelerator.native_amp = True

    args = TrainingArguments(
        str(tmp_path / "out"), use_cpu=True, fp16=True, max_steps=STEPS,
        per_device_train_batch_size=8, logging_steps=HF_LOGGING_STEPS, report_to=[],
        save_strategy="no", disable_tqdm=True, logging_nan_inf_filter=False, max_grad_norm=0,
    )
    CPUScalerTrainer(model=Regressor(), args=args, train_dataset=Data(),
                     callbacks=[AmpDiagnosticCallback(locate=LOCATE)]).train()
    return tmp_path / "out" / "denpex_reports"  # relative to args.output_dir


def run_lightning(tmp_path: Path, fault: str) -> Path:
    import lightning.pytorch as L

    from denpex_callbacks.lightning import AmpDiagnosticCallback

    class Module(L.LightningModule):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.net = _model()

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            x, y = batch  # Lightning numbers optimizer steps from 0 (global_step before it)
            return _inject((self.net(x).float() - y).pow(2).mean(), fault, self.global_step)

        def configure_optimizers(self) -> Any:
            return torch.optim.SGD(self.parameters(), lr=0.01)

        def train_dataloader(self) -> Any:
            pairs = [_batch(step) for step in range(STEPS)]
            data = torch.utils.data.TensorDataset(torch.cat([x for x, _ in pairs]),
                                                  torch.cat([y for _, y in pairs]))
            return torch.utils.data.DataLoader(data, batch_size=8)

    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16)
    L.Trainer(
        accelerator="cpu", devices=1, max_steps=STEPS, logger=False,
        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
        default_root_dir=str(tmp_path / "root"),
        plugins=[L.plugins.MixedPrecision("16-mixed", "cpu", scaler=scaler)],
        callbacks=[AmpDiagnosticCallback(locate=LOCATE)],
    ).fit(Module())
    return tmp_path / "root" / "denpex_reports"  # relative to default_root_dir


def run_deepspeed(tmp_path: Path, fault: str) -> Path:
    import deepspeed

    from denpex_callbacks.deepspeed import attach

    model = _model()
    config = {
        "train_micro_batch_size_per_gpu": 8, "gradient_clipping": 0, "steps_per_print": 10**6,
        "optimizer": {"type": "SGD", "params": {"lr": 0.01}},
        "fp16": {"enabled": True, "initial_scale_power": 16, "hysteresis": 1},
        "denpex": {"locate": LOCATE},
    }
    engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                      config=config)
    watcher = attach(engine)
    assert watcher is not None
    for step in range(1, STEPS + 1):  # DeepSpeed numbers optimizer steps from 1
        x, y = _batch(step)
        loss = _inject((engine(x.half()).float() - y).pow(2).mean(), fault, step)
        engine.backward(loss)
        engine.step()
    watcher.detach()
    return tmp_path / "denpex_reports"  # relative to the working directory


RUNNERS: dict[str, Callable[[Path, str], Path]] = {
    "torch": run_torch, "hf": run_hf, "lightning": run_lightning, "deepspeed": run_deepspeed,
}
NEEDS = {"hf": "transformers", "lightning": "lightning", "deepspeed": "deepspeed"}
