"""Lines of other sources interleaved between a tool's own: a heading still heads what comes
right below it past them. Each excerpt is a tool's lines written from its format strings
(each names its source) with the interleaved lines as their own sources print them:

- Python's warnings (cpython ``Lib/warnings.py`` ``_formatwarnmsg_impl``:
  ``f"{msg.filename}:{msg.lineno}: {category}: {msg.message}\\n"`` then the source line,
  stripped, as ``"  %s\\n" % line``: ``  warnings.warn(``);
- c10's warnings (pytorch ``c10/util/Logging.cpp`` ``WarningHandler``'s stderr line
  ``[W reducer.cpp:1300] Warning: ...``);
- the Hugging Face ``Trainer._save`` (``src/transformers/trainer.py``:
  ``logger.info(f"Saving model checkpoint to {output_dir}")``);
- wandb's terminal output (``wandb/sdk/wandb_run.py``'s ``wandb: Syncing run {name}``,
  ``wandb: Run data is saved locally in {dir}``, behind ``wandb: ``).

The tools: corenet's epoch summaries (apple/corenet ``corenet/metrics/stats.py``
``Statistics.epoch_summary``: ``*** {stage} summary for epoch {e}`` logged, then the
``\\t loss=... || top1=...`` row printed, a second call), NequIP's batch tables
(mir-group/nequip ``nequip/train/trainer.py`` ``end_of_batch_log``: the split's name and the
``# Epoch batch`` header, two ``logger.info`` calls) and robomimic's epoch dicts
(ARISE-Initiative/robomimic ``robomimic/scripts/train.py``: ``print("Validation Epoch
{}".format(epoch))`` then ``print(json.dumps(step_log, sort_keys=True, indent=4))``). A line of
another source lands between two such calls, never inside one call's dict or row.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults
from test_left2_formats import _openpcdet_bars
from test_untried3_formats import _corenet as _corenet_run

# warnings.py formatwarning's two lines (torch's scheduler warning, a real message)
WARNING = ["/opt/conda/lib/python3.10/site-packages/torch/optim/lr_scheduler.py:139: "
           "UserWarning: Detected call of `lr_scheduler.step()` before `optimizer.step()`.",
           "  warnings.warn("]
# ... and one whose source line names a loss (torch/nn/modules/loss.py ``MSELoss.forward``
# warned through ``F.mse_loss``): the second line holds a keyword
MSE_WARNING = ["/opt/conda/lib/python3.10/site-packages/torch/nn/modules/loss.py:535: "
               "UserWarning: Using a target size (torch.Size([32])) that is different to the "
               "input size (torch.Size([32, 1])). This will likely lead to incorrect results "
               "due to broadcasting. Please ensure they have the same size.",
               "  return F.mse_loss(input, target, reduction=self.reduction)"]
C10 = ["[W reducer.cpp:1300] Warning: find_unused_parameters=True was specified in DDP "
       "constructor, but did not find any unused parameters in the forward pass. "
       "(function operator())"]
SAVER = ["Saving model checkpoint to /out/checkpoint-500"]  # HF Trainer._save
WANDB = ["wandb: Syncing run vivid-sun-12"]  # wandb's terminal output

# -- corenet: corenet/metrics/stats.py ----------------------------------------------------


def _corenet(noise: list[str], *, val_nan_from: int | None = None) -> list[str]:
    """corenet's rows and each epoch's summaries (test_untried3_formats' builder), ``noise``
    between each summary's heading and its row."""
    return _corenet_run(val_nan_from=val_nan_from, noise=noise)


def test_corenet_summary_heading_past_a_warning(tmp_path: Path) -> None:
    """Before: with a Python warning's two lines, a c10 warning or HF's checkpoint line
    between ``*** Validation summary for epoch 1`` and its ``\\t loss=nan || ...`` row, the
    row was read as a training row: a false AMP006 at 29 and 44, no AMP013. The heading
    heads the row past lines of another source (metric_reader ``right_below``)."""
    assert faults(tmp_path, _corenet([], val_nan_from=1)) == [("AMP013", 27)]
    for noise in (WARNING, MSE_WARNING, C10, SAVER):
        assert faults(tmp_path, _corenet(noise, val_nan_from=1)) == [("AMP013", 27)]


def test_corenet_interleaved_controls(tmp_path: Path) -> None:
    """Healthy runs with each source's lines between the headings and their rows (pass on
    the parent too)."""
    for noise in (WARNING, MSE_WARNING, C10, SAVER, WANDB):
        assert faults(tmp_path, _corenet(noise)) == []


# -- NequIP: nequip/train/trainer.py ------------------------------------------------------

_NEQUIP_KEYS = ("loss", "loss_f", "loss_e", "f_mae", "f_rmse", "e_mae", "e/N_mae")


def _nequip_batches(split: str, epoch: int, batches: int, bad: bool,
                    noise: list[str]) -> list[str]:
    """``end_of_batch_log``: the split's name, ``noise``, the header row ``"# Epoch batch"``
    plus ``f" {name:>12.12}"``, then ``f"  {iepoch+1:5d} {ibatch+1:5d}"`` and
    ``f" {value:12.3g}"`` each batch."""
    lines = ["", split, *noise,
             "# Epoch batch" + "".join(f" {key:>12.12}" for key in _NEQUIP_KEYS)]
    value = math.nan if bad else 0.5 / (epoch + 1)
    for batch in range(1, batches + 1):
        lines.append(f"  {epoch:5d} {batch:5d}" + f" {value:12.3g}" * len(_NEQUIP_KEYS))
    return lines


def _nequip(noise: list[str], val_nan_from: int | None = None) -> list[str]:
    """A NequIP run, five training batches and two validation batches an epoch, each epoch
    closed by ``end_of_epoch_log``'s ``! Train`` / ``! Validation`` rows."""
    header = "# " + " ".join(f"{s:>8s}" for s in ("Epoch", "wal", "LR")) + "".join(
        f" {key:>12.12}" for key in _NEQUIP_KEYS)
    lines = ["Torch device: cuda", "! Starting training ..."]
    for epoch in range(1, 13):
        bad = val_nan_from is not None and epoch >= val_nan_from
        lines += _nequip_batches("training", epoch, 5, False, noise)
        lines += _nequip_batches("validation", epoch, 2, bad, noise)
        row = f"{epoch:10d} {epoch * 1.5:8.3f} {0.005:8.3g}"
        lines += ["", "", "  Train      " + header,
                  "! Train      " + row + f" {0.5:12.3g}" * len(_NEQUIP_KEYS),
                  "! Validation " + row + f" {math.nan if bad else 0.5:12.3g}"
                  * len(_NEQUIP_KEYS), f"Wall time: {epoch * 1.5}"]
    return lines


def test_nequip_split_name_past_wandb(tmp_path: Path) -> None:
    """Before: with wandb's ``wandb: Syncing run ...`` (or a c10 warning) between the
    ``validation`` name and its table's header (or a Python warning, HF's checkpoint line),
    the table's rows were read as training's: the validation NaN of epoch 7 was a false
    AMP006 at 13, no AMP013. The name heads the table past lines of another source: AMP013
    at 35 as without them. A warning whose path names a loss (``.../loss.py:535:
    UserWarning: ...``) was read as a loss of 535 and broke the table too: the line is a
    warning's (noise_lines ``warning_line``)."""
    assert faults(tmp_path, _nequip([], 7)) == [("AMP013", 35)]
    for noise in (WANDB, C10, WARNING, MSE_WARNING, SAVER):
        assert faults(tmp_path, _nequip(noise, 7)) == [("AMP013", 35)]


def test_nequip_interleaved_controls(tmp_path: Path) -> None:
    """Healthy runs with each source's lines between the split names and their headers
    (pass on the parent too)."""
    for noise in (WARNING, MSE_WARNING, C10, SAVER, WANDB):
        assert faults(tmp_path, _nequip(noise)) == []


# -- robomimic: robomimic/scripts/train.py -------------------------------------------------


def _robomimic(noise: list[str], *, valid_nan_epoch: int | None = None) -> list[str]:
    """Each epoch: the tqdm bar, ``Train Epoch {}`` over ``json.dumps(step_log,
    sort_keys=True, indent=4)``, ``Validation Epoch {}``, ``noise``, its dict, then ``Epoch
    {} Memory Usage: {} MB``."""
    lines = ["", "============= Training Dataset =============", ""]
    for epoch in range(1, 8):
        log = {"Loss": 1 / epoch, "Optimizer/policy0_lr": 1e-4,
               "Policy_Grad_Norms": 12.3 / epoch, "Time_Data_Loading": 0.012,
               "Time_Epoch": 0.09, "Time_Train_Batch": 0.06, "L1_Loss": 0.1,
               "L2_Loss": 0.01, "Cosine_Loss": 0.0}
        bad = valid_nan_epoch is not None and epoch >= valid_nan_epoch
        valid = {"Loss": math.nan if bad else 1.1 / epoch, "Time_Epoch": 0.01}
        lines += ["100%|##########| 100/100 [00:05<00:00, 19.23it/s]", f"Train Epoch {epoch}",
                  *json.dumps(log, sort_keys=True, indent=4).splitlines(),
                  "100%|##########| 10/10 [00:00<00:00, 50.23it/s]",
                  f"Validation Epoch {epoch}", *noise,
                  *json.dumps(valid, sort_keys=True, indent=4).splitlines(),
                  "", f"Epoch {epoch} Memory Usage: 3000 MB", ""]
    return lines


def test_robomimic_validation_heading_past_a_warning(tmp_path: Path) -> None:
    """Before: with a Python warning's two lines (or a c10 warning, HF's checkpoint line,
    wandb's) between ``Validation Epoch 4`` and its dict, the dict was read as a training
    row: a NaN validation loss was a false AMP006 at 8. The heading heads the dict past
    lines of another source: AMP013 at the epoch."""
    assert faults(tmp_path, _robomimic([], valid_nan_epoch=4)) == [("AMP013", 4)]
    for noise in (WARNING, MSE_WARNING, C10, SAVER, WANDB):
        assert faults(tmp_path, _robomimic(noise, valid_nan_epoch=4)) == [("AMP013", 4)]


def test_robomimic_interleaved_controls(tmp_path: Path) -> None:
    """Healthy runs with each source's lines between the heading and its dict (pass on the
    parent too)."""
    for noise in (WARNING, MSE_WARNING, C10, SAVER, WANDB):
        assert faults(tmp_path, _robomimic(noise)) == []


# -- OpenPCDet: tools/train_utils/train_utils.py -------------------------------------------


def _openpcdet(noise: list[str], nan_at: int | None = None) -> list[str]:
    """OpenPCDet's two bars (test_left2_formats' builder, epochs 30 and 31, no timers),
    ``noise`` between them every 350 batches (a second process's stderr between two
    redraws)."""
    return _openpcdet_bars(nan_at, epochs=range(30, 32), timers=False, noise=noise)


def test_openpcdet_bar_count_past_a_warning(tmp_path: Path) -> None:
    """Before: with c10's warning (or a Python warning's two lines) between the ``train``
    bar's ``total_it=57080`` and the ``epochs`` bar whose loss went NaN, the NaN was
    reported one past the redraw before (AMP006 at 57031). The inner bar's count past lines of
    another source is the step (reader ``_step_past_noise``)."""
    assert faults(tmp_path, _openpcdet([], 57080)) == [("AMP006", 57080)]
    for noise in (C10, WARNING):
        assert faults(tmp_path, _openpcdet(noise, 57080)) == [("AMP006", 57080)]


def test_openpcdet_interleaved_controls(tmp_path: Path) -> None:
    """Healthy runs with each source's lines between the bars (pass on the parent too)."""
    for noise in (WARNING, MSE_WARNING, C10, SAVER, WANDB):
        assert faults(tmp_path, _openpcdet(noise)) == []
