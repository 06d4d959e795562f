"""An eighth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 18 image-generation scripts, drawn from the code index's listing of
``train_text_to_image.py``, ``train_dreambooth.py``, ``train_lora.py``, ``train_controlnet.py``,
``train_diffusion.py``, ``train_unet.py``, ``train_vqgan.py``, ``train_dit.py``, ``train_vae.py``
and ``train_ldm.py`` in the order it gives them, none named by another test (the first ones of
``train_diffusion.py``, ``train_unet.py`` and ``train_vae.py`` are sample 22's). Skipped, and
why: 41xu/Taming-Transformer's ``train_vqgan.py`` (an argument parser, it trains nothing),
AnmolArora15/diffusion_celebhq's ``train_dit.py`` (its losses go to wandb alone, it prints
none). Each excerpt is built from the script's own print and logging format strings (one
builder a script or a family below, the repository and file in its docstring): a healthy run
with settings other than the defaults, and a faulty one (a NaN loss from step N, or at epoch E
where the script prints per epoch), pasted from the start and from the middle. None of them
prints a loss scale (accelerate's and Fabric's fp16 and the GradScalers print none).

Each script as repository ``file``: the format; the doctor's answer on the parent (ff74fba)
-> the right one ("=": the same):

- AAAAAAsuka/Impress ``train_text_to_image.py`` (diffusers, accelerate fp16): the ``Steps``
  bar ``..., lr=1e-5, step_loss=nan]`` behind carriage returns; AMP006 150 =, also from the
  middle and with 4 micro-batches a step.
- Abdoulaye-Sayouti/Afro-Fashion-Stable-Diffusion ``train_text_to_image.py``: the same, its
  ``Saving Done.....`` print glued to the bar's last redraw; AMP006 150 =, 250 = from the middle.
- Bili-Sakura/DiffusionSat ``train_text_to_image.py`` resumed from checkpoint-500, the bar
  counting from 0: AMP006 130 -> 630 (strict xfail).
- 065294847/aijobs ``train_dreambooth.py`` (ShivamShrirao's fork: a running average every 10
  steps, set before the bar's update, ``[*] Weights saved at ...``); AMP006 250 =, also from the
  middle.
- 12shuai/kl-dreambooth ``train_lora.py``: ``attn_loss=nan, loss=nan, lr=5e-6``; AMP006 230 =,
  also from the middle.
- 103410/UEMask ``train_dreambooth.py``: ``loss=nan, lr=5e-6`` and ``Saved state to ...``;
  AMP006 120 =, 220 = from the middle.
- AndyRylynn/ChatEvac ``train_controlnet.py`` (``initial=initial_global_step``, validation
  lines); AMP006 130 =, 730 = resumed at 500.
- 00why00/JoDiffusion ``train_ldm.py``: the same bar with ``step_loss``; AMP006 130 =, 230 =
  from the middle.
- AkuSax/FibLDM ``train_controlnet.py`` (GradScaler; console ``%(message)s`` and file
  formats): ``Epoch 3/6, Batch 20/50, Loss: nan`` every 10 batches, ``Epoch 4/6, Train Loss:
  nan, Val Loss: nan`` every 2 epochs; AMP006 120, AMP013 191 -> 190 (h51-steps52), also
  from the middle and in the file's format.
- ArchiMickey/VQGAN ``train_vqgan.py`` (Lightning Fabric 16-mixed, loguru): per epoch
  ``Epoch {epoch + 1}: ...| 30/120 [..., loss_g=nan, loss_d=nan]``; AMP006 270 -> 150 and
  420 -> 300 from the middle (strict xfails).
- 123-code/Diffusion-transformer ``train_dit.py``: a ``Latent shape: torch.Size([32, 128])``
  print each batch, ``Epoch 5/20, Avg Loss: nan``; AMP006 5 =, also from the middle.
- Anonymous-Code-source/Phy-Tac ``train_ldm.py`` (GradScaler): ``train@{step}`` bars with
  ``loss=nan``, ``[val] step=... PSNR=...`` through ``tqdm.write``; AMP006 420 =; 120 -> 420
  from the middle (strict xfail).
- 2024yuva/multi-crop ``train_vae.py``: ``  batch 100 | loss=nan | recon=nan | kl=nan`` at
  batch 1 and every 100, ``Epoch 1/5 | Train Loss: nan | Reconstruction Loss: nan | KL Loss:
  nan``; AMP006 200, AMP013 301 -> AMP006 200; in epoch 3 AMP006 898, AMP013 1098 -> AMP006
  700; 499, 699 -> 700 from epoch 2's batches (strict xfail: now 400).
- 1755kdd/cLDGC ``train_diffusion.py``: ``Dataset: cora | Epoch 1300 | Loss: nan`` every 100;
  AMP006 1300 =, also from the middle.
- 3365538768/storyline11_2 ``train_diffusion.py`` (AudioLDM): bare epoch bars, ``Epoch 4/10 -
  Average Loss: nan``; AMP006 4 =; 7 = from the middle (the epoch then; the run's batches,
  240 and 420, since h56-convention56).
- 614happy/PG-AFNO-precipitation-reconstruction ``train_unet.py``: ``Epoch 05 | train_mse=nan
  | valid_mse=nan``; AMP006 5, AMP013 5 =; 9, 9 = from the middle.
- BaolinSun/ning ``train_vqgan.py`` (autoencoder and discriminator by turns, no step printed):
  ``[Train] Epoch: 1, aeloss: nan, rec_loss: nan disc_loss: nan, ...`` every 10 steps and
  ``[Validation] ...`` rows; AMP006 26, AMP013 40 = (rows); 14, 28 = from the middle.
- 2yejin2/OOD-generation ``train_vae.py``: ``Epoch : [3/4] [70/469]  Train Loss : nan Time :
  ...`` and ``Validation ========== Epoch : 3/4 Validation Loss : nan``; AMP006 99, AMP013 138
  (rows) -> AMP006 1008, AMP013 1398; 43, 82 -> the same from the middle.

Healthy, with settings other than the defaults (24 excerpts, 6 of them pasted from the middle):
no false alarm on any, before or after; right (silent, read without error) on all 24.
Faulty (38 excerpts): right on 29 before (76%), 33 after (87%); the 5 left wrong are held by
strict xfails (a resumed bar counting from 0, a 1-based epoch bar read as Lightning's twice, a
bar described with the run's step, an epoch's batches pasted before their summary).

Fixed here, each by a rule of layout:

- A line that prints its loss keys once more reads the rest as the held-out set only where the
  FIRST loss key comes again (CenterNet's ``loss ... | hm_loss ... | loss nan | ...``); two
  terms that the key reader shortened to the same noun (``Reconstruction Loss``, ``KL Loss``:
  both ``Loss``) beside ``Train Loss`` are the training loss's terms (metric_pairs.py).
- An epoch's batch counter from 1 printed at batch 1 and on its interval's grid (``1, 100,
  200, 300`` then ``1``) ends its epoch at its last print, not ``interval - first`` later
  (step_layouts.epoch_length, used by both epoch counters; ``1, 21, ..., 81`` and a run's
  grid, CycleGAN's ``1000`` then ``33``, keep the old reading).
- An epoch's colon may stand a blank off its key: ``Epoch : [3/4] [70/469]`` is read as
  ``Epoch: [3/4] [70/469]`` (step_layouts.EPOCH_ITER).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults

NAN = float("nan")
_ACCELERATE = "12/07/2026 10:{:02d}:{:02d} - INFO - __main__ - "


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def _num(value: float) -> str:
    """tqdm's ``format_num`` (``'{0:.3g}'`` with the exponent's zero dropped, where shorter
    than ``str``), as ``set_postfix`` writes each number."""
    short = f"{value:.3g}".replace("+0", "+").replace("-0", "-")
    return short if len(short) < len(str(value)) else str(value)


def _bar(desc: str, n: int, total: int | None, postfix: str = "") -> str:
    """One redraw of a tqdm bar (``{desc}: {percentage:3.0f}%|{bar}| {n}/{total} [{elapsed}<
    {remaining}, {rate}{postfix}]``; an unknown total draws ``{n}it [...]``)."""
    tail = f", {postfix}" if postfix else ""
    if total is None:
        return f"{desc}: {n}it [01:02,  2.31it/s{tail}]"
    filled = 10 * n // max(total, 1)
    return (f"{desc}: {100 * n // max(total, 1):3d}%|{chr(0x2588) * filled}{' ' * (10 - filled)}| "
            f"{n}/{total} [01:02<07:40,  2.31it/s{tail}]")


def _mid(lines: list[str], redraws: int) -> list[str]:
    """``lines`` pasted from the middle of the run: from the first bar line (the header and
    what precedes it left out), less its first ``redraws`` redraws."""
    first = next(i for i, line in enumerate(lines) if "\r" in line)
    return [lines[first].split("\r", redraws)[-1], *lines[first + 1:]]


def _accelerate_header(total: int, accumulation: int = 1, examples: int = 833,
                       batch: int = 1) -> list[str]:
    """diffusers' ``***** Running training *****`` block through accelerate's logger
    (``logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
    datefmt="%m/%d/%Y %H:%M:%S")``)."""
    said = ["***** Running training *****", f"  Num examples = {examples}",
            f"  Num Epochs = {max(1, total * accumulation * batch // max(examples, 1))}",
            f"  Instantaneous batch size per device = {batch}",
            "  Total train batch size (w. parallel, distributed & accumulation) = "
            f"{batch * accumulation}", f"  Gradient Accumulation steps = {accumulation}",
            f"  Total optimization steps = {total}"]
    return [_ACCELERATE.format(0, i) + text for i, text in enumerate(said)]


def _steps_bar(total: int, postfix: Callable[[int], str], every: int,
               note: Callable[[int], str], start: int = 0) -> list[str]:
    """diffusers' ``Steps`` bar from step ``start + 1`` to ``total`` (its count the run's step),
    ``postfix(step)`` after each update, and the line ``note(step)`` logs every ``every``
    steps (the bar's redraws so far end there)."""
    out: list[str] = []
    segments: list[str] = []
    for step in range(start + 1, total + 1):
        segments.append(_bar("Steps", step, total, postfix(step)))
        if step % every == 0:
            out += ["\r".join(segments), note(step)]
            segments = []
    return [*out, "\r".join(segments)] if segments else out


def text_to_image(bad: int | None = None, total: int = 400, accumulation: int = 1,
                  lr: float = 1e-05, seed: int = 1, saving: int | None = None,
                  start: int = 0) -> list[str]:
    """AAAAAAsuka/Impress ``train_text_to_image.py`` (diffusers' example, accelerate,
    ``--mixed_precision fp16``): the header, then ``progress_bar = tqdm(range(global_step,
    args.max_train_steps))``, ``set_description("Steps")`` and after every micro-batch
    ``progress_bar.set_postfix(**{"step_loss": loss.detach().item(), "lr": ...})`` (the
    bar's count is the optimizer step), each redraw behind a carriage return as a redirected
    stderr holds it. ``saving``: Abdoulaye-Sayouti/Afro-Fashion-Stable-Diffusion's copy, whose
    ``print('Saving Done.....')`` every ``checkpointing_steps`` goes to stdout and lands after
    the bar's last redraw (``2>&1``). ``start``: Bili-Sakura/DiffusionSat's copy resumed
    (``accelerator.print(f"Resuming from checkpoint {path}")``), whose skip of the steps done
    is commented out: the bar over ``range(global_step, max_train_steps)`` counts from 0
    while the run's step goes on from ``start`` (``bad`` is the run's step)."""
    rng = random.Random(seed)
    out = _accelerate_header(total, accumulation)
    if start:
        out.append(f"Resuming from checkpoint checkpoint-{start}")
    segments: list[str] = []
    for step in range(start + 1, total + 1):
        for _ in range(accumulation):
            loss = _loss(bad, step, rng.expovariate(8.0))
            segments.append(_bar("Steps", step - start, total - start,
                                 f"lr={_num(lr)}, step_loss={_num(loss)}"))
        if saving and step % saving == 0:
            out.append("\r".join(segments) + "Saving Done.....")
            segments = []
    if segments:
        out.append("\r".join(segments))
    return out


def shivam_dreambooth(bad: int | None = None, total: int = 600, every: int = 10,
                      save: int = 200, lr: float = 5e-06, seed: int = 2) -> list[str]:
    """065294847/aijobs ``train_dreambooth.py`` (ShivamShrirao's DreamBooth fork): the header,
    ``tqdm(range(args.max_train_steps))`` with ``set_description("Steps")``; every
    ``log_interval`` steps, BEFORE ``progress_bar.update(1)``, ``set_postfix(**{"loss":
    loss_avg.avg.item(), "lr": ...})`` where ``loss_avg`` is an ``AverageMeter`` never reset
    (a NaN stays in the average); ``print(f"[*] Weights saved at {save_dir}")`` every
    ``save_interval``. ``bad`` is the 0-based ``global_step`` whose loss is NaN first."""
    rng = random.Random(seed)
    out = _accelerate_header(total)
    segments: list[str] = []
    total_loss, postfix = 0.0, ""
    for step in range(total):
        total_loss += _loss(bad, step, 0.05 + rng.expovariate(10.0))
        if step % every == 0:
            postfix = f"loss={_num(total_loss / (step + 1))}, lr={_num(lr)}"
            segments.append(_bar("Steps", step, total, postfix))
        if step > 0 and step % save == 0:
            out.append("\r".join(segments))
            out.append(f"[*] Weights saved at output/{step}")
            segments = []
        segments.append(_bar("Steps", step + 1, total, postfix))
    out.append("\r".join(segments))
    out.append(f"[*] Weights saved at output/{total}")
    return out


def attention_lora(bad: int | None = None, total: int = 400, lr: float = 5e-06,
                   weight: float = 1e-2, seed: int = 6) -> list[str]:
    """12shuai/kl-dreambooth ``train_lora.py`` (Break-A-Scene's attention loss over LoRA):
    the ``Steps`` bar over ``range(global_step, max_train_steps)`` with ``logs = {}`` each
    batch, ``logs["attn_loss"]`` where ``lambda_attention != 0`` (a mask normalised by its
    maximum: NaN where a token's attention is 0 everywhere), then ``logs["loss"]`` (the total,
    the attention term added) and ``logs["lr"]``: ``set_postfix(**logs)`` sorts them;
    ``Saved state to ...`` every ``checkpointing_steps`` (500)."""
    rng = random.Random(seed)

    def postfix(step: int) -> str:
        attn = _loss(bad, step, weight * rng.uniform(0.5, 1.5))
        return (f"attn_loss={_num(attn)}, loss={_num(attn + rng.expovariate(9.0))}, "
                f"lr={_num(lr)}")
    return [*_accelerate_header(total), *_steps_bar(
        total, postfix, 500,
        lambda step: _ACCELERATE.format(step % 60, 7) + f"Saved state to output/checkpoint-{step}")]


def uemask_dreambooth(bad: int | None = None, total: int = 300, checkpoint: int = 100,
                      lr: float = 5e-06, seed: int = 3) -> list[str]:
    """103410/UEMask ``train_dreambooth.py`` (diffusers' DreamBooth with cached latents): the
    header (``Num batches each epoch``), the ``Steps`` bar with ``set_postfix(**{"loss": ...,
    "lr": ...})`` after each update, ``logger.info(f"Saved state to {save_path}")`` every
    ``checkpointing_steps`` and ``print("Finish training")``."""
    rng = random.Random(seed)
    return [*_accelerate_header(total), *_steps_bar(
        total, lambda step: f"loss={_num(_loss(bad, step, rng.expovariate(6.0)))}, lr={_num(lr)}",
        checkpoint,
        lambda step: _ACCELERATE.format(step % 60, 5) + f"Saved state to output/checkpoint-{step}"),
        "Finish training"]


def controlnet(bad: int | None = None, total: int = 300, start: int = 0,
               validation: int = 100, lr: float = 1e-05, seed: int = 4,
               desc_key: str = "loss") -> list[str]:
    """AndyRylynn/ChatEvac ``train_controlnet.py`` (diffusers' ControlNet example): ``tqdm(
    range(0, args.max_train_steps), initial=initial_global_step, desc="Steps")`` (a resumed
    run counts on from its checkpoint), ``set_postfix(**{"loss": ..., "lr": ...})`` and
    ``log_validation``'s ``logger.info("Running validation... ")`` every ``validation_steps``.
    ``desc_key="step_loss"``: 00why00/JoDiffusion ``train_ldm.py``, the same bar with
    ``{"step_loss": ..., "lr": ...}``."""
    rng = random.Random(seed)

    def postfix(step: int) -> str:
        cells = {desc_key: _num(_loss(bad, step, rng.expovariate(9.0))), "lr": _num(lr)}
        return ", ".join(f"{k}={cells[k]}" for k in sorted(cells))
    resumed = [f"Resuming from checkpoint checkpoint-{start}"] if start else []
    return [*_accelerate_header(total), *resumed, *_steps_bar(
        total, postfix, validation,
        lambda step: _ACCELERATE.format(step % 60, 9) + "Running validation... ", start)]


def fibldm(bad: int | None = None, epochs: int = 6, batches: int = 50, val: int = 2,
           save: int = 3, to_file: bool = False) -> list[str]:
    """AkuSax/FibLDM ``train_controlnet.py`` (DDP, ``GradScaler`` and ``autocast``): its
    console handler ``logging.Formatter('%(message)s')`` (``to_file``: the file handler's
    ``'%(asctime)s - %(levelname)s - %(message)s'``), ``f"Epoch {epoch+1}/{args.num_epochs},
    Batch {batch_idx}/{len(train_loader)}, Loss: {loss.item():.6f}"`` every 10 batches,
    ``f"Epoch {epoch+1}/{n}, Train Loss: {...:.6f}, Val Loss: {...:.6f}"`` every
    ``val_interval`` epochs and ``Saved checkpoint to ...``; ``bad`` counts batches over the
    run."""
    def log(msg: str, level: str = "INFO") -> str:
        stamp = f"2026-12-07 10:{len(out) % 60:02d}:11,408 - {level} - "
        return (stamp if to_file else "") + msg
    out: list[str] = []
    out += [log("[Rank 0] Starting ControlNet training with 4 GPUs"),
            log("[Rank 0] Loading pre-trained models..."), log("[Rank 0] Loading dataset..."),
            log("[Rank 0] Starting ControlNet training...")]
    for e in range(epochs):
        total = 0.0
        for b in range(batches):
            loss = _loss(bad, e * batches + b, 0.21 - (e * batches + b) / 5000)
            total += loss
            if b % 10 == 0:
                out.append(log(f"Epoch {e + 1}/{epochs}, Batch {b}/{batches}, Loss: "
                               f"{loss:.6f}"))
        if (e + 1) % val == 0:
            out.append(log(f"Epoch {e + 1}/{epochs}, Train Loss: {total / batches:.6f}, "
                           f"Val Loss: {total / batches + 0.01:.6f}"))
        if (e + 1) % save == 0:
            out.append(log(f"Saved checkpoint to model_runs/controlnet_run_1/"
                           f"controlnet_epoch_{e + 1}.pth"))
    return out


def vqgan_fabric(bad: int | None = None, epochs: int = 3, batches: int = 120,
                 lr: float = 4.5e-06, batch: int = 8) -> list[str]:
    """ArchiMickey/VQGAN ``train_vqgan.py`` (Lightning Fabric, ``precision="16-mixed"``):
    rich's ``Config:`` dict, Fabric's ``Using 16bit Automatic Mixed Precision (AMP)`` and
    ``Seed set to 42``, loguru's ``{time} | INFO     | {name}:{function}:{line} - {message}``
    (``Setting learning rate to {lr} * {ratio} = {lr * ratio}``, ``Start using
    discriminator at step {global_step}``) and per epoch ``tqdm(dataloader, desc=f"Epoch
    {epoch + 1}")`` with ``set_postfix({"loss_g": 0, "loss_d": 0})`` first, then ``{"loss_g":
    ..., "loss_d": ...}`` in that order after each batch (the count is the batch index);
    ``bad`` counts batches over the run."""
    out = ["Config:", "{'model': {'codebook_size': 1024, 'latent_dim': 256}, "
           f"'train_params': {{'batch_size': {batch}, 'precision': '16-mixed'}}}}",
           "Using 16bit Automatic Mixed Precision (AMP)", "Seed set to 42",
           f"2026-12-07 10:00:03.512 | INFO     | __main__:train_vqgan:41 - Setting learning "
           f"rate to {lr} * {batch} = {lr * batch}"]
    for e in range(epochs):
        segments = [_bar(f"Epoch {e + 1}", 0, batches, "loss_g=0, loss_d=0")]
        for b in range(batches):
            at = e * batches + b
            if at == 100:
                out.append("\r".join(segments))
                segments = []
                out.append("2026-12-07 10:02:41.077 | INFO     | __main__:train_vqgan:75 - "
                           "Start using discriminator at step 100")
            g = _loss(bad, at, 0.9 - at / 1000)
            d = _loss(bad, at, 0.69 if at >= 100 else 0.0)
            segments.append(_bar(f"Epoch {e + 1}", b, batches,
                                 f"loss_g={_num(g)}, loss_d={_num(d)}"))
        segments.append(_bar(f"Epoch {e + 1}", batches, batches,
                             f"loss_g={_num(g)}, loss_d={_num(d)}"))
        out.append("\r".join(segments))
    return out


def latent_dit(bad: int | None = None, epochs: int = 8, batches: int = 40) -> list[str]:
    """123-code/Diffusion-transformer ``train_dit.py``: ``print(f"Latent shape: {z.shape}")``
    for every batch (a debug line: ``torch.Size([32, 128])``), then ``print(f"Epoch
    {epoch+1}/20, Avg Loss: {avg_loss:.4f}")``; ``bad`` is the 1-based epoch whose average
    is NaN first (the script prints 1563 batches an epoch: fewer here)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        out += ["Latent shape: torch.Size([32, 128])"] * batches
        out.append(f"Epoch {e}/20, Avg Loss: {_loss(bad, e, 0.95 - e / 40):.4f}")
    return out


def phy_tac(bad: int | None = None, max_steps: int = 900, batches: int = 300,
            val_every: int = 250, save_every: int = 500, seed: int = 5) -> list[str]:
    """Anonymous-Code-source/Phy-Tac ``train_ldm.py`` (``torch.amp.GradScaler`` and
    ``autocast``): per pass over the loader ``tqdm(dl_tr, desc=f"train@{step}",
    leave=False)`` with ``itr.set_postfix_str(f"loss={loss.item():.4f}")`` (the count is the
    batch within the pass, the description the run's step at its start), and through
    ``tqdm.write`` ``[val] step={step} loss=... PSNR=... SSIM=... MAE=... RMSE=... LPIPS=...
    CRIT=...``, ``[save] best -> ... (crit=...)`` and ``[save] {path}``; GradScaler skips
    the NaN steps, so the weights (and the evaluation) stay finite; ``bad`` is the run's
    step."""
    rng = random.Random(seed)
    out: list[str] = []
    step = 0
    while step < max_steps:
        desc, segments = f"train@{step}", []
        for b in range(batches):
            loss = _loss(bad, step, 0.08 + rng.expovariate(40.0))
            segments.append(_bar(desc, b, batches, f"loss={loss:.4f}"))
            if step % val_every == 0 and step > 0:
                out.append("\r".join(segments))
                segments = []
                psnr = 24.0 + step / 300
                out.append(f"[val] step={step} loss={0.09 - step / 1e5:.4f} PSNR={psnr:.2f} "
                           f"SSIM=0.8123 MAE=0.0312 RMSE=0.0456 LPIPS=0.1234 "
                           f"CRIT={100 - psnr + 12.34:.3f}")
            if step % save_every == 0 and step > 0:
                out.append("\r".join(segments))
                segments = []
                out.append(f"[save] runs/ldm/ckpt_{step}.pt")
            step += 1
            if step >= max_steps:
                break
        out.append("\r".join([*segments, "\r" + " " * 60]))
    out.append("[done] saved runs/ldm/ckpt_final.pt")
    return out


def crop_vae(bad: int | None = None, epochs: int = 5, batches: int = 300) -> list[str]:
    """2024yuva/multi-crop ``train_vae.py``: ``Device: ...``, ``Train samples: ...``, then
    ``f"  batch {batch_index} | loss={...:.4f} | recon={...:.4f} | kl={...:.4f}"`` at batch 1
    and every 100 (``enumerate(loader, start=1)``, restarting each epoch), ``f"Epoch
    {epoch}/{args.epochs} | Train Loss: ... | Reconstruction Loss: ... | KL Loss: ..."`` and
    ``Saved reconstruction preview: ...``; ``bad`` counts batches over the run (1-based)."""
    out = ["Device: cuda", f"Train samples: {batches * 32}", "Validation samples: 2400",
           f"Training epochs: {epochs}"]
    for e in range(1, epochs + 1):
        for b in range(1, batches + 1):
            at = (e - 1) * batches + b
            if b == 1 or b % 100 == 0:
                loss = _loss(bad, at, 0.071 - at / 60000)
                out.append(f"  batch {b} | loss={loss:.4f} | recon={loss * 0.9:.4f} | "
                           f"kl={loss * 0.1:.4f}")
        mean = _loss(bad, e * batches, 0.07 - e / 1000)
        out += [f"Epoch {e}/{epochs} | Train Loss: {mean:.4f} | Reconstruction Loss: "
                f"{mean * 0.9:.4f} | KL Loss: {mean * 0.1:.4f}",
                f"Saved reconstruction preview: checkpoints/vae_reconstructions/epoch_{e:02d}"
                ".png"]
    return [*out, "Saved trained VAE: checkpoints/vae_encoder.pth"]


def graph_diffusion(bad: int | None = None, epochs: int = 3000, dataset: str = "cora"
                    ) -> list[str]:
    """1755kdd/cLDGC ``train_diffusion.py``: ``Using device: ...`` and every 100 "epochs"
    (one batch each) ``f"Dataset: {dataset_name} | Epoch {epoch} | Loss: {loss.item():.4f}"``
    from epoch 0."""
    return ["Using device: cuda", *[
        f"Dataset: {dataset} | Epoch {e} | Loss: {_loss(bad, e, 1.9 - e / 2000):.4f}"
        for e in range(0, epochs, 100)]]


def audio_ldm(bad: int | None = None, epochs: int = 10, batches: int = 60) -> list[str]:
    """3365538768/storyline11_2 ``train_diffusion.py`` (AudioLDM): per epoch a bare ``tqdm(
    dataloader, desc=f"Epoch {epoch}/{epochs}")`` (no postfix), then ``f"Epoch
    {epoch}/{epochs} - Average Loss: {avg_loss:.6f}"`` and ``Model saved to ...``; ``bad``
    is the 1-based epoch."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        out.append("\r".join(_bar(f"Epoch {e}/{epochs}", n, batches)
                             for n in range(0, batches + 1, 6)))
        out += [f"Epoch {e}/{epochs} - Average Loss: {_loss(bad, e, 0.31 - e / 100):.6f}",
                f"Model saved to checkpoints/latent_diffusion_epoch_{e}.pth"]
    return [*out, "Training completed."]


