"""transformers and accelerate internals the HF adapter relies on, checked on the installed
releases (see test_facts_torch.py for what ``CHECKED`` means)."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from transformers import Trainer, TrainerCallback, TrainingArguments  # noqa: E402
from transformers.trainer_callback import CallbackHandler, DefaultFlowCallback  # noqa: E402

CHECKED = {
    "transformers": SpecifierSet(">=4.50.0,<=5.24.0"),
    "accelerate": SpecifierSet(">=1.0.0,<=1.15.0"),
}


@pytest.mark.parametrize("distribution", sorted(CHECKED))
def test_the_installed_release_is_in_the_checked_range(distribution: str) -> None:
    assert Version(metadata.version(distribution)).base_version in CHECKED[distribution]


class Regressor(torch.nn.Module):
    """A linear model computing its own loss; ``loss_kwargs``: accept ``**kwargs`` as GPT-2 does."""

    def __init__(self, loss_kwargs: bool = False) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 1)
        self.loss_kwargs = loss_kwargs
        self.seen_items: list[Any] = []

    def forward(self, x: Any, labels: Any = None, **kwargs: Any) -> dict[str, Any]:
        self.seen_items.append(kwargs.get("num_items_in_batch"))
        out = self.lin(x).squeeze(-1)
        return {"loss": ((out.float() - labels) ** 2).mean(), "logits": out}


class PlainRegressor(Regressor):
    def forward(self, x: Any, labels: Any = None) -> dict[str, Any]:  # type: ignore[override]
        return super().forward(x, labels)


class Data(torch.utils.data.Dataset):  # type: ignore[misc]
    def __init__(self) -> None:
        gen = torch.Generator().manual_seed(0)
        self.x, self.y = torch.randn(32, 4, generator=gen), torch.randn(32, generator=gen)

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int) -> dict[str, Any]:
        return {"x": self.x[i], "labels": self.y[i]}


class Probe(TrainerCallback):  # type: ignore[misc]
    """Records what a callback is handed and where it is called from."""

    def __init__(self) -> None:
        self.handler_depth: int | None = None
        self.handler: Any = None
        self.optimizers: dict[str, Any] = {}
        self.scales: dict[str, float] = {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        frame: Any = sys._getframe(0)
        for depth in range(8):
            if frame is None:
                break
            found = frame.f_locals.get("self")
            if isinstance(found, CallbackHandler) and self in found.callbacks:
                self.handler_depth, self.handler = depth, found
                break
            frame = frame.f_back

    def _record(self, event: str, optimizer: Any) -> None:
        self.optimizers[event] = optimizer
        scaler = getattr(optimizer, "scaler", None)
        if scaler is not None and event not in self.scales:
            self.scales[event] = scaler.get_scale()

    def on_pre_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._record("pre", kwargs.get("optimizer"))

    def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._record("post", kwargs.get("optimizer"))


def trainer(tmp_path: Path, model: torch.nn.Module, callbacks: list[Any], **args: Any) -> Any:
    settings: dict[str, Any] = dict(
        output_dir=str(tmp_path / "out"), use_cpu=True, max_steps=2,
        per_device_train_batch_size=8, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, seed=0)
    settings.update(args)
    torch.manual_seed(0)
    return Trainer(model=model, args=TrainingArguments(**settings), train_dataset=Data(),
                   callbacks=callbacks)


def test_an_fp16_cpu_trainer_hands_callbacks_what_the_adapter_reads(tmp_path: Path) -> None:
    probe = Probe()
    run = trainer(tmp_path, Regressor(), [probe], fp16=True, save_strategy="steps",
                  save_steps=2)
    # testing/cpu_fp16.hf_fp16_on_cpu: accelerate builds no scaler on a CPU, and one set on the
    # accelerator (with native_amp) before train() is the one the optimizer steps through.
    assert run.accelerator.scaler is None
    scaler = torch.amp.GradScaler("cpu", init_scale=float(2**20))
    run.accelerator.scaler, run.accelerator.native_amp = scaler, True
    run.train()
    # integrations/hf_trainer.py: the optimizer every step hook is handed is the
    # AcceleratedOptimizer (`.scaler`, `.optimizer`, `.step_was_skipped`); 4.49.0 hands None.
    for optimizer in probe.optimizers.values():
        assert optimizer is not None and optimizer.scaler is scaler
        assert isinstance(optimizer.optimizer, torch.optim.Optimizer)
        assert isinstance(optimizer.step_was_skipped, bool)
    # on_pre_optimizer_step (from 4.45) comes before the scaler's step, on_optimizer_step after.
    assert probe.scales == {"pre": float(2**20), "post": float(2**19)}  # the first step overflows
    # integrations/hf_callback_order.py (run_before_integrations): from a callback's hook the
    # CallbackHandler is the `self` of a frame at most 6 up (our walk's bound), and its list
    # holds DefaultFlowCallback (callbacks reordered by assigning to the list).
    assert probe.handler_depth is not None and probe.handler_depth <= 6
    assert type(probe.handler.callbacks) is list
    assert any(isinstance(cb, DefaultFlowCallback) for cb in probe.handler.callbacks)
    # A checkpoint keeps the GradScaler (scaler.pt, from 4.49): a resumed run goes on at the
    # scale it had, and the adapter's skip streaks with it.
    assert (tmp_path / "out" / "checkpoint-2" / "scaler.pt").is_file()


def test_hf_hides_non_finite_losses_in_its_logs_by_default() -> None:
    # core AMP009 (non-finite-hidden-by-logging) reads `logging_nan_inf_filter`.
    assert TrainingArguments("unused", report_to=[]).logging_nan_inf_filter is True


def test_the_callback_api_the_adapter_subclasses(tmp_path: Path) -> None:
    # integrations/hf_trainer.py: AmpDiagnosticCallback is a TrainerCallback and an
    # ExportableState; a restored callback needs restore_callback_states_from_checkpoint.
    from transformers.trainer_callback import ExportableState

    assert {"state", "from_state"} <= set(dir(ExportableState))
    for hook in ("on_pre_optimizer_step", "on_optimizer_step", "on_step_end", "on_log",
                 "on_train_begin", "on_train_end", "on_step_begin"):
        assert callable(getattr(TrainerCallback, hook))
    args = TrainingArguments(str(tmp_path), report_to=[])
    assert args.restore_callback_states_from_checkpoint is False


@pytest.mark.parametrize("model_type", [Regressor, PlainRegressor], ids=["loss-kwargs", "plain"])
def test_num_items_in_batch_reaches_only_models_that_take_loss_kwargs(
    tmp_path: Path, model_type: type[Regressor]
) -> None:
    # integrations/hf_trainer.py (_on_forward): a forward given num_items_in_batch returns a
    # share of the accumulated step's loss (summed); without it the Trainer divides by the
    # accumulation itself (averaged). 4.47.0 and 4.48.0 passed it the other way round.
    model = model_type()
    trainer(tmp_path, model, [], gradient_accumulation_steps=2, max_steps=1).train()
    assert len(model.seen_items) == 2
    if model_type is Regressor:
        assert all(items is not None for items in model.seen_items)
    else:
        assert model.seen_items == [None, None]


def test_accelerates_bf16_wrapper_enters_autocast_inside_forward(fresh_accelerate: Any) -> None:
    # integrations/torch_setup.py (_wrapper_dtype): Accelerator(mixed_precision="bf16") on a
    # CPU builds no scaler and replaces the prepared module's forward (`_original_forward`)
    # with one that enters bf16 autocast itself, so a forward pre-hook sees no autocast.
    accelerator = fresh_accelerate.Accelerator(mixed_precision="bf16", cpu=True)
    model = accelerator.prepare(torch.nn.Sequential(torch.nn.Linear(4, 4)))
    outside: list[bool] = []
    inside: list[Any] = []
    model.register_forward_pre_hook(
        lambda mod, args: outside.append(torch.is_autocast_enabled("cpu")))
    model[0].register_forward_pre_hook(
        lambda mod, args: inside.append(torch.get_autocast_dtype("cpu")
                                        if torch.is_autocast_enabled("cpu") else None))
    model(torch.ones(2, 4))
    assert accelerator.scaler is None and hasattr(model, "_original_forward")
    assert outside == [False] and inside == [torch.bfloat16]
