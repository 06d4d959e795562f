"""Regenerates the corpus by RUNNING the frameworks on CPU (and, for fairseq, apex and
Megatron-LM, which do not run here, by formatting their verbatim log strings).

Run from the repository root: ``.venv/bin/python tests/logs/corpus/make_corpus.py [NAME...]``.
Each scenario writes ``NAME.log`` (what the process printed, stdout and stderr together) and
keeps the hand-written ``NAME.expected.json`` next to it. Not run by the test suite (slow,
needs every framework); the tests read the files it produced.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1", "HF_HUB_OFFLINE": "1",
       "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1",
       "TORCH_EXTENSIONS_DIR": str(ROOT / ".cache" / "torch_extensions"),
       "MPLCONFIGDIR": str(ROOT / ".cache" / "matplotlib")}

# ---------------------------------------------------------------------------------------------
# DeepSpeed: ZeRO-2 fp16 on CPU, INFO logging, one step per print, faults injected in the loss.
_DEEPSPEED = r'''
import logging, os, sys, torch, deepspeed
from deepspeed.utils import logger
os.environ.setdefault("MASTER_ADDR", "127.0.0.1"); os.environ.setdefault("MASTER_PORT", "29533")
os.environ.setdefault("RANK", "0"); os.environ.setdefault("WORLD_SIZE", "1")
os.environ.setdefault("LOCAL_RANK", "0")
logger.setLevel(logging.INFO)
for handler in logger.handlers:
    handler.setLevel(logging.INFO)
torch.manual_seed(0)
FAULT, FROM, STEPS, CONFIG = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), eval(sys.argv[4])
from deepspeed.accelerator import get_accelerator
# This CPU lacks mkldnn fp16, so DeepSpeed refuses fp16 at initialize; torch's CPU half
# kernels still run, so its capability check is overridden (FRAMEWORKS.md, DeepSpeed 0.19).
get_accelerator().is_fp16_supported = lambda: True
deepspeed.init_distributed("gloo")
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
config = {"train_micro_batch_size_per_gpu": 4, "steps_per_print": 1, "gradient_clipping": 0,
          "optimizer": {"type": "Adam", "params": {"lr": 1e-3, "torch_adam": True}},
          "zero_optimization": {"stage": 2},
          "fp16": {"enabled": True, "initial_scale_power": 8, "loss_scale_window": 4,
                   "hysteresis": 1}}
for key, value in CONFIG.items():
    config[key] = {**config.get(key, {}), **value} if isinstance(value, dict) else value
engine, *_ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
for step in range(1, STEPS + 1):
    x = torch.randn(4, 8, dtype=torch.half if config["fp16"]["enabled"] else torch.bfloat16)
    loss = engine(x).float().pow(2).mean()
    if FAULT == "inf" and step >= FROM:
        loss = loss * float("inf")
    if FAULT == "spike" and step % FROM == 0:
        loss = loss * 1e30
    engine.backward(loss)
    engine.step()
    print(f"train step {step} loss {loss.item():.4f}", flush=True)
'''


def deepspeed_run(fault: str, start: int, steps: int, config: str = "{}") -> Callable[[], str]:
    """A DeepSpeed scenario: ``fault`` is ``none``, ``inf`` (from step ``start`` on) or
    ``spike`` (every ``start`` steps)."""
    return lambda: _python(_DEEPSPEED, fault, str(start), str(steps), config)


# ---------------------------------------------------------------------------------------------
# HF Trainer with a real GradScaler on CPU (FRAMEWORKS.md), loss NaN from a step on.
_HF = r'''
import sys, torch
from torch import nn
from transformers import Trainer, TrainingArguments
FROM, STEPS, FILTER = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "filter"
torch.manual_seed(0)
class Model(nn.Module):
    def __init__(self):
        super().__init__(); self.lin = nn.Linear(4, 1); self.calls = 0
    def forward(self, x, labels=None):
        self.calls += 1
        loss = (self.lin(x).squeeze(-1) - labels).pow(2).mean()
        if FROM and self.calls >= FROM:
            loss = loss * float("nan")
        return {"loss": loss}
class Data(torch.utils.data.Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return {"x": torch.randn(4, generator=g), "labels": torch.randn((), generator=g)}
class ScalerTrainer(Trainer):
    def create_accelerator_and_postprocess(self):
        super().create_accelerator_and_postprocess()
        self.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
        self.accelerator.native_amp = True
args = TrainingArguments(output_dir=sys.argv[4], per_device_train_batch_size=4, max_steps=STEPS,
                         logging_steps=1, use_cpu=True, report_to="none", save_strategy="no",
                         logging_nan_inf_filter=FILTER, disable_tqdm=False, optim="adamw_torch")
ScalerTrainer(model=Model(), args=args, train_dataset=Data()).train()
'''


def hf_run(start: int, steps: int, filter_nan: bool = False) -> Callable[[], str]:
    """An HF Trainer scenario: loss NaN from forward call ``start`` (0: healthy)."""
    return lambda: _python(_HF, str(start), str(steps), "filter" if filter_nan else "nofilter",
                           "/tmp/denpex_corpus_hf")


# ---------------------------------------------------------------------------------------------
# Lightning with the CPU fp16 plugin and a real GradScaler, or bf16-mixed (no scaler).
_LIGHTNING = r'''
import sys, torch, lightning as L
from lightning.pytorch.plugins import MixedPrecision
import lightning.pytorch.trainer.connectors.callback_connector as connector
# Lightning auto-loads every installed callbacks_factory entry point, denpex's included; the
# corpus records Lightning's own output, so none is loaded.
connector._load_external_callbacks = lambda group: []
from lightning.pytorch.callbacks import RichProgressBar, TQDMProgressBar
FROM, EPOCHS, PRECISION, BAR = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
torch.manual_seed(0)
class Module(L.LightningModule):
    def __init__(self):
        super().__init__(); self.lin = torch.nn.Linear(4, 1)
    def training_step(self, batch, i):
        x, y = batch
        loss = (self.lin(x).squeeze(-1) - y).pow(2).mean()
        if FROM and self.global_step >= FROM:
            loss = loss * float("nan")
        self.log("train_loss", loss, prog_bar=True)
        return loss
    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)
data = torch.utils.data.TensorDataset(torch.randn(40, 4), torch.randn(40))
loader = torch.utils.data.DataLoader(data, batch_size=4)
kwargs = dict(accelerator="cpu", max_epochs=EPOCHS, logger=False, enable_checkpointing=False,
              enable_model_summary=False, log_every_n_steps=1,
              callbacks=[TQDMProgressBar() if BAR == "tqdm" else RichProgressBar()])
if PRECISION == "fp16":
    kwargs["plugins"] = [MixedPrecision("16-mixed", "cpu",
                                        scaler=torch.amp.GradScaler("cpu", init_scale=2.0 ** 10))]
else:
    kwargs["precision"] = PRECISION
L.Trainer(**kwargs).fit(Module(), loader)
'''


def lightning_run(start: int, epochs: int, precision: str = "fp16",
                  bar: str = "tqdm") -> Callable[[], str]:
    """A Lightning scenario: loss NaN from global step ``start`` (0: healthy); ``bar`` is
    ``tqdm`` or ``rich`` (Lightning's default when rich is installed)."""
    return lambda: _python(_LIGHTNING, str(start), str(epochs), precision, bar)


# ---------------------------------------------------------------------------------------------
# torch errors, raised for real.
_TORCH = r'''
import sys, torch
case = sys.argv[1]
print("epoch 0 starting", flush=True)
if case == "anomaly":
    with torch.autograd.detect_anomaly():
        w = torch.zeros(3, requires_grad=True)
        (torch.log(w) * 0).sum().backward()
elif case == "double_step":
    model = torch.nn.Linear(2, 1); opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with torch.autocast("cpu", dtype=torch.float16):
        loss = model(torch.randn(4, 2)).float().mean()
    scaler.scale(loss).backward(); scaler.step(opt); scaler.step(opt)
elif case == "half":
    model = torch.nn.Linear(2, 1).half(); opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    loss = model(torch.randn(4, 2).half()).float().mean()
    scaler.scale(loss).backward(); scaler.step(opt)
elif case == "oom":
    torch.empty(1 << 62, dtype=torch.uint8)
'''


def torch_run(case: str) -> Callable[[], str]:
    """A plain torch failure, raised by torch itself."""
    return lambda: _python(_TORCH, case)


def _python(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], cwd=ROOT,
                          env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=600)
    # stdout and stderr of one process in one file, as `cmd > log 2>&1` mixes them.
    return done.stdout


