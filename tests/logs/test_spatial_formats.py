"""3D vision, video, robotics and segmentation trainers: excerpts written from each tool's own
format strings (each test names its source), a fault at a known step beside healthy controls.

- 3D Gaussian Splatting's tqdm bar and its evaluation line (graphdeco-inria/gaussian-splatting
  ``train.py``): ``Training progress:  23%|... | 7000/30000 [..., Loss=0.0512345]`` and
  ``[ITER 7000] Evaluating test: L1 {} PSNR {}``;
- SlowFast's ``json_stats: {...}`` lines (facebookresearch/SlowFast ``slowfast/utils/
  logging.py`` ``log_json_stats``, ``slowfast/utils/meters.py`` ``TrainMeter``) and its
  ``RuntimeError: ERROR: Got NaN losses`` (``slowfast/utils/misc.py`` ``check_nan_losses``);
- LeRobot's MetricsTracker line (huggingface/lerobot ``lerobot/common/utils/logging_utils.py``
  ``MetricsTracker.__str__``: ``step:3K smpl:21K ep:52 epch:1.04 loss:... grdn:... lr:...``);
- OpenPCDet's logger line (open-mmlab/OpenPCDet ``tools/train_utils/train_utils.py``
  ``train_one_epoch``: ``Train:    2/80 (  2%) [ 600/1856 ( 32%)]  Loss: ...  Acc_iter ...``);
- robomimic's ``Train Epoch {}`` / ``Validation Epoch {}`` over ``json.dumps(step_log,
  sort_keys=True, indent=4)`` (ARISE-Initiative/robomimic ``robomimic/scripts/train.py``);
- SAM 2's ProgressMeter and its ``Loss is nan, attempting to stop training``
  (facebookresearch/sam2 ``training/trainer.py``, ``training/utils/train_utils.py``);
- Depth Anything V2's ``Iter: {}/{}, LR: ..., Loss: ...`` under its ``===========> Epoch``
  line (DepthAnything/Depth-Anything-V2 ``metric_depth/train.py``);
- Open3D-ML's ``Loss train: {:.3f}  eval: {:.3f}`` (isl-org/Open3D-ML
  ``ml3d/torch/pipelines/semantic_segmentation.py`` ``save_logs``);
- mmagic's validation line through mmengine (``mmengine/runner/log_processor.py``:
  ``Iter(val) [100/100]    Set5/PSNR: ...``);
- controls: diffusion_policy's bar and ``logs.json.txt`` (real-stanford/diffusion_policy
  ``diffusion_policy/workspace/train_diffusion_unet_image_workspace.py``), nerfstudio's
  LocalWriter table (``nerfstudio/utils/writer.py``), DUSt3R's MetricLogger
  (naver/dust3r ``dust3r/training.py``), gsplat's bar (nerfstudio-project/gsplat
  ``examples/simple_trainer.py``), Pointcept's ``Train: [e/E][i/N]`` line
  (Pointcept/Pointcept ``pointcept/engines/hooks/misc.py``).

Each fault test failed on the parent commit (c9ca303) unless its docstring says it is a
control that passes there too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from excerpts import faults, lerobot_number

from denpex_callbacks.logs.doctor import diagnose

# -- 3D Gaussian Splatting: graphdeco-inria/gaussian-splatting train.py ------------------------


def _splatting(nan_from: int | None = None, *, depth: bool = False,
               eval_nan: bool = False) -> list[str]:
    """``progress_bar.set_postfix({"Loss": f"{ema_loss_for_log:.{7}f}"})`` every 10
    iterations (with ``"Depth Loss"`` where depth regularisation is on), and at the test
    iterations ``training_report``'s ``print("\\n[ITER {}] Evaluating {}: L1 {} PSNR
    {}".format(iteration, config['name'], l1_test, psnr_test))`` for the test and train views,
    then ``[ITER {}] Saving Gaussians``."""
    lines = ["Optimizing output/garden", "Output folder: output/garden [01/06 10:00:00]",
             "Reading camera 185/185 [01/06 10:00:01]",
             "Number of points at initialisation :  138766 [01/06 10:00:03]",
             "Training progress:   0%|          | 0/30000 [00:00<?, ?it/s]"]
    for it in range(10, 9001, 10):
        loss = "nan" if nan_from is not None and it >= nan_from else f"{0.2 - it / 1e6:.7f}"
        postfix = f"Loss={loss}" + (f", Depth Loss={0.0012:.7f}" if depth else "")
        lines.append(f"Training progress:  {100 * it // 30000:>2}%|##        | {it}/30000 "
                     f"[02:10<07:08, 53.67it/s, {postfix}]")
        if it == 7000:
            l1, psnr = ("nan", "nan") if eval_nan else ("0.0312", "27.12")
            lines += ["", f"[ITER 7000] Evaluating test: L1 {l1} PSNR {psnr}", "",
                      "[ITER 7000] Evaluating train: L1 0.0291 PSNR 28.33", "",
                      "[ITER 7000] Saving Gaussians"]
    return lines


def test_splatting_evaluation_scores_without_known_names(tmp_path: Path) -> None:
    """Before: ``L1 nan PSNR nan`` on the evaluation line: neither key is one the lexicon
    names, so nothing was read (nothing to diagnose). The bar's NaN was already read."""
    assert faults(tmp_path, _splatting(eval_nan=True)) == [("AMP013", 7000)]
    assert faults(tmp_path, _splatting(5000, depth=True)) == [("AMP006", 5000)]


