"""A twenty-third random sample: training scripts named for what they train (detection, an
LLM, super-resolution, denoising, a transformer, an LSTM), read as the held-out measure of #27
reads, at first sight (the doctor as it is at 0a269ab, no rule added: a measurement only): 6
scripts, drawn from the code index's listing of ``train_detection.py``, ``train_llm.py``,
``train_sr.py``, ``train_denoise.py``, ``train_transformer.py`` and ``train_lstm.py`` in the
order it gives them, the first of each that is not skipped. Skipped, and why: none named in
tests/logs already came first; 12415749/GeneCuit-AI ``train_llm.py`` prints one loss, after
training (``f"Training Complete! Final Loss: {loss.item():.4f}\\n"``): no run to read.

Each excerpt is built from the script's own format strings (one builder a script below, the
repository and file in its docstring) and tqdm's bar as its source prints it: a healthy run
with settings other than the defaults, from the start and from the middle, and two faulty
ones (a NaN loss from a step), pasted from the start and from the middle. None of the six
prints a loss scale or skipped steps (DL_baseline's ``GradScaler`` prints nothing; the rest
fp32 or bf16): no scale fault.

Each script as repository ``file``: the format; the doctor's answer at first sight (0a269ab)
-> the right one ("=": the same):

- 1494350447/SCFusion_Project ``train_detection.py``: an ``Epoch 5/24`` bar with ``loss=,
  box=, cls=`` running means, ``[2026-03-02 10:00:03,137] INFO: Epoch 5/24 Loss=nan ...
  LR=...``; AMP006 256 = (the run's batches); 558 = from the middle.
- 1x-technologies/1xgpt ``train_llm.py``: accelerate's ``... - INFO - __main__ - step 1500:
  perplexity: nan eval_loss: tensor(nan, device='cuda:0') eval_teacher_acc=0.0`` glued to
  the bar's last refresh, ``metrics={...}``; AMP013 1500 =; 2500 = from the middle. Healthy
  (both): "nothing to diagnose" (an error, no false alarm), held as strict xfails beside
  their silence.
- 1542118717-dotcom/HDR-Transformer-SR ``train_sr.py``: ``Train Epoch: 3 [800/1600 (50
  %)]\\tLoss: nan\\tTime: ...`` (a blank before ``%``), ``Validation set: Average Loss:
  nan``; AMP006 11, AMP013 12 (rows) -> 4000, 4400 (the run's samples, as the MNIST
  example's count is read); from the middle 11, 11 -> 7600, 7600 (strict xfails: step).
- Bobby645/Noise2Score3D ``train_denoise.py``: ``Epoch 4 (4/8):``, a bar without a
  description or postfix, ``Train Instance Loss: nan | Grad nan``, ``Test Loss: nan``;
  AMP006 4, AMP013 4 (rows counted: ``Epoch 4 (4/8):`` not read) -> 360, 360 (the run's
  batches: the bar reached 90/90); from the middle 5, 5 (rows) -> 540, 540 (strict xfails:
  step).
- 0-keun/DL_baseline ``train_transformer.py``: ``[37/100] Loss: nan``, ``❌ NaN/Inf detected
  at epoch 37. Training stopped.``; AMP006 37 =; 58 = from the middle.
- 0xmahmoudJo0/Cascaded-Stealth-Aware-ATTaCK-Path-Prediction ``train_lstm.py``: a
  ``Training`` bar with the batch's ``loss=nan``, ``Validation - Loss: nan, Top-1 Acc: ...``;
  AMP006 256, AMP013 280 =; 472, 480 = from the middle.

Healthy, with settings other than the defaults (12 excerpts, 6 of them pasted from the
middle): no false alarm on 12 of 12; silent and read on 10, the world model's 2 answered
"nothing to diagnose" (its evaluation rows alone not read as a run).
Faulty (12 excerpts): right at first sight on 8 (67%); the 4 misses: the super-resolution
script's 2 (step: rows where the run's samples are right) and the denoiser's 2 (step: rows
where the run's batches are right); none silent, no false alarm.
Now (h56-sample40's rules: ``EPOCH_SAMPLES`` allows a blank before ``%``; PointNet++'s
``Epoch N (E/T):`` heading is read, denpex_callbacks/logs/counted_epochs.py, and hands its
bare bar over): 12 of 12 faulty right; healthy 12 of 12 with no false alarm, 10 read and
silent, the world model's 2 still "nothing to diagnose" (strict xfails).
"Right": the ids, and the step as the log prints it (a step counter; the run's batches where
the log counts batches within an epoch or draws a bar an epoch; the run's samples where it
counts samples; an epoch where it prints only epochs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, alarms, check_listed, faults, nan_from, tqdm_bar

NAN = float("nan")


def _stamp(tick: int, sep: str = ",") -> str:
    """``logging``'s default ``asctime`` (``%Y-%m-%d %H:%M:%S`` and the milliseconds) of the
    ``tick``-th line, three seconds and a bit apart."""
    seconds = 3 * tick
    return (f"2026-03-02 {10 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
            f"{sep}{(tick * 137) % 1000:03d}")


def _num(value: float) -> str:
    """tqdm's ``format_num`` (``tqdm/std.py``): ``'{0:.3g}'`` where shorter than ``str``."""
    short = f"{value:.3g}".replace("+0", "+").replace("-0", "-")
    return short if len(short) < len(str(value)) else str(value)


