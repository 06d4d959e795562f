"""A seventh random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 24 scripts, drawn from the code index's listing of ``sft.py``,
``train_sft.py``, ``finetune_lora.py``, ``qlora.py``, ``train_dpo.py``, ``train_ppo.py``,
``train_reward_model.py``, ``finetune_llama.py``, ``train_grpo.py``, ``scripts/train.py``,
``tools/train.py`` and ``train_model.py`` in the order it gives them, none named by another
test. Skipped, and why: those that hand over to a module not read here or only evaluate
(1362464778/COMP7607B-A2's ``SFTTrainer``, 2278098052/train_multi_model_ts-llm only calls
``evaluate()``, 0Miquel/Pytorch-training-toolkit's hydra ``get_trainer``), one that prints no
loss (1314941/PlaneWar_PPO: rewards and actions), one too long to read in time
(0507ellie/see-plan-act, 77 kB), one the same loop as another drawn (14sloop/numLife is
AIInnovateLabs/minimind's ``train_dpo.py``), one whose own lines lie behind a banner whose
source was not read in time (0kartik8/meta-ad-policy-sandbox-round2: unsloth's, over TRL's GRPO
dicts as LiMing's below), ``train_model.py``'s first ones (sklearn pipelines: they train no
network). 7Alive7/VLM-Finetuning (an fp16 HF ``Trainer``) is read as
the HF scripts below are. Each excerpt is built from the script's own print and logging format
strings (one builder a script below, the repository and file in its docstring): a healthy run
with settings other than the defaults, and a faulty one (a NaN loss from step N, or at epoch E
where the script prints per epoch; where DeepSpeed's own lines print the scale, a scale that
collapses), pasted from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer on the parent (fb0acbd)
-> the right one ("=": the same; HF dicts print no step: their rows are counted, in the
excerpt pasted, as the earlier samples count them):

- 123ytxxy/sft_deepspeed ``sft.py`` (DeepSpeed fp16, ZeRO 2): ``Epoch: 1, Step: 30, Rank: 0,
  loss = tensor(nan, device='cuda:0')`` (the step restarts each epoch); AMP006 150 =, also
  from epoch 1. With DeepSpeed's ``[deepspeed] OVERFLOW! ... reducing to ...`` and ``[Rank 0]
  step=..., skipped=...`` lines, a collapse from optimizer step 150 (4 micro-batches a step):
  AMP003 601, AMP008 591 -> AMP003 150 (strict xfail, also from the middle).
- 1767822875cyt0801-maker/MiniOneRec ``sft.py``: HF ``Trainer`` dicts with ``eval_loss``
  rows; AMP006 17, AMP013 20 =; 8, 11 = from the middle.
- 44670/CCTrainer ``sft.py`` (FSDP): ``print(json.dumps(...))`` each step, ``{"loss": NaN,
  "learning_rate": ..., "step": 40, ...}``; AMP006 40 =, also from the middle.
- A1phaCaO/MyLM ``sft.py`` (GradScaler): ``Epoch: 3/6, Loss_sum: nan, Loss_avg: nan``; AMP006
  3 =; 8 = from epoch 4.
- AKI11111-source/OtterProject-VerySimpleLLMTrainer ``sft.py``: ``Epoch 0, Batch 500, Loss:
  nan``; AMP006 500 =.
- 9178nekomc/LingJie-Chat-v2-Pro ``sft.py`` (GradScaler, autocast fp16): ``{"step": 120,
  "of": 200, "loss_lm": NaN, "loss_heads": NaN, "tok_s": ...}``; AMP006 120 =, also from the
  middle.
- 0x0shephard/assignment ``train_sft.py``: a tqdm bar ``epoch 0: ...[..., loss=nan,
  step=300]`` over ``  [step 300] response-token PPL (partial): nan``; AMP006 300 -> AMP006
  300, AMP013 300 (the evaluation's perplexity was no metric read), also from the middle.
- 1252187392/diffusion_for_fun ``finetune_lora.py`` (accelerate, float16 weights):
  ``epoch:2, step:60, loss:nan`` every 30 steps (from 30) and an open bar ``200it [...]``
  closing each epoch; AMP006 240 -> 260 (strict xfail, also pasted from epoch 1's middle).
- 26-1-Capstone-Project-II/Voice-Model-Test ``finetune_lora.py`` (wav2vec2 CTC, fp16 HF
  ``Trainer``, ``eval_cer``); AMP006 5, AMP013 6 =; 2, 3 = from the middle.
- AIInnovateLabs/minimind ``train_dpo.py`` (GradScaler): ``Epoch:[2/2](300/1200) loss:nan
  lr:0.000000010000 epoch_Time:31.0min:``; AMP006 1500 =, also from the middle.
- 1neilkou/IoV_LLM ``train_reward_model.py`` (a pairwise-loss reward model, HF dicts); AMP006
  24 =; 17 = from the middle.
- 5ivatej/distress-ai-coach ``train_reward_model.py`` (fp16 HF ``Trainer``); AMP006 17,
  AMP013 24 =; 9, 16 = from the middle.
- 0xSingletOnly/LiMing ``train_grpo.py``: TRL ``GRPOTrainer`` dicts (``'loss': 0.0`` at its
  start, ``kl``, ``reward`` ...); AMP006 24 =; 15 = from the middle.
- Alessio2405/fine_tuning_llama_2_Xb ``finetune_llama.py`` (8-bit, fp16, the 2023 dicts
  without ``grad_norm``); AMP006 13, AMP013 15 =; 7, 9 = from the middle.
- Ababababana/LoRA_Finetune-RAPTOR-CRAG ``finetune_lora.py`` (ChatGLM 8-bit, 2023 dicts);
  AMP006 7 =; 4 = from the middle.
- Adam-Blf/dimmoulinette ``finetune_lora.py`` (QLoRA, TRL ``SFTTrainer`` fp16, behind
  ``'%(asctime)s | %(levelname)s | %(message)s'`` banners, ``  Loss finale: nan``); AMP006 18,
  AMP013 20 =; 12, 14 = from the middle.
- AI-Commandos/LLaMa2lang ``finetune_llama.py`` (QLoRA, TRL ``SFTTrainer`` fp16, dicts every
  200 steps, no print of its own); AMP006 13 =; 5 = from the middle.
- 3outeille/gpt-oss-recipes ``sft.py``: TRL ``SFTTrainer`` dicts (``num_tokens``,
  ``mean_token_accuracy``); AMP006 70 =; 40 = from the middle.
- AddressLab/qlora-mpt ``qlora.py``: dtypes, HF dicts, ``eval_loss`` dicts, ``***** train
  metrics *****``; AMP006 19, AMP013 20 =; 4, 5 = from the middle.
- 1998frankchen/TravelMind ``train_sft.py`` (fp16 HF ``Trainer``, emoji banners); AMP006 18,
  AMP013 20 =; 6, 8 = from the middle.
- 17YuvrajSehgal/perplexity-stock ``train_ppo.py``: ``[rollout 23] step=23552 roll_sum=0.000
  ... pi_loss=nan v_loss=nan ent=nan kl=nan ...`` and ``  [val] {...}``; AMP006 23552 =, also
  from the middle.
- 000jd/OCR-Model-Pytorch ``scripts/train.py``: ``Epoch 7/20, Loss: nan, Accuracy: 1.06%``;
  AMP006 7 =; 14 = from epoch 7.
- 00VALAK00/Dual-Encoder ``scripts/train.py`` through its ``config.yaml`` loggers (console and
  file formats): ``... - my_module - INFO - Epoch 2, loss = 3.1`` every 10 batches, then
  ``... - ERROR - Nan values detected in similarity_scores.`` and the traceback's ``ValueError:
  Nan values detected in similarity_scores.``; silent -> AMP006 16 (the row after the last
  printed), 13 from the middle of the file's format.
- 01-lzx-05/GeoFracture ``tools/train.py`` (mmseg 0.x, mmcv's ``TextLoggerHook``): ``Iter
  [1250/2000]\tlr: ..., decode.loss_ce: nan, ..., loss: nan`` and ``Iter(val) [100]\taAcc:
  ...``; AMP006 1250 =, also from the middle.

Healthy, with settings other than the defaults (33 excerpts, 7 of them pasted from the
middle): no false alarm on any, before or after; right (silent, read without error) on all 33.
Faulty (49 excerpts): right on 41 before, 45 after; the 4 left wrong are held by strict xfails
(the DeepSpeed collapse twice, diffusion_for_fun twice).
"Right": the ids, and the step as the log prints it (an epoch, a step or batch counter, a
bar's count; HF dicts' rows).

Fixed here, each by a rule of layout or message:

- A Python exception's message line (``{Name}Error: ...``) saying a non-finite value was found
  in any tensor (``Nan values detected in ...``, ``NaN found in logits``) is the loop stopping
  on a NaN of its training: AMP006 (raised_nonfinite.py); the same words logged without
  raising, a negated finding and an evaluation's stay silent.
- A NaN perplexity alone on its line under a step (``[step 300] ... PPL (...): nan``) is the
  evaluation stream's: AMP013 (lone_perplexity.py); an infinite one, the training split's and
  one beside a loss stay silent.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def sft_deepspeed(bad: int | None = None, epochs: int = 2, batches: int = 120, every: int = 10,
                  rank: int = 0) -> list[str]:
    """123ytxxy/sft_deepspeed ``sft.py`` (DeepSpeed ZeRO): rank 0's ``***** Running training
    *****`` and ``f"Beginning of Epoch {epoch+1}/{n}, \\`` (the backslash continuation keeps
    the source's indentation in the string) ``Total Micro Batches {len}"``, then every 10 steps
    ``f"Epoch: {epoch}, Step: {step}, Rank: {rank}, loss = {loss.detach().float()}"`` (a
    0-d tensor's str) and ``'Time:{}'.format(end - start)``; ``step`` restarts each epoch;
    ``bad`` counts batches over the run."""
    out = ["***** Running training *****"]
    for e in range(epochs):
        out.append(f"Beginning of Epoch {e + 1}/{epochs},         Total Micro Batches {batches}")
        for s in range(0, batches, every):
            loss = _loss(bad, e * batches + s, 2.31 - (e * batches + s) / 1000)
            out += [f"Epoch: {e}, Step: {s}, Rank: {rank}, loss = tensor({loss:.4f}, "
                    "device='cuda:0')", f"Time:{0.4123 + s / 1e4}"]
    return out


def sft_deepspeed_scale(collapse: int | None = None, batches: int = 480, epochs: int = 2,
                        accumulation: int = 4, window: int = 100) -> list[str]:
    """123ytxxy/sft_deepspeed ``sft.py`` with the DeepSpeed lines its ``get_train_ds_config``
    asks for (``utils.py``: ``"fp16": {"enabled": True, "loss_scale_window": 100}``,
    ``"steps_per_print": 10``, ZeRO 2; ``gradient_accumulation_steps`` 4 by default):
    ``[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {s}, reducing to {n}``
    (``loss_scaler.py`` ``update_scale`` through DeepSpeed's logger, ``[{date}] [INFO]
    [{file}:{line}:{func}] {msg}``) and the engine's ``[Rank 0] step={step}, skipped={n},
    lr=[...], mom=[(0.9, 0.95)]`` every 10 optimizer steps, among the script's own ``Epoch:
    ..., Step: ..., Rank: 0, loss = tensor(...)`` prints every 10 micro-batches;
    ``collapse`` is the optimizer step from which every step overflows, down to a scale of 1
    (the loss itself stays finite: the gradients overflow and the step is skipped)."""
    def ds(where: str, msg: str) -> str:
        return f"[2026-03-02 11:{len(out) % 60:02d}:41,207] [INFO] [{where}] {msg}"
    out: list[str] = ["***** Running training *****"]
    scale, skipped, clean, step = 65536.0, 0, 0, 0
    for e in range(epochs):
        out.append(f"Beginning of Epoch {e + 1}/{epochs},         Total Micro Batches "
                   f"{batches}")
        for b in range(batches):
            if (b + 1) % accumulation == 0:
                step += 1
                if collapse is not None and step >= collapse and scale > 1:
                    skipped, clean = skipped + 1, 0
                    out.append(ds("loss_scaler.py:183:update_scale", "[deepspeed] OVERFLOW! "
                                  f"Rank 0 Skipping step. Attempted loss scale: {scale:g}, "
                                  f"reducing to {scale / 2:g}"))
                    scale /= 2
                else:
                    clean += 1
                    if clean == window:
                        clean, scale = 0, scale * 2
                if step % 10 == 0:
                    out.append(ds("logging.py:96:log_dist", f"[Rank 0] step={step}, skipped="
                                  f"{skipped}, lr=[{1e-4 * min(1.0, step / 1000):.6e}], "
                                  "mom=[(0.9, 0.95)]"))
            if b % 10 == 0:
                out += [f"Epoch: {e}, Step: {b}, Rank: 0, loss = tensor("
                        f"{2.31 - (e * batches + b) / 2000:.4f}, device='cuda:0')",
                        f"Time:{0.4123 + b / 1e4}"]
    return out


def minionerec(bad: int | None = None, rows: int = 30, eval_every: int = 10,
               lr: float = 3e-4) -> list[str]:
    """1767822875cyt0801-maker/MiniOneRec ``sft.py``: its ``SFT launch config: ...`` print, then
    HF ``Trainer`` (``bf16``, ``logging_steps=1``, ``eval_steps=0.05``) dicts ``{'loss': ...,
    'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}`` and the evaluation's ``{'eval_loss':
    ..., 'eval_runtime': ..., ...}``; ``bad`` counts logging rows (steps)."""
    out = ["SFT launch config: ddp=True, world_size=4, local_rank=0, "
           "per_device_train_batch_size=4, per_device_eval_batch_size=4, "
           "gradient_accumulation_steps=8, effective_batch_size=128, bf16=True, "
           "gradient_checkpointing=False", "office products", "LOAD DATA FINISHED"]
    for s in range(1, rows + 1):
        loss = _loss(bad, s, 1.9 - s / 100)
        norm = "nan" if loss != loss else f"{1.2 - s / 100:.4f}"
        out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {norm}, 'learning_rate': "
                   f"{lr * min(1.0, s / 20):.4e}, 'epoch': {s / 300:.2f}}}")
        if s % eval_every == 0:
            ev = _loss(bad, s, 1.95 - s / 100)
            out.append(f"{{'eval_loss': {ev:.4f}, 'eval_runtime': 41.2, "
                       f"'eval_samples_per_second': 97.1, 'eval_steps_per_second': 3.04, "
                       f"'epoch': {s / 300:.2f}}}")
    return out


def cctrainer(bad: int | None = None, steps: int = 60, eval_every: int = 1,
              lr: float = 1e-5, zero: int = 30, warm: int = 15) -> list[str]:
    """44670/CCTrainer ``sft.py`` (FSDP, ``--fp16`` for float16): ``[+] ...`` lines, then each
    optimizer step ``print(json.dumps(reportObj))`` with ``loss``, ``learning_rate``,
    ``step``, ``total_grad_norm`` and, every ``eval_steps``, ``eval_{name}_loss``
    (``json.dumps`` writes a NaN as ``NaN``); ``bad`` counts steps."""
    out = ["Python interpreter: /opt/conda/bin/python", "Local rank 0",
           "[+] Loading model into CPU", "[*] applying fsdp activation checkpointing...",
           "[+] Tokenizer loaded.", "[+] Model loaded, configuring FSDP...", "dist rank 0",
           "dist world size 8", "[*] Loading dataset...", "[+] Loaded eval dataset val 50",
           "[+] Loaded train dataset 12000"]
    for s in range(1, steps + 1):
        loss = _loss(bad, s, 1.4 - s / 500)
        rate = 0 if s < zero else lr * min(1.0, (s - zero) / warm)
        obj: dict[str, object] = {"loss": loss, "learning_rate": rate, "step": s,
                                  "total_grad_norm": NAN if loss != loss else 3.1 - s / 100}
        if s % eval_every == 0:
            obj["eval_val_loss"] = _loss(bad, s, 1.5 - s / 600)
        out.append(json.dumps(obj))
    return [*out, "[+] Training finished...", "[*] Preparing state_dict for saving..."]


def mylm(bad: int | None = None, epochs: int = 6, lr: float = 5e-4) -> list[str]:
    """A1phaCaO/MyLM ``sft.py`` (a ``GradScaler(enabled=USE_AMP)``): per epoch
    ``print(scheduler.get_last_lr())``, ``f"Epoch: {epoch+1}/{EPOCHS}, Loss_sum: {loss_sum},
    Loss_avg: {loss_sum/len(dataloader)}"`` and a sample ``Step: {i} (input)[...]->`` with
    its generated words, two blank lines; ``bad`` is the (1-based) epoch."""
    out = ["词数: 6213", "数据集数量：2048", "~~~训练咯~~~"]
    for e in range(1, epochs + 1):
        avg = _loss(bad, e, 3.1 - e / 20)
        out += [f"[{lr * (1 - e / (epochs + 4))}]",
                f"Epoch: {e}/{epochs}, Loss_sum: {avg * 128}, Loss_avg: {avg}",
                "Step: 127 (input)['h', 'u', 'm', 'a', 'n', ':', ' ']->g p t :   你 好 ", "", ""]
    return out


def otter(bad: int | None = None, batches: int = 900) -> list[str]:
    """AKI11111-source/OtterProject-VerySimpleLLMTrainer ``sft.py``: every 100 batches
    ``f'Epoch {epoch}, Batch {i}, Loss: {loss.item()}'`` (one epoch, from 0), then ``f'Epoch
    {epoch}, Average Loss: {...}'`` and its saved line; ``bad`` counts batches."""
    out = []
    total = 0.0
    for i in range(batches):
        loss = _loss(bad, i, 2.7 - i / 1000)
        total += loss
        if i % 100 == 0:
            out.append(f"Epoch 0, Batch {i}, Loss: {loss}")
    return [*out, f"Epoch 0, Average Loss: {total / batches}",
            "SFT训练完成，模型已保存为 sft_model.pt"]


def lingjie(bad: int | None = None, steps: int = 200, every: int = 20,
            micro: int = 64) -> list[str]:
    """9178nekomc/LingJie-Chat-v2-Pro ``sft.py`` (``GradScaler``, ``autocast(float16)``): its
    counts, then every ``log_every`` steps ``print(json.dumps({"step": step, "of": n_steps,
    "loss_lm": ..., "loss_heads": ..., "tok_s": ...}))`` and ``sft done, steps: N``; ``bad``
    counts steps."""
    out = ["51234 sft samples", f"steps: {steps} (effective batch {micro * 4})"]
    for s in range(every, steps + 1, every):
        out.append(json.dumps({"step": s, "of": steps, "loss_lm": _loss(bad, s, 1.9 - s / 900),
                               "loss_heads": _loss(bad, s, 0.8 - s / 2000),
                               "tok_s": 81234.5 + s}))
    return [*out, f"sft done, steps: {steps}"]


def hh_sft(bad: int | None = None, steps: int = 400, every: int = 20, batches: int = 1600,
           accum: int = 4, eval_every: int = 100) -> list[str]:
    """0x0shephard/assignment ``train_sft.py`` (LoRA SFT on HH-RLHF): its prints, then a
    ``tqdm(train_loader, desc=f"epoch {epoch}")`` whose postfix ``set_postfix(step=step,
    loss=f"{accum_loss:.4f}")`` tqdm writes with the keys sorted (``loss=..., step=...``),
    redrawn every ``log_every`` steps; each ``eval_every`` steps ``f"  [step {step}]
    response-token PPL (partial): {ppl:.2f}"`` breaks the bar; ``bad`` counts steps."""
    out = ["Device: cuda", "Loading HH-RLHF triples...", "train=6400  eval=256",
           "param stats: {'trainable': 4325376, 'total': 498357120}",
           "initial vram: 1.02 GB", "[init] response-token PPL (partial): 18.42"]
    shown = ""
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 1.92 - s / 2000)
        i = s * accum
        shown = (f"epoch 0:  {100 * i // batches:2d}%|███       | {i}/{batches} "
                 f"[02:{s % 60:02d}<06:00,  3.11it/s, loss={loss:.4f}, step={s}]")
        if s % eval_every == 0:
            ppl = _loss(bad, s, 16.0 - s / 100)
            out += [shown, f"  [step {s}] response-token PPL (partial): {ppl:.2f}"]
    return [*out, shown, "[final] response-token PPL: 12.31  (21.4 min)"]


def lora_diffusion(bad: int | None = None, epochs: int = 3, batches: int = 200,
                   start: int = 0) -> list[str]:
    """1252187392/diffusion_for_fun ``finetune_lora.py`` (accelerate, float16 weights, LoRA):
    ``f'total_batch_size:{total_batch_size}'``, then per epoch a ``tqdm(enumerate(loader))``
    that knows no total (``{n}it [mm:ss, {rate}it/s]``, left at its last state) and every 30
    steps ``f'epoch:{epoch}, step:{step}, loss:{train_loss/step}'`` (a running mean, NaN once
    a step's loss is); epochs count from ``start + 1``; ``bad`` counts batches over the run."""
    out = ["total_batch_size:8"]
    for e in range(start + 1, start + 1 + epochs):
        total = 0.0
        for step in range(batches):
            at = (e - start - 1) * batches + step
            total += _loss(bad, at, 0.11 + 0.02 * math.sin(at))
            if step and step % 30 == 0:
                out.append(f"epoch:{e}, step:{step}, loss:{total / step}")
        out.append(f"{batches}it [01:1{e % 10}, {batches / 71:.2f}it/s]")
    return out


def mingly_ctc(bad: int | None = None, epochs: int = 3, steps: int = 150, every: int = 50,
               lr: float = 1e-4) -> list[str]:
    """26-1-Capstone-Project-II/Voice-Model-Test ``finetune_lora.py`` (wav2vec2 CTC, LoRA, HF
    ``Trainer`` with ``fp16``, ``logging_steps=50``, ``eval_strategy="epoch"``): its numbered
    banners, then the Trainer's dicts and each epoch's ``{'eval_loss': ..., 'eval_cer': ...,
    ...}``; ``bad`` counts optimizer steps over the run (steps per epoch ``steps``)."""
    out = ["[✅ 패키지 확인 완료]", "", "[1/6] 데이터셋 탐색 중...",
           "  JSON 라벨 파일 발견: 4512개",
           "  학습: 4060개 | 검증: 452개", "", "[6/6] LoRA 파인튜닝 시작!",
           "  출력 경로  : lora_adapter", f"  에폭       : {epochs}", "  배치 크기  : 4 × 8 (누적)",
           "  FP16       : ✅", "  gradient_checkpointing: ✅ (VRAM 절약)", ""]
    total = epochs * steps
    for s in range(1, total + 1):
        if s % every == 0:
            loss = _loss(bad, s, 3.2 - s / 300)
            norm = "nan" if loss != loss else f"{5.1 - s / 200:.4f}"
            out.append(f"{{'loss': {loss:.4f}, 'grad_norm': {norm}, 'learning_rate': "
                       f"{lr * (1 - s / total):.4e}, 'epoch': {s / steps:.2f}}}")
        if s % steps == 0:
            ev = _loss(bad, s, 2.9 - s / 400)
            cer = 1.0 if ev != ev else 0.41 - s / 3000
            out.append(f"{{'eval_loss': {ev}, 'eval_cer': {cer:.4f}, 'eval_runtime': 88.1, "
                       f"'eval_samples_per_second': 5.13, 'eval_steps_per_second': 1.28, "
                       f"'epoch': {s / steps:.1f}}}")
    return out


def minimind_dpo(bad: int | None = None, epochs: int = 2, iters: int = 1200, every: int = 100,
                 lr: float = 1e-8) -> list[str]:
    """AIInnovateLabs/minimind ``train_dpo.py`` (``GradScaler``, ``autocast``): ``LLM总参数量：
    25.830 百万`` then every ``log_interval`` steps ``'Epoch:[{}/{}]({}/{}) loss:{:.3f}
    lr:{:.12f} epoch_Time:{}min:'`` (epochs from 1, steps from 0 each epoch); ``bad`` counts
    steps over the run."""
    out = ["LLM总参数量：25.830 百万"]
    for e in range(epochs):
        for s in range(0, iters, every):
            at = e * iters + s
            loss = _loss(bad, at, 0.693 - at / 20000)
            rate = lr / 10 + 0.5 * lr * (1 + math.cos(math.pi * at / (epochs * iters)))
            out.append(f"Epoch:[{e + 1}/{epochs}]({s}/{iters}) loss:{loss:.3f} lr:{rate:.12f} "
                       f"epoch_Time:{max(0, 41 - s // 30)}.0min:")
    return out


def _hf_row(loss: float, lr: float, epoch: float, norm: float | None = None) -> str:
    """HF ``Trainer``'s printed log dict (``str(logs)``): ``loss``, ``grad_norm`` where the
    release logs it, ``learning_rate``, ``epoch``."""
    shown = "" if norm is None else f"'grad_norm': {norm if loss == loss else NAN}, "
    return f"{{'loss': {loss:.4f}, {shown}'learning_rate': {lr:.4e}, 'epoch': {epoch:.2f}}}"


def iov_rm(bad: int | None = None, steps: int = 200, every: int = 5,
           lr: float = 5e-5) -> list[str]:
    """1neilkou/IoV_LLM ``train_reward_model.py`` (LoRA reward model, a ``Trainer`` whose
    ``compute_loss`` is the pairwise ``-logsigmoid(r_chosen - r_rejected)``, ``bf16``,
    ``logging_steps=5``): its banners, PEFT's ``trainable params`` line, the Trainer's dicts
    and the closing ``train_runtime`` dict; ``bad`` counts steps."""
    out = ["🚀 启动 5090 深度优化版 Reward Model 训练引擎...",
           "trainable params: 10,096,640 || all params: 7,080,712,704 || trainable%: 0.1426",
           "🔥 引擎点火，开始训练..."]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 0.693 - s / 1000), lr * (1 - s / steps), s / steps,
                           0.8 + s / 1000))
    return [*out, "{'train_runtime': 1802.4, 'train_samples_per_second': 1.77, "
            "'train_steps_per_second': 0.111, 'train_loss': 0.55, 'epoch': 1.0}",
            "✅ Reward Model 训练完成！"]


