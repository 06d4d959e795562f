"""Self-supervised, 3D/graphics and scientific trainers: excerpts written from each tool's own
format strings (each test names its source), a fault at a known step beside healthy controls.

- ffcv-imagenet's tqdm description (libffcv/ffcv-imagenet ``train_imagenet.py``
  ``train_loop``: ``', '.join(f'{n}={v}' ...)`` of ``ep``, ``iter``, ``shape``, ``lrs`` and,
  at ``--logging.log_level 2``, ``loss``, set on the bar of the epoch's batches) and its
  ``=> Log: {...}`` dict (``log``);
- SwAV's training line (facebookresearch/swav ``main_swav.py`` ``train``: ``"Epoch: [{0}][{1}]\\t"
  "Time ...\\tData ...\\tLoss {loss.val:.4f} ({loss.avg:.4f})\\tLr: {lr:.4f}"`` every 50
  batches of the epoch, behind ``src/logger.py``'s ``LogFormatter``: ``INFO - %x %X -
  elapsed - ``);
- I-JEPA's training line (facebookresearch/ijepa ``src/train.py``: ``'[%d, %5d] loss: %.3f
  masks: %.1f %.1f [wd: %.2e] [lr: %.2e] [mem: %.2e] (%.1f ms)' % (epoch + 1, itr, ...)``
  every ``log_freq`` iterations of the epoch and at a NaN, then ``assert not np.isnan(loss),
  'loss is nan'``), behind ``basicConfig``'s ``INFO:root:`` (``src/helper.py``);
- ClassyVision's LossLrMeterLoggingHook lines (facebookresearch/ClassyVision
  ``classy_vision/hooks/loss_lr_meter_logging_hook.py`` ``_log_loss_lr_meters``: ``{prefix}
  [{rank}] {phase_type} phase {idx} ({pct:.2f}% done), loss: {loss:.4f}, meters: ...``),
  through the root logger's default ``INFO:root:`` format (``classy_train.py``);
- pytorch3d's NeRF project (facebookresearch/pytorch3d ``projects/nerf/nerf/stats.py``
  ``Stats.print``: ``[{stat_set}] | epoch {epoch} | it {it} |`` then `` {stat:.12}:
  {avg:1.3f} |`` per sorted stat; ``projects/nerf/train_nerf.py`` prints the train set every
  ``stats_print_interval`` batches and the val set every ``validation_epoch_interval``
  epochs, its ``it`` counted afresh) and its implicitron trainer (``pytorch3d/implicitron/
  tools/stats.py`` ``Stats.print``: ``"[%s] | epoch %3d | it %5d" % (...)`` then ``"/ %d" %
  max_it``, the stats renamed by ``stat_format``; logged every ``metric_print_interval``
  batches by ``projects/implicitron_trainer/impl/training_loop.py`` behind Hydra's
  ``[%(asctime)s][%(name)s][%(levelname)s] - `` prefix);
- instant-ngp's ``scripts/run.py`` (NVlabs/instant-ngp): its ``Training`` bar (``tqdm(desc=
  "Training", total=n_steps, unit="steps")``, ``set_postfix(loss=testbed.loss)``) and the
  closing ``print(f"PSNR={psnr} [min={minpsnr} max={maxpsnr}] SSIM={ssim}")`` over
  ``--test_transforms``;
- torchmd-net's CSVLogger ``metrics.csv`` (torchmd/torchmd-net ``torchmdnet/module.py``
  ``on_validation_epoch_end`` / ``on_train_epoch_end``: ``{stage}_{type}_{loss_fn}`` keys,
  ``train_total_mse_loss`` and its ``y`` / ``neg_dy`` terms, no plain ``loss``; Lightning's
  CSVLogger sorts the columns), read as the file it is.

Each fault test failed on the parent commit (0e374e2); a control that passes there too says
so. Read right before any fix (no test kept; the suite covers their layouts): sthalles/SimCLR
(``simclr.py``: ``logging.debug(f"Epoch: {epoch_counter}\\tLoss: {loss}\\tTop1 accuracy:
{top1[0]}")``), bytedance/ibot and MCG-NJU/VideoMAE (the MetricLogger family, ``Loss is nan,
stopping training``, VideoMAE's ``loss_scale`` / ``grad_norm`` meters), bowang-lab/MedSAM
(``train_one_gpu.py``: ``Time: ..., Epoch: {epoch}, Loss: {epoch_loss}``), NVlabs/instant-ngp's
training bar (``Training: ...| 8153/35000 [..., loss=nan]``), fastMRI's Lightning
bar with ``validation_loss`` (``fastmri/pl_modules/mri_module.py``), facebookresearch/
barlowtwins (``main.py``: ``print(json.dumps(stats))``, ``NaN`` / ``Infinity``, losses in the
thousands), yenchenlin/nerf-pytorch (``[TRAIN] Iter: {i} Loss: ...  PSNR: ...``), matgl's
Lightning bar (``src/matgl/utils/_training_dgl.py``: ``train_Total_Loss=nan``,
``val_Total_Loss=nan`` in the postfix). Nothing to read on the console: vturrisi/solo-learn and
microsoft/torchgeo log without ``prog_bar`` (their CSV is the rule above); facebookresearch/esm
and google-deepmind/alphafold ship no training loop.

Left as documented misses (no test): Lightning 1.x's single bar counts the validation batches
in its total (fastMRI: ``Epoch 3:  32%| 350/1100``, 1000 training and 100 validation batches),
so ``epoch * total + n`` runs 100 steps long an epoch where the excerpt shows no validation run
the main bar went through (with one, the ``Validating:`` bar tells the share: see
``test_lightning_bars_formats.py``); MedSAM's ``train_multi_gpus.py`` prints ``Time:
..., Epoch: {epoch}, Loss: {epoch_loss}`` from every rank, the repeated epoch turns the epoch
count off and the rows are counted (the rank is only on the memory lines above; as MACE's
multi-head miss); a ClassyVision excerpt without a phase's closing ``processed batches: N`` is
numbered by its rows; SwAV's epoch length is learnt from the batches printed (up to 49 long an
epoch where it is no multiple of 50); iBOT's ``NMI: nan, ARI: ...`` (a clustering score of the
training predictions) is read by no rule.
"""

