"""Logs in layouts and namings no family describes, each excerpt written from the tools' own
format strings (each names its source), with healthy controls beside the faults:

- the evaluation stream (AMP013): NaN/inf in evaluation values, which are not the training loss;
- losses named by rule (cost, nll, cross entropy, objective), ``;``-separated fields, bare
  ``step value`` columns, closing metrics blocks and trackers' run summaries;
- excerpts judged in log rows (a row every N steps), overflow cascades without step
  counters, a thousandfold loss jump beside an overflow;
- a static scale that never overflows is no warning.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose


def _hf(loss: float | str, norm: float | str = 1.1, epoch: float = 0.1) -> str:
    # transformers 5 Trainer.log: the values as strings (trainer.py, ``logs`` rounded to 4)
    return (f"{{'loss': '{loss}', 'grad_norm': '{norm}', 'learning_rate': '5e-05', "
            f"'epoch': '{epoch:.4g}'}}")


HEALTHY_HF = [_hf(round(2.5 - i * 0.05, 4), epoch=(i + 1) / 20) for i in range(10)]


# --- the evaluation stream (AMP013) ------------------------------------------------------------
EVALUATIONS = {
    # transformers trainer.py evaluate(): self.log(output.metrics)
    "HF eval dict": (
        [*HEALTHY_HF[:5], "{'eval_loss': 'nan', 'eval_runtime': '1.234', "
         "'eval_samples_per_second': '81.04', 'eval_steps_per_second': '10.13', 'epoch': '0.25'}",
         *HEALTHY_HF[5:]], "eval_loss", {"row": 1}),
    # transformers trainer_pt_utils.py log_metrics: f"  {key: <{k_width}} = {value:>{v_width}}"
    "HF metrics block": (
        [*HEALTHY_HF, "***** eval metrics *****", "  epoch                   =        0.5",
         "  eval_loss               =        nan", "  eval_runtime            = 0:00:01.23",
         "  eval_samples_per_second =     81.042"], "eval_loss", {"row": 1}),
    # lightning TQDMProgressBar: the postfix holds every metric logged with prog_bar=True
    "Lightning bar val_loss": (
        [f"Epoch {e}: 100%|##########| 10/10 [00:01<00:00,  9.80it/s, v_num=0, "
         f"train_loss={0.9 - e * 0.1:.3f}, val_loss={'0.812' if e < 2 else 'nan'}]"
         for e in range(4)], "val_loss", {"step": 30}),
    # fairseq progress_bar.py SimpleProgressBar.print for the valid subset
    "fairseq valid line": (
        [f"epoch 00{e} | loss {4.5 - e * 0.1:.3f} | nll_loss 3.1 | ppl 8.6 | wps 12345 | ups 3.2 "
         f"| wpb 2048 | bsz 64 | num_updates {e * 500} | lr 0.0005 | gnorm 1.2 | loss_scale 64"
         for e in range(1, 4)]
        + ["epoch 003 | valid on 'valid' subset | loss nan | nll_loss nan | ppl nan | wps 30000 "
           "| wpb 2000 | bsz 64 | num_updates 1500"], "loss", {"step": 1500}),
    # keras/src/utils/progbar.py: " - {name}: {value:.4f}" for every logged metric
    "Keras val_loss": (
        [f"32/32 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - loss: {0.6 - e * 0.1:.4f} - val_loss: "
         f"{'0.5512' if e < 2 else 'nan'}" for e in range(4)], "val_loss", {}),
    # wandb sdk/wandb_run.py footer: "Run summary:", then one right-aligned key and its value
    "wandb run summary": (
        [*HEALTHY_HF, "wandb: ", "wandb: Run summary:", "wandb:         train/epoch 0.5",
         "wandb:          train/loss 2.05", "wandb:           eval/loss nan"],
        "eval/loss", {"row": 1}),
    # mmengine/runner/log_processor.py: 'Epoch(val) [{epoch}][{iter}/{len}]  ' + metrics
    "mmengine Epoch(val)": (
        [f"2026/11/30 10:00:0{i} - mmengine - INFO - Epoch(train)  [1][{i * 10}/50]  lr: 1.0000e-04"
         f"  loss: {1.0 - i * 0.1:.4f}" for i in range(1, 6)]
        + ["2026/11/30 10:00:09 - mmengine - INFO - Epoch(val) [1][10/10]    loss: nan  "
           "accuracy/top1: 12.5000  data_time: 0.0100  time: 0.0500"], "loss", {}),
}


@pytest.mark.parametrize("name", EVALUATIONS)
def test_a_nan_in_evaluation_is_amp013_not_the_training_loss(tmp_path: Path, name: str) -> None:
    lines, metric, where = EVALUATIONS[name]
    result = diagnose_lines(tmp_path, lines)
    assert [d.code for d in result.faults] == ["AMP013"], name
    found = result.faults[0]
    assert found.evidence["phase"] == "evaluation"
    assert found.evidence["metric"] == metric
    assert found.evidence["value"] == "nan"
    for key, value in where.items():
        assert found.evidence[key] == value, (name, found.evidence)


EVALUATIONS_HEALTHY = {
    "finite evaluation": [*HEALTHY_HF[:5], "{'eval_loss': '0.8123', 'eval_runtime': '1.234', "
                          "'eval_samples_per_second': '81.04', 'epoch': '0.25'}", *HEALTHY_HF[5:]],
    # nanoGPT train.py initialises best_val_loss = 1e9; scripts that print "best so far"
    # before the first evaluation show inf
    "best validation loss so far": [*HEALTHY_HF, "val_best_loss: inf, patience: 3",
                                    "best_val_loss inf"],
    "metrics block finite": [*HEALTHY_HF, "***** train metrics *****",
                             "  epoch                    =        0.5",
                             "  train_loss               =     2.2845",
                             "  train_runtime            = 0:00:12.34",
                             "  train_samples_per_second =     12.345"],
    "wandb history sparklines": [*HEALTHY_HF, "wandb: Run history:",
                                 "wandb:  train/loss █▇▆▅▄▃▂▁", "wandb: Run summary:",
                                 "wandb:  train/loss 2.05"],
}


@pytest.mark.parametrize("name", EVALUATIONS_HEALTHY)
def test_finite_evaluations_and_best_so_far_stay_quiet(tmp_path: Path, name: str) -> None:
    result = diagnose_lines(tmp_path, EVALUATIONS_HEALTHY[name])
    assert result.faults == [], name
    assert result.timeline.steps == 10  # a summary is no step


def test_a_training_nan_first_makes_the_evaluation_nan_its_consequence(tmp_path: Path) -> None:
    lines = [*HEALTHY_HF[:4], _hf("nan", "nan"), _hf("nan", "nan"),
             "{'eval_loss': 'nan', 'eval_runtime': '1.2', 'epoch': '0.3'}"]
    result = diagnose_lines(tmp_path, lines)
    codes = [d.code for d in result.faults]
    assert codes[0] == "AMP006" and "AMP013" in codes
    assert next(d for d in result.faults if d.code == "AMP013").caused_by == "AMP006"


# speechbrain/utils/train_logger.py FileTrainLogger: "epoch: 1, lr: 1.00e+00 - train loss: 2.00
# - valid loss: 2.20, valid CER: 29.00": one epoch's training and validation summary on a line
def _epoch_summary(epoch: int, train: str, valid: str) -> str:
    return (f"speechbrain.utils.train_logger - epoch: {epoch}, lr: 1.00e+00 - train loss: {train}"
            f" - valid loss: {valid}, valid CER: {30 - epoch:.2f}")


def test_a_train_loss_beside_the_valid_loss_is_the_training_loss(tmp_path: Path) -> None:
    healthy = [_epoch_summary(e, f"{2 / e:.2f}", f"{2.2 / e:.2f}") for e in range(1, 5)]
    result = diagnose_lines(tmp_path, healthy)
    assert result.faults == [] and result.timeline.steps == 4
    result = diagnose_lines(tmp_path, [*healthy, _epoch_summary(5, "nan", "nan")])
    assert [d.code for d in result.faults] == ["AMP006", "AMP013"]
    assert result.faults[0].step == 5  # the epoch, the only counter the line has
    assert result.faults[1].evidence["metric"] == "valid loss"
    assert result.faults[1].caused_by == "AMP006"
    # the valid loss alone going NaN: evaluation's, the training loss still finite
    result = diagnose_lines(tmp_path, [*healthy, _epoch_summary(5, "0.38", "nan")])
    assert [d.code for d in result.faults] == ["AMP013"]


def test_a_summarised_training_nan_is_amp006(tmp_path: Path) -> None:
    lines = [*HEALTHY_HF, "wandb: Run summary:", "wandb:          train/loss nan"]
    assert [code for code, _ in faults(tmp_path, lines)] == ["AMP006"]


# --- losses by rule, layouts -------------------------------------------------------------------
LAYOUTS = {
    # a loop's print(f"epoch {e} iter {i} avg cost {cost:.4f}")
    "avg cost": [f"epoch 1 iter {i * 10} avg cost {'1.2345' if i < 4 else 'nan'}"
                 for i in range(1, 7)],
    # OpenNMT-py style "xent" and speech toolkits' "nll"
    "xent": [f"Step {i * 50}/1000; acc: 31.2; ppl: 80.1; xent: {'4.38' if i < 4 else 'nan'}; "
             "lr: 0.00100" for i in range(1, 7)],
    "nll": [f"[train] step={i} nll={'2.1' if i < 4 else 'inf'}" for i in range(1, 7)],
    "cross entropy": [f"iter {i}: cross_entropy {'2.31' if i < 4 else 'nan'} | lr 1e-4"
                      for i in range(1, 7)],
    "objective": [f"it {i} train objective {'0.91' if i < 4 else 'nan'}" for i in range(1, 7)],
    "semicolons": [f"Epoch: 1; Step: {i}; Loss: {'0.5' if i < 4 else 'nan'}; LR: 0.001"
                   for i in range(1, 7)],
    # a CSV-like header, then rows with ';' (a custom logger to stdout)
    "semicolon header and rows": ["step;loss;lr", *[f"{i * 10};{'2.3' if i < 4 else 'nan'};0.001"
                                                  for i in range(1, 7)]],
    # print(step, loss.item())
    "bare step value": [*HEALTHY_HF[:2], *[f"{i * 100} {'2.31' if i < 4 else 'nan'}"
                                           for i in range(1, 7)]],
    # print(step, loss): a tensor
    "bare step tensor": [*HEALTHY_HF[:2], "400 tensor(nan, device='cuda:0', "
                         "grad_fn=<NllLossBackward0>)"],
    # objectives trained on directly: a regression's mse, a VAE's elbo, an ASR model's ctc
    "train mse": [f"epoch {i} | trn_mse {'0.0123' if i < 4 else 'nan'} | lr 1e-3"
                  for i in range(1, 7)],
    "elbo": [f"step {i * 100}: elbo={'-104.2' if i < 4 else 'nan'} kl=3.1" for i in range(1, 7)],
    "ctc": [f"batch {i * 20} ctc {'45.1' if i < 4 else 'inf'} wer 0.9" for i in range(1, 7)],
}


@pytest.mark.parametrize("name", LAYOUTS)
def test_a_nan_under_another_name_or_layout_is_amp006(tmp_path: Path, name: str) -> None:
    assert [code for code, _ in faults(tmp_path, LAYOUTS[name])][:1] == ["AMP006"], name


def test_pandas_missing_values_are_no_loss(tmp_path: Path) -> None:
    # pandas prints a missing value as NaN in a Series: "0    NaN"
    lines = [*HEALTHY_HF[:5], "0    NaN", "1    2.0", "dtype: float64", *HEALTHY_HF[5:]]
    assert faults(tmp_path, lines) == []


def test_a_healthy_cost_line_is_read(tmp_path: Path) -> None:
    result = diagnose_lines(tmp_path, [f"epoch 1 iter {i * 10} avg cost {2.0 - i * 0.1:.4f}"
                                  for i in range(1, 9)])
    assert result.faults == [] and result.timeline.steps == 80


# --- rows, cascades, jumps ---------------------------------------------------------------------
def test_hf_rows_whose_grad_norm_turns_nan_are_a_collapse(tmp_path: Path) -> None:
    # fp16 T5: the forward overflows from one step on; logging_nan_inf_filter keeps the logged
    # loss finite, grad_norm is NaN on every row that samples a skipped step
    lines = [*HEALTHY_HF[:6], *[_hf(round(2.2 - i * 0.01, 4), "nan", epoch=0.35 + i * 0.05)
                                for i in range(3)]]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", 7)]
    found = result.faults[0]
    assert found.evidence["basis"] == "excerpt" and found.evidence["consecutive"] == 3
    assert "judged in log rows" in found.summary


def test_hf_rows_with_scattered_nan_grad_norms_are_a_high_skip_rate(tmp_path: Path) -> None:
    rows = [_hf(round(2.5 - i * 0.01, 4), "nan" if i in (6, 11, 17) else 1.0, epoch=i / 40)
            for i in range(1, 30)]
    assert [code for code, _ in faults(tmp_path, rows)] == ["AMP008"]


def test_hf_start_up_and_sawtooth_overflows_stay_quiet(tmp_path: Path) -> None:
    # logging_steps=1 in fp16: the back-off from 65536 shows NaN grad norms on the first rows,
    # then one overflow at the growth interval
    rows = [_hf(2.5, "nan", epoch=i / 400) for i in range(1, 5)]
    rows += [_hf(round(2.5 - i * 0.001, 4), "nan" if i == 150 else 1.0, epoch=(i + 4) / 400)
             for i in range(1, 300)]
    assert faults(tmp_path, rows) == []


def _apex(scale: float) -> str:
    # apex/amp/scaler.py update_scale: "Gradient overflow.  Skipping step, loss scaler {} "
    # "reducing loss scale to {}"
    return f"Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to {scale}"


def _valid(epoch: int) -> str:
    return (f"epoch {epoch:03d} | valid on 'valid' subset | loss {4.5 - epoch * 0.1:.3f} | "
            f"nll_loss 3.1 | ppl 8.6 | wps 30000 | wpb 2000 | bsz 64 | num_updates {epoch * 500}")


def test_an_overflow_cascade_after_epochs_of_validation_is_a_collapse(tmp_path: Path) -> None:
    lines = [_valid(e) for e in range(1, 4)] + [_apex(2.0 ** (15 - i)) for i in range(8)]
    result = diagnose_lines(tmp_path, lines)
    assert [d.code for d in result.faults] == ["AMP003"]
    assert result.faults[0].lines[0] == 4


def test_the_start_up_back_off_without_step_counters_stays_quiet(tmp_path: Path) -> None:
    lines = [_apex(2.0 ** (15 - i)) for i in range(8)] + [_valid(e) for e in range(1, 4)]
    assert faults(tmp_path, lines) == []


def test_two_overflows_beside_a_thousandfold_loss_jump(tmp_path: Path) -> None:
    # a plain loop's print(f"step {step} | loss {loss:.4f}") beside DeepSpeed's overflow lines
    stamp = "[2026-11-30 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] "
    lines = [f"step {i} | loss {2.3 - i * 0.01:.4f}" for i in range(1, 9)]
    lines += [stamp + "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, "
              "reducing to 32768", stamp + "[deepspeed] OVERFLOW! Rank 0 Skipping step. "
              "Attempted loss scale: 32768, reducing to 16384", "step 11 | loss 4123.5000"]
    result = diagnose_lines(tmp_path, lines)
    assert [d.code for d in result.faults] == ["AMP003"]
    assert result.faults[0].evidence["jump"] >= 1000


def test_a_sawtooth_beside_a_steady_loss_stays_quiet(tmp_path: Path) -> None:
    stamp = "[2026-11-30 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] "
    lines = [f"step {i} | loss {2.3 - i * 0.01:.4f}" for i in range(1, 9)]
    lines += [stamp + "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, "
              "reducing to 32768", "step 10 | loss 2.2100", "step 11 | loss 21.0000",
              "step 12 | loss 2.2000"]
    assert faults(tmp_path, lines) == []


def _imagenet_row(epoch: int, i: int, loss: float) -> str:
    # pytorch/examples imagenet/main.py ProgressMeter: "Epoch: [{}]" then "[{i}/{n}]", then
    # AverageMeter's "{name} {val} ({avg})" cells, tab-separated (apex's imagenet example too)
    return (f"Epoch: [{epoch}][{i:>3d}/500]\tTime  0.300 ( 0.310)\tData  0.010 ( 0.012)\t"
            f"Loss {loss:.4e} ({loss:.4e})\tAcc@1  10.00 ( 10.00)")


def test_an_overflow_cascade_between_imagenet_rows_mid_epoch_is_a_collapse(
        tmp_path: Path) -> None:
    # Epoch 3, iteration 120: mid-run, so the halvings are no start-up back-off, though the
    # excerpt starts with them; each overflow is printed before its iteration's row
    lines = [line for i in range(12)
             for line in (_apex(2.0 ** (15 - i)), _imagenet_row(3, 120 + i, 4.3))]
    result = diagnose_lines(tmp_path, lines)
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", 1121)]
    assert "after training was stable" in result.faults[0].summary
    assert "None" not in result.faults[0].summary  # apex prints the scale after, not before


def test_a_scale_falling_across_rows_that_do_not_print_it_is_a_collapse(
        tmp_path: Path) -> None:
    # one overflow every ten iterations, each halving: clean steps between, no growth (the
    # next overflow would reduce from a higher scale), 2**14 -> 2**6 in 70 steps
    lines = [_imagenet_row(3, 100, 2.1)]
    for i in range(10):
        lines += [_apex(2.0 ** (14 - i)), _imagenet_row(3, 110 + 10 * i, 2.1)]
    result = diagnose_lines(tmp_path, lines)
    # and the skips themselves, one in ten steps, are AMP008
    assert [(d.code, d.step) for d in result.faults] == [("AMP003", 1111), ("AMP008", 1101)]
    assert result.faults[0].evidence["pattern"] == "scale-trajectory"


def test_an_apex_sawtooth_between_imagenet_rows_stays_quiet(tmp_path: Path) -> None:
    # the scale grows back between overflows: each one reduces to the same value
    lines = []
    for i in range(0, 5000, 10):
        if i and i % 1000 == 0:
            lines.append(_apex(32768.0))
        lines.append(_imagenet_row(1 + i // 500, i % 500, 6.0 - i / 1000))
    assert faults(tmp_path, lines) == []


def _swin_row(i: int, loss: float, scale: float) -> str:
    # microsoft/Swin-Transformer main.py train_one_epoch: f'Train: [{epoch}/{EPOCHS}]'
    # f'[{idx}/{num_steps}]\t' ... f'loss {loss_meter.val:.4f} ({loss_meter.avg:.4f})\t'
    # f'grad_norm ...\t' f'loss_scale {scaler_meter.val:.4f} ({scaler_meter.avg:.4f})\t'
    norm = "nan" if math.isnan(loss) else "1.2000"
    return (f"[2026-11-30 10:00:00 swin_tiny] (main.py 230): INFO Train: [0/300][{i}/1251]\t"
            f"eta 0:10:00 lr 0.000100\t wd 0.0500\ttime 0.3012 (0.3100)\tloss {loss:.4f} "
            f"({loss:.4f})\tgrad_norm {norm} ({norm})\tloss_scale {scale:.4f} ({scale:.4f})\t"
            "mem 8000MB")


def test_a_scale_falling_row_after_row_is_a_collapse_before_the_nan_it_ends_in(
        tmp_path: Path) -> None:
    # a row every 50 steps; from step 650 each row shows the scale down 4x (two skips between
    # rows, none shown one by one), the loss NaN from step 950
    scales = [65536.0 / 4 ** max(0, (i - 600) // 50) for i in range(100, 1300, 50)]
    rows = [_swin_row(i, math.nan if i > 900 else 6.9 - i / 1000, s)
            for i, s in zip(range(100, 1300, 50), scales, strict=True)]
    result = diagnose_lines(tmp_path, rows)
    assert [(d.code, d.step) for d in result.faults][:2] == [("AMP003", 650), ("AMP006", 950)]
    assert result.faults[0].evidence["pattern"] == "scale-trajectory"


def test_a_sawtooth_in_swin_rows_stays_quiet(tmp_path: Path) -> None:
    rows = [_swin_row(i, 6.9 - i / 10000, 65536.0 if (i // 1000) % 2 == 0 else 32768.0)
            for i in range(100, 5000, 50)]
    assert faults(tmp_path, rows) == []


def test_the_step_in_a_transformers_3_log_dict_numbers_the_row(tmp_path: Path) -> None:
    # transformers 3.x Trainer.log: output = {**logs, **{"step": self.global_step}}
    rows = [f"{{'loss': {'nan' if s >= 300 else 2.1}, 'learning_rate': 4.9e-05, "
            f"'epoch': {s / 1000}, 'step': {s}}}" for s in range(100, 600, 100)]
    assert faults(tmp_path, rows) == [("AMP006", 300)]


def _timm_row(epoch: int, i: int, loss: float) -> str:
    # timm train.py train_one_epoch: f'Train: {epoch} [{update_idx:>4d}/{updates_per_epoch} '
    # f'({100. * (update_idx + 1) / updates_per_epoch:>3.0f}%)]  Loss: {loss_now:#.3g} ...'
    return (f"Train: {epoch} [{i:>4d}/1251 ({100 * (i + 1) / 1251:>3.0f}%)]  Loss: {loss:#.3g} "
            f"({loss:#.3g})  Time: 0.352s,  727.27/s  (0.360s,  711.11/s)  LR: 1.000e-03  "
            "Data: 0.012 (0.030)")


def test_epochs_counted_from_zero_number_the_steps_across_epochs(tmp_path: Path) -> None:
    # epoch 0, then 1, then 2: epoch 1 is the second epoch, not the first again
    rows = [_timm_row(e, i, math.nan if (e, i) >= (2, 500) else 6.9 - e / 10)
            for e in range(3) for i in range(0, 1251, 250)]
    assert faults(tmp_path, rows) == [("AMP006", 2 * 1251 + 500)]


def _yolov5_row(epoch: int, value: str) -> str:
    # ultralytics/yolov5 train.py: ('%10s' * 2 + '%10.4g' * 5) % (f'{epoch}/{epochs - 1}', mem,
    # *mloss, targets.shape[0], imgs.shape[-1]) before the tqdm bar
    return (f"{epoch:>10}/299{'3.39G':>10}{value:>10}{value:>10}{value:>10}{22:>10}{640:>10}: "
            "100%|██████████| 100/100 [00:30<00:00,  3.30it/s]")


def test_yolov5_rows_whose_losses_turn_nan_are_amp006_without_a_header(tmp_path: Path) -> None:
    # YOLOv5's header ("Epoch gpu_mem box obj cls labels img_size") holds no keyword, and an
    # excerpt may start below it: the NaN rows are read by their shape
    header = f"{'Epoch':>10}{'gpu_mem':>10}{'box':>10}{'obj':>10}{'cls':>10}{'labels':>10}" \
             f"{'img_size':>10}"
    rows = [header, *[_yolov5_row(e, "nan" if e >= 4 else f"{0.1 - e * 0.005:.4g}")
                      for e in range(8)]]
    result = diagnose_lines(tmp_path, rows)
    assert [(d.code, d.step) for d in result.faults] == [("AMP006", 4 * 100 + 100)]
    # where the excerpt holds the header, ``Epoch`` and ``obj`` (the objectness loss) make it
    # a header row: its finite rows are read too
    assert "last finite loss: 0.085" in result.faults[0].summary
    assert "no finite loss seen before it" in diagnose_lines(tmp_path, rows[1:]).faults[0].summary
    # finite rows hold no keyword: a healthy YOLOv5 log is nothing to diagnose, never a fault
    healthy = tmp_path / "healthy.log"
    healthy.write_text("\n".join([header, *[_yolov5_row(e, "0.05") for e in range(8)]]) + "\n")
    assert diagnose(str(healthy)).faults == []


def _gan_row(batch: int, d_loss: float, g_loss: float) -> str:
    # eriklindernoren/PyTorch-GAN implementations: "[Epoch %d/%d] [Batch %d/%d] [D loss: %f]
    # [G loss: %f]"
    return f"[Epoch 0/200] [Batch {batch}/938] [D loss: {d_loss:f}] [G loss: {g_loss:f}]"


def test_a_gan_batch_counter_numbers_the_step(tmp_path: Path) -> None:
    rows = [_gan_row(b, 0.5 if b < 300 else math.nan, 1.2) for b in range(0, 500, 10)]
    assert faults(tmp_path, rows) == [("AMP006", 300)]
    healthy = [_gan_row(b, 0.5 + (b % 7) / 50, 1.2 + (b % 5) / 10) for b in range(0, 500, 10)]
    assert faults(tmp_path, healthy) == []


def _scale_row(step: int, scale: float) -> str:
    return f"| step {step} | Train Loss {2.5 - step / 10000:.4f} | Loss Scale {scale:g} |"


def test_a_scale_halved_on_every_row_is_a_collapse(tmp_path: Path) -> None:
    scales = [65536.0, 65536.0, 131072.0] + [65536.0 / 2 ** i for i in range(1, 7)]
    rows = [_scale_row(100 * (i + 1), s) for i, s in enumerate(scales)]
    result = diagnose_lines(tmp_path, rows)
    assert [d.code for d in result.faults][:1] == ["AMP003"]
    assert "one every 100 steps" in result.faults[0].summary


def test_a_sawtooth_in_rows_stays_quiet(tmp_path: Path) -> None:
    scales = [65536.0, 65536.0, 32768.0, 32768.0, 65536.0, 65536.0, 32768.0, 65536.0,
              65536.0, 32768.0]
    assert faults(tmp_path, [_scale_row(100 * (i + 1), s) for i, s in enumerate(scales)]) == []


# --- a static scale ----------------------------------------------------------------------------
def test_a_constant_megatron_scale_that_never_overflows_is_no_warning(tmp_path: Path) -> None:
    # megatron/training/training.py training_log, --loss-scale 65536: 6,400 iterations
    lines = [f" [2026-11-30 10:00:00] iteration {i * 10:8d}/   10000 | consumed samples: "
             f"{i * 80:10d} | learning rate: 1.000000E-04 | global batch size:     8 | lm loss: "
             f"{3.0 - i / 1000:.6E} | loss scale: 65536.0 | grad norm: 1.234 | number of skipped "
             "iterations:   0 | number of nan iterations:   0 |" for i in range(1, 641)]
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == []
    assert result.timeline.steps == 6400
