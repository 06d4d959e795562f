"""Generative image trainers' logs, written in the test from each tool's own format strings,
read as the tool prints them: the fault where it began, silence on the healthy controls.

- PixArt-alpha / PixArt-sigma (train_scripts/train.py): every ``log_interval`` steps (and at
  an epoch's first) ``Step/Epoch [{(epoch-1)*len(train_dataloader)+step+1}/{epoch}][{step +
  1}/{len(train_dataloader)}]:total_eta: {eta}, epoch_eta:{eta_epoch}, time_all:{t:.3f},
  time_data:{t_d:.3f}, lr:{lr:.3e}, s:({h}, {w}), `` then ``{k}:{v:.4f}`` of its log buffer
  (``loss``, ``grad_norm``) joined by ``, ``: the first bracket holds the global step and the
  epoch, not an epoch.
"""

from __future__ import annotations

from pathlib import Path

from excerpts import faults

PIXART = "2024-03-01 10:00:00 - PixArt - INFO - "


def _pixart(rows: int, *, nan_from: int | None = None, interval: int = 10,
            epoch_len: int = 400, first: int = 1) -> list[str]:
    """PixArt's log rows every ``interval`` steps from global step ``first``; the loss and
    the gradient norm NaN from step ``nan_from``."""
    lines = [PIXART + "Distributed environment: MULTI_GPU  Backend: nccl",
             PIXART + "Mixed precision type: fp16"]
    loss = 0.21
    for row in range(rows):
        global_step = first + row * interval
        epoch, step = 1 + (global_step - 1) // epoch_len, (global_step - 1) % epoch_len
        bad = nan_from is not None and global_step >= nan_from
        value, norm = ("nan", "nan") if bad else (f"{loss:.4f}", "0.3100")
        loss *= 0.99
        lines.append(
            PIXART + f"Step/Epoch [{(epoch - 1) * epoch_len + step + 1}/{epoch}]"
            f"[{step + 1}/{epoch_len}]:total_eta: 1 day, 2:03:04, epoch_eta:0:10:00, "
            f"time_all:0.512, time_data:0.011, lr:2.000e-05, s:(64, 64), "
            f"loss:{value}, grad_norm:{norm}")
    return lines


def test_pixart_step_epoch_bracket_names_the_global_step(tmp_path: Path) -> None:
    # the NaN row of global step 151 (epoch 1, batch 151): not epoch 151's batch 151
    assert faults(tmp_path, _pixart(30, nan_from=150))[0] == ("AMP006", 151)


def test_pixart_step_past_the_first_epoch(tmp_path: Path) -> None:
    # global step 12351 lies in epoch 31: the step is the bracket's, whatever the epoch
    found = faults(tmp_path, _pixart(30, nan_from=12_500, first=12_251))
    assert found[0] == ("AMP006", 12_501), found


def test_pixart_healthy_is_quiet(tmp_path: Path) -> None:
    assert faults(tmp_path, _pixart(40)) == []
    assert faults(tmp_path, _pixart(40, first=80_001, interval=50)) == []