from __future__ import annotations

import math
from pathlib import Path

from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose

# -- ffcv-imagenet: libffcv/ffcv-imagenet train_imagenet.py ----------------------------------


def _ffcv(nan_from: int | None = None, batches: int = 2502, every: int = 97) -> list[str]:
    """Three epochs of the bar (seen every ``every`` batches), the ``=> Log:`` dict after
    each (``train_loss`` is None: ``train_loop`` returns nothing); NaN from step
    ``nan_from`` on (the run's batches, from 0)."""
    lines = ["=> Logging in /tmp/ffcv/4b8e2c9a-1d2f"]
    for epoch in range(3):
        for batch in range(0, batches, every):
            step = epoch * batches + batch
            loss = "nan" if nan_from is not None and step >= nan_from else f"{6.9 - step / 2e3:.3f}"
            done = 100 * (batch + 1) // batches
            lines.append(f"ep={epoch}, iter={batch}, shape=(512, 3, 160, 160), lrs=["
                         f"'{0.5 + batch / 1e4:.3f}'], loss={loss}: {done:3d}%|██▍       | "
                         f"{batch + 1}/{batches} [01:00<03:10, 10.00it/s]")
        lines.append("100%|██████████| 98/98 [00:12<00:00,  8.00it/s]")
        lines.append(f"=> Log: {{'current_lr': 0.85, 'top_1': {0.1 + epoch / 10:.2f}, 'top_5': "
                     f"{0.3 + epoch / 10:.2f}, 'val_time': 12.3, 'train_loss': None, "
                     f"'epoch': {epoch}}}")
    return lines


def test_ffcv_bar_total_is_the_epoch_length(tmp_path: Path) -> None:
    """Before: the keyed ``ep=1, iter=582`` was counted as an epoch whose length is not
    printed, guessed from the batches seen (2425 plus the interval): the NaN at step 3084
    (epoch 1, batch 582 of 2502) was reported at step 3104."""
    assert faults(tmp_path, _ffcv(3000)) == [("AMP006", 3084)]


def test_ffcv_controls(tmp_path: Path) -> None:
    """Healthy runs, the bar seen at another interval (pass on the parent too)."""
    assert faults(tmp_path, _ffcv()) == []
    assert faults(tmp_path, _ffcv(every=250, batches=1251)) == []


# -- SwAV: facebookresearch/swav main_swav.py ------------------------------------------------


