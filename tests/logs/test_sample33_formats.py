"""A sixteenth random sample: scripts people fine-tune and pre-train language models with,
read as the held-out measure of #27 reads, at first sight (the doctor as it is at 8c2ac27):
7 scripts, drawn from the code index's listing of ``scripts/sft.py``, ``scripts/train_gpt.py``,
``scripts/finetune_lora.py`` and ``scripts/train_accelerate.py`` in the order it gives them.
Skipped, and why: those that hand the loop to code not read in time (AJSuddu15243/divinci:
tinker_cookbook's ``train.main``; Adityaram0001/llm: ``llmlab``'s ``SFTTrainer``;
AnsonWasheck/SmallTalkLLM: its ``Trainer``; DudeUnoob/ml_practice and
H0rvex/transformer-from-scratch ``scripts/train_gpt.py``: a package's trainer;
ArminBurkhardt/tiny-moe-llm: 108 000 characters), AdvancedCompiler/Quantum-AI (unsloth's
``SFTTrainer``: the HF Trainer's rows as SolveITnow prints them, unsloth's banner not read),
picotron (named in tests/logs already), and ``find_string`` hits on ``accelerator.print(``
whose repository the index does not name.

Each excerpt is built from the script's own print format strings (one builder a script below,
the repository and file in its docstring) and the framework's lines beside them as its source
prints them (transformers' ``ProgressCallback``/``PrinterCallback``, its
``logging_nan_inf_filter``; tqdm's bar): a healthy run with settings other than the defaults,
and faulty ones (a NaN loss from step N; where fp16 is used, every step overflowing), pasted
from the start and from the middle.

Each script as repository ``file``: the format; the doctor's answer at first sight (8c2ac27)
-> the right one ("=": the same):

- AdrijaDhar/LLM-Lifecycle-e2e ``scripts/sft.py`` (MLX): ``step    120 | loss  2.345 (ema
  ...) | lr ... | |g| ... | ... tok/s``, ``  >>> step 200: val loss 2.100``, ``!! non-finite
  loss at step 137 - stopping.``, ``done. step 138, val loss nan``; AMP006 137, AMP013 138 =;
  437, 438 = from the middle.
- AfterMaxQ/mini-llm ``scripts/sft.py`` (TRL ``SFTTrainer``, bf16, ``disable_tqdm``): each
  log dict printed twice, as transformers' ``PrinterCallback`` prints it and as the script's
  ``json.dumps`` row (``"grad_norm": NaN``); the filter's ``loss 0.0``: AMP009 130, AMP007 130
  -> AMP009 130; from the middle 230 likewise. Fixed here (see below).
- AlexWortega/SolveITnow ``scripts/sft.py`` (TRL ``SFTTrainer``, fp16, accumulation 4,
  ``logging_steps=10``, a slow bar in ``s/it``): NaN from 213: AMP009 230, AMP007 230 ->
  AMP009 230 (from the middle 530 likewise); fixed here. Every step overflowing from 300
  (``'grad_norm': inf``, the loss flat): AMP003 300 = (500 = from the middle).
- AtulKumar-Ak/chess-style-behavioural-model ``scripts/train_gpt.py``: ``EPOCH 4 / 6`` over
  ``STEP 500 | LOSS nan`` (the epoch's batches from 0, its running mean) and ``VALIDATION
  LOSS : nan``; AMP006 500, AMP013 1200 -> 4250, 4950 (the run's batches: 1250 an epoch,
  printed nowhere); from the middle 200, 1200 -> 10200, 11200 (strict xfail).
- ColinAIAPP/MoiraiLM ``scripts/train_gpt.py``: a tqdm bar an epoch (``Epoch 3/5: ...,
  loss=nan]``, its refreshes ``\\r`` segments of one line), ``[Epoch 3] Avg Loss nan | PPL
  nan``; AMP006 4500 = (the run's batches: the doctor's convention for a bar an epoch); 5700 =
  from the middle.
- 2lar/gpt2 ``scripts/finetune_lora.py`` (bf16 autocast, accumulation 4): ``step  240 | loss:
  nan | lr: ... | norm: nan | ...``, ``step 250 | val_loss: nan`` between rules; AMP006 240,
  AMP013 250 =; 420, 450 = from the middle.
- setuc/mdeberta-nli-training ``scripts/train_accelerate.py`` (accelerate, fp16): ``step
  1250/3000 | loss nan``, ``[eval @ step 1500] overall accuracy = 0.3333`` and its
  per-language line; AMP006 1250 =; 2250 = from the middle.

Healthy, with settings other than the defaults (14 excerpts, 7 of them pasted from the
middle; accumulation, bf16, resumed runs): no false alarm, silent on 14 of 14, at first sight
and now. Faulty (16 excerpts): right at first sight on 10 (62%: LLM-Lifecycle, SolveITnow's
overflow, MoiraiLM, gpt2, mdeberta, each from the start and the middle); the 6 misses: 4 a
wrong id beside the right one (AMP007 beside AMP009: mini-llm and SolveITnow, from the start
and the middle), 2 a wrong step (chess), none silent, no false alarm. Fixed here: the 4
AMP007 (a loss of exactly 0 beside a NaN/inf gradient norm is the logger's stand-in for the
loss it hid, read as no loss: ``hf.py``, ``metric_reader.py``; the Trainer row it stands on
keeps its step from the bar redrawn after it: ``parsers.py``): 14 of 16 right now; chess's 2
are strict xfails.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or a bar an epoch).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def _hf_dict(logs: dict[str, object]) -> str:
    """transformers' ``print(logs)`` / ``tqdm.write(str(logs))``: a dict's ``repr``; the
    values here are already their printed text."""
    return "{" + ", ".join(f"'{key}': {value}" for key, value in logs.items()) + "}"


def _hf_row(step: int, total: int, logs: dict[str, object], per_it: float = 6.01) -> str:
    """A Trainer row as a file keeps it: the bar at ``step`` (tqdm's ``{n}/{total}``, a slow
    run's ``s/it``), cleared by ``tqdm.write`` (``\\r``, blanks, ``\\r``), the dict after it
    on the same line (transformers ``ProgressCallback``)."""
    frac = step / total
    done, left = int(step * per_it), int((total - step) * per_it)
    bar = (f"{frac * 100:3.0f}%|{'█' * int(frac * 10):<10}| {step}/{total} "
           f"[{done // 3600:02d}:{done // 60 % 60:02d}:{done % 60:02d}<{left // 3600:02d}:"
           f"{left // 60 % 60:02d}:{left % 60:02d}, {per_it:5.2f}s/it]")
    return f"{bar}\r{' ' * len(bar)}\r{_hf_dict(logs)}"


def lifecycle(bad: int | None = None, steps: int = 600, start: int = 0, log_every: int = 10,
              eval_every: int = 200) -> list[str]:
    """AdrijaDhar/LLM-Lifecycle-e2e ``scripts/sft.py`` (MLX, bf16 weights): ``f"run: ..."``,
    ``f"base: ... (val loss ...)"``, ``f"model: {preset} ({...:.1f}M params)  chat
    vocab=..."``, ``f"sft data: {...:,} conversations, ..."``, ``f"resumed from {...} at step
    {start_step}"`` or ``"loaded base weights (...)"``; every ``log_every`` steps ``f"step
    {step:>6} | loss {lval:6.3f} (ema {running:6.3f}) | lr {lr:.2e} | |g| {gnorm:5.2f} |
    {tps:>7,.0f} tok/s"``, every ``eval_every`` (after the start) ``f"  >>> step {step}: val
    loss {vloss:.3f}"``; a non-finite loss prints ``f"\\n!! non-finite loss at step {step} -
    stopping."`` before that step's row (the update already made: the weights NaN) and the run
    ends with ``f"\\ndone. step {final_step}, val loss {vloss:.3f}"`` (``final_step = step +
    1``) and ``f"-> {...}"``; ``bad`` is the first NaN step (from 0)."""
    out = ["run: checkpoints/135m-sft-1207-1930", "base: checkpoints/135m-0912-1812/annealed "
           "(val loss 3.1127)", "model: 135m (134.5M params)  chat vocab=49155",
           "sft data: 412,345 conversations, 301,234,567 tokens (38.2% trainable)"]
    if start:
        out.append(f"resumed from checkpoints/135m-sft-1207-1930/last at step {start}")
    else:
        out.append("loaded base weights (new chat-token embedding rows randomly initialised)")
    ema: float | None = None
    step = start
    broke = False
    for step in range(start, steps):
        loss = nan_from(bad, step, 2.4 - step / 1000 + 0.05 * ((step * 7) % 5) / 5)
        ema = loss if ema is None else 0.9 * ema + 0.1 * loss
        if loss != loss:
            out += ["", f"!! non-finite loss at step {step} - stopping."]
            broke = True
            break
        if step % log_every == 0:
            lr = 1e-4 * min(1.0, (step + 1) / 50)
            out.append(f"step {step:>6} | loss {loss:6.3f} (ema {ema:6.3f}) | lr {lr:.2e} | "
                       f"|g| {0.6 + step / 3000:5.2f} | {12345 + step % 97:>7,.0f} tok/s")
        if step > start and step % eval_every == 0:
            out.append(f"  >>> step {step}: val loss {2.3 - step / 1200:.3f}")
    final = min(step + 1, steps)
    val = NAN if broke else 2.3 - final / 1200
    return [*out, "", f"done. step {final}, val loss {val:.3f}",
            "-> checkpoints/135m-sft-1207-1930/last"]


def mini_llm(bad: int | None = None, steps: int = 300, start: int = 0, per_epoch: int = 625,
             eval_steps: int = 100) -> list[str]:
    """AfterMaxQ/mini-llm ``scripts/sft.py``: TRL's ``SFTTrainer`` (bf16, LoRA,
    ``logging_steps=1``, ``disable_tqdm=True``: transformers' ``PrinterCallback`` prints each
    log dict), its ``RecordCallback.on_log`` then prints ``json.dumps(row,
    ensure_ascii=False)`` (``time``, ``step``, the logs, ``supervised_tokens``, memory in MiB;
    ``NaN`` as ``json`` writes it); the evaluation (``eval_steps``) prints ``f"完整 dev
    loss：{index+1}/{len(dataset)} 个回复"`` every 200 replies and logs ``eval_loss`` and its
    counts. TRL's ``log`` adds ``entropy``, ``num_tokens``, ``mean_token_accuracy``. The
    Trainer's ``logging_nan_inf_filter`` (on by default) prints a NaN step's loss as the
    interval's mean (here, one step: ``0.0``); the grad norm is printed as it is: ``nan``.
    ``bad`` is the first NaN step; ``start`` a checkpoint resumed from (no first
    evaluation)."""
    out: list[str] = []
    tokens = 0

    def log(logs: dict[str, object], step: int, extra: dict[str, object]) -> None:
        out.append(_hf_dict({k: ("nan" if v != v else v) for k, v in logs.items()}))
        row = {"time": f"2026-12-07T10:{step // 60 % 60:02d}:{step % 60:02d}+08:00",
               "step": step, **logs, "supervised_tokens": tokens, "peak_allocated_mib": 9876.5,
               "peak_reserved_mib": 11234.0, "allocated_mib": 6543.2, "reserved_mib": 11234.0,
               "device_free_mib": 12010.4, **extra}
        out.append(json.dumps(row, ensure_ascii=False))

    def evaluate(step: int) -> None:
        out.extend(f"完整 dev loss：{n}/1000 个回复" for n in range(200, 1001, 200))
        log({"eval_loss": round(1.31 - step / 4000, 6), "eval_target_tokens": 81234,
             "eval_units": 1000, "eval_trajectories": 500, "eval_runtime": 98.7,
             "epoch": round(step / per_epoch, 4)}, step, {})

    if not start:
        evaluate(0)
    for step in range(start + 1, steps + 1):
        tokens += 1800 + step % 37
        broken = bad is not None and step >= bad
        loss = 0.0 if broken else round(1.42 - step / 1500 + 0.03 * (step % 7) / 7, 4)
        log({"loss": loss, "grad_norm": NAN if broken else round(0.41 + step % 5 / 50, 6),
             "learning_rate": f"{2e-4 * min(1.0, step / 30):.6e}",
             "entropy": NAN if broken else round(0.9 - step / 5000, 4),
             "num_tokens": float(tokens * 2), "mean_token_accuracy": 0.0 if broken else
             round(0.61 + step / 4000, 6), "epoch": round(step / per_epoch, 4)}, step,
            {"step_seconds": 2.31, "reserved_before_step_mib": 11234.0,
             "reserved_after_release_mib": 11234.0})
        if step % eval_steps == 0 and not broken:
            evaluate(step)
    return out


def solveit(bad: int | None = None, overflow_from: int | None = None, epochs: int = 3,
            per_epoch: int = 250, every: int = 10) -> list[str]:
    """AlexWortega/SolveITnow ``scripts/sft.py``: TRL's ``SFTTrainer`` on CodeLlama-7B with
    LoRA (``fp16=True``: a GradScaler, ``gradient_accumulation_steps=4``,
    ``logging_steps=10``, 3 epochs), peft's ``print_trainable_parameters`` (``trainable
    params: {:,d} || all params: {:,d} || trainable%: {:.4f}``), then the Trainer's bar and its
    log dicts (``tqdm.write``), the summary dict at the end. ``bad``: the forward NaN from that
    optimizer step on (``logging_nan_inf_filter``: the first row's loss the mean of its finite
    steps, then ``0.0``; the grad norm ``nan``, the learning rate frozen: the scaler skips each
    step and so the scheduler's); ``overflow_from``: the gradients overflow from that step on
    (the loss finite and flat, the grad norm ``inf``, every step skipped: the scale halving
    each step, printed nowhere)."""
    total = epochs * per_epoch
    out = ["trainable params: 268,435,456 || all params: 7,006,982,144 || trainable%: 3.8310"]
    frozen: float | None = None
    for s in range(every, total + 1, every):
        lr = 2e-4 * min(s / (0.05 * total), 1.0) * (1 - s / total / 2)
        nan_rows = bad is not None and s >= bad
        over = overflow_from is not None and s >= overflow_from
        if (nan_rows or over) and frozen is None:
            frozen = lr
        loss_f = 0.74 - s / (total * 2) + 0.02 * (s % 3)
        if nan_rows:
            first = bad is not None and s - every < bad
            loss = f"{loss_f * (bad - (s - every) - 1) / every:.4f}" if first else "0.0"
            norm = "nan"
        elif over:
            loss = f"{0.74 - (overflow_from or 0) / (total * 2):.4f}"
            norm = "inf"
        else:
            loss, norm = f"{loss_f:.4f}", f"{0.3 + s % 7 / 40:.4f}"
        out.append(_hf_row(s, total, {
            "loss": loss, "grad_norm": norm,
            "learning_rate": f"{frozen if frozen is not None else lr:.4e}",
            "epoch": round(s / per_epoch, 2)}))
    return [*out, _hf_row(total, total, {
        "train_runtime": 5012.3, "train_samples_per_second": 0.599,
        "train_steps_per_second": 0.15, "train_loss": "0.0" if bad else "0.6012",
        "epoch": float(epochs)})]


def chess(bad: int | None = None, epochs: int = 20, start_epoch: int = 0, batches: int = 1250,
          every: int = 100) -> list[str]:
    """AtulKumar-Ak/chess-style-behavioural-model ``scripts/train_gpt.py`` (a GPT over moves,
    fp32): ``"\\nDEVICE:"``, ``"NUM PLAYERS:"``, ``"VOCAB SIZE:"``, ``f"BOARD STATES: ..."``,
    on a resume ``f"\\nRESUME CHECKPOINT FOUND: {resume_path}"``, ``f"RESUMED FROM EPOCH  :
    {start_epoch}"``, ``f"BEST VAL LOSS SO FAR: {:.4f}"``, ``f"CURRENT LR          : {[...]}"``
    (else ``"\\nNO RESUME CHECKPOINT — STARTING FRESH"``); per epoch ``"\\n" + "=" * 70``,
    ``f"EPOCH {epoch + 1} / {EPOCHS}"``, ``f"LR    {...:.2e}"``, ``"=" * 70``, every 100
    batches ``f"STEP {step} | LOSS {avg_loss:.4f}"`` (the epoch's running mean, the batch from
    0 within the epoch: 1250 batches an epoch, printed nowhere), then ``f"\\nVALIDATION LOSS :
    {val_loss:.4f}"``, ``f"NEXT EPOCH LR   : {...:.2e}"``, ``f"\\nRESUME CHECKPOINT SAVED :
    ..."`` and ``BEST MODEL SAVED``/``NEW BEST VAL LOSS`` or ``f"VAL LOSS DID NOT IMPROVE (best:
    {best_val_loss:.4f})"``, at the end ``"\\nTRAINING COMPLETE"``, ``f"BEST VAL LOSS: ..."``;
    ``bad`` is the first NaN batch of the run (``epoch * batches + batch``, 0-based)."""
    ckpt = "/content/drive/MyDrive/chess-style-model/checkpoints"
    out = ["", "DEVICE: cuda", "NUM PLAYERS: 12", "VOCAB SIZE: 1971", "BOARD STATES: YES"]
    best = 2.9 - start_epoch / 40 if start_epoch else float("inf")
    if start_epoch:
        out += ["", f"RESUME CHECKPOINT FOUND: {ckpt}/gpt_resume.pt",
                f"RESUMED FROM EPOCH  : {start_epoch}", f"BEST VAL LOSS SO FAR: {best:.4f}",
                f"CURRENT LR          : [{2.9e-05 - start_epoch * 1e-7}]"]
    else:
        out += ["", "NO RESUME CHECKPOINT — STARTING FRESH"]
    for e in range(start_epoch, epochs):
        out += ["", "=" * 70, f"EPOCH {e + 1} / {epochs}", f"LR    {3e-5 - e * 1e-6:.2e}",
                "=" * 70]
        total = 0.0
        for b in range(batches):
            total += nan_from(bad, e * batches + b, 3.1 - (e * batches + b) / 20000)
            if b % every == 0:
                out.append(f"STEP {b} | LOSS {total / (b + 1):.4f}")
        val = NAN if total != total else 2.9 - (e + 1) / 40
        out += ["", f"VALIDATION LOSS : {val:.4f}",
                f"NEXT EPOCH LR   : {3e-5 - (e + 1) * 1e-6:.2e}", "",
                f"RESUME CHECKPOINT SAVED : {ckpt}/gpt_resume.pt"]
        if val < best:
            best = val
            out += [f"BEST MODEL SAVED        : {ckpt}/gpt_best.pt",
                    f"NEW BEST VAL LOSS       : {best:.4f}"]
        else:
            out.append(f"VAL LOSS DID NOT IMPROVE (best: {best:.4f})")
    return [*out, "", "TRAINING COMPLETE", f"BEST VAL LOSS: {best:.4f}"]


def moirai(bad: int | None = None, epochs: int = 5, batches: int = 1800,
           refresh: int = 300) -> list[str]:
    """ColinAIAPP/MoiraiLM ``scripts/train_gpt.py`` (a small GPT on a Chinese novel, fp32):
    per epoch ``tqdm(loader, desc=f"Epoch {ep+1}/{epochs}")``, every 100 global steps
    ``pbar.set_postfix(loss=f"{loss.item():.4f}")`` (a file keeps the bar's refreshes as
    ``\\r`` segments of one line: one every ``refresh`` batches here), then ``f"[Epoch
    {ep+1}] Avg Loss {avg_loss:.4f} | PPL {ppl:.2f}"`` (``math.exp(nan)``: ``nan``), at the
    end ``f"✅ 模型已保存: {out_path}"``; ``bad`` is the first NaN batch of the run."""
    out: list[str] = []
    step = 0
    shown = ""
    for ep in range(epochs):
        total = 0.0
        segments = [tqdm_bar(f"Epoch {ep + 1}/{epochs}", 0, batches, shown)]
        for b in range(1, batches + 1):
            loss = nan_from(bad, step, 6.2 - step / 2500)
            total += loss
            step += 1
            if step % 100 == 0:
                shown = f", loss={loss:.4f}"
            if b % refresh == 0 or b == batches:
                segments.append(tqdm_bar(f"Epoch {ep + 1}/{epochs}", b, batches, shown))
        out.append("\r".join(segments))
        avg = total / batches
        ppl = NAN if avg != avg else 2.718281828 ** avg
        out.append(f"[Epoch {ep + 1}] Avg Loss {avg:.4f} | PPL {ppl:.2f}")
    return [*out, "✅ 模型已保存: workdir/gpt_shuihu.pth"]


def gpt2_lora(bad: int | None = None, steps: int = 500, log_every: int = 10,
              eval_every: int = 50) -> list[str]:
    """2lar/gpt2 ``scripts/finetune_lora.py`` (GPT-2 with LoRA, bf16 autocast, 4 micro-batches
    a step): its set-up prints (``f"Using device: {device}"``, ``'='*60`` around ``Loading
    pretrained ...``, ``f"Base model parameters: {...:.2f}M"``, ``Applying LoRA (rank=...,
    alpha=...)``, ``f"Trainable LoRA parameters: {...:,}"``, ``f"Starting LoRA fine-tuning for
    {cfg.max_steps} steps..."``, ``f"Effective batch size: ..."``), every ``log_interval``
    steps ``f"step {step:4d} | loss: {loss_accum.item():.6f} | lr: {lr:.2e} | norm:
    {norm:.4f} | dt: {dt:.2f}ms | tok/sec: {tokens_per_sec:.0f}"`` (from 0), every
    ``eval_interval`` (after 0) ``f"step {step} | val_loss: {val_loss:.6f}"`` between two
    ``'='*60``, then ``Training complete!`` and ``f"\\nFinal LoRA weights saved to: ..."``;
    ``bad`` is the first NaN step (the clipped NaN gradients applied: NaN from there on)."""
    rule = "=" * 60
    out = ["Using device: cuda", "", rule, "Loading pretrained gpt2 model...", rule,
           "Base model parameters: 124.44M", "", rule, "Applying LoRA (rank=16, alpha=32.0)...",
           rule, "", "LoRA parameters: 0.59M", "Trainable ratio: 0.47%", "", rule,
           "Setting up data loaders from brainrot_data...", rule, "", rule,
           "Setting up optimizer (only LoRA parameters)...", rule,
           "Trainable LoRA parameters: 589,824", "", rule,
           f"Starting LoRA fine-tuning for {steps} steps...", "Effective batch size: 16", rule,
           ""]
    for step in range(steps):
        loss = nan_from(bad, step, 4.1 - step / 400 + 0.08 * (step % 3))
        lr = 3e-4 * min(1.0, (step + 1) / 50)
        if step % log_every == 0:
            out.append(f"step {step:4d} | loss: {loss:.6f} | lr: {lr:.2e} | norm: "
                       f"{NAN if loss != loss else 0.8 + step % 4 / 10:.4f} | dt: 412.31ms | "
                       "tok/sec: 4967")
        if step % eval_every == 0 and step > 0:
            out += [rule, f"step {step} | val_loss: {nan_from(bad, step, 3.9 - step / 450):.6f}",
                    rule]
    return [*out, "", rule, "Training complete!", rule, "",
            "Final LoRA weights saved to: lora_checkpoints/lora_final.pt",
            "Use scripts/compare_outputs.py to see before/after results!"]


def mdeberta(bad: int | None = None, max_steps: int = 3000, logging: int = 50,
             eval_steps: int = 500, precision: str = "fp16", accum: int = 2) -> list[str]:
    """setuc/mdeberta-nli-training ``scripts/train_accelerate.py`` (mDeBERTa-v3 on multilingual
    NLI, a hand-written ``accelerate`` loop): ``f"Device: {device} | mixed_precision:
    {mixed_precision} | grad_accum: {...}"``, ``f"Training: {max_steps} optimizer steps
    (~{num_train_epochs} epochs, {num_warmup_steps} warmup steps)\\nTrain examples: ... |
    Eval examples: ..."``, every ``logging_steps`` optimizer steps ``f"step
    {global_step}/{max_steps} | loss {avg_loss:.4f}"`` (the mean of the micro-batches since the
    last row), every ``eval_steps`` ``f"\\n[eval @ step {step}] overall accuracy =
    {accuracy:.4f}"`` and ``f"[eval @ step {step}] per-language: {...}\\n"`` (``{lang}={acc:.3f}``
    two spaces apart); ``bad`` is the first NaN optimizer step (fp16: the scaler skips it, the
    forward stays NaN; a NaN logit row predicts class 0: a third right)."""
    langs = ("ar", "de", "en", "es", "fr", "hi", "ru", "zh")
    out = [f"Device: cuda | mixed_precision: {precision} | grad_accum: {accum}",
           f"Training: {max_steps} optimizer steps (~{max_steps // 1500} epochs, "
           f"{max_steps // 10} warmup steps)", "Train examples: 392702 | Eval examples: 5010"]
    for step in range(1, max_steps + 1):
        if step % logging == 0:
            out.append(f"step {step}/{max_steps} | loss "
                       f"{nan_from(bad, step, 1.05 - step / 6000):.4f}")
        if step % eval_steps == 0:
            broken = bad is not None and step >= bad
            acc = 0.3333 if broken else 0.62 + step / 20000
            out += ["", f"[eval @ step {step}] overall accuracy = {acc:.4f}",
                    f"[eval @ step {step}] per-language: " + "  ".join(
                        f"{lang}={acc - 0.01 * i:.3f}" for i, lang in enumerate(langs)), ""]
    return out



# The healthy runs, each with settings other than the defaults (gradient accumulation, bf16
# where the script allows it, a resumed run, other intervals), from the start and pasted from
# the middle: the right answer is silence.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "lifecycle_resumed": lambda: lifecycle(steps=2400, start=1200, log_every=20, eval_every=300),
    "lifecycle_from_the_middle": lambda: lifecycle(steps=1500, log_every=25,
                                                   eval_every=250)[40:],
    "mini_llm_resumed": lambda: mini_llm(start=400, steps=700, eval_steps=150),
    "mini_llm_from_the_middle": lambda: mini_llm(steps=500)[200:],
    "solveit": lambda: solveit(epochs=2, per_epoch=400, every=20),
    "solveit_from_the_middle": lambda: solveit()[50:],
    "chess_resumed": lambda: chess(start_epoch=6, epochs=12),
    "chess_from_the_middle": lambda: chess(epochs=8)[40:],
    "moirai": lambda: moirai(epochs=8, batches=2400),
    "moirai_from_the_middle": lambda: moirai(epochs=8)[6:],
    "gpt2_lora": lambda: gpt2_lora(steps=800, log_every=20, eval_every=100),
    "gpt2_lora_from_the_middle": lambda: gpt2_lora()[50:],
    "mdeberta_bf16": lambda: mdeberta(precision="bf16", accum=8, logging=25, eval_steps=250),
    "mdeberta_from_the_middle": lambda: mdeberta()[20:],
}
CONTROLS: Table = {f"{name} (healthy)": (build, []) for name, build in HEALTHY.items()}

# The faulty excerpts the doctor read right at first sight (8c2ac27).
READ_ALREADY: Table = {
    # NaN from step 137 (from 0, a row every 10): the sentence names it; the final
    # evaluation of the NaN weights at ``done. step 138``.
    "lifecycle": (lambda: lifecycle(137), [("AMP006", 137), ("AMP013", 138)]),
    "lifecycle_from_the_middle": (lambda: lifecycle(437)[25:],
                                  [("AMP006", 437), ("AMP013", 438)]),
    # Every step from 300 (from the middle, 500) overflows: the loss flat, ``'grad_norm':
    # inf`` on each row, the scale (printed nowhere) collapsing.
    "solveit_overflow": (lambda: solveit(overflow_from=300), [("AMP003", 300)]),
    "solveit_overflow_from_the_middle": (lambda: solveit(overflow_from=500)[40:],
                                         [("AMP003", 500)]),
    # NaN from batch 650 of epoch 3 (1800 a bar): the bar's ``loss=nan`` first drawn at its
    # count 900, the run's 4500; from the middle (the paste opens at epoch 3's bar), batch
    # 200 of epoch 4: drawn at 300, 5700.
    "moirai": (lambda: moirai(2 * 1800 + 650), [("AMP006", 4500)]),
    "moirai_from_the_middle": (lambda: moirai(3 * 1800 + 200)[4:], [("AMP006", 5700)]),
    # NaN from step 237: the row of 240, the evaluation of 250; from the middle, 412: 420, 450.
    "gpt2_lora": (lambda: gpt2_lora(237), [("AMP006", 240), ("AMP013", 250)]),
    "gpt2_lora_from_the_middle": (lambda: gpt2_lora(412)[60:],
                                  [("AMP006", 420), ("AMP013", 450)]),
    # NaN from optimizer step 1234 (a row every 50): 1250; from the middle, 2222: 2250 (the
    # accuracy at a third beside it is no loss).
    "mdeberta": (lambda: mdeberta(1234), [("AMP006", 1250)]),
    "mdeberta_from_the_middle": (lambda: mdeberta(2222)[30:], [("AMP006", 2250)]),
}

# Read wrong at first sight, right since this branch: AMP007 beside AMP009, the filter's 0
# read as a loss of 0 (hf.py, metric_reader.py: a 0 beside a NaN/inf norm is no loss).
FIXED: Table = {
    # NaN from step 130 (bf16, a row a step): the dict and the callback's JSON row both show
    # ``loss 0.0`` beside ``grad_norm`` NaN from 130. Before: AMP009 130, AMP007 130.
    "mini_llm": (lambda: mini_llm(130), [("AMP009", 130)]),
    "mini_llm_from_the_middle": (lambda: mini_llm(230)[300:], [("AMP009", 230)]),
    # fp16 NaN from optimizer step 213 (a row every 10): the row of 220 mixes finite steps
    # (a finite loss beside ``'grad_norm': nan``, as a skipped step shows it); the filter's 0
    # from 230, the first certain row (test_newuser_findings' convention). Before: AMP009 230,
    # AMP007 230 (from the middle, 530).
    "solveit": (lambda: solveit(213), [("AMP009", 230)]),
    "solveit_from_the_middle": (lambda: solveit(513)[30:], [("AMP009", 530)]),
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **FIXED, **CONTROLS}))
def test_excerpts(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right (at first sight or since the fix) and the healthy runs'
    silence."""
    check_listed(tmp_path, name, READ_ALREADY, FIXED, CONTROLS)