def scfusion_det(bad: int | None = None, epochs: int = 24, batches: int = 58,
                 refresh: int = 6, save_interval: int = 8, lr: float = 2e-4) -> list[str]:
    """1494350447/SCFusion_Project ``train_detection.py`` (an RGB-thermal detector, fp32),
    its console: ``utils/logger.py``'s ``logging.Formatter('[%(asctime)s] %(levelname)s:
    %(message)s')``; ``f"Dataset loaded: {len(dataset)} samples, {dataset.num_classes}
    classes"``; each epoch a ``tqdm(loader, desc=f"Epoch {epoch + 1}/{cfg['epochs']}")`` bar
    with ``set_postfix({'loss': f"{running['loss'] / step:.4f}", 'box': ..., 'cls': ...})``
    (the epoch's running means; a file keeps its refreshes as ``\\r`` segments), then
    ``f"Epoch {epoch + 1}/{cfg['epochs']} Loss={...:.4f} Box={...:.4f} Cls={...:.4f}
    DFL={...:.4f} LR={optim.param_groups[0]['lr']:.6e}"`` (a cosine schedule to 1e-6), every
    ``save_interval`` epochs ``f"Checkpoint saved: {ckpt_path}"``; ``"Training completed!"``.
    ``bad`` is the first NaN batch of the run (from 1)."""
    tick = 0

    def log(message: str) -> str:
        nonlocal tick
        tick += 1
        return f"[{_stamp(tick)}] INFO: {message}"

    out = [log(f"Dataset loaded: {batches * 16} samples, 2 classes")]
    for e in range(epochs):
        run = {"loss": 0.0, "box": 0.0, "cls": 0.0, "dfl": 0.0}
        desc = f"Epoch {e + 1}/{epochs}"
        segs = [tqdm_bar(desc, 0, batches, rate=3.12)]
        for b in range(1, batches + 1):
            g = e * batches + b
            base = 2.9 * 0.985 ** g + 0.6 + 0.05 * (b % 4)
            run["loss"] += nan_from(bad, g, base)
            run["box"] += nan_from(bad, g, 0.4 * base)
            run["cls"] += nan_from(bad, g, 0.35 * base)
            run["dfl"] += nan_from(bad, g, 0.25 * base)
            if b % refresh == 0 or b == batches:
                post = (f", loss={run['loss'] / b:.4f}, box={run['box'] / b:.4f}, "
                        f"cls={run['cls'] / b:.4f}")
                segs.append(tqdm_bar(desc, b, batches, post, rate=3.12))
        out.append("\r".join(segs))
        rate = 1e-6 + (lr - 1e-6) * (1 + math.cos(math.pi * e / epochs)) / 2
        out.append(log(f"Epoch {e + 1}/{epochs} Loss={run['loss'] / batches:.4f} "
                       f"Box={run['box'] / batches:.4f} Cls={run['cls'] / batches:.4f} "
                       f"DFL={run['dfl'] / batches:.4f} LR={rate:.6e}"))
        if (e + 1) % save_interval == 0 or e + 1 == epochs:
            out.append(log(f"Checkpoint saved: checkpoints_det/ckpt_epoch_{e + 1}.pth"))
    return [*out, log("Training completed!")]


