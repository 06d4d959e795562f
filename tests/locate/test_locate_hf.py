"""The locator inside a real Hugging Face Trainer (CPU, real fp16 GradScaler) on a real T5."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from denpex_callbacks.hf import AmpDiagnosticCallback  # noqa: E402

FAULT_STEP = 1  # HF's 1-based global_step of the first overflowing step: the first one
# (large weights from the start, as in a checkpoint pretrained in bf16: a genuine fp16 activation
# overflow at a sane learning rate; weights that jump mid-run read as divergence, rightly)
WO = "encoder.block.1.layer.1.DenseReluDense.wo"


class CPUScalerTrainer(transformers.Trainer):  # type: ignore[misc]
    """HF ignores fp16 on CPU: give its accelerator a real CPU GradScaler and autocast."""

    def create_accelerator_and_postprocess(self) -> None:
        super().create_accelerator_and_postprocess()
        self.accelerator.scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
        self.accelerator.native_amp = True


class OverflowBlock1(transformers.TrainerCallback):  # type: ignore[misc]
    """Scales the second encoder block's feed-forward up before step FAULT_STEP runs (the
    first: no update has been applied, so the optimizer cannot be the cause)."""

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step + 1 == FAULT_STEP:
            ff = kwargs["model"].encoder.block[1].layer[1].DenseReluDense
            with torch.no_grad():
                ff.wi.weight.mul_(100.0)
                ff.wo.weight.mul_(1000.0)


class Tokens(torch.utils.data.Dataset):  # type: ignore[misc]
    def __init__(self) -> None:
        self.ids = torch.randint(1, 32, (64, 8), generator=torch.Generator().manual_seed(0))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict[str, Any]:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


def t5() -> Any:
    """A tiny T5 whose weights are the same on every transformers release: T5's own init
    (normal, std by layer kind) drawn from one generator in parameter order (releases draw in
    different orders, and these tests depend on how close an activation comes to 65504)."""
    config = transformers.T5Config(
        vocab_size=32, d_model=16, d_kv=8, d_ff=32, num_layers=2, num_decoder_layers=1,
        num_heads=2, decoder_start_token_id=0, pad_token_id=0,
    )
    torch.manual_seed(0)
    model = transformers.T5ForConditionalGeneration(config)
    d_model, inner = config.d_model, config.num_heads * config.d_kv
    std = {"q": (d_model * config.d_kv) ** -0.5, "k": d_model ** -0.5, "v": d_model ** -0.5,
           "o": inner ** -0.5, "wi": d_model ** -0.5, "wo": config.d_ff ** -0.5,
           "relative_attention_bias": d_model ** -0.5, "shared": 1.0, "lm_head": d_model ** -0.5}
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for name, param in model.named_parameters():
            kind = name.split(".")[-2] if name.endswith(".weight") else ""
            if kind in std:
                param.copy_(torch.randn(param.shape, generator=gen) * std[kind])
    return model


def train(tmp_path: Any, steps: int, *callbacks: Any, model: Any = None, rerun: bool = False
          ) -> tuple[AmpDiagnosticCallback, Any]:
    # rerun=False: the locator armed for the step after the fault (the failing-step re-run off)
    callback = AmpDiagnosticCallback(report_dir=None, rerun=rerun)
    model = model if model is not None else t5()
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path / "out"), use_cpu=True, fp16=True, max_steps=steps,
        per_device_train_batch_size=4, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, dataloader_num_workers=0, seed=0, logging_nan_inf_filter=False,
    )
    CPUScalerTrainer(model=model, args=args, train_dataset=Tokens(),
                     callbacks=[callback, *callbacks]).train()
    return callback, model


def t5_pretrained_large(wo_scale: float = 27000.0) -> Any:
    """A T5 whose feed-forward weights are large from the start, as in a checkpoint pretrained
    in bf16: relu(wi(x)) grows 40x, wo another ``wo_scale / 40``x (every |w| stays below 1000:
    not diverged weights). The largest wo output of the first step, in the first encoder
    block, 2.305 * wo_scale = 6.2e4, is just below the fp16 maximum; the Dropout after it
    (x 1/0.9) pushes it past."""
    model = t5()
    with torch.no_grad():
        for name, module in model.named_modules():
            if name.endswith("DenseReluDense.wi"):
                module.weight.mul_(40.0)
            elif name.endswith("DenseReluDense.wo"):
                module.weight.mul_(wo_scale / 40.0)
    return model


def hooks_on(model: Any) -> int:
    return sum(len(m._forward_hooks) + len(m._forward_pre_hooks) for m in model.modules()) + sum(
        len(p._backward_hooks or {}) for p in model.parameters())


@pytest.mark.slow  # over 10 s on two cores: `make test-slow`
def test_hf_trainer_t5_wo_overflow_is_located(tmp_path):
    callback, model = train(tmp_path, FAULT_STEP + 2, OverflowBlock1())
    assert callback.monitor is not None
    (nan_loss,) = [d for d in callback.monitor.diagnoses if d.code == "AMP006"]
    assert nan_loss.step == FAULT_STEP
    origin = nan_loss.evidence["origin"]
    assert (origin["verdict"], origin["module"], origin["located_step"]) == (
        "activation-overflow", WO, FAULT_STEP + 1)
    assert nan_loss.root_cause.startswith(f"activation overflow in {WO} (Linear)")
    assert '"wo" in the model\'s _keep_in_fp32_modules' in nan_loss.fix
    assert "bf16=True" in nan_loss.fix
    assert hooks_on(model) == 0


def test_hf_trainer_t5_overflow_passed_on_by_dropout_names_wo(tmp_path):
    # The first non-finite output is the Dropout's after wo (it scales by 1/(1-p)); Dropout has
    # no weights and autocast ignores it: the module whose own computation reached the fp16
    # limit is wo, and the fix names it.
    callback, model = train(tmp_path, 2, model=t5_pretrained_large(), rerun=True)
    assert callback.monitor is not None
    (nan_loss,) = [d for d in callback.monitor.diagnoses if d.code == "AMP006"]
    assert nan_loss.step == 1 and nan_loss.evidence["rerun"] == "reproduced"
    origin = nan_loss.evidence["origin"]
    wo, dropout = "encoder.block.0.layer.1.DenseReluDense.wo", "encoder.block.0.layer.1.dropout"
    assert (origin["verdict"], origin["module"], origin["module_type"]) == (
        "activation-overflow", wo, "Linear")
    assert (origin["first_nonfinite"], origin["first_nonfinite_type"]) == (dropout, "Dropout")
    assert 65504.0 / 1.2 < origin["output_absmax"] < 65504.0  # wo's own output, at the limit
    assert nan_loss.root_cause.startswith(f"activation overflow in {wo} (Linear)")
    assert f"Keep {wo} in fp32" in nan_loss.fix and "dropout" not in nan_loss.fix
    assert "bf16=True" in nan_loss.fix
    assert hooks_on(model) == 0


def test_hf_trainer_healthy_run_leaves_no_hooks(tmp_path):
    seen: list[int] = []

    class CountHooks(transformers.TrainerCallback):  # type: ignore[misc]
        def on_optimizer_step(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            seen.append(hooks_on(kwargs["model"]))

    callback, model = train(tmp_path, 6, CountHooks())
    assert callback.monitor is not None and callback.monitor.faults() == []
    # Only the adapter's own loss hook on the model while training; nothing after.
    assert seen == [1] * 6 and hooks_on(model) == 0
