"""False alarms, round nine: healthy runs under unusual but legitimate settings, each excerpt
written from the tool's own format strings (each builder names its source), beside the fault
twin its rule must still catch.

- A ratio that scikit-learn leaves NaN for a class the evaluation does not hold
  (scikit-learn/scikit-learn ``sklearn/metrics/_classification.py``: ``zero_division :
  {"warn", 0.0, 1.0, np.nan}`` of ``precision_score``, ``recall_score``, ``f1_score``,
  ``fbeta_score``, "Sets the value to return when there is a zero division, i.e. when all
  predictions and labels are negative", since 1.3; ``cohen_kappa_score`` since 1.6), printed
  by HF's Trainer in its evaluation dict and its ``***** eval metrics *****`` block, on
  Lightning's bar and results table, in wandb's run summary and on a loop's own validation
  line, beside a finite evaluation loss. Before: AMP013 (a warning) at the
  evaluation's step. Now such a ratio's NaN beside a finite loss is read as the correlations'
  NaN was (``lexicon.undefined_ratio``, through ``undefined_correlation`` and
  ``undefined_score``); without a loss beside it, or beside a NaN loss, it is still AMP013.
- HF's semantic-segmentation guide (huggingface/transformers ``docs/source/en/tasks/
  semantic_segmentation.md``, ``compute_metrics``: ``metric.compute(...)`` of HF evaluate's
  ``mean_iou``, then ``metrics.update({f"iou_{id2label[i]}": v ...})`` and
  ``accuracy_{label}`` per class): huggingface/evaluate ``metrics/mean_iou/mean_iou.py``
  divides each class's intersection by its union (NaN for a class the evaluation neither
  holds nor predicts) and takes ``np.nanmean``. Before: AMP013 at the first evaluation (its
  dict) and at the closing ``***** eval metrics *****`` block. Now ``mean_iou`` is a mean
  over the classes (``lexicon.class_mean``, as mmseg's ``mIoU`` was), and a summary block's
  finite class mean excuses its per-class NaNs as one line's did (``evaluation.
  EvaluationStream``); a NaN ``mean_iou`` or evaluation loss is still AMP013.
- ``eval_bleu: nan`` stays AMP013: sacrebleu floors ``log(0)`` (mjpost/sacrebleu
  ``sacrebleu/utils.py`` ``my_log``: ``if num == 0.0: return -9999999999``), so a BLEU of
  no match is 0.0, never NaN; a NaN there is no design.
- A pasted tail of a fitted fine-tune under HF's Trainer with DeepSpeed fp16 (the run of
  ``test_false_alarms8_formats._hf_deepspeed`` from its row 100 on: the 2.3 it began at is
  not in the paste), one hard batch of 0.41 among 0.0002s beside the sawtooth's overflow.
  Before: AMP003 (an error: "the loss jumped to 0.41, 2050x its recent median ... exploding").
  Now a jump below 1 after which the loss is back within tenfold of the median before it
  within three losses, none of them 1 or above, is a hard batch or two
  (``excerpt.ExcerptJudge._spike_after``); a jump to 3e4 that comes back, one to 0.41
  followed by 50, and one to 0.41 that stays, are still AMP003.
- A pasted tail of HF's memorised set (``test_false_alarms3_formats._hf_memorised`` from its
  third row on: every row ``'loss': 0.0``, the 2.0 and 0.2 before them left out) with its
  gradient norm shrinking (8.2e-06, 3.4e-10, ...). Before: AMP007 at the paste's first row
  (the fit rule needed the norm beside a nonzero loss). Now a paste that opens on the zeros
  takes its first zero's norm as that reference (``excerpt.ExcerptJudge.observation``); a
  norm of 0.0, NaN, or one that does not shrink (8e-06 on every row) is still flagged.
- Controls (quiet on the parent cdac682 too): DeepSpeed's warm-up back-offs then growth,
  Megatron's static scale of 1.0 (bf16) and 128 on every line, one skipped iteration in 2000
  with the scale oscillating, Megatron at ``--log-interval 1`` through its start-up back-off
  (each skipped iteration's line without loss and grad norm, as ``training_log`` prints it;
  pasted whole and from iteration 3), HF's ``grad_norm`` NaN or inf on the skipped rows,
  nanoGPT's two runs in one file, fairseq's scale oscillating over 30000 updates, detectron2
  resumed (its ``iter`` back to an earlier value), mmengine's negative ELBO loss and a
  learning-rate restart, Keras' validation loss above the training loss, rows every 8 steps
  under gradient accumulation, and excerpts of two or three rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from excerpts import faults, megatron_line
from test_false_alarms3_formats import _hf_memorised
from test_false_alarms8_formats import _hf_deepspeed
from test_false_alarms_formats import (
    _hf_dicts,
    _lightning_bars,
    _metrics_block,
    _rich_table,
    _wandb_summary,
)

NAN = float("nan")


# --- HF Trainer: src/transformers/trainer.py ``evaluate`` -> ``self.log(output.metrics)`` ---

def _hf_evaluations(metrics: dict[str, float], every: int = 25) -> list[str]:
    """``Trainer.log``'s dicts (``str(logs)``, huggingface/transformers
    ``src/transformers/trainer.py``) every 10 steps of 1000, an evaluation dict (its
    ``compute_metrics`` values prefixed ``eval_``, then ``eval_runtime`` and the speeds) every
    ``every`` rows."""
    out: list[str] = []
    for row, line in enumerate(_hf_dicts(), 1):
        out.append(line)
        if row % every == 0:
            out.append(str({**metrics, "eval_runtime": 1.2345, "eval_samples_per_second": 81.0,
                            "eval_steps_per_second": 10.125, "epoch": round(row / 100 * 3, 2)}))
    return out


# compute_metrics with scikit-learn's ``zero_division=np.nan`` on a set without positives,
# which the model (rightly) never predicts: accuracy 1.0, the positive class's ratios NaN
_ABSENT = {"eval_loss": 0.0123, "eval_accuracy": 1.0, "eval_precision": NAN,
           "eval_recall": NAN, "eval_f1": NAN}


@pytest.mark.parametrize("metrics", [
    _ABSENT,
    {"eval_loss": 0.0123, "eval_accuracy": 1.0, "eval_f1_macro": NAN, "eval_kappa": NAN},
])
def test_hf_ratios_of_an_absent_class_are_quiet(tmp_path: Path,
                                                metrics: dict[str, float]) -> None:
    """Before: AMP013 at step 25 (the first evaluation's row)."""
    assert faults(tmp_path, _hf_evaluations(metrics)) == []


def test_hf_metrics_block_ratio_of_an_absent_class_is_quiet(tmp_path: Path) -> None:
    """``log_metrics`` (``src/transformers/trainer_pt_utils.py``) after training. Before:
    AMP013 at step 100."""
    block = {"epoch": "3.0", "eval_accuracy": "1.0", "eval_f1": "nan", "eval_loss": "0.0123",
             "eval_runtime": "0:00:01.23", "eval_samples": "100",
             "eval_samples_per_second": "81.0", "eval_steps_per_second": "10.125"}
    assert faults(tmp_path, _hf_dicts() + _metrics_block(block)) == []


def test_hf_ratio_nan_fault_twins(tmp_path: Path) -> None:
    """The twins: beside a NaN evaluation loss (the evaluation's forward overflowed), or with
    no loss beside it, the ratio's NaN is still AMP013 at the first evaluation's row; so is
    a BLEU's NaN beside a finite loss (sacrebleu never returns one)."""
    assert faults(tmp_path, _hf_evaluations({**_ABSENT, "eval_loss": NAN})) == [("AMP013", 25)]
    no_loss = {key: value for key, value in _ABSENT.items() if key != "eval_loss"}
    assert faults(tmp_path, _hf_evaluations(no_loss)) == [("AMP013", 25)]
    bleu = {"eval_loss": 1.52, "eval_bleu": NAN, "eval_gen_len": 27.3}
    assert faults(tmp_path, _hf_evaluations(bleu)) == [("AMP013", 25)]


# --- HF's semantic segmentation: evaluate's mean_iou with per-class values ------------------

_LABELS = ("building", "floor", "sky", "wall")


def _segmentation_metrics(absent: tuple[str, ...] = ("building", "floor")) -> dict[str, float]:
    """``compute_metrics`` of HF's segmentation guide on an evaluation set without the
    ``absent`` classes (their ``accuracy_`` and ``iou_`` NaN), ``eval_``-prefixed."""
    out = {"eval_loss": 0.5123, "eval_mean_iou": 0.41, "eval_mean_accuracy": 0.55,
           "eval_overall_accuracy": 0.83}
    out |= {f"eval_accuracy_{label}": NAN if label in absent else 0.6 for label in _LABELS}
    return out | {f"eval_iou_{label}": NAN if label in absent else 0.4 for label in _LABELS}


def _block(metrics: dict[str, float]) -> list[str]:
    """``log_metrics``' block of ``metrics`` (``metrics_format`` rounds floats to 4 places)."""
    return _metrics_block({key: str(round(value, 4)) for key, value in metrics.items()})


def test_hf_per_class_iou_of_an_absent_class_is_quiet(tmp_path: Path) -> None:
    """The evaluation dicts, then the closing block. Before: AMP013 at step 25 (the dicts),
    and at step 100 for the block alone."""
    assert faults(tmp_path, _hf_evaluations(_segmentation_metrics())) == []
    assert faults(tmp_path, _hf_dicts() + _block(_segmentation_metrics())) == []


def test_hf_per_class_iou_fault_twins(tmp_path: Path) -> None:
    """The twins: the mean itself NaN (every class NaN), or the evaluation loss NaN: still
    AMP013, in the dicts (step 25) and the block (step 100)."""
    every = _segmentation_metrics(_LABELS) | {"eval_mean_iou": NAN, "eval_mean_accuracy": NAN}
    nan_loss = _segmentation_metrics() | {"eval_loss": NAN}
    for metrics in (every, nan_loss):
        assert faults(tmp_path, _hf_evaluations(metrics)) == [("AMP013", 25)]
        assert faults(tmp_path, _hf_dicts() + _block(metrics)) == [("AMP013", 100)]


# --- Lightning: src/lightning/pytorch/callbacks/progress/tqdm_progress.py --------------------

def _lightning_bar(val: dict[str, str], epochs: int = 3) -> list[str]:
    """TQDMProgressBar's main bar (Lightning-AI/pytorch-lightning ``src/lightning/pytorch/
    callbacks/progress/tqdm_progress.py``: tqdm's ``{l_bar}{bar}| {n_fmt}/{total_fmt}
    [{elapsed}<{remaining}, {rate_fmt}{postfix}]``, the postfix ``v_num`` then the metrics
    logged ``prog_bar=True``), three refreshes an epoch, the last one after validation."""
    out = []
    for epoch in range(epochs):
        for batch in (100, 200, 300):
            shown = {"train_loss": f"{1.5 - epoch * 0.2 - batch / 3000:.3f}"}
            if batch == 300:
                shown.update(val)
            postfix = ", ".join(f"{key}={value}" for key, value in shown.items())
            out.append(f"Epoch {epoch}: {batch // 3}%|███       | {batch}/300 [00:10<00:20, "
                       f"9.50it/s, v_num=3, {postfix}]")
    return out


def test_lightning_f1_of_an_absent_class_is_quiet(tmp_path: Path) -> None:
    """``self.log("val_f1", f1_score(..., zero_division=np.nan), prog_bar=True)`` on a
    validation set without the class. Before: AMP013 at step 300."""
    assert faults(tmp_path, _lightning_bar({"val_loss": "0.412", "val_f1": "nan"})) == []


def test_lightning_f1_nan_fault_twin(tmp_path: Path) -> None:
    """The twin: the validation loss NaN beside it is still AMP013 at step 300."""
    assert faults(tmp_path, _lightning_bar({"val_loss": "nan", "val_f1": "nan"})) == [
        ("AMP013", 300)]


def test_other_readers_ratio_of_an_absent_class_is_quiet(tmp_path: Path) -> None:
    """The same NaN where other readers take it: Lightning's results table after ``trainer.
    test`` (``_print_results`` with rich, beside a finite ``test_loss``; before: AMP013 at
    step 2500), wandb's run summary (wandb/wandb ``wandb/sdk/wandb_run.py``: ``wandb:
    {key:>width} {value}``; before: AMP013 at step 100) and a loop's own validation line
    (``print(f"Validation | loss {loss:.4f} | acc {acc:.4f} | f1 {f1:.4f}")``, ``nan``
    printed by ``:.4f``; before: AMP013 at step 100)."""
    table = {"test_acc": "0.97", "test_f1": "nan", "test_loss": "0.41"}
    assert faults(tmp_path, _lightning_bars() + _rich_table(table)) == []
    summary = {"eval/f1": "nan", "eval/loss": "0.61", "eval/recall": "nan",
               "train/global_step": "1000", "train/loss": "0.31"}
    assert faults(tmp_path, _hf_dicts() + _wandb_summary(summary)) == []
    assert faults(tmp_path, _loop_validation("0.3100")) == []


def _loop_validation(loss: str) -> list[str]:
    """A loop's ``print(f"epoch {e} step {s} loss {loss:.4f}")`` every 10 steps, and its
    validation line at step 100."""
    rows = [f"epoch 0 step {s} loss {2.5 * math.exp(-s / 300) + 0.3:.4f}"
            for s in range(10, 210, 10)]
    return [*rows[:10], f"Validation | loss {loss} | acc 0.9700 | f1 nan", *rows[10:]]


def test_other_readers_ratio_nan_fault_twins(tmp_path: Path) -> None:
    """The twins: the table's and the loop's loss NaN beside the F1's NaN are still AMP013."""
    table = {"test_acc": "0.97", "test_f1": "nan", "test_loss": "nan"}
    assert faults(tmp_path, _lightning_bars() + _rich_table(table)) == [("AMP013", 2500)]
    assert faults(tmp_path, _loop_validation("nan")) == [("AMP013", 100)]


# --- A pasted tail: HF Trainer rows beside DeepSpeed's overflow (test_false_alarms8) --------

_PASTED_FROM = 100  # the rows pasted: the run's tail, its start (2.3, decaying) left out


@pytest.mark.parametrize("hard", [{151: 0.41}, {149: 0.41}, {151: 0.41, 152: 0.39}])
def test_pasted_tail_hard_batch_beside_an_overflow_is_quiet(tmp_path: Path,
                                                            hard: dict[int, float]) -> None:
    """One hard batch (0.41 among 0.0002s) after or before the sawtooth's overflow, or two in
    a row, then the loss back at 0.0002. Before: AMP003 at the first hard batch's row of the
    paste (52, 49 and 52: the paste's steps count from its first row, the overflow line a
    skipped step of its own)."""
    lines = _hf_deepspeed(hard=hard)
    assert faults(tmp_path, lines) == []  # the whole run (test_false_alarms8's rule)
    assert faults(tmp_path, lines[_PASTED_FROM:]) == []


def test_pasted_tail_explosions_fault_twins(tmp_path: Path) -> None:
    """The twins, pasted the same way: a jump to 3e4 that comes back at once, one to 0.41
    followed by 50, and a jump to 0.41 that stays (every row after it), are still AMP003 at
    the jump's row (52)."""
    assert faults(tmp_path, _hf_deepspeed(hard={151: 31234.5})[_PASTED_FROM:]) == [
        ("AMP003", 52)]
    assert faults(tmp_path, _hf_deepspeed(hard={151: 0.41, 152: 50.0})[_PASTED_FROM:]) == [
        ("AMP003", 52)]
    stays = {step: 0.41 for step in range(151, 401)}
    assert faults(tmp_path, _hf_deepspeed(hard=stays)[_PASTED_FROM:]) == [("AMP003", 52)]


# --- A pasted tail of zeros: HF Trainer's memorised set (test_false_alarms3) ---------------

_ZEROS_FROM = 2  # the rows pasted: from the first 0.0 on (2.0 and 0.2 left out)


def test_pasted_tail_of_a_memorised_set_is_quiet(tmp_path: Path) -> None:
    """Every pasted row ``'loss': 0.0`` beside a finite, shrinking gradient norm. Before:
    AMP007 at the paste's first row."""
    assert faults(tmp_path, _hf_memorised()[_ZEROS_FROM:]) == []
    assert faults(tmp_path, _hf_memorised()[_ZEROS_FROM:-1]) == []  # without the summary


def test_pasted_tail_of_zeros_fault_twins(tmp_path: Path) -> None:
    """The twins, pasted the same way: no gradient (norm 0.0), a NaN norm (skipped steps), a
    norm that does not shrink: still flagged at the paste's first row."""
    assert faults(tmp_path, _hf_memorised(zero_grad=0.0)[_ZEROS_FROM:]) == [("AMP007", 1)]
    # (AMP009 alone since h52-sample33: the filter's 0 is no loss of 0, AMP007 before)
    assert faults(tmp_path, _hf_memorised(zero_grad=NAN)[_ZEROS_FROM:]) == [("AMP009", 1)]
    assert faults(tmp_path, _hf_memorised(zero_grad=8e-06)[_ZEROS_FROM:]) == [("AMP007", 1)]


# --- Controls: healthy runs under unusual settings (quiet on the parent too) -----------------

_DS = "[2026-01-01 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] "


def _deepspeed_warmup() -> list[str]:
    """DeepSpeed fp16 (microsoft/DeepSpeed ``deepspeed/runtime/fp16/loss_scaler.py``
    ``DynamicLossScaler.update_scale``: ``[deepspeed] OVERFLOW! Rank {rank} Skipping step.
    Attempted loss scale: {cur}, reducing to {next}``, then ``No Grad overflow for {window}
    iterations`` and ``Increasing dynamic loss scale from {cur} to {next}``) under HF's
    Trainer dicts: five back-offs from 65536 on the first steps, then the scale grows back
    every 1000 steps (a row each 50)."""
    out, scale = [], 65536
    for _ in range(5):
        out.append(f"{_DS}[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
                   f"{scale}, reducing to {scale // 2}")
        scale //= 2
    for row in range(1, 61):
        out.append(str({"loss": round(2.5 * math.exp(-row / 20) + 0.4, 4), "grad_norm": 1.1,
                        "learning_rate": 5e-05, "epoch": round(row * 0.05, 2)}))
        if row % 20 == 0:
            out += [f"{_DS}No Grad overflow for 1000 iterations",
                    f"{_DS}Increasing dynamic loss scale from {scale} to {scale * 2}"]
            scale *= 2
    return out


def _megatron_static(scale: float) -> list[str]:
    """Megatron-LM's line (``megatron/training/training.py`` ``training_log``, through
    ``excerpts.megatron_line``) of a bf16 run (``loss scale: 1.0``) or a fixed
    ``--loss-scale 128``: the same scale printed every 10 iterations."""
    return [megatron_line(it, loss=3.0 - it / 2000, scale=scale) for it in range(10, 1010, 10)]


def _megatron_rare_skips() -> list[str]:
    """Megatron-LM's line every 100 iterations over 20000: one iteration in 2000 overflows
    (``number of skipped iterations: 1`` on its row, the scale halved; the row's ``grad
    norm`` is its last iteration's, applied), and the scale grows back 1000 iterations
    later."""
    out, scale = [], 65536.0
    for it in range(100, 20100, 100):
        skipped = int(it % 2000 == 0)
        if skipped:
            scale /= 2
        elif it % 1000 == 0 and scale < 65536:
            scale *= 2
        out.append(megatron_line(it, loss=3.0 - it / 20000, scale=scale, skipped=skipped))
    return out


def _megatron_startup(first: int = 1) -> list[str]:
    """Megatron-LM at ``--log-interval 1 --initial-loss-scale 4194304`` from iteration
    ``first``: its first 8 iterations overflow, each line without the loss and the grad norm
    (``training_log`` prints a loss averaged over the advanced iterations only where it is above
    0, and ``grad norm`` only where ``optimizer.step`` returned one: none for a skipped
    iteration), the scale halved on each; then the loss falls."""
    out, scale = [], 65536.0 * 64
    for it in range(first, 300):
        if it <= 8:
            line = megatron_line(it, loss=None, scale=scale / 2**it, skipped=1, grad_norm="")
            out.append(line.replace("grad norm:  | ", ""))
        else:
            out.append(megatron_line(it, loss=10.5 - it / 100, scale=scale / 2**8))
    return out


def _hf_skipped_norms(value: str) -> list[str]:
    """HF Trainer's dicts at ``logging_steps=1`` under fp16: the steps the GradScaler skipped
    (the first two, and step 37) print ``grad_norm`` ``nan`` or ``inf`` (the norm of the
    overflowed gradients, ``src/transformers/trainer.py`` ``_clip_grad_norm``)."""
    return [f"{{'loss': {2.5 - i * 0.02:.4f}, 'grad_norm': "
            f"{value if i in (1, 2, 37) else f'{1 + i / 100:.4f}'}, 'learning_rate': 5e-05, "
            f"'epoch': {i * 0.01:.2f}}}" for i in range(1, 60)]


def _nanogpt_two_runs() -> list[str]:
    """karpathy/nanoGPT ``train.py`` run twice into one file: ``print(f"step {iter_num}: train
    loss {losses['train']:.4f}, val loss {losses['val']:.4f}")`` and ``print(f"iter
    {iter_num}: loss {lossf:.4f}, time {dt*1000:.2f}ms, mfu {running_mfu*100:.2f}%")``
    (``running_mfu`` is -1.0 for the first iterations: ``-100.00%``)."""
    out = []
    for _ in range(2):
        out += ["Initializing a new model from scratch", "number of parameters: 123.59M",
                "step 0: train loss 10.9876, val loss 10.9881"]
        out += [f"iter {it}: loss {10.9 - it / 60:.4f}, time 1234.56ms, "
                f"mfu {12.3 if it >= 50 else -100.0:.2f}%" for it in range(0, 500, 10)]
    return out


def _fairseq_oscillating() -> list[str]:
    """fairseq's simple progress bar (facebookresearch/fairseq ``fairseq/logging/
    progress_bar.py`` ``SimpleProgressBar.log``: ``"{}:  {:5d} / {:d} {}"`` with the stats
    ``key=value`` joined by ``, ``) every 100 updates of 30000 at ``--fp16-init-scale 128``:
    the scale halves every 2000 updates and regrows 1000 later."""
    out, scale = [], 128.0
    for update in range(100, 30100, 100):
        if update % 2000 == 0:
            scale /= 2
        elif update % 2000 == 1000:
            scale *= 2
        out.append(f"2026-01-01 10:00:00 | INFO | train_inner | epoch 001:  {update:5d} / "
                   f"30000 loss={9 - update / 5000:.3f}, nll_loss={8 - update / 5000:.3f}, "
                   f"ppl=100.5, wps=5000, ups=1, wpb=4000, bsz=32, num_updates={update}, "
                   f"lr=0.0005, gnorm=1.2, loss_scale={scale:g}, train_wall=20, wall={update}")
    return out


def _detectron2_resumed() -> list[str]:
    """detectron2's ``CommonMetricPrinter`` (facebookresearch/detectron2 ``detectron2/utils/
    events.py``: ``" {eta}iter: {iter}  {losses}  ... lr: {lr}  {memory}"``, losses
    ``f"{k}: {v.median(window):.4g}"``) every 20 iterations to 1999, then resumed from the
    checkpoint of iteration 1499."""
    return [f"[01/01 10:00:00 d2.utils.events]:  eta: 1:23:45  iter: {it}  total_loss: "
            f"{2.0 * math.exp(-it / 800) + 0.3:.4g}  loss_cls: 0.5  time: 0.4  lr: 0.02  "
            f"max_mem: 3000M" for it in [*range(19, 2000, 20), *range(1519, 3000, 20)]]


def _mmengine_elbo_restart() -> list[str]:
    """mmengine's ``LogProcessor`` line (open-mmlab/mmengine ``mmengine/runner/
    log_processor.py``: ``Iter(train) [{iter}/{max}]  lr: ...  eta: ...  loss: ...``, four
    places) of a negative ELBO loss, the learning rate restarted at iteration 2000 with a
    bump that recovers."""
    out = []
    for it in range(50, 4050, 50):
        loss = -(2 * (1 - math.exp(-(it % 2000) / 400)) + 0.4 - (0.3 if it % 2000 < 200 else 0))
        out.append(f"01/01 10:00:00 - mmengine - INFO - Iter(train) [{it:4d}/4000]  "
                   f"lr: {1e-4 * (1 - (it % 2000) / 2000):.4e}  eta: 0:10:00  time: 0.3000  "
                   f"data_time: 0.0100  memory: 3000  loss: {loss:.4f}  loss_kl: 0.1000")
    return out


def _keras_val_above() -> list[str]:
    """Keras' ``ProgbarLogger`` (keras-team/keras ``keras/utils/generic_utils.py``
    ``Progbar.update``: `` - {k}: {v:.4f}``) of an overfitting model: ``val_loss`` rises."""
    out = []
    for epoch in range(1, 11):
        out += [f"Epoch {epoch}/10",
                f"1875/1875 [==============================] - 5s 3ms/step - loss: "
                f"{0.5 - epoch * 0.04:.4f} - accuracy: {0.8 + epoch * 0.01:.4f} - val_loss: "
                f"{0.6 + epoch * 0.03:.4f} - val_accuracy: 0.8000"]
    return out


def _accumulated() -> list[str]:
    """An accelerate loop's ``accelerator.print(f"step {step} loss {loss:.4f} ...")`` under
    ``gradient_accumulation_steps=8``: a row each optimizer step, every 8 batches."""
    return [f"step {s} loss {3 * math.exp(-s / 400) + 0.2:.4f} lr 1e-4" for s in range(8, 2008, 8)]


def _short_hf() -> list[str]:
    """Two HF Trainer dicts (``Trainer.log``) at the start of a fine-tune."""
    return ["{'loss': 2.3456, 'grad_norm': 3.21, 'learning_rate': 4.9e-05, 'epoch': 0.01}",
            "{'loss': 2.1, 'grad_norm': 2.9, 'learning_rate': 4.8e-05, 'epoch': 0.02}"]


def _short_megatron() -> list[str]:
    """Three Megatron lines, the second an overflow it skipped."""
    return [megatron_line(10), megatron_line(20, scale=32768.0, skipped=1, grad_norm="inf"),
            megatron_line(30, scale=32768.0)]


CONTROLS: dict[str, Callable[[], list[str]]] = {
    "deepspeed_warmup": _deepspeed_warmup,
    "megatron_bf16": lambda: _megatron_static(1.0),
    "megatron_static_128": lambda: _megatron_static(128.0),
    "megatron_rare_skips": _megatron_rare_skips,
    "megatron_startup": _megatron_startup,
    "megatron_startup_pasted_from_3": lambda: _megatron_startup(3),
    "hf_nan_norm_on_skips": lambda: _hf_skipped_norms("nan"),
    "hf_inf_norm_on_skips": lambda: _hf_skipped_norms("inf"),
    "nanogpt_two_runs": _nanogpt_two_runs,
    "fairseq_oscillating": _fairseq_oscillating,
    "detectron2_resumed": _detectron2_resumed,
    "mmengine_elbo_restart": _mmengine_elbo_restart,
    "keras_val_above": _keras_val_above,
    "accumulated": _accumulated,
    "short_hf": _short_hf,
    "short_megatron": _short_megatron,
}


@pytest.mark.parametrize("name", sorted(CONTROLS))
def test_healthy_unusual_settings_controls(tmp_path: Path, name: str) -> None:
    """Controls: each healthy run is quiet (on the parent too)."""
    assert faults(tmp_path, CONTROLS[name]()) == []
