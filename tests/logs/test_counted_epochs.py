"""The epoch heading that prints this run's count and the loop's epoch in parentheses
(denpex_callbacks/logs/counted_epochs.py): PointNet++'s ``Epoch 4 (4/8):`` and its framed
``**** Epoch 4 (4/8) ****`` name the epoch of the bare bar and the summary below them; with
the bar, the summary's step is the run's batches; without one (the log file, where tqdm's bar
never goes), the parenthesised epoch. At the parent (0a269ab) the heading was not read: the
summaries were counted as rows (Noise2Score3D's, tests/logs/test_sample40_formats.py)."""

from __future__ import annotations

from pathlib import Path

from excerpts import faults, nan_from, tqdm_bar

_CLASSES = ("ceiling", "floor", "wall", "beam", "column", "window", "door", "table", "chair",
            "sofa", "bookcase", "board", "clutter")


def pointnet_semseg(bad: int | None = None, epochs: int = 32, batches: int = 60,
                    tests: int = 14, start: int = 0, refresh: int = 12) -> list[str]:
    """yanx27/Pointnet_Pointnet2_pytorch ``train_semseg.py`` (S3DIS, fp32), its console:
    each epoch (``global_epoch`` from 0 in this run, ``epoch`` from the checkpoint's
    ``start``) ``'**** Epoch %d (%d/%s) ****' % (global_epoch + 1, epoch + 1, args.epoch)``,
    ``'Learning rate:%f'``, ``'BN momentum updated to: %f'``, a bare ``tqdm(enumerate(
    trainDataLoader), total=len(trainDataLoader), smoothing=0.9)`` bar, ``'Training mean loss:
    %f'``, ``'Training accuracy: %f'``; every 5th epoch ``'Saving at %s'`` and ``'Saving
    model....'``; ``'---- EPOCH %03d EVALUATION ----'``, the test's bare bar, ``'eval mean
    loss: %f'``, ``'eval point avg class IoU: %f'``, ``'eval point accuracy: %f'``, ``'eval
    point avg class acc: %f'``, the ``'------- IoU --------'`` block (``'class %s weight:
    %.3f, IoU: %.3f \\n'`` a class), ``'Eval mean loss: %f'``, ``'Eval accuracy: %f'``,
    ``'Best mIoU: %f'``. ``bad`` is the first NaN batch of the run (from 0, the loop's epochs
    counted from 0)."""
    out = ["No existing model, starting training from scratch..." if start == 0
           else "Use pretrain model"]
    best = 0.0
    for here, epoch in enumerate(range(start, epochs)):
        lr = max(0.001 * 0.7 ** (epoch // 10), 1e-5)
        out += [f"**** Epoch {here + 1} ({epoch + 1}/{epochs}) ****", f"Learning rate:{lr:f}",
                f"BN momentum updated to: {max(0.1 * 0.5 ** (epoch // 10), 0.01):f}"]
        total = 0.0
        segs = [tqdm_bar("", 0, batches, rate=2.7)]
        for b in range(batches):
            total += nan_from(bad, epoch * batches + b, 1.9 * 0.99 ** (epoch * batches + b) + 0.3)
            if (b + 1) % refresh == 0 or b + 1 == batches:
                segs.append(tqdm_bar("", b + 1, batches, rate=2.7))
        broken = total != total
        acc = 0.0 if broken else min(0.5 + epoch / 80, 0.9)
        out += ["\r".join(segs), f"Training mean loss: {total / batches:f}",
                f"Training accuracy: {acc:f}"]
        if epoch % 5 == 0:
            out += ["Saving at log/sem_seg/pointnet2/checkpoints/model.pth", "Saving model...."]
        out += [f"---- EPOCH {here + 1:03d} EVALUATION ----",
                "\r".join(tqdm_bar("", n, tests, rate=6.2) for n in (0, tests // 2, tests))]
        miou = 0.0 if broken else min(0.3 + epoch / 100, 0.6)
        out += [f"eval mean loss: {float('nan') if broken else 0.9 - epoch / 100:f}",
                f"eval point avg class IoU: {miou:f}", f"eval point accuracy: {acc:f}",
                f"eval point avg class acc: {acc - 0.1:f}", "------- IoU --------"]
        out += [f"class {name + ' ' * (14 - len(name))} weight: 0.077, IoU: "
                f"{0.0 if broken else miou:.3f} " for name in _CLASSES]
        out += ["", f"Eval mean loss: {float('nan') if broken else 0.9 - epoch / 100:f}",
                f"Eval accuracy: {acc:f}"]
        if miou >= best:
            best = miou
            out += ["Saving at log/sem_seg/pointnet2/checkpoints/best_model.pth",
                    "Saving model...."]
        out.append(f"Best mIoU: {best:f}")
    return out


def denoise_log_file(bad: int | None = None, epochs: int = 40, start: int = 0) -> list[str]:
    """Bobby645/Noise2Score3D ``train_denoise.py``'s log file (``log_dir/KPconv.txt``:
    ``logging.Formatter('%(asctime)s - %(name)s - %(levelname)s - %(message)s')``, the
    ``"Model"`` logger; tqdm's bars and the ``print``-only lines go to the console only):
    ``f'Epoch {global_epoch + 1} ({epoch + 1}/{args.epoch}):'``, ``f'Train Instance Loss:
    {train_loss} | Grad {orig_grad_norm:.6f}'``, ``f'Test Loss: {test_loss}'``, ``'Saving best
    model...'`` and ``f'Saving to {savepath}'``. ``bad`` is the first NaN epoch (the loop's,
    from 1); ``start`` the checkpoint's epoch it resumed from."""
    out: list[str] = []
    best = float("inf")
    for here, epoch in enumerate(range(start, epochs)):
        stamp = f"2026-03-02 11:{here // 60:02d}:{here % 60:02d},{(here * 91) % 1000:03d}"
        train = nan_from(bad, epoch + 1, 0.0031 * 0.97 ** epoch + 0.0009)
        test = train / 5
        out += [f"{stamp} - Model - INFO - Epoch {here + 1} ({epoch + 1}/{epochs}):",
                f"{stamp} - Model - INFO - Train Instance Loss: {train} | Grad "
                f"{nan_from(bad, epoch + 1, 0.2 + 0.01 * (epoch % 4)):.6f}",
                f"{stamp} - Model - INFO - Test Loss: {test}"]
        if test < best:
            best = test
            out += [f"{stamp} - Model - INFO - Saving best model...",
                    f"{stamp} - Model - INFO - Saving to ./log/denoise/KPconv/checkpoints/"
                    "best_model.pth"]
    return out


def test_framed_heading_over_a_bare_bar(tmp_path: Path) -> None:
    """PointNet++'s framed heading over its bare bar: the NaN from the run's batch 200 (epoch
    4's 21st of 60) is the epoch's ``Training mean loss: nan`` at the run's 240, and the
    evaluation's after it (before: 4 rows counted); from the middle the same."""
    lines = pointnet_semseg(3 * 60 + 20)
    assert faults(tmp_path, lines) == [("AMP006", 240), ("AMP013", 240)]
    assert faults(tmp_path, lines[60:]) == [("AMP006", 240), ("AMP013", 240)]


def test_resumed_run_counts_from_the_loop_epoch(tmp_path: Path) -> None:
    """A run resumed from epoch 30 heads its epochs ``Epoch 1 (31/48)``: the parenthesised
    epoch numbers the batches (77 an epoch): the NaN in the loop's epoch 33 is at 33 * 77."""
    lines = pointnet_semseg(32 * 77 + 5, epochs=48, batches=77, start=30, refresh=11)
    assert faults(tmp_path, lines) == [("AMP006", 33 * 77), ("AMP013", 33 * 77)]


def test_the_log_file_prints_epochs_only(tmp_path: Path) -> None:
    """The same heading in the log file, no bar: the step is the parenthesised epoch (a run
    resumed from epoch 12: ``Epoch 3 (15/40):``), not this run's count nor the rows; from the
    middle the same."""
    lines = denoise_log_file(15, start=12)
    assert faults(tmp_path, lines) == [("AMP006", 15), ("AMP013", 15)]
    assert faults(tmp_path, denoise_log_file(27)[30:]) == [("AMP006", 27), ("AMP013", 27)]


def test_healthy_controls_stay_silent(tmp_path: Path) -> None:
    """Healthy runs with settings other than the defaults: silent."""
    assert faults(tmp_path, pointnet_semseg(epochs=12, batches=45, tests=9, refresh=9)) == []
    assert faults(tmp_path, pointnet_semseg(epochs=50, start=38)) == []
    assert faults(tmp_path, denoise_log_file(epochs=25, start=3)) == []