def test_splatting_controls(tmp_path: Path) -> None:
    """Healthy runs, with and without the depth loss (pass on the parent too); a PSNR of
    +inf (identical images) is no fault."""
    assert faults(tmp_path, _splatting()) == []
    assert faults(tmp_path, _splatting(depth=True)) == []
    perfect = [line.replace("PSNR 27.12", "PSNR inf") for line in _splatting()]
    assert faults(tmp_path, perfect) == []


# -- SlowFast: slowfast/utils/logging.py, meters.py, misc.py -----------------------------------


def _slowfast_prefix(message: str, line: int = 105) -> str:
    """``setup_logging``'s ``"[%(asctime)s][%(levelname)s] %(filename)s: %(lineno)3d:
    %(message)s"``, ``datefmt="%m/%d %H:%M:%S"``."""
    return f"[06/01 10:00:00][INFO] logging.py: {line:3d}: {message}"


def _slowfast(nan_at: tuple[int, int] | None = None, *, raises: bool = True,
              multi_label: bool = False) -> list[str]:
    """``logger.info("json_stats: {:s}".format(simplejson.dumps(stats, sort_keys=True,
    use_decimal=True)))``, floats as ``Decimal("{:.5f}")`` (NaN as ``NaN``): the train
    iteration's ``"epoch": "2/200"``, ``"iter": "100/196"`` (both counted from 1), every 20
    iterations (LOG_PERIOD); ``check_nan_losses`` raises before a NaN iteration's line."""
    lines = [_slowfast_prefix("Start epoch: 1", 533)]
    for epoch in range(1, 4):
        for it in range(20, 197, 20):
            bad = nan_at is not None and (epoch, it) >= nan_at
            if bad and raises:
                return [
                    *lines, "Traceback (most recent call last):",
                    '  File "/slowfast/tools/train_net.py", line 100, in train_epoch',
                    "    misc.check_nan_losses(loss)",
                    '  File "/slowfast/slowfast/utils/misc.py", line 34, in check_nan_losses',
                    '    raise RuntimeError("ERROR: Got NaN losses {}".format(datetime.now()))',
                    "RuntimeError: ERROR: Got NaN losses 2024-06-01 10:13:23.613248"]
            stats: dict[str, object] = {
                "_type": "train_iter", "dt": 0.41, "dt_data": 0.002, "dt_net": 0.4,
                "epoch": f"{epoch}/200", "eta": "1 day, 2:00:00", "gpu_mem": "7.12G",
                "iter": f"{it}/196", "loss": math.nan if bad else round(2.3 - epoch / 10, 5),
                "lr": 0.1}
            if not multi_label:
                stats.update(top1_err=math.nan if bad else 70.3, top5_err=40.2)
            lines.append(_slowfast_prefix("json_stats: " + json.dumps(stats, sort_keys=True)))
        epoch_stats = {"RAM": "20.1/250.0G", "_type": "train_epoch", "epoch": f"{epoch}/200",
                       "gpu_mem": "7.12G", "loss": 2.1, "lr": 0.1}
        lines.append(_slowfast_prefix("json_stats: " + json.dumps(epoch_stats, sort_keys=True)))
        lines.append(_slowfast_prefix(f"Start epoch: {epoch + 1}", 533))
    return lines


def test_slowfast_iter_of_epoch_and_its_nan_error(tmp_path: Path) -> None:
    """Before: the quoted ``"iter": "100/196"`` was not read as the batch of the epoch that
    ``"epoch": "2/200"`` names (the NaN at epoch 2, iteration 100, step 196 + 100 = 296, was
    reported at 280, the rows' count times their interval); ``RuntimeError: ERROR: Got NaN
    losses ...`` was no message the doctor knew (nothing to diagnose). That error comes
    before its iteration's line: the step after the last one read (epoch 2, iteration 80)."""
    assert faults(tmp_path, _slowfast((2, 100), raises=False)) == [("AMP006", 296)]
    assert faults(tmp_path, _slowfast((2, 100))) == [("AMP006", 277)]


