"""LLM pre-training and fine-tuning stacks not tried before, on excerpts written from their own
format strings (each case names the source it follows): a NaN loss at the step the log prints,
a loss-scale collapse where the tool trains fp16 under a dynamic scaler (with the tool's own
overflow message where it has one), and silence on healthy controls run with settings other
than the defaults (other log intervals, bf16, gradient accumulation, evaluation lines).

- torchtitan's metric logger (``step: N  loss: X  memory: ...`` in colours, in five wordings
  since 2024) and its validator's ``validate step:`` lines, its non-finite stop;
- axolotl's HF Trainer rows with its own keys (``ppl``, ``memory/max_active (GiB)``) behind
  its coloured logger, under DeepSpeed ZeRO-2 fp16 (``initial_scale_power: 32``, hysteresis 2);
- unsloth's banners above HF's rows, and the notebook's table;
- Megatron-DeepSpeed (BigScience's and Microsoft's forks): seconds per iteration, consumed
  tokens, DeepSpeed's overflow lines between the iteration lines;
- DeepSpeed-Chat's step 1 (``loss = tensor(...)`` from every rank, the epoch's perplexity) and
  step 3 prints (``Epoch: | Step: | PPO Epoch: | Actor Loss: | Critic Loss:``, its
  ``OVERFLOW:`` lines);
- open-instruct's accelerate loops;
- llm-foundry's Composer console records;
- lit-llama's ``iter N:`` and lit-gpt's ``iter N step M`` lines;
- the alignment handbook's trl rows;
- Megatron-core's newer iteration fields and its rerun state machine's wordings.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

NAN = float("nan")


def _falling(n: int, start: float = 3.0) -> list[float]:
    return [round(start - 0.01 * i, 4) for i in range(n)]


def _quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], [(d.code, d.step, d.summary) for d in result.faults]


# HF Trainer's row as its ProgressCallback prints it (axolotl's, unsloth's)
def _hf_row(loss: float, grad_norm: float, epoch: float, strings: bool,
            extra: dict[str, object]) -> str:
    row: dict[str, object] = {"loss": loss, "grad_norm": grad_norm, "learning_rate": 2e-05,
                              "epoch": round(epoch, 2), **extra}
    if strings:  # transformers 5's ProgressCallback: f"{v:.4g}" for every float
        row = {k: f"{v:.4g}" if isinstance(v, float) else v for k, v in row.items()}
    return str(row)


# --- torchtitan: torchtitan/components/metrics.py MetricsProcessor.log ----------------------------
# logger.info(f"{color.red}step: {step:2}  {color.green}loss: {global_avg_loss:8.5f}  "
# f"{color.orange}grad_norm: {grad_norm:7.4f}  {color.turquoise}memory: ...GiB(...%)  "
# f"{color.blue}tps: {round(tps):,}  {color.cyan}tflops: {tflops:,.2f}  "
# f"{color.magenta}mfu: {mfu_str}{color.reset}") behind "[titan] %(asctime)s - %(name)s -
# %(levelname)s - " (torchtitan/tools/logging.py); the colours are ANSI (tools/utils.py Color),
# none with --metrics.disable_color_printing. Earlier wordings (train.py): 2024-02 ``step:  1
# loss:  10.23  iter:  1.2  data: 0.01  lr: 0.0008``, 2024-03 ``wps:`` and ``peak_memory:``,
# 2024-04 ``memory: ...GiB(...%)  wps:  mfu:``, 2025-02 ``tps:`` and ``tflops:``, 2025-07
# ``grad_norm:`` and ``loss:`` to five places. Validation (log_validation): ``validate step:
# {step:2}  loss: {loss:7.4f}  memory: ...  tps: ...``.
_C = {"red": "\x1b[31m", "green": "\x1b[32m", "yellow": "\x1b[33m", "blue": "\x1b[34m",
      "magenta": "\x1b[35m", "cyan": "\x1b[36m", "reset": "\x1b[39m",
      "orange": "\x1b[38;2;180;60;0m", "turquoise": "\x1b[38;2;54;234;195m"}
_NO_C = dict.fromkeys(_C, "")
_TITAN = "[titan] 2025-08-01 10:00:00,000 - root - INFO - "


def _titan_line(era: str, step: int, loss: float, c: dict[str, str]) -> str:
    norm = 0.5 if math.isfinite(loss) else NAN
    if era == "2024-02":
        return (f"{c['cyan']}step: {step:>2}  {c['green']}loss: {round(loss, 4):>7}  "
                f"{c['reset']}iter: {c['blue']}{1.2345:>7}{c['reset']}  data: {c['blue']}"
                f"{0.0012:>5}  {c['reset']}lr: {c['yellow']}{0.0008:<6}{c['reset']}")
    if era == "2024-03":
        return (f"2024-03-12 10:00:00,000 - root - INFO - {c['cyan']}step: {step:2}  "
                f"{c['green']}loss: {loss:7.4f}  {c['blue']}wps: {12345:7,}  "
                f"{c['yellow']}peak_memory: {45.6:5}%{c['reset']}")
    if era == "2024-04":
        return (f"{_TITAN}{c['cyan']}step: {step:2}  {c['green']}loss: {loss:7.4f}  "
                f"{c['yellow']}memory: 45.12GiB(56.78%)  {c['blue']}wps: 12,345  "
                f"{c['magenta']}mfu: 31.60%{c['reset']}")
    if era == "2025-02":
        return (f"{_TITAN}{c['red']}step: {step:2}  {c['green']}loss: {loss:7.4f}  "
                f"{c['yellow']}memory: 45.12GiB(56.78%)  {c['blue']}tps: 12,345  "
                f"{c['cyan']}tflops: 312.50  {c['magenta']}mfu: 31.60%{c['reset']}")
    return (f"{_TITAN}{c['red']}step: {step:2}  {c['green']}loss: {loss:8.5f}  "
            f"{c['orange']}grad_norm: {norm:7.4f}  {c['turquoise']}memory: 45.12GiB(56.78%)  "
            f"{c['blue']}tps: 12,345  {c['cyan']}tflops: 312.50  {c['magenta']}mfu: 31.60%"
            f"{c['reset']}")


def _titan(losses: list[float], every: int, era: str = "2025-07", *, color: bool = True,
           validate_every: int | None = None, val_loss: float = 2.5) -> list[str]:
    c = _C if color else _NO_C
    lines = []
    for i, loss in enumerate(losses):
        step = (i + 1) * every
        lines.append(_titan_line(era, step, loss, c))
        if validate_every and step % validate_every == 0:
            lines.append(f"{_TITAN}{c['yellow']}validate step: {step:2}  {c['green']}loss: "
                         f"{val_loss:7.4f}  {c['turquoise']}memory: 45.12GiB(56.78%)  "
                         f"{c['blue']}tps: 23,456{c['reset']}")
    return lines


@pytest.mark.parametrize("era", ["2024-02", "2024-03", "2024-04", "2025-02", "2025-07"])
def test_torchtitan_nan_at_the_printed_step(tmp_path: Path, era: str) -> None:
    # --metrics.log_freq 10: the ninth line is step 90
    assert faults(tmp_path, _titan([*_falling(8, 11.0), NAN, NAN, NAN], 10, era))[:1] == [
        ("AMP006", 90)]


def test_torchtitan_healthy_runs_are_silent(tmp_path: Path) -> None:
    # bf16 (FSDP's default mixed precision: no scaler), logged every step or every 10, with
    # colours or without, validation every 50 steps
    _quiet(tmp_path, _titan(_falling(60, 11.0), 1, validate_every=50))
    _quiet(tmp_path, _titan(_falling(30, 11.0), 10, color=False, validate_every=50))
    result = diagnose_lines(tmp_path, _titan(_falling(30, 11.0), 10, validate_every=50))
    assert result.timeline.steps == 300  # the validator's lines are no training steps


def test_torchtitan_validation_nan_is_evaluation_not_training(tmp_path: Path) -> None:
    # Before: "validate step: 100  loss:     nan" was read as a training row (AMP006, and a
    # step counted per validation)
    lines = _titan(_falling(30, 11.0), 10, validate_every=100, val_loss=NAN)
    assert faults(tmp_path, lines) == [("AMP013", 100)]


def test_torchtitan_stops_on_a_non_finite_step(tmp_path: Path) -> None:
    # torchtitan/trainer.py (2026-08): torch._assert_async(step_is_finite, "Loss or gradient
    # norm is not finite on at least one rank at step {self.step}. Stopping training before
    # the optimizer update."), raised before the step's own metrics line
    lines = [*_titan(_falling(12, 11.0), 10),
             "[rank0]: RuntimeError: Loss or gradient norm is not finite on at least one rank "
             "at step 123. Stopping training before the optimizer update."]
    assert faults(tmp_path, lines) == [("AMP006", 123)]


# --- axolotl: HF Trainer rows with axolotl's keys (src/axolotl/core/trainers/base.py log():
# ``ppl`` = exp(loss), ``memory/max_active (GiB)`` ...), its logger ("[%(asctime)s]
# [%(levelname)s] [%(name)s.%(funcName)s:%(lineno)d] [PID:%(process)d][RANK] %(message)s" in
# colour, src/axolotl/logging_config.py), DeepSpeed's lines under deepspeed_configs/zero2.json
# ("fp16": initial_scale_power 32, hysteresis 2, loss_scale_window 1000, min_loss_scale 1).
_AXOLOTL = "[2024-05-01 10:00:00,000] [INFO] [axolotl.train.train:173] [PID:1234] [RANK:0] "
_DS_INFO = "[2024-05-01 10:00:00,000] [INFO] "
_DS_OVERFLOW = (_DS_INFO + "[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                "Skipping step. Attempted loss scale: {before}, reducing to {after}")
_DS_HYSTERESIS = (_DS_INFO + "[loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                  "Skipping step. Attempted loss scale: {before}, but hysteresis is 2. "
                  "Reducing hysteresis to 1")
_DS_PROGRESS = (_DS_INFO + "[logging.py:96:log_dist] [Rank 0] step={step}, skipped={skipped},"
                " lr=[2e-05], mom=[(0.9, 0.999)]")


def _axolotl_row(loss: float, epoch: float, strings: bool = False) -> str:
    finite = math.isfinite(loss)
    return _hf_row(loss, 0.42 if finite else NAN, epoch, strings,
                   {"ppl": round(math.exp(loss), 5) if finite else NAN,
                    "memory/max_active (GiB)": 14.2, "memory/max_allocated (GiB)": 14.2,
                    "memory/device_reserved (GiB)": 15.1})


def _axolotl(losses: list[float], strings: bool = False) -> list[str]:
    return [_AXOLOTL + "Starting trainer...\x1b[39m",
            *(_axolotl_row(loss, 0.01 * i, strings) for i, loss in enumerate(losses))]


@pytest.mark.parametrize("strings", [False, True], ids=["transformers 4", "transformers 5"])
def test_axolotl_nan_at_its_row(tmp_path: Path, strings: bool) -> None:
    # HF's rows print no step: the ninth row (logging_steps set or not)
    assert faults(tmp_path, _axolotl([*_falling(8, 1.5), NAN, NAN, NAN], strings))[:1] == [
        ("AMP006", 9)]


def test_axolotl_bf16_rows_and_its_own_lines_are_silent(tmp_path: Path) -> None:
    # the loss watchdog (src/axolotl/utils/callbacks/__init__.py LossWatchDogCallback) warns
    # of a loss above its threshold, no fault of the loss scale
    lines = [*_axolotl(_falling(40, 1.5), strings=True),
             "\x1b[33m[2024-05-01 10:00:00,000] [WARNING] [axolotl.utils.callbacks.on_step_end:79]"
             " [PID:1234] Loss is too high, stopping training (loss_watchdog_threshold)\x1b[39m"]
    _quiet(tmp_path, lines)


def _axolotl_zero2(steps: int, collapse_from: int | None = None,
                   logging_steps: int = 5) -> list[str]:
    """A run under zero2.json fp16: DeepSpeed backs off from 2**32 at start (one hysteresis
    step, then a halving per overflow), prints ``step=, skipped=`` every 10 steps
    (steps_per_print) and one OVERFLOW line per skipped step; HF prints its row every
    ``logging_steps``. From ``collapse_from`` every step overflows, down to the floor."""
    lines = [_AXOLOTL + "Starting trainer...\x1b[39m"]
    scale, skipped = 2.0 ** 32, 0
    for step in range(1, steps + 1):
        overflow = step <= 17 or (collapse_from is not None and step >= collapse_from)
        if overflow:
            if scale == 1.0:
                lines.append("Exception: Current loss scale already at minimum - cannot "
                             "decrease scale anymore. Exiting run.")
                break
            if step == 1:
                lines.append(_DS_HYSTERESIS.format(before=int(scale)))
            else:
                lines.append(_DS_OVERFLOW.format(before=int(scale), after=int(scale / 2)))
                scale /= 2
            skipped += 1
        if step % 10 == 0:
            lines.append(_DS_PROGRESS.format(step=step, skipped=skipped))
        if step % logging_steps == 0:
            lines.append(_axolotl_row(1.5 - step * 1e-3, step / 1000))
    return lines


def test_axolotl_zero2_fp16_collapse(tmp_path: Path) -> None:
    # every step from 121 on overflows: the scale halves from 32768 down to its floor of 1,
    # where DeepSpeed stops the run
    found = faults(tmp_path, _axolotl_zero2(300, collapse_from=121))
    assert found[:1] == [("AMP003", 121)]


def test_axolotl_zero2_fp16_start_up_back_off_is_silent(tmp_path: Path) -> None:
    # 17 halvings from 2**32 (and one hysteresis step) before the first applied step
    result = diagnose_lines(tmp_path, _axolotl_zero2(300, logging_steps=10))
    assert result.faults == []
    assert (result.timeline.steps, result.timeline.skipped) == (300, 17)


# --- unsloth: its banners (unsloth/models/llama.py: the patching statistics on load, and the
# one its patched Trainer._inner_training_loop logs, logger.warning(debug_info)) above HF's rows
_UNSLOTH = [
    "==((====))==  Unsloth 2025.3.19: Fast Llama patching. Transformers: 4.50.0.",
    "   \\\\   /|    Tesla T4. Num GPUs = 1. Max memory: 14.741 GB. Platform: Linux.",
    "O^O/ \\_/ \\    Torch: 2.6.0+cu124. CUDA: 7.5. CUDA Toolkit: 12.4. Triton: 3.2.0",
    "\\        /    Bfloat16 = FALSE. FA [Xformers = 0.0.29.post3. FA2 = False]",
    ' "-____-"     Free license: http://github.com/unslothai/unsloth',
    "Unsloth: Fast downloading is enabled - ignore downloading bars which are red colored!",
    "==((====))==  Unsloth - 2x faster free finetuning | Num GPUs used = 1",
    "   \\\\   /|    Num examples = 51,760 | Num Epochs = 1 | Total steps = 60",
    "O^O/ \\_/ \\    Batch size per device = 2 | Gradient accumulation steps = 4",
    "\\        /    Data Parallel GPUs = 1 | Total batch size (2 x 4 x 1) = 8",
    ' "-____-"     Trainable parameters = 41,943,040 of 8,072,204,288 (0.52% trained)',
]


def _unsloth(losses: list[float]) -> list[str]:
    return [*_UNSLOTH, *(_hf_row(loss, 0.6 if math.isfinite(loss) else NAN, 8 * (i + 1) / 51760,
                                 False, {}) for i, loss in enumerate(losses))]


def test_unsloth_banners_are_no_metrics(tmp_path: Path) -> None:
    # "Total steps = 60", "Num Epochs = 1", "Gradient accumulation steps = 4": settings
    result = diagnose_lines(tmp_path, _unsloth(_falling(60, 1.8)))
    assert result.faults == [] and result.timeline.steps == 60


def test_unsloth_nan_at_its_row(tmp_path: Path) -> None:
    assert faults(tmp_path, _unsloth([*_falling(29, 1.8), NAN, NAN, NAN]))[:1] == [
        ("AMP006", 30)]


def test_unsloth_notebook_table_nan_at_its_step(tmp_path: Path) -> None:
    # the notebook's progress table as a Colab cell's output is copied: tabs between cells
    table = [*_UNSLOTH[6:], " [60/60 01:23, Epoch 0/1]", "Step\tTraining Loss"]
    rows = [f"{i}\t{'nan' if i >= 30 else f'{1.8 - i * 0.01:.6f}'}" for i in range(1, 61)]
    assert faults(tmp_path, table + rows) == [("AMP006", 30)]


def test_unsloth_float32_fallback_applies_nan_gradients(tmp_path: Path) -> None:
    # unsloth/models/rl.py (2026-08): a float32 model on a GPU without bf16 trains in fp32;
    # gradient norms that turn NaN are applied (no scaler to skip them): AMP006, not a collapse
    lines = ["Unsloth: Model is in float32 and this GPU has no bfloat16 support, so training "
             "stays in float32. Pass fp16 = True to force float16 mixed precision instead.",
             *(_hf_row(1.8 - 0.01 * i, 0.6 if i < 10 else NAN, 0.01 * i, False, {})
               for i in range(20))]
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP006"]


# --- Megatron-DeepSpeed: megatron/training.py training_log -------------------------------------
# BigScience's fork (bigscience-workshop/Megatron-DeepSpeed, 2021-2023): ' iteration {:8d}/{:8d}
# |', ' consumed samples: {:12d} |', ' consumed tokens: {:12d} |', ' elapsed time per iteration
# (s): {:.2f} |', ' learning rate: {:.3E} |', ' global batch size: {:5d} |', ' {}: {:.6E} |'
# (only where the average is > 0), ' loss scale: {:.1f} |' (fp16 only), ' grad norm: {:.3f} |',
# ' num zeros: {:.1f} |', ' number of skipped iterations: {:3d} |', ' number of nan
# iterations: {:3d} |', ' samples per second: {:.3f} |', ' TFLOPs: {:.2f} |'. Microsoft's fork
# (2024): milliseconds, ' actual seqlen: {:5d} |', ' tokens per gpu per second (tgs): {:.3f} |'.
# Under DeepSpeed's fp16 optimizer, DeepSpeed prints an OVERFLOW line per skipped iteration too.
_BLOOM_OVERFLOW = ("[2022-05-01 10:00:00,000] [INFO] [stage_1_and_2.py:1734:step] [deepspeed] "
                   "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {before}, reducing to "
                   "{after}")


def _bloom_line(iteration: int, loss: float | None, scale: float | None, skipped: int,
                nans: int, norm: float | None, microsoft: bool = False) -> str:
    line = (f" iteration {iteration:8d}/  115311 | consumed samples: {iteration * 2048:12d} | "
            f"consumed tokens: {iteration * 2048 * 2048:12d} | ")
    line += ("elapsed time per iteration (ms): 1234.5 | " if microsoft
             else "elapsed time per iteration (s): 107.04 | ")
    line += "learning rate: 6.000E-05 | global batch size:  2048 |"
    if loss is not None:
        line += f" lm loss: {loss:.6E} |"
    if scale is not None:
        line += f" loss scale: {scale:.1f} |"
    if norm is not None:
        line += f" grad norm: {norm:.3f} |"
    line += " num zeros: 0.0 |"
    if microsoft:
        line += " actual seqlen:  2048 |"
    line += (f" number of skipped iterations: {skipped:3d} | number of nan iterations: "
             f"{nans:3d} | samples per second: 19.133 |")
    if microsoft:
        line += " tokens per gpu per second (tgs): 1234.567 |"
    return line + " TFLOPs: 148.19 |"


def _bloom(healthy: int, collapsing: int = 0, every: int = 10, *,
           overflow_lines: bool = True) -> list[str]:
    """``healthy`` fp16 intervals at a scale of 4096, then ``collapsing`` intervals in which
    every iteration overflows (no loss printed: none was applied), the scale halving each time
    down to 1."""
    lines, scale = [], 4096.0
    for i in range(healthy):
        lines.append(_bloom_line((i + 1) * every, 2.6 - i * 0.001, scale, 0, 0, 0.2))
    for i in range(healthy, healthy + collapsing):
        for _ in range(every):
            after = max(scale / 2, 1.0)
            if overflow_lines:
                lines.append(_BLOOM_OVERFLOW.format(before=int(scale), after=int(after)))
            scale = after
        lines.append(_bloom_line((i + 1) * every, None, scale, every, every, None))
    return lines


@pytest.mark.parametrize("overflow_lines", [True, False], ids=["with DeepSpeed's", "alone"])
def test_megatron_deepspeed_fp16_collapse_counts_each_skip_once(tmp_path: Path,
                                                                overflow_lines: bool) -> None:
    # Before: DeepSpeed's OVERFLOW lines placed the interval's skips one by one, then the
    # iteration line's "number of skipped iterations: 10" placed one more on its last
    # iteration: 110 skipped of 210 steps (was 100 of 200)
    result = diagnose_lines(tmp_path, _bloom(10, 10, overflow_lines=overflow_lines))
    assert (result.timeline.steps, result.timeline.skipped) == (200, 100)
    assert sorted((d.code, d.step) for d in result.faults) == [("AMP003", 101), ("AMP006", 101)]


def test_megatron_deepspeed_healthy_runs_are_silent(tmp_path: Path) -> None:
    # bf16 (BLOOM-176B's: no loss scale printed), a microsoft-fork line every 5 iterations, an
    # fp16 sawtooth (one overflow an interval now and then), and the run skipping a range of
    # data on purpose (--skip-train-iteration-range, megatron/training.py)
    _quiet(tmp_path, [_bloom_line(i * 10, 2.6 - i * 0.001, None, 0, 0, 0.2) for i in range(1, 40)])
    _quiet(tmp_path, [_bloom_line(i * 5, 2.6 - i * 0.001, 4096.0, 0, 0, 0.2, microsoft=True)
                      for i in range(1, 40)])
    lines, scale = [], 4096.0
    for i in range(1, 40):
        if i % 8 == 0:
            lines.append(_BLOOM_OVERFLOW.format(before=int(scale * 2), after=int(scale)))
        lines.append(_bloom_line(i * 10, 2.6 - i * 0.001, scale, int(i % 8 == 0), 0, 0.2))
    lines.insert(20, "Skipped iterations 200 to 240 due to --skip-train-iteration-range flag.")
    _quiet(tmp_path, lines)


def test_megatron_deepspeed_bf16_nan_without_a_loss(tmp_path: Path) -> None:
    # bf16: no scaler skips the NaN step; Megatron leaves the loss out (avg > 0.0 is False for
    # NaN) and prints "grad norm: nan", no loss scale. Before: the line without a loss or a
    # loss scale was no Megatron line, and the NaN gradient norms read as a collapse (AMP003)
    lines = [_bloom_line(i * 10, 2.6 - i * 0.001, None, 0, 0, 0.2) for i in range(1, 11)]
    lines += [_bloom_line(i * 10, None, None, 0, 0, NAN) for i in range(11, 16)]
    assert faults(tmp_path, lines) == [("AMP006", 110)]


# --- DeepSpeed-Chat (DeepSpeedExamples applications/DeepSpeed-Chat) -----------------------------
# step 1 main.py with --print_loss: print(f"Epoch: {epoch}, Step: {step}, Rank: {rank}, loss =
# {loss}") on every rank, every micro-batch (the loss a tensor: its repr), the epoch's
# perplexity after "***** Evaluating perplexity, Epoch {e}/{n} *****" (print_rank_0(f"ppl:
# {perplexity}, loss: {eval_loss}")); step 3 main.py (2023-08-): f'Epoch: {epoch} | Step:
# {step} | PPO Epoch: {ppo_ep+1} | Actor Loss: {...} | Critic Loss: {...} | Unsupervised Loss:
# {...}', before it (2023-04..07) f'epoch: {epoch}|step: {step}|ppo_ep: {ppo_ep+1}|act_loss:
# {...}|cri_loss: {...}|unsuper_loss: {...}'; the PPO trainer's --align_overflow prints
# "OVERFLOW: actor overflow, skipping both actor and critic steps" (dschat/rlhf/
# ppo_trainer.py).
def _tensor(value: float) -> str:
    shown = "nan" if math.isnan(value) else f"{value:.4f}"
    return f"tensor({shown}, device='cuda:0', dtype=torch.float16, grad_fn=<NllLossBackward0>)"


def _dschat_sft(nan_from: int | None = None, epochs: int = 2, batches: int = 20) -> list[str]:
    """Step 1 on two ranks; ``nan_from``: the micro-batch (counted from 0 over the epochs)
    whose loss is NaN first."""
    lines = ["***** Running training *****",
             "***** Evaluating perplexity, Epoch 0/2 *****", "ppl: 4998.29638671875, loss: 8.5167"]
    for epoch in range(epochs):
        lines.append(f"Beginning of Epoch {epoch + 1}/{epochs}, Total Micro Batches {batches}")
        broken = False
        for step in range(batches):
            seen = epoch * batches + step
            broken = nan_from is not None and seen >= nan_from
            loss = NAN if broken else 3.0 - seen * 0.01
            lines += [f"Epoch: {epoch}, Step: {step}, Rank: {rank}, loss = {_tensor(loss)}"
                      for rank in (0, 1)]
            if step % 10 == 9:
                lines.append("Model Parameters: 1.316 B, Latency: 0.55s, TFLOPs: 0.51, "
                             "Samples/sec: 3.65, Time/seq 0.27s, Batch Size: 2, Sequence "
                             "Length: 512")
        lines += [f"***** Evaluating perplexity, Epoch {epoch + 1}/{epochs} *****",
                  "ppl: nan, loss: nan" if broken else "ppl: 2.31, loss: 0.8372"]
    return lines


def test_dschat_sft_nan_at_its_micro_batch(tmp_path: Path) -> None:
    # epoch 1, step 4 of 20 batches counted from 0: the run's micro-batch 24; the epoch's
    # evaluation after it is evaluation's (before: "ppl: ..., loss: ..." was a training row,
    # each one a step, and the NaN was put at 20)
    found = faults(tmp_path, _dschat_sft(nan_from=24))
    assert found == [("AMP006", 24), ("AMP013", 39)]


def test_dschat_sft_healthy_is_silent(tmp_path: Path) -> None:
    result = diagnose_lines(tmp_path, _dschat_sft())
    assert result.faults == [] and result.timeline.steps == 40


def _dschat_ppo(steps: int = 30, nan_from: int | None = None, overflows: range = range(0),
                old: bool = False) -> list[str]:
    lines = [f"***** Running training (total_iters={steps}) *****",
             f"Beginning of Epoch 1/1, Total Generation Batches {steps}"]
    for step in range(steps):
        if step in overflows:
            lines.append("OVERFLOW: actor overflow, skipping both actor and critic steps")
        actor = NAN if nan_from is not None and step >= nan_from else 0.2 - step * 0.001
        if old:
            lines.append(f"epoch: 0|step: {step}|ppo_ep: 1|act_loss: {actor}|cri_loss: 0.1|"
                         "unsuper_loss: 0.0")
        else:
            lines.append(f"Epoch: 0 | Step: {step} | PPO Epoch: 1 | Actor Loss: {actor} | "
                         "Critic Loss: 0.1 | Unsupervised Loss: 0.0")
        lines += ["End-to-End => Latency: 4.50s, TFLOPs: 12.34, Samples/sec: 14.22, Time/seq "
                  "0.07s, Batch Size: 64, Total Seq. Length: 512",
                  "Training   => Latency: 2.40s, TFLOPs: 20.00",
                  f"Average reward score: {-1.23 if math.isfinite(actor) else 'nan'} | EMA "
                  "reward score: -1.30",
                  "-" * 85]
    return lines


@pytest.mark.parametrize("old", [False, True], ids=["2023-08 on", "2023-04"])
def test_dschat_ppo_nan_at_its_step(tmp_path: Path, old: bool) -> None:
    assert faults(tmp_path, _dschat_ppo(nan_from=12, old=old))[:1] == [("AMP006", 12)]


def test_dschat_ppo_overflow_on_every_step_collapses(tmp_path: Path) -> None:
    # --align_overflow's print for each skipped PPO step, from step 10 on
    result = diagnose_lines(tmp_path, _dschat_ppo(overflows=range(10, 30)))
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", 10)]
    assert (result.timeline.steps, result.timeline.skipped) == (30, 20)


def test_dschat_ppo_one_overflow_and_bf16_are_silent(tmp_path: Path) -> None:
    _quiet(tmp_path, _dschat_ppo(overflows=range(5, 6)))
    _quiet(tmp_path, _dschat_ppo(steps=60, old=True))


# --- open-instruct: open_instruct/finetune.py, dpo_tune_cache.py (accelerate loops) ------------
# logger.info(f"  Step: {completed_steps}, LR: {lr_scheduler.get_last_lr()[0]}, Loss:
# {avg_loss}") every logging_steps optimizer steps (2023-06: basicConfig "%(asctime)s -
# %(levelname)s - %(name)s - %(message)s" with datefmt "%m/%d/%Y %H:%M:%S"); from 2025 with
# ", TPS: {...}" and "%(asctime)s - %(levelname)s - %(filename)s:%(lineno)d - %(message)s",
# beside accelerator.print(f"Approx. time remaining: ... {completed_steps=}, ...").
def _open_instruct(every: int, nan_from: int | None = None, rows: int = 20,
                   new: bool = False) -> list[str]:
    lines = []
    for i in range(1, rows + 1):
        step = i * every
        loss = NAN if nan_from is not None and step >= nan_from else 1.5 - step * 1e-3
        if new:
            lines += [f"Approx. time remaining: 0:10:00. args.max_train_steps=1000, "
                      f"completed_steps={step}, steps_remaining={1000 - step}",
                      f"2025-01-01 10:00:00,000 - INFO - finetune.py:949 -   Step: {step}, LR: "
                      f"1.9e-05, Loss: {loss}, TPS: 12345.6"]
        else:
            lines.append(f"06/09/2023 10:00:00 - INFO - __main__ -   Step: {step}, LR: 1.9e-05, "
                         f"Loss: {loss}")
    return lines


@pytest.mark.parametrize("new", [False, True], ids=["2023", "2025"])
def test_open_instruct_nan_at_the_printed_step(tmp_path: Path, new: bool) -> None:
    assert faults(tmp_path, _open_instruct(10, nan_from=90, new=new))[:1] == [("AMP006", 90)]


@pytest.mark.parametrize("every", [1, 25])
def test_open_instruct_healthy_is_silent(tmp_path: Path, every: int) -> None:
    result = diagnose_lines(tmp_path, _open_instruct(every, new=True))
    assert result.faults == [] and result.timeline.steps == 20 * every


# --- llm-foundry: Composer's ConsoleLogger (composer/loggers/console_logger.py) ----------------
# log_to_console: f'{progress}:' then f'\n\t {prefix}{data_name}: {data_str}' a metric a line,
# floats as f'{data:.4f}' (loggers/logger.py format_log_data_value); progress ``[batch=12/4800]``
# for a duration in batches, ``[epoch=1][batch=16/32]`` in epochs; evaluation's ``[Eval
# batch=3/10] Eval on eval data:`` with ``Eval `` before each name.
def _composer(losses: list[float], every: int = 1, total: int = 4800,
              epoch_length: int | None = None, eval_every: int | None = None,
              eval_loss: float = 2.5) -> list[str]:
    lines = []
    for i, loss in enumerate(losses):
        batch = (i + 1) * every
        if epoch_length:
            epoch, in_epoch = divmod(batch - 1, epoch_length)
            lines.append(f"[epoch={epoch + 1}][batch={in_epoch + 1}/{epoch_length}]:")
        else:
            lines.append(f"[batch={batch}/{total}]:")
        value = "nan" if math.isnan(loss) else f"{loss:.4f}"
        for name, shown in (("time/batch", batch - 1), ("time/sample", (batch - 1) * 256),
                            ("time/batch_in_epoch", batch - 1),
                            ("time/token", (batch - 1) * 524288),
                            ("trainer/device_train_microbatch_size", 8),
                            ("loss/train/total", value),
                            ("metrics/train/LanguageCrossEntropy", value),
                            ("metrics/train/LanguagePerplexity", "nan" if math.isnan(loss)
                             else f"{math.exp(loss):.4f}"),
                            ("throughput/batches_per_sec", "0.5000"),
                            ("lr-DecoupledAdamW/group0", "0.0006"),
                            ("l2_norm/grad/global", "nan" if math.isnan(loss) else "0.9000"),
                            ("time/train", "0.0122"), ("time/val", "0.0000")):
            lines.append(f"\t Train {name}: {shown}")
        if eval_every and batch % eval_every == 0:
            lines += ["[Eval batch=10/10] Eval on eval data:",
                      f"\t Eval metrics/eval/LanguageCrossEntropy: {eval_loss:.4f}",
                      f"\t Eval metrics/eval/LanguagePerplexity: {math.exp(eval_loss):.4f}"]
    return lines


@pytest.mark.parametrize(("every", "epoch_length", "step"),
                         [(1, None, 12), (10, None, 120), (10, 50, 120)])
def test_composer_record_nan_at_its_batch(tmp_path: Path, every: int, epoch_length: int | None,
                                          step: int) -> None:
    # Before: the record's progress line (no keyword) was never read and its two loss lines
    # (the loss and LanguageCrossEntropy) were two rows: the NaN at step 23, 60 steps of 30
    lines = _composer([*_falling(11, 7.5), NAN, NAN, NAN], every, epoch_length=epoch_length)
    assert faults(tmp_path, lines)[:1] == [("AMP006", step)]


def test_composer_healthy_records_are_silent(tmp_path: Path) -> None:
    result = diagnose_lines(tmp_path, _composer(_falling(30, 7.5), 10, eval_every=100))
    assert result.faults == [] and result.timeline.steps == 300


def test_composer_evaluation_nan_is_evaluation(tmp_path: Path) -> None:
    lines = _composer(_falling(30, 7.5), 10, eval_every=100, eval_loss=NAN)
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP013"]


# --- lit-llama and lit-gpt / litgpt ---------------------------------------------------------------
# lit-llama finetune/*.py, pretrain/*.py: fabric.print(f"iter {iter_num}: loss {loss.item():.4f},
# time: {dt*1000:.2f}ms") every micro-batch, f"step {iter_num}: val loss {val_loss:.4f}";
# lit-gpt (2023-2024) f"iter {iter_num} step {step_count}: loss {loss.item():.4f}, iter time:
# {...:.2f}ms{' (optimizer.step)' if not is_accumulating else ''}"; litgpt (2024-03-):
# f"Epoch {epoch+1} | iter {iter} step {step} | loss train: {loss:.3f}, val: {val_loss} | iter
# time: {...:.2f} ms{' (step)' ...} remaining time: {...}", f"iter {iter}: val loss {...:.4f},
# val time: {...:.2f} ms".
def _lit_gpt(steps: int, accumulation: int, nan_from: int | None = None,
             litgpt: bool = True, eval_every: int = 10) -> list[str]:
    lines = []
    for it in range(1, steps * accumulation + 1):
        step = it // accumulation
        loss = NAN if nan_from is not None and step >= nan_from else 3.1 - step * 0.01
        stepped = it % accumulation == 0
        if litgpt:
            lines.append(f"Epoch 1 | iter {it} step {step} | loss train: {loss:.3f}, val: n/a | "
                         f"iter time: 120.00 ms{' (step)' if stepped else ''} remaining time: "
                         "0:10:00")
        else:
            lines.append(f"iter {it} step {step}: loss {loss:.4f}, iter time: 120.00ms"
                         f"{' (optimizer.step)' if stepped else ''}")
        if stepped and step % eval_every == 0:
            lines.append(f"iter {it}: val loss 2.9000, val time: 1234.00 ms")
    return lines


@pytest.mark.parametrize("litgpt", [True, False], ids=["litgpt", "lit-gpt"])
def test_lit_gpt_step_is_the_optimizer_step(tmp_path: Path, litgpt: bool) -> None:
    # Before: "iter 48 step 12" was step 48 (the micro-batches), and 120 steps of 30
    result = diagnose_lines(tmp_path, _lit_gpt(30, 4, nan_from=12, litgpt=litgpt))
    assert [(d.code, d.step) for d in result.faults][:1] == [("AMP006", 12)]
    assert result.timeline.steps <= 31  # (lit-gpt prints step 0 for its first micro-batches)


def test_lit_gpt_healthy_with_accumulation_is_silent(tmp_path: Path) -> None:
    _quiet(tmp_path, _lit_gpt(40, 8))
    _quiet(tmp_path, _lit_gpt(40, 1, litgpt=False))


def test_lit_llama_iterations(tmp_path: Path) -> None:
    lines = []
    for it in range(60):
        loss = NAN if it >= 30 else 3.1 - it * 0.01
        lines.append(f"iter {it}: loss {loss:.4f}, time: 120.00ms")
        if it and it % 20 == 0:
            lines.append(f"step {it}: val loss {loss:.4f}")
    assert faults(tmp_path, lines) == [("AMP006", 30), ("AMP013", 40)]


# --- the alignment handbook: scripts/dpo.py, sft.py on trl's trainers ----------------------------
# logger.info(f"Training parameters {training_args}") (the whole config's repr on one line),
# trl DPOTrainer's rows (rewards/*, logps/*, logits/*), trainer.log_metrics("train", metrics)
# ("***** train metrics *****" then "  train_loss               =     0.55").
_DPO_CONFIG = ("2024-03-01 10:00:00 - INFO - __main__ - Training parameters DPOConfig(output_dir="
               "'data/zephyr-7b-dpo-full', per_device_train_batch_size=8, "
               "gradient_accumulation_steps=2, learning_rate=5e-07, max_grad_norm=1.0, "
               "logging_steps=10, logging_nan_inf_filter=True, fp16=False, bf16=True, "
               "fp16_opt_level='O1', half_precision_backend='auto', fp16_full_eval=False, "
               "beta=0.01, loss_type='sigmoid', label_smoothing=0, max_length=1024)")


def _dpo(rows: int = 20, nan_from: int | None = None) -> list[str]:
    lines = [_DPO_CONFIG, "2024-03-01 10:00:00 - INFO - __main__ - *** Train ***"]
    for i in range(1, rows + 1):
        loss = NAN if nan_from is not None and i >= nan_from else round(0.6931 - i * 0.01, 4)
        lines.append(str({"loss": loss, "grad_norm": 12.3 if math.isfinite(loss) else NAN,
                          "learning_rate": 5e-07, "rewards/chosen": 0.01,
                          "rewards/rejected": -0.01, "rewards/accuracies": 0.6,
                          "rewards/margins": 0.02, "logps/rejected": -250.5,
                          "logps/chosen": -240.1, "logits/rejected": -2.5, "logits/chosen": -2.6,
                          "epoch": round(i / 100, 2)}))
    train_loss = "nan" if nan_from else "0.55"
    lines += ["***** train metrics *****", "  epoch                    =        1.0",
              f"  train_loss               =     {train_loss}",
              "  train_runtime            = 0:20:34.50", "  train_samples_per_second =     49.531"]
    return lines


def test_alignment_handbook_dpo(tmp_path: Path) -> None:
    # the config's fp16/bf16/logging_nan_inf_filter settings are no metrics
    _quiet(tmp_path, _dpo())
    # the config's logging_steps=10 numbers the rows: the 12th is step 120 (logging_interval.py;
    # it was 12, the row's number)
    assert faults(tmp_path, _dpo(nan_from=12)) == [("AMP006", 120)]


# --- Megatron-core (NVIDIA/Megatron-LM megatron/training/training.py training_log, 2024-2026) ----
# f' [{datetime.now()...}] iteration {:8d}/{:8d} | consumed samples: ... | elapsed time per
# iteration (ms): ... | throughput per GPU (TFLOP/s/GPU): ... | learning rate: ... | global
# batch size: ... |', a loss per key (' {}: {:.6E} |', printed where avg >= 0.0 from 2026-03:
# 0.0 when every iteration was skipped; never a NaN), MoE's routing losses (' {k}: {v:.2f} |'),
# multi-token prediction's (' mtp_1 loss: ...'), f' loss scale: {loss_scale:.1f} |' (1.0 in
# bf16), f' num zeros: {num_zeros_in_grad} |', ' number of skipped iterations: {:3d} |',
# ' number of nan iterations: {:3d} |'; ' skipped samples: {:12d} |' once some were.
def _core_line(iteration: int, loss: float | None, scale: float, skipped: int,
               norm: float | None, moe: bool = False) -> str:
    line = (f" [2026-05-01 10:00:00.000000] iteration {iteration:8d}/  100000 | consumed "
            f"samples: {iteration * 512:12d} | elapsed time per iteration (ms): 1234.5 | "
            "throughput per GPU (TFLOP/s/GPU): 401.2 | learning rate: 3.000000E-04 | global "
            "batch size:   512 |")
    if loss is not None:
        line += f" lm loss: {loss:.6E} |"
    if moe:
        line += f" mtp_1 loss: {2.9:.6E} | load_balancing_loss: 1.00 | z_loss: 0.01 |"
    line += f" loss scale: {scale:.1f} |"
    if norm is not None:
        line += f" grad norm: {norm:.3f} |"
    return line + (f" num zeros: 0 | number of skipped iterations: {skipped:3d} | number of nan "
                   "iterations:   0 |")


def _core(healthy: int, every: int = 10, moe: bool = False) -> list[str]:
    return [_core_line(i * every, 2.5 - i * 1e-4, 1.0, 0, 0.321, moe)
            for i in range(1, healthy + 1)]


_RERUN = "[2026-05-01 10:00:00] [ERROR] [megatron.core.rerun_state_machine] "


@pytest.mark.parametrize(("message", "rank"), [
    # rerun mode on (the default from 2025-07), 2026-01 on
    (_RERUN + "Unexpected result tensor(nan, device='cuda:0') on rank 3 at iteration #105 "
     "invocation #1 (message='found NaN in local forward loss calculation')", 3),
    (_RERUN + "Unexpected result tensor(inf, device='cuda:0') on rank 3 at iteration #105 "
     "invocation #2 (message='found Inf in local grad norm for bucket #0 in backward pass "
     "before data-parallel communication collective')", 3),
    # rerun mode off: raised
    ("RuntimeError: Rank 3, node n0, device 0, iteration 105: Unexpected result tensor(nan, "
     "device='cuda:0') (message='found NaN in local forward loss calculation')", 3),
    # 2024-12..2026-01: the caller's file and line, "invokation"
    (_RERUN + "Unexpected result tensor(nan, device='cuda:0') at /workspace/Megatron-LM/"
     "pretrain_gpt.py line 190, invokation #1 at iteration #105 (message='found NaN in local "
     "forward loss calculation')", 0),
])
def test_megatron_core_rerun_messages_name_the_iteration(tmp_path: Path, message: str,
                                                         rank: int) -> None:
    # Before: "at iteration #105" and "on rank 3" were not read (the NaN put at the last
    # iteration line's 100, on rank 0)
    result = diagnose_lines(tmp_path, [*_core(10), message])
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP006", 105, rank)]


def test_megatron_core_spiky_loss_and_reruns_are_no_fault(tmp_path: Path) -> None:
    lines = [*_core(10),
             _RERUN + "Unexpected result tensor(123.4567, device='cuda:0') on rank 3 at "
             "iteration #105 invocation #3 (message='Spiky loss')",
             _RERUN + "Rank 3, node n0, device 0, iteration #105: First rerun: unexpected result "
             "is not reproducible within the tolerance (tensor(123.4567, device='cuda:0') != "
             "tensor(2.4990, device='cuda:0')). Possible transient error!!"]
    _quiet(tmp_path, lines)


def test_megatron_core_bf16_nan_is_applied_not_a_collapse(tmp_path: Path) -> None:
    # bf16: "loss scale: 1.0", no step skipped, the loss left out (its average is NaN), the
    # gradient norm NaN. Before: AMP003 (the NaN gradient norms read as overflows a scaler
    # skips) with AMP006 as its consequence; the MoE and MTP terms stay no loss
    for moe in (False, True):
        lines = [*_core(10, moe=moe),
                 *(_core_line(i * 10, None, 1.0, 0, NAN, moe) for i in range(11, 16))]
        assert faults(tmp_path, lines) == [("AMP006", 110)], moe


def test_megatron_core_new_fields_healthy_is_silent(tmp_path: Path) -> None:
    _quiet(tmp_path, _core(40, moe=True))
    _quiet(tmp_path, _core(40, every=1))


def test_megatron_core_all_skipped_interval_prints_zero_loss(tmp_path: Path) -> None:
    # 2026-03 on: an interval whose iterations were all skipped prints "lm loss:
    # 0.000000E+00" (avg >= 0.0); fp16 overflowing on every iteration from 101
    lines = [_core_line(i * 10, 2.5 - i * 1e-4, 65536.0, 0, 0.321) for i in range(1, 11)]
    lines += [_core_line(i * 10, 0.0, max(65536.0 / 2 ** (10 * (i - 10)), 1.0), 10, None)
              for i in range(11, 20)]
    assert [code for code, _step in faults(tmp_path, lines)][:1] == ["AMP003"]
    assert "AMP007" not in [code for code, _step in faults(tmp_path, lines)]
