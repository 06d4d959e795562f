"""False alarms: evaluation and monitoring prints that are legitimately NaN, inf or 0 on a
healthy run, written from the tools' own format strings, each beside its fault twin (the same
print where the value is a real failure), which must still be found.

- a correlation's NaN in a block that prints one metric a row, beside a finite evaluation
  loss of the same block: torchmetrics' ``PearsonCorrCoef`` / ``SpearmanCorrCoef`` /
  ``ConcordanceCorrCoef`` on constant predictions (Lightning-AI/torchmetrics
  ``src/torchmetrics/functional/regression/pearson.py``: "... Setting the correlation
  coefficient to nan."; ``concordance.py`` scales that Pearson), scipy's ``pearsonr`` through
  HF's run_glue on STS-B (``combined_score`` averages them), printed by Lightning's results
  table (Lightning-AI/pytorch-lightning ``src/lightning/pytorch/loops/evaluation_loop.py``
  ``_print_results``: rich's table, or without rich ``"{:^25}"`` cells between rules of
  ``─``), transformers' ``***** eval metrics *****`` block (huggingface/transformers
  ``src/transformers/trainer_pt_utils.py`` ``log_metrics``) and wandb's run summary
  (wandb/wandb ``wandb/sdk/wandb_run.py``: ``wandb: {key:>width} {value}``), and on
  Lightning's bar postfix beside ``val_loss``. Before: AMP013 on each (the one-line rule of
  ``metric_reader._nonfinite`` saw one row at a time, and the Lightning parser had none).

- pandas' ``NaN`` for an empty cell: Lightning's CSVLogger ``metrics.csv`` printed with
  pandas holds a training step's row with its evaluation cells NaN and an evaluation's row
  with its ``train_loss`` NaN. Before: AMP006 at every validation row and AMP013 at the
  first training row.

- scikit-learn's ``classification_report`` with ``zero_division=np.nan``: a numeric class
  label's row (``           1        nan      0.00      0.00       100``) read as a bare
  ``step value`` line. Before: AMP006 at step 1.

- scikit-learn's ``r2_score`` NaN on fewer than two samples beside a finite validation loss
  (the correlations' rule). Before: AMP013.
- a PSNR's +inf (identical images) in Lightning's table, its bar and transformers' block.
  Before: AMP013.

Each quiet test failed on the parent commit (893c191); the fault twins of the correlations
pass there too.

Read right (quiet) before any fix, not kept as tests (the suite covers them or they add
nothing): Keras' ``val_loss improved from inf``, Lightning's EarlyStopping lines and bar,
HF's ``grad_norm`` inf/nan on the first skipped steps with ``learning_rate`` 0.0, the
CSVLogger ``metrics.csv`` itself, stable-baselines3's table before ``ep_rew_mean`` with
``explained_variance`` nan, pycocotools' ``-1.000`` areas, detectron2's ``nan`` APs and
per-category table, mmseg's per-class ``nan`` IoU, torchmetrics' detection dict with
``map_small: tensor(-1.)``, trl GRPO's ``loss: 0.0`` with ``kl: 0.0``, YOLOv5's
single-class ``cls_loss`` 0, mmdet's ``loss_aux: 0.0000``, a VAE's ``kl 0.0000`` warm-up,
fairseq's ``bleu 0`` first validations, sacrebleu's ``BLEU = 0.00``, a masked accuracy's
``nan`` on a batch with no labelled token, an RL ``value_loss`` of 3e+05 and
``episode_reward nan`` before the first episode, HF's ``trainer_state.json`` with NaN
correlations.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults


def _loss(step: int) -> float:
    return 2.5 * math.exp(-step / 800) + 0.3


def _lightning_bars(epochs: int = 5) -> list[str]:
    """Lightning's TQDMProgressBar, one final refresh an epoch (500 batches)."""
    return [f"Epoch {e}: 100%|██████████| 500/500 [00:30<00:00, 16.5it/s, v_num=3, "
            f"train_loss={_loss(e * 500):.3f}, val_loss={_loss(e * 500) + 0.1:.3f}]"
            for e in range(epochs)]


