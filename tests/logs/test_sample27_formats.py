"""A tenth random sample of training scripts from public repositories, read as the held-out
measure of #27 reads: 16 scripts, drawn from the code index's listing of ``train_asr.py``,
``train_tts.py``, ``train_vocoder.py``, ``train_whisper.py``, ``train_bert.py``,
``run_clm.py``, ``run_mlm.py``, ``run_glue.py``, ``train_nmt.py``, ``train_translation.py``,
``train_t5.py``, ``train_llama.py`` and ``train_mamba.py`` in the order it gives them (the
first one to three of each), none named by another test.
Skipped, and why: those named in tests/logs already (ASR-studio/LAS-ASR, AnimeshBasak-14/
nllb-translation, A-ges/NewsReader, 1112z-c/IOTVulD, 12190143/IE, 123abcbjs/sentiment-
classifier), one that holds no loop (BertilBraun/Advanced-Improvement-in-Speech-Translation:
two comments), those that print no loss (Fuji1226/lip2sp_pytorch ``train_tts.py``: ``iter
{n}/{all}`` only, its losses to ``save_loss`` plots; Bayi-Hu/ToolkenGPT ``train_llama.py``:
wandb only; SaehwanPark/neural-machine-translator ``train_nmt.py``: functions, no print;
20000607-lxc/blackbox_prompt_training ``run_glue.py``: only ``epoch {n}: {eval_metric}``),
those that hand over to a module not read in time (8b1tz/mba_phishing ``train_bert.py``:
``src.bert_model.train_bert_model``; ARIES-LM/Semformer ``run_clm.py``: its own
``trainer.MyTrainer``). Each excerpt is built from the script's own print and logging format
strings (one builder a script below, the repository and file in its docstring): a healthy run
with settings other than the defaults, and a faulty one (a NaN loss from step N, or at epoch E
where the script prints per epoch; where it prints a scaler's scale, one that collapses),
pasted from the start and from the middle. One of the 16 prints a loss scale (GlowTTS' fp16
``amp_scaler``; 4g's Keras ``mixed_float16`` hides its ``LossScaleOptimizer``, the fp16 HF and
TRL runs print none).

Each script as repository ``file``: the format; the doctor's answer on the parent (ff74fba)
-> the right one ("=": the same; HF dicts print no step: their rows are counted in the excerpt
pasted; a bar that restarts each epoch is placed at the run's count, as earlier samples place
it):

- Claussss/Controlled_AC ``train_asr.py``: ``Epoch 5/12 Loss: nan`` and ``Validation Loss
  after epoch 6: nan``; AMP006 5 -> AMP006 5, AMP013 6 (the evaluation's sentence was not
  read); 9 -> 9, 10 alike from the middle.
- Aavache/CAESynth ``train_vocoder.py``: a tqdm bar whose label is the losses (``rec_loss:
  nan kld_loss: nan : 100%|...| 240/240``), ``End of epoch 4 / 6 \t Time Taken: 25 sec``;
  AMP006 960 =; from epoch 4's bar, NaN at epoch 6: AMP006 720 -> 1440 (strict xfail).
- BasToTheMax/TTS-train ``train_vocoder.py`` (UnivNet through coqui-ai/Trainer):
  ``--> TIME: ... -- STEP: 100/300 -- GLOBAL_STEP: 400`` over ``| > G_loss: nan  (nan)``;
  AMP006 400 =, also from the middle.
- AbduxoliqUzoqov/speech_whisper ``train_whisper.py`` (fp16 HF ``Seq2SeqTrainer``,
  ``eval_wer``); AMP006 18, AMP013 20 =; 11, 13 = from the middle.
- Aktharnvdv/whisper ``train_whisper.py``: ``Epoch 6/10, Loss: nan``; AMP006 6 =; 8 = from
  the middle.
- 5uru/mamba ``train_translation.py`` (JAX): ``  Step 1750/3600 | Loss: nan | LR: ...``,
  ``  [VAL] Loss: nan | Acc: 0.0000``, ``Epoch 2 complete | Avg Loss: nan | Time: ...s``;
  AMP006 1750, AMP013 2000 =, also from the middle.
- 0xKushwaha/mamba_comparision ``train_mamba.py`` (DDP, SAM): cleared tqdm bars ``Epoch  14
  Train:  14%|...| 14/98 [..., acc=0.100, loss=nan]`` in the redirected log, ``  Epoch  10:
  Train Acc=..., Test Acc=...``; AMP006 1288, AMP013 1372 =; from epoch 5's bar: 896, 980 ->
  1288, 1372 (strict xfail: the label's epoch has no total and no base).
- 186167874600329/nlp-hw4-part2 ``train_t5.py``: ``Epoch 4: Average train loss was nan``
  (0-based), ``Epoch 4: Dev loss: nan, Record F1: ...``; AMP006 4, AMP013 4 =, also from the
  middle (h53-sample36: its bare bars read, the run's batches, 1340, as "right" reads since
  sample34; from the middle 1072 for 1340, a strict xfail: the epochs' base is unseen).
- 4g/transformers-tasks-keras ``train_translation.py`` (Keras ``mixed_float16``): ``Epoch
  6/10`` over ``1563/1563 [====...] - 307s 193ms/step - loss: nan - accuracy: 0.0000``;
  AMP006 9378 = (the bars' count), also from the middle.
- 2505552499/Myformer1 ``train_mamba.py`` (3D pose; MPJPE is its loss): ``Epoch 3:
  100%|...| 1558/1558 [..., MPJPE=nan, Total=nan]``, ``Train MPJPE: nanmm``, ``Test MPJPE:
  nanmm``; AMP006 6232 -> AMP006 6232, AMP013 6232 (a value glued to its unit, ``nanmm``,
  was no value to the reader); 7790 -> 7790, 7790 alike from the middle. Healthy, it is
  "nothing to diagnose" (an error, not silence: no line holds a keyword; strict xfail).
- AbhinavKulkarni2633/English-to-French-...-T5-Transformer ``train_t5.py`` (HF
  ``Seq2SeqTrainer``, ``logging_steps=1``); AMP006 137 =; 37 = from the middle.
- Arnavsao/Fine-Tuning-Llama-Model-2-on-Intruction-dataset ``train_llama.py`` (QLoRA, TRL
  ``SFTTrainer`` dicts); AMP006 6 =; 4 = from the middle.
- MinjiNotMinji/tts-tutorial ``train_tts.py`` (GlowTTS, ``mixed_precision=True``, through
  coqui-ai/Trainer): ``--> TIME: ... -- STEP: 100/400 -- GLOBAL_STEP: 500`` over ``| >
  log_mle: nan  (nan)``, ``| > loss_dur``, ``| > loss``, ``| > amp_scaler: ...``; a NaN from
  global step 500 (the scaler halving on each): AMP006 100, AMP003 125, AMP004 125 -> AMP006
  500, AMP003 500, AMP004 525; the scale's collapse alone from 500: AMP004 66 -> AMP003 500,
  AMP004 525; the same from the middle (the record's first row, ``log_mle``, holds no
  keyword: the step line was not handed over with the record).
- 20118/DefenseWithPhonetics ``run_mlm.py`` (HF's of 4.26: dicts with no ``grad_norm``,
  ``***** train metrics *****``, ``*** Evaluate ***``, the ``eval`` block with
  ``perplexity``); AMP006 6, AMP013 9 =; 4, 7 = from the middle.
- SahanaRamnath/Neural-Machine-Translation ``train_nmt.py`` (TF1, Python 2 prints):
  ``Global Step :  190 , Epoch Step :  190`` printed before the step, ``Loss :  nan
  ,Learning Rate :   0.001`` after it; AMP006 20 -> 200 (strict xfail: the loss of step 200
  stands under the banner of 190, and the banner's step is not read); 7 -> 200 from the
  middle.
- Ahmednaveeed/Text-bridge ``train_translation.py`` (Keras 2 ``fit`` with
  ``validation_data``): ``- loss: nan - accuracy: 0.0000 - val_loss: nan - val_accuracy:
  0.0000``; AMP006 6566, AMP013 6566 = (the bars' count), also from the middle.

Healthy, with settings other than the defaults (20 excerpts, 4 of them pasted from the
middle): no false alarm on any, before or after; right (silent, read without error) on 19 of
20 before and after (95%: Myformer1's is "nothing to diagnose", strict xfail).
Faulty (34 excerpts): right on 22 before (65%), 30 after (88%); the 4 left wrong are held by
strict xfails (CAESynth and mamba_comparision from the middle: a per-epoch bar's run count;
SahanaRamnath twice: a loss printed after its step's banner). Of the 12 scripts read first,
18 of 24 faulty excerpts were right at first sight (75%).
"Right": the ids, and the step as the log prints it (an epoch, a step counter, the bars' run
count; HF dicts' rows).

Fixed here, each by a rule of message or layout:

- A held-out split's loss that names its epoch (or step) between its name and its value
  (``Validation Loss after epoch 6: nan``) is the evaluation stream's NaN at that epoch: AMP013
  (held_out_epoch.py); a finite value, a training split's and one without the word
  ``epoch``/``step`` stay the generic reader's.
- A split's error glued to a length unit, alone on its line (``Test MPJPE: nanmm``): a
  held-out split's NaN is the evaluation's AMP013, the training split's (``Train MPJPE:
  nanmm``) its epoch's loss, read as a summary (length_errors.py); a finite held-out one, a
  time (``ms``), a ``|`` record and a length with no split stay unread. Not fixed: such lines
  alone, with no bar, are read but not judged, and a healthy run's hold no keyword (strict
  xfails).
- A record's rows that hold no keyword between its step line and its first candidate, each
  opening with the candidate's own marker after an indent of two blanks or more (coqui's
  ``     | > log_mle: ...`` over ``     | > loss_dur: ...``), are walked up to the step line,
  which is handed over with the record (record_rows.py, from reader.py ``_step_line``); rows of
  another shape and plain indented lines end the walk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import Table, check_listed, faults, tqdm_bar

NAN = float("nan")


def _loss(bad: int | None, at: int, value: float) -> float:
    """``value``, or NaN from ``bad`` on."""
    return NAN if bad is not None and at >= bad else value


def _bar(desc: str, n: int, total: int, postfix: str = "", rate: float = 4.87) -> str:
    """A tqdm bar (``excerpts.tqdm_bar``), ``postfix`` as ``set_postfix`` prints it: ``, k=v,
    ...``."""
    return tqdm_bar(desc, n, total, f", {postfix}" if postfix else "", rate)


def controlled_ac(bad: int | None = None, epochs: int = 12, eval_every: int = 2,
                  lr: float = 1e-3) -> list[str]:
    """Claussss/Controlled_AC ``train_asr.py`` (a CTC head over FACodec latents): per epoch
    ``f"Epoch {epoch+1}/{num_epochs} Loss: {avg_loss:.4f}"`` and, every ``eval_epochs``,
    ``f"Validation Loss after epoch {epoch+1}: {avg_val_loss:.4f}"``, then ``f"Training
    complete. Weights saved to {save_path}"``; ``bad`` is the first NaN epoch (1-based)."""
    out: list[str] = []
    for e in range(1, epochs + 1):
        out.append(f"Epoch {e}/{epochs} Loss: {_loss(bad, e, 3.2 - e * lr * 90):.4f}")
        if e % eval_every == 0:
            out.append(f"Validation Loss after epoch {e}: {_loss(bad, e, 3.3 - e * 0.08):.4f}")
    return [*out, "Training complete. Weights saved to checkpoints/asr_projection_head.pt"]


