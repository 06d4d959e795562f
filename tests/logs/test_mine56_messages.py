"""Issue #27, the message table from tools it held no row for (h56-mine56): MONAI's RetinaNet
checks and its float16 box refusal, peft's safe merge, sockeye's divergence and histogram
warnings, nnU-Net v2's float16 prediction overflow. Each excerpt is built from the tool's own
format strings (the builder's docstring names the repository and file) and judged whole;
each tool has a healthy control with non-default settings that must stay silent.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose


def silent(tmp_path: Path, lines: list[str]) -> bool:
    """No finding on ``lines``, where the doctor may also say it found nothing to read (a
    control without a training metric it knows)."""
    path = tmp_path / "control.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = diagnose(str(path))
    return not result.faults and (result.error is None or "nothing to diagnose" in result.error)


# --- MONAI ------------------------------------------------------------------------------------


def monai_stats(epochs: int = 2, iters: int = 8, *, tag: str = "Loss",
                value_format: str = "{}: {:.4f} ", keys: tuple[str, ...] = ()) -> list[str]:
    """MONAI's ``StatsHandler`` iteration lines (Project-MONAI/MONAI
    ``monai/handlers/stats_handler.py``: ``f"Epoch: {e}/{n}, Iter: {i}/{m} --"`` joined by a
    blank to ``key_var_format`` per loss, a dict's keys sorted), behind ``logging.basicConfig``'s
    ``INFO:name:`` prefix; the losses fall."""
    lines = []
    for epoch in range(1, epochs + 1):
        for it in range(1, iters + 1):
            step = (epoch - 1) * iters + it
            names = keys or (tag,)
            values = "".join(value_format.format(name, 1.5 - step / 40 - k * 0.2)
                             for k, name in enumerate(sorted(names)))
            lines.append(f"INFO:monai.handlers.StatsHandler:Epoch: {epoch}/{epochs + 3}, "
                         f"Iter: {it}/{iters} -- {values}")
    return lines


def monai_traceback(error: str) -> list[str]:
    """The traceback a training step's forward pass ends the run with (the exception's own
    line last, as Python prints it)."""
    return ["Traceback (most recent call last):",
            '  File "/opt/monai/apps/detection/networks/retinanet_detector.py", line 503, in '
            "forward",
            "    losses = self.compute_loss(head_outputs, targets, anchors, num_anchor_locs)",
            f"ValueError: {error}"]


def test_monai_retinanet_nan_logits_stop_the_step_after_the_last_row(tmp_path: Path) -> None:
    # retinanet_detector.py: ``raise ValueError("NaN or Inf in predicted classification
    # logits.")`` while gradients are on: the 17th step's forward pass, the 16 before logged
    lines = monai_stats(keys=("box_reg_loss", "cls_loss")) + monai_traceback(
        "NaN or Inf in predicted classification logits.")
    assert faults(tmp_path, lines) == [("AMP006", 17)]


def test_monai_retinanet_head_checks(tmp_path: Path) -> None:
    for error in ("cls_logits is NaN or Inf.", "box_regression is NaN or Inf.",
                  "Concatenated result is NaN or Inf.", "NaN or Inf in predicted box regression."):
        lines = monai_stats(keys=("box_reg_loss", "cls_loss")) + monai_traceback(error)
        assert faults(tmp_path, lines) == [("AMP006", 17)], error


def test_monai_float16_boxes_refused(tmp_path: Path) -> None:
    # box_utils.py box_area: a float16 box whose area overflows float16 is refused
    lines = monai_stats() + monai_traceback(
        "Box area is NaN or Inf. boxes is float16. Please change to float32 and test it again.")
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP014"]


def test_monai_retinanet_nan_in_validation_is_evaluation(tmp_path: Path) -> None:
    # under torch.no_grad() the check warns instead (once, with the source line below it): the
    # validation's predictions are not finite, not a training loss
    lines = monai_stats(keys=("box_reg_loss", "cls_loss"))
    lines += ["/opt/monai/apps/detection/networks/retinanet_detector.py:902: UserWarning: NaN "
              "or Inf in predicted classification logits.",
              '  warnings.warn("NaN or Inf in predicted classification logits.")']
    assert faults(tmp_path, lines) == [("AMP013", 16)]


def test_monai_controls(tmp_path: Path) -> None:
    # a tag and a format of the user's, and a dict of losses: healthy, silent
    assert faults(tmp_path, monai_stats(tag="train_loss", value_format="{}: {:.6f} ")) == []
    assert faults(tmp_path, monai_stats(keys=("box_reg_loss", "cls_loss"), epochs=3)) == []


# --- peft ---------------------------------------------------------------------------------------


def peft_trainer_rows(rows: int = 12) -> list[str]:
    """HF Trainer's ``log()`` dicts for a LoRA run (transformers ``trainer.py``), a falling loss,
    then peft's ``merge_and_unload(safe_merge=True)`` (huggingface/peft
    ``src/peft/tuners/lora/layer.py``, ``merge``) as the script's next step."""
    return [f"{{'loss': {2.2 - i / 20:.4f}, 'grad_norm': {0.8 + i / 50:.4f}, "
            f"'learning_rate': {2e-4 - i * 1e-5:.6g}, 'epoch': {i * 0.1:.2f}}}"
            for i in range(1, rows + 1)]