def _swav(nan_from: int | None = None, batches: int = 1250) -> list[str]:
    """Four epochs, a line every 50 batches of each (from 0); NaN from step ``nan_from``."""
    lines = ["INFO - 06/01/24 10:00:00 - 0:00:05 - Building data done with 1281167 images "
             "loaded."]
    for epoch in range(4):
        lines.append(f"INFO - 06/01/24 10:00:00 - 0:00:05 - ============ Starting epoch "
                     f"{epoch} ... ============")
        for it in range(0, batches, 50):
            step = epoch * batches + it
            loss = ("nan (nan)" if nan_from is not None and step >= nan_from
                    else f"{8 - step / 1e4:.4f} ({8.01 - step / 1e4:.4f})")
            lines.append(f"INFO - 06/01/24 10:{epoch:02d}:00 - 0:{epoch:02d}:05 - Epoch: "
                         f"[{epoch}][{it}]\tTime 0.512 (0.533)\tData 0.012 (0.020)\tLoss "
                         f"{loss}\tLr: 0.6000")
    return lines


def test_swav_bracketed_epoch_and_batch(tmp_path: Path) -> None:
    """Before: ``Epoch: [2][600]`` read its batch as a bracketed step, then, the count going
    back each epoch, numbered the rows: the NaN at step 3100 (epoch 2, batch 600 of 1250)
    was reported at step 1238. (The epoch's length is learnt from the batches printed: exact
    where it is a multiple of the 50, else up to 49 batches long an epoch.)"""
    assert faults(tmp_path, _swav(3100)) == [("AMP006", 3100)]


def test_swav_controls(tmp_path: Path) -> None:
    """Healthy runs, two epoch lengths (pass on the parent too)."""
    assert faults(tmp_path, _swav()) == []
    assert faults(tmp_path, _swav(batches=312)) == []


# -- I-JEPA: facebookresearch/ijepa src/train.py ---------------------------------------------


def _ijepa(nan_from: int | None = None, batches: int = 1000, log_freq: int = 10) -> list[str]:
    """Three epochs (printed from 1), a line and its ``grad_stats`` every ``log_freq``
    iterations of the epoch; a NaN is printed at once, then the assertion stops the run."""
    lines = ["INFO:root:Initialized (rank/world-size) 0/8"]
    for epoch in range(3):
        lines.append(f"INFO:root:Epoch {epoch + 1}")
        for itr in range(batches):
            step = epoch * batches + itr
            bad = nan_from is not None and step >= nan_from
            if itr % log_freq == 0 or bad:
                loss = "nan" if bad else f"{0.5 - step / 1e5:.3f}"
                lines += [f"INFO:root:[{epoch + 1}, {itr:5d}] loss: {loss} masks: 68.0 34.0 [wd: "
                          "4.00e-02] [lr: 2.00e-04] [mem: 2.60e+04] (1234.5 ms)",
                          f"INFO:root:[{epoch + 1}, {itr:5d}] grad_stats: [1.23e-02 4.56e-03] "
                          "(1.00e-05, 3.21e-01)"]
            if bad:
                return [*lines, "Traceback (most recent call last):",
                        '  File "/ijepa/main.py", line 68, in <module>',
                        "AssertionError: loss is nan"]
        lines.append(f"INFO:root:avg. loss {0.45 - epoch / 100:.3f}")
    return lines


def test_ijepa_epoch_and_iteration_behind_the_logger(tmp_path: Path) -> None:
    """Before: ``[2,   234]`` behind ``INFO:root:`` was not read as the epoch (from 1) and
    its iteration: the rows were counted, the NaN at step 1234 reported at step 126."""
    assert faults(tmp_path, _ijepa(1234)) == [("AMP006", 1234)]


def test_ijepa_controls(tmp_path: Path) -> None:
    """Healthy runs at two logging intervals (pass on the parent too)."""
    assert faults(tmp_path, _ijepa()) == []
    assert faults(tmp_path, _ijepa(batches=626, log_freq=50)) == []


# -- ClassyVision: classy_vision/hooks/loss_lr_meter_logging_hook.py -------------------------