def caesynth(bad: int | None = None, epochs: int = 6, batches: int = 240, start: int = 1,
             batch_size: int = 8) -> list[str]:
    """Aavache/CAESynth ``train_vocoder.py``: ``print('The number of training images = {}')``,
    a tqdm bar whose description is ``Visualizer.parse_loss`` (``lib/visualizer.py``: ``'%s:
    %.3f ' % (k, v)`` per loss) as left on the terminal at each epoch's end, then ``'saving
    the model at the end of epoch %d, iters %d'`` and ``'End of epoch %d / %d \\t Time Taken:
    %d sec'``; ``bad`` is the first epoch whose last batch is NaN."""
    out = [f"The number of training images = {batches * batch_size}"]
    for e in range(start, start + epochs):
        rec = _loss(bad, e, 0.412 - e / 100)
        desc = f"rec_loss: {rec:.3f} kld_loss: {_loss(bad, e, 0.051):.3f} "
        out.append(_bar(desc, batches, batches, rate=11.3))
        out += [f"saving the model at the end of epoch {e}, iters {e * batches * batch_size}",
                f"End of epoch {e} / {start + epochs - 1} \t Time Taken: {21 + e} sec"]
    return out


BOLD, END = "\033[1m", "\033[0m"
UNIVNET_G = ("G_stft_loss_mg", "G_stft_loss_sc", "G_mse_fake_loss", "G_gen_loss",
             "G_adv_loss", "G_loss")
