"""Scientific, molecular and protein ML trainers: excerpts written from each tool's own format
strings (each test names its source), a fault at a known step beside healthy controls.

- Uni-Core / Uni-Mol (dptech-corp/Uni-Core): fairseq's trainer, its ``SimpleProgressBar``
  lines and ``DynamicLossScaler`` overflow notes; read right before this file (controls);
- DeePMD-kit (deepmodeling/deepmd-kit): ``lcurve.out``, a ``#``-commented header row over
  fixed-width rows (``"%7d"`` then ``"   %11.2e %11.2e"`` per ``_val``/``_trn`` pair, the
  learning rate last), and the console's ``batch    1000: trn: rmse = ...`` /
  ``val: ...`` lines;
- MACE (ACEsuit/mace): the console's ``Initial:`` / ``Epoch {epoch}: head: ...`` lines of
  mace/tools/train.py ``valid_err_log``, and its results file's JSON lines
  (``"mode": "opt"`` / ``"eval"``);
- NequIP (mir-group/nequip 0.5/0.6): nequip/train/trainer.py's batch tables (``training`` or
  ``validation`` over ``# Epoch batch  loss ...``) and its ``! Train`` / ``! Validation`` rows;
- DiffDock (gcorso/DiffDock train.py): read right before (controls);
- OpenFold (aqlaboratory/openfold train_openfold.py ``_log``) through Lightning's CSVLogger:
  its ``metrics.csv`` pasted into a log (a CSV's empty cells kept in their columns).
  (SchNetPack and MatterGen train through Lightning too: their own keys were not tried.)

Each fault test failed on the parent commit (c9ca303) unless its docstring says it is a
control that passes there too. Left as documented misses (no test): torchdrug
(torchdrug/core/meter.py, engine.py: an evaluation's ``auroc [task]: nan`` lines under its
``Evaluate on valid`` banner are read by no rule, ``mean squared error`` names no loss the
lexicon knows, the epoch's ``average ...`` lines are counted as rows); ProteinMPNN
(training/training.py ``epoch: 3, step: 1500, time: ..., train: 7.812, valid: 7.650, ...``:
the split's name keys the perplexity, no loss named: nothing read); MACE's multi-head
fine-tuning (``Epoch 3: head: Default`` then ``Epoch 3: head: pt_head``: the repeated epoch
turns the epoch count off, the rows are counted).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults


def _unicore(nan_at: int | None = None, overflow_from: int | None = None,
             valid: str = "2.1", fp16: bool = True) -> list[str]:
    """A Uni-Mol pretraining run as Uni-Core prints it with ``--log-format simple``:
    unicore_cli/train.py's ``%(asctime)s | %(levelname)s | %(name)s | %(message)s``, the
    ``train_inner`` line of unicore/logging/progress_bar.py ``SimpleProgressBar.log``
    (``"{}:  {:5d} / {:d} {}"``, the stats ``key=value`` by priority), unicore/trainer.py's
    ``NOTE: gradient overflow detected, ignoring gradient, setting loss scale to: {s}`` and
    the ``valid`` line of ``SimpleProgressBar.print`` (``key value`` between pipes)."""
    lines = [f"2023-05-01 10:00:00 | INFO | unicore_cli.train | Namespace(arch='unimol_base', "
             f"fp16={fp16}, fp16_init_scale=4, min_loss_scale=0.0001, log_interval=10)",
             "2023-05-01 10:00:01 | INFO | unicore.trainer | begin training epoch 1",
             "2023-05-01 10:00:01 | INFO | unicore_cli.train | Start iterating over samples"]
    scale = 4.0
    for update in range(10, 301, 10):
        if overflow_from is not None and update >= overflow_from:
            for _ in range(3):
                scale /= 2
                lines.append("2023-05-01 10:01:00 | INFO | unicore.trainer | NOTE: gradient "
                             f"overflow detected, ignoring gradient, setting loss scale to: "
                             f"{scale}")
        loss = "nan" if nan_at is not None and update >= nan_at else f"{2.5 - update / 1000:g}"
        tail = f", loss_scale={scale:g}" if fp16 else ""
        lines.append(f"2023-05-01 10:01:{update % 60:02d} | INFO | train_inner | epoch 001:  "
                     f"{update:5d} / 1563 loss={loss}, masked_token_loss={loss}, masked_acc="
                     f"0.5, masked_coord_loss=1.2, masked_dist_loss=0.8, ups=3.2, num_updates="
                     f"{update}, lr=4e-05, gnorm=1.234{tail}, train_wall=3, gb_free=12.3, "
                     f"wall={update}")
    lines += ["2023-05-01 10:05:00 | INFO | unicore_cli.train | end of epoch 1 (average "
              "epoch stats below)",
              f"2023-05-01 10:05:30 | INFO | valid | epoch 001 | valid on 'valid' subset | "
              f"loss {valid} | masked_token_loss {valid} | masked_acc 0.55 | num_updates 300 "
              f"| best_loss 2.1"]
    return lines


def test_unicore_read_right_before(tmp_path: Path) -> None:
    """Uni-Core prints fairseq's lines: right on the parent commit too (controls of the
    fairseq reader on a molecular trainer's keys)."""
    assert faults(tmp_path, _unicore(nan_at=150)) == [("AMP006", 150)]
    assert faults(tmp_path, _unicore(valid="nan")) == [("AMP013", 300)]
    assert faults(tmp_path, _unicore(overflow_from=200))[0][0] == "AMP003"
    assert faults(tmp_path, _unicore()) == []
    assert faults(tmp_path, _unicore(fp16=False)) == []