def _classy(*, train_nan: tuple[int, int] | None = None, test_nan: int | None = None,
            batches: int = 500, log_freq: int = 100) -> list[str]:
    """Four phases of ``log_freq`` lines, each train phase closed by its synced line, a test
    phase after it. ``train_nan``: (phase, batch) where the phase's running loss turns NaN
    (it stays NaN in the phases after); ``test_nan``: the phase whose test loss is NaN."""
    lines = ["INFO:root:Classy Vision's default training script.",
             "INFO:root:AMP enabled with args {'opt_level': 'O1'}",
             "INFO:root:Starting training. Task: <classy_vision.tasks.classification_task."
             "ClassificationTask object at 0x7f3a2c1e5d90>"]
    broken = False
    for phase in range(4):
        loss = ""
        for batch in range(log_freq, batches + 1, log_freq):
            broken = broken or (train_nan is not None and (phase, batch) >= train_nan)
            loss = "nan" if broken else f"{4.5 - phase / 2 - batch / 1e4:.4f}"
            lines.append(f"INFO:root:Approximate meters: [0] train phase {phase} ("
                         f"{batch / batches * 100:.2f}% done), loss: {loss}, meters: [accuracy_"
                         f"meter(top_1=0.{phase + 1}00000,top_5=0.{phase + 3}00000)], lr: 0.1000")
        lines.append(f"INFO:root:Synced meters: [0] train phase {phase} (100.00% done), loss: "
                     f"{loss}, meters: [accuracy_meter(top_1=0.{phase + 1}00000,top_5=0."
                     f"{phase + 3}00000)], lr: 0.1000, processed batches: {batches}")
        test = "nan" if broken or phase == test_nan else f"{4.4 - phase / 2:.4f}"
        lines.append(f"INFO:root:Synced meters: [0] test phase {phase} (100.00% done), loss: "
                     f"{test}, meters: [accuracy_meter(top_1=0.{phase + 1}00000,top_5=0."
                     f"{phase + 3}00000)], processed batches: 50")
    return lines


def test_classy_phase_share_is_the_step(tmp_path: Path) -> None:
    """Before: the phase lines were counted as rows: the NaN at batch 300 of phase 2 (step
    1300, 500 batches a phase) was reported at step 14, the test phase's NaN loss of phase 1
    (after step 1000) at step 11."""
    assert faults(tmp_path, _classy(train_nan=(2, 300))) == [("AMP006", 1300), ("AMP013", 1500)]
    assert faults(tmp_path, _classy(test_nan=1)) == [("AMP013", 1000)]


def test_classy_controls(tmp_path: Path) -> None:
    """Healthy runs, at another log_freq (pass on the parent too)."""
    assert faults(tmp_path, _classy()) == []
    assert faults(tmp_path, _classy(batches=1251, log_freq=50)) == []


# -- pytorch3d NeRF: projects/nerf/nerf/stats.py ---------------------------------------------


def _nerf(*, nan_from: int | None = None, val_nan: bool = False, interval: int = 10,
          psnr: str = "23.979") -> list[str]:
    """40 epochs of 100 images (lego: one image a batch), the train stats every ``interval``
    batches, the val stats at epoch 30 (``it 0``: its own count)."""
    lines = []
    for epoch in range(40):
        for it in range(0, 100, interval):
            step = epoch * 100 + it
            bad = nan_from is not None and step >= nan_from
            loss, mse, peak = (("nan",) * 3 if bad else
                               (f"{0.05 - step / 1e6:1.3f}", f"{0.025 - step / 2e6:1.3f}",
                                f"{16 + step / 1e3:1.3f}"))
            lines.append(f"[train] | epoch {epoch} | it {it} |  loss: {loss} | mse_coarse: {mse} "
                         f"| mse_fine: {mse} | psnr_coarse: {peak} | psnr_fine: {peak} | sec/it: "
                         "0.052 |")
        if epoch % 30 == 0 and epoch > 0:
            mse, peak = ("nan", "nan") if val_nan else ("0.004", psnr)
            lines.append(f"[val] | epoch {epoch} | it 0 |  mse_coarse: {mse} | mse_fine: {mse} | "
                         f"psnr_coarse: {peak} | psnr_fine: {peak} | sec/it: 2.104 |")
    return lines


def test_nerf_val_count_is_not_the_step(tmp_path: Path) -> None:
    """Before: the val line's own ``it 0`` was taken for the training step: its NaN after
    training reached step 3090 was reported at step 0 (the training NaN was right)."""
    assert faults(tmp_path, _nerf(val_nan=True)) == [("AMP013", 3090)]
    assert faults(tmp_path, _nerf(nan_from=2350)) == [("AMP006", 2350)]