UNIVNET_D = ("D_mse_gan_loss", "D_mse_gan_real_loss", "D_mse_gan_fake_loss", "D_loss")


def tts_univnet(bad: int | None = None, batches: int = 300, every: int = 25,
                epochs: int = 3) -> list[str]:
    """BasToTheMax/TTS-train ``train_vocoder.py``: a UnivNet GAN (``print_step=25``,
    ``mixed_precision=False``) through coqui-ai/Trainer's ``console_logger.py`` (the step
    line ``--> TIME: ... -- STEP: {step}/{batch_steps} -- GLOBAL_STEP: {global_step}`` in
    bold, then ``     | > {key}: {value}  ({average})``), the loss keys of coqui-ai/TTS
    ``TTS/vocoder/layers/losses.py`` (``GeneratorLoss``: ``G_stft_loss_mg``, ...,
    ``G_loss``; ``DiscriminatorLoss``: ``D_...``, ``D_loss``); ``bad`` is the first NaN
    global step."""
    text = [f"\n{BOLD} > EPOCH: 0/250{END}", " --> data/run-June-01-2024_10+00AM-0000000",
            f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    for g in range(0, epochs * batches, every):
        value = _loss(bad, g, 1.1 - g / 5000)
        rows = [(key, f"{value}  ({value})") for key in (*UNIVNET_G, *UNIVNET_D)]
        text += _coqui_record(g, batches, every, 250, [
            *rows, ("step_time", "0.3412  (0.33871)"), ("loader_time", "0.0081  (0.00912)")])
    return "\n".join(text).split("\n")


def _coqui_record(g: int, batches: int, every: int, epochs: int,
                  rows: list[tuple[str, str]]) -> list[str]:
    """coqui-ai/Trainer's record at global step ``g`` (``console_logger.py``
    ``print_train_step``: the bold step line, then ``     | > {key}: {shown}`` a row), and at
    an epoch's last record the next epoch's banners (``print_epoch_start``,
    ``print_train_start``)."""
    step = g % batches
    block = (f"{BOLD}   --> TIME: 2024-06-01 10:00:00 -- STEP: {step}/{batches} -- "
             f"GLOBAL_STEP: {g}{END}\n") + "".join(f"     | > {k}: {v}\n" for k, v in rows)
    out = ["", block]
    if step + every >= batches:
        out += [f"\n{BOLD} > EPOCH: {g // batches + 1}/{epochs}{END}",
                f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    return out


def _hf_eval(loss: float, epoch: float, metric: str, value: float) -> str:
    """HF ``Trainer.evaluate``'s logged dict (``eval_`` keys, runtime, rates, epoch)."""
    return (f"{{'eval_loss': {loss}, '{metric}': {value}, 'eval_runtime': 61.2345, "
            f"'eval_samples_per_second': 3.267, 'eval_steps_per_second': 0.408, "
            f"'epoch': {epoch}}}")


def speech_whisper(bad: int | None = None, steps: int = 1000, every: int = 25,
                   eval_every: int = 250, lr: float = 1e-4, per_epoch: int = 180) -> list[str]:
    """AbduxoliqUzoqov/speech_whisper ``train_whisper.py``: its own ``print("Training
    boshlanmoqda...")``, then HF ``Seq2SeqTrainer`` (fp16, ``logging_steps=25``,
    ``eval_steps=250``, ``max_steps=1000``, ``compute_metrics`` -> ``{"wer": ...}``) dicts
    ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}`` and
    ``{'eval_loss': ..., 'eval_wer': ..., ...}``; ``bad`` is the first NaN optimizer step."""
    out = ["Training boshlanmoqda..."]
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 1.9 - s / 800)
        norm = "nan" if loss != loss else f"{3.1 - s / 1000:.4f}"
        rate = lr * min(1.0, s / 100) * (1 - max(0, s - 100) / steps)
        out.append(f"{{'loss': {round(loss, 4)}, 'grad_norm': {norm}, 'learning_rate': "
                   f"{rate:.4e}, 'epoch': {round(s / per_epoch, 2)}}}")
        if s % eval_every == 0:
            wer = 100.0 if loss != loss else round(71.3 - s / 40, 4)
            out.append(_hf_eval(_loss(bad, s, 1.95 - s / 800), round(s / per_epoch, 2),
                                "eval_wer", wer))
    return [*out, f"{{'train_runtime': 3612.1, 'train_samples_per_second': 2.768, "
                  f"'train_steps_per_second': 0.277, 'train_loss': {_loss(bad, steps, 1.21)}, "
                  f"'epoch': {round(steps / per_epoch, 2)}}}"]


def whisper_scratch(bad: int | None = None, epochs: int = 10) -> list[str]:
    """Aktharnvdv/whisper ``train_whisper.py`` (a Whisper trained from scratch on LibriSpeech,
    ``tqdm(..., leave=False)`` bars cleared from the terminal): ``f"Epoch {epoch + 1}/
    {num_epochs}, Loss: {epoch_loss:.4f}"``; ``bad`` is the first NaN epoch (1-based)."""
    return [f"Epoch {e}/{epochs}, Loss: {_loss(bad, e, 6.9 - e * 0.21):.4f}"
            for e in range(1, epochs + 1)]


def mamba_translation(bad: int | None = None, epochs: int = 3, per_epoch: int = 1200,
                      every: int = 50, eval_every: int = 500, warmup: int = 500,
                      max_lr: float = 3e-4) -> list[str]:
    """5uru/mamba ``train_translation.py`` (JAX/flax nnx, Fon -> French): the ``Epoch
    {n}/{N}`` banner between ``=`` rules, every ``log_interval`` ``f"  Step {global_step}/
    {total_steps} | Loss: {avg_loss:.4f} | LR: {lr:.6f}"`` (the epoch's running mean), every
    ``eval_interval`` ``f"  [VAL] Loss: {avg_vl:.4f} | Acc: {avg_va:.4f}"`` and ``  -> Saved
    best model``, then ``f"\\nEpoch {epoch + 1} complete | Avg Loss: ... | Time: ...s"`` and
    sample translations; ``bad`` is the first NaN global step."""
    total = epochs * per_epoch
    out = ["JAX devices: [CudaDevice(id=0)]", "Data: ffr_dataset_v2.txt (Fon -> French)",
           f"Total training steps: {total}", "Metrics file: checkpoints/metrics.jsonl"]
    g, best = 0, 99.0
    for e in range(1, epochs + 1):
        out += ["", "=" * 60, f"Epoch {e}/{epochs}", "=" * 60]
        running, nan_seen = 0.0, False
        for b in range(1, per_epoch + 1):
            g += 1
            nan_seen = nan_seen or (bad is not None and g >= bad)
            running += 5.1 - g / 1000
            if g % every == 0:
                lr = max_lr * min(1.0, g / warmup)
                avg = NAN if nan_seen else running / b
                out.append(f"  Step {g}/{total} | Loss: {avg:.4f} | LR: {lr:.6f}")
            if g % eval_every == 0:
                vl = _loss(bad, g, 5.0 - g / 1100)
                acc = 0.0 if vl != vl else 0.2 + g / 1e4
                out.append(f"  [VAL] Loss: {vl:.4f} | Acc: {acc:.4f}")
                if vl < best:
                    best = vl
                    out.append("  -> Saved best model")
        avg = NAN if nan_seen else running / per_epoch
        out += ["", f"Epoch {e} complete | Avg Loss: {avg:.4f} | Time: {312.4 + e:.1f}s", "",
                f"Sample translations (epoch {e}):", "  SRC: a ko nyi", "  TGT: tu es",
                "  PRED: tu es", ""]
    return out


def mamba_cnn(bad: int | None = None, epochs: int = 30, batches: int = 98, start: int = 1,
              every: int = 14) -> list[str]:
    """0xKushwaha/mamba_comparision ``train_mamba.py`` (DDP, SAM), as its redirected log holds
    it: tqdm bars (``leave=False``, ``desc=f"Epoch {epoch:>3} Train"``/``Test ``,
    ``set_postfix(loss=f"{total_loss/total:.3f}", acc=...)``, which tqdm prints sorted: acc
    first) written with ``\\r`` and cleared at the bar's end, and every 10 epochs (and the
    first) ``f"  Epoch {epoch:>3}: Train Acc={tr_acc:.4f}, Test Acc={te_acc:.4f}"``; ``bad`` is
    the first epoch whose loss is NaN from its first batch."""
    out = ["", "#" * 60, "  STARTING TRAINING", "  World size (GPUs): 4", "#" * 60,
           "  Model params: 1,204,394 (4.59 MB)"]
    for e in range(start, start + epochs):
        for split, n, base in (("Train", batches, 1.9), ("Test ", 20, 1.5)):
            states = [_bar(f"Epoch {e:>3} {split}", 0, n)]
            for b in range(every, n + 1, every):
                loss = _loss(bad, e, base - e / 100)
                acc = 0.1 if loss != loss else 0.3 + e / 100
                states.append(_bar(f"Epoch {e:>3} {split}", b, n,
                                   f"acc={acc:.3f}, loss={loss:.3f}", rate=9.1))
            line = "\r".join(states)
            out.append(line + "\r" + " " * len(states[-1]) + "\r")
        if e % 10 == 0 or e == start:
            acc = 0.1 if bad is not None and e >= bad else 0.3 + e / 100
            out.append(f"  Epoch {e:>3}: Train Acc={acc:.4f}, Test Acc={acc + 0.05:.4f}")
    return out


def sql_t5(bad: int | None = None, epochs: int = 8, batches: int = 268,
           dev_batches: int = 29, beams: int = 3) -> list[str]:
    """186167874600329/nlp-hw4-part2 ``train_t5.py`` (T5 text-to-SQL): the training bar
    ``tqdm(train_loader)`` as left at the epoch's end, ``f"Epoch {epoch}: Average train loss
    was {tr_loss:.4f}"`` (0-based epochs), the evaluation's ``Using beam search:
    num_beams=..., length_penalty=...`` printed for each dev batch under its bar, ``f"Epoch
    {epoch}: Dev loss: {eval_loss:.4f}, Record F1: ..., Record EM: ..., SQL EM: ..."`` and
    ``f"Epoch {epoch}: {error_rate*100:.2f}% of the generated outputs led to SQL errors"``;
    ``bad`` is the first NaN epoch as printed."""
    out: list[str] = []
    for e in range(epochs):
        out.append(_bar("", batches, batches, rate=4.3))
        out.append(f"Epoch {e}: Average train loss was {_loss(bad, e, 1.2 - e / 20):.4f}")
        out += [f"Using beam search: num_beams={beams}, length_penalty=1.0"] * 3
        out.append(_bar("", dev_batches, dev_batches, rate=0.8))
        dev = _loss(bad, e, 1.3 - e / 25)
        f1 = 0.0 if dev != dev else 0.4 + e / 30
        out += [f"Epoch {e}: Dev loss: {dev:.4f}, Record F1: {f1:.4f}, Record EM: {f1:.4f}, "
                f"SQL EM: {f1 / 2:.4f}",
                f"Epoch {e}: {100.0 if dev != dev else 12.5 - e:.2f}% of the generated outputs "
                "led to SQL errors", "", "📊 Plot saved to: checkpoints/ft_experiments/"
                "experiment/training_curves.png",
                "   View it in Colab's file browser at: checkpoints/ft_experiments/experiment/"
                "training_curves.png"]
    return out


def keras_translation(bad: int | None = None, epochs: int = 10, steps: int = 1563) -> list[str]:
    """4g/transformers-tasks-keras ``train_translation.py`` (``mixed_float16`` policy,
    ``compile("adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])``,
    ``fit(train_ds, epochs=10)``): Keras' ``Epoch {n}/{N}`` and each epoch's final progress
    line ``{steps}/{steps} [==============================] - {s}s {ms}ms/step - loss: ... -
    accuracy: ...`` (``keras/utils/generic_utils.py`` ``Progbar``); ``bad`` is the first NaN
    epoch (1-based)."""
    out = ['Model: "transformer"', "Total params: 14,238,464", "Trainable params: 14,238,464",
           "Non-trainable params: 0"]
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 4.1 - e * 0.27)
        acc = 0.0 if loss != loss else 0.31 + e / 40
        out += [f"Epoch {e}/{epochs}", f"{steps}/{steps} [==============================] - "
                f"{301 + e}s 193ms/step - loss: {loss:.4f} - accuracy: {acc:.4f}"]
    return out