def _lcurve(rows: int = 50, val: bool = True, nan_at: int | None = None,
            val_nan_at: int | None = None, unmeasured: tuple[str, ...] = (),
            new_lr: bool = True) -> list[str]:
    """DeePMD-kit's ``lcurve.out`` (deepmd/train/trainer.py ``print_header`` /
    ``print_on_training``; deepmd/pt/train/training.py): ``"# %5s" % "step"``, then per
    quantity ``"   %11s %11s" % (k + "_val", k + "_trn")`` (``"   %11s"`` of ``_trn`` alone
    without validation data), the learning rate as ``"   {:8s}".format("lr")`` (``"   %8s"``
    before), the note line, and rows of ``"%7d"`` then ``"   %11.2e %11.2e"`` and
    ``"   %8.1e"``. A quantity in ``unmeasured`` has no reference data: ``nan`` throughout."""
    keys = ("rmse", "rmse_e", "rmse_f", "rmse_v")
    header = f"# {'step':>5}"  # (the %-formats above, as format specifiers)
    for key in keys:
        header += f"   {key + '_val':>11} {key + '_trn':>11}" if val else f"   {key + '_trn':>11}"
    header += "   {:8s}".format("lr") if new_lr else f"   {'lr':>8}"
    lines = [header,
             "# If there is no available reference data, rmse_*_{val,trn} will print nan"]
    for i in range(rows + 1):
        step = i * 100
        good = 0.5 / (1 + i / 10)
        row = f"{step:7d}"
        for key in keys:
            gone = key in unmeasured or (nan_at is not None and step >= nan_at)
            trn = math.nan if gone else good
            vnan = gone or (val_nan_at is not None and step >= val_nan_at)
            out = math.nan if vnan else good * 1.1
            row += f"   {out:11.2e} {trn:11.2e}" if val else f"   {trn:11.2e}"
        lines.append(row + f"   {1e-3:8.1e}")
    return lines


def test_deepmd_lcurve_commented_header(tmp_path: Path) -> None:
    """Before: the ``#`` that comments out ``lcurve.out``'s header row was read as a column,
    one more than each row holds, and no row was read ("nothing to diagnose"); a row past
    200 lines below the header was matched by position, and the left-aligned ``lr`` over its
    wider value lined up neither way (silence)."""
    assert faults(tmp_path, _lcurve(nan_at=3000)) == [("AMP006", 3000)]
    assert faults(tmp_path, _lcurve(val=False, nan_at=3000, new_lr=False)) == [("AMP006", 3000)]
    assert faults(tmp_path, _lcurve(rows=1500, nan_at=120000)) == [("AMP006", 120000)]