def onex_world_model(bad: int | None = None, steps: int = 3000, every: int = 500,
                     refresh: int = 100) -> list[str]:
    """1x-technologies/1xgpt ``train_llm.py`` (a Llama-style world model on video tokens,
    bf16 weights, no loss scale), its console: ``logging.basicConfig(format="%(asctime)s -
    %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S")`` through
    accelerate's ``get_logger(__name__)`` (``__main__``); ``logger.info(accelerator.state)``
    (accelerate's ``PartialState.__repr__``: ``Distributed environment: ...``, ``Num
    processes``, ``Process index``, ``Local process index``, ``Device``, then ``Mixed
    precision type``), ``"Training new model from scratch"``, ``accelerator.print("Assuming
    30 Hz data")``, the ``"***** Running training *****"`` block (``f"  Num examples =
    ..."``, ``Num Epochs``, ``Instantaneous batch size per device``, ``Total train batch size
    (w. parallel, distributed & accumulation)``, ``Gradient Accumulation steps``, ``Total
    optimization steps``); one ``tqdm(range(args.max_train_steps))`` bar without a
    description or postfix (the training loss goes to wandb only); every
    ``eval_every_n_steps`` the line ``f"step {completed_steps}: perplexity: {perplexity}
    eval_loss: {eval_loss} {eval_teacher_acc=}"`` (``eval_loss`` a CUDA tensor: its
    ``str``), written to stderr after the bar's last refresh on the same line (a file keeps
    both), then ``visualize``'s ``print(f"{metrics=}")`` for ``eval`` and ``train``. ``bad``
    is the first update step (from 1) whose weights are NaN."""
    stamp = "12/08/2026 10:{:02d}:{:02d}"
    head = [f"{stamp.format(0, 1)} - INFO - __main__ - Distributed environment: NO",
            "Num processes: 1", "Process index: 0", "Local process index: 0",
            "Device: cuda", "", "Mixed precision type: no", "",
            f"{stamp.format(0, 9)} - INFO - __main__ - Training new model from scratch",
            "Assuming 30 Hz data"]
    block = ["***** Running training *****", "  Num examples = 48000", "  Num Epochs = 1",
             "  Instantaneous batch size per device = 16",
             "  Total train batch size (w. parallel, distributed & accumulation) = 16",
             "  Gradient Accumulation steps = 1", f"  Total optimization steps = {steps}"]
    out = [*head, *(f"{stamp.format(1, 2)} - INFO - __main__ - {line}" for line in block)]
    segs = [tqdm_bar("", 0, steps, rate=2.31)]
    for s in range(1, steps + 1):
        if s % refresh == 0:
            segs.append(tqdm_bar("", s, steps, rate=2.31))
        if s % every == 0:
            loss = nan_from(bad, s, 5.2 * 0.9997 ** s + 2.1)
            ppl = math.exp(loss) if loss == loss else NAN
            acc = 0.0 if loss != loss else min(0.12 + s / 40000, 0.4)
            minutes = s // 60
            line = (f"{stamp.format(1 + minutes % 59, s % 60)} - INFO - __main__ - step {s}: "
                    f"perplexity: {ppl} eval_loss: tensor({loss:.4f}, device='cuda:0') "
                    f"eval_teacher_acc={acc}")
            segs[-1] += line
            lpips = NAN if loss != loss else 0.41 - s / 20000
            out += ["\r".join(segs), f"metrics={{'eval_pred_lpips': {lpips}}}",
                    f"metrics={{'train_pred_lpips': {lpips}}}"]
            segs = []
    if segs:
        out.append("\r".join(segs))
    return out