def distress_rm(bad: int | None = None, epochs: int = 2, steps: int = 12,
                lr: float = 2e-4) -> list[str]:
    """5ivatej/distress-ai-coach ``train_reward_model.py`` (a QLoRA regression reward model,
    ``fp16`` on CUDA, ``logging_steps=1``, ``eval_strategy="epoch"``): PEFT's line, the
    Trainer's dicts, each epoch's ``eval_loss`` dict, then its ``Wrote ...`` lines; ``bad``
    counts steps over the run."""
    out = ["trainable params: 30,015,490 || all params: 3,115,953,154 || trainable%: 0.9633"]
    total = epochs * steps
    for s in range(1, total + 1):
        out.append(_hf_row(_loss(bad, s, 0.25 - s / 400), lr * (1 - s / total), s / steps,
                           2.3 - s / 100))
        if s % steps == 0:
            ev = _loss(bad, s, 0.21 - s / 500)
            out.append(f"{{'eval_loss': {ev}, 'eval_runtime': 3.41, 'eval_samples_per_second': "
                       f"5.87, 'eval_steps_per_second': 5.87, 'epoch': {s / steps:.1f}}}")
    return [*out, "Wrote reward backend config to artifacts/reward_model/"
            "reward_backend_config.json",
            "Wrote reward metrics to results/reward_model_metrics.json",
            "Wrote reward preview to results/reward_dataset_preview.json"]


