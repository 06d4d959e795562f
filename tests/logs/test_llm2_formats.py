"""LLM fine-tuning stacks at their newest releases (2025-2026), on excerpts written from their
own format strings (each builder names its source):

- trl's GRPO, DPO and KTO rows through the Trainer's log dicts under fp16, where the
  Trainer's ``logging_nan_inf_filter`` prints a NaN loss as ``'loss': 0.0`` beside an
  unfiltered ``'grad_norm': nan`` (AMP009), and ms-swift's GRPO dicts the same way;
- litgpt's and lit-gpt's evaluation line under gradient accumulation, numbered by the
  iteration while the training lines print the optimizer step too;
- xtuner v1's own trainer line (``[XTuner][RANK r][...][INFO] Epoch e Step s/N ...``), across
  ranks, in its 2025-08 and its newest wording.

Each fault test failed on the parent commit (73bf846); controls say where they pass there.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _dict(logs: dict[str, object]) -> str:
    # transformers' Trainer.log prints the dict with print(): repr of each value; the values
    # here are already their printed text
    return "{" + ", ".join(f"'{key}': {value}" for key, value in logs.items()) + "}"


def _bar(step: int, total: int = 200) -> str:
    return (f" {step * 100 // total}%|█         | {step}/{total} "
            f"[01:{step % 60:02d}<10:00,  3.1s/it]")


# --- trl GRPOTrainer: trl/trainer/grpo_trainer.py ``log`` -----------------------------------
# the Trainer's loss and grad_norm, then the trainer's ``_metrics``: num_tokens,
# completions/..., rewards/<func>/mean and /std, reward, reward_std, frac_reward_zero_std,
# (kl with beta != 0), entropy, clip_ratio/...; the bar on a line of its own.
def _grpo(rows: int = 40, *, zero_until: int = 0, filtered_from: int | None = None,
          nan_from: int | None = None) -> list[str]:
    """beta 0.0 (trl's default since 0.17: no ``kl`` key). Until ``zero_until`` every group's
    rewards are equal (``frac_reward_zero_std`` 1.0): each advantage is 0, and so are the loss
    and the gradient norm, a healthy start on a hard task. From ``filtered_from`` the fp16 step
    is non-finite and ``logging_nan_inf_filter`` (logging_steps=1) prints the loss as 0.0."""
    lines = []
    for step in range(1, rows + 1):
        zero = step <= zero_until
        loss: object = 0.0 if zero else round(0.01 * math.sin(step), 4)
        grad_norm: object = 0.0 if zero else 0.2 + step / 100
        if filtered_from is not None and step >= filtered_from:
            loss, grad_norm = 0.0, "nan"
        if nan_from is not None and step >= nan_from:
            loss, grad_norm = "nan", "nan"
        reward = 0.0 if zero else 0.3
        logs = {"loss": loss, "grad_norm": grad_norm, "learning_rate": 1e-06,
                "num_tokens": 5000.0 * step, "completions/mean_length": 180.2,
                "completions/min_length": 20.0, "completions/max_length": 256.0,
                "completions/clipped_ratio": 0.0, "completions/mean_terminated_length": 150.0,
                "rewards/accuracy_reward/mean": reward,
                "rewards/accuracy_reward/std": 0.0 if zero else 0.4, "reward": reward,
                "reward_std": 0.0 if zero else 0.4,
                "frac_reward_zero_std": 1.0 if zero else 0.4, "entropy": 0.8,
                "clip_ratio/low_mean": 0.0, "clip_ratio/high_mean": 0.0,
                "clip_ratio/region_mean": 0.0, "epoch": step / 200}
        lines += [_dict(logs), _bar(step)]
    return lines


# --- trl DPOTrainer: trl/trainer/dpo_trainer.py ``get_batch_loss_metrics`` / ``log`` ----------
# rewards/chosen, rewards/rejected, rewards/accuracies, rewards/margins, logps/..., logits/...
def _dpo(rows: int = 40, *, negative_until: int = 0, filtered_from: int | None = None,
         nan_from: int | None = None) -> list[str]:
    """The first row's rewards and margin are 0 (the policy is the reference: the loss is
    log 2); until ``negative_until`` the margin is negative (a healthy early dip)."""
    lines = []
    for step in range(1, rows + 1):
        margin = 0.0 if step == 1 else (-0.01 * step if step <= negative_until else 0.02 * step)
        logs: dict[str, object] = {
            "loss": round(0.6931 - margin / 4, 4), "grad_norm": 12.0, "learning_rate": 5e-07,
            "rewards/chosen": margin / 2, "rewards/rejected": -margin / 2,
            "rewards/accuracies": 0.0 if step == 1 else 0.6, "rewards/margins": margin,
            "logps/chosen": -312.5, "logps/rejected": -298.1, "logits/chosen": -2.71,
            "logits/rejected": -2.69, "epoch": step / 100}
        if filtered_from is not None and step >= filtered_from:
            logs["loss"], logs["grad_norm"] = 0.0, "nan"
        if nan_from is not None and step >= nan_from:
            logs.update(dict.fromkeys(("loss", "grad_norm", "rewards/chosen", "rewards/rejected",
                                       "rewards/margins", "logps/chosen", "logps/rejected"),
                                      "nan"))
        lines += [_dict(logs), _bar(step)]
    return lines


# --- trl KTOTrainer: trl/trainer/kto_trainer.py ``log``: kl, rewards/..., count/... ------------
def _kto(rows: int = 40) -> list[str]:
    """``kl`` is 0.0 on every row (the KL estimate is clamped at 0) and the rewards and
    margins are 0 until the policy leaves the reference."""
    lines = []
    for step in range(1, rows + 1):
        early = step < 3
        logs = {"loss": 0.5 - step / 1000, "grad_norm": 3.1, "learning_rate": 5e-07, "kl": 0.0,
                "logits/chosen": -2.7, "logits/rejected": -2.6, "logps/chosen": -300.0,
                "logps/rejected": -280.0, "rewards/chosen": 0.0 if early else 0.1,
                "rewards/margins": 0.0 if early else 0.2,
                "rewards/rejected": 0.0 if early else -0.1, "count/chosen": 4.0,
                "count/rejected": 4.0, "epoch": step / 100}
        lines += [_dict(logs), _bar(step)]
    return lines


# --- ms-swift GRPO: swift/trainers/mixin.py ``log`` and rlhf_trainer/grpo_trainer.py ----------
# the Trainer's dict plus memory(GiB), train_speed(iter/s), the GRPO metrics, then
# 'global_step/max_steps', percentage, elapsed_time, remaining_time as quoted strings.
def _swift_grpo(rows: int = 40, *, zero_until: int = 0,
                filtered_from: int | None = None) -> list[str]:
    lines = []
    for step in range(1, rows + 1):
        zero = step <= zero_until
        loss: object = 0.0 if zero else round(0.002 * math.cos(step), 8)
        grad_norm: object = 0.0 if zero else 0.35
        if filtered_from is not None and step >= filtered_from:
            loss, grad_norm = 0.0, "nan"
        logs = {"loss": loss, "grad_norm": grad_norm, "learning_rate": 1e-06,
                "memory(GiB)": 30.12, "train_speed(iter/s)": 0.021,
                "completions/mean_length": 300.5, "completions/clipped_ratio": 0.1,
                "rewards/MathAccuracy/mean": 0.0 if zero else 0.4,
                "reward": 0.0 if zero else 0.4, "reward_std": 0.0 if zero else 0.5,
                "frac_reward_zero_std": 1.0 if zero else 0.3, "kl": 0.0 if zero else 0.001,
                "clip_ratio/region_mean": 0.0, "epoch": round(step / 500, 2),
                "global_step/max_steps": f"'{step}/500'", "percentage": "'0.20%'",
                "elapsed_time": "'1m 2s'", "remaining_time": "'20h 1m'"}
        lines.append("[INFO:swift] " + _dict(logs))
    return lines


def test_grpo_filtered_nan_is_amp009_at_its_step(tmp_path: Path) -> None:
    """Before: AMP003 at step 20 (the NaN gradient norms read as repeated overflows): the
    ``reward`` keys set the policy objective's 0 aside before the filter's 0-beside-NaN
    check, so AMP009 was never said for trl's GRPO rows."""
    assert faults(tmp_path, _grpo(filtered_from=20)) == [("AMP009", 20)]