def test_peft_refuses_to_merge_nan_weights(tmp_path: Path) -> None:
    lines = [*peft_trainer_rows(), "Traceback (most recent call last):",
             "  File \"/opt/peft/tuners/lora/layer.py\", line 949, in merge",
             "ValueError: NaNs detected in the merged weights. The adapter default seems to be "
             "broken"]
    # (no step of its own: the merge follows the last row, where the run was)
    assert faults(tmp_path, lines) == [("AMP006", 12)]


def test_peft_control(tmp_path: Path) -> None:
    # a safe merge that passes prints nothing of its own; an adapter of another name
    lines = [*peft_trainer_rows(20), "Merging adapter 'sql_lora' into the base model"]
    assert faults(tmp_path, lines) == []


# --- sockeye ------------------------------------------------------------------------------------

_SOCKEYE = "[2026-11-30:10:{m:02d}:00:{level}:sockeye.training:{fn}] "


def sockeye_checkpoints(checkpoints: int = 4, *, diverge_at: int | None = None,
                        vocab: int = 32000) -> list[str]:
    """sockeye 1.18's training lines (awslabs/sockeye 1.18.85 ``sockeye/training.py``): the
    Speedometer's ``Epoch[%d] Batch [%d]\\tSpeed: ... updates/sec\\t%s=%f`` and each checkpoint's
    ``Checkpoint [%d]\\t...``, ``Train-%s=%f`` and ``Validation-%s=%f`` lines (``sockeye/log.py``:
    ``[%(asctime)s:%(levelname)s:%(name)s:%(funcName)s]``, datefmt ``%Y-%m-%d:%H:%M:%S``); from
    checkpoint ``diverge_at`` the validation perplexity is NaN and the run says it diverged."""
    lines: list[str] = []
    for c in range(1, checkpoints + 1):
        nan = diverge_at is not None and c >= diverge_at
        for b in range(1, 4):
            ppl = "nan" if nan else f"{400.0 / c - b:.6f}"
            lines.append(_SOCKEYE.format(m=c, level="INFO", fn="__call__")
                         + f"Epoch[0] Batch [{(c - 1) * 300 + b * 100}]\tSpeed: 520.11 samples/sec "
                         f"15403.22 tokens/sec 1.63 updates/sec\tperplexity={ppl}")
        lines.append(_SOCKEYE.format(m=c, level="INFO", fn="fit") + f"Checkpoint [{c}]\tUpdates="
                     f"{c * 300} Epoch=0 Samples={c * 9600} Time-cost=184.210 Updates/sec=1.629")
        val = "nan" if nan else f"{380.0 / c:.6f}"
        lines.append(_SOCKEYE.format(m=c, level="INFO", fn="fit")
                     + f"Checkpoint [{c}]\tValidation-perplexity={val}")
        if nan:
            lines.append(_SOCKEYE.format(m=c, level="WARNING", fn="fit")
                         + f"Model optimization diverged. Last checkpoint's perplexity: {val}")
            break
        lines.append(_SOCKEYE.format(m=c, level="INFO", fn="fit")
                     + f"Validation-perplexity improved to {380.0 / c:.6f} (delta={10.0 / c:.6f}).")
    del vocab  # (the threshold a finite perplexity is judged by: twice the vocabulary)
    return lines


