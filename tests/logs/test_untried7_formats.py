"""Untried tools, group four (LLM training and fine-tuning toolkits): excerpts written from
each tool's own format strings (each names its source), a fault beside healthy controls with
non-default settings.

Tried and already right before any change here (no test kept: the suite covers their
layouts): TinyLlama's pretraining line ``iter {iter_num} step {step_count}: loss ..., iter
time: ...ms (optimizer.step) remaining time: ... hours.  or ... days.`` and its validation
line ``step {iter_num}: val loss ..., val time: ...ms`` (jzhang38/TinyLlama
``pretrain/tinyllama.py`` ``train``), which numbers the micro-batches where the training
line numbers the optimizer steps: NaN from a micro-batch on is AMP006 at the optimizer step
its line prints and AMP013 at the first evaluation after it, at gradient accumulation 4 and
8; its fine-tuning script (``sft/finetune.py``) is the HF Trainer's.

Missed before: the HF Trainer's rows in a log file written by an unbuffered run (``python
-u``, or DeepSpeed's launcher, which runs ``python -u``), with the tqdm bar in the same file.
``tqdm.write`` clears the bar it interrupts with a carriage return, blanks and a carriage
return, and prints the row after them on the same physical line; the row prints no step,
the bar before it counts the row's step. The rows were numbered one a row: alpaca-lora's
(tloen/alpaca-lora ``finetune.py``: ``logging_steps=10`` written in the script, no setting
echoed) were at a tenth of their step, and FastChat's under DeepSpeed fp16 (lm-sys/FastChat
``fastchat/train/train_lora.sh``: ``--fp16 True``, ``--logging_steps 1``, a ZeRO-2 config)
two steps late after two overflow lines early in the run, each read as a step of its own.
Now the bar drawn in the carriage-return segment before a row that prints no step is its
step (``hf.bar_count``), where the bar was cleared once on the line and draws at most 5 steps
a second (a faster one is redrawn only every 0.1 s and lags its rows). And FastChat's full
fine-tune under torchrun (``scripts/test_train_opt.sh``), its output redirected to a file:
torchrun adds no ``-u``, the rows reach the file in 4 or 8 KiB blocks, and a row that a block
cut in two, its head at the start of a line and its tail at the end after the bar's redraws,
was no row (the rows after it a row early, AMP006 at 1490 for 1500); the head and the tail
are one row again (``parsers._block_cut``, and ``reader._long_pieces`` for a line over 16 KiB,
handed over in pieces).

Not tried: Megatron-Energon (NVIDIA/Megatron-Energon) is a data loader; it prints no step,
loss or scale line of its own. The other tools in the brief's list were in the suite already.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

# DeepSpeed's fp16 optimizer (deepspeed/runtime/fp16/loss_scaler.py ``update_scale``) through
# its logger (``[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s]``).
_DEEPSPEED = ("[2023-07-01 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
              "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {cur}, reducing to {nxt}")


def _bar(step: int, total: int, rate: str = " 2.67s/it") -> str:
    """The Trainer's training bar (transformers ``trainer_callback.py`` ``ProgressCallback``:
    ``tqdm(total=state.max_steps)``) at ``step``, tqdm's default ``{l_bar}{bar}{r_bar}``."""
    percent = 100 * step // total
    return (f"{percent:3d}%|{'█' * (percent // 10):<10}| {step}/{total} "
            f"[01:02<12:34, {rate}]")


def _row(step: int, total: int, previous: int, fields: str) -> str:
    """One physical line of the file: the bar redrawn from ``previous`` to ``step`` after
    carriage returns, cleared (tqdm ``std.py`` ``clear``: ``\\r``, blanks, ``\\r``) and the
    row ``tqdm.write`` printed in its place (``ProgressCallback.on_log``: ``str(logs)``)."""
    drawn = "".join("\r" + _bar(count, total) for count in range(previous, step + 1))
    return drawn + "\r" + " " * 60 + "\r" + "{" + fields + "}"