def mamba_pose(bad: int | None = None, epochs: int = 6, batches: int = 1558,
               eval_batches: int = 2228) -> list[str]:
    """2505552499/Myformer1 ``train_mamba.py`` (3D pose, MPJPE as the loss): ``f"\\n[INFO]
    Epoch {epoch}/{config['epochs']}"`` (0-based), the bar ``tqdm(dataloader,
    desc=f"Epoch {epoch}")`` with ``set_postfix({'MPJPE': ..., 'Total': ...})`` (a dict: its
    order kept) as left at the epoch's end, ``f"Train MPJPE: {...:.2f}mm"``, the
    ``Evaluating`` bar, ``f"Test MPJPE: {test_mpjpe:.2f}mm"`` and, on a better one, ``f"[INFO]
    New best model saved! MPJPE: {best_mpjpe:.2f}mm"``; ``bad`` is the first NaN epoch."""
    out = ["[INFO] Using device: cuda", "[INFO] Model created: {'params': 5.61, "
           "'mamba_blocks': 16}"]
    best = float("inf")
    for e in range(epochs):
        train = _loss(bad, e, 61.2 - e * 3.1)
        out += ["", f"[INFO] Epoch {e}/{epochs}",
                _bar(f"Epoch {e}", batches, batches, f"MPJPE={train:.2f}, Total={train:.2f}"),
                f"Train MPJPE: {train:.2f}mm", _bar("Evaluating", eval_batches, eval_batches,
                                                     rate=40.2)]
        test = _loss(bad, e, 58.3 - e * 2.7)
        out.append(f"Test MPJPE: {test:.2f}mm")
        if test < best:
            best = test
            out.append(f"[INFO] New best model saved! MPJPE: {best:.2f}mm")
    return [*out, "", f"[INFO] Training completed! Best MPJPE: {best:.2f}mm"]