def test_deepmd_lcurve_validation_column(tmp_path: Path) -> None:
    """Before: silence (no row read). With the rows read, ``rmse_val`` beside ``rmse_trn`` is
    the validation set's (a split's name after the metric, its training twin beside it), not
    a term of the loss."""
    assert faults(tmp_path, _lcurve(val_nan_at=3000)) == [("AMP013", 3000)]
    assert faults(tmp_path, _lcurve(rows=1500, val_nan_at=120000)) == [("AMP013", 120000)]


def test_deepmd_lcurve_controls(tmp_path: Path) -> None:
    """Healthy runs, a virial without reference data (``nan`` in both its columns on every
    row, as the file's note says), no validation data, the old ``lr`` header; long files.
    On the parent none of these was read at all ("nothing to diagnose")."""
    for lines in (_lcurve(), _lcurve(unmeasured=("rmse_v",)), _lcurve(val=False),
                  _lcurve(val=False, unmeasured=("rmse_v",), new_lr=False),
                  _lcurve(rows=1500, unmeasured=("rmse_v",))):
        assert faults(tmp_path, lines) == []


def _deepmd_console(nan_at: int | None = None, val_only: bool = False, word: str = "batch",
                    stamp: bool = True, val: bool = True) -> list[str]:
    """DeePMD-kit's console: deepmd/loggers/loggers.py ``CFORMATTER`` (``[%(asctime)s]
    %(app_name)s %(levelname)-7s %(message)s``; no time before 3.0), the messages of
    deepmd/loggers/training.py ``format_training_message_per_task`` (``f"batch {batch:7d}:
    {task_name}"`` then ``kk = {vv:8.2e}`` sorted, ``, lr = {lr:8.2e}``; ``Batch`` in newer
    versions; the task ``trn`` then ``val``) and ``format_training_message``."""
    prefix = "[2024-06-01 10:00:00,123] DEEPMD INFO    " if stamp else "DEEPMD INFO    "
    lines = [prefix + "Start to train 100000 steps."]
    for batch in range(100, 5001, 100):
        bad = nan_at is not None and batch >= nan_at
        good = f"{0.5 / (1 + batch / 1000):8.2e}"
        trn = "nan" if bad and not val_only else good
        lines.append(prefix + f"{word} {batch:7d}: trn: rmse = {trn}, rmse_e = {trn}, "
                     f"rmse_f = {trn}, lr = 1.00e-03")
        if val:
            out = "nan" if bad else good
            lines.append(prefix + f"{word} {batch:7d}: val: rmse = {out}, rmse_e = {out}, "
                         f"rmse_f = {out}")
        lines.append(prefix + f"{word} {batch:7d}: total wall time = 12.34 s, eta = 1:00:00")
    return lines


def test_deepmd_console_validation_task(tmp_path: Path) -> None:
    """Before: the ``val:`` task's ``rmse = nan`` was read as the training loss (AMP006, an
    error, where the training set's ``trn:`` line stayed finite)."""
    assert faults(tmp_path, _deepmd_console(3000, val_only=True)) == [("AMP013", 3000)]


def test_deepmd_console_controls(tmp_path: Path) -> None:
    """A NaN in training, and healthy runs (``Batch``, no time, no validation): right on the
    parent too."""
    assert faults(tmp_path, _deepmd_console(3000))[0] == ("AMP006", 3000)
    for lines in (_deepmd_console(), _deepmd_console(word="Batch", stamp=False, val=False)):
        assert faults(tmp_path, lines) == []