def test_sockeye_divergence_alone(tmp_path: Path) -> None:
    # the warning pasted by itself, below the last healthy checkpoint's lines
    lines = sockeye_checkpoints(3)
    lines.append(_SOCKEYE.format(m=9, level="WARNING", fn="fit")
                 + "Model optimization diverged. Last checkpoint's perplexity: inf")
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP013"]


def test_sockeye_histograms_of_non_finite_gradients(tmp_path: Path) -> None:
    # TensorboardLogger.log_metrics (1.18.85-): the ``%s`` printed as it stands
    lines = sockeye_checkpoints(3)
    lines += [_SOCKEYE.format(m=9, level="WARNING", fn="log_metrics")
              + "Not adding the histogram of %s to tensorboard because some of its values are "
              "not finite."] * 3
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


def test_sockeye_control(tmp_path: Path) -> None:
    # a healthy run of more checkpoints than the default's: no finding (the doctor reads no
    # training metric in sockeye's perplexity lines, and says so)
    assert silent(tmp_path, sockeye_checkpoints(7))


# --- nnU-Net v2 ---------------------------------------------------------------------------------


def nnunet_epochs(epochs: int = 4, *, start: int = 0) -> list[str]:
    """nnU-Net v2's epoch lines (MIC-DKFZ/nnUNet v2.3.1
    ``nnunetv2/training/nnUNetTrainer/nnUNetTrainer.py``: ``print_to_log_file`` puts
    ``f"{datetime.now()}:"`` before the words it joins by blanks), then the final validation's
    ``predicting {case}`` lines."""
    lines: list[str] = []
    for e in range(start, start + epochs):
        stamp = f"2026-11-30 10:{e % 60:02d}:00.{123456 + e:06d}:"
        dice = 0.6 + e / 100
        lines += [f"{stamp} ", f"{stamp} Epoch {e}", f"{stamp} Current learning rate: "
                  f"{0.01 * (1 - e / 1000) ** 0.9:.5f}",
                  f"{stamp} train_loss {-0.3 - e / 50:.4f}",
                  f"{stamp} val_loss {-0.28 - e / 60:.4f}",
                  f"{stamp} Pseudo dice [{dice:.4f}, {dice - 0.1:.4f}]",
                  f"{stamp} Epoch time: 48.2{e % 10} s",
                  f"{stamp} Yayy! New best EMA pseudo Dice: {dice - 0.05:.4f}"]
    return lines


def test_nnunet_float16_prediction_overflow(tmp_path: Path) -> None:
    # predict_from_raw_data.py (v2.3.1-): the sliding window's half-precision logits overflowed
    lines = nnunet_epochs()
    lines += ["2026-11-30 11:00:00.000001: Training done.",
              "2026-11-30 11:00:00.000002: predicting liver_12",
              "Traceback (most recent call last):",
              "RuntimeError: Encountered inf in predicted array. Aborting... If this problem "
              "persists, reduce value_scaling_factor in compute_gaussian or increase the dtype of "
              "predicted_logits to fp32"]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP013"]


def test_nnunet_v1_fp16_without_apex_is_refused(tmp_path: Path) -> None:
    # nnU-Net 1.1.2-1.5.1 (MIC-DKFZ/nnUNet ``nnunet/training/network_training/
    # network_trainer.py``, ``_maybe_init_amp``): fp16 is the default, apex is missing
    stamp = "2026-11-30 10:00:00.123456:"
    lines = [f"{stamp} Using dummy2d data augmentation",
             f"{stamp} TRAINING KEYS:", " odict_keys(['liver_0', 'liver_1', 'liver_10'])",
             "Traceback (most recent call last):",
             '  File "/opt/nnunet/run/run_training.py", line 151, in main',
             "RuntimeError: WARNING: FP16 training was requested but nvidia apex is not "
             "installed. Install it from https://github.com/NVIDIA/apex"]
    assert faults(tmp_path, lines) == [("AMP010", None)]


def test_nnunet_control(tmp_path: Path) -> None:
    # a run resumed at epoch 250 (negative losses: Dice plus cross-entropy), its validation
    lines = nnunet_epochs(6, start=250)
    lines += ["2026-11-30 11:00:00.000001: Training done.",
              "2026-11-30 11:00:00.000002: predicting liver_12",
              "2026-11-30 11:00:09.000003: Mean Validation Dice:  0.8312"]
    assert faults(tmp_path, lines) == []


# --- diffusers' example training scripts --------------------------------------------------------

