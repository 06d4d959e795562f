"""Adversarial review of the log doctor's rules merged on 2026-12-07 (17511bc..5e5041c, issue
#27): excerpts built from real tools' own format strings where a new rule should not fire, or
fires wrongly. Each problem found is a strict xfail holding the right answer; each has a
healthy control in non-default settings.

Problems held here (strict xfails):

- lexicon ``_counted_period`` reads "Step In Epoch" as the epoch's key. DeciMamba's
  per-step line (``Epoch: {epoch} | Step In Epoch: {idx + 1} | Loss: ...``) prints the epoch
  before and the step's count within it after the key: its NaN at epoch 1's 120th step (200
  steps an epoch) is said at 319 (17511bc: 320), and in an excerpt pasted from step 251 at
  70, a row count (17511bc: 120, the count as printed, as ``Batch:`` in the same layout reads).
  Fixed: only "of" makes the key its span's ("step of epoch"); "in" counts within it.
- evaluation.PLACEHOLDER: timm's ``summary.csv`` whose ``eval_loss`` is NaN from epoch 0
  (an fp16 evaluation that overflows from its first pass), its top-1/top-5 flat at chance, the
  training loss falling, is AMP013 at info (17511bc: warning): a real evaluation failure
  pushed below the faults. DeepLabCut's placeholder beside evaluation values that move is told
  from it by those values.
  Fixed: the placeholder is said at info only where the rows' finite evaluation values move
  (``EvaluationStream.moved``); flat ones keep the warning.
- messages (neptune-client's dropped-value warning as AMP009): a healthy HF Trainer fp16 run
  under ``NeptuneCallback`` (``logging_steps=1``) whose first rows print ``'grad_norm': inf``
  (GradScaler's start-up back-off, skipped steps the doctor reads as healthy) makes Neptune
  drop that ``inf`` once: AMP009 warning at 1 (17511bc: silent). The value dropped is on the
  console, and normal. Fixed: a dropped-value warning is held for the row after it
  (``dropped_values.py``); where that row or the one before shows the value dropped as its
  grad norm beside a finite loss (a skipped step), it is no finding.

Rules tried that held (quiet where healthy, the fault at its step as before or better):

- ``train`` beside ``val``: PyTorch Geometric's ``Epoch: 001, Train: 0.0000, Val: ...,
  Test: ...`` accuracy lines (with and without ``LR``, accuracies from 0) are not read as a
  training loss; healthy, silent on 17511bc and now.
- ``step in epoch`` on a line of its own: the Argonne LLM loop's ``current global step: G,
  current step in epoch: S`` beside ``Epoch {e} | Step {G} | Loss: ...``: NaN at 650 said at
  650, full log and excerpt; healthy silent.
- An epoch heading alone: the PyTorch transfer-learning tutorial's ``Epoch {e}/{n - 1}``,
  ``----------``, ``train Loss: ... Acc: ...``, ``val Loss: ...``: train NaN at epoch 3 now 3
  (17511bc: 4), val NaN AMP013 at 3, an excerpt from epoch 10 now 13 (17511bc: 4).
- DeepSpeed's ``step=N, skipped=K`` going back: DeepSpeed-Chat step 3 with unsupervised
  training (the actor engine steps twice an iteration, the critic once: their counts printed
  out of order on rank 0): healthy silent, actor NaN at Step 30 said at 30, an actor scale
  collapse AMP003 at 41 as on 17511bc (its summary now says a run began: it did not).
  Fixed after the review (``test_dschat_rlhf_two_engines_counts_are_no_new_run``): a count
  gone back is held for the next step read (``sole_counts.SoleCounts``).
- ``fell_faster``: fairseq's scaler cannot halve faster than its updates at the default
  ``fp16_init_scale`` 128 and ``log_interval``; pi-GAN updates its scaler once an iteration.
- Composer's indent: pytorch/examples MNIST ``Train Epoch: ...\\tLoss: ...`` lines indented
  by four blanks or a tab (a markdown paste) read as before.
- Evaluation placeholder, HF rows: ``'eval_loss': nan`` from the first evaluation stays a
  warning (the rows are not table rows told whole).
- Speed of the second reading (PLACEHOLDER, inputs up to 4 MiB): 4 MB of ``k: v`` lines (400
  pairs a line) after ten CSV rows whose evaluation is NaN: 3.9 s (3.0 s without re2) against
  0.5 s on 17511bc; 30 pairs a line 1.6 s against 0.05 s. Bounded by the 4 MiB limit, about
  the normal rate of reading candidate lines: slower, not catastrophic (no test: no timings).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults
from test_left11_formats import _neptune_warning

from denpex_callbacks.core.severity import Severity

NAN = float("nan")


def _decimamba(nan_from: int | None = None, *, per_epoch: int = 200, epochs: int = 3,
               first: int = 0, eval_steps: int = 100) -> list[str]:
    """DeciMamba's fine-tuning loop (assafbk/DeciMamba ``finetune_ssm.py``
    ``run_train_loop``): per optimizer step ``print(f'Epoch: {epoch} | Step In Epoch:
    {idx + 1} | Loss: {loss:.3e}, | Grad Norm: {grad_norm:.3e} | Mean Input Length:
    {mean_input_len:.3e}')``, every ``eval_steps`` ``print(f'\\nValidation Set - Epoch:
    {epoch} | Step In Epoch: {idx + 1} | Score: {cur_score:.3f}\\n')``; the loss (and the
    grad norm) NaN from global step ``nan_from`` on; the lines from global step ``first + 1``
    on (an excerpt pasted later)."""
    lines, step = [], 0
    for epoch in range(epochs):
        for idx in range(per_epoch):
            step += 1
            if step <= first:
                continue
            sick = nan_from is not None and step >= nan_from
            loss, norm = (NAN, NAN) if sick else (3.0 - step / 1000, 0.8 + step / 5000)
            lines.append(f"Epoch: {epoch} | Step In Epoch: {idx + 1} | Loss: {loss:.3e}, | "
                         f"Grad Norm: {norm:.3e} | Mean Input Length: {2048.0:.3e}")
            if step % eval_steps == 0:
                lines += ["", f"Validation Set - Epoch: {epoch} | Step In Epoch: {idx + 1} | "
                          f"Score: {0.41 + step / 10000:.3f}", ""]
    return lines


def test_decimamba_step_in_epoch_full_log(tmp_path: Path) -> None:
    """NaN from epoch 1's 120th step of 200: global step 320."""
    assert faults(tmp_path, _decimamba(320)) == [("AMP006", 320)]