def _mace(nan_at: int | None = None, errors: str = "PerAtomRMSE",
          initial: bool = True) -> list[str]:
    """MACE's console (mace/tools/utils.py ``setup_logger``: ``%(asctime)s.%(msecs)03d
    %(levelname)s: %(message)s``): mace/tools/train.py ``train`` opens with ``Started
    training, reporting errors on validation set``, then ``valid_err_log`` prints one line
    before training (``Initial: head: Default, loss={valid_loss:8.8f}, ...``) and one an
    epoch (``Epoch {epoch}: head: ...``); ``--error_table`` picks the keys."""
    lines = ["2024-06-01 10:00:00.000 INFO: Using gradient clipping with tolerance=10.000",
             "2024-06-01 10:00:00.000 INFO: ===========TRAINING===========",
             "2024-06-01 10:00:00.000 INFO: Started training, reporting errors on validation set",
             "2024-06-01 10:00:00.000 INFO: Loss metrics on validation set"]
    for epoch in ([None] if initial else []) + list(range(60)):
        bad = nan_at is not None and epoch is not None and epoch >= nan_at
        loss = math.nan if bad else 0.5 / (1 + (epoch or 0))
        error = math.nan if bad else 20.0 / (1 + (epoch or 0))
        phrase = "Initial" if epoch is None else f"Epoch {epoch}"
        if errors == "PerAtomRMSE":
            tail = f"RMSE_E_per_atom={error:8.2f} meV, RMSE_F={error * 3:8.2f} meV / A"
        else:  # TotalMAE
            tail = f"MAE_E={error:8.2f} meV, MAE_F={error * 3:8.2f} meV / A"
        lines.append(f"2024-06-01 10:{(epoch or 0) // 60:02d}:{(epoch or 0) % 60:02d}.000 "
                     f"INFO: {phrase}: head: Default, loss={loss:8.8f}, {tail}")
    return [*lines, "2024-06-01 11:00:00.000 INFO: Training complete"]


def test_mace_initial_evaluation_before_the_epochs(tmp_path: Path) -> None:
    """Before: the ``Initial:`` line, printed before any epoch's, turned the epoch count off
    for the run: the NaN of epoch 12 was reported at step 14 (the rows). The loss these lines
    print is the validation set's (``valid_err_log``): AMP013 at the epoch (test_left11's)."""
    assert faults(tmp_path, _mace(12)) == [("AMP013", 12)]
    assert faults(tmp_path, _mace(12, errors="TotalMAE")) == [("AMP013", 12)]


def test_mace_controls(tmp_path: Path) -> None:
    """Healthy runs, and a run resumed without the ``Initial:`` line."""
    assert faults(tmp_path, _mace(12, initial=False)) == [("AMP013", 12)]
    for lines in (_mace(), _mace(errors="TotalMAE"), _mace(initial=False)):
        assert faults(tmp_path, lines) == []


def _mace_results(nan_at: int | None = None, eval_nan: bool = False) -> list[str]:
    """MACE's results file (``results/{tag}_train.txt``): one JSON line a step from
    mace/tools/train.py ``train_one_epoch`` (``{"loss", "time", "mode": "opt", "epoch"}``)
    and one an evaluation from ``valid_err_log`` (``"mode": "eval"``), written by
    mace/tools/utils.py ``MetricsLogger.log`` (``json.dumps``: ``NaN``)."""
    lines = []
    step = 0
    for epoch in range(5):
        for _ in range(20):
            step += 1
            loss = math.nan if nan_at is not None and step >= nan_at else 0.5 / step
            lines.append(json.dumps({"loss": loss, "time": 0.21, "mode": "opt",
                                     "epoch": epoch}))
        value = math.nan if eval_nan and epoch >= 2 else 0.4
        lines.append(json.dumps({"loss": value, "rmse_e_per_atom": 0.01, "rmse_f": 0.05,
                                 "time": 1.2, "mode": "eval", "epoch": epoch,
                                 "head": "Default"}))
    return lines


def test_mace_results_evaluation_records(tmp_path: Path) -> None:
    """Before: each ``"mode": "eval"`` record was read as a training step (the NaN of step
    57 was reported at 59), and a NaN evaluation loss as the training loss (AMP006)."""
    assert faults(tmp_path, _mace_results(57))[0] == ("AMP006", 57)
    assert faults(tmp_path, _mace_results(eval_nan=True)) == [("AMP013", 60)]
    assert faults(tmp_path, _mace_results()) == []


_NEQUIP_KEYS = ("loss", "loss_f", "loss_e", "f_mae", "f_rmse", "e_mae", "e/N_mae")