def liming_grpo(bad: int | None = None, steps: int = 200, every: int = 5,
                lr: float = 5e-7) -> list[str]:
    """0xSingletOnly/LiMing ``train_grpo.py`` (TRL ``GRPOTrainer``, LoRA on a 4-bit base,
    ``bf16``, ``logging_steps=5``, ``beta=0.001``): TRL's dicts, ``loss``, ``grad_norm``,
    ``learning_rate``, then its own metrics (``num_tokens``, ``completions/...``,
    ``rewards/reward_func/mean``, ``reward``, ``reward_std``, ``frac_reward_zero_std``,
    ``kl``, ``clip_ratio/...``) and ``epoch`` (a GRPO loss sits near 0, exactly 0 on the
    first step); ``bad`` counts steps."""
    out = ["Starting training..."]
    for s in range(every, steps + 1, every):
        broken = bad is not None and s >= bad
        loss = NAN if broken else (0.0 if s == every else 0.0001 * (s % 7))
        kl = NAN if broken else 0.0 if s == every else 0.0002 * s / every
        reward = 0.0 if broken else min(0.9, 0.05 + s / 400)
        out.append(
            f"{{'loss': {loss}, 'grad_norm': {NAN if broken else 0.04 + s / 10000}, "
            f"'learning_rate': {lr * (1 - s / steps):.4e}, 'num_tokens': {s * 9100.0}, "
            f"'completions/mean_length': {612.5 - s / 2}, 'completions/min_length': 201.0, "
            f"'completions/max_length': 1024.0, 'completions/clipped_ratio': 0.125, "
            f"'completions/mean_terminated_length': 540.2, 'completions/min_terminated_length':"
            f" 201.0, 'completions/max_terminated_length': 1002.0, "
            f"'rewards/reward_func/mean': {reward}, 'rewards/reward_func/std': 0.3, "
            f"'reward': {reward}, 'reward_std': 0.21, 'frac_reward_zero_std': 0.5, "
            f"'kl': {kl}, 'clip_ratio/low_mean': 0.0, 'clip_ratio/low_min': 0.0, "
            f"'clip_ratio/high_mean': 0.0, 'clip_ratio/high_max': 0.0, "
            f"'clip_ratio/region_mean': 0.0, 'epoch': {s / 375:.2f}}}")
    return [*out, "Training finished. Saving model...",
            "Model saved to qwen3-1.7b-grpo-countdown-tasks-v1"]