def test_dpo_filtered_nan_is_amp009_at_its_step(tmp_path: Path) -> None:
    """Before: AMP003 at step 20, as for GRPO (``rewards/margins`` names a preference
    objective)."""
    assert faults(tmp_path, _dpo(filtered_from=20)) == [("AMP009", 20)]


def test_swift_grpo_filtered_nan_is_amp009_at_its_step(tmp_path: Path) -> None:
    """Before: AMP003 at step 25 (ms-swift's ``'global_step/max_steps'`` gives the step)."""
    assert faults(tmp_path, _swift_grpo(filtered_from=25)) == [("AMP009", 25)]


def test_trl_and_swift_controls(tmp_path: Path) -> None:
    """Healthy runs (all pass on the parent too): GRPO with beta 0 and every group's rewards
    equal for 10 or all 40 rows (loss and grad_norm exactly 0), DPO's zero and negative
    margins, KTO's ``kl`` of 0, ms-swift's GRPO with 15 all-zero rows; and the unfiltered
    NaN losses, AMP006 at their step (logging_nan_inf_filter=False)."""
    for lines in (_grpo(), _grpo(zero_until=10), _grpo(zero_until=40), _dpo(),
                  _dpo(negative_until=10), _kto(), _swift_grpo(), _swift_grpo(zero_until=15)):
        assert faults(tmp_path, lines) == []
    assert faults(tmp_path, _grpo(nan_from=20)) == [("AMP006", 20)]
    assert faults(tmp_path, _dpo(nan_from=20)) == [("AMP006", 20)]