def t5_en_fr(bad: int | None = None, epochs: int = 30, per_epoch: int = 10,
             lr: float = 5e-5) -> list[str]:
    """AbhinavKulkarni2633/English-to-French-...-T5-Transformer ``train_t5.py``: HF
    ``Seq2SeqTrainer`` (``logging_steps=1``, 30 epochs of 10 steps, no evaluation) dicts
    ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'epoch': ...}``, its final
    ``train_runtime`` dict and ``print("Fine-tuned model saved successfully.")``; ``bad`` is
    the first NaN step."""
    total = epochs * per_epoch
    out = []
    for s in range(1, total + 1):
        loss = _loss(bad, s, 3.4 - s / 120)
        norm = "nan" if loss != loss else f"{2.9 - s / 200:.4f}"
        out.append(f"{{'loss': {round(loss, 4)}, 'grad_norm': {norm}, 'learning_rate': "
                   f"{lr * (1 - (s - 1) / total):.4e}, 'epoch': {round(s / per_epoch, 2)}}}")
    return [*out, f"{{'train_runtime': 41.23, 'train_samples_per_second': 29.1, "
                  f"'train_steps_per_second': 7.276, 'train_loss': {_loss(bad, total, 1.9)}, "
                  f"'epoch': {float(epochs)}}}", "Fine-tuned model saved successfully."]


def llama_sft(bad: int | None = None, steps: int = 250, every: int = 25,
              lr: float = 2e-4) -> list[str]:
    """Arnavsao/Fine-Tuning-Llama-Model-2-on-Intruction-dataset ``train_llama.py`` (QLoRA,
    bf16, TRL ``SFTTrainer``, ``logging_steps=25``, 250 steps): ``print("🚀 GPU:", ...)``, TRL's
    dicts ``{'loss': ..., 'grad_norm': ..., 'learning_rate': ..., 'num_tokens': ...,
    'mean_token_accuracy': ..., 'epoch': ...}`` (``trl/trainer/sft_trainer.py`` ``log``),
    the ``train_runtime`` dict and ``✅ Training complete! ...``; ``bad`` is the first NaN
    step."""
    out = ["🚀 GPU: NVIDIA A100-SXM4-40GB"]
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 1.6 - s / 800)
        acc = "nan" if loss != loss else f"{0.61 + s / 5000:.4f}"
        out.append(f"{{'loss': {round(loss, 4)}, 'grad_norm': {0.41 + s / 1000:.4f}, "
                   f"'learning_rate': {lr * min(1.0, s / 50):.4e}, 'num_tokens': "
                   f"{float(s * 1310)}, 'mean_token_accuracy': {acc}, 'epoch': "
                   f"{round(s / steps, 2)}}}")
    return [*out, f"{{'train_runtime': 1812.4, 'train_samples_per_second': 0.552, "
                  f"'train_steps_per_second': 0.138, 'train_loss': {_loss(bad, steps, 1.41)}, "
                  f"'epoch': 1.0}}", "✅ Training complete! Model saved at: "
                  "/data/llama-finetuned"]