def btc_sentiment(bad: int | None = None, steps: int = 300, every: int = 10,
                  eval_every: int = 50, lr: float = 3e-4) -> list[str]:
    """Alessio2405/fine_tuning_llama_2_Xb ``finetune_llama.py`` (a notebook's export: an 8-bit
    LLaMA, LoRA, the 2023 ``Trainer`` with ``fp16``, ``logging_steps=10``, ``eval_steps=50``;
    those releases logged no ``grad_norm``): PEFT's line, the dicts and the evaluations';
    ``bad`` counts steps."""
    out = ["trainable params: 4194304 || all params: 6742609920 || trainable%: "
           "0.06220594176090199"]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 1.9 - s / 200), lr * min(1.0, s / 10)
                           * (1 - s / steps), s / 100))
        if s % eval_every == 0:
            out.append(f"{{'eval_loss': {_loss(bad, s, 0.4 - s / 1000)}, 'eval_runtime': 21.3, "
                       f"'eval_samples_per_second': 9.39, 'eval_steps_per_second': 1.174, "
                       f"'epoch': {s / 100:.2f}}}")
    return out


def ocr_cnn(bad: int | None = None, epochs: int = 20) -> list[str]:
    """000jd/OCR-Model-Pytorch ``scripts/train.py``: torchsummary's table head, then per epoch
    ``f'Epoch {epoch+1}/{num_epochs}, Loss: {epoch_loss:.4f}, Accuracy:
    {epoch_accuracy:.2f}%'``; ``bad`` is the (1-based) epoch."""
    out = ["----------------------------------------------------------------",
           "        Layer (type)               Output Shape         Param #",
           "================================================================",
           "            Conv2d-1           [-1, 32, 28, 28]             320",
           "================================================================",
           "Total params: 421,642", "Trainable params: 421,642", "Non-trainable params: 0",
           "----------------------------------------------------------------"]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 1.2 / e)
        acc = 1.06 if loss != loss else 100 - 40 / e
        out.append(f"Epoch {e}/{epochs}, Loss: {loss:.4f}, Accuracy: {acc:.2f}%")
    return out