def _rich_table(rows: dict[str, str], stage: str = "Test") -> list[str]:
    """``_print_results`` with rich: a column of 25 per header, rows sorted by name."""
    return ["┏━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━┓",
            f"┃ {stage + ' metric':^25} ┃ {'DataLoader 0':^25} ┃",
            "┡━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━┩",
            *(f"│ {key:^25} │ {rows[key]:^25} │" for key in sorted(rows)),
            "└───────────────────────────┴───────────────────────────┘"]


def _plain_table(rows: dict[str, tuple[str, ...]], stage: str = "Validate") -> list[str]:
    """``_print_results`` without rich: ``row_format = "{:^25}" * columns`` between rules of
    ``─`` the terminal's width (120 by its fallback), a column per dataloader."""
    rule = "─" * 120
    headers = [f"{stage} metric", *(f"DataLoader {i}" for i in range(len(next(iter(
        rows.values())))))]
    return [rule, ("{:^25}" * len(headers)).format(*headers).rstrip(), rule,
            *(("{:^25}" * len(headers)).format(key, *rows[key]).rstrip()
              for key in sorted(rows)), rule]


_TABLE = {"test_loss": "0.4123456478118896", "test_mae": "0.5012", "test_pearson": "nan",
          "test_spearman": "nan"}


def test_lightning_table_correlations_beside_a_finite_loss_are_quiet(tmp_path: Path) -> None:
    """torchmetrics' correlations of a regressor whose predictions were constant, in
    Lightning's table beside a finite ``test_loss``. Before: AMP013 at step 2500 on each."""
    assert faults(tmp_path, _lightning_bars() + _rich_table(_TABLE)) == []
    assert faults(tmp_path, _lightning_bars() + _rich_table(
        {"test_concordance": "nan", "test_loss": "0.41", "test_r2": "0.0"})) == []
    assert faults(tmp_path, _lightning_bars() + _plain_table(
        {key: (value,) for key, value in _TABLE.items()})) == []
    assert faults(tmp_path, _lightning_bars() + _plain_table(
        {"test_loss": ("0.41", "0.39"), "test_pearson": ("nan", "0.81")})) == []


def test_lightning_table_fault_twins(tmp_path: Path) -> None:
    """The same table where evaluation failed: its loss NaN, or correlations' NaN with no
    loss in the block (NaN embeddings show there first) are still AMP013 after the last
    training step (controls: pass on the parent too)."""
    assert faults(tmp_path, _lightning_bars() + _rich_table(
        {**_TABLE, "test_loss": "nan"})) == [("AMP013", 2500)]
    assert faults(tmp_path, _lightning_bars() + _rich_table(
        {"test_mae": "0.5", "test_pearson": "nan"})) == [("AMP013", 2500)]
    assert faults(tmp_path, _lightning_bars() + _plain_table(
        {"test_loss": ("nan",), "test_pearson": ("nan",)})) == [("AMP013", 2500)]


def _hf_dicts() -> list[str]:
    """Trainer's ``log`` dicts, every 10 steps of 1000 (``logging_steps=10``)."""
    return [str({"loss": round(_loss(step), 4), "grad_norm": 1.2, "learning_rate": 2e-5,
                 "epoch": round(step / 1000 * 3, 2)}) for step in range(10, 1010, 10)]


def _metrics_block(values: dict[str, str]) -> list[str]:
    """``log_metrics``: ``***** eval metrics *****``, then ``  {key: <{k_width}} =
    {value:>{v_width}}`` per key, sorted."""
    k_width, v_width = max(map(len, values)), max(map(len, values.values()))
    return ["***** eval metrics *****",
            *(f"  {key: <{k_width}} = {values[key]:>{v_width}}" for key in sorted(values))]


_STSB = {"epoch": "3.0", "eval_combined_score": "nan", "eval_loss": "0.6123",
         "eval_pearson": "nan", "eval_runtime": "0:00:03.12", "eval_samples": "1500",
         "eval_samples_per_second": "480.1", "eval_spearmanr": "nan",
         "eval_steps_per_second": "60.0"}


def _wandb_summary(values: dict[str, str]) -> list[str]:
    return ["wandb: Run history:", "wandb:       eval/loss █▅▃▁", "wandb: Run summary:",
            *(f"wandb: {key:>20} {values[key]}" for key in sorted(values))]


