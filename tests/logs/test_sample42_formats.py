"""A sample of fp16 scripts that print their loss scale or their skipped steps (sample42, for
#27), read at first sight (the doctor at 688b664, no rule added: a measurement).

How they were drawn: ``find_string`` (the code index, first 10 hits a query, in the order it
gives them) on the brief's strings in its order; where a bare string's hits held no training
script (``amp_scale``, ``skipped_steps``, ``found_inf``, ``cur_scale`` gave library code,
configs, workflow engines) its printed form (``amp_scale={``, ``skipped_steps}``,
``found_inf={``, ``cur_scale}``) was asked instead; a hit was taken where it is a training
loop that prints a loss, and its scale or skips, from its own file. Taken: ``amp_scale={``
hits 3 and 9, ``skipped_steps}`` hits 3 and 8, ``found_inf={`` hit 1, ``cur_scale}`` hit 10.
Skipped: ``amp_scale={`` hit 5 (a one-step GPU smoke check), the others there (laser,
climate, robot, qubit tools); ``loss_scaler.loss_scale`` (apex, DeepSpeed and MindSpore
internals and tests, nothing printed); ``skipped_steps}`` hits 1, 2, 4-7, 9 (not training
loops, or a crash message only); ``found_inf={`` hit 3 (its loss print is a helper,
``log_step_loss``, not in the file), hits 2, 4-9 (probes, internals); ``num_skipped}``,
``overflow_count}`` (no training loop); ``cur_scale}`` hit 6 (a one-off model inspection, no
loss). The index names no repository for any of the six: each is named by its file id (none
of the ids or their projects' names occurs in tests/logs).

Each builder takes its script's own format strings (in its docstring) and a GradScaler (or
DeepSpeed's scaler) run as the script sets it up; healthy runs use settings other than the
defaults (another ``init_scale``, ``growth_interval``, log interval, epochs) and a scaler
that backs off a few times at the start, as a healthy fp16 run does. Faulty: a NaN loss
from a step; the scale collapsing (halved every step to a tiny value or 0) while the loss
stays finite; each also pasted from the middle.

Each script, its layout; the doctor at first sight (688b664) -> right ("=": the same):

- file 68432573493 (a MIDI pedal model's strict stage-2 run): ``FIRST_BATCH epoch=E
  loss=... finite=... amp_scale=...``, ``AMP_SKIP epoch=E batch=B scale_before=...
  scale_after=...`` and an epoch's metrics as sorted JSON. NaN from epoch 2's first batch:
  AMP006 32 -> AMP006 261 with the collapse it brings (AMP003 261, AMP004 268 and 417: step
  and id); NaN from batch 140 (the train loss non-finite at the epoch's end: a
  ``FloatingPointError``) from the middle: silent -> AMP003 140, AMP004 147, AMP006 260;
  collapse from 120: AMP004 780, AMP004 261 -> AMP003 120, AMP004 127, AMP004 276 (the 0.0);
  from the middle (150): AMP004 780, 2 -> AMP003 150, AMP004 157, 306.
- file 56985745199 (a multi-task trainer, ``logging``): ``Step N: r_t=..., ...,
  amp_dtype=fp16, amp_scale={scale:.3g}, amp_overflow=K`` every 50 steps; a NaN ``L_task``
  is ``ERROR - Non-finite tensor: L_task at step=N. {...}`` and a ``FloatingPointError``:
  silent -> AMP006 617 (and 917 from the middle); the collapses = (AMP003 at the row the
  fall shows, AMP004 at the first row below 1 and at the first 0).
- file 56138907195 (a GSM8K fine-tune cell): a table ``  Ep      Loss     gN ...``, skipped
  non-finite steps counted, 50 in a row ``ABORT at ep E: 50 non-finite grad steps.``: silent
  -> AMP003 14 (50 overflows in a row: the scale halved 50 times; the loss never printed
  non-finite); from the middle "nothing to diagnose" -> AMP003 22. Its healthy run pasted
  from the middle: "nothing to diagnose" (no alarm).
- file 51853581630 (a README's DETR training loop): ``[Ep3|400/1250] total=... lr=...``,
  ``⚠ NaN at step S, skipped K`` every 50th skip, ``⚠ Entire epoch NaN (1/3)``: silent ->
  AMP006 3200 (the run's batch; 4050 from the middle). It prints no scale: no collapse case.
- file 13028714203 (a covariance model's trainer, epoch 1): ``[BATCH] ep=1 bi=B
  batch_loss=... running=...``, ``[STEP] batch=B AMP SKIPPED (scale a→b)`` every 100
  batches: NaN from 430: AMP006 400 -> 500 (the first row that shows it; 600 -> 700 from the
  middle: step); collapse from 350: silent -> AMP003 400, AMP004 400 (``scale 0.0→0.0``;
  600 from the middle).
- file 66708930810 (a draft model under DeepSpeed): ``[WARNING] Batch B, Position i: Invalid
  loss (NaN/Inf): nan``, DeepSpeed's ``[deepspeed] OVERFLOW! ... reducing to ...``,
  ``[ERROR] Batch B: Loss scale at minimum``, ``[SUMMARY] Final loss scale: ...``, ``Train
  Epoch [e/n], position i, pLoss: ...``: NaN from 250: AMP006 250, AMP007 402 -> AMP006 250
  (the zeros are the script's stand-ins for the NaN: id); from the middle AMP006 253, AMP007
  402 -> AMP006 653; collapse from 230: AMP003 1, AMP006 20 -> AMP003 230 (DeepSpeed's lines,
  one a skipped step, run up to ``Batch 241``), AMP006 799 (the empty epoch's nan means); from
  the middle AMP003 1, AMP006 13 -> AMP003 636, AMP006 1199 (step).

Faulty (20 excerpts): right at first sight on 2 (10%: the multi-task trainer's collapses).
The 18 misses: silence 9 (a NaN 7, a collapse 2), step 5 (the covariance trainer's NaN, the
DeepSpeed run's collapses and its NaN from the middle), id 4 (the pedal run's collapses and
NaN: AMP004 without AMP003, the convention's id miss, no rule written for it; the DeepSpeed
run's AMP007 beside its NaN). No false alarm.
Healthy (12 excerpts, 6 from the middle, each with early back-offs): no false alarm on 12 of
12; silent and read on 11, the GSM8K table from the middle "nothing to diagnose".
Now (h56-sample42's rules, tests/logs/test_sample42_rules.py): 6 of 20 right (the
multi-task trainer's NaN from its raised ``Non-finite tensor`` and the covariance trainer's
collapses from its ``AMP SKIPPED (scale a→b)`` lines); the DETR's NaN read (AMP006 at the
step within its epoch: still a step miss), the GSM8K abort read as AMP003 (at the last
row's epoch: a step miss) and the pedal run's raised metric read; 14 strict xfails remain.
Healthy: 12 of 12 still silent.
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; an epoch where it prints only
epochs).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import alarms, faults

NAN = float("nan")
_TINY = 1.4e-45  # the smallest fp32 subnormal: GradScaler's fp32 scale reads 0.0 below it


def scaler_update(scale: float, tracker: int, overflow: bool,
                  interval: int) -> tuple[float, int]:
    """``torch.amp.GradScaler.update`` (pytorch ``torch/amp/grad_scaler.py``,
    ``_amp_update_scale_``): halved on an overflow (the growth tracker reset), doubled after
    ``interval`` clean steps in a row; the scale an fp32 tensor (0.0 below its range)."""
    if overflow:
        half = scale * 0.5
        return (half if half >= _TINY else 0.0), 0
    return (scale * 2.0, 0) if tracker + 1 == interval else (scale, tracker + 1)


def pedal_strict(bad: int | None = None, collapse: int | None = None, epochs: int = 3,
                 batches: int = 260, init: float = 1024.0, interval: int = 500,
                 early: tuple[int, ...] = (2, 5, 31)) -> list[str]:
    """Index file 68432573493 (the code index names no repository: a ``train(config,
    architecture)`` script beside ``src/stage2_binary/``, "Fresh definitive binary Stage 2
    training with strict MIDI validation"), its ``log()`` (stdout and ``train.log``):
    ``f"START architecture={architecture} gpu={gpu['name']} cache={...} train_windows={...}
    strict_validation=True"``, ``f"REPRO encoder=... epoch1_order=... first_batch=..."``,
    ``"STRICT_BASELINE " f"js={...:.15f} " f"intersection={...:.15f}"``; each epoch (from
    1) the batch callback's ``f"FIRST_BATCH epoch={epoch} loss={details['loss']:.9f} "
    f"finite={math.isfinite(...)} " f"amp_scale={details['amp_scale_after']}"`` at batch 1
    and ``f"AMP_SKIP epoch={epoch} batch={batch} scale_before={...} scale_after={...}"`` on
    each skipped step, then ``json.dumps(row, sort_keys=True)`` (the epoch's metrics), or,
    where a metric is not finite, ``raise FloatingPointError("non-finite strict epoch
    metric")`` (a traceback); ``f"EARLY_STOP epoch=..."`` or ``f"COMPLETE
    architecture=... epochs=..."``. A ``torch.amp.GradScaler("cuda",
    init_scale=amp_init_scale)`` (here 1024, growth every ``interval``): the run's batches
    (from 1) in ``early`` overflow, and every one from ``collapse`` or ``bad`` on (``bad``:
    the loss NaN from there)."""
    out = ["START architecture=joint_16 gpu=NVIDIA GeForce RTX 4090 cache=3f9a1c07d2b4 "
           f"train_windows={batches * 16} strict_validation=True",
           "REPRO encoder=9c1e44b0a7d3 epoch1_order=51be07f2aa90 first_batch=0d7736c1e2f8",
           "STRICT_BASELINE js=0.142857142857143 intersection=0.801234567890123"]
    scale, tracker, step = init, 0, 0
    for epoch in range(1, epochs + 1):
        total, skips, run, most = 0.0, 0, 0, 0
        for batch in range(1, batches + 1):
            at = (epoch - 1) * batches + batch
            loss = NAN if bad is not None and at >= bad else 0.69 * 0.999 ** at + 0.05
            over = at in early or any(x is not None and at >= x for x in (bad, collapse))
            before = scale
            scale, tracker = scaler_update(scale, tracker, over, interval)
            total += loss
            if batch == 1:
                out.append(f"FIRST_BATCH epoch={epoch} loss={loss:.9f} "
                           f"finite={math.isfinite(loss)} amp_scale={scale}")
            if over:
                skips, run = skips + 1, run + 1
                most = max(most, run)
                out.append(f"AMP_SKIP epoch={epoch} batch={batch} scale_before={before} "
                           f"scale_after={scale}")
            else:
                run, step = 0, step + 1
        train = total / batches
        if not math.isfinite(train):
            return [*out, "Traceback (most recent call last):",
                    '  File "scripts/train_stage2_binary_strict.py", line 577, in <module>',
                    "    main()",
                    '  File "scripts/train_stage2_binary_strict.py", line 412, in train',
                    '    raise FloatingPointError("non-finite strict epoch metric")',
                    "FloatingPointError: non-finite strict epoch metric"]
        row = {"epoch": epoch, "train_loss": train, "validation_loss": 0.61 - epoch / 100,
               "validation_binary_accuracy": 0.81 + epoch / 200,
               "validation_exact_pattern_accuracy": 0.42 + epoch / 100,
               "strict_validation_pedal_js_distance": 0.13 - epoch / 500,
               "strict_validation_pedal_intersection": 0.81 + epoch / 500,
               "direct_token_diagnostic_js_distance": 0.12 - epoch / 400,
               "direct_token_diagnostic_intersection": 0.82 + epoch / 400,
               "epoch_time_seconds": 412.5 + epoch, "global_optimizer_step": step,
               "amp_skipped_optimizer_steps": skips, "maximum_consecutive_amp_skips": most,
               "encoder_learning_rate": 2e-05, "head_learning_rate": 0.0003,
               "peak_gpu_memory_bytes": 9876543210}
        out.append(json.dumps(row, sort_keys=True))
    return [*out, f"COMPLETE architecture=joint_16 epochs={epochs} strict_best_epoch={epochs} "
            "strict_js=0.124000000000000"]


_LIP = "2026-03-02 14:{:02d}:{:02d},{:03d} - trainers.trainer - {} - "


def lipschitz_mtl(bad: int | None = None, collapse: int | None = None, steps: int = 1200,
                  log_interval: int = 50, init: float = 65536.0, interval: int = 400,
                  early: tuple[int, ...] = (1, 2, 3, 9)) -> list[str]:
    """Index file 56985745199 (no repository named: ``DynamicLipschitzTrainer``, "Copyright
    2026 Junbo Ding"), its ``logging.getLogger(__name__)`` lines (a file handler, the format
    ``"%(asctime)s - %(name)s - %(levelname)s - %(message)s"`` assumed: the script's main is
    not in the file): ``f'CUDA devices available: {num_gpus}'``, ``f'  GPU {i}: {props.name}
    ({mem_gb:.1f} GB)'``, ``f'Using device: {self.device}'``; every ``log_interval`` steps
    (the global step from 1) ``_log_diagnostics``: ``f"Step {self.global_step}:
    r_t={r_t:.3f}, r_ema={r_ema_str}, lambda=..., err={r_err:+.4f}, in_band=...,
    saturated=..., warmup=..., grad_share=...%, tau=..., kappa=..., healthy=...{amp_str}"``
    with ``f', amp_dtype={dtype_str}, amp_scale={scale:.3g},
    amp_overflow={self.amp_overflow_count}'`` (a step whose scale fell counts an
    overflow); a non-finite ``L_task`` is ``self.logger.error(f'Non-finite tensor: {name} at
    step={self.global_step}. {stats}')`` then ``raise FloatingPointError(msg)``. A
    ``GradScaler`` from ``init`` (growth every ``interval``): the steps in ``early``
    overflow, every one from ``collapse`` on; ``bad``: ``L_task`` NaN at that step."""
    def at(step: int, level: str = "INFO") -> str:
        return _LIP.format(step // 60 % 60, step % 60, (step * 37) % 1000, level)

    out = [at(0) + "CUDA devices available: 1",
           at(0) + "  GPU 0: NVIDIA A100-SXM4-40GB (39.4 GB)", at(0) + "Using device: cuda"]
    scale, tracker, overflows = init, 0, 0
    for step in range(1, steps + 1):
        if bad is not None and step >= bad:
            stats = ("{'dtype': 'torch.float32', 'shape': (), 'nan': 1, 'inf': 0, 'min': nan, "
                     "'max': nan}")
            msg = f"Non-finite tensor: L_task at step={step}. {stats}"
            return [*out, at(step, "ERROR") + msg, "Traceback (most recent call last):",
                    '  File "train.py", line 214, in <module>', "    main()",
                    '  File "trainers/trainer.py", line 171, in _assert_finite',
                    "    raise FloatingPointError(msg)", f"FloatingPointError: {msg}"]
        over = step in early or (collapse is not None and step >= collapse)
        before = scale
        scale, tracker = scaler_update(scale, tracker, over, interval)
        overflows += scale < before
        if step % log_interval == 0:
            r_t = 0.12 + 0.01 * (step % 7) / 7
            out.append(at(step) + f"Step {step}: r_t={r_t:.3f}, r_ema={r_t - 0.002:.3f}, "
                       f"lambda={0.05 + step / 1e5:.4f}, err={-0.002:+.4f}, in_band=True, "
                       "saturated=False, warmup=False, grad_share=3.2%, tau=0.1000, "
                       f"kappa=1.0000, healthy=True, amp_dtype=fp16, amp_scale={scale:.3g}, "
                       f"amp_overflow={overflows}")
    return out


def gsm8k_finetune(bad: int | None = None, epochs: int = 30, eval_every: int = 3,
                   skipped: int = 4, per_epoch: int = 117) -> list[str]:
    """Index file 56138907195 (no repository named: a notebook builder whose ``C_FINETUNE``
    cell fine-tunes a graph reasoner on GSM8K under ``torch.amp.GradScaler("cuda")``):
    ``"=" * 100``, ``f"{'Ep':>4}  {'Loss':>8}  {'gN':>5}  {'LR':>8}  {'Ex%':>6}  {'Dig%':>7}
    " f"{'Near%':>6}  {'NoOut':>5}  {'AvgHlt':>6}"``, ``"=" * 100``; an evaluated epoch
    (the first and every ``finetune_eval_every``) ``f"{ep+1:>4}  {al:>8.4f}  {ag:>5.2f}
    {lr:>8.1e}  " f"{ex*100:>6.2f}  {da*100:>7.1f}  {ne*100:>6.2f}  " f"{m['no_output']:>5}
    {m['mean_halt_steps']:>6.2f}{mk}"`` (``mk`` ``" *"`` on a new best), else every fifth
    ``f"{ep+1:>4}  {al:>8.4f}  {ag:>5.2f}  {lr:>8.1e}"``; a step whose clipped gradient
    norm is not finite is skipped (``scaler_ft.update()`` halves the scale) and not
    averaged, 50 in a row: ``f"ABORT at ep {ep+1}: {consec_bad} non-finite grad steps."``;
    at the end ``"=" * 100`` and ``f"Fine-tune done. Best VAL exact = {best_acc*100:.2f}%
    " f"(skipped {skipped_steps} non-finite steps)"``. ``skipped``: the scaler's start-up
    back-offs (epoch 1); ``bad``: the loss NaN from that epoch (from 1) on."""
    out = ["=" * 100, f"{'Ep':>4}  {'Loss':>8}  {'gN':>5}  {'LR':>8}  {'Ex%':>6}  "
           f"{'Dig%':>7}  {'Near%':>6}  {'NoOut':>5}  {'AvgHlt':>6}", "=" * 100]
    best, total_skipped = 0.0, skipped
    for ep in range(epochs):
        if bad is not None and ep + 1 >= bad:
            total_skipped += 50
            out.append(f"ABORT at ep {ep + 1}: 50 non-finite grad steps.")
            break
        al, ag = 1.9 * 0.93 ** ep + 0.21, 0.84 + 0.1 * (ep % 3)
        lr = 3e-4 * (0.5 + 0.5 * math.cos(math.pi * ep / epochs))
        if (ep + 1) % eval_every == 0 or ep == 0:
            ex = min(0.05 + ep / 60, 0.41)
            mark = " *" if ex > best else ""
            best = max(best, ex)
            out.append(f"{ep + 1:>4}  {al:>8.4f}  {ag:>5.2f}  {lr:>8.1e}  {ex * 100:>6.2f}  "
                       f"{(ex + 0.3) * 100:>7.1f}  {(ex + 0.05) * 100:>6.2f}  "
                       f"{max(40 - ep, 3):>5}  {4.2 - ep / 20:>6.2f}{mark}")
        elif (ep + 1) % 5 == 0:
            out.append(f"{ep + 1:>4}  {al:>8.4f}  {ag:>5.2f}  {lr:>8.1e}")
    return [*out, "=" * 100, f"Fine-tune done. Best VAL exact = {best * 100:.2f}%   "
            f"(skipped {total_skipped} non-finite steps)"]


def hybrid_detr(bad: int | None = None, epochs: int = 6, steps: int = 1250,
                every: int = 400) -> list[str]:
    """Index file 51853581630 (no repository named: a README's HybridDETR digit detector,
    its training loop under ``torch.amp.GradScaler('cuda', init_scale=256.0,
    growth_interval=2000)``): ``f'Device: {device}'``, ``f'Train: {len(train_ds)} | Val:
    {len(eval_ds)} | Steps/ep: {len(train_loader)}'``; every 400 steps ``f'
    [Ep{ep+1}|{step+1}/{len(train_loader)}] ' f'total=... ce=... bb=... gi=...
    lr={...:.2e} ' f'({time.time()-t_step:.0f}s)'``; a non-finite loss is skipped (the
    scale halved by hand, never printed), every 50th skip from the first ``f'  ⚠ NaN at step
    {step+1}, skipped {skipped_steps}'``; an epoch with no finite step ``f'  ⚠ Entire epoch
    NaN ({nan_count}/3)'`` (no summary), else ``f'\\n═ Ep {ep+1:>2}/{CFG["epochs"]} ' f'|
    Train={train_loss:.3f} Val={val_loss:.3f} ' f'| mAP@.5:.95={map_5095:.4f}
    mAP@.5={map_50:.4f} ' f'| LR={...:.2e} ' f'| {time.time()-t0:.0f}s ═\\n'`` and ``f'  ★
    New best mAP = {best_map:.4f}\\n'``. ``bad``: the loss NaN from that run's batch (from
    1) on (the weights NaN: the validation's losses all skipped, its mean 0)."""
    out = ["Device: cuda", f"Train: {steps * 8} | Val: 2000 | Steps/ep: {steps}"]
    best, nan_epochs = 0.0, 0
    for ep in range(epochs):
        skipped, total, valid = 0, 0.0, 0
        for step in range(steps):
            at = ep * steps + step + 1
            if bad is not None and at >= bad:
                skipped += 1
                if skipped % 50 == 1:
                    out.append(f"  ⚠ NaN at step {step + 1}, skipped {skipped}")
                continue
            loss = 2.1 * 0.9995 ** at + 0.4
            total, valid = total + loss, valid + 1
            if (step + 1) % every == 0:
                out.append(f"  [Ep{ep + 1}|{step + 1}/{steps}] total={loss:.3f} "
                           f"ce={loss * 0.3:.3f} bb={loss * 0.2:.3f} gi={loss * 0.5:.3f} "
                           f"lr={2e-4 if ep >= 5 else 2e-4 * (ep + 1) / 5:.2e} (95s)")
        if valid == 0:
            nan_epochs += 1
            out.append(f"  ⚠ Entire epoch NaN ({nan_epochs}/3)")
            continue
        nan_epochs = 0
        broken = bad is not None and (ep + 1) * steps >= bad
        val = 0.0 if broken else total / valid + 0.1
        m = 0.0 if broken else min(0.05 + ep / 20, 0.42)
        out += ["", f"═ Ep {ep + 1:>2}/{epochs} | Train={total / valid:.3f} Val={val:.3f} "
                f"| mAP@.5:.95={m:.4f} mAP@.5={m * 1.6:.4f} | LR={2e-4:.2e} | 312s ═", ""]
        if m > best:
            best = m
            out += [f"  ★ New best mAP = {best:.4f}", ""]
    return [*out, "", f"Done! Best mAP@0.5:0.95 = {best:.4f}", "Best weights loaded into model."]


def covariance_amp(bad: int | None = None, collapse: int | None = None, batches: int = 900,
                   every: int = 100, init: float = 65536.0, interval: int = 1000,
                   early: tuple[int, ...] = (0, 1)) -> list[str]:
    """Index file 13028714203 (no repository named: a ``Trainer`` fitting a covariance
    model's heads, epoch 1 of its ``train_one_epoch`` under ``GradScaler``, ``epoch_dbg``
    on): for batches ``bi`` (from 0) where ``_should_log_batch(bi)`` (its body not read:
    every ``every``-th assumed) ``f"[BATCH] ep={epoch} bi={bi} batch_loss={batch_loss_val:.4f}
    running={running:.4f}"``, ``f"[GRAD] ep={epoch} batch={bi} ||g||_2={g_total:.3e}
    ok={ok} overflow_hint={overflow_hint}"``, then in epoch 1 ``f"[STEP] batch={bi} AMP
    SKIPPED (scale {scale_before_step:.1f}→{scale_after_step:.1f})"`` or ``f"[STEP]
    batch={bi} STEP TAKEN - g_total={g_total:.3e}"`` and ``f"[STEP] Δparam ||·||₂ =
    {delta:.3e}"``; a non-finite gradient ``f"[GRAD] ep={epoch} batch={bi}
    nonfinite_grad=True -> step skipped"``; for ``bi < 3`` ``f"[AMP] scale={current_scale}
    found_inf={found_inf_map}"``. The batches in ``early`` and every one from ``collapse``
    overflow (the scale halves); ``bad``: the loss NaN from that batch on."""
    out: list[str] = []
    scale, tracker, running = init, 0, 0.0
    for bi in range(batches):
        loss = NAN if bad is not None and bi >= bad else 1.3 * 0.998 ** bi + 0.2
        running += loss
        logged = bi % every == 0
        if logged:
            out.append(f"[BATCH] ep=1 bi={bi} batch_loss={loss:.4f} running={running:.4f}")
        over = bi in early or (collapse is not None and bi >= collapse)
        if bi < 3:
            out.append(f"[AMP] scale={scale} found_inf={{'cuda:0': {1.0 if over else 0.0}}}")
        if bad is not None and bi >= bad:
            scale, tracker = scaler_update(scale, tracker, True, interval)
            if logged:
                out.append(f"[GRAD] ep=1 batch={bi} nonfinite_grad=True -> step skipped")
            continue
        before = scale
        scale, tracker = scaler_update(scale, tracker, over, interval)
        if logged:
            out.append(f"[GRAD] ep=1 batch={bi} ||g||_2={0.8 + bi / 1e4:.3e} ok=True "
                       f"overflow_hint={over}")
            out.append(f"[STEP] batch={bi} AMP SKIPPED (scale {before:.1f}→{scale:.1f})" if over
                       else f"[STEP] batch={bi} STEP TAKEN - g_total={0.8 + bi / 1e4:.3e}")
            out.append(f"[STEP] Δparam ||·||₂ = {1.2e-3:.3e}")
    return out


_DS = "[2026-02-11 09:{:02d}:{:02d},{:03d}] [INFO] [loss_scaler.py:183:update_scale] "


def smeargle_ds(bad: int | None = None, collapse: int | None = None, epochs: int = 3,
                batches: int = 400, positions: int = 3, init: int = 2 ** 14,
                window: int = 300, early: tuple[int, ...] = (0, 1, 2)) -> list[str]:
    """Index file 66708930810 (no repository named: an EAGLE-style draft model, wandb
    project "SMEARGLE", trained with ``deepspeed.initialize`` in fp16): each epoch
    ``f"Now training epoch {epoch}"`` (from 0), per position with a non-finite loss
    ``f"[WARNING] Batch {batch_idx}, Position {i}: Invalid loss (NaN/Inf): {ploss.item()}"``
    (replaced by 0), on DeepSpeed's ``Current loss scale already at minimum`` ``f"[ERROR]
    Batch {batch_idx}: Loss scale at minimum, attempting to recover..."``; at the epoch's end
    ``f"[SUMMARY] Epoch {epoch}: Skipped batches: {skipped_batches}, NaN losses:
    {nan_loss_count}"``, ``f"[SUMMARY] Final loss scale: {...loss_scaler.cur_scale}"``,
    per position ``f"Train Epoch [{epoch + 1}/{num_epochs}], position {i},  Acc: {acc_i:.2f}"``
    and ``f"... pLoss: {loss_i:.2f}"`` (nan over an epoch with no batch through), the test
    loop's ``Test Epoch`` rows (``python train.py > train.log``: the ``tqdm`` bars go to
    stderr, not into the log). DeepSpeed's
    ``DynamicLossScaler.update_scale`` (deepspeed ``runtime/fp16/loss_scaler.py``) logs
    ``f"[deepspeed] OVERFLOW! Rank {dist.get_rank()} Skipping step." f" Attempted loss scale:
    {int(self.cur_scale)}, reducing to {int(next_scale)}"`` behind ``"[%(asctime)s]
    [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] "``, doubles after ``window``
    clean steps, stops at ``min_loss_scale`` 1. The run's batches (from 0) in ``early`` and
    every one from ``collapse`` on overflow; ``bad``: every position's loss NaN from there."""
    out: list[str] = []
    scale, clean, nan_count = float(init), 0, 0
    for epoch in range(epochs):
        out.append(f"Now training epoch {epoch}")
        skipped, losses = 0, []
        lines: list[str] = []
        for b in range(batches):
            at = epoch * batches + b
            if bad is not None and at >= bad:
                for i in range(positions):
                    lines.append(f"[WARNING] Batch {b}, Position {i}: Invalid loss (NaN/Inf): nan")
                    nan_count += 1
            over = at in early or (collapse is not None and at >= collapse)
            if over:
                if scale == 1.0:
                    lines.append(f"[ERROR] Batch {b}: Loss scale at minimum, attempting to "
                                 "recover...")
                    skipped += 1
                    continue
                new = max(scale / 2, 1.0)
                lines.append(_DS.format(at // 60 % 60, at % 60, at * 7 % 1000) +
                             f"[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss "
                             f"scale: {int(scale)}, reducing to {int(new)}")
                scale, clean = new, 0
            else:
                clean += 1
                if clean % window == 0:
                    scale *= 2
            losses.append(0.0 if bad is not None and at >= bad else 3.1 * 0.999 ** at + 0.6)
        out += lines
        # (an epoch with no batch through: ``torch.tensor([]).mean()`` is nan)
        mean = sum(losses) / len(losses) if losses else NAN
        out += [f"[SUMMARY] Epoch {epoch}: Skipped batches: {skipped}, NaN losses: {nan_count}",
                f"[SUMMARY] Final loss scale: {scale}"]
        out += [f"Train Epoch [{epoch + 1}/{epochs}], position {i},  Acc: "
                f"{0.61 - i * 0.08 + epoch / 50 if losses else NAN:.2f}" for i in range(positions)]
        out += [f"Train Epoch [{epoch + 1}/{epochs}], position {i}, pLoss: "
                f"{mean * (1 + i / 5):.2f}" for i in range(positions)]
        out += [f"Test Epoch [{epoch + 1}/{epochs}], position {i},  Acc: "
                f"{0.58 - i * 0.08 + epoch / 50:.2f}" for i in range(positions)]
        out += [f"Test Epoch [{epoch + 1}/{epochs}], position {i}, pLoss: "
                f"{(3.1 * 0.999 ** (epoch * batches) + 0.7) * (1 + i / 5):.2f}"
                for i in range(positions)]
    return out


Answer = list[tuple[str, int | None]]

# Right at first sight (guards).
RIGHT: dict[str, tuple[Callable[[], list[str]], Answer]] = {
    # The scale falls between the rows at 200 and 250 (2 at 250), below 1 at 300, 0 at 450.
    "lipschitz_collapse": (lambda: lipschitz_mtl(collapse=240),
                           [("AMP003", 250), ("AMP004", 450), ("AMP004", 300)]),
    "lipschitz_collapse_from_the_middle": (lambda: lipschitz_mtl(collapse=540)[6:],
                                           [("AMP003", 550), ("AMP004", 750), ("AMP004", 600)]),
    # Silent at first sight; right since this branch's rules (tests/logs/
    # test_sample42_rules.py): the ``FloatingPointError: Non-finite tensor: L_task at
    # step=617`` (raised_nonfinite ``_STATED``) and the skips ``AMP SKIPPED (scale 0.0→0.0)``
    # at their ``batch=`` (overflow_sentences ``_SCALE_FELL``).
    "lipschitz_nan": (lambda: lipschitz_mtl(bad=617), [("AMP006", 617)]),
    "lipschitz_nan_from_the_middle": (lambda: lipschitz_mtl(bad=917)[9:], [("AMP006", 917)]),
    "covariance_collapse": (lambda: covariance_amp(collapse=350),
                            [("AMP003", 400), ("AMP004", 400)]),
    "covariance_collapse_from_the_middle": (lambda: covariance_amp(collapse=550)[15:],
                                            [("AMP003", 600), ("AMP004", 600)]),
}

HEALTHY: dict[str, Callable[[], list[str]]] = {
    "pedal_healthy": lambda: pedal_strict(),
    "pedal_healthy_from_the_middle": lambda: pedal_strict(epochs=5, init=4096.0)[8:],
    "lipschitz_healthy": lambda: lipschitz_mtl(),
    "lipschitz_healthy_from_the_middle": lambda: lipschitz_mtl(steps=2000, interval=300)[10:],
    "gsm8k_healthy": lambda: gsm8k_finetune(),
    "detr_healthy": lambda: hybrid_detr(),
    "detr_healthy_from_the_middle": lambda: hybrid_detr(epochs=9, steps=900)[10:],
    "covariance_healthy": lambda: covariance_amp(),
    "covariance_healthy_from_the_middle": lambda: covariance_amp(batches=1500)[12:],
    "deepspeed_healthy": lambda: smeargle_ds(),
    "deepspeed_healthy_from_the_middle": lambda: smeargle_ds(epochs=5, window=200)[20:],
}

# Healthy, not read at first sight ("nothing to diagnose"): no alarm, and the right answer.
UNREAD: dict[str, Callable[[], list[str]]] = {
    "gsm8k_healthy_from_the_middle": lambda: gsm8k_finetune(epochs=40, eval_every=4,
                                                            skipped=7)[8:],
}

# Missed at first sight: (builder, the right answer, the doctor's at 688b664, the kind).
MISSES: dict[str, tuple[Callable[[], list[str]], Answer, str]] = {
    "pedal_nan": (lambda: pedal_strict(bad=261),
                  [("AMP003", 261), ("AMP004", 268), ("AMP004", 417), ("AMP006", 261)],
                  "step, id: AMP006 32"),
    "pedal_nan_from_the_middle": (lambda: pedal_strict(bad=140)[3:],
                                  [("AMP003", 140), ("AMP004", 147), ("AMP006", 260)],
                                  "silence (now AMP006 2: the FloatingPointError read)"),
    "pedal_collapse": (lambda: pedal_strict(collapse=120),
                       [("AMP003", 120), ("AMP004", 127), ("AMP004", 276)],
                       "id, step: AMP004 780, AMP004 261"),
    "pedal_collapse_from_the_middle": (lambda: pedal_strict(collapse=150)[6:],
                                       [("AMP003", 150), ("AMP004", 157), ("AMP004", 306)],
                                       "id, step: AMP004 780, AMP004 2"),
    # (now, overflow_sentences ``_GAVE_UP``: AMP003 12 and None, the id right, the step the
    # last row's, not the ``ABORT at ep 14`` line's epoch)
    "gsm8k_nan": (lambda: gsm8k_finetune(bad=14), [("AMP003", 14)], "silence"),
    "gsm8k_nan_from_the_middle": (lambda: gsm8k_finetune(bad=22)[6:], [("AMP003", 22)],
                                  "silence (nothing to diagnose)"),
    # (now, nonfinite_sentences ``_BARE_AT_STEP``: AMP006 700 and 300, the step within its
    # epoch: the ``[Ep3|400/1250]`` rows are not read)
    "detr_nan": (lambda: hybrid_detr(bad=2 * 1250 + 700), [("AMP006", 3200)], "silence"),
    "detr_nan_from_the_middle": (lambda: hybrid_detr(bad=3 * 1250 + 300)[8:],
                                 [("AMP006", 4050)], "silence"),
    "covariance_nan": (lambda: covariance_amp(bad=430), [("AMP006", 500)], "step: 400"),
    "covariance_nan_from_the_middle": (lambda: covariance_amp(bad=630)[15:],
                                       [("AMP006", 700)], "step: 600"),
    "deepspeed_nan": (lambda: smeargle_ds(bad=250), [("AMP006", 250)], "id: AMP007 402 too"),
    "deepspeed_nan_from_the_middle": (lambda: smeargle_ds(bad=650)[30:], [("AMP006", 653)],
                                      "step, id: AMP006 253, AMP007 402"),
    "deepspeed_collapse": (lambda: smeargle_ds(collapse=230),
                           [("AMP003", 230), ("AMP006", 799)], "step: AMP003 1, AMP006 20"),
    "deepspeed_collapse_from_the_middle": (lambda: smeargle_ds(collapse=630)[25:],
                                           [("AMP003", 636), ("AMP006", 1199)],
                                           "step: AMP003 1, AMP006 13"),
}


def _sorted(answer: Answer) -> Answer:
    return sorted(answer, key=lambda pair: (pair[0], pair[1] or 0))


@pytest.mark.parametrize("name", sorted(RIGHT))
def test_right_at_first_sight(tmp_path: Path, name: str) -> None:
    """The faulty excerpts the doctor read right at first sight."""
    build, right = RIGHT[name]
    assert _sorted(faults(tmp_path, build())) == _sorted(right)


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_runs_are_silent(tmp_path: Path, name: str) -> None:
    """Healthy runs with early back-offs and non-default settings: read, and silent."""
    assert faults(tmp_path, HEALTHY[name]()) == []


@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_raise_no_alarm(tmp_path: Path, name: str) -> None:
    """The healthy runs the doctor did not read: no diagnosis above info."""
    assert alarms(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize("name", sorted(UNREAD))
@pytest.mark.xfail(strict=True, reason="at first sight: nothing to diagnose")
def test_unread_healthy_runs_are_read(tmp_path: Path, name: str) -> None:
    """The right answer on those runs: read without error, and silent."""
    assert faults(tmp_path, UNREAD[name]()) == []


@pytest.mark.parametrize("name", sorted(MISSES))
@pytest.mark.xfail(strict=True, reason="missed at first sight (see MISSES)")
def test_misses_at_first_sight(tmp_path: Path, name: str) -> None:
    """The faulty excerpts the doctor read wrong at first sight, each with its right answer."""
    build, right, _kind = MISSES[name]
    assert _sorted(faults(tmp_path, build())) == _sorted(right)
