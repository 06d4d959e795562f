"""Real TRL (SFTTrainer) and PEFT (LoRA) runs on a tiny Llama built from its config, with a
tokenizer built here (no hub download), in fp16 with a real CPU GradScaler (hf_fp16_on_cpu).

TRL computes its own loss in compute_loss (from its fused LM head, normalised by the tokens of
the whole accumulated batch): the loss judged and quoted is the one backpropagated, which HF
logs. PEFT LoRA over a frozen fp16 base keeps fp32 adapters: no false AMP012. An evaluation
sample that makes the evaluation forward NaN is AMP013 at the evaluation's step."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("datasets")
trl = pytest.importorskip("trl")
peft = pytest.importorskip("peft")

from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import (  # noqa: E402
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
    Trainer,
    TrainingArguments,
)

from denpex_callbacks import MonitorConfig, read_report  # noqa: E402
from denpex_callbacks.hf import AmpDiagnosticCallback  # noqa: E402
from denpex_callbacks.testing.cpu_fp16 import hf_fp16_on_cpu  # noqa: E402

VOCAB = 64
POISON = VOCAB - 1  # a token no training sample holds (its embedding row is made NaN)


def tokenizer() -> PreTrainedTokenizerFast:
    vocab = {"<pad>": 0, "<eos>": 1, **{f"t{i}": i for i in range(2, VOCAB)}}
    words = Tokenizer(models.WordLevel(vocab, unk_token="<pad>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(tokenizer_object=words, pad_token="<pad>", eos_token="<eos>")


def llama() -> LlamaForCausalLM:
    torch.manual_seed(0)
    return LlamaForCausalLM(LlamaConfig(
        vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=0, bos_token_id=1, eos_token_id=1))


def token_rows(count: int, seed: int = 0, poison_at: tuple[int, ...] = (),
               length: int | None = None) -> Any:
    """``count`` samples of 8 to 16 tokens (lengths differ: micro-batches hold different
    token counts) or of ``length``; ``poison_at``: the samples that hold :data:`POISON`."""
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(8, 17, (count,), generator=gen).tolist()
    lengths = [length] * count if length is not None else lengths
    rows = [torch.randint(2, POISON, (n,), generator=gen).tolist() for n in lengths]
    for index in poison_at:
        rows[index][5] = POISON
    return datasets.Dataset.from_dict({"input_ids": rows})


def callback_of(trainer: Any) -> AmpDiagnosticCallback:
    [found] = [c for c in trainer.callback_handler.callbacks
               if isinstance(c, AmpDiagnosticCallback)]
    return found


def faults(trainer: Any) -> list[tuple[str, int | None]]:
    monitor = callback_of(trainer).monitor
    assert monitor is not None
    return [(d.code, d.step) for d in monitor.faults()]


def sft(tmp_path: Path, *, model: Any = None, report: str | None = None, steps: int = 8,
        trainer_type: type = trl.SFTTrainer, **options: Any) -> Any:
    trainer_options = {key: options.pop(key) for key in ("peft_config", "eval_dataset")
                       if key in options}
    args = trl.SFTConfig(
        str(tmp_path / "out"), use_cpu=True, fp16=True, max_steps=steps,
        per_device_train_batch_size=4, logging_steps=1, report_to=[], save_strategy="no",
        disable_tqdm=True, seed=0, **options)
    callback = AmpDiagnosticCallback(config=MonitorConfig(report_dir=report, record_every=1))
    trainer = trainer_type(model=model if model is not None else llama(), args=args,
                             train_dataset=token_rows(64), processing_class=tokenizer(),
                             callbacks=[callback], **trainer_options)
    hf_fp16_on_cpu(trainer)
    return trainer


def test_sft_trainer_healthy_is_silent_and_quotes_the_loss_hf_logs(tmp_path):
    # Was: the model's output["loss"] was quoted (normalised per micro-batch), not TRL's loss
    # (normalised over the accumulated batch): "last finite loss 4.599" where HF logged 4.404.
    # Non-default: gradient accumulation 2 (TRL's own default gradient checkpointing stays on).
    trainer = sft(tmp_path, report=str(tmp_path / "r"), gradient_accumulation_steps=2)
    model_losses: list[float] = []  # what the model's forward returns (test-side, syncs)
    trainer.model.register_forward_hook(
        lambda module, args, output: model_losses.append(float(output.loss.detach()))
        if module.training else None)
    trainer.train()
    assert faults(trainer) == []
    logged = {e["step"]: e["loss"] for e in trainer.state.log_history if "loss" in e}
    recorded = {o.step: o.loss for o in read_report(tmp_path / "r" / "rank0.jsonl").steps}
    assert sorted(logged) == list(range(1, 9))
    for step, loss in logged.items():
        assert recorded[step] == pytest.approx(loss, rel=1e-4)
    # The model's own loss is another number: reading it would quote the wrong loss.
    model_means = [sum(model_losses[i:i + 2]) / 2 for i in range(0, 16, 2)]
    assert max(abs(m - logged[s + 1]) for s, m in enumerate(model_means)) > 1e-3


class NanAtStep(trl.SFTTrainer):  # type: ignore[misc]
    """An SFTTrainer subclass (TRL's advice for a custom loss) whose loss, TRL's own times a
    factor, turns NaN at optimizer step ``nan_at``: born after the model's forward."""

    nan_at = 4

    def compute_loss(self, model: Any, inputs: Any, return_outputs: bool = False,
                     num_items_in_batch: Any = None) -> Any:
        loss = super().compute_loss(model, inputs, return_outputs, num_items_in_batch)
        if model.training and self.state.global_step + 1 == self.nan_at:
            loss = loss * math.nan
        return loss


def test_a_nan_born_in_a_trl_compute_loss_is_amp006_at_its_step(tmp_path):
    trainer = sft(tmp_path, trainer_type=NanAtStep, logging_nan_inf_filter=False)
    trainer.train()
    assert faults(trainer)[0] == ("AMP006", 4)
    assert math.isnan(next(e["loss"] for e in trainer.state.log_history if e.get("step") == 4))


def lora() -> Any:
    return peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"],
                           task_type="CAUSAL_LM")