_WANDB = {"eval/loss": "0.61", "eval/pearson": "nan", "eval/runtime": "3.1",
          "eval/spearmanr": "nan", "train/epoch": "3.0", "train/global_step": "1000",
          "train/learning_rate": "0.0", "train/loss": "0.31"}


def test_metrics_blocks_correlations_beside_a_finite_loss_are_quiet(tmp_path: Path) -> None:
    """run_glue on STS-B whose regressor predicted a constant, and wandb's summary of it.
    Before: AMP013 at step 100 (the row of ``eval_combined_score``, then
    ``eval/pearson``)."""
    assert faults(tmp_path, _hf_dicts() + _metrics_block(_STSB)) == []
    assert faults(tmp_path, _hf_dicts() + _wandb_summary(_WANDB)) == []


def test_metrics_blocks_fault_twins(tmp_path: Path) -> None:
    """The same blocks with the evaluation loss NaN, or no loss in them: still AMP013
    (controls: pass on the parent too)."""
    assert faults(tmp_path, _hf_dicts() + _metrics_block(
        {**_STSB, "eval_loss": "nan"})) == [("AMP013", 100)]
    no_loss = {key: value for key, value in _STSB.items() if key != "eval_loss"}
    assert faults(tmp_path, _hf_dicts() + _metrics_block(no_loss)) == [("AMP013", 100)]
    assert faults(tmp_path, _hf_dicts() + _wandb_summary(
        {**_WANDB, "eval/loss": "nan"})) == [("AMP013", 100)]
    # a finite loss of another block, farther than a block reaches, excuses nothing
    far = _hf_dicts() + _metrics_block({"eval_loss": "0.6"}) + _hf_dicts()[:40] + \
        _metrics_block(no_loss)
    assert faults(tmp_path, far) == [("AMP013", 140)]


def _csvlogger_frame(*, train_nan_from: int | None = None, val_nan_at: int | None = None,
                     accuracy: bool = True, lr_monitor: bool = False) -> list[str]:
    """Lightning's CSVLogger ``metrics.csv`` (pytorch_lightning/loggers/csv_logs.py: each
    ``log_metrics`` call a row of its own, the other keys' cells empty) read back and printed
    with pandas, as Lightning's tutorials do (``print(pd.read_csv(".../metrics.csv"))``):
    pandas writes the empty cells ``NaN`` (``na_rep``, pandas/io/formats/format.py) and the
    row's index left of the columns. A training row every 50 steps, a validation row each
    500 (``val_check_interval=500``). ``lr_monitor``: LearningRateMonitor's rows too
    (pytorch_lightning/callbacks/lr_monitor.py: ``logger.log_metrics(latest_stat,
    step=...)``, its ``lr-Adam`` alone, no epoch), an ``lr-Adam`` column NaN on the others."""
    rows: list[tuple[str, int, str, str, str, str]] = []
    for step in range(49, 2000, 50):
        train = "NaN" if train_nan_from is not None and step >= train_nan_from else \
            f"{_loss(step):.6f}"
        if lr_monitor:
            rows.append(("NaN", step, "NaN", "NaN", "NaN", "0.001"))
        rows.append((f"{step // 500}", step, train, "NaN", "NaN", "NaN"))
        if (step + 1) % 500 == 0:
            failed = (val_nan_at is not None and step >= val_nan_at) or train == "NaN"
            rows.append((f"{step // 500}", step, "NaN", "NaN" if failed else
                         f"{_loss(step) + 0.1:.6f}", f"0.{70 + step // 100}", "NaN"))
    extra = f"{'val_acc':>9}" if accuracy else ""
    lr = f"{'lr-Adam':>9}" if lr_monitor else ""
    lines = [f"{'':>4}{'epoch':>7}{lr}{'step':>6}{'train_loss':>12}{'val_loss':>10}{extra}"]
    for index, (epoch, step, train, val, acc, rate) in enumerate(rows):
        lines.append(f"{index:<4}{epoch:>7}" + (f"{rate:>9}" if lr_monitor else "")
                     + f"{step:>6}{train:>12}{val:>10}" + (f"{acc:>9}" if accuracy else ""))
    return lines