def test_slowfast_controls(tmp_path: Path) -> None:
    """Healthy runs, single- and multi-label (pass on the parent too)."""
    assert faults(tmp_path, _slowfast()) == []
    assert faults(tmp_path, _slowfast(multi_label=True)) == []


# -- LeRobot: lerobot/common/utils/logging_utils.py (MetricsTracker) ---------------------------


def _lerobot(nan_from: int | None = None, *, steps: int = 4000, every: int = 200,
             batch: int = 8) -> list[str]:
    """``logging.info(train_tracker)`` every ``log_freq`` steps (200 by default) through
    ``init_logging``'s ``f"{record.levelname} {dt} {fnameline[-15:]:>15} {record.msg}"``:
    ``step:{format_big_number(steps)} smpl:... ep:... epch:{epochs:.2f}`` then the meters
    ``loss:{:.3f} grdn:{:.3f} lr:{:0.1e} updt_s:{:.3f} data_s:{:.3f}``."""
    lines = ["INFO 2024-06-01 10:00:00 ts/train.py:120 Creating dataset",
             "INFO 2024-06-01 10:00:02 ts/train.py:160 Start offline training on a fixed dataset"]
    for step in range(every, steps + 1, every):
        bad = nan_from is not None and step >= nan_from
        loss, grdn = ("nan", "nan") if bad else (f"{5 / (1 + step / 500):.3f}",
                                                 f"{40 / (1 + step / 1000):.3f}")
        samples = step * batch
        lines.append(f"INFO 2024-06-01 10:00:00 ts/train.py:232 step:{lerobot_number(step)} "
                     f"smpl:{lerobot_number(samples)} ep:{lerobot_number(samples / 400)} "
                     f"epch:{samples / 20000:.2f} loss:{loss} grdn:{grdn} lr:{1e-5:0.1e} "
                     "updt_s:0.112 data_s:0.003")
    return lines


def test_lerobot_abbreviated_step_counter(tmp_path: Path) -> None:
    """Before: ``step:3K`` (2600 rounded by ``format_big_number``) was no number: the rows
    after ``step:800`` were counted one step each (the NaN at 2600 reported at 809)."""
    assert faults(tmp_path, _lerobot(2600, steps=30000)) == [("AMP006", 2600)]
    assert faults(tmp_path, _lerobot(600)) == [("AMP006", 600)]


def test_lerobot_controls(tmp_path: Path) -> None:
    """Healthy runs, the default interval and ``--log_freq=100`` (pass on the parent too)."""
    assert faults(tmp_path, _lerobot()) == []
    assert faults(tmp_path, _lerobot(steps=30000, every=100)) == []


# -- OpenPCDet: tools/train_utils/train_utils.py (train_one_epoch) ----------------------------


def _openpcdet(nan_at: tuple[int, int] | None = None, *, epochs: range = range(3),
               batches: int = 1856, every: int = 50) -> list[str]:
    """``logger.info('Train: {:>4d}/{} ({:>3.0f}%) [{:>4d}/{} ({:>3.0f}%)]  Loss:
    {loss.val:#.4g} ({loss.avg:#.3g})  LR: {lr:.3e}  Time cost: ...  Acc_iter
    {acc_iter:<10d}  Data time: ...')`` every ``logger_iter_interval`` (50) iterations and at
    an epoch's last, through ``create_logger``'s ``'%(asctime)s  %(levelname)5s
    %(message)s'``; ``accumulated_iter`` counts the run's iterations (a resumed run's too)."""
    lines = ["2024-06-01 10:00:00,000   INFO  **********************Start training "
             "cfgs/kitti_models/pv_rcnn(default)**********************"]
    done = epochs.start * batches
    for epoch in epochs:
        for it in range(batches):
            done += 1
            if it % every and it != batches - 1:
                continue
            bad = nan_at is not None and (epoch, it) >= nan_at
            value = math.nan if bad else 3.0 - epoch / 5 - it / 1e4
            lines.append(
                f"2024-06-01 10:00:00,000   INFO  Train: {epoch + 1:>4d}/80 "
                f"({100 * (epoch + 1) / 80:>3.0f}%) [{it:>4d}/{batches} "
                f"({100 * it / batches:>3.0f}%)]  Loss: {value:#.4g} ({value:#.3g})  "
                f"LR: {3e-3:.3e}  Time cost: 00:10/05:00 [01:00:00/10:00:00]  "
                f"Acc_iter {done:<10d}  Data time: 0.01(0.02)  Forward time: 0.50(0.52)  "
                "Batch time: 0.51(0.54)")
    return lines


def test_openpcdet_accumulated_iterations_are_the_step(tmp_path: Path) -> None:
    """Before: ``Acc_iter`` was no step key: the step came from the epoch's bracket counts
    (the NaN at epoch 2, iteration 600, ``Acc_iter 2457``, reported at 4002)."""
    assert faults(tmp_path, _openpcdet((1, 600))) == [("AMP006", 2457)]
    resumed = _openpcdet((31, 600), epochs=range(30, 32))
    assert faults(tmp_path, resumed) == [("AMP006", 30 * 1856 + 1856 + 601)]


