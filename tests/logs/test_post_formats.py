"""RL and LLM post-training, multimodal fine-tuning and research trainers: excerpts written
from each tool's own format strings (each names its source), a fault beside healthy controls.

- the MetricLogger lines of the vision-language and self-supervised trainers: LAVIS' and
  MiniGPT-4's ``Train: data epoch: [0]  [ 600/5000]  eta: ...`` (salesforce/LAVIS
  ``lavis/tasks/base_task.py`` ``_train_inner_loop``, the header ``"Train: data epoch:
  [{}]"``), BLIP's ``Train Epoch: [1]  [ 300/1000]  ...  loss_ita: nan  loss_itm: ...  loss_lm:
  ...`` (salesforce/BLIP ``train_caption.py`` / ``pretrain.py``: the loss is their sum, no
  total printed), DINOv2's ``Training  [  500/125000]  eta: ...`` (facebookresearch/dinov2
  ``dinov2/train/train.py`` through ``dinov2/logging/helpers.py`` ``MetricLogger.log_every``:
  the count is the run's iteration);
- mmengine's console line (xtuner, InternLM/xtuner, logs through mmengine's ``LoggerHook``:
  ``%m/%d %H:%M:%S - mmengine - INFO - Iter(train) [ 240/5198]  lr: ...  loss: nan``): the
  date is no bar's count;
- LLM post-training: ms-swift's dicts, llama-recipes' bar, EasyLM's pprint-wrapped dicts, trl's
  GRPO dicts, verl's console logger, OpenRLHF's PPO bars (both key sets), Megatron-SWIFT's
  ``logging.jsonl``; RLlib's YAML results; DGL's, sentence-transformers', DeiT's and DINOv2's
  own lines. Each test names its source file; each failed on the parent commit (475d074)
  except where its docstring says a control passes there too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults


def _metric_logger(header: str, counts: range, total: int, meters: str,
                   nan_from: int | None) -> list[str]:
    """One ``log_every`` line each count: ``header  [ i/N]  eta: ...  meters  time: ...``;
    ``meters`` holds ``{value}`` where the loss goes (``nan`` from ``nan_from``)."""
    lines = []
    for i in counts:
        value = "nan" if nan_from is not None and i >= nan_from else f"{2.3 - i / 1e4:.4f}"
        lines.append(f"{header}  [{i:>4}/{total}]  eta: 1:00:00  lr: 0.000100  "
                     f"{meters.format(value=value)}  time: 0.5310  data: 0.0001  max mem: 15382")
    return lines


def _lavis(nan_from: int | None = None) -> list[str]:
    return ["2024-06-01 10:00:00,000 [INFO] Start training",
            "2024-06-01 10:00:00,100 [INFO] Start training epoch 0, 5000 iters per inner epoch.",
            *_metric_logger("Train: data epoch: [0]", range(0, 1000, 50), 5000,
                            "loss: {value}", nan_from)]


def _blip(nan_from: int | None = None) -> list[str]:
    return _metric_logger("Train Epoch: [0]", range(0, 1000, 50), 1000,
                          "loss_ita: {value}  loss_itm: 0.6123  loss_lm: 3.0123", nan_from)


def _dinov2(nan_from: int | None = None) -> list[str]:
    lines = ["I20240601 10:00:00 12345 dinov2 train.py:220] Starting training from iteration 0"]
    for line in _metric_logger("Training", range(0, 1000, 10), 125000,
                               "wd: 0.0400 (0.0400)  total_loss: {value} ({value})  "
                               "dino_local_crops_loss: 5.1 (5.1)  koleo_loss: -0.2 (-0.2)",
                               nan_from):
        lines.append("I20240601 10:00:01 12345 dinov2 helpers.py:103] " + line)
    return lines


def test_metric_logger_counts_are_the_step(tmp_path: Path) -> None:
    """Before: LAVIS' lower-case ``epoch: [0]`` and DINOv2's header without an epoch left the
    count unread (the step was the row's number), and BLIP's ``loss_lm`` was read as the total
    beside ``loss_ita: nan`` (silence)."""
    assert faults(tmp_path, _lavis(600)) == [("AMP006", 600)]
    assert faults(tmp_path, _blip(300)) == [("AMP006", 300)]
    assert faults(tmp_path, _dinov2(500)) == [("AMP006", 500)]


def test_metric_logger_controls(tmp_path: Path) -> None:
    """Healthy runs (pass on the parent too)."""
    for lines in (_lavis(), _blip(), _dinov2()):
        assert faults(tmp_path, lines) == []


def _xtuner(nan_from: int | None = None) -> list[str]:
    lines = ["06/01 10:00:00 - mmengine - INFO - Checkpoints will be saved to /work_dirs/llava."]
    for it in range(10, 500, 10):
        value = "nan" if nan_from is not None and it >= nan_from else f"{1.2 - it / 1e3:.4f}"
        lines.append(f"06/01 10:{it // 60:02d}:{it % 60:02d} - mmengine - INFO - Iter(train) "
                     f"[{it:>4}/5198]  lr: 1.9996e-04  eta: 4:37:12  time: 3.2105  data_time: "
                     f"0.0134  memory: 15283  loss: {value}  grad_norm: 0.5000")
    return lines


def test_mmengine_date_is_no_bar(tmp_path: Path) -> None:
    """Before: ``06/01 10:04:00`` at the line's start was read as a Keras bar's ``6/1``, each
    line a new epoch: the NaN at iteration 240 was reported at step 29."""
    assert faults(tmp_path, _xtuner(240)) == [("AMP006", 240)]
    assert faults(tmp_path, _xtuner()) == []


def _swift(nan_from: int | None = None) -> list[str]:
    """ms-swift's ``swift sft``: its log dicts (swift/trainers/callback.py, the Trainer's
    logs plus ``'memory(GiB)'``, ``'train_speed(iter/s)'``, ``'global_step/max_steps'``...)
    written beside its own ``Train:`` bar, an evaluation dict every 50 steps."""
    lines = ["[INFO:swift] model_kwargs: {'device_map': 'cuda:0'}",
             "[INFO:swift] trainable parameters: 20,185,088",
             "Train:   0%|          | 0/100 [00:00<?, ?it/s]"]
    for step in range(5, 101, 5):
        bad = nan_from is not None and step >= nan_from
        loss = "nan" if bad else f"{1.9 - step / 100:.8f}"
        tail = (f"'epoch': {step / 100}, 'global_step/max_steps': '{step}/100', 'percentage': "
                f"'{step:.2f}%', 'elapsed_time': '20s', 'remaining_time': '6m 20s'}}")
        lines.append(f"{{'loss': {loss}, 'token_acc': 0.61, 'grad_norm': 2.31, 'learning_rate': "
                     f"9.9e-05, 'memory(GiB)': 17.3, 'train_speed(iter/s)': 0.25, {tail}")
        lines.append(f"Train:  {step}%|▌         | {step}/100 [00:20<06:20,  4.01s/it]")
        if step % 50 == 0:
            lines.append(f"{{'eval_loss': {'nan' if bad else '1.2'}, 'eval_token_acc': 0.62, "
                         f"'eval_runtime': 1.23, 'eval_samples_per_second': 40.6, {tail}")
    return lines


def test_swift_global_step_is_the_step(tmp_path: Path) -> None:
    """Before: the dict's ``'global_step/max_steps': '35/100'`` went unread (the bar is on a
    line of its own): the NaN at step 35 was reported at step 7 (the dicts' count)."""
    assert faults(tmp_path, _swift(35)) == [("AMP006", 35), ("AMP013", 50)]
    assert faults(tmp_path, _swift()) == []


def _llama_recipes(nan_from: int | None = None, epochs: range = range(1, 3)) -> list[str]:
    """llama-recipes' bar description (src/llama_recipes/utils/train_utils.py ``train``: the
    step counts the epoch's batches from 0), its epoch summary after each epoch."""
    lines = ["--> Model meta-llama/Llama-2-7b-hf",
             "--> meta-llama/Llama-2-7b-hf has 6738.415616 Million params",
             "--> Training Set Length = 14732"]
    for epoch in epochs:
        for step in range(100):
            run_step = (epoch - 1) * 100 + step
            loss = "nan" if nan_from is not None and run_step >= nan_from else (
                f"{1.45 - run_step / 500}")
            lines.append(f"Training Epoch: {epoch}/3, step {step}/100 completed (loss: {loss}):"
                         f"  {step}%|█         | {step + 1}/100 [00:{step % 60:02d}<02:00, "
                         " 1.2s/it]")
        lines.append("Max CUDA memory allocated was 22 GB")
        bad = nan_from is not None and nan_from < epoch * 100
        lines.append(f"Epoch {epoch}: train_perplexity={'nan' if bad else '2.9931'}, "
                     f"train_epoch_loss={'nan' if bad else '1.0963'}, epoch time 121.8s")
    return lines


def test_llama_recipes_step_counts_the_epoch(tmp_path: Path) -> None:
    """Before: ``Training Epoch: 2/3, step 50/100`` was read as step 50 (``step`` after an
    epoch may count the run's steps): the count went back when the epoch moved on, and 5 of
    100 cannot be a run's step in epoch 2 of 3: it counts the epoch's batches (step 150)."""
    assert faults(tmp_path, _llama_recipes(150)) == [("AMP006", 150)]
    assert faults(tmp_path, _llama_recipes(105, epochs=range(2, 3))) == [("AMP006", 105)]
    assert faults(tmp_path, _llama_recipes()) == []


def _easylm(nan_from: int | None = None) -> list[str]:
    """EasyLM's trainer (EasyLM/models/llama/llama_train.py: ``tqdm.write("\\n" +
    pprint.pformat(log_metrics) + "\\n")`` of numpy scalars: sorted keys, the step last)."""
    lines = []
    for step in range(100, 2000, 100):
        bad = nan_from is not None and step >= nan_from
        lines += ["", "{'accuracy': array(0.51, dtype=float32),",
                  f" 'gradient_norm': array({'nan' if bad else '1.23'}, dtype=float32),",
                  " 'learning_rate': array(3.e-04, dtype=float32),",
                  f" 'loss': array({'nan' if bad else 2.3 - step / 1e4}, dtype=float32),",
                  " 'param_norm': array(123.4, dtype=float32),",
                  f" 'perplexity': array({'nan' if bad else '9.97'}, dtype=float32),",
                  f" 'step': {step}}}", ""]
    return lines


def test_pprint_wrapped_dict_is_one_step(tmp_path: Path) -> None:
    """Before: nothing to diagnose (numpy's ``array(nan, dtype=float32)`` was no value, and
    the step is on the dict's last row, which holds no keyword)."""
    assert faults(tmp_path, _easylm(700)) == [("AMP006", 700)]
    assert faults(tmp_path, _easylm()) == []


def _trl_grpo(rows: int = 40, nan_from: int | None = None) -> list[str]:
    """trl's GRPOTrainer through the Trainer's log dicts (trl/trainer/grpo_trainer.py ``log``:
    the loss, then its ``_metrics``: ``num_tokens``, ``completions/...``, ``rewards/<func>/
    mean``, ``reward``, ``reward_std``, ``frac_reward_zero_std``, ``kl``, ``clip_ratio/...``),
    the bar on a line of its own. With ``beta`` 0.04 the loss is ``beta * kl`` rounded to four
    places by the Trainer: 0.0 on every row of a healthy start."""
    lines = []
    for step in range(1, rows + 1):
        bad = nan_from is not None and step >= nan_from
        loss, kl = ("nan", "nan") if bad else ("0.0", "0.0" if step == 1 else f"{step / 2500}")
        logs = {"loss": loss, "grad_norm": 0.3 + step / 100, "learning_rate": step / 4e7,
                "num_tokens": 5000.0 * step, "completions/mean_length": 180.2,
                "completions/clipped_ratio": 0.0,
                "rewards/accuracy_reward/mean": 0.1 + step / 100,
                "reward": -0.2 + step / 100, "reward_std": 0.31, "frac_reward_zero_std": 0.25,
                "kl": kl, "clip_ratio/region_mean": 0.0, "epoch": step / 200}
        lines.append("{" + ", ".join(f"'{key}': {value}" for key, value in logs.items()) + "}")
        lines.append(f" {step // 2}%|█         | {step}/200 [01:{step:02d}<10:00,  3.1s/it]")
    return lines


def test_policy_objective_zero_is_no_collapse(tmp_path: Path) -> None:
    """Before: forty rows of trl GRPO's ``'loss': 0.0`` beside its rewards and KL were
    AMP007 from step 1; a policy-gradient loss is centred on 0 (trl prints ``beta * kl``
    rounded). Its NaN is still AMP006 (that part passes on the parent too)."""
    assert faults(tmp_path, _trl_grpo()) == []
    assert faults(tmp_path, _trl_grpo(nan_from=20)) == [("AMP006", 20)]


def _verl(steps: int = 40, nan_from: int | None = None, zero_until: int = 0) -> list[str]:
    """verl's console logger (verl/utils/logger/aggregate_logger.py ``concat_dict_to_str``:
    ``f"step:{step}"`` then ``f"{k}:{pprint.pformat(v)}"`` joined by ``" - "``), printed by
    the Ray ``TaskRunner`` actor. Until ``zero_until`` every rollout scored 0: the advantages
    are 0 and so is ``actor/pg_loss`` (a healthy start on a hard task)."""
    lines = ["(TaskRunner pid=24712) Total training steps: 348",
             "(TaskRunner pid=24712) step:0 - val-core/openai/gsm8k/reward/mean@1:0.3218"]
    for step in range(1, steps + 1):
        zero = step <= zero_until
        pg = 0.0 if zero else -0.0123 + step / 1000
        score = 0.0 if zero else -0.4 + step / 100
        grad = 0.31 + step / 100
        if nan_from is not None and step >= nan_from:
            pg = grad = math.nan
        lines.append(
            f"(TaskRunner pid=24712) step:{step} - actor/entropy:{0.52 - step / 1000!r} - "
            f"actor/kl_loss:{0.0 if step == 1 else step / 1000!r} - actor/pg_loss:{pg!r} - "
            f"actor/pg_clipfrac:0.0012 - actor/ppo_kl:0.0 - actor/grad_norm:{grad!r} - "
            f"actor/lr:1e-06 - training/global_step:{step} - critic/score/mean:{score!r} - "
            f"critic/score/min:{-1.0 if not zero else 0.0} - critic/rewards/mean:{score!r} - "
            "critic/advantages/mean:0.0 - critic/advantages/max:1.78 - response_length/mean:"
            "231.5 - timing_s/gen:22.31 - timing_s/step:38.2 - perf/throughput:1120.4")
    return lines


def test_verl_zero_policy_loss_is_no_collapse(tmp_path: Path) -> None:
    """Before: thirty steps of ``actor/pg_loss:0.0`` (every rollout scored 0, so every
    advantage is 0) were AMP007. A NaN policy loss is AMP006 at its step (passes on the
    parent too)."""
    assert faults(tmp_path, _verl(zero_until=30)) == []
    assert faults(tmp_path, _verl(nan_from=37)) == [("AMP006", 37)]
    assert faults(tmp_path, _verl()) == []


def _openrlhf_ppo(rollouts: int = 40, nan_from: int | None = None) -> list[str]:
    """OpenRLHF's PPO: the driver's ``Episode [1/1]`` bar over the prompts, each rollout's
    ``Train epoch [1/1]`` bar over its replay buffer from the Ray actor (openrlhf/trainer/ray/
    ppo_actor.py ``ppo_train``: ``pbar.set_postfix(short_status)``, ``act_loss``, ``reward``,
    ``return``, ``gen_len``, ``tot_len``, ``kl``, ``act_lr``), four optimizer steps a rollout;
    the reward is negative at the start (a penalty-shaped reward model)."""
    lines = []
    for rollout in range(1, rollouts + 1):
        reward = -1.2 + rollout / 50
        lines.append(f"Episode [1/1]:  {rollout}%|▌         | {rollout}/100 [12:00<1:40:00, "
                     " 61.2s/it]")
        for batch in range(1, 5):
            step = (rollout - 1) * 4 + batch
            status = {"act_loss": f"{-0.01 + step / 1e4:.3g}", "reward": f"{reward:.3g}",
                      "return": f"{reward - 0.01:.3g}", "gen_len": "241", "tot_len": "501",
                      "kl": "0" if step == 1 else f"{step / 5000:.3g}", "act_lr": "5e-7"}
            if nan_from is not None and step >= nan_from:
                status["act_loss"] = "nan"
            postfix = ", ".join(f"{key}={value}" for key, value in status.items())
            lines.append(f"(ActorModelRayActor pid=3121) Train epoch [1/1]: {batch * 25}%|██▌"
                         f"       | {batch}/4 [00:31<00:00,  7.8s/it, {postfix}]")
    return lines


def test_tqdm_bar_that_starts_again_counts_on(tmp_path: Path) -> None:
    """Before: each rollout's bar counts 1..4 again, and the NaN at the 97th optimizer step
    was reported at step 1; a bar whose count goes back counts on from its last pass."""
    assert faults(tmp_path, _openrlhf_ppo(nan_from=97)) == [("AMP006", 97)]
    assert faults(tmp_path, _openrlhf_ppo()) == []


def _rllib(iterations: int = 8, nan_from: int | None = None) -> list[str]:
    """RLlib's results printed by ``print(pretty_print(result))`` (ray/tune/logger.py
    ``pretty_print``: ``yaml.safe_dump`` sorted by key, NaN as ``.nan``; the loop of RLlib's
    examples), the learner's stats nested under ``info``, ``training_iteration`` below; the
    returns are negative, the KL 0 at the first iteration."""
    lines = []
    for it in range(1, iterations + 1):
        loss = ".nan" if nan_from is not None and it >= nan_from else f"{8.5 - it / 2}"
        lines += [f"agent_timesteps_total: {4000 * it}", "custom_metrics: {}",
                  f"date: 2024-06-01_10-00-{it:02d}", "done: false",
                  f"episode_len_mean: {20.1 + it}", "episode_reward_max: 200.0",
                  f"episode_reward_mean: {-21.4 + it}", "episode_reward_min: -200.0",
                  "info:", "  learner:", "    default_policy:", "      learner_stats:",
                  "        cur_kl_coeff: 0.2", "        cur_lr: 5.0e-05",
                  "        entropy: 0.66", f"        kl: {0.0 if it == 1 else 0.027}",
                  "        policy_loss: -0.04", f"        total_loss: {loss}",
                  f"        vf_loss: {loss}", f"  num_steps_trained: {4000 * it}",
                  f"iterations_since_restore: {it}", "perf:", "  cpu_util_percent: 12.3",
                  "  ram_util_percent: 40.1", "time_this_iter_s: 5.1",
                  f"timesteps_total: {4000 * it}", f"training_iteration: {it}",
                  "trial_id: default", ""]
    return lines


def test_yaml_mapping_is_one_step(tmp_path: Path) -> None:
    """Before: ``total_loss: .nan`` was no value (silence); a YAML mapping's rows are now
    read together, its ``training_iteration`` below the losses the step."""
    assert faults(tmp_path, _rllib(nan_from=4)) == [("AMP006", 4)]
    assert faults(tmp_path, _rllib()) == []


def _dgl_sage(nan_from: int | None = None, epochs: int = 5) -> list[str]:
    """DGL's GraphSAGE example (dmlc/dgl ``examples/pytorch/graphsage/train_sampling.py``:
    ``'Epoch {:05d} | Step {:05d} | Loss {:.4f} | Train Acc {:.4f} | Speed (samples/sec)
    {:.4f} | GPU {:.1f} MB'`` every ``log_every`` (20) of an epoch's 100 batches, from 0)."""
    lines = []
    for epoch in range(epochs):
        for batch in range(0, 100, 20):
            bad = nan_from is not None and epoch * 100 + batch >= nan_from
            lines.append(f"Epoch {epoch:05d} | Step {batch:05d} | Loss "
                         f"{'nan' if bad else f'{1.2 - epoch / 100:.4f}'} | Train Acc 0.8123 | "
                         "Speed (samples/sec) 12345.6789 | GPU 1234.5 MB")
        lines.append("Epoch Time(s): 12.3456")
    return lines


def test_step_key_that_counts_the_epoch(tmp_path: Path) -> None:
    """Before: ``Epoch 00003 | Step 00020`` was step 20, below steps already read; a step key
    that goes back while the epoch key moves on counts the epoch's batches (highest count
    80, every 20: 100 an epoch): step 320."""
    assert faults(tmp_path, _dgl_sage(320)) == [("AMP006", 320)]
    assert faults(tmp_path, _dgl_sage()) == []


def _verl_grad(bad: set[int] | None = None, nan_from: int | None = None) -> list[str]:
    """verl's actor skips the update when the gradient norm is not finite (verl/workers/
    actor/dp_actor.py ``_optimizer_step``: ``print(f"WARN: rank {rank} grad_norm is not
    finite: {grad_norm}")``), and logs it as ``actor/grad_norm`` on the step's line."""
    lines = ["(TaskRunner pid=24712) Total training steps: 348"]
    for step in range(1, 80):
        grad = 0.31 + step / 1000
        if bad and step in bad:
            grad = math.inf
        elif nan_from is not None and step >= nan_from:
            grad = math.nan
        if not math.isfinite(grad):
            lines.append(f"(WorkerDict pid=25111) WARN: rank 0 grad_norm is not finite: {grad}")
        lines.append(f"(TaskRunner pid=24712) step:{step} - actor/pg_loss:{-0.01 + step / 1e4!r}"
                     f" - actor/ppo_kl:0.0 - actor/grad_norm:{grad!r} - actor/lr:1e-06 - "
                     f"critic/score/mean:{-0.4 + step / 100!r} - timing_s/step:38.2")
    return lines


def test_namespaced_grad_norm(tmp_path: Path) -> None:
    """Before: ``actor/grad_norm`` named nothing: forty steps of a NaN gradient norm (every
    update skipped) were silent; two isolated ``inf`` steps stay silent (pass on the parent
    too)."""
    assert faults(tmp_path, _verl_grad(nan_from=40)) == [("AMP003", 40)]
    assert faults(tmp_path, _verl_grad(bad={23, 51})) == []


def _openrlhf_ppo_old(rollouts: int = 30) -> list[str]:
    """OpenRLHF's PPO before 0.6 (openrlhf/trainer/ppo_trainer.py ``ppo_train``:
    ``short_status = {"pg": status["policy_loss"], "rm": status["reward"], "ret": ...,
    "glen": ..., "tlen": ..., "kl": ..., "act_lr": ...}`` and the critic's ``cri``, ``vals``,
    ``cri_lr``), each rollout's bar as the log keeps it: its last state."""
    lines = []
    for rollout in range(1, rollouts + 1):
        reward = -1.2 + rollout / 50
        kl = "0" if rollout == 1 else f"{rollout / 5000:.3g}"
        lines.append(f"Episode [1/1]:  {rollout}%|▌         | {rollout}/100 [12:00<1:40:00, "
                     " 61.2s/it]")
        lines.append(f"Train epoch [1/1]: 100%|██████████| 4/4 [00:31<00:00,  7.8s/it, "
                     f"pg={-0.01 + rollout / 1e4:.3g}, rm={reward:.3g}, ret={reward:.3g}, "
                     f"glen=241, tlen=501, kl={kl}, act_lr=5e-7, cri=0.213, vals=0.112, "
                     "cri_lr=9e-6]")
    return lines


def test_openrlhf_short_policy_loss(tmp_path: Path) -> None:
    """Before: nothing to diagnose (``pg=`` named nothing); ``pg`` alone is the policy
    loss, each finished bar printed again a new pass: a healthy run is no fault."""
    assert faults(tmp_path, _openrlhf_ppo_old()) == []


def _megatron_swift(scales: list[float]) -> list[str]:
    """Megatron-SWIFT's ``logging.jsonl`` (swift/megatron/trainers/base.py ``training_log``:
    the loss dict, ``grad_norm``, ``learning_rate``, ``consumed_samples``, ``memory(GiB)``,
    ``train_speed(s/it)``, ``loss_scale``, ``global_step/max_steps``), one row an iteration
    at ``scales[i]``."""
    rows = []
    for it, scale in enumerate(scales, 1):
        rows.append(json.dumps({
            "loss": 2.3 - it / 1000, "grad_norm": 1.2, "learning_rate": 1e-05,
            "consumed_samples": it * 32, "memory(GiB)": 30.1, "train_speed(s/it)": 1.2,
            "loss_scale": scale, "global_step/max_steps": f"{it}/1000",
            "percentage": f"{it / 10:.2f}%", "elapsed_time": "1m", "remaining_time": "10m"}))
    return rows


def test_plain_loss_scale_in_a_dict(tmp_path: Path) -> None:
    """Before: a dict's plain ``loss_scale`` went unread (only ``amp/loss_scale`` was): a
    scale halved on sixteen iterations in a row from 60 was silent. A sawtooth back-off
    and bf16's constant 1.0 stay silent (pass on the parent too)."""
    collapse = [65536.0] * 59 + [65536.0 / 2 ** k for k in range(1, 17)] + [1.0] * 40
    assert faults(tmp_path, _megatron_swift(collapse)) == [("AMP003", 60)]
    sawtooth = [65536.0] * 40 + [32768.0] * 60 + [65536.0] * 20
    assert faults(tmp_path, _megatron_swift(sawtooth)) == []
    assert faults(tmp_path, _megatron_swift([1.0] * 120)) == []


def _st_fit(nan_from_epoch: int | None = None) -> list[str]:
    """sentence-transformers' old ``fit`` (sentence_transformers/SentenceTransformer.py: its
    ``Epoch`` / ``Iteration`` bars print no loss; EmbeddingSimilarityEvaluator logs ``"Cosine-
    Similarity :\\tPearson: {:.4f}\\tSpearman: {:.4f}"`` and the other distances after each
    epoch): an fp16 run whose embeddings went NaN shows it only there."""
    lines = ["2024-06-01 10:00:00 - Use pytorch device_name: cuda",
             "Epoch:   0%|          | 0/4 [00:00<?, ?it/s]"]
    for epoch in range(4):
        lines.append("Iteration: 100%|██████████| 1000/1000 [04:10<00:00,  4.01it/s]")
        lines.append(f"2024-06-01 10:0{epoch}:00 - EmbeddingSimilarityEvaluator: Evaluating the "
                     f"model on sts-dev dataset after epoch {epoch}:")
        score = "nan" if nan_from_epoch is not None and epoch >= nan_from_epoch else "0.8123"
        for name in ("Cosine-Similarity :", "Manhattan-Distance:", "Euclidean-Distance:"):
            lines.append(f"2024-06-01 10:0{epoch}:01 - {name}\tPearson: {score}\tSpearman: "
                         f"{score}")
    return lines


def test_correlations_are_evaluation_metrics(tmp_path: Path) -> None:
    """Before: nothing to diagnose (``Pearson: nan`` named nothing); a correlation is an
    evaluation's metric: AMP013 (no step: the evaluator prints only its epoch)."""
    assert faults(tmp_path, _st_fit(2)) == [("AMP013", None)]


def test_dinov2_nan_detected_stops_the_run(tmp_path: Path) -> None:
    """Before: DINOv2's own ``NaN detected`` (dinov2/train/train.py: logged before ``raise
    AssertionError`` when the reduced loss is NaN, between two logged iterations) was
    silent: AMP006 at the iteration after the last one logged."""
    lines = [*_dinov2()[:45],
             "I20240601 10:00:05 12345 dinov2 train.py:262] NaN detected",
             "Traceback (most recent call last):", "    raise AssertionError", "AssertionError"]
    assert faults(tmp_path, lines) == [("AMP006", 431)]


def test_accuracy_summary_is_evaluation(tmp_path: Path) -> None:
    """Before: DeiT's evaluation summary (facebookresearch/deit ``engine.py`` ``evaluate``:
    ``'* Acc@1 {:.3f} Acc@5 {:.3f} loss {:.3f}'``, after its ``Test:`` MetricLogger rows)
    was read as a training loss: a NaN evaluation was AMP006 beside AMP013 on a healthy
    run; it is the evaluation's (AMP013 only)."""
    lines = []
    for epoch in range(3):
        lines += _metric_logger(f"Epoch: [{epoch}]", range(0, 1251, 250), 1251,
                                "loss: {value} (6.9)", None)
        score = "nan" if epoch == 2 else "1.2345"
        lines += [f"Test:  [{i:>3}/100]  eta: 0:00:30  loss: {score} ({score})  acc1: 50.0000 "
                  "(50.0000)  acc5: 70.0000 (70.0000)  time: 0.2  data: 0.01  max mem: 15000"
                  for i in (0, 50)]
        lines.append(f"* Acc@1 50.000 Acc@5 70.000 loss {'nan' if epoch == 2 else '1.234'}")
    assert faults(tmp_path, lines) == [("AMP013", 3752)]


def test_config_printed_as_a_mapping_is_no_step(tmp_path: Path) -> None:
    """verl pprints its whole configuration at start (verl/trainer/main_ppo.py
    ``pprint(OmegaConf.to_container(config, resolve=True))``), the YAML of a Hydra run
    likewise: rows of settings, no step (controls: pass on the parent too)."""
    config = ["{'actor_rollout_ref': {'actor': {'clip_ratio': 0.2,",
              "                                 'grad_clip': 1.0,",
              "                                 'kl_loss_coef': 0.001,",
              "                                 'loss_agg_mode': 'token-mean'}},",
              " 'algorithm': {'adv_estimator': 'grpo', 'kl_ctrl': {'kl_coef': 0.001}},",
              " 'trainer': {'loss_scale': 0, 'save_freq': -1, 'total_epochs': 15}}"]
    hydra = ["trainer:", "  precision: 16", "  max_steps: 1000", "optim:", "  lr: 0.001",
             "  loss_scale: 128", "  min_loss_scale: 1.0", ""]
    assert faults(tmp_path, [*config, *hydra, *_verl()]) == []


def test_number_after_at_sign_is_part_of_the_key(tmp_path: Path) -> None:
    """Before: verl's ``val-core/openai/gsm8k/reward/mean@1:nan`` was silent (the ``1`` of
    ``@1`` was read as a value, the ``nan`` after it had no key): a number right after ``@``
    is a name's; the NaN validation score is AMP013 at its step."""
    lines = _verl()
    lines.insert(42, "(TaskRunner pid=24712) step:40 - val-core/openai/gsm8k/reward/mean@1:nan"
                     " - val-aux/openai/gsm8k/reward/best@4/mean:nan")
    assert faults(tmp_path, lines) == [("AMP013", 40)]


def _hf_rows(losses: list[float], grad_norms: list[float]) -> list[str]:
    """The Trainer's log dicts (transformers ``Trainer._maybe_log_save_evaluate``: ``round(
    loss, 4)``; the gradient norm unrounded), as sentence-transformers, SetFit and trl's
    SFTTrainer print them."""
    return [f"{{'loss': {round(loss, 4)!r}, 'grad_norm': {norm!r}, 'learning_rate': 2e-05, "
            f"'epoch': {round(i / 80, 2)}}}"
            for i, (loss, norm) in enumerate(zip(losses, grad_norms, strict=True), 1)]


def test_loss_decayed_to_zero_is_no_collapse(tmp_path: Path) -> None:
    """Before: a loss that decayed below 5e-5 prints ``'loss': 0.0`` (four places) and was
    AMP007; zeros after a loss that decayed towards them (below 0.01) are rounded away. An
    abrupt drop to 0 from a normal loss is still AMP007 (passes on the parent too)."""
    decay = [0.5 * 0.8 ** i for i in range(1, 80)]
    assert faults(tmp_path, _hf_rows(decay, [0.6 * d for d in decay])) == []
    collapse = [1.8 - i / 100 if i < 25 else 0.0 for i in range(1, 61)]
    norms = [0.61 if i < 25 else 0.0 for i in range(1, 61)]
    assert faults(tmp_path, _hf_rows(collapse, norms)) == [("AMP007", 25)]