def test_pandas_empty_cells_are_quiet(tmp_path: Path) -> None:
    """Before: AMP006 at each validation row (499, 999, 1499, 1999: its ``train_loss`` cell
    NaN) and AMP013 at step 49 (the training rows' ``val_loss`` cells NaN)."""
    assert faults(tmp_path, _csvlogger_frame()) == []
    assert faults(tmp_path, _csvlogger_frame(accuracy=False)) == []


def test_pandas_empty_cells_of_a_learning_rate_monitor_are_quiet(tmp_path: Path) -> None:
    """LearningRateMonitor's rows (``lr-Adam`` at its step, no epoch, every metric cell
    NaN), found by a review of this stop's rules. Before: AMP006 at step 49 (the first such
    row) and AMP013 there. The fault twins are still found."""
    assert faults(tmp_path, _csvlogger_frame(lr_monitor=True)) == []
    assert faults(tmp_path, _csvlogger_frame(lr_monitor=True, accuracy=False)) == []
    assert faults(tmp_path, _csvlogger_frame(lr_monitor=True, train_nan_from=1249)) == [
        ("AMP006", 1249), ("AMP013", 1249)]
    assert faults(tmp_path, _csvlogger_frame(lr_monitor=True, val_nan_at=999)) == [
        ("AMP013", 999)]


def test_pandas_empty_cells_fault_twins(tmp_path: Path) -> None:
    """The same frame where training went NaN at step 1249 (every cell of its rows NaN after
    it), or where a validation's loss was NaN beside its finite accuracy: still found
    (on the parent these were found too, but beside the false alarms above: 3 and 5
    findings, so this test fails there)."""
    assert faults(tmp_path, _csvlogger_frame(train_nan_from=1249)) == [("AMP006", 1249),
                                                                        ("AMP013", 1249)]
    assert faults(tmp_path, _csvlogger_frame(val_nan_at=999)) == [("AMP013", 999)]


def _classification_reports(*, digits: int = 2, nan_loss_from: int | None = None) -> list[str]:
    """A loop's ``Epoch {e} Step {s}: loss={loss:.4f}`` lines, and after each epoch
    scikit-learn's ``classification_report(y, pred, zero_division=np.nan, digits=digits)``
    (sklearn/metrics/_classification.py: ``head_fmt = "{:>{width}s} " + " {:>9}" *
    len(headers)``, ``row_fmt = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}\\n"``):
    class 1, never predicted, has an undefined precision (NaN), class 3 no instance (an
    undefined recall)."""
    lines: list[str] = []
    width = len("weighted avg")
    row = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}"
    for epoch in range(1, 11):
        for step in range((epoch - 1) * 10 + 1, epoch * 10 + 1):
            loss = math.nan if nan_loss_from is not None and step >= nan_loss_from else \
                _loss(step * 10)
            lines.append(f"Epoch {epoch} Step {step}: loss={loss:.4f}")
        lines += [("{:>{width}s} " + " {:>9}" * 4).format(
            "", "precision", "recall", "f1-score", "support", width=width), ""]
        for label, precision, recall, support in (
                ("0", 0.9, 1.0, 900), ("1", math.nan, 0.0, 100), ("2", 0.8, 0.7, 50),
                ("3", 0.0, math.nan, 0)):
            f1 = 0.0 if math.isnan(precision * recall) else \
                2 * precision * recall / (precision + recall)
            lines.append(row.format(label, precision, recall, f1, support, width=width,
                                    digits=digits))
        lines += ["", row.format("macro avg", 0.57, 0.57, 0.55, 1050, width=width,
                                 digits=digits), ""]
    return lines


def test_classification_report_nan_is_quiet(tmp_path: Path) -> None:
    """Before: AMP006 at step 1 (four times): class 1's row read as a bare ``step value``
    line, its undefined precision as the loss."""
    assert faults(tmp_path, _classification_reports()) == []
    assert faults(tmp_path, _classification_reports(digits=4)) == []


def test_classification_report_fault_twin(tmp_path: Path) -> None:
    """The loop's own loss NaN from step 43: still AMP006 there; a bare ``step loss`` row
    (no report's four cells) still reads as one. The second passes on the parent too; the
    first was found there beside the false alarm above, so it fails there."""
    assert faults(tmp_path, _classification_reports(nan_loss_from=43)) == [("AMP006", 43)]
    bare = [f"{step} {_loss(step):.4f}" for step in range(1, 300)] + \
        [f"{step} nan" for step in range(300, 320)]
    assert faults(tmp_path, bare) == [("AMP006", 300)]