def dual_encoder(bad: tuple[int, int] | None = None, epochs: int = 3, batches: int = 95,
                 to_file: bool = False) -> list[str]:
    """00VALAK00/Dual-Encoder ``scripts/train.py`` through its ``config/config.yaml`` loggers:
    the console's ``'%(asctime)s - %(name)s - %(levelname)s - %(message)s'`` (or the file's,
    ``... - %(filename)s: - %(message)s``), ``Training begins for {epochs} epochs``, ``Epoch
    {e}/{n}``, every 10 batches ``f"Epoch {epoch+1}, loss = {np.mean(running_loss)}"``; where
    the similarity scores hold a NaN it logs ``logger.error(ValueError("Nan values detected in
    similarity_scores."))`` and raises it (the traceback follows); ``bad`` is (epoch, batch),
    1-based epoch."""
    def log(name: str, level: str, msg: str) -> str:
        where = "train.py: - " if to_file else ""
        return f"2026-02-11 09:{len(out) % 60:02d}:17,402 - {name} - {level} - {where}{msg}"
    out: list[str] = []
    out.append(log("root", "INFO", f"Training begins for {epochs} epochs"))
    for e in range(1, epochs + 1):
        out.append(log("root", "INFO", f"Epoch {e}/{epochs}"))
        losses: list[float] = []
        for b in range(batches):
            if bad is not None and (e, b) >= bad:
                return [*out, log("my_module", "ERROR", "Nan values detected in "
                                  "similarity_scores."),
                        "Traceback (most recent call last):",
                        '  File "/home/u/Dual-Encoder/main.py", line 41, in <module>',
                        "    train(model, device, epochs=3, data_loader=loader)",
                        '  File "/home/u/Dual-Encoder/scripts/train.py", line 27, in train',
                        '    raise ValueError("Nan values detected in similarity_scores.")',
                        "ValueError: Nan values detected in similarity_scores."]
            losses.append(3.4 - (e * batches + b) / 200)
            if b % 10 == 0:
                out.append(log("my_module", "INFO", f"Epoch {e}, loss = "
                               f"{sum(losses) / len(losses)}"))
    return out


def geofracture(bad: int | None = None, iters: int = 2000, every: int = 50,
                lr: float = 6e-5, val_every: int = 500) -> list[str]:
    """01-lzx-05/GeoFracture ``tools/train.py`` (mmseg 0.x: mmcv's ``TextLoggerHook`` through
    ``get_root_logger``, ``'%(asctime)s - %(name)s - %(levelname)s - %(message)s'``): every
    ``interval`` iterations ``Iter [{i}/{max}]\\tlr: {lr:.3e}, eta: ..., time: ..., data_time:
    ..., memory: ..., decode.loss_ce: ..., decode.acc_seg: ..., aux.loss_ce: ..., aux.acc_seg:
    ..., loss: ...``; each evaluation the per-class table's summary and ``Iter(val)
    [{n}]\\taAcc: ..., mIoU: ..., mAcc: ...``; ``bad`` counts iterations."""
    def log(msg: str) -> str:
        return f"2026-01-05 14:{len(out) % 60:02d}:09,118 - mmseg - INFO - {msg}"
    out: list[str] = []
    out.append(log("Loaded 3200 images"))
    out.append(log("Start running, host: u@gpu01, work_dir: /work_dirs/geofracture"))
    out.append(log(f"workflow: [('train', 1)], max: {iters} iters"))
    for i in range(every, iters + 1, every):
        ce = _loss(bad, i, 0.61 - i / 10000)
        acc = 50.0 if ce != ce else 80 + i / 200
        out.append(log(f"Iter [{i}/{iters}]\tlr: {lr * (1 - i / iters) ** 0.9:.3e}, eta: "
                       f"0:{(iters - i) // 60 % 60:02d}:11, time: 0.512, data_time: 0.011, "
                       f"memory: 8123, decode.loss_ce: {ce:.4f}, decode.acc_seg: {acc:.4f}, "
                       f"aux.loss_ce: {ce * 0.4:.4f}, aux.acc_seg: {acc - 3:.4f}, loss: "
                       f"{ce * 1.4:.4f}"))
        if i % val_every == 0:
            miou = 0.0 if ce != ce else 0.5 + i / 20000
            out.append(log(f"Iter(val) [100]\taAcc: {0.9 if ce == ce else 0.5:.4f}, mIoU: "
                           f"{miou:.4f}, mAcc: {miou + 0.1:.4f}, IoU.background: 0.9500, "
                           f"IoU.fracture: {miou / 2:.4f}"))
    return out