def test_nerf_controls(tmp_path: Path) -> None:
    """Healthy runs: another print interval (passes on the parent too); the val PSNR of an
    exact render, +inf under ``psnr_coarse`` / ``psnr_fine``. Before: that +inf was an
    AMP013 at step 0, a false alarm (only a key ending in the score's name was known to be
    +inf at best)."""
    assert faults(tmp_path, _nerf(interval=25)) == []
    assert faults(tmp_path, _nerf(psnr="inf")) == []


_IMPLICITRON = ("[2024-06-01 10:00:00,123][projects.implicitron_trainer.impl.training_loop]"
                "[INFO] - ")


def _implicitron_line(stat_set: str, epoch: int, it: int, batches: int,
                      values: dict[str, float]) -> str:
    """``Stats.print`` of one set: the stats in their raw names' order, ``loss_`` dropped."""
    stats = "".join(f" {name.replace('loss_', ''):.12}: {values[name]:1.3f} |"
                    for name in sorted(values))
    return f"{_IMPLICITRON}[{stat_set}] | epoch {epoch:3d} | it {it:5d}/ {batches} | {stats}"


def _implicitron(*, nan_from: int | None = None, val_nan: int | None = None,
                 interval: int = 5, batches: int = 200) -> list[str]:
    """Six epochs, the train set every ``interval`` batches and at the last, then three
    validation lines (10 batches)."""
    lines = []
    for epoch in range(6):
        for it in [*range(0, batches, interval), batches - 1]:
            step = epoch * batches + it
            bad = nan_from is not None and step >= nan_from
            lines.append(_implicitron_line("train", epoch, it, batches, {
                "epoch": epoch, "loss_depth_abs": 0.2, "loss_mask_bce": 0.05,
                "loss_rgb_mse": math.nan if bad else 0.02 - step / 1e6,
                "loss_rgb_psnr": math.nan if bad else 17 + step / 1e3,
                "objective": math.nan if bad else 0.6 - step / 1e4, "sec/it": 0.31}))
        held = epoch == val_nan
        for it in (0, 5, 9):
            lines.append(_implicitron_line("val", epoch, it, 10, {
                "epoch": epoch, "loss_depth_abs": 0.2, "loss_mask_bce": 0.05,
                "loss_rgb_mse": math.nan if held else 0.02,
                "loss_rgb_psnr": math.nan if held else 18.0,
                "objective": math.nan if held else 0.55, "sec/it": 0.21}))
    return lines


def test_implicitron_padded_total_is_the_epoch_length(tmp_path: Path) -> None:
    """Before: ``it    50/ 200`` (a blank after the slash, ``it 0`` padded by five) was
    not read as 50 of 200: the epoch's length was guessed from the batches seen (203), the
    NaN at step 650 (epoch 3, batch 50) was reported at 659, the validation NaN after step
    599 at 605."""
    assert faults(tmp_path, _implicitron(nan_from=650)) == [("AMP006", 650)]
    assert faults(tmp_path, _implicitron(val_nan=2)) == [("AMP013", 599)]


def test_implicitron_controls(tmp_path: Path) -> None:
    """Healthy runs at two print intervals (pass on the parent too)."""
    assert faults(tmp_path, _implicitron()) == []
    assert faults(tmp_path, _implicitron(interval=20, batches=150)) == []


# -- instant-ngp: scripts/run.py ------------------------------------------------------------


def _instant_ngp(psnr: str = "33.18231254", low: str = "28.1") -> list[str]:
    """35000 steps of the bar (refreshed every 0.1 s: 263 steps apart here), then the test
    transforms' PSNR and SSIM."""
    lines = ["13:24:10 SUCCESS  Loaded 100 images after 1s",
             "13:24:10 INFO     Loading network snapshot from: base.ingp"]
    for step in [*range(263, 35000, 263), 35000]:
        lines.append(f"Training: {100 * step // 35000:3d}%|██▎       | {step}/35000 [00:30<01:40, "
                     f"265.12steps/s, loss={0.01 * (1 - step / 35000) + 0.0012345:.3g}]")
    return [*lines,
            "Evaluating test transforms from  data/nerf_synthetic/lego/transforms_test.json",
            "Rendering test frame: 100%|██████████| 200/200 [00:20<00:00, 10.00images/s, "
            "psnr=33.2]",
            f"PSNR={psnr} [min={low} max=inf] SSIM={'nan' if psnr == 'nan' else '0.97213'}"]