def test_decimamba_step_in_epoch_excerpt(tmp_path: Path) -> None:
    """The same run pasted from global step 251 (epoch 1's 51st step): the epoch's length is
    not in the excerpt, the count is read as printed."""
    assert faults(tmp_path, _decimamba(320, first=250)) == [("AMP006", 120)]


def test_decimamba_healthy_control(tmp_path: Path) -> None:
    """Control: a healthy run, 150 steps an epoch, evaluated every 50 steps: silent."""
    assert faults(tmp_path, _decimamba(per_epoch=150, eval_steps=50)) == []
    assert faults(tmp_path, _decimamba(per_epoch=150, eval_steps=50, first=170)) == []


def _timm_summary(epochs: int, *, eval_nan: bool, top1: list[float] | None = None,
                  lr: float = 0.0016) -> list[str]:
    """timm's ``summary.csv`` (huggingface/pytorch-image-models ``timm/utils/summary.py``
    ``update_summary``: ``rowd = OrderedDict(epoch=epoch)``, ``'train_' + k`` of
    ``train_metrics`` (``loss``), ``'eval_' + k`` of ``eval_metrics`` (``loss``, ``top1``,
    ``top5``), ``rowd['lr'] = lr``, written by ``csv.DictWriter``, its header with the first
    row): floats as ``csv`` writes them (``repr``: ``nan`` for NaN)."""
    lines = ["epoch,train_loss,eval_loss,eval_top1,eval_top5,lr"]
    for epoch in range(epochs):
        acc = 0.1 if top1 is None else top1[epoch]
        eval_loss = NAN if eval_nan else 6.8 - 0.35 * epoch
        row = [epoch, 6.9 - 0.4 * epoch, eval_loss, acc, min(acc * 5, 100.0),
               lr * math.cos(math.pi * epoch / (2 * epochs))]
        lines.append(",".join(repr(value) for value in row))
    return lines