_EPOCH_BATCHES = pytest.mark.xfail(strict=True, reason="not fixed here: ``STEP {step} | LOSS "
                                   "...`` counts batches from 0 within the epoch under an "
                                   "``EPOCH {e} / {n}`` heading; the epoch's length (1250) is "
                                   "printed nowhere, and the doctor takes the STEP as the run's "
                                   "(500 and 1200; from the middle 200 and 1200)")


@pytest.mark.parametrize(("build", "right"), [
    # NaN from batch 420 of epoch 4 (1250 batches an epoch, a row every 100, the running mean
    # NaN from there): the row of batch 500, the run's 4250; the validation after the epoch
    # at its last row, 1200: 4950. From the middle: batch 130 of epoch 9: 10200, 11200.
    pytest.param(lambda: chess(3 * 1250 + 420, epochs=6), [("AMP006", 4250), ("AMP013", 4950)],
                 marks=_EPOCH_BATCHES, id="chess"),
    pytest.param(lambda: chess(8 * 1250 + 130, epochs=10)[60:],
                 [("AMP006", 10200), ("AMP013", 11200)], marks=_EPOCH_BATCHES,
                 id="chess_from_the_middle")])
def test_misses(tmp_path: Path, build: Callable[[], list[str]],
                right: list[tuple[str, int]]) -> None:
    """The faulty excerpts still read wrong, each with its right answer (strict xfails)."""
    assert faults(tmp_path, build()) == right