_DIFFUSERS = "12/08/2026 10:00:00 - {level} - __main__ - "


def diffusers_start(precision: str = "fp16") -> list[str]:
    """The start of a diffusers example (huggingface/diffusers
    ``examples/dreambooth/train_dreambooth.py``: ``logging.basicConfig(format="%(asctime)s -
    %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S")``, then
    ``logger.info(accelerator.state)``, accelerate's ``AcceleratorState.__repr__``)."""
    return [_DIFFUSERS.format(level="INFO") + "Distributed environment: NO",
            "Num processes: 1", "Process index: 0", "Local process index: 0", "Device: cuda", "",
            f"Mixed precision type: {precision}", ""]


def sana_bar(steps: range, total: int = 2000) -> list[str]:
    """The Sana-Sprint script's tqdm bar (``examples/research_projects/sana/
    train_sana_sprint_diffusers.py``: ``desc="Steps"``, ``set_postfix(**logs)`` with
    ``scm_loss``, ``adv_loss`` and ``lr``, tqdm sorting the keys), one line per update."""
    return [f"Steps: {s * 100 // total:3d}%|##        | {s}/{total} [00:{s % 60:02d}<10:00,  "
            f"1.20it/s, adv_loss={0.7 - s / 5000:.3f}, lr=1e-5, scm_loss={0.4 - s / 8000:.3f}]"
            for s in steps]


def test_diffusers_refuses_float16_weights_before_training(tmp_path: Path) -> None:
    # ``Unet loaded as datatype torch.float16. {low_precision_error_string}``: the model was
    # loaded in float16 for an fp16 run; the check raises before the first step
    lines = [*diffusers_start(), "Traceback (most recent call last):",
             '  File "/work/train_dreambooth.py", line 1014, in main',
             "ValueError: Unet loaded as datatype torch.float16. Please make sure to always have "
             "all model weights in full float32 precision when starting training - even if "
             "doing mixed precision training. copy of the weights should still be float32."]
    assert faults(tmp_path, lines) == [("AMP012", None)]


def test_diffusers_bfloat16_weights_are_no_fp16_fault(tmp_path: Path) -> None:
    # the same refusal of a bf16 model in a bf16 run: not the float16 row
    lines = [*diffusers_start("bf16"), "Traceback (most recent call last):",
             "ValueError: Controlnet loaded as datatype torch.bfloat16. Please make sure to "
             "always have all model weights in full float32 precision when starting training - "
             "even if doing mixed precision training. copy of the weights should still be "
             "float32."]
    assert silent(tmp_path, lines)


def flux_controlnet(steps: range, *, nan_steps: range = range(0)) -> list[str]:
    """train_controlnet_flux.py's lines (huggingface/diffusers ``examples/controlnet/
    train_controlnet_flux.py``: after the backward pass, ``logger.error(f"Gradient for {name}
    contains NaN!")`` per parameter; then the tqdm bar, ``desc="Steps"``, its postfix ``loss`` and
    ``lr``), one bar line per step."""
    names = [f"transformer_blocks.{i}.attn.to_{x}.weight" for i in range(5) for x in "qkv"]
    lines: list[str] = []
    for step in steps:
        if step in nan_steps:
            lines += [_DIFFUSERS.format(level="ERROR") + f"Gradient for {name} contains NaN!"
                      for name in names]
        lines.append(f"Steps: {step // 10:3d}%|#         | {step}/1000 [00:30<49:30,  3.00s/it, "
                     f"loss={0.41 - step / 10000:.3f}, lr=1e-05]")
    return lines


def test_flux_controlnet_nan_gradients_every_step(tmp_path: Path) -> None:
    # from step 130 on every step's gradients hold NaNs, the loss stays finite: the fp16
    # scaler skips them all (the 15 lines before a bar update are one step)
    lines = [*diffusers_start(), *flux_controlnet(range(100, 160), nan_steps=range(130, 160))]
    assert faults(tmp_path, lines) == [("AMP003", 130)]


def test_flux_controlnet_control(tmp_path: Path) -> None:
    # one step's NaN gradients (15 parameters) in a healthy fp16 run: one skipped step
    lines = [*diffusers_start(), *flux_controlnet(range(400, 470), nan_steps=range(430, 431))]
    assert faults(tmp_path, lines) == []


