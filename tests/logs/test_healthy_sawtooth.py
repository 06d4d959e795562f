"""Healthy fp16 runs, generated in the test, must get "no fault found" (info at most).

Each generator follows its scaler's own update rule (read in the tools' source) and prints
the tool's own line format, so a false alarm here is the doctor misreading a healthy run:

- torch ``GradScaler``: halve and reset the tracker on an overflow, double after
  ``growth_interval`` clean steps (torch/amp/grad_scaler.py ``_amp_update_scale_``);
- DeepSpeed ``DynamicLossScaler`` (runtime/fp16/loss_scaler.py ``update_scale``): hysteresis
  spends one overflow before halving, growth every ``loss_scale_window`` clean iterations
  since the last overflow, growth silent; ``[deepspeed] OVERFLOW! ...`` lines and the engine's
  ``step=N, skipped=K`` progress lines;
- Megatron-LM ``DynamicGradScaler`` (megatron/core/optimizer/grad_scaler.py): hysteresis 2
  refilled only by a growth, ``training_log``'s iteration lines with per-interval skip counts;
- fairseq ``DynamicLossScaler`` (fairseq/optim/dynamic_loss_scaler.py): growth every
  ``scale_window`` (``2**14 / world_size / update_freq``, 16384 on one GPU), the trainer's
  ``NOTE: gradient overflow detected`` line, ``num_updates`` counting applied updates only;
- HF Trainer rows carrying denpex's ``amp/loss_scale`` and ``amp/skipped_steps``.

Plus the genuine cases that must stay found: a scale that never grows again after overflows.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks import MonitorConfig, Thresholds
from denpex_callbacks.logs.doctor import diagnose

Step = tuple[int, bool, float]  # (step, overflowed, scale after the step's update)


def _loss(step: int) -> float:
    return 2.5 * math.exp(-step / 5000) + 0.5 + 0.01 * math.sin(step)


def _torch(steps: int, interval: int, *, top: float, startup: int = 0,
           init: float = 65536.0) -> list[Step]:
    """GradScaler: a step overflows while the scale is above ``top`` (the sawtooth) and in the
    first ``startup`` steps (the start-up back-off)."""
    scale, tracker, out = init, 0, []
    for step in range(1, steps + 1):
        overflow = step <= startup or scale > top
        scale, tracker = _grad_scaler_update(scale, tracker, overflow, interval)
        out.append((step, overflow, scale))
    return out


def _grad_scaler_update(scale: float, tracker: int, overflow: bool,
                        interval: int) -> tuple[float, int]:
    """GradScaler.update(): the scale and growth tracker after one step."""
    if overflow:
        return scale * 0.5, 0
    tracker += 1
    return (scale * 2.0, 0) if tracker == interval else (scale, tracker)


def _megatron(steps: int, interval: int, *, top: float, hysteresis: int = 2,
              init: float = 2.0**32) -> list[Step]:
    """DynamicGradScaler: the hysteresis tracker is refilled only by a growth."""
    scale, growth, left, out = init, 0, hysteresis, []
    for step in range(1, steps + 1):
        overflow = scale > top
        if overflow:
            growth, left = 0, left - 1
            if left <= 0:
                scale = max(scale * 0.5, 1.0)
        else:
            growth += 1
            if growth == interval:
                growth, left, scale = 0, hysteresis, scale * 2.0
        out.append((step, overflow, scale))
    return out


def _deepspeed(steps: int, window: int, *, top: float, startup: int = 0,
               hysteresis: int = 2) -> Iterator[tuple[int, bool, float, float, int]]:
    """DynamicLossScaler (consecutive_hysteresis off): (step, overflow, before, after, h)."""
    scale, left, last_overflow = 65536.0, hysteresis, -1
    for it in range(steps):
        before, held = scale, left
        overflow = it < startup or scale > top
        if overflow:
            if left == 1:
                scale = max(scale / 2, 1.0)
            else:
                left -= 1
            last_overflow = it
        elif (it - last_overflow) % window == 0:
            left, scale = hysteresis, scale * 2.0
        yield it + 1, overflow, before, scale, held


def _fairseq(steps: int, window: int, *, top: float, init: float = 128.0) -> list[Step]:
    """DynamicLossScaler with tolerance 0: every overflow halves."""
    scale, last_overflow, out = init, -1, []
    for it in range(steps):  # the scaler's _iter: every iteration, overflowed or not
        overflow = scale > top
        if overflow:
            scale, last_overflow = scale / 2, it
        elif (it - last_overflow) % window == 0:
            scale *= 2
        out.append((it + 1, overflow, scale))
    return out


def _torch_lines(seq: list[Step], every: int = 1, start: int = 0) -> list[str]:
    return [f"step {step} loss {_loss(step):.4f} loss_scale {scale}"
            for step, _, scale in seq[start:] if step % every == 0]


def _megatron_lines(seq: list[Step], every: int) -> list[str]:
    lines, skipped = [], 0
    for step, overflow, scale in seq:
        skipped += overflow
        if step % every:
            continue
        # training_log leaves out the loss and the grad norm when every iteration was skipped
        loss = "" if skipped == every else f" lm loss: {_loss(step):.6E} |"
        norm = "" if skipped == every else " grad norm: 1.234 |"
        lines.append(f" [2026-12-03 10:00:00] iteration {step:8d}/  500000 | consumed samples: "
                     f"{step * 256:12d} | learning rate: 1.000000E-04 | global batch size:   256"
                     f" |{loss} loss scale: {scale:.1f} |{norm} number of skipped iterations: "
                     f"{skipped:3d} | number of nan iterations:   0 |")
        skipped = 0
    return lines


def _deepspeed_lines(window: int, steps: int, *, top: float, startup: int, every: int,
                     user: bool, first: int = 1) -> list[str]:
    """``first``: the step the run starts at (a resumed run counts on from its checkpoint)."""
    lines, skipped = [], 0
    prefix = "[2026-12-03 10:00:00,000] [INFO]"
    for step, overflow, before, after, held in _deepspeed(steps, window, top=top,
                                                          startup=startup):
        step += first - 1
        if overflow:
            skipped += 1
            tail = (f"reducing to {int(after)}" if after != before else
                    f"but hysteresis is {held}. Reducing hysteresis to {held - 1}")
            lines.append(f"{prefix} [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0"
                         f" Skipping step. Attempted loss scale: {int(before)}, {tail}")
        if step % every == 0:
            lines.append(f"{prefix} [logging.py:96:log_dist] [Rank 0] step={step}, "
                         f"skipped={skipped}, lr=[0.0001], mom=[(0.9, 0.999)]")
        if user:  # the training script's own line, with the engine's loss_scale
            lines.append(f"step={step}, loss={_loss(step):.4f}, loss_scale={after}")
    return lines


def _fairseq_lines(seq: list[Step], every: int) -> list[str]:
    lines, updates = [], 0
    for _, overflow, scale in seq:
        if overflow:
            lines.append("2026-12-03 10:00:00 | INFO | fairseq.trainer | NOTE: gradient overflow "
                         f"detected, ignoring gradient, setting loss scale to: {float(scale)}")
            continue
        updates += 1  # num_updates counts applied updates only
        if updates % every == 0:
            lines.append(f"2026-12-03 10:00:00 | INFO | train_inner | epoch 001:  {updates:5d} / "
                         f"90000 loss=9.123, nll_loss=8.1, ppl=274.3, wps=12000, ups=3.1, "
                         f"wpb=4000, bsz=128, num_updates={updates}, lr=0.0005, gnorm=1.234, "
                         f"loss_scale={scale:g}, train_wall=30, gb_free=10.1, wall=100")
    return lines


def _hf_lines(seq: list[Step], every: int) -> list[str]:
    lines, skipped = [], 0
    for step, overflow, scale in seq:
        skipped += overflow
        if step % every == 0:
            lines.append(f"{{'loss': {_loss(step):.4f}, 'grad_norm': 1.23, 'learning_rate': 5e-05, "
                         f"'epoch': {step / 10000:.2f}, 'amp/loss_scale': {scale}, "
                         f"'amp/skipped_steps': {skipped}}}")
    return lines


# --- healthy runs ------------------------------------------------------------------------------
HEALTHY = {
    # the excerpt starts a third of the way into a growth interval, then a sawtooth
    "torch every step, mid-interval excerpt": lambda: _torch_lines(
        _torch(1500, 100, top=2.0**17, startup=3), start=33),
    "torch every 10 steps, start-up back-off": lambda: _torch_lines(
        _torch(3000, 200, top=2.0**18, startup=12), every=10),
    # hysteresis 2 skips once at the scale before halving: one all-skipped row per tooth
    # (was AMP005 "every iteration of N logging intervals skipped at a constant scale")
    "megatron log-interval 1, hysteresis 2": lambda: _megatron_lines(
        _megatron(1000, 100, top=2.0**13), every=1),
    "megatron log-interval 10": lambda: _megatron_lines(_megatron(3000, 100, top=2.0**17), 10),
    "deepspeed progress and own scale lines": lambda: _deepspeed_lines(
        100, 800, top=2.0**17, startup=4, every=10, user=True),
    # resumed from the checkpoint of step 450 after a crash at 533, appended to the same log,
    # its scaler starting over at 65536 with its own start-up back-off: the rows' scale fell
    # 262144 -> 16384 across the restart (was AMP003 "halved on 4 consecutive rows")
    "deepspeed resumed with a fresh scaler": lambda: [
        *_deepspeed_lines(100, 533, top=2.0**17, startup=4, every=10, user=True),
        *_deepspeed_lines(100, 800, top=2.0**17, startup=4, every=10, user=True, first=451)],
    # one GPU: the scale window is 2**14 updates, longer than the 6000 clean steps at which a
    # scale of unknown growth interval used to be called stuck (was AMP005)
    "fairseq one GPU, scale window 16384": lambda: _fairseq_lines(
        _fairseq(40_000, 16384, top=2.0**7), every=1),
    # rows without a step counter stand for logging_steps steps each, not one: read as one,
    # a sawtooth's skip per growth interval was a skip every few steps (was AMP008)
    "hf rows every 10 steps, sawtooth": lambda: _hf_lines(
        _torch(2000, 100, top=2.0**17, startup=5), every=10),
    "hf rows every 500 steps (the Trainer's default), growth interval 2000": lambda: _hf_lines(
        _torch(200_000, 2000, top=2.0**16), every=500),
}


@pytest.mark.parametrize("name", HEALTHY)
def test_healthy_runs_get_no_fault(tmp_path: Path, name: str) -> None:
    result = diagnose_lines(tmp_path, HEALTHY[name]())
    assert [(d.code, d.step) for d in result.faults] == [], name


def test_rows_printing_only_the_new_scale_show_its_growth(tmp_path: Path) -> None:
    # HF rows print the scale after their step only: a scale growing every 100 steps never
    # stayed anywhere for the (here lowered) limit of 300 clean steps; each growth is a new
    # value (was AMP005 at step 1).
    path = tmp_path / "rows.log"
    path.write_text("\n".join(_hf_lines(_torch(1200, 100, top=2.0**40), every=1)) + "\n",
                    encoding="utf-8")
    config = MonitorConfig(report_dir=None, thresholds=Thresholds(stuck_clean_steps=300))
    result = diagnose(str(path), config=config)
    assert result.error is None and [d.code for d in result.faults] == []


def test_one_odd_stretch_does_not_set_the_growth_interval(tmp_path: Path) -> None:
    # A start-up overflow at step 3, the scale set by hand (x2) at step 30 (GradScaler's
    # update(new_scale) leaves the tracker alone), then growth every 100 steps and a
    # sawtooth. The 27 steps from the overflow to the hand-set doubling are no growth
    # interval: learnt from that one stretch, every full interval after it was AMP005.
    scale, tracker, lines = 65536.0, 0, []
    for step in range(1, 1500):
        scale, tracker = _grad_scaler_update(scale, tracker, step == 3 or scale > 2.0**19, 100)
        if step == 30:
            scale *= 2
        lines.append(f"step {step} loss {_loss(step):.4f} loss_scale {scale}")
    assert faults(tmp_path, lines) == []


# --- the genuine cases stay found ---------------------------------------------------------------
def test_a_scale_that_never_grows_after_overflows_is_still_amp005(tmp_path: Path) -> None:
    # fairseq printing every update: growth every 100 updates (128 -> 2048, the interval
    # learnt from two agreeing stretches), three overflows (2048 -> 256), then 700 clean
    # updates at 256 that never grow: growth is disabled, AMP005 where the clean stretch began
    # (num_updates counts applied updates only: the first one after the overflows is 400).
    seq = _fairseq(399, 100, top=2.0**40)
    scale, step = seq[-1][2], len(seq)
    for _ in range(3):
        step, scale = step + 1, scale / 2
        seq.append((step, True, scale))
    seq += [(s, False, scale) for s in range(step + 1, step + 701)]
    found = faults(tmp_path, _fairseq_lines(seq, every=1))
    assert [code for code, _ in found] == ["AMP005"]
    assert 400 <= (found[0][1] or 0) <= 403


def test_megatron_skipping_every_iteration_at_a_constant_scale_is_still_amp005(
        tmp_path: Path) -> None:
    # Every iteration skipped at one scale over several log intervals: stuck, not hysteresis.
    seq = [(s, True, 16384.0) for s in range(1, 41)]
    assert "AMP005" in [code for code, _ in faults(tmp_path, _megatron_lines(seq, every=10))]
