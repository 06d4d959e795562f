"""The failing-step re-run inside a real Hugging Face Trainer (CPU, real fp16 GradScaler).

The model is called again on the inputs the Trainer gave it (captured by a forward pre-hook
with kwargs) and returns the loss itself, as HF models do.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import rerun_models as check  # noqa: E402
from locate_models import FEATURES, TinyT5  # noqa: E402
from rerun_models import DropoutLogLoss, FlipOnce, assert_identical  # noqa: E402

from denpex_callbacks.hf import AmpDiagnosticCallback  # noqa: E402

FAULT_STEP = 3  # HF's 1-based global_step
BATCH = 4


class Regressor(torch.nn.Module):
    """TinyT5 returning ``{"loss", "logits"}``; the loss is computed inside, as HF models do."""

    def __init__(self, net: torch.nn.Module | None = None) -> None:
        super().__init__()
        self.net = net if net is not None else TinyT5()

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
        out = self.net(x)
        if out.dim() == 0:  # a network that computes its own loss
            return {"loss": out.float(), "logits": out}
        return {"loss": torch.nn.functional.mse_loss(out.float(), labels), "logits": out}


class Samples(torch.utils.data.Dataset):  # type: ignore[misc]
    """Regression samples; ``nan_at_step`` puts a NaN in that step's batch (sequential order);
    ``same`` repeats one sample."""

    def __init__(self, nan_at_step: int | None = None, same: bool = False) -> None:
        gen = torch.Generator().manual_seed(1)
        self.x = torch.randn(64, FEATURES, generator=gen)
        if same:
            self.x[:] = self.x[0]
        if nan_at_step is not None:
            self.x[(nan_at_step - 1) * BATCH + 1, 2] = float("nan")

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"x": self.x[i], "labels": self.x[i, :1] * 2.0 + 0.5}


class CPUScalerTrainer(transformers.Trainer):  # type: ignore[misc]
    """A real CPU GradScaler for HF's fp16 path, and batches in order so that a test knows
    which step holds the bad sample. Test code only."""

    def create_accelerator_and_postprocess(self) -> None:
        super().create_accelerator_and_postprocess()
        self.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
        self.accelerator.native_amp = True

    def _get_train_sampler(self, *args: Any, **kwargs: Any) -> Any:
        return torch.utils.data.SequentialSampler(self.train_dataset)


def train(tmp_path: Any, model: torch.nn.Module, data: Samples, *, steps: int = 6,
          lr: float = 1e-2, **options: Any) -> tuple[AmpDiagnosticCallback, Any]:
    callback = AmpDiagnosticCallback(report_dir=None, **options)
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), use_cpu=True, fp16=True, max_steps=steps,
        per_device_train_batch_size=BATCH, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, dataloader_num_workers=0, seed=0, logging_nan_inf_filter=False,
        learning_rate=lr, optim="sgd", lr_scheduler_type="constant", max_grad_norm=0.0,
    )
    trainer = CPUScalerTrainer(model=model, args=args, train_dataset=data, callbacks=[callback])
    trainer.train()
    return callback, trainer


def first(callback: AmpDiagnosticCallback, code: str) -> Any:
    assert callback.monitor is not None
    return next(d for d in callback.monitor.diagnoses if d.code == code)


def end_state(trainer: Any) -> dict[str, Any]:
    model = trainer.model
    return {
        "params": {n: p.detach().clone() for n, p in model.named_parameters()},
        "optimizer": copy.deepcopy(trainer.optimizer.state_dict()),
        "scaler": copy.deepcopy(trainer.accelerator.scaler.state_dict()),
        "losses": [str(e.get("loss")) for e in trainer.state.log_history if "loss" in e],
    }


def test_hf_nan_in_one_batch_reproduces_in_the_failing_batch(tmp_path):
    callback, trainer = train(tmp_path / "on", Regressor(), Samples(nan_at_step=FAULT_STEP))
    nan_loss = first(callback, "AMP006")
    assert nan_loss.step == FAULT_STEP and nan_loss.evidence["rerun"] == "reproduced"
    assert nan_loss.evidence["rerun_reason"] == "the re-run's loss is nan again"
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["located_step"], origin["module"]) == (
        "input-data", FAULT_STEP, "net.embed")
    # The re-run stepped, scaled and logged nothing: training went on exactly as without it.
    _, off = train(tmp_path / "off", Regressor(), Samples(nan_at_step=FAULT_STEP), rerun=False)
    assert_identical(end_state(trainer), end_state(off))
    assert "rerun" not in first(_, "AMP006").evidence


def test_hf_learning_rate_far_too_high_reproduces(tmp_path):
    callback, _ = train(tmp_path, Regressor(), Samples(), steps=8, lr=0.5)
    check.assert_reproduced_here(first(callback, "AMP006"), data=False)


def test_hf_activation_flipped_once_is_not_reproduced(tmp_path):
    model = Regressor()
    flip = FlipOnce(at_forward=FAULT_STEP - 1)
    model.net.blocks[1].register_forward_hook(flip)
    callback, _ = train(tmp_path, model, Samples())
    assert flip.fired == 1
    check.assert_transient(first(callback, "AMP006"), FAULT_STEP)


def test_hf_dropout_failure_reproduces_with_the_rng_state_restored(tmp_path):
    callback, _ = train(tmp_path, Regressor(DropoutLogLoss(features=4)), Samples(same=True),
                        steps=12)
    # (HF's logged loss stays NaN once an inf entered its running sum: the monitor's is used)
    failing = check.first_nonfinite_then_finite(callback.monitor)
    nan_loss = first(callback, "AMP006")
    assert nan_loss.step == failing and nan_loss.evidence["rerun"] == "reproduced"


def test_hf_healthy_run_never_reruns(tmp_path):
    callback, _ = train(tmp_path, Regressor(), Samples(), steps=8)
    assert callback.monitor is not None and callback.monitor.faults() == []
    assert callback.pipeline is not None
    rerun = callback.pipeline.locate.rerun
    assert rerun is not None and rerun.reruns == 0 and rerun.held_steps == []