def test_timm_eval_loss_never_finite_with_flat_accuracy_is_a_fault(tmp_path: Path) -> None:
    """Eight epochs: ``eval_loss`` NaN in every row, top-1 flat at chance."""
    assert faults(tmp_path, _timm_summary(8, eval_nan=True)) == [("AMP013", 0)]


def test_timm_eval_loss_never_finite_with_rising_accuracy_is_info(tmp_path: Path) -> None:
    """Control of the narrowed rule: the same NaN ``eval_loss`` beside a top-1 that rises (the
    evaluation measured; its loss alone is not computed) stays AMP013 at info, the placeholder's
    sentence said: the rule reads the row's values, not the tool."""
    top1 = [2.0 + 6.0 * epoch for epoch in range(10)]
    result = diagnose_lines(tmp_path, _timm_summary(10, eval_nan=True, top1=top1, lr=0.0008))
    assert [(d.code, d.step, d.severity) for d in result.diagnoses] == [
        ("AMP013", 0, Severity.INFO)]
    assert "never finite in this excerpt" in result.diagnoses[0].summary


def test_timm_summary_healthy_control(tmp_path: Path) -> None:
    """Control: a healthy summary, 12 epochs, top-1 rising, a non-default learning rate:
    silent."""
    top1 = [8.0 + 5.5 * epoch for epoch in range(12)]
    assert faults(tmp_path, _timm_summary(12, eval_nan=False, top1=top1, lr=0.0005)) == []


def _hf_fp16_rows(inf_rows: tuple[int, ...], rows: int = 40,
                  nan_from: int | None = None) -> list[str]:
    """HF Trainer's ``log()`` rows at ``logging_steps=1`` under fp16 (huggingface/transformers
    ``trainer.py`` ``_maybe_log_save_evaluate``: ``logs["grad_norm"]`` the value
    ``clip_grad_norm_`` returned, ``inf`` on a step GradScaler skips; printed by
    ``PrinterCallback``/``ProgressCallback`` as the dict): the rows ``inf_rows`` are the
    scaler's start-up back-off; the loss NaN from row ``nan_from`` on."""
    return [f"{{'loss': {NAN if nan_from and i >= nan_from else round(2.5 - i / 40, 4)}, "
            "'grad_norm': "
            f"{'inf' if i in inf_rows else f'{1 + i / 100:.4f}'}, 'learning_rate': "
            f"{2e-05 - i * 1e-07:.6g}, 'epoch': {i * 0.01:.2f}}}" for i in range(1, rows + 1)]


def test_neptune_drops_a_skipped_steps_grad_norm_quiet(tmp_path: Path) -> None:
    """``NeptuneCallback`` (transformers ``integrations/integration_utils.py``, ``on_log``:
    each float of the logs appended to its series) meets the first row's ``inf`` and warns
    once (``warn_once``); the run is healthy."""
    lines = _hf_fp16_rows((1, 2, 3))
    lines.insert(1, _neptune_warning("inf", 1320))
    assert faults(tmp_path, lines) == []


def test_hf_fp16_start_up_grad_norm_inf_control(tmp_path: Path) -> None:
    """Control: the same rows without Neptune (four start-up skips), silent; the loss NaN from
    row 20 beside the warning is AMP006 at 20 first."""
    assert faults(tmp_path, _hf_fp16_rows((1, 2, 3, 4))) == []
    sick = _hf_fp16_rows((1, 2), nan_from=20)
    sick.insert(1, _neptune_warning("inf", 1320))
    assert faults(tmp_path, sick)[:1] == [("AMP006", 20)]


def test_neptune_warning_before_its_row_quiet(tmp_path: Path) -> None:
    """HF's own order: ``NeptuneCallback.on_log`` runs before the progress callback (added
    last, transformers ``Trainer.__init__``) prints the row, so the warning comes just before
    the first ``'grad_norm': inf`` row (two start-up skips, 60 rows): silent. Before: AMP009
    at 0."""
    lines = _hf_fp16_rows((1, 2), rows=60)
    lines.insert(0, _neptune_warning("inf", 212))
    assert faults(tmp_path, lines) == []