def weather_unet(bad: int | None = None, epochs: int = 12, batches: int = 200) -> list[str]:
    """614happy/PG-AFNO-precipitation-reconstruction ``train_unet.py``: its ``Logger.write``
    prints ``Device: ...``, per epoch ``f"Epoch {epoch + 1:02d} | train_mse={...:.6f} |
    valid_mse={...:.6f}"`` after a ``tqdm(..., desc=f"Epoch {epoch + 1:02d}", leave=False)``
    bar (cleared at its end), and ``Best epoch: ...``, ``Test MSE: ...`` at the end; ``bad``
    is the 1-based epoch (no AMP: a NaN step leaves NaN weights, the validation NaN too)."""
    out = ["Device: cuda"]
    for e in range(1, epochs + 1):
        out.append("\r".join([*(_bar(f"Epoch {e:02d}", n, batches)
                                for n in range(0, batches + 1, 25)), " " * 70 + "\r"]))
        train = _loss(bad, e, 0.012 - e / 5000)
        out.append(f"Epoch {e:02d} | train_mse={train:.6f} | valid_mse={train + 0.001:.6f}")
    best = min(epochs, (bad or epochs + 1) - 1)
    return [*out, f"Best epoch: {best}", "Test MSE: 0.009876",
            "Saved results to: path/to/output/unet_baseline/results_unet.txt"]