def test_lora_over_a_frozen_fp16_base_keeps_fp32_adapters_and_is_silent(tmp_path):
    trainer = sft(tmp_path, model=llama().half(), peft_config=lora())
    trainer.train()
    dtypes = {(p.dtype, p.requires_grad) for p in trainer.model.parameters()}
    assert dtypes == {(torch.float16, False), (torch.float32, True)}
    assert faults(trainer) == []  # no AMP012: the optimizer holds the fp32 adapters only
    monitor = callback_of(trainer).monitor
    assert monitor is not None and monitor.run.last_step == 8 and monitor.setup is not None
    assert monitor.setup.fp16_parameters is False


def test_fp16_adapters_are_amp012_before_torch_refuses_them(tmp_path):
    # The contrast: adapters left in fp16 (PEFT's autocast_adapter_dtype=False) are what
    # AMP012 is about; torch then raises "Attempting to unscale FP16 gradients.".
    model = peft.get_peft_model(llama().half(), lora(), autocast_adapter_dtype=False)
    trainer = sft(tmp_path, model=model)
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        trainer.train()
    assert faults(trainer)[0] == ("AMP012", 0)


def poisoned(model: Any) -> Any:
    with torch.no_grad():
        model.get_input_embeddings().weight[POISON] = math.nan
    return model


@pytest.mark.parametrize("poison_at", [(6,), ()])
def test_an_evaluation_sample_that_makes_the_forward_nan_is_amp013(tmp_path, poison_at):
    # One evaluation sample holds a token whose embedding row is NaN (no training sample
    # does): its batch's loss is NaN, which the filter leaves out of eval_loss. The healthy
    # control evaluates the same set without it.
    trainer = sft(tmp_path, model=poisoned(llama()), eval_strategy="steps", eval_steps=4,
                  per_device_eval_batch_size=4, eval_dataset=token_rows(16, 1, poison_at))
    trainer.train()
    eval_losses = [e["eval_loss"] for e in trainer.state.log_history if "eval_loss" in e]
    assert len(eval_losses) == 2 and all(math.isfinite(loss) for loss in eval_losses)
    if not poison_at:
        assert faults(trainer) == []
        return
    assert faults(trainer) == [("AMP013", 4)]
    monitor = callback_of(trainer).monitor
    assert monitor is not None
    [found] = [d for d in monitor.diagnoses if d.code == "AMP013"]
    assert (found.evidence["nonfinite_batches"], found.evidence["batches"]) == (1, 4)


def test_an_evaluation_batch_with_no_label_left_is_amp013_with_the_trainer(tmp_path):
    # The classic empty target (a response truncated away: every label -100): the model's
    # mean cross-entropy over no token is NaN (one sample per evaluation batch here). TRL
    # clamps its own token count (a finite 0), so this is the plain Trainer's case.
    rows = token_rows(16, 1, length=16)
    labels = [list(row) if index != 9 else [-100] * 16 for index, row in
              enumerate(rows["input_ids"])]
    evaluation = rows.add_column("labels", labels)
    args = TrainingArguments(
        str(tmp_path / "out"), use_cpu=True, fp16=True, max_steps=6,
        per_device_train_batch_size=4, per_device_eval_batch_size=1, eval_strategy="steps",
        eval_steps=3, logging_steps=1, report_to=[], save_strategy="no", disable_tqdm=True)
    train = token_rows(32, length=16).map(lambda row: {"labels": row["input_ids"]})
    trainer = Trainer(model=llama(), args=args, train_dataset=train, eval_dataset=evaluation,
                      callbacks=[AmpDiagnosticCallback(report_dir=None)])
    hf_fp16_on_cpu(trainer)
    trainer.train()
    assert faults(trainer) == [("AMP013", 3)]
    monitor = callback_of(trainer).monitor
    assert monitor is not None
    [found] = [d for d in monitor.diagnoses if d.code == "AMP013"]
    assert (found.evidence["nonfinite_batches"], found.evidence["batches"]) == (1, 16)
