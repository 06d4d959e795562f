"""Adversarial review of the log doctor's rules merged on 2026-12-07 in the last four fix
merges (bb0b2e9, abbdd6d, 8cb0e78, ce04e40 and ab9c9a8 over b93196f; issue #27). Each
problem found is a strict xfail holding the right answer; each rule that held has a line
below (and a control test where a healthy excerpt could have made it alarm).

Problem held here (strict xfails):

- metric_reader ``_named_rows`` (8cb0e78) reads a table whose first column the lexicon does
  not know, and which has no step, epoch or ``#`` column, as a table of named things, and
  drops every row whose first cell is no number. A run's own record whose rows open with a
  clock time (``Time | train_loss | lr``, rows ``10:29:00 | nan | ...``) or a ``done/total``
  count under a header the lexicon does not know (``Progress``: ``30/40``) are such tables:
  their NaN is now hidden ("nothing to diagnose"), where b93196f said AMP006 at the row that
  first held it (30). The rule needs a narrower test of a NAME: a cell with a letter and
  no clock or count shape (``Model``'s ``LSTM``, ``GRU-2``); a time, a date or ``n/m`` is a
  step's stamp, not a thing's name. (Fixed in h50-fix50e: ``_names_a_thing``; the two
  tests pass.)
- metric_reader ``_over_epochs`` (abbdd6d) for a label keyed ``epoch: N,`` (no total to
  check) judges a bar by its FIRST pasted state alone: a batch bar (foldnn_pytorch's
  ``epoch: {}, train acc: ...`` over ``tqdm(train_loader)``) pasted from a state whose batch
  happens to equal the label's epoch, or one less (``epoch: 3, ...  3/100``), is taken for a
  bar over the epochs, and the epochs before it are lost: AMP006 at 250 where b93196f and
  the same paste from batch 10 say 450. A bar over the epochs moves its label's epoch WITH
  its count (the epoch minus the count stays put from state to state); a batch bar's label
  keeps its epoch while the count moves: the second state tells them apart. (Fixed in
  h50-fix50e: ``_over_epochs_still`` decides at the bar's next state.)

Rules tried that held:

- best_tags behind a logger prefix (8cb0e78): loguru's default format
  (``{time} | {level: <8} | {name}:{function}:{line} - {message}``, loguru ``_defaults.py``)
  before ``[BEST] epoch=... loss=...`` is not read as a tag (four fields after the time, one
  too many for ``_PREFIX``), but the best loss interleaved with a decreasing loss raised no
  alarm either way; ``_PREFIX`` on 40-80 kB lines shaped to it (``a.`` runs, ``a - `` runs,
  repeated stamps) is linear (under 3 ms a line, with and without re2: it uses ``re``).
- ``_repeats_count`` in ``_LABEL_STEPS`` (abbdd6d), by reading (no excerpt built): the
  MONAI UNETR loop's ``"Training (%d / %d Steps)"`` repeats the bar's count only in the
  first epoch, where the bar's passes give the same step; later epochs' global steps
  (epoch * batches + batch) never equal the batch.
- ``Message.no_scaler_shown`` (open_clip's ``--precision fp16`` warning): its rows' ``Logit
  Scale`` is no loss scale, so the warning still says AMP001 beside them
  (test_msgs50_formats.py holds it); no open_clip line of an fp16 run without ``--fsdp``
  shows a scaler.
- lexicon.held_out_first / metric_pairs.training_split_value (bb0b2e9): a healthy
  ``train=... | val_mse=...`` line is silent (control below); ``train 50000 | val_acc ...``
  (a count after ``train``) and ``train 39.3s | val_loss ...`` stay silent. But not held:
  the tool's line without its diagnostics (``{epoch:3d} train=nan | val_mse=nan``, the
  doctest's own shape) says AMP013 with no step and no AMP006, as b93196f did (strict xfail
  below; not a regression: the rule reaches only the full line, whose other keys give the
  row its step).
- raised_nonfinite's SB3 words (ab9c9a8) behind torchrun's rank prefix: a healthy log whose
  traceback names the environment's ``rewards`` is silent (control below); the model's
  ``actions`` stays AMP006 (the module's doctest).
- lone_perplexity ``[final]`` with a finite perplexity is silent (control below).
- A per-split table (``Split | Loss | Acc`` rows ``train``/``val``) and Lightning's
  ``Test metric  DataLoader 0`` table say AMP013 with no step before and after the merges:
  not the new rules' doing (a table of splits has no step column to read).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.logs.excerpts import faults


def clock_table(nan_from: int | None, rows: int = 40, lr: str = "3.0e-04") -> list[str]:
    """A script's own pipe table stamped by the clock, no step column: the header
    ``| Time | train_loss | lr |`` and a row ``| {time.strftime('%H:%M:%S')} | {loss:.4f} |
    {lr:.1e} |`` per logging interval (the shape of Python's ``time.strftime`` stamp in a
    markdown table; no tool of this shape was located in the review's time, so the excerpt
    is built from the stamp's and ``str.format``'s own formats). ``nan_from``: the first row
    whose loss prints ``nan`` (``f"{float('nan'):.4f}"``)."""
    lines = ["| Time | train_loss | lr |", "|---|---|---|"]
    for row in range(1, rows + 1):
        loss = "nan" if nan_from is not None and row >= nan_from else f"{2.0 - 0.01 * row:.4f}"
        lines.append(f"| 10:{row:02d}:00 | {loss} | {lr} |")
    return lines


def progress_table(nan_from: int | None, rows: int = 40) -> list[str]:
    """The same table counted ``done/total`` under a header the lexicon does not know:
    ``| Progress | train_loss | lr |`` over ``f"| {i}/{n} | {loss:.4f} | {lr:.1e} |"`` (the
    ``{epoch}/{epochs}`` cell YOLOv5's ``train.py`` prints under ``Epoch``, here under a
    name of the script's own)."""
    lines = ["| Progress | train_loss | lr |", "|---|---|---|"]
    for row in range(1, rows + 1):
        loss = "nan" if nan_from is not None and row >= nan_from else f"{2.0 - 0.01 * row:.4f}"
        lines.append(f"| {row}/{rows} | {loss} | 1.0e-04 |")
    return lines


def epoch_lines(epochs: int = 12) -> list[str]:
    """A healthy run's epoch lines before a control's excerpt, so the doctor has a run to
    read: the seismic CVAE's ``logger.info(f"Epoch {epoch}/{epochs} | Avg Loss: {avg:.4f}")``
    (the shape best_tags' module docstring quotes), at a loss that is no default."""
    return [f"Epoch {epoch}/{epochs} | Avg Loss: {3.7 / epoch:.4f}"
            for epoch in range(1, epochs + 1)]


def model_summary(lstm_loss: str) -> list[str]:
    """A closing per-model summary (review50c's shape, the one ``_named_rows`` was made for):
    ``f"{name:<8}{stats.get('train_loss', float('nan')):>12.4f}..."`` under ``Model  Train
    Loss  Val MSE``."""
    return ["Model     Train Loss     Val MSE",
            f"LSTM      {lstm_loss:>10}      0.0410",
            "GRU-2         0.0390         nan"]


def split_keyed_line(step: int, train: str, val: str) -> str:
    """0Dema0/Adversarial_Sonar_Placement ``trainer/train_delta.py``'s line
    ``f"{epoch:3d} train={train_loss:.5f} | val_mse={val_mse:.5f}"``."""
    return f"{step:3d} train={train} | val_mse={val}"


def sb3_env_traceback() -> list[str]:
    """stable-baselines3 ``vec_env/vec_check_nan.py`` ``_check_val``'s raised message, the
    found arrays joined by ``", "`` and ended ``.``, on stderr behind torchrun ``--tee 2``'s
    ``[default0]:`` (pytorch ``distributed/elastic/multiprocessing/tail_log.py``)."""
    return ["[default0]:Traceback (most recent call last):",
            "[default0]:  File \"train.py\", line 88, in <module>",
            "[default0]:ValueError: found inf in rewards, found nan in observations.image."]


def test_clock_stamped_table_nan_is_a_training_fault(tmp_path: Path) -> None:
    assert faults(tmp_path, clock_table(30)) == [("AMP006", 30)]


def test_progress_count_table_nan_is_a_training_fault(tmp_path: Path) -> None:
    assert faults(tmp_path, progress_table(30)) == [("AMP006", 30)]


def test_clock_stamped_table_healthy_is_silent(tmp_path: Path) -> None:
    """Control: a healthy run of the same table, a non-default learning rate."""
    assert faults(tmp_path, epoch_lines() + clock_table(None, lr="7.5e-05")) == []


def test_model_summary_placeholders_stay_silent(tmp_path: Path) -> None:
    """Control: the per-model summary's NaN placeholders (8cb0e78's fix) are still none."""
    assert faults(tmp_path, epoch_lines() + model_summary("0.0380")) == []


def test_split_keyed_line_healthy_is_silent(tmp_path: Path) -> None:
    """Control: held_out_first beside a healthy training split (values not the defaults)."""
    lines = [split_keyed_line(step, f"{0.9 / step:.5f}", f"{1.1 / step:.5f}")
             for step in range(1, 31)]
    assert faults(tmp_path, epoch_lines() + lines) == []


def test_sb3_environment_nan_behind_rank_prefix_is_silent(tmp_path: Path) -> None:
    """Control: healthy SB3 rollout lines, then the environment's NaN behind a rank prefix."""
    lines = [f"| time/total_timesteps | {2048 * step} |" for step in range(1, 6)]
    assert faults(tmp_path, epoch_lines() + lines + sb3_env_traceback()) == []


def test_final_perplexity_finite_is_silent(tmp_path: Path) -> None:
    """Control: 0x0shephard/assignment ``train_sft.py``'s ``[final]`` line, a finite PPL
    (``f"[final] response-token PPL: {ppl_final:.2f}  ({dt/60:.1f} min)"``)."""
    lines = [f"[step {step}] loss: {2.5 - 0.01 * step:.4f}" for step in range(10, 310, 10)]
    lines.append("[final] response-token PPL: 7.31  (12.4 min)")
    assert faults(tmp_path, lines) == []


def foldnn_bar(epoch: int, done: int, total: int, loss: str) -> str:
    """356255531/foldnn_pytorch ``train_eval.py``'s batch bar: ``tqdm(train_loader)`` over
    the epoch's batches, ``pbar.set_description('epoch: {}, train acc: {:.3f}, train loss:
    {:.3f}'.format(epoch + 1, ...))``, as tqdm writes a state (``{desc}: {percentage:3.0f}%|
    {bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_fmt}]``)."""
    fill = 10 * done // total
    return (f"epoch: {epoch}, train acc: 0.812, train loss: {loss}: {100 * done // total:3d}%|"
            f"{'█' * fill}{' ' * (10 - fill)}| {done}/{total} [00:04<00:06,  9.80it/s]")


def foldnn_excerpt(first_epoch: int, first_done: int, total: int = 100) -> list[str]:
    """Three epochs of foldnn's bar pasted from ``first_epoch`` (1-based, as it prints),
    its first state at batch ``first_done``; the loss turns NaN at batch 50 of the third."""
    lines = []
    for epoch in range(first_epoch, first_epoch + 3):
        for done in range(first_done if epoch == first_epoch else 0, total + 1, 10):
            nan = epoch == first_epoch + 2 and done >= 50
            lines.append(foldnn_bar(epoch, done, total, "nan" if nan else f"{0.9 / epoch:.3f}"))
    return lines


@pytest.mark.parametrize("first_done", [3, 2])
def test_batch_bar_whose_first_count_equals_its_epoch(tmp_path: Path, first_done: int) -> None:
    """Pasted from epoch 3 at batch 3 (or 2): the 2 epochs before it are 200 batches."""
    assert faults(tmp_path, foldnn_excerpt(3, first_done)) == [("AMP006", 450)]


def test_batch_bar_whose_first_count_equals_its_epoch_healthy_is_silent(
        tmp_path: Path) -> None:
    """Control: the same coincidence on a healthy run (batches of 250, a loss no default)."""
    lines = [foldnn_bar(epoch, done, 250, f"{0.7 / epoch:.3f}")
             for epoch in (4, 5, 6) for done in range(4 if epoch == 4 else 0, 251, 25)]
    assert faults(tmp_path, epoch_lines() + lines) == []


def test_batch_bar_pasted_elsewhere_counts_epochs_before(tmp_path: Path) -> None:
    """Control: the same bar pasted from batch 10 of epoch 3 (no coincidence): 450."""
    assert faults(tmp_path, foldnn_excerpt(3, 10)) == [("AMP006", 450)]


def short_train_delta(nan_from: int | None, epochs: int = 30) -> list[str]:
    """0Dema0/Adversarial_Sonar_Placement ``trainer/train_delta.py``'s epoch line with its
    diagnostics left out (a script's shorter copy of it, the shape the held_out_first
    doctest quotes): ``f"{epoch:3d} train={train_loss:.5f} | val_mse={val_mse:.5f}"``; both
    turn NaN from epoch ``nan_from``."""
    out = []
    for epoch in range(1, epochs + 1):
        sick = nan_from is not None and epoch >= nan_from
        train, val = ("nan", "nan") if sick else (f"{1.0 / epoch:.5f}", f"{1.1 / epoch:.5f}")
        out.append(f"{epoch:3d} train={train} | val_mse={val}")
    return out


@pytest.mark.xfail(strict=True, reason="held_out_first (bb0b2e9) reads 'train=' beside "
                   "'val_mse=' only on the tool's full line: its shorter copy says AMP013 "
                   "with no step, and no AMP006")
def test_short_train_delta_training_nan(tmp_path: Path) -> None:
    """The training loss and the validation NaN from epoch 20: AMP006 and AMP013 there."""
    assert faults(tmp_path, short_train_delta(20)) == [("AMP006", 20), ("AMP013", 20)]