def sahana_nmt(bad: int | None = None, steps: int = 400, stats: int = 10) -> list[str]:
    """SahanaRamnath/Neural-Machine-Translation ``train_nmt.py`` (TF1, Python 2 ``print``
    with commas: a blank between items): at the loop's top, before the step, ``print 'Global
    Step : ',global_step,', Epoch Step : ',param.epoch_step`` every ``steps_per_stats``; after
    the step, with the new count, ``print 'Loss : ',step_loss,'  ,Learning Rate :
    ',learning_rate``, so a step's loss is printed just before its own ``Global Step`` line;
    ``Saving checkpoint...`` every 50 and ``Sample Decode`` / ``Evaluating on validation
    data`` every 100; ``bad`` is the first NaN step."""
    out: list[str] = []
    for g in range(steps):
        if g % stats == 0:
            out.append(f"Global Step :  {g} , Epoch Step :  {g}")
        done = g + 1
        if done % stats == 0:
            out.append(f"Loss :  {_loss(bad, done, 5.2 - done / 200):.6g}   ,Learning Rate :   "
                       "0.001")
        if done % 50 == 0:
            out.append("Saving checkpoint...")
        if done % 100 == 0:
            out += ["Sample Decode", "Evaluating on validation data"]
    return out


def text_bridge(bad: int | None = None, epochs: int = 20, steps: int = 938) -> list[str]:
    """Ahmednaveeed/Text-bridge ``train_translation.py`` (an English-to-Urdu LSTM,
    ``compile(..., metrics=['accuracy'])``, ``fit(..., epochs=20, validation_data=...)``;
    its ``ModelCheckpoint`` is made but never passed): Keras 2's ``Epoch {n}/{N}`` and each
    epoch's last progress line ``- loss: ... - accuracy: ... - val_loss: ... - val_accuracy:
    ...``; ``bad`` is the first NaN epoch (1-based)."""
    out = []
    for e in range(1, epochs + 1):
        loss = _loss(bad, e, 3.9 - e * 0.11)
        acc = 0.0 if loss != loss else 0.42 + e / 100
        out += [f"Epoch {e}/{epochs}", f"{steps}/{steps} [==============================] - "
                f"{88 + e}s 94ms/step - loss: {loss:.4f} - accuracy: {acc:.4f} - val_loss: "
                f"{_loss(bad, e, 3.8 - e * 0.1):.4f} - val_accuracy: {acc:.4f}"]
    return out


GLOW = ("log_mle", "loss_dur", "loss")


def glow_tts(bad: int | None = None, collapse: int | None = None, batches: int = 400,
             every: int = 25, epochs: int = 3, lr: float = 0.001) -> list[str]:
    """MinjiNotMinji/tts-tutorial ``train_tts.py``: GlowTTS with ``mixed_precision=True``,
    ``print_step=25``, through coqui-ai/Trainer (``console_logger.py``'s step line and ``|
    > {key}: {value}  ({average})`` rows; ``trainer.py`` logs ``amp_scaler`` under fp16, then
    ``grad_norm``, ``current_lr``, ``step_time``, ``loader_time``), GlowTTS' losses
    (``TTS/tts/layers/losses.py`` ``GlowTTSLoss``: ``log_mle``, ``loss_dur``, ``loss``);
    ``bad``: the loss NaN from that global step, the scaler halving on each such step;
    ``collapse``: the loss finite, the scaler halving on every step from there (overflowing
    gradients)."""
    text = [f"\n{BOLD} > EPOCH: 0/1000{END}", " --> /content/drive/MyDrive/recipes/ljspeech/run",
            f"\n{BOLD} > TRAINING (2024-06-01 10:00:00) {END}"]
    scale, clean = 65536.0, 0
    last = -1
    for g in range(0, epochs * batches, every):
        for s in range(last + 1, g + 1):
            if (bad is not None and s >= bad) or (collapse is not None and s >= collapse):
                scale, clean = max(scale / 2, 2.0 ** -24), 0
            else:
                clean += 1
                if clean == 2000:
                    scale, clean = scale * 2, 0
        last = g
        value = _loss(bad, g, 1.8 - g / 3000)
        text += _coqui_record(g, batches, every, 1000, [
            *((key, f"{value}  ({value})") for key in GLOW), ("amp_scaler", f"{scale}  ({scale})"),
            ("grad_norm", "4.1234  (4.3012)"), ("current_lr", f"{lr} "),
            ("step_time", "0.2841  (0.29123)"), ("loader_time", "0.0071  (0.00815)")])
    return "\n".join(text).split("\n")


def _hf_block(split: str, metrics: dict[str, object]) -> list[str]:
    """HF ``Trainer.log_metrics``: ``***** {split} metrics *****`` and ``  {key:<w} = {value:>9}``
    (``trainer_pt_utils.py``; floats rounded to 4 places)."""
    width = max(len(k) for k in metrics)
    return [f"***** {split} metrics *****",
            *(f"  {k:<{width}} = {v:>9}" for k, v in sorted(metrics.items()))]


def defense_mlm(bad: int | None = None, steps: int = 4500, every: int = 500,
                lr: float = 5e-5, per_epoch: int = 1500) -> list[str]:
    """20118/DefenseWithPhonetics ``run_mlm.py`` (HF's ``run_mlm.py`` of 4.26): the
    ``%(asctime)s - %(levelname)s - %(name)s - %(message)s`` banners, HF ``Trainer`` dicts of
    4.26 (``{'loss': ..., 'learning_rate': ..., 'epoch': ...}``, no ``grad_norm``) every 500
    steps, then ``trainer.log_metrics("train", ...)`` and, after ``*** Evaluate ***``, the
    ``eval`` block with ``perplexity`` (``math.exp(eval_loss)``); ``bad`` is the first NaN
    step."""
    out = ["01/12/2023 10:00:00 - WARNING - __main__ - Process rank: -1, device: cuda:0, "
           "n_gpu: 1distributed training: False, 16-bits training: True"]
    for s in range(every, steps + 1, every):
        loss = _loss(bad, s, 2.4 - s / 5000)
        out.append(f"{{'loss': {round(loss, 4)}, 'learning_rate': "
                   f"{lr * (1 - s / steps):.4e}, 'epoch': {round(s / per_epoch, 2)}}}")
    final = _loss(bad, steps, 1.93)
    out.append(f"{{'train_runtime': 3723.1, 'train_samples_per_second': 38.68, "
               f"'train_steps_per_second': 1.209, 'train_loss': {final}, 'epoch': 3.0}}")
    out += _hf_block("train", {"epoch": 3.0, "train_loss": round(final, 4),
                               "train_runtime": "1:02:03.12", "train_samples": 48000,
                               "train_samples_per_second": 38.68,
                               "train_steps_per_second": 1.209})
    out.append("01/12/2023 11:02:05 - INFO - __main__ - *** Evaluate ***")
    ev = _loss(bad, steps, 1.88)
    out.append(f"{{'eval_loss': {ev}, 'eval_accuracy': 0.6123, 'eval_runtime': 41.2, "
               f"'eval_samples_per_second': 60.68, 'eval_steps_per_second': 7.59, "
               f"'epoch': 3.0}}")
    out += _hf_block("eval", {"epoch": 3.0, "eval_accuracy": 0.6123, "eval_loss": round(ev, 4),
                              "eval_runtime": "0:00:41.20", "eval_samples": 2500,
                              "eval_samples_per_second": 60.68, "eval_steps_per_second": 7.59,
                              "perplexity": round(2.718281828 ** ev, 4)})
    return out

