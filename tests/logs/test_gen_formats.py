"""Generative image trainers' logs, written in the test from each tool's own format strings,
read as the tool prints them: the fault where it began, silence on the healthy controls.

- PixArt-alpha / PixArt-sigma (train_scripts/train.py): every ``log_interval`` steps (and at
  an epoch's first) ``Step/Epoch [{(epoch-1)*len(train_dataloader)+step+1}/{epoch}][{step +
  1}/{len(train_dataloader)}]:total_eta: {eta}, epoch_eta:{eta_epoch}, time_all:{t:.3f},
  time_data:{t_d:.3f}, lr:{lr:.3e}, s:({h}, {w}), `` then ``{k}:{v:.4f}`` of its log buffer
  (``loss``, ``grad_norm``) joined by ``, ``: the first bracket holds the global step and the
  epoch, not an epoch;
- NVlabs' ``torch_utils/training_stats.py`` (StyleGAN2-ADA, StyleGAN3, EDM): once a tick,
  ``training_loop.py`` writes ``json.dumps(dict(stats_collector.as_dict(),
  timestamp=...))`` to ``stats.jsonl``, each statistic ``{"num": N, "mean": M, "std": S}``
  (``mean`` NaN where ``num`` is 0: nothing reported in that tick); the tick is
  ``Progress/tick``, as the tick line ``tick {cur_tick:<5d} kimg ...`` of ``log.txt`` prints;
- VAR (FoundationVision, utils/amp_sc.py): ``print(f'[scaler_sc = {scaler_sc}]\\n' * 15)``
  where ``math.log2`` of the GradScaler's scale raises (a scale of 0.0), then the
  ``ValueError``; its MetricLogger rows (``Lm: 6.912 (6.930)``, train.py) name no loss the
  doctor knows;
- Lightning bars of the generative trainers: CompVis latent-diffusion (ldm/models/diffusion/
  ddpm.py, and rinongal textual_inversion / XavierXiao Dreambooth-Stable-Diffusion, its
  forks) logs ``self.log("global_step", self.global_step, prog_bar=True)`` (Lightning 1.4
  shows ``global_step=449.000``); taming-transformers (taming/models/vqgan.py) logs
  ``train/aeloss`` and ``train/discloss`` with ``prog_bar=True`` (``train/aeloss_step=``);
  Open-Sora (scripts/train.py) its own tqdm, ``desc=f"Epoch {epoch}"`` with
  ``set_postfix({"loss": avg_loss, "step": step, "global_step": global_step})``;
- lucidrains' trainers print the step before the metrics, as srun -l prints a rank:
  muse-maskgit-pytorch (muse_maskgit_pytorch/trainers.py, VQGanVAETrainer.train_step)
  ``self.print(f"{steps}: vae loss: {logs['Train/vae_loss']} - discr loss:
  {logs['Train/discr_loss']} - lr: {self.lr_scheduler.get_last_lr()[0]}")``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from excerpts import faults

from denpex_callbacks.logs.doctor import diagnose
from denpex_callbacks.logs.result import Result

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


# -- NVlabs training_stats: stats.jsonl ---------------------------------------------------------

def _stats_jsonl(ticks: int, *, nan_from: int | None = None, first: int = 0,
                 edm: bool = False) -> list[str]:
    """``stats.jsonl`` of StyleGAN3 (or EDM: ``Loss/loss`` alone), one record a tick from
    tick ``first``; the losses NaN from tick ``nan_from``. ``Loss/pl_penalty`` reports
    nothing (``num`` 0, its mean NaN), as with path-length regularisation off."""
    lines = []
    for tick in range(first, first + ticks):
        bad = nan_from is not None and tick >= nan_from

        def stat(mean: float, std: float, num: int = 64, bad: bool = bad) -> dict[str, float]:
            nan = float("nan")
            return {"num": num, "mean": nan if bad else mean, "std": nan if bad else std}

        losses = ({"Loss/loss": stat(0.31 - tick * 1e-4, 0.4, num=512)} if edm else {
            "Loss/scores/fake": stat(-1.2, 0.8), "Loss/signs/fake": stat(-0.7, 0.7),
            "Loss/G/loss": stat(0.9, 0.4), "Loss/scores/real": stat(1.1, 0.9),
            "Loss/signs/real": stat(0.6, 0.8), "Loss/D/loss": stat(0.8, 0.3),
            "Loss/r1_penalty": stat(0.05, 0.02, num=4), "Loss/D/reg": stat(0.3, 0.1, num=4),
            "Loss/pl_penalty": {"num": 0, "mean": float("nan"), "std": float("nan")}})
        record = dict(losses, **{
            "Progress/tick": {"num": 1, "mean": float(tick), "std": 0.0},
            "Progress/kimg": {"num": 1, "mean": tick * 4.0, "std": 0.0},
            "Timing/total_sec": {"num": 1, "mean": 60.0 * tick, "std": 0.0},
            "Timing/sec_per_kimg": {"num": 1, "mean": 15.02, "std": 0.0},
            "Resources/peak_gpu_mem_gb": {"num": 1, "mean": 10.23, "std": 0.0},
            "Progress/augment": {"num": 1, "mean": 0.012, "std": 0.0}},
            timestamp=1612345678.1 + 60 * tick)
        lines.append(json.dumps(record))
    return lines


@pytest.mark.parametrize("edm", [False, True])
def test_training_stats_nan_mean_is_found_at_its_tick(tmp_path: Path, edm: bool) -> None:
    assert faults(tmp_path, _stats_jsonl(40, nan_from=25, edm=edm))[0] == ("AMP006", 25)
    # mid-run, long enough for the quiet runs: the same tick either way
    lines = _stats_jsonl(300, nan_from=1250, first=1000, edm=edm)
    assert faults(tmp_path, lines)[0] == ("AMP006", 1250)
    path = tmp_path / "stats.jsonl"
    path.write_text("\n".join(lines) + "\n")
    slow = diagnose(str(path), quiet_runs=False)
    assert (slow.faults[0].code, slow.faults[0].step) == ("AMP006", 1250)


@pytest.mark.parametrize("edm", [False, True])
def test_training_stats_healthy_is_quiet(tmp_path: Path, edm: bool) -> None:
    # a statistic nothing reported (num 0, mean NaN) is no value, not a NaN loss
    assert faults(tmp_path, _stats_jsonl(60, edm=edm)) == []
    assert faults(tmp_path, _stats_jsonl(60, first=5000, edm=edm)) == []


# -- VAR: the scale's logarithm that failed ------------------------------------------------------

def test_var_scale_at_zero_is_an_underflow(tmp_path: Path) -> None:
    row = ("[Ep]: [   3/200]  [ 500/1251]  eta: 0:10:00  tlr: 0.0001  tnm: 0.52  "
           "Lm: 6.912 (6.930)  Lt: 6.801 (6.850)  Accm: 1.20 (1.10)  Acct: 1.50 (1.40)  "
           "time: 0.4512  data: 0.0012")
    lines = [row, *["[scaler_sc = 0.0]"] * 15, "Traceback (most recent call last):",
             '  File "/root/VAR/utils/amp_sc.py", line 61, in backward_clip_step',
             "    scaler_sc = float(math.log2(scaler_sc))", "ValueError: math domain error",
             "[rk 0] ValueError", "[err]:", "math domain error"]
    assert [code for code, _step in faults(tmp_path, lines)] == ["AMP004"]


# -- Lightning bars of the generative trainers ---------------------------------------------------

def _bar(epoch: int, done: int, total: int, postfix: str) -> str:
    return (f"Epoch {epoch}:  {done * 100 // total:2d}%|#    | {done}/{total} "
            f"[05:12<06:21,  1.44it/s, {postfix}]")


def _ldm(*, nan_from: int | None = None) -> list[str]:
    """CompVis LDM's bar (epoch 0 of 1000 batches) every 25 batches; NaN from batch
    ``nan_from`` (its ``global_step`` one less: the optimizer steps done before it)."""
    lines = []
    for done in range(25, 1000, 25):
        value = "nan" if nan_from is not None and done >= nan_from else f"{0.12 - done * 1e-5:.3f}"
        lines.append(_bar(0, done, 1000, f"loss={value}, v_num=0, train/loss_simple_step="
                          f"{value}, train/loss_vlb_step=0.000444, train/loss_step={value}, "
                          f"global_step={done - 1}.000"))
    return lines


def _taming(*, nan_from: int | None = None) -> list[str]:
    """taming's VQGAN bar every 50 batches: the running ``loss`` still finite on the batch
    where ``train/aeloss_step`` turns NaN."""
    lines = []
    for done in range(50, 2000, 50):
        value = "nan" if nan_from is not None and done >= nan_from else f"{0.8 - done * 1e-4:.3f}"
        lines.append(_bar(0, done, 5000, f"loss=0.512, v_num=0, train/aeloss_step={value}, "
                          "train/discloss_step=0.000"))
    return lines


def _open_sora(*, nan_from: int | None = None, per_epoch: int = 400) -> list[str]:
    """Open-Sora's bar every 10 steps over three epochs; the average loss NaN from global
    step ``nan_from``."""
    lines = ["[2024-03-01 10:00:00] Boost model for distributed training"]
    for epoch in range(3):
        for step in range(9, per_epoch, 10):
            global_step = epoch * per_epoch + step
            bad = nan_from is not None and global_step >= nan_from
            loss = "nan" if bad else f"{0.5 - global_step * 1e-4:.3g}"
            lines.append(_bar(epoch, step + 1, per_epoch,
                              f"loss={loss}, step={step}, global_step={global_step}"))
    return lines


def test_a_bar_global_step_is_the_step(tmp_path: Path) -> None:
    assert faults(tmp_path, _ldm(nan_from=500))[0] == ("AMP006", 499)
    assert faults(tmp_path, _open_sora(nan_from=1099))[0] == ("AMP006", 1099)


def test_a_bar_loss_term_not_finite_is_the_loss(tmp_path: Path) -> None:
    assert faults(tmp_path, _taming(nan_from=1000))[0] == ("AMP006", 1000)


def test_generative_lightning_bars_healthy_are_quiet(tmp_path: Path) -> None:
    assert faults(tmp_path, _ldm()) == []
    assert faults(tmp_path, _taming()) == []
    assert faults(tmp_path, _open_sora()) == []
    # an evaluation metric not finite in the postfix stays evaluation's (no training NaN)
    lines = [_bar(0, done, 1000, f"loss=0.{done:03d}, val/aeloss=nan")
             for done in range(10, 300, 10)]
    assert "AMP006" not in [code for code, _step in faults(tmp_path, lines)]


@pytest.mark.parametrize("key", ["lowest_loss", "prev_loss"])
def test_a_best_so_far_sentinel_is_no_loss(tmp_path: Path, key: str) -> None:
    # an early-stopping loop's ``float("inf")`` before its first value, in a bar's postfix
    # (a term the bar's rule reads) and on a plain metric line
    bar = [_bar(0, done, 1000, f"loss=0.{done:03d}, {key}=inf") for done in range(10, 300, 10)]
    assert faults(tmp_path, bar) == []
    lines = [f"step {step} loss {2.0 - step / 1000:.4f} {key} inf" for step in range(10, 300, 10)]
    assert faults(tmp_path, lines) == []


# -- a step printed where srun prints a rank -----------------------------------------------------

def _muse(steps: range, *, nan_from: int | None = None) -> list[str]:
    lines = []
    for step in steps:
        bad = nan_from is not None and step >= nan_from
        value = "nan" if bad else repr(0.9 * 0.99 ** step)
        lines.append(f"{step}: vae loss: {value} - discr loss: 0.0 - lr: 3e-05")
    return lines


def _first(result: Result) -> tuple[str, int | None, int | None]:
    fault = result.faults[0]
    return fault.code, fault.step, fault.rank


def test_a_step_counting_up_before_its_metrics_is_no_rank(tmp_path: Path) -> None:
    assert faults(tmp_path, _muse(range(60), nan_from=40))[0] == ("AMP006", 40)
    path = tmp_path / "muse.log"
    path.write_text("\n".join(_muse(range(5000, 5600, 10), nan_from=5300)) + "\n")
    assert _first(diagnose(str(path))) == ("AMP006", 5300, 0)
    assert faults(tmp_path, _muse(range(60))) == []


def test_ranks_printing_in_turn_stay_ranks(tmp_path: Path) -> None:
    # srun -l, eight ranks printing a step-less loss in turn: rank 5 NaN from the third round
    lines = [f"{rank}: loss {'nan' if rank == 5 and turn >= 2 else 2.1 - turn / 100}"
             for turn in range(12) for rank in range(8)]
    path = tmp_path / "srun.log"
    path.write_text("\n".join(lines) + "\n")
    code, _step, rank = _first(diagnose(str(path)))
    assert (code, rank) == ("AMP006", 5)
