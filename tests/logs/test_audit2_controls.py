"""Controls from the second audit of the log doctor's format rules: healthy excerpts and texts
that are no training log, in the formats the latest rules read, each with the verdict that
the rule got wrong before its fix (a false alarm, or 'no fault found' on a text that is no
log)."""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.doctor import diagnose


def _refused(tmp_path: Path, lines: list[str]) -> None:
    """An input that holds nothing to diagnose (no training log)."""
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error


def _loss(i: int) -> str:
    return f"{2.5 * math.exp(-i / 8) + 0.1:.4f}"


def test_epoch_rows_with_a_healthy_sawtooth_are_no_stuck_scale(tmp_path: Path) -> None:
    # One row an epoch with its fp16 scale (a loop printing ``scaler.get_scale()`` at each
    # epoch's end): the rows are numbered by their epoch, but each stands for an epoch's
    # steps. A scale that halved once and grew back at the next epoch shows no growth
    # interval of one step, and staying put for five epochs is no stuck scale (AMP005 at
    # step 15 when the epochs were taken for consecutive steps).
    lines = []
    scale = 65536.0
    for epoch in range(30):
        if epoch % 7 == 6:
            scale /= 2
        elif epoch % 7 == 0 and epoch:
            scale *= 2
        lines.append(f"Epoch {epoch} | loss {_loss(epoch)} | loss_scale {scale:.1f} "
                     f"| grad_norm 1.{epoch % 10}21")
    result = diagnose_lines(tmp_path, lines)
    assert result.error is None and result.faults == []
    # ...and a NaN loss is still found at its epoch
    lines[23] = "Epoch 23 | loss nan | loss_scale 65536.0 | grad_norm nan"
    assert ("AMP006", 23) in faults(tmp_path, lines)


def test_split_scores_without_an_epoch_are_a_results_table(tmp_path: Path) -> None:
    # A results table's or a README's rows in PyTorch Geometric's words but without the
    # epoch its examples print first: a finished model's scores, no training log ('no
    # fault found' when the split names took the line for training's).
    lines = [f"Loss: {loss:.3f}, Train: {train:.2f}, Val: {val:.2f}, Test: {test:.2f}"
             for loss, train, val, test in ((0.41, .95, .78, .80), (0.39, .96, .79, .81),
                                            (0.52, .90, .75, .77))]
    _refused(tmp_path, lines)
    # PyG's rows themselves, with their epoch, are still training's
    pyg = [f"Epoch: {epoch:03d}, Loss: {_loss(epoch) if epoch < 12 else 'nan'}, Train: 0.90, "
           f"Val: 0.80, Test: 0.80" for epoch in range(1, 20)]
    assert faults(tmp_path, pyg) == [("AMP006", 12)]


def test_a_hash_column_without_an_epoch_numbers_rows_not_steps(tmp_path: Path) -> None:
    # A results table whose first column numbers its runs or models: no training log ('no
    # fault found' when any "#" column was taken for spaCy's step column).
    _refused(tmp_path, ["#   run        loss    val_loss", "1   baseline   0.521   0.611",
                        "2   +aug       0.498   0.590", "3   +mixup     0.480   0.575"])
    _refused(tmp_path, ["#  Model     Loss   Acc", "1  resnet18  0.52   0.91",
                        "2  resnet34  0.48   0.92", "3  resnet50  0.41   0.93"])
    # spaCy's table, "#" beside its epoch column "E", still numbers the steps
    spacy = ["E    #       LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE ",
             "---  ------  --------  ------  ------  ------  ------"]
    spacy += [f"{i // 5:>3}  {step:>6}  {'nan' if step >= 3600 else f'{900 / (i + 1):.2f}':>8}"
              f"  {60 + i:>6.2f}  {60 + i:>6.2f}  {60 + i:>6.2f}  {0.6 + i / 100:>6.2f}"
              for i, step in enumerate(range(200, 4001, 200))]
    assert faults(tmp_path, spacy) == [("AMP006", 3600)]


def test_a_postfix_epoch_from_zero(tmp_path: Path) -> None:
    # A script's own bar over each epoch's batches with ``set_postfix(epoch=f"{epoch}/
    # {epochs}")`` over ``range(epochs)``: once an epoch 0 was seen the epochs count from 0
    # (the NaN at epoch 10's batch 20 is step 520; 470 when counted from 1 as GluonTS does).
    lines = [f"100%|##########| {batch}/50 [00:01<00:00, 30.12it/s, epoch={epoch}/20, "
             f"loss={'nan' if epoch * 50 + batch >= 520 else _loss(epoch)}]"
             for epoch in range(20) for batch in range(10, 51, 10)]
    assert faults(tmp_path, lines)[0] == ("AMP006", 520)