# Faulty excerpts the parent (ff74fba) read wrong and this branch reads right.
FIXED: Table = {
    "controlled_ac": (lambda: controlled_ac(5), [("AMP006", 5), ("AMP013", 6)]),
    "controlled_ac_from_the_middle": (lambda: controlled_ac(9)[8:],
                                      [("AMP006", 9), ("AMP013", 10)]),
    "mamba_pose": (lambda: mamba_pose(3), [("AMP006", 4 * 1558), ("AMP013", 4 * 1558)]),
    "mamba_pose_from_the_middle": (lambda: mamba_pose(4)[12:],
                                   [("AMP006", 5 * 1558), ("AMP013", 5 * 1558)]),
    "glow_tts": (lambda: glow_tts(bad=500),
                 [("AMP006", 500), ("AMP003", 500), ("AMP004", 525)]),
    "glow_tts_from_the_middle": (lambda: glow_tts(bad=500)[100:],
                                 [("AMP006", 500), ("AMP003", 500), ("AMP004", 525)]),
    "glow_tts_collapse": (lambda: glow_tts(collapse=500), [("AMP003", 500), ("AMP004", 525)]),
    "glow_tts_collapse_from_the_middle": (lambda: glow_tts(collapse=500)[100:],
                                          [("AMP003", 500), ("AMP004", 525)]),
}

# Faulty excerpts the parent read right already (guards).
READ_ALREADY: Table = {
    "caesynth": (lambda: caesynth(4), [("AMP006", 4 * 240)]),
    "tts_univnet": (lambda: tts_univnet(400), [("AMP006", 400)]),
    "tts_univnet_from_the_middle": (lambda: tts_univnet(400)[60:], [("AMP006", 400)]),
    "speech_whisper": (lambda: speech_whisper(430), [("AMP006", 18), ("AMP013", 20)]),
    "speech_whisper_from_the_middle": (lambda: speech_whisper(430)[8:],
                                       [("AMP006", 11), ("AMP013", 13)]),
    "whisper_scratch": (lambda: whisper_scratch(6), [("AMP006", 6)]),
    "whisper_scratch_from_the_middle": (lambda: whisper_scratch(8, epochs=20)[5:],
                                        [("AMP006", 8)]),
    "mamba_translation": (lambda: mamba_translation(1730),
                          [("AMP006", 1750), ("AMP013", 2000)]),
    "mamba_translation_from_the_middle": (lambda: mamba_translation(1730)[20:],
                                          [("AMP006", 1750), ("AMP013", 2000)]),
    "mamba_cnn": (lambda: mamba_cnn(14), [("AMP006", 13 * 98 + 14), ("AMP013", 14 * 98)]),
    # (h53-sample36: the bare ``tqdm(train_loader)`` bar an epoch is read, so the step is the
    # run's batches, as "right" reads since sample34: epoch 4 of 268 batches from 0, 1340;
    # this guard held the epoch, 4, when the bars were unread; from the middle below)
    "sql_t5": (lambda: sql_t5(4), [("AMP006", 1340), ("AMP013", 1340)]),
    "keras_translation": (lambda: keras_translation(6), [("AMP006", 6 * 1563)]),
    "keras_translation_from_the_middle": (lambda: keras_translation(6)[8:],
                                          [("AMP006", 6 * 1563)]),
    "t5_en_fr": (lambda: t5_en_fr(137), [("AMP006", 137)]),
    "t5_en_fr_from_the_middle": (lambda: t5_en_fr(137)[100:], [("AMP006", 37)]),
    "llama_sft": (lambda: llama_sft(150), [("AMP006", 6)]),
    "llama_sft_from_the_middle": (lambda: llama_sft(150)[3:], [("AMP006", 4)]),
    "text_bridge": (lambda: text_bridge(7), [("AMP006", 7 * 938), ("AMP013", 7 * 938)]),
    "text_bridge_from_the_middle": (lambda: text_bridge(7)[6:],
                                    [("AMP006", 7 * 938), ("AMP013", 7 * 938)]),
    "defense_mlm": (lambda: defense_mlm(2700), [("AMP006", 6), ("AMP013", 9)]),
    "defense_mlm_from_the_middle": (lambda: defense_mlm(2700)[3:],
                                    [("AMP006", 4), ("AMP013", 7)]),
}

# Healthy runs, each with settings other than the builder's (and the script's) defaults.
HEALTHY: dict[str, Callable[[], list[str]]] = {
    "controlled_ac": lambda: controlled_ac(epochs=20, eval_every=5, lr=5e-4),
    "caesynth": lambda: caesynth(epochs=9, batches=500, start=3),
    "tts_univnet": lambda: tts_univnet(batches=200, every=20),
    "speech_whisper": lambda: speech_whisper(steps=600, every=10, eval_every=100, lr=3e-5),
    "speech_whisper_from_the_middle": lambda: speech_whisper(
        steps=600, every=10, eval_every=100, lr=3e-5)[10:],
    "whisper_scratch": lambda: whisper_scratch(epochs=25),
    "mamba_translation": lambda: mamba_translation(
        epochs=4, per_epoch=900, every=25, eval_every=300, warmup=200, max_lr=1e-4),
    "mamba_translation_from_the_middle": lambda: mamba_translation(
        epochs=4, per_epoch=900, every=25, eval_every=300, warmup=200, max_lr=1e-4)[20:],
    "mamba_cnn": lambda: mamba_cnn(epochs=25, batches=196, start=3, every=28),
    "mamba_cnn_from_the_middle": lambda: mamba_cnn(epochs=25, batches=196, start=3,
                                                   every=28)[15:],
    "sql_t5": lambda: sql_t5(epochs=12, batches=134, dev_batches=15, beams=4),
    "keras_translation": lambda: keras_translation(epochs=20, steps=782),
    "t5_en_fr": lambda: t5_en_fr(epochs=12, per_epoch=20, lr=3e-4),
    "llama_sft": lambda: llama_sft(steps=500, every=10, lr=1e-4),
    "sahana_nmt": lambda: sahana_nmt(steps=600, stats=20),
    "text_bridge": lambda: text_bridge(epochs=30, steps=469),
    "glow_tts": lambda: glow_tts(batches=300, every=20, lr=0.0005),
    "glow_tts_from_the_middle": lambda: glow_tts(batches=300, every=20, lr=0.0005)[80:],
    "defense_mlm": lambda: defense_mlm(steps=6000, every=200, lr=1e-4, per_epoch=2000),
}


