"""Untried vision-language and multimodal trainers: excerpts written from each tool's own
format strings (each names its source), a fault beside healthy controls with non-default
settings.

Tried and already right before any change here (no test kept: the suite covers their layouts):
Prismatic VLMs' and OpenVLA's tqdm rows, the status as the bar's description (``=>> [Global
Step] {global_step:06d} =>> LR :: {lr:.6f} -- Loss :: {loss:.4f}`` and ``=>> [Epoch
{epoch:03d}] Global Step {global_step:06d} =>> LR :: {lr:.6f} - Loss :: {loss:.4f}``,
TRI-ML/prismatic-vlms ``prismatic/training/metrics.py`` ``get_status``, set by
``strategies/base_strategy.py``) and their JSONL tracker's records (``{"Finetune/Loss": NaN,
..., "Finetune/Step": 30, ...}``, ``JSONLinesTracker.write`` with ``sort_keys=True``; the
``VLA Train/...`` keys of ``VLAMetrics.push``); X-Decoder's and SEEM's trainer line
``epochs[     0] optim steps[1000] learning rate[default: 1.00000e-04] train loss[loss_mask_ce_0:
nan/nan, ...] ...`` (microsoft/X-Decoder ``trainer/default_trainer.py``); Open-GroundingDino's
DETR engine stopping on ``Loss is nan, stopping training`` after its MetricLogger rows (placed
one step after the last row); SAM-HQ within one epoch and its evaluation's ``Averaged stats:
val_iou_0: nan (nan)`` (AMP013, in evaluation); VideoChat2's MetricLogger behind its MMF
logger, per-media meters ``video-loss: nan`` and ``image-loss: No data`` (OpenGVLab/Ask-Anything
``video_chat2/utils/basic_utils.py``, ``utils/logger.py``, ``tasks/train_it.py``);
lightning-sam's ``Epoch: [2][50/200] | ... | Total Loss [nan (nan)]`` and its validation's
``Mean IoU: [nan]`` (AMP013; luca-medeiros/lightning-sam ``lightning_sam/train.py``); InternVL's
MPO rows, TRL's DPO keys in the HF Trainer's dict (``internvl_chat/internvl/train/
internvl_chat_mpo.py``). CogVLM trains with SAT, whose iteration line
test_untried11_formats.py's docstring records as right; LLaVA, ShareGPT4V, InternVL's chat
fine-tuning, Qwen-VL, mPLUG-Owl2 and Video-LLaVA train with the HF Trainer (under DeepSpeed),
MiniGPT-4 and LAVIS with the MetricLogger of test_post_formats.py, open_clip and
GroundingDINO and Mask2Former/OneFormer (detectron2) with layouts the suite holds. ImageBind's
repository has no training loop.

Missed before:
- open_flamingo's console line ``Step {num_steps+1}/{num_batches_per_epoch} of epoch
  {epoch+1}/{args.num_epochs} complete. Loss LAION: {loss_laion.item():.3f} // Loss MMC4:
  {loss_mmc4.item():.3f}`` (mlfoundations/open_flamingo ``open_flamingo/train/train_utils.py``
  ``train_one_epoch``): its losses are named by the loss noun and then the dataset's acronym,
  a two-word component whose last word the lexicon does not know, so neither was a key and the
  excerpt had "no training metric". Now a loss noun followed by an acronym is a loss of that
  data set, a component (``metric_pairs._loss_on_named_set``).
- SAM-HQ's ``train/train.py``: ``metric_logger.log_every(train_dataloaders, 1000)`` with no
  header prints ``  [1000/2501]  eta: ...  training_loss: ...`` (SysCV/sam-hq
  ``train/utils/misc.py``), its epoch only above on ``epoch:    1   learning rate:  ...``;
  a NaN in the second epoch was placed at the count within the epoch (1000, not 3501). Now a
  MetricLogger count that starts over with its total adds the passes before, as keyed counts
  of a total already did (``metric_reader._pass_step``).
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults


def _open_flamingo(epochs: int, *, per_epoch: int, every: int, nan_at: int | None = None,
                   mean: bool = False) -> list[str]:
    """open_flamingo's ``train_one_epoch`` console line (mlfoundations/open_flamingo
    ``open_flamingo/train/train_utils.py``), printed every ``args.logging_steps`` batches of
    each epoch, both data sets' losses ``{:.3f}``; ``mean`` adds the fork's ``// Mean Loss:``
    that averages them. Every loss NaN from the run's step ``nan_at`` on."""
    lines = []
    for epoch in range(epochs):
        for batch in range(every, per_epoch + 1, every):
            step = epoch * per_epoch + batch
            bad = nan_at is not None and step >= nan_at
            laion, mmc4 = 3.4 - step / 9000, 2.9 - step / 9000

            def shown(value: float, bad: bool = bad) -> str:
                return "nan" if bad else f"{value:.3f}"

            line = (f"Step {batch}/{per_epoch} of epoch {epoch + 1}/{epochs} complete. Loss "
                    f"LAION: {shown(laion)} // Loss MMC4: {shown(mmc4)}")
            lines.append(line + (f" // Mean Loss: {shown((laion + mmc4) / 2)}" if mean else ""))
    return lines