def gpt_oss_sft(bad: int | None = None, steps: int = 120, every: int = 1,
                lr: float = 2e-4) -> list[str]:
    """3outeille/gpt-oss-recipes ``sft.py`` (TRL ``SFTTrainer`` under accelerate with ZeRO-3):
    TRL's SFT log dicts, ``loss``, ``grad_norm``, ``learning_rate``, ``num_tokens``,
    ``mean_token_accuracy``, ``epoch``; ``bad`` counts steps."""
    out = []
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 1.6 - s / 200)
        out.append(f"{{'loss': {loss}, 'grad_norm': {NAN if loss != loss else 0.31 + s / 1000}"
                   f", 'learning_rate': {lr * (1 - s / steps)}, 'num_tokens': {s * 262144.0}, "
                   f"'mean_token_accuracy': {0.0 if loss != loss else 0.61 + s / 1000}, "
                   f"'epoch': {s / steps:.2f}}}")
    return out


def qlora_mpt(bad: int | None = None, steps: int = 300, every: int = 10, eval_every: int = 100,
              lr: float = 2e-4) -> list[str]:
    """AddressLab/qlora-mpt ``qlora.py`` (QLoRA's script: a 4-bit base, LoRA, a
    ``Seq2SeqTrainer``): ``print_trainable_parameters``' line, ``loaded model``, the dtypes
    (``print(k, v, v/total)``), the Trainer's dicts, its evaluations' ``eval_loss`` dicts, then
    ``trainer.log_metrics("train", metrics)``'s block (``***** train metrics *****`` over
    ``  {key:<{w}} = {value:>{w2}}``); ``bad`` counts steps."""
    out = ["trainable params: 79953920.0 || all params: 3660320768 || trainable: "
           "2.184341894267557", "loaded model", "torch.float32 422326272 0.11537932153507864",
           "torch.uint8 3238002688 0.8846206784649213"]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 1.45 - s / 1000), lr, s / 600, 0.3 + s / 3000))
        if s % eval_every == 0:
            out.append(f"{{'eval_loss': {_loss(bad, s, 1.41 - s / 1200)}, 'eval_runtime': "
                       f"201.7, 'eval_samples_per_second': 4.958, 'eval_steps_per_second': "
                       f"0.62, 'epoch': {s / 600:.2f}}}")
    train_loss = _loss(bad, 0, 1.31) if bad is None or bad > steps else NAN
    out += [f"{{'train_runtime': 5421.2, 'train_samples_per_second': 0.885, "
            f"'train_steps_per_second': 0.055, 'train_loss': {train_loss}, 'epoch': "
            f"{steps / 600:.2f}}}",
            "***** train metrics *****",
            f"  epoch                    = {steps / 600:>10.2f}",
            f"  train_loss               = {train_loss:>10.4f}",
            "  train_runtime            = 1:30:21.20",
            "  train_samples_per_second =      0.885",
            "  train_steps_per_second   =      0.055"]
    return out


def travelmind(bad: int | None = None, steps: int = 465, every: int = 10, eval_every: int = 50,
               lr: float = 2e-4) -> list[str]:
    """1998frankchen/TravelMind ``train_sft.py`` (LoRA on a float16 model, HF ``Trainer`` with
    ``fp16``, ``logging_steps=10``, ``eval_steps=50``, best model by ``eval_loss``): its emoji
    banners and counts, the Trainer's dicts and the evaluations'; ``bad`` counts steps."""
    out = ["🏭 Starting Industrial SFT Training...", "Max samples: 5000", "Epochs: 3",
           "Effective batch size: 32", "trainable params: 18,464,768 || all params: "
           "1,562,179,072 || trainable%: 1.1820", "Training samples: 5000",
           "Validation samples: 500", f"📈 Expected total steps: {steps}",
           f"💾 Expected checkpoints: {steps // 50}", "⏱️ Estimated training time: ~60 minutes",
           "🔥 Starting industrial training..."]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 2.1 - s / 500), lr * (1 - s / steps), s / 155,
                           0.9 + s / 5000))
        if s % eval_every == 0:
            out.append(f"{{'eval_loss': {_loss(bad, s, 1.9 - s / 600)}, 'eval_runtime': 30.2, "
                       f"'eval_samples_per_second': 16.56, 'eval_steps_per_second': 4.14, "
                       f"'epoch': {s / 155:.2f}}}")
    return [*out, "💾 Saving final industrial model...",
            "✅ Industrial SFT training completed successfully!"]



def chatglm_lora(bad: int | None = None, steps: int = 600, every: int = 50,
                 lr: float = 1e-4) -> list[str]:
    """Ababababana/LoRA_Finetune-RAPTOR-CRAG ``finetune_lora.py`` (ChatGLM-6B in 8 bits, LoRA,
    a ``Trainer`` whose arguments come from the command line, the 2023 releases that logged no
    ``grad_norm``): ``print(f"\\n{len(dataset)=}\\n")``, then the Trainer's dicts and its
    closing ``train_runtime`` dict; ``bad`` counts steps."""
    out = ["", "len(dataset)=48818", ""]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 2.4 - s / 1000), lr * (1 - s / steps), s / 1500))
    train_loss = NAN if bad is not None and bad <= steps else 2.01
    return [*out, f"{{'train_runtime': 3612.5, 'train_samples_per_second': 2.657, "
            f"'train_steps_per_second': 0.166, 'train_loss': {train_loss}, 'epoch': "
            f"{steps / 1500:.2f}}}"]


def dimmoulinette(bad: int | None = None, steps: int = 300, every: int = 10,
                  eval_every: int = 50, lr: float = 2e-4) -> list[str]:
    """Adam-Blf/dimmoulinette ``finetune_lora.py`` (QLoRA on Phi-2, TRL ``SFTTrainer`` with
    ``fp16``, ``logging_steps=10``, ``eval_steps=50``) through ``logging.basicConfig(format=
    '%(asctime)s | %(levelname)s | %(message)s')``: its banners, the Trainer's dicts and
    evaluations', then ``FINE-TUNING TERMINÉ`` and ``  Loss finale: {loss:.4f}``; ``bad``
    counts steps."""
    def log(msg: str, level: str = "INFO") -> str:
        return f"2026-01-20 21:{len(out) % 60:02d}:03,551 | {level} | {msg}"
    out: list[str] = []
    out += [log("✓ GPU détecté: NVIDIA GeForce RTX 3050 Laptop GPU (4.0 GB)"), log("=" * 60),
            log("DÉMARRAGE DU FINE-TUNING QLORA"), log("  Modèle: microsoft/phi-2"),
            log("=" * 60), log("✓ Modèle chargé en 4-bit"), log("✓ LoRA configuré:"),
            log("  Paramètres entraînables: 5,242,880 (0.33%)"), log("✓ Dataset préparé:"),
            log("  Train: 2700 samples"), log("  Eval: 300 samples"), log(""),
            log("🚀 Lancement de l'entraînement...")]
    for s in range(every, steps + 1, every):
        out.append(_hf_row(_loss(bad, s, 1.7 - s / 600), lr * (1 - s / steps), s / 100,
                           0.5 + s / 2000))
        if s % eval_every == 0:
            out.append(f"{{'eval_loss': {_loss(bad, s, 1.6 - s / 700)}, 'eval_runtime': 40.3, "
                       f"'eval_samples_per_second': 7.44, 'eval_steps_per_second': 7.44, "
                       f"'epoch': {s / 100:.2f}}}")
    final = NAN if bad is not None and bad <= steps else 1.31
    return [*out, log(""), log("✓ Adaptateurs sauvegardés: models/adapters/final_adapter"),
            log(""), log("=" * 60), log("FINE-TUNING TERMINÉ"), log(f"  Loss finale: {final:.4f}"),
            log("  Adaptateurs: models/adapters/final_adapter"), log("=" * 60)]


