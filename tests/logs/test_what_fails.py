"""Every category of issue 13's "What fails" list, on excerpts written from the tools' own
format strings (each case names the source it follows), with the expected id or silence.

Each excerpt is short, as a person pastes it: the doctor judges what it shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

HEALTHY_HF = [f"{{'loss': {2.5 - i * 0.1:.4f}, 'grad_norm': 1.1, 'learning_rate': 5e-05, "
              f"'epoch': 0.{i}}}" for i in range(8)]




# --- 1. metric lines in formats without a parser ---------------------------------------------
_BAR = "steps: {p:>3}%|#         | {n}/100 [00:{n:02d}<01:30,  1.10it/s, avr_loss={v}]"
FORMATS = {
    # tqdm's set_postfix(avr_loss=...) (kohya-ss sd-scripts train_network.py)
    "tqdm postfix avr_loss": [_BAR.format(p=i, n=i, v="0.1234" if i < 5 else "nan")
                              for i in range(1, 9)],
    # Lightning's TQDMProgressBar postfix with a logged train_loss (step value), nan.0 spelling
    "lightning bar train_loss_step=nan.0": [
        f"Epoch 0:  {i}0%|#    | {i}/10 [00:0{i}<00:05,  1.00it/s, v_num=0, "
        f"train_loss_step={'0.500' if i < 4 else 'nan.0'}]" for i in range(1, 8)],
    # a custom name logged with prog_bar=True (GAN: manual optimisation)
    "lightning bar d_loss": [
        f"Epoch 0:  {i}0%|#    | {i}/10 [00:0{i}<00:05,  1.00it/s, v_num=0, "
        f"d_loss={'0.693' if i < 4 else 'nan'}, g_loss=0.700]" for i in range(1, 8)],
    # print(f"train_loss {loss}") in a plain loop
    "key value": [f"train_loss {v}" for v in ("0.9", "0.8", "0.7", "nan", "nan")],
    # mmengine/runner/log_processor.py: f'Epoch({mode})  [{cur_epoch}][{cur_iter}/{len}]  '
    # then 'lr: {:.4e}  ' and '{name}: {val:.4f}  ' per logged value
    "mmengine runner": [
        f"2026/11/30 10:00:0{i} - mmengine - INFO - Epoch(train)  [3][{i * 50:>3}/500]  "
        f"lr: 1.0000e-04  eta: 0:10:00  time: 0.5000  data_time: 0.0100  memory: 1000  "
        f"grad_norm: {'1.2000' if i < 3 else 'nan'}  loss: {'0.9000' if i < 3 else 'nan'}  "
        f"loss_cls: 0.5000" for i in range(1, 7)],
    # old mmcv text logger: 'Epoch [{epoch}][{iter}/{len}]\tlr: {lr:.3e}, ...' joined by ', '
    "mmcv runner": [
        f"Epoch [3][{i * 50}/500]\tlr: 1.000e-04, eta: 0:10:00, time: 0.500, "
        f"loss: {'0.9000' if i < 3 else 'nan'}, grad_norm: {'1.2' if i < 3 else 'nan'}"
        for i in range(1, 7)],
    # '| Loss={:.4f} | Grad={:.4f}' summaries printed by custom loops
    "pipe cells key=value": [f"| Step {i} | Loss={'0.5' if i < 3 else 'nan'} | Grad=1.0"
                             for i in range(1, 7)],
    "pipe cells key value": [f"| epoch {i} | Train Loss {'0.5' if i < 3 else 'nan'} |"
                             for i in range(1, 7)],
    # ultralytics/engine/trainer.py: a header ('%11s' * ...) % ('Epoch', 'GPU_mem',
    # *loss_names, 'Instances', 'Size'), then rows ('%11s' * 2 + '%11.4g' * ...)
    "YOLO header and rows": [
        ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "cls_loss", "dfl_loss", "Instances",
                        "Size"),
        *[("%11s" * 2 + "%11.4g" * 5) % (f"{i}/100", "0G", v, v, v, 16, 640)
          for i, v in ((1, 1.2), (2, float("nan")), (3, float("nan")))]],
    # caffe src/caffe/solver.cpp: "Iteration " << iter_ << " (" << ... << " iter/s, " << ...
    # << "s/" << display << " iters), loss = " << smoothed_loss_
    "glog": [f"I1130 10:00:0{i}.000000  1234 solver.cpp:218] Iteration {i * 20} (1.2 iter/s, "
             f"4.2s/20 iters), loss = {'0.69' if i < 3 else '-nan'}" for i in range(1, 7)],
    # dllogger StdOutBackend: "DLL {timestamp} - {step} " + " ".join(f"{k} : {v}")
    "dllogger": [f"DLL 2026-11-30 10:00:0{i}.000000 - ({i}, {i * 10}) average_loss : "
                 f"{'0.69' if i < 3 else 'nan'}  step_loss : 0.7" for i in range(1, 7)],
    # nanoGPT train.py: f"iter {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu ..."
    "nanoGPT": [f"iter {i * 10}: loss {'3.1000' if i < 3 else 'nan'}, time 35.21ms, "
                "mfu 12.34%" for i in range(1, 7)],
    # litgpt pretrain.py: f"iter {iter_num} step {step_count}: loss {loss:.4f}, iter time: ..."
    "litgpt": [f"iter {i * 4} step {i}: loss {'3.1000' if i < 3 else 'nan'}, iter time: "
               "120.00 ms" for i in range(1, 7)],
    # Megatron-LM before the colon fields: ' {} {:.6E} |'.format(key, avg)
    "old Megatron": [f" iteration {i * 10:8d}/    1000 | learning rate 1.000E-04 | lm loss "
                     f"{'2.100000E+00' if i < 3 else 'NAN'} |" for i in range(1, 7)],
}


@pytest.mark.parametrize("name", FORMATS)
def test_a_nan_in_an_unknown_format_is_amp006(tmp_path: Path, name: str) -> None:
    result = diagnose_lines(tmp_path, FORMATS[name])
    assert [d.code for d in result.faults][:1] == ["AMP006"], name
    # the Lightning and Megatron families read their own bars and iteration lines
    assert "generic" in result.families or name in ("lightning bar train_loss_step=nan.0",
                                                    "old Megatron"), name


def test_keras_bars_with_a_zero_loss_after_a_normal_one(tmp_path: Path) -> None:
    # keras/src/utils/progbar.py: " - {k}: {v:.4e}" for small values, after the bar
    lines = [f"32/32 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - accuracy: 0.5000 - loss: {v}"
             for v in ("0.6931", "0.0000e+00", "0.0000e+00", "0.0000e+00", "0.0000e+00")]
    # one bar an epoch of 32 batches: the second one ends at step 64
    assert faults(tmp_path, lines) == [("AMP007", 64)]


def test_dllogger_parameter_loss_scale_below_one(tmp_path: Path) -> None:
    lines = ["DLL 2026-11-30 10:00:00.000000 - PARAMETER loss_scale : 1.4e-14",
             "DLL 2026-11-30 10:00:01.000000 - (1, 10) average_loss : 0.7"]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP004"]


@pytest.mark.parametrize("prefix", [
    "2026-11-30 10:00:00,000 - __main__ - INFO - ",  # Python logging's default formats
    "INFO:root:",
    "> ",  # markdown quoting
    "> > ",
    "  {n} | ",  # line numbers from an editor
    "│ ",  # a tmux pane border
])
def test_paste_artefacts(tmp_path: Path, prefix: str) -> None:
    lines = [prefix.format(n=i) + f"step {i} loss {'0.5' if i < 4 else 'nan'}"
             + (" │" if "│" in prefix else "") for i in range(1, 8)]
    assert faults(tmp_path, lines)[:1] == [("AMP006", 4)]


def test_rich_bar_wrapped_at_80_columns(tmp_path: Path) -> None:
    # lightning RichProgressBar in an 80-column terminal: the key ends one line, the value
    # starts the next
    lines = []
    for epoch in range(6):
        lines.append(f"Epoch {epoch}/9  ━━━━━━━━━━━━━━━━ 10/10 0:00:01 • 0:00:00 9.80it/s "
                     "v_num: 0 train_loss:")
        lines.append("nan" if epoch >= 3 else "0.512")
    assert faults(tmp_path, lines)[:1] == [("AMP006", 40)]


# --- 2. scaler messages of other frameworks --------------------------------------------------
def test_paddle_scaler_collapse(tmp_path: Path) -> None:
    # paddle/amp/grad_scaler.py AmpScaler._update
    lines = [f"Found inf or nan, current scale is: {2.0 ** (10 - i)}, decrease to: "
             f"{2.0 ** (10 - i)}*0.5" for i in range(8)]
    result = diagnose_lines(tmp_path, lines)
    assert [d.code for d in result.faults] == ["AMP003"]
    assert result.families["paddle"] == 8


def test_insightface_fp16_grad_scale_zero(tmp_path: Path) -> None:
    # insightface recognition/arcface_torch/utils/utils_callbacks.py CallBackLogging:
    # "Speed %.2f samples/sec   Loss %.4f   LearningRate %.6f   Epoch: %d   Global Step: %d
    # Fp16 Grad Scale: %2.f   Required: %1.f hours"
    lines = [f"Training: 2026-11-30 10:00:0{i}-Speed 1234.56 samples/sec   Loss 8.1234   "
             f"LearningRate 0.100000   Epoch: 0   Global Step: {i * 50}   Fp16 Grad Scale: "
             f"{'1024' if i < 2 else ' 0'}   Required: 12 hours" for i in range(1, 5)]
    # 1024 to below 0.5 in the 50 steps between two rows: eleven overflows at least, the
    # collapse (AMP003) whose consequence is the scale below 1 (AMP004), both at that row
    assert faults(tmp_path, lines) == [("AMP003", 100), ("AMP004", 100)]


def test_keras_dynamic_scale_metric(tmp_path: Path) -> None:
    # keras LossScaleOptimizer keeps its scale in the variable "dynamic_scale"
    lines = [f"100/100 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - loss: 0.5 - dynamic_scale: {s}"
             for s in ("32768.0", "0.5", "0.25")]
    # 16 halvings over one epoch's 100 steps: a collapse, and the scale below 1 it left
    assert faults(tmp_path, lines) == [("AMP003", 200), ("AMP004", 200)]


def test_old_deepspeed_fused_optimizer_split_lines(tmp_path: Path) -> None:
    # deepspeed/runtime/fp16/fused_optimizer.py: logger.info(f"\nGrad overflow on iteration
    # {i}") puts the message on the line after the logging prefix, then "Reducing dynamic loss
    # scale from {a} to {b}" and log_dist("Overflow detected. Skipping step. Attempted loss
    # scale: {a}, reducing to {b}")
    stamp = "[2026-11-30 10:00:00,000] [INFO]"
    lines = []
    scale = 65536
    for i in range(16):  # from 2**16 down to 1
        lines += [f"{stamp} [fused_optimizer.py:347:_update_scale] ",
                  f"Grad overflow on iteration {i}",
                  f"{stamp} [fused_optimizer.py:348:_update_scale] Reducing dynamic loss "
                  f"scale from {scale} to {scale / 2}",
                  f"{stamp} [logging.py:96:log_dist] [Rank 0] Overflow detected. Skipping "
                  f"step. Attempted loss scale: {scale}, reducing to {scale / 2}"]
        scale //= 2
    result = diagnose_lines(tmp_path, lines)
    assert result.timeline.skipped == 16  # three lines, one skipped step
    assert [d.code for d in result.faults] == ["AMP003"]


def test_old_deepspeed_using_dynamic_loss_scale_of(tmp_path: Path) -> None:
    # deepspeed 0.3 fp16 unfused_optimizer.py: print("\nGrad overflow on iteration",
    # self.cur_iter); print("Using dynamic loss scale of", self.cur_scale)
    lines = []
    for i in range(8):
        lines += [f"Grad overflow on iteration {i}", f"Using dynamic loss scale of {2 ** (9 - i)}"]
    result = diagnose_lines(tmp_path, lines)
    assert result.timeline.skipped == 8
    assert [d.code for d in result.faults] == ["AMP003"]


# --- 3. errors -------------------------------------------------------------------------------
ERRORS = {
    # detectron2/engine/train_loop.py SimpleTrainer._write_metrics
    "detectron2": (["FloatingPointError: Loss became infinite or NaN at iteration=42!",
                    "loss_dict = {'loss_cls': nan, 'loss_box_reg': 0.5}"], ("AMP006", 42)),
    # accelerate/accelerator.py (earlier releases): f"fp16 mixed precision requires a GPU
    # (not {self.device.type!r})."
    "accelerate": (["ValueError: fp16 mixed precision requires a GPU (not 'cpu')."],
                   ("AMP010", None)),
    # torch/amp/autocast_mode.py
    "autocast": ["/x/torch/amp/autocast_mode.py:266: UserWarning: CUDA is not available or "
                 "torch_xla is imported. Disabling autocast.", "  warnings.warn("],
}
ERRORS["autocast"] = (ERRORS["autocast"], ("AMP010", None))  # type: ignore[assignment]


@pytest.mark.parametrize("name", ERRORS)
def test_error_lines(tmp_path: Path, name: str) -> None:
    lines, expected = ERRORS[name]
    assert faults(tmp_path, list(lines))[:1] == [expected]


def test_anomaly_traceback_through_a_grad_scaler(tmp_path: Path) -> None:
    # torch/csrc/autograd/python_anomaly_mode.cpp and engine.cpp messages; the traceback shows
    # the user's scaler.scale(loss).backward()
    lines = ["Traceback (most recent call last):",
             '  File "train.py", line 40, in <module>',
             "    scaler.scale(loss).backward()",
             '  File "/x/torch/_tensor.py", line 626, in backward',
             "RuntimeError: Function 'MulBackward0' returned nan values in its 0th output."]
    result = diagnose_lines(tmp_path, lines)
    assert [d.code for d in result.faults] == ["AMP006"]
    assert "scaler.scale(loss).backward()" in result.faults[0].summary


# --- 4. excerpts judged on what they show ----------------------------------------------------
def _ds_overflow(before: float, after: float) -> str:
    return ("[2026-11-30 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
            f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {before:g}, reducing to "
            f"{after:g}")


def _megatron(iteration: int, scale: float, skipped: int, loss: str | None = "2.1E+00",
              grad: str | None = "1.2") -> str:
    # megatron/training/training.py training_log: a key whose every iteration was skipped is
    # not in total_loss_dict (no "lm loss"); a skipped step returns no grad norm
    lm = f" lm loss: {loss} |" if loss is not None else ""
    norm = f" grad norm: {grad} |" if grad is not None else ""
    return (f" [2026-11-30 10:00:00] iteration {iteration:8d}/   10000 | consumed samples: "
            f"{iteration * 8:10d} | learning rate: 1.000E-04 |{lm} loss scale: {scale:.1f} |"
            f"{norm} number of skipped iterations: {skipped:3d} | number of nan "
            "iterations:   0 |")


EXCERPTS = {
    "cumulative counter": (
        ["[2026-11-30 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=2000, "
         "skipped=1995, lr=[0.0001], mom=[(0.9, 0.999)]"], "AMP003"),
    "five overflows 64 -> 2": ([_ds_overflow(2.0 ** (6 - i), 2.0 ** (5 - i)) for i in range(5)],
                               "AMP003"),
    "megatron skipped at a constant scale": (
        [_megatron(i * 10, 16384.0, 10, loss=None, grad=None) for i in range(1, 5)], "AMP005"),
    "scale pinned at the floor": ([_ds_overflow(1, 1) for _ in range(5)], "AMP003"),
    "loss 0 after a normal value": (
        [f"{{'loss': {v}, 'grad_norm': 0.5, 'learning_rate': 5e-05, 'epoch': 0.{i}}}"
         for i, v in enumerate(("2.3", "0.0", "0.0", "0.0", "0.0", "0.0"))], "AMP007"),
    "megatron grad norm nan without lm loss": (
        [_megatron(10, 65536.0, 0), _megatron(20, 65536.0, 0, loss=None, grad="nan")], "AMP006"),
}


@pytest.mark.parametrize("name", EXCERPTS)
def test_excerpt_judgement(tmp_path: Path, name: str) -> None:
    lines, code = EXCERPTS[name]
    result = diagnose_lines(tmp_path, lines)
    assert code in [d.code for d in result.faults], name
    judged = next(d for d in result.faults if d.code == code)
    if "confidence" in judged.evidence:
        assert judged.evidence["confidence"] in ("high", "medium", "low")
        assert "confidence" in judged.summary


# --- 5. hard negatives -----------------------------------------------------------------------
NEGATIVES = {
    "fp32 loss spikes and plateaus": [
        f"step {i} loss {v}" for i, v in enumerate(
            [2.3, 2.1, 9.8, 2.0, 1.9, 1.9, 1.9, 1.9, 1.9, 14.2, 1.8, 1.8], 1)],
    "numpy overflow in exp": [
        *HEALTHY_HF[:3],
        "/x/model.py:12: RuntimeWarning: overflow encountered in exp",
        "  return 1 / (1 + np.exp(-x))", *HEALTHY_HF[3:]],
    "config dump loss_scale 0": [
        "[2026-11-30 10:00:00,000] [INFO] [config.py:1000:print]   loss_scale 0",
        '    "loss_scale": 0,', "  loss_scale_window ............ 1000", *HEALTHY_HF],
    "start-up back-off": [
        *[_ds_overflow(2.0 ** (16 - i), 2.0 ** (15 - i)) for i in range(5)],
        "[2026-11-30 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=10, "
        "skipped=5, lr=[0.0001], mom=[(0.9, 0.999)]", *HEALTHY_HF],
    "one overflow in a long run": [
        "[Rank 0] step=4000, skipped=0, lr=[0.0001], mom=[(0.9, 0.999)]",
        _ds_overflow(65536, 32768),
        "[Rank 0] step=6000, skipped=1, lr=[0.0001], mom=[(0.9, 0.999)]"],
    "bf16 constant loss scale 1.0": [_megatron(i * 10, 1.0, 0) for i in range(1, 30)],
    "zero component losses beside a non-zero total": [
        f"Epoch(train)  [1][{i * 10}/500]  lr: 1.0000e-04  loss: {2.0 - i * 0.1:.4f}  "
        "loss_rpn_cls: 0.0000  loss_rpn_bbox: 0.0000  loss_cls: 0.5000" for i in range(1, 9)],
    "skipped batches are not skipped steps": [
        f"step {i * 100}: skipped {i * 90} corrupted images, loss {2.0 - i * 0.1:.3f}"
        for i in range(1, 8)],
    "routine gradient clipping warnings": [
        *HEALTHY_HF[:4],
        "Gradient norm 12.3 exceeds max_norm 1.0; clipping gradients",
        "grad norm 8.1 clipped to 1.0", *HEALTHY_HF[4:]],
}


@pytest.mark.parametrize("name", NEGATIVES)
def test_hard_negatives_stay_quiet(tmp_path: Path, name: str) -> None:
    assert faults(tmp_path, NEGATIVES[name]) == [], name


def test_each_rank_is_judged_on_its_own_steps(tmp_path: Path) -> None:
    # torchrun --tee prefixes; rank 0's loss is 0 from step 3 on, rank 1's is normal: in one
    # shared run state rank 1's lines would break rank 0's streak of zeros
    lines = []
    for step in range(1, 31):
        lines.append(f"[rank0]:iter {step}: loss {'0.6931' if step < 3 else '0.0000'}")
        lines.append(f"[rank1]:iter {step}: loss {0.7 - step * 0.001:.4f}")
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step, d.rank) for d in result.faults] == [("AMP007", 3, 0)]