def test_open_flamingo_losses_named_by_their_data_sets(tmp_path: Path) -> None:
    """Before: "no training metric" (nothing to diagnose). Now AMP006 at the run's step: the
    counts of the epochs before and the batch."""
    assert faults(tmp_path, _open_flamingo(2, per_epoch=2000, every=100, nan_at=3500)) == [
        ("AMP006", 3500)]
    assert faults(tmp_path, _open_flamingo(3, per_epoch=1000, every=50, nan_at=2200,
                                           mean=True)) == [("AMP006", 2200)]


def test_open_flamingo_healthy_is_silent(tmp_path: Path) -> None:
    """Controls: three epochs logged every 50 batches, with and without the mean."""
    assert faults(tmp_path, _open_flamingo(3, per_epoch=1000, every=50)) == []
    assert faults(tmp_path, _open_flamingo(2, per_epoch=1500, every=25, mean=True)) == []


def _meter(value: float, bad: bool) -> str:
    """A ``SmoothedValue`` as SAM-HQ prints it: ``{median:.4f} ({global_avg:.4f})``."""
    return "nan (nan)" if bad else f"{value:.4f} ({value * 1.04:.4f})"


def _sam_hq(epochs: int, *, batches: int, every: int, nan_at: int | None = None) -> list[str]:
    """SAM-HQ's ``train`` (SysCV/sam-hq ``train/train.py``): each epoch ``print("epoch:   ",
    epoch, "  learning rate:  ", lr)``, then ``MetricLogger(delimiter="  ").log_every(loader,
    every)`` with no header (``train/utils/misc.py``: the count of the epoch's batches from 0
    and the last one, ``training_loss`` and the reduced ``loss_mask`` / ``loss_dice``), the
    ``Total time`` line, ``Finished epoch:``, the averaged stats, the validation's rows
    (header-less too) and stats. NaN from the run's batch ``nan_at`` (the epochs before counted
    ``batches`` each)."""
    lines = []
    for epoch in range(epochs):
        lines.append(f"epoch:    {epoch}   learning rate:   {5e-4 * 0.5 ** epoch}")
        shown = sorted({*range(0, batches, every), batches - 1})
        for batch in shown:
            bad = nan_at is not None and epoch * batches + batch >= nan_at
            mask, dice = 0.11 - epoch * 0.01, 0.26 - batch / 1e5
            lines.append(
                f"  [{batch:{len(str(batches))}d}/{batches}]  eta: 0:{(batches - batch) // 60:02d}"
                f":00  training_loss: {_meter(mask + dice, bad)}  loss_mask: {_meter(mask, bad)}"
                f"  loss_dice: {_meter(dice, bad)}  time: 0.4812  data: 0.0210  max mem: 11874")
        lines += [" Total time: 0:20:03 (0.4812 s / it)", f"Finished epoch:       {epoch}",
                  "Averaged stats: training_loss: 0.3500 (0.3500)  loss_mask: 0.1000 (0.1000)  "
                  "loss_dice: 0.2500 (0.2500)", "Validating...", "valid_dataloader len: 400"]
        # the validation's own header-less log_every(valid_dataloader, 1000): its count
        # starts over each epoch too, with a total of its own
        lines += [f"  [{batch:3d}/400]  eta: 0:00:{40 - batch // 10:02d}  val_iou_0: "
                  f"{_meter(0.8812, False)}  val_boundary_iou_0: {_meter(0.7710, False)}  time: "
                  "0.1000  data: 0.0100  max mem: 11874" for batch in (0, 399)]
        lines += [" Total time: 0:00:40 (0.1000 s / it)", "============================",
                  "Averaged stats: val_iou_0: 0.8812 (0.8812)  val_boundary_iou_0: 0.7710 "
                  "(0.7710)"]
    return lines


def test_sam_hq_nan_in_a_later_epoch_at_the_runs_step(tmp_path: Path) -> None:
    """Before: AMP006 at 1000 (the count within the second epoch). Now 3501, and 5400 in the
    third epoch of a loader of 2000 batches printed every 200."""
    assert faults(tmp_path, _sam_hq(2, batches=2501, every=250, nan_at=3501)) == [
        ("AMP006", 3501)]
    assert faults(tmp_path, _sam_hq(3, batches=2000, every=200, nan_at=5400)) == [
        ("AMP006", 5400)]


def test_sam_hq_healthy_is_silent(tmp_path: Path) -> None:
    """Controls: three epochs printed every 250 and every 100 batches."""
    assert faults(tmp_path, _sam_hq(3, batches=2501, every=250)) == []
    assert faults(tmp_path, _sam_hq(2, batches=900, every=100)) == []