def _nequip_batches(split: str, epoch: int, batches: int,
                    nan_from: tuple[int, int] | None) -> list[str]:
    """nequip/train/trainer.py ``end_of_batch_log``: the split's name, the header row
    ``"# Epoch batch"`` plus ``f" {name:>12.12}"``, then ``f"  {iepoch+1:5d} {ibatch+1:5d}"``
    and ``f" {value:12.3g}"`` each batch."""
    lines = ["", split, "# Epoch batch" + "".join(f" {key:>12.12}" for key in _NEQUIP_KEYS)]
    for batch in range(1, batches + 1):
        bad = nan_from is not None and (epoch, batch) >= nan_from
        value = math.nan if bad else 0.5 / (epoch + 1)
        lines.append(f"  {epoch:5d} {batch:5d}" + f" {value:12.3g}" * len(_NEQUIP_KEYS))
    return lines


def _nequip(nan_from: tuple[int, int] | None = None,
            val_nan_from: tuple[int, int] | None = None) -> list[str]:
    """A NequIP run (``report_init_validation``, five batches an epoch, two validation
    batches): the batch tables, then ``end_of_epoch_log``'s ``! Train`` / ``! Validation``
    rows under ``"  Train      " + "# " + "    Epoch      wal       LR" + ...``."""
    header = "# " + " ".join(f"{s:>8s}" for s in ("Epoch", "wal", "LR")) + "".join(
        f" {key:>12.12}" for key in _NEQUIP_KEYS)
    lines = ["Torch device: cuda", "! Starting training ...",
             *_nequip_batches("validation", 0, 2, None), "", "",
             "  Initialization     " + header,
             "! Initial Validation " + f"{0:10d} {1.234:8.3f} {0.005:8.3g}"
             + f" {0.5:12.3g}" * len(_NEQUIP_KEYS), "Wall time: 1.234"]
    for epoch in range(1, 13):
        lines += _nequip_batches("training", epoch, 5, nan_from)
        lines += _nequip_batches("validation", epoch, 2, val_nan_from or nan_from)
        train = math.nan if nan_from is not None and epoch >= nan_from[0] else 0.5
        valid = math.nan if val_nan_from is not None and epoch >= val_nan_from[0] else train
        row = f"{epoch:10d} {epoch * 1.5:8.3f} {0.005:8.3g}"
        lines += ["", "", "  Train      " + header,
                  "! Train      " + row + f" {train:12.3g}" * len(_NEQUIP_KEYS),
                  "! Validation " + row + f" {valid:12.3g}" * len(_NEQUIP_KEYS),
                  f"Wall time: {epoch * 1.5}"]
    return lines


def test_nequip_batch_tables(tmp_path: Path) -> None:
    """Before: the batch column, which starts over each epoch, was read as the step (the NaN
    of epoch 7's third batch, step 33, was reported at step 3), and the rows of the
    ``validation`` tables as training's (a NaN there was AMP006 at its batch's number)."""
    assert faults(tmp_path, _nequip((7, 3)))[0] == ("AMP006", 33)
    assert faults(tmp_path, _nequip(val_nan_from=(7, 1))) == [("AMP013", 35)]


def test_nequip_controls(tmp_path: Path) -> None:
    """A healthy run (right on the parent too)."""
    assert faults(tmp_path, _nequip()) == []


def _diffdock(nan_at: int | None = None, val_nan_at: int | None = None,
              sidechains: bool = True) -> list[str]:
    """DiffDock's train.py: ``"Epoch {}: Training loss {:.4f}  tr {:.4f}   rot {:.4f}   tor
    {:.4f}   sc {:.4f}  lr {:.4f}"`` (DiffDock-L; without ``sc`` and ``lr`` before), then
    ``"Epoch {}: Validation loss {:.4f}  tr ..."``, ``Run name:`` every fifth epoch and the
    inference metrics line."""
    lines = ["Starting training..."]
    for epoch in range(30):
        if epoch % 5 == 0:
            lines.append("Run name:  big_score_model")
        bad = nan_at is not None and epoch >= nan_at
        train = math.nan if bad else 1.5 / (epoch + 1)
        valid = math.nan if bad or (val_nan_at is not None and epoch >= val_nan_at) else (
            1.6 / (epoch + 1))
        if sidechains:
            lines.append(f"Epoch {epoch}: Training loss {train:.4f}  tr {train:.4f}   rot "
                         f"{train:.4f}   tor {train:.4f}   sc {train:.4f}  lr {0.001:.4f}")
            lines.append(f"Epoch {epoch}: Validation loss {valid:.4f}  tr {valid:.4f}   rot "
                         f"{valid:.4f}   tor {valid:.4f}   sc {valid:.4f}")
        else:
            lines.append(f"Epoch {epoch}: Training loss {train:.4f}  tr {train:.4f}   rot "
                         f"{train:.4f}   tor {train:.4f}")
            lines.append(f"Epoch {epoch}: Validation loss {valid:.4f}  tr {valid:.4f}   rot "
                         f"{valid:.4f}   tor {valid:.4f}")
        if epoch % 5 == 0:
            lines.append(f"Epoch {epoch}: Val inference rmsds_lt2 10.000 rmsds_lt5 30.000 "
                         "min_rmsds_lt2 20.000 min_rmsds_lt5 40.000")
    return lines