def hdr_sr(bad: int | None = None, epochs: int = 6, n_train: int = 1600, batch: int = 8,
           interval: int = 50, val: int = 15) -> list[str]:
    """1542118717-dotcom/HDR-Transformer-SR ``train_sr.py`` (HDR fusion with super-resolution,
    fp32): ``'===> Start training HDR-Transformer-SR'`` and its indented settings block; each
    epoch (from 1) every ``log_interval`` batches ``'Train Epoch: {} [{}/{} ({:.0f}
    %)]\\tLoss: {:.6f}\\tTime: {batch_time.val:.3f} ({batch_time.avg:3f})\\tData:
    {data_time.val:.3f} ({data_time.avg:3f})'`` (the count in samples:
    ``batch_idx * args.batch_size``), then the validation's ``tqdm(val_loader,
    total=len(val_loader))`` bar (no description) and ``'Validation set: Average Loss:
    {:.4f}'``, ``'Validation set: Average PSNR: {:.4f}, mu_law: {:.4f}'``. ``bad`` is the
    first NaN batch of the run (``(epoch - 1) * batches + batch_idx``)."""
    out = ["===> Start training HDR-Transformer-SR", "",
           "        Dataset dir:     ./data",
           "        Subset:          sig17_training_crop128_stride64",
           "        Scale:           4", f"        Epochs:          {epochs}",
           f"        Batch size:      {batch}", "        Loss function:   0",
           "        Learning rate:   0.0001", f"        Training size:   {n_train}",
           "        Device:          cuda", "        Save dir:        ./checkpoints_x4", "        "]
    batches = n_train // batch
    for epoch in range(1, epochs + 1):
        last = 0.0
        for b in range(batches):
            last = nan_from(bad, (epoch - 1) * batches + b, 0.09 * 0.999 ** (epoch * batches + b)
                            + 0.012 + 0.003 * (b % 5))
            if b % interval == 0:
                out.append(f"Train Epoch: {epoch} [{b * batch}/{n_train} "
                           f"({100.0 * b * batch / n_train:.0f} %)]\tLoss: {last:.6f}\t"
                           f"Time: {0.412 + 0.01 * (b % 3):.3f} ({0.418321:3f})\t"
                           f"Data: {0.021:.3f} ({0.023417:3f})")
        segs = [tqdm_bar("", n, val, rate=1.87) for n in range(0, val + 1, 5)]
        out.append("\r".join(segs))
        broken = last != last
        out += [f"Validation set: Average Loss: {NAN if broken else 0.0211 - epoch / 1e3:.4f}",
                f"Validation set: Average PSNR: {NAN if broken else 36.1 + epoch / 5:.4f}, "
                f"mu_law: {NAN if broken else 39.2 + epoch / 4:.4f}"]
    return out


_TORCH_WARNING = (
    "/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:224: UserWarning: "
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
    "later, you should call them in the opposite order: `optimizer.step()` before "
    "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
    "value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")


