"""Review 54: hunting false alarms on healthy logs, each excerpt written from the tool's own
format strings (each builder names the repository and file), under NON-default but healthy
settings, beside the fault twin that the narrowed rule must still catch.

- A perplexity's ``inf`` at the start of a run, its training loss finite and falling: a
  language model's first evaluation, its loss about ln(vocabulary) ≈ 11.5, with the
  perplexity computed as ``torch.exp`` of a float16 loss (``precision="16-true"``), which
  overflows past 11.09. Before: AMP013 (warning) on Lightning's bar (``val_ppl=inf`` in the
  postfix of every epoch-0 bar), on ``trainer.validate``'s table run before ``fit`` (even
  with its finite ``val_loss`` in the table) and on a loop's evaluation row printing the
  perplexity alone. Now the evaluation stream holds a perplexity's +inf to the end and drops
  it where training went well (``evaluation.EvaluationStream``); it counts, as before, where
  training's loss went non-finite, or beside another non-finite value on its line; a NaN
  perplexity counts as read.
- lstival/ssm_time_series' NaN smoke test ending ``PASS: no NaN/Inf detected in
  loss/grad/params.``. Before: AMP006 (an error) at the step after its last row: the denial
  stood two words before the loss, out of ``_NEGATED``'s reach. Now a denial right before a
  finding sentence makes it none (``nonfinite_sentences._DENIED``); its FAIL line still fires.
- Controls, quiet on the parent 317ca79 too (27 excerpts, 16 tools' formats): HF Trainer
  rows with a loss of 1e4 or below zero, ``'aux_loss': 0.0``, ``'nan_count': 0``,
  ``'loss_scale': 1.0`` in bf16, warm-up rows with ``'grad_norm': nan``, GRPO's loss 0.0;
  Lightning bars with ``lr_scale``/``image_scale`` and a negative loss, in one ``\\r`` line;
  DeepSpeed's config dump (``loss_scale ... 0``: dynamic) and 16 warm-up overflows from 2**32,
  eight ranks' overflows behind torchrun prefixes, a static scale of 128 over 3000 steps;
  fairseq's ``NOTE: gradient overflow detected`` warm-up under its Namespace
  (``detect_nan=False``); Megatron-LM's argument dump (``min_loss_scale ... 1.0``) and a bf16
  run's ``loss scale: 1.0`` with ``num zeros: 0.0`` over 6000 iterations; mmengine with
  ``loss_aux: 0.0000`` and an ELBO below zero; detectron2's ``loss_box_reg: 0`` of the first
  iterations; timm's loss of 1e4 and a resumed run; Ultralytics' ``scale=0.5`` argument and a
  single-class ``cls_loss`` of 0; nanoGPT's ``mfu -100.00%`` and a resumed run; Keras 2's
  negative loss and Keras 3's ANSI bar; PyTorch examples (VAE, word language model,
  ImageNet); ESPnet's ``The grad norm is inf`` warm-up under ``loss_scale=``; SpeechBrain's
  ``ctc_loss: 0.00``; NeMo's bar at ``loss_scale=1.0``; accelerate's state print; apex's
  O0/O2 option dumps; torch's deprecation and scheduler-order warnings; glog and CRLF prefixes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, megatron_line, tqdm_bar

# --- the perplexity's inf at the start (fixed here) ---------------------------------------


def _lightning_ppl_bars(bad_epoch: int | None = None) -> list[str]:
    """Lightning's tqdm bar (lightning ``pytorch/callbacks/progress/tqdm_progress.py``:
    ``set_postfix(self.get_metrics(trainer, pl_module))``, ``v_num`` and the ``prog_bar``
    metrics), ``self.log("val_ppl", torch.exp(loss), prog_bar=True)`` at
    ``precision="16-true"``: the sanity check's perplexity of an untrained model (its loss
    11.5) is float16's +inf and stays on the bar through epoch 0; the training loss NaN from
    ``bad_epoch`` on."""
    out: list[str] = []
    for epoch in range(4):
        ppl = "inf" if epoch == 0 else f"{math.exp(9.0 - epoch):.1f}"
        for n in range(20, 201, 20):
            loss = "nan" if bad_epoch is not None and epoch >= bad_epoch else (
                f"{11.5 - epoch - n / 200:.3g}")
            out.append(tqdm_bar(f"Epoch {epoch}", n, 200, f", v_num=0, loss={loss}, "
                                                          f"val_ppl={ppl}"))
    return out


def _validate_table(rows: list[tuple[str, str]]) -> list[str]:
    """``trainer.validate``'s rich table (lightning ``pytorch/loops/evaluation_loop.py``
    ``_print_results``): a ``Validate metric`` column and ``DataLoader 0``, values centred."""
    width = 27
    return ["Validation DataLoader 0: 100%|██████████| 20/20 [00:02<00:00, 10.00it/s]",
            "┏" + "━" * width + "┳" + "━" * width + "┓",
            f"┃{'Validate metric'.center(width)}┃{'DataLoader 0'.center(width)}┃",
            "┡" + "━" * width + "╇" + "━" * width + "┩",
            *(f"│{key.center(width)}│{value.center(width)}│" for key, value in rows),
            "└" + "─" * width + "┴" + "─" * width + "┘"]


def _validate_then_fit(rows: list[tuple[str, str]], bad_epoch: int | None = None) -> list[str]:
    """``trainer.validate(model)`` before ``trainer.fit(model)`` (the perplexity before
    training), then fit's bars, one finished bar an epoch, the training loss NaN from
    ``bad_epoch`` on."""
    bars = [tqdm_bar(f"Epoch {epoch}", 200, 200, ", v_num=0, train_loss="
                     + ("nan" if bad_epoch is not None and epoch >= bad_epoch
                        else f"{9.5 - epoch:.3f}")) for epoch in range(6)]
    return [*_validate_table(rows), *bars]


def _loop_ppl_rows(inf_evals: int = 1, bad: int | None = None) -> list[str]:
    """A loop's ``print(f"step {step} | train loss {loss:.4f} | lr {lr:.0e}")`` and, every 500
    steps, ``print(f"step {step} | val ppl {math.exp(val_loss):.2f}")`` of a float16 loss
    (``torch.exp``: +inf past 11.09) from step 0: the first ``inf_evals`` evaluations inf;
    the training loss NaN from step ``bad`` on."""
    out: list[str] = []
    for step in range(0, 2100, 100):
        loss = "nan" if bad is not None and step >= bad else f"{11.5 - step / 500:.4f}"
        out.append(f"step {step} | train loss {loss} | lr 3e-04")
        if step % 500 == 0:
            ppl = "inf" if step // 500 < inf_evals else f"{math.exp(11.6 - step / 500):.2f}"
            out.append(f"step {step} | val ppl {ppl}")
    return out


@pytest.mark.parametrize("lines", [
    _lightning_ppl_bars(),
    _validate_then_fit([("val_loss", "11.523438"), ("val_ppl", "inf")]),
    _validate_then_fit([("val_ppl", "inf")]),
    _loop_ppl_rows(1),
    _loop_ppl_rows(2),
], ids=["lightning-bar", "validate-table", "validate-table-ppl-only", "loop", "loop-two"])
def test_perplexity_inf_before_training_is_quiet(tmp_path: Path, lines: list[str]) -> None:
    """Before: AMP013 at the first ``inf`` (the bar's step 20, the table's row, step 0)."""
    assert faults(tmp_path, lines) == []


def test_perplexity_inf_fault_twins(tmp_path: Path) -> None:
    """Where training's loss went non-finite the inf counts as before (AMP006 and AMP013);
    a NaN perplexity counts as read; an inf beside a NaN loss on its line counts."""
    found = faults(tmp_path, _lightning_ppl_bars(bad_epoch=2))
    assert [code for code, _ in found] == ["AMP006", "AMP013"]
    assert found[1] == ("AMP013", 20)
    assert [code for code, _ in faults(tmp_path, _validate_then_fit(
        [("val_ppl", "inf")], bad_epoch=3))] == ["AMP006", "AMP013"]
    nan_ppl = [line.replace("val ppl inf", "val ppl nan") for line in _loop_ppl_rows(1)]
    assert faults(tmp_path, nan_ppl) == [("AMP013", 0)]
    beside = [*_loop_ppl_rows(0), "step 2000 | val loss nan | val ppl inf"]
    assert faults(tmp_path, beside) == [("AMP013", 2000)]


# --- a check's report that it found no NaN (fixed here) -------------------------------------


def _m5_smoke(fail: tuple[int, int] | None = None, epochs: int = 2) -> list[str]:
    """lstival/ssm_time_series ``src/test_m5_nan.py``, a NaN smoke test of an fp16 loop:
    ``print("NaN smoke test config: " f"dataset={...} total={...} subset={...} batch_size=
    {...} pred_len={...} device={...} amp={...} amp_dtype={...}")``, every 50 steps of each
    epoch (``--max-steps 200``, the step from 0 each epoch) ``print(f"ok epoch={epoch}
    step={step} loss={loss.item():.6g} lr={lr:.6g}")``, at the end ``print("PASS: no NaN/Inf
    detected in loss/grad/params.")``; at ``fail`` (epoch, step) it prints ``f"FAIL: non-finite
    loss at epoch={epoch} step={step} " f"loss={loss...item()}\\n"`` and its stats, and exits."""
    out = ["NaN smoke test config: dataset=m5 total=30490 subset=3049 batch_size=128 "
           "pred_len=96 device=cuda amp=True amp_dtype=float16",
           "Chronos config override: /work/checkpoints/nan_smoke_tests/m5/"
           "cronos_loader_override.yaml"]
    for epoch in range(epochs):
        for step in range(200):
            if fail == (epoch, step):
                return [*out, f"FAIL: non-finite loss at epoch={epoch} step={step} loss=nan",
                        "  context: min=0 max=1", "  target:  min=0 max=1",
                        "  preds:   (no finite values)"]
            if step % 50 == 0:
                out.append(f"ok epoch={epoch} step={step} loss="
                           f"{0.0523 - epoch * 0.01 - step / 1e4:.6g} lr={0.001:.6g}")
    return [*out, "PASS: no NaN/Inf detected in loss/grad/params."]


@pytest.mark.parametrize("epochs", [1, 2])
def test_a_check_that_found_no_nan_is_quiet(tmp_path: Path, epochs: int) -> None:
    """Before: AMP006 (an error) at the step after the last row (151; 351), the denial
    ``no`` two words before the loss out of the sentence rule's reach."""
    assert faults(tmp_path, _m5_smoke(epochs=epochs)) == []


def test_a_check_that_found_nan_still_fires(tmp_path: Path) -> None:
    """Fault twins: the script's own FAIL line is AMP006 at its step; a sentence that found
    the NaN, with no denial before it, is still read."""
    assert faults(tmp_path, _m5_smoke(fail=(0, 120))) == [("AMP006", 120)]
    assert [code for code, _ in faults(tmp_path, _m5_smoke(fail=(1, 120)))] == ["AMP006"]
    found = [*_m5_smoke(epochs=1)[:-1], "WARNING: NaN/Inf detected in loss at step 160"]
    assert faults(tmp_path, found) == [("AMP006", 160)]


# --- controls: quiet on the parent too ------------------------------------------------------


def _hf_rows(extra: Callable[[int], str], loss: Callable[[int], str], rows: int = 20
             ) -> list[str]:
    """transformers' ``Trainer.log`` dicts (``trainer.py``: ``logs["loss"] = round(...,
    4)``, ``grad_norm``, ``learning_rate``, ``epoch``; ``print(output)`` of the dict from
    ``PrinterCallback``/``ProgressCallback.on_log``), ``extra(i)`` keys before the epoch."""
    return [f"{{'loss': {loss(i)}, 'grad_norm': {1 + i / 100:.4f}, 'learning_rate': "
            f"{5e-05 - i * 1e-06:.6g}{extra(i)}, 'epoch': {i * 0.05:.2f}}}"
            for i in range(1, rows + 1)]


def hf_large_loss() -> list[str]:
    """HF rows of a regression in raw units: a loss of 1.2e4 falling."""
    return _hf_rows(lambda i: "", lambda i: f"{12345.6 - i * 100:.4f}")


def hf_negative_loss() -> list[str]:
    """HF rows of a negative log-likelihood objective: below zero and falling."""
    return _hf_rows(lambda i: "", lambda i: f"{-100.5 - i * 10:.4f}")


def hf_aux_off_counts() -> list[str]:
    """HF rows with a switched-off auxiliary loss (``'aux_loss': 0.0``), a NaN counter at 0
    and a bf16 run's ``'loss_scale': 1.0``."""
    return _hf_rows(lambda i: ", 'aux_loss': 0.0, 'nan_count': 0, 'loss_scale': 1.0",
                    lambda i: f"{2.5 - i / 20:.4f}")


def hf_warmup_grad_norm_nan() -> list[str]:
    """HF rows at ``logging_steps=1`` under fp16: the first four steps overflowed (GradScaler
    skipped them; ``clip_grad_norm_`` returned NaN), the learning rate 0.0 at the first."""
    return [f"{{'loss': {10.9 - i / 20:.4f}, 'grad_norm': "
            f"{'nan' if i <= 4 else f'{5 + i / 100:.4f}'}, 'learning_rate': "
            f"{0.0 if i == 1 else i * 1e-06:.6g}, 'epoch': {i * 0.001:.3f}}}"
            for i in range(1, 45)]


def grpo_rows() -> list[str]:
    """huggingface/trl ``trl/trainer/grpo_trainer.py`` rows through ``Trainer.log``: the loss
    0.0 (advantages normalised within each group, the ratio 1, ``beta=0.0``), the reward
    rising, ``kl`` 0.0."""
    return [f"{{'loss': 0.0, 'grad_norm': {0.3 + i / 100:.4f}, 'learning_rate': 1e-06, "
            f"'completions/mean_length': 200.5, 'rewards/accuracy_reward/mean': "
            f"{0.2 + i / 100:.3f}, 'reward': {0.5 + i / 100:.3f}, 'reward_std': 0.3, "
            f"'frac_reward_zero_std': 0.1, 'kl': 0.0, 'epoch': {i * 0.01:.2f}}}"
            for i in range(1, 31)]


def lightning_scales_negative() -> list[str]:
    """Lightning's bar (``tqdm_progress.py``) with a negative loss through tqdm's
    ``format_num`` and ``lr_scale``/``image_scale`` metrics that are no loss scales."""
    return [tqdm_bar("Epoch 2", n, 1000, f", v_num=3, train_loss={-1240 - n:.3g}, "
                                         "lr_scale=0.500, image_scale=1.50")
            for n in range(50, 1001, 50)]


def lightning_carriage_returns() -> list[str]:
    """The same bar as a terminal's copy keeps it: every refresh after ``\\r`` on one line."""
    return ["\r".join(tqdm_bar("Epoch 0", n, 200, f", v_num=0, loss={-5.3 - n / 100:.3g}")
                      for n in range(10, 201, 10))]


_DS = "[2024-03-01 10:00:{:02d},000] [INFO] "


def deepspeed_warmup_from_2_32() -> list[str]:
    """DeepSpeed's config dump (deepspeed ``runtime/config.py`` ``DeepSpeedConfig.print``:
    ``"  {} {} {}".format(arg, "." * (29 - len(arg)), value)``; ``loss_scale 0`` means
    dynamic), 16 warm-up overflows of ``initial_scale_power: 32`` (``runtime/fp16/
    loss_scaler.py``: ``[deepspeed] OVERFLOW! Rank {r} Skipping step. Attempted loss scale:
    {s}, reducing to {n}``), then the engine's ``step={step}, skipped={n}, lr=..., mom=...``
    (``runtime/engine.py`` ``_report_progress`` through ``log_dist``, ``[Rank 0]``)."""
    out = [_DS.format(0) + "[config.py:988:print]   " + f"{key} {'.' * (29 - len(key))} {value}"
           for key, value in (("fp16_enabled", "True"), ("loss_scale", "0"),
                              ("initial_dynamic_scale", "4294967296"))]
    scale = 2 ** 32
    for i in range(1, 17):
        out.append(_DS.format(i) + "[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! "
                   f"Rank 0 Skipping step. Attempted loss scale: {scale}, reducing to "
                   f"{scale // 2}")
        scale //= 2
    out += [_DS.format(30) + f"[logging.py:96:log_dist] [Rank 0] step={step}, skipped=16, "
            "lr=[0.0001], mom=[(0.9, 0.999)]" for step in range(10, 1010, 10)]
    return out


def deepspeed_eight_ranks() -> list[str]:
    """The same warm-up printed by eight ranks behind torchrun's ``--tee`` prefixes
    (``[default{r}]:``), interleaved, six overflows each, then rank 0's progress and HF rows."""
    out = []
    scale = 65536
    for k in range(6):
        for rank in (3, 0, 5, 1, 7, 2, 6, 4):
            out.append(f"[default{rank}]:" + _DS.format(k) + "[loss_scaler.py:183:update_scale]"
                       f" [deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss "
                       f"scale: {scale}, reducing to {scale // 2}")
        scale //= 2
    for step in range(10, 1010, 10):
        out.append("[default0]:" + _DS.format(40) + f"[logging.py:96:log_dist] [Rank 0] "
                   f"step={step}, skipped=6, lr=[0.0001], mom=[(0.9, 0.999)]")
        out.append(f"[default0]:{{'loss': {2.5 - step / 1e4:.4f}, 'grad_norm': 1.1, "
                   f"'learning_rate': 0.0001, 'epoch': {step / 1000:.2f}}}")
    return out


def deepspeed_static_128() -> list[str]:
    """DeepSpeed at ``"loss_scale": 128`` (static: ``loss_scaler.py`` ``LossScaler``, no
    overflow line ever), 300 progress lines, no skip."""
    return [_DS.format(0) + "[config.py:988:print]   loss_scale ................... 128",
            *(_DS.format(1) + f"[logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, "
              "lr=[0.0001], mom=[(0.9, 0.999)]" for step in range(10, 3010, 10))]


def fairseq_warmup() -> list[str]:
    """fairseq's Namespace at start-up and its fp16 warm-up (facebookresearch/fairseq
    ``fairseq/trainer.py``: ``NOTE: gradient overflow detected, ignoring gradient, setting
    loss scale to: {s}``, from ``--fp16-init-scale 128``), then ``train_inner`` rows
    (``fairseq/logging/progress_bar.py`` ``SimpleProgressBar``: ``epoch 001:    {i} / {n}
    k=v, ...``) at the scale reached."""
    head = "2024-01-01 10:00:0{} | INFO | "
    out = [head.format(0) + "fairseq_cli.train | Namespace(fp16=True, fp16_init_scale=128, "
           "min_loss_scale=0.0001, threshold_loss_scale=None, detect_nan=False, "
           "skip_invalid_size_inputs_valid_test=True)"]
    scale = 128.0
    for k in range(3):
        scale /= 2
        out.append(head.format(k + 1) + "fairseq.trainer | NOTE: gradient overflow detected, "
                   f"ignoring gradient, setting loss scale to: {scale}")
    out += [head.format(9) + f"train_inner | epoch 001:    {n} / 3000 loss={9 - n / 1000:.3f}, "
            f"nll_loss={8.5 - n / 1000:.3f}, ppl=300.1, wps=12000, ups=3, wpb=4000, bsz=128, "
            f"num_updates={n - 3}, lr=0.0005, gnorm=1.2, loss_scale={scale}, train_wall=30, "
            "gb_free=10.1, wall=100" for n in range(100, 3100, 100)]
    return out


def megatron_arguments() -> list[str]:
    """Megatron-LM's argument dump (``megatron/training/arguments.py`` ``_print_args``:
    ``'  {} {} {}'.format(arg, '.' * (48 - len(arg)), value)``, sorted) with its scaler's
    bounds (``min_loss_scale ... 1.0``, ``loss_scale ... None``), then iteration rows at a
    dynamic scale of 131072."""
    args = {"check_for_nan_in_loss_and_grad": "True", "fp16": "True", "hysteresis": "2",
            "initial_loss_scale": "4294967296", "loss_scale": "None",
            "loss_scale_window": "1000", "min_loss_scale": "1.0"}
    return ["------------------------ arguments ------------------------",
            *(f"  {key} {'.' * (48 - len(key))} {value}" for key, value in args.items()),
            "-------------------- end of arguments ---------------------",
            *(megatron_line(i, loss=3.0 - i / 1e4, scale=131072.0) for i in range(10, 1010, 10))]


def megatron_bf16_zeros() -> list[str]:
    """Megatron-LM in bf16 (``loss scale: 1.0``: no grad scaler) with ``--log-num-zeros-in-grad``
    and a MoE's ``z_loss`` at 0 (``training_log``: ``f' {key}: {value:.6E} |'``), 6000
    iterations, no skip."""
    return [megatron_line(i, loss=3.0 - i / 1e4, scale=1.0).replace(
        " | loss scale:", " | z_loss: 0.000000E+00 | loss scale:").replace(
        " | number of skipped", " | num zeros: 0.0 | number of skipped")
        for i in range(10, 6010, 10)]


def mmengine_rows() -> list[str]:
    """open-mmlab/mmengine ``mmengine/runner/log_processor.py`` (``Epoch(train)  [{e}]
    [{i}/{n}]  lr: ...  eta: ...  time: ...  data_time: ...  memory: ...`` then each loss
    ``f'{name}: {value:.4f}'``): an auxiliary loss switched off, and a VAE's ELBO below 0."""
    head = "2024/01/01 10:00:00 - mmengine - INFO - Epoch(train)  [3][{:3d}/500]  "
    aux = [head.format(i) + "base_lr: 1.0000e-02 lr: 1.0000e-02  eta: 1:00:00  time: 0.5000  "
           "data_time: 0.0100  memory: 3000  grad_norm: 5.0000  loss: 1.2000  loss_cls: 0.5000"
           "  loss_bbox: 0.7000  loss_aux: 0.0000" for i in range(50, 550, 50)]
    elbo = [head.format(i) + f"lr: 1.0000e-04  eta: 1:00:00  time: 0.5000  data_time: 0.0100"
            f"  memory: 3000  loss: -{20 + i / 100:.4f}  loss_kl: 0.0000  loss_nll: "
            f"-{20 + i / 100:.4f}" for i in range(50, 550, 50)]
    return [*aux, *elbo]


def detectron2_rows() -> list[str]:
    """facebookresearch/detectron2 ``detectron2/utils/events.py`` ``CommonMetricPrinter``
    (``"{eta}iter: {iter}  {losses}  {non_losses}  {avg_time}{last_time}{avg_data_time}
    {last_data_time} lr: {lr}  {memory}"``, each loss ``"{}: {:.4g}"``): ``loss_box_reg: 0``
    while no proposal matched a box in the first iterations."""
    return [f"[01/01 10:00:00 d2.utils.events]:  eta: 1:00:00  iter: {it}  total_loss: "
            f"{2.1 - it / 1000:.4g}  loss_cls: 0.9  loss_box_reg: {0 if it < 80 else 0.3:.4g}  "
            "loss_mask: 0.69  loss_rpn_cls: 0.05  loss_rpn_loc: 0.01    time: 0.5000  "
            "last_time: 0.4900  data_time: 0.0200  last_data_time: 0.0190   lr: 0.0004  "
            "max_mem: 3000M" for it in range(19, 400, 20)]


def timm_rows() -> list[str]:
    """huggingface/pytorch-image-models ``train.py`` (``f'Train: {epoch} [{update_idx:>4d}/
    {updates_per_epoch} ({100. * (update_idx + 1) / updates_per_epoch:>3.0f}%)]  Loss:
    {losses_m.val:#.3g} ({losses_m.avg:#.3g})  Time: ...  LR: {lr:.3e}  Data: ...'``) of a
    loss about 1e4, resumed from its checkpoint (``Restoring AMP loss scaler state from
    checkpoint...``, ``timm/models/_helpers.py``), its test rows between epochs."""
    out = ["Using native Torch AMP. Training in mixed precision.",
           "Restoring model state from checkpoint...",
           "Restoring AMP loss scaler state from checkpoint...",
           "Loaded checkpoint 'output/train/last.pth.tar' (epoch 41)"]
    for epoch in range(42, 45):
        for b in range(0, 500, 100):
            out.append(f"Train: {epoch} [{b:>4d}/500 ({100.0 * (b + 1) / 500:>3.0f}%)]  Loss: "
                       f"{1e4 - b - epoch:#.3g} ({1e4:#.3g})  Time: 0.500s,  512.00/s  "
                       "(0.500s,  512.00/s)  LR: 1.000e-03  Data: 0.010 (0.010)")
        out.append("Test: [  48/48]  Time: 0.500 (0.500)  Loss:  1.500 ( 1.500)  Acc@1:  "
                   "60.000 ( 60.000)  Acc@5:  80.000 ( 80.000)")
    return out


def ultralytics_rows() -> list[str]:
    """ultralytics ``ultralytics/engine/trainer.py``: the arguments line (``scale=0.5``, an
    augmentation's image scale), the header ``"%11s" * (4 + len(loss_names))`` and each bar's
    ``("%11s" * 2 + "%11.4g" * (2 + loss_length))`` of a single-class set (``cls_loss`` 0)."""
    head = ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "cls_loss", "dfl_loss", "Instances",
                           "Size")
    return ["engine/trainer: task=detect, mode=train, model=yolo11n.pt, data=one.yaml, "
            "epochs=10, amp=True, lr0=0.01, cls=0.5, translate=0.1, scale=0.5, mosaic=1.0",
            head, *(("%11s" * 2 + "%11.4g" * 5) % (f"{e}/10", "3.2G", 1.5 - e / 50, 0,
                                                    1.1 - e / 100, 50, 640)
                    + ": 100%|██████████| 10/10 [00:05<00:00,  2.00it/s]"
                    for e in range(1, 11))]


def nanogpt_resumed() -> list[str]:
    """karpathy/nanoGPT ``train.py`` resumed (``init_from='resume'``: ``Resuming training
    from {out_dir}``), its evaluation at the resumed step, then ``f"iter {iter_num}: loss
    {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%"`` with ``running_mfu`` at
    its -1.0 sentinel for the first iterations (``mfu -100.00%``)."""
    out = ["Resuming training from out", "number of parameters: 123.65M",
           "step 2000: train loss 3.1000, val loss 3.1500", "saving checkpoint to out"]
    for it in range(2000, 2400, 10):
        out.append(f"iter {it}: loss {3.1 - (it - 2000) / 2000:.4f}, time "
                   f"{12345.67 if it == 2000 else 100.0:.2f}ms, mfu "
                   f"{-100.0 if it < 2050 else 30.0:.2f}%")
    return out


def keras_rows() -> list[str]:
    """keras-team/keras 2 ``keras/utils/generic_utils.py`` ``Progbar`` (``{n}/{n} [===...]
    - {t}s {ms}ms/step - loss: {v:.4f} - val_loss: ...``) of a negative log-likelihood, then
    Keras 3's ``keras/src/utils/progbar.py`` bar with its ANSI bold and colours, a loss of
    1.5e4."""
    out = []
    for e in range(1, 6):
        out += [f"Epoch {e}/5", "100/100 [==============================] - 5s 50ms/step - "
                f"loss: {-1234.5678 - e * 10:.4f} - val_loss: {-1200.1 - e * 10:.4f}"]
    for e in range(1, 6):
        out += [f"Epoch {e}/5", "\x1b[1m100/100\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m"
                f"\x1b[37m\x1b[0m \x1b[1m5s\x1b[0m 50ms/step - loss: {15000.0 - e * 100:.4f} - "
                f"mae: 90.1000 - val_loss: {14000.0 - e * 100:.4f}"]
    return out


def pytorch_examples() -> list[str]:
    """pytorch/examples: ``vae/main.py`` (``'Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss:
    {:.6f}'``, ``'====> Epoch: {} Average loss: {:.4f}'``, ``'====> Test set loss:
    {:.4f}'``: a summed loss in the hundreds), ``word_language_model/main.py`` (``'| epoch
    {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | loss {:5.2f} | ppl
    {:8.2f}'``, a perplexity of 1e4 at the start) and ``imagenet/main.py`` (``Loss 6.9078e+00
    (6.9100e+00)`` as its ``AverageMeter`` prints)."""
    out = []
    for e in range(1, 3):
        out += [f"Train Epoch: {e} [{b}/60000 ({100.0 * b / 60000:.0f}%)]\tLoss: "
                f"{550.1 - e * 50 - b / 1000:.6f}" for b in range(0, 60000, 12800)]
        out += [f"====> Epoch: {e} Average loss: {164.1 - e:.4f}",
                f"====> Test set loss: {160.2 - e:.4f}"]
    for b in range(200, 2201, 200):
        loss = 9.5 - b / 2000
        out.append(f"| epoch   1 | {b:5d}/ 2983 batches | lr 20.00 | ms/batch 10.00 | loss "
                   f"{loss:5.2f} | ppl {math.exp(loss):8.2f}")
    out += [f"Epoch: [0][{b:4d}/5005]\tTime  0.500 ( 0.600)\tData  0.010 ( 0.020)\tLoss "
            "6.9078e+00 (6.9100e+00)\tAcc@1   0.00 (  0.10)\tAcc@5   0.39 (  0.50)"
            for b in range(0, 5005, 500)]
    return out


def espnet_warmup() -> list[str]:
    """espnet/espnet ``espnet2/train/trainer.py``: ``logging.warning(f"The grad norm is
    {grad_norm}. Skipping updating the model.")`` on the fp16 warm-up's overflowed steps
    (``scaler.update()`` still called), then the reporter's rows (``{e}epoch:train:{a}-{b}
    batch: k=v, ...``) with ``loss_scale=``."""
    head = "[host] 2023-01-01 10:00:00,000 (trainer:{}) "
    out = [head.format(662) + "WARNING: The grad norm is inf. Skipping updating the model."
           for _ in range(3)]
    out += [head.format(732) + f"INFO: 1epoch:train:{b - 99}-{b}batch: iter_time=1.2e-04, "
            f"forward_time=0.100, loss_ctc={150 - b / 100:.3f}, loss_att={80 - b / 100:.3f}, "
            f"acc=0.{b // 100:02d}, loss={100 - b / 100:.3f}, backward_time=0.100, "
            "grad_norm=50.1, clip=100.000, loss_scale=8192.000, optim_step_time=0.050, "
            "optim0_lr0=1.0e-04, train_time=0.500" for b in range(100, 2100, 100)]
    return out


def speechbrain_rows() -> list[str]:
    """speechbrain/speechbrain ``speechbrain/utils/train_logger.py`` ``FileTrainLogger``
    (``epoch: {e}, lr: ... - train loss: ... - valid loss: ..., valid WER: ...``) of a
    recipe whose CTC term is weighted off (``ctc_loss: 0.00``)."""
    return [f"epoch: {e}, lr: 1.00e-03, steps: {e * 1000}, optimizer: Adam - train loss: "
            f"{2.34 - e / 10:.2f}, train ctc_loss: 0.00 - valid loss: {2.1 - e / 10:.2f}, "
            "valid ctc_loss: 0.00, valid WER: 20.00" for e in range(1, 11)]


def nemo_bar() -> list[str]:
    """NVIDIA/NeMo's Lightning bar (``nemo/collections/nlp/models/language_modeling/
    megatron_gpt_model.py`` logs ``reduced_train_loss``, ``global_step``,
    ``consumed_samples`` with ``prog_bar=True``) in bf16: ``loss_scale=1.0``."""
    return [tqdm_bar("Epoch 0", n, 1000, f", reduced_train_loss={3.5 - n / 1000:.3f}, "
                     f"global_step={n - 1}.0, consumed_samples={n * 8}.0, v_num=0, "
                     "loss_scale=1.0") for n in range(50, 1001, 50)]


def accelerate_state() -> list[str]:
    """huggingface/accelerate ``src/accelerate/state.py`` ``AcceleratorState.__repr__``
    (``Mixed precision type: fp16``) printed by a no_trainer script, then its
    ``logger.info`` rows through ``get_logger`` (``%(asctime)s - %(levelname)s -
    %(name)s - %(message)s``)."""
    return ["Distributed environment: MULTI_GPU  Backend: nccl", "Num processes: 2",
            "Process index: 0", "Local process index: 0", "Device: cuda:0", "",
            "Mixed precision type: fp16", "",
            *(f"01/01/2024 10:00:00 - INFO - __main__ - step {s}: loss {3 - s / 500:.4f}"
              for s in range(10, 410, 10))]


def _loop(n: int = 40, start: int = 1) -> list[str]:
    """A plain loop's ``print(f"epoch 1 step {step} loss {loss:.4f} lr 0.001")``."""
    return [f"epoch 1 step {s} loss {3 - s / 500:.4f} lr 0.001" for s in range(start, start + n)]


def apex_dumps() -> list[str]:
    """NVIDIA/apex ``apex/amp/frontend.py`` ``initialize``: ``Selected optimization level
    {}``, the defaults and the options after overrides (``"{:22} : {}"``): O0 (pure fp32,
    ``loss_scale : 1.0``, ``master_weights : False``) and O2 (``master_weights : True``,
    ``loss_scale : dynamic``), each above a loop."""
    def dump(level: str, title: str, options: dict[str, str]) -> list[str]:
        rows = [f"{key:22} : {value}" for key, value in options.items()]
        return [f"Selected optimization level {level}:  {title}", "",
                "Defaults for this optimization level are:", *rows,
                "Processing user overrides (additional kwargs that are not None)...",
                "After processing overrides, optimization options are:", *rows]
    o0 = dump("O0", "Pure FP32 training.", {
        "enabled": "True", "opt_level": "O0", "cast_model_type": "torch.float32",
        "patch_torch_functions": "False", "keep_batchnorm_fp32": "None",
        "master_weights": "False", "loss_scale": "1.0"})
    o2 = dump("O2", "FP16 training with FP32 batchnorm and FP32 master weights.", {
        "enabled": "True", "opt_level": "O2", "cast_model_type": "torch.float16",
        "patch_torch_functions": "False", "keep_batchnorm_fp32": "True",
        "master_weights": "True", "loss_scale": "dynamic"})
    return [*o0, *_loop(), *o2, *_loop()]


def torch_warnings() -> list[str]:
    """torch's own warnings in a healthy fp16 loop: ``torch/cuda/amp/grad_scaler.py`` and
    ``autocast_mode.py``'s deprecations (``FutureWarning: `torch.cuda.amp.GradScaler(args...)`
    is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.``) and
    ``torch/optim/lr_scheduler.py``'s order warning, which a first step skipped by the scaler
    raises (``optimizer.step`` was not called)."""
    return ["train.py:40: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. "
            "Please use `torch.amp.GradScaler('cuda', args...)` instead.",
            "  scaler = torch.cuda.amp.GradScaler()",
            "train.py:60: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. "
            "Please use `torch.amp.autocast('cuda', args...)` instead.",
            *_loop(3),
            "/usr/lib/python3/site-packages/torch/optim/lr_scheduler.py:139: UserWarning: "
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch "
            "1.1.0 and later, you should call them in the opposite order: `optimizer.step()` "
            "before `lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping "
            "the first value of the learning rate schedule. See more details at "
            "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
            *_loop(40, 4)]


def prefixed_loops() -> list[str]:
    """The loop behind glog's prefix (google/glog ``src/logging.cc``: ``I{mmdd}
    {hh:mm:ss.uuuuuu} {tid} {file}:{line}] ``, as absl prints too), then with Windows line
    ends and an ISO timestamp, a ``scale_factor`` (no loss scale) on each row."""
    glog = [f"I0101 10:00:{i % 60:02d}.123456 12345 trainer.py:100] step {i * 10} loss "
            f"{3 - i / 50:.4f} lr 0.001" for i in range(1, 41)]
    crlf = [f"2024-01-01T10:00:{i % 60:02d}Z step {i} loss {3 - i / 50:.4f} scale_factor 0.5 "
            "lr 0.001\r" for i in range(1, 41)]
    return [*glog, "", *crlf]


CONTROLS = [hf_large_loss, hf_negative_loss, hf_aux_off_counts, hf_warmup_grad_norm_nan,
            grpo_rows, lightning_scales_negative, lightning_carriage_returns,
            deepspeed_warmup_from_2_32, deepspeed_eight_ranks, deepspeed_static_128,
            fairseq_warmup, megatron_arguments, megatron_bf16_zeros, mmengine_rows,
            detectron2_rows, timm_rows, ultralytics_rows, nanogpt_resumed, keras_rows,
            pytorch_examples, espnet_warmup, speechbrain_rows, nemo_bar, accelerate_state,
            apex_dumps, torch_warnings, prefixed_loops]


@pytest.mark.parametrize("build", CONTROLS, ids=[build.__name__ for build in CONTROLS])
def test_review54_controls_are_quiet(tmp_path: Path, build: Callable[[], list[str]]) -> None:
    """Healthy excerpts under non-default settings: no diagnosis above info."""
    assert faults(tmp_path, build()) == []