def _alpaca_lora(bad_from: int | None = None, bad: str = "nan", steps: int = 600,
                 total: int = 1164, per_epoch: int = 388, eval_steps: int = 200) -> list[str]:
    """alpaca-lora's fine-tune (tloen/alpaca-lora ``finetune.py``): its parameters printed,
    PEFT's trainable parameters, then the Trainer's rows every 10 steps (``logging_steps=10``
    in the script) and an evaluation every ``eval_steps``; the loss is ``bad`` from step
    ``bad_from`` on (``0.0``: the 8-bit fp16 run whose loss fell to 0), the evaluation loss
    NaN there."""
    lines = ["Training Alpaca-LoRA model with params:", "base_model: decapoda-research/llama-7b-hf",
             "micro_batch_size: 8", "num_epochs: 3", "learning_rate: 0.0001",
             "val_set_size: 1000", "",
             "trainable params: 4194304 || all params: 6742609920 || trainable%: 0.0622"]
    previous = 0
    for step in range(10, steps + 1, 10):
        broken = bad_from is not None and step >= bad_from
        loss = bad if broken else f"{1.9 - step / 1000:.4f}"
        lines.append(_row(step, total, previous, f"'loss': {loss}, 'learning_rate': "
                          f"{1e-4 - step * 1e-8:.10g}, 'epoch': {step / per_epoch:.2f}"))
        previous = step
        if step % eval_steps == 0:
            value = "nan" if broken else f"{1.3 - step / 2000}"
            evaluation = "".join(f"\r{count * 100 // 125:3d}%|          | {count}/125 "
                                 f"[00:30<00:00,  4.12it/s]" for count in range(0, 126, 25))
            lines.append("\r" + _bar(step, total) + evaluation + "\r" + " " * 60 + "\r"
                         f"{{'eval_loss': {value}, 'eval_runtime': 30.2, "
                         f"'eval_samples_per_second': 33.1, 'eval_steps_per_second': 4.14, "
                         f"'epoch': {step / per_epoch:.2f}}}")
    return lines


def test_alpaca_lora_rows_behind_the_bar(tmp_path: Path) -> None:
    """Before: AMP006 at 31 and AMP013 at 40 (the rows numbered one a row, a tenth of their
    steps). Now each row is at the step its bar counts: the NaN at 310, the evaluation after
    it at 400; the loss that fell to exactly 0 (alpaca-lora's 8-bit fp16 failure) too."""
    assert faults(tmp_path, _alpaca_lora(310)) == [("AMP006", 310), ("AMP013", 400)]
    assert faults(tmp_path, _alpaca_lora(310, "0.0")) == [("AMP007", 310), ("AMP013", 400)]


def test_alpaca_lora_controls(tmp_path: Path) -> None:
    """Healthy runs, another length, epoch and evaluation interval (pass on the parent too)."""
    for lines in (_alpaca_lora(), _alpaca_lora(steps=900, total=2400, per_epoch=800,
                                               eval_steps=100)):
        assert faults(tmp_path, lines) == []