def stock_ppo(bad: int | None = None, rollouts: int = 40, steps: int = 1024,
              val_every: int = 10) -> list[str]:
    """17YuvrajSehgal/perplexity-stock ``train_ppo.py`` (PPO on a trading environment): its
    ``[PPO] ...`` header, then each rollout ``f"[rollout {i}] step={global_step}
    roll_sum={...:.3f} roll_mean={...:.5f} pi_loss={...:.4f} v_loss={...:.4f} ent={...:.3f}
    kl={...:.4f} clip={...:.3f} eps_done={n} fps={...:.1f}"`` and, every ``val_every``
    rollouts, ``f"  [val] {val}"`` (the validation's dict); ``bad`` is the rollout whose
    losses are NaN on (the policy's outputs then NaN too: rewards 0)."""
    out = ["[data] instruments: all=3 (no split; validation is in-sample)",
           "[PPO] device=cuda obs_shape=(43,) actions=3",
           "[PPO] reward_mode=close_pnl volumes=False extra_features=True",
           "[PPO] split=False max_rollouts=500 early_stop=False", "[PPO] logs: runs/  "
           "checkpoints: saves/", "-" * 60]
    for r in range(1, rollouts + 1):
        broken = bad is not None and r >= bad
        pi = NAN if broken else -0.012 + 0.001 * (r % 5)
        v = NAN if broken else 0.08 - r / 2000
        out.append(f"[rollout {r}] step={r * steps} roll_sum={0.0 if broken else 1.2 + r / 50:.3f}"
                   f" roll_mean={0.0 if broken else 0.0012:.5f} pi_loss={pi:.4f} v_loss={v:.4f}"
                   f" ent={NAN if broken else 1.05 - r / 200:.3f} kl={NAN if broken else 0.004:.4f}"
                   f" clip={0.0 if broken else 0.11:.3f} eps_done={r} fps={812.4 + r:.1f}")
        if r % val_every == 0:
            reward = 0.0 if broken else 0.4 + r / 100
            out.append(f"  [val] {{'episode_reward': {reward}, 'episode_steps': 1000.0, "
                       f"'order_profits': {reward / 10}, 'order_steps': 12.5}}")
    return out


def llama2lang(bad: int | None = None, steps: int = 4000, every: int = 200,
               lr: float = 2e-4) -> list[str]:
    """AI-Commandos/LLaMa2lang ``finetune_llama.py`` (QLoRA with a float16 compute dtype, TRL
    ``SFTTrainer`` with ``fp16``, ``logging_steps=200``, a constant rate, two epochs; the 2023
    releases logged no ``grad_norm``): the Trainer's dicts and its closing ``train_runtime``
    dict, no print of its own; ``bad`` counts steps."""
    out = [_hf_row(_loss(bad, s, 1.6 - s / 10000), lr, s / (steps / 2))
           for s in range(every, steps + 1, every)]
    train_loss = NAN if bad is not None and bad <= steps else 1.42
    return [*out, f"{{'train_runtime': 9021.4, 'train_samples_per_second': 1.774, "
            f"'train_steps_per_second': 0.443, 'train_loss': {train_loss}, 'epoch': 2.0}}"]

# Faulty excerpts the parent (fb0acbd) read wrong, and the answer now.
FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    # the loop raises on its forward pass's NaN before it prints a loss: the row after the
    # last printed (rows: each epoch prints several)
    "dual_encoder": (lambda: dual_encoder((2, 44)), [("AMP006", 16)]),
    "dual_encoder_file_from_the_middle": (lambda: dual_encoder((2, 44), to_file=True)[5:],
                                          [("AMP006", 13)]),
    # the evaluation's perplexity alone under its step, beside the bar's training NaN
    "hh_sft": (lambda: hh_sft(250), [("AMP006", 300), ("AMP013", 300)]),
    "hh_sft_from_the_middle": (lambda: hh_sft(250)[8:], [("AMP006", 300), ("AMP013", 300)]),
}