def test_instant_ngp_test_psnr_is_evaluation(tmp_path: Path) -> None:
    """Before: ``PSNR=nan [min=nan max=inf] SSIM=nan`` named no key the doctor knew, on no
    line about evaluation: nothing to diagnose."""
    assert faults(tmp_path, _instant_ngp(psnr="nan", low="nan")) == [("AMP013", 35000)]


def test_instant_ngp_controls(tmp_path: Path) -> None:
    """A healthy run, and one whose every test view renders exactly (PSNR +inf): quiet (pass
    on the parent too)."""
    assert faults(tmp_path, _instant_ngp()) == []
    assert faults(tmp_path, _instant_ngp(psnr="inf", low="inf")) == []


# -- torchmd-net: torchmdnet/module.py through Lightning's CSVLogger -------------------------

_TORCHMD_KEYS = sorted(["epoch", "lr", "step", "train_neg_dy_mse_loss", "train_total_mse_loss",
                        "train_y_mse_loss", "val_neg_dy_mse_loss", "val_total_mse_loss",
                        "val_y_mse_loss"])


def _torchmd_value(epoch: int, number: float, bad: bool) -> str:
    """A loss of epoch ``epoch`` as Python writes it (``nan`` where ``bad``)."""
    return "nan" if bad else repr(number / (epoch + 1))


def _torchmd_csv(root: Path, *, train_nan: int | None = None, val_nan: int | None = None,
                 per_epoch: int = 391) -> Path:
    """``metrics.csv`` of 12 epochs: the validation row, then the training row, at each
    epoch's last step (NaN from epoch ``train_nan`` on; validation's in epoch ``val_nan``,
    and with the training's)."""
    lines = [",".join(_TORCHMD_KEYS)]
    for epoch in range(12):
        step = (epoch + 1) * per_epoch - 1
        trained = train_nan is not None and epoch >= train_nan
        held = trained or epoch == val_nan

        terms = {"neg_dy": 2.0, "total": 2.5, "y": 0.5}
        rows = ({"epoch": float(epoch), "lr": 0.0004, "step": step,
                 **{f"val_{t}_mse_loss": _torchmd_value(epoch, n, held) for t, n in terms.items()}},
                {"epoch": epoch, "step": step,
                 **{f"train_{t}_mse_loss": _torchmd_value(epoch, n * 1.05, trained)
                    for t, n in terms.items()}})
        lines += [",".join(str(row.get(key, "")) for key in _TORCHMD_KEYS) for row in rows]
    path = root / "metrics.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _file_faults(path: Path) -> list[tuple[str, int | None]]:
    result = diagnose(str(path))
    assert result.error is None, result.error
    return [(d.code, d.step) for d in result.faults]


def test_torchmd_csv_terms_are_the_loss(tmp_path: Path) -> None:
    """Before: ``a CSV without a loss, loss-scale or grad-norm column`` (an input error: its
    losses are all terms); the validation rows were not read at all."""
    assert _file_faults(_torchmd_csv(tmp_path, train_nan=7)) == [("AMP006", 3127),
                                                                 ("AMP013", 3127)]
    assert _file_faults(_torchmd_csv(tmp_path, val_nan=5)) == [("AMP013", 2345)]


def test_torchmd_csv_controls(tmp_path: Path) -> None:
    """A healthy run (before: the same input error as above), and a faulty run's rows pasted
    into a log (read right on the parent too)."""
    assert _file_faults(_torchmd_csv(tmp_path)) == []
    pasted = _torchmd_csv(tmp_path, train_nan=7).read_text(encoding="utf-8").splitlines()
    assert faults(tmp_path, pasted) == [("AMP006", 3127), ("AMP013", 3127)]


def test_lightning_csv_evaluation_nan(tmp_path: Path) -> None:
    """A Lightning ``metrics.csv`` whose first validation's Pearson correlation is NaN beside
    a finite ``val_loss`` (constant predictions, nothing overflowed) is quiet; its ``val_loss``
    NaN is the evaluation's. Before: the validation columns were not read (the quiet half
    passed, the NaN ``val_loss`` found nothing)."""
    rows = ["epoch,step,train_loss_step,val_loss,val_pearson", "0,49,0.5,,",
            "0,99,,0.45,nan", "1,149,0.3,,", "1,199,,0.25,0.3"]
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert _file_faults(path) == []
    path.write_text("\n".join(rows).replace("0.45,nan", "nan,0.1") + "\n", encoding="utf-8")
    assert _file_faults(path) == [("AMP013", 99)]