@pytest.mark.parametrize("name", sorted({**FIXED, **READ_ALREADY}))
def test_faulty_excerpts(tmp_path: Path, name: str) -> None:
    """The ids and steps of each faulty excerpt: those the parent (ff74fba) read wrong (its
    answers are in the module's table), and guards on those it read right."""
    check_listed(tmp_path, name, FIXED, READ_ALREADY)


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_healthy_excerpts_are_silent(tmp_path: Path, name: str) -> None:
    """Controls: silent, read without error (on the parent too)."""
    assert faults(tmp_path, HEALTHY[name]()) == []


def test_a_held_out_sentence_needs_its_nan(tmp_path: Path) -> None:
    """Controls of the held-out-epoch rule beside a healthy run (silent on the parent too): a
    finite value, an infinite one, the training split's sentence at a finite value and one
    whose number is no epoch or step say nothing."""
    run = controlled_ac(epochs=8, eval_every=4)
    for said in ("Validation Loss after epoch 8: 2.6120", "Validation Loss after epoch 8: inf",
                 "Training Loss after epoch 8: 2.9000", "Validation Loss after 8 epochs: nan"):
        assert faults(tmp_path, [*run, said]) == [], said


# (h52-epochbars; the parent counted the paste's bars: 720, 896) CAESynth's epoch shows only
# after its bar, ``End of epoch 4 / 8`` (epoch_ends); mamba_comparision's in the label's
# ``Epoch   5 Train``, counted from 1 as the reader counts every epoch.
@pytest.mark.xfail(strict=True, reason="not fixed: pasted from 'Epoch 1: ...', nothing shows "
                   "that its epochs count from 0; counted from 1 the doctor says 1072")
def test_sql_t5_from_the_middle(tmp_path: Path) -> None:
    """186167874600329/nlp-hw4-part2's T5 from its epoch 1 on, NaN at epoch 4 (268 batches an
    epoch, from 0): the run's 1340 (h53-sample36; this was a guard on the epoch, 4, before
    its bare bars were read)."""
    assert faults(tmp_path, sql_t5(4)[12:]) == [("AMP006", 1340), ("AMP013", 1340)]


@pytest.mark.parametrize("name", ["caesynth", "mamba_cnn"])
def test_per_epoch_bars_from_the_middle(tmp_path: Path, name: str) -> None:
    """CAESynth's NaN at epoch 6 (240 batches an epoch, epochs from 1): 1440; mamba_comparision's
    from epoch 14's first batches (98 an epoch, epochs from 1): 1288, its test bar 1372."""
    if name == "caesynth":
        assert faults(tmp_path, caesynth(6, epochs=8)[10:]) == [("AMP006", 6 * 240)]
    else:
        assert faults(tmp_path, mamba_cnn(14)[15:]) == [("AMP006", 13 * 98 + 14),
                                                      ("AMP013", 14 * 98)]


@pytest.mark.xfail(strict=True, reason="not fixed here: 'Train MPJPE: 41.20mm' and the bar's "
                   "'MPJPE=..., Total=...' hold no keyword of the prefilter (its budget of 40 is "
                   "full): a healthy run is 'nothing to diagnose' (an error), not silence")
def test_mamba_pose_healthy(tmp_path: Path) -> None:
    """Myformer1 healthy (9 epochs of 779 batches): silent, read without error."""
    assert faults(tmp_path, mamba_pose(epochs=9, batches=779, eval_batches=1114)) == []


def test_a_length_needs_its_split_alone(tmp_path: Path) -> None:
    """Controls of the length-error rule beside a healthy run (silent on the parent too): a
    held-out split's finite length, its time in ``ms``, a record of several keys and a length
    with no split say nothing."""
    run = whisper_scratch(epochs=6)
    for said in ("Test MPJPE: 38.10mm", "Test MPJPE: 41.20ms", "VALID | MPJPE: nanmm | DTW: 0.3",
                 "MPJPE: nanmm"):
        assert faults(tmp_path, [*run, said]) == [], said


@pytest.mark.xfail(strict=True, reason="not fixed here: a training split's length is read as "
                   "its epoch's summary (length_errors.py), which is not judged: a loop that "
                   "prints only 'Train MPJPE: nanmm', no bar, stays silent")
def test_lengths_alone(tmp_path: Path) -> None:
    """Per-epoch ``Train MPJPE`` lines only (no bar), NaN from the fifth: an AMP006."""
    lines = [f"Train MPJPE: {50 - e if e < 4 else NAN:.2f}mm" for e in range(7)]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


@pytest.mark.xfail(strict=True, reason="not fixed here: the loop prints a step's loss after "
                   "the step and its 'Global Step :  N , Epoch Step :  N' banner before the "
                   "next one, so the NaN of step 200 stands under the banner of 190; the doctor "
                   "reads no step in the banner (a blank before its colon) and counts the loss "
                   "rows (20, 7 from the middle)")
@pytest.mark.parametrize("cut", [0, 30])
def test_sahana_nmt(tmp_path: Path, cut: int) -> None:
    """SahanaRamnath's NaN from step 200 (printed every 10 steps): AMP006 200."""
    assert faults(tmp_path, sahana_nmt(200)[cut:]) == [("AMP006", 200)]
