"""Train a tiny model with Hugging Face Trainer and AmpDiagnosticCallback, optionally broken.

    python examples/hf/train.py --fault overflow        # CPU: uses the CPU GradScaler helper
    python examples/hf/train.py --fault nan --on-fault stop

Faults (from step --fault-step on): ``nan`` NaN loss; ``overflow`` a huge but finite loss
whose fp16 gradients overflow every step (scale collapse, then underflow); ``stuck`` a
GradScaler that can never grow; ``zero`` loss forced to 0; ``none`` a healthy run.
On CUDA it runs as is (fp16 with accelerate's own GradScaler). On CPU, HF ignores fp16, so
the script gives the Trainer a real ``torch.amp.GradScaler("cpu")`` with the public helper
``denpex_callbacks.testing.cpu_fp16.hf_fp16_on_cpu``.
Random data, no downloads; the JSONL report lands in OUTPUT_DIR/denpex_reports.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import torch
from torch import nn
from transformers import Trainer, TrainingArguments

from denpex_callbacks.hf import AmpDiagnosticCallback
from denpex_callbacks.testing.cpu_fp16 import hf_fp16_on_cpu

LOSS_FAULTS = {"nan": math.nan, "overflow": 1e8, "zero": 0.0}


class TinyRegressor(nn.Module):
    """Two linear layers returning ``{"loss", "logits"}`` like a transformers model."""

    def __init__(self, fault: str, fault_step: int, accumulation: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
        self.fault, self.fault_step, self.accumulation = fault, fault_step, accumulation
        self.micro_batches = 0

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
        out = self.net(x).squeeze(-1)
        loss = ((out.float() - labels) ** 2).mean()
        if self.training:
            step = self.micro_batches // self.accumulation + 1
            self.micro_batches += 1
            if self.fault in LOSS_FAULTS and step >= self.fault_step:
                loss = loss * LOSS_FAULTS[self.fault]
        return {"loss": loss, "logits": out}


class RandomRegression(torch.utils.data.Dataset):  # type: ignore[misc]
    def __init__(self, size: int = 512) -> None:
        gen = torch.Generator().manual_seed(0)
        self.x = torch.randn(size, 16, generator=gen)
        # Targets of unit scale: at the initial loss scale (65536) the healthy steps' fp16
        # gradients stay far from overflow, on any CPU's rounding, so the fault's first
        # skipped step is the fault's own and not a calibration skip that comes and goes.
        self.y = 0.25 * self.x[:, :4].sum(-1) + 0.05 * torch.randn(size, generator=gen)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"x": self.x[i], "labels": self.y[i]}


def give_scaler(trainer: Trainer, fault: str) -> None:
    """On CPU (HF builds no scaler there) or for ``stuck``: a real GradScaler for the Trainer."""
    kwargs: dict[str, Any] = {"growth_interval": 10**9} if fault == "stuck" else {}
    if not torch.cuda.is_available():
        hf_fp16_on_cpu(trainer, **kwargs)  # the public CPU recipe
    elif fault == "stuck":
        trainer.accelerator.scaler = torch.amp.GradScaler("cuda", **kwargs)


def main(argv: list[str] | None = None) -> Trainer:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fault", choices=["nan", "overflow", "stuck", "zero", "none"],
                        default="overflow")
    parser.add_argument("--fault-step", type=int, default=20)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--on-fault", choices=["warn", "stop", "raise"], default="warn")
    parser.add_argument("--output-dir", default="hf_example_out")
    parser.add_argument("--accumulation", type=int, default=1)
    opts = parser.parse_args(argv)
    args = TrainingArguments(
        opts.output_dir, fp16=True, max_steps=opts.steps, per_device_train_batch_size=16,
        gradient_accumulation_steps=opts.accumulation, learning_rate=1e-3, logging_steps=10,
        report_to=[], save_strategy="no", disable_tqdm=True, use_cpu=not torch.cuda.is_available(),
    )
    torch.manual_seed(0)  # the same weights on every run
    trainer = Trainer(
        model=TinyRegressor(opts.fault, opts.fault_step, opts.accumulation),
        args=args,
        train_dataset=RandomRegression(),
        callbacks=[AmpDiagnosticCallback(on_fault=opts.on_fault)],
    )
    give_scaler(trainer, opts.fault)
    trainer.train()
    return trainer


if __name__ == "__main__":
    main()