def noise2score(bad: int | None = None, epochs: int = 8, batches: int = 90, tests: int = 20,
                save_interval: int = 250, refresh: int = 15) -> list[str]:
    """Bobby645/Noise2Score3D ``train_denoise.py`` (self-supervised point-cloud denoising,
    fp32), its console (``log_string`` prints what it logs): ``'PARAMETERS ...'``, the
    arguments' ``Namespace``, ``'Loading dataset ...'``, ``'No existing model, starting
    training from scratch...'``; each epoch ``f'Epoch {global_epoch + 1} ({epoch +
    1}/{args.epoch}):'``, ``scheduler.step()`` before the first ``optimizer.step()`` (torch's
    ``lr_scheduler.py`` warning, once), a ``tqdm(enumerate(trainDataLoader, 0), total=...)``
    bar (no description, no postfix; every ``save_interval`` steps ``f'Saving model to
    {savepath}'`` after its refresh), ``print(noise_std)`` (a CUDA tensor), ``f'Train
    Instance Loss: {train_loss} | Grad {orig_grad_norm:.6f}'`` (the mean's ``repr``), the
    test's bar, ``f'Test Loss: {test_loss}'`` and where it is the best ``f'Saving to
    {savepath}'``. ``bad`` is the first NaN batch of the run (from 0)."""
    out = ["PARAMETERS ...",
           f"Namespace(use_cpu=False, gpu='0', batch_size=4, model='KPconv', num_category=40, "
           f"epoch={epochs}, learning_rate=5e-05, num_point=10000, optimizer='Adam', "
           f"log_dir='KPconv', decay_rate=1e-06, use_normals=False, process_data=False, "
           f"use_uniform_sample=False, save_interval={save_interval})",
           "Loading dataset ...", "No existing model, starting training from scratch..."]
    best = math.inf
    step = 0
    folder = "./log/denoise/KPconv/checkpoints"
    for e in range(epochs):
        out.append(f"Epoch {e + 1} ({e + 1}/{epochs}):")
        if e == 0:
            out += [_TORCH_WARNING, '  warnings.warn("Detected call of `lr_scheduler.step()` '
                    'before `optimizer.step()`. "']
        total = 0.0
        segs = [tqdm_bar("", 0, batches, rate=5.4)]
        grad = 0.0
        for b in range(batches):
            g = e * batches + b
            total += nan_from(bad, g, 0.0031 * 0.997 ** g + 0.0009 + 0.0002 * (b % 3))
            grad = nan_from(bad, g, 0.21 + 0.01 * (b % 7))
            step += 1
            if (b + 1) % refresh == 0 or b + 1 == batches:
                segs.append(tqdm_bar("", b + 1, batches, rate=5.4))
            if step % save_interval == 0:
                segs[-1] += f"Saving model to {folder}/model_step_{step}.pth"
                out.append("\r".join(segs))
                segs = []
        out.append("\r".join(segs))
        std = "nan, nan, nan, nan" if grad != grad else "0.0213, 0.0198, 0.0205, 0.0201"
        train = total / batches
        out += [f"tensor([{std}], device='cuda:0', grad_fn=<SqueezeBackward1>)",
                f"Train Instance Loss: {train} | Grad {grad:.6f}"]
        out.append("\r".join(tqdm_bar("", n, tests, rate=9.1) for n in range(0, tests + 1, 10)))
        test = NAN if train != train else 0.00041 + 0.00002 * (e % 3) - e / 1e6
        out.append(f"Test Loss: {test}")
        out += [f"Saving to {folder}/best_model.pth"] if test < best else []
        best = min(best, test)  # (a NaN is never below it: min keeps the best)
    return out


def fault_transformer(bad: int | None = None, epochs: int = 100, start: float = 1.1,
                      floor: float = 0.05) -> list[str]:
    """0-keun/DL_baseline ``train_transformer.py`` (a transformer classifying sensor windows
    under ``torch.amp`` autocast and ``GradScaler``, which prints no scale; its settings are
    hard-coded: 100 epochs, batch 32): ``print("sample distribution by class:", list)``
    (the list the labels' arrays extended: their floats), each epoch ``f"[{epoch+1}/100]
    Loss: {total_loss/len(train_loader):.8f}"``, and where the last batch's loss is NaN
    ``f"❌ NaN/Inf detected at epoch {epoch+1}. Training stopped."`` (then the loop ends).
    ``bad`` is the first NaN epoch (from 1); ``start`` and ``floor`` shape the healthy curve
    (the data's)."""
    out = ["sample distribution by class: [0, 0, 0, 0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, "
           "0.0, 0.0, 0.0, 0.0, 1.0]"]
    for e in range(1, epochs + 1):
        loss = nan_from(bad, e, start * 0.94 ** e + floor + 0.004 * (e % 3))
        out.append(f"[{e}/100] Loss: {loss:.8f}")
        if loss != loss:
            out.append(f"❌ NaN/Inf detected at epoch {e}. Training stopped.")
            break
    return out