def test_openpcdet_controls(tmp_path: Path) -> None:
    """Healthy runs, from the start and resumed (pass on the parent too)."""
    assert faults(tmp_path, _openpcdet()) == []
    assert faults(tmp_path, _openpcdet(epochs=range(30, 32), every=20)) == []


# -- robomimic: robomimic/scripts/train.py ----------------------------------------------------


def _robomimic(nan_epoch: int | None = None, *, valid_nan_epoch: int | None = None,
               validate: bool = True, gmm: bool = False) -> list[str]:
    """Each epoch: ``TrainUtils.run_epoch``'s tqdm bar, ``print("Train Epoch
    {}".format(epoch))``, ``print(json.dumps(step_log, sort_keys=True, indent=4))`` (NaN as
    ``NaN``), and with ``config.experiment.validate`` the same for ``Validation Epoch {}``;
    then ``Epoch {} Memory Usage: {} MB``. BC's keys (``L1_Loss``, ``L2_Loss``,
    ``Cosine_Loss``) or BC-GMM's (``Log_Likelihood``)."""
    lines = ["", "============= Training Dataset =============", "SequenceDataset (",
             "\tpath=datasets/lift/ph/low_dim.hdf5", ")", ""]
    for epoch in range(1, 8):
        bad = nan_epoch is not None and epoch >= nan_epoch
        log: dict[str, float] = {
            "Loss": math.nan if bad else 1 / epoch, "Optimizer/policy0_lr": 1e-4,
            "Policy_Grad_Norms": math.nan if bad else 12.3 / epoch,
            "Time_Data_Loading": 0.012, "Time_Epoch": 0.09, "Time_Train_Batch": 0.06}
        if gmm:
            log["Log_Likelihood"] = -log["Loss"]
        else:
            log.update(L1_Loss=0.1, L2_Loss=0.01, Cosine_Loss=0.0)
        lines += ["100%|##########| 100/100 [00:05<00:00, 19.23it/s]", f"Train Epoch {epoch}",
                  *json.dumps(log, sort_keys=True, indent=4).splitlines()]
        if validate:
            valid_bad = valid_nan_epoch is not None and epoch >= valid_nan_epoch
            valid = {"Loss": math.nan if valid_bad else 1.1 / epoch, "Time_Epoch": 0.01}
            lines += ["100%|##########| 10/10 [00:00<00:00, 50.23it/s]",
                      f"Validation Epoch {epoch}",
                      *json.dumps(valid, sort_keys=True, indent=4).splitlines()]
        lines += ["", f"Epoch {epoch} Memory Usage: 3000 MB", ""]
    return lines


def test_robomimic_validation_dict_is_evaluation(tmp_path: Path) -> None:
    """Before: the dict under ``Validation Epoch 4`` was read as a training row (each epoch
    two rows: the training NaN of epoch 4 reported at 7, the validation NaN as AMP006 at
    8). The rows are one an epoch: the step is the epoch."""
    assert faults(tmp_path, _robomimic(4)) == [("AMP006", 4)]
    assert faults(tmp_path, _robomimic(valid_nan_epoch=4)) == [("AMP013", 4)]


def test_robomimic_controls(tmp_path: Path) -> None:
    """Healthy runs, BC with validation and BC-GMM without (pass on the parent too); BC-GMM's
    NaN without validation was right before too."""
    assert faults(tmp_path, _robomimic()) == []
    assert faults(tmp_path, _robomimic(gmm=True, validate=False)) == []
    assert faults(tmp_path, _robomimic(4, gmm=True, validate=False)) == [("AMP006", 4)]


# -- SAM 2: training/trainer.py, training/utils/train_utils.py ---------------------------------