def us_vqgan(bad: int | None = None, epochs: int = 3, steps: int = 200,
             val_batches: int = 30) -> list[str]:
    """BaolinSun/ning ``train_vqgan.py`` (an autoencoder and its discriminator stepped by
    turns): every 10 global steps ``logger.info`` of ``'[Train] Epoch: {}, aeloss: {:.4f},
    rec_loss: {:.4f}'`` joined with ``' disc_loss: {:.4f}, logits_real: {:.4f}, logits_fake:
    {:.4f}'`` (the epoch from 0, no step), ``'[Validation] Epoch: {}, aeloss: ..., rec_loss:
    ...'`` every 10 validation batches and ``'current res loss: ... in top-3, best rec loss:
    [...], saving model'``; the repository's ``ning/logger.py`` (``create_logger``) is not
    in the index, so the messages stand bare. ``bad`` is the global step."""
    out: list[str] = []
    gs = 0
    for e in range(epochs):
        for _ in range(steps):
            if (gs + 1) % 10 == 0:
                ae = _loss(bad, gs, 0.41 - gs / 4000)
                out.append(f"[Train] Epoch: {e}, aeloss: {ae:.4f}, rec_loss: {ae * 0.8:.4f} "
                           f"disc_loss: {_loss(bad, gs, 0.6931):.4f}, logits_real: "
                           f"{_loss(bad, gs, 0.0123):.4f}, logits_fake: "
                           f"{_loss(bad, gs, -0.0234):.4f}")
            gs += 1
        for _ in range(0, val_batches, 10):
            v = _loss(bad, gs, 0.38 - gs / 5000)
            out.append(f"[Validation] Epoch: {e}, aeloss: {v:.4f}, rec_loss: {v * 0.8:.4f}")
        if bad is None or gs < bad:
            out.append(f"current res loss: {0.3 - e / 100:.4f} in top-3, best rec loss: "
                       f"[{0.3 - e / 100:.4f}], saving model")
    return out


