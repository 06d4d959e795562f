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
               hysteresis: int = 2,
               init: float = 65536.0) -> Iterator[tuple[int, bool, float, float, int]]:
    """DynamicLossScaler (consecutive_hysteresis off): (step, overflow, before, after, h)."""
    scale, left, last_overflow = init, hysteresis, -1
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
                     user: bool, first: int = 1, init: float = 65536.0) -> list[str]:
    """``first``: the step the run starts at (a resumed run counts on from its checkpoint)."""
    lines, skipped = [], 0
    prefix = "[2026-12-03 10:00:00,000] [INFO]"
    for step, overflow, before, after, held in _deepspeed(steps, window, top=top,
                                                          startup=startup, init=init):
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


def _drifting(steps: int, interval: int, *, top: float, floor: float,
              per_halving: int) -> list[Step]:
    """GradScaler whose overflow threshold halves every ``per_halving`` steps from ``top``
    down to ``floor``: a healthy run whose gradients grow slowly over training."""
    scale, tracker, out = 65536.0, 0, []
    for step in range(1, steps + 1):
        limit = max(top / 2 ** (step // per_halving), floor)
        scale, tracker = _grad_scaler_update(scale, tracker, scale > limit, interval)
        out.append((step, scale > limit, scale))
    return out


def _spiky(steps: int, interval: int, *, top: float, spike_every: int) -> list[Step]:
    """GradScaler at its ceiling ``top``, and a loss spike that overflows every
    ``spike_every`` steps."""
    scale, tracker, out = 65536.0, 0, []
    for step in range(1, steps + 1):
        overflow = scale > top or step % spike_every == 0
        scale, tracker = _grad_scaler_update(scale, tracker, overflow, interval)
        out.append((step, overflow, scale))
    return out


def _apex_and_rows(seq: list[Step], every: int) -> list[str]:
    # apex/amp/scaler.py: "Gradient overflow.  Skipping step, loss scaler {} reducing loss
    # scale to {}", and the loop's own row every N steps, without a step counter
    lines = []
    for step, overflow, scale in seq:
        if overflow:
            lines.append("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale "
                         f"to {scale}")
        if step % every == 0:
            lines.append(f"loss {_loss(step):.4f} | lr 0.0003 | loss_scale {scale:g}")
    return lines


def _loop_rows(seq: list[Step], every: int) -> list[str]:
    # A custom loop's print every N steps, without a step counter:
    # print(f"loss {loss:.4f} | lr {lr:g} | loss_scale {scaler.get_scale():g}")
    return [f"loss {_loss(step):.4f} | lr 0.0003 | loss_scale {scale:g}"
            for step, _, scale in seq if step % every == 0]


def _swin_lines(seq: list[Step], *, first_epoch: int, batches: int) -> list[str]:
    """Swin Transformer main.py train_one_epoch, every PRINT_FREQ (10) batches:
    f'Train: [{epoch}/{config.TRAIN.EPOCHS}][{idx}/{num_steps}]\t' ... f'loss_scale
    {scaler_meter.val:.4f} ({scaler_meter.avg:.4f})\t' f'mem {memory_used:.0f}MB'; the grad
    norm is inf on an overflowed step (and so is its running average from then on)."""
    lines, total, norm_avg = [], 0.0, 0.0
    for i, (step, overflow, scale) in enumerate(seq):
        epoch, idx = first_epoch + i // batches, i % batches
        total += scale
        norm = math.inf if overflow else 1.5
        norm_avg = math.inf if overflow or math.isinf(norm_avg) else 1.5
        if idx % 10 == 0:
            lines.append(
                f"[2026-12-03 10:00:00 swin_tiny_patch4_window7_224] (main.py 235): INFO "
                f"Train: [{epoch}/300][{idx}/{batches}]\teta 0:05:00 lr 0.000100\t wd 0.0500\t"
                f"time 0.3000 (0.3000)\tloss {_loss(step):.4f} ({_loss(step):.4f})\t"
                f"grad_norm {norm:.4f} ({norm_avg:.4f})\tloss_scale {scale:.4f} "
                f"({total / (i + 1):.4f})\tmem 8000MB")
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


# DeepSpeedConfig.print: logger.info("  {} {} {}".format(arg, dots, getattr(self, arg))) for
# each field, once per deepspeed.initialize (releases before 0.19)
_DS_CONFIG = ("[2026-12-03 10:00:00,000] [INFO] [config.py:1004:print]   dynamic_loss_scale_args "
              "...... {'init_scale': 65536, 'scale_window': 1000, 'delayed_shift': 2, "
              "'consecutive_hysteresis': False, 'min_scale': 1}")
# fairseq_cli/train.py's logger.info(cfg) as a run starts (0.12: an omegaconf dict, one line)
_FAIRSEQ_CONFIG = (
    "2026-12-03 10:00:00 | INFO | fairseq_cli.train | {'_name': None, 'common': {'_name': None, "
    "'no_progress_bar': False, 'log_interval': 100, 'log_format': None, 'seed': 1, "
    "'cpu': False, 'tpu': False, 'bf16': False, 'memory_efficient_bf16': False, 'fp16': True, "
    "'memory_efficient_fp16': False, 'fp16_no_flatten_grads': False, 'fp16_init_scale': 128, "
    "'fp16_scale_window': None, 'fp16_scale_tolerance': 0.0, 'on_cpu_convert_precision': "
    "False, 'min_loss_scale': 0.0001, 'threshold_loss_scale': None, 'amp': False, "
    "'amp_batch_retries': 2, 'amp_init_scale': 128, 'amp_scale_window': None}, 'criterion': "
    "{'_name': 'label_smoothed_cross_entropy', 'label_smoothing': 0.1}}")


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
    # fairseq's --fp16-init-scale is 128 and its losses are sums over tokens: a start-up
    # back-off 128 -> 8 in four overflows is its own (was AMP003 "4 consecutive overflows took
    # the loss scale from ? to 8", judged from the excerpt)
    "fairseq start-up back-off from 128 to 8": lambda: _fairseq_lines(
        _fairseq(5000, 1024, top=8.0), every=100),
    # rows without a step counter every 50 steps (growth interval 100, the scaler at its
    # ceiling, a loss spike overflowing every 1000 steps): read as one step each, the rows
    # teach a growth interval of 2 and show the scale constant between spikes, where the
    # scaler grew and overflowed back between two rows (was AMP005 "stayed at 32768.0 for 6
    # consecutive clean steps (growth interval 2)")
    "loop rows every 50 steps without a counter, spikes": lambda: _loop_rows(
        _spiky(40_000, 100, top=2.0**15, spike_every=1000), every=50),
    # the same rows while the overflow threshold falls slowly (was AMP005 at each level)
    "loop rows every 50 steps without a counter, slow drift down": lambda: _loop_rows(
        _drifting(20_000, 100, top=2.0**13, floor=2.0**8, per_halving=3000), every=50),
    # apex's overflow lines between rows printed every 10 steps without a counter: the rows
    # are not steps, so no share of skipped steps can be read (was AMP008 "10 of the last 200
    # steps were skipped", the rows counted as the steps between the overflows)
    "apex overflow lines between loop rows without a counter": lambda: _apex_and_rows(
        _torch(40_000, 200, top=2.0**16), every=10),
    # a halving every 3000 steps, 65536 -> 256, printed every 500 steps without a counter:
    # 200 rows are 100,000 steps, not AMP003's window of 200 (was "fell from 32768 to 128
    # (8 halvings) in 59 steps")
    "loop rows every 500 steps without a counter, slow drift down": lambda: _loop_rows(
        _drifting(60_000, 500, top=2.0**16, floor=2.0**8, per_halving=3000), every=500),
    # Swin resumed at epoch 30 from a checkpoint without the scaler's state: a fresh
    # GradScaler(init_scale=2**24) backs off to 2**13 on its first 11 steps (was AMP003 "10
    # consecutive skipped steps from step 18126 (after training was stable)")
    "swin resumed at an epoch's first batch, fresh scaler from 2**24": lambda: _swin_lines(
        _torch(1250, 1000, top=2.0**13, init=2.0**24), first_epoch=30, batches=625),
    # the same run's log appended to an earlier run's (epochs 0 and 1)
    "swin log of a run, then of its resume with a fresh scaler": lambda: [
        *_swin_lines(_torch(1250, 1000, top=2.0**16, startup=1), first_epoch=0, batches=625),
        *_swin_lines(_torch(1250, 1000, top=2.0**13, init=2.0**24), first_epoch=30,
                     batches=625)],
    # two DeepSpeed runs in one log, the second with "initial_scale_power": 32: its engine's
    # configuration dump (DeepSpeedConfig.print) starts it,
    # and its overflow lines come before its first step counter (was AMP003 "6 consecutive
    # skipped steps ... (after training was stable); loss scale 4294967296.0 -> 134217728.0")
    "deepspeed log of two runs, the second from 2**32": lambda: [
        _DS_CONFIG,
        *_deepspeed_lines(1000, 3000, top=2.0**15, startup=2, every=10, user=False),
        _DS_CONFIG,
        *_deepspeed_lines(1000, 3000, top=2.0**15, startup=0, every=10, user=False,
                          init=2.0**32)],
    # two Megatron runs in one log: --initial-loss-scale 65536, then the default 2**32, whose
    # counter starts again at 10 (was AMP003: the second run's start-up back-off judged as a
    # collapse after the first run's stable training)
    # two fairseq runs in one log (the second started again from scratch): each starts with
    # its configuration dump, and the second's start-up overflows (128 -> 8) come before its
    # first progress line (was AMP003 "4 consecutive overflows took the loss scale from ? to
    # 8", the first run's end)
    "fairseq log of two runs": lambda: [
        _FAIRSEQ_CONFIG, *_fairseq_lines(_fairseq(5000, 1024, top=8.0), every=100),
        _FAIRSEQ_CONFIG, *_fairseq_lines(_fairseq(3000, 1024, top=8.0), every=100)],
    "megatron log of two runs with different initial scales": lambda: [
        *_megatron_lines(_megatron(3000, 1000, top=2.0**15, init=2.0**16), every=10),
        *_megatron_lines(_megatron(3000, 1000, top=2.0**15), every=10)],
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


def _collapsing(seq: list[Step], *, after: int, halvings: int = 20) -> list[Step]:
    """``seq`` up to step ``after``, then an overflow on every step (the scale halving each
    time) for ``halvings`` steps: a collapse."""
    out = [item for item in seq if item[0] <= after]
    scale = out[-1][2]
    for step in range(after + 1, after + halvings + 1):
        scale /= 2
        out.append((step, True, scale))
    return out


def test_a_collapse_after_a_resumed_start_up_is_still_amp003(tmp_path: Path) -> None:
    # Swin resumed at epoch 30 with a fresh scaler (its start-up back-off is no fault), then
    # mid-epoch every step overflows: the collapse is found in the rows
    # mid-epoch, an overflow every 5th step with clean steps between, the scale never growing
    # back: 2 halvings a row (AMP003's trajectory, no streak)
    seq = [item for item in _torch(600, 1000, top=2.0**13, init=2.0**24) if item[0] <= 300]
    scale = seq[-1][2]
    for step in range(301, 601):
        overflow = step % 5 == 0 and scale > 2.0**-4
        scale = scale / 2 if overflow else scale
        seq.append((step, overflow, scale))
    found = faults(tmp_path, _swin_lines(seq, first_epoch=30, batches=625))
    # at the collapse (epoch 30 numbered from 1: steps 18125 on; its first overflow at
    # 18430, the first row after it at 18435), not at the back-off; and found, not taken as
    # a start-up that never ended (the rows show no clean step one by one)
    assert [step for code, step in found if code == "AMP003"] == [18125 + 310]


def test_a_collapse_in_the_second_run_of_a_log_is_still_amp003(tmp_path: Path) -> None:
    first = _megatron_lines(_megatron(3000, 1000, top=2.0**15, init=2.0**16), every=10)
    second = _megatron_lines(_collapsing(_megatron(3000, 1000, top=2.0**15), after=1000,
                                         halvings=40), every=10)
    assert "AMP003" in [code for code, _ in faults(tmp_path, [*first, *second])]


def test_a_collapse_in_rows_without_a_counter_is_still_amp003(tmp_path: Path) -> None:
    # rows every 50 steps without a counter, each showing the scale halved from the last:
    # every logging interval overflowed
    seq = _spiky(2000, 100, top=2.0**15, spike_every=10**9)
    rows = _loop_rows(seq, every=50)
    scale = 32768.0
    for _ in range(12):
        scale /= 2
        rows.append(f"loss {_loss(2000):.4f} | lr 0.0003 | loss_scale {scale:g}")
    assert "AMP003" in [code for code, _ in faults(tmp_path, rows)]


def test_rows_that_halve_the_scale_below_1_tell_the_cascade_too(tmp_path: Path) -> None:
    # a row every 50 steps, each with the scale halved from 65536 to below 1: the underflow
    # (AMP004) has a cause the rows show, an overflow on every logging interval (AMP003)
    rows, scale = [], 65536.0
    for step in range(50, 3001, 50):
        scale = scale / 2 if step > 2000 else scale
        rows.append(f"step {step} | loss {_loss(step):.4f} | lr 0.0003 | grad_scale {scale:g}")
    found = faults(tmp_path, rows)
    assert found[0] == ("AMP003", 2050) and "AMP004" in [code for code, _ in found], found


def test_a_fairseq_cascade_after_training_was_under_way_is_still_amp003(
        tmp_path: Path) -> None:
    # the start-up back-off to 8 is fairseq's own, but four overflows in a row down to 8
    # after stable rows at 128 are a collapse
    seq = _fairseq(3000, 1024, top=2.0**7)
    step = len(seq)
    scale = seq[-1][2]
    for _ in range(6):
        step, scale = step + 1, scale / 2
        seq.append((step, True, scale))
    assert "AMP003" in [code for code, _ in faults(tmp_path, _fairseq_lines(seq, every=100))]


def test_a_collapse_in_the_second_deepspeed_run_is_still_amp003(tmp_path: Path) -> None:
    # the run started by its configuration dump is judged as a run: after its start-up and
    # 3000 stable steps, 20 overflows in a row (each halving) are a collapse
    lines = [_DS_CONFIG,
             *_deepspeed_lines(1000, 3000, top=2.0**15, startup=2, every=10, user=False),
             _DS_CONFIG,
             *_deepspeed_lines(1000, 3000, top=2.0**15, startup=0, every=10, user=False,
                               init=2.0**32)]
    scale = 2.0**15
    for _ in range(20):
        lines.append("[2026-12-03 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] "
                     "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
                     f"{int(scale)}, reducing to {int(scale / 2)}")
        scale /= 2
    assert "AMP003" in [code for code, _ in faults(tmp_path, lines)]


def test_a_collapse_in_the_second_fairseq_run_is_still_amp003(tmp_path: Path) -> None:
    # the second run, started by its configuration dump, backs off to 8 at start-up (its own)
    # and trains; then 20 overflows in a row halve its scale: a collapse
    second = _fairseq_lines(_collapsing(_fairseq(3000, 1024, top=8.0), after=2000), every=100)
    lines = [_FAIRSEQ_CONFIG, *_fairseq_lines(_fairseq(5000, 1024, top=8.0), every=100),
             _FAIRSEQ_CONFIG, *second]
    assert "AMP003" in [code for code, _ in faults(tmp_path, lines)]