def test_neptune_warning_not_explained_by_the_rows(tmp_path: Path) -> None:
    """Controls of the narrowed rule: the warning stays AMP009 where the row beside it shows
    no such value (a ``nan`` dropped beside rows whose grad norm is ``inf``; an ``inf``
    dropped mid-run where every row is finite: another field's value), at the step before
    it."""
    lines = _hf_fp16_rows((1, 2, 3))
    lines.insert(1, _neptune_warning("nan", 1320))
    assert faults(tmp_path, lines) == [("AMP009", 1)]
    lines = _hf_fp16_rows(())
    lines.insert(25, _neptune_warning("inf", 77))
    assert faults(tmp_path, lines) == [("AMP009", 25)]



_DS_STAMP = "[2023-08-20 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0]"


def _dschat_rlhf(iterations: int = 60, *, collapse_from: int | None = None,
                 unsupervised: bool = True) -> list[str]:
    """DeepSpeed-Chat's step 3 (deepspeedai/DeepSpeedExamples ``applications/DeepSpeed-Chat/
    training/step3_rlhf_finetuning/main.py``): per iteration ``trainer.train_rlhf`` steps the
    actor engine, then the critic engine, and with unsupervised training ``train_unsupervised``
    steps the actor again; each engine prints its own ``step=N, skipped=K, lr=..., mom=...``
    every ``steps_per_print`` (10, ``dschat/utils/ds_utils.py``) of its steps on rank 0
    (deepspeed ``engine.py`` ``_report_progress``), so the critic's count comes below the
    actor's; DeepSpeed's overflow line for each actor step from iteration ``collapse_from``
    on (its scale halving), then the iteration's own row."""
    lines = [f"***** Running training (total_iters={iterations}) *****",
             f"Beginning of Epoch 1/1, Total Generation Batches {iterations}"]
    actor = critic = skipped = 0
    scale = 65536
    for step in range(iterations):
        for engine in ("actor", "critic", "actor") if unsupervised else ("actor", "critic"):
            if engine == "critic":
                critic += 1
                if critic % 10 == 0:
                    lines.append(f"{_DS_STAMP} step={critic}, skipped=0, lr=[5e-06, 5e-06], "
                                 "mom=[(0.9, 0.95), (0.9, 0.95)]")
                continue
            actor += 1
            if collapse_from is not None and step >= collapse_from and scale > 1:
                lines.append("[2023-08-20 10:00:00,000] [INFO] [loss_scaler.py:183:"
                             "update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                             f"Attempted loss scale: {scale}, reducing to {scale // 2}")
                scale, skipped = scale // 2, skipped + 1
            if actor % 10 == 0:
                lines.append(f"{_DS_STAMP} step={actor}, skipped={skipped}, lr=[9.65e-06, "
                             "9.65e-06], mom=[(0.9, 0.95), (0.9, 0.95)]")
        lines += [f"Epoch: 0 | Step: {step} | PPO Epoch: 1 | Actor Loss: {0.2 - step / 1000} | "
                  f"Critic Loss: 0.1 | Unsupervised Loss: {2.1 if unsupervised else 0.0}",
                  f"Average reward score: {-1.23 + step / 100} | EMA reward score: -1.30",
                  "-" * 85]
    return lines


def test_dschat_rlhf_two_engines_counts_are_no_new_run(tmp_path: Path) -> None:
    """The actor's scale collapses from iteration 20 under unsupervised training: AMP003,
    its summary naming no new run (none began)."""
    result = diagnose_lines(tmp_path, _dschat_rlhf(collapse_from=20))
    assert [d.code for d in result.faults] == ["AMP003"]
    assert "new run" not in result.faults[0].summary


def test_dschat_rlhf_two_engines_controls(tmp_path: Path) -> None:
    """Controls: healthy with and without unsupervised training (80 iterations): silent; the
    collapse without unsupervised training (the counts equal, never back) names no new run."""
    assert faults(tmp_path, _dschat_rlhf(80)) == []
    assert faults(tmp_path, _dschat_rlhf(80, unsupervised=False)) == []
    result = diagnose_lines(tmp_path, _dschat_rlhf(collapse_from=20, unsupervised=False))
    assert [d.code for d in result.faults] == ["AMP003"]
    assert "new run" not in result.faults[0].summary