def ood_vae(bad: int | None = None, epochs: int = 4, batches: int = 469) -> list[str]:
    """2yejin2/OOD-generation ``train_vae.py``: every 10 batches (not 0) ``'Epoch : [{0}/{1}]
    [{2}/{3}]  Train Loss : {loss.avg:.4f} Time : {time:.4f}'`` (an ``AverageMeter`` reset
    each epoch), then ``'\\nValidation ========== Epoch : {0}/{1} Validation Loss :
    {loss.avg:.4f} \\n'`` (blank lines around it) and at the end ``Process complete``;
    ``bad`` counts batches over the run (0-based); no AMP, so a NaN step leaves NaN weights."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        total = 0.0
        for i in range(batches):
            at = (e - 1) * batches + i
            total += _loss(bad, at, 0.061 - at / 50000)
            if i % 10 == 0 and i != 0:
                out.append(f"Epoch : [{e}/{epochs}] [{i}/{batches}]  Train Loss : "
                           f"{total / (i + 1):.4f} Time : {1.2345 + i / 1e4:.4f}")
        val = _loss(bad, e * batches - 1, 0.058)
        out += ["", f"Validation ========== Epoch : {e}/{epochs} Validation Loss : {val:.4f} ",
                ""]
    return [*out, "Process complete"]


def _cut(lines: list[str], start: int) -> list[str]:
    """``lines`` pasted from line ``start`` on."""
    return lines[start:]


# Faulty excerpts and the right answer: (id, step) of each diagnosis, the step as the log
# prints it (a bar's count, a batch count over the epochs, an epoch; rows where no step is
# printed) and, for AMP013, where the doctor places an evaluation row (after the last training
# count read before it, as the earlier samples count it).
CASES: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]]]] = {
    "impress": (lambda: text_to_image(150), [("AMP006", 150)]),
    "impress_from_the_middle": (lambda: _mid(text_to_image(150), 60), [("AMP006", 150)]),
    "impress_accumulating": (lambda: text_to_image(150, accumulation=4), [("AMP006", 150)]),
    "afro_fashion": (lambda: text_to_image(150, saving=100), [("AMP006", 150)]),
    "afro_fashion_from_the_middle": (lambda: _mid(text_to_image(250, saving=100)[8:], 30),
                                     [("AMP006", 250)]),
    "shivam_dreambooth": (lambda: shivam_dreambooth(250), [("AMP006", 250)]),
    "shivam_dreambooth_from_the_middle": (lambda: _mid(shivam_dreambooth(250)[8:], 20),
                                          [("AMP006", 250)]),
    "attention_lora": (lambda: attention_lora(230), [("AMP006", 230)]),
    "attention_lora_from_the_middle": (lambda: _mid(attention_lora(230), 120),
                                       [("AMP006", 230)]),
    "uemask": (lambda: uemask_dreambooth(120), [("AMP006", 120)]),
    "uemask_from_the_middle": (lambda: _mid(uemask_dreambooth(220)[9:], 50), [("AMP006", 220)]),
    "controlnet": (lambda: controlnet(130), [("AMP006", 130)]),
    "controlnet_resumed": (lambda: controlnet(730, total=1000, start=500), [("AMP006", 730)]),
    "jodiffusion": (lambda: controlnet(130, desc_key="step_loss"), [("AMP006", 130)]),
    "jodiffusion_from_the_middle": (lambda: _mid(controlnet(230, desc_key="step_loss")[9:], 40),
                                    [("AMP006", 230)]),
    # the validation after epoch 4's last batch printed (190; 191 until h51-steps52's
    # epoch_summaries, the epoch's ``Train Loss`` summary counted as a step of its own)
    "fibldm": (lambda: fibldm(120), [("AMP006", 120), ("AMP013", 190)]),
    "fibldm_from_the_middle": (lambda: fibldm(170)[12:], [("AMP006", 170), ("AMP013", 190)]),
    "fibldm_file": (lambda: fibldm(120, to_file=True), [("AMP006", 120), ("AMP013", 190)]),
    "latent_dit": (lambda: latent_dit(5), [("AMP006", 5)]),
    "latent_dit_from_the_middle": (lambda: latent_dit(5)[100:], [("AMP006", 5)]),
    "phy_tac": (lambda: phy_tac(420), [("AMP006", 420)]),
    "crop_vae": (lambda: crop_vae(200), [("AMP006", 200)]),
    "crop_vae_epoch_3": (lambda: crop_vae(700), [("AMP006", 700)]),
    # pasted from epoch 2's batches: its ``Epoch 2/5 | Train Loss ...`` summary after them
    # says two epochs ended (h52-epochbars; the parent counted the excerpt's passes: 400)
    "crop_vae_from_the_middle": (lambda: crop_vae(700)[10:], [("AMP006", 700)]),
    "graph_diffusion": (lambda: graph_diffusion(1250), [("AMP006", 1300)]),
    "graph_diffusion_from_the_middle": (lambda: graph_diffusion(1250)[8:], [("AMP006", 1300)]),
    # The run's batches, 4 x 60 and 7 x 60: these held the epoch (4; 7) until
    # h56-convention56, which reads an ``Epoch 4/10`` label on a bare bar at its total as it
    # reads an epoch heading over one (the step is the run's batches where a bar's total is
    # known: docs/doctor-reading.md).
    "audio_ldm": (lambda: audio_ldm(4), [("AMP006", 240)]),
    "audio_ldm_from_the_middle": (lambda: audio_ldm(7)[9:], [("AMP006", 420)]),
    "weather_unet": (lambda: weather_unet(5), [("AMP006", 5), ("AMP013", 5)]),
    "weather_unet_from_the_middle": (lambda: weather_unet(9)[8:],
                                     [("AMP006", 9), ("AMP013", 9)]),
    "us_vqgan": (lambda: us_vqgan(255), [("AMP006", 26), ("AMP013", 40)]),
    "us_vqgan_from_the_middle": (lambda: us_vqgan(255)[12:], [("AMP006", 14), ("AMP013", 28)]),
    "ood_vae": (lambda: ood_vae(1000), [("AMP006", 1008), ("AMP013", 1398)]),
    "ood_vae_from_the_middle": (lambda: ood_vae(1000)[60:],
                                [("AMP006", 1008), ("AMP013", 1398)]),
}

# The right answers the doctor does not give (strict xfails below).
NOT_FIXED: dict[str, tuple[Callable[[], list[str]], list[tuple[str, int | None]], str]] = {
    "diffusionsat_resumed": (
        lambda: text_to_image(630, total=1000, start=500), [("AMP006", 630)],
        "a bar over range(global_step, max) counts from 0 after 'Resuming from checkpoint "
        "checkpoint-500' (its total, 500, is the run's 1000 less the checkpoint's): the doctor "
        "reads the bar's count, 130"),
    "vqgan_fabric": (
        lambda: vqgan_fabric(150), [("AMP006", 150)],
        "an 'Epoch 2:  25%|...| 30/120' bar is read as Lightning's (epochs from 0): 270; "
        "this loop's description is epoch + 1 (its first bar is 'Epoch 1' at 0/120)"),
    "vqgan_fabric_from_the_middle": (
        lambda: vqgan_fabric(300)[6:], [("AMP006", 300)],
        "as above: 420 (epoch 3's bar at 60/120 read as the fourth epoch)"),
    "phy_tac_from_the_middle": (
        lambda: phy_tac(420)[3:], [("AMP006", 420)],
        "a bar described 'train@300' (the run's step at its pass's start) over the batches of "
        "the pass: the doctor reads the bar's count alone, 120"),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "impress": lambda: text_to_image(total=500, accumulation=2, lr=2e-6, seed=9),
    "diffusionsat_resumed": lambda: text_to_image(total=900, start=300, lr=5e-5, seed=11),
    "afro_fashion": lambda: text_to_image(total=500, lr=1e-4, saving=50, seed=8),
    "shivam_dreambooth": lambda: shivam_dreambooth(total=800, every=5, save=250, lr=1e-6),
    "attention_lora": lambda: attention_lora(total=1200, lr=1e-5, weight=5e-3),
    "attention_lora_from_the_middle": lambda: _mid(
        attention_lora(total=1200, lr=1e-5, weight=5e-3), 300),
    "uemask": lambda: uemask_dreambooth(total=500, checkpoint=50, lr=2e-6, seed=7),
    "controlnet_resumed": lambda: controlnet(total=2000, start=1500, validation=250, lr=5e-5),
    "jodiffusion": lambda: controlnet(total=600, validation=50, lr=1e-4, desc_key="step_loss"),
    "fibldm": lambda: fibldm(epochs=12, batches=80, val=3, save=4),
    "fibldm_file": lambda: fibldm(epochs=12, batches=80, val=3, save=4, to_file=True),
    "vqgan_fabric": lambda: vqgan_fabric(epochs=4, batches=90, lr=1e-5, batch=16),
    "vqgan_fabric_from_the_middle": lambda: vqgan_fabric(epochs=4, batches=90, lr=1e-5,
                                                         batch=16)[5:],
    "latent_dit": lambda: latent_dit(epochs=20, batches=15),
    "phy_tac": lambda: phy_tac(max_steps=2000, batches=400, val_every=400, save_every=800),
    "phy_tac_from_the_middle": lambda: phy_tac(max_steps=2000, batches=400, val_every=400,
                                               save_every=800)[4:],
    "crop_vae": lambda: crop_vae(epochs=8, batches=400),
    "crop_vae_from_the_middle": lambda: crop_vae(epochs=8, batches=400)[12:],
    "graph_diffusion": lambda: graph_diffusion(epochs=5000, dataset="citeseer"),
    "audio_ldm": lambda: audio_ldm(epochs=15, batches=90),
    "weather_unet": lambda: weather_unet(epochs=30, batches=150),
    "us_vqgan": lambda: us_vqgan(epochs=5, steps=300, val_batches=50),
    "ood_vae": lambda: ood_vae(epochs=6, batches=235),
    "ood_vae_from_the_middle": lambda: ood_vae(epochs=6, batches=235)[40:],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_faulty_excerpts(tmp_path: Path, name: str) -> None:
    """The ids and steps of each faulty excerpt (the parent's answers: the module's table)."""
    build, expected = CASES[name]
    assert faults(tmp_path, build()) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_excerpts_are_silent(tmp_path: Path, name: str) -> None:
    """Controls: silent, read without error (on the parent too)."""
    assert faults(tmp_path, HEALTHY[name]()) == []


@pytest.mark.parametrize("name", sorted(NOT_FIXED))
def test_not_fixed(tmp_path: Path, name: str, request: pytest.FixtureRequest) -> None:
    """The right answers the doctor does not give yet, each a strict xfail with its reason."""
    build, expected, reason = NOT_FIXED[name]
    request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    assert faults(tmp_path, build()) == expected