def test_sana_sprint_control(tmp_path: Path) -> None:
    # one skipped iteration in a healthy run resumed at step 1500 (a GAN's phases): silent
    # (a run of them was read before the row, by the skip sentences: AMP003 where the bar stops)
    skip = _DIFFUSERS.format(level="WARNING") + "NaN or Inf detected in grad_norm, skipping " \
                                                "iteration..."
    lines = [*diffusers_start(), *sana_bar(range(1500, 1540)), skip,
             *sana_bar(range(1540, 1580))]
    assert faults(tmp_path, lines) == []


# --- torchvision's references -------------------------------------------------------------------


def torchvision_rows(epoch: int, rows: range, total: int, meters: str) -> list[str]:
    """torchvision's references' ``MetricLogger.log_every`` lines (pytorch/vision
    ``references/classification/utils.py``, ``references/detection/utils.py``: ``header``,
    ``[{i}/{n}]``, ``eta``, each meter as ``{median:.4f} ({global_avg:.4f})``, ``time``,
    ``data``, ``max mem``, joined by the logger's two blanks)."""
    return [f"Epoch: [{epoch}]  [{i:4d}/{total}]  eta: 0:10:13  lr: 0.4  "
            + meters.format(loss=2.1 - i / 2000, avg=2.2 - i / 2000)
            + "  time: 0.5123  data: 0.0101  max mem: 11519" for i in rows]


def test_torchvision_classification_control(tmp_path: Path) -> None:
    # ``--amp --model-ema``: img/s and accuracy meters, the EMA model's test line (the detection
    # reference's "Loss is nan, stopping training" is the DETR family's row, read before)
    lines = torchvision_rows(12, range(0, 400, 40), 1251, "img/s: 1800.5  loss: {loss:.4f} "
                             "({avg:.4f})  acc1: 52.1000 (51.0000)  acc5: 76.2000 (75.9000)")
    lines += ["Test:   Acc@1 55.812 Acc@5 79.310", "Test: EMA  Acc@1 56.102 Acc@5 79.501"]
    assert faults(tmp_path, lines) == []


# --- ms-swift -----------------------------------------------------------------------------------


def swift_lines(rows: int = 12, *, loss_scale: str = "[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0]"
                ) -> list[str]:
    """ms-swift's start and rows (modelscope/ms-swift ``swift/utils/logger.py``: ``[%(levelname)s
    :%(name)s] %(message)s``; ``swift/template/base.py`` logs an encoded example's fields, its
    per-token ``[LOSS_SCALE]`` weights among them; ``swift/trainers/patcher.py``
    ``add_train_message`` adds the step, times, memory and speed to HF's logged dict)."""
    lines = ["[INFO:swift] [INPUT_IDS] [151644, 8948, 198, 2610, 525, 264, 10950, 17847]",
             "[INFO:swift] [LABELS_IDS] [-100, -100, -100, -100, 525, 264, 10950, 17847]",
             f"[INFO:swift] [LOSS_SCALE] {loss_scale}"]
    for i in range(1, rows + 1):
        lines.append(f"{{'loss': {1.9 - i / 25:.8f}, 'grad_norm': {1.2 + i / 40:.8f}, "
                     f"'learning_rate': {1e-4 - i * 1e-6:.8f}, 'token_acc': {0.55 + i / 100:.8f}, "
                     f"'epoch': {i * 0.04:.2f}, 'global_step/max_steps': '{i * 5}/{rows * 5}', "
                     f"'elapsed_time': '{i * 16}s', 'remaining_time': '{(rows - i) * 16}s', "
                     f"'memory(GiB)': 17.82, 'train_speed(s/it)': 3.2{i % 10}}}")
    return lines


def test_swift_token_loss_scales_are_no_loss_scale(tmp_path: Path) -> None:
    # ``--loss_scale`` weights tokens (0.0 masks a prompt's): no AMP loss scale, no AMP004
    assert faults(tmp_path, swift_lines()) == []
    assert faults(tmp_path, swift_lines(20, loss_scale="[0.0, 0.0, 0.0, 0.0, 0.0]")) == []


# --- LLaMA-Factory's v1 trainer -----------------------------------------------------------------

_LLAMAFACTORY = "[{level}|2026-11-30 10:00:00] {name} >> "