def test_diffdock_read_right_before(tmp_path: Path) -> None:
    """Right on the parent too (controls): the epoch numbers the rows, the validation line is
    the evaluation's."""
    assert faults(tmp_path, _diffdock(12)) == [("AMP006", 12), ("AMP013", 12)]
    assert faults(tmp_path, _diffdock(12, sidechains=False))[0] == ("AMP006", 12)
    assert faults(tmp_path, _diffdock(val_nan_at=12)) == [("AMP013", 12)]
    assert faults(tmp_path, _diffdock()) == []


_OPENFOLD_LOSSES = ("distogram", "fape", "loss", "masked_msa", "plddt_loss", "violation")
_OPENFOLD_METRICS = ("drmsd_ca", "lddt_ca")


def _openfold_csv(nan_at: int | None = None, val_nan_from: int | None = None) -> list[str]:
    """OpenFold's Lightning ``metrics.csv`` (CSVLogger: sorted column names, one row a
    logging call, a metric not logged on a row left empty), pasted as a log:
    openfold/train_openfold.py ``_log`` logs ``f"{phase}/{loss_name}"`` on each training
    step, ``f"{phase}/{loss_name}_epoch"`` at each epoch's end, and the validation's losses
    and metrics once an epoch."""
    columns = sorted(["epoch", "step",
                      *(f"train/{name}" for name in _OPENFOLD_LOSSES),
                      *(f"train/{name}_epoch" for name in _OPENFOLD_LOSSES),
                      *(f"val/{name}" for name in (*_OPENFOLD_LOSSES, *_OPENFOLD_METRICS))])
    lines = [",".join(columns)]

    def row(cells: dict[str, str]) -> str:
        return ",".join(cells.get(name, "") for name in columns)

    for step in range(50, 2001, 50):
        epoch = (step - 1) // 500
        bad = nan_at is not None and step >= nan_at
        value = "nan" if bad else f"{3.0 / (1 + step / 100):.6f}"
        lines.append(row({"epoch": str(epoch), "step": str(step - 1),
                          **{f"train/{name}": value for name in _OPENFOLD_LOSSES}}))
        if step % 500 == 0:
            lines.append(row({"epoch": str(epoch), "step": str(step - 1),
                              **{f"train/{name}_epoch": value for name in _OPENFOLD_LOSSES}}))
            out = "nan" if bad or (val_nan_from is not None and step >= val_nan_from) else "1.2"
            lines.append(row({"epoch": str(epoch), "step": str(step - 1),
                              **{f"val/{name}": out
                                 for name in (*_OPENFOLD_LOSSES, *_OPENFOLD_METRICS)}}))
    return lines


def test_openfold_metrics_csv_pasted(tmp_path: Path) -> None:
    """Before: a CSV's rows were split where blanks or commas are, the empty cells dropped:
    no row held as many cells as the header row ("nothing to diagnose")."""
    assert faults(tmp_path, _openfold_csv(1200))[0] == ("AMP006", 1199)
    assert faults(tmp_path, _openfold_csv(val_nan_from=1000)) == [("AMP013", 999)]


def test_openfold_metrics_csv_controls(tmp_path: Path) -> None:
    """A healthy run (read as nothing on the parent: "nothing to diagnose")."""
    assert faults(tmp_path, _openfold_csv()) == []