# --- xtuner v1: xtuner/v1/train/trainer.py ``Trainer._log_step`` ------------------------------
# self.logger.info(f"Epoch {self._cur_epoch} Step {self.cur_step}/{self.total_step} data_time:
# {data_time:.4f} lr: {lr:.6e} time: {step_time:.4f} text_tokens: {step_consumed_tokens}
# reduced_consumed_tokens: ... {loss_log_str} grad_norm: {grad_norm:.8f} max_memory: ... GB
# reserved_memory: ... GB tgs: ... exp_tgs: ... e2e_tgs: ... est_global_batch_tokens: ...
# eta: ... "), loss_log_str = ", ".join(f"{k}: {v:.8f}"); the 2025-08 wording had no epoch,
# ``lr: {lr:.6f}`` and losses to three places. Every rank logs, behind
# ``[XTuner][RANK {rank}][{time}][{level}] ``.
def _xtuner(losses: list[float], *, ranks: int = 1, newest: bool = True) -> list[str]:
    lines = []
    for step, loss in enumerate(losses, 1):
        grad = NAN if math.isnan(loss) else 1.5
        for rank in range(ranks):
            head = f"[XTuner][RANK {rank}][2025-10-01 10:00:{step % 60:02d}][INFO] "
            if newest:
                lines.append(
                    f"{head}Epoch 1 Step {step}/100 data_time: 0.0039 lr: 6.000000e-05 "
                    f"time: 0.5577 text_tokens: 4096 reduced_consumed_tokens: {step * 32768} "
                    f"local_loss: {loss:.8f}, reduced_llm_loss: {loss:.8f} grad_norm: "
                    f"{grad:.8f} max_memory: 15.90 GB reserved_memory: 17.87 GB tgs: 805.3 "
                    f"exp_tgs: 800.1 e2e_tgs: 796.1 est_global_batch_tokens: 32768 "
                    f"eta: 0:10:00 ")
            else:
                lines.append(
                    f"{head}Step {step}/100 data_time: 0.0578 lr: 0.000020 time: 4.9770 "
                    f"text_tokens: 4008.0 total_loss: {loss:.3f} reduced_llm_loss: "
                    f"{loss:.3f} max_memory: 15.90 GB reserved_memory: 17.87 GB grad_norm: "
                    f"{grad:.3f} tgs: 805.3 e2e_tgs: 796.1")
    return lines