def llamafactory_v1(steps: range, *, skipping_from: int | None = None, every: int = 10
                    ) -> list[str]:
    """LLaMA-Factory v1's lines (hiyouga/LLaMA-Factory ``src/llamafactory/v1/utils/logging.py``:
    ``[%(levelname)s|%(asctime)s] %(name)s:%(lineno)s >> %(message)s``;
    ``v1/utils/callbacks/logging_callback.py`` joins ``{k}: {v:.4f}`` by commas, the learning
    rate ``:.4g``; ``v1/core/base_trainer.py`` warns of each step whose grad norm is not finite,
    before the row of its interval). From step ``skipping_from`` every step's norm is inf."""
    row = _LLAMAFACTORY.format(level="INFO", name="llamafactory.v1.utils.callbacks."
                                                  "logging_callback:67")
    skip = _LLAMAFACTORY.format(level="WARNING", name="llamafactory.v1.core.base_trainer:317")
    lines: list[str] = []
    for step in steps:
        bad = skipping_from is not None and step >= skipping_from
        if bad:
            lines += [skip + "Gradient norm is not finite: inf"] * min(every, step - skipping_from
                                                                       + 1)
        norm = "inf" if bad else f"{0.9 + step / 1000:.4f}"
        lines.append(row + f"epoch: 0, step: {step}, loss: {2.0 - step / 400:.4f}, grad_norm: "
                     f"{norm}, learning_rate: 1e-05, total_steps: 1000")
    return lines


def test_llamafactory_v1_skips_from_the_first_warning(tmp_path: Path) -> None:
    # the warnings of steps 121-130 come before step 130's row: the skipping began at 121
    # (the rows' inf grad norms alone placed it at 130)
    lines = llamafactory_v1(range(10, 210, 10), skipping_from=121)
    assert faults(tmp_path, lines) == [("AMP003", 121)]


def test_llamafactory_v1_control(tmp_path: Path) -> None:
    # logging every 5 steps, one step's norm not finite: one skipped update, no fault
    lines = llamafactory_v1(range(505, 705, 5))
    skip = _LLAMAFACTORY.format(level="WARNING", name="llamafactory.v1.core.base_trainer:317")
    lines.insert(20, skip + "Gradient norm is not finite: nan")
    assert faults(tmp_path, lines) == []


# --- icefall ------------------------------------------------------------------------------------


def icefall_rows(batches: range, *, epoch: int = 3, grad_scale: float = 16.0) -> list[str]:
    """icefall's zipformer rows (k2-fsa/icefall ``egs/librispeech/ASR/zipformer/train.py``:
    ``Epoch {e}, batch {b}, loss[{info}], tot_loss[{tot}], batch size: {n}, lr: {lr:.2e},
    grad_scale: {s}``; ``icefall/utils.py``: the handler's ``%(asctime)s %(levelname)s
    [%(filename)s:%(lineno)d]``, ``MetricsTracker.__str__``'s ``k=%.4g, ... over %.2f frames.``)."""
    lines = []
    for b in batches:
        loss = 0.35 - b / 100000
        info = (f"loss={loss:.4g}, simple_loss={loss * 1.4:.4g}, pruned_loss={loss * 0.6:.4g}, "
                "over 2301.00 frames. ")
        tot = (f"loss={loss + 0.01:.4g}, simple_loss={loss * 1.4 + 0.01:.4g}, "
               f"pruned_loss={loss * 0.6 + 0.01:.4g}, over 458102.31 frames. ")
        lines.append(f"2026-11-30 10:00:00,000 INFO [train.py:1199] Epoch {epoch}, batch {b}, "
                     f"loss[{info}], tot_loss[{tot}], batch size: 81, lr: 3.02e-02, "
                     f"grad_scale: {grad_scale}")
    return lines


def test_icefall_scaledadam_stops_on_non_finite_grads(tmp_path: Path) -> None:
    # optim.py raises in the step after the last row (no NaN loss is printed: where the run was)
    lines = icefall_rows(range(2000, 3050, 50))
    lines += ["Traceback (most recent call last):",
              '  File "/workspace/icefall/egs/librispeech/ASR/zipformer/optim.py", line 574, '
              "in _get_clipping_scale",
              "RuntimeError: Too many grads were not finite"]
    assert faults(tmp_path, lines) == [("AMP006", 3000)]


def test_icefall_control(tmp_path: Path) -> None:
    # a bigger grad scale than the default's start, epoch 11 of a resumed run
    assert faults(tmp_path, icefall_rows(range(0, 2000, 100), epoch=11, grad_scale=64.0)) == []