# Faulty excerpts the parent read right already: guards.
READ_ALREADY: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "sft_deepspeed": (lambda: sft_deepspeed(150), [("AMP006", 150)]),
    "sft_deepspeed_from_epoch_1": (lambda: sft_deepspeed(150)[10:], [("AMP006", 150)]),
    # HF dicts print no step: their rows are counted, in the excerpt pasted
    "minionerec": (lambda: minionerec(17), [("AMP006", 17), ("AMP013", 20)]),
    "minionerec_from_the_middle": (lambda: minionerec(17)[12:],
                                   [("AMP006", 8), ("AMP013", 11)]),
    "cctrainer": (lambda: cctrainer(40), [("AMP006", 40)]),
    "cctrainer_from_the_middle": (lambda: cctrainer(40)[25:], [("AMP006", 40)]),
    "mylm": (lambda: mylm(3), [("AMP006", 3)]),
    "mylm_from_epoch_4": (lambda: mylm(8, epochs=12)[15:], [("AMP006", 8)]),
    "otter": (lambda: otter(450), [("AMP006", 500)]),
    "lingjie": (lambda: lingjie(120), [("AMP006", 120)]),
    "lingjie_from_the_middle": (lambda: lingjie(120)[3:], [("AMP006", 120)]),
    "mingly_ctc": (lambda: mingly_ctc(220), [("AMP006", 5), ("AMP013", 6)]),
    "mingly_ctc_from_the_middle": (lambda: mingly_ctc(220)[16:],
                                   [("AMP006", 2), ("AMP013", 3)]),
    "minimind_dpo": (lambda: minimind_dpo(1500), [("AMP006", 1500)]),
    "minimind_dpo_from_the_middle": (lambda: minimind_dpo(1500)[8:], [("AMP006", 1500)]),
    "iov_rm": (lambda: iov_rm(120), [("AMP006", 24)]),
    "iov_rm_from_the_middle": (lambda: iov_rm(120)[10:], [("AMP006", 17)]),
    "distress_rm": (lambda: distress_rm(17), [("AMP006", 17), ("AMP013", 24)]),
    "distress_rm_from_the_middle": (lambda: distress_rm(17)[9:],
                                    [("AMP006", 9), ("AMP013", 16)]),
    "liming_grpo": (lambda: liming_grpo(120), [("AMP006", 24)]),
    "liming_grpo_from_the_middle": (lambda: liming_grpo(120)[10:], [("AMP006", 15)]),
    "btc_sentiment": (lambda: btc_sentiment(130), [("AMP006", 13), ("AMP013", 15)]),
    "btc_sentiment_from_the_middle": (lambda: btc_sentiment(130)[8:],
                                      [("AMP006", 7), ("AMP013", 9)]),
    "ocr_cnn": (lambda: ocr_cnn(7), [("AMP006", 7)]),
    "ocr_cnn_from_epoch_7": (lambda: ocr_cnn(14)[15:], [("AMP006", 14)]),
    "geofracture": (lambda: geofracture(1220), [("AMP006", 1250)]),
    "geofracture_from_the_middle": (lambda: geofracture(1220)[20:], [("AMP006", 1250)]),
    "gpt_oss_sft": (lambda: gpt_oss_sft(70), [("AMP006", 70)]),
    "gpt_oss_sft_from_the_middle": (lambda: gpt_oss_sft(70)[30:], [("AMP006", 40)]),
    "qlora_mpt": (lambda: qlora_mpt(185), [("AMP006", 19), ("AMP013", 20)]),
    "qlora_mpt_from_the_middle": (lambda: qlora_mpt(185)[20:], [("AMP006", 4), ("AMP013", 5)]),
    "travelmind": (lambda: travelmind(175), [("AMP006", 18), ("AMP013", 20)]),
    "travelmind_from_the_middle": (lambda: travelmind(175)[25:],
                                   [("AMP006", 6), ("AMP013", 8)]),
    "chatglm_lora": (lambda: chatglm_lora(330), [("AMP006", 7)]),
    "chatglm_lora_from_the_middle": (lambda: chatglm_lora(330)[6:], [("AMP006", 4)]),
    "dimmoulinette": (lambda: dimmoulinette(175), [("AMP006", 18), ("AMP013", 20)]),
    "dimmoulinette_from_the_middle": (lambda: dimmoulinette(175)[20:],
                                      [("AMP006", 12), ("AMP013", 14)]),
    "llama2lang": (lambda: llama2lang(2500), [("AMP006", 13)]),
    "llama2lang_from_the_middle": (lambda: llama2lang(2500)[8:], [("AMP006", 5)]),
    "stock_ppo": (lambda: stock_ppo(23), [("AMP006", 23 * 1024)]),
    "stock_ppo_from_the_middle": (lambda: stock_ppo(23)[12:], [("AMP006", 23 * 1024)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "sft_deepspeed": lambda: sft_deepspeed(epochs=3, batches=200, rank=1),
    "sft_deepspeed_scale": lambda: sft_deepspeed_scale(epochs=3, batches=640, window=50),
    "sft_deepspeed_scale_from_the_middle": lambda: sft_deepspeed_scale(
        epochs=3, batches=640, accumulation=8, window=20)[60:],
    "minionerec": lambda: minionerec(rows=40, eval_every=5, lr=1e-4),
    "cctrainer": lambda: cctrainer(steps=80, eval_every=5, lr=2e-5),
    "cctrainer_from_the_middle": lambda: cctrainer(steps=80, eval_every=5, lr=2e-5)[30:],
    "mylm": lambda: mylm(epochs=9, lr=2e-4),
    "otter": lambda: otter(batches=1500),
    "lingjie": lambda: lingjie(steps=300, every=10, micro=32),
    "hh_sft": lambda: hh_sft(steps=600, every=10, eval_every=50),
    "lora_diffusion": lambda: lora_diffusion(epochs=4, batches=300, start=5),
    "lora_diffusion_from_epoch_7": lambda: lora_diffusion(epochs=4, batches=300, start=5)[12:],
    "mingly_ctc": lambda: mingly_ctc(epochs=5, steps=200, every=25, lr=3e-4),
    "minimind_dpo": lambda: minimind_dpo(epochs=3, iters=800, every=50, lr=5e-7),
    "iov_rm": lambda: iov_rm(steps=400, every=10, lr=1e-4),
    "distress_rm": lambda: distress_rm(epochs=3, steps=20, lr=1e-4),
    "liming_grpo": lambda: liming_grpo(steps=300, every=10, lr=1e-6),
    "liming_grpo_from_the_middle": lambda: liming_grpo(steps=300, every=10, lr=1e-6)[12:],
    "btc_sentiment": lambda: btc_sentiment(steps=500, every=20, eval_every=100, lr=2e-4),
    "ocr_cnn": lambda: ocr_cnn(epochs=35),
    "dual_encoder": lambda: dual_encoder(epochs=5, batches=150),
    "dual_encoder_file": lambda: dual_encoder(epochs=5, batches=150, to_file=True),
    "geofracture": lambda: geofracture(iters=4000, every=100, lr=1e-4, val_every=1000),
    "geofracture_from_the_middle": lambda: geofracture(iters=4000, every=100, lr=1e-4,
                                                       val_every=1000)[15:],
    "gpt_oss_sft": lambda: gpt_oss_sft(steps=300, every=5, lr=1e-5),
    "qlora_mpt": lambda: qlora_mpt(steps=500, every=20, eval_every=250, lr=1e-4),
    "travelmind": lambda: travelmind(steps=930, every=5, eval_every=100, lr=1e-4),
    "travelmind_from_the_middle": lambda: travelmind(steps=930, every=5, eval_every=100,
                                                     lr=1e-4)[40:],
    "chatglm_lora": lambda: chatglm_lora(steps=900, every=25, lr=2e-4),
    "dimmoulinette": lambda: dimmoulinette(steps=600, every=20, eval_every=100, lr=1e-4),
    "llama2lang": lambda: llama2lang(steps=6000, every=100, lr=1e-4),
    "stock_ppo": lambda: stock_ppo(rollouts=60, steps=2048, val_every=5),
    "stock_ppo_from_the_middle": lambda: stock_ppo(rollouts=60, steps=2048, val_every=5)[20:],
}


@pytest.mark.parametrize("name", sorted({**FIXED, **READ_ALREADY}))
def test_faulty_excerpts(tmp_path: Path, name: str) -> None:
    """The ids and steps of each faulty excerpt: those the parent (fb0acbd) read wrong (its
    answers are in the module's table), and guards on those it read right."""
    build, expected = FIXED[name] if name in FIXED else READ_ALREADY[name]
    assert faults(tmp_path, build()) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_excerpts_are_silent(tmp_path: Path, name: str) -> None:
    """Controls: silent, read without error (on the parent too)."""
    assert faults(tmp_path, HEALTHY[name]()) == []


def test_a_raised_finding_needs_the_exception_line(tmp_path: Path) -> None:
    """Controls of the raised-finding rule: the same words logged (no exception), a check
    that found none, and an evaluation's, each beside a healthy loop, say nothing."""
    run = dual_encoder(epochs=2, batches=40)
    for said in ("2026-02-11 09:00:17,402 - my_module - ERROR - Nan values detected in "
                 "similarity_scores.", "AssertionError: no NaN found in logits",
                 "ValueError: NaN values detected in val predictions"):
        assert not faults(tmp_path, [*run, said])


@pytest.mark.parametrize("cut", [0, 3])
def test_lora_diffusion(tmp_path: Path, cut: int) -> None:
    """The NaN first printed at ``epoch:2, step:60`` after a first epoch of 200 batches: step
    260. The open tqdm bar (``200it [...]``) closing each epoch says its length (h52-epochbars,
    closing_bars; the parent learnt it from the printed counts, 30 ... 180: 240)."""
    assert faults(tmp_path, lora_diffusion(250)[cut:]) == [("AMP006", 260)]


def test_a_lone_perplexity_needs_its_nan(tmp_path: Path) -> None:
    """Controls of the lone-perplexity rule beside a healthy run: an infinite perplexity (exp
    of a large finite loss), the training split's and one beside a loss say nothing."""
    run = hh_sft(steps=200, eval_every=400)
    for said in ("  [step 200] response-token PPL (partial): inf", "[step 200] train ppl: nan",
                 "[step 200] loss ppl: nan"):
        assert faults(tmp_path, [*run, said]) == []


@pytest.mark.xfail(strict=True, reason="not fixed here: DeepSpeed's overflows are placed on the "
                   "loop's micro-batch count (601), not on the optimizer steps DeepSpeed's own "
                   "``step=..., skipped=...`` lines count (4 micro-batches each)")
@pytest.mark.parametrize("cut", [0, 100])
def test_sft_deepspeed_scale_collapse(tmp_path: Path, cut: int) -> None:
    """Every optimizer step from 150 overflows, the scale halved from 65536 to 1: a collapse
    at step 150, and a high skip rate."""
    found = faults(tmp_path, sft_deepspeed_scale(150)[cut:])
    assert ("AMP003", 150) in found and {code for code, _ in found} == {"AMP003", "AMP008"}
