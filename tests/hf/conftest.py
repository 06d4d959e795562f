"""A real Trainer on CPU with a real fp16 GradScaler, a tiny model and random data.

HF on CPU ignores ``fp16=True`` (accelerate builds a scaler only off-CPU), so
:class:`CPUScalerTrainer` gives its accelerator a ``torch.amp.GradScaler("cpu")`` and turns
on accelerate's autocast; everything after that (scale(loss).backward(), unscale_ in clipping,
AcceleratedOptimizer's scaler.step + update) is the Trainer's own path. Test code only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from torch import nn  # noqa: E402
from transformers import Trainer, TrainerCallback, TrainingArguments  # noqa: E402

from denpex_callbacks.core.monitor import Monitor  # noqa: E402
from denpex_callbacks.hf import AmpDiagnosticCallback  # noqa: E402


class FaultyRegressor(nn.Module):
    """A linear regressor returning ``{"loss", "logits"}`` that can break its own loss.

    ``fault`` ("inf", "nan", "zero" or "none") is applied to the training loss from optimizer
    step ``from_step`` on (HF's 1-based global_step), counting micro-batches per step.
    """

    def __init__(self, fault: str = "none", from_step: int = 1, accumulation: int = 1,
                 features: int = 8) -> None:
        super().__init__()
        self.lin = nn.Linear(features, 1)
        self.fault, self.from_step, self.accumulation = fault, from_step, accumulation
        self.micro_batches = 0

    def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:
        out = self.lin(x).squeeze(-1)
        loss = ((out.float() - labels) ** 2).mean()
        if self.training:
            step = self.micro_batches // self.accumulation + 1
            self.micro_batches += 1
            if self.fault != "none" and step >= self.from_step:
                loss = loss * {"inf": math.inf, "nan": math.nan, "zero": 0.0}[self.fault]
        return {"loss": loss, "logits": out}


class RandomRegression(torch.utils.data.Dataset):  # type: ignore[misc]
    """Random samples; ``nonfinite_at``: the samples whose input holds ``value`` (NaN, inf)."""

    def __init__(self, size: int = 64, features: int = 8, *, seed: int = 0,
                 nonfinite_at: tuple[int, ...] = (), value: float = math.nan) -> None:
        gen = torch.Generator().manual_seed(seed)
        self.x = torch.randn(size, features, generator=gen)
        self.y = torch.randn(size, generator=gen)
        for index in nonfinite_at:
            self.x[index, 2] = value

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, Any]:
        return {"x": self.x[i], "labels": self.y[i]}


class CPUScalerTrainer(Trainer):  # type: ignore[misc]
    """Trainer whose accelerator runs fp16 autocast with a real CPU GradScaler."""

    scaler_kwargs: ClassVar[dict[str, Any]] = {}

    def create_accelerator_and_postprocess(self) -> None:
        super().create_accelerator_and_postprocess()
        self.accelerator.scaler = torch.amp.GradScaler("cpu", **self.scaler_kwargs)
        self.accelerator.native_amp = True


class InOrder:
    """Batches in dataset order, so that a test knows which step holds a bad sample.

    A mixin: ``TrainingArguments(train_sampling_strategy="sequential")`` exists only from
    transformers 5.0; overriding the sampler works on every supported version.
    """

    def _get_train_sampler(self, *args: Any, **kwargs: Any) -> Any:
        dataset = args[0] if args and args[0] is not None else self.train_dataset  # type: ignore[attr-defined]
        return torch.utils.data.SequentialSampler(dataset)


class StepSpy(TrainerCallback):  # type: ignore[misc]
    """Records, per optimizer step, what the framework itself says (test-side, syncs freely)."""

    def __init__(self) -> None:
        self.was_skipped: dict[int, bool] = {}
        self.scale_after: dict[int, float] = {}

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        optimizer = kwargs["optimizer"]
        step = state.global_step + 1
        self.was_skipped[step] = bool(getattr(optimizer, "step_was_skipped", False))
        if optimizer.scaler is not None:
            self.scale_after[step] = optimizer.scaler.get_scale()


def make_trainer(
    tmp_path: Path,
    *,
    fault: str = "none",
    from_step: int = 1,
    steps: int = 20,
    fp16_scaler: dict[str, Any] | None = None,
    callback: AmpDiagnosticCallback | None = None,
    extra_callbacks: Iterable[TrainerCallback] = (),
    model: nn.Module | None = None,
    eval_dataset: Any = None,
    in_order: bool = False,
    train_dataset: Any = None,
    **args: Any,
) -> Trainer:
    """A tiny real Trainer. ``fp16_scaler``: kwargs of the CPU GradScaler (None: no helper);
    ``in_order``: batches in dataset order; ``train_dataset``: default RandomRegression()."""
    accumulation = int(args.get("gradient_accumulation_steps", 1))
    defaults: dict[str, Any] = dict(
        output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=steps,
        per_device_train_batch_size=8, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, dataloader_num_workers=0, seed=0,
    )
    if fp16_scaler is not None:
        defaults["fp16"] = True
    defaults.update(args)
    trainer_type: type[Trainer] = Trainer
    if fp16_scaler is not None:
        trainer_type = type("ConfiguredCPUScalerTrainer", (CPUScalerTrainer,),
                            {"scaler_kwargs": fp16_scaler})
    if in_order:
        trainer_type = type("InOrderTrainer", (InOrder, trainer_type), {})
    cb = callback if callback is not None else AmpDiagnosticCallback(report_dir=None)
    torch.manual_seed(0)  # the model's init must not depend on which tests ran before
    return trainer_type(
        model=model or FaultyRegressor(fault, from_step, accumulation),
        args=TrainingArguments(**defaults),
        train_dataset=train_dataset if train_dataset is not None else RandomRegression(),
        eval_dataset=eval_dataset,
        callbacks=[cb, *extra_callbacks],
    )


def monitor_of(trainer: Trainer) -> Monitor:
    """The Monitor of the trainer's AmpDiagnosticCallback (a new instance after a resume)."""
    found = [c for c in trainer.callback_handler.callbacks if isinstance(c, AmpDiagnosticCallback)]
    assert len(found) == 1
    assert found[0].monitor is not None
    return found[0].monitor


def first(monitor: Monitor, code: str) -> Any:
    """The first diagnosis with ``code`` (fails when there is none)."""
    hits = [d for d in monitor.diagnoses if d.code == code]
    assert hits, f"{code} not reported; got {[(d.code, d.step) for d in monitor.diagnoses]}"
    return hits[0]


def fault_codes(monitor: Monitor) -> list[str]:
    """Ids reported above info, in order."""
    return [d.code for d in monitor.faults()]


class HFKit:
    """What the HF tests use, handed out as a fixture (importlib mode: no conftest imports)."""

    StepSpy = StepSpy
    FaultyRegressor = FaultyRegressor
    RandomRegression = RandomRegression
    CPUScalerTrainer = CPUScalerTrainer
    monitor_of = staticmethod(monitor_of)
    first = staticmethod(first)
    fault_codes = staticmethod(fault_codes)

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path

    def trainer(self, **kwargs: Any) -> Trainer:
        """:func:`make_trainer` in this test's tmp_path."""
        return make_trainer(self.tmp_path, **kwargs)


@pytest.fixture
def hf(tmp_path: Path) -> HFKit:
    return HFKit(tmp_path)
