"""Adversarial review of the log doctor's rules merged on 2026-12-07 (4299471..597de49, issue
#27, the merge of h50-sample22): excerpts built from real tools' own format strings where a
new rule should not fire, or fires wrongly. Each problem found is a strict xfail holding the
right answer, beside a healthy control in non-default settings.

Problems held here (strict xfails until h50-fix50c fixed both: a row that opens with a name
under a table with no step or epoch column is no step, ``metric_reader._named_rows``; a tag
behind a logger's prefix is the message's, ``best_tags``):

- ``metric_reader.header_cells``, one training column beside evaluation columns in names of
  several words: a script's closing per-model summary table (``Model  Train Loss  Val MSE
  Val MAE  Avg R2``, one row per model trained) is now read as a run's rows, and its
  ``float('nan')`` fallback for a model whose stats lack ``train_loss`` (a legacy key) is
  AMP006 at "step" 5 (4299471: nothing to diagnose). The rows are models, not steps, and the
  NaN is a missing value printed by ``stats_.get('train_loss', float('nan'))``. Likewise a
  model without ``val_mse``/``r2`` (NaN fallbacks in the evaluation columns) is AMP013 at
  row 3 (4299471: nothing to diagnose). Healthy tables (losses 0.0 for tree models, jumps of
  1e4 between models, doubling row to row) stay silent: only the NaN fallbacks alarm.

- ``best_tags``, the tag first on the line only: a seismic CVAE's ``logger.info(f"[BEST]
  epoch={epoch} val_loss=...")`` under ``logging.Formatter("%(asctime)s | %(message)s")``
  (per epoch ``[E007/015] train_loss=... | val_loss=...``): both losses NaN from epoch 7 are
  said at 6 (the same on 4299471); the message printed bare now says 7 (4299471: 6). The
  tag behind the logger's own prefix is the message's, not the logger's.

Rules tried that held (quiet where healthy, the fault at its step as before or better):

- ``reader._EPOCH_END`` with one note: ``Epoch E/N (12.3s)`` printed at the epoch's end under
  its ``Batch b/n, Loss: ...`` lines (a PhoBERT trainer's layout): the batch NaN at epoch 3,
  batch 100 of 200 said at 500 with and without the note, as on 4299471; healthy silent.
  ``Epoch 3/10 (loss=nan)`` / ``(loss: nan)`` / ``(avg loss nan)`` (the note is the row)
  still say the NaN at its epoch; ``Epoch E/30 (beta=...)`` over ``Train - Loss`` rows, pasted
  from epoch 11, now says 15 for a NaN at 15 (4299471: 5).
- ``best_tags``: ``[BEST]``/``[best]``/``[Best]`` as real loops print them (``[BEST] val loss
  improved to ...``, ``[best] epoch=E acc=...``, ``[Best] New best loss: ...``) are best-so-far
  values; a loop whose real loss lines are tagged ``[BEST]`` only while improving still shows
  its NaN on the untagged lines that follow (a NaN is never a new best).
- ``header_cells`` on other tables: a markdown ``| Model | Train Loss | Val Loss | Val Acc |``
  table, a per-fold ``Fold  Train Loss  Valid Loss  Valid AUC`` table and a rows-of-models
  table sorted by accuracy (losses rising row to row, 1e4 losses of a failed baseline) are
  silent.
- ``Nan loss value`` alone: needs the value's word first on the line (or after ``]``, ``:``
  or ``|``) and ``loss``/``value`` last; ``nan loss values: 0 of 12`` and sentences that only
  name it ("replacing nan loss values") are not read by this rule. Real skip messages are now
  read at their step where 4299471 was silent: ``Step {step}: NaN loss`` (then ``continue``)
  between ``Step {step}: EMA Loss ...`` lines says 237 for a NaN at 237 (test below);
  ``[skip] batch {i}: Inf loss``, ``ERR: nan loss`` likewise; ``⚠️ Validation batch {i}: NaN
  loss`` (an evaluation batch) is not read as a training NaN.
- Speed (4 MB each, lines shaped to hit the new code; two cores shared by nine agents, so
  noisy): ``(best) loss=... step 12 loss 3.2`` lines 12.1 s (12.4 s without re2) against
  9.7 s (11.3 s) on 4299471; ``Train Loss  Valid Loss`` x20 header-like lines 8.1 s (12.2 s)
  against 7.4 s (8.1 s); ``Epoch 3/10 (`` + 39 characters 16 s against 13 s; ``] ] ... nan
  loss`` 9 s against 11 s. Linear, no catastrophic backtracking (no test: no timings).
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose

NAN = float("nan")


def _model_summary(stats: dict[str, tuple[float, float, float, float]]) -> list[str]:
    """A closing per-model summary (stored file id 67667403942, a deep-learning baselines
    script's ``run_deep_learning_baselines``; the index does not name its repository):
    ``print("\\nModel Performance Summary:")``, ``header = f"{'Model':<20}{'Train Loss':<15}
    {'Val MSE':<15}{'Val MAE':<15}{'Avg R2':<10}"``, ``print('-' * len(header))``, then per
    model ``train_loss = stats_.get('train_loss', float('nan'))`` (likewise the others) and
    ``print(f"{m:<20}{train_loss:<15.4f}{val_mse:<15.4f}{val_mae:<15.4f}{avg_r2:<10.4f}")``;
    ``stats`` maps a model's name to (train loss, val MSE, val MAE, R2), NaN where missing."""
    header = f"{'Model':<20}{'Train Loss':<15}{'Val MSE':<15}{'Val MAE':<15}{'Avg R2':<10}"
    lines = ["", "Model Performance Summary:", header, "-" * len(header)]
    lines += [f"{m:<20}{a:<15.4f}{b:<15.4f}{c:<15.4f}{d:<10.4f}" for m, (a, b, c, d) in
              stats.items()]
    lines.append("💾 Metrics saved to runs/ETHUSDT/metrics_summary.json")
    return lines


# Five sequence models on a non-default symbol, each trained to a finite loss
_STATS = {"LSTM": (0.0123, 0.0456, 0.1510, 0.41), "GRU": (0.0119, 0.0431, 0.1480, 0.44),
          "TCN": (0.0150, 0.0502, 0.1600, 0.38), "Transformer": (0.0098, 0.0399, 0.1410, 0.47)}


def _found(tmp_path: Path, lines: list[str]) -> list[tuple[str, int | None]]:
    """(id, step) of each diagnosis above info; an input read as having nothing to diagnose
    has none (the summary alone was that on 4299471)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [(d.code, d.step) for d in diagnose(str(path)).faults]


def test_model_summary_healthy_is_silent(tmp_path: Path) -> None:
    """Control: every model with its stats, no NaN: no finding."""
    assert _found(tmp_path, _model_summary(_STATS)) == []


def test_model_summary_missing_train_loss_is_no_nan_loss(tmp_path: Path) -> None:
    """A model whose stats lack ``train_loss`` (a legacy key) prints the fallback NaN in the
    summary: a missing value in a table of models, not a NaN loss at a step."""
    stats = dict(_STATS)
    stats["Informer"] = (NAN, 0.0612, 0.1810, 0.31)
    assert math.isnan(stats["Informer"][0])
    assert _found(tmp_path, _model_summary(stats)) == []


def test_model_summary_missing_evaluation_is_no_eval_failure(tmp_path: Path) -> None:
    """A model whose stats lack ``val_mse``/``mse`` and ``r2`` prints NaN fallbacks in the
    evaluation columns: missing values in a table of models, no failing evaluation."""
    stats = dict(_STATS)
    stats["TCN"] = (0.0150, NAN, NAN, NAN)
    assert _found(tmp_path, _model_summary(stats)) == []


def _phobert(nan_at: tuple[int, int] | None = None, *, epochs: int = 5,
             batches: int = 200) -> list[str]:
    """A PhoBERT fake-news trainer's ``PhoBertTrainer.train`` (stored file id 57949691722;
    the index does not name its repository): every 50 batches ``log.info(f"Batch
    {batch_idx + 1}/{len(train_loader)}, Loss: {loss:.4f}")``, at the epoch's end
    ``log.info(f"\\nEpoch {epoch+1}/{epochs} ({epoch_time:.1f}s)")``, ``log.info(f"Train Loss:
    {train_loss:.4f}, Acc: {train_acc:.4f}")``, ``log.info(f"Val Loss: {val_loss:.4f}, Acc:
    {val_acc:.4f}, F1: {val_f1:.4f}")`` and ``log.info(f"    New best model! F1: ...")``; the
    loss NaN from (epoch, batch) ``nan_at`` on."""
    lines = []
    for epoch in range(1, epochs + 1):
        bad = False
        for batch in range(50, batches + 1, 50):
            nan = nan_at is not None and (epoch, batch) >= nan_at
            bad = bad or nan
            loss = "nan" if nan else f"{0.7 - epoch * 0.05 - batch / 4000:.4f}"
            lines.append(f"Batch {batch}/{batches}, Loss: {loss}")
        lines += ["", f"Epoch {epoch}/{epochs} ({100 + epoch * 1.3:.1f}s)",
                  f"Train Loss: {'nan' if bad else f'{0.7 - epoch * 0.05:.4f}'}, "
                  f"Acc: {0.6 + epoch * 0.05:.4f}",
                  f"Val Loss: {0.72 - epoch * 0.05:.4f}, Acc: {0.6 + epoch * 0.04:.4f}, "
                  f"F1: {0.55 + epoch * 0.05:.4f}",
                  f"    New best model! F1: {0.55 + epoch * 0.05:.4f}"]
    return lines


def test_phobert_epoch_footer_with_time_note(tmp_path: Path) -> None:
    """Held: the epoch line with its time note printed after its batches does not move the
    batch NaN (epoch 3, batch 100 of 200: step 500); healthy and non-default epochs silent."""
    assert faults(tmp_path, _phobert((3, 100))) == [("AMP006", 500)]
    assert faults(tmp_path, _phobert(epochs=7, batches=400)) == []


def _ema_loop(nan_steps: range | tuple[int, ...] = (), *, steps: int = 400,
              log_every: int = 10, val_every: int = 200) -> list[str]:
    """A step-counted loop that skips a NaN loss (stored file id 65921922144, an audio model's
    ``train()``; the index does not name its repository): ``if torch.isnan(loss):
    print(f"Step {step}: NaN loss"); continue``, every ``log_every`` steps ``print(f"Step
    {step}: EMA Loss {ema_loss:.5f}")``, every ``val_every`` ``print(f"Step {step}: EMA
    {ema_loss:.5f}, ValLoss {val_loss:.5f} ({n_batches} batches), lr={lr:.6f}")``."""
    lines = ["Starting training with multi-source generator...",
             f"Validation every {val_every} steps using Monte Carlo (1% CV target, max 10k "
             "batches)", f"EMA loss reported every {log_every} steps"]
    ema: float | None = None
    for step in range(steps):
        if step in nan_steps:
            lines.append(f"Step {step}: NaN loss")
            continue
        value = 0.08 - step * 0.0001
        ema = value if ema is None else 0.1 * value + 0.9 * ema
        if step % log_every == 0 and step % val_every != 0:
            lines.append(f"Step {step}: EMA Loss {ema:.5f}")
        if step % val_every == 0:
            lines.append(f"Step {step}: EMA {ema:.5f}, ValLoss {ema + 0.01:.5f} (812 batches), "
                         "lr=0.000300")
    return lines


def test_step_colon_nan_loss_is_said_at_its_step(tmp_path: Path) -> None:
    """Held (and new: 4299471 was silent): ``Step 237: NaN loss`` between EMA lines every 10
    steps is the NaN at 237, once or from there on; healthy silent."""
    assert faults(tmp_path, _ema_loop((237,))) == [("AMP006", 237)]
    assert faults(tmp_path, _ema_loop(range(237, 400))) == [("AMP006", 237)]
    assert faults(tmp_path, _ema_loop(log_every=25, val_every=100)) == []


def _cvae(nan_from: int | None = None, *, val_nan_from: int | None = None, epochs: int = 15,
          stamped: bool = True) -> list[str]:
    """A seismic CVAE's control runs (stored file id 379044672, its
    ``main()``; the index does not name its repository): ``logging.Formatter("%(asctime)s |
    %(message)s")``; per epoch ``logger.info(f"[E{epoch:03d}/{args.epochs:03d}] train_loss=
    {...:.2f} rec=... kl=... pen=... pen_scaled=... | val_loss={...:.2f} rec=... kl=... pen=...
    pen_scaled=... | time={...:.1f}s")``, and on a new best ``logger.info(f"[BEST]
    epoch={epoch} val_loss={best_val:.2f} checkpoint={best_path.name}")``; both losses NaN
    from epoch ``nan_from``, the validation alone from ``val_nan_from``; ``stamped=False``
    drops the logger's prefix (the message as ``print`` would show it)."""
    lines, best, clock = [], math.inf, 0

    def stamp() -> str:
        return f"2026-03-01 12:{clock // 60:02d}:{clock % 60:02d},123 | " if stamped else ""

    lines.append(stamp() + f"RUN=fullcov_geo_control_diag_only_20260301_120000 mode=diag_only "
                 f"device=cuda data=5000 train/val=4000/1000 batch=16 epochs={epochs} "
                 "lr=0.0003 beta=0.05 offdiag_lambda=0.0")
    for epoch in range(1, epochs + 1):
        clock += 37
        bad = nan_from is not None and epoch >= nan_from
        train = NAN if bad else 900.0 - epoch * 10
        val = NAN if bad or (val_nan_from is not None and epoch >= val_nan_from) else (
            950.0 - epoch * 9)
        lines.append(stamp() + f"[E{epoch:03d}/{epochs:03d}] train_loss={train:.2f} "
                     f"rec={train - 5:.2f} kl=5.00 pen=0.000000 pen_scaled=0.000000 | "
                     f"val_loss={val:.2f} rec={val - 5:.2f} kl=5.00 pen=0.000000 "
                     "pen_scaled=0.000000 | time=37.0s")
        if val < best:
            best = val
            lines.append(stamp() + f"[BEST] epoch={epoch} val_loss={best:.2f} "
                         "checkpoint=fullcov_best.pt")
    lines.append(stamp() + f"FINISHED run=fullcov best_val={best:.2f}")
    return lines


def test_cvae_best_tag_printed_bare(tmp_path: Path) -> None:
    """Held (new: 4299471 said 6): the ``[BEST] epoch=E val_loss=...`` line first on its line
    is the best so far: both NaN at epoch 7 said at 7; healthy silent."""
    assert faults(tmp_path, _cvae(7, stamped=False)) == [("AMP006", 7), ("AMP013", 7)]
    assert faults(tmp_path, _cvae(val_nan_from=7, stamped=False)) == [("AMP013", 7)]
    assert faults(tmp_path, _cvae(epochs=23, stamped=False)) == []


def test_cvae_stamped_healthy_is_silent(tmp_path: Path) -> None:
    """Control: the same run behind its logger's ``asctime |`` prefix, 23 epochs, silent."""
    assert faults(tmp_path, _cvae(epochs=23)) == []


def test_cvae_best_tag_behind_logger_prefix(tmp_path: Path) -> None:
    """The same ``[BEST]`` line, the message of a logger whose format puts the time and a bar
    before it: still the best so far, the NaN at epoch 7 said at 7."""
    assert faults(tmp_path, _cvae(7)) == [("AMP006", 7), ("AMP013", 7)]
    assert faults(tmp_path, _cvae(val_nan_from=7)) == [("AMP013", 7)]


def test_cvae_best_tag_behind_name_and_level(tmp_path: Path) -> None:
    """The ``[BEST]`` message behind ``%(asctime)s - %(name)s - %(levelname)s - `` (a time,
    the logger's name and its level): the best so far, the NaN at epoch 9 said at 9; healthy
    (19 epochs) silent."""
    def logged(lines: list[str]) -> list[str]:
        return [f"2026-03-01 12:{i // 60:02d}:{i % 60:02d},500 - cvae.train - INFO - {line}"
                for i, line in enumerate(lines)]

    assert faults(tmp_path, logged(_cvae(9, stamped=False))) == [("AMP006", 9), ("AMP013", 9)]
    assert faults(tmp_path, logged(_cvae(epochs=19, stamped=False))) == []


def _named_table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> list[str]:
    """A results table printed by pipes (``| Model | Train Loss | ... |``, a rule under the
    header), one row per ``rows`` entry: its cells as printed."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def test_named_rows_nan_is_no_fault(tmp_path: Path) -> None:
    """A table whose rows open with a model's name and has no step or epoch column: a NaN
    cell is a missing value of that model, no fault at a step (the parent: AMP006 at row 2).
    Control: the same rows with an epoch column are a run's, its NaN at its epoch."""
    header = ("Model", "Train Loss", "Val Loss", "Val Acc")
    rows = [("ResNet-18", "0.4100", "0.5200", "0.8100"), ("ViT-S", "nan", "0.5500", "0.8000"),
            ("ConvNeXt-T", "0.3900", "nan", "0.8300")]
    assert _found(tmp_path, _named_table(rows, header)) == []
    by_epoch = [("ViT-S", str(epoch), *cells[1:]) for epoch, cells in enumerate(rows, 4)]
    assert faults(tmp_path, _named_table(by_epoch, ("Model", "Epoch", *header[1:]))) == [
        ("AMP006", 5), ("AMP013", 6)]