def _sam2(nan_at: tuple[int, int] | None = None, *, batches: int = 160,
          every: int = 10) -> list[str]:
    """``ProgressMeter.display``: ``logging.info(" | ".join(entries))``, the prefix
    ``"Train Epoch: [{}]".format(self.epoch)`` (from 0) and ``[{:3d}/160]``, the meters
    ``{name}: {val:.2e} ({avg:.2e})``; ``_run_step`` logs ``Loss is {loss.item()},
    attempting to stop training`` and raises ``FloatingPointError`` before the meter sees a
    non-finite loss. The epoch ends with ``Losses and meters: {...}``."""
    def prefix(level: str, where: str, message: str) -> str:
        return f"{level} 2024-08-01 10:00:00,123 {where}: {message}"
    lines = [prefix("INFO", "trainer.py: 330", "Finished setting up components: Model, loss, "
                    "optim, meters etc.")]
    for epoch in range(3):
        for it in range(0, batches, every):
            if nan_at is not None and (epoch, it) >= nan_at:
                message = "Loss is nan, attempting to stop training"
                return [*lines, prefix("ERROR", "trainer.py: 524", message),
                        "Traceback (most recent call last):", f"FloatingPointError: {message}"]
            value = 2.0 - epoch / 10 - it / 1e4
            lines.append(prefix(
                "INFO", "train_utils.py: 271",
                f"Train Epoch: [{epoch}][{it:3d}/{batches}] | Batch Time: 1.23 (1.30) | Data "
                "Time: 0.01 (0.02) | Mem (GB): 12.00 (12.00/13.00) | Time Elapsed: 00d 01h "
                f"02m | Losses/train_all_loss: {value:.2e} ({value + 0.05:.2e})"))
        lines.append(prefix("INFO", "trainer.py: 640", "Losses and meters: {'Losses/train_"
                            "all_loss': 1.2, 'Losses/train_all_loss_mask': 0.01, "
                            f"'Trainer/where': 0.05, 'Trainer/epoch': {epoch}, "
                            f"'Trainer/steps_train': {(epoch + 1) * batches}}}"))
    return lines


def test_sam2_controls(tmp_path: Path) -> None:
    """SAM 2's NaN (the error line after epoch 2's iteration 40: step 2 * 160 + 41) and
    healthy runs at two logging intervals: right on the parent too."""
    assert faults(tmp_path, _sam2((2, 47))) == [("AMP006", 361)]
    assert faults(tmp_path, _sam2()) == []
    assert faults(tmp_path, _sam2(every=50)) == []


# -- Depth Anything V2: metric_depth/train.py, metric_depth/util/utils.py (init_log) ------------


def _depth_anything(nan_at: tuple[int, int] | None = None, *, batches: int = 2000,
                    every: int = 100, epochs: int = 3) -> list[str]:
    """``init_log``'s ``[%(asctime)s][%(levelname)8s] %(message)s``; each epoch (from 0)
    opens with ``===========> Epoch: {:}/{:}, d1: {:.3f}, ...`` (the best scores so far),
    then ``Iter: {}/{}, LR: {:.7f}, Loss: {:.3f}`` every 100 batches of the epoch (``i`` of
    ``len(trainloader)``; the script's own step is ``epoch * len(trainloader) + i``), then
    the validation's table of ``d1, d2, d3, abs_rel, ...``."""
    def log(message: str) -> str:
        return f"[2024-06-01 10:00:00,000][    INFO] {message}"
    names = ("d1", "d2", "d3", "abs_rel", "sq_rel", "rmse", "rmse_log", "log10", "silog")
    scores = (0.9, 0.97, 0.99, 0.1, 0.05, 0.4, 0.12, 0.04, 9.1)
    lines = []
    for epoch in range(epochs):
        lines += [log(f"===========> Epoch: {epoch}/40, d1: 0.900, d2: 0.970, d3: 0.990"),
                  log(f"===========> Epoch: {epoch}/40, abs_rel: 0.100, sq_rel: 0.050, rmse: "
                      "0.400, rmse_log: 0.120, log10: 0.040, silog: 9.100")]
        for i in range(0, batches, every):
            bad = nan_at is not None and (epoch, i) >= nan_at
            loss = math.nan if bad else 0.2 - epoch / 100
            lines.append(log(f"Iter: {i}/{batches}, LR: {5e-6:.7f}, Loss: {loss:.3f}"))
        lines += [log("=" * 90), log(", ".join(f"{name:>8}" for name in names)),
                  log(", ".join(f"{score:8.3f}" for score in scores)), log("=" * 90), ""]
    return lines


def test_depth_anything_iterations_of_each_epoch(tmp_path: Path) -> None:
    """Before: ``Iter: 700/2000`` counts the batches of epoch 1 (its epoch on a line above):
    the count going back to 0 was read as a restarted run (the NaN at 1 * 2000 + 700 = 2700
    reported at 700)."""
    assert faults(tmp_path, _depth_anything((1, 700))) == [("AMP006", 2700)]


def test_depth_anything_controls(tmp_path: Path) -> None:
    """Healthy runs at two printing intervals (pass on the parent too)."""
    assert faults(tmp_path, _depth_anything()) == []
    assert faults(tmp_path, _depth_anything(every=10, epochs=1)) == []


# -- diffusion_policy (real-stanford): diffusion_policy/workspace/train_*_workspace.py ---------