def attack_lstm(bad: int | None = None, epochs: int = 60, batches: int = 40,
                val_batches: int = 6, test_batches: int = 6, patience: int = 8,
                refresh: int = 8) -> list[str]:
    """0xmahmoudJo0/Cascaded-Stealth-Aware-ATTaCK-Path-Prediction ``train_lstm.py`` (an LSTM
    predicting ATT&CK techniques, fp32): ``logging.basicConfig(format="%(asctime)s -
    %(levelname)s - %(message)s")``; its set-up lines (``f"Using device: {device}"``,
    ``f"Loaded {len(sequences)} sequences"``, ``f"Vocabulary size: {self.vocab_size}
    (including padding token)"``, ``"Loss function initialized with class weights"``,
    ``f"Training for max {self.config.num_epochs} epochs..."``); each epoch
    ``f"\\n{'='*60}"`` (the newline inside the message), ``f"Epoch {epoch + 1}/{...}"``,
    ``f"{'='*60}"``, a ``tqdm(self.train_loader, desc="Training")`` bar with
    ``set_postfix({'loss': loss.item()})`` (the batch's loss, tqdm's ``format_num``),
    ``f"Training Loss: {train_loss:.4f}"``, a ``"Validation Evaluation"`` bar with ``loss``,
    ``top1_acc`` and ``top3_acc``, ``f"{set_name} - Loss: {avg_loss:.4f}, Top-1 Acc:
    {top1_accuracy:.4f}, Top-3 Acc: {top3_accuracy:.4f}"``, ``"✓ Validation loss
    improved!"`` or ``f"Validation loss did not improve. Patience: {n}/{patience}"`` and
    ``"Early stopping triggered!"``; then ``"Restoring best model..."`` and the test's
    evaluation under ``"Final Evaluation on Test Set"``. ``bad`` is the first NaN batch of
    the run (from 1)."""
    tick = 0

    def log(message: str) -> str:
        nonlocal tick
        tick += 1
        return f"{_stamp(tick)} - INFO - {message}"

    rule = "=" * 60
    out = [log("Using device: cuda"), log("Loading sequences from data/sequences.parquet..."),
           log("Loaded 1873 sequences"), log("Vocabulary size: 212 (including padding token)"),
           log("Loss function initialized with class weights"),
           log(f"Total parameters: {1_054_420:,}"),
           log(f"Training for max {epochs} epochs...")]

    def evaluate(name: str, e: int, count: int, broken: bool) -> tuple[str, float]:
        segs = [tqdm_bar(f"{name} Evaluation", 0, count, rate=44.0)]
        loss = acc1 = acc3 = 0.0
        for b in range(1, count + 1):
            loss = NAN if broken else 1.6 * 0.97 ** e + 0.9 + 0.02 * (b % 3)
            acc1 = 0.01 if broken else min(0.25 + e / 100, 0.6)
            acc3 = 0.03 if broken else min(0.45 + e / 90, 0.8)
            segs.append(tqdm_bar(f"{name} Evaluation", b, count,
                                 f", loss={_num(loss)}, top1_acc={_num(acc1)}, "
                                 f"top3_acc={_num(acc3)}", rate=44.0))
        mean = NAN if broken else 1.6 * 0.97 ** e + 0.92
        return "\r".join(segs), mean

    best, waited = math.inf, 0
    broken = False
    for e in range(epochs):
        out += [log(""), rule, log(f"Epoch {e + 1}/{epochs}"), log(rule)]
        segs = [tqdm_bar("Training", 0, batches, rate=61.5)]
        total = 0.0
        for b in range(1, batches + 1):
            g = e * batches + b
            loss = nan_from(bad, g, 3.1 * 0.995 ** g + 0.7 + 0.05 * (b % 5))
            total += loss
            if b % refresh == 0 or b == batches:
                segs.append(tqdm_bar("Training", b, batches, f", loss={_num(loss)}", rate=61.5))
        broken = total != total
        out += ["\r".join(segs), log(f"Training Loss: {total / batches:.4f}")]
        bar, val = evaluate("Validation", e, val_batches, broken)
        out += [bar, log(f"Validation - Loss: {val:.4f}, Top-1 Acc: "
                         f"{0.01 if broken else min(0.25 + e / 100, 0.6):.4f}, Top-3 Acc: "
                         f"{0.03 if broken else min(0.45 + e / 90, 0.8):.4f}")]
        if val < best:
            best, waited = val, 0
            out.append(log("✓ Validation loss improved!"))
        else:
            waited += 1
            out.append(log(f"Validation loss did not improve. Patience: {waited}/{patience}"))
            if waited >= patience:
                out.append(log("Early stopping triggered!"))
                break
    out += [log("Restoring best model..."), log(""), rule, log("Final Evaluation on Test Set"),
            log(rule)]
    bar, test = evaluate("Test", epochs, test_batches, broken)
    return [*out, bar, log(f"Test - Loss: {test:.4f}, Top-1 Acc: "
                           f"{0.01 if broken else 0.5:.4f}, Top-3 Acc: "
                           f"{0.03 if broken else 0.74:.4f}"),
            log("\nSaving model weights to outputs/lstm_weights.pt..."),
            log("✓ Saved to outputs/lstm_weights.pt")]