def test_psnr_of_identical_images_is_quiet(tmp_path: Path) -> None:
    """torchmetrics' PSNR of a reconstruction equal to its target is +inf
    (src/torchmetrics/functional/image/psnr.py: the log of a squared error of 0), however it
    is printed: Lightning's results table and bar postfix (``val_psnr=inf``), transformers'
    metrics block. Before: AMP013 on each (the NeRF rule held only on an evaluator's own
    line)."""
    bars = _lightning_bars()
    assert faults(tmp_path, bars + _rich_table(
        {"test_loss": "0.0", "test_psnr": "inf", "test_ssim": "1.0"})) == []
    assert faults(tmp_path, [bar[:-1] + ", val_psnr=inf]" for bar in bars]) == []
    assert faults(tmp_path, _hf_dicts() + _metrics_block(
        {"epoch": "3.0", "eval_loss": "0.0", "eval_psnr": "inf"})) == []


def test_psnr_fault_twins(tmp_path: Path) -> None:
    """A PSNR of NaN (a NaN image) and a loss of +inf beside it are still AMP013 (controls:
    pass on the parent too)."""
    bars = _lightning_bars()
    assert faults(tmp_path, bars + _rich_table(
        {"test_loss": "0.0", "test_psnr": "nan"})) == [("AMP013", 2500)]
    assert faults(tmp_path, bars + _rich_table(
        {"test_loss": "inf", "test_psnr": "inf"})) == [("AMP013", 2500)]


def _r2_loop(*, val_nan_every: int | None = None) -> list[str]:
    """A regression loop's batch lines and its epoch line with scikit-learn's ``r2_score``
    of the validation's last batch, which may hold one sample (sklearn/metrics/
    _regression.py: "R^2 score is not well-defined with less than two samples.", then
    ``return float("nan")``): NaN every fifth epoch; ``val_nan_every``: the validation loss
    NaN there too."""
    lines: list[str] = []
    for epoch in range(1, 31):
        lines += [f"Epoch {epoch} [{batch * 10}/100] loss: {_loss(epoch * 100 + batch * 10):.4f}"
                  for batch in range(1, 11)]
        undefined = epoch % 5 == 0
        r2 = "nan" if undefined else f"{0.5 + epoch / 100:.4f}"
        val = "nan" if undefined and val_nan_every else f"{_loss(epoch * 100) + 0.1:.4f}"
        lines.append(f"Epoch {epoch} | train_loss {_loss(epoch * 100):.4f} | val_loss {val} | "
                     f"val_r2 {r2}")
    return lines


def test_r2_of_one_sample_is_quiet(tmp_path: Path) -> None:
    """Before: AMP013 at step 55 (and at step 100 for HF's dict of ``eval_r2``)."""
    assert faults(tmp_path, _r2_loop()) == []
    evaluated = {"eval_loss": 0.41, "eval_r2": math.nan, "eval_runtime": 0.1, "epoch": 3.0}
    assert faults(tmp_path, [*_hf_dicts(), str(evaluated)]) == []


def test_r2_fault_twin(tmp_path: Path) -> None:
    """The validation loss NaN beside it: still AMP013 (a control: passes on the parent
    too)."""
    assert faults(tmp_path, _r2_loop(val_nan_every=5)) == [("AMP013", 55)]


def test_lightning_bar_correlations_beside_a_finite_loss_are_quiet(tmp_path: Path) -> None:
    """``self.log("val_pearson", ..., prog_bar=True)`` on TQDMProgressBar's postfix beside a
    finite ``val_loss``, as on one line of the generic reader. Before: AMP013 at step 500;
    with ``val_loss=nan`` on the bar it is still found (a twin that passes on the parent
    too)."""
    bars = _lightning_bars()
    assert faults(tmp_path, [bar[:-1] + ", val_pearson=nan, val_spearman=nan]"
                             for bar in bars]) == []
    failed = [bar.replace("val_loss=", "val_loss=nan, val_mae=")[:-1] + ", val_pearson=nan]"
              for bar in bars]
    assert faults(tmp_path, failed) == [("AMP013", 500)]