def _diffusion_policy_bars(nan_at: tuple[int, int] | None = None, *, batches: int = 168,
                           every: int = 8) -> list[str]:
    """``tqdm.tqdm(train_dataloader, desc=f"Training epoch {self.epoch}", leave=False,
    mininterval=cfg.training.tqdm_interval_sec)`` with ``tepoch.set_postfix(loss=raw_loss_cpu,
    refresh=False)``: the epoch from 0, the bar counting its batches."""
    lines = ["[2024-06-01 10:00:00,000][diffusion_policy.workspace][INFO] - Saving to outputs"]
    for epoch in range(4):
        for n in range(every, batches + 1, every):
            bad = nan_at is not None and (epoch, n) >= nan_at
            loss = "nan" if bad else f"{0.9 / (1 + epoch + n / batches):.3g}"
            lines.append(f"Training epoch {epoch}:  {100 * n // batches:>2}%|####5     | "
                         f"{n}/{batches} [00:05<00:06,  8.50it/s, loss={loss}]")
    return lines


def _diffusion_policy_json(nan_step: int | None = None, *, valid_nan: bool = False,
                           steps: int = 2000, batches: int = 168) -> list[str]:
    """``JsonLogger.log(step_log)`` (``logs.json.txt``): ``train_loss``, ``global_step``,
    ``epoch``, ``lr`` each step; ``val_loss`` and ``train_action_mse_error`` on an epoch's
    last step."""
    lines = []
    for step in range(steps):
        log: dict[str, float] = {
            "train_loss": math.nan if nan_step is not None and step >= nan_step else 0.5,
            "global_step": step, "epoch": step // batches, "lr": 1e-4}
        if (step + 1) % batches == 0:
            log.update(val_loss=math.nan if valid_nan and step // batches >= 5 else 0.05,
                       train_action_mse_error=0.01)
        lines.append(json.dumps(log))
    return lines


def test_diffusion_policy_controls(tmp_path: Path) -> None:
    """The bar's NaN (epoch 2, batch 80: 2 * 168 + 80), the JSON log's NaN and validation
    NaN (epoch 5's last step, 6 * 168 - 1) and healthy runs: right on the parent too."""
    assert faults(tmp_path, _diffusion_policy_bars((2, 80))) == [("AMP006", 416)]
    assert faults(tmp_path, _diffusion_policy_bars()) == []
    assert faults(tmp_path, _diffusion_policy_bars(every=1)) == []
    assert faults(tmp_path, _diffusion_policy_json(900)) == [("AMP006", 900)]
    assert faults(tmp_path, _diffusion_policy_json(valid_nan=True)) == [("AMP013", 1007)]
    assert faults(tmp_path, _diffusion_policy_json()) == []


# -- nerfstudio: nerfstudio/utils/writer.py (LocalWriter) ---------------------------------------


def _nerfstudio_time(seconds: float) -> str:
    """``_format_time``: ``{m} m, {s} s``, ``{s} s, {ms:0.3f} ms`` or ``{ms:0.3f} ms``."""
    whole = int(seconds)
    minutes, rest = divmod(whole, 60)
    if minutes:
        return f"{minutes} m, {rest} s"
    return f"{rest} s, {seconds % 1 * 1e3:0.3f} ms" if rest else f"{seconds * 1e3:0.3f} ms"


def test_nerfstudio_console_table_is_no_metric(tmp_path: Path) -> None:
    """The LocalWriter's table (``f"{'Step (% Done)':<20}"`` then the tracked stats, each
    ``f"{name:<20} "``; rows ``f"{step} ({fraction_done*100:.02f}%)"``): times and rays per
    second, no loss (the losses go to TensorBoard or W&B only): nothing to diagnose, no false
    alarm (passes on the parent too)."""
    names = ("Train Iter (time)", "ETA (time)", "Train Rays / Sec")
    header = f"{'Step (% Done)':<20}" + "".join(f"{name:<20} " for name in names)
    lines = ["[10:00:00] Saving config to: outputs/poster/nerfacto/config.yml",
             "Printing max of 10 lines. Set flag --logging.local-writer.max-log-size=0 to "
             "disable line wrapping.", header, "-" * len(header)]
    for step in range(100, 3001, 100):
        lines.append(f"{f'{step} ({step / 30000 * 100:.02f}%)':<20}"
                     f"{_nerfstudio_time(0.045123):<20} "
                     f"{_nerfstudio_time((30000 - step) * 0.045):<20} {'91.47 K':<20} ")
    path = tmp_path / "excerpt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    error = diagnose(str(path)).error
    assert error is not None and "nothing to diagnose" in error, error


# -- DUSt3R: dust3r/training.py (train_one_epoch, test_one_epoch), croco's MetricLogger ---------


def _dust3r(stop_at: tuple[int, int] | None = None) -> list[str]:
    """``metric_logger.log_every(data_loader, args.print_freq, header)`` with ``header =
    'Epoch: [{}]'.format(epoch)`` (from 0), the meters ``epoch``, ``lr``, ``loss`` and the
    criterion's details; ``Loss is {}, stopping training`` then ``sys.exit(1)`` before a
    non-finite step; ``Test Epoch: [{}]`` over the test set after each epoch."""
    lines = ["output_dir: checkpoints/dust3r_demo", "Start training for 10 epochs"]
    for epoch in range(3):
        for i in range(0, 1000, 100):
            if stop_at is not None and (epoch, i) >= stop_at:
                return [*lines, "Loss is nan, stopping training"]
            lines.append(f"Epoch: [{epoch}]  [{i:>4}/1000]  eta: 0:10:00  epoch: "
                         f"{epoch + i / 1000:.4f} ({epoch + 0.05:.4f})  lr: 0.000100 (0.000100)"
                         f"  loss: {1.2 - epoch / 10:.4f} ({1.25 - epoch / 10:.4f})  "
                         "Regr3D_pts3d_1: 0.6012 (0.6100)  time: 0.5310  data: 0.0101  "
                         "max mem: 20123")
        lines += [f"Epoch: [{epoch}] Total time: 0:08:20 (0.5000 s / it)",
                  "Averaged stats: epoch: 0.5 (0.5)  lr: 0.000100  loss: 1.1 (1.1)"]
        lines += [f"Test Epoch: [{epoch}]  [{i:>3}/100]  eta: 0:00:10  loss: 0.9000 (0.9000)"
                  "  Regr3D_ScaleShiftInv_pts3d_1: 0.45 (0.45)  time: 0.2  data: 0.01  max "
                  "mem: 20123" for i in range(0, 100, 20)]
        lines += [f"Test Epoch: [{epoch}] Total time: 0:00:20 (0.2000 s / it)",
                  "Averaged stats: loss: 0.9000 (0.9000)"]
    return lines


def test_dust3r_controls(tmp_path: Path) -> None:
    """DUSt3R's stop before the NaN step (epoch 1, batch 500: after 1 * 1000 + 400) and a
    healthy run with its test epochs: right on the parent too."""
    assert faults(tmp_path, _dust3r((1, 500))) == [("AMP006", 1401)]
    assert faults(tmp_path, _dust3r()) == []


# -- Open3D-ML: ml3d/torch/pipelines/semantic_segmentation.py (run_train, save_logs) ------------


def _open3d_ml(nan_epoch: int | None = None, *, valid_nan_epoch: int | None = None) -> list[str]:
    """``log.info(f'=== EPOCH {epoch:d}/{cfg.max_epoch:d} ===')`` (from 0), the training and
    validation bars, then ``save_logs``: ``log.info(f"Loss train: {loss_dict['Training
    loss']:.3f} " f" eval: {loss_dict['Validation loss']:.3f}")``, ``Mean acc train: ...
    eval: ...``, ``Mean IoU train: ... eval: ...``; logging's ``%(levelname)s -
    %(asctime)s - %(module)s - %(message)s``."""
    def log(message: str) -> str:
        return f"INFO - 2024-06-01 10:00:00,000 - semantic_segmentation - {message}"
    lines = [log("Started training")]
    for epoch in range(8):
        train_bad = nan_epoch is not None and epoch >= nan_epoch
        valid_bad = train_bad or (valid_nan_epoch is not None and epoch >= valid_nan_epoch)
        train = math.nan if train_bad else 0.5 - epoch / 100
        valid = math.nan if valid_bad else 0.6 - epoch / 100
        lines += [log(f"=== EPOCH {epoch:d}/100 ==="),
                  "training: 100%|##########| 1136/1136 [10:00<00:00,  1.89it/s]",
                  "validation: 100%|##########| 200/200 [01:00<00:00,  3.33it/s]",
                  log(f"Loss train: {train:.3f}  eval: {valid:.3f}"),
                  log("Mean acc train: 0.800  eval: 0.780"),
                  log("Mean IoU train: 0.600  eval: 0.550")]
    return lines


def test_open3d_ml_loss_train_beside_its_eval(tmp_path: Path) -> None:
    """Before: ``Loss train: nan  eval: nan`` was read as an evaluation line (the word
    ``eval``; the split after the noun was no training key): AMP013 without a step, and a
    healthy run was nothing to diagnose; the bare ``eval:`` keyed no score. The rows print no
    step: the epoch of the ``=== EPOCH 5/100 ===`` heading above them numbers them (5, as
    printed; the rows were counted, 6, before h43-left read the heading)."""
    assert faults(tmp_path, _open3d_ml(5)) == [("AMP006", 5), ("AMP013", 5)]
    assert faults(tmp_path, _open3d_ml(valid_nan_epoch=5)) == [("AMP013", 5)]
    assert faults(tmp_path, _open3d_ml()) == []


# -- gsplat: examples/simple_trainer.py ----------------------------------------------------------


def _gsplat(nan_from: int | None = None) -> list[str]:
    """``pbar = tqdm.trange(init_step, max_steps)`` with ``pbar.set_description(desc)``,
    ``desc = f"loss={loss.item():.3f}| " f"sh degree={sh_degree_to_use}| "``: the loss in
    the bar's description, before its count."""
    lines = []
    for step in range(0, 9000, 50):
        loss = "nan" if nan_from is not None and step >= nan_from else f"{0.2 - step / 1e6:.3f}"
        lines.append(f"loss={loss}| sh degree={min(3, step // 1000)}| : "
                     f"{100 * step // 30000:>3}%|##        | {step}/30000 [02:10<07:08, "
                     "53.67it/s]")
    return lines


def test_gsplat_controls(tmp_path: Path) -> None:
    """gsplat's NaN at step 5000 and a healthy run: right on the parent too."""
    assert faults(tmp_path, _gsplat(5000)) == [("AMP006", 5000)]
    assert faults(tmp_path, _gsplat()) == []


# -- mmagic (open-mmlab/mmagic) through mmengine's LogProcessor ----------------------------------


def _mmagic(psnr_nan_from: int | None = None, *, psnr: str = "28.1234") -> list[str]:
    """mmengine's ``mmengine/runner/log_processor.py``: ``Iter(train) [{cur_iter}/{max_iters}]
    `` then the learning rate, times and losses; the validation's ``Iter(val)
    [{n}/{dataloader_len}]  `` then mmagic's metrics, keyed by dataset (``Set5/PSNR``), every
    ``val_interval`` iterations; mmengine's ``%m/%d %H:%M:%S - mmengine - INFO - `` prefix."""
    prefix = "06/01 10:00:00 - mmengine - INFO - "
    lines = [prefix + "Checkpoints will be saved to /work_dirs/edsr_x2c64b16."]
    for it in range(100, 5001, 100):
        loss = f"{0.05 - it / 1e6:.4f}"
        lines.append(f"{prefix}Iter(train) [{it:>6}/300000]  base_lr: 1.0000e-04 lr: 1.0000e-04"
                     f"  eta: 1 day, 0:00:00  time: 0.2000  data_time: 0.0100  memory: 2000  "
                     f"loss: {loss}  loss_pix: {loss}")
        if it % 1000 == 0:
            value = "nan" if psnr_nan_from is not None and it >= psnr_nan_from else psnr
            lines.append(f"{prefix}Iter(val) [100/100]    Set5/PSNR: {value}  Set5/SSIM: "
                         "0.8123  data_time: 0.0100  time: 0.0500")
    return lines


def test_mmagic_validation_psnr(tmp_path: Path) -> None:
    """Before: ``Set5/PSNR: nan`` on the validation line was no name the lexicon knew
    (nothing found); a PSNR of +inf and a healthy run stay quiet."""
    assert faults(tmp_path, _mmagic(3000)) == [("AMP013", 3000)]
    assert faults(tmp_path, _mmagic()) == []
    assert faults(tmp_path, _mmagic(psnr="inf")) == []


# -- Pointcept: pointcept/engines/hooks/misc.py (InformationWriter), evaluator.py ----------------


def _pointcept(nan_at: tuple[int, int] | None = None) -> list[str]:
    """``Train: [{epoch}/{max_epoch}][{iter}/{len(train_loader)}] Data {data_time.val:.3f}
    ({data_time.avg:.3f}) Batch ... Remain ... loss: {:.4f} Lr: {:.5f}`` (epochs and batches
    from 1), and the evaluator's ``Val result: mIoU/mAcc/allAcc {:.4f}/{:.4f}/{:.4f}.``."""
    def log(message: str) -> str:
        return f"[2024-06-01 10:00:00,000 INFO misc.py line 120 12345] {message}"
    lines = []
    for epoch in range(1, 4):
        for i in range(50, 1001, 50):
            loss = "nan" if nan_at is not None and (epoch, i) >= nan_at else "1.2000"
            lines.append(log(f"Train: [{epoch}/100][{i}/1000] Data 0.010 (0.012) Batch 0.500 "
                             f"(0.510) Remain 10:00:00 loss: {loss} Lr: 0.00100"))
        lines += [log(">>>>>>>>>>>>>>>> Start Evaluation >>>>>>>>>>>>>>>>"),
                  log("Val result: mIoU/mAcc/allAcc 0.6500/0.7000/0.9000."),
                  log("<<<<<<<<<<<<<<<<< End Evaluation <<<<<<<<<<<<<<<<<")]
    return lines


def test_pointcept_controls(tmp_path: Path) -> None:
    """Pointcept's NaN at epoch 2, batch 600 (step 1000 + 600) and a healthy run: right on
    the parent too."""
    assert faults(tmp_path, _pointcept((2, 600))) == [("AMP006", 1600)]
    assert faults(tmp_path, _pointcept()) == []