READ_ALREADY: Table = {
    # The detector's NaN from the run's batch 252 (epoch 5's 20th of 58): the bar's first
    # NaN refresh, its 24th: 256. From the middle, epoch 10's 31st: 558.
    "scfusion_det": (lambda: scfusion_det(4 * 58 + 20), [("AMP006", 256)]),
    "scfusion_det_from_the_middle": (lambda: scfusion_det(9 * 58 + 31)[12:], [("AMP006", 558)]),
    # NaN weights from update step 1234: the evaluation at 1500 (every 500) is the first NaN
    # printed (the training loss goes to wandb only). From the middle, 2222: 2500.
    "onex_world_model": (lambda: onex_world_model(1234), [("AMP013", 1500)]),
    "onex_world_model_from_the_middle": (lambda: onex_world_model(2222, steps=4000)[14:],
                                         [("AMP013", 2500)]),
    "fault_transformer": (lambda: fault_transformer(37), [("AMP006", 37)]),
    "fault_transformer_from_the_middle": (lambda: fault_transformer(58)[30:],
                                          [("AMP006", 58)]),
    # The LSTM's NaN from the run's batch 253 (epoch 7's 13th of 40): the bar's refresh at
    # its 16th, 256; the validation after the epoch, 280. From the middle 467: 472, 480.
    "attack_lstm": (lambda: attack_lstm(6 * 40 + 13), [("AMP006", 256), ("AMP013", 280)]),
    "attack_lstm_from_the_middle": (lambda: attack_lstm(11 * 40 + 27)[40:],
                                    [("AMP006", 472), ("AMP013", 480)]),
}

CONTROLS: Table = {
    "scfusion_det_healthy": (lambda: scfusion_det(epochs=30, batches=44, refresh=5,
                                                  save_interval=5, lr=5e-4), []),
    "scfusion_det_healthy_from_the_middle": (lambda: scfusion_det(epochs=36, batches=70)[20:],
                                             []),
    "hdr_sr_healthy": (lambda: hdr_sr(epochs=8, n_train=2400, batch=12, interval=40), []),
    "hdr_sr_healthy_from_the_middle": (lambda: hdr_sr(epochs=10)[40:], []),
    "noise2score_healthy": (lambda: noise2score(epochs=12, batches=120, save_interval=400,
                                                refresh=20), []),
    "noise2score_healthy_from_the_middle": (lambda: noise2score(epochs=14)[20:], []),
    "fault_transformer_healthy": (lambda: fault_transformer(start=0.8, floor=0.11), []),
    "fault_transformer_healthy_from_the_middle": (
        lambda: fault_transformer(start=1.4, floor=0.02)[45:], []),
    "attack_lstm_healthy": (lambda: attack_lstm(epochs=45, batches=56, patience=10,
                                                refresh=7), []),
    "attack_lstm_healthy_from_the_middle": (lambda: attack_lstm(epochs=80)[60:], []),
}