def _fastchat(collapse_from: int | None = None, steps: int = 300, total: int = 2000,
              early: tuple[int, ...] = (3, 9)) -> list[str]:
    """FastChat's LoRA fine-tune under DeepSpeed fp16 (lm-sys/FastChat
    ``fastchat/train/train_lora.sh``: ``--fp16 True --logging_steps 1``, DeepSpeed's launcher
    echoing its command): a row every step, DeepSpeed's overflow line glued to the bar it
    interrupted (its logger clears no bar) at the steps ``early`` (the scale finding its
    level), and from ``collapse_from`` on every step until the scale is 1 and DeepSpeed gives
    up; a skipped step's row prints 0.0 there (the Trainer's ``logging_nan_inf_filter`` over a
    NaN loss at ``logging_steps=1``)."""
    lines = ["[2023-07-01 09:59:00,000] [INFO] [runner.py:555:main] cmd = /usr/bin/python -u "
             "-m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMF19 "
             "--master_addr=127.0.0.1 --master_port=29500 fastchat/train/train_lora.py "
             "--model_name_or_path lmsys/vicuna-7b-v1.3 --fp16 True --logging_steps 1 "
             "--eval_steps 100",
             "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622"]
    scale, pending = 65536, "\r" + _bar(0, total)
    for step in range(1, steps + 1):
        collapsing = collapse_from is not None and step >= collapse_from
        if step in early or (collapsing and scale > 1):
            lines.append(pending + _DEEPSPEED.format(cur=scale, nxt=scale // 2))
            scale, pending = scale // 2, ""
        loss = "0.0" if collapsing else f"{1.3 - step / 1000:.4f}"
        lines.append(pending + _row(step, total, step, f"'loss': {loss}, 'learning_rate': "
                                    f"{2e-5 * min(1.0, step / 60):.10g}, 'epoch': "
                                    f"{step / 400:.2f}"))
        pending = "\r" + _bar(step, total)
        if collapsing and scale == 1:
            lines.append(pending + "Exception: Current loss scale already at minimum - cannot "
                         "decrease scale anymore. Exiting run.")
            break
    return lines


def test_fastchat_deepspeed_scale_collapse(tmp_path: Path) -> None:
    """Before: AMP003 at 152 and AMP007 at 153 (the two early overflow lines counted as
    steps of their own before rows numbered one a row; the skipped steps' 0.0 rows then read
    as a loss stuck at 0). Now the collapse starts at step 150, the bar's count, and the 0.0
    rows are the skipped steps' own."""
    assert faults(tmp_path, _fastchat(150)) == [("AMP003", 150)]


def test_fastchat_controls(tmp_path: Path) -> None:
    """Healthy runs: the two early overflows of fp16's start, none at all, a longer run
    (pass on the parent too)."""
    for lines in (_fastchat(), _fastchat(early=()), _fastchat(steps=700, total=5000,
                                                              early=(1, 2, 5))):
        assert faults(tmp_path, lines) == []


def _fastchat_opt(nan_from: int | None = None, steps: int = 400, total: int = 420) -> list[str]:
    """FastChat's small LoRA run (lm-sys/FastChat ``scripts/train_lora_opt_125m.sh``: opt-125m,
    ``--fp16 True``, ``--logging_steps 10``, under DeepSpeed's launcher, which echoes the
    command), at 12 steps a second: tqdm redraws the bar only every 0.1 s (about every other
    step), so the count drawn before a row is the step before it, and the first segment of
    each line is tqdm's refresh after the previous row."""
    lines = ["[2023-07-01 09:59:00,000] [INFO] [runner.py:555:main] cmd = /usr/bin/python -u "
             "-m deepspeed.launcher.launch --world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19 "
             "--master_addr=127.0.0.1 --master_port=61000 fastchat/train/train_lora_plus.py "
             "--model_name_or_path facebook/opt-125m --fp16 True --bf16 False "
             "--logging_strategy steps --logging_steps 10 --disable_tqdm False"]
    for step in range(10, steps + 1, 10):
        drawn = "".join("\r" + _bar(count, total, "12.31it/s")
                        for count in range(step - 10, step, 2))
        loss = "nan" if nan_from is not None and step >= nan_from else f"{2.9 - step / 500:.4f}"
        lines.append(drawn + "\r" + " " * 60 + "\r" + f"{{'loss': {loss}, 'learning_rate': "
                     f"2e-05, 'epoch': {step / 84:.2f}}}")
    return lines


def test_fastchat_fast_bar_is_not_the_step(tmp_path: Path) -> None:
    """Control for the rule above (passes on the parent, where the rows were numbered every
    10 steps by the echoed ``--logging_steps 10``): a bar faster than tqdm redraws it lags
    its rows, so its count is not theirs (the bar before the row of step 150 drew 148)."""
    assert faults(tmp_path, _fastchat_opt(150)) == [("AMP006", 150)]
    assert faults(tmp_path, _fastchat_opt()) == []


def _fastchat_torchrun(nan_from: int | None = None, every: int = 10, steps: int = 3000,
                       block: int = 4096) -> list[str]:
    """FastChat's full fine-tune under torchrun (lm-sys/FastChat ``scripts/test_train_opt.sh``:
    ``torchrun ... fastchat/train/train.py --fp16 True ... --logging_steps 1``; here
    ``--logging_steps {every}``), its output redirected to a file (``> train.log 2>&1``):
    torchrun adds no ``-u``, so the rows (stdout) reach the file in blocks of ``block`` bytes,
    glued to whatever bar (stderr, unbuffered) was drawn when the block was written, while
    the bar is cleared and redrawn at each row's print."""
    text = (f"$ torchrun --nproc_per_node=4 --master_port=20001 fastchat/train/train.py "
            f"--fp16 True --logging_steps {every}\n")
    held = ""
    text += "\r" + _bar(0, steps)
    for step in range(1, steps + 1):
        text += "\r" + _bar(step, steps)
        if step % every == 0:
            loss = "nan" if nan_from is not None and step >= nan_from else f"{1.3 - step / 1e4:.4f}"
            text += "\r" + " " * 60 + "\r"
            held += f"{{'loss': {loss}, 'learning_rate': 2e-05, 'epoch': {step / 1000:.2f}}}\n"
            while len(held) >= block:
                text, held = text + held[:block], held[block:]
            text += "\r" + _bar(step, steps)
    return (text + "\n" + held).split("\n")  # (the bar closed with a newline, leave=True)


def test_fastchat_buffered_rows(tmp_path: Path) -> None:
    """Before: AMP006 at 1490 (at ``--logging_steps 10``), at 598 for a NaN from 600 and at
    2897 for one from 2900 (at 1): a row that a block cut in two (its head ``{'loss':`` at
    one block's end, its tail in the next, the bar's redraws between on the same line) was no
    row, and each one cut put the rows after it a row early; a line that long is handed over
    in pieces, the head and the tail apart. Now the head and the tail are one row again; the
    rows of a block glued after the bar's clears are not numbered by that bar (it was cleared
    for every row the block holds)."""
    assert faults(tmp_path, _fastchat_torchrun(1500)) == [("AMP006", 1500)]
    assert faults(tmp_path, _fastchat_torchrun(600, every=1)) == [("AMP006", 600)]
    assert faults(tmp_path, _fastchat_torchrun(2900, every=1, block=8192)) == [
        ("AMP006", 2900)]


def test_fastchat_buffered_controls(tmp_path: Path) -> None:
    """Healthy runs, blocks of 4 and 8 KiB (pass on the parent too)."""
    for lines in (_fastchat_torchrun(), _fastchat_torchrun(every=1, block=8192)):
        assert faults(tmp_path, lines) == []