SCENARIOS: dict[str, Callable[[], str]] = {
    "deepspeed_zero2_healthy": deepspeed_run("none", 0, 40),
    "deepspeed_zero2_collapse": deepspeed_run("inf", 12, 30),
    "deepspeed_zero2_sawtooth": deepspeed_run("spike", 7, 60),
    "deepspeed_zero2_min_scale_exit": deepspeed_run(
        "inf", 10, 30, '{"fp16": {"min_loss_scale": 16}}'),
    "deepspeed_zero2_hysteresis_collapse": deepspeed_run(
        "inf", 12, 30, '{"fp16": {"hysteresis": 2}}'),
    "deepspeed_zero2_bf16_nonfinite": deepspeed_run(
        "inf", 12, 20, '{"fp16": {"enabled": False}, "bf16": {"enabled": True}}'),
    "hf_trainer_healthy": hf_run(0, 20),
    "hf_trainer_nan_loss": hf_run(9, 20),
    "hf_trainer_nan_filtered": hf_run(9, 20, filter_nan=True),
    "lightning_fp16_healthy": lightning_run(0, 2),
    "lightning_fp16_nan_loss": lightning_run(13, 2),
    "lightning_fp16_nan_loss_rich": lightning_run(13, 2, bar="rich"),
    "lightning_bf16_healthy": lightning_run(0, 1, "bf16-mixed"),
    "torch_anomaly_nan": torch_run("anomaly"),
    "torch_scaler_double_step": torch_run("double_step"),
    "torch_fp16_master_weights": torch_run("half"),
    "torch_cpu_oom": torch_run("oom"),
}


def main(names: list[str]) -> None:
    from synthetic import SYNTHETIC  # the fairseq / apex / Megatron-LM files

    everything = {**SCENARIOS, **SYNTHETIC}
    for name in names or list(everything):
        text = everything[name]()
        (HERE / f"{name}.log").write_text(text, encoding="utf-8")
        print(f"{name}.log: {len(text.splitlines())} lines")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main(sys.argv[1:])