# Healthy runs the doctor did not read at first sight ("nothing to diagnose": an error).
UNREAD: dict[str, Callable[[], list[str]]] = {
    "onex_world_model_healthy": lambda: onex_world_model(steps=5000, every=250, refresh=50),
    "onex_world_model_healthy_from_the_middle": lambda: onex_world_model(steps=6000,
                                                                         every=1000)[12:],
}


@pytest.mark.parametrize("name", sorted({**READ_ALREADY, **CONTROLS, **UNREAD}))
def test_right_or_no_alarm(tmp_path: Path, name: str) -> None:
    """The faulty excerpts read right at first sight, the healthy runs' silence, and on the
    healthy runs the doctor does not read no diagnosis above info (no false alarm), whatever
    its error says."""
    if name in UNREAD:
        assert alarms(tmp_path, UNREAD[name]()) == []
    else:
        check_listed(tmp_path, name, READ_ALREADY, CONTROLS)


@pytest.mark.xfail(strict=True, reason="first sight: evaluation rows alone (``step N: "
                   "perplexity: P eval_loss: tensor(L, ...)``) are not read as a run")
@pytest.mark.parametrize("name", sorted(UNREAD))
def test_unread_healthy_runs_are_read(tmp_path: Path, name: str) -> None:
    """The right answer on those runs: read without error, and silent."""
    assert faults(tmp_path, UNREAD[name]()) == []


# The faulty excerpts the doctor read wrong at first sight, each with its right answer, read
# right since this branch's rules.
TURNED: Table = {
    # The super-resolution NaN from the run's batch 475 (epoch 3's 75th of 200, a row every
    # 50, batch 8 of 1600 samples): the row of batch 100, ``[800/1600 (50 %)]``, the run's
    # sample 2 * 1600 + 800; the validation after the epoch at its last row read (batch 150:
    # 4400). At first sight 11 and 12 (rows counted: the blank before ``%``); right since
    # the samples count allows it (step_layouts.EPOCH_SAMPLES, tests/logs/
    # test_spaced_percent.py). From the middle, epoch 5's batch 120: the row of batch 150
    # and the validation, 7600 (first sight: 11, 11).
    "hdr_sr": (lambda: hdr_sr(2 * 200 + 75), [("AMP006", 4000), ("AMP013", 4400)]),
    "hdr_sr_from_the_middle": (lambda: hdr_sr(4 * 200 + 120)[30:],
                               [("AMP006", 7600), ("AMP013", 7600)]),
    # The denoiser's NaN from the run's batch 310 (epoch 4's 41st of 90, a bar an epoch with
    # no postfix): the epoch's ``Train Instance Loss: nan`` after the bar that reached 90/90,
    # the run's 360, and its ``Test Loss: nan``. At first sight 4, 4 (rows counted: ``Epoch 4
    # (4/8):`` not read); right since the heading is (denpex_callbacks/logs/counted_epochs.py,
    # tests/logs/test_counted_epochs.py) and hands its bare bar over. From the middle, batch
    # 462 (epoch 6): 540 (first sight: 5, 5, the excerpt's rows).
    "noise2score": (lambda: noise2score(3 * 90 + 40), [("AMP006", 360), ("AMP013", 360)]),
    "noise2score_from_the_middle": (lambda: noise2score(5 * 90 + 12)[12:],
                                    [("AMP006", 540), ("AMP013", 540)]),
}


@pytest.mark.parametrize("name", sorted(TURNED))
def test_misses_at_first_sight(tmp_path: Path, name: str) -> None:
    """The faulty excerpts the doctor read wrong at first sight, read right now."""
    check_listed(tmp_path, name, TURNED)