def test_xtuner_v1_already_right(tmp_path: Path) -> None:
    """A control of a format no test described (passes on the parent too): the NaN at step
    31 on one rank and on eight, in both wordings, and the healthy runs silent."""
    falling = [3.0 - 0.01 * i for i in range(30)]
    for newest in (True, False):
        for ranks in (1, 8):
            assert faults(tmp_path, _xtuner([*falling, NAN, NAN], ranks=ranks,
                                             newest=newest)) == [("AMP006", 31)]
            assert faults(tmp_path, _xtuner(falling, ranks=ranks, newest=newest)) == []


# --- litgpt: litgpt/finetune/lora.py ``fit`` (and pretrain.py) ---------------------------------
# fabric.print(f"Epoch {epoch+1} | iter {iter_num} step {step_count} | loss train: {loss:.3f},
# val: {val_loss} | iter time: {...:.2f} ms{' (step)' if not is_accumulating else ''}
# remaining time: ...") each ``log_interval`` iterations (1 by default), then, at an optimizer
# step every ``eval.interval`` steps, fabric.print(f"iter {iter_num}: val loss
# {val_loss.item():.4f}, val time: {t * 1000:.2f} ms") and ``val_loss = f"{val_loss:.3f}"``
# on the training lines after it. lit-gpt before the rename (Lightning-AI/lit-gpt
# finetune/adapter.py): f"iter {iter_num} step {step_count}: loss {loss.item():.4f}, iter time:
# {...:.2f}ms{' (optimizer.step)' if not is_accumulating else ''}" and f"step {iter_num}: val
# loss {val_loss.item():.4f}, val time: {t * 1000:.2f}ms".
def _litgpt(steps: int = 40, accumulation: int = 16, *, val_nan_from: int | None = None,
            eval_every: int = 10, renamed: bool = True) -> list[str]:
    lines, val = [], "n/a"
    for it in range(1, steps * accumulation + 1):
        step, stepped = it // accumulation, it % accumulation == 0
        train = 3.1 - step * 0.01
        lines.append(f"Epoch 1 | iter {it} step {step} | loss train: {train:.3f}, val: {val} | "
                     f"iter time: 120.00 ms{' (step)' if stepped else ''} remaining time: "
                     "0:10:00" if renamed else
                     f"iter {it} step {step}: loss {train:.4f}, iter time: 120.00ms"
                     f"{' (optimizer.step)' if stepped else ''}")
        if stepped and step % eval_every == 0:
            loss = NAN if val_nan_from is not None and step >= val_nan_from else 2.9 - step / 1e3
            lines.append(f"iter {it}: val loss {loss:.4f}, val time: 1234.00 ms" if renamed
                         else f"step {it}: val loss {loss:.4f}, val time: 1234.00ms")
            val = f"{loss:.3f}"
    return lines


@pytest.mark.parametrize("renamed", [True, False], ids=["litgpt", "lit-gpt"])
def test_litgpt_evaluation_nan_at_the_optimizer_step(tmp_path: Path, renamed: bool) -> None:
    """Before: AMP013 at step 480 (litgpt) or 120 (lit-gpt, accumulation 4), the iteration
    (micro-batch) count of the evaluation line; the training lines number the run by its
    optimizer steps (``iter 480 step 30``), so the evaluation after them is step 30."""
    accumulation = 16 if renamed else 4
    assert faults(tmp_path, _litgpt(accumulation=accumulation, val_nan_from=30,
                                    renamed=renamed)) == [("AMP013", 30)]


def test_litgpt_accumulation_controls(tmp_path: Path) -> None:
    """Healthy runs under gradient accumulation 16 and 1, in both wordings, with their
    evaluations (pass on the parent too)."""
    for renamed in (True, False):
        assert faults(tmp_path, _litgpt(renamed=renamed)) == []
        assert faults(tmp_path, _litgpt(accumulation=1, steps=100, renamed=renamed)) == []
